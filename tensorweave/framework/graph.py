"""Graph, Operation and Tensor: the client-side dataflow graph, as in TF1's `ops.py`.

A Graph owns Operations in creation order; each Operation owns its IR `NodeDef` (built once at creation,
so extending a session is a list copy, not a conversion; only `as_graph_def`, `Operation.node_def` and
`Operation.op_def` build TF's protobufs, for users and file formats). The Graph also owns the
construction-time context: name scopes, the control-dependency, device and colocation stacks,
collections, the graph-level seed and the gradient override map. Tensor operator overloads are installed
by the op library (`ops/math_ops.py`), which keeps this layer free of any op.

Invariant: names are unique within a graph (case-insensitively reserved, as TF does), and an op's
NodeDef inputs always mirror its `inputs` and `control_inputs`.

One-way rule: this module builds on the IR, graph_io (protobufs at the edges) and the op registry; node
building (node_builder.py), tensor_util and indexed_slices build on it. `Graph.create_op` reaches node
building through the registry's `create_op` hook (framework/hooks.py); the runtime never imports this module.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import linecache
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import context, dtypes, graph_io, op_registry, tensor_shape, tf2
from tensorweave.framework import device_spec as pydev
from tensorweave.framework import op_def as op_def_lib
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.versions import GRAPH_DEF_VERSION
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@tf_export("GraphKeys")
class GraphKeys:
    """Standard collection names, as TF1's `tf.GraphKeys`."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES
    _SUMMARY_COLLECTION = "_SUMMARY_V2"
    _STREAMING_MODEL_PORTS = "streaming_model_ports"
    # The collections a variable may be in (TF's helpers walk these to find or remove one).
    _VARIABLE_COLLECTIONS = [GLOBAL_VARIABLES, LOCAL_VARIABLES, METRIC_VARIABLES, MODEL_VARIABLES,
                             TRAINABLE_VARIABLES, MOVING_AVERAGE_VARIABLES, CONCATENATED_VARIABLES,
                             TRAINABLE_RESOURCE_VARIABLES]


def _user_frames() -> list[tuple[str, int, str]]:
    """The creation stack outside tensorweave, innermost last, for error messages."""
    frames = []
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            frames.append((filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    frames.reverse()
    return frames


# The numpy array attributes a graph tensor lacks, which TF's error points to numpy behaviour for.
_NUMPY_ARRAY_ATTRIBUTES = frozenset({"T", "astype", "ravel", "transpose", "reshape", "clip", "size", "tolist", "data"})


@tf_export("Tensor")
class Tensor:
    """A symbolic handle to one output of an Operation."""

    # `assign` is set only on a slice of a variable (`v[0].assign(x)`), as TF sets it on that tensor.
    # `__dict__` because user code tags tensors with its own attributes, as TF's tensors allow; the
    # dict is created only for a tensor that gets one.
    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "_name", "assign", "__weakref__",
                 "__dict__")

    # numpy defers binary operators to us (ndarray + Tensor gives a Tensor).
    __array_priority__ = 100
    # An EagerTensor (framework/eager.py) holds a value instead of naming an op's output.
    _is_eager = False

    def __init__(self, op: Operation, value_index: int, dtype: dtypes.DType) -> None:
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = tensor_shape.unknown_shape()
        self._consumers: list[Operation] = []
        self._name: str | None = None

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def graph(self) -> Graph:
        return self._op._graph

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = f"{self._op.name}:{self._value_index}"
        return self._name

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        """Refine the static shape; incompatible shapes raise TF's shape-inference ValueError."""
        self._shape = tensor_shape.merge_shapes(self._shape, tensor_shape.as_shape(shape))

    def consumers(self) -> list[Operation]:
        return list(self._consumers)

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> Any:
        """The value of this tensor in `session` (default: the default session)."""
        return _run_using_default_session(self, feed_dict, self.graph, session)

    def _as_node_def_input(self) -> str:
        return self._op.name if self._value_index == 0 else self.name

    def __repr__(self) -> str:
        return f'<tf.Tensor \'{self.name}\' shape={self._shape} dtype={self._dtype.name}>'

    def __str__(self) -> str:
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{device})'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def ref(self) -> Reference:
        """A hashable handle that compares by identity (TF2-era code keys sets and dicts by it)."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        return Reference(self)

    def __getattr__(self, name: str) -> Any:
        """Only reached for a missing attribute: numpy's array methods get TF's pointer to numpy behaviour."""
        if name in _NUMPY_ARRAY_ATTRIBUTES:
            raise AttributeError(
                f"{type(self).__name__} object has no attribute '{name}'. \n        If you are looking for "
                "numpy-related methods, please run the following:\n        "
                "tf.experimental.numpy.experimental_enable_numpy_behavior()\n      ")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __bool__(self) -> bool:
        raise _operator_not_allowed("Using a symbolic `tf.Tensor` as a Python `bool`")

    def __iter__(self) -> Iterator[Tensor]:
        """Graph-mode tensors are never iterable, whatever their shape (`tf.unstack` splits one)."""
        raise _operator_not_allowed("Iterating over a symbolic `tf.Tensor`")

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` "
                        "rather than `len(x)` for shape information.")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may indicate "
            "that you're trying to pass a Tensor to a NumPy call, which is not supported.")

    @classmethod
    def _override_operator(cls, operator: str, func: Callable) -> None:
        """Install an operator overload; the op library calls this (TF's mechanism)."""
        setattr(cls, operator, func)


class Reference:
    """What `Tensor.ref()` and `Variable.ref()` return: equal only to a reference to the same object."""

    __slots__ = ("_wrapped", "__weakref__")

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def deref(self) -> Any:
        return self._wrapped

    def _assert_type(self, other: object) -> None:
        if not isinstance(other, Reference):
            raise TypeError("Cannot compare wrapped object with unwrapped object")

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        self._assert_type(other)
        return self._wrapped is other._wrapped

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: object) -> bool:
        self._assert_type(other)
        return id(self._wrapped) < id(other._wrapped)

    def __gt__(self, other: object) -> bool:
        self._assert_type(other)
        return id(self._wrapped) > id(other._wrapped)

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"


class IndexedSlicesBase:
    """The base class of `tf.IndexedSlices` (framework/indexed_slices.py, which builds on this module), so the
    graph recognises one without importing it: a control dependency on one is one on its op (TF's
    types/internal.IndexedSlices serves the same purpose)."""

    __slots__ = ()


class SymbolicTensor(Tensor):
    """The class of every op output, as in TF 2.x graphs (`type(t).__name__` reads `SymbolicTensor`, as in
    TF's messages); `tf.Tensor` stays the class to test against."""

    __slots__ = ()


