"""`tf.train.MomentumOptimizer`: accum = momentum * accum + grad; var -= learning_rate * accum (or Nesterov's
look-ahead step)."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, cast


@tf_export("train.MomentumOptimizer")
class MomentumOptimizer(Optimizer):
    """Gradient descent with momentum; one slot, `momentum`."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ApplyMomentum(var, self.get_slot(var, "momentum"), cast(self._learning_rate_tensor, var),
                                          grad, cast(self._momentum_tensor, var), use_locking=self._use_locking,
                                          use_nesterov=self._use_nesterov).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.SparseApplyMomentum(
            var, self.get_slot(var, "momentum"), cast(self._learning_rate_tensor, var), grad.values, grad.indices,
            cast(self._momentum_tensor, var), use_locking=self._use_locking, use_nesterov=self._use_nesterov).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ResourceApplyMomentum(
            var.handle, self.get_slot(var, "momentum").handle, cast(self._learning_rate_tensor, var), grad,
            cast(self._momentum_tensor, var), use_locking=self._use_locking, use_nesterov=self._use_nesterov)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return training_ops.ResourceSparseApplyMomentum(
            var.handle, self.get_slot(var, "momentum").handle, cast(self._learning_rate_tensor, var), grad, indices,
            cast(self._momentum_tensor, var), use_locking=self._use_locking, use_nesterov=self._use_nesterov)
