"""The engine's shape (issue 19): ``core.engine`` imports without Streamlit, and no two modules
of ``core/`` import each other (a circle makes import order decide what works). Imports inside
functions count too (issue 34): a late import still ties the two modules together for a reader
and for every change, it only moves the failure from start-up to the first call."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "core"


def test_the_engine_imports_without_streamlit():
    probe = "import sys, core.engine, core.api.app; print(sorted(m for m in sys.modules if m.split('.')[0] == 'streamlit'))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _module_names(root: Path) -> dict[str, Path]:
    """Every module under the package folder ``root``, by dotted name (a package by its own name)."""
    names = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _imported(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, Path]) -> list[str]:
    """The dotted names one import statement names: ``from pkg import module`` names the module,
    ``from pkg import NAME`` names pkg, a relative import is resolved against ``package``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        if node.level - 1 > len(parts) - 1:
            return []  # above the top package: not ours
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([base] if base else []))
    return [base] + [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]


def _import_graph(root: Path = CORE) -> dict[str, set[str]]:
    """Imports between the modules of the package folder ``root``, from every import statement
    anywhere in a module: at the top, inside functions and methods, under ``if``/``try``. An edge
    goes to the deepest module the import names; a module's own packages are left out (Python
    imports them before it in any case)."""
    modules = _module_names(root)
    top = root.name

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(node, package, modules):
                if target != top and not target.startswith(top + "."):
                    continue
                found = known(target)
                if found and found != name and not name.startswith(found + "."):
                    graph[name].add(found)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_circles_in_core():
    circles = _circles(_import_graph())
    assert circles == [], "import circles in core/ (counting imports inside functions):\n" + "\n".join(
        ", ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _write_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "toy"


def test_the_graph_counts_late_relative_and_submodule_imports(tmp_path):
    """A circle closed only by an import inside a function, a relative import, and a
    ``from package import module`` is still found; without the closing import there is none."""
    files = {
        "toy/__init__.py": "",
        "toy/a.py": "def late():\n    from . import b  # inside a function, relative, a submodule\n",
        "toy/b.py": "from toy.inner.c import VALUE\n",
        "toy/inner/__init__.py": "",
        "toy/inner/c.py": "VALUE = 1\n\n\nclass Late:\n    def run(self):\n        from ..a import late\n",
        "toy/d.py": "import toy.a\nfrom toy import inner\n",
    }
    graph = _import_graph(_write_package(tmp_path, files))
    assert graph["toy.a"] == {"toy.b"}
    assert graph["toy.b"] == {"toy.inner.c"}
    assert graph["toy.inner.c"] == {"toy.a"}
    assert graph["toy.d"] == {"toy.a", "toy.inner"}
    assert _circles(graph) == [["toy.a", "toy.b", "toy.inner.c"]]

    files["toy/inner/c.py"] = "VALUE = 1\n"
    assert _circles(_import_graph(_write_package(tmp_path, files))) == []


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for child in graph.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def test_search_does_not_import_answering_and_answering_holds_no_chat_persistence():
    graph = _import_graph()
    for searching in ("core.searcher", "core.retrieval.search", "core.retrieval.query_cache"):
        answering = sorted(m for m in _reaches(graph, searching) if m.startswith("core.answering"))
        assert not answering, f"{searching} imports answering: {answering}"
    leftover = {p.stem for p in (CORE / "answering").glob("*.py")} & {"chats", "chat_extras", "attach", "query_cache"}
    assert not leftover, f"core/answering/ still holds {sorted(leftover)} (chats live in core/chats/)"


def test_no_engine_mixins_share_private_state():
    from core.engine import Engine

    assert Engine.__bases__ == (object,), "the engine composes services; it inherits none"
    assert not (CORE / "engine_drive.py").exists()


def test_the_services_do_not_import_the_http_layer():
    """The HTTP API sits over the services it serves: their output models and the upload staging
    folder live below it (core/services/outputs.py, core/ingest/staging.py), and core/api imports them."""
    graph = _import_graph()
    upward = sorted((m, t) for m, targets in graph.items() if m.startswith(("core.services", "core.ingest"))
                    for t in targets if t.startswith("core.api"))
    assert not upward, f"services importing the HTTP layer: {upward}"