def _operator_not_allowed(task: str) -> TypeError:
    """TF's error (an OperatorNotAllowedInGraphError, a TypeError) for Python control flow on a Tensor."""
    return errors.OperatorNotAllowedInGraphError(
        f"{task} is not allowed. You can attempt the following resolutions to the problem: If you are "
        "running in Graph mode, use Eager execution mode or decorate this function with @tf.function. If "
        "you are using AutoGraph, you can try decorating this function with @tf.function. If that does "
        "not work, then you may be using an unsupported feature or your source code may not be visible "
        "to AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
        "autograph/g3doc/reference/limitations.md#access-to-source-code for more information.")


# TF's ops.uid(): one process-wide count that every graph and every op output takes a number from, and
# that numbers control-flow and tf.function functions (`cond_true_3`), so a program's names match TF's.
uids = itertools.count()


@tf_export("Operation")
class Operation:
    """A node of the graph: an op type, attrs, input tensors and output tensors."""

    _input_mismatches: dict[int, str] | None = None  # see _check_rewired_input

    def __init__(self, graph: Graph, node_def: NodeDef, inputs: list[Tensor],
                 output_types: list[dtypes.DType], control_inputs: list[Operation], op_def: Any = None) -> None:
        self._graph = graph
        self._node_def = node_def
        self._inputs = list(inputs)
        self._control_inputs: list[Operation] = []
        self._op_def = op_def
        self._outputs = [SymbolicTensor(self, i, t) for i, t in enumerate(output_types)]
        for _ in self._outputs:  # each of TF's symbolic tensors takes one
            next(uids)
        self._control_outputs: list[Operation] = []
        self._id = graph._next_id()
        self._traceback = _user_frames() if graph._records_tracebacks else []
        self._control_flow_context: Any = None  # the cond or while context the op was built in
        for t in self._inputs:
            t._consumers.append(self)
        node_def.input = [t._as_node_def_input() for t in self._inputs]
        self._add_control_inputs(control_inputs)

    def _get_control_flow_context(self) -> Any:
        return self._control_flow_context

    def _set_control_flow_context(self, context: Any) -> None:
        self._control_flow_context = context

    def _update_input(self, index: int, tensor: Tensor) -> None:
        """Rewire data input `index` to `tensor` (a control-flow context routes a captured value through its
        Switch); the shape already inferred stays, as in TF."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"tensor must be a Tensor: {tensor}")
        if tensor.graph is not self._graph:
            raise ValueError(f"Tensor {tensor.name} must be from the same graph as the op {self.name}.")
        old = self._inputs[index]
        old._consumers.remove(self)
        self._inputs[index] = tensor
        self._check_rewired_input(index, tensor)
        tensor._consumers.append(self)
        data_inputs = [i for i, spec in enumerate(self._node_def.input) if not spec.startswith("^")]
        self._node_def.input[data_inputs[index]] = tensor._as_node_def_input()

    def _check_rewired_input(self, index: int, tensor: Tensor) -> None:
        """TF accepts a rewired input of another dtype (a while body's NextIteration of a loop variable whose
        dtype changed) and fails when a session takes the graph: the mismatch's message is kept for that
        (`_input_mismatches`, by input). A ref is accepted where its value is expected."""
        if self._input_mismatches:
            self._input_mismatches.pop(index, None)
        if self._op_def is None:
            return
        expected = op_def_lib.arg_types(self._op_def.input_args, self._node_def.attr)[index]
        actual = tensor.dtype
        if actual != expected and (expected._is_ref_dtype or actual.base_dtype != expected):
            if self._input_mismatches is None:
                self._input_mismatches = {}
            def spelled(dtype: dtypes.DType) -> str:  # TF's DataTypeString: 'float_ref' for a ref
                return dtypes.type_string(dtype) + ("_ref" if dtype._is_ref_dtype else "")
            self._input_mismatches[index] = (f"Input {index} of node {self.name} was passed {spelled(actual)} from "
                                             f"{tensor.name} incompatible with expected {spelled(expected)}.")

    def _add_loop_variables(self, tensors: list[Tensor]) -> list[Tensor]:
        """Append data inputs, and one output of each one's dtype after the op's outputs (TF's while_v2 so adds
        accumulators to a forward While when its gradient is built); the new outputs."""
        data_inputs = [spec for spec in self._node_def.input if not spec.startswith("^")]
        controls = self._node_def.input[len(data_inputs):]
        for tensor in tensors:
            self._inputs.append(tensor)
            tensor._consumers.append(self)
        self._node_def.input = data_inputs + [t._as_node_def_input() for t in tensors] + controls
        return self._add_outputs([t.dtype.base_dtype for t in tensors])

    def _add_outputs(self, types: list[dtypes.DType]) -> list[Tensor]:
        """Append outputs of these dtypes (TF's cond_v2 so adds the intermediates a gradient reads to a
        forward If); the new outputs."""
        start = len(self._outputs)
        for i, dtype in enumerate(types):
            self._outputs.append(SymbolicTensor(self, start + i, dtype))
            next(uids)
        return self._outputs[start:]

    @property
    def name(self) -> str:
        return self._node_def.name

    @property
    def type(self) -> str:
        return self._node_def.op

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        return tuple(self._inputs)

    @property
    def outputs(self) -> list[Tensor]:
        return list(self._outputs)

    def values(self) -> tuple[Tensor, ...]:
        return tuple(self._outputs)

    @property
    def control_inputs(self) -> list[Operation]:
        return list(self._control_inputs)

    @property
    def device(self) -> str:
        return self._node_def.device

    @property
    def node_def(self) -> Any:
        """TF's NodeDef protobuf of this op, built on each call as TF does (the graph keeps the IR
        `_node_def`, which is what the runtime and internal code read)."""
        return graph_io.node_def_to_proto(self._node_def)

    @property
    def op_def(self) -> Any:
        """TF's OpDef protobuf of this op's type: a fresh message on each call, as in TF."""
        return protos.OpDef.FromString(_serialized_op_def(self._op_def))

    @property
    def traceback(self) -> list[tuple[str, int, str, str]]:
        """Where user code created this op: (filename, lineno, function, source line), outermost first."""
        return [(f, n, name, linecache.getline(f, n).strip()) for f, n, name in self._traceback]

    def colocation_groups(self) -> list[bytes]:
        groups = self._node_def.attr.get("_class")
        if groups:
            return [g.encode() if isinstance(g, str) else g for g in groups]
        return [b"loc:@" + self.name.encode()]

    def get_attr(self, name: str) -> Any:
        """An attr's value, in TF1's Python form (strings as bytes, types as DType)."""
        try:
            value = self._node_def.attr[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None
        if isinstance(value, str) and self._attr_kind(name, value) not in ("func", "tensor"):
            return value.encode()
        if isinstance(value, protos.AttrValue):  # a kind the IR keeps as the protobuf: TF's get_attr on it
            return _get_kept_attr(value)
        kind = self._attr_kind(name, value)
        if kind in ("shape", "tensor", "func", "list(shape)", "list(tensor)", "list(func)"):  # TF gives protobufs
            proto = graph_io.node_attr_to_proto(self._node_def, name)
            return list(getattr(proto.list, kind[5:-1])) if kind.startswith("list(") else getattr(proto, kind)
        if isinstance(value, list):
            return [v.encode() if isinstance(v, str) else v for v in value]
        return value

    def _attr_kind(self, name: str, value: Any) -> str | None:
        """The attr's OpDef type, else the type its value implies (internal attrs like `_output_shapes`)."""
        if self._op_def is not None:
            try:
                return self._op_def.attr(name).type
            except KeyError:
                pass
        try:
            return graph_io.inferred_attr_type(value)
        except TypeError:
            return None

    def run(self, feed_dict: dict | None = None, session: Any = None) -> None:
        """Run this operation in `session` (default: the default session)."""
        _run_using_default_session(self, feed_dict, self.graph, session)

    def _set_device(self, device: Any) -> None:
        """Set the device string as given (TF stores device-function results and '/cpu:0' verbatim)."""
        if isinstance(device, pydev.DeviceSpec):
            device = device.to_string()
        if not isinstance(device, str):
            raise TypeError(f"Expected binary or unicode string, got {device!r}")
        self._node_def.device = device

    def _set_attr(self, name: str, value: Any) -> None:
        """Set an attr to an IR value, or to an `AttrValue` protobuf as TF's own callers pass. The NodeDef gets
        new attr maps: a session that already holds the node keeps its own, as TF's does."""
        self._node_def.attr = {**self._node_def.attr, name: _ir_attr_value(value)}
        self._node_def.splats = {k: v for k, v in self._node_def.splats.items() if k != name}  # stored in full

    def _add_control_inputs(self, ops: list[Operation]) -> None:
        for op in ops:
            if not isinstance(op, Operation):
                raise TypeError(f"op must be an Operation: {op}")
            if op is self:
                raise ValueError(f"Operation '{self.name}' cannot depend on itself.")
            if op not in self._control_inputs:
                self._control_inputs.append(op)
                op._control_outputs.append(self)
                self._node_def.input.append("^" + op.name)

    def _add_control_input(self, op: Operation) -> None:
        self._add_control_inputs([op])

    def _remove_all_control_inputs(self) -> None:
        """Drop every control input (a loop moves the external ones it cannot keep to its pivot)."""
        for op in self._control_inputs:
            op._control_outputs.remove(self)
        self._control_inputs = []
        self._node_def.input = [spec for spec in self._node_def.input if not spec.startswith("^")]

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"

    def __str__(self) -> str:
        """The NodeDef in protobuf text format, as TF prints an op."""
        return str(self.node_def)


