"""TF1's initializers (`tf.zeros_initializer`, `tf.glorot_uniform_initializer`, `tf.initializers.*`).

An initializer is a configuration object: calling it with a shape (and optionally a dtype) builds the ops
that produce an initial value, so `tf.get_variable` can defer the call until it knows the variable's shape
and dtype. Random initializers go through the random ops, so graph-level and op-level seeds apply as for
any random op; `get_config()` gives back the constructor arguments, as TF's do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.ops import (
    constant_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    linalg_ops,
    manipulation_ops,
    random_ops,
    shape_ops,
)
from tensorweave.platform.tf_export import tf_export


def _assert_float_dtype(dtype: dtypes.DType) -> dtypes.DType:
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


class Initializer:
    """The base of every initializer: `init(shape, dtype=None, partition_info=None)` returns a tensor."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Initializer:
        return cls(**config)


class _Filled(Initializer):
    """One value everywhere, made by `_fill` (`tf.zeros` or `tf.ones`)."""

    _fill: Callable[[Any, Any], Tensor]

    def __init__(self, dtype: Any = dtypes.float32) -> None:
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return type(self)._fill(shape, self.dtype if dtype is None else dtype)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


@tf_export("initializers.zeros", "zeros_initializer")
class Zeros(_Filled):
    """All zeros (also for integer, bool and string variables: their default initializer)."""

    _fill = staticmethod(fill_ops.zeros)


@tf_export("initializers.ones", "ones_initializer")
class Ones(_Filled):
    """All ones."""

    _fill = staticmethod(fill_ops.ones)


@tf_export("initializers.constant", "constant_initializer")
class Constant(Initializer):
    """A scalar, list or array, laid out as TF1's `tf.constant(value, shape=...)` does (a short list is
    padded with its last value unless `verify_shape`)."""

    def __init__(self, value: Any = 0, dtype: Any = dtypes.float32, verify_shape: bool = False) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value={value} of type: {type(value).__name__}. Expected "
                            f"Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None,
                 verify_shape: bool | None = None) -> Tensor:
        return constant_ops.constant(self.value, dtype=self.dtype if dtype is None else dtype, shape=shape,
                                  verify_shape=self._verify_shape if verify_shape is None else verify_shape)

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name}


@tf_export("initializers.random_uniform", "random_uniform_initializer")
class RandomUniform(Initializer):
    """Uniform values in [minval, maxval); integer dtypes need `maxval`, as `tf.random_uniform`."""

    def __init__(self, minval: Any = 0.0, maxval: Any = None, seed: int | None = None,
                 dtype: Any = dtypes.float32) -> None:
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random_ops.random_uniform(shape, self.minval, self.maxval, self.dtype if dtype is None else dtype,
                                         seed=self.seed)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class _Normal(Initializer):
    """The arguments shared by the two normal initializers (separate classes in TF, neither a subclass)."""

    def __init__(self, mean: Any = 0.0, stddev: Any = 1.0, seed: int | None = None,
                 dtype: Any = dtypes.float32) -> None:
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("initializers.random_normal", "random_normal_initializer")
class RandomNormal(_Normal):
    """Normal values with `mean` and `stddev`."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random_ops.random_normal(shape, self.mean, self.stddev, self.dtype if dtype is None else dtype,
                                        seed=self.seed)


@tf_export("initializers.truncated_normal", "truncated_normal_initializer")
class TruncatedNormal(_Normal):
    """Normal values redrawn when more than two standard deviations from the mean."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random_ops.truncated_normal(shape, self.mean, self.stddev, self.dtype if dtype is None else dtype,
                                           seed=self.seed)


