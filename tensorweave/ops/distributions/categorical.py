"""`tf.distributions.Categorical`: one of K classes with probabilities softmax(`logits`) (or `probs`) along
the last axis, and its KL divergence to another Categorical.

Samples come from the Multinomial op over the batch flattened to rows (not reparameterized); `log_prob` is
minus the sparse softmax cross entropy, with the event and the parameters broadcast against each other.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.distributions import distribution, kullback_leibler
from tensorweave.ops.distributions.util import (
    embed_check_categorical_event_shape,
    embed_check_integer_casting_closed,
    get_logits_and_probs,
)
from tensorweave.ops.elementwise_ops import where
from tensorweave.ops.fill_ops import ones, ones_like, zeros_like
from tensorweave.ops.manipulation_ops import concat, identity, sequence_mask, transpose
from tensorweave.ops.nn_ops import log_softmax, softmax, sparse_softmax_cross_entropy_with_logits
from tensorweave.ops.random_ops import multinomial
from tensorweave.ops.reduction_ops import argmax, reduce_sum
from tensorweave.ops.shape_ops import rank, reshape, shape
from tensorweave.platform.tf_export import tf_export


def _broadcast_cat_event_and_params(event: Tensor, params: Tensor, base_dtype: dtypes.DType
                                    ) -> tuple[Tensor, Tensor]:
    """The integer event and the [..., K] parameters broadcast to one batch shape (float events are cast)."""
    if event.dtype.is_floating:
        event = cast(event, dtype=dtypes.int32)
    elif not event.dtype.is_integer:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    known = (params.shape.ndims is not None and params.shape[:-1].is_fully_defined()
             and event.shape.is_fully_defined())
    if not known or params.shape[:-1] != event.shape:
        params *= ones_like(event[..., None], dtype=params.dtype)
        event *= ones(shape(params)[:-1], dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(tensor_shape.TensorShape(params.shape[:-1]))
    return event, params


@tf_export("distributions.Categorical")
class Categorical(distribution.Distribution):
    """Categorical over {0, ..., K-1}, K the last dimension of `logits` or `probs`; samples have `dtype`."""

    def __init__(self, logits: Any = None, probs: Any = None, dtype: Any = dtypes.int32, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Categorical") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[logits, probs]) as name:
            self._logits, self._probs = get_logits_and_probs(logits=logits, probs=probs, validate_args=validate_args,
                                                             multidimensional=True, name=name)
            if validate_args:
                self._logits = embed_check_categorical_event_shape(self._logits)
            static = self._logits.get_shape().with_rank_at_least(1)
            if static.ndims is not None:
                self._batch_rank = convert_to_tensor(static.ndims - 1, dtype=dtypes.int32, name="batch_rank")
            else:
                with name_scope(name="batch_rank"):
                    self._batch_rank = rank(self._logits) - 1
            logits_shape = shape(self._logits, name="logits_shape")
            if tensor_shape.dimension_value(static[-1]) is not None:
                self._event_size = convert_to_tensor(static.dims[-1].value, dtype=dtypes.int32, name="event_size")
            else:
                with name_scope(name="event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if static[:-1].is_fully_defined():
                self._batch_shape_val = constant(static[:-1].as_list(), dtype=dtypes.int32, name="batch_shape")
            else:
                with name_scope(name="batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(dtype=dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._logits, self._probs], name=name)

    @property
    def event_size(self) -> Tensor:
        """K, the number of classes (an int32 scalar)."""
        return self._event_size

    @property
    def logits(self) -> Tensor:
        return self._logits

    @property
    def probs(self) -> Tensor:
        return self._probs

    def _batch_shape_tensor(self) -> Tensor:
        return identity(self._batch_shape_val)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self.logits.get_shape()[:-1]

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        logits_2d = self.logits if self.logits.get_shape().ndims == 2 else reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = reshape(transpose(draws), concat([[n], self.batch_shape_tensor()], 0))
        return cast(draws, self.dtype)

    def _cdf(self, k: Tensor) -> Tensor:
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, probs = _broadcast_cat_event_and_params(k, self.probs, base_dtype=self.dtype.base_dtype)
        flat_probs = reshape(probs, (-1, self._event_size))
        flat_k = reshape(k, [-1])
        to_sum_over = where(sequence_mask(flat_k, self._event_size), flat_probs, zeros_like(flat_probs))
        return reshape(reduce_sum(to_sum_over, axis=-1), shape(k))

    def _log_prob(self, k: Tensor) -> Tensor:
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, logits = _broadcast_cat_event_and_params(k, self.logits, base_dtype=self.dtype.base_dtype)
        return -sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self) -> Tensor:
        return -reduce_sum(log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self) -> Tensor:
        ret = cast(argmax(self.logits, axis=self._batch_rank), self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@kullback_leibler.RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a: Categorical, b: Categorical, name: str | None = None) -> Tensor:
    """KL(a || b) = sum_k p_a(k) (log p_a(k) - log p_b(k)), from the logits."""
    with name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta_log_probs1 = log_softmax(a.logits) - log_softmax(b.logits)
        return reduce_sum(softmax(a.logits) * delta_log_probs1, axis=-1)