@functools.cache
def _serialized_op_def(op_def: Any) -> bytes:
    """An op type's OpDef protobuf, serialized once (TF keeps these bytes per op too, and parses them)."""
    return graph_io.op_def_to_proto(op_def).SerializeToString()


def _get_kept_attr(value: Any) -> Any:
    """What TF's get_attr gives for an AttrValue the IR keeps as is: [] for no value, the NameAttrList(s) of
    a func (list), and TF's AssertionError for a `placeholder`."""
    which = value.WhichOneof("value")
    if which is None:
        return []
    if which == "func":
        return _copied(value.func)
    if which == "list":
        return [_copied(f) for f in value.list.func]
    raise AssertionError(f"Unsupported field type in {value}")


def _copied(func: Any) -> Any:
    copy = protos.NameAttrList()
    copy.CopyFrom(func)
    return copy


def _ir_attr_value(value: Any) -> Any:
    """An attr value as the IR holds it: an `AttrValue` protobuf (ours or real TF's) is converted."""
    if not hasattr(value, "WhichOneof"):
        return value
    ir_value = graph_io.attr_from_proto(value)
    # Shapes become TensorShapes, so an attr no OpDef declares still reads back as a shape.
    if value.WhichOneof("value") == "shape":
        return tensor_shape.TensorShape(ir_value)
    if value.WhichOneof("value") == "list" and len(value.list.shape):
        return [tensor_shape.TensorShape(dims) for dims in ir_value]
    return ir_value


class _ControlDependencies:
    """One `control_dependencies` block: its control ops and the ops created inside it."""

    def __init__(self, control_ops: list[Operation]) -> None:
        self.control_ops = control_ops
        self.seen_ops: set[Operation] = set()


class _BuildStacks:
    """The stacks `control_dependencies`, `device` and `colocate_with` push while ops are built."""

    def __init__(self, control: list[_ControlDependencies], device: list[Any],
                 colocation: list[Operation], control_flow_context: Any = None) -> None:
        self.control_stack = control
        self.device_stack = device
        self.colocation_stack = colocation
        self.control_flow_context = control_flow_context  # the cond/while context new ops join

    def copy(self) -> _BuildStacks:
        return _BuildStacks(list(self.control_stack), list(self.device_stack), list(self.colocation_stack),
                            self.control_flow_context)


