"""Embedding lookups: `tf.nn.embedding_lookup` over one tensor or a list of shards, and the sparse forms
`embedding_lookup_sparse` and `safe_embedding_lookup_sparse` that combine the embeddings of each row's ids.

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
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.tensor_shape import dimension_value
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    manipulation_ops,
    reduction_ops,
    segment_ops,
    sequence_ops,
    set_ops,
    shape_ops,
    sparse_ops,
)
from tensorweave.ops.clip_ops import clip_by_norm
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.scatter_ops import dynamic_partition, parallel_dynamic_stitch
from tensorweave.ops.shape_ops import rank, reshape, shape, size
from tensorweave.ops.variables import PartitionedVariable, Variable
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
    dim_0_size = tensor_shape.Dimension(dimension_value(params[0].shape[0]))
    for p in params[1:]:
        dim_0_size += tensor_shape.Dimension(dimension_value(p.shape[0]))
    if dim_0_size.value:
        num_total_ids = constant_ops.constant(dim_0_size.value, flat_ids.dtype)
    else:
        sizes = []
        for p in params:
            if dimension_value(p.shape[0]) is not None:
                sizes.append(dimension_value(p.shape[0]))
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


_COMBINERS = ("mean", "sqrtn", "sum")


def _combine_weighted(embeddings: Tensor, weights: Tensor, segment_ids: Tensor, combiner: str,
                      name: str) -> Tensor:
    """Each segment's weighted sum of embeddings, divided by its weight sum ("mean") or by the root of its
    squared weights' sum ("sqrtn"); half types are combined in float32."""
    original = embeddings.dtype
    if original in (dtypes.float16, dtypes.bfloat16):
        embeddings = cast_ops.cast(embeddings, dtypes.float32)
    if weights.dtype != embeddings.dtype:
        weights = cast_ops.cast(weights, embeddings.dtype)
    ones = fill_ops.ones(shape_ops.expand_dims(shape_ops.rank(embeddings) - 1, 0), dtype=dtypes.int32)
    static_weights = weights.shape
    weights = shape_ops.reshape(weights, manipulation_ops.concat([shape_ops.shape(weights), ones], 0))
    if embeddings.shape.ndims is not None:
        weights.set_shape(static_weights.concatenate([1] * (embeddings.shape.ndims - 1)))
    embeddings = embeddings * weights
    if combiner == "sum":
        embeddings = segment_ops.segment_sum(embeddings, segment_ids, name=name)
    else:
        summed = segment_ops.segment_sum(embeddings, segment_ids)
        if combiner == "mean":
            divisor = segment_ops.segment_sum(weights, segment_ids)
        else:
            divisor = elementwise_ops.sqrt(segment_ops.segment_sum(elementwise_ops.pow(weights, 2), segment_ids))
        embeddings = elementwise_ops.div_no_nan(summed, divisor, name=name)
    return cast_ops.cast(embeddings, original) if embeddings.dtype != original else embeddings


