"""Random ops: uniform, normal, truncated normal, uniform integers, shuffle, multinomial, and the stateless
forms (`tf.random.stateless_*`) whose values depend on their seed tensor alone.

Every value comes from TF's own counter-based generator, Philox4x32-10, laid out as TF's CPU kernels lay it
out, so a seeded op gives TF's numbers. Each stateful node keeps one `_PhiloxGenerator` in its kernel
context for the session's lifetime, keyed by its (seed, seed2) attrs; every run reserves a stretch of the
stream (256 128-bit samples per output element, as TF) and draws from its start, so a seeded op replays the
same values in every new session and new ones on every run. seed = seed2 = 0 means fresh entropy, as in TF.
Uniform, integer and shuffled values are bit-exact; normals follow TF's Box-Muller step by step, but TF
takes log/sin/cos from glibc, which is not always correctly rounded, so about 1.5% of float32 normals (0.15%
of doubles) differ from TF's in their last bit.
"""

from __future__ import annotations

import enum
import functools
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, random_seed, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import cast_ops, constant_ops, elementwise_ops, fill_ops, manipulation_ops, shape_ops
from tensorweave.platform.tf_export import tf_export

_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]

_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_PHILOX_MULTIPLIERS = np.array([[0xD2511F53], [0xCD9E8D57]], dtype=np.uint64)  # for the words x0 and x2
_PHILOX_KEY_INCREMENTS = (0x9E3779B9, 0xBB67AE85)
_PHILOX_ROUNDS = 10
_RESERVED_SAMPLES_PER_OUTPUT = 256  # 128-bit samples TF sets aside per output element, per run
# Philox blocks per pass: a pass's buffers stay in L2 and are reused, where whole-output temporaries would
# stream through memory and page-fault as they are allocated (together 2-3x slower at a million values).
_CHUNK_BLOCKS = 8192


