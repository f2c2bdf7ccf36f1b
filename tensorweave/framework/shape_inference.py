"""Shape inference on one node at a time, from a Python graph being built or from a GraphDef: TF's C++
`shape_inference::InferenceContext`, its ShapeRefiner's two passes, and EvaluateConstantTensor.

Every op's shape function takes an `InferenceContext`: the node's IR NodeDef and OpDef, its inputs' partial
shapes and dtypes, and, on request, their values (`input_value`) or their values read as partial shapes
(`input_as_shape`). A context is built from either source behind one small interface, the `GraphNode` and
`GraphTensor` protocols: a Python `Operation` and its `Tensor`s are such nodes and tensors, and so are the
views `infer_shapes` builds over a GraphDef's nodes. Values come from the same walk over either: a Const's
value, what static shapes tell (Shape, Size, Rank and their slices), else the constant subgraph behind the
tensor run on its registered CPU kernels. So shapes can be computed where no Python graph exists: on an
imported GraphDef, a partition, in a placer.

Invariants: a value once known for a tensor never changes, and a node found never constant stays so (shapes
are only ever refined), so `StaticValues` keeps both per graph. A shape function runs first blind (no input
value known); only when it asked for one does it run again with values, and an error of that second pass
lists the values it read, as TF's InferenceContext::AttachContext does.

One-way rule: this module reads the IR, the op registry (OpDefs, shape functions, CPU kernels) and
op_kernel; it never imports the Python graph, whose Operations it reads only through the protocols below.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry, tensor_shape
from tensorweave.framework.device_base import host_device
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import OpDef, arg_types
from tensorweave.framework.op_kernel import OpKernel

_SHAPE_TYPES = (dtypes.int32, dtypes.int64)
_INT64_MAX = 2**63 - 1
# Never evaluated while building: fed values, and control-flow frames (TF also runs a Switch whose
# predicate is constant; Switch has no dead-tensor support here, so it is left out).
_NOT_EVALUATED = frozenset({"PlaceholderWithDefault", "Enter", "RefEnter", "Exit", "RefExit", "Merge",
                            "RefMerge", "Switch", "RefSwitch"})
# Evaluated values are kept when at most this large, as TF's shape refiner keeps small ones.
_MAX_KEPT_BYTES = 1024


class GraphTensor(Protocol):
    """What shape inference reads of a tensor: its producer, output index, dtype and inferred shape."""

    @property
    def op(self) -> GraphNode: ...
    @property
    def value_index(self) -> int: ...
    @property
    def dtype(self) -> dtypes.DType: ...
    @property
    def shape(self) -> tensor_shape.TensorShape: ...


class GraphNode(Protocol):
    """What shape inference reads of a node: its IR NodeDef (`_node_def`, as `Operation` keeps it), its data
    inputs and its outputs."""

    _node_def: NodeDef

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def inputs(self) -> Sequence[GraphTensor]: ...
    @property
    def outputs(self) -> Sequence[GraphTensor]: ...


class BuiltNode(GraphNode, Protocol):
    """A node of a Python graph being built (graph.Operation, above this module): also its OpDef and inputs."""

    _op_def: OpDef
    _inputs: list[GraphTensor]


class PartialShapeError(ValueError):
    """An input that is no valid shape, found while reading its value as a partial shape (TF's
    ShapeRefiner::ConstantPartialShape, which runs before the shape function sees the value): TF reports
    it alone, without the node and input shapes that errors of the shape function itself get."""


class StaticValues:
    """The values one graph fixes while shapes are inferred (TF's EvaluateConstantTensor and
    ConstantPartialShape), with the graph's caches of known values and never-constant nodes.

    The readers of one shape function share the graph's caches: one made by `hiding_values` answers every
    value as unknown, noting that one was asked for (the first, blind pass); one made by `noting_values`
    lists each value it reads, for the error message of the second pass (which has, as TF's, every value the
    first pass asked for).
    """

    def __init__(self, never_constant: MutableMapping[Any, bool], evaluated: MutableMapping[Any, np.ndarray]
                 ) -> None:
        self._never_constant = never_constant
        self._evaluated = evaluated
        self.blind = False
        self.requested = False
        self.read: list[tuple[GraphTensor, np.ndarray]] | None = None
        self.asked: list[GraphTensor] = []

    def hiding_values(self) -> StaticValues:
        reader = StaticValues(self._never_constant, self._evaluated)
        reader.blind = True
        return reader

    def noting_values(self) -> StaticValues:
        reader = StaticValues(self._never_constant, self._evaluated)
        reader.read = []
        return reader

    def value(self, tensor: GraphTensor) -> np.ndarray | None:
        """The value of `tensor`, else None: a Const's, one static shapes tell, else the constant subgraph
        behind it run on its CPU kernels, when that subgraph reaches no placeholder, stateful op or
        control-flow frame. A kernel error means unknown."""
        if self.blind:
            self.requested = True
            self.asked.append(tensor)
            return None
        value = self._known_value(tensor)
        if value is None:
            value = self._evaluate(tensor)
        if value is not None and self.read is not None:
            self.read.append((tensor, value))
        return value

    def _known_value(self, tensor: GraphTensor) -> np.ndarray | None:
        """A value known without running a kernel: a Const's, one evaluated before, or one shapes tell; a loop
        invariant's (a constant Enter of a value from outside every loop), as TF's shape refiner finds it in
        a loop's body (not in a loop nested in it)."""
        if tensor.op.type == "Const":
            return tensor.op._node_def.attr["value"]
        if _outer_invariant(tensor.op):
            source = tensor.op.inputs[0]
            value = self._known_value(source)
            return value if value is not None else self._evaluate(source)
        value = self._evaluated.get(tensor)
        return _value_from_shapes(tensor) if value is None else value

    def _never_constant_node(self, op: GraphNode) -> bool:
        """True when no output of `op` can ever be evaluated: it cannot run, or it runs on such an output.

        Unlike a value, this never changes as shapes are refined (outputs that static shapes may tell are
        never marked), so it is remembered, and a search for a constant subgraph stops at such an op at once
        instead of walking all the way back to the graph's placeholders each time.
        """
        known = self._never_constant
        stack = [op]
        while stack:
            top = stack[-1]
            if top in known:
                stack.pop()
                continue
            if top.type == "Const" or top.type in ("Shape", "ShapeN", "Size", "Rank") or _outer_invariant(top) or (
                    top.type in ("StridedSlice", "Unpack") and top.inputs[0].op.type == "Shape"):
                never = False
            elif not _evaluable(top):
                never = True
            elif any(known.get(t.op) for t in top.inputs):
                never = True
            else:
                pending = [t.op for t in top.inputs if t.op not in known]
                if pending:
                    stack.extend(pending)
                    continue
                never = False
            known[top] = never
            stack.pop()
        return known[op]

    def _evaluate(self, tensor: GraphTensor) -> np.ndarray | None:
        """Run the constant subgraph that computes `tensor`.

        The subgraph is found breadth first from `tensor`, stopping at values already known; it is given up
        at the first node that cannot be evaluated. Then each node runs once, inputs first.
        """
        target = tensor.op
        if not _evaluable(target) or self._never_constant_node(target):
            return None
        known: dict[GraphTensor, np.ndarray] = {}
        found = [target]
        members = {target}
        for op in found:  # grows while it is walked
            for t in op.inputs:
                if t.op in members or t in known:
                    continue
                value = self._known_value(t)
                if value is not None:
                    known[t] = value
                elif _evaluable(t.op) and not self._never_constant_node(t.op):
                    members.add(t.op)
                    found.append(t.op)
                else:
                    return None
        outputs: dict[GraphNode, list[np.ndarray]] = {}
        stack = [target]
        while stack:
            op = stack[-1]
            waiting = [t.op for t in op.inputs if t not in known and t.op not in outputs]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            if op not in outputs:
                inputs = [known[t] if t in known else outputs[t.op][t.value_index] for t in op.inputs]
                result = run_kernel(op, inputs)
                if result is None:
                    return None
                outputs[op] = result
        value = outputs[target][tensor.value_index]
        value.flags.writeable = False
        if value.nbytes <= _MAX_KEPT_BYTES:
            self._evaluated[tensor] = value
        return value

    def as_shape(self, tensor: GraphTensor) -> tensor_shape.TensorShape:
        """A shape vector (Reshape's `shape`, Fill's `dims`) as a partial shape (MakeShapeFromShapeTensor):
        dims known piece by piece, else from its whole value (-1 is unknown), else as many unknown dims as
        the vector is long. Raises PartialShapeError with TF's message where TF does."""
        length = _shape_vector_length(tensor)
        try:
            shape = self._partial_shape(tensor)
        except ValueError as e:
            raise PartialShapeError(str(e)) from None
        if shape.ndims is None:
            shape = _shape_from_value(self.value(tensor), length)
        return shape

    def _partial_shape(self, tensor: GraphTensor) -> tensor_shape.TensorShape:
        """TF's ConstantPartialShape: a shape vector built from Shape, Pack, ConcatV2, StridedSlice and Cast
        pieces keeps the dims each piece knows, though the whole value is unknown."""
        length = _shape_vector_length(tensor)
        op = tensor.op
        if length == 0:
            return tensor_shape.TensorShape([])
        if op.type == "Cast":
            return self._cast_partial_shape(tensor, length)
        if op.type == "Shape":
            return op.inputs[0].shape
        if op.type == "Pack":
            dims = [self._int_scalar(t) for t in op.inputs]
            return tensor_shape.TensorShape([None if d is None or d < 0 else d for d in dims])
        if op.type == "ConcatV2":
            shape = tensor_shape.TensorShape([])
            for piece in op.inputs[:-1]:
                piece_shape = self._partial_shape(piece)
                if piece_shape.ndims is None:
                    return tensor_shape.unknown_shape()
                shape = shape.concatenate(piece_shape)
            return shape
        if op.type == "StridedSlice":
            return self._strided_slice_partial_shape(op)
        return _shape_from_value(self.value(tensor), length)

    def _cast_partial_shape(self, tensor: GraphTensor, length: int | None) -> tensor_shape.TensorShape:
        """A Cast's whole value when it is a valid shape, else its input's dims (all unknown past a cast to a
        type other than int32/int64)."""
        value = self.value(tensor)
        if value is not None:
            try:
                return _shape_from_value(value, length)
            except ValueError:
                pass
        try:
            source = self._partial_shape(tensor.op.inputs[0])
        except ValueError:
            return tensor_shape.unknown_shape()
        if source.ndims is not None and tensor.op._node_def.attr["DstT"].base_dtype not in _SHAPE_TYPES:
            return tensor_shape.unknown_shape(rank=source.ndims)
        return source

    def _strided_slice_partial_shape(self, op: GraphNode) -> tensor_shape.TensorShape:
        """`shape[begin:end:stride]` of a partial shape (TF's PartialStridedSliceShape): one-element begin,
        end and strides, begin/end masks of 0 or 1 and no other mask; any other slice is unknown here."""
        attr = op._node_def.attr
        if (any(t.shape.ndims != 1 or t.shape.as_list()[0] != 1 for t in op.inputs[1:])
                or attr["begin_mask"] not in (0, 1) or attr["end_mask"] not in (0, 1)
                or attr["ellipsis_mask"] or attr["new_axis_mask"] or attr["shrink_axis_mask"]):
            return tensor_shape.unknown_shape()
        begin = 0 if attr["begin_mask"] else self._int_scalar(op.inputs[1])
        end = _INT64_MAX if attr["end_mask"] else self._int_scalar(op.inputs[2])
        stride = self._int_scalar(op.inputs[3])
        if begin is None or end is None or stride is None:
            return tensor_shape.unknown_shape()
        return _subshape(self._partial_shape(op.inputs[0]), begin, end, stride)

    def _int_scalar(self, tensor: GraphTensor) -> int | None:
        """A one-element int32/int64 value, None when unknown (TF's EvaluateConstantIntScalarEdge)."""
        value = self.value(tensor)
        if value is None:
            return None
        if value.size != 1:
            raise ValueError(f"EvaluateConstantIntScalarEdge called on non-scalar edge: {value.size}")
        if dtypes.as_dtype(value.dtype) not in _SHAPE_TYPES:
            raise ValueError(f"EvaluateConstantIntScalarEdge called on non-integer edge: "
                             f"{dtypes.as_dtype(value.dtype).as_datatype_enum}")
        return int(value.reshape(-1)[0])


