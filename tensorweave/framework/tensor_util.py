"""Python values to the arrays Const nodes hold, and the values a graph fixes while it is being built.

`make_ndarray_value` types values with TensorProto's rules (formats/tensor_proto.py: Python floats become
float32, ints int32 when they fit, a scalar broadcasts to `shape`, a short list repeats its last value).

Two strengths of static evaluation, as in TF:
- `constant_value` and `constant_value_as_shape` are what TF's C++ shape inference sees when a shape
  function asks for an input's value (EvaluateConstantTensor, MakeShapeFromShapeTensor): values read off
  static shapes, else the registered CPU kernels run over the constant subgraph behind the tensor. Shape
  functions use them, so `tf.reshape(x, tf.constant([2, 3]) * 2)` has shape [4, 6], as in TF.
- `get_static_value` is TF's Python `tf.get_static_value`: a fixed list of op types, no arithmetic, and a
  tensor it resolves can no longer be fed. Python-side wrappers that TF writes with it use it.
A value that cannot be computed is None (or unknown dims), never an error; only an invalid shape vector
raises, with TF's message.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats.tensor_proto import typed_ndarray
from tensorweave.framework import dtypes, op_registry, tensor_shape
from tensorweave.framework.device_base import host_device
from tensorweave.framework.graph import Operation, Tensor
from tensorweave.framework.op_kernel import OpKernel

_CPP_TYPE_NAMES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.float16: "half"}
_SHAPE_TYPES = (dtypes.int32, dtypes.int64)
_INT64_MAX = 2**63 - 1
# Never evaluated while building: fed values, and control-flow frames (TF also runs a Switch whose
# predicate is constant; Switch has no dead-tensor support here, so it is left out).
_NOT_EVALUATED = frozenset({"PlaceholderWithDefault", "Enter", "RefEnter", "Exit", "RefExit", "Merge",
                            "RefMerge", "Switch", "RefSwitch"})
# Per op, whether no output can ever be evaluated: a fact of the graph's structure, so it is kept.
_NEVER_CONSTANT: weakref.WeakKeyDictionary[Operation, bool] = weakref.WeakKeyDictionary()
# Small evaluated values, kept as TF's shape refiner keeps them: a value once known never changes (shapes
# are only ever refined), and a later evaluation stops there instead of running the subgraph again.
_EVALUATED: weakref.WeakKeyDictionary[Tensor, np.ndarray] = weakref.WeakKeyDictionary()
_MAX_KEPT_BYTES = 1024


def type_string(dtype: dtypes.DType) -> str:
    """TF's C++ DataTypeString ('float', 'double', 'int32'), as runtime error messages spell types."""
    return _CPP_TYPE_NAMES.get(dtype.base_dtype, dtype.base_dtype.name)


def shape_string(shape: Any) -> str:
    """A shape as TF's runtime prints it: '[2,3]', '[?,784]', '<unknown>'."""
    if shape is None:
        return "<unknown>"
    if isinstance(shape, tensor_shape.TensorShape):
        if shape.ndims is None:
            return "<unknown>"
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


def merge_shapes(a: tensor_shape.TensorShape, b: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The merge of two partial shapes, failing with the messages of TF's C++ shape inference."""
    if a.ndims is None:
        return b
    if b.ndims is None:
        return a
    if a.ndims != b.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
    merged = []
    for i, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                             f"{shape_string(a)} and {shape_string(b)}.")
        merged.append(x if x is not None else y)
    return tensor_shape.TensorShape(merged)


def _string_array(array: np.ndarray) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1)):
        flat[i] = v.encode() if isinstance(v, str) else bytes(v)
    return out


def make_ndarray_value(values: Any, dtype: Any = None, shape: Any = None, verify_shape: bool = False,
                       allow_broadcast: bool = False) -> np.ndarray:
    """The array a Const node holds for `values`: TensorProto's typing rules, expanded to the full shape."""
    no_tensors = "Expected any non-tensor type, but got a tensor instead."  # a graph value has no array
    if isinstance(values, Tensor) and dtype is None:
        raise TypeError(no_tensors)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    try:  # `shape` as given: TensorProto's rules int() each dim (2.5 -> 2), as TF's make_tensor_proto does
        array, enum, full_shape = typed_ndarray(values, dtype, shape, verify_shape, allow_broadcast)
    except NotImplementedError:  # Tensor.__array__: a tensor nested in a list
        raise TypeError(no_tensors) from None
    full_shape = tensor_shape.as_shape(full_shape).as_list()  # a negative size fails here, as in TF
    if enum == dtypes.string.as_datatype_enum:
        array = _string_array(np.asarray(array))
    size = int(np.prod(full_shape, dtype=np.int64))
    if array.size == size:
        return array.reshape(full_shape)
    if array.size == 0:
        return np.zeros(full_shape, dtype=array.dtype)
    return np.pad(array.reshape(-1), (0, size - array.size), "edge").reshape(full_shape)