@functools.lru_cache(maxsize=64)
def _round_keys(key: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """The ten round keys of `key`, each a (2, 1) column (k0, k1) to xor into the words (x1, x3)."""
    k0, k1 = key
    keys = []
    for _ in range(_PHILOX_ROUNDS):
        keys.append(np.array([[k0], [k1]], dtype=np.uint64))
        k0 = (k0 + _PHILOX_KEY_INCREMENTS[0]) & 0xFFFFFFFF
        k1 = (k1 + _PHILOX_KEY_INCREMENTS[1]) & 0xFFFFFFFF
    return tuple(keys)


def _philox_chunks(key: tuple[int, int], counter: int,
                   offsets: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Philox4x32-10 of the 128-bit counters `counter + offsets` under the 64-bit `key` (TF's `PhiloxRandom()`
    outputs), a chunk at a time: yields (start, evens, odds), the words (x0, x2) and (x1, x3) of the blocks
    offsets[start:start + m] as (2, m) uint64 rows of 32-bit values. The next chunk reuses both arrays.

    Holding the words as two row pairs lets one multiply make both 32x32->64 products of a round; their high
    halves, xored with the odd words and the round key, become the even words, their low halves the odd ones,
    each pair crossing over (the reversed rows)."""
    round_keys = _round_keys(key)
    counter_low, counter_high = np.uint64(counter & 0xFFFFFFFFFFFFFFFF), np.uint64(counter >> 64)
    buffers = np.empty((3, 2, min(offsets.size, _CHUNK_BLOCKS)), dtype=np.uint64)
    for start in range(0, offsets.size, _CHUNK_BLOCKS):
        chunk = offsets[start:start + _CHUNK_BLOCKS]
        evens, odds, products = buffers[:, :, :chunk.size]
        low = np.add(chunk, counter_low, out=products[0])  # wraps modulo 2**64; the carry goes to the high half
        np.add(low < counter_low, counter_high, out=products[1])
        np.bitwise_and(products, _MASK32, out=evens)
        np.right_shift(products, _SHIFT32, out=odds)
        for round_key in round_keys:
            np.multiply(evens, _PHILOX_MULTIPLIERS, out=products)
            np.bitwise_xor(odds, round_key, out=odds)
            np.right_shift(products[::-1], _SHIFT32, out=evens)
            np.bitwise_xor(evens, odds, out=evens)
            np.bitwise_and(products[::-1], _MASK32, out=odds)
        yield start, evens, odds


def _fill(key: tuple[int, int], counter: int, offsets: np.ndarray, per_block: int, dtype: Any,
          distribution: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """TF's FillPhiloxRandom: row i holds the `per_block` values `distribution` makes of the block at
    `counter + offsets[i]`; `distribution` maps a chunk's (evens, odds) to (per_block, m) values."""
    out = np.empty((offsets.size, per_block), dtype=dtype)
    for start, evens, odds in _philox_chunks(key, counter, offsets):
        out[start:start + evens.shape[1]] = distribution(evens, odds).T
    return out


def _fill_stream(key: tuple[int, int], counter: int, size: int, per_block: int, dtype: Any,
                 distribution: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The first `size` values of `_fill` over the blocks from `counter` on, flat."""
    blocks = np.arange(-(-size // per_block), dtype=np.uint64)
    return _fill(key, counter, blocks, per_block, dtype, distribution).reshape(-1)[:size]


def _philox_block(key: tuple[int, int], counter: int) -> list[int]:
    """The four words of one block."""
    _, evens, odds = next(_philox_chunks(key, counter, np.zeros(1, dtype=np.uint64)))
    return [int(evens[0, 0]), int(odds[0, 0]), int(evens[1, 0]), int(odds[1, 0])]


def _words(evens: np.ndarray, odds: np.ndarray) -> np.ndarray:
    """Rows x0..x3 of a chunk as uint32."""
    words = np.empty((4, evens.shape[1]), dtype=np.uint32)
    np.copyto(words[0::2], evens, casting="unsafe")
    np.copyto(words[1::2], odds, casting="unsafe")
    return words


def _words64(evens: np.ndarray, odds: np.ndarray) -> np.ndarray:
    """The 64-bit values (x0 | x1 << 32, x2 | x3 << 32) of a chunk: TF's pairing of words, low word first."""
    return evens | odds << _SHIFT32


class _PhiloxGenerator:
    """TF's GuardedPhiloxRandom: the key is `seed`, the counter starts at `seed2` << 64, and each run
    reserves the stretch of counters its outputs may use, under a lock, so concurrent steps never share one."""

    def __init__(self, seed: int, seed2: int) -> None:
        if seed == 0 and seed2 == 0:
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        seed &= 0xFFFFFFFFFFFFFFFF
        self.key = (seed & 0xFFFFFFFF, seed >> 32)
        self.counter = (seed2 & 0xFFFFFFFFFFFFFFFF) << 64
        self._lock = threading.Lock()

    def reserve_samples128(self, samples: int) -> int:
        """The counter to draw from; the stream moves on by `samples` 128-bit samples."""
        with self._lock:
            start = self.counter
            self.counter = (start + samples) % 2**128
        return start

    def reserve_outputs(self, output_count: int) -> int:
        return self.reserve_samples128(output_count * _RESERVED_SAMPLES_PER_OUTPUT)

    def uint32s(self, counter: int, count: int) -> np.ndarray:
        """`count` uint32 from `counter` on, one at a time (TF's SingleSampleAdapter)."""
        return _fill_stream(self.key, counter, count, 4, np.uint32, _words)


class SingleSampleStream:
    """TF's SingleSampleAdapter over PhiloxRandom(seed, seed2): the uint32 draws, one at a time, of kernels
    that draw per element as they go (RandomShuffleQueue, ShuffleDataset), so a seeded one picks TF's
    elements; generated a stretch of blocks at a time. Not thread-safe: its owner holds its own lock."""

    _WORDS_PER_FILL = 1024

    def __init__(self, seed: int, seed2: int) -> None:
        self._generator = _PhiloxGenerator(seed, seed2)
        self._words: list[int] = []
        self._next = 0

    def __call__(self) -> int:
        if self._next == len(self._words):
            counter = self._generator.reserve_samples128(self._WORDS_PER_FILL // 4)
            self._words = self._generator.uint32s(counter, self._WORDS_PER_FILL).tolist()
            self._next = 0
        self._next += 1
        return self._words[self._next - 1]


def philox_state(attrs: Mapping[str, Any]) -> _PhiloxGenerator:
    """A random kernel's persistent state: its node's Philox stream, from the node's seeds."""
    return _PhiloxGenerator(attrs["seed"], attrs["seed2"])


def _uint32_to_float(words: np.ndarray) -> np.ndarray:
    """[0, 1) from 23 random mantissa bits (TF's Uint32ToFloat)."""
    bits = np.bitwise_and(words, np.uint32(0x7FFFFF))
    bits |= np.uint32(0x3F800000)
    values = bits.view(np.float32)
    values -= np.float32(1.0)
    return values


def _uint64_to_double(high_words: np.ndarray, low_words: np.ndarray) -> np.ndarray:
    """[0, 1) from 52 random mantissa bits: 20 from each of `high_words`, 32 from `low_words` (TF's
    Uint64ToDouble)."""
    bits = np.bitwise_and(high_words, np.uint64(0xFFFFF), dtype=np.uint64)
    bits <<= _SHIFT32
    bits |= low_words
    bits |= np.uint64(1023 << 52)
    values = bits.view(np.float64)
    values -= 1.0
    return values


def _low_bits_fraction(words: np.ndarray, bits: int) -> np.ndarray:
    """[0, 1) from the low `bits` bits, exactly as float32: TF's Uint16ToHalf (10 bits) and Uint16ToGfloat16
    (7 bits) make 1.mantissa and subtract 1, which is mantissa / 2**bits in either type."""
    return np.multiply(words & np.uint32((1 << bits) - 1), np.float32(2.0 ** -bits), dtype=np.float32)


def _in_dtype(values: np.ndarray, dtype: dtypes.DType) -> np.ndarray:
    """float32 or float64 values as `dtype`; bfloat16 goes through float32 (to nearest even), as TF's does."""
    if dtype in (dtypes.float32, dtypes.float64):
        return values
    if dtype == dtypes.bfloat16:
        values = values.astype(np.float32, copy=False)
    return values.astype(dtype.as_numpy_dtype)


_SINCOS_TABLE_STEP = 2.0 * np.pi / 4096
_SINCOS_TABLE_ANGLES = np.arange(4097) * _SINCOS_TABLE_STEP
_SINCOS_TABLE = np.sin(_SINCOS_TABLE_ANGLES), np.cos(_SINCOS_TABLE_ANGLES)


def _sin_cos(angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sin and cos in double of float32 angles in [0, 2*pi], three times as fast as np.sin and np.cos: the
    nearest table angle a and the remainder b (|b| < 8e-4, exact) meet in the angle-sum identities, with sin b
    and cos b from their Taylor series to b**5. Rounded to float32, both equal np.sin's and np.cos's for every
    angle Box-Muller can draw."""
    index = np.multiply(angles, 1.0 / _SINCOS_TABLE_STEP)
    index += 0.5
    index = index.astype(np.intp)
    remainder = angles - _SINCOS_TABLE_ANGLES.take(index)
    squared = remainder * remainder
    sin_remainder = squared * (1.0 / 120.0)  # sin b = b (1 - b**2/6 (1 - b**2/20))
    sin_remainder -= 1.0 / 6.0
    sin_remainder *= squared
    sin_remainder += 1.0
    sin_remainder *= remainder
    cos_remainder_minus_1 = squared * (1.0 / 24.0)  # cos b - 1 = -b**2/2 (1 - b**2/12)
    cos_remainder_minus_1 -= 0.5
    cos_remainder_minus_1 *= squared
    sin_table, cos_table = _SINCOS_TABLE[0].take(index), _SINCOS_TABLE[1].take(index)
    sines = sin_table * cos_remainder_minus_1
    sines += sin_table
    sines += cos_table * sin_remainder
    cosines = cos_table * cos_remainder_minus_1
    cosines += cos_table
    cosines -= sin_table * sin_remainder
    return sines, cosines


def _box_muller_float(words: np.ndarray) -> np.ndarray:
    """TF's BoxMullerFloat on the word pairs (x0, x1) and (x2, x3): rows f0..f3 of float32 normals, every step
    rounded to float32 as TF's (the log taken in double; the angle 2*pi*u is a double product in TF)."""
    radii = np.maximum(_uint32_to_float(words[0::2]), np.float32(1.0e-7)).astype(np.float64)
    np.log(radii, out=radii)
    radii = radii.astype(np.float32)
    radii *= np.float32(-2.0)
    np.sqrt(radii, out=radii)
    angles = np.multiply(_uint32_to_float(words[1::2]), 2.0 * np.pi, dtype=np.float64)
    sines, cosines = _sin_cos(angles.astype(np.float32).astype(np.float64))
    normals = np.empty((4, words.shape[1]), dtype=np.float32)
    np.multiply(sines, radii, out=normals[0::2], dtype=np.float32)
    np.multiply(cosines, radii, out=normals[1::2], dtype=np.float32)
    return normals


def _box_muller_double(evens: np.ndarray, odds: np.ndarray) -> np.ndarray:
    """TF's BoxMullerDouble: two normals per block, from the uniform doubles of (x0, x1) and (x2, x3)."""
    radii, angles = _uint64_to_double(evens, odds)
    np.maximum(radii, 1.0e-7, out=radii)
    np.log(radii, out=radii)
    radii *= -2.0
    np.sqrt(radii, out=radii)
    angles *= 2.0 * np.pi
    normals = np.empty((2, evens.shape[1]))
    np.multiply(np.sin(angles), radii, out=normals[0])
    np.multiply(np.cos(angles), radii, out=normals[1])
    return normals


def _values_per_block(dtype: dtypes.DType) -> int:
    return 2 if dtype in (dtypes.float64, dtypes.int64, dtypes.uint64) else 4


def _uniform_distribution(dtype: dtypes.DType) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """TF's UniformDistribution for a float type, as a `_fill` distribution."""
    if dtype == dtypes.float64:
        return _uint64_to_double
    if dtype == dtypes.float16:
        return lambda evens, odds: _low_bits_fraction(_words(evens, odds), 10)
    if dtype == dtypes.bfloat16:
        return lambda evens, odds: _in_dtype(_low_bits_fraction(_words(evens, odds), 7), dtype)
    return lambda evens, odds: _uint32_to_float(_words(evens, odds))


def _normal_distribution(dtype: dtypes.DType) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """TF's NormalDistribution: Box-Muller in double for double, else in float32 rounded to `dtype`."""
    if dtype == dtypes.float64:
        return _box_muller_double
    return lambda evens, odds: _in_dtype(_box_muller_float(_words(evens, odds)), dtype)


def _truncated_normal_values(key: tuple[int, int], counter: int, size: int, dtype: dtypes.DType) -> np.ndarray:
    """TF's TruncatedNormalDistribution: each group of outputs has its own stretch of the stream (256 samples
    per output), whose Box-Muller normals are kept in order when within two standard deviations. The first
    block of every group is drawn straight into the output, which it fills when all its normals are in range
    (83% of float groups, 91% of double ones); the rest are redrawn with twice as many blocks until each has
    enough."""
    group_size = _values_per_block(dtype)
    group_stride = np.uint64(group_size * _RESERVED_SAMPLES_PER_OUTPUT // 4)
    normals_dtype = np.float64 if dtype == dtypes.float64 else np.float32
    normals = _normal_distribution(dtypes.float64 if dtype == dtypes.float64 else dtypes.float32)
    groups = np.arange(-(-size // group_size))
    out = _fill(key, counter, groups.astype(np.uint64) * group_stride, group_size, normals_dtype, normals)
    out_of_range = np.abs(out) >= 2.0
    # a group's bools read as one unsigned integer are nonzero when any is set (a quick any() along rows)
    pending = np.flatnonzero(out_of_range.view(np.dtype(f"u{group_size}")))
    blocks_per_group = 2
    while pending.size:
        offsets = pending.astype(np.uint64)[:, None] * group_stride + np.arange(blocks_per_group, dtype=np.uint64)
        candidates = _fill(key, counter, offsets.reshape(-1), group_size, normals_dtype, normals)
        candidates = candidates.reshape(pending.size, -1)
        kept = np.abs(candidates) < 2.0
        enough = kept.sum(axis=1) >= group_size
        chosen = kept[enough] & (np.cumsum(kept[enough], axis=1) <= group_size)
        out[pending[enough]] = candidates[enough][chosen].reshape(-1, group_size)
        pending = pending[~enough]
        blocks_per_group *= 2
    return _in_dtype(out.reshape(-1)[:size], dtype)


def _shape_from_input(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_as_shape(0)]


def _dims(ctx: OpKernelContext, shape: Any) -> tuple[int, ...]:
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Dimension {d} must be >= 0")
    return dims


def _random_op(name: str) -> Op:
    op = Op(name, inputs=["shape: T"], outputs=["output: dtype"],
            attrs=_SEED_ATTRS + ["dtype: {half, bfloat16, float, double}", "T: {int32, int64}"], is_stateful=True)
    op.shape(_shape_from_input)
    return op


RandomUniform = _random_op("RandomUniform")
RandomStandardNormal = _random_op("RandomStandardNormal")
TruncatedNormal = _random_op("TruncatedNormal")


def _uniform_sample(key: tuple[int, int], counter: int, dims: tuple[int, ...], dtype: dtypes.DType) -> np.ndarray:
    return _fill_stream(key, counter, int(np.prod(dims)), _values_per_block(dtype), dtype.as_numpy_dtype,
                        _uniform_distribution(dtype)).reshape(dims)


def _normal_sample(key: tuple[int, int], counter: int, dims: tuple[int, ...], dtype: dtypes.DType) -> np.ndarray:
    return _fill_stream(key, counter, int(np.prod(dims)), _values_per_block(dtype), dtype.as_numpy_dtype,
                        _normal_distribution(dtype)).reshape(dims)


def _truncated_normal_sample(key: tuple[int, int], counter: int, dims: tuple[int, ...],
                             dtype: dtypes.DType) -> np.ndarray:
    return _truncated_normal_values(key, counter, int(np.prod(dims)), dtype).reshape(dims)


def _uniform_int_sample(ctx: OpKernelContext, key: tuple[int, int], counter: int, dims: tuple[int, ...], minval: Any,
                        maxval: Any) -> np.ndarray:
    """minval + bits % (maxval - minval), as TF's UniformDistribution for integers (32 bits per 32-bit value,
    64 per 64-bit one)."""
    for name, bound in (("minval", minval), ("maxval", maxval)):
        if np.ndim(bound):
            raise errors.InvalidArgumentError(ctx.node_def, None, f"{name} must be 0-D, got shape "
                                              f"{tensor_shape.shape_string(np.shape(bound))}")
    if minval >= maxval:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Need minval < maxval, got {minval} >= {maxval}")
    dtype = np.asarray(minval).dtype
    unsigned = np.uint32 if dtype.itemsize == 4 else np.uint64
    low = np.asarray(minval).astype(unsigned)
    span = np.asarray(maxval).astype(unsigned) - low
    bits = _full_width_bits(unsigned)

    def distribution(evens: np.ndarray, odds: np.ndarray) -> np.ndarray:
        values = bits(evens, odds)
        values %= span
        values += low
        return values.view(dtype)

    return _fill_stream(key, counter, int(np.prod(dims)), 4 if unsigned is np.uint32 else 2, dtype,
                        distribution).reshape(dims)


def _full_width_bits(unsigned: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The Philox words as 32-bit values, or paired (low word first) as 64-bit ones."""
    return _words if unsigned is np.uint32 else _words64


def _reserved(ctx: OpKernelContext, dims: tuple[int, ...]) -> tuple[tuple[int, int], int]:
    """The node's key and the counter its outputs start at this run."""
    generator: _PhiloxGenerator = ctx.state
    return generator.key, generator.reserve_outputs(int(np.prod(dims)))


@RandomUniform.kernel("CPU", state=philox_state)
def _random_uniform(ctx: OpKernelContext, shape: Any, dtype: dtypes.DType) -> np.ndarray:
    dims = _dims(ctx, shape)
    return _uniform_sample(*_reserved(ctx, dims), dims, dtype)


@RandomStandardNormal.kernel("CPU", state=philox_state)
def _random_standard_normal(ctx: OpKernelContext, shape: Any, dtype: dtypes.DType) -> np.ndarray:
    dims = _dims(ctx, shape)
    return _normal_sample(*_reserved(ctx, dims), dims, dtype)


@TruncatedNormal.kernel("CPU", state=philox_state)
def _truncated_normal(ctx: OpKernelContext, shape: Any, dtype: dtypes.DType) -> np.ndarray:
    dims = _dims(ctx, shape)
    return _truncated_normal_sample(*_reserved(ctx, dims), dims, dtype)


RandomUniformInt = Op("RandomUniformInt", inputs=["shape: T", "minval: Tout", "maxval: Tout"],
                      outputs=["output: Tout"], attrs=_SEED_ATTRS + ["Tout: {int32, int64}", "T: {int32, int64}"],
                      is_stateful=True)


def _uniform_int_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The bounds are scalars (inputs -2 and -1); the output shape comes from the shape tensor."""
    for name, bound in zip(("minval", "maxval"), ctx.input_shapes[-2:]):
        if bound.ndims not in (None, 0):
            raise ValueError(f"{name} must be a scalar; got a tensor of shape {tensor_shape.shape_string(bound)}")
    return _shape_from_input(ctx)


RandomUniformInt.shape(_uniform_int_shape)


@RandomUniformInt.kernel("CPU", state=philox_state)
def _random_uniform_int(ctx: OpKernelContext, shape: Any, minval: Any, maxval: Any) -> np.ndarray:
    dims = _dims(ctx, shape)
    return _uniform_int_sample(ctx, *_reserved(ctx, dims), dims, minval, maxval)


def _shape_tensor(shape: Any) -> Tensor:
    if isinstance(shape, (tuple, list)) and not shape:
        return convert_to_tensor(shape, dtype=dtypes.int32, name="shape")
    return convert_to_tensor(shape, name="shape")


def op_seeds(seed: int | None) -> tuple[int, int]:
    """The (seed, seed2) attrs of a new random op: TF's seeds, 0 where it has none."""
    seed1, seed2 = random_seed.get_seed(seed)
    return seed1 or 0, seed2 or 0


@tf_export("random.uniform", "random_uniform")
def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                   seed: int | None = None, name: str | None = None) -> Tensor:
    """Uniform values in [minval, maxval); integers need `maxval`."""
    dtype = dtypes.as_dtype(dtype)
    accepted = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {accepted}.")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape = _shape_tensor(shape)
        # [0, 1) floats need no scaling; TF then emits the RandomUniform op alone.
        minval_is_zero = isinstance(minval, int) and minval == 0
        maxval_is_one = isinstance(maxval, int) and maxval == 1
        if not (minval_is_zero and maxval_is_one) or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        seed1, seed2 = op_seeds(seed)
        if dtype.is_integer:
            result = RandomUniformInt(shape, minval, maxval, seed=seed1, seed2=seed2, name=scope)
        else:
            rnd = RandomUniform(shape, dtype=dtype, seed=seed1, seed2=seed2)
            if minval_is_zero:
                result = rnd if maxval_is_one else elementwise_ops.multiply(rnd, maxval)
            else:
                result = elementwise_ops.add(rnd * (maxval - minval), minval, name=scope)
        tensor_util.maybe_set_static_shape(result, shape)
        return result


def _scaled_normal(op: Op, default_name: str, shape: Any, mean: Any, stddev: Any, dtype: Any,
                   seed: int | None, name: str | None) -> Tensor:
    with name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        seed1, seed2 = op_seeds(seed)
        rnd = op(shape, dtype=dtype, seed=seed1, seed2=seed2)
        result = elementwise_ops.add(rnd * stddev, mean, name=scope)
        tensor_util.maybe_set_static_shape(result, shape)
        return result


@tf_export("random.normal", "random_normal")
def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                  seed: int | None = None, name: str | None = None) -> Tensor:
    """Normally distributed values."""
    return _scaled_normal(RandomStandardNormal, "random_normal", shape, mean, stddev, dtype, seed, name)


@tf_export("random.truncated_normal", "truncated_normal")
def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     seed: int | None = None, name: str | None = None) -> Tensor:
    """Normal values redrawn until within two standard deviations of the mean."""
    return _scaled_normal(TruncatedNormal, "truncated_normal", shape, mean, stddev, dtype, seed, name)


# -- Stateless random ops (tf.random.stateless_*): the values are a function of the seed alone ---------------

_PHILOX, _THREEFRY, _AUTO_SELECT = 1, 2, 3  # TF's Algorithm ids; AUTO_SELECT is Philox on CPU and GPU
_SEED_SCRAMBLING_KEY = (0x3EC8F720, 0x02461E29)

StatelessRandomGetKeyCounter = Op("StatelessRandomGetKeyCounter", inputs=["seed: Tseed"],
                                  outputs=["key: uint64", "counter: uint64"],
                                  attrs=["Tseed: {int32, int64} = DT_INT64"])


@StatelessRandomGetKeyCounter.shape
def _stateless_random_get_key_counter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    seed = ctx.input_shape(0)
    if seed.ndims is not None:
        if seed.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {seed.ndims}")
        if seed.dims[0].value not in (None, 2):
            raise ValueError(f"Dimension must be 2 but is {seed.dims[0].value}")
    return [tensor_shape.TensorShape([1]), tensor_shape.TensorShape([2])]


@StatelessRandomGetKeyCounter.kernel("CPU")
def _stateless_random_get_key_counter(ctx: OpKernelContext, seed: Any) -> tuple[np.ndarray, np.ndarray]:
    """TF's GenerateKey: the seed pair, as one 128-bit counter, scrambled by one Philox call under a fixed key,
    so neither half of the seed needs to be strong."""
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(ctx.node_def, None, f"seed must have shape [2], not "
                                          f"{tensor_shape.shape_string(seed.shape)}")
    seed0, seed1 = (int(s) & 0xFFFFFFFFFFFFFFFF for s in seed)
    mix = _philox_block(_SEED_SCRAMBLING_KEY, seed1 << 64 | seed0)
    return np.array([mix[0] | mix[1] << 32], dtype=np.uint64), np.array([0, mix[2] | mix[3] << 32], dtype=np.uint64)


def _stateless_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's StatelessShapeV2: a one-word key, a vector counter, a scalar algorithm; the shape tensor's shape."""
    key, counter, alg = ctx.input_shapes[1:4]
    for shape, rank in ((key, 1), (counter, 1), (alg, 0)):
        if shape.ndims not in (None, rank):
            raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    if key.ndims is not None and key.dims[0].value not in (None, 1):
        raise ValueError(f"Dimension must be 1 but is {key.dims[0].value}")
    return _shape_from_input(ctx)


def _stateless_op(name: str, dtypes_spec: str, default: str | None, extra_inputs: tuple[str, ...] = ()) -> Op:
    """A V2 stateless random op; `default` is its `dtype` attr's default (None: none, as UniformIntV2's)."""
    dtype_attr = f"dtype: {dtypes_spec}" + ("" if default is None else f" = {default}")
    op = Op(name, inputs=["shape: Tshape", "key: uint64", "counter: uint64", "alg: int32", *extra_inputs],
            outputs=["output: dtype"], attrs=[dtype_attr, "Tshape: {int32, int64} = DT_INT32"])
    op.shape(_stateless_uniform_int_shape if extra_inputs else _stateless_shape)
    return op


def _stateless_uniform_int_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _stateless_shape(ctx)
    return _uniform_int_shape(ctx)


StatelessRandomUniformV2 = _stateless_op("StatelessRandomUniformV2", "{half, bfloat16, float, double}", "DT_FLOAT")
StatelessRandomNormalV2 = _stateless_op("StatelessRandomNormalV2", "{half, bfloat16, float, double}", "DT_FLOAT")
StatelessTruncatedNormalV2 = _stateless_op("StatelessTruncatedNormalV2", "{half, bfloat16, float, double}",
                                           "DT_FLOAT")
StatelessRandomUniformIntV2 = _stateless_op("StatelessRandomUniformIntV2", "{int32, int64, uint32, uint64}",
                                            None, ("minval: dtype", "maxval: dtype"))
StatelessRandomUniformFullIntV2 = _stateless_op("StatelessRandomUniformFullIntV2", "{int32, int64, uint32, uint64}",
                                                "DT_UINT64")


def _key_counter(ctx: OpKernelContext, key: Any, counter: Any, alg: Any) -> tuple[tuple[int, int], int]:
    """The Philox key and 128-bit counter the V2 ops' inputs give; the checks are TF's, whose counter check takes
    the algorithm's id (auto-select made Philox) for the least counter size: Philox accepts a one-word counter
    (TF then reads past it; its second word is 0 here)."""
    alg = int(alg)
    alg = _PHILOX if alg == _AUTO_SELECT else alg
    if key.shape != (1,):
        raise errors.InvalidArgumentError(ctx.node_def, None, f"key must have shape [1], not "
                                          f"{tensor_shape.shape_string(key.shape)}. (Note that batched keys are "
                                          "not supported yet.)")
    if counter.ndim != 1 or counter.shape[0] < alg:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"counter must be a vector with length at least {alg};"
                                          f" got shape: {tensor_shape.shape_string(counter.shape)}. (Note that "
                                          "batched counters are not supported yet.)")
    if alg != _PHILOX:  # TF's CPU kernels have no ThreeFry
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Unsupported algorithm id: {alg}")
    key_word = int(key[0])
    words = [int(w) for w in counter[:2]] + [0]
    return (key_word & 0xFFFFFFFF, key_word >> 32), words[0] | words[1] << 64


@StatelessRandomUniformV2.kernel("CPU")
def _stateless_random_uniform(ctx: OpKernelContext, shape: Any, key: Any, counter: Any, alg: Any,
                              dtype: dtypes.DType) -> np.ndarray:
    return _uniform_sample(*_key_counter(ctx, key, counter, alg), _dims(ctx, shape), dtype)


@StatelessRandomNormalV2.kernel("CPU")
def _stateless_random_normal(ctx: OpKernelContext, shape: Any, key: Any, counter: Any, alg: Any,
                             dtype: dtypes.DType) -> np.ndarray:
    return _normal_sample(*_key_counter(ctx, key, counter, alg), _dims(ctx, shape), dtype)


@StatelessTruncatedNormalV2.kernel("CPU")
def _stateless_truncated_normal(ctx: OpKernelContext, shape: Any, key: Any, counter: Any, alg: Any,
                                dtype: dtypes.DType) -> np.ndarray:
    return _truncated_normal_sample(*_key_counter(ctx, key, counter, alg), _dims(ctx, shape), dtype)


@StatelessRandomUniformIntV2.kernel("CPU")
def _stateless_random_uniform_int(ctx: OpKernelContext, shape: Any, key: Any, counter: Any, alg: Any, minval: Any,
                                  maxval: Any) -> np.ndarray:
    return _uniform_int_sample(ctx, *_key_counter(ctx, key, counter, alg), _dims(ctx, shape), minval, maxval)


@StatelessRandomUniformFullIntV2.kernel("CPU")
def _stateless_random_uniform_full_int(ctx: OpKernelContext, shape: Any, key: Any, counter: Any, alg: Any,
                                       dtype: dtypes.DType) -> np.ndarray:
    return _full_int_sample(*_key_counter(ctx, key, counter, alg), _dims(ctx, shape), dtype)


def _full_int_sample(key: tuple[int, int], counter: int, dims: tuple[int, ...], dtype: dtypes.DType) -> np.ndarray:
    """Every bit random: the Philox words as they are (paired for 64-bit types)."""
    unsigned = np.uint32 if dtype.size == 4 else np.uint64
    bits = _full_width_bits(unsigned)
    return _fill_stream(key, counter, int(np.prod(dims)), 4 if unsigned is np.uint32 else 2, dtype.as_numpy_dtype,
                        lambda evens, odds: bits(evens, odds).view(dtype.as_numpy_dtype)).reshape(dims)


def _stateless_alg_id(alg: Any) -> Any:
    """TF's convert_alg_to_int: an int, an Algorithm, a tensor, or a name ("philox", "threefry", "auto_select",
    any case, '-' and '_' ignored)."""
    if alg is None:
        return _AUTO_SELECT
    if isinstance(alg, (int, Tensor)):
        return alg
    if isinstance(alg, enum.Enum):  # random_distribution_ops.Algorithm
        return alg.value
    if isinstance(alg, str):
        ids = {"philox": _PHILOX, "threefry": _THREEFRY, "autoselect": _AUTO_SELECT}
        canonical = alg.strip().lower().replace("-", "").replace("_", "")
        if canonical in ids:
            return ids[canonical]
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                         "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def _uint32s_to_uint64(x: Tensor) -> Tensor:
    """TF's helper: x[0] | x[1] << 32 of a pair of uint32 words."""
    return elementwise_ops.BitwiseOr(cast_ops.cast(x[0], dtypes.uint64),
                                     elementwise_ops.LeftShift(cast_ops.cast(x[1], dtypes.uint64),
                                                               constant_ops.constant(32, dtypes.uint64)))


def _stateless_key_counter_alg(seed: Any, alg: Any) -> tuple[Tensor, Tensor, Any]:
    """TF's get_key_counter_alg: the runtime picks for "auto_select"; "philox" scrambles the seed in the graph
    (as the kernel does); "threefry" takes the seed as the key."""
    alg = _stateless_alg_id(alg)
    if isinstance(alg, Tensor) or alg == _AUTO_SELECT:
        key, counter = StatelessRandomGetKeyCounter(seed)
    elif alg == _PHILOX:
        mix = StatelessRandomUniformFullIntV2([4], constant_ops.constant([0x02461E293EC8F720], dtypes.uint64),
                                              cast_ops.cast(seed, dtypes.uint64), _PHILOX, dtype=dtypes.uint32)
        key = shape_ops.reshape(_uint32s_to_uint64(mix[:2]), [1])
        counter = manipulation_ops.stack([0, _uint32s_to_uint64(mix[2:])], axis=0)
    elif alg == _THREEFRY:
        key = shape_ops.reshape(_uint32s_to_uint64(cast_ops.cast(seed, dtypes.uint32)), [1])
        counter = fill_ops.zeros([1], dtypes.uint64)
    else:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are {_PHILOX} for the Philox "
                         f"algorithm, {_THREEFRY} for the ThreeFry algorithm, and {_AUTO_SELECT} for auto-selection.")
    return key, counter, alg


@tf_export("random.experimental.stateless_shuffle")
def stateless_shuffle(value: Any, seed: Any, alg: Any = "auto_select", name: str | None = None) -> Tensor:
    """`value` with its first dimension in the order a shape-[2] `seed` alone determines."""
    with name_scope(name, "stateless_shuffle", [value, seed]):
        key, counter, alg = _stateless_key_counter_alg(seed, alg)
        return StatelessShuffle(value, key, counter, alg)  # TF's op is named inside the scope


def _static_shape_of_result(result: Tensor, shape: Tensor) -> Tensor:
    result.set_shape(tensor_util.constant_value_as_shape(shape))
    return result


@tf_export("random.stateless_uniform")
def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                             dtype: Any = dtypes.float32, name: str | None = None,
                             alg: Any = "auto_select") -> Tensor:
    """Uniform values in [minval, maxval) that depend only on `seed` (a shape-[2] integer tensor); integers with
    no bounds take every value of their type."""
    dtype = dtypes.as_dtype(dtype)
    accepted = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
                dtypes.uint32, dtypes.uint64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {accepted}.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both None "
                             f"or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. "
                             f"Please don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape = _shape_tensor(shape)
        if dtype.is_integer and minval is None:
            key, counter, alg = _stateless_key_counter_alg(seed, alg)
            result = StatelessRandomUniformFullIntV2(shape, key, counter, alg, dtype=dtype, name=scope)
        else:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            key, counter, alg = _stateless_key_counter_alg(seed, alg)
            if dtype.is_integer:
                result = StatelessRandomUniformIntV2(shape, key, counter, alg, minval, maxval, name=scope)
            else:
                rnd = StatelessRandomUniformV2(shape, key, counter, alg, dtype=dtype)
                result = elementwise_ops.add(rnd * (maxval - minval), minval, name=scope)
        return _static_shape_of_result(result, shape)


def _stateless_scaled_normal(op: Op, default_name: str, shape: Any, seed: Any, mean: Any, stddev: Any, dtype: Any,
                             name: str | None, alg: Any) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, default_name, [shape, seed, mean, stddev]) as scope:
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg = _stateless_key_counter_alg(seed, alg)
        rnd = op(shape, key, counter, alg, dtype=dtype)
        return _static_shape_of_result(elementwise_ops.add(rnd * stddev, mean, name=scope), shape)


@tf_export("random.stateless_normal")
def stateless_random_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                            name: str | None = None, alg: Any = "auto_select") -> Tensor:
    """Normal values that depend only on `seed`."""
    return _stateless_scaled_normal(StatelessRandomNormalV2, "stateless_random_normal", shape, seed, mean, stddev,
                                    dtype, name, alg)


