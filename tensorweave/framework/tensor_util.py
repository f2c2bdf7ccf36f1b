"""Python values to numpy arrays as TF's `make_tensor_proto` types them, and static constant values.

`make_ndarray_value` decides a constant's dtype and shape exactly as TF1 does (Python floats become
float32, ints int32 when they fit, scalars broadcast to `shape`, a short list padded with its last
value); `constant_value` lets shape functions and wrappers see through Const and Shape nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape

_CPP_TYPE_NAMES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.float16: "half"}


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


def _dense_dims(values: Any) -> list[int]:
    if isinstance(values, (list, tuple)):
        if not values:
            return [0]
        return [len(values)] + _dense_dims(values[0])
    return []


def _check_compatible(values: Any, dtype: dtypes.DType) -> None:
    """TF's _AssertCompatible: reject Python values that the requested dtype cannot hold."""
    if isinstance(values, (list, tuple)):
        for v in values:
            _check_compatible(v, dtype)
        return
    if isinstance(values, (np.ndarray, np.generic)):
        return
    base = dtype.base_dtype
    if base == dtypes.string:
        ok = isinstance(values, (bytes, str))
    elif base == dtypes.bool:
        ok = isinstance(values, (bool, np.bool_))
    elif base.is_complex:
        ok = isinstance(values, (int, float, complex))
    elif base.is_floating:
        ok = isinstance(values, (int, float))
    elif base.is_integer:
        ok = isinstance(values, int)
    else:
        ok = True
    if not ok:
        raise TypeError(f"Expected {base.name}, but got {values!r} of type '{type(values).__name__}'.")


def _infer_array(values: Any) -> np.ndarray:
    """Python values to an array with TF's default types (float32, int32 when it fits, string)."""
    try:
        array = np.array(values)
    except ValueError as e:
        raise ValueError(f"Expected values {values!r} to be a dense tensor: {e}") from None
    if isinstance(values, (list, tuple)) and list(array.shape) != _dense_dims(values):
        raise ValueError(f"Expected values {values!r} to be a dense tensor with shape {_dense_dims(values)}, "
                         f"but got shape {list(array.shape)}.")
    kind = array.dtype.kind
    if kind == "f" and array.dtype == np.float64:
        return array.astype(np.float32)
    if kind in "iu" and array.dtype.itemsize == 8:
        narrowed = array.astype(np.int32)
        if np.array_equal(narrowed, array):
            return narrowed
        return array
    if kind in "US":
        return _string_array(array)
    if kind == "O":
        raise TypeError(f"Failed to convert elements of {values!r} to Tensor. Consider casting elements to a "
                        "supported type.")
    return array


def _string_array(array: np.ndarray) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1)):
        flat[i] = v.encode() if isinstance(v, str) else bytes(v)
    return out


def make_ndarray_value(values: Any, dtype: Any = None, shape: Any = None, verify_shape: bool = False,
                       allow_broadcast: bool = False) -> np.ndarray:
    """The array a Const node holds for `values`, typed and shaped as TF's make_tensor_proto would."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    if dtype is not None and dtype.base_dtype == dtypes.string:
        _check_compatible(values, dtype)
        array = _string_array(np.array(values, dtype=object))
    elif isinstance(values, (np.ndarray, np.generic)):
        array = np.asarray(values)
        if array.dtype.kind in "US" or (array.dtype == object and dtype is None):
            array = _string_array(array)
        elif dtype is not None:
            array = array.astype(dtype.as_numpy_dtype)
    elif dtype is not None:
        _check_compatible(values, dtype)
        try:
            array = np.array(values, dtype=dtype.as_numpy_dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeError(f"Expected {dtype.name}, but got {values!r} of type '{type(values).__name__}'."
                            ) from e
        if isinstance(values, (list, tuple)) and list(array.shape) != _dense_dims(values):
            raise ValueError(f"Expected values {values!r} to be a dense tensor with shape "
                             f"{_dense_dims(values)}, but got shape {list(array.shape)}.")
    else:
        array = _infer_array(values)
    if shape is None:
        return array
    shape = [int(d) for d in tensor_shape.as_shape(shape).as_list()]
    size = int(np.prod(shape, dtype=np.int64))
    if allow_broadcast:
        if array.shape not in ((), (1,)) and array.size != size:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
    else:
        if verify_shape and array.shape != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {array.shape}.")
        if array.size > size:
            raise ValueError(f"Too many elements provided. Needed at most {size}, but received {array.size}")
    if array.size == size:
        return array.reshape(shape)
    if array.size == 0:
        return np.zeros(shape, dtype=array.dtype)
    flat = array.reshape(-1)
    padded = np.empty(size, dtype=array.dtype)
    padded[:flat.size] = flat
    padded[flat.size:] = flat[-1]
    return padded.reshape(shape)


def constant_value(tensor: Any) -> np.ndarray | None:
    """The value of `tensor` if it is known while building the graph, else None."""
    op = tensor.op
    if op.type == "Const":
        return op.node_def.attr["value"]
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=op.node_def.attr["out_type"].as_numpy_dtype)
        return None
    if op.type == "Size":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.num_elements(), dtype=op.node_def.attr["out_type"].as_numpy_dtype)
        return None
    if op.type == "Rank":
        ndims = op.inputs[0].shape.ndims
        return None if ndims is None else np.array(ndims, dtype=np.int32)
    if op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if op.type == "Cast":
        value = constant_value(op.inputs[0])
        return None if value is None else value.astype(op.node_def.attr["DstT"].as_numpy_dtype)
    if op.type == "Pack":
        parts = [constant_value(t) for t in op.inputs]
        if any(p is None for p in parts):
            return None
        return np.stack(parts, axis=op.node_def.attr["axis"])
    return None


def constant_value_as_shape(tensor: Any) -> tensor_shape.TensorShape:
    """A shape-valued tensor (e.g. Reshape's `shape`) as a partial TensorShape; -1 entries are unknown."""
    shape = tensor.shape
    if shape.ndims == 0:
        value = constant_value(tensor)
        if value is None:
            return tensor_shape.unknown_shape()
        return tensor_shape.TensorShape([None if int(value) == -1 else int(value)])
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack":
        dims = []
        for t in op.inputs:
            value = constant_value(t)
            dims.append(None if value is None or int(value) == -1 else int(value))
        return tensor_shape.TensorShape(dims)
    value = constant_value(tensor)
    if value is not None:
        return tensor_shape.TensorShape([None if int(d) == -1 else int(d) for d in value.reshape(-1)])
    if shape.ndims == 1 and shape.dims[0].value is not None:
        return tensor_shape.unknown_shape(rank=shape.dims[0].value)
    return tensor_shape.unknown_shape()
