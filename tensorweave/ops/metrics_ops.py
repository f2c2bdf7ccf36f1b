"""`tf.metrics`: TF1's streaming metrics, composed from existing ops as TF's `metrics_impl` composes them.

Each metric opens a variable scope (`accuracy`, `auc_1`, ...), keeps its running state in zero-initialized
local variables (GraphKeys.LOCAL_VARIABLES and METRIC_VARIABLES, not trainable: `accuracy/total`,
`accuracy/count`), and returns (value, update_op): the value reads the state, the update op adds one batch
to it and returns the value after the update. Values go to `metrics_collections`, update ops to
`updates_collections`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorweave.framework import dtypes
from tensorweave.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collections,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tensorweave.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tensorweave.ops import (
    cast_ops,
    check_ops,
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    fill_ops,
    linalg_ops,
    manipulation_ops,
    math_misc_ops,
    reduction_ops,
    scatter_ops,
    sequence_ops,
    set_ops,
    shape_ops,
    sparse_ops,
    state_ops,
    variables,
)
from tensorweave.ops.loss_ops import broadcast_weights, match_weights_rank, remove_squeezable_dimensions
from tensorweave.ops.variable_scope import variable_scope
from tensorweave.platform import tf_logging as logging
from tensorweave.platform.tf_export import tf_export


@tf_export("math.confusion_matrix", "confusion_matrix")
def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None, dtype: Any = dtypes.int32,
                     name: str | None = None, weights: Any = None) -> Tensor:
    """counts[i, j]: how often label i was predicted as j (or the sum of those weights), composed as TF's:
    asserts that no label or prediction is negative (or, given num_classes, out of bound), then ScatterNd."""
    with name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = remove_squeezable_dimensions(convert_to_tensor(labels, name="labels"),
                                                           convert_to_tensor(predictions, name="predictions"))
        predictions = cast_ops.cast(predictions, dtypes.int64)
        labels = cast_ops.cast(labels, dtypes.int64)
        labels = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values")], labels)
        predictions = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(predictions, message="`predictions` contains negative values")],
            predictions)
        if num_classes is None:
            num_classes = elementwise_ops.maximum(reduction_ops.reduce_max(predictions),
                                                  reduction_ops.reduce_max(labels)) + 1
        else:
            num_classes_int64 = cast_ops.cast(num_classes, dtypes.int64)
            labels = control_flow_ops.with_dependencies(
                [check_ops.assert_less(labels, num_classes_int64, message="`labels` out of bound")], labels)
            predictions = control_flow_ops.with_dependencies(
                [check_ops.assert_less(predictions, num_classes_int64, message="`predictions` out of bound")],
                predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.get_shape().assert_is_compatible_with(weights.get_shape())
            weights = cast_ops.cast(weights, dtype)
        shape = manipulation_ops.stack([num_classes, num_classes])
        indices = manipulation_ops.stack([labels, predictions], axis=1)
        values = fill_ops.ones_like(predictions, dtype) if weights is None else weights
        return scatter_ops.scatter_nd(indices=indices, updates=values, shape=cast_ops.cast(shape, dtypes.int64))


def metric_variable(shape: Any, dtype: Any, validate_shape: bool = True, name: str | None = None) -> Any:
    """A zero-initialized local variable holding a metric's running state."""
    return variables.Variable(lambda: fill_ops.zeros(shape, dtype), trainable=False,
                              collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                              validate_shape=validate_shape, name=name)


def _add(collections: Sequence[str] | None, value: Any) -> None:
    if collections:
        add_to_collections(collections, value)


