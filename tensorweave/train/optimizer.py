"""`tf.train.Optimizer`: the base of TF1's optimizers, and the slot variables they keep per variable.

`minimize` = `compute_gradients` (tf.gradients of the loss for each trainable variable) + `apply_gradients`
(one update op per variable, under `<name>/update_<variable>`, colocated with it, then the optimizer's
`_finish` and the `global_step` increment). A subclass says how to update: `_create_slots`, `_prepare`
(its hyperparameters as tensors), `_apply_dense` for a Tensor gradient and `_apply_sparse` for an
IndexedSlices one (whose repeated indices are summed first, unless the subclass overrides
`_apply_sparse_duplicate_indices`).

Slot variables are named as TF names them, `<variable>/<optimizer name>` then `_1`, `_2`... per slot
(`Variable/Adam`, `Variable/Adam_1`), non-trainable, created outside any control dependency; an optimizer's
non-slot variables (Adam's `beta1_power`) are keyed by name and graph.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tensorweave.framework import context, dtypes, nest
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    get_collection,
    get_collection_ref,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.indexed_slices import IndexedSlices, convert_to_tensor_or_indexed_slices
from tensorweave.ops import (
    backprop,
    cast_ops,
    control_flow_ops,
    fill_ops,
    gradients,
    indexing_ops,
    init_ops,
    resource_variable_ops,
    set_ops,
    state_ops,
    variable_scope,
    variables,
)
from tensorweave.ops.shape_ops import shape
from tensorweave.platform.tf_export import tf_export


def _var_key(var: Any) -> Any:
    """Slots are keyed by the variable's op (graph and name), as in TF."""
    return (var.op.graph, var.op.name)


def _partitioned_like(primary: Any, slot: variables.Variable) -> variables.Variable:
    """A slot of one part of a partitioned variable is that part of a partitioned slot: it is saved as the
    slice of `<full name>/<slot name>` (`pv/Adam` for `pv/part_0/Adam`), over the primary's leading dims."""
    info = primary._get_save_slice_info() if isinstance(primary, variables.Variable) else None
    ndims = slot.shape.ndims
    if info and (ndims is None or ndims > 0):
        slot_name = slot.name[len(primary.op.name + "/"):-2]
        slot._set_save_slice_info(variables.Variable.SaveSliceInfo(
            info.full_name + "/" + slot_name, info.full_shape[:ndims], info.var_offset[:ndims],
            info.var_shape[:ndims]))
    return slot


def create_slot_with_initializer(primary: Any, initializer: Any, slot_shape: Any, dtype: Any, name: str,
                                 colocate_with_primary: bool = True) -> variables.Variable:
    """A slot variable `<primary>/<name>` (uniquified) made by `initializer`; TF's slot_creator."""
    with variable_scope.variable_scope(None, primary.op.name + "/" + name):
        with colocate_with(primary) if colocate_with_primary else contextlib.nullcontext():
            return _partitioned_like(primary, _slot_variable(initializer, slot_shape, dtype,
                                                             _slot_uses_resource(primary)))


def _slot_uses_resource(primary: Any) -> bool | None:
    """A variable's slot is of its kind; a tensor's (an ExponentialMovingAverage of one) the variable scope's
    default (a resource variable under v2 behavior), as TF's _create_slot_var chooses."""
    if resource_variable_ops.is_resource_variable(primary):
        return True
    return False if isinstance(primary, variables.RefVariable) else None


def _slot_variable(initializer: Any, slot_shape: Any, dtype: Any, use_resource: bool | None) -> variables.Variable:
    scope = variable_scope.get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)
    try:
        return variable_scope.get_variable("", shape=slot_shape, dtype=dtype, initializer=initializer,
                                           trainable=False, validate_shape=slot_shape.is_fully_defined(),
                                           use_resource=use_resource)
    finally:
        scope.set_partitioner(partitioner)


def create_slot(primary: Any, val: Tensor, name: str, colocate_with_primary: bool = True) -> variables.Variable:
    """A slot variable initialized to the tensor `val`."""
    with variable_scope.variable_scope(None, primary.op.name + "/" + name):
        with colocate_with(primary) if colocate_with_primary else contextlib.nullcontext():
            return _partitioned_like(primary, variable_scope.get_variable(
                "", initializer=val, trainable=False, validate_shape=val.shape.is_fully_defined(),
                use_resource=_slot_uses_resource(primary)))


