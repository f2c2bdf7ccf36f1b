"""`tf.while_loop` as TF2 builds it (one `While`, or `StatelessWhile` when neither function is stateful, over
functions `<scope>_cond_<uid>` and `<scope>_body_<uid>`), and the gradient of those ops.

The loop variables of the op are TF's: a loop counter, the iteration bound (-1: none), the flattened user
loop variables, then the outer tensors the body (or the condition) captured, which the body passes on
unchanged; each output passes through an Identity outside a function, as TF's.

The gradient is TF's while_v2 gradient. A forward view inlines the body on placeholders and `tf.gradients`
through it builds the backward body; each forward value that body reads becomes a `TensorListPopBack` from
an accumulator (a constant is copied instead), and the forward op is rewritten in place, once per gradient
that needs new values, so that its body pushes each of them with `TensorListPushBack` every iteration. The
backward While runs as many iterations as the lists hold, popping in reverse order: O(n) work and memory for
n iterations, no forward op run twice (a random or stateful body differentiates as it ran). A session that
already holds the forward op keeps its old copy, so a gradient built after a run fails there, as in TF.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes, function_def, importer, nest, tensor_shape
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph, name_scope
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import TensorSpec, composite_tensor_spec
from tensorweave.ops import (
    cond_v2,
    constant_ops,
    control_flow_ops,
    def_function,
    fill_ops,
    gradients,
    list_ops,
    manipulation_ops,
)
from tensorweave.ops.elementwise_ops import less, logical_and
from tensorweave.ops.function_ops import function_name
from tensorweave.ops.functional_control_ops import StatelessWhile, While
from tensorweave.ops.shape_ops import squeeze


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, maximum_iterations: Any = None, name: str | None = None,
               return_same_structure: bool = True, back_prop: bool = True) -> Any:
    """Repeat `body` while `cond` is true, as one functional While op (TF2's `tf.while_loop`)."""
    len(loop_vars)  # TF counts the loop variables first: a lone tensor fails here, before any name is taken
    for _ in range(2):  # TF converts variables, then to tensors: each rebuilds a composite (a name scope each)
        loop_vars = nest.map_structure(lambda v: SparseTensor(v.indices, v.values, v.dense_shape)
                                       if isinstance(v, SparseTensor) else v, loop_vars)
    originals = loop_vars
    flat_originals = nest.flatten(originals)
    parts = [control_flow_ops._components(v) for v in flat_originals]  # a SparseTensor's three (expand_composites)
    flat = [t for p in parts for t in p]
    if shape_invariants is not None:  # TF maps the invariants over the converted loop variables
        nest.assert_same_structure(nest.pack_sequence_as(originals, [
            v if composite_tensor_spec(v) is not None else p[0] for v, p in zip(flat_originals, parts)]), shape_invariants,
            check_types=False)
    given = [None] * len(flat_originals) if shape_invariants is None else [
        tensor_shape.as_shape(s) for s in nest.flatten(shape_invariants)]
    invariants = [s for v, p, g in zip(flat_originals, parts, given) for s in (
        control_flow_ops._component_invariants(v, g) if composite_tensor_spec(v) is not None else [p[0].shape if g is None
                                                                                           else g])]
    outer = get_default_graph()
    with name_scope(name or "while") as scope:
        prefix = scope.replace("/", "_")
        cond_name, body_name = (f"{prefix}{label}_{next(def_function.uids)}" for label in ("cond", "body"))
        bound = convert_to_tensor(-1 if maximum_iterations is None else maximum_iterations, dtype=dtypes.int32,
                                  name="maximum_iterations")
        counter = constant_ops.constant(0, name="loop_counter")
        specs = [TensorSpec([], dtypes.int32)] * 2 + [TensorSpec(s, t.dtype.base_dtype)
                                                      for s, t in zip(invariants, flat)]
        arg_names = ["loop_counter", "maximum_iterations"] + ["Placeholder"] * len(flat)
        input_names = [counter.op.name, bound.op.name] + ["Placeholder"] * len(flat)  # TF's specs are named so

        def pack(args: Sequence[Tensor]) -> list[Any]:
            return nest.pack_sequence_as(originals, control_flow_ops._from_components(flat_originals, list(args)))

        def wrapped_cond(i: Tensor, n: Tensor, *args: Tensor) -> Tensor:
            flat_pred = nest.flatten(cond(*pack(args)))
            if len(flat_pred) != 1:  # TF's check of the traced cond function's outputs
                raise AssertionError(f"cond_graph has {len(flat_pred)} outputs; Expected: 1")
            pred = convert_to_tensor(flat_pred[0])
            if pred.shape.ndims is None or pred.shape.ndims:
                pred = squeeze(pred)
            return pred if maximum_iterations is None else logical_and(i < n, pred)

        cond_fn = def_function.trace_body(wrapped_cond, cond_name, specs, arg_names, specs, input_names)

        def wrapped_body(i: Tensor, n: Tensor, *args: Tensor) -> list[Any]:
            for t in cond_fn.graph.external_captures:
                get_default_graph().capture(t)
            results = body(*pack(args))
            if not nest.is_nested(results):
                results = [results]
            nest.assert_same_structure(results, originals, check_types=False, expand_composites=True)
            return [i + 1, n] + [t for r in nest.flatten(results) for t in control_flow_ops._components(r)]

        body_fn = def_function.trace_body(wrapped_body, body_name, specs, arg_names, specs, input_names)
        cond_graph, body_graph = cond_fn.graph, body_fn.graph
        captured = body_graph.external_captures
        redundant = cond_graph.unique_name(f"{cond_name}___redundant_placeholder")  # TF's prefix for them
        for k, t in enumerate(captured[len(cond_graph.external_captures):]):
            cond_graph.capture(t, f"{redundant}{k}")
        body_graph.outputs.extend(p for _, p in body_graph.captures)
        for out, shape, t in zip(body_graph.outputs[2:], invariants, flat):
            if not control_flow_ops._shape_less_than_or_equal(out.shape, shape):
                raise ValueError(
                    f"Input tensor `{t.name}` enters the loop with shape {shape}, but has shape {out.shape} after "
                    "one iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
                    "argument of tf.while_loop to specify a less-specific shape.")
        for out, t in zip(body_graph.outputs[2:], flat):
            if out.dtype.base_dtype != t.dtype.base_dtype:
                raise TypeError(f"Loop var {t.name} enters the loop with type <dtype: '{t.dtype.base_dtype.name}'> but "
                                f"has type <dtype: '{out.dtype.base_dtype.name}'> after 1 iteration. {t.name} type "
                                "should remain constant.")
        for graph, fname in ((cond_graph, cond_name), (body_graph, body_name)):
            def_function.add_to_library(graph, fname, outer)
        inputs = [counter, bound] + flat + captured
        shapes = [t.shape for t in body_graph.outputs]
        shapes[2:2 + len(flat)] = invariants
        stateful = def_function.is_stateful(cond_graph) or def_function.is_stateful(body_graph)
        outputs = (While if stateful else StatelessWhile)(
            inputs, cond=cond_name, body=body_name, output_shapes=shapes, parallel_iterations=parallel_iterations,
            name=scope)
        op = outputs[0].op
        op._set_attr("_lower_using_switch_merge", True)
        op._set_attr("_read_only_resource_inputs", [])
        op._set_attr("_num_original_outputs", len(outputs))
        for graph in (cond_graph, body_graph):
            def_function.add_control_captures(graph, op)
        for t, shape in zip(outputs, shapes):
            t.set_shape(shape)
        if not isinstance(outer, FuncGraph):
            with name_scope(op.name + "/"):
                outputs = [manipulation_ops.identity(t) for t in outputs]
    results = outputs[2:2 + len(flat)]
    if not back_prop:
        results = [manipulation_ops.stop_gradient(t) for t in results]
    packed = pack(results)
    if return_same_structure:
        return packed
    flat_results = nest.flatten(packed)
    return flat_results[0] if len(flat_results) == 1 else packed


def _library_function(fn: Callable[..., Sequence[Any]], specs: Sequence[TensorSpec]) -> str:
    """`fn` traced on placeholders of `specs` into the default graph's library; its name."""
    name = f"__inference_while_grad_{next(def_function.uids)}"
    concrete = def_function.trace(fn, name, list(specs), [f"arg{i}" for i in range(len(specs))], list(specs))
    def_function.add_to_library(concrete.graph, name, get_default_graph())
    return name


def _inline(name: str, args: Sequence[Tensor]) -> list[Tensor]:
    return importer.inline_function_body(get_default_graph(), name, list(args))


def _inline_ops(name: str, args: Sequence[Tensor]) -> tuple[list[Tensor], list[Operation]]:
    """`_inline`, and the ops it added in the order it added them (the same for every inline of `name`)."""
    graph = get_default_graph()
    start = len(graph._operations)
    results = _inline(name, args)
    return results, graph._operations_since(start)


class _Rewrite:
    """What rewriting a forward While for its gradients recorded: its loop variables and body before the
    first rewrite, the values its body pushes (each as (op index in an inline of that body, output index), a
    negative index -1-i for loop variable i), the op's outputs holding their lists, the inner loops of the
    body that their own gradients rewrote (by op index), and the ops its gradients moved into it (built after
    the inlined ones, in order)."""

    def __init__(self, count: int, body: str) -> None:
        self.count = count
        self.body = body
        self.pushed: list[tuple[int, int]] = []
        self.specs: list[TensorSpec] = []
        self.lists: list[Tensor] = []
        self.inner: dict[int, Operation] = {}
        self.moved: list[tuple[str, str, dict[str, Any], list[tuple[int, int]]]] = []


_REWRITES: weakref.WeakKeyDictionary[Operation, _Rewrite] = weakref.WeakKeyDictionary()


def _rewrite(op: Operation) -> _Rewrite:
    if op not in _REWRITES:
        _REWRITES[op] = _Rewrite(len(op.inputs), function_name(op._node_def.attr["body"]))
    return _REWRITES[op]


def _push(op: Operation, record: _Rewrite, pushed: Sequence[tuple[int, int]], specs: Sequence[TensorSpec]) -> None:
    """Make the forward op accumulate `pushed` too: new lists as loop variables, and a body that inlines the
    original one and pushes every recorded value onto its list (TF's while_v2 rewrites its forward op so)."""
    if not pushed:
        return
    record.pushed += pushed
    record.specs += specs
    count, body, values = record.count, record.body, list(record.pushed)
    cond = function_name(op._node_def.attr["cond"])
    old = len(op.inputs)
    graph = op.graph
    # A loop tf.while_loop built (here or in TF) has its iteration bound as loop variable 1: no list outgrows it.
    bound = op.inputs[1] if "_num_original_outputs" in op._node_def.attr and count > 1 else None
    with graph.as_default(), graph.control_dependencies(None):
        lists = [list_ops.empty_tensor_list(spec.shape, spec.dtype, bound, name=f"{spec.name}/accumulator")
                 for spec in specs]
    loop_specs = [TensorSpec(t.shape, t.dtype.base_dtype) for t in op.inputs[:count]] + \
        [TensorSpec([], dtypes.variant)] * (old - count + len(lists))
    inner, moved = dict(record.inner), list(record.moved)

    def pushing_body(*args: Tensor) -> list[Tensor]:
        ys, ops = _inline_ops(body, args[:count])
        for index, rewritten in inner.items():
            _replay(ops[index], rewritten)
        _build_moved(ops, moved, args)
        sources = [args[-1 - k] if k < 0 else ops[k].outputs[j] for k, j in values]
        return ys + [list_ops.TensorListPushBack(a, v) for a, v in zip(args[count:], sources)]

    with graph.as_default():
        op._set_attr("cond", _library_function(lambda *args: _inline(cond, args[:old]), loop_specs))  # its args now
        op._set_attr("body", _library_function(pushing_body, loop_specs))
    op._set_attr("T", list(op._node_def.attr["T"]) + [dtypes.variant] * len(lists))
    if op._node_def.attr.get("output_shapes"):
        op._set_attr("output_shapes", list(op._node_def.attr["output_shapes"]) +
                     [tensor_shape.TensorShape([])] * len(lists))
    outputs = op._add_loop_variables(lists)
    for t in outputs:
        t.set_shape([])
    record.lists += outputs


def _add_with_callees(graph: Any, source: Any, name: str) -> None:
    """Add function `name` of `source`'s library, and those it calls however deep (a rewritten branch calls
    the rewritten branches of the conditionals nested in it), to `graph`'s library."""
    function = source._get_function(name)
    graph._add_function(function)
    library = {n: f.definition for n, f in source._functions.items()}
    for definition in function_def.reachable_definitions(function.definition.node_def, library):
        graph._add_function(source._get_function(definition.signature.name))


def _replay(copy: Operation, rewritten: Operation) -> None:
    """Rewrite `copy` (an inner loop or conditional of a pushing body) as `rewritten`, its twin in a forward
    view, was."""
    if rewritten.type in cond_v2.SELECTING_OPS:
        names = ["branches"] if "branches" in rewritten._node_def.attr else ["then_branch", "else_branch"]
        for name in names + ["Tout", "output_shapes"]:
            copy._set_attr(name, rewritten._node_def.attr[name])
        for name in names:
            for f in (rewritten._node_def.attr[name] if name == "branches" else [rewritten._node_def.attr[name]]):
                _add_with_callees(copy.graph, rewritten.graph, function_name(f))
        for t, twin in zip(copy._add_outputs([t.dtype for t in rewritten.outputs[len(copy.outputs):]]),
                           rewritten.outputs[len(copy.outputs):]):
            t.set_shape(twin.shape)
        return
    record = _REWRITES[rewritten]
    for name in ("cond", "body", "T", "output_shapes"):
        copy._set_attr(name, rewritten._node_def.attr[name])
    for name in ("cond", "body"):
        _add_with_callees(copy.graph, rewritten.graph, function_name(rewritten._node_def.attr[name]))
    with copy.graph.control_dependencies(None):
        lists = [list_ops.empty_tensor_list(spec.shape, spec.dtype) for spec in record.specs]
    for t in copy._add_loop_variables(lists):
        t.set_shape([])


def _build_moved(ops: list[Operation], moved: Sequence[tuple[str, str, dict[str, Any], list[tuple[int, int]]]],
                 args: Sequence[Tensor]) -> None:
    """Build the ops gradients moved into the forward body after its inlined `ops` (on loop variables
    `args`), appending them to `ops`."""
    graph = get_default_graph()
    for op_type, name, attrs, keys in moved:
        inputs = [args[-1 - k] if k < 0 else ops[k].outputs[j] for k, j in keys]
        ops.append(graph.create_op(op_type, inputs, name=name, attrs=attrs))


def _passes_on(y: Tensor, x: Tensor) -> bool:
    """Whether body result `y` is its argument `x` through Identities only."""
    while y.op.type == "Identity" and y is not x:
        y = y.op.inputs[0]
    return y is x


# Ops of forward values that the backward body builds in the forward body instead (TF's while_v2 moves them
# so): the loop accumulates their small results, not their inputs.
_MOVED_TO_FORWARD = frozenset(("Shape", "Size", "Rank", "TensorListElementShape", "TensorListLength"))


class _GradientBody(FuncGraph):
    """The body of a backward While: a forward tensor of one iteration it reads (one of the forward view's,
    an inline of the forward body) becomes a pop from an accumulator the forward loop filled, a copy of a
    constant, or for a loop variable the body passes on unchanged the forward op's output; the tensors of
    other graphs it reads are captured as any function's. A shape-like op of forward values that no
    accumulator holds yet is built in the forward view (and recorded, for the forward body to build too)."""

    def __init__(self, name: str, outer: Any, forward: FuncGraph, ops: list[Operation], locate: dict[Operation, int],
                 invariants: dict[Operation, Tensor], pushed: Sequence[tuple[int, int]]) -> None:
        super().__init__(name, outer)
        self.pushed = set(pushed)  # what the forward loop accumulates already (an earlier gradient's)
        self._functions = dict(outer._functions)
        self.forward = forward
        self.ops = ops
        self.locate = locate
        self.invariants = invariants
        self.popped: dict[Any, Tensor] = {}
        self.accumulated: set[Any] = set()
        self.accumulators: list[tuple[tuple[int, int], TensorSpec, Tensor, Tensor]] = []  # key, spec, arg, rest
        self.moved: list[tuple[str, str, dict[str, Any], list[tuple[int, int]]]] = []  # type, name, attrs, inputs

    def _create_op_from_node_def(self, node_def: NodeDef, inputs: list[Tensor], output_types: list[dtypes.DType],
                                 op_def: Any = None, control_inputs: Any = (), defer_control_flow: bool = False
                                 ) -> Operation:
        if node_def.op in _MOVED_TO_FORWARD and inputs and all(
                t.graph is self.forward and t.op in self.locate and t.ref() not in self.accumulated and
                (self.locate[t.op], t.value_index) not in self.pushed for t in inputs):
            node_def.name = self.forward.unique_name(node_def.name)
            op = self.forward._create_op_from_node_def(node_def, inputs, output_types, op_def)
            self.moved.append((op.type, op.name, dict(op._node_def.attr),
                               [(self.locate[t.op], t.value_index) for t in inputs]))
            self.locate[op] = len(self.ops)
            self.ops.append(op)
            return op
        return super()._create_op_from_node_def(node_def, inputs, output_types, op_def, control_inputs,
                                                defer_control_flow)

    def capture(self, tensor: Tensor, name: str | None = None) -> Tensor:
        if tensor.graph is not self.forward:
            return super().capture(tensor, name)
        known = self.popped.get(tensor.ref())
        if known is not None:
            return known
        if tensor.op in self.invariants:  # the same every iteration: the forward op's output, captured
            self.popped[tensor.ref()] = super().capture(self.invariants[tensor.op], name)
            return self.popped[tensor.ref()]
        with self.as_default(), self.control_dependencies(None), self.name_scope(None):
            if tensor.op.type == "Const":
                value = self.create_op("Const", [], name=tensor.op.name,
                                       attrs=dict(tensor.op._node_def.attr)).outputs[0]
            else:
                self.accumulated.add(tensor.ref())
                spec = TensorSpec(tensor.shape, tensor.dtype.base_dtype, tensor.name.replace(":", "_"))
                accumulator = constant_ops.placeholder(dtypes.variant, [], name="accumulator")
                rest, value = list_ops.tensor_list_pop_back(accumulator, spec.dtype, spec.shape)
                self.accumulators.append(((self.locate[tensor.op], tensor.value_index), spec, accumulator, rest))
        self.popped[tensor.ref()] = value
        return value


def _default_zeros(grad: Any, output: Tensor) -> bool:
    """Whether `grad` is the zeros `tf.gradients` gives an output no gradient reached (an accumulator of the
    loop that an earlier gradient added, when another gradient of the loop is taken): TF passes its
    intermediates None."""
    return isinstance(grad, Tensor) and grad.op.type == "ZerosLike" and grad.op.inputs[0] is output


def _while_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    """Gradients of the loop's initial values: of the floating ones, of TensorLists and of variable handles (the gradient of
    the variable the body reads), None for the others and for accumulators.

    A forward view inlines the body on placeholders; `tf.gradients` through it builds the backward body,
    which reads each forward value it needs from an accumulator: no forward op runs again. An accumulator
    that a gradient reached (a backward loop read it: a second derivative) has its gradient, a list of one
    value's gradients per iteration, popped in the backward body as the gradient of the value it pushed."""
    record = _rewrite(op)
    count = record.count
    x0 = list(op.inputs)[:count]
    sources = {i: control_flow_ops.variable_handle_source(x) for i, x in enumerate(x0) if x.dtype == dtypes.resource}
    floating = [i for i, x in enumerate(x0)
                if x.dtype.is_floating or x.dtype == dtypes.variant or sources.get(i) is not None]
    if not floating:
        return [None] * len(op.inputs)
    list_grads = [(m, grad) for m, grad in enumerate(grads[count:count + len(record.lists)])
                  if grad is not None and not _default_zeros(grad, op.outputs[count + m])]
    specs = [TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype.base_dtype)
             for x, y in zip(x0, op.outputs)]
    dy_specs = [TensorSpec(sources[i].get_attr("shape"), sources[i].get_attr("dtype")) if i in sources else specs[i]
                for i in floating]
    outer = get_default_graph()
    forward = FuncGraph("forward", outer)
    forward._functions = dict(outer._functions)
    with forward.as_default():
        built = "_num_original_outputs" in op._node_def.attr  # by tf.while_loop: named as its body's arguments
        names = ["loop_counter", "maximum_iterations"] + ["Placeholder"] * (count - 2) if built and count > 1 else \
            ["placeholder"] * count
        xs = [constant_ops.placeholder(s.dtype, s.shape, name=n) for s, n in zip(specs, names)]
        for x, t in zip(xs, x0):
            forward.stand_for(x, t)
        ys, ops = _inline_ops(record.body, xs)
        _build_moved(ops, record.moved, xs)
    locate = {x.op: -1 - i for i, x in enumerate(xs)}
    locate.update((o, k) for k, o in enumerate(ops))
    name = f"{op.name.replace('/', '_')}_body_grad_{next(def_function.uids)}"
    counter = constant_ops.constant(0, name="grad_counter")
    invariants = {x.op: op.outputs[i] for i, (x, y) in enumerate(zip(xs, ys)) if _passes_on(y, x)}
    backward = _GradientBody(name, outer, forward, ops, locate, invariants, record.pushed)
    index = TensorSpec([], dtypes.int32)
    with backward.as_default():
        j, bound, total = (constant_ops.placeholder(dtypes.int32, [], name="placeholder") for _ in range(3))
        dys = [constant_ops.placeholder(s.dtype, s.shape, name="placeholder") for s in dy_specs]
        dlists = [constant_ops.placeholder(dtypes.variant, [], name="placeholder") for _ in list_grads]
        pops = [list_ops.tensor_list_pop_back(dlist, record.specs[m].dtype, record.specs[m].shape)
                for dlist, (m, _) in zip(dlists, list_grads)]
        pushed = [xs[-1 - k] if k < 0 else ops[k].outputs[j] for k, j in (record.pushed[m] for m, _ in list_grads)]
        dxs = gradients.gradients([ys[i] for i in floating] + pushed, [xs[i] for i in floating],
                                  grad_ys=dys + [element for _, element in pops],
                                  name=def_function.gradients_scope(outer))
        new = [fill_ops.zeros_like(dy) if dx is None else convert_to_tensor(dx) for dy, dx in zip(dys, dxs)]
        new = [backward.capture(t) if t.graph is forward else t for t in new]
        if not backward.accumulators and not record.lists and not built:  # something to count iterations by
            backward.capture(xs[0])
        accumulated = {a: key for key, _, a, _ in backward.accumulators}
        # the accumulators and captured outer tensors become loop variables in the order the body read them
        extras = sorted([(a, rest) for _, _, a, rest in backward.accumulators] +
                        [(p, p) for _, p in backward.captures], key=lambda pair: pair[0].op._id)
        outer_of = {p.op: t for t, p in backward.captures}
        backward.inputs = [j, bound, total] + dys + dlists + [a for a, _ in extras]
        results = [j + 1, bound, total] + new + [rest for rest, _ in pops] + [r for _, r in extras]
        backward.outputs = [manipulation_ops.identity(t) for t in results]
    for index_in_body, inner in enumerate(ops):
        if inner in _REWRITES and _REWRITES[inner].lists or cond_v2.rewritten(inner):
            record.inner[index_in_body] = inner
    record.moved += backward.moved
    known = dict(zip(record.pushed, record.lists))
    _push(op, record, [key for key, _, _, _ in backward.accumulators if key not in known],
          [spec for key, spec, _, _ in backward.accumulators if key not in known])
    known = dict(zip(record.pushed, record.lists))
    values = [known[accumulated[a]] if a in accumulated else outer_of[a.op] for a, _ in extras]
    iterations = op.outputs[0] if built else list_ops.TensorListLength(record.lists[0])
    def_function.add_to_library(backward, name, outer)
    loop_specs = [index] * 3 + dy_specs + [TensorSpec([], dtypes.variant)] * len(list_grads) + \
        [TensorSpec(t.shape, t.dtype.base_dtype) for t in values]
    cond = _library_function(lambda j, n, total, *rest: [less(j, total)], loop_specs)
    initial = [convert_to_tensor(grads[i]) if grads[i] is not None else control_flow_ops.zeros_for_resource(x0[i])
               if i in sources else fill_ops.zeros_like(op.outputs[i]) for i in floating]
    bound = x0[1] if count > 1 and x0[1].dtype == dtypes.int32 else constant_ops.constant(-1)
    loop = (While if def_function.is_stateful(backward) else StatelessWhile)(
        [counter, bound, iterations] + initial + [g for _, g in list_grads] + values, cond=cond, body=name,
        name=f"{op.name}_grad")
    loop = [manipulation_ops.identity(t) for t in loop]
    by_input = dict(zip(floating, loop[3:]))
    return [by_input.get(i) for i in range(len(op.inputs))]


While.gradient(_while_grad)
StatelessWhile.gradient(_while_grad)
control_flow_ops.V2_BUILDERS["while_loop"] = while_loop