# -- Graph-time evaluation, as TF's shape inference does it ------------------------------------------


def is_tensor(x: Any) -> bool:
    """Whether `x` is a graph tensor or acts as one (variables declare `is_tensor_like`); numpy arrays and
    Python values are not, even though they convert."""
    return isinstance(x, Tensor) or getattr(x, "is_tensor_like", False) is True


def constant_value(tensor: Tensor) -> np.ndarray | None:
    """The value of `tensor` as TF's shape inference computes it while building the graph, else None.

    A Const's value; a value read off static shapes (Shape, Size, Rank, `tf.shape(x)[i]`,
    `tf.unstack(tf.shape(x))[i]`); else the constant subgraph behind it run on its CPU kernels, when that
    subgraph reaches no placeholder, stateful op or control-flow frame. A kernel error means unknown.
    """
    if op_registry.input_value_hidden(tensor):
        return None
    value = _known_value(tensor)
    if value is None:
        value = _evaluate(tensor)
    op_registry.note_input_value(tensor, value)
    return value


def _known_value(tensor: Tensor) -> np.ndarray | None:
    """A value known without running a kernel: a Const's, one evaluated before, or one shapes tell."""
    if tensor.op.type == "Const":
        return tensor.op._node_def.attr["value"]
    value = _EVALUATED.get(tensor)
    return _value_from_shapes(tensor) if value is None else value


def _value_from_shapes(tensor: Tensor) -> np.ndarray | None:
    """What static shapes alone tell of an int32/int64 tensor (TF's TryInferFromShapes)."""
    op = tensor.op
    if not op.inputs or tensor.dtype.base_dtype not in _SHAPE_TYPES:
        return None
    np_type = tensor.dtype.as_numpy_dtype
    source = op.inputs[0]
    if op.type in ("Shape", "Size"):
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


def _shape_index(tensor: Tensor) -> int | None:
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


def _evaluable(op: Operation) -> bool:
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


def _never_constant(op: Operation) -> bool:
    """True when no output of `op` can ever be evaluated: it cannot run, or it runs on such an output.

    Unlike a value, this never changes as shapes are refined (outputs that static shapes may tell are
    never marked), so it is remembered, and a search for a constant subgraph stops at such an op at once
    instead of walking all the way back to the graph's placeholders each time.
    """
    stack = [op]
    while stack:
        top = stack[-1]
        if top in _NEVER_CONSTANT:
            stack.pop()
            continue
        if top.type == "Const" or top.type in ("Shape", "Size", "Rank") or (
                top.type in ("StridedSlice", "Unpack") and top.inputs[0].op.type == "Shape"):
            never = False
        elif not _evaluable(top):
            never = True
        elif any(_NEVER_CONSTANT.get(t.op) for t in top.inputs):
            never = True
        else:
            pending = [t.op for t in top.inputs if t.op not in _NEVER_CONSTANT]
            if pending:
                stack.extend(pending)
                continue
            never = False
        _NEVER_CONSTANT[top] = never
        stack.pop()
    return _NEVER_CONSTANT[op]


def _evaluate(tensor: Tensor) -> np.ndarray | None:
    """Run the constant subgraph that computes `tensor` (TF's EvaluateConstantTensor).

    The subgraph is found breadth first from `tensor`, stopping at values already known; it is given up
    at the first node that cannot be evaluated. Then each node runs once, inputs first.
    """
    target = tensor.op
    if not _evaluable(target) or _never_constant(target):
        return None
    known: dict[Tensor, np.ndarray] = {}
    found = [target]
    members = {target}
    for op in found:  # grows while it is walked
        for t in op.inputs:
            if t.op in members or t in known:
                continue
            value = _known_value(t)
            if value is not None:
                known[t] = value
            elif _evaluable(t.op) and not _never_constant(t.op):
                members.add(t.op)
                found.append(t.op)
            else:
                return None
    outputs: dict[Operation, list[np.ndarray]] = {}
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
            result = _run_kernel(op, inputs)
            if result is None:
                return None
            outputs[op] = result
    value = outputs[target][tensor.value_index]
    value.flags.writeable = False
    if value.nbytes <= _MAX_KEPT_BYTES:
        _EVALUATED[tensor] = value
    return value


