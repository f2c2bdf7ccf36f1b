"""The remaining `tf.sparse` helpers TF1 builds from existing ops: expand_dims, reset_shape, to_indicator (one
indicator row per sparse row of ids) and mask (the slices of an IndexedSlices not at given indices); and
EditDistance (`tf.edit_distance`), the Levenshtein distances between the sequences of two sparse tensors,
computed for all sequence pairs at once one dynamic-programming row at a time; the sparse serialization
ops (SerializeSparse, SerializeManySparse, DeserializeManySparse); and the SparseTensorsMap ops through which
tf.train.batch and its kin queue sparse tensors as int64 handles."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from tensorweave.formats import protos, tensor_proto
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
from tensorweave.ops.shape_helpers import with_rank
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


# -- SerializeSparse, SerializeManySparse, DeserializeSparse, DeserializeManySparse -------------------------
# A sparse tensor as three serialized TensorProtos (indices, values, shape), numbers in tensor_content as TF's
# AsProtoTensorContent writes them; SerializeManySparse writes one triple per minibatch entry (first index).
# As a variant (tf.data's form of a sparse value) each of the three is the array itself, as TF's holds a Tensor.

_SERIALIZE_OUTPUT = "out_type: {string, variant} = DT_STRING"
SerializeSparse = Op("SerializeSparse", inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
                     outputs=["serialized_sparse: out_type"], attrs=["T: type", _SERIALIZE_OUTPUT])
SerializeManySparse = Op("SerializeManySparse",
                         inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
                         outputs=["serialized_sparse: out_type"], attrs=["T: type", _SERIALIZE_OUTPUT])
DeserializeManySparse = Op("DeserializeManySparse", inputs=["serialized_sparse: string"],
                           outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
                           attrs=["dtype: type"])
DeserializeSparse = Op("DeserializeSparse", inputs=["serialized_sparse: Tserialized"],
                       outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
                       attrs=["dtype: type", "Tserialized: {string, variant} = DT_STRING"])
for _op_type in ("SerializeSparse", "SerializeManySparse", "DeserializeSparse", "DeserializeManySparse"):
    NotDifferentiable(_op_type)
SerializeSparse.shape(lambda ctx: [tensor_shape.vector(3)])
SerializeManySparse.shape(lambda ctx: [tensor_shape.matrix(None, 3)])


@DeserializeManySparse.shape
def _deserialize_many_sparse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    serialized = with_rank(ctx.input_shape(0), 2)
    if serialized.ndims is not None and serialized[1] is not None and tensor_shape.dimension_value(
            serialized[1]) != 3:
        raise ValueError(f"Dimension must be 3 but is {tensor_shape.dimension_value(serialized[1])}")
    return [tensor_shape.matrix(None, None), tensor_shape.vector(None), tensor_shape.vector(None)]


@DeserializeSparse.shape
def _deserialize_sparse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    serialized = ctx.input_shape(0)
    if serialized.ndims is not None:
        if serialized.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {serialized.ndims}")
        if serialized[-1] is not None and tensor_shape.dimension_value(serialized[-1]) != 3:
            raise ValueError(f"Dimension must be 3 but is {tensor_shape.dimension_value(serialized[-1])}")
    return [tensor_shape.matrix(None, None), tensor_shape.vector(None), tensor_shape.vector(None)]


def _serialized(array: Any) -> bytes:
    if array.dtype == object:
        return tensor_proto.make_tensor_proto(array, dtype=dtypes.string).SerializeToString()
    dtype = dtypes.as_dtype(array.dtype)
    proto = protos.TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=tensor_proto.as_shape_proto(array.shape))
    if array.size:
        proto.tensor_content = np.ascontiguousarray(array).tobytes()
    return proto.SerializeToString()


def _check_sparse(ctx: OpKernelContext, indices: Any, values: Any, dense_shape: Any) -> None:
    if indices.ndim != 2 or values.ndim != 1 or dense_shape.ndim != 1 or indices.shape[0] != values.shape[0] \
            or indices.shape[1] != dense_shape.shape[0]:
        raise invalid_argument(ctx, f"Input sparse tensor is malformed: indices "
                                    f"{tensor_shape.shape_string(indices.shape)}, values "
                                    f"{tensor_shape.shape_string(values.shape)}, shape "
                                    f"{tensor_shape.shape_string(dense_shape.shape)}")


def _serialized_triple(indices: Any, values: Any, dense_shape: Any, out_type: dtypes.DType) -> list[Any]:
    """A sparse tensor's three parts as `out_type` holds them: serialized TensorProtos, or (a variant) the arrays."""
    if out_type == dtypes.variant:
        return [np.asarray(indices), np.asarray(values), np.asarray(dense_shape)]
    return [_serialized(indices), _serialized(values), _serialized(dense_shape)]


