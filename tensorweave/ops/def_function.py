"""`tf.function` and `tf.compat.v1.wrap_function` in graph mode: Python functions traced into the library.

Calling a `Function` traces its Python function into a FuncGraph once per input signature (the dtypes and
shapes of its tensor arguments, and the values of its other arguments, as TF's tracing keys them), turns
that graph into a FunctionDef named `__inference_<name>_<uid>`, adds it to the caller's graph library, and
builds one `PartitionedCall` (`StatefulPartitionedCall` when the body has a stateful op) on the tensor
arguments followed by the outer tensors the body captured. A call whose tensors fit an earlier trace (its
shapes at least as specific) reuses it, and its outputs' shapes are inferred through the body. Python control
flow runs while tracing; no AutoGraph conversion is done (`autograph` is accepted and ignored).

The gradient of a call is a call of a backward function: a FuncGraph that inlines the forward body, runs
`tf.gradients` in it, and returns one gradient per input of the call (TF differentiates the body the same
way, but keeps the forward intermediates it needs as extra outputs of a rewritten forward call; here the
backward function recomputes them). `SymbolicGradient`, what TF1's graphs call for the gradient of a Defun,
differentiates a body so at run time, once per session.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.framework import dtypes, function_def, importer, nest, tensor_shape
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import Graph, Operation, Tensor, convert_to_tensor, get_default_graph, uids
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.type_spec import TensorSpec
from tensorweave.ops import constant_ops, control_flow_ops, fill_ops, gradients, manipulation_ops
from tensorweave.ops.function_ops import PartitionedCall, StatefulPartitionedCall, function_name
from tensorweave.platform.tf_export import tf_export

param_kinds = inspect.Parameter
_SELECTING_OPS = ("Case", "StatelessCase", "If", "StatelessIf")  # their first input picks a branch
# The ConfigProto TF 2.21's graph-mode calls record (CPU:1, GPU:0, allow_soft_placement, ...), as TF writes it.
_CONFIG_PROTO = b"\n\x07\n\x03CPU\x10\x01\n\x07\n\x03GPU\x10\x002\x02J\x008\x01\x82\x01\x00\x92\x01\x02J\x00"


def is_stateful(graph: Graph) -> bool:
    inputs = {t.op for t in getattr(graph, "inputs", ())}
    return any(op._op_def is not None and op._op_def.is_stateful for op in graph.get_operations()
               if op not in inputs)


def add_to_library(graph: FuncGraph, name: str, outer: Graph) -> None:
    """Add `graph` as FunctionDef `name`, and the functions it calls, to `outer`'s library."""
    graph.add_library_to(outer)
    outer._add_function(function_def.LibraryFunction(graph.to_function_def(name)))


def add_control_captures(graph: FuncGraph, op: Operation) -> None:
    """Make `op` (a call of `graph`) run after the outer ops the body's control dependencies named (in a
    function graph further out, it captures them in turn)."""
    for control in graph.control_captures:
        if control.graph is op.graph:
            op._add_control_input(control)
        elif isinstance(op.graph, FuncGraph):
            op.graph.control_captures[control] = None


def call_function_graph(graph: FuncGraph, name: str, args: Sequence[Tensor], op_name: str | None = None
                        ) -> list[Tensor]:
    """Add FunctionDef `name` of `graph` (and the functions it calls) to the default graph's library and
    call it on `args` and the tensors `graph` captured; the call's outputs, shaped through the body."""
    outer = get_default_graph()
    add_to_library(graph, name, outer)
    inputs = list(args) + graph.external_captures
    call = StatefulPartitionedCall if is_stateful(graph) else PartitionedCall
    op = outer.create_op(call.name, inputs, name=op_name or call.name, attrs={
        "f": name, "Tin": [t.dtype.base_dtype for t in inputs], "Tout": [t.dtype for t in graph.outputs], "config": b"",
        "config_proto": _CONFIG_PROTO, "executor_type": b"", "_read_only_resource_inputs": [],
        "_collective_manager_ids": []})
    add_control_captures(graph, op)
    outputs = op.outputs
    traced = [t.shape for t in graph.inputs]
    if all(t.shape == s for t, s in zip(op.inputs, traced)):
        shapes = [t.shape for t in graph.outputs]
    else:
        shapes = importer.function_output_shapes(outer, name, [t.shape for t in op.inputs]) or \
            [t.shape for t in graph.outputs]
    for t, shape in zip(outputs, shapes):
        t.set_shape(shape)
    return outputs


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_element")


