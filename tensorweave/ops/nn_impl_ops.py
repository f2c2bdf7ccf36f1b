"""The tf.nn composites of TF's nn_impl built on control flow or on several families: crelu, swish/silu,
zero_fraction (whose count runs in int32 or int64 under a tf.cond on the size, as TF's), log_poisson_loss,
TF 2's loss scalings for replicas (compute_average_loss, scale_regularization_loss: one replica here, there
being no distribution strategy), and the sampled losses nce_loss and sampled_softmax_loss (the logits of the true and of sampled classes
only, looked up in possibly sharded weights). Each builds TF's graph from existing ops; none has a kernel of
its own, so gradients flow to weights, biases and inputs through the ops it is made of."""

from __future__ import annotations

import math
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.ops import (
    cast_ops,
    check_ops,
    constant_ops,
    custom_gradient,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    manipulation_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
)
from tensorweave.ops.candidate_sampling_ops import compute_accidental_hits, log_uniform_candidate_sampler
from tensorweave.ops.control_flow_ops import cond
from tensorweave.ops.embedding_ops import embedding_lookup
from tensorweave.ops.linalg_ops import matmul
from tensorweave.ops.nn_ops import Relu
from tensorweave.ops.shape_ops import size
from tensorweave.ops.sparse_ops import sparse_to_dense
from tensorweave.ops.variables import PartitionedVariable
from tensorweave.platform.tf_export import tf_export


@tf_export("nn.crelu")
def crelu(features: Any, name: str | None = None, axis: int = -1) -> Tensor:
    """relu of [features, -features] concatenated along `axis`: both signs kept, the depth doubled."""
    with name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        return Relu(manipulation_ops.concat([features, -features], axis, name=scope))


@tf_export("nn.silu", "nn.swish")
def swish(features: Any, beta: Any = 1.0) -> Tensor:
    """features * sigmoid(beta * features), under a custom gradient as TF builds it (its result an IdentityN),
    so the gradient recomputes the sigmoid instead of keeping it."""
    features = convert_to_tensor(features, name="features")
    beta = cast_ops.cast(convert_to_tensor(beta, name="beta"), features.dtype)

    @custom_gradient.custom_gradient
    def swish_impl(features: Tensor, beta: Tensor) -> tuple:
        def grad(dy: Tensor) -> tuple:
            with control_dependencies([dy]):
                sigmoid_features = elementwise_ops.sigmoid(beta * features)
            activation_grad = sigmoid_features * (1.0 + (beta * features) * (1.0 - sigmoid_features))
            beta_grad = reduction_ops.reduce_sum(
                dy * elementwise_ops.square(features) * sigmoid_features * (1.0 - sigmoid_features))
            return dy * activation_grad, beta_grad

        return features * elementwise_ops.sigmoid(beta * features), grad

    return swish_impl(features, beta)


def _count_nonzero(value: Tensor, dtype: dtypes.DType) -> Tensor:
    with name_scope(None, "count_nonzero", [value]):
        zero = fill_ops.zeros([], dtype=value.dtype)
        return reduction_ops.reduce_sum(cast_ops.cast(elementwise_ops.not_equal(value, zero), dtype=dtype),
                                        name="nonzero_count")