def _object_rows(rows: list[list[Any]], shape: tuple[int, ...]) -> np.ndarray:
    out = np.empty((len(rows), 3), dtype=object)
    for i, row in enumerate(rows):
        for j, item in enumerate(row):
            out[i, j] = item
    return out.reshape(shape)


@SerializeSparse.kernel("CPU")
def _serialize_sparse(ctx: OpKernelContext, sparse_indices: Any, sparse_values: Any, sparse_shape: Any,
                      out_type: dtypes.DType) -> Any:
    _check_sparse(ctx, sparse_indices, sparse_values, sparse_shape)
    return _object_rows([_serialized_triple(sparse_indices, sparse_values, sparse_shape, out_type)], (3,))


@SerializeManySparse.kernel("CPU")
def _serialize_many_sparse(ctx: OpKernelContext, sparse_indices: Any, sparse_values: Any, sparse_shape: Any,
                           out_type: dtypes.DType) -> Any:
    _check_sparse(ctx, sparse_indices, sparse_values, sparse_shape)
    if sparse_shape.shape[0] < 2:
        raise invalid_argument(ctx, f"Rank of input SparseTensor should be > 1, but saw rank: {sparse_shape.shape[0]}")
    order = np.lexsort(sparse_indices.T[::-1]) if sparse_indices.size else np.arange(len(sparse_values))
    indices, values = sparse_indices[order], sparse_values[order]
    count = int(sparse_shape[0])
    bounds = np.searchsorted(indices[:, 0], np.arange(count + 1))
    rows = [_serialized_triple(indices[start:stop, 1:], values[start:stop], sparse_shape[1:], out_type)
            for start, stop in zip(bounds[:-1], bounds[1:])]
    return _object_rows(rows, (count, 3))


def _parsed(item: Any) -> np.ndarray:
    """One part of a serialized sparse tensor: a TensorProto's bytes, or (a variant's) the array itself."""
    if isinstance(item, bytes):
        return tensor_proto.make_ndarray(protos.TensorProto.FromString(item))
    return np.asarray(item)


@DeserializeSparse.kernel("CPU")
def _deserialize_sparse(ctx: OpKernelContext, serialized_sparse: Any, dtype: dtypes.DType,
                        Tserialized: dtypes.DType) -> list:
    """One sparse tensor from a [3] serialized one; from [d0, ..., 3] the sparse tensors stacked along the
    leading dimensions (their shapes padded to the largest), as TF's."""
    serialized = np.asarray(serialized_sparse, dtype=object)
    if serialized.ndim < 1 or serialized.shape[-1] != 3:
        raise invalid_argument(ctx, f"Serialized sparse should have 3 as the last dimension "
                                    f"{tensor_shape.shape_string(serialized.shape)}")
    if serialized.ndim == 1:
        indices, values, dense_shape = (_parsed(item) for item in serialized)
        return [indices.astype(np.int64).reshape(len(values), dense_shape.size),
                values.astype(dtype.as_numpy_dtype), dense_shape.astype(np.int64)]
    outer = serialized.shape[:-1]
    parsed = [[_parsed(item) for item in row] for row in serialized.reshape(-1, 3)]
    rank = int(parsed[0][2].size) if parsed else 0
    lead = np.array(np.unravel_index(np.arange(len(parsed)), outer)).T.astype(np.int64).reshape(len(parsed), -1)
    indices = [np.concatenate([np.repeat(lead[n:n + 1], len(v), 0), i.reshape(len(v), rank).astype(np.int64)], 1)
               for n, (i, v, _) in enumerate(parsed)]
    shape = np.max(np.stack([s for _, _, s in parsed]), axis=0) if parsed else np.zeros([rank], np.int64)
    return [np.concatenate(indices) if indices else np.zeros([0, len(outer) + rank], np.int64),
            np.concatenate([v for _, v, _ in parsed]).astype(dtype.as_numpy_dtype) if parsed
            else np.zeros([0], dtype.as_numpy_dtype),
            np.concatenate([outer, shape]).astype(np.int64)]