def create_zeros_slot(primary: Any, name: str, dtype: Any = None,
                      colocate_with_primary: bool = True) -> variables.Variable:
    """A slot of zeros shaped like `primary`."""
    dtype = dtype or primary.dtype.base_dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        from_zeros = init_ops.zeros_initializer()
        return create_slot_with_initializer(primary, from_zeros, slot_shape, dtype, name, colocate_with_primary)
    val = fill_ops.zeros_like(primary.value(), dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary)


def _check_optimizable(v: Any) -> None:
    """TF's _get_processor's failures: it reads `v.op.type` first (a PartitionedVariable has no op), then takes
    only Variables and Tensors."""
    if not isinstance(v, (variables.Variable, Tensor)):
        if not hasattr(v, "op"):
            raise AttributeError(f"'{type(v).__name__}' object has no attribute 'op'")
        raise NotImplementedError("Trying to optimize unsupported type ", v)


def _deduplicate_indexed_slices(values: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
    """The rows of repeated indices summed: (summed values, unique indices)."""
    unique_indices, new_index_positions = set_ops.unique(indices)
    summed_values = indexing_ops.unsorted_segment_sum(values, new_index_positions, shape(unique_indices)[0])
    return summed_values, unique_indices


@tf_export("train.Optimizer")
class Optimizer:
    """Base class of the optimizers: computes gradients of a loss and applies them to variables."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict[Any, variables.Variable]] = {}
        self._non_slot_dict: dict[tuple[str, Any], variables.Variable] = {}

    def get_name(self) -> str:
        return self._name

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None, gate_gradients: int = GATE_OP,
                 aggregation_method: Any = None, colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None) -> Operation:
        """compute_gradients then apply_gradients: one op that takes a training step."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not support gradients, "
                f"between variables {[str(v) for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list[tuple[Any, Any]]:
        """(gradient, variable) pairs for the loss: the gradient is None for a variable it does not reach."""
        if callable(loss):
            # TF differentiates a callable loss through a GradientTape, graph mode included: with no var_list,
            # the trainable resource variables the call read (ref variables are never watched)
            with backprop.GradientTape() as tape:
                if var_list is not None:
                    tape.watch(var_list)
                loss_value = loss()
            if var_list is None:
                var_list = tape.watched_variables()
            with get_default_graph().control_dependencies([loss_value]):
                grads = tape.gradient(loss_value, var_list, grad_loss)
            return list(zip(grads, var_list))
        if context.executing_eagerly():
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                               "execution is enabled.")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             f"Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = variables.trainable_variables() + get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
        else:
            var_list = nest.flatten(var_list)
        for v in var_list:
            _check_optimizable(v)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients.gradients(loss, var_list, grad_ys=grad_loss,
                                    gate_gradients=gate_gradients == Optimizer.GATE_OP,
                                    aggregation_method=aggregation_method,
                                    colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None and v.dtype != dtypes.resource])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None, name: str | None = None) -> Operation:
        """One op applying every gradient (then incrementing `global_step`, if given); it joins TRAIN_OP."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError(f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}") from None
                if not isinstance(g, (Tensor, IndexedSlices)):
                    raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
            _check_optimizable(v)
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in converted]}.")
        with get_default_graph().control_dependencies(None):
            self._create_slots(var_list)
        update_ops = []
        with name_scope(name, self._name) as name:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name), colocate_with(var):
                    if not isinstance(var, variables.Variable):
                        # TF's _TensorProcessor: a Tensor target fails only here, inside the scopes
                        raise NotImplementedError("Trying to update a Tensor ", var)
                    update_ops.append(self._update_op(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                with get_default_graph().control_dependencies([self._finish(update_ops, "update")]):
                    with colocate_with(global_step):
                        if isinstance(global_step, resource_variable_ops.ResourceVariable):
                            # the op itself, not a read after it, as TF does
                            apply_updates = resource_variable_ops.AssignAddVariableOp(
                                global_step.handle, convert_to_tensor(1, dtype=global_step.dtype), name=name)
                        else:
                            apply_updates = state_ops.assign_add(global_step, 1, name=name)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_op = get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_op:
                train_op.append(apply_updates)
            return apply_updates

    def _update_op(self, grad: Any, var: variables.Variable) -> Any:
        """The update of a variable: dense, or sparse for an IndexedSlices gradient (the `_resource_apply`
        forms for a resource variable, as TF dispatches); then its constraint."""
        resource = resource_variable_ops.is_resource_variable(var)
        if isinstance(grad, IndexedSlices):
            if var.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            if resource:
                return self._resource_apply_sparse_duplicate_indices(grad.values, var, grad.indices)
            return self._apply_sparse_duplicate_indices(grad, var)
        update_op = self._resource_apply_dense(grad, var) if resource else self._apply_dense(grad, var)
        if var.constraint is not None:
            with get_default_graph().control_dependencies([update_op]):
                return var.assign(var.constraint(var))
        return update_op

    def get_slot(self, var: Any, name: str) -> variables.Variable | None:
        """The slot variable `name` the optimizer made for `var`, or None."""
        named_slots = self._slots.get(name)
        return None if named_slots is None else named_slots.get(_var_key(var))

    def get_slot_names(self) -> list[str]:
        return sorted(self._slots)

    def variables(self) -> list[variables.Variable]:
        """The optimizer's own variables in the default graph (slots and non-slot ones), by name."""
        graph = get_default_graph()
        found = [v for (_, g), v in self._non_slot_dict.items() if g is graph]
        found += [v for slots in self._slots.values() for v in slots.values() if v.op.graph is graph]
        return sorted(found, key=lambda v: v.name)

    # -- what subclasses define ----------------------------------------------------------------------

    def _valid_dtypes(self) -> set:
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors: list) -> None:
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: {list(valid)}.")  # TF's set order

    def _create_slots(self, var_list: list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        raise NotImplementedError()

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        """`_apply_sparse` of the gradient with the rows of repeated indices summed."""
        summed_values, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed_values, unique_indices, grad.dense_shape), var)

    def _resource_apply_dense(self, grad: Tensor, handle: Any) -> Any:
        raise NotImplementedError()

    def _resource_apply_sparse(self, grad: Tensor, handle: Any, indices: Tensor) -> Any:
        raise NotImplementedError()

    def _resource_apply_sparse_duplicate_indices(self, grad: Tensor, handle: Any, indices: Tensor) -> Any:
        """`_resource_apply_sparse` of the gradient rows with repeated indices summed."""
        summed_values, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed_values, handle, unique_indices)

    def _finish(self, update_ops: list, name_scope: str) -> Operation:
        return control_flow_ops.group(*update_ops, name=name_scope)

    # -- slots and non-slot variables ------------------------------------------------------------------

    def _call_if_callable(self, param: Any) -> Any:
        return param() if callable(param) else param

    def _slot_dict(self, slot_name: str) -> dict:
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var: Any, val: Tensor, slot_name: str, op_name: str) -> variables.Variable:
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = create_slot(var, val, op_name)
        return named_slots[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var: Any, initializer: Any, slot_shape: Any, dtype: Any,
                                           slot_name: str, op_name: str) -> variables.Variable:
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = create_slot_with_initializer(var, initializer, slot_shape, dtype, op_name)
        return named_slots[_var_key(var)]

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> variables.Variable:
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = create_zeros_slot(var, op_name)
        return named_slots[_var_key(var)]

    def _create_non_slot_variable(self, initial_value: Any, name: str, colocate_with: Any) -> variables.Variable:
        """A variable of the optimizer's own (not per variable), made once per graph beside `colocate_with`."""
        primary = colocate_with
        graph = primary.graph
        key = (name, graph)
        if key not in self._non_slot_dict:
            with graph.as_default(), graph.colocate_with(primary):
                self._non_slot_dict[key] = variables.Variable(
                    initial_value, name=name, trainable=False,
                    use_resource=resource_variable_ops.is_resource_variable(primary))
        return self._non_slot_dict[key]

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> variables.Variable | None:
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    def _non_slot_variables(self) -> Any:
        """Every non-slot variable, of every graph (what subclasses such as TF's own read)."""
        return self._non_slot_dict.values()

    def _trackable_children(self) -> list[tuple[str, variables.Variable]]:
        """An object-based checkpoint's edges: the default graph's non-slot variables by name (`beta1_power`);
        slots are written under their variables' paths."""
        graph = get_default_graph()
        return sorted(((name, v) for (name, g), v in self._non_slot_dict.items() if g is graph), key=lambda item: item[0])



def cast(value: Any, var: Any) -> Tensor:
    """A hyperparameter tensor in the variable's dtype, as each optimizer passes it to its training op."""
    return cast_ops.cast(value, var.dtype.base_dtype)


class ProximalHyperparameters:
    """What the proximal optimizers feed their ops: the learning rate and the L1 and L2 strengths, as tensors
    made once per `apply_gradients` and cast to each variable's dtype."""

    _learning_rate: Any
    _l1_regularization_strength: Any
    _l2_regularization_strength: Any

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(self._l2_regularization_strength,
                                                                    name="l2_regularization_strength")

    def _hyper(self, var: Any) -> list:
        return [cast(t, var) for t in (self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                                       self._l2_regularization_strength_tensor)]
