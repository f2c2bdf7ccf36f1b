"""TensorFlow's element types: one interned `DType` per `DataType` enum value.

Invariant: every enum value (1..23 and its `_ref` twin at +100) has exactly one interned `DType`
built at import; `as_dtype` always returns an interned instance, so `is` and `==` agree for them.
The attributes read while building graphs (`name`, `base_dtype`, `is_floating`, `as_numpy_dtype`)
are precomputed at construction, because op construction reads them for every input.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

from tensorweave.platform.tf_export import export_value, tf_export

_np_bfloat16 = ml_dtypes.bfloat16

_np_qint8 = np.dtype([("qint8", np.int8)])
_np_quint8 = np.dtype([("quint8", np.uint8)])
_np_qint16 = np.dtype([("qint16", np.int16)])
_np_quint16 = np.dtype([("quint16", np.uint16)])
_np_qint32 = np.dtype([("qint32", np.int32)])

_REF_OFFSET = 100
_DT_BFLOAT16 = 14
_DT_RESOURCE = 20
_DT_VARIANT = 21

# enum -> (canonical name, numpy type or None where TF has no numpy twin)
_BASE_TYPES: dict[int, tuple[str, Any]] = {
    1: ("float32", np.float32),
    2: ("float64", np.float64),
    3: ("int32", np.int32),
    4: ("uint8", np.uint8),
    5: ("int16", np.int16),
    6: ("int8", np.int8),
    7: ("string", object),
    8: ("complex64", np.complex64),
    9: ("int64", np.int64),
    10: ("bool", np.bool_),
    11: ("qint8", _np_qint8),
    12: ("quint8", _np_quint8),
    13: ("qint32", _np_qint32),
    14: ("bfloat16", _np_bfloat16),
    15: ("qint16", _np_qint16),
    16: ("quint16", _np_quint16),
    17: ("uint16", np.uint16),
    18: ("complex128", np.complex128),
    19: ("float16", np.float16),
    20: ("resource", None),
    21: ("variant", None),
    22: ("uint32", np.uint32),
    23: ("uint64", np.uint64),
}
_QUANTIZED_ENUMS = frozenset([11, 12, 13, 15, 16])
_COMPLEX_ENUMS = frozenset([8, 18])

# TF1's image-intensity ranges, keyed by numpy scalar type (TF1 raises KeyError for other types).
_DTYPE_RANGE: dict[Any, tuple[Any, Any]] = {
    np.bool_: (False, True),
    np.uint8: (0, 255),
    np.uint16: (0, 65535),
    np.int8: (-128, 127),
    np.int16: (-32768, 32767),
    np.int64: (-(2**63), 2**63 - 1),
    np.uint64: (0, 2**64 - 1),
    np.int32: (-(2**31), 2**31 - 1),
    np.uint32: (0, 2**32 - 1),
    np.float32: (-1, 1),
    np.float64: (-1, 1),
}

_INTERN_TABLE: dict[int, DType] = {}


@tf_export("dtypes.DType", "DType")
class DType:
    """An element type of a Tensor, identified by its TF `DataType` enum value."""

    __slots__ = ("_type_enum", "name", "base_dtype", "is_floating", "is_integer", "is_complex",
                 "is_bool", "is_quantized", "is_numpy_compatible", "_numpy_type")

    def __init__(self, type_enum: int) -> None:
        type_enum = int(type_enum)
        base_enum = type_enum - _REF_OFFSET if type_enum > _REF_OFFSET else type_enum
        if base_enum not in _BASE_TYPES:
            raise TypeError(f"{type_enum} does not correspond to a valid tensorflow::DataType")
        base_name, numpy_type = _BASE_TYPES[base_enum]
        is_ref = type_enum > _REF_OFFSET
        set_ = object.__setattr__
        set_(self, "_type_enum", type_enum)
        set_(self, "name", base_name + "_ref" if is_ref else base_name)
        set_(self, "base_dtype", _INTERN_TABLE[base_enum] if is_ref else self)
        if type_enum == 7 + _REF_OFFSET:
            numpy_type = np.object_  # TF's table gives string_ref np.object_ but string plain `object`
        set_(self, "_numpy_type", numpy_type)
        compatible = numpy_type is not None
        quantized = base_enum in _QUANTIZED_ENUMS
        set_(self, "is_numpy_compatible", compatible)
        set_(self, "is_quantized", quantized)
        set_(self, "is_floating", base_enum == _DT_BFLOAT16  # ml_dtypes' types are not np.floating subtypes
             or (compatible and np.issubdtype(numpy_type, np.floating)))
        set_(self, "is_integer", compatible and not quantized and np.issubdtype(numpy_type, np.integer))
        set_(self, "is_complex", base_enum in _COMPLEX_ENUMS)
        set_(self, "is_bool", base_enum == 10)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"DType attribute {name!r} is read-only")

    @property
    def as_datatype_enum(self) -> int:
        """The `DataType` enum value, as written into NodeDef attrs and TensorProtos."""
        return self._type_enum

    @property
    def as_numpy_dtype(self) -> Any:
        """The numpy scalar type that holds this type's values (KeyError for resource/variant, as TF)."""
        numpy_type = self._numpy_type
        if numpy_type is None:
            raise KeyError(self._type_enum)
        return numpy_type

    @property
    def _is_ref_dtype(self) -> bool:
        return self._type_enum > _REF_OFFSET

    @property
    def _as_ref(self) -> DType:
        if self._type_enum > _REF_OFFSET:
            return self
        return _INTERN_TABLE[self._type_enum + _REF_OFFSET]

    @property
    def real_dtype(self) -> DType:
        """The type of the real part: complex types map to floats, all others to themselves."""
        base = self.base_dtype._type_enum
        if base == 8:
            return float32
        if base == 18:
            return float64
        return self

    @property
    def is_unsigned(self) -> bool:
        """True for types whose minimum is 0; non-numeric and quantized types are not unsigned."""
        try:
            return builtins.bool(self.min == 0)
        except TypeError:
            return False

    def _extreme(self, which: str, word: str) -> Any:
        """Find min or max through finfo/iinfo, since TF defines them by the numpy type (ml_dtypes' finfo
        also knows bfloat16)."""
        if self.is_quantized or self.base_dtype._type_enum in (10, 7, 8, 18):
            kind = "quantized type" if self.is_quantized else "type"
            raise TypeError(f"Cannot find {word} value of {self} with {kind} {self.base_dtype}.")
        if not self.is_numpy_compatible:
            raise TypeError(f"Cannot find {word} value of {self}.")
        numpy_type = self._numpy_type
        for info in (ml_dtypes.finfo, np.iinfo):
            try:
                return getattr(info(numpy_type), which)
            except (TypeError, ValueError):
                continue
        raise TypeError(f"Cannot find {word} value of {self}.")

    @property
    def min(self) -> Any:
        """The smallest representable value (TypeError for non-numeric, complex or quantized types)."""
        return self._extreme("min", "minimum")

    @property
    def max(self) -> Any:
        """The largest representable value (TypeError for non-numeric, complex or quantized types)."""
        return self._extreme("max", "maximum")

    @property
    def limits(self) -> tuple[Any, Any]:
        """TF1's image-intensity range with the negative side clipped to 0.

        ValueError for numpy types without a range; KeyError for types without a numpy twin, as TF.
        """
        value_range = _DTYPE_RANGE.get(self.as_numpy_dtype)
        if value_range is None:
            raise ValueError(f"{self} does not have defined limits.")
        return 0, value_range[1]

    @property
    def size(self) -> int:
        """Bytes per element as TF reports them: 0 for types of no fixed size (string, resource, variant)."""
        if self.base_dtype._type_enum in (7, _DT_RESOURCE, _DT_VARIANT):
            return 0
        return np.dtype(self._numpy_type).itemsize

    def is_compatible_with(self, other: Any) -> bool:
        """True when a tensor of `other`'s type converts implicitly to this type (a ref reads as its base)."""
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other.base_dtype._type_enum)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is DType:
            return self._type_enum == other._type_enum  # type: ignore[attr-defined]
        if other is None:
            return False
        try:
            return self._type_enum == as_dtype(other)._type_enum
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __str__(self) -> str:
        return f"<dtype: {self.name!r}>"

    def __repr__(self) -> str:
        return "tf." + self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return as_dtype, (self.name,)


