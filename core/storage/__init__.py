"""The data folder on disk: ownership and permissions, free-space floor."""
