"""TensorProto <-> NumPy: the one conversion pair used by Const nodes, checkpoints, summaries and RPCs.

Encoding follows `tf.make_tensor_proto` exactly (checked byte for byte against real TF): arrays of
more than one element of the fixed-size types go in `tensor_content` as little-endian C-order bytes;
scalars, splats (fewer values than the shape holds: the last value repeats) and the types TF keeps
out of `tensor_content` (bool, uint16, complex, strings) go in the typed `*_val` fields.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave.formats import datatypes as dt
from tensorweave.formats.protos import TensorProto, TensorShapeProto

_TENSOR_CONTENT_TYPES = frozenset([
    dt.DT_HALF, dt.DT_FLOAT, dt.DT_DOUBLE, dt.DT_INT32, dt.DT_UINT8, dt.DT_INT16, dt.DT_INT8, dt.DT_INT64,
    dt.DT_QINT8, dt.DT_QUINT8, dt.DT_QINT16, dt.DT_QUINT16, dt.DT_QINT32, dt.DT_UINT32, dt.DT_UINT64,
    dt.DT_BFLOAT16,
])
_INT_VAL_TYPES = frozenset([dt.DT_INT32, dt.DT_INT16, dt.DT_INT8, dt.DT_UINT8, dt.DT_UINT16]) | dt.QUANTIZED
_FLOATING = frozenset([dt.DT_HALF, dt.DT_BFLOAT16, dt.DT_FLOAT, dt.DT_DOUBLE])
_INTEGER = frozenset([dt.DT_INT8, dt.DT_INT16, dt.DT_INT32, dt.DT_INT64, dt.DT_UINT8, dt.DT_UINT16,
                      dt.DT_UINT32, dt.DT_UINT64])
_CONTENT_LIMIT = 1 << 31
_STRINGS = (bytes, str)


def typed_ndarray(values: Any, dtype: Any = None, shape: Sequence[int] | None = None,
                  verify_shape: bool = False, allow_broadcast: bool = False) -> tuple[np.ndarray, int, list[int]]:
    """`values` typed and checked as `tf.make_tensor_proto` does: (array, DataType enum, tensor shape).

    The array may hold fewer elements than the shape (a splat: the last value repeats). Const nodes use
    this directly, so graph constants follow exactly the rules of TensorProto encoding.
    """
    if verify_shape and allow_broadcast:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    enum = None if dtype is None else dt.as_enum(dtype) % dt.REF_OFFSET
    try:
        if _is_array_like(values):
            values = np.asarray(values)
    except NotImplementedError:
        pass  # a graph tensor, whose __array__ only says it has no value: TF takes it as a Python value
    try:
        nparray = _to_ndarray(values, enum, shape)
    except NotImplementedError:  # a graph tensor NumPy tried to convert (given alone or in a list)
        raise TypeError("Expected any non-tensor type, but got a tensor instead.") from None
    if nparray.dtype == object and enum is None and not isinstance(values, np.ndarray) and not all(isinstance(v, _STRINGS) for v in nparray.ravel()):
        raise TypeError(_failed_to_convert(values))
    numpy_enum = dt.from_numpy(nparray.dtype)
    if enum is None:
        enum = numpy_enum
    elif enum != numpy_enum and not (enum in dt.QUANTIZED and _same_storage(enum, nparray.dtype)):
        raise TypeError(f"`dtype` <dtype: '{dt.name(enum)}'> is not compatible with {values} "
                        f"of dtype {nparray.dtype}.")
    if shape is None:
        return nparray, enum, list(nparray.shape)
    shape = [int(d) for d in shape]
    shape_size = math.prod(shape)
    if allow_broadcast:
        if nparray.shape not in ((1,), ()) and nparray.size != shape_size:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {nparray.shape}.")
    else:
        if verify_shape and nparray.shape != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {nparray.shape}.")
        if nparray.size > shape_size:
            raise ValueError(f"Too many elements provided. Takes at most {shape_size}, but got {nparray.size}.")
    return nparray, enum, shape


def make_tensor_proto(values: Any, dtype: Any = None, shape: Sequence[int] | None = None,
                      verify_shape: bool = False, allow_broadcast: bool = False) -> Any:
    """Encode a value as TF's TensorProto, with TF's choice of fields and TF's errors for bad input."""
    if isinstance(values, TensorProto):
        return values
    nparray, enum, shape = typed_ndarray(values, dtype, shape, verify_shape, allow_broadcast)
    shape_size = math.prod(shape)
    proto = TensorProto(dtype=enum, tensor_shape=as_shape_proto(shape))
    if shape_size == nparray.size and enum in _TENSOR_CONTENT_TYPES and shape_size > 1:
        if nparray.nbytes >= _CONTENT_LIMIT:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = as_storage(nparray, enum).tobytes()
        return proto
    append_values(proto, enum, nparray)
    return proto


