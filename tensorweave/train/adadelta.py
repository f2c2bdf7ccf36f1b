"""`tf.train.AdadeltaOptimizer`: steps scaled by the ratio of running RMS of past updates (slot
`accum_update`) to running RMS of gradients (slot `accum`), both starting at zeros."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, cast


@tf_export("train.AdadeltaOptimizer")
class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler 2012)."""

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8, use_locking: bool = False,
                 name: str = "Adadelta") -> None:
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _hyper(self, var: Any) -> list:
        return [cast(t, var) for t in (self._lr_t, self._rho_t, self._epsilon_t)]

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ApplyAdadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                          *self._hyper(var), grad, use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.SparseApplyAdadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                                *self._hyper(var), grad.values, grad.indices,
                                                use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ResourceApplyAdadelta(
            var.handle, self.get_slot(var, "accum").handle, self.get_slot(var, "accum_update").handle,
            *self._hyper(var), grad, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return training_ops.ResourceSparseApplyAdadelta(
            var.handle, self.get_slot(var, "accum").handle, self.get_slot(var, "accum_update").handle,
            *self._hyper(var), grad, indices, use_locking=self._use_locking)