def _remove_squeezable_dimensions(predictions: Any, labels: Any, weights: Any) -> tuple[Tensor, Any, Any]:
    """Predictions and labels of matching rank, weights squeezed or expanded by one rank to match."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if weights is None:
        return predictions, labels, None
    return predictions, labels, match_weights_rank(convert_to_tensor(weights), predictions)


def _running_mean(total: Any, count: Any, added_total: Any, added_count: Any, values: Tensor,
                  metrics_collections: Sequence[str] | None,
                  updates_collections: Sequence[str] | None) -> tuple[Tensor, Tensor]:
    """A running mean's value (`total` / `count`) and its update (add `added_total` and, after `values`,
    `added_count`), each put in its collections: the end of tf.metrics.mean and mean_tensor."""
    update_total_op = state_ops.assign_add(total, added_total)
    with control_dependencies([values]):
        update_count_op = state_ops.assign_add(count, added_count)
    mean_t = elementwise_ops.div_no_nan(total, elementwise_ops.maximum(count, 0), name="value")
    _add(metrics_collections, mean_t)
    update_op = elementwise_ops.div_no_nan(update_total_op, elementwise_ops.maximum(update_count_op, 0),
                                           name="update_op")
    _add(updates_collections, update_op)
    return mean_t, update_op


@tf_export("metrics.mean")
def mean(values: Any, weights: Any = None, metrics_collections: Sequence[str] | None = None,
         updates_collections: Sequence[str] | None = None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The (weighted) mean of every value seen: running `total` / `count`."""
    with variable_scope(name, "mean", (values, weights)):
        values = cast_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = cast_ops.cast(shape_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(cast_ops.cast(weights, dtypes.float32), values)
            values = elementwise_ops.multiply(values, weights)
            num_values = reduction_ops.reduce_sum(weights)
        return _running_mean(total, count, reduction_ops.reduce_sum(values), num_values, values,
                             metrics_collections, updates_collections)


@tf_export("metrics.accuracy")
def accuracy(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Sequence[str] | None = None,
             updates_collections: Sequence[str] | None = None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """How often predictions equal labels: the mean of their elementwise equality."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if labels.dtype != predictions.dtype:
        predictions = cast_ops.cast(predictions, labels.dtype)
    is_correct = cast_ops.cast(elementwise_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def _mean_of(errors_fn: Callable, default_name: str) -> Callable:
    def metric(labels: Any, predictions: Any, weights: Any = None,
               metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
               name: str | None = None) -> tuple[Tensor, Tensor]:
        predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
        return mean(errors_fn(labels, predictions), weights, metrics_collections, updates_collections,
                    name or default_name)

    metric.__name__ = default_name
    metric.__doc__ = f"The running (weighted) mean of the elementwise {default_name.replace('_', ' ')[5:]}."
    return metric


mean_absolute_error = tf_export("metrics.mean_absolute_error")(
    _mean_of(lambda labels, predictions: elementwise_ops.abs(predictions - labels), "mean_absolute_error"))
mean_squared_error = tf_export("metrics.mean_squared_error")(
    _mean_of(elementwise_ops.squared_difference, "mean_squared_error"))


@tf_export("metrics.root_mean_squared_error")
def root_mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                            metrics_collections: Sequence[str] | None = None,
                            updates_collections: Sequence[str] | None = None,
                            name: str | None = None) -> tuple[Tensor, Tensor]:
    """The square root of the running mean squared error."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    rmse = elementwise_ops.sqrt(mse)
    _add(metrics_collections, rmse)
    update_rmse_op = elementwise_ops.sqrt(update_mse_op)
    _add(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


def _count_condition(values: Tensor, weights: Any, metrics_collections: Sequence[str] | None,
                     updates_collections: Sequence[str] | None) -> tuple[Tensor, Tensor]:
    """A running (weighted) count of the true elements of a boolean tensor, in `count`."""
    check_ops.assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = cast_ops.cast(values, dtypes.float32)
    if weights is not None:
        with control_dependencies((check_ops.assert_rank_in(weights, (0, shape_ops.rank(values))),)):
            weights = cast_ops.cast(weights, dtypes.float32)
            values = elementwise_ops.multiply(values, weights)
    value_tensor = manipulation_ops.identity(count)
    _add(metrics_collections, value_tensor)
    update_op = state_ops.assign_add(count, reduction_ops.reduce_sum(values))
    _add(updates_collections, update_op)
    return value_tensor, update_op


def _condition_count(default_name: str, label: bool, prediction: bool) -> Callable:
    """The running count of elements whose boolean label and prediction are `label` and `prediction`."""
    def metric(labels: Any, predictions: Any, weights: Any = None,
               metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
               name: str | None = None) -> tuple[Tensor, Tensor]:
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                cast_ops.cast(predictions, dtype=dtypes.bool), cast_ops.cast(labels, dtype=dtypes.bool), weights)
            is_condition = elementwise_ops.logical_and(elementwise_ops.equal(labels, label),
                                                       elementwise_ops.equal(predictions, prediction))
            return _count_condition(is_condition, weights, metrics_collections, updates_collections)

    metric.__name__ = default_name
    metric.__doc__ = f"The running (weighted) count of {default_name.replace('_', ' ')}."
    return metric


true_positives = tf_export("metrics.true_positives")(_condition_count("true_positives", True, True))
false_positives = tf_export("metrics.false_positives")(_condition_count("false_positives", False, True))
true_negatives = tf_export("metrics.true_negatives")(_condition_count("true_negatives", False, False))
false_negatives = tf_export("metrics.false_negatives")(_condition_count("false_negatives", True, False))


def _ratio_metric(default_name: str, other: Callable) -> Callable:
    """tp / (tp + `other`), 0 where both counts are 0: precision (other = false positives) and recall
    (false negatives)."""
    def metric(labels: Any, predictions: Any, weights: Any = None,
               metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
               name: str | None = None) -> tuple[Tensor, Tensor]:
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                cast_ops.cast(predictions, dtype=dtypes.bool), cast_ops.cast(labels, dtype=dtypes.bool), weights)
            tp, tp_update = true_positives(labels, predictions, weights)
            other_count, other_update = other(labels, predictions, weights)

            def ratio(tp: Tensor, other_count: Tensor, name: str) -> Tensor:
                return elementwise_ops.where(elementwise_ops.greater(tp + other_count, 0),
                                             elementwise_ops.divide(tp, tp + other_count), 0, name)

            value = ratio(tp, other_count, "value")
            _add(metrics_collections, value)
            update_op = ratio(tp_update, other_update, "update_op")
            _add(updates_collections, update_op)
            return value, update_op

    metric.__name__ = default_name
    metric.__doc__ = f"The running (weighted) {default_name}."
    return metric


precision = tf_export("metrics.precision")(_ratio_metric("precision", false_positives))
recall = tf_export("metrics.recall")(_ratio_metric("recall", false_negatives))

_CONFUSION_KEYS = ("tp", "fn", "tn", "fp")
_CONFUSION_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                    "fp": "false_positives"}