def make_ndarray(tensor: Any) -> np.ndarray:
    """Decode a TensorProto to a NumPy array of TF's numpy type, expanding splats as TF does.

    The steps are TF's own (NumPy does the reshaping and padding), so malformed protos fail with the
    same NumPy errors: a -1 dimension is inferred from tensor_content and rejected otherwise.
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    num_elements = math.prod(shape)
    np_dtype, storage = _decoding_dtypes(tensor.dtype)
    if tensor.tensor_content:
        content = np.frombuffer(tensor.tensor_content, dtype=storage if storage is not None else np_dtype)
        return content.copy().view(np_dtype).reshape(shape)
    if tensor.dtype == dt.DT_STRING:
        values = list(tensor.string_val)
        if len(values) < num_elements:  # TF pads an empty string_val with str "", not bytes
            values.extend([values[-1] if values else ""] * (num_elements - len(values)))
        array = np.empty(len(values), dtype=object)
        array[:] = values
        return array.reshape(shape)
    values = _typed_values(tensor, tensor.dtype, storage)
    if values.size == 0:
        return np.zeros(shape, dtype=storage).view(np_dtype)
    if values.size != num_elements:
        values = np.pad(values, (0, num_elements - values.size), "edge")
    return values.reshape(shape).view(np_dtype)


def _decoding_dtypes(enum: int) -> tuple[np.dtype, np.dtype | None]:
    """(TF's NumPy type, plain storage type or None for strings) of a TensorProto's dtype, with TF's errors."""
    if not dt.is_valid(enum):
        raise TypeError(f"Cannot convert the argument `type_value`: {enum} to a TensorFlow DType.")
    if enum >= dt.REF_OFFSET:
        raise TypeError(f"Unsupported tensor type: {enum}. See "
                        "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")
    if enum in (dt.DT_RESOURCE, dt.DT_VARIANT):
        raise KeyError(enum)  # TF's as_numpy_dtype table has no entry for them
    if enum == dt.DT_STRING:
        return np.dtype(object), None
    return dt.numpy_dtype(enum), dt.storage_dtype(enum)


def as_shape_proto(shape: Sequence[int | None] | None) -> Any:
    """A TensorShapeProto for a shape; None is unknown rank and a None dimension is size -1."""
    if shape is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else int(d)) for d in shape])


def _failed_to_convert(values: Any) -> str:
    return (f"Failed to convert elements of {values} to Tensor. Consider casting elements to a supported type. "
            "See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")


def _dense_dimensions(values: Any) -> list[int]:
    """The shape nested lists claim, following first elements only (what TF checks NumPy's shape against)."""
    if not isinstance(values, (list, tuple)):
        return []
    if not values:
        return [0]
    return [len(values), *_dense_dimensions(values[0])]


def _is_array_like(values: Any) -> bool:
    """What TF hands to NumPy whole: `__array__`/`__array_interface__` objects and buffers (bytearray)."""
    if callable(getattr(values, "__array__", None)) or isinstance(getattr(values, "__array_interface__", None), dict):
        return True
    try:
        memoryview(values)
    except TypeError:
        return False
    return not isinstance(values, bytes)