@tf_export("random.stateless_truncated_normal")
def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = dtypes.float32, name: str | None = None,
                               alg: Any = "auto_select") -> Tensor:
    """Normal values within two standard deviations of the mean that depend only on `seed`."""
    return _stateless_scaled_normal(StatelessTruncatedNormalV2, "stateless_truncated_normal", shape, seed, mean,
                                    stddev, dtype, name, alg)


RandomShuffle = Op("RandomShuffle", inputs=["value: T"], outputs=["output: T"], attrs=_SEED_ATTRS + ["T: type"],
                   is_stateful=True)


@RandomShuffle.shape
def _random_shuffle_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


NotDifferentiable("RandomShuffle")  # as TF's: a gradient stops here (None); Unique and ListDiff have none at all


def _stable_order(values: np.ndarray) -> np.ndarray:
    """np.argsort(values, kind="stable") for values below 2**32, as two 16-bit radix passes: NumPy's stable
    sort of 16-bit keys is a radix sort, several times faster than its merge sort of wider ones."""
    order = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
    high = values >> 16
    if high.any():
        order = order[np.argsort(high[order].astype(np.uint16), kind="stable")]
    return order


def _fisher_yates_order(draws: np.ndarray) -> np.ndarray:
    """The row order TF's Fisher-Yates makes of `draws`, one uint32 per row but the last: step i swaps rows i
    and j_i = i + draws[i] % (rows - i), in turn. Computed in whole-array passes rather than a Python step per
    row (6x faster at a million rows): step i fixes in place i what position j_i holds by then, which is the
    row that the latest earlier step aimed at j_i held when it ran, or j_i's own if no step aimed there. A step
    k holds what the latest step before it aimed at k held, and so on down a chain of ever earlier steps, which
    pointer doubling resolves in a few passes. Rows must be fewer than 2**32 (as `_stable_order` needs)."""
    steps = draws.size
    rows = steps + 1
    index_type = np.int32 if rows <= np.iinfo(np.int32).max else np.int64
    index = np.arange(rows, dtype=index_type)
    targets = (draws % (rows - index[:steps]).astype(np.uint32)).astype(index_type)
    targets += index[:steps]
    by_target = _stable_order(targets)  # steps grouped by target, each group in step order
    sorted_targets = targets[by_target]
    repeat = sorted_targets[1:] == sorted_targets[:-1]
    earlier_same_target = np.full(steps, -1, dtype=index_type)
    earlier_same_target[by_target[1:][repeat]] = by_target[:-1][repeat]
    # arrival[p]: the latest step before step p that aimed at p (for the last row, which has no step, the latest
    # of all); -1 where none did
    arrival = np.full(rows, -1, dtype=index_type)
    group_last = np.append(~repeat, True)
    arrival[sorted_targets[group_last]] = by_target[group_last]
    aimed_at_itself = arrival[:steps] == index[:steps]  # step p with j_p = p ran after, not before, step p
    arrival[:steps][aimed_at_itself] = earlier_same_target[aimed_at_itself]
    held = np.where(arrival >= 0, arrival, index)  # the row position p holds when step p runs, once resolved
    while not np.array_equal(doubled := held[held], held):
        held = doubled
    order = np.empty(rows, dtype=index_type)
    order[:steps] = np.where(earlier_same_target >= 0, held[earlier_same_target], targets)
    order[steps] = held[steps]
    return order


