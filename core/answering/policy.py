"""Strict mode is a policy, not a default: who may see a normal-mode answer while it is on.

With ``strict.rag_strict_mode`` on, every answer goes out strict unless the actor may compare:
admins always, and the roles an admin lists in ``strict.compare_roles``. A request for a normal
answer from anyone else is answered strict, with a notice saying why; the Strict A/B compare
(whose normal column is a normal answer) is refused with ``PermissionDenied``. The compare is
the admin's simulation panel (seed 002), so it needs that permission whether strict mode is on
or off. Checked in answering itself, so the chat, the A/B page, the CLI and any later API
follow it alike.
"""

from __future__ import annotations

from core.errors import InvalidInput, PermissionDenied
from core.notices import NOTICES, Notice, notice
from core.settings.model import Settings
from core.types import Actor

MODES = ("normal", "strict")
OVERRIDE_REFUSED = NOTICES["policy.override_refused"]["en"]


def may_compare(actor: Actor, settings: Settings) -> bool:
    """May see normal-mode answers while strict mode is on (and use the Strict A/B compare)."""
    return actor.is_admin or actor.role in settings.strict.compare_roles


def check_compare(actor: Actor, settings: Settings) -> None:
    if not may_compare(actor, settings):
        raise PermissionDenied("the Strict A/B compare shows normal-mode answers, so it is for admins "
                               "(an admin may open it to other roles with strict.compare_roles)")


def answer_mode(requested: str | None, actor: Actor, settings: Settings) -> tuple[str, Notice | None]:
    """(the mode this answer runs in, a notice when the requested mode was refused)."""
    if requested is not None and requested not in MODES:
        raise InvalidInput(f"mode must be normal or strict, not {requested!r}")
    strict_on = settings.strict.rag_strict_mode
    if requested is None:
        return ("strict" if strict_on else "normal"), None
    if requested == "normal" and strict_on and not may_compare(actor, settings):
        return "strict", notice("policy.override_refused")
    return requested, None
