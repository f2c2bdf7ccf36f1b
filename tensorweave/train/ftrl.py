"""`tf.train.FtrlOptimizer`: Follow-the-regularized-leader (McMahan et al. 2013) with slots `accum` (the sum of
squared gradients, from `initial_accumulator_value`) and `linear`, named `accum_name`/`linear_name` when
given. A positive l2_shrinkage_regularization_strength takes the FtrlV2 ops; `beta` is folded into the l2
strength as TF does (l2 + beta / (2 lr))."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import convert_to_tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import elementwise_ops, fill_ops, training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, cast


@tf_export("train.FtrlOptimizer")
class FtrlOptimizer(Optimizer):
    """FTRL-Proximal with l1, l2 and l2-shrinkage regularization and a learning-rate power."""

    def __init__(self, learning_rate: Any, learning_rate_power: float = -0.5, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "Ftrl", accum_name: str | None = None,
                 linear_name: str | None = None, l2_shrinkage_regularization_strength: float = 0.0,
                 beta: float | None = None) -> None:
        super().__init__(use_locking, name)
        for value, what, bound in ((initial_accumulator_value, "initial_accumulator_value", "positive or zero"),
                                   (-learning_rate_power, "learning_rate_power", "negative or zero"),
                                   (l1_regularization_strength, "l1_regularization_strength", "positive or zero"),
                                   (l2_regularization_strength, "l2_regularization_strength", "positive or zero"),
                                   (l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength",
                                    "positive or zero")):
            if value < 0.0:
                shown = -value if what == "learning_rate_power" else value
                raise ValueError(f"{what} {shown:f} needs to be {bound}")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list: list) -> None:
        def accum_initializer(shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
            return fill_ops.ones(shape, dtype=dtype) * self._initial_accumulator_value

        for v in var_list:
            self._get_or_make_slot_with_initializer(v, accum_initializer, v.get_shape(), v.dtype.base_dtype, "accum",
                                                    self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        adjusted = self._l2_regularization_strength + self._beta / (
            2.0 * elementwise_ops.maximum(self._learning_rate, 1e-36))
        self._adjusted_l2_regularization_strength_tensor = convert_to_tensor(
            adjusted, name="adjusted_l2_regularization_strength")
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")
        self._l2_shrinkage_regularization_strength_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength, name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = convert_to_tensor(self._learning_rate_power, name="learning_rate_power")

    def _hyper(self, var: Any) -> list:
        """lr, l1, l2 (with beta), [l2 shrinkage,] lr_power, cast to the variable's dtype."""
        tensors = [self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                   self._adjusted_l2_regularization_strength_tensor]
        if self._l2_shrinkage_regularization_strength > 0.0:
            tensors.append(self._l2_shrinkage_regularization_strength_tensor)
        tensors.append(self._learning_rate_power_tensor)
        return [cast(t, var) for t in tensors]

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        op = training_ops.ApplyFtrlV2 if self._l2_shrinkage_regularization_strength > 0.0 else training_ops.ApplyFtrl
        return op(var, self.get_slot(var, "accum"), self.get_slot(var, "linear"), grad, *self._hyper(var),
                  use_locking=self._use_locking).op

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        op = (training_ops.SparseApplyFtrlV2 if self._l2_shrinkage_regularization_strength > 0.0
              else training_ops.SparseApplyFtrl)
        return op(var, self.get_slot(var, "accum"), self.get_slot(var, "linear"), grad.values, grad.indices,
                  *self._hyper(var), use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        op = (training_ops.ResourceApplyFtrlV2 if self._l2_shrinkage_regularization_strength > 0.0
              else training_ops.ResourceApplyFtrl)
        return op(var.handle, self.get_slot(var, "accum").handle, self.get_slot(var, "linear").handle, grad,
                  *self._hyper(var), use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        op = (training_ops.ResourceSparseApplyFtrlV2 if self._l2_shrinkage_regularization_strength > 0.0
              else training_ops.ResourceSparseApplyFtrl)
        return op(var.handle, self.get_slot(var, "accum").handle, self.get_slot(var, "linear").handle, grad,
                  indices, *self._hyper(var), use_locking=self._use_locking)
