"""The specs of tf.data's values: an element's structure as TypeSpecs (`element_spec`), the spec of an
optional, and TF1's `tf.data.experimental.*Structure` constructors.

An element spec is a nest of TensorSpecs, SparseTensorSpecs and RaggedTensorSpecs, as TF's; TF1's legacy
`output_types`, `output_shapes` and `output_classes` are views of it. Inside a pipeline an element is flat: each
spec's component tensors in nest order (a sparse value as its indices, values and dense_shape, a ragged one as
its flat values and row splits, where TF encodes one variant). In the graph (a dataset node's structure attrs, an
iterator's outputs) a sparse or ragged value is one variant as TF's (`graph_specs`): a sparse one serialized, a
[3] vector of its tensors (SerializeSparse; DeserializeSparse after IteratorGetNext), a ragged one encoded
(RaggedTensorToVariant; RaggedTensorFromVariant).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, nest, tensor_shape
from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import NoneTensorSpec, SparseTensorSpec, TensorSpec, TypeSpec
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.manipulation_ops import stack, unstack
from tensorweave.ops.ragged_tensor import (
    RaggedTensor,
    RaggedTensorFromVariant,
    RaggedTensorSpec,
    RaggedTensorToVariant,
)
from tensorweave.ops.sparse_misc_ops import DeserializeSparse, SerializeManySparse, SerializeSparse
from tensorweave.ops.tensor_array_ops import TensorArraySpec
from tensorweave.platform.tf_export import tf_export


def element_spec(output_types: Any, output_shapes: Any, output_classes: Any = None) -> Any:
    """The TypeSpecs of an element given TF1's legacy structure (no classes: every component a Tensor)."""
    if output_classes is None:
        return nest.map_structure(lambda t, s: TensorSpec(s, t), output_types, output_shapes)
    return nest.map_structure(_legacy_spec, output_types, output_shapes, output_classes)


def _legacy_spec(dtype: Any, shape: Any, value_class: Any) -> TypeSpec:
    if isinstance(value_class, TypeSpec):
        return value_class
    if value_class is Tensor:
        return TensorSpec(shape, dtype)
    if value_class is SparseTensor:
        return SparseTensorSpec(shape, dtype)
    raise TypeError(f"Could not build a structure for output class {value_class.__name__}.")


def spec_of(values: Any) -> Any:
    """The TypeSpecs of a structure of tensors, sparse and ragged tensors (what `to_tensors` gives)."""
    return nest.map_structure(_value_spec, values)


def _value_spec(value: Any) -> TypeSpec:
    if isinstance(value, SparseTensor):
        return SparseTensorSpec(value.shape, value.dtype)
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    if value is None:
        return NoneTensorSpec()
    return TensorSpec(value.shape, value.dtype)


def is_dense(spec: Any) -> bool:
    """Whether every component of an element of `spec` is a Tensor (the fast paths take only these)."""
    return all(type(s) is TensorSpec for s in nest.flatten(spec))


def component_specs(spec: Any) -> list[TensorSpec]:
    """The specs of an element's flat component tensors."""
    return [c for s in nest.flatten(spec) for c in nest.flatten(s._component_specs)]


def to_components(values: Any, spec: Any) -> list[Any]:
    """An element's flat component tensors."""
    return [c for s, v in zip(nest.flatten(spec), nest.flatten(values)) for c in nest.flatten(s._to_components(v))]


def from_components(spec: Any, components: list[Any]) -> Any:
    """The element of `spec` made of its flat component tensors."""
    if is_dense(spec):
        return nest.pack_sequence_as(spec, components)
    values, position = [], 0
    for s in nest.flatten(spec):
        count = len(nest.flatten(s._component_specs))
        parts = components[position:position + count]
        if isinstance(s, SparseTensorSpec):
            values.append(_sparse_value(s, *parts))
        elif isinstance(s, NoneTensorSpec):
            values.append(None)
        else:
            values.append(s._from_components(parts if isinstance(s, RaggedTensorSpec) else parts[0]))
        position += count
    return nest.pack_sequence_as(spec, values)


