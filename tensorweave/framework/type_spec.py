"""`tf.TypeSpec` and the specs of the framework's values: the type of a value, apart from the value.

A spec is immutable and is what its `_serialize()` tuple says: two specs are equal when they are of one class
and serialize alike, and hash and print from that tuple, as TF's. Compatibility and the most specific common
type are computed over the serializations too: shapes merge (different ranks give an unknown shape), dtypes
and every other field must be equal.

`type_spec_from_value` knows tensors, sparse tensors, IndexedSlices, None and what converts to a tensor;
higher layers teach it their values (RaggedTensor, TensorArray, Dataset) with
`register_type_spec_from_value_converter`, TF's hook of the same name.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

from tensorweave.formats.tensor_proto import typed_ndarray
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.platform.tf_export import tf_export


@tf_export("TypeSpec", "data.experimental.Structure")
class TypeSpec(abc.ABC):
    """Specifies a TensorFlow value type."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def value_type(self) -> type:
        """The Python type of the values this spec describes."""

    @abc.abstractmethod
    def _serialize(self) -> tuple:
        """The fields that make up this spec (what the constructor takes, in its order)."""

    @property
    @abc.abstractmethod
    def _component_specs(self) -> Any:
        """The specs of the tensors a value of this type is made of."""

    @abc.abstractmethod
    def _to_components(self, value: Any) -> Any:
        """The tensors `value` is made of, structured as `_component_specs`."""

    @abc.abstractmethod
    def _from_components(self, components: Any) -> Any:
        """The value made of `components`."""

    @classmethod
    def _deserialize(cls, serialization: tuple) -> TypeSpec:
        return cls(*serialization)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Whether `spec_or_value` (a spec or a value) could be of this type."""
        if not isinstance(spec_or_value, TypeSpec):
            spec_or_value = _spec_or_none(spec_or_value)
        return (type(self) is type(spec_or_value)
                and _is_compatible(self._serialize(), spec_or_value._serialize()))

    def most_specific_compatible_type(self, other: TypeSpec) -> TypeSpec:
        """The most specific spec that both this spec and `other` are compatible with (ValueError if none)."""
        error = ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        if type(self) is not type(other):
            raise error
        try:
            return self._deserialize(_most_specific(self._serialize(), other._serialize()))
        except ValueError:
            raise error from None

    def most_specific_common_supertype(self, others: list[TypeSpec]) -> TypeSpec | None:
        """The most specific spec that this and every one of `others` are subtypes of; None if there is none."""
        result = self
        for other in others:
            try:
                result = result.most_specific_compatible_type(other)
            except ValueError:
                return None
        return result

    def is_subtype_of(self, other: TypeSpec) -> bool:
        """Whether every value of this type is a value of `other`."""
        return type(self) is type(other) and _is_subtype(self._serialize(), other._serialize())

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and _comparable(self._serialize()) == _comparable(other._serialize())

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self), _comparable(self._serialize())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._serialize()}"

    def __reduce__(self) -> tuple:
        return type(self)._deserialize, (self._serialize(),)


def _comparable(value: Any) -> Any:
    """`value` with lists made tuples and shapes made their dimension tuples, for equality and hashing."""
    if isinstance(value, (list, tuple)):
        return tuple(_comparable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _comparable(v)) for k, v in value.items()))
    if isinstance(value, tensor_shape.TensorShape):
        return ("TensorShape", None if value.rank is None else tuple(value.as_list()))
    return value


def _pairs(a: Any, b: Any) -> list[tuple[Any, Any]] | None:
    """The corresponding parts of two nested serializations; None when their structures differ."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(zip(a, b)) if type(a) is type(b) and len(a) == len(b) else None
    if isinstance(a, dict) and isinstance(b, dict):
        return [(a[k], b[k]) for k in a] if a.keys() == b.keys() else None
    return None


def _is_compatible(a: Any, b: Any) -> bool:
    if isinstance(a, tensor_shape.TensorShape) and isinstance(b, tensor_shape.TensorShape):
        return a.is_compatible_with(b)
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    pairs = _pairs(a, b)
    if pairs is not None:
        return all(_is_compatible(x, y) for x, y in pairs)
    if isinstance(a, (list, tuple, dict)) or isinstance(b, (list, tuple, dict)):
        return False
    return a == b