# The values of Python graphs, kept per Tensor and Operation for as long as they live.
PYTHON_GRAPH_VALUES = StaticValues(weakref.WeakKeyDictionary(), weakref.WeakKeyDictionary())


def _value_from_shapes(tensor: GraphTensor) -> np.ndarray | None:
    """What static shapes alone tell of an int32/int64 tensor (TF's TryInferFromShapes)."""
    op = tensor.op
    if not op.inputs or tensor.dtype.base_dtype not in _SHAPE_TYPES:
        return None
    np_type = tensor.dtype.as_numpy_dtype
    source = op.inputs[tensor.value_index if op.type == "ShapeN" else 0]
    if op.type in ("Shape", "ShapeN", "Size"):
        if not source.shape.is_fully_defined():
            return None
        if op.type == "Size":
            return np.array(source.shape.num_elements(), np_type)
        return np.array(source.shape.as_list(), np_type)
    if op.type == "Rank":
        return None if source.shape.ndims is None else np.array(source.shape.ndims, np_type)
    index = _shape_index(tensor)
    if source.op.type != "Shape" or index is None:
        return None
    dims = source.op.inputs[0].shape
    if dims.ndims is None or not -dims.ndims <= index < dims.ndims or dims.as_list()[index] is None:
        return None
    return np.array(dims.as_list()[index], np_type)