def _sparse_value(spec: SparseTensorSpec, indices: Tensor, values: Tensor, dense_shape: Tensor) -> SparseTensor:
    """A sparse value rebuilt as TF rebuilds one: the dimensions its spec knows are constants of its dense
    shape, so that the shape inference of what uses it (a traced function's ops) sees them."""
    dims = spec.shape.as_list() if spec.shape.rank is not None else []
    if dims and None not in dims:
        dense_shape = constant(dims, dtypes.int64, name="shape")
    elif any(d is not None for d in dims):
        pieces = unstack(dense_shape, num=len(dims))
        dense_shape = stack([p if d is None else constant(d, dtypes.int64) for p, d in zip(pieces, dims)])
    return SparseTensor(indices, values, dense_shape)


def _is_variant(spec: TypeSpec) -> bool:
    """Whether the graph passes a value of `spec` as one variant (a sparse or ragged value)."""
    return isinstance(spec, (SparseTensorSpec, RaggedTensorSpec))


def graph_specs(spec: Any) -> list[TensorSpec]:
    """The specs of an element's tensors in the graph (TF's flat tensor specs): a sparse or ragged value one
    variant of unknown shape."""
    flat = []
    for s in nest.flatten(spec):
        if _is_variant(s):
            flat.append(TensorSpec(None, dtypes.variant))
        else:
            flat.extend(nest.flatten(s._component_specs))
    return flat


def to_graph_tensors(values: Any, spec: Any, batched: bool = False) -> list[Any]:
    """An element's (or, `batched`, a batch of elements') tensors as the graph passes them: a sparse value
    serialized (SerializeSparse, or SerializeManySparse for a batch), a ragged one encoded (RaggedTensorToVariant),
    as TF's `to_tensor_list`."""
    flat = []
    for s, v in zip(nest.flatten(spec), nest.flatten(values)):
        if isinstance(s, SparseTensorSpec):
            serialize = SerializeManySparse if batched else SerializeSparse
            flat.append(serialize(v.indices, v.values, v.dense_shape, out_type=dtypes.variant))
        elif isinstance(s, RaggedTensorSpec):
            flat.append(ragged_to_variant(v, batched))
        else:
            flat.extend(nest.flatten(s._to_components(v)))
    return flat


def from_graph_tensors(spec: Any, tensors: list[Any]) -> Any:
    """The element of `spec` made of its graph tensors (TF's `from_compatible_tensor_list`): a sparse value's
    variant deserialized (DeserializeSparse)."""
    if is_dense(spec):
        return nest.pack_sequence_as(spec, tensors)
    components, position = [], 0
    for s in nest.flatten(spec):
        if isinstance(s, SparseTensorSpec):
            indices, values, dense_shape = DeserializeSparse(tensors[position], dtype=s.dtype)
            indices.set_shape([None, s.shape.rank])
            if s.shape.rank is None or not any(d is not None for d in s.shape.as_list()):
                dense_shape.set_shape([s.shape.rank])
            components.extend([indices, values, dense_shape])
            position += 1
        elif isinstance(s, RaggedTensorSpec):
            components.extend(ragged_from_variant(tensors[position], s))
            position += 1
        else:
            count = len(nest.flatten(s._component_specs))
            components.extend(tensors[position:position + count])
            position += count
    return from_components(spec, components)


def sparse_variant(indices: Any, values: Any, dense_shape: Any) -> np.ndarray:
    """The run-time value of a serialized sparse variant: a [3] vector holding its three arrays."""
    variant = np.empty(3, dtype=object)
    variant[0], variant[1], variant[2] = indices, values, dense_shape
    return variant


def to_graph_values(spec: Any, element: list[Any]) -> list[Any]:
    """A pipeline's flat element as the graph's tensors hold it (each sparse value's arrays one variant)."""
    if is_dense(spec):
        return element
    flat, position = [], 0
    for s in nest.flatten(spec):
        count = len(nest.flatten(s._component_specs))
        if isinstance(s, SparseTensorSpec):
            flat.append(sparse_variant(*element[position:position + 3]))
        elif isinstance(s, RaggedTensorSpec):
            variant = np.empty((), dtype=object)
            variant[()] = list(element[position:position + count])
            flat.append(variant)
        else:
            flat.extend(element[position:position + count])
        position += count
    return flat


