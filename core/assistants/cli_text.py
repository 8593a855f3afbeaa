"""How ``python -m core assistants ...`` read their options and print without ``--json`` (the
commands are derived from core/services/assistants.py's operations by core/cli/derived.py)."""

from __future__ import annotations

import json

from core.metadata.where import CLI_HELP, from_cli
from core.services.declare import Arg


def _kbs(typed: list[str]) -> list[str]:
    return [] if typed == [""] else typed


def _users(typed: str) -> list[str]:
    return [u.strip() for u in typed.split(",") if u.strip()]


NAME = Arg(metavar="name", help="the assistant's name or id")
# Its preset, as ``create`` and ``update`` read it (``create``'s knowledge bases: none given, none)
PRESET = {
    "kbs": Arg(flag="--kb", repeat=True, parse=_kbs, default=[],
               help="a knowledge base it answers from (repeatable; none: every one the asker may read; "
                    "--kb '' clears them)"),
    # its order stated: typing may hand back an equal Literal["normal", "strict"] made first elsewhere
    "mode": Arg(choices=("strict", "normal"),
                help="strict (default when created) or normal; the global strict policy still wins for plain users"),
    "strict_min_similarity": Arg(help="strict mode's threshold (0-1)"),
    "normal_min_similarity": Arg(help="normal mode's threshold (0-1)"),
    "top_k": Arg(help="passages used per answer (1-50)"),
    "prompt": Arg(help="its RAG template: must contain {{CONTEXT}}", from_file="--prompt-file",
                  from_file_help="read the template from this UTF-8 file"),
    "refusal_text": Arg(help="the reply when nothing in its knowledge bases answers (strict)"),
    "shared_with": Arg(flag="--share", parse=_users, help="comma-separated user names it is shared with ('' clears)"),
    # its metadata filter on every question (replaces the one it had)
    "where": Arg(repeat=True, metavar="FIELD=VALUE", parse=from_cli, help=CLI_HELP),
}
CHANGES = {"assistant": NAME, "name": Arg(flag="--rename", help="its new name"),
           "clear": Arg(help="put this tuning back to the global setting (repeatable)"), **PRESET}


def line(a: dict) -> str:
    kbs = ", ".join(a["kbs"]) or "every readable knowledge base"
    hidden = f" (+{a['hidden_kbs']} not readable)" if a["hidden_kbs"] else ""
    return f"{a['name']:<24} {a['mode']:<7} {a['visibility']:<8} {a['owner']:<12} {kbs}{hidden}"


def listing_text(rows: list) -> str:
    return "\n".join(map(line, rows)) or "no assistants"


def details_text(a: dict) -> str:
    rows = [("name", a["name"]), ("id", a["id"]), ("owner", a["owner"]), ("visibility", a["visibility"]),
            ("shared with", ", ".join(a["shared_with"]) or "-"), ("mode", a["mode"]),
            ("knowledge bases", ", ".join(a["kbs"]) or "every readable knowledge base"),
            ("strict min similarity", a["strict_min_similarity"]), ("normal min similarity", a["normal_min_similarity"]),
            ("top-k", a["top_k"]), ("refusal text", a["refusal_text"] or "(the global no-hit reply)"),
            ("prompt", a["prompt"] or "(the global template)"), ("description", a["description"] or "-"),
            ("filter", json.dumps(a["where"], ensure_ascii=False) if a["where"] else "-")]
    return "\n".join(f"{k:<22} {'(global)' if v is None else v}" for k, v in rows)