def _confusion_matrix_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float], weights: Any = None,
                                    includes: Sequence[str] | None = None) -> tuple[dict, dict]:
    """Running counts of tp/fn/tn/fp at each threshold (a prediction above it is positive), one [thresholds]
    variable each; the values and update ops by key."""
    includes = _CONFUSION_KEYS if includes is None else includes
    for include in includes:
        if include not in _CONFUSION_KEYS:
            raise ValueError(f"Invalid key: {include}.")
    predictions = convert_to_tensor(predictions)
    with control_dependencies([
            check_ops.assert_greater_equal(predictions, cast_ops.cast(0.0, dtype=predictions.dtype),
                                           message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(predictions, cast_ops.cast(1.0, dtype=predictions.dtype),
                                        message="predictions must be in [0, 1]")]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            cast_ops.cast(predictions, dtype=dtypes.float32), cast_ops.cast(labels, dtype=dtypes.bool), weights)
    num_thresholds = len(thresholds)
    predictions_2d = shape_ops.reshape(predictions, [-1, 1])
    labels_2d = shape_ops.reshape(cast_ops.cast(labels, dtype=dtypes.bool), [1, -1])
    thresh = shape_ops.expand_dims(constant_ops.constant(thresholds, dtype=dtypes.float32), [1])
    pred_is_pos = elementwise_ops.greater(manipulation_ops.transpose(predictions_2d), thresh)
    label_is_pos = labels_2d
    conditions = {
        "tp": lambda: elementwise_ops.logical_and(label_is_pos, pred_is_pos),
        "fn": lambda: elementwise_ops.logical_and(label_is_pos, elementwise_ops.logical_not(pred_is_pos)),
        "tn": lambda: elementwise_ops.logical_and(elementwise_ops.logical_not(label_is_pos),
                                                  elementwise_ops.logical_not(pred_is_pos)),
        "fp": lambda: elementwise_ops.logical_and(elementwise_ops.logical_not(label_is_pos), pred_is_pos),
    }
    weights_2d = None
    if weights is not None:
        weights = broadcast_weights(cast_ops.cast(weights, dtypes.float32), predictions)
        weights_2d = shape_ops.reshape(weights, [1, -1])
    values, update_ops = {}, {}
    for key in _CONFUSION_KEYS:
        if key not in includes:
            continue
        variable = metric_variable([num_thresholds], dtypes.float32, name=_CONFUSION_NAMES[key])
        # [thresholds, n] by broadcasting the [1, n] labels and weights, where TF tiles them.
        counted = cast_ops.cast(conditions[key](), dtypes.float32)
        if weights_2d is not None:
            counted *= weights_2d
        update_ops[key] = state_ops.assign_add(variable, reduction_ops.reduce_sum(counted, 1))
        values[key] = variable
    return values, update_ops


def _at_thresholds(key: str) -> Callable:
    default_name = _CONFUSION_NAMES[key]

    def metric(labels: Any, predictions: Any, thresholds: Sequence[float], weights: Any = None,
               metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
               name: str | None = None) -> tuple[Tensor, Tensor]:
        with variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights,
                                                                 includes=(key,))
            value = manipulation_ops.identity(values[key])
            _add(metrics_collections, value)
            _add(updates_collections, update_ops[key])
            return value, update_ops[key]

    metric.__name__ = f"{default_name}_at_thresholds"
    metric.__doc__ = f"The running (weighted) count of {default_name.replace('_', ' ')} at each threshold."
    return metric


true_positives_at_thresholds = tf_export("metrics.true_positives_at_thresholds")(_at_thresholds("tp"))
false_positives_at_thresholds = tf_export("metrics.false_positives_at_thresholds")(_at_thresholds("fp"))
true_negatives_at_thresholds = tf_export("metrics.true_negatives_at_thresholds")(_at_thresholds("tn"))
false_negatives_at_thresholds = tf_export("metrics.false_negatives_at_thresholds")(_at_thresholds("fn"))

_SUMMATION_METHODS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


