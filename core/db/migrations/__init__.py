"""Alembic's script folder: ``env.py`` and one file per schema revision in ``versions/``."""