def _shape_index(tensor: GraphTensor) -> int | None:
    """`i` when `tensor` is `t[i]` with a Const `i`, or `tf.unstack(t)[i]` (TF's GetSliceIndex)."""
    op = tensor.op
    attr = op._node_def.attr
    if op.type == "Unpack":
        return tensor.value_index if attr["axis"] == 0 else None
    if op.type != "StridedSlice" or attr["shrink_axis_mask"] != 1 or any(
            attr[m] for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask")):
        return None
    begin = op.inputs[1]
    if begin.op.type != "Const" or begin.dtype.base_dtype not in _SHAPE_TYPES:
        return None
    value = begin.op._node_def.attr["value"]
    return int(value.reshape(-1)[0]) if value.size == 1 else None


def _outer_invariant(op: GraphNode) -> bool:
    """A loop's constant Enter of a value made outside every loop (its value is that value's)."""
    return (op.type in ("Enter", "RefEnter") and bool(op._node_def.attr.get("is_constant"))
            and op.inputs[0].op.type not in ("Enter", "RefEnter"))


def _evaluable(op: GraphNode) -> bool:
    """TF's IsSupportedForEvaluation, for a node with inputs: stateless, outside frames, with a CPU kernel
    for its dtypes (a node no kernel supports fails the session instead, so its value stays unknown)."""
    if not op.inputs or op.type in _NOT_EVALUATED:
        return False
    try:
        registered = op_registry.get(op.type)
    except KeyError:
        return False
    kernel = registered.find_kernel("CPU", op._node_def.attr)
    return not registered.op_def.is_stateful and kernel is not None and not kernel.asynchronous


def run_kernel(op: GraphNode, inputs: list[np.ndarray]) -> list[np.ndarray] | None:
    """The outputs of `op`'s CPU kernel on `inputs` on a throwaway host device, or None if it fails (TF
    suppresses the error: the step reports it)."""
    kernel = op_registry.get(op.type).find_kernel("CPU", op._node_def.attr)
    try:
        outputs = OpKernel(kernel, op._node_def, host_device()).compute(inputs)
    except errors.OpError:
        return None
    return [np.asarray(v) for v in outputs]


def _shape_vector_length(tensor: GraphTensor) -> int | None:
    """The length of a shape vector (None if unknown); TF's error for a tensor that is not a vector."""
    shape = tensor.shape
    if shape.ndims is None:
        return None
    if shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims}")
    return shape.as_list()[0]