for _enum in sorted(_BASE_TYPES):
    _INTERN_TABLE[_enum] = DType(_enum)
for _enum in sorted(_BASE_TYPES):
    _INTERN_TABLE[_enum + _REF_OFFSET] = DType(_enum + _REF_OFFSET)

float32 = _INTERN_TABLE[1]
float64 = _INTERN_TABLE[2]
double = float64
int32 = _INTERN_TABLE[3]
uint8 = _INTERN_TABLE[4]
int16 = _INTERN_TABLE[5]
int8 = _INTERN_TABLE[6]
string = _INTERN_TABLE[7]
complex64 = _INTERN_TABLE[8]
int64 = _INTERN_TABLE[9]
bool = _INTERN_TABLE[10]
qint8 = _INTERN_TABLE[11]
quint8 = _INTERN_TABLE[12]
qint32 = _INTERN_TABLE[13]
bfloat16 = _INTERN_TABLE[14]
qint16 = _INTERN_TABLE[15]
quint16 = _INTERN_TABLE[16]
uint16 = _INTERN_TABLE[17]
complex128 = _INTERN_TABLE[18]
float16 = _INTERN_TABLE[19]
half = float16
resource = _INTERN_TABLE[20]
variant = _INTERN_TABLE[21]
uint32 = _INTERN_TABLE[22]
uint64 = _INTERN_TABLE[23]

