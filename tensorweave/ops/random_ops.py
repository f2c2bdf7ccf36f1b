"""Random ops: uniform, normal, truncated normal, uniform integers, shuffle, multinomial.

Each node keeps its generator in its kernel context for the session's lifetime, seeded from its
(seed, seed2) attrs, so a seeded op replays the same stream in every new session and advances on every
run; seed = seed2 = 0 means fresh entropy, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, random_seed, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_registry import Op
from tensorweave.ops import math_ops

_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]


def _generator(ctx: Any, seed: int, seed2: int) -> np.random.Generator:
    rng = ctx.state.get("rng")
    if rng is None:
        rng = np.random.default_rng(None if seed == 0 and seed2 == 0 else [seed, seed2])
        ctx.state["rng"] = rng
    return rng


def _shape_from_input(op: Any) -> list:
    return [tensor_util.constant_value_as_shape(op.inputs[0])]


def _dims(ctx: Any, shape: Any) -> tuple[int, ...]:
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Shape {list(dims)} has a negative dimension")
    return dims


def _floats(draw: Any, dtype: dtypes.DType, dims: tuple[int, ...]) -> np.ndarray:
    """Draw in float32/float64 directly; half and bfloat16 are drawn in float32 and rounded."""
    if dtype == dtypes.float64:
        return draw(dims, dtype=np.float64)
    values = draw(dims, dtype=np.float32)
    return values if dtype == dtypes.float32 else values.astype(dtype.as_numpy_dtype)


def _random_op(name: str) -> Op:
    op = Op(name, inputs=["shape: T"], outputs=["output: dtype"],
            attrs=_SEED_ATTRS + ["dtype: {half, bfloat16, float, double}", "T: {int32, int64}"], is_stateful=True)
    op.shape(_shape_from_input)
    return op


RandomUniform = _random_op("RandomUniform")
RandomStandardNormal = _random_op("RandomStandardNormal")
TruncatedNormal = _random_op("TruncatedNormal")


@RandomUniform.kernel("CPU", "GPU")
def _random_uniform(ctx: Any, shape: Any, seed: int, seed2: int, dtype: dtypes.DType) -> np.ndarray:
    return _floats(_generator(ctx, seed, seed2).random, dtype, _dims(ctx, shape))


@RandomStandardNormal.kernel("CPU", "GPU")
def _random_standard_normal(ctx: Any, shape: Any, seed: int, seed2: int, dtype: dtypes.DType) -> np.ndarray:
    return _floats(_generator(ctx, seed, seed2).standard_normal, dtype, _dims(ctx, shape))


@TruncatedNormal.kernel("CPU", "GPU")
def _truncated_normal(ctx: Any, shape: Any, seed: int, seed2: int, dtype: dtypes.DType) -> np.ndarray:
    """Standard normal values, redrawing those more than two standard deviations out."""
    rng = _generator(ctx, seed, seed2)
    values = rng.standard_normal(_dims(ctx, shape), dtype=np.float64 if dtype == dtypes.float64 else np.float32)
    outside = np.abs(values) > 2.0
    while outside.any():
        values[outside] = rng.standard_normal(int(outside.sum()), dtype=values.dtype)
        outside = np.abs(values) > 2.0
    return values.astype(dtype.as_numpy_dtype, copy=False)


RandomUniformInt = Op("RandomUniformInt", inputs=["shape: T", "minval: Tout", "maxval: Tout"],
                      outputs=["output: Tout"], attrs=_SEED_ATTRS + ["Tout: {int32, int64}", "T: {int32, int64}"],
                      is_stateful=True)
RandomUniformInt.shape(_shape_from_input)


@RandomUniformInt.kernel("CPU", "GPU")
def _random_uniform_int(ctx: Any, shape: Any, minval: Any, maxval: Any, seed: int, seed2: int) -> np.ndarray:
    if np.ndim(minval) or np.ndim(maxval):
        raise errors.InvalidArgumentError(ctx.node_def, None, "minval and maxval must be 0-D")
    if minval >= maxval:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Need minval < maxval, got {minval} >= {maxval}")
    return _generator(ctx, seed, seed2).integers(minval, maxval, _dims(ctx, shape), dtype=np.asarray(minval).dtype)


def _shape_tensor(shape: Any) -> Tensor:
    if isinstance(shape, (tuple, list)) and not shape:
        return convert_to_tensor(shape, dtype=dtypes.int32, name="shape")
    return convert_to_tensor(shape, name="shape")


def _seeds(seed: int | None) -> tuple[int, int]:
    seed1, seed2 = random_seed.get_seed(seed)
    return seed1 or 0, seed2 or 0


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
        seed1, seed2 = _seeds(seed)
        if dtype.is_integer:
            return RandomUniformInt(shape, minval, maxval, seed=seed1, seed2=seed2, name=scope)
        rnd = RandomUniform(shape, dtype=dtype, seed=seed1, seed2=seed2)
        if minval_is_zero:
            return rnd if maxval_is_one else math_ops.multiply(rnd, maxval)
        return math_ops.add(rnd * (maxval - minval), minval, name=scope)


def _scaled_normal(op: Op, default_name: str, shape: Any, mean: Any, stddev: Any, dtype: Any,
                   seed: int | None, name: str | None) -> Tensor:
    with name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        seed1, seed2 = _seeds(seed)
        rnd = op(shape, dtype=dtype, seed=seed1, seed2=seed2)
        return math_ops.add(rnd * stddev, mean, name=scope)


def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                  seed: int | None = None, name: str | None = None) -> Tensor:
    """Normally distributed values."""
    return _scaled_normal(RandomStandardNormal, "random_normal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     seed: int | None = None, name: str | None = None) -> Tensor:
    """Normal values redrawn until within two standard deviations of the mean."""
    return _scaled_normal(TruncatedNormal, "truncated_normal", shape, mean, stddev, dtype, seed, name)


RandomShuffle = Op("RandomShuffle", inputs=["value: T"], outputs=["output: T"], attrs=_SEED_ATTRS + ["T: type"],
                   is_stateful=True)


@RandomShuffle.shape
def _random_shuffle_shape(op: Any) -> list:
    return [op.inputs[0].shape]


@RandomShuffle.kernel("CPU", "GPU")
def _random_shuffle(ctx: Any, value: Any, seed: int, seed2: int) -> Any:
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    return value[_generator(ctx, seed, seed2).permutation(value.shape[0])]


def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """`value` with its first dimension in a random order (a new order every run)."""
    seed1, seed2 = _seeds(seed)
    return RandomShuffle(value, seed=seed1, seed2=seed2, name=name)


Multinomial = Op("Multinomial", inputs=["logits: T", "num_samples: int32"], outputs=["output: output_dtype"],
                 attrs=_SEED_ATTRS + ["T: realnumbertype", "output_dtype: {int32, int64} = DT_INT64"],
                 is_stateful=True)


@Multinomial.shape
def _multinomial_shape(op: Any) -> list:
    logits = op.inputs[0].shape
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.ndims}")
    if op.inputs[1].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op.inputs[1].shape.ndims}")
    num_samples = tensor_util.constant_value(op.inputs[1])
    batch = None if logits.ndims is None else logits.dims[0].value
    return [tensor_shape.TensorShape([batch, None if num_samples is None else int(num_samples)])]


@Multinomial.kernel("CPU")
def _multinomial(ctx: Any, logits: Any, num_samples: Any, seed: int, seed2: int,
                 output_dtype: dtypes.DType) -> np.ndarray:
    """Per row, class indices drawn with probabilities softmax(logits): the uniform draws are looked up in
    the row's cumulative distribution (a logit of -inf is never drawn)."""
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"logits should be a matrix, got shape "
                                          f"{tensor_util.shape_string(logits.shape)}")
    num_samples = int(num_samples)
    if num_samples < 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"num_samples should be non-negative, got "
                                          f"{num_samples}")
    batch, classes = logits.shape
    if batch and num_samples and classes == 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"num_classes should be positive, got {classes}")
    rng = _generator(ctx, seed, seed2)
    out = np.empty((batch, num_samples), dtype=output_dtype.as_numpy_dtype)
    if out.size == 0:
        return out
    weights = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
    cdf = np.cumsum(weights, axis=1)
    draws = rng.random((batch, num_samples)) * cdf[:, -1:]
    for row in range(batch):
        out[row] = np.minimum(np.searchsorted(cdf[row], draws[row], side="right"), classes - 1)
    return out


def multinomial(logits: Any, num_samples: Any, seed: int | None = None, name: str | None = None,
                output_dtype: Any = None) -> Tensor:
    """`num_samples` class indices per row of the [batch, classes] unnormalized log-probabilities `logits`."""
    with name_scope(name, "multinomial", [logits]):
        logits = convert_to_tensor(logits, name="logits")
        seed1, seed2 = _seeds(seed)
        return Multinomial(logits, num_samples, seed=seed1, seed2=seed2,
                           output_dtype=output_dtype or dtypes.int64)