def _spec_string(value: Any) -> str:
    return repr(TensorSpec(value.shape, value.dtype)) if isinstance(value, Tensor) else repr(value)


class ConcreteFunction:
    """One trace of a Function: its FuncGraph and FunctionDef name; calling it adds a call to the graph."""

    def __init__(self, graph: FuncGraph, name: str, structured_outputs: Any) -> None:
        self.graph = graph
        self.name = name
        self._structured_outputs = structured_outputs

    @property
    def structured_outputs(self) -> Any:
        return self._structured_outputs

    @property
    def inputs(self) -> list[Tensor]:
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list[Tensor]:
        return list(self.graph.outputs)

    @property
    def function_def(self) -> Any:
        return self.graph.to_function_def(self.name)

    def _call_flat(self, tensors: Sequence[Tensor]) -> Any:
        outputs = iter(call_function_graph(self.graph, self.name, tensors))
        return nest.map_structure(lambda x: None if x is None else next(outputs), self._structured_outputs)

    def __call__(self, *args: Any) -> Any:
        tensors = [convert_to_tensor(t) for t in nest.flatten(list(args))]
        return self._call_flat(tensors)


def trace(python_function: Callable, name: str, values: Sequence[Any], arg_names: Sequence[str],
          specs: Sequence[TensorSpec], share_collections: bool = False) -> ConcreteFunction:
    """Trace `python_function` on the positional `values` (one per parameter, `arg_names`) in a new FuncGraph:
    their tensor leaves become placeholders of `specs`' dtypes and shapes, named after their parameter. With
    `share_collections`, what the function adds to a collection goes to the outer graph's (as TF's branch and
    loop body graphs do)."""
    outer = get_default_graph()
    graph = FuncGraph(name, outer)
    graph._functions = dict(outer._functions)  # calls of the outer library's functions shape as there
    if share_collections:
        graph._collections = outer._collections
    remaining = iter(specs)
    try:
        parameters = inspect.signature(python_function).parameters
    except (TypeError, ValueError):
        parameters = {}
    with graph.as_default():
        def placeholder_for(value: Any, arg_name: str) -> Any:
            if not (_is_tensor_like(value) or isinstance(value, TensorSpec)):
                return value
            spec = next(remaining)
            ph = constant_ops.placeholder(spec.dtype, spec.shape, name=arg_name)
            graph.inputs.append(ph)
            return ph

        args, kwargs = [], {}
        for value, arg_name in zip(values, arg_names):
            value = nest.map_structure(functools.partial(placeholder_for, arg_name=arg_name), value)
            kind = parameters[arg_name].kind if arg_name in parameters else param_kinds.POSITIONAL_ONLY
            if kind is param_kinds.VAR_POSITIONAL:
                args.extend(value)
            elif kind is param_kinds.VAR_KEYWORD:
                kwargs.update(value)
            elif kind is param_kinds.KEYWORD_ONLY:
                kwargs[arg_name] = value
            else:
                args.append(value)
        result = python_function(*args, **kwargs)
        flat = [convert_to_tensor(x) for x in nest.flatten(result) if x is not None]
        side_effects = [graph.last_stateful_op] if graph.last_stateful_op is not None else []
        with graph.control_dependencies(side_effects):  # results come after the body's side effects
            flat = [manipulation_ops.identity(x) for x in flat]
    graph.outputs = flat
    return ConcreteFunction(graph, name, result)


