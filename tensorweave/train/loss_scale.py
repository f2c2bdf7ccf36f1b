"""Loss scaling for mixed-precision training (TF1's `tf.train.experimental`): the loss is multiplied by a
scale before differentiation so small float16 gradients do not underflow, the gradients divided by it after.

A `DynamicLossScale` lowers the scale (and the step applies nothing) when any gradient is not finite, and
raises it after `increment_period` finite steps in a row; its state is two non-trainable resource variables,
`current_loss_scale` and `good_steps`, as TF's. `enable_mixed_precision_graph_rewrite` wraps an optimizer the
same way and turns on the `auto_mixed_precision` graph option, which, as in TF without a GPU, changes no
dtype on CPU devices.
"""

from __future__ import annotations

import abc
from typing import Any

from tensorweave.client import config
from tensorweave.framework import dtypes
from tensorweave.framework.graph import convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.nest import flatten
from tensorweave.ops import control_flow_ops, elementwise_ops, reduction_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.variables import Variable
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer


@tf_export("train.experimental.LossScale", "mixed_precision.LossScale",
           "mixed_precision.experimental.LossScale")
class LossScale(metaclass=abc.ABCMeta):
    """A loss scale: its current value (`__call__`) and how a step's gradients update it (`update`)."""

    def __init__(self) -> None:
        self._weights: dict = {}

    @abc.abstractmethod
    def __call__(self) -> Any:
        """The current loss scale as a scalar float32 tensor."""

    @abc.abstractmethod
    def update(self, grads: Any) -> tuple[Any, Any]:
        """(the op that updates the scale, whether the step should apply the gradients)."""

    def _add_weight(self, name: str, initial_value: Any, dtype: Any = None) -> Any:
        variable = Variable(initial_value=initial_value, name=name, dtype=dtype, trainable=False, use_resource=True)
        if self._weights.get(name) is not None:
            raise RuntimeError(f"Duplicate variables detected. {name}")
        self._weights[name] = variable
        return variable

    @abc.abstractmethod
    def get_config(self) -> dict:
        """The constructor arguments that rebuild this loss scale."""

    @classmethod
    def from_config(cls, config_: dict) -> LossScale:
        return cls(**config_)


@tf_export("train.experimental.FixedLossScale", "mixed_precision.FixedLossScale",
           "mixed_precision.experimental.FixedLossScale")
class FixedLossScale(LossScale):
    """A loss scale that never changes."""

    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self) -> Any:
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads: Any) -> tuple[Any, bool]:
        return control_flow_ops.no_op(), True

    def __repr__(self) -> str:
        return f"FixedLossScale({self._loss_scale_value})"

    def get_config(self) -> dict:
        return {"loss_scale_value": self._loss_scale_value}


def _is_all_finite(grads: list) -> Any:
    finite = [reduction_ops.reduce_all(elementwise_ops.is_finite(g.values if isinstance(g, IndexedSlices) else g))
              for g in grads if g is not None]
    return reduction_ops.reduce_all(finite)


def _assign_if_finite(var: Any, value: Any) -> Any:
    return control_flow_ops.cond(elementwise_ops.is_finite(value), lambda: var.assign(value).op,
                                 control_flow_ops.no_op)


@tf_export("train.experimental.DynamicLossScale", "mixed_precision.DynamicLossScale",
           "mixed_precision.experimental.DynamicLossScale")
class DynamicLossScale(LossScale):
    """A loss scale divided by `multiplier` (down to 1) after a step with a non-finite gradient and multiplied
    by it after `increment_period` finite steps in a row."""

    def __init__(self, initial_loss_scale: float = 2 ** 15, increment_period: int = 2000,
                 multiplier: float = 2.0) -> None:
        super().__init__()
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight("current_loss_scale", self._initial_loss_scale, dtypes.float32)
        self._num_good_steps = self._add_weight("good_steps", 0, dtypes.int64)

    @property
    def initial_loss_scale(self) -> float:
        return self._initial_loss_scale

    @property
    def increment_period(self) -> int:
        return self._increment_period

    @property
    def multiplier(self) -> float:
        return self._multiplier

    def __call__(self) -> Any:
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads: Any) -> tuple[Any, Any]:
        is_finite = _is_all_finite(flatten(grads))

        def finite_step() -> Any:
            def raise_scale() -> Any:
                return control_flow_ops.group(
                    _assign_if_finite(self._current_loss_scale, self._current_loss_scale * self._multiplier),
                    self._num_good_steps.assign(0))
            return control_flow_ops.cond(self._num_good_steps + 1 >= self._increment_period, raise_scale,
                                         lambda: self._num_good_steps.assign_add(1).op)

        def non_finite_step() -> Any:
            lowered = elementwise_ops.maximum(self._current_loss_scale / self._multiplier, 1)
            return control_flow_ops.group(self._num_good_steps.assign(0), self._current_loss_scale.assign(lowered))

        return control_flow_ops.cond(is_finite, finite_step, non_finite_step), is_finite

    def __repr__(self) -> str:
        return (f"DynamicLossScale(initial_loss_scale={self.initial_loss_scale}, "
                f"increment_period={self.increment_period}, multiplier={self.multiplier})")

    def get_config(self) -> dict:
        return {"initial_loss_scale": self.initial_loss_scale, "increment_period": self.increment_period,
                "multiplier": self.multiplier}


