"""Answering gets a typed context, never the engine; one search function serves every caller."""

from __future__ import annotations

import ast
from pathlib import Path

from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import text, tool_call

ANSWERING = Path(__file__).resolve().parents[2] / "core" / "answering"


def test_answering_never_imports_the_engine():
    offenders = []
    for path in sorted(ANSWERING.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.name}: {n}" for n in names if n == "core.engine" or n.startswith("core.engine.")]
            if isinstance(node, ast.ImportFrom) and node.module == "core" and any(a.name == "engine" for a in node.names):
                offenders.append(f"{path.name}: from core import engine")
    assert offenders == []
    assert "core.engine" not in "".join(p.read_text(encoding="utf-8") for p in ANSWERING.glob("*.py"))


def test_search_answering_tools_and_compare_score_alike(engine, server):
    """The retrieval test, a question, a tool call and both compare passes run the same search:
    the same query gives the same chunks with the same scores everywhere."""
    question = "一线城市住宿费每晚不超过多少？"
    searched = engine.search(ADMIN, question, top_k=4, min_score=0.3)
    expected = [(h.chunk_id, round(h.score, 4)) for h in searched.hits]
    assert expected

    asked = engine.ask(ADMIN, question, temporary=True)
    assert [(r["chunk_id"], r["score"]) for r in asked.retrieved if r["passed"]] == expected

    compared = engine.compare(ADMIN, question)
    assert [(r["chunk_id"], r["score"]) for r in compared.normal.retrieved if r["passed"]] == expected

    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": True}, retrieval={"rag_max_results": 4})
    server.add(tool_call("query_knowledge_bases", {"query": question}), text("六百元 [1]"))
    engine.ask(ADMIN, question, temporary=True)
    tool_result = [m for m in server.chat_bodies()[1]["messages"] if m["role"] == "tool"][0]["content"]
    # The tool's passages are the same chunks, in the same order, as the retrieval test's.
    by_id = {h.chunk_id: h for h in searched.hits}
    assert [line.split("] ", 1)[1] for line in tool_result.splitlines() if line.startswith("[")] == [
        by_id[c].source_name + (f" ({by_id[c].location()})" if by_id[c].location() else "") for c, _ in expected]
