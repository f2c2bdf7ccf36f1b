"""The small tf.nn composites of TF's nn_impl built on control flow or on several families: crelu,
swish/silu, zero_fraction (whose count runs in int32 or int64 under a tf.cond on the size, as TF's) and
log_poisson_loss. Each builds TF's graph from existing ops; none has a kernel of its own."""

from __future__ import annotations

import math
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops import cast_ops, constant_ops, elementwise_ops, fill_ops, manipulation_ops, reduction_ops
from tensorweave.ops.control_flow_ops import cond
from tensorweave.ops.nn_ops import Relu
from tensorweave.ops.shape_ops import size
from tensorweave.platform.tf_export import tf_export


@tf_export("nn.crelu")
def crelu(features: Any, name: str | None = None, axis: int = -1) -> Tensor:
    """relu of [features, -features] concatenated along `axis`: both signs kept, the depth doubled."""
    with name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        return Relu(manipulation_ops.concat([features, -features], axis, name=scope))


@tf_export("nn.silu", "nn.swish")
def swish(features: Any, beta: Any = 1.0) -> Tensor:
    """features * sigmoid(beta * features). (TF wraps it in a custom gradient, an IdentityN; the gradient here
    is the composition's, the same function.)"""
    features = convert_to_tensor(features, name="features")
    beta = cast_ops.cast(convert_to_tensor(beta, name="beta"), features.dtype)
    return features * elementwise_ops.sigmoid(beta * features)


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