def from_graph_values(spec: Any, values: list[Any], batched: bool = False) -> list[Any]:
    """The pipeline's flat components of the graph's values of an element (or, `batched`, of a batch of
    elements: each sparse variant [N, 3], one row per element, which become one sparse value of N rows)."""
    if is_dense(spec):
        return list(values)
    flat, position = [], 0
    for s in nest.flatten(spec):
        if isinstance(s, SparseTensorSpec):
            variant = values[position]
            flat.extend(_batched_sparse(variant) if batched else list(variant))
            position += 1
        elif isinstance(s, RaggedTensorSpec):
            variant = np.asarray(values[position], dtype=object)
            flat.extend(_batched_ragged(list(variant), s) if batched else list(variant[()]))
            position += 1
        else:
            count = len(nest.flatten(s._component_specs))
            flat.extend(values[position:position + count])
            position += count
    return flat


def _batched_sparse(rows: np.ndarray) -> list[np.ndarray]:
    """One sparse value of the rows of a [N, 3] sparse variant (each row's entries led by its row number)."""
    inner = np.asarray(rows[0, 2]) if len(rows) else np.zeros([0], np.int64)
    indices = [np.concatenate([np.full((len(i), 1), n, np.int64), np.asarray(i, np.int64).reshape(len(i), inner.size)], 1)
               for n, (i, _, _) in enumerate(rows)]
    values = [np.asarray(v) for _, v, _ in rows]
    return [np.concatenate(indices) if indices else np.zeros([0, 1 + inner.size], np.int64),
            np.concatenate(values) if values else np.zeros([0]),
            np.concatenate([[len(rows)], inner]).astype(np.int64)]


def _batched_ragged(rows: list[list[Any]], spec: RaggedTensorSpec) -> list[np.ndarray]:
    """The flat values and row splits of the ragged value whose rows a batched ragged variant holds."""
    splits_dtype = spec.row_splits_dtype.as_numpy_dtype
    inner = spec.ragged_rank - 1
    lengths = [len(row[1]) - 1 if inner else len(row[0]) for row in rows]
    levels = [np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(splits_dtype)]
    for level in range(1, inner + 1):
        parts, offset = [np.zeros(1, splits_dtype)], 0
        for row in rows:
            splits = np.asarray(row[level])
            parts.append((splits[1:] + offset).astype(splits_dtype))
            offset += int(splits[-1])
        levels.append(np.concatenate(parts))
    values = np.concatenate([np.asarray(row[0]) for row in rows]) if rows else np.zeros([0], spec.dtype.as_numpy_dtype)
    return [values, *levels]


def ragged_to_variant(value: Any, batched: bool) -> Tensor:
    """A ragged value (or a dense one of a ragged_rank-0 spec) encoded as one variant, as TF's `_to_variant`."""
    if not isinstance(value, RaggedTensor):
        return RaggedTensorToVariant([], value, batched_input=batched)
    with name_scope(None, "RaggedToVariant"):
        return RaggedTensorToVariant(list(value.nested_row_splits), value.flat_values, batched_input=batched)


def ragged_from_variant(variant: Tensor, spec: RaggedTensorSpec) -> list[Tensor]:
    """The flat values and row splits of the ragged value of `spec` a variant encodes (TF's `_from_variant`, its
    static shape set from the spec)."""
    rank = max(spec.ragged_rank, 0)
    with name_scope(None, "RaggedFromVariant"):
        outputs = RaggedTensorFromVariant(variant, input_ragged_rank=-1, output_ragged_rank=rank, Tvalues=spec.dtype,
                                          Tsplits=spec.row_splits_dtype)
    outputs = outputs if isinstance(outputs, list) else [outputs]
    *splits, values = outputs
    shape = spec.shape
    if shape.ndims is not None:
        if rank == 0:
            values.set_shape(shape)
        else:
            values.set_shape(tensor_shape.TensorShape([None]).concatenate(shape[rank + 1:]))
            rows = tensor_shape.dimension_value(shape[0])
            if rows is not None:
                splits[0].set_shape([rows + 1])
    return [values, *splits]


