"""The engine's operations table: every operation the services declare, by name.

A leaf below the engine: the engine puts these operations on ``Engine`` (core/services/facade.py),
the job queue runs the job kinds they declare (core/jobs/kinds.py), and the CLI hand-off
(core/handoff/commands.py) and the HTTP API (core/api/registry.py) read the same table here, so
neither needs to import the engine that serves them. Plugins' services (core/services/plugin.py)
join the table here, once, when it is first imported (the outside plugins are loaded then).
"""

from __future__ import annotations

from core.services.accounts import AccountService
from core.services.answers import AnswerService
from core.services.api_bridge import ApiBridge
from core.services.assistants import AssistantService
from core.services.chats import ChatService
from core.services.chunk_edits import ChunkEditService
from core.services.curated import CuratedService
from core.services.declare import Operation
from core.services.facade import collect, register_job_kinds
from core.services.files import FileService
from core.services.jobs import JobService
from core.services.knowledge_bases import KnowledgeBaseService
from core.services.metadata import MetadataService
from core.services.plugin import plugin_services
from core.services.openai_compat import OpenAICompatService
from core.services.settings import SettingsService
from core.services.sources import SourceService

# The engine's attribute for each service (``engine.services.<name>``) -> its class.
SERVICES: dict[str, type] = {
    "settings": SettingsService, "accounts": AccountService, "kbs": KnowledgeBaseService,
    "files": FileService, "jobs": JobService, "answers": AnswerService, "chats": ChatService,
    "sources": SourceService, "curated": CuratedService, "openai": OpenAICompatService,
    "api": ApiBridge, "chunk_edits": ChunkEditService, "metadata": MetadataService,
    "assistants": AssistantService}

# Services that plugins add (``register_service``; Google Drive's among them), built by the engine.
PLUGIN_SERVICES: dict[str, type] = plugin_services()
_taken = set(SERVICES) & set(PLUGIN_SERVICES)
if _taken:
    raise TypeError(f"plugin service name(s) {', '.join(sorted(_taken))} are core's own")

OPERATIONS: dict[str, Operation] = collect({**SERVICES, **PLUGIN_SERVICES})

# The queued jobs' kinds the services declare (``@job_kind``), registered with the job queue.
JOB_KINDS = register_job_kinds({**SERVICES, **PLUGIN_SERVICES})