def _is_subtype(a: Any, b: Any) -> bool:
    if isinstance(a, tensor_shape.TensorShape) and isinstance(b, tensor_shape.TensorShape):
        return b.rank is None or (a.rank == b.rank and all(
            y is None or x == y for x, y in zip(a.as_list(), b.as_list())))
    if isinstance(a, TypeSpec):
        return a.is_subtype_of(b)
    pairs = _pairs(a, b)
    if pairs is not None:
        return all(_is_subtype(x, y) for x, y in pairs)
    return _comparable(a) == _comparable(b)


def _most_specific(a: Any, b: Any) -> Any:
    if isinstance(a, tensor_shape.TensorShape) and isinstance(b, tensor_shape.TensorShape):
        if a.rank is None or b.rank is None or a.rank != b.rank:
            return tensor_shape.TensorShape(None)
        return tensor_shape.TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])
    if isinstance(a, TypeSpec):
        return a.most_specific_compatible_type(b)
    pairs = _pairs(a, b)
    if pairs is not None:
        merged = [_most_specific(x, y) for x, y in pairs]
        return dict(zip(a, merged)) if isinstance(a, dict) else type(a)(merged)
    if _comparable(a) != _comparable(b):
        raise ValueError("incompatible")
    return a


class _ShapedSpec(TypeSpec):
    """A spec made of a shape and a dtype (TensorSpec, SparseTensorSpec): their accessors, TF1's legacy
    types/shapes and tf.data's batch/unbatch, which keep the kind of spec."""

    __slots__ = ()
    _shape: tensor_shape.TensorShape
    _dtype: dtypes.DType

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    def _to_legacy_output_types(self) -> dtypes.DType:
        return self._dtype

    def _to_legacy_output_shapes(self) -> tensor_shape.TensorShape:
        return self._shape

    def _to_legacy_output_classes(self) -> type:
        return self.value_type

    def _batch(self, batch_size: int | None) -> Any:
        """The spec of a batch of `batch_size` values of this spec (a batch of sparse values is one sparse
        value of one more dimension)."""
        return type(self)(tensor_shape.TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self) -> Any:
        """The spec of one row of a value of this spec (tf.data's unbatch)."""
        return type(self)(self._shape[1:], self._dtype)


@tf_export("TensorSpec")
class TensorSpec(_ShapedSpec):
    """Describes a tf.Tensor: its shape, dtype and (optionally) name."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> None:
        self._shape = tensor_shape.TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec: Any, name: str | None = None) -> TensorSpec:
        """A TensorSpec with `spec`'s shape and dtype, and `name` (or `spec`'s name)."""
        return cls(spec.shape, spec.dtype, name or getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The spec of a graph tensor, named after its op unless `name` is given."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def value_type(self) -> type:
        return Tensor

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        """A tensor or TensorSpec of this dtype and a compatible shape (names are not compared)."""
        if not isinstance(spec_or_tensor, (TensorSpec, Tensor)):
            return False
        return (self._dtype.is_compatible_with(spec_or_tensor.dtype)
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._name)

    @property
    def _component_specs(self) -> TensorSpec:
        return self

    def _to_components(self, value: Any) -> Any:
        return value

    def _from_components(self, components: Any) -> Any:
        return components

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


@tf_export("NoneTensorSpec")
class NoneTensorSpec(TypeSpec):
    """The spec of None, where a structure holds no value."""

    __slots__ = ()

    @property
    def value_type(self) -> type:
        return type(None)

    def _serialize(self) -> tuple:
        return ()

    @property
    def _component_specs(self) -> list:
        return []

    def _to_components(self, value: Any) -> list:
        return []

    def _from_components(self, components: Any) -> None:
        return None

    # tf.data's legacy structure of a None component is its spec itself, as TF's; a batch of Nones is None
    def _to_legacy_output_types(self) -> NoneTensorSpec:
        return self

    def _to_legacy_output_shapes(self) -> NoneTensorSpec:
        return self

    def _to_legacy_output_classes(self) -> NoneTensorSpec:
        return self

    def _batch(self, batch_size: int | None) -> NoneTensorSpec:
        return self

    def _unbatch(self) -> NoneTensorSpec:
        return self


@tf_export("SparseTensorSpec")
class SparseTensorSpec(_ShapedSpec):
    """Describes a tf.SparseTensor: its dense shape and dtype."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32) -> None:
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value: Any) -> SparseTensorSpec:
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        if isinstance(value, SparseTensorValue):
            return cls(value.dense_shape, typed_ndarray(value.values, None, None, False, False)[1])
        raise TypeError(f"Expected SparseTensor or SparseTensorValue. Received: {value} of type "
                        f"{type(value).__name__}.")

    @property
    def value_type(self) -> type:
        return SparseTensor

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype)

    @property
    def _component_specs(self) -> list[TensorSpec]:
        rank = self._shape.ndims
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value: Any) -> list[Any]:
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components: Any) -> Any:
        """The SparseTensor, its static dense shape refined by the spec's (TF's)."""
        result = SparseTensor(*components)
        result._dense_shape_default = result._dense_shape_default.merge_with(self._shape)
        return result



