"""Embedding lookups: `tf.nn.embedding_lookup` over one tensor or a list of shards.

Built as TF builds it, from existing ops: one shard is a single GatherV2 (its gradient is IndexedSlices);
several shards split the flattened ids among them by `partition_strategy` with DynamicPartition, gather in
each shard and put the rows back in order with ParallelDynamicStitch. `max_norm` clips each looked-up
embedding by its L2 norm (clip_by_norm over the embedding axes).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import convert_to_tensor_or_indexed_slices
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    manipulation_ops,
    reduction_ops,
    sequence_ops,
)
from tensorweave.ops.clip_ops import clip_by_norm
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.scatter_ops import dynamic_partition, parallel_dynamic_stitch
from tensorweave.ops.shape_ops import rank, reshape, shape, size
from tensorweave.ops.variables import PartitionedVariable
from tensorweave.platform.tf_export import tf_export


def _clip(params: Tensor, ids: Tensor, max_norm: Any) -> Tensor:
    """Each embedding in `params` (the dimensions past those of `ids`) clipped to L2 norm `max_norm`."""
    if max_norm is None:
        return params
    ids_rank, params_rank = ids.shape.ndims, params.shape.ndims
    if ids_rank and params_rank:
        axes: Any = list(range(ids_rank, params_rank))
    else:
        axes = sequence_ops.range(ids_rank or rank(ids), params_rank or rank(params))
    return clip_by_norm(params, max_norm, axes=axes)


def _div_partitions(params: list, flat_ids: Tensor) -> tuple[Tensor, Tensor]:
    """The "div" strategy: contiguous id ranges per shard, the first `extras` shards one id longer."""
    count = len(params)
    dim_0_size = tensor_shape.Dimension(params[0].shape[0].value)
    for p in params[1:]:
        dim_0_size += tensor_shape.Dimension(p.shape[0].value)
    if dim_0_size.value:
        num_total_ids = constant_ops.constant(dim_0_size.value, flat_ids.dtype)
    else:
        sizes = []
        for p in params:
            if p.shape[0].value is not None:
                sizes.append(p.shape[0].value)
            else:
                with colocate_with(p, ignore_existing=True):
                    sizes.append(shape(p)[0])
        num_total_ids = reduction_ops.reduce_sum(cast_ops.cast(manipulation_ops.stack(sizes), flat_ids.dtype))
    ids_per_partition = num_total_ids // count
    extras = num_total_ids % count
    assignments = elementwise_ops.maximum(flat_ids // (ids_per_partition + 1),
                                          (flat_ids - extras) // ids_per_partition)
    new_ids = elementwise_ops.where(assignments < extras, flat_ids % (ids_per_partition + 1),
                                    (flat_ids - extras) % ids_per_partition)
    return assignments, new_ids


@tf_export("nn.embedding_lookup")
def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod", name: str | None = None,
                     validate_indices: bool = True, max_norm: Any = None) -> Tensor:
    """The rows of `params` (one tensor, a list of shards of one, or a PartitionedVariable) at `ids`: the result has `ids`'s shape
    followed by an embedding's. With shards, id i lives in shard i % n ("mod") or in the shard of contiguous
    ids holding it ("div"). `validate_indices` is ignored, as in TF."""
    del validate_indices
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    params = list(params) if isinstance(params, (list, tuple, PartitionedVariable)) else [params]
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        if not any(hasattr(p, "sparse_read") for p in params):  # resource variables stay, to read only rows
            params = [convert_to_tensor_or_indexed_slices(p, name=f"params_{i}") for i, p in enumerate(params)]
        ids = convert_to_tensor(ids, name="ids")
        if len(params) == 1:
            with colocate_with(params[0], ignore_existing=True):
                result = _clip(gather(params[0], ids, name=scope), ids, max_norm)
            return manipulation_ops.identity(result)
        count = len(params)
        flat_ids = reshape(ids, [-1])
        original_indices = sequence_ops.range(size(flat_ids, out_type=dtypes.int32))
        if partition_strategy == "mod":
            assignments, new_ids = flat_ids % count, flat_ids // count
        elif partition_strategy == "div":
            assignments, new_ids = _div_partitions(params, flat_ids)
        else:
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be one of either `mod` "
                             "or `div`.")
        assignments = cast_ops.cast(assignments, dtypes.int32)
        gather_ids = dynamic_partition(new_ids, assignments, count)
        positions = dynamic_partition(original_indices, assignments, count)
        partitioned = []
        for p, p_ids in zip(params, gather_ids):
            with colocate_with(p, ignore_existing=True):
                partitioned.append(gather(p, p_ids))
        result = parallel_dynamic_stitch(positions, partitioned, name=scope)
        element_shape = params[0].shape[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.shape[1:])
        if element_shape.is_fully_defined():
            element_dims: Any = element_shape.as_list()
        else:
            with colocate_with(params[0], ignore_existing=True):
                element_dims = shape(params[0])[1:]
        result = reshape(result, manipulation_ops.concat([shape(ids), element_dims], 0))
        result.set_shape(ids.shape.concatenate(element_shape))
        return _clip(result, ids, max_norm)
