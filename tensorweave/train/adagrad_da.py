"""`tf.train.AdagradDAOptimizer`: Adagrad dual averaging. The variable is recomputed each step from the sum
of gradients (slot `gradient_accumulator`) and of their squares (slot `gradient_squared_accumulator`) at
the given global step plus one; the caller increments the step (minimize's `global_step`)."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import colocate_with, convert_to_tensor, device
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import constant_ops, manipulation_ops, training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, cast


@tf_export("train.AdagradDAOptimizer")
class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging (Duchi et al.), for sparse linear models with l1/l2 regularization."""

    def __init__(self, learning_rate: Any, global_step: Any, initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "AdagradDA") -> None:
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = initial_gradient_squared_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            dtype = v.dtype.base_dtype
            with colocate_with(v):
                g_val = constant_ops.constant(0.0, shape=v.get_shape(), dtype=dtype)
                gg_val = constant_ops.constant(self._initial_gradient_squared_accumulator_value,
                                               shape=v.get_shape(), dtype=dtype)
            self._get_or_make_slot(v, g_val, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, gg_val, "gradient_squared_accumulator", self._name)

    def _prepare(self) -> None:
        """The step the update uses is global_step + 1, read once beside the learning rate (TF's copy of the
        global step on the worker)."""
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        with colocate_with(self._learning_rate_tensor):
            self._global_step_on_worker = manipulation_ops.identity(self._global_step) + 1

    def _inputs(self, var: Any) -> tuple[list, list]:
        slots = [self.get_slot(var, "gradient_accumulator"), self.get_slot(var, "gradient_squared_accumulator")]
        with device(var.device):
            global_step = manipulation_ops.identity(self._global_step_on_worker)
        hyper = [cast(self._learning_rate_tensor, var), cast(self._l1_regularization_strength, var),
                 cast(self._l2_regularization_strength, var), global_step]
        return slots, hyper

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        slots, hyper = self._inputs(var)
        return training_ops.ApplyAdagradDA(var, *slots, grad, *hyper, use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        slots, hyper = self._inputs(var)
        return training_ops.SparseApplyAdagradDA(var, *slots, grad.values, grad.indices, *hyper,
                                                 use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        slots, hyper = self._inputs(var)
        return training_ops.ResourceApplyAdagradDA(var.handle, *(slot.handle for slot in slots), grad, *hyper,
                                                   use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        slots, hyper = self._inputs(var)
        return training_ops.ResourceSparseApplyAdagradDA(var.handle, *(slot.handle for slot in slots), grad, indices,
                                                         *hyper, use_locking=self._use_locking)