def shapes_like(types: Any, shapes: Any, leaf: Callable[[Any], Any] = tensor_shape.as_shape) -> Any:
    """`shapes` (a shape per component, a shape being a list or None) in the structure of `types`, as TF's
    `map_structure_up_to` reads legacy shapes; `leaf` reads each shape."""
    if not nest.is_nested(types):
        return leaf(shapes)
    if isinstance(types, dict):
        return {k: shapes_like(types[k], shapes[k], leaf) for k in types}
    if len(types) != len(shapes):
        raise ValueError("The two structures don't have the same sequence length. Input structure has length "
                         f"{len(shapes)}, while shallow structure has length {len(types)}.")
    parts = [shapes_like(t, s, leaf) for t, s in zip(types, shapes)]
    return type(types)(*parts) if hasattr(types, "_fields") else type(types)(parts)


def legacy_types(spec: Any) -> Any:
    return nest.map_structure(lambda s: s._to_legacy_output_types(), spec)


def legacy_shapes(spec: Any) -> Any:
    return nest.map_structure(lambda s: s._to_legacy_output_shapes(), spec)


def legacy_classes(spec: Any) -> Any:
    return nest.map_structure(lambda s: s._to_legacy_output_classes(), spec)


def legacy_structure(signature: Any) -> tuple[Any, Any]:
    """`output_types` and `output_shapes` of an element given as TypeSpecs (`output_signature`)."""
    for spec in nest.flatten(signature):
        if not isinstance(spec, TypeSpec):
            raise TypeError("`output_signature` must contain objects that are subclass of `tf.TypeSpec` but found "
                            f"{type(spec)} which is not.")
        if not isinstance(spec, TensorSpec):
            raise NotImplementedError(f"tensorweave's `from_generator` yields dense tensors only, not {spec}.")
    return (nest.map_structure(lambda spec: spec.dtype, signature),
            nest.map_structure(lambda spec: spec.shape, signature))


@tf_export("OptionalSpec", "data.experimental.OptionalStructure")
class OptionalSpec(TypeSpec):
    """Describes an optional value (tf.experimental.Optional) by the spec of the value it may hold."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec

    @property
    def value_type(self) -> type:
        raise NotImplementedError("tf.experimental.Optional values are not built in tensorweave.")

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    @property
    def _component_specs(self) -> list[TensorSpec]:
        return [TensorSpec([], dtypes.variant)]

    def _to_components(self, value: Any) -> list[Any]:
        raise NotImplementedError("tf.experimental.Optional values are not built in tensorweave.")

    def _from_components(self, components: Any) -> Any:
        raise NotImplementedError("tf.experimental.Optional values are not built in tensorweave.")


@tf_export("data.experimental.TensorStructure")
def tensor_structure(dtype: Any, shape: Any) -> TensorSpec:
    """TF1's name for `tf.TensorSpec(shape, dtype)`."""
    return TensorSpec(shape, dtype)


@tf_export("data.experimental.SparseTensorStructure")
def sparse_tensor_structure(dtype: Any, shape: Any) -> SparseTensorSpec:
    """TF1's name for `tf.SparseTensorSpec(shape, dtype)`."""
    return SparseTensorSpec(shape, dtype)


@tf_export("data.experimental.RaggedTensorStructure")
def ragged_tensor_structure(dtype: Any, shape: Any, ragged_rank: int) -> RaggedTensorSpec:
    """TF1's name for `tf.RaggedTensorSpec(shape, dtype, ragged_rank)`."""
    return RaggedTensorSpec(shape, dtype, ragged_rank)


@tf_export("data.experimental.TensorArrayStructure")
def tensor_array_structure(dtype: Any, element_shape: Any, dynamic_size: bool, infer_shape: bool) -> TensorArraySpec:
    """TF1's name for `tf.TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)`."""
    return TensorArraySpec(tensor_shape.as_shape(element_shape), dtype, dynamic_size, infer_shape)
