"""Python values to the arrays Const nodes hold, and the values a graph fixes while it is being built.

`make_ndarray_value` types values with TensorProto's rules (formats/tensor_proto.py: Python floats become
float32, ints int32 when they fit, a scalar broadcasts to `shape`, a short list repeats its last value).

Two strengths of static evaluation, as in TF:
- `constant_value` and `constant_value_as_shape` are what TF's C++ shape inference sees when a shape
  function asks for an input's value (EvaluateConstantTensor, MakeShapeFromShapeTensor): values read off
  static shapes, else the registered CPU kernels run over the constant subgraph behind the tensor. They
  are framework/shape_inference.py's walk, with the values it keeps for Python graphs, so shape functions
  and Python wrappers see the same values: `tf.reshape(x, tf.constant([2, 3]) * 2)` has shape [4, 6].
- `get_static_value` is TF's Python `tf.get_static_value`: a fixed list of op types, no arithmetic, and a
  tensor it resolves can no longer be fed. Python-side wrappers that TF writes with it use it.
A value that cannot be computed is None (or unknown dims), never an error; only an invalid shape vector
raises, with TF's message.

One-way rule: this module builds on the Python graph and shape inference; nothing in the framework below
imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.formats.tensor_proto import typed_ndarray
from tensorweave.framework import dtypes, shape_inference, tensor_shape

# Re-exported for the op library: they live below the Python graph, where the runtime and shape inference use them.
from tensorweave.framework.graph import Operation, Tensor
from tensorweave.platform.tf_export import tf_export


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


@tf_export("is_tensor")
def is_tensor(x: Any) -> bool:
    """Whether `x` is a graph tensor or acts as one (variables declare `is_tensor_like`); numpy arrays and
    Python values are not, even though they convert."""
    return isinstance(x, Tensor) or getattr(x, "is_tensor_like", False) is True


@tf_export("is_symbolic_tensor")
def is_symbolic_tensor(tensor: Any) -> bool:
    """Whether `tensor` is a graph tensor (every Tensor here is; variables and arrays are not)."""
    return isinstance(tensor, Tensor)


def constant_value(tensor: Tensor) -> np.ndarray | None:
    """The value of `tensor` as TF's shape inference computes it while building the graph, else None.

    A Const's value; a value read off static shapes (Shape, Size, Rank, `tf.shape(x)[i]`,
    `tf.unstack(tf.shape(x))[i]`); else the constant subgraph behind it run on its CPU kernels, when that
    subgraph reaches no placeholder, stateful op or control-flow frame. A kernel error means unknown. An
    EagerTensor's value is known.
    """
    if tensor._is_eager:
        return tensor.numpy()
    return shape_inference.PYTHON_GRAPH_VALUES.value(tensor)


def constant_value_as_shape(tensor: Tensor) -> tensor_shape.TensorShape:
    """A shape vector (Reshape's `shape`, Fill's `dims`) as the partial shape TF's shape functions read
    (MakeShapeFromShapeTensor): dims known piece by piece, else from its whole value (-1 is unknown),
    else as many unknown dims as the vector is long. Raises ValueError with TF's message where TF does."""
    if tensor._is_eager:
        return tensor_shape.TensorShape([None if d == -1 else int(d) for d in tensor.numpy().reshape(-1)])
    return shape_inference.PYTHON_GRAPH_VALUES.as_shape(tensor)

# -- tf.get_static_value -----------------------------------------------------------------------------


@tf_export("get_static_value")
def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """`tf.get_static_value`: TF's Python-side evaluation, weaker than `constant_value` (no kernels run).

    Non-tensors come back as they are, variables as None. A tensor it resolves (even partly) can no
    longer be fed, since the graph may now depend on its value. With `partial`, a Pack (axis 0) of partly
    known values is an object array holding None for the unknown ones.
    """
    if not isinstance(tensor, Tensor):
        return None if is_tensor(tensor) or hasattr(tensor, "_as_graph_element") else tensor
    if tensor._is_eager:
        return tensor.numpy()
    value = _static_value(tensor, partial)
    if value is not None:
        tensor.graph.prevent_feeding(tensor)
    return value


class _PythonSideValues(shape_inference.StaticValues):
    """Shape vectors read as TF's Python `constant_value_as_shape` reads them: its partial-shape cases
    (Shape, Pack, ConcatV2, StridedSlice, Cast) over `get_static_value`'s values, no kernels run."""

    def value(self, tensor: Tensor) -> np.ndarray | None:
        return get_static_value(tensor)

    def _partial_shape(self, tensor: Tensor) -> tensor_shape.TensorShape:
        """As StaticValues', and a function's capture is read as the outer tensor it captured (TF's Python
        `constant_value_as_shape` crosses captures, not the arguments a call or an iteration feeds)."""
        capture_source = getattr(tensor.graph, "capture_source", None)
        outer = capture_source(tensor) if capture_source is not None and tensor.op.type == "Placeholder" else None
        if outer is not None:
            return static_value_as_shape(outer)
        return super()._partial_shape(tensor)


_PYTHON_SIDE_VALUES = _PythonSideValues({}, {})


def static_value_as_shape(tensor: Tensor) -> tensor_shape.TensorShape:
    """TF's Python `tensor_util.constant_value_as_shape`, for the Python-side objects TF shapes with it (a
    SparseTensor's static shape): weaker than `constant_value_as_shape`, so a dense shape a kernel computes
    (SparseSlice's, StringSplit's) stays unknown as in TF."""
    if tensor._is_eager:
        return constant_value_as_shape(tensor)
    return _PYTHON_SIDE_VALUES.as_shape(tensor)


def maybe_set_static_shape(tensor: Tensor, shape: Any) -> None:
    """TF's shape_util.maybe_set_static_shape, which the wrappers taking a shape vector (reshape, fill, the
    random ops) call on their result: inside a function, the shape `static_value_as_shape` reads across the
    function's captures, which shape functions cannot see (a captured `tf.constant([2, 3])` fixes it)."""
    if (isinstance(shape, Tensor) and not tensor._is_eager and tensor.graph.building_function
            and not tensor.shape.is_fully_defined()):
        tensor.set_shape(static_value_as_shape(shape))


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
