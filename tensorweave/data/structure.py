"""The specs of tf.data's values: an element's structure as TypeSpecs (`element_spec`), the spec of an
optional, and TF1's `tf.data.experimental.*Structure` constructors.

Datasets here hold dense components only, so an element spec is a nest of TensorSpecs built from (and
convertible back to) the legacy `output_types` / `output_shapes` pair.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, nest, tensor_shape
from tensorweave.framework.type_spec import SparseTensorSpec, TensorSpec, TypeSpec
from tensorweave.ops.ragged_tensor import RaggedTensorSpec
from tensorweave.ops.tensor_array_ops import TensorArraySpec
from tensorweave.platform.tf_export import tf_export


def element_spec(output_types: Any, output_shapes: Any) -> Any:
    """The TensorSpecs of an element of dense components."""
    return nest.map_structure(lambda t, s: TensorSpec(s, t), output_types, output_shapes)


def legacy_structure(signature: Any) -> tuple[Any, Any]:
    """`output_types` and `output_shapes` of an element given as TypeSpecs (`output_signature`)."""
    for spec in nest.flatten(signature):
        if not isinstance(spec, TypeSpec):
            raise TypeError("`output_signature` must contain objects that are subclass of `tf.TypeSpec` but found "
                            f"{type(spec)} which is not.")
        if not isinstance(spec, TensorSpec):
            raise NotImplementedError(f"tensorweave's datasets hold dense tensors only, not {spec}.")
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