def _subshape(shape: tensor_shape.TensorShape, begin: int, end: int, stride: int) -> tensor_shape.TensorShape:
    """TF's InferenceContext::Subshape: Python's slice clamping, with TF's errors for bounds it rejects
    (a reversed slice from a masked begin, `[::-1]`, is one: TF computes its begin as 0)."""
    rank = shape.ndims
    if begin == 0 and stride == 1 and (end == _INT64_MAX or (rank is not None and end >= rank)):
        return shape
    if rank is None:
        return tensor_shape.unknown_shape()
    start, stop = min(begin, rank), min(end, rank)
    if stride < 0 and start == rank:
        start -= 1
    start, stop = start + rank if start < 0 else start, stop + rank if stop < 0 else stop
    if start < 0:
        raise ValueError(f"Subshape start out of bounds: {begin}, for shape with rank {rank}")
    if stop < 0:
        raise ValueError(f"Subshape end out of bounds: {end}, for shape with rank {rank}")
    if stride < 0 and start < stop:
        raise ValueError(f"Subshape must have computed start >= end since stride is negative, but is {start} "
                         f"and {stop} (computed from start {begin} and end {end} over shape with rank {rank} "
                         f"and stride{stride})")
    return tensor_shape.TensorShape(shape.dims[start:stop:stride])