@tf_export("Graph")
class Graph:
    """A TensorFlow computation, represented as a dataflow graph."""

    # Where each op was created, for errors; an eager op's scratch graph (framework/eager.py) needs none.
    _records_tracebacks = True
    # Whether side effects built here get TF's automatic control dependencies (a tf.function's body does);
    # control-flow v2 bodies built inside take the same setting.
    _add_control_dependencies = False

    def __init__(self) -> None:
        next(uids)  # TF's graph key
        self._lock = threading.RLock()
        self._operations: list[Operation] = []
        self._ops_by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._last_id = 0
        self._collections: dict[str, list] = {}
        self._finalized = False
        self._seed: int | None = None
        self._gradient_override_map: dict[str, str] = {}
        self._thread_local = threading.local()
        self._graph_stacks = _BuildStacks([], [], [])
        self._stacks_are_thread_local = False
        self._unfeedable_tensors: set[Tensor] = set()
        self._unfetchable_ops: set[Operation] = set()
        self._container = ""
        self._functions: dict[str, Any] = {}  # the function library: name -> LibraryFunction (TF's)

    # As in TF, the name scope is per thread, while the control-dependency, device and colocation stacks
    # belong to the graph (a thread building ops sees the scopes another thread entered) until
    # `switch_to_thread_local()` gives each thread its own copy.
    @property
    def _name_stack(self) -> str:
        return getattr(self._thread_local, "name_stack", "")

    @_name_stack.setter
    def _name_stack(self, name_stack: str) -> None:
        self._thread_local.name_stack = name_stack

    def _stacks(self) -> _BuildStacks:
        if not self._stacks_are_thread_local:
            return self._graph_stacks
        local = self._thread_local
        if not hasattr(local, "stacks"):
            local.stacks = self._graph_stacks.copy()
        return local.stacks

    def switch_to_thread_local(self) -> None:
        """From now on each thread keeps its own device, colocation and control-dependency stacks."""
        self._stacks_are_thread_local = True

    def _next_id(self) -> int:
        with self._lock:
            self._last_id += 1
            return self._last_id

    @property
    def version(self) -> int:
        return self._last_id

    @property
    def graph_def_versions(self) -> Any:
        """The `VersionDef` protobuf this graph's GraphDefs carry (TF's producer version)."""
        return protos.VersionDef(producer=GRAPH_DEF_VERSION)

    @property
    def _building_function(self) -> bool:
        return False

    @property
    def seed(self) -> int | None:
        return self._seed

    @seed.setter
    def seed(self, seed: int | None) -> None:
        self._seed = seed

    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @property
    def building_function(self) -> bool:
        return self._building_function

    # -- the function library ----------------------------------------------------------------------

    def _add_function(self, function: Any) -> None:
        """Add a function (anything with `name` and a FunctionDef `definition`) to the library; the same
        definition again is a no-op, as TF's."""
        self._check_not_finalized()
        name = function.name
        with self._lock:
            known = self._functions.get(name)
            if known is not None:
                if known is not function and known.definition != function.definition:
                    raise ValueError(f"Cannot add function '{name}' because a different function with the same "
                                     "name already exists.")
                return
            self._functions[name] = function

    def _is_function(self, name: str) -> bool:
        return name in self._functions

    def _get_function(self, name: str) -> Any:
        return self._functions.get(name)

    def _function_library(self) -> list[Any]:
        """The library's FunctionDefs, in the order they were added."""
        with self._lock:
            return [f.definition for f in self._functions.values()]

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Make this graph the default graph of the current thread inside the block."""
        _default_graph_stack.push(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop(self)

    # -- naming ------------------------------------------------------------------------------------

    def get_name_scope(self) -> str:
        return self._name_stack

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """A graph-unique name under the current name scope ('foo', 'foo_1', ...)."""
        stack = self._name_stack
        if stack:
            name = stack + "/" + name
        key = name.lower()
        with self._lock:
            i = self._names_in_use.get(key, 0)
            if mark_as_used:
                self._names_in_use[key] = i + 1
            if i > 0:
                base_key = key
                while key in self._names_in_use:
                    key = f"{base_key}_{i}"
                    i += 1
                if mark_as_used:
                    self._names_in_use[key] = 1
                name = f"{name}_{i - 1}"
        return name

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Nested name scope; 'scope/' re-enters an absolute scope, None or '' resets to the top."""
        if isinstance(name, bytes):
            name = name.decode()
        old_stack = self._name_stack
        if name and old_stack and not _VALID_SCOPE_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match the following "
                             f"pattern: {_VALID_SCOPE_NAME.pattern}")
        if name and not old_stack and not _VALID_OP_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid root scope name. A root scope name has to match the "
                             f"following pattern: {_VALID_OP_NAME.pattern}")
        if not name:
            new_stack = ""
            returned = ""
        elif name.endswith("/"):
            new_stack = name[:-1]
            returned = name
        else:
            new_stack = self.unique_name(name)
            returned = new_stack + "/"
        self._name_stack = new_stack
        try:
            yield returned
        finally:
            self._name_stack = old_stack

    def _name_for_new_op(self, name: str) -> str:
        if name.endswith("/"):
            return name[:-1]
        return self.unique_name(name)

    # -- op creation -------------------------------------------------------------------------------

    def _create_op_from_node_def(self, node_def: NodeDef, inputs: list[Tensor],
                                 output_types: list[dtypes.DType], op_def: Any = None,
                                 control_inputs: list[Operation] = (), defer_control_flow: bool = False
                                 ) -> Operation:
        """Add an op; applies the control-dependency, device and colocation context of this thread. With
        `defer_control_flow`, the caller joins it to its cond or while context (`_add_to_control_flow_context`)
        once its shapes are inferred: TF infers them on the inputs as given, before the context gives the op
        its Enter or Switch, so an outside constant still fixes a shape and a failing op leaves none behind."""
        self._check_not_finalized()
        for t in inputs:
            if t.graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op {node_def.name}.")
        if not _VALID_OP_NAME.match(node_def.name):
            raise ValueError(f"`{node_def.name}` is not a valid node name. Accepted names conform to Regex "
                             f"/{_VALID_OP_NAME!r}/")
        stacks = self._stacks()
        control = list(control_inputs) + self._control_dependencies_for_inputs({t.op for t in inputs})
        op = Operation(self, node_def, inputs, output_types, control, op_def)
        with self._lock:
            if node_def.name in self._ops_by_name:
                raise ValueError(f"Duplicate node name in graph: '{node_def.name}'")
            self._ops_by_name[node_def.name] = op
            self._operations.append(op)
            self._names_in_use.setdefault(node_def.name.lower(), 1)
        for block in stacks.control_stack:
            block.seen_ops.add(op)
        self._apply_device_functions(op)
        self._apply_colocation(op)
        mapped_type = self._gradient_override_map.get(op.type)
        if mapped_type is not None:
            op._set_attr("_gradient_op_type", mapped_type)
        if not defer_control_flow:
            self._add_to_control_flow_context(op)
        return op

    def _add_to_control_flow_context(self, op: Operation) -> None:
        context = self._stacks().control_flow_context
        if context is not None:  # the context captures the op's outside inputs (TF's AddOp)
            op._control_flow_context = context
            context.add_op(op)

    def _record_op_seen_by_control_dependencies(self, op: Operation) -> None:
        """Count `op` as built inside the enclosing control_dependencies blocks (it got their inputs)."""
        for block in self._stacks().control_stack:
            block.seen_ops.add(op)

    def _get_control_flow_context(self) -> Any:
        """The cond or while context ops built now join (None outside any)."""
        return self._stacks().control_flow_context

    def _set_control_flow_context(self, context: Any) -> None:
        self._stacks().control_flow_context = context

    def _remove_failed_op(self, op: Operation) -> None:
        """Undo the creation of an op whose shape function rejected its inputs."""
        with self._lock:
            self._operations.remove(op)
            del self._ops_by_name[op.name]
            if op._id == self._last_id:  # TF numbers an op only once it exists, so `version` is unchanged
                self._last_id -= 1
        for t in op._inputs:
            t._consumers.remove(op)
        for c in op._control_inputs:
            c._control_outputs.remove(op)

    def create_op(self, op_type: str, inputs: list[Tensor], dtypes: list | None = None,  # noqa: A002
                  input_types: list | None = None, name: str | None = None, attrs: dict | None = None,
                  op_def: Any = None, compute_shapes: bool = True, compute_device: bool = True) -> Operation:
        """TF1's low-level `Graph.create_op`: creates a node of a registered op type.

        As in TF, the output types come from the op's definition (`dtypes` is not consulted), attr values
        may be `AttrValue` protobufs, and `_`-prefixed attrs the OpDef does not declare are stored as given.
        """
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"Input #{i} is not a tensor: {t}")
        attrs = {key: _ir_attr_value(value) for key, value in (attrs or {}).items()}
        private_attrs = {key: attrs.pop(key) for key in list(attrs) if key.startswith("_")}
        op = op_registry.create_op(self, op_type, list(inputs), name=name, attrs=attrs)
        for key, value in private_attrs.items():
            op._set_attr(key, value)
        return op

    def _control_dependencies_for_inputs(self, input_ops: set[Operation]) -> list[Operation]:
        result: list[Operation] = []
        for block in self._stacks().control_stack:
            if input_ops & block.seen_ops:
                continue  # dominated: an input already runs after this block's control ops
            for op in block.control_ops:
                if op not in input_ops and op not in result:
                    result.append(op)
        return result

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Any) -> Iterator[None]:
        """Ops created inside run after `control_inputs`; None clears the enclosing blocks."""
        stacks = self._stacks()
        if control_inputs is None:  # a clean slate: no control inputs, outside any control-flow context
            saved, saved_context = stacks.control_stack, stacks.control_flow_context
            stacks.control_stack, stacks.control_flow_context = [], None
            try:
                yield
            finally:
                stacks = self._stacks()
                stacks.control_stack, stacks.control_flow_context = saved, saved_context
            return
        current = {op for block in stacks.control_stack for op in block.control_ops}
        ops = []
        for c in control_inputs:
            if isinstance(c, Tensor) and c._is_eager:
                continue  # it has run already: eager ops need no ordering (TF ignores them so)
            if isinstance(c, IndexedSlicesBase) or (hasattr(c, "_handle") and hasattr(c, "op")):
                c = c.op  # a resource variable: its op (an update's, for what the update returned)
            c = self.as_graph_element(c)
            if isinstance(c, Tensor):
                c = c.op
            if c not in current:  # an enclosing block already makes ops wait for it
                current.add(c)
                ops.append(c)
                c._set_attr("_has_manual_control_dependencies", True)  # TF marks every manual control input
        block = _ControlDependencies(ops)
        stacks.control_stack.append(block)
        try:
            yield
        finally:
            self._stacks().control_stack.remove(block)

    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """Device for ops created inside: a spec string, a DeviceSpec, a function of the op, or None."""
        if device_name_or_function is None:
            entry = None
        elif callable(device_name_or_function) and not isinstance(device_name_or_function, pydev.DeviceSpec):
            entry = device_name_or_function
        else:
            spec = device_name_or_function
            if not isinstance(spec, pydev.DeviceSpec):
                spec = pydev.DeviceSpec.from_string(spec)
            entry = pydev.merge_device(spec)
        self._stacks().device_stack.append(entry)
        try:
            yield
        finally:
            self._stacks().device_stack.pop()

    def _apply_device_functions(self, op: Operation) -> None:
        """Innermost first; `tf.device(None)` stops the walk and `tf.device("")` changes nothing."""
        for entry in reversed(self._stacks().device_stack):
            if entry is None:
                break
            if isinstance(entry, pydev.MergeDevice) and entry.is_null_merge:
                continue
            op._set_device(entry(op))

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside are placed with `op` (its `_class` group); device scopes are suspended.

        Anything but an Operation is converted as a reference (a Variable colocates with its variable
        op), so a Python value or a string makes a new constant to colocate with, as in TF.
        """
        if op is None:
            if not ignore_existing:
                raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
        elif not isinstance(op, Operation):
            op = internal_convert_to_tensor(op, as_ref=True).op
        stacks = self._stacks()
        saved_devices, saved_colocation = stacks.device_stack, stacks.colocation_stack
        stacks.device_stack = []
        if ignore_existing:
            stacks.colocation_stack = []
        if op is not None:
            stacks.colocation_stack = stacks.colocation_stack + [op]
        try:
            yield
        finally:
            stacks = self._stacks()
            stacks.device_stack, stacks.colocation_stack = saved_devices, saved_colocation

    def _apply_colocation(self, op: Operation) -> None:
        stack = self._stacks().colocation_stack
        if not stack:
            return
        groups: set[bytes] = set()
        device_set = False
        for colocated in reversed(stack):
            groups.update(colocated.colocation_groups())
            if colocated.device and not device_set:
                op._set_device(colocated.device)
                device_set = True
        op._set_attr("_class", sorted(g.decode() for g in groups))

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        """Ops of the given types created inside take their gradient from another registered type.

        The choice is recorded on each op as its `_gradient_op_type` attr, as TF does.
        """
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        for key, value in op_type_map.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def container(self, container_name: str) -> Iterator[str]:
        """Stateful ops created inside keep their state in the named resource container."""
        saved = self._container
        self._container = container_name
        try:
            yield container_name
        finally:
            self._container = saved

    # -- lookup ------------------------------------------------------------------------------------

    def get_operations(self) -> list[Operation]:
        with self._lock:
            return list(self._operations)

    def _operations_since(self, start: int) -> list[Operation]:
        """Ops created after the first `start` ones, for extending a session incrementally."""
        with self._lock:
            return self._operations[start:]

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True) -> Any:
        """Resolve a Tensor, Operation, name or convertible object to an element of this graph."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        elif allow_operation:
            types_str = "Operation"
        else:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        if not isinstance(obj, (Tensor, Operation)) and hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, bytes):
            obj = obj.decode()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, types_str)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    def _element_by_name(self, name: str, allow_tensor: bool, allow_operation: bool, types_str: str) -> Any:
        if ":" in name and allow_tensor:
            try:
                op_name, out = name.split(":")
                index = int(out)
            except ValueError:
                raise ValueError(f"The name {name!r} looks a like a Tensor name, but is not a valid one. "
                                 "Tensor names must be of the form \"<op_name>:<output_index>\".") from None
            op = self._ops_by_name.get(op_name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                               f"{op_name!r}, does not exist in the graph.")
            if not -len(op._outputs) <= index < len(op._outputs):  # TF indexes the outputs list
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                               f"{op_name!r}, exists but only has {len(op._outputs)} outputs.")
            return op._outputs[index]
        if ":" in name:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {types_str}.")
        if not allow_operation:
            what = ("refers to an Operation" if name in self._ops_by_name
                    else "looks like an (invalid) Operation name")
            raise ValueError(f"The name {name!r} {what}, not a {types_str}. Tensor names must be of the form "
                             "\"<op_name>:<output_index>\".")
        op = self._ops_by_name.get(name)
        if op is None:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        return op

    def is_feedable(self, tensor: Tensor) -> bool:
        return tensor not in self._unfeedable_tensors

    def prevent_feeding(self, tensor: Tensor) -> None:
        self._unfeedable_tensors.add(tensor)

    def is_fetchable(self, tensor_or_op: Any) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable_ops

    def prevent_fetching(self, op: Operation) -> None:
        self._unfetchable_ops.add(op)

    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False) -> Any:
        """TF's GraphDef protobuf of every op created so far, stamped with TF's producer version.

        As TF's ToGraphDef, each node lists its data inputs in order, then its control inputs sorted by
        name (`op.node_def` keeps them in creation order); `add_shapes` records `_output_shapes` on the ops
        that have outputs. `from_version` is accepted and ignored, as in TF. The runtime never comes here:
        it reads the ops' IR NodeDefs directly, so the protobuf is built only for users and file formats.
        """
        with self._lock:
            ops = list(self._operations)
        nodes = []
        for op in ops:
            inputs = op._node_def.input
            data_count = len(op._inputs)
            node = dataclasses.replace(op._node_def, input=inputs[:data_count] + sorted(inputs[data_count:]),
                                       attr=dict(op._node_def.attr))
            if add_shapes and op._outputs:
                node.attr["_output_shapes"] = [t.shape for t in op._outputs]
            nodes.append(node)
        return graph_io.graph_def_to_proto(GraphDef(node=nodes, producer=GRAPH_DEF_VERSION,
                                                    library=self._function_library()))

    # -- collections -------------------------------------------------------------------------------

    def add_to_collection(self, name: str, value: Any) -> None:
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Any, value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list:
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list:
        """A copy of the collection; with `scope`, only the items that have a name matching it (a regex)."""
        with self._lock:
            items = list(self._collections.get(name, ()))
        if scope is None:
            return items
        regex = re.compile(scope)
        result = []
        for item in items:
            try:
                item_name = item.name
            except AttributeError:
                continue
            if regex.match(item_name):
                result.append(item)
        return result

    def get_all_collection_keys(self) -> list[str]:
        with self._lock:
            return [k for k in self._collections if isinstance(k, str)]

    @property
    def collections(self) -> list:
        """Every collection key, including non-string ones (`get_all_collection_keys` keeps only strings)."""
        with self._lock:
            return list(self._collections)

    def clear_collection(self, name: str) -> None:
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)