def _run_kernel(op: Operation, inputs: list[np.ndarray]) -> list[np.ndarray] | None:
    """The outputs of `op`'s CPU kernel on `inputs` on a throwaway host device, or None if it fails (TF
    suppresses the error: the step reports it)."""
    kernel = op_registry.get(op.type).find_kernel("CPU", op._node_def.attr)
    try:
        outputs = OpKernel(kernel, op._node_def, host_device()).compute(inputs)
    except errors.OpError:
        return None
    return [np.asarray(v) for v in outputs]


def constant_value_as_shape(tensor: Tensor) -> tensor_shape.TensorShape:
    """A shape vector (Reshape's `shape`, Fill's `dims`) as the partial shape TF's shape functions read
    (MakeShapeFromShapeTensor): dims known piece by piece, else from its whole value (-1 is unknown),
    else as many unknown dims as the vector is long. Raises ValueError with TF's message where TF does."""
    length = _shape_vector_length(tensor)
    try:
        shape = _partial_shape(tensor)
    except ValueError as e:
        raise op_registry.PartialShapeError(str(e)) from None
    if shape.ndims is None:
        shape = _shape_from_value(constant_value(tensor), length)
    op_registry.note_input_value(tensor, shape, as_shape=True)
    return shape


def _shape_vector_length(tensor: Tensor) -> int | None:
    """The length of a shape vector (None if unknown); TF's error for a tensor that is not a vector."""
    shape = tensor.shape
    if shape.ndims is None:
        return None
    if shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims}")
    return shape.as_list()[0]


def _partial_shape(tensor: Tensor) -> tensor_shape.TensorShape:
    """TF's ConstantPartialShape: a shape vector built from Shape, Pack, ConcatV2, StridedSlice and Cast
    pieces keeps the dims each piece knows, though the whole value is unknown."""
    length = _shape_vector_length(tensor)
    op = tensor.op
    if length == 0:
        return tensor_shape.TensorShape([])
    if op.type == "Cast":
        return _cast_partial_shape(tensor, length)
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack":
        dims = [_int_scalar(t) for t in op.inputs]
        return tensor_shape.TensorShape([None if d is None or d < 0 else d for d in dims])
    if op.type == "ConcatV2":
        shape = tensor_shape.TensorShape([])
        for piece in op.inputs[:-1]:
            piece_shape = _partial_shape(piece)
            if piece_shape.ndims is None:
                return tensor_shape.unknown_shape()
            shape = shape.concatenate(piece_shape)
        return shape
    if op.type == "StridedSlice":
        return _strided_slice_partial_shape(op)
    return _shape_from_value(constant_value(tensor), length)


def _cast_partial_shape(tensor: Tensor, length: int | None) -> tensor_shape.TensorShape:
    """A Cast's whole value when it is a valid shape, else its input's dims (all unknown past a cast to a
    type other than int32/int64)."""
    value = constant_value(tensor)
    if value is not None:
        try:
            return _shape_from_value(value, length)
        except ValueError:
            pass
    try:
        source = _partial_shape(tensor.op.inputs[0])
    except ValueError:
        return tensor_shape.unknown_shape()
    if source.ndims is not None and tensor.op._node_def.attr["DstT"].base_dtype not in _SHAPE_TYPES:
        return tensor_shape.unknown_shape(rank=source.ndims)
    return source


def _strided_slice_partial_shape(op: Operation) -> tensor_shape.TensorShape:
    """`shape[begin:end:stride]` of a partial shape (TF's PartialStridedSliceShape): one-element begin,
    end and strides, begin/end masks of 0 or 1 and no other mask; any other slice is unknown here."""
    attr = op._node_def.attr
    if (any(t.shape.ndims != 1 or t.shape.as_list()[0] != 1 for t in op.inputs[1:])
            or attr["begin_mask"] not in (0, 1) or attr["end_mask"] not in (0, 1)
            or attr["ellipsis_mask"] or attr["new_axis_mask"] or attr["shrink_axis_mask"]):
        return tensor_shape.unknown_shape()
    begin = 0 if attr["begin_mask"] else _int_scalar(op.inputs[1])
    end = _INT64_MAX if attr["end_mask"] else _int_scalar(op.inputs[2])
    stride = _int_scalar(op.inputs[3])
    if begin is None or end is None or stride is None:
        return tensor_shape.unknown_shape()
    return _subshape(_partial_shape(op.inputs[0]), begin, end, stride)


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


