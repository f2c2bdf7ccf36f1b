"""Functional conditionals built as TF 2.21 builds them in graph mode: `indexed_case` (what `tf.switch_case`
makes, also under `disable_v2_behavior`) is one `StatelessCase` op (`Case` when a branch is stateful) whose
branches are functions of the library, and `cond_v2` (what `tf.cond` makes under control flow v2) one
`StatelessIf` (`If`); the gradient of either is the same op over its branches' gradient functions.

The gradient is TF 2.21's: each branch's gradient function (`<branch>_grad_<uid>`) differentiates the
branch graph itself; a forward value it reads is wrapped in an optional (OptionalFromValue) that the forward
branch returns as an extra output, the other branches returning an empty one (OptionalNone) in its place,
and the forward op is rewritten in place (`<branch>_rewritten`, more outputs), so that no forward op runs
twice (a random value differentiates as it was drawn). A session that already holds the forward op keeps its
old copy, as in TF.

Each branch is traced into a FuncGraph (`<scope>_branch<k>_<uid>`, `<scope>_true_<uid>`, `<scope>_false_<uid>`)
that shares the outer graph's collections. Every branch takes the same inputs: the union of the outer tensors
the branches captured, in the order they were first captured (a branch that does not read one takes it as a
dummy `Placeholder`, TF's).
The outputs of the op pass through an Identity each in the scope the op was named in, as TF's, with the most
specific shape compatible with every branch's.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes, function_def, importer, nest
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import composite_tensor_spec
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    dataset_ops,
    def_function,
    fill_ops,
    gradients,
    manipulation_ops,
    sequence_ops,
)
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.function_ops import function_name
from tensorweave.ops.functional_control_ops import Case, If, StatelessCase, StatelessIf
from tensorweave.ops.shape_ops import shape_internal, squeeze
from tensorweave.ops.tensor_array_ops import TensorArray, TensorArraySpec, build_ta_with_new_flow


def _union_inputs(graphs: Sequence[FuncGraph]) -> list[Tensor]:
    """The outer tensors any graph captured, first captures first; each graph's `inputs` become
    placeholders for exactly these, in this order (a graph that did not capture one gets a dummy
    `Placeholder`, TF's `_create_dummy_input`)."""
    outer: dict[Any, Tensor] = {}
    for graph in graphs:
        for tensor, _ in graph.captures:
            outer.setdefault(tensor.ref(), tensor)
    tensors = list(outer.values())
    for graph in graphs:
        own = [t for t in graph.inputs if all(t is not p for _, p in graph.captures)]
        graph.inputs = own + [graph.capture(t, "Placeholder") for t in tensors]
    return tensors


def _check_same_outputs(graphs: Sequence[FuncGraph], structures: Sequence[Any], is_if: bool) -> None:
    """TF's check that every branch returns the same structure of the same dtypes (cond_v2's); a different
    number of results fails first, on TF's assert in _make_indexed_slices_indices_types_match, then an
    IndexedSlices against another kind of result."""
    counts = [len(nest.flatten(s)) for s in structures]
    if len(set(counts)) != 1:
        raise AssertionError(counts)
    for k, outs in enumerate(zip(*(nest.flatten(s) for s in structures))):
        if len({isinstance(out, IndexedSlices) for out in outs}) != 1:
            raise TypeError(f"Cannot reconcile tf.{'cond' if is_if else 'switch_case'} {k}-th outputs:\n"
                            f"  branches returned: {outs}")
    first = "true_fn" if is_if else "branches[0]"
    for k in range(1, len(graphs)):
        detail = None
        try:
            nest.assert_same_structure(structures[0], structures[k], expand_composites=True)
        except (ValueError, TypeError) as e:
            detail = str(e)
        if detail is None and len(graphs[0].outputs) != len(graphs[k].outputs):
            raise ValueError(f"Lengths of branch outputs of {'cond' if is_if else 'case'} must match.\n"
                             f"len(graphs[0].outputs): {len(graphs[0].outputs)}\n"
                             f"len(graphs[{k}].outputs): {len(graphs[k].outputs)}\n")
        for a, b in zip(graphs[0].outputs, graphs[k].outputs):
            if detail is None and a.dtype != b.dtype:
                detail = f"{a} and {b} have different types"
        if detail is not None:
            other = "false_fn" if is_if else f"branches[{k}]"
            raise TypeError(
                f"{first} and {other} arguments to {'tf.cond' if is_if else 'tf.switch_case'} must have the same "
                f"number, type, and overall structure of return values.\n\n{first} output: {structures[0]}\n"
                f"{other} output: {structures[k]}\n\nError details:\n{detail}")


def _build_case(branch_index: Tensor, graphs: Sequence[FuncGraph], names: Sequence[str], inputs: Sequence[Tensor],
                structures: Sequence[Any], name: str | None, is_if: bool = False, op_name: str | None = None,
                returned: Sequence[Any] | None = None) -> Any:
    """The Case (an If on a condition, with `is_if`) of these branch graphs on `inputs`, its outputs through
    an Identity each (in scope `name`), in the first branch's structure (`structures`: each branch's); the op
    is named `op_name` (default `name`); `returned`: what the branches returned, composites unexpanded, to check."""
    outer = get_default_graph()
    _check_same_outputs(graphs, structures if returned is None else returned, is_if)
    for graph, fname in zip(graphs, names):
        def_function.add_to_library(graph, fname, outer)
    shapes = []
    for i, t in enumerate(graphs[0].outputs):
        shape = t.shape
        for g in graphs[1:]:
            shape = shape.most_specific_compatible_shape(g.outputs[i].shape)
        shapes.append(shape)
    stateful = any(def_function.is_stateful(g) for g in graphs)
    tout = [t.dtype for t in graphs[0].outputs]
    if is_if:
        outputs = (If if stateful else StatelessIf)(branch_index, list(inputs), Tout=tout, then_branch=names[0],
                                                    else_branch=names[1], output_shapes=shapes, name=op_name or name)
    else:
        outputs = (Case if stateful else StatelessCase)(branch_index, list(inputs), Tout=tout, branches=list(names),
                                                        output_shapes=shapes, name=op_name or name)
    structure = structures[0]
    if not outputs:
        return structure
    op = outputs[0].op
    _BRANCHES[op] = list(graphs)
    op._set_attr("_read_only_resource_inputs", [])
    op._set_attr("_lower_using_switch_merge", True)
    with name_scope(name) if name else contextlib.nullcontext():  # TF's: in the scope the op was named in
        results = []
        for t, shape in zip(outputs, shapes):
            t.set_shape(shape)
            results.append(manipulation_ops.identity(t))
    flat = iter(results)
    return nest.map_structure(lambda x: None if x is None else next(flat), structure)


def _trace_branches(fns: Sequence[Callable[[], Any]], names: Sequence[str], op_return_value: Tensor
                    ) -> tuple[list[Any], list[Any]]:
    """Each branch traced into its function returning its results' components (`_components`); the traces,
    and what each branch returned."""
    originals: list[Any] = []

    def returned_value(value: Any) -> Any:
        if isinstance(value, Operation):
            return _components(value, op_return_value)
        if value is None or isinstance(value, (Tensor, TensorArray)) or composite_tensor_spec(value) is not None:
            return value
        return convert_to_tensor(value)

    def branch(fn: Callable[[], Any]) -> Callable[[], Any]:
        def expanded() -> Any:  # an op returned counts as the tensor it becomes, a Python value the constant
            originals.append(nest.map_structure(returned_value, fn()))  # it becomes, as in TF's checks
            return nest.map_structure(lambda x: _components(x, op_return_value), originals[-1])
        return expanded

    return [def_function.trace_body(branch(fn), fname, [], [], []) for fn, fname in zip(fns, names)], originals


def _packed(original: Any, flat: Any) -> Any:
    """The op's results in the structure a branch returned: a SparseTensor or TensorArray made again of its
    components (in the op's scope, as TF's pack_sequence_as makes them)."""
    results = iter(nest.flatten(flat))
    return nest.pack_sequence_as(original, [
        SparseTensor(next(results), next(results), next(results)) if isinstance(x, SparseTensor) else
        IndexedSlices(next(results), next(results), None if x.dense_shape is None else next(results))
        if isinstance(x, IndexedSlices) else
        _tensor_array_out(x, next(results)) if isinstance(x, TensorArray) else
        _composite_out(composite_tensor_spec(x), results) if composite_tensor_spec(x) is not None else next(results)
        for x in nest.flatten(original)])


def _composite_out(spec: Any, results: Any) -> Any:
    """The composite (a RaggedTensor) `spec` describes, made of the next of the op's `results`."""
    return spec._from_components([next(results) for _ in spec._component_specs])


def indexed_case(branch_index: Tensor, branch_fns: Sequence[Callable[[], Any]], name: str = "indexed_case") -> Any:
    """The result of branch `branch_index` (the last for an index out of range) as one Case op."""
    if branch_index.dtype != dtypes.int32:
        branch_index = cast(branch_index, dtypes.int32)
    with name_scope(name) as scope:
        prefix = function_def.normalized_name(scope.rstrip("/"))
        names = [f"{prefix}_branch{k}_{next(def_function.uids)}" for k in range(len(branch_fns))]
        traced, originals = _trace_branches(branch_fns, names, branch_index)
    graphs = [t.graph for t in traced]
    inputs = _union_inputs(graphs)
    flat = _build_case(branch_index, graphs, names, inputs, [t.structured_outputs for t in traced], scope,
                       returned=originals)
    with name_scope(scope):
        return _packed(originals[0], flat)


def cond_v2(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], name: str | None = None) -> Any:
    """`tf.cond` as TF2 builds it: one If (StatelessIf when no branch is stateful) on the branches traced
    into functions `<scope>_true_<uid>` and `<scope>_false_<uid>`, its outputs in the structure the branches
    return (a singleton list stays one)."""
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool", pred)
    with name_scope(name or "cond") as scope:
        prefix = scope.replace("/", "_")
        names = [f"{prefix}{label}_{next(def_function.uids)}" for label in ("true", "false")]
        pred = convert_to_tensor(pred)
        if pred.shape.ndims is None or pred.shape.ndims:
            pred = squeeze(pred)
        traced, originals = _trace_branches((true_fn, false_fn), names, pred)
    graphs = [t.graph for t in traced]
    inputs = _union_inputs(graphs)
    flat = _build_case(pred, graphs, names, inputs, [t.structured_outputs for t in traced], scope, is_if=True,
                       returned=originals)
    with name_scope(scope):
        return _packed(originals[0], flat)


