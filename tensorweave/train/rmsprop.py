"""`tf.train.RMSPropOptimizer`: steps scaled by a moving average of squared gradients (slot `rms`, starting
at ones), with momentum (slot `momentum`) and, when centered, a moving average of gradients (slot `mg`)."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import fill_ops, init_ops, training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, cast


@tf_export("train.RMSPropOptimizer")
class RMSPropOptimizer(Optimizer):
    """RMSProp (Hinton's lecture 6e), optionally centered (Graves 2013)."""

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0, epsilon: Any = 1e-10,
                 use_locking: bool = False, centered: bool = False, name: str = "RMSProp") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            if v.get_shape().is_fully_defined():
                init_rms = init_ops.ones_initializer(dtype=v.dtype.base_dtype)
            else:
                init_rms = fill_ops.ones_like(v.value())
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(), v.dtype.base_dtype, "rms",
                                                    self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._decay_tensor = convert_to_tensor(self._call_if_callable(self._decay), name="decay")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")
        self._epsilon_tensor = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _hyper(self, var: Any) -> list:
        return [cast(t, var) for t in (self._learning_rate_tensor, self._decay_tensor, self._momentum_tensor,
                                       self._epsilon_tensor)]

    def _slots_of(self, var: Any) -> list:
        names = ["mg", "rms", "momentum"] if self._centered else ["rms", "momentum"]
        return [self.get_slot(var, name) for name in names]

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        op = training_ops.ApplyCenteredRMSProp if self._centered else training_ops.ApplyRMSProp
        return op(var, *self._slots_of(var), *self._hyper(var), grad, use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        op = training_ops.SparseApplyCenteredRMSProp if self._centered else training_ops.SparseApplyRMSProp
        return op(var, *self._slots_of(var), *self._hyper(var), grad.values, grad.indices,
                  use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        op = training_ops.ResourceApplyCenteredRMSProp if self._centered else training_ops.ResourceApplyRMSProp
        return op(var.handle, *(slot.handle for slot in self._slots_of(var)), *self._hyper(var), grad,
                  use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        op = (training_ops.ResourceSparseApplyCenteredRMSProp if self._centered
              else training_ops.ResourceSparseApplyRMSProp)
        return op(var.handle, *(slot.handle for slot in self._slots_of(var)), *self._hyper(var), grad, indices,
                  use_locking=self._use_locking)