def get(identifier: Any) -> LossScale | None:
    """A loss scale from a number (fixed), 'dynamic', a LossScale or None."""
    if isinstance(identifier, (int, float)):
        return FixedLossScale(identifier)
    if identifier == "dynamic":
        return DynamicLossScale()
    if isinstance(identifier, LossScale) or identifier is None:
        return identifier
    raise ValueError(f"Could not interpret loss scale identifier: {identifier}")


@tf_export("train.experimental.MixedPrecisionLossScaleOptimizer",
           "mixed_precision.MixedPrecisionLossScaleOptimizer")
class MixedPrecisionLossScaleOptimizer(Optimizer):
    """An optimizer that scales the loss, unscales the gradients and lets its loss scale skip a step."""

    def __init__(self, opt: Optimizer, loss_scale: Any) -> None:
        if not isinstance(opt, Optimizer):
            raise ValueError(f'"opt" must be an instance of Optimizer, but got: {type(opt)}')
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = get(loss_scale)
        if self._loss_scale is None:
            raise ValueError("loss_scale cannot be None")

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = Optimizer.GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list:
        scale = self._loss_scale()
        if callable(loss):
            scaled: Any = lambda: (value := loss()) * cast(scale, value.dtype)  # noqa: E731 - TF's callable loss
        else:
            scaled = loss * cast(scale, loss.dtype)
        grads_and_vars = self._optimizer.compute_gradients(
            scaled, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        reciprocal = 1 / self._loss_scale()
        return [(None if g is None else
                 IndexedSlices(g.values * reciprocal, g.indices, g.dense_shape) if isinstance(g, IndexedSlices)
                 else g * reciprocal, v) for g, v in grads_and_vars]

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None, name: str | None = None) -> Any:
        if not isinstance(self._loss_scale, DynamicLossScale):
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        name = name if name is not None else self.get_name()
        grads_and_vars = tuple(grads_and_vars)
        update_scale, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])
        maybe_apply = control_flow_ops.cond(
            should_apply, lambda: self._optimizer.apply_gradients(grads_and_vars, global_step, name + "-wrapped"),
            control_flow_ops.no_op)
        return control_flow_ops.group(maybe_apply, update_scale, name=name)

    def variables(self) -> list:
        return self._optimizer.variables() + list(self._loss_scale._weights.values())


@tf_export("train.experimental.enable_mixed_precision_graph_rewrite",
           "mixed_precision.enable_mixed_precision_graph_rewrite")
def enable_mixed_precision_graph_rewrite(opt: Optimizer, loss_scale: Any = "dynamic") -> Optimizer:
    """`opt` wrapped with loss scaling, and the auto_mixed_precision graph option on."""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a MixedPrecisionLossScaleOptimizer. '
                         "`enable_mixed_precision_graph_rewrite` will automatically wrap the optimizer with a "
                         "MixedPrecisionLossScaleOptimizer.")
    if not isinstance(opt, Optimizer):
        raise ValueError('"opt" must be an instance of a tf.train.Optimizer or a tf.keras.optimizers.Optimizer, '
                         f"but got: {opt}")
    opt = MixedPrecisionLossScaleOptimizer(opt, loss_scale)
    config.set_experimental_options({"auto_mixed_precision": True})
    return opt


@tf_export("train.experimental.disable_mixed_precision_graph_rewrite",
           "mixed_precision.disable_mixed_precision_graph_rewrite")
def disable_mixed_precision_graph_rewrite() -> None:
    if not config.get_experimental_options().get("auto_mixed_precision"):
        tf_logging.warn("disable_mixed_precision_graph_rewrite() called when mixed precision is already disabled.")
    config.set_experimental_options({"auto_mixed_precision": False})