def _tensor_array_out(branch_array: TensorArray, flow: Tensor) -> TensorArray:
    """The If's TensorArray: a TF2 array rebuilt from the true branch's spec (its size unknown, as TF's), a
    TF1 array the same handle at the new flow."""
    if isinstance(flow, Tensor) and flow.dtype == dtypes.variant:
        return TensorArraySpec.from_value(branch_array)._from_components([flow])
    return build_ta_with_new_flow(branch_array, flow)


def _components(value: Any, pred: Tensor) -> Any:
    """A branch's output as the If returns it: a SparseTensor as its three tensors, an IndexedSlices as its two
    or three, a TensorArray as its flow, an op as the condition once the op ran (TF's `op_return_value`)."""
    if isinstance(value, SparseTensor):
        return (value.indices, value.values, value.dense_shape)
    if isinstance(value, IndexedSlices):
        return (value.values, value.indices) + (() if value.dense_shape is None else (value.dense_shape,))
    if isinstance(value, TensorArray):
        return value.flow
    if composite_tensor_spec(value) is not None:  # a RaggedTensor: its flat values and row splits
        return tuple(composite_tensor_spec(value)._to_components(value))
    if isinstance(value, Operation):
        with get_default_graph().control_dependencies([value]):
            return manipulation_ops.identity(pred)
    return value


