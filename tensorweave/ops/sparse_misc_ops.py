"""The remaining `tf.sparse` helpers TF1 builds from existing ops: expand_dims, reset_shape, to_indicator (one
indicator row per sparse row of ids) and mask (the slices of an IndexedSlices not at given indices); and
EditDistance (`tf.edit_distance`), the Levenshtein distances between the sequences of two sparse tensors,
computed for all sequence pairs at once one dynamic-programming row at a time."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import assert_equal, assert_less_equal
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.elementwise_ops import maximum, where_v2
from tensorweave.ops.fill_ops import fill, ones_like, zeros
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.indexing_ops import slice as tf_slice
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.manipulation_ops import concat, identity
from tensorweave.ops.reduction_ops import reduce_max
from tensorweave.ops.set_ops import setdiff1d
from tensorweave.ops.shape_ops import expand_dims as dense_expand_dims
from tensorweave.ops.shape_ops import shape
from tensorweave.ops.sparse_ops import _convert_to_sparse_tensor, sparse_reorder, sparse_tensor_to_dense
from tensorweave.platform.tf_export import tf_export


@tf_export("sparse.expand_dims")
def expand_dims(sp_input: Any, axis: Any = None, name: str | None = None) -> SparseTensor:
    """`sp_input` with a dimension of size 1 inserted at `axis` (default: last)."""
    rank = sp_input.dense_shape.shape.as_list()[0] if sp_input.dense_shape.shape.ndims else None
    if rank is None:
        rank = shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with name_scope(name, "expand_dims", [sp_input]):
        if isinstance(axis, (int, np.integer)):
            axis = convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        elif not isinstance(axis, Tensor):
            raise TypeError("axis must be an int or a Tensor")
        axis = where_v2(axis >= 0, axis, axis + rank + 1)
        entries = shape(sp_input.indices)[0]
        new_column = zeros(concat([dense_expand_dims(entries, 0), [1]], 0), dtypes.int64)
        indices = concat([tf_slice(sp_input.indices, [0, 0], concat([[-1], dense_expand_dims(axis, 0)], 0)),
                          new_column, tf_slice(sp_input.indices, concat([[0], dense_expand_dims(axis, 0)], 0),
                                               [-1, -1])], axis=1)
        before = tf_slice(sp_input.dense_shape, [0], dense_expand_dims(axis, 0))
        after = tf_slice(sp_input.dense_shape, dense_expand_dims(axis, 0), [-1])
        dense_shape = concat([before, convert_to_tensor([1], name="new_shape", dtype=dtypes.int64), after], 0)
        return SparseTensor(indices=indices, values=sp_input.values, dense_shape=dense_shape)


@tf_export("sparse.reset_shape", "sparse_reset_shape")
def sparse_reset_shape(sp_input: Any, new_shape: Any = None) -> SparseTensor:
    """`sp_input` with dense shape `new_shape` (no smaller than the old one), or by default the tightest shape
    holding its entries."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    indices, values = identity(sp_input.indices), identity(sp_input.values)
    old_shape = identity(sp_input.dense_shape)
    if new_shape is None:
        result_shape = maximum(np.int64(0), reduce_max(indices, axis=0) + ones_like(old_shape))
        return SparseTensor(indices, values, result_shape)
    result_shape = convert_to_tensor(new_shape)
    result_shape.shape.assert_has_rank(1)
    result_shape = cast(result_shape, dtypes.int64)
    if result_shape.shape.ndims is not None:
        result_shape.shape.dims[0].assert_is_compatible_with(old_shape.shape.dims[0])
    known = tensor_util.constant_value(result_shape)
    if known is not None and sp_input.shape.is_fully_defined():
        old_known = np.array(sp_input.shape.as_list())
        if not np.all(old_known <= known):
            raise ValueError("Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape "
                             f"({old_known}), sp_input.shape ({known}).")
        return SparseTensor(indices, values, known)
    result_shape = with_dependencies([assert_equal(shape(old_shape), shape(result_shape))], result_shape)
    result_shape = with_dependencies([assert_less_equal(old_shape, result_shape)], result_shape)
    return SparseTensor(indices, values, result_shape)