class Function:
    """A Python function that runs as a graph function (`tf.function`'s result)."""

    def __init__(self, python_function: Callable, input_signature: Sequence[Any] | None = None,
                 name: str | None = None) -> None:
        functools.update_wrapper(self, python_function)
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._signature = inspect.signature(python_function)
        self._input_signature = None if input_signature is None else list(input_signature)
        self._traces: list[tuple[Graph, Any, list[TensorSpec], ConcreteFunction]] = []

    @property
    def python_function(self) -> Callable:
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return self._input_signature

    def _bind(self, args: tuple, kwargs: dict) -> tuple[list[Any], list[str]]:
        """The call's values, one per parameter in order (defaults applied; an input_signature's tensors
        converted and checked as TF binds them), and the parameters' names."""
        if self._input_signature is not None:
            specs = nest.flatten(self._input_signature)
            converted = []
            for value, spec in zip(nest.flatten(list(args)), specs):
                tensor = convert_to_tensor(value) if _is_tensor_like(value) else convert_to_tensor(value, spec.dtype)
                if tensor.dtype.base_dtype != spec.dtype or not _generalizes(spec.shape, tensor.shape):
                    params = ", ".join(f"{p}: {s!r}" for p, s in zip(self._signature.parameters, specs))
                    raise TypeError(
                        f"Binding inputs to tf.function failed due to `Can not cast {_spec_string(tensor)} to "
                        f"{spec!r}`. Received args: ({', '.join(repr(a) for a in args)},) and kwargs: "
                        f"{kwargs} for signature: ({params}).")
                converted.append(tensor)
            args = tuple(nest.pack_sequence_as(list(args), converted))
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return list(bound.arguments.values()), list(bound.arguments)

    def _concrete(self, args: tuple, kwargs: dict) -> tuple[ConcreteFunction, list[Tensor]]:
        values, names = self._bind(args, kwargs)
        tensors = [convert_to_tensor(v) for v in nest.flatten(values) if _is_tensor_like(v)]
        key = nest.map_structure(lambda v: None if _is_tensor_like(v) else (type(v), _hashable(v)), values)
        specs = [TensorSpec(t.shape, t.dtype.base_dtype) for t in tensors]
        if self._input_signature is not None:
            specs = [TensorSpec(s.shape, s.dtype) for s in nest.flatten(self._input_signature)]
        g = get_default_graph()
        for graph, traced_key, traced_specs, concrete in self._traces:
            if graph is g and traced_key == key and all(
                    s.dtype == t.dtype and _generalizes(t.shape, s.shape) for s, t in zip(specs, traced_specs)):
                return concrete, tensors
        concrete = trace(self._python_function, f"__inference_{self._name}_{next(uids)}", values, names, specs)
        self._traces.append((g, key, specs, concrete))
        return concrete, tensors

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        return self._concrete(args, kwargs)[0]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, tensors = self._concrete(args, kwargs)
        return concrete._call_flat(tensors)

    def __get__(self, instance: Any, owner: Any) -> Any:
        """A method decorated with tf.function: calls bound to the instance, which keys its traces as any
        other Python argument does."""
        if instance is None:
            return self
        bound = functools.partial(self.__call__, instance)
        return bound


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def _generalizes(general: tensor_shape.TensorShape, specific: tensor_shape.TensorShape) -> bool:
    """Whether a trace for `general` takes tensors of shape `specific` (each known dim of it the same)."""
    if general.ndims is None:
        return True
    if specific.ndims != general.ndims:
        return False
    return all(g is None or g == s for g, s in zip(general.as_list(), specific.as_list()))