@tf_export("IndexedSlicesSpec")
class IndexedSlicesSpec(TypeSpec):
    """Describes a tf.IndexedSlices: the dense shape and dtype, the indices' dtype, and the dense_shape
    tensor's dtype and shape (None: the IndexedSlices has no dense_shape)."""

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32, indices_dtype: Any = dtypes.int64,
                 dense_shape_dtype: Any = None, indices_shape: Any = None) -> None:
        self._shape = tensor_shape.as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = tensor_shape.as_shape(indices_shape).with_rank(1)

    @property
    def value_type(self) -> type:
        return IndexedSlices

    def _serialize(self) -> tuple:
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    @property
    def _component_specs(self) -> tuple:
        value_shape = self._indices_shape.concatenate(self._shape[1:])
        specs = (TensorSpec(value_shape, self._values_dtype), TensorSpec(self._indices_shape, self._indices_dtype))
        if self._dense_shape_dtype is None:
            return specs
        return specs + (TensorSpec([self._shape.ndims], self._dense_shape_dtype),)

    def _to_components(self, value: Any) -> tuple:
        if value.dense_shape is None:
            return (value.values, value.indices)
        return (value.values, value.indices, value.dense_shape)

    def _from_components(self, components: Any) -> IndexedSlices:
        return IndexedSlices(*components)


def _indexed_slices_spec(value: IndexedSlices) -> IndexedSlicesSpec:
    dense_shape = value.dense_shape
    shape = value.values.shape if dense_shape is None else tensor_util.constant_value_as_shape(dense_shape)
    if dense_shape is not None and shape.rank is None:
        shape = tensor_shape.unknown_shape(value.values.shape.ndims)
    return IndexedSlicesSpec(shape, value.dtype, value.indices.dtype,
                             None if dense_shape is None else dense_shape.dtype, value.indices.shape)


_CONVERTERS: list[tuple[type, Callable[[Any], TypeSpec]]] = [
    (Tensor, lambda value: TensorSpec(value.shape, value.dtype)),
    ((SparseTensor, SparseTensorValue), SparseTensorSpec.from_value),
    (IndexedSlices, _indexed_slices_spec),
    (type(None), lambda value: NoneTensorSpec()),
]


_COMPOSITE_TYPES: list[type] = [SparseTensor, IndexedSlices]


def register_type_spec_from_value_converter(type_object: type, converter_fn: Callable[[Any], TypeSpec],
                                            composite: bool = False) -> None:
    """Teach `type_spec_from_value` the values of `type_object` (those of higher layers); `composite`: they
    are composite tensors, which nest's `expand_composites` (so cond and while_loop) takes apart into their
    component tensors."""
    _CONVERTERS.insert(0, (type_object, converter_fn))
    if composite:
        _COMPOSITE_TYPES.append(type_object)


def composite_tensor_spec(value: Any) -> TypeSpec | None:
    """The TypeSpec of a composite tensor (SparseTensor, IndexedSlices, RaggedTensor...), else None."""
    return type_spec_from_value(value) if isinstance(value, tuple(_COMPOSITE_TYPES)) else None


def _spec_or_none(value: Any) -> TypeSpec | None:
    for value_type, converter in _CONVERTERS:
        if isinstance(value, value_type):
            return converter(value)
    if isinstance(value, TypeSpec):
        return None
    try:
        _, enum, shape = typed_ndarray(value, None, None, False, False)
    except (TypeError, ValueError, NotImplementedError):
        return None
    return TensorSpec(shape, enum)


@tf_export("type_spec_from_value")
def type_spec_from_value(value: Any) -> TypeSpec:
    """The TypeSpec of `value`: tensors, composite tensors, and what converts to a tensor."""
    spec = _spec_or_none(value)
    if spec is None:
        raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.")
    return spec
