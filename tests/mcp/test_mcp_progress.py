"""The ask tool streams: a client that sends a progress token gets the answer's text as
``notifications/progress`` (progress 1, 2, …; the piece as the message) while the model is still
writing, before the tool's result — over streamable HTTP beside the API's own engine, and over
stdio through the dashboard's hand-off. The model is a local stand-in speaking the OpenAI streaming
protocol that holds the rest of its reply until the client has seen the first piece: had the
server sent the text only with the result, the first piece would come after the model finished
(``replies_finished`` 1). Strict mode sends no piece before its check: a refusal sends none."""

from __future__ import annotations

import sys
import threading

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from core.mcp.stdio import TOKEN_ENV
from tests.conftest import REPO_ROOT
from tests.fakes.llm_server import fake_llm_server, text
from tests.mcp.conftest import FIXED_REPLY, OFF_TOPIC, PRIVATE_KB, http_client
from tests.mcp.test_mcp_stdio import _env

REMOTE = "How many days per week may employees work remotely?"
WORDS = "Employees may work remotely up to three days per week [1]."
FAKE_LLM = {"provider": "openai", "api_key": "sk-test", "model": "fake-model"}


class Pieces:
    """The progress a call reports; the first piece lets the stand-in model finish."""

    def __init__(self, llm, writing: threading.Event):
        self.llm, self.writing = llm, writing
        self.got: list[tuple[float, str | None]] = []
        self.finished_at_first: int | None = None

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        if not self.got:
            self.finished_at_first = self.llm.replies_finished
            self.writing.set()
        self.got.append((progress, message))


def _check_streamed(pieces: Pieces, result) -> None:
    assert pieces.finished_at_first == 0  # the model had not finished when the first piece arrived
    assert [p for p, _ in pieces.got] == list(range(1, len(pieces.got) + 1))
    assert "".join(m or "" for _, m in pieces.got) == WORDS
    facts = result.structured_content
    assert not result.is_error and facts["text"] == WORDS and facts["from_kb"] is True
    assert facts["citations"][0]["source_name"] == "handbook.md"


def test_over_http_the_text_arrives_as_progress_while_the_model_writes(world, api):
    writing = threading.Event()
    with fake_llm_server([text(WORDS, hold=writing)]) as llm:
        world.engine.save_settings(world.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        pieces = Pieces(llm, writing)

        async def session():
            async with http_client(api.url, world.alice_token) as mcp:
                return await mcp.call_tool("ask", {"question": REMOTE, "kbs": [PRIVATE_KB], "mode": "normal"},
                                           progress_callback=pieces)

        try:
            result = anyio.run(session)
        finally:
            writing.set()
    _check_streamed(pieces, result)


def test_over_http_a_strict_refusal_sends_no_piece_and_calls_no_model(world, api):
    with fake_llm_server([text("an invented answer [1]")]) as llm:
        world.engine.save_settings(world.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url},
                                                 "strict": {"rag_strict_no_hit_reply": FIXED_REPLY}})
        pieces = Pieces(llm, threading.Event())

        async def session():
            async with http_client(api.url, world.alice_token) as mcp:
                return await mcp.call_tool("ask", {"question": OFF_TOPIC, "kbs": [PRIVATE_KB], "mode": "strict"},
                                           progress_callback=pieces)

        result = anyio.run(session)
        assert llm.request_count == 0
    assert pieces.got == []
    assert result.structured_content["text"] == FIXED_REPLY and result.structured_content["from_kb"] is False


def test_over_stdio_through_the_hand_off_the_text_arrives_as_progress(dashboard, data_dir, tmp_path):
    writing = threading.Event()
    with fake_llm_server([text(WORDS, hold=writing)]) as llm:
        dashboard.engine.save_settings(dashboard.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        pieces = Pieces(llm, writing)
        params = StdioServerParameters(command=sys.executable, args=["-m", "core", "mcp"], cwd=REPO_ROOT,
                                       env=_env(data_dir, **{TOKEN_ENV: dashboard.alice_token}))

        async def session(errlog):
            with anyio.fail_after(120):
                async with Client(stdio_client(params, errlog=errlog)) as mcp:
                    return await mcp.call_tool("ask", {"question": REMOTE, "kbs": [PRIVATE_KB], "mode": "normal"},
                                               progress_callback=pieces)

        with open(tmp_path / "stderr.txt", "w+") as errlog:
            try:
                result = anyio.run(session, errlog)
            finally:
                writing.set()
            errlog.seek(0)
            assert "hand-off" in errlog.read()  # the dashboard's engine answered
    _check_streamed(pieces, result)