@DeserializeManySparse.kernel("CPU")
def _deserialize_many_sparse(ctx: OpKernelContext, serialized_sparse: Any, dtype: dtypes.DType) -> list:
    if serialized_sparse.ndim != 2 or serialized_sparse.shape[1] != 3:
        raise invalid_argument(ctx, f"Serialized sparse should be a matrix with 3 columns, got shape "
                                    f"{tensor_shape.shape_string(serialized_sparse.shape)}")
    if serialized_sparse.shape[0] == 0:
        raise invalid_argument(ctx, "Must have at least 1 serialized SparseTensor, but has 0 tensors")
    parsed = [[_parsed(item) for item in row] for row in serialized_sparse]
    ranks = {int(shape.size) for _, _, shape in parsed}
    if len(ranks) != 1:
        raise invalid_argument(ctx, f"Inconsistent rank across SparseTensors: rank prior to SparseTensor[1] was: "
                                    f"{int(parsed[0][2].size)} but rank of SparseTensor[1] is: "
                                    f"{int(parsed[1][2].size)}")
    for _, values, _ in parsed:
        if dtypes.as_dtype(values.dtype) != dtype and not (values.dtype == object and dtype == dtypes.string):
            raise invalid_argument(ctx, f"Requested SparseTensor of type {dtype.name} but SparseTensor[0]."
                                        f"values.dtype() == {dtypes.as_dtype(values.dtype).name}")
    rank = ranks.pop()
    batch = np.concatenate([np.full(len(values), i, np.int64) for i, (_, values, _) in enumerate(parsed)])
    inner = np.concatenate([indices.reshape(-1, rank) for indices, _, _ in parsed]).astype(np.int64)
    values = np.concatenate([values for _, values, _ in parsed]).astype(dtype.as_numpy_dtype)
    shape = np.max(np.stack([dense_shape for _, _, dense_shape in parsed]), axis=0).astype(np.int64)
    return [np.concatenate([batch[:, None], inner], axis=1), values,
            np.concatenate([[len(parsed)], shape]).astype(np.int64)]


@tf_export("io.serialize_sparse", "serialize_sparse")
def serialize_sparse(sp_input: Any, name: str | None = None, out_type: Any = dtypes.string) -> Tensor:
    """A sparse tensor as a [3] string vector: its indices, values and shape as serialized TensorProtos."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return SerializeSparse(sp_input.indices, sp_input.values, sp_input.dense_shape, out_type=out_type, name=name)


@tf_export("io.serialize_many_sparse", "serialize_many_sparse")
def serialize_many_sparse(sp_input: Any, name: str | None = None, out_type: Any = dtypes.string) -> Tensor:
    """Each minibatch entry (first dimension) of a sparse tensor serialized as `serialize_sparse`: [N, 3]."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return SerializeManySparse(sp_input.indices, sp_input.values, sp_input.dense_shape, out_type=out_type, name=name)


@tf_export("io.deserialize_many_sparse", "deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse: Any, dtype: Any, rank: int | None = None,
                            name: str | None = None) -> SparseTensor:
    """The sparse tensors of an [N, 3] serialized batch, stacked along a new first dimension (their shapes
    padded to the largest)."""
    indices, values, dense_shape = DeserializeManySparse(serialized_sparse, dtype=dtype, name=name)
    indices.set_shape([None, None if rank is None else rank])
    dense_shape.set_shape([rank])
    return SparseTensor(indices, values, dense_shape)


# -- AddSparseToTensorsMap, AddManySparseToTensorsMap, TakeManySparseFromTensorsMap ---------------------------
# A SparseTensorsMap resource (named by shared_name, else by the adding node's name) holds sparse tensors under
# int64 handles; taking a batch of handles removes them and stacks their tensors along a new first dimension.

_MAP_ATTRS = ["container: string = ''", "shared_name: string = ''"]
AddSparseToTensorsMap = Op("AddSparseToTensorsMap",
                           inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
                           outputs=["sparse_handle: int64"], attrs=["T: type", *_MAP_ATTRS], is_stateful=True)
AddManySparseToTensorsMap = Op("AddManySparseToTensorsMap",
                               inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
                               outputs=["sparse_handles: int64"], attrs=["T: type", *_MAP_ATTRS], is_stateful=True)
TakeManySparseFromTensorsMap = Op("TakeManySparseFromTensorsMap", inputs=["sparse_handles: int64"],
                                  outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
                                  attrs=["dtype: type", *_MAP_ATTRS], is_stateful=True)
for _op_type in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap", "TakeManySparseFromTensorsMap"):
    NotDifferentiable(_op_type)
AddSparseToTensorsMap.shape(lambda ctx: [tensor_shape.TensorShape([])])
AddManySparseToTensorsMap.shape(lambda ctx: [tensor_shape.vector(None)])
TakeManySparseFromTensorsMap.shape(
    lambda ctx: [tensor_shape.matrix(None, None), tensor_shape.vector(None), tensor_shape.vector(None)])


