"""RandomIndexShuffle (`tf.random_index_shuffle`): where index i lands in a pseudorandom permutation of
[0, max_index], computed for one index without building the permutation.

As TF: a Simon-style Feistel cipher on blocks of B bits (ceil(log2(max_index)) rounded up to even, at least
16), keyed by the three seed words with TF's key schedule, applied again while the result exceeds max_index
(cycle walking). Every element's cipher runs at once per block size; where the block's whole cipher tables
(one per distinct seed and bound) hold at most 2**22 entries, the walk is taken on them by pointer doubling,
so a bound far below 2**B costs a few passes, not thousands (many distinct seeds with tiny bounds still walk
step by step).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.manipulation_ops import pad
from tensorweave.platform.tf_export import tf_export

_MIN_BLOCK_BITS = 16
_SCHEDULE_CONSTANT = 0xFFFFFFFC
_SCHEDULE_SEQUENCE = 0x7369F885192C0EF5
_TABLE_ENTRIES_BITS = 22  # the walk runs on cipher tables when they hold at most 2**22 entries in all

RandomIndexShuffle = Op("RandomIndexShuffle", inputs=["index: dtype", "seed: Tseed", "max_index: dtype"],
                        outputs=["output: dtype"],
                        attrs=["rounds: int = 4", "dtype: {int32, uint32, int64, uint64}",
                               "Tseed: {int32, uint32, int64, uint64}"])
NotDifferentiable("RandomIndexShuffle")


@RandomIndexShuffle.shape
def _random_index_shuffle_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    index, seed, max_index = ctx.input_shapes
    if seed.ndims is not None and seed.ndims > 2:
        raise ValueError(f"Shape must be at most rank 2 but is rank {seed.ndims}")
    if seed.ndims is not None and (seed.ndims == 0 or seed.dims[-1].value != 3):  # an unknown size fails too
        shown = ", ".join(str(-1 if d.value is None else d.value) for d in seed.dims)
        raise ValueError(f"Seed must have shape [3] or [n, 3] but got [{shown}].")
    if index.ndims is not None and index.ndims > 1:
        raise ValueError(f"Index must be a scalar or a vector but got {tensor_shape.shape_string(index)}.")
    if max_index.ndims is not None and index.ndims is not None and max_index.ndims > 0 and \
            not max_index.is_compatible_with(index if index.ndims else [None]):
        raise ValueError(f"Max index has shape {tensor_shape.shape_string(max_index)} but must have shape "
                         f"{tensor_shape.shape_string(index)}.")
    if index.ndims == 0 and seed.ndims == 1 and max_index.ndims == 0:
        return [tensor_shape.TensorShape([])]
    lengths = [s.dims[0].value for s in (index, seed, max_index) if s.ndims and s.dims[0].value is not None]
    return [tensor_shape.TensorShape([max(lengths) if lengths else None])]


def _block_bits(max_index: np.ndarray) -> np.ndarray:
    """TF's block size per bound: ceil(log2) in double, made even, at least 16, at most 64."""
    with np.errstate(divide="ignore"):
        bits = np.ceil(np.log2(max_index.astype(np.float64)))
    bits = np.maximum(np.nan_to_num(bits, neginf=0).astype(np.int64), 0)
    return np.minimum(np.maximum(bits + bits % 2, _MIN_BLOCK_BITS), 64)


class _Cipher:
    """TF's Simon-like cipher on 2W-bit blocks, one key schedule per row of `seeds` ([n, 3] uint32 words)."""

    def __init__(self, seeds: np.ndarray, width: int, rounds: int) -> None:
        self.width, self.mask = np.uint64(width), np.uint64((1 << width) - 1)
        keys = [seeds[:, i].astype(np.uint64) & self.mask for i in range(3)]
        constant = np.uint64(_SCHEDULE_CONSTANT) & self.mask
        sequence = _SCHEDULE_SEQUENCE & ((1 << width) - 1)
        for i in range(3, rounds):
            keys.append(constant ^ np.uint64(sequence & 1) ^ keys[i - 3] ^ self._rotr(keys[i - 1], 3)
                        ^ self._rotr(keys[i - 1], 4))
            sequence >>= 1
        self.keys = keys

    def _rotl(self, x: np.ndarray, r: int) -> np.ndarray:
        return ((x << np.uint64(r)) | (x >> (self.width - np.uint64(r)))) & self.mask

    def _rotr(self, x: np.ndarray, r: int) -> np.ndarray:
        return ((x >> np.uint64(r)) | (x << (self.width - np.uint64(r)))) & self.mask

    def _f(self, x: np.ndarray) -> np.ndarray:
        return (self._rotl(x, 1) & self._rotl(x, 8)) ^ self._rotl(x, 2)

    def encrypt(self, values: np.ndarray, rows: Any = slice(None)) -> np.ndarray:
        """`values` enciphered under the schedules of `rows` (pairs of rounds, as TF's loop takes them)."""
        left, right = (values >> self.width) & self.mask, values & self.mask
        for i in range(0, len(self.keys) - 1, 2):
            left = left ^ self._f(right) ^ self.keys[i][rows]
            right = right ^ self._f(left) ^ self.keys[i + 1][rows]
        return (left << self.width) | right