def _to_ndarray(values: Any, enum: int | None, shape: Sequence[int] | None) -> np.ndarray:
    if enum in (dt.DT_RESOURCE, dt.DT_VARIANT):  # no NumPy type: typed_ndarray reports NumPy's own
        return values if isinstance(values, np.ndarray) else np.array(values)
    if isinstance(values, (np.ndarray, np.generic)):
        if enum is not None and enum != dt.DT_STRING and not isinstance(values, np.ndarray):
            values = np.asarray(values)
        if enum is not None and enum != dt.DT_STRING:
            return cast_to_datatype(values, enum)
        if enum == dt.DT_STRING and isinstance(values, np.ndarray):
            return values.astype(object)  # non-string elements then fail in _as_bytes, as in TF
        return np.asarray(values)
    if values is None:
        raise ValueError("None values not supported.")
    np_dtype = None if enum is None else dt.numpy_dtype(enum)
    if shape is not None and math.prod(int(d) for d in shape) == 0:
        return np.empty(shape, dtype=np_dtype if np_dtype is not None else np.float32)
    _check_compatible(values, enum)
    if enum is not None and enum != dt.DT_STRING:
        nparray = np.array(values)
        _check_dense(values, nparray, enum)
        return cast_to_datatype(nparray, enum)
    nparray = np.array(values, dtype=np_dtype)
    _check_dense(values, nparray, enum)
    if nparray.dtype.kind in "SU":  # NumPy's fixed-width strings drop trailing NULs: keep the originals
        flat = _flatten(values)
        if len(flat) == nparray.size and all(isinstance(v, _STRINGS) for v in flat):
            strings = np.empty(len(flat), dtype=object)
            strings[:] = flat
            return strings.reshape(nparray.shape)
    if enum is None:
        if nparray.dtype == np.float64:
            return nparray.astype(np.float32)
        if nparray.dtype == np.int64:
            small = nparray.astype(np.int32)
            if np.array_equal(small, nparray):
                return small
    return nparray


def cast_to_datatype(array: np.ndarray, enum: int) -> np.ndarray:
    """Convert to a DataType's NumPy type (to bfloat16 through float32, rounding to nearest even, as TF)."""
    if enum in dt.QUANTIZED and not array.dtype.names:
        return array.astype(dt.storage_dtype(enum)).view(dt.numpy_dtype(enum))
    return array.astype(dt.numpy_dtype(enum))


def _check_dense(values: Any, nparray: np.ndarray, enum: int | None) -> None:
    dims = _dense_dimensions(values)
    if list(nparray.shape) != dims and enum not in dt.QUANTIZED:
        raise ValueError(f"Expected values {values} to be a dense tensor with shape {dims}, "
                         f"but got shape {list(nparray.shape)}.")


def _same_storage(enum: int, np_dtype: np.dtype) -> bool:
    return np_dtype.itemsize == dt.storage_dtype(enum).itemsize and np_dtype.kind in "iuV"


def _flatten(values: Any) -> list[Any]:
    if isinstance(values, (list, tuple)):
        return [v for item in values for v in _flatten(item)]
    return [values]