# TF1 exports each dtype at the top level and in tf.dtypes; `double` and `half` are its aliases.
export_value(float32, "dtypes.float32", "float32")
export_value(float64, "dtypes.double", "dtypes.float64", "double", "float64")
export_value(int32, "dtypes.int32", "int32")
export_value(uint8, "dtypes.uint8", "uint8")
export_value(int16, "dtypes.int16", "int16")
export_value(int8, "dtypes.int8", "int8")
export_value(string, "dtypes.string", "string")
export_value(complex64, "dtypes.complex64", "complex64")
export_value(int64, "dtypes.int64", "int64")
export_value(bool, "dtypes.bool", "bool")
export_value(qint8, "dtypes.qint8", "qint8")
export_value(quint8, "dtypes.quint8", "quint8")
export_value(qint32, "dtypes.qint32", "qint32")
export_value(bfloat16, "dtypes.bfloat16", "bfloat16")
export_value(qint16, "dtypes.qint16", "qint16")
export_value(quint16, "dtypes.quint16", "quint16")
export_value(uint16, "dtypes.uint16", "uint16")
export_value(complex128, "dtypes.complex128", "complex128")
export_value(float16, "dtypes.float16", "dtypes.half", "float16", "half")
export_value(resource, "dtypes.resource", "resource")
export_value(variant, "dtypes.variant", "variant")
export_value(uint32, "dtypes.uint32", "uint32")
export_value(uint64, "dtypes.uint64", "uint64")

float32_ref = _INTERN_TABLE[101]
float64_ref = _INTERN_TABLE[102]
double_ref = float64_ref
int32_ref = _INTERN_TABLE[103]
uint8_ref = _INTERN_TABLE[104]
int16_ref = _INTERN_TABLE[105]
int8_ref = _INTERN_TABLE[106]
string_ref = _INTERN_TABLE[107]
complex64_ref = _INTERN_TABLE[108]
int64_ref = _INTERN_TABLE[109]
bool_ref = _INTERN_TABLE[110]
qint8_ref = _INTERN_TABLE[111]
quint8_ref = _INTERN_TABLE[112]
qint32_ref = _INTERN_TABLE[113]
bfloat16_ref = _INTERN_TABLE[114]
qint16_ref = _INTERN_TABLE[115]
quint16_ref = _INTERN_TABLE[116]
uint16_ref = _INTERN_TABLE[117]
complex128_ref = _INTERN_TABLE[118]
float16_ref = _INTERN_TABLE[119]
half_ref = float16_ref
resource_ref = _INTERN_TABLE[120]
variant_ref = _INTERN_TABLE[121]
uint32_ref = _INTERN_TABLE[122]
uint64_ref = _INTERN_TABLE[123]

QUANTIZED_DTYPES = frozenset(d for d in _INTERN_TABLE.values() if d.is_quantized)
export_value(QUANTIZED_DTYPES, "dtypes.QUANTIZED_DTYPES", "QUANTIZED_DTYPES")

_STRING_TO_TF: dict[str, DType] = {d.name: d for d in _INTERN_TABLE.values()}
for _alias, _dtype in (("half", float16), ("float", float32), ("double", float64)):
    _STRING_TO_TF[_alias] = _dtype
    _STRING_TO_TF[_alias + "_ref"] = _dtype._as_ref

_NP_TO_TF: dict[Any, DType] = {
    np.float16: float16, np.float32: float32, np.float64: float64,
    np.int8: int8, np.int16: int16, np.int32: int32, np.int64: int64,
    np.uint8: uint8, np.uint16: uint16, np.uint32: uint32, np.uint64: uint64,
    np.complex64: complex64, np.complex128: complex128, np.bool_: bool,
    np.object_: string, np.bytes_: string, np.str_: string,
    _np_qint8: qint8, _np_quint8: quint8, _np_qint16: qint16, _np_quint16: quint16, _np_qint32: qint32,
    _np_bfloat16: bfloat16,
}
# Platform types (np.longlong, np.intc, ...) are not always aliases of the fixed-width ones.
for _platform_type in (np.intc, np.uintc, np.int_, np.uint, np.longlong, np.ulonglong):
    if _platform_type not in _NP_TO_TF:
        _NP_TO_TF[_platform_type] = next(
            d for t, d in _NP_TO_TF.items() if isinstance(t, type) and np.dtype(t) == np.dtype(_platform_type))

_ANY_TO_TF: dict[Any, DType] = {}
_ANY_TO_TF.update(_INTERN_TABLE)
_ANY_TO_TF.update(_STRING_TO_TF)
_ANY_TO_TF.update({builtins.float: float32, builtins.bool: bool, builtins.object: string})
_ANY_TO_TF.update(_NP_TO_TF)


_CPP_TYPE_NAMES = {float32: "float", float64: "double", float16: "half"}


def type_string(dtype: DType) -> str:
    """TF's C++ DataTypeString ('float', 'double', 'int32'), as runtime error messages spell types."""
    return _CPP_TYPE_NAMES.get(dtype.base_dtype, dtype.base_dtype.name)

@tf_export("dtypes.as_dtype", "as_dtype")
def as_dtype(type_value: Any) -> DType:
    """Convert a DType, enum value, type name, numpy dtype or python type to the interned `DType`."""
    if type_value.__class__ is DType:
        return type_value
    if isinstance(type_value, np.dtype):
        found = _NP_TO_TF.get(type_value.type)
        if found is not None:
            return found
    try:
        return _ANY_TO_TF[type_value]
    except (KeyError, TypeError):
        pass
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