def _walk(cipher: _Cipher, index: np.ndarray, max_index: np.ndarray) -> np.ndarray:
    """Encipher each index again while above its bound."""
    result = cipher.encrypt(index, np.arange(index.size) if cipher.keys[0].size > 1 else 0)
    pending = np.flatnonzero(result > max_index)
    while pending.size:
        result[pending] = cipher.encrypt(result[pending], pending if cipher.keys[0].size > 1 else 0)
        pending = pending[result[pending] > max_index[pending]]
    return result


def _distinct_keys(seeds: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (seed words, bound) rows, and each element's row."""
    if seeds.shape[0] == 1 and np.all(bounds == bounds[0]):
        return np.append(seeds[0], bounds[0])[None], np.zeros(bounds.size, np.intp)
    keyed = np.concatenate([np.broadcast_to(seeds, (bounds.size, 3)).astype(np.uint64), bounds[:, None]], axis=1)
    distinct, which = np.unique(keyed, axis=0, return_inverse=True)
    return distinct, which.reshape(-1)


def _walk_on_tables(distinct: np.ndarray, which: np.ndarray, rounds: int, index: np.ndarray, bits: int) -> np.ndarray:
    """The same walk on the block's whole cipher table, one per distinct (seed, bound): a step keeps values within
    the bound and enciphers the others; doubling the step resolves every chain in log2(its length) passes."""
    block = np.arange(1 << bits, dtype=np.uint64)
    table = _Cipher(distinct[:, :3], bits // 2, rounds).encrypt(
        np.broadcast_to(block, (distinct.shape[0], block.size)), (slice(None), None))
    bound = distinct[:, 3:]
    base = (np.arange(distinct.shape[0], dtype=np.intp) << bits)[:, None]
    step = (np.where(block <= bound, block, table).astype(np.intp) + base).reshape(-1)  # flat over all tables
    found = table[which, index.astype(np.intp)].astype(np.intp) + base[which, 0]
    limit = bound[which, 0].astype(np.intp) + base[which, 0]
    while (found > limit).any():
        found = step[found]
        step = step[step]
    return (found - base[which, 0]).astype(np.uint64)


@RandomIndexShuffle.kernel("CPU")
def _random_index_shuffle(ctx: OpKernelContext, index: Any, seed: Any, max_index: Any, rounds: int) -> np.ndarray:
    count = max(np.size(index), np.size(max_index), np.size(seed) // 3)
    if not (np.ndim(index) == 0 or (np.ndim(index) == 1 and np.size(index) == count)):
        raise invalid_argument(ctx, "Index bust be a scalar or vector.")
    if not (np.shape(seed) == (3,) or np.shape(seed) == (count, 3)):
        raise invalid_argument(ctx, f"Seed must be a vector of size [3] or a matrix of size [{count}, 3] but got "
                               f"{tensor_shape.shape_string(np.shape(seed))}.")
    if not (np.ndim(max_index) == 0 or (np.ndim(max_index) == 1 and np.size(max_index) == count)):
        raise invalid_argument(ctx, "Maxval must be a scalar or a vector of the same size as index but got "
                               f"{tensor_shape.shape_string(np.shape(max_index))}")
    if rounds < 4 or rounds % 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"rounds must be an even number >= 4, got {rounds}")
    dtype = np.asarray(index).dtype
    wide_index = np.broadcast_to(index, (count,)).astype(np.uint64)
    wide_max = np.broadcast_to(max_index, (count,)).astype(np.uint64)
    too_big = np.flatnonzero(wide_max < wide_index)
    if too_big.size:
        raise invalid_argument(ctx, f"max_index must be >= index, but {wide_max[too_big[0]]} < "
                               f"{wide_index[too_big[0]]}")
    seeds = np.asarray(seed).reshape(-1, 3).astype(np.uint32)
    shared = seeds.shape[0] == 1
    bits = _block_bits(wide_max)
    out = np.zeros(count, np.uint64)
    for block in np.unique(bits[wide_max > 0]):
        rows = np.flatnonzero((bits == block) & (wide_max > 0))
        group_seeds = seeds if shared else seeds[rows]
        distinct, which = _distinct_keys(group_seeds, wide_max[rows])
        if distinct.shape[0] << int(block) <= 1 << _TABLE_ENTRIES_BITS:
            out[rows] = _walk_on_tables(distinct, which, rounds, wide_index[rows], int(block))
        else:
            out[rows] = _walk(_Cipher(group_seeds, int(block) // 2, rounds), wide_index[rows], wide_max[rows])
    out = out.astype(dtype)
    return out.reshape(()) if np.ndim(index) == 0 and np.ndim(seed) == 1 and np.ndim(max_index) == 0 else out


@tf_export("random_index_shuffle")
def random_index_shuffle(index: Any, seed: Any, max_index: Any, rounds: int = 4, name: str | None = None) -> Tensor:
    """Where `index` lands in a random permutation of [0, max_index] that `seed` (three words) picks."""
    return RandomIndexShuffle(index, seed, max_index, rounds=rounds, name=name)


@tf_export("random.experimental.index_shuffle")
def index_shuffle(index: Any, seed: Any, max_index: Any) -> Tensor:
    """Where `index` lands in the permutation of [0, max_index] that a stateless seed (shape [2] or [n, 2])
    picks: TF pads the seed in front with its fixed word to the op's three."""
    seed = convert_to_tensor(seed)
    paddings = [[1, 0]] + ([] if seed.shape.ndims is None else [[0, 0]] * (seed.shape.ndims - 1))
    return RandomIndexShuffle(index, pad(seed, paddings, constant_values=498247692), max_index, rounds=4)
