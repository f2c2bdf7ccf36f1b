"""Control-flow ops: NoOp, ControlTrigger, `tf.group` and `tf.tuple`; Switch, Merge and the loop frame ops
(Enter, Exit, NextIteration, LoopCond) with `tf.cond` and `tf.while_loop` (TF1's control flow v1: the
executor runs them, a Switch's untaken output is dead and deadness flows through every other op), and their
gradients (a loop's gradient loop is built by control_flow_state for tf.gradients). Under control flow v2 (a
TF2 graph-mode program, `enable_control_flow_v2()`, or inside a function being traced) `tf.cond` and
`tf.while_loop` build functional If and While ops instead (cond_v2.py, while_v2.py), exactly when TF does."""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import dtypes, meta_graph, nest, tensor_shape, tensor_util
from tensorweave.framework.func_graph import FuncGraph, control_flow_v2_in_graph
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    convert_to_tensor,
    executing_eagerly,
    get_default_graph,
    get_graph_from_inputs,
    internal_convert_to_tensor,
    name_scope,
    prepend_name_scope,
    strip_name_scope,
)
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import DEAD, OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import composite_tensor_spec
from tensorweave.ops import (
    constant_ops,
    elementwise_ops,
    fill_ops,
    manipulation_ops,
    raw_ops,
    shape_ops,
    tensor_array_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import unary_shape, with_rank
from tensorweave.platform.tf_export import tf_export

_sequence_types = (list, tuple)  # captured before `tuple` below shadows the builtin

NoOp = Op("NoOp")


@NoOp.kernel("CPU")
def _no_op(ctx: OpKernelContext) -> None:
    return None


ControlTrigger = Op("ControlTrigger")


@ControlTrigger.kernel("CPU")
def _control_trigger(ctx: OpKernelContext) -> None:
    """Nothing: it gathers control edges (a gradient loop orders its stack pops by one)."""
    return None


@tf_export("no_op")
def no_op(name: str | None = None) -> Operation:
    """An op that does nothing; useful as a control-dependency anchor."""
    return NoOp(name=name)


# -- Switch and Merge ---------------------------------------------------------------------------------

Switch = Op("Switch", inputs=["data: T", "pred: bool"], outputs=["output_false: T", "output_true: T"],
            attrs=["T: type"])
RefSwitch = Op("RefSwitch", inputs=["data: Ref(T)", "pred: bool"],
               outputs=["output_false: Ref(T)", "output_true: Ref(T)"], attrs=["T: type"],
               allows_uninitialized_input=True)


@Switch.shape
@RefSwitch.shape
def _switch_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return [ctx.input_shape(0), ctx.input_shape(0)]


def check_selector(ctx: OpKernelContext, selector: Any) -> None:
    """A switch's second input selects one output: a scalar, as TF's Switch and _SwitchN check."""
    if np.ndim(selector) != 0:
        raise invalid_argument(ctx, "The second input must be a scalar, but it has shape "
                               f"{tensor_shape.shape_string(np.shape(selector))}")


@Switch.kernel("CPU")
@RefSwitch.kernel("CPU")
def _switch(ctx: OpKernelContext, data: Any, pred: Any) -> list[Any]:
    """`data` on the output `pred` selects; the other output is dead."""
    check_selector(ctx, pred)
    return [DEAD, data] if pred else [data, DEAD]


# TF's lowering of a Case (what a TF master runs of a StatelessCase it sends a worker): `data` on the output
# `output_index` selects, the last one when it is out of range (the default branch); the others are dead.
_SwitchN = Op("_SwitchN", inputs=["data: T", "output_index: int32"], outputs=["outputs: num_outs * T"],
              attrs=["num_outs: int >= 1", "T: type"])


@_SwitchN.shape
def _switch_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return [ctx.input_shape(0)] * ctx.attr("num_outs")


@_SwitchN.kernel("CPU")
def _switch_n(ctx: OpKernelContext, data: Any, output_index: Any, num_outs: int) -> list[Any]:
    check_selector(ctx, output_index)
    index = int(output_index)
    outputs = [DEAD] * num_outs
    outputs[index if 0 <= index < num_outs else num_outs - 1] = data
    return outputs


Merge = Op("Merge", inputs=["inputs: N * T"], outputs=["output: T", "value_index: int32"],
           attrs=["T: type", "N: int >= 1"])
RefMerge = Op("RefMerge", inputs=["inputs: Ref(N * T)"], outputs=["output: Ref(T)", "value_index: int32"],
              attrs=["T: type", "N: int >= 1"])


@Merge.shape
@RefMerge.shape
def _merge_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's MergeShape: the inputs' shape where they agree, unknown dims where they differ, an unknown shape
    when their ranks differ or one is unknown."""
    shapes = ctx.input_shapes
    merged = shapes[0]
    if merged.ndims is not None:
        dims = merged.as_list()
        for shape in shapes[1:]:
            if shape.ndims != len(dims):
                merged = tensor_shape.unknown_shape()
                break
            dims = [d if d == other else None for d, other in zip(dims, shape.as_list())]
        else:
            merged = tensor_shape.TensorShape(dims)
    return [merged, tensor_shape.TensorShape([])]


@Merge.kernel("CPU")
@RefMerge.kernel("CPU")
def _merge(ctx: OpKernelContext, *inputs: Any) -> list[Any]:
    """The first live input and its index (the executor starts a Merge on its first live input)."""
    for index, value in enumerate(inputs):
        if value is not DEAD:
            return [value, np.int32(index)]
    raise errors.InternalError(ctx.node_def, None, "Merge ran with every input dead")


# -- Loop frames: Enter, Exit, NextIteration, LoopCond -------------------------------------------------

_FRAME_ATTRS = ["T: type", "frame_name: string", "is_constant: bool = false", "parallel_iterations: int = 10"]
Enter = Op("Enter", inputs=["data: T"], outputs=["output: T"], attrs=_FRAME_ATTRS)
RefEnter = Op("RefEnter", inputs=["data: Ref(T)"], outputs=["output: Ref(T)"], attrs=_FRAME_ATTRS)
Exit = Op("Exit", inputs=["data: T"], outputs=["output: T"], attrs=["T: type"])
RefExit = Op("RefExit", inputs=["data: Ref(T)"], outputs=["output: Ref(T)"], attrs=["T: type"])
NextIteration = Op("NextIteration", inputs=["data: T"], outputs=["output: T"], attrs=["T: type"])
RefNextIteration = Op("RefNextIteration", inputs=["data: Ref(T)"], outputs=["output: Ref(T)"], attrs=["T: type"])
LoopCond = Op("LoopCond", inputs=["input: bool"], outputs=["output: bool"])
for _frame_op in (Exit, RefExit, NextIteration, RefNextIteration):
    _frame_op.shape(unary_shape)


@Enter.shape
@RefEnter.shape
def _enter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """A loop invariant keeps its shape; a loop variable's is unknown here (while_loop sets its invariant)."""
    return [ctx.input_shape(0) if ctx.attr("is_constant") else tensor_shape.unknown_shape()]


@Enter.kernel("CPU")
@RefEnter.kernel("CPU")
@Exit.kernel("CPU")
@RefExit.kernel("CPU")
@NextIteration.kernel("CPU")
@RefNextIteration.kernel("CPU")
def _forward(ctx: OpKernelContext, data: Any) -> Any:
    """The frame ops pass their value on: the executor moves it into the child frame (Enter), the parent
    (Exit) or the next iteration (NextIteration)."""
    return data


@LoopCond.shape
def _loop_cond_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [with_rank(ctx.input_shape(0), 0)]


@LoopCond.kernel("CPU")
def _loop_cond(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002 - TF's argument name
    """The loop's predicate, passed on to the loop's Switches."""
    return input


def _as_op(value: Any) -> Operation:
    if hasattr(value, "_handle") and hasattr(value, "op"):
        return value.op  # a resource variable, as TF's control_dependencies takes it
    if hasattr(value, "_as_graph_element") and not isinstance(value, (Tensor, Operation)):
        value = value._as_graph_element()
    if isinstance(value, Tensor):
        return value.op
    if isinstance(value, Operation):
        return value
    raise TypeError(f"'inputs' should be zero or more (nested) Tensors. Received '{value}' with type "
                    f"'{type(value)}'.")


def _flatten(inputs: Any) -> list:
    """Leaves of nested lists, tuples and dicts (dicts in key order), None included, and the component tensors
    of IndexedSlices and SparseTensors, as TF's nest does with `expand_composites=True`."""
    flat = []
    for value in inputs:
        if isinstance(value, _sequence_types):
            flat.extend(_flatten(value))
        elif isinstance(value, dict):
            flat.extend(_flatten([value[k] for k in sorted(value)]))
        elif isinstance(value, IndexedSlices):
            flat.extend(c for c in (value.values, value.indices, value.dense_shape) if c is not None)
        elif isinstance(value, SparseTensor):
            flat.extend((value.indices, value.values, value.dense_shape))
        elif composite_tensor_spec(value) is not None:  # a RaggedTensor
            flat.extend(composite_tensor_spec(value)._to_components(value))
        else:
            flat.append(value)
    return flat


@tf_export("group")
def group(*inputs: Any, **kwargs: Any) -> Operation:
    """An op that runs after all `inputs` (control dependencies only; it outputs nothing).

    Inputs on several devices get one NoOp per device first, so only one control edge crosses devices;
    inputs on one device put the group there.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    flat = _flatten(inputs)
    with name_scope(name, "group_deps", [v for v in flat if hasattr(v, "graph")]) as scope:
        ops = [_as_op(v) for v in flat]  # checked inside the scope: a bad input still uses up its name, as in TF
        if not ops:
            return no_op(name=scope)
        g = get_graph_from_inputs(ops)
        by_device: dict[str, list[Operation]] = {}
        for op in ops:
            by_device.setdefault(op.device, []).append(op)
        if len(by_device) > 1:
            ops = []
            for device in sorted(by_device):
                with g.device(device or None), g.control_dependencies(by_device[device]):
                    ops.append(no_op())
            with g.control_dependencies(ops):
                return no_op(name=scope)
        (device,) = by_device
        with g.device(device) if device else contextlib.nullcontext(), g.control_dependencies(ops):
            return no_op(name=scope)  # on its inputs' one device, as TF's _GroupControlDeps puts it


def with_dependencies(dependencies: list, output_tensor: Any, name: str | None = None) -> Any:
    """`output_tensor`'s value, produced only after all `dependencies` have run.

    An IndexedSlices stays one: only its values pass through the Identity (its indices and dense shape are the
    input's own), as in TF; a SparseTensor's components each get an Identity.
    """
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        g = output_tensor.graph
        with g.colocate_with(output_tensor.op), g.control_dependencies(dependencies):
            if isinstance(output_tensor, IndexedSlices):
                return IndexedSlices(manipulation_ops.Identity(output_tensor.values, name=scope),
                                     output_tensor.indices, output_tensor.dense_shape)
            if isinstance(output_tensor, SparseTensor):
                return SparseTensor(*(manipulation_ops.Identity(c) for c in (
                    output_tensor.indices, output_tensor.values, output_tensor.dense_shape)))
            if output_tensor.dtype._is_ref_dtype:  # a variable's own ref stays a ref, as TF's _Identity keeps it
                return manipulation_ops.RefIdentity(output_tensor, name=scope)
            return manipulation_ops.Identity(output_tensor, name=scope)


@tf_export("tuple")
def tuple(tensors: Any, name: str | None = None, control_inputs: Any = None) -> list:  # noqa: A001 - TF's name
    """Tensors with the same values as `tensors`, available only after all of them are computed.

    Anything but a tensor, an IndexedSlices or SparseTensor, an op or None (a variable, a Python value) is
    converted to a tensor first, as TF does.
    """
    kept = (Tensor, Operation, IndexedSlices, SparseTensor)
    with name_scope(name, "tuple", [t for t in tensors if isinstance(t, kept)]):
        tensors = [t if t is None or isinstance(t, kept) else convert_to_tensor(t) for t in tensors]
        gating = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if not isinstance(c, (Tensor, Operation)):
                raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}")
            gating.append(_as_op(c))
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        result = []
        for t in tensors:
            if isinstance(t, (Tensor, IndexedSlices, SparseTensor)):
                result.append(with_dependencies([gate], t))
            elif isinstance(t, Operation):
                with t.graph.control_dependencies([gate]):
                    result.append(group(t))
            else:
                result.append(None)
        return result


# -- cond: a conditional built from Switch and Merge (TF1's control flow v1) ---------------------------


def switch(data: Any, pred: Any, dtype: Any = None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """`(output_false, output_true)`: `data` goes to the output `pred` selects; the other is dead."""
    with name_scope(name, "Switch", [data, pred]) as scope:
        data = internal_convert_to_tensor(data, dtype=dtype, name="data", as_ref=True)
        pred = convert_to_tensor(pred, name="pred")
        return builtins.tuple(Switch(data, pred, name=scope))


def _switch_ref_or_tensor(data: Tensor, pred: Tensor, name: str = "Switch") -> list[Tensor]:
    """A Switch (a RefSwitch for a ref), colocated with `data` whatever colocation encloses it."""
    data = convert_to_tensor(data, name="data", as_ref=True) if not isinstance(data, Tensor) else data
    with data.graph.colocate_with(data.op, ignore_existing=True):
        if data.dtype._is_ref_dtype:
            return RefSwitch(data, pred, name=name)
        return Switch(data, pred, name=name)


def merge(inputs: list[Any], name: str | None = None) -> tuple[Tensor, Tensor]:
    """`(output, value_index)`: the value of whichever input is available, and its index."""
    if any(value is None for value in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    with name_scope(name, "Merge", inputs) as scope:
        tensors = [internal_convert_to_tensor(value, as_ref=True) for value in inputs]
        if all(t.dtype._is_ref_dtype for t in tensors):
            return builtins.tuple(RefMerge(tensors, name=scope))
        return builtins.tuple(Merge(tensors, name=scope))


def _in_context(op: Operation, context: ControlFlowContext) -> bool:
    """Whether `op` was built in `context` or in a context nested in it (TF's OpInContext)."""
    inner = op._get_control_flow_context()
    while inner is not None:
        if inner is context:
            return True
        inner = inner.outer_context
    return False


def _is_loop_exit(op: Operation) -> bool:
    return op.type in ("Exit", "RefExit")


def _is_loop_constant_enter(op: Operation) -> bool:
    return op.type in ("Enter", "RefEnter") and bool(op.get_attr("is_constant"))


def _output_context(op: Operation) -> ControlFlowContext | None:
    """The context `op`'s outputs live in: an Exit's are outside its loop."""
    context = op._get_control_flow_context()
    return context.outer_context if context is not None and _is_loop_exit(op) else context


def _while_context_of(op: Operation) -> WhileContext | None:
    """The innermost loop `op` was built in (TF's GetWhileContext)."""
    context = op._get_control_flow_context()
    return context.get_while_context() if context is not None else None


def _forward_loop_of(op: Operation) -> WhileContext | None:
    """The loop whose iterations `op`'s outputs belong to: an Exit's are its loop's enclosing loop's."""
    context = op._get_control_flow_context()
    if context is not None and _is_loop_exit(op):
        context = context.outer_context
    return context.get_while_context() if context is not None else None


def _current_grad_while_context() -> WhileContext | None:
    """The gradient loop ops are being built in now, if any."""
    context = get_default_graph()._get_control_flow_context()
    context = context.get_while_context() if context is not None else None
    return context if context is not None and context.grad_state is not None else None


@contextlib.contextmanager
def _entered(context: ControlFlowContext | None) -> Any:
    """Build inside `context` (nothing to enter when it is None: the top level)."""
    if context is None:
        yield
        return
    context.enter()
    try:
        yield
    finally:
        context.exit()


class ControlFlowContext:
    """What the graph's cond and while contexts share (TF's ControlFlowContext): every op built while one
    is entered joins it (`add_op`, called by the graph), the names of the tensors visible inside, and for
    each outside value captured, the tensor that stands for it inside. Ops of a context cannot be fetched.

    A meta graph carries a context as its proto (`to_proto`, with the contexts built inside it nested), and
    `from_proto` rebuilds it over an imported graph, setting the context of the ops whose outputs it lists,
    so an imported loop is differentiated as the one built here.
    """

    def __init__(self, values_def: Any = None, import_scope: str | None = None) -> None:
        self.outer_context: ControlFlowContext | None = get_default_graph()._get_control_flow_context()
        self._values: set[str] = set()
        self._external_values: dict[str, Tensor] = {}
        self._saved_contexts: list[Any] = []
        self._nested_contexts: list[ControlFlowContext] = []
        if self.outer_context is not None:
            self.outer_context._nested_contexts.append(self)
        if values_def is not None:
            self._init_values_from_proto(values_def, import_scope)

    def _init_values_from_proto(self, values_def: Any, import_scope: str | None) -> None:
        graph = get_default_graph()
        self._values = {prepend_name_scope(value, import_scope) for value in values_def.values}
        self._external_values = {prepend_name_scope(k, import_scope): graph.as_graph_element(
            prepend_name_scope(v, import_scope)) for k, v in values_def.external_values.items()}
        for op_name in sorted({value.split(":")[0] for value in self._values - self._external_values.keys()}):
            graph.as_graph_element(op_name)._set_control_flow_context(self)

    def _to_values_def(self, export_scope: str | None) -> Any:
        values_def = protos.ValuesDef(values=[strip_name_scope(v, export_scope) for v in sorted(self._values)])
        for k, v in self._external_values.items():
            values_def.external_values[strip_name_scope(k, export_scope)] = strip_name_scope(v.name, export_scope)
        return values_def

    def _add_nested_defs(self, nested_defs: Any, export_scope: str | None) -> None:
        for nested in self._nested_contexts:
            proto = nested.to_proto(export_scope)
            if proto is not None:
                getattr(nested_defs.add(), nested._ctxt_field).CopyFrom(proto)

    def _enter_nested_from_proto(self, context_def: Any, import_scope: str | None) -> None:
        """Rebuild the contexts nested in `context_def`, inside this one."""
        self.enter()
        for nested_def in context_def.nested_contexts:
            from_control_flow_context_def(nested_def, import_scope)
        self.exit()

    def enter(self) -> None:
        graph = get_default_graph()
        self._saved_contexts.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def exit(self) -> None:
        get_default_graph()._set_control_flow_context(self._saved_contexts.pop())

    def add_name(self, name: str) -> None:
        self._values.add(name)

    def add_op(self, op: Operation) -> None:
        """Join a new op built while this context is entered (the graph calls it)."""
        self._add_op_internal(op)

    def _add_op_internal(self, op: Operation) -> None:
        raise NotImplementedError

    def get_while_context(self) -> WhileContext | None:
        return self.outer_context.get_while_context() if self.outer_context is not None else None

    def get_control_pivot(self) -> Tensor | None:
        return None

    def exit_result(self, result: Any) -> None:
        """Make a context's results visible to the enclosing context."""
        if self.outer_context is not None:
            for tensor in nest.flatten(result):
                self.outer_context.add_name(tensor.name)

    def _remove_external_control_edges(self, op: Operation) -> tuple[list[Operation], list[Operation]]:
        """Inside a loop, an op keeps only the control inputs from its own loop; the others are returned
        (the loop re-attaches them through its pivot)."""
        while_context = self.get_while_context()
        if while_context is None:
            return list(op.control_inputs), []
        internal, external = [], []
        for control in op.control_inputs:
            context = _output_context(control)
            if context is not None and context.get_while_context() is while_context:
                internal.append(control)
            else:
                external.append(control)
        if len(internal) != len(op.control_inputs):
            op._remove_all_control_inputs()
            op._add_control_inputs(internal)
        return internal, external

    def _mark_outputs(self, op: Operation) -> None:
        context: ControlFlowContext | None = self
        while context is not None:
            for output in op.outputs:
                context.add_name(output.name)
            context = context.outer_context


class CondContext(ControlFlowContext):
    """One branch of a `cond` (TF's CondContext).

    A value from outside the branch is routed through a Switch on the predicate, once per value, so the
    branch's ops are dead when the branch is not taken; an op with no inputs waits on the branch's pivot for
    the same reason. Contexts nest: a value captured by an inner branch is first captured by the outer one.
    """

    _ctxt_field = "cond_ctxt"

    def __init__(self, pred: Tensor | None = None, pivot: Tensor | None = None, branch: int | None = None,
                 name: str = "cond_text", context_def: Any = None, import_scope: str | None = None) -> None:
        if context_def is not None:
            graph = get_default_graph()
            self.name = prepend_name_scope(context_def.context_name, import_scope)
            self.pred = graph.as_graph_element(prepend_name_scope(context_def.pred_name, import_scope))
            self.pivot = graph.as_graph_element(prepend_name_scope(context_def.pivot_name, import_scope))
            self.branch = context_def.branch
            super().__init__(context_def.values_def, import_scope)
            return
        super().__init__()
        self.name = get_default_graph().unique_name(name)
        self.pred = pred
        self.pivot = pivot
        self.branch = branch
        self._values.update((pred.name, pivot.name))
        self._external_values[pred.name] = pred
        pivot.op._set_control_flow_context(self)

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This branch's CondContextDef, names relative to `export_scope` (None when it lies outside)."""
        if export_scope is not None and not self.name.startswith(export_scope):
            return None
        context_def = protos.CondContextDef(
            context_name=strip_name_scope(self.name, export_scope),
            pred_name=strip_name_scope(self.pred.name, export_scope),
            pivot_name=strip_name_scope(self.pivot.name, export_scope), branch=self.branch,
            values_def=self._to_values_def(export_scope))
        self._add_nested_defs(context_def.nested_contexts, export_scope)
        return context_def

    @staticmethod
    def from_proto(context_def: Any, import_scope: str | None = None) -> CondContext:
        context = CondContext(context_def=context_def, import_scope=import_scope)
        context._enter_nested_from_proto(context_def, import_scope)
        return context

    def get_control_pivot(self) -> Tensor:
        return self.pivot

    def add_value(self, value: Tensor) -> Tensor:
        """`value` as the branch sees it: itself if built inside, else through the branch's Switch."""
        if value.name in self._values:
            return self._external_values.get(value.name, value)
        self._values.add(value.name)
        result = value
        if self.outer_context is not None:
            result = self.outer_context.add_value(value)
            self._values.add(result.name)
            self._external_values[result.name] = result
        with value.graph.control_dependencies(None):
            result = _switch_ref_or_tensor(result, self.pred)[self.branch]
        result.graph.prevent_fetching(result.op)
        result.op._set_control_flow_context(self)
        context: ControlFlowContext | None = self
        while context is not None:
            context.add_name(result.name)
            context = context.outer_context
        self._external_values[value.name] = result
        return result

    def _add_op_internal(self, op: Operation) -> None:
        """Join a new op: capture its outside inputs; an op without inputs waits on the pivot."""
        if not op.inputs:
            self._remove_external_control_edges(op)
            if not any(_in_context(control, self) for control in op.control_inputs):
                op._add_control_input(self.pivot.op)
        else:
            for index, tensor in enumerate(op.inputs):
                if op.type in ("Merge", "RefMerge") and tensor.op.type in ("NextIteration", "RefNextIteration"):
                    continue  # a loop built in the branch: its back edge joins the branch with its NextIteration
                captured = self.add_value(tensor)
                if captured is not tensor:
                    op._update_input(index, captured)
            self._remove_external_control_edges(op)
        self._mark_outputs(op)
        if self.outer_context is not None or not _is_loop_exit(op):
            op.graph.prevent_fetching(op)

    def _branch_output(self, value: Any) -> Tensor:
        """A branch result as the Merge takes it: an op becomes the pivot after it; an outside tensor goes
        through the branch's Switch."""
        if isinstance(value, Operation):
            return with_dependencies([value], self.pivot)
        if isinstance(value, SparseTensor):  # merged component by component, as TF's expand_composites, which
            packed = SparseTensor(*(self._branch_output(part)  # packs one here (so takes its name scope)
                                    for part in (value.indices, value.values, value.dense_shape)))
            return (packed.indices, packed.values, packed.dense_shape)
        if isinstance(value, IndexedSlices) or composite_tensor_spec(value) is not None:
            return [self._branch_output(part) for part in _components(value)]
        value = convert_to_tensor(_convert_tensorarray_to_flow(value))
        if value.name not in self._values:  # `lambda: x` of an outside x
            self._values.add(value.name)
            captured = value
            if self.outer_context is not None:
                captured = self.outer_context.add_value(value)
                self._values.add(captured.name)
                self._external_values[captured.name] = captured
            captured = _switch_ref_or_tensor(captured, self.pred)[self.branch]
            self._external_values[value.name] = captured
            return captured
        return self._external_values.get(value.name, value)

    def build_branch(self, fn: Callable[[], Any]) -> tuple[Any, list | None]:
        """Call `fn` inside this context: its result as returned, and as the flat tensors to merge."""
        original = fn()
        if original is None:
            return None, None
        result = nest.map_structure(self._branch_output, original)
        return original, result if isinstance(result, (list, _sequence_types)) else [result]


def _convert_tensorarray_to_flow(value: Any) -> Any:
    """A TensorArray crosses a cond or loop boundary as its flow tensor."""
    return value.flow if isinstance(value, tensor_array_ops.TensorArray) else value


def _convert_flow_to_tensorarray(original: Any, value: Any) -> Any:
    """`value` as a TensorArray (the same handle at this flow) where `original` was one."""
    if isinstance(original, tensor_array_ops.TensorArray):
        return tensor_array_ops.build_ta_with_new_flow(original, value)
    return value


def _components(value: Any) -> list[Tensor]:
    """The tensors a cond or loop carries for one value (TF's expand_composites): a SparseTensor's three, an
    IndexedSlices' values, indices (and dense_shape), another composite's (a RaggedTensor's flat values and row
    splits) as its TypeSpec takes it apart, a TensorArray's flow."""
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    if isinstance(value, IndexedSlices):
        return [value.values, value.indices] + ([] if value.dense_shape is None else [value.dense_shape])
    spec = composite_tensor_spec(value)
    if spec is not None:
        return list(spec._to_components(value))
    return [convert_to_tensor(_convert_tensorarray_to_flow(value))]


def _from_components(originals: list, tensors: list[Tensor]) -> list:
    """The values of `originals`' kinds made of the tensors `_components` took from them."""
    parts = iter(tensors)
    result = []
    for o in originals:
        if isinstance(o, SparseTensor):
            result.append(SparseTensor(next(parts), next(parts), next(parts)))
        elif isinstance(o, IndexedSlices):
            result.append(IndexedSlices(next(parts), next(parts), None if o.dense_shape is None else next(parts)))
        elif composite_tensor_spec(o) is not None:
            spec = composite_tensor_spec(o)
            result.append(spec._from_components([next(parts) for _ in spec._component_specs]))
        else:
            result.append(_convert_flow_to_tensorarray(o, next(parts)))
    return result


def _component_invariants(value: Any, shape: tensor_shape.TensorShape | None) -> list[tensor_shape.TensorShape]:
    """The shape invariants of `value`'s components; a SparseTensor's is the shape of its dense_shape ([rank]),
    and its nonzero count may vary (TF's SparseTensorSpec components); an IndexedSlices' is that of its values,
    which fixes its indices' ([shape[0]]) and dense_shape's ([rank]) (TF's IndexedSlicesSpec components)."""
    if isinstance(value, IndexedSlices):
        if shape is None:
            indices_shape = value.indices.shape.merge_with(value.values.shape[:1])
            dense = tensor_shape.TensorShape([None]).concatenate(value.values.shape[1:])
            if value.dense_shape is not None:
                dense = dense.merge_with(tensor_util.constant_value_as_shape(value.dense_shape))
        else:
            indices_shape = shape[:1] if shape.ndims is not None else tensor_shape.TensorShape([None])
            dense = tensor_shape.TensorShape([None]).concatenate(shape[1:])
        return [indices_shape.concatenate(dense[1:]), indices_shape] + (
            [] if value.dense_shape is None else [tensor_shape.TensorShape([dense.ndims])])
    spec = composite_tensor_spec(value)
    if spec is not None and not isinstance(value, SparseTensor):  # a RaggedTensor: its spec's components'
        if shape is not None:  # (its outer row splits fix its number of rows), as TF's shape_invariant_to_type_spec
            spec = value._shape_invariant_to_type_spec(shape)
        return [component.shape for component in spec._component_specs]
    if not isinstance(value, SparseTensor):
        return [_convert_tensorarray_to_flow(value).shape if shape is None else shape]
    if shape is None:
        rank = value.shape.ndims
    elif shape.ndims is not None and shape.ndims != 1:
        raise ValueError(f"Expected a shape with 1 dimension. Obtained: {shape} which has {shape.ndims} dimensions.")
    else:
        rank = tensor_shape.dimension_value(shape[0]) if shape.ndims else None
    return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]), tensor_shape.TensorShape([rank])]


def _unpack_if_singleton(value: Any) -> Any:
    return value[0] if isinstance(value, (list, _sequence_types)) and len(value) == 1 else value


# cond_v2.cond_v2 and while_v2.while_loop, which those modules register when imported: they build on
# gradients, which builds on this module (TF breaks the same cycle with a LazyLoader).
V2_BUILDERS: dict[str, Callable[..., Any]] = {}


@tf_export("cond")
def cond(pred: Any, true_fn: Callable[[], Any] | None = None, false_fn: Callable[[], Any] | None = None,
         strict: bool = False, name: str | None = None, fn1: Callable[[], Any] | None = None,
         fn2: Callable[[], Any] | None = None) -> Any:
    """`true_fn()` if `pred` is true, else `false_fn()`: only the taken branch runs (TF1's `tf.cond`).

    Both functions are called once, now, to build their branches; both must return the same structure of
    tensors with the same dtypes. A singleton list or tuple is unpacked unless `strict`.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if control_flow_v2_in_graph():
        return V2_BUILDERS["cond"](pred, true_fn, false_fn, name)
    if executing_eagerly():  # only the taken branch runs, at once (TF's eager cond)
        result = true_fn() if tensor_util.constant_value(convert_to_tensor(pred)) else false_fn()
        return result if strict else _unpack_if_singleton(result)
    with name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        p_2, p_1 = switch(pred, pred)
        pivot_1 = manipulation_ops.identity(p_1, name="switch_t")
        pivot_2 = manipulation_ops.identity(p_2, name="switch_f")
        pred = manipulation_ops.identity(pred, name="pred_id")
        for tensor in (p_1, p_2, pivot_1, pivot_2, pred):
            tensor.graph.prevent_fetching(tensor.op)
        results = []
        for pivot, branch, fn, label in ((pivot_1, 1, true_fn, "true_fn"), (pivot_2, 0, false_fn, "false_fn")):
            context = CondContext(pred, pivot, branch)
            context.enter()
            try:
                original, flat = context.build_branch(fn)
                if original is None:
                    raise ValueError(f"'{label}' must have a return value.")
                context.exit_result(flat)
            finally:
                context.exit()
            results.append((original, flat, context))
        if context.outer_context is None:  # a nested cond travels inside the context around it
            for _, _, branch_context in results:
                get_default_graph().add_to_collection(GraphKeys.COND_CONTEXT, branch_context)
        (orig_t, res_t, _), (orig_f, res_f, _) = results
        if not strict:
            orig_t, orig_f = _unpack_if_singleton(orig_t), _unpack_if_singleton(orig_f)
        nest.assert_same_structure(orig_t, orig_f)  # TF reports nest's own error here
        try:  # a composite against a tensor: TF's second check, which names the branches
            nest.assert_same_structure(orig_t, orig_f, expand_composites=True)
        except ValueError as e:
            raise ValueError(f"Incompatible return values of 'true_fn' and 'false_fn': {e}") from None
        if not res_t:
            raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
        flat_t, flat_f = nest.flatten(res_t), nest.flatten(res_f)
        for x, y in zip(flat_t, flat_f):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError("Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
                                 f"{x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn'.")
        merged = [merge([f, t])[0] for f, t in zip(flat_f, flat_t)]
        merges = nest.pack_sequence_as(orig_t, _from_components(nest.flatten(orig_t), merged))
        return _unpack_if_singleton(merges) if not strict else merges


def from_control_flow_context_def(context_def: Any, import_scope: str | None = None) -> ControlFlowContext:
    """The cond or while context a ControlFlowContextDef holds, rebuilt over the imported graph."""
    kind = context_def.WhichOneof("ctxt")
    if kind == "cond_ctxt":
        return CondContext.from_proto(context_def.cond_ctxt, import_scope)
    if kind == "while_ctxt":
        return WhileContext.from_proto(context_def.while_ctxt, import_scope)
    raise NotImplementedError(f"Unknown ControlFlowContextDef field: {kind}")


# -- while_loop: a loop frame built from Enter, Merge, Switch, NextIteration and Exit -------------------


def _enter(data: Tensor, frame_name: str, is_constant: bool, parallel_iterations: int,
           use_input_shape: bool = True, name: str | None = None) -> Tensor:
    """`data` entering the frame `frame_name` (a RefEnter for a ref)."""
    data = internal_convert_to_tensor(data, as_ref=True)
    frame_op = RefEnter if data.dtype._is_ref_dtype else Enter
    result = frame_op(data, frame_name=frame_name, is_constant=is_constant,
                      parallel_iterations=parallel_iterations, name=name)
    if use_input_shape:
        result.set_shape(data.shape)
    return result


def exit(data: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """`data` leaving its loop frame for the enclosing one."""
    data = internal_convert_to_tensor(data, as_ref=True)
    return (RefExit if data.dtype._is_ref_dtype else Exit)(data, name=name)


def _shape_less_than_or_equal(shape: tensor_shape.TensorShape, bound: tensor_shape.TensorShape) -> bool:
    """Whether `shape` is at least as specific as `bound` (TF's _ShapeLessThanOrEqual)."""
    if bound.ndims is None:
        return True
    if shape.ndims != bound.ndims:
        return False
    return all(b is None or a == b for a, b in zip(shape.as_list(), bound.as_list()))


class WhileContext(ControlFlowContext):
    """One `while_loop` (TF's WhileContext): its frame name, its pivots and the loop it builds.

    Inside the loop, a value from outside enters once, as a loop invariant (a constant Enter every
    iteration sees); an op built only from invariants or from nothing waits on the loop's pivot, so it
    runs once per iteration; control inputs from outside the loop are moved to an identity of the input
    inside it.
    """

    _ctxt_field = "while_ctxt"

    def __init__(self, maximum_iterations: Tensor | None = None, parallel_iterations: int = 10,
                 back_prop: bool = True, swap_memory: bool = False, name: str = "while_context",
                 grad_state: Any = None, context_def: Any = None, import_scope: str | None = None) -> None:
        self.grad_state = grad_state  # a gradient loop's GradLoopState (None for a forward loop)
        if context_def is not None:
            self._init_from_proto(context_def, import_scope)
            return
        super().__init__()
        self.name = get_default_graph().unique_name(name)
        self.maximum_iterations = maximum_iterations
        self.parallel_iterations = parallel_iterations
        self.back_prop = back_prop
        self.swap_memory = swap_memory
        self._pivot: Tensor | None = None  # the LoopCond
        self._pivot_for_pred: Tensor | None = None
        self._pivot_for_body: Tensor | None = None
        self.loop_enters: list[Tensor] = []
        self.loop_exits: list[Tensor] = []

    def _init_from_proto(self, context_def: Any, import_scope: str | None) -> None:
        graph = get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(prepend_name_scope(name, import_scope))

        self.name = prepend_name_scope(context_def.context_name, import_scope)
        self.maximum_iterations = element(context_def.maximum_iterations_name) \
            if context_def.maximum_iterations_name else None
        self.parallel_iterations = context_def.parallel_iterations
        self.back_prop = context_def.back_prop
        self.swap_memory = context_def.swap_memory
        self._pivot_for_pred = element(context_def.pivot_for_pred_name)
        self._pivot_for_body = element(context_def.pivot_for_body_name)
        self._pivot = element(context_def.pivot_name)
        self.loop_exits = [element(name) for name in context_def.loop_exit_names]
        self.loop_enters = [element(name) for name in context_def.loop_enter_names]
        super().__init__(context_def.values_def, import_scope)
        if import_scope:  # the frame is named after the context, which the scope renamed
            for tensor_name in sorted(self._values):
                op = graph.as_graph_element(tensor_name).op
                if op.type in ("Enter", "RefEnter"):
                    op._set_attr("frame_name", self.name.encode())

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This loop's WhileContextDef, names relative to `export_scope` (None when it lies outside)."""
        if export_scope is not None and not self.name.startswith(export_scope):
            return None

        def stripped(tensor: Tensor) -> str:
            return strip_name_scope(tensor.name, export_scope)

        context_def = protos.WhileContextDef(
            context_name=strip_name_scope(self.name, export_scope), parallel_iterations=self.parallel_iterations,
            back_prop=self.back_prop, swap_memory=self.swap_memory,
            pivot_for_pred_name=stripped(self._pivot_for_pred), pivot_for_body_name=stripped(self._pivot_for_body),
            pivot_name=stripped(self._pivot), loop_exit_names=[stripped(t) for t in self.loop_exits],
            loop_enter_names=[stripped(t) for t in self.loop_enters], values_def=self._to_values_def(export_scope))
        if self.maximum_iterations is not None:
            context_def.maximum_iterations_name = stripped(self.maximum_iterations)
        self._add_nested_defs(context_def.nested_contexts, export_scope)
        return context_def

    @staticmethod
    def from_proto(context_def: Any, import_scope: str | None = None) -> WhileContext:
        context = WhileContext(context_def=context_def, import_scope=import_scope)
        context._enter_nested_from_proto(context_def, import_scope)
        return context

    def get_while_context(self) -> WhileContext:
        return self

    @property
    def pivot(self) -> Tensor | None:
        """The loop's LoopCond."""
        return self._pivot

    def get_control_pivot(self) -> Tensor | None:
        return self._pivot_for_body if self._pivot_for_body is not None else self._pivot_for_pred

    def add_value(self, value: Tensor) -> Tensor:
        """`value` as the loop sees it: a loop invariant Enter for an outside value, made once. In a gradient
        loop, a value of its forward loop is the one the forward loop saved for this iteration."""
        if value.name in self._values or value.op._get_control_flow_context() is self:
            return self._external_values.get(value.name, value)
        self._values.add(value.name)
        grad_context = _current_grad_while_context()
        if grad_context is not None and _forward_loop_of(value.op) is grad_context.grad_state.forward_context:
            real = grad_context.grad_state.get_real_value(value)
            self._external_values[value.name] = real
            return real
        result = value
        if self.outer_context is not None:
            result = self.outer_context.add_value(value)
        with value.graph.control_dependencies(None):
            enter = _enter(result, self.name, True, self.parallel_iterations)
            enter.graph.prevent_feeding(enter)
        self._fix_control_inputs_and_context([enter])
        self._values.add(enter.name)
        self._external_values[value.name] = enter
        return enter

    def add_op(self, op: Operation) -> None:
        """A gradient loop's Shape, Size or Rank of a forward value is built in the forward loop instead,
        so the forward loop saves the small result rather than the value (TF's AddOp)."""
        if op.type in ("Shape", "Size", "Rank"):
            grad_context = _current_grad_while_context()
            if grad_context is not None and \
                    _while_context_of(op.inputs[0].op) is grad_context.grad_state.forward_context:
                context = op.inputs[0].op._get_control_flow_context()
                op._set_control_flow_context(context)
                context._add_op_internal(op)
                return
        self._add_op_internal(op)

    def _add_op_internal(self, op: Operation) -> None:
        """Join a new op: capture its outside inputs; one built only from invariants (or from nothing)
        waits on the pivot; outside control inputs are re-attached through an identity inside the loop."""
        if not op.inputs:
            internal, external = self._remove_external_control_edges(op)
            if not internal:
                op._add_control_input(self.get_control_pivot().op)
        else:
            for index, tensor in enumerate(op.inputs):
                captured = self.add_value(tensor)
                if captured is not tensor:
                    op._update_input(index, captured)
            _, external = self._remove_external_control_edges(op)
            if not op.control_inputs and all(_is_loop_constant_enter(t.op) for t in op.inputs):
                op._add_control_input(self.get_control_pivot().op)
        for output in op.outputs:
            self._values.add(output.name)
        if external:
            with op.graph.control_dependencies(None):
                self.enter()
                gates = [manipulation_ops.identity(control.outputs[0]).op for control in external if control.outputs]
                self.exit()
            op._add_control_inputs(gates)
        if self.outer_context is not None or not _is_loop_exit(op):
            op.graph.prevent_fetching(op)
            for output in op.outputs:
                op.graph.prevent_feeding(output)

    def _fix_control_inputs_and_context(self, enters: list[Tensor]) -> None:
        """An Enter gets the control inputs the enclosing control_dependencies blocks give its input, when
        they are visible where the loop is built, and joins this context."""
        graph = get_default_graph()
        for enter in enters:
            kept = []
            for control in graph._control_dependencies_for_inputs({enter.op.inputs[0].op}):
                context, outer = _output_context(control), self.outer_context
                outer_while = outer.get_while_context() if outer is not None else None
                keep = True
                while outer is not context:
                    if outer is None or outer is outer_while:
                        keep = False
                        break
                    outer = outer.outer_context
                if keep:
                    kept.append(control)
            enter.op._set_control_flow_context(self)
            enter.op._add_control_inputs(kept)
            graph._record_op_seen_by_control_dependencies(enter.op)

    def add_forward_loop_counter(self, outer_grad_state: Any) -> tuple[Tensor, Tensor]:
        """Count this forward loop's iterations (TF's AddForwardLoopCounter): the count leaving the loop and
        the counter's NextIteration, which the stack pushes are ordered around."""
        n = constant_ops.constant(0, name="f_count")
        if outer_grad_state is not None:  # the i-th run of an inner loop pushes before the (i+1)-th
            n.op._add_control_input(outer_grad_state.forward_index.op.inputs[0].op)
        self.enter()
        self.add_name(n.name)
        enter_n = _enter(n, self.name, False, self.parallel_iterations, name="f_count")
        self.loop_enters.append(enter_n)
        merge_n = merge([enter_n, enter_n])[0]
        switch_n = switch(merge_n, self._pivot)
        next_n = NextIteration(elementwise_ops.add(switch_n[1], 1), name="NextIteration")
        merge_n.op._update_input(1, next_n)
        total = exit(switch_n[0], name="f_count")
        self.loop_exits.append(total)
        self.exit_result([total])
        self.exit()
        return total, next_n

    def add_backprop_loop_counter(self, count: Tensor, outer_grad_state: Any) -> Tensor:
        """Make this gradient loop run `count` iterations, counting down to zero (TF's
        AddBackpropLoopCounter); the counter's LoopCond is the loop's pivot. Returns its NextIteration."""
        one = constant_ops.constant(1, name="b_count")
        self.enter()
        self.add_name(count.name)
        enter_count = _enter(count, self.name, False, self.parallel_iterations, name="b_count")
        self.loop_enters.append(enter_count)
        merge_count = merge([enter_count, enter_count])[0]
        self._pivot_for_pred = merge_count
        self._pivot = LoopCond(elementwise_ops.greater_equal(merge_count, one), name="b_count")
        switch_count = switch(merge_count, self._pivot)
        index = elementwise_ops.subtract(switch_count[1], one)
        self._pivot_for_body = index
        next_count = NextIteration(index, name="NextIteration")
        merge_count.op._update_input(1, next_count)
        final_zero = exit(switch_count[0], name="b_count")
        self.loop_exits.append(final_zero)
        if outer_grad_state is not None:  # the i-th run of an inner loop pops before the (i+1)-th
            outer_grad_state.grad_sync._add_control_input(final_zero.op)
        self.exit_result([final_zero])
        self.exit()
        return next_count

    def add_backprop_accumulator(self, op: Operation, grad: Tensor) -> Tensor:
        """The sum over all iterations of `grad`, the gradient of the loop invariant `op` enters (TF's
        AddBackpropAccumulator): a loop variable of this gradient loop, from zeros of the invariant's shape."""
        self.exit()
        outer = self.outer_context
        if grad.shape.is_fully_defined():
            with _entered(outer):
                acc = constant_ops.constant(0, grad.dtype, shape=grad.shape.as_list(), name="b_acc")
        elif isinstance(outer, WhileContext) and outer.grad_state is not None:  # nested: the shape per run
            forward = self.grad_state.forward_context
            with _entered(forward.outer_context):
                zeros_shape = shape_ops.Shape(op.inputs[0], name="Shape")
            outer_grad_state = self.grad_state.outer_grad_state
            history_zeros_shape = outer_grad_state.add_forward_accumulator(zeros_shape)
            with _entered(outer):
                real_shape = outer_grad_state.add_backprop_accumulated_value(history_zeros_shape, zeros_shape)
                acc = fill_ops.zeros(real_shape, grad.dtype)
        else:
            with _entered(outer):
                acc = fill_ops.zeros(shape_ops.Shape(op.inputs[0], name="Shape"), grad.dtype)
        self.enter()
        self.add_name(acc.name)
        enter_acc = _enter(acc, self.name, False, self.parallel_iterations, name="b_acc")
        self.loop_enters.append(enter_acc)
        merge_acc = merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_false, switch_true = switch(merge_acc, self._pivot)
        next_acc = NextIteration(elementwise_ops.add(switch_true, grad), name="NextIteration")
        merge_acc.op._update_input(1, next_acc)
        result = exit(switch_false, name="b_acc")
        self.loop_exits.append(result)
        self.exit_result([result])
        return result

    def add_backprop_indexed_slices_accumulator(self, op: Operation, grad: IndexedSlices) -> IndexedSlices:
        """The gradient of the loop invariant `op` enters when its iterations' gradients are IndexedSlices
        (an embedding read in a loop; TF's AddBackpropIndexedSlicesAccumulator): their slices concatenated, in
        the order the gradient loop makes them, after one zero slice at index 0 (so that a loop of no
        iterations still has a value), and the largest dense shape; the dense gradient is never built."""
        values, indices, dense_shape = grad.values, grad.indices, grad.dense_shape
        self.exit()
        with _entered(self.outer_context):
            if values.shape.is_fully_defined():
                values_acc = constant_ops.constant(0, values.dtype, shape=[1] + values.shape.as_list()[1:],
                                                   name="b_acc")
            else:
                values_shape = manipulation_ops.concat([[1], shape_ops.Shape(op.inputs[0])[1:]], 0)
                values_acc = fill_ops.zeros(values_shape, dtype=values.dtype)
            accumulators = [constant_ops.constant([0], indices.dtype), values_acc]
            if dense_shape is not None:
                if dense_shape.shape.is_fully_defined():
                    accumulators.append(constant_ops.constant(0, dense_shape.dtype, shape=dense_shape.shape.as_list()))
                else:
                    accumulators.append(fill_ops.zeros_like(
                        shape_ops.Shape(op.inputs[0], out_type=dense_shape.dtype), optimize=False))
        self.enter()
        for acc in accumulators:
            self.add_name(acc.name)
        # the accumulated slices grow every iteration: their Enters do not keep the initial shapes
        enters = [_enter(acc, self.name, False, self.parallel_iterations, use_input_shape=False, name="b_acc")
                  for acc in accumulators]
        enters[0].set_shape([None])
        if values_acc.shape.ndims is not None:
            enters[1].set_shape([None] + values_acc.shape.as_list()[1:])
        self.loop_enters.extend(enters)
        merges = [merge([e, e], name="b_acc")[0] for e in enters]
        switches = [switch(m, self._pivot) for m in merges]
        grown = [manipulation_ops.concat([acc[1], part], 0) for acc, part in zip(switches[:2], [indices, values])]
        if dense_shape is not None:
            grown.append(elementwise_ops.maximum(dense_shape, switches[2][1]))
        for m, value in zip(merges, grown):
            m.op._update_input(1, NextIteration(value, name="NextIteration"))
        exits = [exit(acc[0], name="b_acc") for acc in switches]
        self.loop_exits.extend(exits)
        self.exit_result(exits)
        return IndexedSlices(indices=exits[0], values=exits[1], dense_shape=exits[2] if dense_shape is not None
                             else None)

    def build_loop(self, cond_fn: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
                   shape_invariants: Any, return_same_structure: bool) -> Any:
        """The loop's Exit tensors, packed as `body`'s result (TF's BuildLoop); TensorArrays travel as their
        flows and come out as TensorArrays of the same handles."""
        flat_orig = nest.flatten(loop_vars)
        loop_vars = nest.map_structure(
            lambda v: v if isinstance(v, tensor_array_ops.TensorArray) or composite_tensor_spec(v) is not None
            else convert_to_tensor(v),
            loop_vars)
        flat_vars = [t for v in nest.flatten(loop_vars) for t in _components(v)]
        if shape_invariants is None:
            flat_invariants = [s for v in nest.flatten(loop_vars) for s in _component_invariants(v, None)]
        else:
            nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
            flat_invariants = [s for v, shape in zip(nest.flatten(loop_vars), nest.flatten(shape_invariants))
                               for s in _component_invariants(v, tensor_shape.as_shape(shape))]
        self.enter()
        try:
            original, exits = self._build_loop(cond_fn, body, loop_vars, flat_orig, flat_vars, flat_invariants)
        finally:
            self.exit()
        packed = nest.pack_sequence_as(original, _from_components(nest.flatten(original), exits))
        if return_same_structure:
            return packed
        return packed[0] if len(exits) == 1 else packed

    def _build_loop(self, cond_fn: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, flat_orig: list,
                    flat_vars: list[Tensor], flat_invariants: list[tensor_shape.TensorShape]) -> tuple[Any, list]:
        self._values = {v.name for v in flat_vars}
        real_vars = [self.outer_context.add_value(v) for v in flat_vars] if self.outer_context else flat_vars
        enters = []
        with get_default_graph().control_dependencies(None):
            for var, invariant in zip(real_vars, flat_invariants):
                enter = _enter(var, self.name, False, self.parallel_iterations, use_input_shape=False)
                if not _shape_less_than_or_equal(var.shape, invariant):
                    raise ValueError(
                        f"The shape invariant specified for {var.name} is not compatible with the initial shape "
                        f"of the loop variable. It enters the loop with shape {var.shape}, but the specified "
                        f"shape invariant is {invariant}.")
                enter.set_shape(invariant)
                enter.graph.prevent_feeding(enter)
                enters.append(enter)
        outer, control_pivot = self.outer_context, None
        while outer is not None and control_pivot is None:
            control_pivot = outer.get_control_pivot()
            outer = outer.outer_context
        if control_pivot is not None:
            for enter in enters:
                if _is_loop_constant_enter(enter.op.inputs[0].op):
                    enter.op._add_control_input(control_pivot.op)
        self._fix_control_inputs_and_context(enters)
        self._values = {e.name for e in enters}
        self.loop_enters = enters

        merges = [merge([e, e])[0] for e in enters]
        self._pivot_for_pred = merges[0]
        cond_vars = _from_components(flat_orig, merges)
        condition = convert_to_tensor(cond_fn(*nest.pack_sequence_as(loop_vars, cond_vars)))
        self._pivot = LoopCond(condition, name="LoopCond")
        switches = [_switch_ref_or_tensor(m, self._pivot) for m in merges]
        body_vars = [manipulation_ops.RefIdentity(s[1]) if s[1].dtype._is_ref_dtype else manipulation_ops.identity(s[1])
                     for s in switches]  # TF's _Identity: a ref stays one
        self._pivot_for_body = body_vars[0]
        packed_body_vars = nest.pack_sequence_as(loop_vars, _from_components(flat_orig, body_vars))
        result = body(*packed_body_vars)
        if not nest.is_nested(result):
            result = [result]
        nest.assert_same_structure(list(packed_body_vars), list(result), expand_composites=True)
        flat_result = [t for v in nest.flatten(result) for t in _components(v)]
        if len(merges) != len(flat_result):
            raise ValueError("Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
                             f"{len(merges)} for the number of inputs/outputs, and {len(flat_result)} for "
                             "'loop_vars'.")
        for m, value in zip(merges, flat_result):
            next_value = (RefNextIteration if value.dtype._is_ref_dtype else NextIteration)(
                value, name="NextIteration")
            if not _shape_less_than_or_equal(next_value.shape, m.shape):
                raise ValueError(
                    f"Input tensor '{m.op.inputs[0].op.inputs[0].name}' enters the loop with shape {m.shape}, but "
                    f"has shape {next_value.shape} after one iteration. To allow the shape to vary across "
                    "iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific "
                    "shape.")
            m.op._update_input(1, next_value)
        self.loop_exits = [exit(s[0]) for s in switches]
        self.exit_result(self.loop_exits)
        return result, self.loop_exits


@tf_export("while_loop")
def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               name: str | None = None, maximum_iterations: Any = None, return_same_structure: bool = False
               ) -> Any:
    """Repeat `body` while `cond` is true (TF1's `tf.while_loop`, control flow v1): a loop frame in the
    graph, run by the executor with up to `parallel_iterations` iterations in flight."""
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if control_flow_v2_in_graph():
        return V2_BUILDERS["while_loop"](cond, body, loop_vars, shape_invariants, parallel_iterations,
                                         maximum_iterations, name, return_same_structure, back_prop)
    if isinstance(loop_vars, Tensor):  # TF's name_scope tests the truth of its values before it opens
        bool(loop_vars)
    with name_scope(name, "while", nest.flatten(loop_vars)):
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {maximum_iterations.shape}")
            counter = constant_ops.constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
            cond, body = _counted(cond, body, maximum_iterations, try_to_pack)
            loop_vars = (counter, loop_vars[0] if try_to_pack else loop_vars)
            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        if executing_eagerly():
            result = _eager_loop(cond, body, loop_vars, try_to_pack and maximum_iterations is None)
            return result[1] if maximum_iterations is not None else result
        context = WhileContext(maximum_iterations, parallel_iterations, back_prop, swap_memory)
        if context.outer_context is None:
            get_default_graph().add_to_collection(GraphKeys.WHILE_CONTEXT, context)
        result = context.build_loop(cond, body, loop_vars, shape_invariants, return_same_structure)
        return result[1] if maximum_iterations is not None else result


def _eager_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, try_to_pack: bool) -> Any:
    """The loop run as a Python loop, executing eagerly (TF's eager while_loop): its variables as tensors,
    in their structure (a single one unpacked, as it came)."""
    packed = False
    structure = list(loop_vars)
    while cond(*loop_vars):
        loop_vars = body(*loop_vars)
        if try_to_pack and not isinstance(loop_vars, (list, tuple)):
            packed, loop_vars = True, (loop_vars,)
        nest.assert_same_structure(structure, list(loop_vars))
    loop_vars = nest.map_structure(convert_to_tensor, loop_vars)
    return loop_vars[0] if packed else loop_vars