def gradients_scope(graph: Graph) -> str:
    """The name of the outer `tf.gradients` call building a backward function in `graph` (its first scope
    starting "gradients"), for the gradients inside it: TensorArray gradients keyed by it stay apart from
    another call's, as TF1's do."""
    return next((part for part in graph.get_name_scope().split("/") if part.startswith("gradients")), "gradients")


def backward_graph(op: Operation, fname: str, grads: Sequence[Any], zeros_for_unconnected: bool = False
                   ) -> tuple[FuncGraph, list[int], list[int]]:
    """The backward function of library function `fname` called by `op` with these output gradients: a
    FuncGraph on (the call's inputs, the gradients that are not None) that recomputes the body and returns the
    inputs' gradients. Also which gradients it takes and which inputs it returns gradients of (every floating
    one, zeros where none flows, with `zeros_for_unconnected`: each branch of a Case or If must return the
    same). A branch's backward function is `<branch>_grad_<uid>` and takes the gradients first, as TF's."""
    outer = op.graph
    scope = gradients_scope(get_default_graph())
    selecting = op.type in _SELECTING_OPS
    backward = FuncGraph(f"{fname}_grad_{next(uids)}" if selecting else
                         f"__inference___backward_{fname.removeprefix('__inference_')}_{next(uids)}", outer)
    backward._functions = dict(outer._functions)
    inputs = list(op.inputs)[1:] if selecting else list(op.inputs)  # an index is no argument
    flowing = [i for i, g in enumerate(grads) if g is not None]
    with backward.as_default():
        xs = [constant_ops.placeholder(t.dtype.base_dtype, t.shape, name="placeholder") for t in inputs]
        for x, t in zip(xs, inputs):
            backward.stand_for(x, t)
        dys = [constant_ops.placeholder(grads[i].dtype.base_dtype, op.outputs[i].shape, name="placeholder")
               for i in flowing]
        backward.inputs = dys + xs if selecting else xs + dys
        ys = importer.inline_function_body(backward, fname, xs)
        dxs = gradients.gradients([ys[i] for i in flowing], xs, grad_ys=dys, name=scope) if flowing else \
            [None] * len(xs)
        if zeros_for_unconnected:
            dxs = [dx if dx is not None else fill_ops.zeros_like(x) if x.dtype.is_floating else
                   control_flow_ops.zeros_for_resource(x) if x.dtype == dtypes.resource and
                   control_flow_ops.variable_handle_source(x) is not None else None for x, dx in zip(xs, dxs)]
        returned = [i for i, dx in enumerate(dxs) if dx is not None]
        backward.outputs = [manipulation_ops.identity(convert_to_tensor(dxs[i])) for i in returned]
    return backward, flowing, returned


def _call_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    """One gradient per input of a call: a call of a backward function that recomputes the forward body on
    the call's inputs and differentiates it with the incoming gradients (None where no gradient flows)."""
    backward, flowing, returned = backward_graph(op, function_name(op._node_def.attr["f"]), grads)
    if not returned:
        return [None] * len(op.inputs)
    results = call_function_graph(backward, backward.name, list(op.inputs) + [convert_to_tensor(grads[i])
                                                                             for i in flowing],
                                  op_name=op.type)
    by_input = dict(zip(returned, results))
    return [by_input.get(i) for i in range(len(op.inputs))]


PartitionedCall.gradient(_call_grad)
StatefulPartitionedCall.gradient(_call_grad)