def _shape_from_value(value: np.ndarray | None, length: int | None) -> tensor_shape.TensorShape:
    """TF's MakeShapeFromTensor: a known vector's entries (-1 unknown), else `length` unknown dims."""
    if value is None:
        return tensor_shape.unknown_shape(rank=length)
    dtype = dtypes.as_dtype(value.dtype)
    if dtype not in _SHAPE_TYPES:
        raise ValueError(f"Input tensor must be int32 or int64, but was {dtypes.type_string(dtype)}")
    dims = [int(d) for d in value.reshape(-1)]
    invalid = [d for d in dims if d < -1]
    if invalid:
        raise ValueError(f"Invalid value in tensor used for shape: {invalid[0]}")
    return tensor_shape.TensorShape([None if d == -1 else d for d in dims])


def _shape_string(shape: tensor_shape.TensorShape) -> str:
    """A shape as TF's InferenceContext::DebugString prints it: `[?,3]`, or `?` for an unknown rank."""
    return tensor_shape.shape_string(shape, unknown_rank="?")


class InferenceContext:
    """One node's shape inference: what its shape function may read, and what it read (for its errors)."""

    def __init__(self, node_def: NodeDef, op_def: OpDef, inputs: Sequence[GraphTensor], values: StaticValues
                 ) -> None:
        """`inputs` are the node's data inputs in order; `values` the graph's static values."""
        self.node_def = node_def
        self.op_def = op_def
        self._inputs = list(inputs)
        self._graph_values = values
        self._reader = values.noting_values()
        self._as_shapes: dict[int, tensor_shape.TensorShape] = {}

    @classmethod
    def for_operation(cls, op: BuiltNode) -> InferenceContext:
        """The context of an op being created in a Python graph (values cached with the graph's tensors)."""
        return cls(op._node_def, op._op_def, op._inputs, PYTHON_GRAPH_VALUES)

    def attr(self, name: str) -> Any:
        """An attr's IR value (DType, int, bool, TensorShape, numpy array, ...)."""
        return self.node_def.attr[name]

    @property
    def num_inputs(self) -> int:
        return len(self._inputs)

    def input_shape(self, index: int) -> tensor_shape.TensorShape:
        return self._inputs[index].shape

    def input(self, index: int) -> GraphTensor:
        """The input tensor itself, for a shape function that reads its producer (a resource's handle op)."""
        return self._inputs[index]

    @property
    def input_shapes(self) -> list[tensor_shape.TensorShape]:
        return [t.shape for t in self._inputs]

    def input_dtype(self, index: int) -> dtypes.DType:
        return self._inputs[index].dtype

    def input_value(self, index: int) -> np.ndarray | None:
        """The input's value when the graph fixes it, else None (TF's `input_tensor`)."""
        return self._reader.value(self._inputs[index])

    def input_dim(self, index: int) -> int | None:
        """The scalar input's value as a dimension size, None while unknown (TF's MakeDimForScalarInput)."""
        value = self.input_value(index)
        if value is not None and np.ndim(value) != 0:
            raise ValueError(f"Input must be scalar but has rank {np.ndim(value)}")
        if value is not None and int(value) < 0:
            raise ValueError(f"Dimension size, given by scalar input {index}, must be non-negative but is "
                             f"{int(value)}")
        return None if value is None else int(value)

    def input_as_shape(self, index: int) -> tensor_shape.TensorShape:
        """The input, a shape vector, as a partial shape (TF's MakeShapeFromShapeTensor)."""
        shape = self._reader.as_shape(self._inputs[index])
        if not self._reader.blind and shape.ndims is not None:
            for i, t in enumerate(self._inputs):
                if t is self._inputs[index]:
                    self._as_shapes[i] = shape
        return shape

    def run(self, shape_fn: op_registry.ShapeFunction) -> list[tensor_shape.TensorShape]:
        """The node's output shapes by `shape_fn`, in TF's two passes; a shape error is a ValueError naming
        the node, its input shapes and the input values the failing pass read."""
        self._reader = self._graph_values.hiding_values()
        try:
            shapes = shape_fn(self)
            if self._reader.requested:
                asked = self._reader.asked
                self._reader = self._graph_values.noting_values()
                for tensor in asked:  # TF's second pass has each value the first asked for, read or not
                    self._reader.value(tensor)
                shapes = shape_fn(self)
        except PartialShapeError as e:
            raise ValueError(str(e)) from None
        except ValueError as e:
            raise ValueError(f"{e} for '{self._node_summary()}' with input shapes: "
                             f"{', '.join(_shape_string(t.shape) for t in self._inputs)}"
                             f"{self._requested_inputs()}.") from None
        return [s if isinstance(s, tensor_shape.TensorShape) else tensor_shape.as_shape(s) for s in shapes]

    def _node_summary(self) -> str:
        """The node as TF's shape-inference errors name it: `{{node n}} = Op[a=1, T=DT_FLOAT](x, y)`.

        Only what TF's C layer has at that point: the op-def attrs, the data inputs and the control inputs
        the op was created with (a control_dependencies block's).
        """
        node = self.node_def
        inputs = ", ".join(node.input)
        return f"{{{{node {node.name}}}}} = {node.op}[{op_registry.attrs_summary(self.op_def, node)}]({inputs})"

    def _requested_inputs(self) -> str:
        """The inputs a failed shape function read, as TF's InferenceContext::AttachContext appends them."""
        values: dict[int, np.ndarray] = {}
        for tensor, value in self._reader.read or ():
            for i, t in enumerate(self._inputs):
                if t is tensor:
                    values[i] = value
        text = ""
        computed = [f"input[{i}] = <{_summarize_value(np.asarray(v))}>" for i, v in sorted(values.items())
                    if i not in self._as_shapes]
        if computed:
            text += " and with computed input tensors: " + ", ".join(computed)
        if self._as_shapes:
            text += " and with input tensors computed as partial shapes: " + ",".join(
                f"input[{i}] = {_shape_string(s)}" for i, s in sorted(self._as_shapes.items()))
        return text


