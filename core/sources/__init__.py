"""Remote document sources kept in sync with a knowledge base (Google Drive, web pages).

A source is a small protocol (``base.Source``): list items with a version, fetch one. The sync
engine (``sync.py``) compares a listing with what the knowledge base holds and never knows
which kind of source it is talking to.
"""