@tf_export("metrics.auc")
def auc(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
        metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
        curve: str = "ROC", name: str | None = None, summation_method: str = "trapezoidal",
        thresholds: Sequence[float] | None = None) -> tuple[Tensor, Tensor]:
    """The area under the ROC or PR curve, by a Riemann sum over the confusion counts at `num_thresholds`
    evenly spaced thresholds (or the `thresholds` given, with -eps and 1+eps added)."""
    with variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        kepsilon = 1e-7
        if thresholds is not None:
            inner = sorted(thresholds)
            num_thresholds = len(inner) + 2
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, [0.0 - kepsilon, *inner, 1.0 + kepsilon], weights)
        if summation_method not in _SUMMATION_METHODS:  # checked once TF has made the variables
            raise ValueError(f"Invalid summation_method: {summation_method} summation_method should be "
                             f"'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'.")
        epsilon = 1.0e-6
        n = num_thresholds

        def interpolate_pr_auc(tp: Tensor, fp: Tensor, fn: Tensor) -> Tensor:
            """Integrates precision over recall with precision interpolated between thresholds (Davis &
            Goadrich), not linearly."""
            dtp = tp[:n - 1] - tp[1:]
            p = tp + fp
            prec_slope = elementwise_ops.div_no_nan(dtp, elementwise_ops.maximum(p[:n - 1] - p[1:], 0),
                                                    name="prec_slope")
            intercept = tp[1:] - elementwise_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = elementwise_ops.where(
                elementwise_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                elementwise_ops.div_no_nan(p[:n - 1], elementwise_ops.maximum(p[1:], 0),
                                           name="recall_relative_ratio"),
                fill_ops.ones_like(p[1:]))
            return reduction_ops.reduce_sum(
                elementwise_ops.div_no_nan(prec_slope * (dtp + intercept * elementwise_ops.log(safe_p_ratio)),
                                           elementwise_ops.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
                name="interpolate_pr_auc")

        def compute_auc(tp: Tensor, fn: Tensor, tn: Tensor, fp: Tensor, name: str) -> Tensor:
            if curve == "PR":
                if summation_method == "trapezoidal":
                    logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; please switch to "
                                    "\"careful_interpolation\" instead.")
                elif summation_method == "careful_interpolation":
                    return interpolate_pr_auc(tp, fp, fn)
            rec = elementwise_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = elementwise_ops.divide(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, elementwise_ops.divide(tp + epsilon, tp + fp + epsilon)
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[:n - 1] + y[1:]) / 2.0
            elif summation_method == "minoring":
                heights = elementwise_ops.minimum(y[:n - 1], y[1:])
            else:
                heights = elementwise_ops.maximum(y[:n - 1], y[1:])
            return reduction_ops.reduce_sum(elementwise_ops.multiply(x[:n - 1] - x[1:], heights), name=name)

        value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        _add(metrics_collections, value)
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"], "update_op")
        _add(updates_collections, update_op)
        return value, update_op