def gradient_body(body: GraphDef, output_count: int) -> GraphDef:
    """The body of the gradient of a function body, as SymbolicGradient runs it: arguments (the body's
    arguments, then one gradient per result), one gradient per argument (zeros where none flows)."""
    args = sorted((n for n in body.node if n.op == "_Arg"), key=lambda n: n.attr["index"])
    results = sorted((n for n in body.node if n.op == "_Retval"), key=lambda n: n.attr["index"])
    g = Graph()
    with g.as_default():
        xs = [constant_ops.placeholder(n.attr["T"], name="x") for n in args]
        dys = [constant_ops.placeholder(n.attr["T"], name="dy") for n in results[:output_count]]
        ys = importer.inline_body(g, body, xs)
        dxs = gradients.gradients(ys, xs, grad_ys=dys)
        dxs = [fill_ops.zeros_like(x) if dx is None else convert_to_tensor(dx) for x, dx in zip(xs, dxs)]
    frame = {t.op: i for i, t in enumerate(xs + dys)}
    nodes = [NodeDef(op.name, "_Arg", [], "", {"T": op.outputs[0].dtype, "index": frame[op]}) if op in frame
             else op._node_def for op in g.get_operations()]
    nodes += [NodeDef(f"dx_{i}_RetVal", "_Retval", [f"{dx.op.name}:{dx.value_index}"], "",
                      {"T": dx.dtype, "index": i}) for i, dx in enumerate(dxs)]
    return GraphDef(node=nodes)


def _symbolic_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Each gradient has its argument's shape (TF's)."""
    return ctx.input_shapes[:len(ctx.attr("Tout"))]


def _symbolic_gradient(ctx: OpKernelContext, *args: Any, f: Any, Tout: list[Any]) -> list[Any]:
    """The gradient of function `f`, whose body the library differentiates on the first call (TF1's graphs
    call it so for a Defun without a gradient function)."""
    library, name = ctx.function_library, function_name(f)
    grad_name = f"{name}/SymbolicGradient"
    if library.body(grad_name) is None:
        body = library.body(name)
        if body is None:
            raise errors.NotFoundError(None, None, f"Function {name} is not defined.")
        try:
            grad_body = gradient_body(body, len(args) - len(Tout))
        except (ValueError, LookupError) as e:
            raise errors.UnimplementedError(None, None, f"SymbolicGradient of {name}: {e}") from e
        library.add_functions({grad_name: grad_body})
    return library.call(ctx, grad_name, args)


SymbolicGradient = Op("SymbolicGradient", inputs=["input: Tin"], outputs=["output: Tout"],
                      attrs=["Tin: list(type) >= 1", "Tout: list(type) >= 1", "f: func"])
SymbolicGradient.shape(_symbolic_gradient_shape)
SymbolicGradient.kernel("CPU", "GPU")(_symbolic_gradient)


@tf_export("function")
def function(func: Callable | None = None, input_signature: Sequence[Any] | None = None, autograph: bool = True,
             jit_compile: bool | None = None, reduce_retracing: bool = False, experimental_implements: Any = None,
             experimental_autograph_options: Any = None, experimental_attributes: Any = None,
             experimental_relax_shapes: Any = None, experimental_compile: Any = None,
             experimental_follow_type_hints: Any = None) -> Any:
    """`func` as a graph function (a decorator when `func` is None): each call adds a call of its trace for the
    call's input signature. The compiler and AutoGraph options are accepted and have no effect here."""
    del autograph, jit_compile, reduce_retracing, experimental_implements, experimental_autograph_options
    del experimental_attributes, experimental_relax_shapes, experimental_compile, experimental_follow_type_hints
    if func is None:
        return functools.partial(Function, input_signature=input_signature)
    return Function(func, input_signature)


class WrappedFunction(ConcreteFunction):
    """`wrap_function`'s result: a trace of a TF1-style function on a signature, callable on tensors."""


@tf_export("wrap_function")
def wrap_function(fn: Callable, signature: Sequence[Any], name: str | None = None) -> WrappedFunction:
    """`fn` traced once on placeholders of `signature` (TensorSpecs): a function of tensors to call."""
    specs = nest.flatten(list(signature))
    params = list(inspect.signature(fn).parameters)
    concrete = trace(fn, f"__inference_{name or getattr(fn, '__name__', 'wrapped_function')}_{next(uids)}",
                     list(signature), params[:len(signature)], specs)
    return WrappedFunction(concrete.graph, concrete.name, concrete.structured_outputs)