SELECTING_OPS = ("If", "StatelessIf", "Case", "StatelessCase")


def rewritten(op: Operation) -> bool:
    """Whether a gradient rewrote this If or Case to return intermediates (a loop body that inlines its
    function again must rewrite that copy alike)."""
    return op in _BRANCHES and len(op.outputs) > len(_BRANCHES[op][0].outputs) - sum(
        t.op.type in ("OptionalFromValue", "OptionalNone") for t in _BRANCHES[op][0].outputs)


# The branch graphs of each If and Case built here or differentiated (TF keeps them on the op): a gradient
# reads their intermediates and rewrites them to output those.
_BRANCHES: weakref.WeakKeyDictionary[Operation, list[FuncGraph]] = weakref.WeakKeyDictionary()


def _branch_graphs(op: Operation, names: Sequence[str]) -> list[FuncGraph]:
    """The op's branch graphs: those it was built from, else each function's body inlined into a new graph
    on placeholders named as its arguments (TF's get_func_graphs)."""
    if op not in _BRANCHES:
        graphs = []
        for fname in names:
            graph = FuncGraph(fname, op.graph)
            graph._functions = dict(op.graph._functions)
            signature = op.graph._get_function(fname).definition.signature
            with graph.as_default():
                graph.inputs = [constant_ops.placeholder(t.dtype.base_dtype, t.shape, name=arg.name)
                                for t, arg in zip(op.inputs[1:], signature.input_arg)]
                for placeholder, t in zip(graph.inputs, op.inputs[1:]):
                    graph.stand_for(placeholder, t)  # a variable's handle still leads to it (TF's handle data)
                graph.outputs = importer.inline_function_body(graph, fname, graph.inputs)
            graphs.append(graph)
        _BRANCHES[op] = graphs
    return _BRANCHES[op]


