"""`tf.distributions.Beta`: the beta distribution on (0, 1) with `concentration1` (alpha) and
`concentration0` (beta), and its KL divergence to another Beta.

Samples are G1 / (G1 + G0) for two gamma draws, the second seeded with `gen_new_seed(seed, "beta")` as TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.check_ops import assert_less, assert_positive, assert_same_float_dtype
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.distributions import distribution, kullback_leibler
from tensorweave.ops.distributions.util import gen_new_seed
from tensorweave.ops.elementwise_ops import exp, log, log1p, logical_and, where_v2
from tensorweave.ops.fill_ops import fill, ones, ones_like
from tensorweave.ops.random_distribution_ops import random_gamma
from tensorweave.ops.shape_ops import shape
from tensorweave.ops.special_math_ops import betainc, digamma, lgamma, xlogy
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Beta")
class Beta(distribution.Distribution):
    """Beta(concentration1, concentration0): density x^(a-1) (1-x)^(b-1) / B(a, b)."""

    def __init__(self, concentration1: Any = None, concentration0: Any = None, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Beta") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args)
            assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(dtype=self._total_concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration1, self._concentration0, self._total_concentration],
                         name=name)

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"concentration1": sample_shape, "concentration0": sample_shape}

    @property
    def concentration1(self) -> Tensor:
        return self._concentration1

    @property
    def concentration0(self) -> Tensor:
        return self._concentration0

    @property
    def total_concentration(self) -> Tensor:
        return self._total_concentration

    def _batch_shape_tensor(self) -> Tensor:
        return shape(self.total_concentration)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        expanded_concentration1 = ones_like(self.total_concentration, dtype=self.dtype) * self.concentration1
        expanded_concentration0 = ones_like(self.total_concentration, dtype=self.dtype) * self.concentration0
        gamma1_sample = random_gamma(shape=[n], alpha=expanded_concentration1, dtype=self.dtype, seed=seed)
        gamma2_sample = random_gamma(shape=[n], alpha=expanded_concentration0, dtype=self.dtype,
                                     seed=gen_new_seed(seed, "beta"))
        return gamma1_sample / (gamma1_sample + gamma2_sample)

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Tensor) -> Tensor:
        return exp(self._log_prob(x))

    def _log_cdf(self, x: Tensor) -> Tensor:
        return log(self._cdf(x))

    def _cdf(self, x: Tensor) -> Tensor:
        return betainc(self.concentration1, self.concentration0, x)

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return xlogy(self.concentration1 - 1., x) + (self.concentration0 - 1.) * log1p(-x)

    def _log_normalization(self) -> Tensor:
        return lgamma(self.concentration1) + lgamma(self.concentration0) - lgamma(self.total_concentration)

    def _entropy(self) -> Tensor:
        return (self._log_normalization()
                - (self.concentration1 - 1.) * digamma(self.concentration1)
                - (self.concentration0 - 1.) * digamma(self.concentration0)
                + (self.total_concentration - 2.) * digamma(self.total_concentration))

    def _mean(self) -> Tensor:
        return self._concentration1 / self._total_concentration

    def _variance(self) -> Tensor:
        return self._mean() * (1. - self._mean()) / (1. + self.total_concentration)

    def _mode(self) -> Tensor:
        mode = (self.concentration1 - 1.) / (self.total_concentration - 2.)
        if self.allow_nan_stats:
            nan = fill(self.batch_shape_tensor(), np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            is_defined = logical_and(self.concentration1 > 1., self.concentration0 > 1.)
            return where_v2(is_defined, mode, nan)
        return with_dependencies([
            assert_less(ones([], dtype=self.dtype), self.concentration1,
                        message="Mode undefined for concentration1 <= 1."),
            assert_less(ones([], dtype=self.dtype), self.concentration0,
                        message="Mode undefined for concentration0 <= 1.")], mode)

    def _maybe_assert_valid_concentration(self, concentration: Tensor, validate_args: bool) -> Tensor:
        if not validate_args:
            return concentration
        return with_dependencies([assert_positive(concentration,
                                                  message="Concentration parameter must be positive.")],
                                 concentration)

    def _maybe_assert_valid_sample(self, x: Tensor) -> Tensor:
        if not self.validate_args:
            return x
        return with_dependencies([
            assert_positive(x, message="sample must be positive"),
            assert_less(x, ones([], self.dtype), message="sample must be less than `1`.")], x)


@kullback_leibler.RegisterKL(Beta, Beta)
def _kl_beta_beta(d1: Beta, d2: Beta, name: str | None = None) -> Tensor:
    """KL(Beta(a1, b1) || Beta(a2, b2)) in closed form."""
    with name_scope(name, "kl_beta_beta", values=[d1.concentration1, d1.concentration0, d1.total_concentration,
                                                   d2.concentration1, d2.concentration0, d2.total_concentration]):
        return (d2._log_normalization() - d1._log_normalization()  # noqa: SLF001 - TF's formula uses them
                - digamma(d1.concentration1) * (d2.concentration1 - d1.concentration1)
                - digamma(d1.concentration0) * (d2.concentration0 - d1.concentration0)
                + digamma(d1.total_concentration) * (d2.total_concentration - d1.total_concentration))