@tf_export("metrics.mean_iou")
def mean_iou(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
             metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
             name: str | None = None) -> tuple[Tensor, Tensor]:
    """The mean over classes of intersection over union, from a running float64 confusion matrix (classes
    that never occur are left out of the mean); the update op returns the updated matrix, as TF's."""
    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total_cm = metric_variable([num_classes, num_classes], dtypes.float64, name="total_confusion_matrix")
        predictions = cast_ops.cast(predictions, dtypes.int64)
        labels = cast_ops.cast(labels, dtypes.int64)
        num_classes_t = cast_ops.cast(num_classes, dtypes.int64)
        if predictions.get_shape().ndims > 1:
            predictions = shape_ops.reshape(predictions, [-1])
        if labels.get_shape().ndims > 1:
            labels = shape_ops.reshape(labels, [-1])
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights.get_shape().ndims > 1:
                weights = shape_ops.reshape(weights, [-1])
        current_cm = confusion_matrix(labels, predictions, num_classes_t, weights=weights, dtype=dtypes.float64)
        update_op = state_ops.assign_add(total_cm, current_cm)
        sum_over_row = cast_ops.cast(reduction_ops.reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = cast_ops.cast(reduction_ops.reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = cast_ops.cast(linalg_ops.DiagPart(total_cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid_entries = reduction_ops.reduce_sum(
            cast_ops.cast(elementwise_ops.not_equal(denominator, 0), dtype=dtypes.float32))
        denominator = elementwise_ops.where(elementwise_ops.greater(denominator, 0), denominator,
                                            fill_ops.ones_like(denominator))
        iou = elementwise_ops.divide(cm_diag, denominator)
        value = elementwise_ops.where(elementwise_ops.greater(num_valid_entries, 0),
                                      reduction_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries, 0)
        _add(metrics_collections, value)
        _add(updates_collections, update_op)
        return value, update_op


@tf_export("metrics.mean_tensor")
def mean_tensor(values: Any, weights: Any = None, metrics_collections: Sequence[str] | None = None,
                updates_collections: Sequence[str] | None = None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The elementwise (weighted) running mean of tensors of one shape: `total_tensor` / `count_tensor`."""
    with variable_scope(name, "mean", (values, weights)):
        values = cast_ops.cast(values, dtypes.float32)
        total = metric_variable(values.get_shape(), dtypes.float32, name="total_tensor")
        count = metric_variable(values.get_shape(), dtypes.float32, name="count_tensor")
        num_values = fill_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(cast_ops.cast(weights, dtypes.float32), values)
            values = elementwise_ops.multiply(values, weights)
            num_values = elementwise_ops.multiply(num_values, weights)
        return _running_mean(total, count, values, num_values, values, metrics_collections, updates_collections)


@tf_export("metrics.percentage_below")
def percentage_below(values: Any, threshold: Any, weights: Any = None,
                     metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
                     name: str | None = None) -> tuple[Tensor, Tensor]:
    """The running (weighted) fraction of values below `threshold`."""
    is_below = cast_ops.cast(elementwise_ops.less(values, threshold), dtypes.float32)
    return mean(is_below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


@tf_export("metrics.mean_relative_error")
def mean_relative_error(labels: Any, predictions: Any, normalizer: Any, weights: Any = None,
                        metrics_collections: Sequence[str] | None = None,
                        updates_collections: Sequence[str] | None = None,
                        name: str | None = None) -> tuple[Tensor, Tensor]:
    """The running mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions, normalizer = remove_squeezable_dimensions(predictions, convert_to_tensor(normalizer))
    predictions.get_shape().assert_is_compatible_with(normalizer.get_shape())
    relative_errors = elementwise_ops.where(elementwise_ops.equal(normalizer, 0.0), fill_ops.zeros_like(labels),
                                            elementwise_ops.divide(elementwise_ops.abs(labels - predictions),
                                                                   normalizer))
    return mean(relative_errors, weights, metrics_collections, updates_collections, name or "mean_relative_error")


@tf_export("metrics.mean_cosine_distance")
def mean_cosine_distance(labels: Any, predictions: Any, dim: int, weights: Any = None,
                         metrics_collections: Sequence[str] | None = None,
                         updates_collections: Sequence[str] | None = None,
                         name: str | None = None) -> tuple[Tensor, Tensor]:
    """1 - the running mean of the dot products along `dim` (of unit-normalized labels and predictions)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial_diffs = reduction_ops.reduce_sum(elementwise_ops.multiply(predictions, labels), axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None, name or "mean_cosine_distance")
    mean_distance = elementwise_ops.subtract(1.0, mean_distance)
    update_op = elementwise_ops.subtract(1.0, update_op)
    _add(metrics_collections, mean_distance)
    _add(updates_collections, update_op)
    return mean_distance, update_op


@tf_export("metrics.mean_per_class_accuracy")
def mean_per_class_accuracy(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
                            metrics_collections: Sequence[str] | None = None,
                            updates_collections: Sequence[str] | None = None,
                            name: str | None = None) -> tuple[Tensor, Tensor]:
    """The mean over classes of each class's running accuracy; the update op returns the per-class
    accuracies, as TF's."""
    with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = cast_ops.cast(labels, dtypes.int64)
        predictions = convert_to_tensor(predictions)
        if labels.get_shape().ndims > 1:
            labels = shape_ops.reshape(labels, [-1])
        if predictions.get_shape().ndims > 1:
            predictions = shape_ops.reshape(predictions, [-1])
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = fill_ops.ones([shape_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = cast_ops.cast(predictions, labels.dtype)
        is_correct = cast_ops.cast(elementwise_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights.get_shape().ndims > 1:
                weights = shape_ops.reshape(weights, [-1])
            weights = cast_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = state_ops.scatter_add(total, labels, ones)
        update_count_op = state_ops.scatter_add(count, labels, is_correct)
        per_class = elementwise_ops.div_no_nan(count, elementwise_ops.maximum(total, 0))
        value = reduction_ops.reduce_mean(per_class, name="mean_accuracy")
        _add(metrics_collections, value)
        update_op = elementwise_ops.div_no_nan(update_count_op, elementwise_ops.maximum(update_total_op, 0),
                                               name="update_op")
        _add(updates_collections, update_op)
        return value, update_op


def _ratio_at_thresholds(default_name: str, other: str) -> Callable:
    """tp / (tp + `other` + 1e-7) at each threshold: precision (other = fp) and recall (fn)."""
    def metric(labels: Any, predictions: Any, thresholds: Sequence[float], weights: Any = None,
               metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
               name: str | None = None) -> tuple[Tensor, Tensor]:
        with variable_scope(name, f"{default_name}_at_thresholds", (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights,
                                                                 includes=("tp", other))

            def ratio(tp: Tensor, other_count: Tensor, suffix: str) -> Tensor:
                return elementwise_ops.divide(tp, 1e-7 + tp + other_count, name=f"{default_name}_{suffix}")

            value = ratio(values["tp"], values[other], "value")
            _add(metrics_collections, value)
            update_op = ratio(update_ops["tp"], update_ops[other], "update_op")
            _add(updates_collections, update_op)
            return value, update_op

    metric.__name__ = f"{default_name}_at_thresholds"
    metric.__doc__ = f"The running (weighted) {default_name} at each threshold."
    return metric


precision_at_thresholds = tf_export("metrics.precision_at_thresholds")(_ratio_at_thresholds("precision", "fp"))
recall_at_thresholds = tf_export("metrics.recall_at_thresholds")(_ratio_at_thresholds("recall", "fn"))


def _curve_thresholds(num_thresholds: int) -> list[float]:
    """num_thresholds evenly spaced in [0, 1], the ends nudged out by 1e-7 so 0 and 1 are counted."""
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - 1e-7, *inner, 1.0 + 1e-7]


@tf_export("metrics.sensitivity_at_specificity")
def sensitivity_at_specificity(labels: Any, predictions: Any, specificity: float, weights: Any = None,
                               num_thresholds: int = 200, metrics_collections: Sequence[str] | None = None,
                               updates_collections: Sequence[str] | None = None,
                               name: str | None = None) -> tuple[Tensor, Tensor]:
    """The sensitivity (recall) at the threshold whose specificity is closest to `specificity`."""
    if specificity < 0 or specificity > 1:
        raise ValueError(f"`specificity` must be in the range [0, 1]. Currently, `specificity` got {specificity}.")
    with variable_scope(name, "sensitivity_at_specificity", (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, _curve_thresholds(num_thresholds),
                                                             weights)

        def compute(counts: dict, suffix: str) -> Tensor:
            specificities = elementwise_ops.divide(counts["tn"], counts["tn"] + counts["fp"] + 1e-7)
            index = cast_ops.cast(reduction_ops.argmin(elementwise_ops.abs(specificities - specificity), 0),
                                  dtypes.int32)
            tp, fn = counts["tp"][index], counts["fn"][index]
            return elementwise_ops.divide(tp, tp + fn + 1e-7, suffix)

        value = compute(values, "value")
        _add(metrics_collections, value)
        update_op = compute(update_ops, "update_op")
        _add(updates_collections, update_op)
        return value, update_op


@tf_export("metrics.specificity_at_sensitivity")
def specificity_at_sensitivity(labels: Any, predictions: Any, sensitivity: float, weights: Any = None,
                               num_thresholds: int = 200, metrics_collections: Sequence[str] | None = None,
                               updates_collections: Sequence[str] | None = None,
                               name: str | None = None) -> tuple[Tensor, Tensor]:
    """The specificity at the last threshold whose sensitivity is closest to `sensitivity`."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}.")
    with variable_scope(name, "specificity_at_sensitivity", (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, _curve_thresholds(num_thresholds),
                                                             weights)

        def compute(counts: dict, suffix: str) -> Tensor:
            distance = elementwise_ops.abs(elementwise_ops.divide(counts["tp"], counts["tp"] + counts["fn"] + 1e-7)
                                           - sensitivity)
            at_min = cast_ops.cast(elementwise_ops.equal(distance, reduction_ops.reduce_min(distance)), dtypes.int64)
            index = cast_ops.cast(reduction_ops.argmax(reduction_ops.cumsum(at_min), 0), dtypes.int32)
            tn, fp = counts["tn"][index], counts["fp"][index]
            return elementwise_ops.divide(tn, tn + fp + 1e-7, suffix)

        value = compute(values, "value")
        _add(metrics_collections, value)
        update_op = compute(update_ops, "update_op")
        _add(updates_collections, update_op)
        return value, update_op


# -- The *_at_k metrics: sets of top-k class ids against sets of labels -----------------------------------


def _at_k_name(name: str, k: int | None = None, class_id: int | None = None) -> str:
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _label_sets(labels: Any, predictions_idx: Tensor) -> tuple[Tensor, Tensor]:
    """Labels as a dense [..., L] int64 tensor with a [..., L] mask of the entries present (all of a dense
    tensor's, a SparseTensor's stored ones), expanded by one dimension when they are one rank below the
    predictions (TF's _maybe_expand_labels)."""
    rank = predictions_idx.get_shape().ndims
    if isinstance(labels, SparseTensor):
        labels = SparseTensor(labels.indices, cast_ops.cast(labels.values, dtypes.int64), labels.dense_shape)
        present = SparseTensor(labels.indices, fill_ops.ones_like(labels.values, dtype=dtypes.bool),
                               labels.dense_shape)
        values = sparse_ops.sparse_tensor_to_dense(labels, default_value=-1)
        mask = sparse_ops.sparse_tensor_to_dense(present, default_value=False)
    else:
        values = cast_ops.cast(labels, dtypes.int64)
        mask = None
    labels_rank = values.get_shape().ndims
    if labels_rank is not None and rank is not None and rank != labels_rank:
        if rank != labels_rank + 1:
            raise ValueError(f"Unexpected labels shape {values.get_shape()} for predictions shape "
                             f"{predictions_idx.get_shape()}. Predictions rank should be the same rank as labels "
                             "rank or labels rank plus one .")
        values = shape_ops.expand_dims(values, -1)
        mask = None if mask is None else shape_ops.expand_dims(mask, -1)
    if mask is None:
        mask = fill_ops.ones_like(values, dtype=dtypes.bool)
    return values, mask


def _first_occurrences(x: Tensor, valid: Tensor | None) -> Tensor:
    """Along the last axis, whether each (valid) element is the first valid one of its value: set members."""
    n = x.get_shape().as_list()[-1]
    if n is None:  # labels of a SparseTensor made by a cond (average_precision_at_k's cleaning)
        positions = sequence_ops.range(shape_ops.shape(x)[-1])
        earlier = elementwise_ops.greater(shape_ops.expand_dims(positions, -1), shape_ops.expand_dims(positions, 0))
    else:
        earlier = constant_ops.constant(np.tril(np.ones((n, n), bool), -1))
    same = elementwise_ops.equal(shape_ops.expand_dims(x, -1), shape_ops.expand_dims(x, -2))
    repeated = elementwise_ops.logical_and(same, earlier)
    if valid is not None:
        repeated = elementwise_ops.logical_and(repeated, shape_ops.expand_dims(valid, -2))
    first = elementwise_ops.logical_not(reduction_ops.reduce_any(repeated, -1))
    return first if valid is None else elementwise_ops.logical_and(first, valid)


def _set_counts(predictions_idx: Tensor, labels: Tensor, valid: Tensor, class_id: int | None) -> dict:
    """Per row, |predicted ∩ labels|, |predicted - labels| and |labels - predicted| (restricted to
    {class_id} when given), as TF's set_size of set_intersection/set_difference."""
    def count(members: Tensor) -> Tensor:
        return reduction_ops.reduce_sum(cast_ops.cast(members, dtypes.float64), -1)

    if class_id is not None:
        predicted = reduction_ops.reduce_any(elementwise_ops.equal(predictions_idx, class_id), -1)
        labelled = reduction_ops.reduce_any(elementwise_ops.logical_and(elementwise_ops.equal(labels, class_id), valid),
                                            -1)
        both = elementwise_ops.logical_and(predicted, labelled)
        return {"tp": cast_ops.cast(both, dtypes.float64),
                "fp": cast_ops.cast(elementwise_ops.logical_and(predicted, elementwise_ops.logical_not(labelled)),
                                    dtypes.float64),
                "fn": cast_ops.cast(elementwise_ops.logical_and(labelled, elementwise_ops.logical_not(predicted)),
                                    dtypes.float64)}
    pairs = elementwise_ops.equal(shape_ops.expand_dims(predictions_idx, -1), shape_ops.expand_dims(labels, -2))
    predicted_in_labels = reduction_ops.reduce_any(
        elementwise_ops.logical_and(pairs, shape_ops.expand_dims(valid, -2)), -1)
    labels_in_predicted = reduction_ops.reduce_any(pairs, -2)
    predicted_first, labels_first = _first_occurrences(predictions_idx, None), _first_occurrences(labels, valid)
    return {"tp": count(elementwise_ops.logical_and(predicted_first, predicted_in_labels)),
            "fp": count(elementwise_ops.logical_and(predicted_first, elementwise_ops.logical_not(predicted_in_labels))),
            "fn": count(elementwise_ops.logical_and(labels_first, elementwise_ops.logical_not(labels_in_predicted)))}


def _streaming_count(counts: Tensor, prefix: str, k: int | None, class_id: int | None, weights: Any) -> tuple:
    """A float64 running total `<prefix>_at_<k>[_class<id>]` of the (weighted) per-row counts."""
    with name_scope(None, _at_k_name(prefix, k, class_id), (counts, weights)) as scope:
        if weights is not None:
            counts = elementwise_ops.multiply(counts, cast_ops.cast(weights, dtypes.float64))
        batch_total = reduction_ops.reduce_sum(counts)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _ratio_at_top_k(kind: str, other: str, labels: Any, predictions_idx: Any, k: int | None, class_id: int | None,
                    weights: Any, metrics_collections: Sequence[str] | None,
                    updates_collections: Sequence[str] | None, name: str | None) -> tuple[Tensor, Tensor]:
    """tp / (tp + other) over the top-k sets: precision (other = false positives) or recall (false negatives)."""
    with name_scope(name, _at_k_name(kind, k, class_id), (predictions_idx, labels, weights)) as scope:
        predictions_idx = cast_ops.cast(predictions_idx, dtypes.int64)
        # TF intersects the int64 ids with the labels as sets, which must then be int64 too.
        labels = convert_to_tensor_or_sparse_tensor(labels)
        set_ops.check_set_operands(predictions_idx, labels)
        label_values, valid = _label_sets(labels, predictions_idx)
        counts = _set_counts(predictions_idx, label_values, valid, class_id)
        tp, tp_update = _streaming_count(counts["tp"], "true_positive", k, class_id, weights)
        prefix = "false_positive" if other == "fp" else "false_negative"
        other_count, other_update = _streaming_count(counts[other], prefix, k, class_id, weights)
        value = elementwise_ops.divide(tp, elementwise_ops.add(tp, other_count), name=scope)
        _add(metrics_collections, value)
        update = elementwise_ops.divide(tp_update, elementwise_ops.add(tp_update, other_update), name="update")
        _add(updates_collections, update)
        return value, update


@tf_export("metrics.precision_at_top_k")
def precision_at_top_k(labels: Any, predictions_idx: Any, k: int | None = None, class_id: int | None = None,
                       weights: Any = None, metrics_collections: Sequence[str] | None = None,
                       updates_collections: Sequence[str] | None = None,
                       name: str | None = None) -> tuple[Tensor, Tensor]:
    """The running precision of the given top-k class ids against the label sets (float64)."""
    return _ratio_at_top_k("precision", "fp", labels, predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


@tf_export("metrics.recall_at_top_k")
def recall_at_top_k(labels: Any, predictions_idx: Any, k: int | None = None, class_id: int | None = None,
                    weights: Any = None, metrics_collections: Sequence[str] | None = None,
                    updates_collections: Sequence[str] | None = None,
                    name: str | None = None) -> tuple[Tensor, Tensor]:
    """The running recall of the label sets by the given top-k class ids (float64)."""
    return _ratio_at_top_k("recall", "fn", labels, predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


@tf_export("metrics.precision_at_k", "metrics.sparse_precision_at_k")
def precision_at_k(labels: Any, predictions: Any, k: int, class_id: int | None = None, weights: Any = None,
                   metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
                   name: str | None = None) -> tuple[Tensor, Tensor]:
    """precision_at_top_k of the k highest-scoring classes of `predictions`."""
    with name_scope(name, _at_k_name("precision", k, class_id), (predictions, labels, weights)) as scope:
        _, top_k_idx = math_misc_ops.top_k(predictions, k)
        return precision_at_top_k(labels, top_k_idx, k, class_id, weights, metrics_collections, updates_collections,
                                  scope)


@tf_export("metrics.recall_at_k")
def recall_at_k(labels: Any, predictions: Any, k: int, class_id: int | None = None, weights: Any = None,
                metrics_collections: Sequence[str] | None = None, updates_collections: Sequence[str] | None = None,
                name: str | None = None) -> tuple[Tensor, Tensor]:
    """recall_at_top_k of the k highest-scoring classes of `predictions`."""
    with name_scope(name, _at_k_name("recall", k, class_id), (predictions, labels, weights)) as scope:
        _, top_k_idx = math_misc_ops.top_k(predictions, k)
        return recall_at_top_k(labels, top_k_idx, k, class_id, weights, metrics_collections, updates_collections,
                               scope)


def _average_precision_at_top_k(labels: Any, predictions_idx: Tensor) -> Tensor:
    """Per row, the mean over the relevant top-k positions of the precision at that position, divided by
    min(k, number of labels) (TF's AveP@k)."""
    with name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = cast_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.get_shape().ndims == 0:
            raise ValueError("The rank of predictions_idx must be at least 1.")
        k = predictions_idx.get_shape().as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set.")
        label_values, valid = _label_sets(labels, predictions_idx)
        relevant = reduction_ops.reduce_any(elementwise_ops.logical_and(
            elementwise_ops.equal(shape_ops.expand_dims(predictions_idx, -1), shape_ops.expand_dims(label_values, -2)),
            shape_ops.expand_dims(valid, -2)), -1)
        relevant_per_k = cast_ops.cast(relevant, dtypes.float64, name="relevant_per_k")
        tp_per_k = reduction_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = reduction_ops.cumsum(fill_ops.ones_like(relevant_per_k), axis=-1, name="retrieved_per_k")
        precision_per_k = elementwise_ops.divide(tp_per_k, retrieved_per_k, name="precision_per_k")
        precision_sum = reduction_ops.reduce_sum(elementwise_ops.multiply(precision_per_k, relevant_per_k), -1,
                                                 name="precision_sum")
        if isinstance(labels, SparseTensor):
            num_labels = reduction_ops.reduce_sum(cast_ops.cast(_first_occurrences(label_values, valid),
                                                                dtypes.float64), -1)
        else:  # the non-negative labels, repeats included (TF's _num_relevant)
            num_labels = reduction_ops.reduce_sum(
                cast_ops.cast(elementwise_ops.greater_equal(label_values, 0), dtypes.float64), -1)
        num_relevant = elementwise_ops.minimum(num_labels, float(k))
        return elementwise_ops.divide(precision_sum, num_relevant, name=scope)


def _streaming_average_precision_at_top_k(labels: Any, predictions_idx: Tensor, weights: Any,
                                          metrics_collections: Sequence[str] | None,
                                          updates_collections: Sequence[str] | None,
                                          name: str | None) -> tuple[Tensor, Tensor]:
    """Running total of the (weighted) per-row average precisions over the running maximum (the rows, or
    the weights' sum)."""
    with name_scope(name, "average_precision_at_top_k", (predictions_idx, labels, weights)) as scope:
        average_precision = _average_precision_at_top_k(labels, predictions_idx)
        if weights is not None:
            weights = broadcast_weights(cast_ops.cast(weights, dtypes.float64), average_precision)
            average_precision = elementwise_ops.multiply(average_precision, weights)
        with name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = cast_ops.cast(shape_ops.size(average_precision, name="batch_max"), dtypes.float64)
            else:
                batch_max = reduction_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = reduction_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        value = elementwise_ops.div_no_nan(total_var, max_var, name="mean")
        _add(metrics_collections, value)
        update = elementwise_ops.div_no_nan(total_update, max_update, name=scope)
        _add(updates_collections, update)
        return value, update


def _clean_out_of_range_indices(labels: Any, num_classes: Tensor) -> Any:
    """`labels` with every value >= num_classes made -1 (ignored, as the docs promise, though num_classes is
    lost once predictions become top-k indices); a cond, so in-range labels pass through untouched."""
    values = labels.values if isinstance(labels, SparseTensor) else labels

    def clean() -> Any:
        cleaned = elementwise_ops.where_v2(elementwise_ops.greater_equal(values, num_classes),
                                           -1 * fill_ops.ones_like(values), values)
        if isinstance(labels, SparseTensor):
            return SparseTensor(labels.indices, cleaned, labels.dense_shape)
        return cleaned

    return control_flow_ops.cond(elementwise_ops.greater_equal(reduction_ops.reduce_max(values), num_classes),
                                 clean, lambda: labels)


@tf_export("metrics.average_precision_at_k", "metrics.sparse_average_precision_at_k")
def average_precision_at_k(labels: Any, predictions: Any, k: int, weights: Any = None,
                           metrics_collections: Sequence[str] | None = None,
                           updates_collections: Sequence[str] | None = None,
                           name: str | None = None) -> tuple[Tensor, Tensor]:
    """The running mean average precision at k of the top-k classes of `predictions` against the labels."""
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with name_scope(name, _at_k_name("average_precision", k), (predictions, labels, weights)) as scope:
        _, predictions_idx = math_misc_ops.top_k(predictions, k)
        labels = _clean_out_of_range_indices(labels, cast_ops.cast(shape_ops.shape(predictions)[-1], dtypes.int64))
        return _streaming_average_precision_at_top_k(labels, predictions_idx, weights, metrics_collections,
                                                     updates_collections, scope)