def _summarize_value(value: np.ndarray, limit: int = 256) -> str:
    """Tensor::SummarizeValue: elements separated by spaces, inner dimensions in brackets, '...' past `limit`."""
    def element(x: Any) -> str:  # as TF's StrCat: shortest round-tripping float, bools 1/0, bytes as text
        if isinstance(x, bool):
            return str(int(x))
        if isinstance(x, float):
            short, full, kind = (6, 9, np.float32) if value.dtype.itemsize <= 4 else (15, 17, np.float64)
            text = f"{x:.{short}g}"
            return text if kind(text) == kind(x) else f"{x:.{full}g}"
        return x.decode(errors="replace") if isinstance(x, bytes) else str(x)

    def nested(part: np.ndarray, outer: bool) -> str:
        inner = " ".join(map(element, part.tolist())) if part.ndim == 1 else "".join(nested(p, False) for p in part)
        return inner if outer else f"[{inner}]"

    if value.ndim == 0:
        return element(value.item())
    if value.size > limit:
        return " ".join(map(element, value.reshape(-1)[:limit].tolist())) + "..."
    return nested(value, True)


# -- Shape inference over a GraphDef ------------------------------------------------------------------


@dataclass(eq=False)
class _NodeView:
    """A GraphDef node as shape inference reads it: its NodeDef with the OpDef's attr defaults filled in."""

    _node_def: NodeDef
    op_def: OpDef | None
    inputs: list[_TensorView] = field(default_factory=list)
    outputs: list[_TensorView] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self._node_def.name

    @property
    def type(self) -> str:
        return self._node_def.op


