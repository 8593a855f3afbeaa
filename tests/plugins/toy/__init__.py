"""A toy plugin package, outside core/: a document format, a web search engine and a remote
source. Loaded the way a deployment loads its own: ``RAGDESK_PLUGINS=tests.plugins.toy``."""

from tests.plugins.toy import engine, parser, shelves, source  # noqa: F401 (each registers itself at import)
