"""`tf.train.GradientDescentOptimizer` and `ProximalGradientDescentOptimizer`: var -= learning_rate * grad
(then, for the proximal one, the l1/l2 shrinkage)."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import resource_variable_ops, training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, ProximalHyperparameters, cast


@tf_export("train.GradientDescentOptimizer")
class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent; a sparse gradient subtracts its rows with ScatterSub (no deduplication needed)."""

    def __init__(self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ApplyGradientDescent(var, cast(self._learning_rate_tensor, var), grad,
                                                 use_locking=self._use_locking).op

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        delta = IndexedSlices(grad.values * cast(self._learning_rate_tensor, var), grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)

    def _resource_apply_dense(self, grad: Any, handle: Any) -> Any:
        # the rate in the gradient's dtype here (the variable's in the ref form), as TF
        return training_ops.ResourceApplyGradientDescent(handle.handle, cast(self._learning_rate_tensor, grad),
                                                         grad, use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, handle: Any, indices: Any) -> Any:
        return resource_variable_ops.ResourceScatterAdd(handle.handle, indices,
                                                        -grad * cast(self._learning_rate_tensor, grad))

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")


@tf_export("train.ProximalGradientDescentOptimizer")
class ProximalGradientDescentOptimizer(ProximalHyperparameters, Optimizer):
    """Gradient descent followed by the proximal map of l1 and l2 regularization (FOBOS)."""

    def __init__(self, learning_rate: Any, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ApplyProximalGradientDescent(var, *self._hyper(var), grad,
                                                         use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.SparseApplyProximalGradientDescent(var, *self._hyper(var), grad.values, grad.indices,
                                                               use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        return training_ops.ResourceApplyProximalGradientDescent(var.handle, *self._hyper(var), grad,
                                                                 use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return training_ops.ResourceSparseApplyProximalGradientDescent(var.handle, *self._hyper(var), grad, indices,
                                                                       use_locking=self._use_locking)
