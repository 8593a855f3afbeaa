"""The one encryption box for stored secrets, and its key rotation."""