@RandomShuffle.kernel("CPU", state=philox_state)
def _random_shuffle(ctx: OpKernelContext, value: Any) -> Any:
    """TF's Fisher-Yates over the rows, one uint32 draw per row but the last; one element or one row comes back
    as is."""
    if value.size <= 1 or value.shape[0] <= 1:
        return value
    rows = value.shape[0]
    generator = ctx.state
    draws = generator.uint32s(generator.reserve_samples128((rows + 2) // 4), rows - 1)
    return value[_fisher_yates_order(draws)]


StatelessShuffle = Op("StatelessShuffle", inputs=["value: T", "key: uint64", "counter: uint64", "alg: int32"],
                      outputs=["output: T"], attrs=["T: type"])
StatelessShuffle.shape(_random_shuffle_shape)


@StatelessShuffle.kernel("CPU")
def _stateless_shuffle(ctx: OpKernelContext, value: Any, key: Any, counter: Any, alg: Any) -> Any:
    """RandomShuffle's Fisher-Yates with its uint32 draws from the stateless key and counter."""
    key, start = _key_counter(ctx, key, counter, alg)
    if value.size <= 1 or value.shape[0] <= 1:
        return value
    return value[_fisher_yates_order(_fill_stream(key, start, value.shape[0] - 1, 4, np.uint32, _words))]


@tf_export("random.shuffle", "random_shuffle")
def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """`value` with its first dimension in a random order (a new order every run)."""
    seed1, seed2 = op_seeds(seed)
    return RandomShuffle(value, seed=seed1, seed2=seed2, name=name)


Multinomial = Op("Multinomial", inputs=["logits: T", "num_samples: int32"], outputs=["output: output_dtype"],
                 attrs=_SEED_ATTRS + ["T: realnumbertype", "output_dtype: {int32, int64} = DT_INT64"],
                 is_stateful=True)


@Multinomial.shape
def _multinomial_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    logits = ctx.input_shape(0)
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.ndims}")
    if ctx.input_shape(1).ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ctx.input_shape(1).ndims}")
    num_samples = ctx.input_dim(1)
    batch = None if logits.ndims is None else logits.dims[0].value
    return [tensor_shape.TensorShape([batch, None if num_samples is None else int(num_samples)])]


