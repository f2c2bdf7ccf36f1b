"""`tf.function` and `tf.compat.v1.wrap_function` in graph mode: Python functions traced into the library.

Calling a `Function` traces its Python function into a FuncGraph once per input signature (the dtypes and
shapes of its tensor arguments, and the values of its other arguments, as TF's tracing keys them), turns
that graph into a FunctionDef named `__inference_<name>_<uid>`, adds it to the caller's graph library, and
builds one `PartitionedCall` (`StatefulPartitionedCall` when the body has a stateful op) on the tensor
arguments followed by the outer tensors the body captured. A call whose tensors fit an earlier trace (its
shapes at least as specific) reuses it, and its outputs' shapes are inferred through the body. Python control
flow runs while tracing; no AutoGraph conversion is done (`autograph` is accepted and ignored).

A tf.function body gets TF's automatic control dependencies (framework/auto_control_deps.py); its results
are Identities that wait for its side effects. Variables its first trace creates are made once outside it
(their initial values lifted out) and read through captured handles; a later trace may not create any.
`wrap_function` traces once, without automatic control dependencies; its variables are made outside too,
and its graph's collections list them.

The gradient of a call is a call of a backward function: a FuncGraph that inlines the forward body, runs
`tf.gradients` in it, and returns one gradient per input of the call (TF differentiates the body the same
way, but keeps the forward intermediates it needs as extra outputs of a rewritten forward call; here the
backward function recomputes them). `SymbolicGradient`, what TF1's graphs call for the gradient of a Defun,
differentiates a body so at run time, once per session (the functions it calls through backward
functions); a node that calls a function by name is differentiated by a SymbolicGradient of it.
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.framework import (
    auto_control_deps,
    function_def,
    importer,
    nest,
    op_registry,
    tensor_shape,
)
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import Graph, Operation, Tensor, convert_to_tensor, get_default_graph, uids
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.type_spec import TensorSpec
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    fill_ops,
    gradients,
    manipulation_ops,
    resource_variable_ops,
    variables,
)
from tensorweave.ops.function_ops import PartitionedCall, StatefulPartitionedCall, function_name
from tensorweave.platform.tf_export import tf_export

param_kinds = inspect.Parameter
# The ConfigProto TF 2.21's graph-mode calls record (CPU:1, GPU:0, allow_soft_placement, ...), as TF writes it.
_CONFIG_PROTO = b"\n\x07\n\x03CPU\x10\x01\n\x07\n\x03GPU\x10\x002\x02J\x008\x01\x82\x01\x00\x92\x01\x02J\x00"


def is_stateful(graph: Graph) -> bool:
    inputs = {t.op for t in getattr(graph, "inputs", ())}
    return any(op._op_def is not None and op._op_def.is_stateful for op in graph.get_operations()
               if op not in inputs)


def trace_body(python_function: Callable, name: str, values: Sequence[Any], arg_names: Sequence[str],
               specs: Sequence[TensorSpec], input_names: Sequence[str] | None = None) -> ConcreteFunction:
    """`trace` for a branch or loop body of a control-flow v2 op, as TF's: it shares the outer graph's
    collections and has automatic control dependencies only where the outer graph has them (so at top
    level a branch's side effect that no result needs does not run)."""
    outer = get_default_graph()
    return trace(python_function, name, values, arg_names, specs,
                 add_control_dependencies=outer._add_control_dependencies, collections=outer._collections,
                 input_names=input_names)


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
    # TF's call captures each outer tensor under its own name before the call op is made
    inputs = list(args) + [outer.capture(t) if isinstance(outer, FuncGraph) else t for t in graph.external_captures]
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
    def variables(self) -> tuple[Any, ...]:
        """The variables the trace read."""
        return tuple(self.graph.variables)

    @property
    def trainable_variables(self) -> tuple[Any, ...]:
        return tuple(self.graph.trainable_variables)

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
          specs: Sequence[TensorSpec], add_control_dependencies: bool = True,
          variable_creator: Callable[..., Any] | None = None, collections: dict[str, list] | None = None,
          input_names: Sequence[str] | None = None) -> ConcreteFunction:
    """Trace `python_function` on the positional `values` (one per parameter, `arg_names`) in a new FuncGraph:
    their tensor leaves become placeholders of `specs`' dtypes and shapes, named after their parameter. With
    `add_control_dependencies`, its side effects are ordered as TF's automatic control dependencies order
    them, and its results wait for them (a NoOp gathers them). `variable_creator` is a creator scope for the
    variables it makes; `collections` the graph's own collections (None: copies of the outer graph's, as FuncGraph's; TF's
    branch and loop bodies pass the outer graph's own, so what they add goes there);
    `input_names` the placeholders' names, one per spec (else their parameter's name)."""
    outer = get_default_graph()
    graph = FuncGraph(name, outer, collections)
    graph._add_control_dependencies = add_control_dependencies
    graph._functions = dict(outer._functions)  # calls of the outer library's functions shape as there
    remaining = iter(specs)
    names = iter(input_names) if input_names is not None else None
    try:
        parameters = inspect.signature(python_function).parameters
    except (TypeError, ValueError):
        parameters = {}
    with graph.as_default():
        def placeholder_for(value: Any, arg_name: str) -> Any:
            if not (_is_tensor_like(value) or isinstance(value, TensorSpec)):
                return value
            spec = next(remaining)
            ph = constant_ops.placeholder(spec.dtype, spec.shape, name=arg_name if names is None else next(names))
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
        if variable_creator is None:
            result = python_function(*args, **kwargs)
        else:
            with variables.variable_creator_scope(variable_creator):
                result = python_function(*args, **kwargs)
        leaves = [x for x in nest.flatten(result) if x is not None]
        if add_control_dependencies:  # the results are Identities (each made as it is read), after the side effects
            flat = [manipulation_ops.identity(convert_to_tensor(x)) for x in leaves]
            graph.control_outputs = auto_control_deps.add_control_dependencies(
                graph.get_operations(), lambda tensors, name: control_flow_ops.merge(tensors, name=name)[0].op)
            if graph.control_outputs and flat:
                with graph.control_dependencies(None):
                    gather = graph.create_op("NoOp", [], name="NoOp")
                gather._add_control_inputs([op for op in graph.control_outputs
                                            if not auto_control_deps.in_while_loop(op)])
                for x in flat:
                    x.op._add_control_input(gather)
        else:  # a result made outside is captured, as TF's
            flat = [t if t.graph is graph else graph.capture(t) for t in map(convert_to_tensor, leaves)]
    graph.outputs = flat
    return ConcreteFunction(graph, name, result)


