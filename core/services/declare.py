"""Engine operations, each declared once on the service method that implements it.

``@operation(...)`` on a service method says who may call it and how it crosses processes:

- ``access``: ``"user"`` (a signed-in Actor; the service checks each object it touches),
  ``"admin"`` (an admin Actor, checked here before the method runs, with ``admin_does`` as the
  refusal's words), or ``"open"`` (no Actor: ``why`` says why that is safe — the security test
  reads it);
- ``job``: the method queues a job (core/jobs/) and returns its Future;
- ``handoff``: the CLI may send it to the process holding the embedded store
  (``True``, or a ``Remote`` saying how);
- ``http``: the HTTP API's route(s) over it (``Http``: method and path, which parameters the
  route takes and under what names, values it fixes, the output model a caller sees; ``mcp``
  names the MCP tool the route also is);
- ``cli``: the CLI subcommand over it (``Cli``), built by ``core/cli/derived.py`` from the
  signature (arguments), the docstring (help) and the output model (``--json``).

From these declarations come the Engine's facade (``core/engine.py``: ``engine.<name>`` runs the
owning service's method after the access rule), the CLI hand-off's schema, server and client
(``core/handoff/commands.py``: arguments validated against a model made from the method's
signature, results encoded and decoded from its return annotation), the HTTP API's routes and
OpenAPI schema (``core/api/routes.py``: the route's input model is made from the same
signature), and the security walks of every operation and every route
(``tests/security/test_engine_surface.py``, ``tests/api/test_every_route.py``). A new operation
is one decorated method on a service.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model

Access = Literal["user", "admin", "open"]


@dataclass(frozen=True)
class Remote:
    """How an operation runs when the CLI hands it off to the process holding the store."""

    via: str | None = None  # run this (queued) operation with the same arguments and wait for its Future
    run: Callable[[Any, dict], Any] | None = None  # (engine, args) -> result, as the local admin
    prepare: Callable[[dict], dict] | None = None  # client side, before sending (e.g. paths made absolute)
    send_result: bool = True  # False: the result stays in the serving process (it holds secrets)


@dataclass(frozen=True)
class Http:
    """One HTTP route over an operation (core/api/routes.py builds it).

    The route's input is the operation's signature: ``params`` the parameters it takes (None: all
    that cross a process boundary, less ``fixed``), ``rename`` the route's name for a parameter
    (``{"kb": "ref"}``), ``fixed`` the values the route sets itself. Path fields are names in
    braces; a GET or DELETE takes the others from the query string. ``out`` is what a caller may
    see (a pydantic model, or ``list[Model]``), read from the result's attributes, or from
    ``reply(route_input, result)`` when the route shapes the result itself.
    """

    method: str
    path: str
    out: Any
    summary: str
    name: str = ""  # the route's name (default: the operation's); one operation may have several routes
    params: tuple[str, ...] | None = None
    rename: dict[str, str] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    body: str = ""  # "none" | "json" | "multipart" (default: none for GET/DELETE, json otherwise)
    status_code: int = 200
    tag: str = ""
    example: dict[str, Any] = field(default_factory=dict)  # values for required fields (docs, security walk)
    reply: Callable[[dict, Any], Any] | None = None
    streams: bool = False  # ``stream: true`` asks for server-sent events; the method takes ``on_event``
    # the route always answers with server-sent events: the operation's events as they happen, its
    # reply last (core/api/event_stream.py); the method takes ``on_event``
    events: bool = False
    extra: str = "forbid"  # "ignore": unknown fields are dropped (OpenAI clients send many)
    # the API's thread pool for it (core/api/pools.py): "light" (default), "answer"; a multipart
    # route is an "upload"
    pool: str = ""
    max_body_kb: int = 0  # the largest JSON body it reads (0: the API's default, core/api/gate.py)
    # the route is also this MCP tool (core/mcp/): same input, output and access rule ("": no tool)
    mcp: str = ""


@dataclass(frozen=True)
class CliGroup:
    """A CLI command whose subcommands are operations (``python -m core fields list``): its name and
    its line in ``python -m core --help``. Its subcommands come in the order they are declared."""

    name: str
    help: str


@dataclass(frozen=True)
class Arg:
    """How one parameter reads on the command line when the signature's own reading is not the one
    wanted (core/cli/derived.py). Each field left empty keeps that reading."""

    flag: str | tuple[str, ...] = ""  # an option ("--kb", or ("-o", "--output")) even without a default
    metavar: str | None = None  # the value's name in the help ("FIELD=VALUE", "index")
    help: str | None = None  # default: the parameter's Field(description=...)
    # with ``parse``: "+" reads one or more words; "?" without it and without ``flag``: a positional
    # argument over a parameter with a default, which may be left out (``settings get [key]``)
    nargs: str | None = None
    repeat: bool = False  # with ``parse``: the option may be given again and again (its words a list)
    parse: Callable[[Any], Any] | None = None  # the words typed -> the value (raise InvalidInput on bad ones)
    from_file: str = ""  # a second option, exclusive with ``flag``, reading the value from a UTF-8 file
    from_file_help: str | None = None
    missing: str = ""  # a parameter without a default read by option: the error when it is left out
    default: Any = inspect.Parameter.empty  # ... or the value it then takes
    required: bool = False  # needed though the operation has a default: an option (with flag), else a positional
    each: bool = False  # one or more words, the operation run once for each (``delete ID...``)
    path: bool = False  # the word typed is a file's path, the value its bytes (``import FILE``)
    # the values a str parameter may take on the command line (the operation checks them itself), or
    # a Literal's values in the order shown (typing may give an equal Literal in another order)
    choices: tuple[str, ...] = ()
    # the value read (argparse's type applied, ``parse`` run) checked before anything is opened:
    # raises InvalidInput, so a refusal reads the same here and through the hand-off (whose argument
    # model would refuse in its own words)
    check: Callable[[Any], None] | None = None
    # a secret (a password), never a word on the command line (``ps`` shows those to every local user):
    # read when the command runs, typed at the terminal without echo (twice) or standard input's first
    # line; the text names it ("new password") in the prompt, the help and the errors. With it,
    # ``from_file`` is an option naming a file whose first line it is ("-": standard input),
    # ``metavar`` that option's value, and ``check`` checks the value read (a blank refresh token)
    secret: str = ""
    prompt: str = ""  # with ``secret``: the terminal's words when they are not its name ("WebDAV password")
    # with ``secret``: typed twice at a terminal (a new password: a typo would lock it away), or
    # once (False: a credential its own server checks when it is used, the WebDAV password)
    confirm: bool = True
    # with ``secret``: options never accepted and left out of the help, the ones someone would try
    # (``--app-secret``; ``--password`` beside ``--password-file``, which argparse would otherwise read
    # as its abbreviation, the secret taken for a path and printed in the error): given, the command
    # is refused with how to give the secret instead (``refusal``: those words, when not the general
    # ones: ``--refresh-token``'s)
    refuse: str | tuple[str, ...] = ""
    refusal: str = ""


@dataclass(frozen=True)
class Cli:
    """A CLI subcommand over an operation (core/cli/derived.py): ``name`` is the subcommand (under
    ``group`` when given), ``help`` its line in the command list (default: the docstring's first
    paragraph), ``args`` a parameter's own reading (``Arg``), ``out`` what it prints (a pydantic
    model or ``list[Model]``; default: the first HTTP route's ``out``, else the return annotation),
    ``reply(arguments, result)`` the value printed when it is not the result, ``human`` the text form
    without ``--json`` (default: a line per row), ``exit(printed)`` the exit code of a run that did
    not raise (default: 0; a ``CoreError`` exits with its own code) and ``output`` the flags of an
    option that writes the result (a str) to the file it names, printing ``{"written": path}`` (or
    ``output_reply(arguments, path)``);
    ``params`` the parameters it takes when not all of them (or not in the signature's order), in
    that order; ``store=False`` runs it without the vector store (the database and blob folder
    only), beside any process holding it; ``description``, ``check``, ``implied``, ``note`` and
    ``output_text``: see their fields."""

    name: str
    out: Any = None
    human: Callable[[Any], str] | None = None
    group: CliGroup | None = None
    help: str = ""
    args: dict[str, Arg] = field(default_factory=dict)
    reply: Callable[[dict, Any], Any] | None = None
    exit: Callable[[Any], int] | None = None
    # an option that writes the result (a str) to the file it names instead of printing it; what
    # is printed then is {"written": the path}
    output: tuple[str, ...] = ()
    output_help: str | None = None
    # what is printed once ``output`` is written: (arguments, path) -> the value (default: {"written": path})
    output_reply: Callable[[dict, str], Any] | None = None
    # the parameters the command takes, in this order (None: every one that crosses a process
    # boundary, in the signature's); the others keep their defaults (``kb rename`` is ``update_kb``
    # with only ``ref`` and ``name``)
    params: tuple[str, ...] | None = None
    # the callback parameter that reports progress ((done, total, message)): the CLI passes one
    # writing ``<label>: message done/total`` over one line of stderr when stderr is a terminal and
    # --json is not given; ``progress_label`` names the parameter whose value is the label (none:
    # the callback takes (label, done, total, message) and names each file itself: ``ingest``)
    progress: str = ""
    progress_label: str = ""
    # False: the operation needs the database and the blob folder only, never the vector store; the
    # CLI runs it in its own process on an engine without the store (core/engine_database.py), also
    # while another process holds the embedded store, hand-off or not
    store: bool = True
    # an operation not handed off (no ``handoff``), while another process holds the store: the advice
    # its refusal gives in place of the general one (why it stays here, what to do instead)
    not_handed_off: str = ""
    # the text --help shows under the usage (None: the method's docstring; "": none, when the
    # docstring speaks to Python callers of parameters the command does not take)
    description: str | None = None
    # the arguments read (a dict by parameter) judged together before anything is opened: raises
    # InvalidInput in the command line's words (``ask --assistant`` with ``--kb``)
    check: Callable[[dict], None] | None = None
    # parameters the command does not take, each value made from the arguments read (``ask``:
    # temporary unless --chat continues a saved chat)
    implied: dict[str, Callable[[dict], Any]] = field(default_factory=dict)
    # (arguments, result) -> lines said beside what is printed: after its text, or on stderr with
    # --json (stdout stays the JSON a script reads); "" says nothing (``compare --batch``'s summary)
    note: Callable[[dict, Any], str] | None = None
    # ``output`` writes this text of the result (result -> str) beside what is printed instead of
    # the result itself: the command prints as it would without the option, the file's folder is
    # checked before the operation runs and the note ends "<option>: path" (``compare --report``)
    output_text: Callable[[Any], str] | None = None
    output_metavar: str = ""  # the option's value in the help (default: its flag's name)

    @property
    def command(self) -> str:
        """The words that run it: ``fields list``, ``doctor``."""
        return f"{self.group.name} {self.name}" if self.group else self.name


@dataclass(frozen=True)
class Operation:
    name: str
    service: str  # the Engine attribute holding the service
    function: Callable
    access: Access
    job: bool
    remote: Remote | None
    admin_does: str
    why: str
    routes: tuple[Http, ...] = ()
    cli: Cli | None = None
    owner: type | None = None  # the service class declaring it

    @cached_property
    def signature(self) -> inspect.Signature:
        return inspect.signature(self.function)

    @cached_property
    def hints(self) -> dict[str, Any]:
        return typing.get_type_hints(self.function)

    @property
    def takes_actor(self) -> bool:
        return "actor" in self.signature.parameters

    def wire_params(self) -> list[inspect.Parameter]:
        """The parameters that cross a process boundary: not self, not the actor, no callbacks."""
        return [p for name, p in self.signature.parameters.items()
                if name not in ("self", "actor") and not is_callback(self.hints.get(name))]

    @cached_property
    def input_model(self) -> type[BaseModel]:
        fields = {}
        for p in self.wire_params():
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[p.name] = (self.hints.get(p.name, Any), default)
        config = ConfigDict(strict=True, extra="forbid", arbitrary_types_allowed=True)
        return create_model(f"{self.name}_input", __config__=config, **fields)

    @cached_property
    def output(self) -> TypeAdapter:
        return TypeAdapter(self.hints.get("return", Any))

    @cached_property
    def decode(self) -> Callable[[Any], Any]:
        """JSON back into the return type (a client's side of a process boundary)."""
        return _decoder(self.hints.get("return", Any))


def _decoder(annotation: Any) -> Callable[[Any], Any]:
    from sqlmodel import SQLModel

    if typing.get_origin(annotation) is list:
        item = _decoder(typing.get_args(annotation)[0])
        return lambda rows: [item(r) for r in rows]
    if isinstance(annotation, type) and issubclass(annotation, SQLModel):
        return annotation.model_validate  # table models skip validation when constructed: validate here
    return TypeAdapter(annotation).validate_python


def is_callback(annotation: Any) -> bool:
    if annotation is None:
        return False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return any(is_callback(a) for a in typing.get_args(annotation) if a is not type(None))
    return origin is Callable or annotation is Callable or getattr(origin, "__name__", "") == "Callable"


@dataclass
class _Declared:
    access: Access
    job: bool
    remote: Remote | None
    admin_does: str
    why: str
    routes: tuple[Http, ...] = ()
    cli: Cli | None = None


def operation(*, access: Access = "user", job: bool = False, handoff: bool | Remote = False,
              admin_does: str = "", why: str = "", http: Http | tuple[Http, ...] = (),
              cli: Cli | None = None) -> Callable:
    """Declare the decorated service method as an engine operation (see the module's docstring)."""
    if access == "admin" and not admin_does:
        raise ValueError("an admin operation says what it does (admin_does), for its refusal")
    if access == "open" and not why:
        raise ValueError("an operation without an Actor says why that is safe (why)")
    remote = Remote() if handoff is True else (handoff or None)
    routes = (http,) if isinstance(http, Http) else tuple(http)
    if routes and access == "open":
        raise ValueError("an HTTP route acts as the API token's user: an operation without an Actor has none")

    def declare(method: Callable) -> Callable:
        method.__operation__ = _Declared(access, job, remote, admin_does, why, routes, cli)
        return method

    return declare


def operations_of(service_attr: str, cls: type) -> list[Operation]:
    """The operations a service class declares (its decorated methods)."""
    found = []
    for name, member in vars(cls).items():
        declared = getattr(member, "__operation__", None)
        if declared is None:
            continue
        op = Operation(name, service_attr, member, declared.access, declared.job, declared.remote,
                       declared.admin_does, declared.why, declared.routes, declared.cli, cls)
        if op.access in ("user", "admin") and not op.takes_actor:
            raise TypeError(f"operation {name!r} is for signed-in callers but takes no actor")
        found.append(op)
    return found


@dataclass(frozen=True)
class JobKind:
    """A kind of queued job a service runs: ``method`` (the service's) is the workers' handler,
    ``method(jobs, on_outcome) -> list[Outcome]``; ``decode(jobs)`` reads the finished rows back
    into what the waiting ``Future`` gives (core/jobs/kinds.py)."""

    name: str
    service: str  # the Engine attribute holding the service (``engine.services.<service>``)
    method: str
    decode: Callable[[list], Any]


def job_kind(name: str, *, decode: Callable[[list], Any]) -> Callable:
    """Declare the decorated service method as the handler of queued jobs of kind ``name`` (one
    method may handle several kinds: stack the decorator)."""

    def declare(method: Callable) -> Callable:
        method.__job_kinds__ = (*getattr(method, "__job_kinds__", ()), (name, decode))
        return method

    return declare


def job_kinds_of(service_attr: str, cls: type) -> list[JobKind]:
    """The job kinds a service class declares (its ``@job_kind`` methods)."""
    return [JobKind(name, service_attr, attr, decode)
            for attr, member in vars(cls).items() for name, decode in getattr(member, "__job_kinds__", ())]