@tf_export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """The fraction of zeros in `value`, as float32; counted in int32 unless the size needs int64."""
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        count = size(value, out_type=dtypes.int64)
        num_nonzero = cond(count <= dtypes.int32.max,
                           true_fn=lambda: cast_ops.cast(_count_nonzero(value, dtypes.int32), dtype=dtypes.int64),
                           false_fn=lambda: _count_nonzero(value, dtypes.int64))
        with name_scope("counts_to_fraction"):
            num_zero = count - num_nonzero
            fraction = cast_ops.cast(num_zero, dtype=dtypes.float32) / cast_ops.cast(count, dtype=dtypes.float32)
        return manipulation_ops.identity(fraction, "fraction")


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None) -> Tensor:
    """exp(log_input) - log_input * targets, plus with `compute_full_loss` Stirling's approximation of
    log(targets!) where targets > 1."""
    with name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        try:
            targets.shape.assert_is_compatible_with(log_input.shape)
        except ValueError:
            raise ValueError(f"`log_input` and `targets` must have the same shape, received ({log_input.shape} vs "
                             f"{targets.shape}).") from None
        result = elementwise_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_ops.constant(0.5, dtype=targets.dtype)
            two_pi = constant_ops.constant(2 * math.pi, dtype=targets.dtype)
            stirling_approx = (targets * elementwise_ops.log(targets) - targets
                               + point_five * elementwise_ops.log(two_pi * targets))
            zeros = fill_ops.zeros_like(targets, dtype=targets.dtype)
            ones = fill_ops.ones_like(targets, dtype=targets.dtype)
            in_unit = elementwise_ops.logical_and(targets >= zeros, targets <= ones)
            result += elementwise_ops.where(in_unit, zeros, stirling_approx)
        return result


def _sum_rows(x: Tensor) -> Tensor:
    """The sum of each row of a matrix as a matmul with a column of ones, TF's choice (faster gradient)."""
    ones = fill_ops.ones(manipulation_ops.stack([shape_ops.shape(x)[1], 1]), x.dtype)
    return shape_ops.reshape(matmul(x, ones), [-1])


def _compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
                            num_classes: int, num_true: int, sampled_values: Any, subtract_log_q: bool,
                            remove_accidental_hits: bool, partition_strategy: str, name: str | None,
                            seed: int | None = None) -> tuple[Tensor, Tensor]:
    """The [batch, num_true + num_sampled] logits of each row's true classes and of the sampled ones (log Q
    subtracted, accidental hits pushed to -FLT_MAX), and their labels (1 / num_true for the true ones).

    The rows of the true and the sampled classes come from one embedding lookup in `weights` (a tensor or a
    list of shards split by `partition_strategy`); the samples are constants to the gradient."""
    weights = list(weights) if isinstance(weights, (list, tuple, PartitionedVariable)) else [weights]
    with name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = convert_to_tensor(labels, name="labels")
        inputs = convert_to_tensor(inputs, name="inputs")
        if labels.dtype != dtypes.int64:
            labels = cast_ops.cast(labels, dtypes.int64)
        labels_flat = shape_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes,
                                                           seed=seed)
        sampled, true_expected_count, sampled_expected_count = (manipulation_ops.stop_gradient(s)
                                                                for s in sampled_values)
        sampled = cast_ops.cast(sampled, dtypes.int64)
        all_ids = manipulation_ops.concat([labels_flat, sampled], 0)
        num_labels = shape_ops.shape(labels_flat)[0]

        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = cast_ops.cast(all_w, inputs.dtype)
        true_w = indexing_ops.slice(all_w, [0, 0], manipulation_ops.stack([num_labels, -1]))
        sampled_w = indexing_ops.slice(all_w, manipulation_ops.stack([num_labels, 0]), [-1, -1])
        sampled_logits = matmul(inputs, sampled_w, transpose_b=True)

        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = cast_ops.cast(all_b, inputs.dtype)
        true_b = indexing_ops.slice(all_b, [0], shape_ops.shape(labels_flat))
        sampled_b = indexing_ops.slice(all_b, shape_ops.shape(labels_flat), [-1])

        dim = shape_ops.shape(true_w)[1:2]
        row_wise_dots = elementwise_ops.multiply(
            shape_ops.expand_dims(inputs, 1),
            shape_ops.reshape(true_w, manipulation_ops.concat([[-1, num_true], dim], 0)))
        dots_as_matrix = shape_ops.reshape(row_wise_dots, manipulation_ops.concat([[-1], dim], 0))
        true_logits = shape_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_logits += shape_ops.reshape(true_b, [-1, num_true])
        sampled_logits += sampled_b

        if remove_accidental_hits:
            indices, ids, hit_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
            sparse_indices = manipulation_ops.concat(
                [shape_ops.reshape(indices, [-1, 1]), shape_ops.reshape(cast_ops.cast(ids, dtypes.int32), [-1, 1])],
                1, "sparse_indices")
            sampled_logits_shape = manipulation_ops.concat(
                [shape_ops.shape(labels)[:1], shape_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype != hit_weights.dtype:
                hit_weights = cast_ops.cast(hit_weights, sampled_logits.dtype)
            sampled_logits += sparse_to_dense(sparse_indices, sampled_logits_shape, hit_weights, default_value=0.0,
                                              validate_indices=False)
        if subtract_log_q:
            true_logits -= elementwise_ops.log(true_expected_count)
            sampled_logits -= elementwise_ops.log(sampled_expected_count)
        out_logits = manipulation_ops.concat([true_logits, sampled_logits], 1)
        out_labels = manipulation_ops.concat(
            [fill_ops.ones_like(true_logits) / num_true, fill_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


@tf_export("nn.nce_loss")
def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
             num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = False,
             partition_strategy: str = "mod", name: str = "nce_loss") -> Tensor:
    """Noise-contrastive estimation: per row, the logistic losses of telling its true classes from
    `num_sampled` sampled ones (log-uniform unless `sampled_values` is given), summed: [batch]."""
    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name)
    sampled_losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(sampled_losses)


@tf_export("nn.sampled_softmax_loss")
def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                         num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = True,
                         partition_strategy: str = "mod", name: str = "sampled_softmax_loss",
                         seed: int | None = None) -> Tensor:
    """The softmax cross-entropy over each row's true classes and `num_sampled` sampled ones, a cheap
    training estimate of the full softmax loss over `num_classes`: [batch]."""
    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name, seed=seed)
    labels = manipulation_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss: Any) -> Tensor:
    """The summed regularization loss divided by the number of replicas (one: no distribution strategy)."""
    return reduction_ops.reduce_sum(regularization_loss) / 1