_SINGLETON_VARIABLES = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is "
    "only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


def _no_variables(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
    raise ValueError(_SINGLETON_VARIABLES)


class UnliftableError(Exception):
    """A tensor of a function graph depends on an argument, so it cannot be computed outside (TF's)."""


def _copy_cone(graph: FuncGraph, targets: Sequence[Tensor | Operation], mapped: dict[str, Tensor], into: Graph
               ) -> Callable[[str], Any]:
    """Copy the ops of function graph `graph` that `targets` depend on into graph `into`, the tensors named
    in `mapped` (`op:index`) read as what it maps them to; what each `op:index` names there.
    UnliftableError if they depend on an argument of the function that is not mapped."""
    arguments, cone = {t.op for t in graph.inputs}, set()
    for target in targets:
        start = target if isinstance(target, Operation) else target.op
        pending, parent = [start], {start: None}
        while pending:
            op = pending.pop()
            if op in cone or (op.outputs and all(f"{op.name}:{i}" in mapped for i in range(len(op.outputs)))):
                continue
            if op in arguments:
                path, step = [], op
                while step is not None:
                    path.append(f"{step.name} ({step.type})")
                    step = parent[step]
                raise UnliftableError(f"Unable to lift tensor {target!r} because it depends transitively on "
                                      f"placeholder {op!r} via at least one path, e.g.: {' <- '.join(path[::-1])}")
            cone.add(op)
            for before in [t.op for t in op.inputs] + list(op.control_inputs):
                parent.setdefault(before, op)
                pending.append(before)
    return importer.copy_nodes(into, [op._node_def for op in graph.get_operations() if op in cone], mapped)


def _outermost(graph: Graph) -> Graph:
    """The graph outside every function graph around `graph` (where TF's init_scope builds)."""
    while isinstance(graph, FuncGraph):
        graph = graph.outer_graph
    return graph


def _captured_from_outermost(tensor: Tensor) -> Tensor | None:
    """The tensor outside every function graph that capture placeholder `tensor` stands for (None if the
    chain of captures ends at an argument of a function further out)."""
    while tensor is not None and isinstance(tensor.graph, FuncGraph):
        tensor = tensor.graph.captured_from(tensor)
    return tensor


def lift_to_graph(tensor: Tensor, graph: FuncGraph) -> Tensor:
    """`tensor` of function graph `graph` computed outside every function graph instead: the ops it depends
    on copied there (keeping their names where free), a capture read as the outer tensor it stands for.
    UnliftableError if it depends on an argument of a function."""
    if tensor.graph is not graph:
        return tensor
    mapped = {f"{inner.op.name}:0": outer for _, inner in graph.captures
              if (outer := _captured_from_outermost(inner)) is not None}
    return _copy_cone(graph, [tensor], mapped, _outermost(graph))(f"{tensor.op.name}:{tensor.value_index}")


class UnliftedInitializerVariable(resource_variable_ops.ResourceVariable):
    """A variable a tf.function made on its first trace, outside it (TF's class of that name)."""


def _lifting_creator(created: list[Any], wrapped: bool = False) -> Callable[..., Any]:
    """A creator scope that makes a function's variables outside every function graph, as TF's resource variables
    in a function graph: the initial value lifted out, the body reading them through captured handles.
    A tf.function's (TF's UnliftedInitializerVariable) join GLOBAL_VARIABLES only; a `wrapped` function's
    (wrap_function's VariableHolder) the outer graph's usual collections and the function graph's too."""
    def creator(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        if kwargs.pop("experimental_enable_variable_lifting", None) is False:
            return next_creator(**kwargs)
        graph = get_default_graph()
        initial_value = kwargs.pop("initial_value")
        if isinstance(initial_value, Tensor):
            initial_value = lift_to_graph(initial_value, graph)
        scope = graph.get_name_scope()
        inner_collections = kwargs["collections"] or [variables.GraphKeys.GLOBAL_VARIABLES]
        kwargs.update(collections=None, use_resource=True, variable_def=None)
        outer = _outermost(graph)
        with outer.as_default(), outer.name_scope(f"{scope}/" if scope else None), outer.control_dependencies(None):
            kind = resource_variable_ops.ResourceVariable if wrapped else UnliftedInitializerVariable
            variable = kind(initial_value=initial_value, **kwargs)
        trainable = outer.get_collection_ref(variables.GraphKeys.TRAINABLE_VARIABLES)
        if wrapped:
            if variable.trainable and variables.GraphKeys.TRAINABLE_VARIABLES not in inner_collections:
                inner_collections = [*inner_collections, variables.GraphKeys.TRAINABLE_VARIABLES]
            graph.add_to_collections(inner_collections, variable)
        elif variable in trainable:  # TF leaves a tf.function's variables out of TRAINABLE_VARIABLES
            trainable.remove(variable)
        created.append(variable)
        return variable
    return creator


class Function:
    """A Python function that runs as a graph function (`tf.function`'s result).

    Its first trace may create variables: they are made once, outside the function (see `_lifting_creator`),
    and the function is traced again, as every later trace, where creating one is a ValueError (TF's
    singleton rule: a variable is created on the first call only, `if self.v is None: self.v = ...`).
    """

    def __init__(self, python_function: Callable, input_signature: Sequence[Any] | None = None,
                 name: str | None = None) -> None:
        functools.update_wrapper(self, python_function)
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._signature = inspect.signature(python_function)
        self._input_signature = None if input_signature is None else list(input_signature)
        self._traces: list[tuple[Graph, Any, list[TensorSpec], ConcreteFunction]] = []
        self._created_variables: list[Any] | None = None  # by the first trace; None before it
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # instance -> its method's Function

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
                if isinstance(value, TensorSpec):  # get_concrete_function on specs
                    converted.append(value)
                    continue
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
        leaves = [v for v in nest.flatten(values) if _is_tensor_like(v) or isinstance(v, TensorSpec)]
        tensors = [convert_to_tensor(v) for v in leaves if _is_tensor_like(v)]
        key = nest.map_structure(
            lambda v: None if _is_tensor_like(v) or isinstance(v, TensorSpec) else (type(v), _hashable(v)), values)
        specs = [v if isinstance(v, TensorSpec) else TensorSpec(v.shape, v.dtype.base_dtype)
                 for v in (convert_to_tensor(v) if _is_tensor_like(v) else v for v in leaves)]
        if self._input_signature is not None:
            specs = [TensorSpec(s.shape, s.dtype) for s in nest.flatten(self._input_signature)]
        g = get_default_graph()
        for graph, traced_key, traced_specs, concrete in self._traces:
            if graph is g and traced_key == key and all(
                    s.dtype == t.dtype and _generalizes(t.shape, s.shape) for s, t in zip(specs, traced_specs)):
                return concrete, tensors
        concrete = self._trace(values, names, specs)
        self._traces.append((g, key, specs, concrete))
        return concrete, tensors

    def _trace(self, values: list[Any], names: list[str], specs: list[TensorSpec]) -> ConcreteFunction:
        def traced(creator: Callable[..., Any]) -> ConcreteFunction:
            return trace(self._python_function, f"__inference_{self._name}_{next(uids)}", values, names, specs,
                         variable_creator=creator)

        if self._created_variables:
            return traced(_no_variables)
        first, created = self._created_variables is None, []
        concrete = traced(_lifting_creator(created))
        if first:
            self._created_variables = created
            return traced(_no_variables) if created else concrete
        if created:
            raise ValueError("Creating variables on a non-first call to a function decorated with tf.function.")
        return concrete

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors or TensorSpecs; none: the input signature's)."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        return self._concrete(args, kwargs)[0]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, tensors = self._concrete(args, kwargs)
        return concrete._call_flat(tensors)

    def __get__(self, instance: Any, owner: Any) -> Any:
        """A method decorated with tf.function: a Function of the method bound to the instance, one per
        instance (with its own traces and variables, as TF's)."""
        if instance is None:
            return self
        try:
            return self._bound[instance]
        except KeyError:
            bound = self._bound[instance] = Function(types.MethodType(self._python_function, instance),
                                                     self._input_signature, self._name)
            return bound
        except TypeError:  # an instance a weak reference cannot key
            return Function(types.MethodType(self._python_function, instance), self._input_signature, self._name)


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


def backward_graph(op: Operation, fname: str, grads: Sequence[Any]) -> tuple[FuncGraph, list[int], list[int]]:
    """The backward function of library function `fname` called by `op` with these output gradients: a
    FuncGraph on (the call's inputs, the gradients that are not None) that recomputes the body and returns the
    inputs' gradients. Also which gradients it takes and which inputs it returns gradients of."""
    outer = op.graph
    scope = gradients_scope(get_default_graph())
    backward = FuncGraph(f"__inference___backward_{fname.removeprefix('__inference_')}_{next(uids)}", outer)
    backward._functions = dict(outer._functions)
    inputs = list(op.inputs)
    flowing = [i for i, g in enumerate(grads) if g is not None]
    with backward.as_default():
        xs = [constant_ops.placeholder(t.dtype.base_dtype, t.shape, name="placeholder") for t in inputs]
        for x, t in zip(xs, inputs):
            backward.stand_for(x, t)
        dys = [constant_ops.placeholder(grads[i].dtype.base_dtype, op.outputs[i].shape, name="placeholder")
               for i in flowing]
        backward.inputs = xs + dys
        ys = importer.inline_function_body(backward, fname, xs)
        dxs = gradients.gradients([ys[i] for i in flowing], xs, grad_ys=dys, name=scope) if flowing else \
            [None] * len(xs)
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


def gradient_body(body: GraphDef, output_count: int, library: Sequence[Any] = ()) -> tuple[GraphDef, list[Any]]:
    """The body of the gradient of a function body, as SymbolicGradient runs it: arguments (the body's
    arguments, then one gradient per result), one gradient per argument (zeros where none flows). The body's
    calls of functions of `library` (FunctionDefs) differentiate through backward functions: also the
    FunctionDefs of those."""
    args = sorted((n for n in body.node if n.op == "_Arg"), key=lambda n: n.attr["index"])
    results = sorted((n for n in body.node if n.op == "_Retval"), key=lambda n: n.attr["index"])
    g = Graph()
    for fdef in library:
        g._add_function(function_def.LibraryFunction(fdef))
    known = len(library)
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
    return GraphDef(node=nodes), g._function_library()[known:]


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
        definitions = library.definitions()
        try:
            grad_body, backward = gradient_body(body, len(args) - len(Tout), list(definitions.values()))
        except (ValueError, LookupError) as e:
            raise errors.UnimplementedError(None, None, f"SymbolicGradient of {name}: {e}") from e
        everything = list(definitions.values()) + backward
        library.add_functions({**function_def.function_bodies(backward, everything), grad_name: grad_body},
                              backward)
    return library.call(ctx, grad_name, args)


SymbolicGradient = Op("SymbolicGradient", inputs=["input: Tin"], outputs=["output: Tout"],
                      attrs=["Tin: list(type) >= 1", "Tout: list(type) >= 1", "f: func"])
SymbolicGradient.shape(_symbolic_gradient_shape)
SymbolicGradient.kernel("CPU", "GPU")(_symbolic_gradient)


@op_registry.RegisterGradient(op_registry.FUNCTION_CALL)
def _call_by_name_grad(op: Operation, *grads: Any) -> list[Tensor]:
    """The gradient of a node that calls a library function by name: a SymbolicGradient of the function on
    its inputs and the outputs' gradients (zeros where none flows), as TF's gradients differentiate it."""
    dys = [fill_ops.zeros_like(y) if dy is None else convert_to_tensor(dy) for y, dy in zip(op.outputs, grads)]
    inputs = list(op.inputs) + dys
    return op.graph.create_op("SymbolicGradient", inputs, name="SymbolicGradient", attrs={
        "Tin": [t.dtype.base_dtype for t in inputs], "Tout": [t.dtype.base_dtype for t in op.inputs],
        "f": op.type}).outputs


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
    """`wrap_function`'s result: a trace of a TF1-style function on a signature, callable on tensors; the
    variables it created live outside it, read through captured handles."""

    def prune(self, feeds: Any, fetches: Any, name: str | None = None, input_signature: Any = None
              ) -> WrappedFunction:
        """The part of this function's graph from `feeds` (its tensors) to `fetches` (tensors, or ops that
        become control outputs), as a new WrappedFunction: arguments the feeds (a capture fed stays one),
        then every capture of this one."""
        del input_signature
        captured = {inner.ref() for _, inner in self.graph.captures}
        flat_feeds = [self.graph.as_graph_element(t) for t in nest.flatten(feeds)]
        for f in flat_feeds:
            if not isinstance(f, Tensor):
                raise ValueError(f"All members of argument `feeds` must be tensors. Got {f} with type {type(f)}.")
        flat_feeds = [f for f in flat_feeds if f.ref() not in captured]
        flat_fetches = [self.graph.as_graph_element(f) for f in nest.flatten(fetches)]
        pruned = FuncGraph(name or "pruned", self.graph.outer_graph, collections={})
        with pruned.as_default():
            mapped = {f"{f.op.name}:{f.value_index}": constant_ops.placeholder(f.dtype, f.shape, name=f.op.name)
                      for f in flat_feeds}
        pruned.inputs.extend(mapped.values())
        for outer, inner in self.graph.captures:
            mapped[f"{inner.op.name}:0"] = pruned.capture(outer, name=inner.op.name)
        source = _copy_cone(self.graph, flat_fetches, mapped, pruned)
        copied = [source(f"^{f.name}") if isinstance(f, Operation) else source(f"{f.op.name}:{f.value_index}")
                  for f in flat_fetches]
        pruned.outputs = [t for t in copied if isinstance(t, Tensor)]
        pruned.control_outputs = [op for op in copied if isinstance(op, Operation)]
        structured = nest.pack_sequence_as(fetches, [t if isinstance(t, Tensor) else None for t in copied])
        for variable in self.graph.variables:  # a prune keeps the variables of the function, as TF
            pruned.watch_variable(variable)
        return WrappedFunction(pruned, f"__inference_pruned_{next(uids)}", structured)


@tf_export("wrap_function")
def wrap_function(fn: Callable, signature: Sequence[Any], name: str | None = None) -> WrappedFunction:
    """`fn` traced once on placeholders of `signature` (TensorSpecs): a function of tensors to call."""
    specs = nest.flatten(list(signature))
    params = list(inspect.signature(fn).parameters)
    created: list[Any] = []
    concrete = trace(fn, f"__inference_{name or getattr(fn, '__name__', 'wrapped_function')}_{next(uids)}",
                     list(signature), params[:len(signature)], specs, add_control_dependencies=False,
                     variable_creator=_lifting_creator(created, wrapped=True), collections={},
                     input_names=[getattr(s, "name", None) or "Placeholder" for s in specs])
    concrete.graph.name = "wrapped_function" if name is None else f"wrapped_function_{name}"
    return WrappedFunction(concrete.graph, concrete.name, concrete.structured_outputs)