_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class _DefaultStack(threading.local):
    """A per-thread stack of defaults (graphs or sessions)."""

    def __init__(self) -> None:
        self.stack: list[Any] = []

    def push(self, obj: Any) -> None:
        self.stack.append(obj)

    def pop(self, obj: Any) -> None:
        """Leave `obj`'s block: blocks must be left innermost first, as TF enforces (the stack is left as
        it is when they are not)."""
        if not self.stack:
            return
        if self.stack[-1] is not obj:
            raise AssertionError(f"Nesting violated for default stack of {type(obj)} objects")
        self.stack.pop()

    def top(self) -> Any:
        return self.stack[-1] if self.stack else None


class _DefaultGraphStack(_DefaultStack):
    _global_graph: Graph | None = None

    def get(self) -> Graph:
        if self.stack:
            return self.stack[-1]
        if _DefaultGraphStack._global_graph is None:
            _DefaultGraphStack._global_graph = Graph()
        return _DefaultGraphStack._global_graph

    def reset(self) -> None:
        if self.stack:
            raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
                                 "cleared graph, exit the nesting and create a new graph.")
        _DefaultGraphStack._global_graph = None


_default_graph_stack = _DefaultGraphStack()
_default_session_stack = _DefaultStack()


@tf_export("get_default_graph")
def get_default_graph() -> Graph:
    """The default graph of the current thread."""
    return _default_graph_stack.get()


