"""Adapters that let other frameworks use ragdesk (optional extras)."""
