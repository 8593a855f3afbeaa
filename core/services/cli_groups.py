"""The CLI command groups core's services declare commands under (``Cli(group=...)``).

A leaf: ``python -m core``'s command list names each group from here and imports the service only
when the group is run or its help asked for (core/cli/derived.py: ``register_later``) — importing
the services that declare them took ~0.5 s of every command's start (the parser took 1.26 s instead
of 0.73 s on this busy machine), commands that never open the engine included.
"""

from __future__ import annotations

from core.services.declare import CliGroup

KB = CliGroup("kb", "create, list, rename, delete, index knowledge bases")
FILES = CliGroup("files", "list or delete files")
SETTINGS = CliGroup("settings", "read or change settings")
CHUNKS = CliGroup("chunks", "a file's chunks: list, edit (text, keywords), disable, enable, add, history")
FIELDS = CliGroup("fields", "metadata fields of a knowledge base (text, number, date, tags)")
META = CliGroup("meta", "metadata values of knowledge-base files")
ASSISTANTS = CliGroup("assistants", "assistants: named presets of knowledge bases, mode, thresholds, prompt")
CURATED = CliGroup("curated", "approved question/answer pairs of a knowledge base (answered verbatim)")
CHATS = CliGroup("chats", "list, show or export (Markdown) saved chats")
JOBS = CliGroup("jobs", "the job queue: list, show, wait for or cancel jobs (any process)")
USERS = CliGroup("users", "list accounts, change roles, disable/enable, reset passwords")
TOKENS = CliGroup("tokens", "API tokens of the HTTP API: create (shown once), list, revoke")
SOURCES = CliGroup("sources", "synced sources (Drive selections, web pages, folders, WebDAV, DingTalk): list, add, sync, log")

# Commands of their own (no group), their arguments made when run (core/cli/derived.py:
# ``register_command_later``); the line each has in ``python -m core --help``
SEARCH_HELP = "retrieve chunks for a query"
DOCTOR_HELP = "check (and with --repair fix) database vs vector store"
INGEST_HELP = "add files, folders or URLs (web pages, PDFs, YouTube videos) to a knowledge base"
REINDEX_HELP = "rebuild a knowledge base with the current settings, no downtime"
ASK_HELP = "answer a question from the knowledge bases (normal or strict mode)"
COMPARE_HELP = "answer a question in normal and in strict mode, side by side"