def _multinomial_draws(ctx: OpKernelContext, logits: Any, num_samples: Any, output_dtype: dtypes.DType,
                       stream: Callable[[int], tuple[tuple[int, int], int]]) -> np.ndarray:
    """Per row, the class whose cumulative softmax weight first exceeds a uniform draw, as TF's CPU kernel:
    non-finite logits weigh nothing (a row with none finite draws `num_classes`), and the rows draw one
    stream in order, which is TF's stream whenever its kernel runs the batch as one shard (small batches).
    `stream(samples128)` gives the key and counter to draw from, given how many 128-bit samples to reserve."""
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"logits should be a matrix, got shape "
                                          f"{tensor_shape.shape_string(logits.shape)}")
    num_samples = int(num_samples)
    if num_samples < 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"num_samples should be non-negative, got "
                                          f"{num_samples}")
    batch, classes = logits.shape
    if classes == 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"num_classes should be positive, got {classes}")
    out = np.empty((batch, num_samples), dtype=output_dtype.as_numpy_dtype)
    if out.size == 0:
        return out
    key, counter = stream(batch * -(-num_samples // 4) * 4 * 2)  # two uint32 per double draw
    draws = _fill_stream(key, counter, batch * num_samples, 2, np.float64,
                         _uint64_to_double).reshape(batch, num_samples)
    logits = logits.astype(np.float64)
    finite = np.isfinite(logits)
    row_max = np.where(finite, logits, -np.inf).max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        cdf = np.cumsum(np.where(finite, np.exp(logits - row_max), 0.0), axis=1)
    for row in range(batch):
        out[row] = np.searchsorted(cdf[row], draws[row] * cdf[row, -1], side="right")
    return out


@Multinomial.kernel("CPU", state=philox_state)
def _multinomial(ctx: OpKernelContext, logits: Any, num_samples: Any,
                 output_dtype: dtypes.DType) -> np.ndarray:
    generator = ctx.state
    return _multinomial_draws(ctx, logits, num_samples, output_dtype,
                              lambda samples: (generator.key, generator.reserve_outputs(samples)))


StatelessMultinomial = Op("StatelessMultinomial", inputs=["logits: T", "num_samples: int32", "seed: Tseed"],
                          outputs=["output: output_dtype"],
                          attrs=["T: realnumbertype", "Tseed: {int32, int64} = DT_INT64",
                                 "output_dtype: {int32, int64} = DT_INT64"])
StatelessMultinomial.shape(_multinomial_shape)


@StatelessMultinomial.kernel("CPU")
def _stateless_multinomial(ctx: OpKernelContext, logits: Any, num_samples: Any, seed: Any,
                           output_dtype: dtypes.DType) -> np.ndarray:
    key, counter = _stateless_random_get_key_counter(ctx, seed)
    return _multinomial_draws(ctx, logits, num_samples, output_dtype,
                              lambda samples: _key_counter(ctx, key, counter, np.int32(1)))


def _multinomial_categorical(logits: Any, num_samples: Any, dtype: Any, seed: int | None) -> Tensor:
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    accepted = (dtypes.int32, dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {accepted}.")
    seed1, seed2 = op_seeds(seed)
    return Multinomial(logits, num_samples, seed=seed1, seed2=seed2, output_dtype=dtype)


@tf_export("random.multinomial", "multinomial")
def multinomial(logits: Any, num_samples: Any, seed: int | None = None, name: str | None = None,
                output_dtype: Any = None) -> Tensor:
    """`num_samples` class indices per row of the [batch, classes] unnormalized log-probabilities `logits`."""
    with name_scope(name, "multinomial", [logits]):
        return _multinomial_categorical(logits, num_samples, output_dtype, seed)


@tf_export("random.categorical")
def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: int | None = None,
                name: str | None = None) -> Tensor:
    """`tf.random.categorical`: `multinomial` under its TF 2 name and argument order."""
    with name_scope(name, "categorical", [logits]):
        return _multinomial_categorical(logits, num_samples, dtype, seed)


def _stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any) -> Tensor:
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    accepted = (dtypes.int32, dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {accepted}.")
    return StatelessMultinomial(logits, num_samples, seed, output_dtype=dtype)


@tf_export("random.stateless_categorical")
def stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any = dtypes.int64,
                          name: str | None = None) -> Tensor:
    """`categorical` drawn deterministically from the seed pair `seed`."""
    with name_scope(name, "stateless_categorical", [logits, seed]):
        return _stateless_categorical(logits, num_samples, seed, dtype)


@tf_export("random.stateless_multinomial")
def stateless_multinomial(logits: Any, num_samples: Any, seed: Any, output_dtype: Any = dtypes.int64,
                          name: str | None = None) -> Tensor:
    """`multinomial` drawn deterministically from the seed pair `seed` (TF1's name for stateless_categorical)."""
    with name_scope(name, "stateless_multinomial", [logits, seed]):
        return _stateless_categorical(logits, num_samples, seed, output_dtype)
