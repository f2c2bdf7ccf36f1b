"""Partitioners: functions `(shape, dtype) -> slicing` that tell `get_variable` how many shards to split a
variable into along one axis, and `create_partitioned_variables`.

A slicing has one entry per dimension, all 1 but the sliced axis's; `get_variable` gives the first
`length % shards` shards one extra row, so shard sizes differ by at most one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.ops import variable_scope
from tensorweave.platform.tf_export import tf_export


def _element_bytes(dtype: Any, bytes_per_string_element: int) -> int:
    dtype = dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype.base_dtype == dtypes.string else dtype.size


@tf_export("variable_axis_size_partitioner")
def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0, bytes_per_string_element: int = 16,
                                   max_shards: int | None = None) -> Callable:
    """Shards of at most `max_shard_bytes` along `axis` where one slice of the axis allows (else one slice
    per shard), at most `max_shards` of them: keeps each shard under a message-size limit."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"Both max_shard_bytes and bytes_per_string_element must be positive. Currently, "
                         f"max_shard_bytes is {max_shard_bytes} andbytes_per_string_element is "
                         f"{bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape: tensor_shape.TensorShape, dtype: Any) -> list[int]:
        if not isinstance(shape, tensor_shape.TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        element_size = _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


@tf_export("min_max_variable_partitioner")
def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0, min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16) -> Callable:
    """As many shards as give each at least `min_slice_size` bytes, at most `max_partitions` and at most the
    axis's length."""

    def _partitioner(shape: tensor_shape.TensorShape, dtype: Any) -> list[int]:
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is only {shape}")
        total_size_bytes = shape.num_elements() * _element_bytes(dtype, bytes_per_string_element)
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(1, min(shape.dims[axis].value, max_partitions, int(math.ceil(partitions))))
        return partitions_list

    return _partitioner


@tf_export("fixed_size_partitioner")
def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Callable:
    """`num_shards` shards along `axis` (fewer when the axis is shorter)."""

    def _partitioner(shape: tensor_shape.TensorShape, **unused_args: Any) -> list[int]:
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, shape.dims[axis].value)
        return partitions_list

    return _partitioner


@tf_export("create_partitioned_variables")
def create_partitioned_variables(shape: Any, slicing: Any, initializer: Any, dtype: Any = dtypes.float32,
                                 trainable: bool = True, collections: list | None = None, name: str | None = None,
                                 reuse: Any = None) -> list:
    """The shards of a variable of `shape` sliced as `slicing` says (TF1's deprecated form of `get_variable`
    with a partitioner), under the scope `name` or a unique `PartitionedVariable`."""
    if len(shape) != len(slicing):
        raise ValueError(f"The 'shape' and 'slicing' of a partitioned Variable must have the length: shape: "
                         f"{shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")

    def partitioner(**unused_kwargs: Any) -> Any:
        return slicing

    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        store = variable_scope._get_default_variable_store()
        scope = variable_scope.get_variable_scope()
        return list(store._get_partitioned_variable(
            scope.name, partitioner, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
            collections=collections, reuse=scope.reuse))
