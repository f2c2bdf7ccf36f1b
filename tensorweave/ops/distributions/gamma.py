"""`tf.distributions.Gamma`: the gamma distribution with `concentration` (shape) and `rate` (inverse scale),
and its KL divergence to another Gamma.

Samples come from the RandomGamma op, whose gradient (RandomGammaGrad, the implicit reparameterization)
makes them fully reparameterized. `mode` is NaN (or, with `allow_nan_stats=False`, an assertion) where
concentration <= 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.ops.check_ops import assert_less, assert_positive, assert_same_float_dtype
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.distributions import distribution, kullback_leibler
from tensorweave.ops.elementwise_ops import log, sqrt, square, where_v2
from tensorweave.ops.fill_ops import fill, ones
from tensorweave.ops.manipulation_ops import identity
from tensorweave.ops.random_distribution_ops import random_gamma
from tensorweave.ops.shape_ops import broadcast_dynamic_shape, broadcast_static_shape, shape
from tensorweave.ops.special_math_ops import digamma, igamma, lgamma, xlogy
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Gamma")
class Gamma(distribution.Distribution):
    """Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a)."""

    def __init__(self, concentration: Any, rate: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Gamma") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[concentration, rate]) as name:
            checks = [assert_positive(concentration), assert_positive(rate)] if validate_args else []
            with control_dependencies(checks):
                self._concentration = identity(concentration, name="concentration")
                self._rate = identity(rate, name="rate")
                assert_same_float_dtype([self._concentration, self._rate])
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._concentration, self._rate], name=name)

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"concentration": sample_shape, "rate": sample_shape}

    @property
    def concentration(self) -> Tensor:
        return self._concentration

    @property
    def rate(self) -> Tensor:
        return self._rate

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_dynamic_shape(shape(self.concentration), shape(self.rate))

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return broadcast_static_shape(self.concentration.get_shape(), self.rate.get_shape())

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        return random_gamma(shape=[n], alpha=self.concentration, beta=self.rate, dtype=self.dtype, seed=seed)

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return igamma(self.concentration, self.rate * x)

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return xlogy(self.concentration - 1., x) - self.rate * x

    def _log_normalization(self) -> Tensor:
        return lgamma(self.concentration) - self.concentration * log(self.rate)

    def _entropy(self) -> Tensor:
        return (self.concentration - log(self.rate) + lgamma(self.concentration)
                + (1. - self.concentration) * digamma(self.concentration))

    def _mean(self) -> Tensor:
        return self.concentration / self.rate

    def _variance(self) -> Tensor:
        return self.concentration / square(self.rate)

    def _stddev(self) -> Tensor:
        return sqrt(self.concentration) / self.rate

    def _mode(self) -> Tensor:
        mode = (self.concentration - 1.) / self.rate
        if self.allow_nan_stats:
            nan = fill(self.batch_shape_tensor(), np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            return where_v2(self.concentration > 1., mode, nan)
        return with_dependencies([assert_less(ones([], self.dtype), self.concentration,
                                              message="mode not defined when any concentration <= 1")], mode)

    def _maybe_assert_valid_sample(self, x: Tensor) -> Tensor:
        assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return with_dependencies([assert_positive(x)], x)


@kullback_leibler.RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0: Gamma, g1: Gamma, name: str | None = None) -> Tensor:
    """KL(Gamma(a0, b0) || Gamma(a1, b1)) in closed form."""
    with name_scope(name, "kl_gamma_gamma", values=[g0.concentration, g0.rate, g1.concentration, g1.rate]):
        return ((g0.concentration - g1.concentration) * digamma(g0.concentration)
                + lgamma(g1.concentration) - lgamma(g0.concentration)
                + g1.concentration * log(g0.rate) - g1.concentration * log(g1.rate)
                + g0.concentration * (g1.rate / g0.rate - 1.))