@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None) -> Tensor:
    """The summed (optionally weighted) per-example losses over the global batch size, by default the
    batch dimension of `per_example_loss` (one replica); 0 where that is 0 (DivNoNan, as TF)."""
    per_example_loss = convert_to_tensor(per_example_loss)
    dtype = per_example_loss.dtype
    if per_example_loss.shape.ndims == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received per_example_loss={per_example_loss} with rank 0")
    if sample_weight is not None:  # TF's scale_losses_by_sample_weight: weights cast to float32, Mul
        sample_weight = cast_ops.cast(convert_to_tensor(sample_weight), dtypes.float32)
        weights_rank, loss_rank = sample_weight.shape.ndims, per_example_loss.shape.ndims
        if weights_rank and loss_rank is not None:
            if weights_rank - loss_rank == 1:
                sample_weight = shape_ops.squeeze(sample_weight, [-1])
            elif loss_rank - weights_rank == 1:
                sample_weight = shape_ops.expand_dims(sample_weight, [-1])
        per_example_loss = cast_ops.cast(elementwise_ops.multiply(per_example_loss, sample_weight), dtype)
    if global_batch_size is None:  # the per-replica batch times the replicas (one: no distribution strategy)
        global_batch_size = shape_ops.shape(per_example_loss)[0] * 1
    check_ops.assert_scalar(global_batch_size, message="global_batch_size must be scalar.")
    check_ops.assert_integer(global_batch_size, message="global_batch_size must be an integer.")
    check_ops.assert_non_negative(global_batch_size, message="global_batch_size must be non-negative.")
    return elementwise_ops.div_no_nan(reduction_ops.reduce_sum(per_example_loss),
                                      cast_ops.cast(global_batch_size, dtype))
