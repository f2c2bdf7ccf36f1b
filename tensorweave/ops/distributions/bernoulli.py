"""`tf.distributions.Bernoulli`: a {0, 1} outcome with P[1] = `probs` = sigmoid(`logits`), and its KL
divergence to another Bernoulli.

Samples compare a uniform draw with `probs` (not reparameterized); `log_prob` is minus the sigmoid cross
entropy, so it is stable for large |logits|.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.distributions import distribution, kullback_leibler
from tensorweave.ops.distributions.util import embed_check_integer_casting_closed, get_logits_and_probs
from tensorweave.ops.elementwise_ops import less, sigmoid
from tensorweave.ops.fill_ops import ones_like
from tensorweave.ops.manipulation_ops import concat, identity
from tensorweave.ops.nn_ops import sigmoid_cross_entropy_with_logits, softplus
from tensorweave.ops.random_ops import random_uniform
from tensorweave.ops.shape_ops import shape
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Bernoulli")
class Bernoulli(distribution.Distribution):
    """Bernoulli from exactly one of `logits` and `probs`; samples have `dtype` (int32 by default)."""

    def __init__(self, logits: Any = None, probs: Any = None, dtype: Any = dtypes.int32, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Bernoulli") -> None:
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = get_logits_and_probs(logits=logits, probs=probs,
                                                             validate_args=validate_args, name=name)
        super().__init__(dtype=dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._logits, self._probs], name=name)

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        return {"logits": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def logits(self) -> Tensor:
        return self._logits

    @property
    def probs(self) -> Tensor:
        return self._probs

    def _batch_shape_tensor(self) -> Tensor:
        return shape(self._logits)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self._logits.get_shape()

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        new_shape = concat([[n], self.batch_shape_tensor()], 0)
        uniform = random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        return cast(less(uniform, self.probs), self.dtype)

    def _log_prob(self, event: Tensor) -> Tensor:
        if self.validate_args:
            event = embed_check_integer_casting_closed(event, target_dtype=dtypes.bool)
        event = cast(event, self.logits.dtype)
        logits = self.logits
        if not (event.get_shape().is_fully_defined() and logits.get_shape().is_fully_defined()
                and event.get_shape() == logits.get_shape()):
            logits, event = ones_like(event) * logits, ones_like(logits) * event
        return -sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self) -> Tensor:
        return -self.logits * (sigmoid(self.logits) - 1) + softplus(-self.logits)

    def _mean(self) -> Tensor:
        return identity(self.probs)

    def _variance(self) -> Tensor:
        return self._mean() * (1. - self.probs)

    def _mode(self) -> Tensor:
        return cast(self.probs > 0.5, self.dtype)


@kullback_leibler.RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a: Bernoulli, b: Bernoulli, name: str | None = None) -> Tensor:
    """KL(Bernoulli(a) || Bernoulli(b)) from the logits, with softplus so it stays finite."""
    with name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = softplus(-b.logits) - softplus(-a.logits)
        delta_probs1 = softplus(b.logits) - softplus(a.logits)
        return sigmoid(a.logits) * delta_probs0 + sigmoid(-a.logits) * delta_probs1
