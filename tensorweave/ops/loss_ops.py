"""`tf.losses`: TF1's loss functions, composed from existing ops as TF's `losses_impl` composes them.

Every loss computes an elementwise loss, then `compute_weighted_loss` casts it to float32, multiplies it by
the weights (a scalar, or a tensor of the loss's rank whose dims are 1 or the loss's), reduces it by the
`Reduction` asked for, casts it back and adds the result to `loss_collection` (GraphKeys.LOSSES unless told).
Ops are named as TF's: the reduction's result is `<loss scope>/value` (`Mul`/`Sum` for NONE/SUM).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_util
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    fill_ops,
    logging_ops,
    manipulation_ops,
    nn_ops,
    reduction_ops,
    sequence_ops,
    set_ops,
    shape_ops,
)
from tensorweave.ops.reduction_ops import _deprecated_alias
from tensorweave.platform.tf_export import tf_export


@tf_export("losses.Reduction")
class Reduction:
    """How `compute_weighted_loss` reduces the weighted losses (TF1's string keys)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


_ASSERT_BROADCASTABLE_ERROR_PREFIX = "weights can not be broadcast to values."


def _has_valid_dims(weights_shape: Tensor, values_shape: Tensor) -> Tensor:
    """Whether every weights dim is 1 or the values' dim: the set difference of the two, row by row, is empty."""
    with name_scope(None, "has_invalid_dims", (weights_shape, values_shape)) as scope:
        values_shape_2d = shape_ops.expand_dims(values_shape, -1)
        valid_dims = manipulation_ops.concat((values_shape_2d, fill_ops.ones_like(values_shape_2d)), axis=1)
        weights_shape_2d = shape_ops.expand_dims(weights_shape, -1)
        invalid_dims = set_ops.set_difference(weights_shape_2d, valid_dims)
        num_invalid_dims = shape_ops.size(invalid_dims.values, name="num_invalid_dims")
        return elementwise_ops.equal(0, num_invalid_dims, name=scope)


def _has_valid_nonscalar_shape(weights_rank: Tensor, weights_shape: Tensor, values_rank: Tensor,
                               values_shape: Tensor) -> Tensor:
    with name_scope(None, "has_valid_nonscalar_shape",
                    (weights_rank, weights_shape, values_rank, values_shape)) as scope:
        is_same_rank = elementwise_ops.equal(values_rank, weights_rank, name="is_same_rank")
        return control_flow_ops.cond(is_same_rank, lambda: _has_valid_dims(weights_shape, values_shape),
                                     lambda: is_same_rank, name=scope)


def assert_broadcastable(weights: Any, values: Any) -> Operation:
    """TF's rule for loss and metric weights: a scalar, or the values' rank with each dim 1 or the values'.
    Checked while building where the shapes are known (ValueError; a no_op when they fit), else by an Assert
    that raises InvalidArgumentError at run time."""
    with name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = shape_ops.shape(weights, name="shape")
            weights_rank = shape_ops.rank(weights, name="rank")
        weights_rank_static = tensor_util.constant_value(weights_rank)
        with name_scope(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = shape_ops.shape(values, name="shape")
            values_rank = shape_ops.rank(values, name="rank")
        values_rank_static = tensor_util.constant_value(values_rank)
        if weights_rank_static is not None and values_rank_static is not None:
            if weights_rank_static == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if weights_rank_static != values_rank_static:
                raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} values.rank={values_rank_static}. "
                                 f"weights.rank={weights_rank_static}. values.shape={values.shape}. "
                                 f"weights.shape={weights.shape}. Received weights={weights}, values={values}")
            weights_shape_static = tensor_util.constant_value(weights_shape)
            values_shape_static = tensor_util.constant_value(values_shape)
            if weights_shape_static is not None and values_shape_static is not None:
                for i, (w, v) in enumerate(zip(weights_shape_static, values_shape_static)):
                    if w not in (1, v):
                        raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} Mismatch at dim {i}. "
                                         f"values.shape={values_shape_static}, weights.shape="
                                         f"{weights_shape_static}. Received weights={weights}, values={values}")
                return control_flow_ops.no_op(name="static_dims_check_success")
        is_scalar = elementwise_ops.equal(0, weights_rank, name="is_scalar")
        data = (_ASSERT_BROADCASTABLE_ERROR_PREFIX, "weights.shape=", weights.name, weights_shape,
                "values.shape=", values.name, values_shape, "is_scalar=", is_scalar)
        is_valid_shape = control_flow_ops.cond(
            is_scalar, lambda: is_scalar,
            lambda: _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank, values_shape),
            name="is_valid_shape")
        return logging_ops.Assert_(is_valid_shape, data, name=scope)