def _int_scalar(tensor: Tensor) -> int | None:
    """A one-element int32/int64 value, None when unknown (TF's EvaluateConstantIntScalarEdge)."""
    value = constant_value(tensor)
    if value is None:
        return None
    if value.size != 1:
        raise ValueError(f"EvaluateConstantIntScalarEdge called on non-scalar edge: {value.size}")
    if dtypes.as_dtype(value.dtype) not in _SHAPE_TYPES:
        raise ValueError(f"EvaluateConstantIntScalarEdge called on non-integer edge: "
                         f"{dtypes.as_dtype(value.dtype).as_datatype_enum}")
    return int(value.reshape(-1)[0])


def _shape_from_value(value: np.ndarray | None, length: int | None) -> tensor_shape.TensorShape:
    """TF's MakeShapeFromTensor: a known vector's entries (-1 unknown), else `length` unknown dims."""
    if value is None:
        return tensor_shape.unknown_shape(rank=length)
    dtype = dtypes.as_dtype(value.dtype)
    if dtype not in _SHAPE_TYPES:
        raise ValueError(f"Input tensor must be int32 or int64, but was {type_string(dtype)}")
    dims = [int(d) for d in value.reshape(-1)]
    invalid = [d for d in dims if d < -1]
    if invalid:
        raise ValueError(f"Invalid value in tensor used for shape: {invalid[0]}")
    return tensor_shape.TensorShape([None if d == -1 else d for d in dims])

# -- tf.get_static_value -----------------------------------------------------------------------------


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """`tf.get_static_value`: TF's Python-side evaluation, weaker than `constant_value` (no kernels run).

    Non-tensors come back as they are, variables as None. A tensor it resolves (even partly) can no
    longer be fed, since the graph may now depend on its value. With `partial`, a Pack (axis 0) of partly
    known values is an object array holding None for the unknown ones.
    """
    if not isinstance(tensor, Tensor):
        return None if is_tensor(tensor) or hasattr(tensor, "_as_graph_element") else tensor
    value = _static_value(tensor, partial)
    if value is not None:
        tensor.graph.prevent_feeding(tensor)
    return value


def _static_values(tensors: tuple[Tensor, ...]) -> list | None:
    """Each tensor's static value in order, stopping at the first unknown one."""
    values = []
    for t in tensors:
        value = get_static_value(t)
        if value is None:
            return None
        values.append(value)
    return values


def _static_value(tensor: Tensor, partial: bool) -> Any:
    """The op types TF's Python `constant_value` sees through, with its result types."""
    op = tensor.op
    inputs = op.inputs
    attr = op._node_def.attr
    if op.type == "Const":
        return attr["value"]
    if op.type in ("Shape", "Size"):
        shape = inputs[0].shape
        if not shape.is_fully_defined():
            return None
        if op.type == "Size":
            return np.prod(shape.as_list(), dtype=np.int32)
        return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "Rank":
        return None if inputs[0].shape.ndims is None else np.array(inputs[0].shape.ndims, dtype=np.int32)
    if op.type in ("Identity", "StopGradient"):
        return get_static_value(inputs[0], partial)
    if op.type == "Cast":
        value = get_static_value(inputs[0])
        return None if value is None else value.astype(attr["DstT"].as_numpy_dtype)
    if op.type == "Range":
        values = _static_values(inputs)
        return None if values is None else np.arange(*values, dtype=tensor.dtype.as_numpy_dtype)
    if op.type in ("Equal", "NotEqual"):
        values = _static_values(inputs)
        return None if values is None else (np.equal if op.type == "Equal" else np.not_equal)(*values)
    if op.type == "ConcatV2":
        values = _static_values(inputs[-1:] + inputs[:-1])
        return None if values is None else np.concatenate(values[1:], axis=values[0])
    if op.type == "Fill":
        value = get_static_value(inputs[1])
        if value is None or not tensor.shape.is_fully_defined():
            return None
        return np.full(tensor.shape.as_list(), value, dtype=value.dtype)
    if op.type == "Pack":
        return _static_pack(op, partial)
    if op.type == "Unpack" and attr["axis"] == 0:
        value = get_static_value(inputs[0], partial)
        return None if value is None else value[tensor.value_index]
    return None


def _static_pack(op: Operation, partial: bool) -> Any:
    """A Pack on axis 0 as TF's Python side stacks it: an object array when values are missing or ragged."""
    if op._node_def.attr["axis"] != 0:
        return None
    values = []
    for t in op.inputs:
        value = get_static_value(t, partial)
        if value is None and not partial:
            return None
        values.append(value)
    try:
        return np.array(values)
    except ValueError:
        return np.array(values, dtype=object)