@tf_export("reset_default_graph")
def reset_default_graph() -> None:
    """Clear the global default graph (not allowed inside a `with g.as_default()` block)."""
    _default_graph_stack.reset()


def clear_nested_default_graphs() -> None:
    """Forget this thread's `as_default()` blocks, as TF's test setUp does before resetting the default
    graph: a test that failed inside such a block must not break the next one."""
    _default_graph_stack.stack = []


@tf_export("get_default_session")
def get_default_session() -> Any:
    """The innermost session entered with `with sess.as_default()` in this thread, or None."""
    return _default_session_stack.top()


def _run_using_default_session(fetch: Any, feed_dict: dict | None, graph: Graph, session: Any) -> Any:
    """`Tensor.eval` and `Operation.run`, with TF's messages for a missing or mismatched session."""
    is_tensor = not isinstance(fetch, Operation)  # a Tensor or a composite of tensors (a SparseTensor)
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                             "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
                             if is_tensor else
                             "Cannot execute operation using `run()`: No default session is registered. Use "
                             "`with sess.as_default():` or pass an explicit session to `run(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to evaluate tensor: the tensor's graph is different "
                             "from the session's graph. Pass an explicit session to `eval(session=sess)`."
                             if is_tensor else
                             "Cannot use the default session to execute operation: the operation's graph is "
                             "different from the session's graph. Pass an explicit session to run(session=sess).")
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different "
                         "from the session's graph." if is_tensor else
                         "Cannot use the given session to execute operation: the operation's graph is "
                         "different from the session's graph.")
    return session.run(fetch, feed_dict)


@tf_export("control_dependencies")
def control_dependencies(control_inputs: Any) -> Any:
    """`tf.control_dependencies`: ops created inside run after `control_inputs` (default graph); executing
    eagerly, nothing (ops run in program order), as in TF."""
    if context.executing_eagerly():
        return contextlib.nullcontext()
    return get_default_graph().control_dependencies(control_inputs)


@tf_export("device")
def device(device_name_or_function: Any) -> Any:
    """`tf.device`: place ops created inside (spec string, DeviceSpec, function, or None)."""
    return get_default_graph().device(device_name_or_function)


@tf_export("colocate_with")
def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    """`tf.colocate_with`: place ops created inside with `op` (nothing to do for eager ops, as in TF)."""
    if context.executing_eagerly():
        return contextlib.nullcontext()
    return get_default_graph().colocate_with(op, ignore_existing)


@tf_export("container")
def container(container_name: str) -> Any:
    """`tf.container`: stateful ops created inside keep their state in the named container."""
    return get_default_graph().container(container_name)


@tf_export("get_collection")
def get_collection(key: str, scope: str | None = None) -> list:
    return get_default_graph().get_collection(key, scope)


@tf_export("get_collection_ref")
def get_collection_ref(key: str) -> list:
    return get_default_graph().get_collection_ref(key)