def broadcast_weights(weights: Any, values: Any) -> Tensor:
    """`weights` broadcast to the shape of `values` (TF's weights_broadcast_ops.broadcast_weights), after
    assert_broadcastable's checks unless both shapes are known and equal."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if (weights.get_shape().is_fully_defined() and values.get_shape().is_fully_defined()
                and weights.get_shape().is_compatible_with(values.get_shape())):
            return weights
        with control_dependencies((assert_broadcastable(weights, values),)):
            return elementwise_ops.multiply(weights, fill_ops.ones_like(values), name=scope)


def _safe_mean(losses: Tensor, num_present: Tensor) -> Tensor:
    return elementwise_ops.div_no_nan(reduction_ops.reduce_sum(losses), num_present, name="value")


def _num_elements(losses: Tensor) -> Tensor:
    with name_scope(None, "num_elements", [losses]) as scope:
        return cast_ops.cast(shape_ops.size(losses, name=scope), dtype=losses.dtype)


def _num_present(losses: Tensor, weights: Tensor, per_batch: bool = False) -> Tensor:
    """How many losses carry a nonzero weight (per batch row when `per_batch`)."""
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = cast_ops.cast(weights, dtype=dtypes.float32)
        present = elementwise_ops.where(elementwise_ops.equal(weights, 0.0), fill_ops.zeros_like(weights),
                                        fill_ops.ones_like(weights))
        present = broadcast_weights(present, losses)
        if per_batch:
            return reduction_ops.reduce_sum(present, axis=sequence_ops.range(1, shape_ops.rank(present)),
                                            keepdims=True, name=scope)
        return reduction_ops.reduce_sum(present, name=scope)


@tf_export("losses.add_loss")
def add_loss(loss: Any, loss_collection: str | None = GraphKeys.LOSSES) -> None:
    """Adds `loss` to `loss_collection` (nothing when the collection is None)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


@tf_export("losses.get_losses")
def get_losses(scope: str | None = None, loss_collection: str = GraphKeys.LOSSES) -> list:
    return get_collection(loss_collection, scope)


@tf_export("losses.get_regularization_losses")
def get_regularization_losses(scope: str | None = None) -> list:
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


@tf_export("losses.get_regularization_loss")
def get_regularization_loss(scope: str | None = None, name: str = "total_regularization_loss") -> Tensor:
    """The sum of the regularization losses (a constant 0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return elementwise_ops.add_n(losses, name=name)
    return constant_ops.constant(0.0)


@tf_export("losses.get_total_loss")
def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: str | None = None) -> Tensor:
    """The sum of the collected losses, with the regularization losses unless told otherwise."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return elementwise_ops.add_n(losses, name=name)


@tf_export("losses.compute_weighted_loss")
def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: str | None = None,
                          loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """`losses` * `weights`, reduced by `reduction`, in the losses' dtype, added to `loss_collection`."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        with control_dependencies((assert_broadcastable(weights, losses),)):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = cast_ops.cast(losses, dtype=dtypes.float32)
            weights = cast_ops.cast(weights, dtype=dtypes.float32)
            weighted_losses = elementwise_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = reduction_ops.reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, reduction_ops.reduce_sum(fill_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = cast_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


def _require(**arguments: Any) -> None:
    for name, value in arguments.items():
        if value is None:
            raise ValueError(f"Argument `{name}` must not be None.")


def _float_pair(labels: Any, predictions: Any) -> tuple[Tensor, Tensor]:
    """Both cast to float32, their static shapes checked compatible."""
    predictions = cast_ops.cast(predictions, dtype=dtypes.float32)
    labels = cast_ops.cast(labels, dtype=dtypes.float32)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    return labels, predictions


@tf_export("losses.absolute_difference")
def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0, scope: str | None = None,
                        loss_collection: str | None = GraphKeys.LOSSES,
                        reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    _require(labels=labels, predictions=predictions)
    with name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = elementwise_ops.abs(elementwise_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.cosine_distance")
def cosine_distance(labels: Any, predictions: Any, axis: int | None = None, weights: Any = 1.0,
                    scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS, dim: int | None = None) -> Tensor:
    """1 - the dot product along `axis` of unit-normalized labels and predictions (`dim` is the old name)."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _require(labels=labels, predictions=predictions)
    with name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        radial_diffs = elementwise_ops.multiply(predictions, labels)
        losses = 1 - reduction_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.hinge_loss")