@tf_export("initializers.uniform_unit_scaling", "uniform_unit_scaling_initializer")
class UniformUnitScaling(Initializer):
    """Uniform in ±sqrt(3 / input_size) * factor, which keeps the scale of a linear layer's inputs
    (input_size: the product of every dimension but the last)."""

    def __init__(self, factor: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = max(math.prod(float(d) for d in scale_shape[:-1]), 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, self.dtype if dtype is None else dtype,
                                         seed=self.seed)

    def get_config(self) -> dict:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def _compute_fans(shape: Any) -> tuple[int, int]:
    """(fan_in, fan_out): a conv kernel's receptive field multiplies its last two dimensions."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive_field_size = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return int(shape[-2] * receptive_field_size), int(shape[-1] * receptive_field_size)


# The standard deviation of a unit normal truncated to ±2, which the truncated distribution divides out.
_TRUNCATED_NORMAL_STDDEV = .87962566103423978


@tf_export("initializers.variance_scaling", "variance_scaling_initializer")
class VarianceScaling(Initializer):
    """Values whose variance is `scale` over the fan (in, out or their average), so activations keep their
    scale through a layer; 'normal' is TF1's alias for 'truncated_normal'."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        if scale <= 0.:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Argument `distribution` should be one of ('normal', uniform', 'truncated_normal', "
                             f"'untruncated_normal'). Received: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dtype = self.dtype if dtype is None else dtype
        fan_in, fan_out = _compute_fans(shape if partition_info is None else partition_info.full_shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[self.mode]
        scale = self.scale / max(1., fan)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_NORMAL_STDDEV
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed,
                "dtype": self.dtype.name}


@tf_export("initializers.glorot_uniform", "glorot_uniform_initializer")
class GlorotUniform(VarianceScaling):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)): `tf.get_variable`'s default for floating variables.

    As in TF, the constructor's dtype is not kept (the config always says float32); the call's dtype rules.
    """

    def __init__(self, seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export("initializers.glorot_normal", "glorot_normal_initializer")
class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)) (before the truncation correction)."""

    def __init__(self, seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export("initializers.orthogonal", "orthogonal_initializer")
class Orthogonal(Initializer):
    """A random orthogonal matrix (the Q of a normal matrix's QR, signs fixed by R's diagonal so the
    distribution is uniform), reshaped to `shape` with every dimension but the last as rows, times `gain`."""

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dtype = self.dtype if dtype is None else dtype
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize, specified by argument `shape` must be at least "
                             f"two-dimensional. Received shape={shape}")
        num_rows = int(math.prod(shape[:-1]))
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = linalg_ops.Qr(a, full_matrices=False)
        q *= elementwise_ops.sign(linalg_ops.DiagPart(r))
        if num_rows < num_cols:
            with name_scope(None, "matrix_transpose", [q]):
                q = manipulation_ops.transpose(q, [1, 0])
        return self.gain * shape_ops.reshape(q, shape)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("initializers.identity")
class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only; a partition gets its slice of the full one)."""

    def __init__(self, gain: float = 1.0, dtype: Any = dtypes.float32) -> None:
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        full_shape = shape if partition_info is None else partition_info.full_shape
        if len(full_shape) != 2:
            raise ValueError(f"The tensor to initialize, specified by argument `shape` must be at least "
                             f"two-dimensional. Received shape={shape}")
        dtype = dtypes.as_dtype(self.dtype if dtype is None else dtype)
        eye = np.eye(*(int(d) for d in full_shape), dtype=dtype.as_numpy_dtype)
        initializer = constant_ops.constant(eye, dtype=dtype, name="eye")
        if partition_info is not None:
            initializer = indexing_ops.slice(initializer, partition_info.var_offset, shape)
        return self.gain * initializer

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


@tf_export("initializers.lecun_normal")
def lecun_normal(seed: int | None = None) -> VarianceScaling:
    """Truncated normal with variance 1 / fan_in."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="truncated_normal", seed=seed)


@tf_export("initializers.lecun_uniform")
def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    """Uniform with variance 1 / fan_in."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="uniform", seed=seed)


@tf_export("initializers.he_normal")
def he_normal(seed: int | None = None) -> VarianceScaling:
    """Truncated normal with variance 2 / fan_in (for ReLU layers)."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="truncated_normal", seed=seed)


@tf_export("initializers.he_uniform")
def he_uniform(seed: int | None = None) -> VarianceScaling:
    """Uniform with variance 2 / fan_in (for ReLU layers)."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="uniform", seed=seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity
