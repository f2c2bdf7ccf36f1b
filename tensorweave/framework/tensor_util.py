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
Neither ever raises for a value it cannot compute: unknown is None (or unknown dims).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.formats.tensor_proto import typed_ndarray
from tensorweave.framework import dtypes, op_registry, tensor_shape
from tensorweave.framework.graph import Operation, Tensor

_CPP_TYPE_NAMES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.float16: "half"}
_SHAPE_TYPES = (dtypes.int32, dtypes.int64)
_INT64_MAX = 2**63 - 1
# Never evaluated while building: fed values, and control-flow frames (TF also runs a Switch whose
# predicate is constant; Switch has no dead-tensor support here, so it is left out).
_NOT_EVALUATED = frozenset({"PlaceholderWithDefault", "Enter", "RefEnter", "Exit", "RefExit", "Merge", "RefMerge",
                            "Switch", "RefSwitch"})


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


