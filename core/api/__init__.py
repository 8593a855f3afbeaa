"""The HTTP API and the operation registry it is derived from (see ``registry.py``)."""