class _CondGradGraph(FuncGraph):
    """The gradient function of one branch (TF's _CondGradFuncGraph). A forward intermediate it reads is
    wrapped in an optional that the forward branch returns as an extra output (`needs_rewrite`), captured and
    unwrapped here; the other branches return an empty optional in its place, so no forward op runs twice.
    A forward constant is copied; the branch's inputs and results are captured as they are (and resolved to
    the op's inputs and outputs)."""

    def __init__(self, name: str, forward: FuncGraph, outer: Any) -> None:
        super().__init__(name, outer, collections=outer._collections)
        self._functions = dict(outer._functions)
        self.forward = forward
        self.needs_rewrite = False
        self.wrapped: dict[Any, Tensor] = {}  # forward intermediate -> its optional in the forward branch
        self.unwrapped: dict[Any, Tensor] = {}  # forward intermediate -> its value here

    def capture(self, tensor: Tensor, name: str | None = None) -> Tensor:
        forward = self.forward
        if tensor.graph is not forward or any(tensor is t for t in forward.inputs) or \
                any(tensor is t for t in forward.outputs):
            return super().capture(tensor, name)
        known = self.unwrapped.get(tensor.ref())
        if known is not None:
            return known
        scope = name[:-len(tensor.op.name) - 1] if name and name.endswith("/" + tensor.op.name) else ""
        with self.as_default(), self.control_dependencies(None), self.name_scope(None):
            if tensor.op.type == "Const":
                value = self.create_op("Const", [], name=f"{scope}/Const" if scope else "Const",
                                       attrs=dict(tensor.op._node_def.attr)).outputs[0]
            elif tensor.dtype == dtypes.resource:
                value = super().capture(_handle_input(tensor, forward), name)
            else:
                if tensor.ref() not in self.wrapped:
                    self.wrapped[tensor.ref()] = self._optional_of(tensor)
                captured = super().capture(self.wrapped[tensor.ref()], name)
                value = dataset_ops.OptionalGetValue(captured, output_types=[tensor.dtype.base_dtype],
                                                     output_shapes=[tensor.shape],
                                                     name=f"{scope}/OptionalGetValue" if scope else None)[0]
                value.set_shape(tensor.shape)
        self.unwrapped[tensor.ref()] = value
        return value

    def _optional_of(self, tensor: Tensor) -> Tensor:
        """`tensor` wrapped in an optional in the forward branch: one its results already hold (an earlier
        gradient's), else a new one."""
        for consumer in tensor.consumers():
            if consumer.type == "OptionalFromValue" and any(consumer.outputs[0] is t for t in self.forward.outputs):
                return consumer.outputs[0]
        self.needs_rewrite = True
        with self.forward.as_default(), self.forward.control_dependencies(None), self.forward.name_scope(None):
            return dataset_ops.OptionalFromValue([tensor])


