"""A citation you can see: the cited passage shown where it stands in its source (issue 21)."""
