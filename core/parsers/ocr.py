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
from dataclasses import dataclass
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import numpy as np

from core.errors import ParseError
from core.parsers.layout import Box, reading_text

ONNX_THREADS = 2  # the detector's threads (one large convolution net per page)
# With 2, recognition runs on two threads at once, each on its share of the page's text lines
# with a one-thread session. Measured (benchmarks/ocr_speed.py, docs/parsers.md): the same CPU
# per page and the same text as one two-thread recogniser, and no wall-time gain could be shown
# on the shared machine, so the default stays 1 (rapidocr's own pipeline).
REC_WORKERS = 1
# The detector sees the page scaled so its longer side is at most this many pixels. Body text
# stays detectable down to ~1000 px for a letter page; 1280 keeps small print (footnotes).
DET_MAX_SIDE = 1280
REC_BATCH = 1  # one text line per run: no padding to the widest line of a batch (less CPU, less memory)
USE_ANGLE_CLASSIFIER = False  # pages are upright; the classifier only fixes upside-down lines
MIN_TEXT_SCORE = 0.5
# A line scored below DOUBTFUL_SCORE with fewer word characters than this many per unit of its
# width/height ratio was not read (real lines hold 1.2-2.7; the Korean lines of the shared
# image 0.2-0.6). Two such lines on a page earn a warning.
DOUBTFUL_SCORE = 0.9
SPARSE_CHARS_PER_ASPECT = 0.7
MIN_LINE_ASPECT = 4.0  # narrower boxes are marks and symbols (figure ticks), not lines of text
MIN_UNREADABLE_TO_WARN = 2
_WORD_CHAR = re.compile(r"[^\W_]")
ARENA = True

_engine: Any = None
_engine_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_rec_pool: ThreadPoolExecutor | None = None