class _SparseTensorsMap:
    def __init__(self, name: str) -> None:
        self.name = name
        self._tensors: dict[int, tuple[Any, Any, Any]] = {}
        self._handles = itertools.count()
        self._lock = threading.Lock()

    def add(self, parts: list[tuple[Any, Any, Any]]) -> np.ndarray:
        with self._lock:
            handles = [next(self._handles) for _ in parts]
            self._tensors.update(zip(handles, parts))
        return np.array(handles, np.int64)

    def take(self, ctx: OpKernelContext, handles: Any) -> list[tuple[Any, Any, Any]]:
        with self._lock:
            missing = [int(h) for h in handles if int(h) not in self._tensors]
            if missing:
                raise invalid_argument(ctx, f"Unable to find SparseTensor: {missing[0]} in map: {self.name}")
            return [self._tensors.pop(int(h)) for h in handles]


def _sparse_map(ctx: OpKernelContext, container: bytes, shared_name: bytes) -> _SparseTensorsMap:
    name = shared_name.decode() or ctx.name
    return ctx.resources.lookup_or_create(container.decode(), name, lambda: _SparseTensorsMap(name))


@AddSparseToTensorsMap.kernel("CPU")
def _add_sparse_to_tensors_map(ctx: OpKernelContext, sparse_indices: Any, sparse_values: Any, sparse_shape: Any,
                               container: bytes, shared_name: bytes) -> Any:
    _check_sparse(ctx, sparse_indices, sparse_values, sparse_shape)
    parts = (np.array(sparse_indices), np.array(sparse_values), np.array(sparse_shape))
    return _sparse_map(ctx, container, shared_name).add([parts])[0]


@AddManySparseToTensorsMap.kernel("CPU")
def _add_many_sparse_to_tensors_map(ctx: OpKernelContext, sparse_indices: Any, sparse_values: Any,
                                    sparse_shape: Any, container: bytes, shared_name: bytes) -> Any:
    """One handle per row of the first (minibatch) dimension, for the rank R-1 sparse tensor of that row."""
    _check_sparse(ctx, sparse_indices, sparse_values, sparse_shape)
    if sparse_shape.shape[0] < 2:
        raise invalid_argument(ctx, f"Rank of input SparseTensor should be > 1, but saw rank: {sparse_shape.shape[0]}")
    order = np.lexsort(sparse_indices.T[::-1]) if sparse_indices.size else np.arange(len(sparse_values))
    indices, values = sparse_indices[order], sparse_values[order]
    bounds = np.searchsorted(indices[:, 0], np.arange(int(sparse_shape[0]) + 1))
    parts = [(indices[start:stop, 1:], values[start:stop], np.array(sparse_shape[1:]))
             for start, stop in zip(bounds[:-1], bounds[1:])]
    return _sparse_map(ctx, container, shared_name).add(parts)


@TakeManySparseFromTensorsMap.kernel("CPU")
def _take_many_sparse_from_tensors_map(ctx: OpKernelContext, sparse_handles: Any, dtype: dtypes.DType,
                                       container: bytes, shared_name: bytes) -> list:
    """The handles' sparse tensors, removed from the map, stacked along a new first dimension: each dimension
    after it the largest of theirs."""
    if sparse_handles.ndim != 1:
        raise invalid_argument(ctx, f"sparse_handles should be a vector but received shape "
                                    f"{tensor_shape.shape_string(sparse_handles.shape)}")
    parts = _sparse_map(ctx, container, shared_name).take(ctx, sparse_handles)
    if not parts:
        raise invalid_argument(ctx, "Must have at least 1 serialized SparseTensor, but has 0 tensors")
    rank = parts[0][2].size
    for i, (_, _, dense_shape) in enumerate(parts):
        if dense_shape.size != rank:
            raise invalid_argument(ctx, f"Inconsistent rank across SparseTensors: rank prior to SparseTensor[{i}] "
                                        f"was: {rank} but rank of SparseTensor[{i}] is: {dense_shape.size}")
    batch = np.concatenate([np.full(len(values), i, np.int64) for i, (_, values, _) in enumerate(parts)])
    inner = np.concatenate([indices.reshape(-1, rank) for indices, _, _ in parts]).astype(np.int64)
    values = np.concatenate([values for _, values, _ in parts]).astype(dtype.as_numpy_dtype)
    shape = np.max(np.stack([dense_shape for _, _, dense_shape in parts]), axis=0).astype(np.int64)
    return [np.concatenate([batch[:, None], inner], axis=1), values, np.concatenate([[len(parts)], shape])]
