"""`tf.distributions.DirichletMultinomial`: counts of `total_count` draws over K classes whose probabilities
are themselves drawn from Dirichlet(`concentration`).

Samples draw the class log-probabilities from gamma samples, then `total_count` classes from the Multinomial
op seeded `gen_new_seed(seed, "dirichlet_multinomial")`, counted with one_hot (not reparameterized).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import assert_equal, assert_positive
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.distributions import distribution
from tensorweave.ops.distributions.dirichlet import outer_covariance
from tensorweave.ops.distributions.util import (
    embed_check_categorical_event_shape,
    embed_check_nonnegative_integer_form,
    gen_new_seed,
    log_combinations,
)
from tensorweave.ops.elementwise_ops import exp, log, sqrt
from tensorweave.ops.indexing_ops import one_hot
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.random_distribution_ops import random_gamma
from tensorweave.ops.random_ops import multinomial
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.shape_ops import reshape, shape
from tensorweave.ops.special_math_ops import lbeta
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.DirichletMultinomial")
class DirichletMultinomial(distribution.Distribution):
    """Dirichlet-multinomial: events are K counts summing to `total_count`."""

    def __init__(self, total_count: Any, concentration: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "DirichletMultinomial") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[total_count, concentration]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = embed_check_nonnegative_integer_form(self._total_count)
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._total_count, self._concentration], name=name)

    @property
    def total_count(self) -> Tensor:
        return self._total_count

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
        n_draws = cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        gamma_sample = random_gamma(shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed)
        unnormalized_logits = reshape(log(gamma_sample), shape=[-1, k])
        draws = multinomial(logits=unnormalized_logits, num_samples=n_draws,
                            seed=gen_new_seed(seed, salt="dirichlet_multinomial"))
        x = reduce_sum(one_hot(draws, depth=k), -2)
        x = reshape(x, concat([[n], self.batch_shape_tensor(), [k]], 0))
        return cast(x, self.dtype)

    def _log_prob(self, counts: Tensor) -> Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        ordered_prob = lbeta(self.concentration + counts) - lbeta(self.concentration)
        return ordered_prob + log_combinations(self.total_count, counts)

    def _prob(self, counts: Tensor) -> Tensor:
        return exp(self._log_prob(counts))

    def _mean(self) -> Tensor:
        return self.total_count * (self.concentration / self.total_concentration[..., None])

    def _covariance(self) -> Tensor:
        return outer_covariance(self._variance_scale_term(), self._mean(), self._variance())

    def _variance(self) -> Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (self.total_count * scale - x)

    def _variance_scale_term(self) -> Tensor:
        c0 = self.total_concentration[..., None]
        return sqrt((1. + c0 / self.total_count) / (1. + c0))

    def _maybe_assert_valid_concentration(self, concentration: Tensor, validate_args: bool) -> Tensor:
        if not validate_args:
            return concentration
        concentration = embed_check_categorical_event_shape(concentration)
        return with_dependencies([assert_positive(concentration,
                                                  message="Concentration parameter must be positive.")],
                                 concentration)

    def _maybe_assert_valid_sample(self, counts: Tensor) -> Tensor:
        if not self.validate_args:
            return counts
        counts = embed_check_nonnegative_integer_form(counts)
        return with_dependencies([assert_equal(self.total_count, reduce_sum(counts, -1),
                                               message="counts last-dimension must sum to `self.total_count`")],
                                 counts)