def _counted(cond: Callable[..., Any], body: Callable[..., Any], maximum_iterations: Tensor, packed: bool
             ) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """`cond` and `body` over (counter, loop vars), stopping after `maximum_iterations`, as TF builds them."""
    def counted_cond(i: Tensor, loop_vars: Any) -> Tensor:
        return elementwise_ops.logical_and(i < maximum_iterations, cond(loop_vars) if packed else cond(*loop_vars))

    def counted_body(i: Tensor, loop_vars: Any) -> tuple[Tensor, Any]:
        return i + 1, body(loop_vars) if packed else body(*loop_vars)

    return counted_cond, counted_body


# -- Gradients through conds and loops (TF's control_flow_grad, control flow v1) ------------------------
# A loop's gradient is a gradient loop (a WhileContext with a grad_state, built by tf.gradients through
# control_flow_state): an Exit's gradient enters it, a loop Switch's becomes its loop variable's Merge, a
# loop Merge's is a Switch on its pivot, an Enter's leaves it (summed over iterations for an invariant).


@Switch.gradient
@RefSwitch.gradient
def _switch_grad(op: Operation, grad_false: Any, grad_true: Any) -> list:
    """A loop's Switch, first from its Exit: a Merge in the gradient loop (its back edge comes on the second
    visit, from the body); a cond's Switch: the two branches' gradients merge (only the taken one is live);
    a bare Switch routes each output's gradient back through a Switch on the same predicate first."""
    context = op._get_control_flow_context()
    if isinstance(context, WhileContext):
        grad_state = get_default_graph()._get_control_flow_context().grad_state
        merge_grad = grad_state.switch_map.get(op)
        if merge_grad is not None:
            if grad_true is not None:
                merge_grad.op._update_input(1, NextIteration(convert_to_tensor(grad_true), name="NextIteration"))
            return [None, None]
        if grad_false is not None:
            merge_grad = merge([grad_false, grad_false], name="b_switch")[0]
            grad_state.switch_map[op] = merge_grad
            return [merge_grad, None]
        return [None, None]
    if isinstance(context, CondContext):
        return [merge([grad_false, grad_true], name="cond_grad")[0], None]
    false_grad = switch(grad_false, op.inputs[1])[0]
    true_grad = switch(grad_true, op.inputs[1])[1]
    return [merge([false_grad, true_grad])[0], None]