def _handle_input(handle: Tensor, graph: FuncGraph) -> Tensor:
    """The input of `graph` a resource handle inside it passes on (through Identities), else the handle."""
    while not any(handle is t for t in graph.inputs) and handle.op.type == "Identity":
        handle = handle.op.inputs[0]
    return handle


def _grad_graph(op: Operation, forward: FuncGraph, grads: Sequence[Any]) -> tuple[_CondGradGraph, list[Any]]:
    """The gradient function of one branch on the op's output gradients, and its gradient of each branch
    input (None where none flows)."""
    outer = get_default_graph()
    graph = _CondGradGraph(f"{forward.name}_grad_{next(def_function.uids)}", forward, outer)
    pairs = [(y, g) for y, g in zip(forward.outputs, grads) if gradients.is_trainable(y) and g is not None]
    with graph.as_default():
        dxs = gradients.gradients([y for y, _ in pairs], list(forward.inputs), grad_ys=[g for _, g in pairs]) \
            if pairs else [None] * len(forward.inputs)
        # TF's trace returns an Identity of each (of each component of an IndexedSlices); zeros where only
        # another branch's flows come later
        return graph, [None if dx is None else _returned(dx) for dx in dxs]


def _returned(dx: Any) -> Any:
    if isinstance(dx, IndexedSlices):
        return IndexedSlices(*(None if t is None else manipulation_ops.identity(t)
                               for t in (dx.values, dx.indices, dx.dense_shape)))
    return manipulation_ops.identity(convert_to_tensor(dx))


def _match_composites(graphs: Sequence[FuncGraph], outputs: list[list[Any]]) -> None:
    """Make each branch's gradients of one input alike (TF's _make_output_composite_tensors_match and
    _make_indexed_slices_indices_types_match): where one branch's is an IndexedSlices, the others' dense ones
    become IndexedSlices of all their rows, and int32 indices become int64 where another branch's are."""
    for k, column in enumerate(zip(*outputs)):
        if not any(isinstance(t, IndexedSlices) for t in column):
            continue
        if any(isinstance(t, IndexedSlices) and t.dense_shape is None for t in column):
            for graph, outs in zip(graphs, outputs):
                with graph.as_default():
                    outs[k] = convert_to_tensor(outs[k])
            continue
        for graph, outs in zip(graphs, outputs):
            if not isinstance(outs[k], IndexedSlices):
                with graph.as_default():
                    shape = shape_internal(outs[k])
                    outs[k] = IndexedSlices(outs[k], sequence_ops.range(0, shape[0]), shape)
        if len({outs[k].indices.dtype for outs in outputs}) > 1:
            for graph, outs in zip(graphs, outputs):
                if outs[k].indices.dtype == dtypes.int32:
                    with graph.as_default():
                        outs[k] = IndexedSlices(outs[k].values, cast(outs[k].indices, dtypes.int64),
                                                outs[k].dense_shape)


def _zeros_for(x: Tensor) -> Tensor | None:
    """The zero gradient of branch input `x` where another branch's flows (TF's default_gradient.zeros_like)."""
    if x.dtype == dtypes.resource:
        return control_flow_ops.zeros_for_resource(x) if control_flow_ops.variable_handle_source(x) is not None \
            else None
    return fill_ops.zeros_like(x)


def _resolve(op: Operation, forward: FuncGraph, tensor: Tensor) -> Tensor:
    """What a gradient function's capture `tensor` reads at the op (TF's _resolve_grad_inputs): a branch
    input is the op's input, a branch result the op's output."""
    if tensor.graph is not forward:
        return tensor
    for i, t in enumerate(forward.outputs):
        if t is tensor:
            return op.outputs[i]
    return op.inputs[1 + next(i for i, t in enumerate(forward.inputs) if t is tensor)]