@tf_export("add_to_collection")
def add_to_collection(name: str, value: Any) -> None:
    get_default_graph().add_to_collection(name, value)


@tf_export("add_to_collections")
def add_to_collections(names: Any, value: Any) -> None:
    get_default_graph().add_to_collections(names, value)


@tf_export("executing_eagerly")
def executing_eagerly() -> bool:
    """True only inside the function of a `tf.py_function`: tensorweave runs TF1 graphs, and eagerly nowhere
    else."""
    return context.executing_eagerly()


@tf_export("executing_eagerly_outside_functions")
def executing_eagerly_outside_functions() -> bool:
    """Always False: there are no function graphs to be outside of, and graphs are all there is."""
    return False


@tf_export("init_scope")
@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Ops created inside escape control-flow contexts, control dependencies and function graphs (into the
    outermost graph, as a variable made in a branch or loop body of control flow v2 must), keeping the name
    scope and device of where it is opened (TF's graph-mode `init_scope`)."""
    g = get_default_graph()
    scope = g.get_name_scope()
    if scope and not scope.endswith("/"):
        scope += "/"
    outer = g
    while getattr(outer, "outer_graph", None) is not None:
        outer = outer.outer_graph
    with outer.as_default() if outer is not g else contextlib.nullcontext(), outer.name_scope(scope), \
            outer.control_dependencies(None):
        yield


@tf_export("disable_eager_execution")
def disable_eager_execution() -> None:
    """Graph mode is the only mode; called alone (a TF 2.x graph-mode program, which keeps TF2's other
    behaviours) it turns on v2 TensorShape, resource variables, tensor equality and control flow v2, unless
    `disable_v2_behavior`/`enable_v2_behavior` or a toggle of its own already chose."""
    tf2.adopt_tf2_defaults()


@tf_export("disable_v2_behavior")
def disable_v2_behavior() -> None:
    """TF1 behaviour throughout: Dimension shapes, reference variables, tensor equality by identity."""
    tf2.set_enabled(False)
    disable_v2_tensorshape()
    disable_resource_variables()
    disable_tensor_equality()
    disable_control_flow_v2()


def _v2_behavior_not_built(what: str) -> NotImplementedError:
    """What the toggles towards behaviours tensorweave lacks raise: it runs graphs, and must not pretend
    otherwise."""
    return NotImplementedError(f"tf.{what}() is not supported: tensorweave runs graphs only (no eager "
                               "execution, TF1 control flow).")


@tf_export("enable_v2_behavior")
def enable_v2_behavior() -> None:
    """TF2's behaviours that graphs have (v2 TensorShape, resource variables, tensor equality, control flow
    v2); eager execution is not built, so programs stay in graph mode and a warning says so."""
    tf2.set_enabled(True)
    enable_v2_tensorshape()
    enable_resource_variables()
    enable_tensor_equality()
    enable_control_flow_v2()
    tf_logging.warning("tf.enable_v2_behavior(): tensorweave keeps graph mode (no eager execution); v2 "
                       "TensorShape, resource variables, tensor equality and control flow v2 are on.")


@tf_export("enable_eager_execution")
def enable_eager_execution(config: Any = None, device_policy: Any = None, execution_mode: Any = None) -> None:
    raise _v2_behavior_not_built("enable_eager_execution")


@tf_export("resource_variables_enabled")
def resource_variables_enabled() -> bool:
    """Whether `tf.Variable(...)` makes resource variables (TF1's default: ref variables; TF2's: resource)."""
    return tf2.behavior("resource_variables")


@tf_export("disable_resource_variables")
def disable_resource_variables() -> None:
    """Variables made from now on are ref variables."""
    tf2.force("resource_variables", False)


@tf_export("enable_resource_variables")
def enable_resource_variables() -> None:
    """Variables made from now on are resource variables (each read a snapshot)."""
    tf2.force("resource_variables", True)


@tf_export("control_flow_v2_enabled")
def control_flow_v2_enabled() -> bool:
    """Whether cond and while_loop build TF2's functional If and While (TF1's default: Switch/Merge and frames)."""
    return tf2.behavior("control_flow_v2")


@tf_export("disable_control_flow_v2")
def disable_control_flow_v2() -> None:
    """cond and while_loop built from now on are TF1's Switch/Merge and frame ops."""
    tf2.force("control_flow_v2", False)


@tf_export("enable_control_flow_v2")
def enable_control_flow_v2() -> None:
    """cond and while_loop built from now on are TF2's functional If and While ops."""
    tf2.force("control_flow_v2", True)


@tf_export("disable_v2_tensorshape")
def disable_v2_tensorshape() -> None:
    """Shapes index and iterate to `Dimension`s, as in TF1."""
    tf2.force("tensorshape", False)


@tf_export("enable_v2_tensorshape")
def enable_v2_tensorshape() -> None:
    """Shapes index and iterate to ints and None, and print unknown sizes as None, as in TF2."""
    tf2.force("tensorshape", True)


@tf_export("disable_tensor_equality")
def disable_tensor_equality() -> None:
    """Tensors and variables compare by identity and hash by id, as in TF1."""
    tf2.force("tensor_equality", False)


@tf_export("enable_tensor_equality")
def enable_tensor_equality() -> None:
    """TF2's element-wise `==`, which TF applies only to eager tensors: graph tensors (all of tensorweave's)
    still compare by identity and hash by id, so only the setting changes."""
    tf2.force("tensor_equality", True)


def strip_name_scope(name: str, export_scope: str | None) -> str:
    """`name` without the leading `export_scope/`, also after '^' or 'loc:@' (TF's ops.strip_name_scope):
    protos such as VariableDef name graph elements relative to the scope they are exported from."""
    if not export_scope:
        return name
    return re.sub(r"([\^]|loc:@|^)" + export_scope.rstrip("/") + r"[\/]+(.*)", r"\1\2", name, count=1)


def prepend_name_scope(name: str, import_scope: str | None) -> str:
    """`name` under `import_scope/`, also after '^' or 'loc:@' (TF's ops.prepend_name_scope)."""
    if not import_scope:
        return name
    return re.sub(r"([\^]|loc:@|^)(.*)", r"\1" + import_scope.rstrip("/") + r"/\2", name)


def get_graph_from_inputs(op_input_list: Any, graph: Graph | None = None) -> Graph:
    """The graph shared by the given inputs (the default graph when none carries one); a function graph
    being built takes them all (it captures outer tensors)."""
    if graph is None and get_default_graph().building_function:
        return get_default_graph()
    found = graph
    first = None
    for elem in op_input_list or ():
        if not isinstance(elem, (Tensor, Operation)) and hasattr(elem, "_as_graph_element"):
            elem = elem._as_graph_element()
        if not isinstance(elem, (Tensor, Operation)) or (isinstance(elem, Tensor) and elem._is_eager):
            continue
        if found is None:
            first, found = elem, elem.graph
        elif first is not None:
            if elem.graph is not found:
                raise ValueError(f"{elem} must be from the same graph as {first} (graphs are {elem.graph} "
                                 f"and {found}).")
        elif elem.graph is not found:
            raise ValueError(f"{elem} is not from the passed-in graph.")
    return found if found is not None else get_default_graph()


@tf_export("name_scope")
@contextlib.contextmanager
def name_scope(name: str | None, default_name: str | None = None, values: Any = None) -> Iterator[str]:
    """TF1's `tf.name_scope(name, default_name, values)`: a scope in the graph of `values`."""
    if name is None and default_name is None and values is not None:
        raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) must be provided.")
    if context.executing_eagerly():  # eager ops join no graph: the scope names nothing (TF's eager scope)
        yield ""
        return
    scope_name = default_name if name is None else name
    g = get_graph_from_inputs(values)
    with g.as_default(), g.name_scope(scope_name) as scope:
        yield scope


