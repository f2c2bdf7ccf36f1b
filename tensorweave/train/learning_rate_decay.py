"""TF1's learning-rate schedules: each a tensor computed from the global step, built from ordinary ops, so a
session run reads the rate for the step the variable holds."""

from __future__ import annotations

import math
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    control_flow_case,
    control_flow_ops,
    elementwise_ops,
    random_ops,
)
from tensorweave.platform.tf_export import tf_export


def _rate_and_step_fraction(learning_rate: Tensor, global_step: Any, decay_steps: Any, decay_rate: Any,
                            staircase: bool) -> tuple[Tensor, Tensor]:
    """decay_rate and global_step / decay_steps in the rate's dtype (the fraction floored when the schedule is a
    staircase), cast in TF's order: decay_steps, decay_rate, the step."""
    dtype = learning_rate.dtype
    decay_steps = cast_ops.cast(decay_steps, dtype)
    decay_rate = cast_ops.cast(decay_rate, dtype)
    p = cast_ops.cast(global_step, dtype) / decay_steps
    return decay_rate, elementwise_ops.floor(p) if staircase else p


@tf_export("train.exponential_decay")
def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Tensor:
    """learning_rate * decay_rate ^ (global_step / decay_steps)."""
    with name_scope(name or "ExponentialDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        decay_rate, p = _rate_and_step_fraction(learning_rate, global_step, decay_steps, decay_rate, staircase)
        return elementwise_ops.multiply(learning_rate, elementwise_ops.pow(decay_rate, p), name=scope)


@tf_export("train.natural_exp_decay")
def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Tensor:
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    natural_exp_rate = elementwise_ops.exp(elementwise_ops.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, natural_exp_rate, staircase, name)


@tf_export("train.inverse_time_decay")
def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False, name: str | None = None) -> Tensor:
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    with name_scope(name or "InverseTimeDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        decay_rate, p = _rate_and_step_fraction(learning_rate, global_step, decay_steps, decay_rate, staircase)
        one = cast_ops.cast(constant_ops.constant(1), learning_rate.dtype)
        denominator = elementwise_ops.add(one, elementwise_ops.multiply(decay_rate, p))
        return elementwise_ops.divide(learning_rate, denominator, name=scope)


@tf_export("train.polynomial_decay")
def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any, end_learning_rate: Any = 0.0001,
                     power: Any = 1.0, cycle: bool = False, name: str | None = None) -> Tensor:
    """From learning_rate to end_learning_rate along (1 - step / decay_steps) ^ power, then flat (or, with
    `cycle`, again over each later multiple of decay_steps)."""
    with name_scope(name or "PolynomialDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = learning_rate.dtype
        end_learning_rate = cast_ops.cast(end_learning_rate, dtype)
        power = cast_ops.cast(power, dtype)
        step = cast_ops.cast(global_step, dtype)
        steps = cast_ops.cast(decay_steps, dtype)
        if cycle:
            multiplier = elementwise_ops.where_v2(elementwise_ops.equal(step, 0), 1.0,
                                                  elementwise_ops.ceil(step / decay_steps))
            steps = elementwise_ops.multiply(steps, multiplier)
        else:
            step = elementwise_ops.minimum(step, steps)
        p = elementwise_ops.truediv(step, steps)
        return elementwise_ops.add(elementwise_ops.multiply(learning_rate - end_learning_rate,
                                                           elementwise_ops.pow(1 - p, power)),
                                   end_learning_rate, name=scope)


@tf_export("train.cosine_decay")
def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: float = 0.0,
                 name: str | None = None) -> Tensor:
    """learning_rate scaled along half a cosine from 1 to `alpha` over decay_steps, then held."""
    with name_scope(name or "CosineDecay"):
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = learning_rate.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        completed = elementwise_ops.minimum(cast_ops.cast(global_step, dtype), steps) / steps
        cosine = 0.5 * (1.0 + elementwise_ops.cos(constant_ops.constant(math.pi) * completed))
        decayed = (1 - alpha) * cosine + alpha
        return elementwise_ops.multiply(learning_rate, decayed)


@tf_export("train.piecewise_constant", "train.piecewise_constant_decay")
def piecewise_constant(x: Any, boundaries: list, values: list, name: str | None = None) -> Tensor:
    """values[i] where boundaries[i-1] < x <= boundaries[i] (values[0] up to the first boundary, the last value
    past the last one)."""
    boundaries = [convert_to_tensor(b) for b in boundaries]
    values = [convert_to_tensor(v) for v in values]
    x = convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x.dtype.base_dtype:
            if b.dtype.base_dtype != dtypes.int32 or x.dtype.base_dtype != dtypes.int64:
                raise ValueError(f"Boundaries ({b.dtype.base_dtype}) must have the same dtype as x "
                                 f"({x.dtype.base_dtype}).")
            boundaries[i] = cast_ops.cast(b, dtypes.int64)
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError(f"Values must have elements all with the same dtype ({values[0].dtype.base_dtype} "
                             f"vs {v.dtype.base_dtype}).")
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name or "PiecewiseConstant"):
        pairs = [(elementwise_ops.less_equal(x, boundaries[0]), lambda: values[0]),
                 (elementwise_ops.greater(x, boundaries[-1]), lambda: values[-1])]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred = elementwise_ops.logical_and(elementwise_ops.greater(x, low), elementwise_ops.less_equal(x, high),
                                              name="and")
            pairs.append((pred, lambda v=v: v))
        return control_flow_case.case(pairs, lambda: values[0], exclusive=True)