def _accepts(enum: int, value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return True
    if enum == dt.DT_STRING:
        return isinstance(value, (bytes, str, np.bytes_, np.str_))
    if enum == dt.DT_BOOL:
        return isinstance(value, (bool, np.bool_))
    if enum in _INTEGER:
        return isinstance(value, numbers.Integral)
    if enum in _FLOATING:
        return isinstance(value, numbers.Real)
    if enum in (dt.DT_COMPLEX64, dt.DT_COMPLEX128):
        return isinstance(value, numbers.Number)
    return False  # TF accepts no Python value for quantized types, only NumPy arrays


def _check_compatible(values: Any, enum: int | None) -> None:
    """Reject values the dtype cannot hold before NumPy silently coerces them, as TF does."""
    flat = _flatten(values)
    if enum is None:
        kinds = {isinstance(v, (bytes, str, np.bytes_, np.str_)) for v in flat if not isinstance(v, np.ndarray)}
        if len(kinds) > 1:
            raise TypeError(_failed_to_convert(values))
        return
    for value in flat:
        if not _accepts(enum, value):
            raise TypeError(f"Expected {dt.name(enum)}, but got {value} of type '{type(value).__name__}'.")


def as_storage(array: np.ndarray, enum: int) -> np.ndarray:
    """The array viewed as its plain little-endian storage type (no copy when already in that form)."""
    storage = dt.storage_dtype(enum)
    if array.dtype.names or array.dtype == dt.BFLOAT16:
        return np.ascontiguousarray(array).view(storage)
    return np.ascontiguousarray(array, dtype=storage)


def append_values(proto: Any, enum: int, nparray: np.ndarray) -> None:
    """Fill the typed value fields of a TensorProto (how V1 checkpoints and small constants store values)."""
    if enum == dt.DT_STRING:
        proto.string_val.extend(_as_bytes(v) for v in nparray.ravel().tolist())
        return
    flat = as_storage(nparray, enum).ravel()
    if enum in (dt.DT_HALF, dt.DT_BFLOAT16):
        proto.half_val.extend(flat.view(np.uint16).tolist())
    elif enum == dt.DT_FLOAT:
        proto.float_val.extend(flat.tolist())
    elif enum == dt.DT_DOUBLE:
        proto.double_val.extend(flat.tolist())
    elif enum in _INT_VAL_TYPES:
        proto.int_val.extend(flat.tolist())
    elif enum == dt.DT_INT64:
        proto.int64_val.extend(flat.tolist())
    elif enum == dt.DT_UINT32:
        proto.uint32_val.extend(flat.tolist())
    elif enum == dt.DT_UINT64:
        proto.uint64_val.extend(flat.tolist())
    elif enum == dt.DT_BOOL:
        proto.bool_val.extend(flat.tolist())
    elif enum == dt.DT_COMPLEX64:
        proto.scomplex_val.extend(flat.view(np.float32).tolist())
    elif enum == dt.DT_COMPLEX128:
        proto.dcomplex_val.extend(flat.view(np.float64).tolist())
    else:
        raise TypeError(f"Unsupported dtype for a TensorProto: {dt.name(enum)}")


def listed_values(tensor: Any) -> int:
    """How many values a TensorProto lists: fewer than its shape holds when TF stored a splat."""
    if tensor.tensor_content:
        return math.prod(d.size for d in tensor.tensor_shape.dim)
    if tensor.dtype == dt.DT_STRING:
        return len(tensor.string_val)
    _, storage = _decoding_dtypes(tensor.dtype)
    return _typed_values(tensor, tensor.dtype, storage).size


def _typed_values(tensor: Any, enum: int, storage: np.dtype) -> np.ndarray:
    if enum in (dt.DT_HALF, dt.DT_BFLOAT16):
        return np.array(tensor.half_val, dtype=np.uint16).view(storage)
    if enum in (dt.DT_COMPLEX64, dt.DT_COMPLEX128):
        parts = np.array(tensor.scomplex_val if enum == dt.DT_COMPLEX64 else tensor.dcomplex_val,
                         dtype=np.float32 if enum == dt.DT_COMPLEX64 else np.float64)
        return parts[: parts.size // 2 * 2].view(storage)
    field = {
        dt.DT_FLOAT: "float_val", dt.DT_DOUBLE: "double_val", dt.DT_INT64: "int64_val", dt.DT_BOOL: "bool_val",
        dt.DT_UINT32: "uint32_val", dt.DT_UINT64: "uint64_val",
    }.get(enum, "int_val" if enum in _INT_VAL_TYPES else None)
    if field is None:
        raise TypeError(f"Unsupported tensor type: {enum}")
    return np.fromiter(getattr(tensor, field), dtype=storage)  # out-of-range int_val is OverflowError, as in TF


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")