@tf_export("sparse.to_indicator", "sparse_to_indicator")
def sparse_to_indicator(sp_input: Any, vocab_size: Any, name: str | None = None) -> Tensor:
    """A dense bool tensor [..., vocab_size]: True at each id the sparse row's values hold."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    with name_scope(name, "SparseToIndicator", [sp_input]) as scope:
        ids = cast(sp_input.values, dtypes.int64)
        indices = concat([sp_input.indices[:, :-1], dense_expand_dims(ids, 1)], 1)
        dense_shape = concat([sp_input.dense_shape[:-1], cast(dense_expand_dims(vocab_size, 0), dtypes.int64)], 0)
        flags = fill(dense_expand_dims(shape(sp_input.indices)[0], 0), True)
        merged = sparse_reorder(SparseTensor(indices, flags, dense_shape))
        # Repeated ids make repeated indices, all True, so the order check is what needs skipping.
        return sparse_tensor_to_dense(merged, default_value=False, validate_indices=False, name=scope)


@tf_export("sparse.mask", "sparse_mask")
def sparse_mask(a: IndexedSlices, mask_indices: Any, name: str | None = None) -> IndexedSlices:
    """The slices of `a` whose indices are not in `mask_indices`."""
    with name_scope(name, "sparse_mask", [a, mask_indices]) as scope:
        kept_indices, positions = setdiff1d(a.indices, mask_indices)
        return IndexedSlices(gather(a.values, positions, name=scope), kept_indices, a.dense_shape)


# -- EditDistance -------------------------------------------------------------------------------------------

EditDistance = Op("EditDistance", inputs=["hypothesis_indices: int64", "hypothesis_values: T", "hypothesis_shape: int64",
                                          "truth_indices: int64", "truth_values: T", "truth_shape: int64"],
                  outputs=["output: float"], attrs=["normalize: bool = true", "T: type"])
NotDifferentiable("EditDistance")


@EditDistance.shape
def _edit_distance_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    hypothesis, truth = ctx.input_value(2), ctx.input_value(5)
    if hypothesis is None or truth is None:
        return [tensor_shape.unknown_shape()]
    if len(hypothesis) != len(truth):
        raise ValueError(f"Num elements of hypothesis_shape does not match truth_shape: {len(hypothesis)} vs. "
                         f"{len(truth)}")
    return [tensor_shape.TensorShape(np.maximum(hypothesis, truth)[:-1].tolist())]


def _sequences(indices: Any, values: Any, group_shape: Any) -> tuple[Any, Any, Any]:
    """Each entry's sequence (row-major number over `group_shape`), position in it, and the sequences' lengths,
    entries ordered by sequence then by last index."""
    order = np.lexsort(indices.T[::-1]) if indices.size else np.arange(len(values))
    indices, values = indices[order], values[order]
    groups = (np.ravel_multi_index(tuple(indices[:, :-1].T), tuple(group_shape)) if len(values)
              else np.zeros(0, np.int64))
    lengths = np.bincount(groups, minlength=int(np.prod(group_shape))).astype(np.int64)
    starts = np.cumsum(lengths) - lengths
    return values, groups, np.arange(len(values)) - starts[groups], lengths


def _levenshtein(hyp: Any, hyp_lengths: Any, truth: Any, truth_lengths: Any) -> Any:
    """The edit distances of many sequence pairs ([pairs, max length] arrays, padded), one DP row per
    hypothesis position for all pairs: a row is min(deletion, substitution) then insertion runs as a running
    minimum of (candidate - j) + j."""
    pairs, columns = truth.shape
    j = np.arange(columns + 1)
    row = np.broadcast_to(j, (pairs, columns + 1)).astype(np.int64)
    result = row[np.arange(pairs), truth_lengths].copy()
    for i in range(1, hyp.shape[1] + 1):
        substitution = row[:, :-1] + (hyp[:, i - 1:i] != truth)
        candidate = np.concatenate([np.full((pairs, 1), i), np.minimum(row[:, 1:] + 1, substitution)], axis=1)
        row = np.minimum.accumulate(candidate - j, axis=1) + j
        done = hyp_lengths == i
        result[done] = row[done, truth_lengths[done]]
    return result


def _padded(values: Any, groups: Any, positions: Any, count: int, width: int) -> Any:
    out = np.zeros((count, width), dtype=values.dtype)
    out[groups, positions] = values
    return out


@EditDistance.kernel("CPU")
def _edit_distance(ctx: OpKernelContext, hypothesis_indices: Any, hypothesis_values: Any, hypothesis_shape: Any,
                   truth_indices: Any, truth_values: Any, truth_shape: Any, normalize: bool) -> Any:
    for side, indices, values, dense_shape in (("hypothesis", hypothesis_indices, hypothesis_values,
                                                hypothesis_shape), ("truth", truth_indices, truth_values, truth_shape)):
        if indices.ndim != 2 or values.ndim != 1 or dense_shape.ndim != 1 or values.shape[0] != indices.shape[0] \
                or dense_shape.shape[0] != indices.shape[1]:
            raise invalid_argument(ctx, f"{side} indices, values and shape do not form a sparse tensor: "
                                        f"{tensor_shape.shape_string(indices.shape)}, "
                                        f"{tensor_shape.shape_string(values.shape)}, "
                                        f"{tensor_shape.shape_string(dense_shape.shape)}")
    if hypothesis_shape.shape != truth_shape.shape:
        raise invalid_argument(ctx, f"hypothesis_shape and truth_shape must have the same number of elements: "
                                    f"{hypothesis_shape.shape[0]} vs. {truth_shape.shape[0]}")
    group_shape = np.maximum(hypothesis_shape, truth_shape)[:-1]
    count = int(np.prod(group_shape))
    hyp, hyp_groups, hyp_positions, hyp_lengths = _sequences(hypothesis_indices, hypothesis_values, group_shape)
    truth, truth_groups, truth_positions, truth_lengths = _sequences(truth_indices, truth_values, group_shape)
    distance = _levenshtein(_padded(hyp, hyp_groups, hyp_positions, count, int(hyp_lengths.max(initial=0))),
                            hyp_lengths,
                            _padded(truth, truth_groups, truth_positions, count, int(truth_lengths.max(initial=0))),
                            truth_lengths).astype(np.float32)
    if normalize:
        with np.errstate(divide="ignore", invalid="ignore"):
            distance = np.where(truth_lengths > 0, distance / np.maximum(truth_lengths, 1),
                                np.where(hyp_lengths > 0, np.float32(np.inf), np.float32(0)))
    return distance.astype(np.float32).reshape(tuple(group_shape))


@tf_export("edit_distance")
def edit_distance(hypothesis: Any, truth: Any, normalize: bool = True, name: str = "edit_distance") -> Tensor:
    """The Levenshtein distance between the sequences (last dimension) of two sparse tensors, divided by the
    truth's length when `normalize`."""
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    hypothesis, truth = _convert_to_sparse_tensor(hypothesis), _convert_to_sparse_tensor(truth)
    return EditDistance(hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices, truth.values,
                        truth.dense_shape, normalize=normalize, name=name)
