"""`tf.while_loop` as TF2 builds it (one `While`, or `StatelessWhile` when neither function is stateful, over
functions `<scope>_cond_<uid>` and `<scope>_body_<uid>`), and the gradient of those ops.

The loop variables of the op are TF's: a loop counter, the iteration bound (-1: none), the flattened user
loop variables, then the outer tensors the body (or the condition) captured, which the body passes on
unchanged; each output passes through an Identity outside a function, as TF's.

The gradient keeps each iteration's loop variables in a TensorList (one accumulator per variable the body
changes, a `TensorListPushBack` per iteration), as TF's while_v2 keeps intermediates: a forward While run
again with the accumulators (TF adds them to the forward op itself), then a backward While popping them in
reverse order and back-propagating through one `body` at each iteration's values. That costs O(n) body runs
and memory for n iterations; the values are TF's for a body whose runs repeat (no random or other stateful
ops).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes, function_def, importer, nest, tensor_shape
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph, name_scope
from tensorweave.framework.type_spec import TensorSpec
from tensorweave.ops import constant_ops, def_function, fill_ops, gradients, list_ops, manipulation_ops
from tensorweave.ops.control_flow_ops import V2_BUILDERS, _shape_less_than_or_equal
from tensorweave.ops.elementwise_ops import less, logical_and
from tensorweave.ops.function_ops import function_name
from tensorweave.ops.functional_control_ops import StatelessWhile, While
from tensorweave.ops.shape_ops import squeeze
from tensorweave.ops.tensor_array_ops import TensorArray, build_ta_with_new_flow


def _to_flow(value: Any) -> Any:
    """A TensorArray crosses the loop as its flow tensor."""
    return value.flow if isinstance(value, TensorArray) else value


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, maximum_iterations: Any = None, name: str | None = None,
               return_same_structure: bool = True, back_prop: bool = True) -> Any:
    """Repeat `body` while `cond` is true, as one functional While op (TF2's `tf.while_loop`)."""
    originals = loop_vars
    flat_originals = nest.flatten(originals)
    flat = [convert_to_tensor(_to_flow(v)) for v in flat_originals]
    invariants = [t.shape for t in flat] if shape_invariants is None else [
        tensor_shape.as_shape(s) for s in nest.flatten(shape_invariants)]
    outer = get_default_graph()
    with name_scope(name or "while") as scope:
        prefix = scope.replace("/", "_")
        cond_name, body_name = (f"{prefix}{label}_{next(def_function.uids)}" for label in ("cond", "body"))
        bound = convert_to_tensor(-1 if maximum_iterations is None else maximum_iterations, dtype=dtypes.int32,
                                  name="maximum_iterations")
        counter = constant_ops.constant(0, name="loop_counter")
        specs = [TensorSpec([], dtypes.int32)] * 2 + [TensorSpec(s, t.dtype.base_dtype)
                                                      for s, t in zip(invariants, flat)]
        arg_names = ["loop_counter", "maximum_iterations"] + ["placeholder"] * len(flat)

        def pack(args: Sequence[Tensor]) -> list[Any]:
            return nest.pack_sequence_as(originals, [
                build_ta_with_new_flow(o, a) if isinstance(o, TensorArray) else a
                for o, a in zip(flat_originals, args)])

        def wrapped_cond(i: Tensor, n: Tensor, *args: Tensor) -> Tensor:
            pred = convert_to_tensor(cond(*pack(args)))
            if pred.shape.ndims is None or pred.shape.ndims:
                pred = squeeze(pred)
            return pred if maximum_iterations is None else logical_and(i < n, pred)

        cond_fn = def_function.trace(wrapped_cond, cond_name, specs, arg_names, specs)

        def wrapped_body(i: Tensor, n: Tensor, *args: Tensor) -> list[Any]:
            for t in cond_fn.graph.external_captures:
                get_default_graph().capture(t)
            results = body(*pack(args))
            if not nest.is_nested(results):
                results = [results]
            nest.assert_same_structure(results, originals, check_types=False)
            return [i + 1, n] + [_to_flow(r) for r in nest.flatten(results)]

        body_fn = def_function.trace(wrapped_body, body_name, specs, arg_names, specs)
        cond_graph, body_graph = cond_fn.graph, body_fn.graph
        captured = body_graph.external_captures
        for t in captured[len(cond_graph.external_captures):]:
            cond_graph.capture(t)
        with body_graph.as_default():
            body_graph.outputs.extend(manipulation_ops.identity(p) for _, p in body_graph.captures)
        for out, shape, t in zip(body_graph.outputs[2:], invariants, flat):
            if not _shape_less_than_or_equal(out.shape, shape):
                raise ValueError(
                    f"Input tensor `{t.name}` enters the loop with shape {shape}, but has shape {out.shape} after "
                    "one iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
                    "argument of tf.while_loop to specify a less-specific shape.")
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


def _passed_on(body: str) -> set[int]:
    """The loop variables library function `body` returns unchanged (through Identities only): they need no
    accumulator."""
    graph = function_def.function_def_to_body(get_default_graph()._get_function(body).definition)
    nodes = {n.name: n for n in graph.node}
    same = set()
    for node in graph.node:
        if node.op != "_Retval":
            continue
        source = nodes.get(node.input[0].split(":")[0])
        while source is not None and source.op == "Identity":
            source = nodes.get(source.input[0].split(":")[0])
        if source is not None and source.op == "_Arg" and source.attr["index"] == node.attr["index"]:
            same.add(node.attr["index"])
    return same


def _while_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    """Gradients of the loop's initial values (None for those that are not floating)."""
    cond, body = function_name(op._node_def.attr["cond"]), function_name(op._node_def.attr["body"])
    x0 = list(op.inputs)
    count = len(x0)
    floating = [i for i, x in enumerate(x0) if x.dtype.is_floating]
    if not floating:
        return [None] * count
    specs = [TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype.base_dtype)
             for x, y in zip(x0, op.outputs)]
    index, handle = TensorSpec([], dtypes.int32), TensorSpec([], dtypes.variant)
    kept = [i for i in range(count) if i not in _passed_on(body)]
    fixed = [i for i in range(count) if i not in kept]
    lists = [list_ops.empty_tensor_list(specs[i].shape, specs[i].dtype) for i in kept]

    def accumulate(n: Tensor, *rest: Tensor) -> list[Tensor]:
        xs, accumulators = rest[:count], rest[count:]
        pushed = [list_ops.TensorListPushBack(a, xs[i]) for a, i in zip(accumulators, kept)]
        return [n + 1] + _inline(body, xs) + pushed

    accumulated = While([constant_ops.constant(0)] + x0 + lists, cond=_library_function(
        lambda n, *rest: _inline(cond, rest[:count]), [index] + specs + [handle] * len(kept)),
        body=_library_function(accumulate, [index] + specs + [handle] * len(kept)))
    iterations, lists = accumulated[0], accumulated[1 + count:]

    def back_step(j: Tensor, bound: Tensor, total: Tensor, *rest: Tensor) -> list[Any]:
        split = len(floating) + len(kept)
        dys, accumulators, constants = rest[:len(floating)], rest[len(floating):split], rest[split:]
        xs: list[Any] = [None] * count
        popped = []
        for a, i in zip(accumulators, kept):
            a, xs[i] = list_ops.tensor_list_pop_back(a, specs[i].dtype, specs[i].shape)
            popped.append(a)
        for c, i in zip(constants, fixed):
            xs[i] = c
        ys = _inline(body, xs)
        dxs = gradients.gradients([ys[i] for i in floating], [xs[i] for i in floating], grad_ys=list(dys))
        new = [fill_ops.zeros_like(xs[i]) if dx is None else convert_to_tensor(dx) for i, dx in zip(floating, dxs)]
        return [j + 1, bound, total] + new + popped + list(constants)

    dys = [fill_ops.zeros_like(op.outputs[i]) if grads[i] is None else convert_to_tensor(grads[i]) for i in floating]
    bound = x0[1] if count > 1 and x0[1].dtype == dtypes.int32 else constant_ops.constant(-1)
    loop_specs = [index] * 3 + [specs[i] for i in floating] + [handle] * len(kept) + [specs[i] for i in fixed]
    backward = While([constant_ops.constant(0, name="grad_counter"), bound, iterations] + dys + lists +
                     [x0[i] for i in fixed], cond=_library_function(lambda j, n, total, *rest: [less(j, total)],
                                                                    loop_specs),
                     body=_library_function(back_step, loop_specs), name="while_grad")
    with name_scope(backward[0].op.name.rsplit("/", 1)[0] + "/"):
        backward = [manipulation_ops.identity(t) for t in backward]
    by_input = dict(zip(floating, backward[3:]))
    return [by_input.get(i) for i in range(count)]


While.gradient(_while_grad)
StatelessWhile.gradient(_while_grad)
V2_BUILDERS["while_loop"] = while_loop
