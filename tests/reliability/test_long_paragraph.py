"""Long one-paragraph text (issue 36): the 5,000-chunk cap was checked after chunking, and
chunking one long paragraph costs seconds a megabyte (a 4 MB HTML was refused after 10 s, 16 MB
after a minute, a 30 MB one-line Markdown after two). A text that cannot fit is refused before it
is split now; the bound never refuses a text that fits (every non-space character lands in a
chunk of at most ``chunk_size`` characters). ``benchmarks/long_paragraph.py`` has the timings."""

from __future__ import annotations

import random
import time

import pytest

from core.chunking.pipeline import chunk_document, fewest_chunks
from core.ingest.service import Upload
from core.settings.model import ChunkingSettings
from core.types import SYSTEM_ACTOR, DocPart, ParsedDoc
from tests.reliability.test_parse_failures import _good_files

SENTENCE = "The travel policy applies to every employee on a business trip, and receipts are kept for audit. "


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_is_never_above_the_chunks_a_text_really_makes(seed):
    rng = random.Random(seed)
    words = [rng.choice(["leave", "travel", "年假", "policy", "a", "receipts", "x" * rng.randint(1, 40)])
             for _ in range(rng.randint(200, 4000))]
    text = "".join(w + rng.choice([" ", " ", "\n", "\n\n", ", ", "## ", ""]) for w in words)
    cfg = ChunkingSettings(chunk_size=rng.choice([80, 200, 500]), chunk_overlap=rng.choice([0, 20, 50]),
                           chunk_min_size_target=rng.choice([0, 40, 60]))
    chunks = chunk_document(ParsedDoc(source_name="t.md", mime="text/markdown", parts=[DocPart(text=text)]), cfg)
    assert fewest_chunks(text, cfg) <= len(chunks)


def _seconds(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def test_a_long_paragraph_is_refused_before_it_is_split(kb_engine):
    """Measured against chunking a tenth of it in the same process (the machine may be busy): the
    refusal of 4 MB cost ~10 chunkings of 0.4 MB before (it split all of it), now what cleaning costs."""
    from core.chunking.pipeline import TooManyChunks
    from core.ingest.pipeline import make_chunks

    paragraph = (SENTENCE * 45_000)[:4_000_000]  # 4 MB, one paragraph: ~10,000 chunks of 500
    whole = ParsedDoc(source_name="long.md", mime="text/markdown", parts=[DocPart(text=paragraph)])
    tenth = ParsedDoc(source_name="tenth.md", mime="text/markdown", parts=[DocPart(text=paragraph[:400_000])])
    embedder = kb_engine.runtime.snapshot().embedder
    reference = min(_seconds(lambda: make_chunks(tenth, ChunkingSettings(), embedder)) for _ in range(2))

    def refuse() -> None:
        with pytest.raises(TooManyChunks) as over:
            make_chunks(whole, ChunkingSettings(), embedder, max_chunks=5000)
        assert over.value.at_least > 5000

    refusing = min(_seconds(refuse) for _ in range(2))
    assert refusing < 5 * reference, (refusing, reference)
    uploads = _good_files(4) + [Upload("long.md", ("# Policy\n\n" + paragraph).encode())]
    by_name = {r.name: r for r in kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)}
    assert by_name["long.md"].status == "failed"
    assert "'long.md' would make at least" in by_name["long.md"].error and "limit of 5000" in by_name["long.md"].error
    assert all(by_name[f"good-{i}.md"].status == "indexed" for i in range(4))


def test_a_long_html_paragraph_fails_alone_with_the_same_reason(kb_engine):
    paragraph = (SENTENCE * 45_000)[:4_000_000]
    uploads = _good_files(2) + [Upload("long.html", f"<html><body><p>{paragraph}</p></body></html>".encode())]
    by_name = {r.name: r for r in kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)}
    assert by_name["long.html"].status == "failed" and "'long.html' would make at least" in by_name["long.html"].error
    assert by_name["good-0.md"].status == "indexed" and by_name["good-1.md"].status == "indexed"


def test_a_text_at_the_cap_still_indexes(kb_engine):
    kb_engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_chunks_per_file": 12}})
    text = " ".join(f"Sentence {i} of a policy that is long enough to fill chunks." for i in range(70))
    [fits] = kb_engine.ingest(SYSTEM_ACTOR, "kb", [Upload("fits.md", text.encode())])
    assert fits.status == "indexed" and fits.chunks <= 12
    [over] = kb_engine.ingest(SYSTEM_ACTOR, "kb", [Upload("over.md", (text + " " + text + " " + text).encode())])
    assert over.status == "failed" and "would make at least" in over.error
