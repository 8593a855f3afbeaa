"""OCR with RapidOCR (PP-OCR ONNX models shipped in the `rapidocr` wheel).

One engine per process, built on first use (importing rapidocr pulls in OpenCV and
onnxruntime: hundreds of MB, so nothing here is imported until a page needs OCR). Work runs
on one dedicated thread: OCR already uses both cores through onnxruntime, so two pages at
once would only fight, and the thread lets a caller stop waiting after the page time limit.
A page that overruns is reported as failed; its computation finishes in the background
(onnxruntime cannot be interrupted mid-run) and the next page queues behind it.

Speed settings are measured in docs/parsers.md (benchmarks/parsers.py).
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import numpy as np

from core.errors import ParseError
from core.parsers.layout import Box, reading_text

ONNX_THREADS = 2
# The detector sees the page scaled so its longer side is at most this many pixels. Body text
# stays detectable down to ~1000 px for a letter page; 1280 keeps small print (footnotes).
DET_MAX_SIDE = 1280
REC_BATCH = 1  # one text line per run: no padding to the widest line of a batch (less CPU, less memory)
USE_ANGLE_CLASSIFIER = False  # pages are upright; the classifier only fixes upside-down lines
MIN_TEXT_SCORE = 0.5
ARENA = True

_engine: Any = None
_engine_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def engine_params() -> dict[str, Any]:
    return {
        "Global.log_level": "error",
        "Global.use_cls": USE_ANGLE_CLASSIFIER,
        "Global.text_score": MIN_TEXT_SCORE,
        # We choose the resolution when rendering; the engine must not shrink it again.
        "Global.max_side_len": 5000,
        "Det.limit_type": "max",
        "Det.limit_side_len": DET_MAX_SIDE,
        "Rec.rec_batch_num": REC_BATCH,
        "EngineConfig.onnxruntime.intra_op_num_threads": ONNX_THREADS,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    }


def get_engine() -> Any:
    """The process-wide RapidOCR engine, built once (thread-safe)."""
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                try:
                    from rapidocr import RapidOCR
                except ImportError as exc:  # a broken install, not a document problem
                    raise ParseError("OCR is unavailable: the rapidocr package is not installed", detail=str(exc)) from exc
                engine = RapidOCR(params=engine_params())
                _use_quiet_sessions(engine)
                _engine = engine
    return _engine


def release_engine() -> None:
    """Drop the OCR engine (~0.5 GB of models and buffers) after a batch, e.g. when a long-lived
    process has finished an ingestion job. The next OCR call builds it again (~1-2 s)."""
    global _engine
    with _engine_lock:
        executor = _executor
    if executor is not None:
        executor.submit(lambda: None).result()  # wait for a page still being read
    with _engine_lock:
        _engine = None


def _session_options() -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = ONNX_THREADS
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle worker threads sleep instead of spinning: on a machine shared with the web app and
    # other jobs, spinning burned ~25% more CPU for the same pages (docs/parsers.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # The arena reuses buffers across the many differently sized text-line batches.
    options.enable_cpu_mem_arena = ARENA
    return options


def _use_quiet_sessions(engine: Any) -> None:
    """Rebuild the detector's and recogniser's onnxruntime sessions with our options.

    rapidocr's config exposes thread counts but not spinning or the memory arena, so the
    models it resolved are reopened here (same files, same providers)."""
    import onnxruntime

    for loader in (engine._load_det_model, engine._load_rec_model):
        wrapper = loader().session  # rapidocr's OrtInferSession
        old = wrapper.session
        model_path = getattr(old, "_model_path", None)
        if not model_path:
            return  # an engine type without a model file: keep rapidocr's own session
        wrapper.session = onnxruntime.InferenceSession(
            model_path, sess_options=_session_options(), providers=old.get_providers()
        )


def _worker() -> ThreadPoolExecutor:
    global _executor
    with _engine_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragdesk-ocr")
    return _executor


def _run(image: np.ndarray) -> list[Box]:
    result = get_engine()(image)
    boxes: list[Box] = []
    if getattr(result, "boxes", None) is None or getattr(result, "txts", None) is None:
        return boxes
    for polygon, text in zip(result.boxes, result.txts):
        xs = [float(p[0]) for p in polygon]
        ys = [float(p[1]) for p in polygon]
        if text.strip():
            boxes.append(Box(min(xs), min(ys), max(xs), max(ys), text.strip()))
    return boxes


def ocr_boxes(image: np.ndarray, *, timeout_seconds: float, what: str) -> list[Box]:
    """Text boxes found in an image (BGR or grey numpy array), pixel coordinates."""
    if image.size == 0 or _is_blank(image):
        return []
    future = _worker().submit(_run, image)
    try:
        return future.result(timeout=timeout_seconds)
    except FutureTimeout:
        raise ParseError(
            f"OCR of {what} took longer than {timeout_seconds:g} s and was stopped "
            f"(setting parsing.ocr_page_timeout_seconds)"
        ) from None


_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n(?=[a-z])")


def ocr_text(image: np.ndarray, *, timeout_seconds: float, what: str) -> str:
    """OCR an image and return its text in reading order (columns, then lines).

    A word hyphenated at a line end is joined ("pri-" + "mary" -> "primary") when the next
    line goes on in lower case, so it can be found by search."""
    text = reading_text(ocr_boxes(image, timeout_seconds=timeout_seconds, what=what))
    return _LINE_END_HYPHEN.sub("", text)


def _is_blank(image: np.ndarray) -> bool:
    """A page with no ink at all (scanner blank pages): skip the detector entirely."""
    sample = image[::8, ::8]
    return int(sample.max()) - int(sample.min()) < 16
