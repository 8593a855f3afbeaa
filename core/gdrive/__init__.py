"""Google Drive: per-user OAuth connection, a Drive v3 client, and Drive as a synced source."""
