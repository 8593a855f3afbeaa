"""The engine's services, one per responsibility; each declares its operations (``declare.py``)."""
