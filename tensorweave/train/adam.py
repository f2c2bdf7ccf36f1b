"""`tf.train.AdamOptimizer`: Kingma and Ba's Adam, with slots `m` and `v` per variable and the non-slot
accumulators `beta1_power` and `beta2_power`, advanced once per step after every update (`_finish`).

A sparse gradient decays all of `m` and `v`, adds its rows with ScatterAdd, then steps the whole variable,
as TF's `_apply_sparse` does (so rows without a gradient still move on their momentum)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorweave.framework.graph import colocate_with, convert_to_tensor, get_default_graph
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import control_flow_ops, elementwise_ops, resource_variable_ops, state_ops, training_ops
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import Optimizer, cast


@tf_export("train.AdamOptimizer")
class AdamOptimizer(Optimizer):
    """Adam: per-coordinate steps from bias-corrected first and second moment estimates."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self) -> tuple[Any, Any]:
        graph = get_default_graph()
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _create_slots(self, var_list: list) -> None:
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        beta1_power, beta2_power = self._get_beta_accumulators()
        return training_ops.ApplyAdam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"), cast(beta1_power, var), cast(beta2_power, var),
            cast(self._lr_t, var), cast(self._beta1_t, var), cast(self._beta2_t, var), cast(self._epsilon_t, var),
            grad, use_locking=self._use_locking).op

    def _apply_sparse_shared(self, grad: Any, var: Any, indices: Any, scatter_add: Callable) -> Any:
        """TF's composite sparse step: decay each moment whole, scatter-add the gradient's share into it."""
        beta1_power, beta2_power = (cast(p, var) for p in self._get_beta_accumulators())
        lr_t, beta1_t, beta2_t, epsilon_t = (cast(t, var) for t in (self._lr_t, self._beta1_t, self._beta2_t,
                                                                     self._epsilon_t))
        lr = lr_t * elementwise_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        graph = get_default_graph()
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with graph.control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        v = self.get_slot(var, "v")
        v_scaled_g_values = (grad * grad) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with graph.control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = elementwise_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t), use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return self._apply_sparse_shared(grad.values, var, grad.indices, lambda x, i, v: state_ops.scatter_add(
            x, i, v, use_locking=self._use_locking))

    @staticmethod
    def _resource_scatter_add(x: Any, i: Any, v: Any) -> Any:
        """The scatter-add, then a fresh read of the whole slot after it (TF's form, not a lazy read)."""
        with get_default_graph().control_dependencies([resource_variable_ops.ResourceScatterAdd(x.handle, i, v)]):
            return x.value()

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        beta1_power, beta2_power = self._get_beta_accumulators()
        return training_ops.ResourceApplyAdam(
            var.handle, self.get_slot(var, "m").handle, self.get_slot(var, "v").handle, cast(beta1_power, var),
            cast(beta2_power, var), cast(self._lr_t, var), cast(self._beta1_t, var), cast(self._beta2_t, var),
            cast(self._epsilon_t, var), grad, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return self._apply_sparse_shared(grad, var, indices, self._resource_scatter_add)

    def _finish(self, update_ops: list, name_scope: str) -> Any:
        with get_default_graph().control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t, use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t, use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops, update_beta1, update_beta2, name=name_scope)