@dataclass(eq=False)
class _TensorView:
    """One output of a GraphDef node: unknown in shape until its node's shape function has run."""

    op: _NodeView
    value_index: int
    dtype: dtypes.DType
    shape: tensor_shape.TensorShape = field(default_factory=tensor_shape.unknown_shape)


def infer_shapes(graph_def: GraphDef) -> dict[str, list[tensor_shape.TensorShape]]:
    """Every node's output shapes, by name, from the shape functions run over the GraphDef in topological
    order (as TF's ShapeRefiner does when a graph is imported). Nodes of unregistered ops, or of ops without
    a shape function, have outputs of unknown shape; so have nodes in a cycle for the inputs of theirs that
    come around it. A shape error is a ValueError with the message graph construction gives."""
    views = {node.name: _node_view(node) for node in graph_def.node}
    for view in views.values():
        _connect_inputs(view, views)
    values = StaticValues({}, {})
    for view in _topological_order(graph_def, views):
        shape_fn = op_registry.get(view.type).shape_fn if view.op_def is not None else None
        if shape_fn is None:
            continue
        context = InferenceContext(view._node_def, view.op_def, view.inputs, values)
        for t, shape in zip(view.outputs, context.run(shape_fn)):
            t.shape = shape
    return {name: [t.shape for t in view.outputs] for name, view in views.items()}


def _node_view(node: NodeDef) -> _NodeView:
    """A node's view with its registered outputs (an unregistered op's are added as consumers name them)."""
    try:
        op_def = op_registry.get(node.op).op_def
    except KeyError:
        return _NodeView(node, None)
    attrs = {a.name: a.default for a in op_def.attrs if a.has_default and a.name not in node.attr}
    view = _NodeView(dataclasses.replace(node, attr={**attrs, **node.attr}), op_def)
    types = arg_types(op_def.output_args, view._node_def.attr)
    view.outputs = [_TensorView(view, i, dtype) for i, dtype in enumerate(types)]
    return view


def _connect_inputs(view: _NodeView, views: dict[str, _NodeView]) -> None:
    """The data inputs of a registered op's node, typed as its signature says (which types the outputs
    of an unregistered producer too)."""
    if view.op_def is None:
        return
    types = arg_types(view.op_def.input_args, view._node_def.attr)
    specs = [spec for spec in view._node_def.input if not spec.startswith("^")]
    if len(specs) != len(types):
        raise ValueError(f"Node '{view.name}': expected {len(types)} data inputs, got {len(specs)}")
    for spec, dtype in zip(specs, types):
        name, index = parse_input(spec)
        producer = views.get(name)
        if producer is None:
            raise ValueError(f"Node '{view.name}': Unknown input node '{spec}'")
        if producer.op_def is None:
            while len(producer.outputs) <= index:
                producer.outputs.append(_TensorView(producer, len(producer.outputs), dtype))
        elif index >= len(producer.outputs):
            raise ValueError(f"Node '{view.name}': Connecting to invalid output {index} of source node {name} "
                             f"which has {len(producer.outputs)} outputs.")
        view.inputs.append(producer.outputs[index])


def _topological_order(graph_def: GraphDef, views: dict[str, _NodeView]) -> list[_NodeView]:
    """The nodes with each after its data and control inputs; those in cycles after the rest, in order."""
    pending = {node.name: 0 for node in graph_def.node}
    consumers: dict[str, list[str]] = {name: [] for name in pending}
    for node in graph_def.node:
        for spec in node.input:
            producer = parse_input(spec)[0]
            if producer in consumers:
                consumers[producer].append(node.name)
                pending[node.name] += 1
    ready = [name for name, count in pending.items() if count == 0]
    order = []
    for name in ready:  # grows while it is walked
        order.append(name)
        for consumer in consumers[name]:
            pending[consumer] -= 1
            if pending[consumer] == 0:
                ready.append(consumer)
    placed = set(order)
    order.extend(node.name for node in graph_def.node if node.name not in placed)
    return [views[name] for name in order]
