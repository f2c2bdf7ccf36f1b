"""TF1's learning-rate schedules: each a tensor computed from the global step, built from ordinary ops, so a
session run reads the rate for the step the variable holds."""

from __future__ import annotations

import math
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops import cast_ops, elementwise_ops, indexing_ops, manipulation_ops, reduction_ops
from tensorweave.platform.tf_export import tf_export


def _require_step(global_step: Any, schedule: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {schedule}.")


def _step_fraction(learning_rate: Tensor, global_step: Any, decay_steps: Any, staircase: bool) -> Tensor:
    """global_step / decay_steps in the rate's dtype, floored when the schedule is a staircase."""
    dtype = learning_rate.dtype
    p = cast_ops.cast(global_step, dtype) / cast_ops.cast(decay_steps, dtype)
    return elementwise_ops.floor(p) if staircase else p


@tf_export("train.exponential_decay")
def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Tensor:
    """learning_rate * decay_rate ^ (global_step / decay_steps)."""
    _require_step(global_step, "exponential_decay")
    with name_scope(name or "ExponentialDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        decay_rate = cast_ops.cast(decay_rate, learning_rate.dtype)
        p = _step_fraction(learning_rate, global_step, decay_steps, staircase)
        return elementwise_ops.multiply(learning_rate, elementwise_ops.pow(decay_rate, p), name=scope)


@tf_export("train.natural_exp_decay")
def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Tensor:
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _require_step(global_step, "natural_exp_decay")
    natural_exp_rate = elementwise_ops.exp(elementwise_ops.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, natural_exp_rate, staircase, name)


@tf_export("train.inverse_time_decay")
def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False, name: str | None = None) -> Tensor:
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    _require_step(global_step, "inverse_time_decay")
    with name_scope(name or "InverseTimeDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="learning_rate")
        decay_rate = cast_ops.cast(decay_rate, learning_rate.dtype)
        p = _step_fraction(learning_rate, global_step, decay_steps, staircase)
        return elementwise_ops.truediv(learning_rate, 1 + decay_rate * p, name=scope)


@tf_export("train.polynomial_decay")
def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any, end_learning_rate: Any = 0.0001,
                     power: Any = 1.0, cycle: bool = False, name: str | None = None) -> Tensor:
    """From learning_rate to end_learning_rate along (1 - step / decay_steps) ^ power, then flat (or, with
    `cycle`, again over each later multiple of decay_steps)."""
    _require_step(global_step, "polynomial_decay")
    with name_scope(name or "PolynomialDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = learning_rate.dtype
        end_learning_rate = cast_ops.cast(end_learning_rate, dtype)
        power = cast_ops.cast(power, dtype)
        step = cast_ops.cast(global_step, dtype)
        steps = cast_ops.cast(decay_steps, dtype)
        if cycle:
            multiplier = elementwise_ops.where(elementwise_ops.equal(step, 0), 1.0,
                                               elementwise_ops.ceil(step / decay_steps))
            steps = steps * multiplier
        else:
            step = elementwise_ops.minimum(step, steps)
        p = elementwise_ops.truediv(step, steps)
        return elementwise_ops.add((learning_rate - end_learning_rate) * elementwise_ops.pow(1 - p, power),
                                   end_learning_rate, name=scope)


@tf_export("train.cosine_decay")
def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: float = 0.0,
                 name: str | None = None) -> Tensor:
    """learning_rate scaled along half a cosine from 1 to `alpha` over decay_steps, then held."""
    _require_step(global_step, "cosine_decay")
    with name_scope(name or "CosineDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = learning_rate.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        completed = elementwise_ops.minimum(cast_ops.cast(global_step, dtype), steps) / steps
        cosine = 0.5 * (1.0 + elementwise_ops.cos(math.pi * completed))
        decayed = (1 - alpha) * cosine + alpha
        return elementwise_ops.multiply(learning_rate, decayed, name=scope)


@tf_export("train.piecewise_constant", "train.piecewise_constant_decay")
def piecewise_constant(x: Any, boundaries: list, values: list, name: str | None = None) -> Tensor:
    """values[i] where boundaries[i-1] < x <= boundaries[i] (values[0] up to the first boundary, the last value
    past the last one)."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name or "PiecewiseConstant"):
        x = convert_to_tensor(x)
        boundaries = manipulation_ops.stack([cast_ops.cast(b, x.dtype) for b in boundaries])
        values = manipulation_ops.stack([convert_to_tensor(v) for v in values])
        index = reduction_ops.reduce_sum(cast_ops.cast(elementwise_ops.greater(x, boundaries), dtypes.int32))
        return indexing_ops.gather(values, index)
