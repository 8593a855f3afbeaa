"""CoreError → HTTP: the status and stable code each error class declares (core/errors.py), the
engine's message.

The engine decides not-found versus forbidden (another user's private knowledge base is "not
found", so its name does not leak); this only translates. Unexpected errors are a 500 with an
error id, the traceback in the server's log only.
"""

from __future__ import annotations

from fastapi.responses import JSONResponse

from core.errors import CoreError


def error_code(exc: CoreError) -> str:
    """The class's stable code: the one it (or a base) declares, else its name in snake case (NotFound → not_found)."""
    return type(exc).code


def http_status(exc: CoreError) -> int:
    """The class's status (500, the server's own state, unless it or a base says otherwise)."""
    return type(exc).http_status


def error_body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


def error_response(exc: CoreError) -> JSONResponse:
    """The JSON error reply for ``exc``, with the headers its status calls for."""
    status = http_status(exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    if getattr(exc, "retry_after_seconds", None):  # locked out for wrong tokens, or a pool that is full
        headers["Retry-After"] = str(exc.retry_after_seconds)
    return JSONResponse(error_body(error_code(exc), exc.message), status_code=status, headers=headers)


_LOC_PART_CHARS = 64  # a key a megabyte long is named by its start
MAX_ERROR_DETAILS = 10


def short_loc(loc) -> list:
    return [p if isinstance(p, int) else (str(p)[:_LOC_PART_CHARS] + ("…" if len(str(p)) > _LOC_PART_CHARS else ""))
            for p in loc]


def validation_reply(errors: list[dict], total: int | None = None) -> dict:
    """A 422 body for pydantic's errors: the first few, each with a short location, and how many
    there were — never the input, never a million entries (a wrong array of a million items)."""
    total = len(errors) if total is None else total
    details = [{"loc": short_loc(e.get("loc", ())), "msg": str(e.get("msg", ""))[:200]}
               for e in errors[:MAX_ERROR_DETAILS]]
    first = details[0] if details else {"loc": [], "msg": "invalid"}
    message = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    if total > 1:
        message += f" (and {total - 1} more)"
    return error_body("invalid_input", message, details=details, count=total)