def _selected_grad(op: Operation, attr: str, grads: Sequence[Any], is_if: bool) -> list[Tensor | None]:
    """Gradients of a Case's or If's inputs, as TF's _IfGrad and _CaseGrad: the same op on the same index or
    condition over each branch's gradient function, which returns a gradient (zeros where only another
    branch's flows) of each branch input. The forward values those functions read are extra outputs of the
    forward op, its branches rewritten (`<branch>_rewritten`) to return them as optionals."""
    names = [function_name(op._node_def.attr[a]) for a in ("then_branch", "else_branch")] if is_if else \
        [function_name(b) for b in op._node_def.attr[attr]]
    forwards = _branch_graphs(op, names)
    built = [_grad_graph(op, forward, grads) for forward in forwards]
    graphs = [graph for graph, _ in built]
    returned = [i for i in range(len(op.inputs) - 1) if any(dxs[i] is not None for _, dxs in built)]
    outputs = []
    for (graph, dxs), forward in zip(built, forwards):
        with graph.as_default():
            outputs.append([dxs[i] if dxs[i] is not None else _zeros_for(forward.inputs[i]) for i in returned])
    if any(graph.needs_rewrite for graph in graphs):
        _rewrite(op, forwards, [list(graph.wrapped.values()) for graph in graphs], is_if)
    if not returned:
        return [None] * len(op.inputs)
    branch_inputs = [[_resolve(op, forward, t) for t in graph.external_captures]
                     for graph, forward in zip(graphs, forwards)]
    _match_composites(graphs, outputs)
    for graph, outs in zip(graphs, outputs):
        graph.outputs = [part for t in outs for part in
                         ((t.values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else (t,))]
    args = _match_inputs(graphs, branch_inputs)
    flat = iter(_build_case(op.inputs[0], graphs, [g.name for g in graphs], args,
                            [[0] * len(graphs[0].outputs)] * len(graphs), None, is_if,
                            op_name=None if is_if else "gradient"))  # TF's names
    results = [IndexedSlices(next(flat), next(flat), next(flat)) if isinstance(t, IndexedSlices) else next(flat)
               for t in outputs[0]]
    by_input = dict(zip(returned, results))
    return [None] + [by_input.get(i) for i in range(len(op.inputs) - 1)]


def _rewrite(op: Operation, forwards: Sequence[FuncGraph], optionals: Sequence[list[Tensor]], is_if: bool) -> None:
    """Make the forward op return `optionals` too: each branch returns its own, then empty optionals for the
    longest list's remaining places (TF's _make_intermediates_match); its branches renamed `_rewritten`."""
    size = max(len(o) for o in optionals)
    for forward, own in zip(forwards, optionals):
        with forward.as_default(), forward.control_dependencies(None), forward.name_scope(None):
            forward.outputs = forward.outputs + own + [dataset_ops.OptionalNone() for _ in range(size - len(own))]
        forward.name += "_rewritten"
        def_function.add_to_library(forward, forward.name, op.graph)
    if is_if:
        op._set_attr("then_branch", forwards[0].name)
        op._set_attr("else_branch", forwards[1].name)
    else:
        op._set_attr("branches", [forward.name for forward in forwards])
    old = len(op.outputs)
    op._set_attr("Tout", [t.dtype for t in forwards[0].outputs])
    op._set_attr("output_shapes", [t.shape for t in forwards[0].outputs])
    for t in op._add_outputs([dtypes.variant] * (len(forwards[0].outputs) - old)):
        t.set_shape([])


def _match_inputs(graphs: Sequence[FuncGraph], branch_inputs: Sequence[list[Tensor]]) -> list[Tensor]:
    """The union of the branches' outer inputs, first seen first; each graph's `inputs` become its
    placeholders for exactly these (a dummy `Placeholder` for one it does not read), TF's _make_inputs_match."""
    union: dict[int, Tensor] = {}
    for inputs in branch_inputs:
        for t in inputs:
            union.setdefault(id(t), t)
    for graph, inputs in zip(graphs, branch_inputs):
        params = {id(t): p for t, p in zip(inputs, graph.inputs)}
        with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
            graph.inputs = [params[key] if key in params else constant_ops.placeholder(t.dtype.base_dtype, t.shape)
                            for key, t in union.items()]
    return list(union.values())


def _case_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    return _selected_grad(op, "branches", grads, is_if=False)


def _if_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    return _selected_grad(op, "", grads, is_if=True)


Case.gradient(_case_grad)
StatelessCase.gradient(_case_grad)
If.gradient(_if_grad)
StatelessIf.gradient(_if_grad)
control_flow_ops.V2_BUILDERS["cond"] = cond_v2
