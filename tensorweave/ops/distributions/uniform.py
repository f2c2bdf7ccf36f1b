"""`tf.distributions.Uniform`: the continuous uniform distribution on [low, high).

Samples are `low + (high - low) * random_uniform` (fully reparameterized); `prob` is 1/range inside the
interval, 0 outside and NaN for a NaN argument, as TF's.
"""

from __future__ import annotations

import math
from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.ops.check_ops import assert_less, assert_same_float_dtype
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.distributions import distribution
from tensorweave.ops.elementwise_ops import is_nan, log, logical_or, square, where_v2
from tensorweave.ops.fill_ops import ones, ones_like, zeros, zeros_like
from tensorweave.ops.manipulation_ops import concat, identity
from tensorweave.ops.random_ops import random_uniform
from tensorweave.ops.shape_ops import broadcast_dynamic_shape, broadcast_static_shape, shape
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Uniform")
class Uniform(distribution.Distribution):
    """Uniform on [low, high), batched by broadcasting `low` against `high`."""

    def __init__(self, low: Any = 0., high: Any = 1., validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Uniform") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as name:
            checks = [assert_less(low, high, message="uniform not defined when low >= high.")] if validate_args else []
            with control_dependencies(checks):
                self._low = identity(low, name="low")
                self._high = identity(high, name="high")
                assert_same_float_dtype([self._low, self._high])
        super().__init__(dtype=self._low.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._low, self._high], name=name)

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"low": sample_shape, "high": sample_shape}

    @property
    def low(self) -> Tensor:
        return self._low

    @property
    def high(self) -> Tensor:
        return self._high

    def range(self, name: str = "range") -> Tensor:
        """high - low."""
        with self._name_scope(name):
            return self.high - self.low

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_dynamic_shape(shape(self.low), shape(self.high))

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return broadcast_static_shape(self.low.get_shape(), self.high.get_shape())

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        samples = random_uniform(shape=concat([[n], self.batch_shape_tensor()], 0), dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x: Tensor) -> Tensor:
        broadcasted_x = x * ones(self.batch_shape_tensor(), dtype=x.dtype)
        outside = logical_or(broadcasted_x < self.low, broadcasted_x >= self.high)
        return where_v2(is_nan(broadcasted_x), broadcasted_x,
                        where_v2(outside, zeros_like(broadcasted_x), ones_like(broadcasted_x) / self.range()))

    def _cdf(self, x: Tensor) -> Tensor:
        broadcast_shape = broadcast_dynamic_shape(shape(x), self.batch_shape_tensor())
        zero = zeros(broadcast_shape, dtype=self.dtype)
        one = ones(broadcast_shape, dtype=self.dtype)
        result_if_not_big = where_v2(x < self.low, zero, (x * one - self.low) / self.range())
        return where_v2(x >= self.high, one, result_if_not_big)

    def _entropy(self) -> Tensor:
        return log(self.range())

    def _mean(self) -> Tensor:
        return (self.low + self.high) / 2.

    def _variance(self) -> Tensor:
        return square(self.range()) / 12.

    def _stddev(self) -> Tensor:
        return self.range() / math.sqrt(12.)