def engine_params() -> dict[str, Any]:
    return {
        "Global.log_level": "error",
        "Global.use_cls": USE_ANGLE_CLASSIFIER,
        "Global.text_score": 0.0,  # every line comes back: _read_lines filters and counts the unreadable
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


def _session_options(threads: int) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
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

    rec_threads = 1 if REC_WORKERS > 1 else ONNX_THREADS
    for loader, threads in ((engine._load_det_model, ONNX_THREADS), (engine._load_rec_model, rec_threads)):
        wrapper = loader().session  # rapidocr's OrtInferSession
        old = wrapper.session
        model_path = getattr(old, "_model_path", None)
        if not model_path:
            return  # an engine type without a model file: keep rapidocr's own session
        wrapper.session = onnxruntime.InferenceSession(
            model_path, sess_options=_session_options(threads), providers=old.get_providers()
        )


def _worker() -> ThreadPoolExecutor:
    global _executor, _rec_pool
    with _engine_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragdesk-ocr")
        if _rec_pool is None and REC_WORKERS > 1:
            _rec_pool = ThreadPoolExecutor(max_workers=REC_WORKERS, thread_name_prefix="ragdesk-ocr-rec")
    return _executor


def _recognise(engine: Any, crops: list[np.ndarray]) -> tuple[list[str], list[float]]:
    """Texts and scores of the line crops, in their order, on REC_WORKERS threads at once.

    Lines are dealt out by width (widest first, each to the least loaded share), so the
    threads finish together; onnxruntime sessions may be run from several threads."""
    from rapidocr.ch_ppocr_rec import TextRecInput

    recogniser = engine._load_rec_model()
    if REC_WORKERS <= 1 or len(crops) < 2 or _rec_pool is None:
        out = recogniser(TextRecInput(img=crops))
        return list(out.txts), [float(x) for x in out.scores]
    shares: list[list[int]] = [[] for _ in range(REC_WORKERS)]
    load = [0.0] * REC_WORKERS
    for i in sorted(range(len(crops)), key=lambda i: -crops[i].shape[1] / max(1, crops[i].shape[0])):
        k = load.index(min(load))
        shares[k].append(i)
        load[k] += crops[i].shape[1] / max(1, crops[i].shape[0])
    futures = [_rec_pool.submit(recogniser, TextRecInput(img=[crops[i] for i in share])) for share in shares if share]
    texts, scores = [""] * len(crops), [0.0] * len(crops)
    for share, future in zip([s for s in shares if s], futures):
        out = future.result()
        for i, text, score in zip(share, out.txts, out.scores):
            texts[i], scores[i] = text, float(score)
    return texts, scores


def _detect_and_read(image: np.ndarray) -> tuple[list[np.ndarray], list[str], list[float]]:
    """RapidOCR's steps (preprocess, detection on the scaled page, crops from the full image,
    recognition) with recognition spread over the cores. Returns polygons in image pixels."""
    from rapidocr.main import RapidOCRError
    from rapidocr.utils.process_img import map_boxes_to_original

    engine = get_engine()
    if REC_WORKERS <= 1:
        result = engine(image)
        if getattr(result, "boxes", None) is None or getattr(result, "txts", None) is None:
            return [], [], []
        return list(result.boxes), list(result.txts), [float(x) for x in result.scores]
    img, op_record = engine.preprocess_img(engine.load_img(image))
    try:
        crops, det = engine.detect_and_crop(img, op_record)
    except RapidOCRError:  # rapidocr's way of saying "no text found"
        return [], [], []
    if engine.use_cls:
        crops, _ = engine.cls_and_rotate(crops)
    texts, scores = _recognise(engine, crops)
    boxes = map_boxes_to_original(det.boxes, op_record, image.shape[0], image.shape[1])
    return list(boxes), texts, scores


@dataclass
class _Read:
    boxes: list[Box]
    unreadable: int  # detected text lines the recogniser could not read


def _verdict(text: str, score: float, width: float, height: float) -> str:
    """"ok", "mark" (a low-confidence blob: a figure's tick or symbol, dropped as before) or
    "unreadable": a text line the recogniser could not read, low in confidence or holding far
    fewer characters than its shape needs (a Korean line comes back as ",YGEREASURE" or "., ")."""
    aspect = width / height if height > 0 else 0.0
    line_shaped = aspect >= MIN_LINE_ASPECT
    if score < MIN_TEXT_SCORE or not _WORD_CHAR.search(text):
        return "unreadable" if line_shaped else "mark"
    if line_shaped and score < DOUBTFUL_SCORE and len(_WORD_CHAR.findall(text)) < SPARSE_CHARS_PER_ASPECT * aspect:
        return "unreadable"
    return "ok"


def _run(image: np.ndarray) -> _Read:
    polygons, texts, scores = _detect_and_read(image)
    read = _Read([], 0)
    for polygon, text, score in zip(polygons, texts, scores):
        xs = [float(p[0]) for p in polygon]
        ys = [float(p[1]) for p in polygon]
        text = text.strip()
        verdict = _verdict(text, float(score), max(xs) - min(xs), max(ys) - min(ys))
        if verdict == "ok":
            read.boxes.append(Box(min(xs), min(ys), max(xs), max(ys), text))
        elif verdict == "unreadable":
            read.unreadable += 1
    return read


def unreadable_warning(what: str, count: int) -> str:
    return (
        f"{what}: {count} text line(s) could not be read and were left out; they may be in a script the "
        f"OCR model does not know (it reads Chinese, Japanese, Latin-script and Greek text, not Korean "
        f"Hangul, Cyrillic, Arabic or Thai)"
    )


def ocr_boxes(image: np.ndarray, *, timeout_seconds: float, what: str, notes: list[str] | None = None) -> list[Box]:
    """Text boxes found in an image (BGR or grey numpy array), pixel coordinates. When lines
    were found but could not be read, a warning naming ``what`` is added to ``notes``."""
    if image.size == 0 or _is_blank(image):
        return []
    future = _worker().submit(_run, image)
    try:
        read = future.result(timeout=timeout_seconds)
    except FutureTimeout:
        raise ParseError(
            f"OCR of {what} took longer than {timeout_seconds:g} s and was stopped "
            f"(setting parsing.ocr_page_timeout_seconds)"
        ) from None
    if notes is not None and read.unreadable >= MIN_UNREADABLE_TO_WARN:
        notes.append(unreadable_warning(what, read.unreadable))
    return read.boxes


_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n(?=[a-z])")


def ocr_text(image: np.ndarray, *, timeout_seconds: float, what: str, notes: list[str] | None = None) -> str:
    """OCR an image and return its text in reading order (columns, then lines).

    A word hyphenated at a line end is joined ("pri-" + "mary" -> "primary") when the next
    line goes on in lower case, so it can be found by search."""
    return ocr_reading_text(ocr_boxes(image, timeout_seconds=timeout_seconds, what=what, notes=notes))


def ocr_reading_text(boxes: list[Box]) -> str:
    """OCR lines in reading order, words hyphenated at a line end joined again."""
    return _LINE_END_HYPHEN.sub("", reading_text(boxes))


def _is_blank(image: np.ndarray) -> bool:
    """A page with no ink at all (scanner blank pages): skip the detector entirely."""
    sample = image[::8, ::8]
    return int(sample.max()) - int(sample.min()) < 16