@tf_export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params: Any, sp_ids: Any, sp_weights: Any, partition_strategy: str = "mod",
                            name: str | None = None, combiner: str | None = None, max_norm: Any = None,
                            allow_fast_lookup: bool = False) -> Tensor:
    """Per row of the SparseTensor `sp_ids` (rows up to its last non-empty one), its ids' embeddings
    combined: summed, averaged ("mean", the default) or divided by the root of the squared weights' sum
    ("sqrtn"), weighted by `sp_weights` (a SparseTensor like `sp_ids`) or by 1.

    As TF 2.21: one unpartitioned, unclipped parameter tensor (not a resource variable, a CompositeTensor in TF)
    on the ids' device is read straight by the
    sparse-segment op (its gradient then sparse) when the lookup is unweighted or `allow_fast_lookup`;
    otherwise the unique ids are looked up first."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = list(params) if isinstance(params, (list, tuple, PartitionedVariable)) else [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as scope:
        segment_ids = sp_ids.indices[:, 0]
        ids = sp_ids.values
        if len(params) == 1 and not isinstance(params[0], (Tensor, Variable)):
            params = [convert_to_tensor(params[0], name="params")]
        direct = (len(params) == 1 and not cast_ops.is_resource_variable(params[0])  # TF's CompositeTensor
                  and params[0].device == segment_ids.device and max_norm is None
                  and (allow_fast_lookup or ignore_weights))
        if direct:
            idx, embeddings = ids, params[0]
        else:
            ids, idx = set_ops.unique(ids)
            embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
        if not ignore_weights:
            segment_ids = cast_ops.cast(segment_ids, dtypes.int32)
            return _combine_weighted(indexing_ops.gather(embeddings, idx), sp_weights.values, segment_ids, combiner,
                                     scope)
        combine = {"sum": segment_ops.sparse_segment_sum, "mean": segment_ops.sparse_segment_mean,
                   "sqrtn": segment_ops.sparse_segment_sqrt_n}[combiner]
        return combine(embeddings, idx, segment_ids, name=scope, sparse_gradient=direct and not allow_fast_lookup)


def _retain(sparse_ids: SparseTensor, sparse_weights: SparseTensor | None,
            keep: Tensor) -> tuple[SparseTensor, SparseTensor | None]:
    sparse_ids = sparse_ops.sparse_retain(sparse_ids, keep)
    if sparse_weights is not None:
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, keep)
    return sparse_ids, sparse_weights


@tf_export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights: Any, sparse_ids: Any, sparse_weights: Any = None,
                                 combiner: str = "mean", default_id: Any = None, name: str | None = None,
                                 partition_strategy: str = "div", max_norm: Any = None,
                                 allow_fast_lookup: bool = False) -> Tensor:
    """embedding_lookup_sparse made safe for real inputs: ids < 0 (and, unless summing, weights <= 0) are
    dropped, a row left empty gets the embedding of `default_id` (or zeros), and ids of any rank
    [d0, ..., dn, ids] give embeddings [d0, ..., dn, dim]."""
    if embedding_weights is None or (isinstance(embedding_weights, (list, tuple)) and not embedding_weights):
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    embedding_weights = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else [
        embedding_weights]
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    with name_scope(name, "embedding_lookup", embedding_weights + [sparse_ids, sparse_weights]) as scope:
        original_shape = sparse_ids.dense_shape
        rank_dim = original_shape.shape.dims[0].value
        original_rank = size(original_shape) if rank_dim is None else rank_dim
        sparse_ids = sparse_ops.sparse_reshape(sparse_ids, [
            reduction_ops.reduce_prod(indexing_ops.slice(original_shape, [0], [original_rank - 1])),
            indexing_ops.gather(original_shape, original_rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape)
        valid = elementwise_ops.greater_equal(sparse_ids.values, 0)
        if sparse_weights is not None:
            valid = elementwise_ops.logical_and(valid, fill_ops.ones_like(sparse_weights.values, dtype=dtypes.bool))
        sparse_ids, sparse_weights = _retain(sparse_ids, sparse_weights, valid)
        if combiner != "sum" and sparse_weights is not None:
            sparse_ids, sparse_weights = _retain(sparse_ids, sparse_weights,
                                                 elementwise_ops.greater(sparse_weights.values, 0))
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
                                         partition_strategy=partition_strategy,
                                         name=None if default_id is None else scope, max_norm=max_norm)
        if default_id is None:
            is_row_empty = manipulation_ops.tile(shape_ops.reshape(is_row_empty, [-1, 1]),
                                                 manipulation_ops.stack([1, shape(result)[1]]))
            result = elementwise_ops.where(is_row_empty, fill_ops.zeros_like(result), result, name=scope)
        final = shape_ops.reshape(result, manipulation_ops.concat([
            indexing_ops.slice(cast_ops.cast(original_shape, dtypes.int32), [0], [original_rank - 1]),
            indexing_ops.slice(shape(result), [1], [-1])], 0))
        outer = tensor_shape.unknown_shape(None if rank_dim is None else rank_dim - 1)
        final.set_shape(outer.concatenate(result.shape[1:]))
        return final