@tf_export("train.cosine_decay_restarts")
def cosine_decay_restarts(learning_rate: Any, global_step: Any, first_decay_steps: Any, t_mul: float = 2.0,
                          m_mul: float = 1.0, alpha: float = 0.0, name: str | None = None) -> Tensor:
    """SGDR (Loshchilov & Hutter): cosine decay over periods restarting from the top, each period t_mul
    times longer than the last and its peak m_mul times lower."""
    with name_scope(name or "SGDRDecay") as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = learning_rate.dtype
        first_decay_steps = cast_ops.cast(first_decay_steps, dtype)
        alpha = cast_ops.cast(alpha, dtype)
        t_mul = cast_ops.cast(t_mul, dtype)
        m_mul = cast_ops.cast(m_mul, dtype)
        completed_fraction = cast_ops.cast(global_step, dtype) / first_decay_steps

        def compute_step(geometric: bool) -> tuple[Tensor, Tensor]:
            """(which period the step is in, how far through it): period lengths 1, t_mul, t_mul^2, ..."""
            if geometric:
                i_restart = elementwise_ops.floor(
                    elementwise_ops.log(1.0 - completed_fraction * (1.0 - t_mul)) / elementwise_ops.log(t_mul))
                sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
                return i_restart, (completed_fraction - sum_r) / t_mul ** i_restart
            i_restart = elementwise_ops.floor(completed_fraction)
            return i_restart, completed_fraction - i_restart

        i_restart, fraction = control_flow_ops.cond(elementwise_ops.equal(t_mul, 1.0), lambda: compute_step(False),
                                                    lambda: compute_step(True))
        m_fac = m_mul ** i_restart
        cosine_decayed = 0.5 * m_fac * (1.0 + elementwise_ops.cos(constant_ops.constant(math.pi, dtype=dtype)
                                                                  * fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return elementwise_ops.multiply(learning_rate, decayed, name=scope)


def _linear_cosine(learning_rate: Any, global_step: Any, decay_steps: Any, num_periods: Any, alpha: Any, beta: Any,
                   name: str, noise: tuple[Any, Any] | None) -> Tensor:
    """(alpha + linear decay [+ noise]) * cosine decay over num_periods + beta, times learning_rate; the noise
    is normal with variance initial_variance / (1 + step)^variance_decay."""
    with name_scope(name) as scope:
        learning_rate = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = learning_rate.dtype
        decay_steps = cast_ops.cast(decay_steps, dtype)
        if noise is not None:
            initial_variance, variance_decay = (cast_ops.cast(v, dtype) for v in noise)
        num_periods = cast_ops.cast(num_periods, dtype)
        alpha = cast_ops.cast(alpha, dtype)
        beta = cast_ops.cast(beta, dtype)
        step = elementwise_ops.minimum(cast_ops.cast(global_step, dtype), decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        if noise is not None:
            variance = initial_variance / elementwise_ops.pow(1.0 + step, variance_decay)
            std = elementwise_ops.sqrt(variance)
            linear_decayed = linear_decayed + random_ops.random_normal(linear_decayed.shape, stddev=std)
        completed = step / decay_steps
        fraction = 2.0 * num_periods * completed
        cosine_decayed = 0.5 * (1.0 + elementwise_ops.cos(constant_ops.constant(math.pi, dtype=dtype) * fraction))
        return elementwise_ops.multiply(learning_rate, (alpha + linear_decayed) * cosine_decayed + beta, name=scope)


@tf_export("train.linear_cosine_decay")
def linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, num_periods: float = 0.5,
                        alpha: float = 0.0, beta: float = 0.001, name: str | None = None) -> Tensor:
    """Linear-cosine decay (Bello et al., Neural Optimizer Search)."""
    return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                          name or "LinearCosineDecay", None)


@tf_export("train.noisy_linear_cosine_decay")
def noisy_linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, initial_variance: float = 1.0,
                              variance_decay: float = 0.55, num_periods: float = 0.5, alpha: float = 0.0,
                              beta: float = 0.001, name: str | None = None) -> Tensor:
    """linear_cosine_decay with decaying Gaussian noise added to its linear part."""
    return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                          name or "NoisyLinearCosineDecay", (initial_variance, variance_decay))