@tf_export("op_scope")
@contextlib.contextmanager
def op_scope(values: Any, name: str | None, default_name: str | None = None) -> Iterator[str]:
    """TF1's deprecated `tf.op_scope(values, name, default_name)`: `name_scope` with its arguments reordered."""
    with name_scope(name, default_name=default_name, values=values) as scope:
        yield scope


# -- tensor conversion -------------------------------------------------------------------------------

_conversion_functions: list[tuple[int, type | tuple, Callable]] = []
_conversion_cache: dict[type, list[tuple[type | tuple, Callable]]] = {}
_conversion_lock = threading.Lock()


# What `tf.constant` converts: TF keeps their conversion its own (`register_tensor_conversion_function`
# refuses them; the op library registers them through the internal function).
_CONSTANT_OP_CONVERTIBLES = (int, float, np.generic, np.ndarray)


def _base_types(base_type: type | tuple) -> tuple:
    base_types = base_type if isinstance(base_type, tuple) else (base_type,)
    if any(not isinstance(t, type) for t in base_types):
        raise TypeError(f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}")
    return base_types


@tf_export("register_tensor_conversion_function")
def register_tensor_conversion_function(base_type: type | tuple, conversion_func: Callable,
                                        priority: int = 100) -> None:
    """`tf.register_tensor_conversion_function`: as the internal function, but Python numbers and NumPy
    scalars and arrays (bool too, an int) are refused, as in TF."""
    if any(issubclass(t, _CONSTANT_OP_CONVERTIBLES) for t in _base_types(base_type)):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    register_tensor_conversion_function_internal(base_type, conversion_func, priority)


def register_tensor_conversion_function_internal(base_type: type | tuple, conversion_func: Callable,
                                                 priority: int = 100) -> None:
    """Register `conversion_func(value, dtype=None, name=None, as_ref=False)` for `base_type`, any type.

    Smaller priorities are tried first; equal priorities in registration order.
    """
    _base_types(base_type)
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")
    with _conversion_lock:
        _conversion_functions.append((priority, base_type, conversion_func))
        _conversion_functions.sort(key=lambda item: item[0])
        _conversion_cache.clear()


def _conversion_functions_for(cls: type) -> list[tuple[type | tuple, Callable]]:
    funcs = _conversion_cache.get(cls)
    if funcs is None:
        funcs = [(base, f) for _, base, f in _conversion_functions if issubclass(cls, base)]
        _conversion_cache[cls] = funcs
    return funcs


def _with_name(message: str, name: str | None) -> str:
    return message if name is None else f"{name}: {message}"


@tf_export("convert_to_tensor")
@add_dispatch_support
def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None, preferred_dtype: Any = None,
                      dtype_hint: Any = None) -> Tensor:
    """Convert a Tensor, Variable, numpy array, Python value or registered type to a Tensor.

    `preferred_dtype` (or its new name `dtype_hint`) is a soft request: it is tried first and silently
    dropped if conversion to it fails.
    """
    if preferred_dtype is not None and dtype_hint is not None:
        raise ValueError("Cannot specify both 'preferred_dtype' and 'dtype_hint'.")
    return internal_convert_to_tensor(value, dtype, name, preferred_dtype=dtype_hint if preferred_dtype is None
                                      else preferred_dtype)


def internal_convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False,
                               preferred_dtype: Any = None) -> Tensor:
    """`convert_to_tensor` with TF's internal `as_ref`: a ref-typed tensor (a variable's own) is wanted, as
    ref inputs of ops and colocation with a variable need; the public API has no such argument."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if preferred_dtype is not None:
        preferred_dtype = dtypes.as_dtype(preferred_dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(_with_name(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                                        f"{value.dtype.name}: {value!r}", name))
        if value._is_eager and not context.executing_eagerly():
            return value._graph_constant(name)  # an eager value in a graph is a constant there, as in TF
        return value
    if isinstance(value, Operation):
        raise TypeError(f"can't convert Operation '{value.name}' to Tensor")
    for base_type, func in _conversion_functions_for(type(value)):
        result = None
        if dtype is None and preferred_dtype is not None:
            try:
                result = func(value, dtype=preferred_dtype, name=name, as_ref=as_ref)
            except (TypeError, ValueError):
                result = None
            else:
                if result is not NotImplemented and result.dtype.base_dtype != preferred_dtype.base_dtype:
                    raise RuntimeError(_with_name(
                        f"Conversion function {func!r} for type {base_type} returned incompatible dtype: "
                        f"requested = {preferred_dtype.base_dtype.name}, actual = {result.dtype.base_dtype.name}",
                        name))
        if result is None:
            result = func(value, dtype=dtype, name=name, as_ref=as_ref)
        if result is NotImplemented:
            continue
        if not isinstance(result, Tensor):
            raise RuntimeError(_with_name(
                f"Conversion function {func!r} for type {base_type} returned non-Tensor: {result!r}", name))
        if dtype is not None and not dtype.is_compatible_with(result.dtype):
            raise RuntimeError(_with_name(
                f"Conversion function {func} for type {base_type} returned incompatible dtype: requested = "
                f"{dtype.name}, actual = {result.dtype.name}", name))
        return result
    if value is None:
        raise ValueError("None values not supported.")
    if dtype is not None:
        raise TypeError(f"Expected {dtype.name}, but got {value} of type '{type(value).__name__}'.")
    raise TypeError(f"Failed to convert elements of {value} to Tensor. Consider casting elements to a supported "
                    "type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")


def convert_n_to_tensor(values: list, dtype: Any = None, name: str | None = None) -> list[Tensor]:
    return [convert_to_tensor(v, dtype=dtype, name=None if name is None else f"{name}_{i}")
            for i, v in enumerate(values)]
