"""Python values to the arrays Const nodes hold, and static constant values for shape functions.

`make_ndarray_value` types values with TensorProto's rules (formats/tensor_proto.py: Python floats become
float32, ints int32 when they fit, a scalar broadcasts to `shape`, a short list repeats its last value);
`constant_value` lets shape functions and wrappers see through Const and Shape nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.formats.tensor_proto import typed_ndarray
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


def _string_array(array: np.ndarray) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1)):
        flat[i] = v.encode() if isinstance(v, str) else bytes(v)
    return out


def make_ndarray_value(values: Any, dtype: Any = None, shape: Any = None, verify_shape: bool = False,
                       allow_broadcast: bool = False) -> np.ndarray:
    """The array a Const node holds for `values`: TensorProto's typing rules, expanded to the full shape."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if shape is not None:
        shape = tensor_shape.as_shape(shape).as_list()
    array, enum, full_shape = typed_ndarray(values, dtype, shape, verify_shape, allow_broadcast)
    if enum == dtypes.string.as_datatype_enum:
        array = _string_array(np.asarray(array))
    size = int(np.prod(full_shape, dtype=np.int64))
    if array.size == size:
        return array.reshape(full_shape)
    if array.size == 0:
        return np.zeros(full_shape, dtype=array.dtype)
    return np.pad(array.reshape(-1), (0, size - array.size), "edge").reshape(full_shape)


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