@Merge.gradient
@RefMerge.gradient
def _merge_grad(op: Operation, grad: Any, _: Any) -> list:
    """A loop's Merge: a Switch on the gradient loop's pivot (false: leave by the Enter's gradient, true:
    the next iteration). A cond's Merge: back to the branch that ran, through a Switch on the predicate (in
    a loop, on the predicate's value in the matching forward iteration, saved on a stack)."""
    context = _output_context(op.inputs[0].op)
    grad_context = get_default_graph()._get_control_flow_context()
    if isinstance(context, WhileContext):
        return list(_switch_ref_or_tensor(grad, grad_context.pivot))
    if isinstance(context, CondContext):
        pred = context.pred
        grad_state = getattr(grad_context, "grad_state", None)
        if grad_state is not None:
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_state.grad_context.exit()
                history_pred = grad_state.add_forward_accumulator(pred)
                grad_state.grad_context.enter()
                real_pred = grad_state.add_backprop_accumulated_value(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        return list(_switch_ref_or_tensor(grad, pred, name="cond_grad"))
    chosen = op.outputs[1]
    return [_switch_ref_or_tensor(grad, elementwise_ops.equal(chosen, i))[1] for i in range(len(op.inputs))]


@Exit.gradient
@RefExit.gradient
def _exit_grad(op: Operation, grad: Any) -> Any:
    """An Exit's gradient enters the gradient loop as one of its loop variables."""
    grad_context = get_default_graph()._get_control_flow_context()
    if not grad_context.back_prop:
        return None
    if op._get_control_flow_context().grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    if isinstance(grad, IndexedSlices):
        # a loop variable's gradient travels the gradient loop dense, made outside it (TF fails to build
        # the gradient loop here: its slices would change shape between iterations)
        graph = get_default_graph()
        graph._set_control_flow_context(grad_context.outer_context)
        try:
            grad = convert_to_tensor(grad)
        finally:
            graph._set_control_flow_context(grad_context)
    grad_context.add_name(grad.name)
    grad_context.enter()
    result = _enter(grad, grad_context.name, False, grad_context.parallel_iterations, name="b_exit")
    grad_context.loop_enters.append(result)
    grad_context.exit()
    return result


@NextIteration.gradient
@RefNextIteration.gradient
def _next_iteration_grad(op: Operation, grad: Any) -> Any:
    return grad


@Enter.gradient
@RefEnter.gradient
def _enter_grad(op: Operation, grad: Any) -> Any:
    """A loop variable's Enter: its gradient leaves the gradient loop; a loop invariant's: the sum of its
    gradients over all iterations."""
    grad_context = get_default_graph()._get_control_flow_context()
    if grad_context is None or not getattr(grad_context, "back_prop", True) or \
            getattr(grad_context, "grad_state", None) is None:
        return grad
    if op.get_attr("is_constant"):
        if isinstance(grad, IndexedSlices):
            return grad_context.add_backprop_indexed_slices_accumulator(op, grad)
        if not isinstance(grad, Tensor):
            raise TypeError(f"Type {type(grad)} not supported")
        return grad_context.add_backprop_accumulator(op, grad)
    if isinstance(grad, IndexedSlices):  # each part leaves the gradient loop
        parts = [grad.values, grad.indices] + ([grad.dense_shape] if grad.dense_shape is not None else [])
        exits = [exit(part) for part in parts]
        result = IndexedSlices(*exits)
    else:
        result = exit(grad)
        exits = [result]
    grad_context.loop_exits.extend(exits)
    grad_context.exit_result(exits)
    return result


@LoopCond.gradient
def _loop_cond_grad(op: Operation, grad: Any) -> None:
    return None


def variable_handle_source(handle: Tensor) -> Operation | None:
    """The VarHandleOp behind a resource handle, through the Identity and control-flow ops a handle may pass
    and the captures of function graphs (TF keeps what it says as the handle's shape-and-type data), or None
    when the handle comes from elsewhere."""
    while True:
        if handle.op.type in ("Identity", "Enter", "Switch", "Merge", "Exit", "NextIteration"):
            handle = handle.op.inputs[0]
        elif handle.op.type in ("While", "StatelessWhile"):  # a loop passes the handles it reads on
            handle = handle.op.inputs[handle.value_index]
        elif isinstance(handle.graph, FuncGraph) and handle.graph.captured_from(handle) is not None:
            handle = handle.graph.captured_from(handle)
        else:
            break
    return handle.op if handle.op.type == "VarHandleOp" else None


def zeros_for_resource(handle: Tensor, shape_op: bool = False) -> Tensor:
    """The zero gradient of a variable's handle: zeros of the variable's shape and dtype (TF's
    `default_gradient.get_zeros_dtype`), which TF refuses for a handle of unknown dtype. A known shape is a
    constant one unless `shape_op` (TF's control_flow_state.ZerosLike reads it with a VariableShape op)."""
    source = variable_handle_source(handle)
    if source is None:
        raise ValueError(f"Internal error: Tried to take gradients (or similar) of a variable without handle data:\n"
                         f"{handle}")
    shape = tensor_shape.as_shape(source.get_attr("shape"))
    known = shape.is_fully_defined() and not shape_op
    zeros = fill_ops.zeros(shape.as_list() if known else raw_ops.VariableShape(input=handle),
                           dtype=source.get_attr("dtype"))
    zeros.set_shape(source.get_attr("shape"))
    return zeros


def zeros_like_outside_loop(op: Operation, index: int) -> Tensor:
    """Zeros for an output of `op` that no gradient reached (TF's ZerosLikeOutsideLoop): for a cond's Switch,
    made behind a Switch on the other branch, so they exist only when that branch runs."""
    value = op.outputs[index]
    context = op._get_control_flow_context() if op.type in ("Switch", "RefSwitch") else None
    if not isinstance(context, CondContext):
        if value.dtype == dtypes.resource:
            return zeros_for_resource(value, shape_op=True)
        return fill_ops.zeros_like(value, optimize=False)
    switched = switch(op.inputs[0], context.pred)[1 - context.branch]
    pivot = manipulation_ops.identity(switched)
    if value.dtype == dtypes.resource:
        with get_default_graph().control_dependencies([pivot]):
            return zeros_for_resource(switched, shape_op=True)
    shape = shape_ops.Shape(switched, name="Shape")  # a Shape op even when the shape is known, as TF
    with get_default_graph().control_dependencies([pivot]):
        return fill_ops.zeros(shape, dtype=value.dtype.base_dtype)


meta_graph.register_proto_function(GraphKeys.COND_CONTEXT, proto_type=protos.CondContextDef,
                                   to_proto=CondContext.to_proto, from_proto=CondContext.from_proto)
meta_graph.register_proto_function(GraphKeys.WHILE_CONTEXT, proto_type=protos.WhileContextDef,
                                   to_proto=WhileContext.to_proto, from_proto=WhileContext.from_proto)