def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: str | None = None,
               loss_collection: str | None = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """max(0, 1 - y * logits) with the 0/1 labels mapped to y = -1/1."""
    _require(labels=labels, logits=logits)
    with name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        labels, logits = _float_pair(labels, logits)
        all_ones = fill_ops.ones_like(labels)
        labels = elementwise_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(elementwise_ops.subtract(all_ones, elementwise_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.huber_loss")
def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0, scope: str | None = None,
               loss_collection: str | None = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Quadratic within `delta` of the label, linear beyond it."""
    _require(labels=labels, predictions=predictions)
    with name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        abs_error = elementwise_ops.abs(elementwise_ops.subtract(predictions, labels))
        quadratic = elementwise_ops.minimum(abs_error, delta)
        linear = elementwise_ops.subtract(abs_error, quadratic)
        losses = elementwise_ops.add(
            elementwise_ops.multiply(0.5, elementwise_ops.multiply(quadratic, quadratic)),
            elementwise_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.log_loss")
def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7, scope: str | None = None,
             loss_collection: str | None = GraphKeys.LOSSES,
             reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    _require(labels=labels, predictions=predictions)
    with name_scope(scope, "log_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = -elementwise_ops.multiply(labels, elementwise_ops.log(predictions + epsilon)) - \
            elementwise_ops.multiply((1 - labels), elementwise_ops.log(1 - predictions + epsilon))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.mean_pairwise_squared_error")
def mean_pairwise_squared_error(labels: Any, predictions: Any, weights: Any = 1.0, scope: str | None = None,
                                loss_collection: str | None = GraphKeys.LOSSES) -> Tensor:
    """The mean over pairs of elements within each batch row of the squared difference of their differences,
    weighted per row."""
    _require(labels=labels, predictions=predictions)
    with name_scope(scope, "mean_pairwise_squared_error", (predictions, labels, weights)):
        weights = cast_ops.cast(weights, dtype=dtypes.float32)
        labels = cast_ops.cast(labels, dtype=dtypes.float32)
        # TF checks the weights against the labels before anything else is built
        with control_dependencies((assert_broadcastable(weights, labels),)):
            predictions = cast_ops.cast(predictions, dtype=dtypes.float32)
            predictions.get_shape().assert_is_compatible_with(labels.get_shape())
            diffs = elementwise_ops.subtract(predictions, labels)
            axis = sequence_ops.range(1, shape_ops.rank(diffs))
            sum_squares_diff_per_batch = reduction_ops.reduce_sum(elementwise_ops.square(diffs), axis=axis,
                                                                  keepdims=True)
            num_present_per_batch = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * elementwise_ops.div_no_nan(
                sum_squares_diff_per_batch, elementwise_ops.maximum(num_present_per_batch - 1, 0), name="value")
            sum_diff = reduction_ops.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * elementwise_ops.div_no_nan(
                elementwise_ops.square(sum_diff),
                elementwise_ops.maximum(elementwise_ops.multiply(num_present_per_batch, num_present_per_batch - 1),
                                        0),
                name="value")
            weighted_losses = elementwise_ops.multiply(term1 - term2, weights)
            loss = reduction_ops.reduce_sum(weighted_losses)
            mean_loss = elementwise_ops.where(reduction_ops.reduce_sum(num_present_per_batch) > 0, loss,
                                              fill_ops.zeros_like(loss), name="value")
            add_loss(mean_loss, loss_collection)
            return mean_loss


@tf_export("losses.mean_squared_error")
def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0, scope: str | None = None,
                       loss_collection: str | None = GraphKeys.LOSSES,
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    _require(labels=labels, predictions=predictions)
    with name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = elementwise_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.sigmoid_cross_entropy")
def sigmoid_cross_entropy(multi_class_labels: Any, logits: Any, weights: Any = 1.0, label_smoothing: float = 0,
                          scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Sigmoid cross entropy; `label_smoothing` pulls the labels towards 1/2."""
    _require(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        multi_class_labels = cast_ops.cast(multi_class_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(multi_class_labels.get_shape())
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


@tf_export("losses.softmax_cross_entropy")
def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0, label_smoothing: float = 0,
                          scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Softmax cross entropy; `label_smoothing` spreads that much of each label evenly over the classes."""
    _require(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        onehot_labels = cast_ops.cast(onehot_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(onehot_labels.get_shape())
        if label_smoothing > 0:
            num_classes = cast_ops.cast(shape_ops.shape(onehot_labels)[-1], logits.dtype)
            onehot_labels = onehot_labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        onehot_labels = manipulation_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def remove_squeezable_dimensions(labels: Any, predictions: Any, expected_rank_diff: int = 0,
                                 name: str | None = None) -> tuple[Tensor, Tensor]:
    """Squeeze a trailing size-1 dim off labels or predictions when their ranks differ by one more (or one
    less) than `expected_rank_diff` (TF's confusion_matrix.remove_squeezable_dimensions): by the static ranks
    when both are known, else by conds on the ranks."""
    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        predictions_shape, labels_shape = predictions.get_shape(), labels.get_shape()
        predictions_rank, labels_rank = predictions_shape.ndims, labels_shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if rank_diff == expected_rank_diff + 1 and predictions_shape.dims[-1].is_compatible_with(1):
                predictions = shape_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and labels_shape.dims[-1].is_compatible_with(1):
                labels = shape_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = shape_ops.rank(predictions) - shape_ops.rank(labels)
        if predictions_rank is None or predictions_shape.dims[-1].is_compatible_with(1):
            squeezable = predictions
            predictions = control_flow_ops.cond(elementwise_ops.equal(expected_rank_diff + 1, rank_diff),
                                                lambda: shape_ops.squeeze(squeezable, [-1]), lambda: squeezable)
        if labels_rank is None or labels_shape.dims[-1].is_compatible_with(1):
            squeezable_labels = labels
            labels = control_flow_ops.cond(elementwise_ops.equal(expected_rank_diff - 1, rank_diff),
                                           lambda: shape_ops.squeeze(squeezable_labels, [-1]),
                                           lambda: squeezable_labels)
        return labels, predictions


def match_weights_rank(weights: Tensor, predictions: Tensor) -> Tensor:
    """Weights one rank above the predictions lose their last dim; one below gain one (TF's metrics'
    _remove_squeezable_dimensions: by the static ranks when both are known, else by conds on the ranks)."""
    weights_shape = weights.get_shape()
    weights_rank, predictions_rank = weights_shape.ndims, predictions.get_shape().ndims
    if weights_rank == 0:
        return weights
    if weights_rank is not None and predictions_rank is not None:
        if weights_rank - predictions_rank == 1:
            return shape_ops.squeeze(weights, [-1])
        if predictions_rank - weights_rank == 1:
            return shape_ops.expand_dims(weights, [-1])
        return weights
    weights_rank_tensor = shape_ops.rank(weights)
    rank_diff = weights_rank_tensor - shape_ops.rank(predictions)

    def maybe_expand() -> Tensor:
        return control_flow_ops.cond(elementwise_ops.equal(rank_diff, -1),
                                     lambda: shape_ops.expand_dims(weights, [-1]), lambda: weights)

    if weights_rank is not None and not weights_shape.dims[-1].is_compatible_with(1):
        def maybe_squeeze() -> Tensor:
            return weights
    else:
        def maybe_squeeze() -> Tensor:
            return shape_ops.squeeze(weights, [-1])

    def maybe_adjust() -> Tensor:
        return control_flow_ops.cond(elementwise_ops.equal(rank_diff, 1), maybe_squeeze, maybe_expand)

    return control_flow_ops.cond(elementwise_ops.equal(weights_rank_tensor, 0), lambda: weights, maybe_adjust)


@tf_export("losses.sparse_softmax_cross_entropy")
def sparse_softmax_cross_entropy(labels: Any, logits: Any, weights: Any = 1.0, scope: str | None = None,
                                 loss_collection: str | None = GraphKeys.LOSSES,
                                 reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Tensor:
    """Softmax cross entropy against class indices (a trailing size-1 dim of labels or weights is dropped)."""
    _require(labels=labels, logits=logits)
    with name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        labels, logits = remove_squeezable_dimensions(labels, logits, expected_rank_diff=1)
        weights = convert_to_tensor(weights)
        labels_rank, weights_rank = labels.get_shape().ndims, weights.get_shape().ndims
        if labels_rank is not None and weights_rank is not None and weights_rank - labels_rank == 1:
            weights = shape_ops.squeeze(weights, [-1])
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)
