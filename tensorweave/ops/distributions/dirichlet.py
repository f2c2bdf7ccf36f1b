"""`tf.distributions.Dirichlet`: distributions over the probability simplex with `concentration` [..., K],
and its KL divergence to another Dirichlet.

Samples normalize K gamma draws (fully reparameterized through RandomGamma's gradient); `covariance` is the
[..., K, K] matrix, `mode` NaN (or an assertion) unless every concentration exceeds 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import assert_less, assert_near, assert_positive, assert_rank_at_least
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.distributions import distribution, kullback_leibler
from tensorweave.ops.elementwise_ops import exp, rsqrt, where_v2
from tensorweave.ops.fill_ops import fill, ones
from tensorweave.ops.linalg_ops import matmul, matrix_set_diag
from tensorweave.ops.random_distribution_ops import random_gamma
from tensorweave.ops.reduction_ops import reduce_all, reduce_sum
from tensorweave.ops.shape_ops import shape
from tensorweave.ops.special_math_ops import digamma, lbeta, xlogy
from tensorweave.platform.tf_export import tf_export


def outer_covariance(scale_term: Tensor, mean: Tensor, variance: Tensor) -> Tensor:
    """-x x^T with `variance` on the diagonal, x = scale_term * mean: the covariance of the Dirichlet family
    (Dirichlet-multinomial shares it)."""
    x = scale_term * mean
    return matrix_set_diag(-matmul(x[..., None], x[..., None, :]), variance)


@tf_export("distributions.Dirichlet")
class Dirichlet(distribution.Distribution):
    """Dirichlet(concentration): density prod x_k^(a_k - 1) / B(a) on the simplex."""

    def __init__(self, concentration: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Dirichlet") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[concentration]) as name:
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._concentration, self._total_concentration],
                         name=name)

    @property
    def concentration(self) -> Tensor:
        return self._concentration

    @property
    def total_concentration(self) -> Tensor:
        return self._total_concentration

    def _batch_shape_tensor(self) -> Tensor:
        return shape(self.total_concentration)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self) -> Tensor:
        return shape(self.concentration)[-1:]

    def _event_shape(self) -> tensor_shape.TensorShape:
        return self.concentration.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        gamma_sample = random_gamma(shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed)
        return gamma_sample / reduce_sum(gamma_sample, -1, keepdims=True)

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Tensor) -> Tensor:
        return exp(self._log_prob(x))

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return reduce_sum(xlogy(self.concentration - 1., x), -1)

    def _log_normalization(self) -> Tensor:
        return lbeta(self.concentration)

    def _entropy(self) -> Tensor:
        k = cast(self.event_shape_tensor()[0], self.dtype)
        return (self._log_normalization()
                + (self.total_concentration - k) * digamma(self.total_concentration)
                - reduce_sum((self.concentration - 1.) * digamma(self.concentration), axis=-1))

    def _mean(self) -> Tensor:
        return self.concentration / self.total_concentration[..., None]

    def _covariance(self) -> Tensor:
        return outer_covariance(self._variance_scale_term(), self._mean(), self._variance())

    def _variance(self) -> Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale_term(self) -> Tensor:
        return rsqrt(1. + self.total_concentration[..., None])

    def _mode(self) -> Tensor:
        k = cast(self.event_shape_tensor()[0], self.dtype)
        mode = (self.concentration - 1.) / (self.total_concentration[..., None] - k)
        if self.allow_nan_stats:
            nan = fill(shape(mode), np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            return where_v2(reduce_all(self.concentration > 1., axis=-1), mode, nan)
        return with_dependencies([assert_less(ones([], self.dtype), self.concentration,
                                              message="Mode undefined when any concentration <= 1")], mode)

    def _maybe_assert_valid_concentration(self, concentration: Tensor, validate_args: bool) -> Tensor:
        if not validate_args:
            return concentration
        return with_dependencies([
            assert_positive(concentration, message="Concentration parameter must be positive."),
            assert_rank_at_least(concentration, 1, message="Concentration parameter must have >=1 dimensions."),
            assert_less(1, shape(concentration)[-1], message="Concentration parameter must have event_size >= 2."),
        ], concentration)

    def _maybe_assert_valid_sample(self, x: Tensor) -> Tensor:
        if not self.validate_args:
            return x
        return with_dependencies([
            assert_positive(x, message="samples must be positive"),
            assert_near(ones([], dtype=self.dtype), reduce_sum(x, -1),
                        message="sample last-dimension must sum to `1`"),
        ], x)


@kullback_leibler.RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1: Dirichlet, d2: Dirichlet, name: str | None = None) -> Tensor:
    """KL(Dir(a1) || Dir(a2)) in closed form."""
    with name_scope(name, "kl_dirichlet_dirichlet", values=[d1.concentration, d2.concentration]):
        digamma_sum_d1 = digamma(reduce_sum(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (reduce_sum(concentration_diff * digamma_diff, axis=-1)
                - lbeta(d1.concentration) + lbeta(d2.concentration))
