"""Graph functions of tf.data: a user function of dataset elements traced once into a function graph, and
the plan that runs it per element through an `Executor` (what TF's dataset functions are).

`StructuredFunction` builds a placeholder per element component in a FuncGraph (three for a sparse tensor,
which the function gets whole), calls the function on them (a plain tuple element is unpacked into positional
arguments, as TF does), and prunes the graph to a GraphDef whose `_Arg`s are the components and whose
`_Retval`s are the function's flat outputs; one Executor, made on first use, runs it for every element (it is
safe to run from several threads at once, which `num_parallel_calls` does). A tensor of the enclosing graph the
function reads is captured as TF captures it: the FuncGraph gives it a placeholder, `captures` lists the outer
tensors (the dataset makes them inputs of its node, so their values are taken when the iterator is
initialized: a fed placeholder; a ref variable's read, its live buffer as in TF; a resource handle), and each call
passes their values after the element's. A function that returns a Dataset (flat_map, interleave) returns
the tensors that dataset captured, and the caller binds them. `tf.nondifferentiable_batch_function` traces its
function here too (the `trace_function` hook of ops/batch_ops.py). `GraphEvaluation` runs a part of the user's
own graph the same way: a one-shot iterator's captured tensors, evaluated on its first run.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.data import structure
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import auto_control_deps, function_def, nest
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import Graph, Tensor, convert_to_tensor, get_default_graph, name_scope, uids
from tensorweave.framework.graph_def import GraphDef
from tensorweave.framework.op_kernel import nested_error
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.framework.type_spec import TensorSpec
from tensorweave.ops import batch_ops
from tensorweave.ops.constant_ops import placeholder
from tensorweave.ops.ragged_tensor import RaggedTensor
from tensorweave.runtime.executor import Executor
from tensorweave.runtime.function import FunctionLibraryRuntime
from tensorweave.runtime.prune import prune

_DEVICE = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr())


class GraphEvaluation:
    """Tensors of a graph, fed by other tensors of it, evaluated by a private executor built on first use."""

    def __init__(self, graph: Graph, feeds: Sequence[Tensor], fetches: Sequence[Tensor],
                 control_inputs: bool = True, targets: Sequence[str] = ()) -> None:
        """Without `control_inputs`, the fetches' values only (TF's capture by value of a one-shot iterator's
        dataset copies no control dependency); `targets`, the nodes that run besides."""
        nodes = [op._node_def for op in graph.get_operations()]
        if not control_inputs:
            nodes = [dataclasses.replace(n, input=[i for i in n.input if not i.startswith("^")]) for n in nodes]
        self._graph_def = GraphDef(node=nodes)
        self._library = graph._function_library()  # what its function calls (a tf.function, a v2 cond) run
        self._feeds = [t.name for t in feeds]
        self._fetches = [t.name for t in fetches]
        self._targets = list(targets)
        self._types = {t.name: t.dtype for t in list(feeds) + list(fetches)}
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    def _plan(self) -> Executor:
        with self._lock:
            if self._executor is None:
                pruned = prune(self._graph_def, self._feeds, self._fetches, self._targets, self._types)
                functions = FunctionLibraryRuntime()
                functions.add_functions(function_def.function_bodies(self._library, self._library))
                self._executor = Executor(pruned, _DEVICE, functions.new_kernel)
            return self._executor

    def __call__(self, args: Sequence[Any]) -> list[Any]:
        executor = self._executor or self._plan()
        try:
            return executor.run(args)
        except errors.OpError as e:  # names a node of the function: the caller's node is added as TF's AttachDef
            raise nested_error(e) from e


def to_tensors(values: Any, names: Iterator[str] | None = None) -> Any:
    """`values` with its components as tensors and sparse tensors. As in tf.data, tuples, namedtuples and dicts
    are structure, a list is one component (a tensor of its values), a SparseTensorValue one sparse tensor and
    None a component of no tensor (a NoneTensorSpec's, as TF's). `names` names the constants made, one name per component in nest's order (a dict's by sorted key)."""
    if isinstance(values, (SparseTensor, SparseTensorValue, RaggedTensor)):
        if names is not None:
            next(names)  # its place in the count
        return SparseTensor.from_value(values) if not isinstance(values, RaggedTensor) else values
    if values is None:
        if names is not None:
            next(names)
        return None
    if isinstance(values, tuple):
        parts = [to_tensors(v, names) for v in values]
        return type(values)(*parts) if hasattr(values, "_fields") else tuple(parts)
    if isinstance(values, dict):
        by_key = {k: to_tensors(values[k], names) for k in sorted(values)}
        converted = {k: by_key[k] for k in values}
        return collections.OrderedDict(converted) if isinstance(values, collections.OrderedDict) else converted
    return convert_to_tensor(values, name=None if names is None else next(names))


def normalize_element(element: Any) -> Any:
    """An element as `from_tensors` and `from_tensor_slices` take it (TF's normalize_element): `to_tensors`,
    each sparse tensor rebuilt from its three tensors, its static shape only what its dense_shape tensor fixes."""
    with name_scope("normalize_element"):  # TF's names: `normalize_element/component_<i>`
        converted = to_tensors(element, (f"component_{i}" for i in itertools.count()))
    return nest.map_structure(lambda v: SparseTensor(v.indices, v.values, v.dense_shape)
                              if isinstance(v, SparseTensor) else v, converted)


def _should_unpack(args: Any) -> bool:
    return type(args) is tuple


class StructuredFunction:
    """`func` traced over elements of `input_spec`; `output_spec` describes what it returns, `captures` the
    outer tensors it reads (their values follow the element's in each call)."""

    def __init__(self, func: Callable, input_spec: Any, dataset_result: bool = False,
                 transformation: str = "Dataset.function") -> None:
        # TF's name: the transformation and the function's, then a uid (`__inference_Dataset_map_lambda_12`)
        described = re.sub(r"[^A-Za-z0-9_]", "", f"{transformation}_{getattr(func, '__name__', 'function')}"
                           .replace(".", "_"))
        self.name = f"__inference_{described}_{next(uids)}"
        outer = get_default_graph()
        graph = FuncGraph(described, outer)
        with graph.as_default():
            flat = [placeholder(s.dtype, s.shape, name=f"args_{i}")
                    for i, s in enumerate(structure.component_specs(input_spec))]
            graph.inputs.extend(flat)
            args = structure.from_components(input_spec, flat)
            result = func(*args) if _should_unpack(args) else func(args)
            if dataset_result:
                self.dataset = result
                outputs = result._all_captures() if hasattr(result, "_all_captures") else None
                if outputs is None:
                    raise TypeError("`map_func` must return a `Dataset` object. Got "
                                    f"{type(result)}")
            else:
                if isinstance(result, list):  # TF treats a returned list as a tuple
                    result = tuple(result)
                result = to_tensors(result)
                self.output_spec = structure.spec_of(result)
                outputs = structure.to_components(result, self.output_spec)
        if outer.seed is not None and graph.seed == outer.seed and getattr(graph, "_seed_used", False):
            warnings.warn(f"Seed {outer.seed} from outer graph might be getting used by function {described}, if the "
                          "random op has not been provided any seed. Explicitly set the seed in the function if this "
                          "is not the intended behavior.", stacklevel=4)
        self.outputs = [graph.capture(t) for t in outputs]  # an outer tensor returned is captured too
        # The FunctionDef returns what TF's does, a returned dataset's variant; the runs here, its captures
        graph.outputs = [graph.capture(result._variant_tensor())] if dataset_result else list(self.outputs)
        self.captures = graph.external_captures
        graph.add_library_to(outer)  # the functions of the datasets it makes, which its nodes name
        outer._add_function(function_def.LibraryFunction(graph.to_function_def(self.name)))  # what `f` names
        # TF's automatic control dependencies: every side effect of the function runs (an Assert, a Print)
        # (a dataset the function makes is not one: the caller binds it from the function's outputs)
        effects = [op.name for op in graph.get_operations()
                   if auto_control_deps.is_stateful(op) and not auto_control_deps.in_while_loop(op)
                   and "_dataset_factory" not in op._node_def.attr]
        self._evaluation = GraphEvaluation(graph, graph.inputs, self.outputs, targets=effects)

    def __call__(self, element: Sequence[Any]) -> list[Any]:
        """The flat outputs for one flat element (of a function that captured nothing)."""
        return self._evaluation(element)

    def bound(self, captured: Sequence[Any]) -> Callable[[Sequence[Any]], list[Any]]:
        """This function with the values of its captures given: a function of one flat element."""
        captured = list(captured)
        return lambda element: self._evaluation([*element, *captured])


@batch_ops.trace_function.install
def _trace_batch_function(fn: Callable, input_types: Sequence[Any], input_shapes: Sequence[Any]) -> StructuredFunction:
    """A BatchFunction's function, traced over its arguments (positional, as TF's concrete function)."""
    function = StructuredFunction(fn, tuple(TensorSpec(shape, dtype) for dtype, shape in zip(input_types, input_shapes)))
    if function.captures:
        raise ValueError(f"Tensor {function.captures[0].name} of an enclosing graph is read by a batch function; "
                         "tensorweave's batch functions do not capture outer tensors: compute it inside the function.")
    return function
