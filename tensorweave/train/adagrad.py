"""`tf.train.AdagradOptimizer` and `ProximalAdagradOptimizer`: steps scaled by the inverse square root of each
coordinate's accumulated squared gradients (slot `accumulator`, starting at `initial_accumulator_value`)."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import colocate_with, convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import constant_ops, fill_ops, init_ops, training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, ProximalHyperparameters, cast


class _AccumulatorOptimizer(Optimizer):
    """The `accumulator` slot both Adagrads keep."""

    _initial_accumulator_value: float

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            else:
                init = fill_ops.ones_like(v.value(), dtype=dtype) * self._initial_accumulator_value
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype, "accumulator", self._name)


@tf_export("train.AdagradOptimizer")
class AdagradOptimizer(_AccumulatorOptimizer):
    """Adagrad (Duchi et al.)."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1, use_locking: bool = False,
                 name: str = "Adagrad") -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ApplyAdagrad(var, self.get_slot(var, "accumulator"),
                                         cast(self._learning_rate_tensor, var), grad,
                                         use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.SparseApplyAdagrad(var, self.get_slot(var, "accumulator"),
                                               cast(self._learning_rate_tensor, var), grad.values, grad.indices,
                                               use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ResourceApplyAdagrad(var.handle, self.get_slot(var, "accumulator").handle,
                                                 cast(self._learning_rate_tensor, var), grad,
                                                 use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return training_ops.ResourceSparseApplyAdagrad(var.handle, self.get_slot(var, "accumulator").handle,
                                                       cast(self._learning_rate_tensor, var), grad, indices,
                                                       use_locking=self._use_locking)


@tf_export("train.ProximalAdagradOptimizer")
class ProximalAdagradOptimizer(ProximalHyperparameters, _AccumulatorOptimizer):
    """Adagrad followed by the proximal map of l1 and l2 regularization."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad") -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _create_slots(self, var_list: list) -> None:
        """TF's: the accumulator starts from a constant built beside the variable (a graph-level `Const`)."""
        for v in var_list:
            with colocate_with(v):
                val = constant_ops.constant(self._initial_accumulator_value, shape=v.get_shape(),
                                            dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, val, "accumulator", self._name)

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ApplyProximalAdagrad(var, self.get_slot(var, "accumulator"), *self._hyper(var), grad,
                                                 use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.SparseApplyProximalAdagrad(var, self.get_slot(var, "accumulator"), *self._hyper(var),
                                                       grad.values, grad.indices, use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ResourceApplyProximalAdagrad(var.handle, self.get_slot(var, "accumulator").handle,
                                                         *self._hyper(var), grad, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return training_ops.ResourceSparseApplyProximalAdagrad(
            var.handle, self.get_slot(var, "accumulator").handle, *self._hyper(var), grad, indices,
            use_locking=self._use_locking)
