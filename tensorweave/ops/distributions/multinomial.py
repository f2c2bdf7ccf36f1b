"""`tf.distributions.Multinomial`: counts of `total_count` independent draws over K classes with
probabilities softmax(`logits`) (or `probs`).

Samples map over the flattened batch (map_fn), one Multinomial-op draw of n * total_count classes per
member, counted with one_hot (not reparameterized).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import assert_equal
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.distributions import distribution
from tensorweave.ops.distributions.util import (
    embed_check_nonnegative_integer_form,
    get_logits_and_probs,
    log_combinations,
)
from tensorweave.ops.fill_ops import ones_like
from tensorweave.ops.functional_ops import map_fn
from tensorweave.ops.indexing_ops import one_hot
from tensorweave.ops.linalg_ops import matmul, matrix_set_diag
from tensorweave.ops.manipulation_ops import concat, identity, transpose
from tensorweave.ops.nn_ops import log_softmax
from tensorweave.ops.random_ops import multinomial
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.shape_ops import reshape, shape
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Multinomial")
class Multinomial(distribution.Distribution):
    """Multinomial: events are K counts summing to `total_count`."""

    def __init__(self, total_count: Any, logits: Any = None, probs: Any = None, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Multinomial") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = embed_check_nonnegative_integer_form(self._total_count)
            self._logits, self._probs = get_logits_and_probs(logits=logits, probs=probs, multidimensional=True,
                                                             validate_args=validate_args, name=name)
            self._mean_val = self._total_count[..., None] * self._probs
        super().__init__(dtype=self._probs.dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._total_count, self._logits, self._probs], name=name)

    @property
    def total_count(self) -> Tensor:
        return self._total_count

    @property
    def logits(self) -> Tensor:
        return self._logits

    @property
    def probs(self) -> Tensor:
        return self._probs

    def _batch_shape_tensor(self) -> Tensor:
        return shape(self._mean_val)[:-1]

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self._mean_val.get_shape().with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self) -> Tensor:
        return shape(self._mean_val)[-1:]

    def _event_shape(self) -> tensor_shape.TensorShape:
        return self._mean_val.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        n_draws = cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        n_draws = ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = ones_like(n_draws[..., None], dtype=self.logits.dtype) * self.logits
        flat_logits = reshape(logits, [-1, k])
        flat_ndraws = n * reshape(n_draws, [-1])

        def sample_one(args: list[Tensor]) -> Tensor:
            """[n, k] counts for one batch member: n * n_draw classes, n_draw per sample."""
            member_logits, n_draw = args
            x = multinomial(member_logits[None, ...], n_draw, seed)
            x = reshape(x, shape=[n, -1])
            return reduce_sum(one_hot(x, depth=k), axis=-2)

        x = map_fn(sample_one, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = transpose(x, perm=[1, 0, 2])
        return reshape(x, concat([[n], self.batch_shape_tensor(), [k]], 0))

    def _log_prob(self, counts: Tensor) -> Tensor:
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts: Tensor) -> Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        return reduce_sum(counts * log_softmax(self.logits), -1)

    def _log_normalization(self, counts: Tensor) -> Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        return -log_combinations(self.total_count, counts)

    def _mean(self) -> Tensor:
        return identity(self._mean_val)

    def _covariance(self) -> Tensor:
        p = self.probs * ones_like(self.total_count)[..., None]
        return matrix_set_diag(-matmul(self._mean_val[..., None], p[..., None, :]), self._variance())

    def _variance(self) -> Tensor:
        p = self.probs * ones_like(self.total_count)[..., None]
        return self._mean_val - self._mean_val * p

    def _maybe_assert_valid_sample(self, counts: Tensor) -> Tensor:
        if not self.validate_args:
            return counts
        counts = embed_check_nonnegative_integer_form(counts)
        return with_dependencies([assert_equal(self.total_count, reduce_sum(counts, -1),
                                               message="counts must sum to `self.total_count`")], counts)
