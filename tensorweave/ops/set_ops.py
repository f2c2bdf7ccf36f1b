"""Values as sets and sorted sequences: Unique and UniqueWithCounts (distinct values in order of first
occurrence; their V2 forms along an axis), ListDiff (`tf.setdiff1d`), LowerBound and UpperBound
(`tf.searchsorted`), and the sets along the last dimension of dense and sparse tensors (`tf.sets`: SetSize and
the Dense/Sparse set operations).

UniqueV2 and UniqueWithCountsV2 (raw ops) take the distinct slices along an axis. The bounds replay the binary
search of TF's kernels for a whole batch of values at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tensorweave.ops import sparse_ops
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import reshape, shape_internal
from tensorweave.platform.tf_export import tf_export

# -- Unique and UniqueWithCounts --------------------------------------------------------------------------

Unique = Op("Unique", inputs=["x: T"], outputs=["y: T", "idx: out_idx"],
            attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"])
UniqueWithCounts = Op("UniqueWithCounts", inputs=["x: T"], outputs=["y: T", "idx: out_idx", "count: out_idx"],
                      attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"])


@Unique.shape
def _unique_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.vector(None), with_rank(ctx.input_shape(0), 1)]


@UniqueWithCounts.shape
def _unique_with_counts_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.vector(None), with_rank(ctx.input_shape(0), 1), tensor_shape.vector(None)]


def _unique_first_occurrence(ctx: OpKernelContext, x: Any, out_idx: dtypes.DType) -> tuple[Any, Any, Any]:
    """The distinct values in order of first occurrence, each element's position among them, and counts.

    As in TF's hash map every NaN is distinct; float32/float64 0 and -0 are one value, but half types hash
    their bits, so there they are two."""
    if x.ndim != 1:
        raise invalid_argument(ctx, "unique expects a 1D vector.")
    keys, nan_kwargs = x, {}
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        keys = np.where(np.isnan(x.astype(np.float32)), (1 << 16) + np.arange(x.size), x.view(np.uint16))
    elif x.dtype.kind in "fc":
        nan_kwargs = {"equal_nan": False}
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True,
                                          **nan_kwargs)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    index_type = out_idx.as_numpy_dtype
    return x[first[order]], rank[inverse.reshape(-1)].astype(index_type), counts[order].astype(index_type)


# TF registers the Unique kernels for the real number types, string and bool (no complex).
_UNIQUE_KERNEL_TYPES = {"T": (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8,
                              dtypes.string, dtypes.int64, dtypes.bool, dtypes.bfloat16, dtypes.uint16, dtypes.float16,
                              dtypes.uint32, dtypes.uint64)}


@Unique.kernel("CPU", type_constraints=_UNIQUE_KERNEL_TYPES)
def _unique(ctx: OpKernelContext, x: Any, out_idx: dtypes.DType) -> list:
    return list(_unique_first_occurrence(ctx, x, out_idx)[:2])


@UniqueWithCounts.kernel("CPU", type_constraints=_UNIQUE_KERNEL_TYPES)
def _unique_with_counts(ctx: OpKernelContext, x: Any, out_idx: dtypes.DType) -> list:
    return list(_unique_first_occurrence(ctx, x, out_idx))


UniqueV2 = Op("UniqueV2", inputs=["x: T", "axis: Taxis"], outputs=["y: T", "idx: out_idx"],
              attrs=["T: type", "Taxis: {int32, int64} = DT_INT64", "out_idx: {int32, int64} = DT_INT32"])
UniqueWithCountsV2 = Op("UniqueWithCountsV2", inputs=["x: T", "axis: Taxis"],
                        outputs=["y: T", "idx: out_idx", "count: out_idx"],
                        attrs=["T: type", "Taxis: {int32, int64} = DT_INT64", "out_idx: {int32, int64} = DT_INT32"])


def _unique_v2_shapes(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's UniqueV2 shape function: the distinct slices along the (one-element) axis keep x's rank, and idx
    is as long as that axis; an empty axis takes a vector."""
    x = ctx.input_shape(0)
    axis = ctx.input_value(1)
    if axis is None:
        return [tensor_shape.unknown_shape(rank=x.ndims), tensor_shape.vector(None)]
    if axis.ndim != 1:
        raise ValueError("axis expects a 1D vector.")
    if axis.size > 1:
        raise ValueError("axis does not support input tensors larger than 1 elements.")
    if axis.size == 0:
        if x.ndims is not None and x.ndims != 1:
            raise ValueError("x expects a 1D vector.")
        return [tensor_shape.vector(None), tensor_shape.vector(x.dims[0].value if x.ndims else None)]
    if x.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.vector(None)]
    dim = int(axis[0])
    if not -x.ndims <= dim < x.ndims:
        raise ValueError(f"axis expects to be in the range [{-x.ndims}, {x.ndims})")
    return [tensor_shape.unknown_shape(rank=x.ndims), tensor_shape.vector(x.dims[dim].value)]


@UniqueV2.shape
def _unique_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _unique_v2_shapes(ctx)


@UniqueWithCountsV2.shape
def _unique_with_counts_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [*_unique_v2_shapes(ctx), tensor_shape.vector(None)]


def _unique_along(ctx: OpKernelContext, x: Any, axis: Any, out_idx: dtypes.DType) -> tuple[Any, Any, Any]:
    """UniqueV2: the distinct slices of `x` along its one-element `axis` in order of first occurrence (an empty
    axis: `x` must be a vector). Slices are equal when their elements are (0 and -0 alike); one holding NaN
    equals no other, as in TF."""
    axis = np.asarray(axis).reshape(-1)
    if axis.size > 1:
        raise invalid_argument(ctx, "axis does not support input tensors larger than 1 elements")
    if axis.size == 0 or x.ndim == 1 and int(axis[0]) in (0, -1):
        return _unique_first_occurrence(ctx, x, out_idx)
    dim = int(axis[0]) + x.ndim if int(axis[0]) < 0 else int(axis[0])
    if not 0 <= dim < x.ndim:
        raise invalid_argument(ctx, f"axis has to be between [0, {x.ndim})")
    slices = np.moveaxis(x, dim, 0)
    rows = slices.reshape(slices.shape[0], int(np.prod(slices.shape[1:])))
    if rows.dtype.kind == "f":
        rows = rows + rows.dtype.type(0)  # -0 + 0 is 0: equal slices, equal bytes
    nan_rows = np.isnan(rows).any(axis=1) if rows.dtype.kind in "fc" else np.zeros(len(rows), bool)
    first: dict[Any, int] = {}
    inverse = np.empty(len(rows), np.int64)
    for i, row in enumerate(rows):
        key = ("nan", i) if nan_rows[i] else (tuple(row.tolist()) if rows.dtype.kind == "O" else row.tobytes())
        inverse[i] = first.setdefault(key, len(first))
    kept = np.unique(inverse, return_index=True)[1]  # each slice's first row
    index_type = out_idx.as_numpy_dtype
    y = np.moveaxis(slices[kept], 0, dim)
    return y, inverse.astype(index_type), np.bincount(inverse, minlength=len(first)).astype(index_type)


@UniqueV2.kernel("CPU", type_constraints=_UNIQUE_KERNEL_TYPES)
def _unique_v2(ctx: OpKernelContext, x: Any, axis: Any, out_idx: dtypes.DType) -> list:
    return list(_unique_along(ctx, x, axis, out_idx)[:2])


@UniqueWithCountsV2.kernel("CPU", type_constraints=_UNIQUE_KERNEL_TYPES)
def _unique_with_counts_v2(ctx: OpKernelContext, x: Any, axis: Any, out_idx: dtypes.DType) -> list:
    return list(_unique_along(ctx, x, axis, out_idx))


@tf_export("unique")
def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The distinct values of the vector `x` in order of first occurrence, and each element's index among them."""
    return Unique(x, out_idx=out_idx, name=name)


@tf_export("unique_with_counts")
def unique_with_counts(x: Any, out_idx: Any = dtypes.int32,
                       name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """`unique`, and how often each distinct value occurs."""
    return UniqueWithCounts(x, out_idx=out_idx, name=name)


# -- ListDiff ---------------------------------------------------------------------------------------------

ListDiff = Op("ListDiff", inputs=["x: T", "y: T"], outputs=["out: T", "idx: out_idx"],
              attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"])


@ListDiff.shape
def _list_diff_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 1)
    with_rank(ctx.input_shape(1), 1)
    return [tensor_shape.vector(None), tensor_shape.vector(None)]


@ListDiff.kernel("CPU")
def _list_diff(ctx: OpKernelContext, x: Any, y: Any, out_idx: dtypes.DType) -> list:
    for arg, value in (("x", x), ("y", y)):
        if value.ndim != 1:
            raise invalid_argument(ctx, f"{arg} should be a 1D vector.")
    keep = np.flatnonzero(~np.isin(x, y))
    return [x[keep], keep.astype(out_idx.as_numpy_dtype)]


@tf_export("setdiff1d")
def setdiff1d(x: Any, y: Any, index_dtype: Any = dtypes.int32, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The values of `x` not in `y`, in their order in `x`, and their positions there."""
    return ListDiff(x, y, out_idx=index_dtype, name=name)


# -- LowerBound and UpperBound ------------------------------------------------------------------------------

LowerBound = Op("LowerBound", inputs=["sorted_inputs: T", "values: T"], outputs=["output: out_type"],
                attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])
UpperBound = Op("UpperBound", inputs=["sorted_inputs: T", "values: T"], outputs=["output: out_type"],
                attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])


def _bound_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank_at_least(ctx.input_shape(0), 1)
    with_rank_at_least(ctx.input_shape(1), 1)
    return [ctx.input_shape(1)]


def _bounds(ctx: OpKernelContext, sorted_inputs: Any, values: Any, out_type: dtypes.DType, right: bool) -> Any:
    """TF's kernels call std::lower_bound / std::upper_bound per value: libstdc++'s binary search is replayed
    here for all values at once, so a NaN value (every comparison false) or an unsorted row gives TF's index."""
    if sorted_inputs.shape[0] != values.shape[0]:
        raise invalid_argument(ctx, "Leading dim_size of both tensors must match.")
    xp = ctx.xp
    first = xp.zeros(values.shape, np.int64)
    length = xp.full(values.shape, sorted_inputs.shape[1], np.int64)
    while bool((length > 0).any()):
        half = length >> 1
        middle = first + half
        probe = xp.take_along_axis(sorted_inputs, xp.minimum(middle, sorted_inputs.shape[1] - 1), axis=1)
        after = ~(values < probe) if right else probe < values
        after &= length > 0
        first = xp.where(after, middle + 1, first)
        length = xp.where(after, length - half - 1, half)
    return first.astype(out_type.as_numpy_dtype)


# TF registers these kernels for the real number types only (no string, bool or complex).
_BOUND_KERNEL_TYPES = {"T": (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8,
                             dtypes.int64, dtypes.bfloat16, dtypes.uint16, dtypes.float16, dtypes.uint32, dtypes.uint64)}


@LowerBound.kernel("CPU", type_constraints=_BOUND_KERNEL_TYPES)
def _lower_bound(ctx: OpKernelContext, sorted_inputs: Any, values: Any, out_type: dtypes.DType) -> Any:
    return _bounds(ctx, sorted_inputs, values, out_type, right=False)


@UpperBound.kernel("CPU", type_constraints=_BOUND_KERNEL_TYPES)
def _upper_bound(ctx: OpKernelContext, sorted_inputs: Any, values: Any, out_type: dtypes.DType) -> Any:
    return _bounds(ctx, sorted_inputs, values, out_type, right=True)


LowerBound.shape(_bound_shape)
UpperBound.shape(_bound_shape)
NotDifferentiable("LowerBound")
NotDifferentiable("UpperBound")


@tf_export("searchsorted")
def searchsorted(sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = dtypes.int32,
                 name: str | None = None) -> Tensor:
    """Where each of `values` would go in the innermost rows of `sorted_sequence` to keep them sorted."""
    sequence_size = shape_internal(sorted_sequence)[-1]
    values_size = shape_internal(values)[-1]
    sorted_2d = reshape(sorted_sequence, [-1, sequence_size])
    values_2d = reshape(values, [-1, values_size])
    if side == "right":
        output = UpperBound(sorted_2d, values_2d, out_type=out_type, name=name)
    elif side == "left":
        output = LowerBound(sorted_2d, values_2d, out_type=out_type, name=name)
    else:
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    return reshape(output, shape_internal(values))



# -- SetSize and the set operations (tf.sets) ---------------------------------------------------------------
# A set is the values along the last dimension of a dense tensor, or the values of a sparse tensor's entries
# sharing all but their last index. The kernels work on all sets at once: each element becomes one integer key,
# its set's row-major number times the count of distinct values plus the rank of its value among them, so
# deduplication and union/intersection/difference are NumPy set routines over keys, and the sorted result comes
# out grouped by set with each set's values ascending (TF's btree_set order).

_SET_TYPES = "T: {int8, int16, int32, int64, uint8, uint16, string}"
_SET_DTYPES = frozenset([dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16,
                         dtypes.string])
_SET_OUTPUTS = ["result_indices: int64", "result_values: T", "result_shape: int64"]
_SET_ATTRS = ["set_operation: string", "validate_indices: bool = true", _SET_TYPES]

SetSize = Op("SetSize", inputs=["set_indices: int64", "set_values: T", "set_shape: int64"], outputs=["size: int32"],
             attrs=["validate_indices: bool = true", _SET_TYPES])
DenseToDenseSetOperation = Op("DenseToDenseSetOperation", inputs=["set1: T", "set2: T"], outputs=_SET_OUTPUTS,
                              attrs=_SET_ATTRS)
DenseToSparseSetOperation = Op(
    "DenseToSparseSetOperation", inputs=["set1: T", "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
    outputs=_SET_OUTPUTS, attrs=_SET_ATTRS)
SparseToSparseSetOperation = Op(
    "SparseToSparseSetOperation",
    inputs=["set1_indices: int64", "set1_values: T", "set1_shape: int64", "set2_indices: int64", "set2_values: T",
            "set2_shape: int64"], outputs=_SET_OUTPUTS, attrs=_SET_ATTRS)
for _set_op in ("SetSize", "DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation"):
    NotDifferentiable(_set_op)


@SetSize.shape
def _set_size_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.unknown_shape()]


def _set_result_shapes(rank: int | None) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.matrix(None, rank), tensor_shape.vector(None), tensor_shape.vector(rank)]


def _sparse_rank(ctx: InferenceContext, first: int) -> int | None:
    with_rank(ctx.input_shape(first), 2)
    with_rank(ctx.input_shape(first + 1), 1)
    return tensor_shape.dimension_value(with_rank(ctx.input_shape(first + 2), 1)[0])


@DenseToDenseSetOperation.shape
def _dense_to_dense_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    set1 = with_rank_at_least(ctx.input_shape(0), 2)
    set2 = with_rank_at_least(ctx.input_shape(1), 2)
    if set1.ndims is None or set2.ndims is None:
        return _set_result_shapes(set1.ndims if set1.ndims is not None else set2.ndims)
    with_rank(set2, set1.ndims)
    tensor_shape.merge_shapes(set1[:-1], set2[:-1])
    return _set_result_shapes(set1.ndims)


@DenseToSparseSetOperation.shape
def _dense_to_sparse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    set1 = with_rank_at_least(ctx.input_shape(0), 2)
    rank = _sparse_rank(ctx, 1)
    return _set_result_shapes(set1.ndims if set1.ndims is not None else rank)


@SparseToSparseSetOperation.shape
def _sparse_to_sparse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    rank1, rank2 = _sparse_rank(ctx, 0), _sparse_rank(ctx, 3)
    return _set_result_shapes(rank1 if rank1 is not None else rank2)


def _dims_string(dims: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in dims) + "]"


def _sparse_groups(ctx: OpKernelContext, indices: Any, values: Any, dense_shape: Any,
                   validate_indices: bool) -> tuple[Any, Any, Any]:
    """A sparse input's group shape, and each entry's set number (row-major over it) and value, checked as TF's
    SparseTensorFromContext."""
    if dense_shape.ndim != 1:
        raise invalid_argument(ctx, "Shape must be a 1D tensor.")
    if dense_shape.shape[0] < 2:
        raise invalid_argument(ctx, f"Invalid rank {dense_shape.shape[0]}.")
    if indices.ndim != 2 or values.ndim != 1 or indices.shape[0] != values.shape[0] \
            or indices.shape[1] != dense_shape.shape[0]:
        raise invalid_argument(ctx, f"Number of elements of indices, values and shape do not match: indices "
                                    f"{tensor_shape.shape_string(indices.shape)}, values "
                                    f"{tensor_shape.shape_string(values.shape)}, shape "
                                    f"{tensor_shape.shape_string(dense_shape.shape)}")
    if validate_indices:
        sparse_ops.check_valid_indices(ctx, indices, dense_shape)
    group_shape = dense_shape[:-1]
    groups = np.ravel_multi_index(tuple(indices[:, :-1].T), tuple(group_shape)) if indices.shape[0] else \
        np.zeros(0, np.int64)
    return group_shape, groups, values


def _dense_groups(ctx: OpKernelContext, dense: Any) -> tuple[Any, Any, Any]:
    """A dense input's group shape, and each element's set number and value."""
    if dense.ndim < 2:
        raise invalid_argument(ctx, f"Shape {_dims_string(dense.shape)} has rank {dense.ndim} < 2")
    group_shape = np.asarray(dense.shape[:-1], np.int64)
    groups = np.repeat(np.arange(int(np.prod(group_shape)), dtype=np.int64), dense.shape[-1])
    return group_shape, groups, dense.reshape(-1)


def _set_keys(groups1: Any, values1: Any, groups2: Any, values2: Any) -> tuple[Any, Any, Any, int]:
    """Both inputs' elements as distinct sorted integer keys (set number * distinct values + value rank), and
    the distinct values the ranks refer to."""
    distinct, ranks = np.unique(np.concatenate([values1, values2]), return_inverse=True)
    width = max(len(distinct), 1)
    keys = np.concatenate([groups1, groups2]).astype(np.int64) * width + ranks.reshape(-1)
    return np.unique(keys[:len(values1)]), np.unique(keys[len(values1):]), distinct, width


def _set_result(group_shape: Any, keys: Any, distinct: Any, width: int, values_dtype: Any) -> list:
    """The sparse result of sorted keys: each set's values at positions 0.. of the last dimension, which is as
    long as the largest set."""
    groups, ranks = np.divmod(keys, width)
    _, starts, inverse, counts = np.unique(groups, return_index=True, return_inverse=True, return_counts=True)
    positions = np.arange(len(keys), dtype=np.int64) - starts[inverse.reshape(-1)]
    group_index = np.stack(np.unravel_index(groups, tuple(group_shape)), axis=1) if len(keys) else \
        np.zeros((0, len(group_shape)), np.int64)
    indices = np.concatenate([group_index.astype(np.int64), positions[:, None]], axis=1)
    longest = int(counts.max()) if len(counts) else 0
    values = distinct[ranks].astype(values_dtype) if len(keys) else np.zeros(0, values_dtype)
    return [indices, values, np.append(np.asarray(group_shape, np.int64), longest)]


_SET_OPERATIONS = {"a-b": lambda a, b: np.setdiff1d(a, b, assume_unique=True),
                   "b-a": lambda a, b: np.setdiff1d(b, a, assume_unique=True),
                   "intersection": lambda a, b: np.intersect1d(a, b, assume_unique=True),
                   "union": np.union1d}


def _apply_set_operation(ctx: OpKernelContext, set_operation: bytes | str, first: tuple, second: tuple,
                         values_dtype: Any) -> list:
    operation = (set_operation.decode() if isinstance(set_operation, bytes) else set_operation).lower()
    if operation not in _SET_OPERATIONS:
        raise invalid_argument(ctx, f"Invalid set_operation {operation}.")
    (shape1, groups1, values1), (shape2, groups2, values2) = first, second
    if not np.array_equal(shape1, shape2):
        raise invalid_argument(ctx, f"Mismatched shapes {_dims_string(shape1)} vs {_dims_string(shape2)}")
    keys1, keys2, distinct, width = _set_keys(groups1, values1, groups2, values2)
    return _set_result(shape1, _SET_OPERATIONS[operation](keys1, keys2), distinct, width, values_dtype)


@SetSize.kernel("CPU")
def _set_size(ctx: OpKernelContext, set_indices: Any, set_values: Any, set_shape: Any, validate_indices: bool) -> Any:
    group_shape, groups, values = _sparse_groups(ctx, set_indices, set_values, set_shape, validate_indices)
    keys, _, _, width = _set_keys(groups, values, groups[:0], values[:0])
    sizes = np.bincount(keys // width, minlength=int(np.prod(group_shape)))
    return sizes.astype(np.int32).reshape(tuple(group_shape))


@DenseToDenseSetOperation.kernel("CPU")
def _dense_to_dense_set_operation(ctx: OpKernelContext, set1: Any, set2: Any, set_operation: str,
                                  validate_indices: bool) -> list:
    return _apply_set_operation(ctx, set_operation, _dense_groups(ctx, set1), _dense_groups(ctx, set2), set1.dtype)


@DenseToSparseSetOperation.kernel("CPU")
def _dense_to_sparse_set_operation(ctx: OpKernelContext, set1: Any, set2_indices: Any, set2_values: Any,
                                   set2_shape: Any, set_operation: str, validate_indices: bool) -> list:
    second = _sparse_groups(ctx, set2_indices, set2_values, set2_shape, validate_indices)
    return _apply_set_operation(ctx, set_operation, _dense_groups(ctx, set1), second, set1.dtype)


@SparseToSparseSetOperation.kernel("CPU")
def _sparse_to_sparse_set_operation(ctx: OpKernelContext, set1_indices: Any, set1_values: Any, set1_shape: Any,
                                    set2_indices: Any, set2_values: Any, set2_shape: Any, set_operation: str,
                                    validate_indices: bool) -> list:
    first = _sparse_groups(ctx, set1_indices, set1_values, set1_shape, validate_indices)
    second = _sparse_groups(ctx, set2_indices, set2_values, set2_shape, validate_indices)
    return _apply_set_operation(ctx, set_operation, first, second, set1_values.dtype)


@tf_export("sets.size", "sets.set_size")
def set_size(a: Any, validate_indices: bool = True) -> Tensor:
    """How many distinct values each set (the last dimension) of the sparse tensor `a` holds."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _SET_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: `{_set_dtypes_string()}`.")
    return SetSize(a.indices, a.values, a.dense_shape, validate_indices=validate_indices)


def _set_dtypes_string() -> str:
    return "frozenset({" + ", ".join(f"tf.{d.name}" for d in sorted(_SET_DTYPES, key=lambda d: d.name)) + "})"


def check_set_operands(a: Any, b: Any) -> tuple[Any, Any]:
    """Both operands of a set operation as tensors or sparse tensors, with TF's errors unless they share one
    valid dtype."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _SET_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: `{_set_dtypes_string()}`.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    return a, b


def _sets_operands(a: Any, b: Any) -> tuple[Any, Any, bool]:
    """Both operands as tensors or sparse tensors of one valid dtype, a dense one first (and whether flipped)."""
    a, b = check_set_operands(a, b)
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a: Any, b: Any, operation: str, validate_indices: bool) -> SparseTensor:
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your "
                             "inputs.")
        result = SparseToSparseSetOperation(a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape,
                                            set_operation=operation, validate_indices=validate_indices)
    elif isinstance(b, SparseTensor):
        result = DenseToSparseSetOperation(a, b.indices, b.values, b.dense_shape, set_operation=operation,
                                           validate_indices=validate_indices)
    else:
        result = DenseToDenseSetOperation(a, b, set_operation=operation, validate_indices=validate_indices)
    return SparseTensor(*result)


@tf_export("sets.intersection", "sets.set_intersection")
def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The values each pair of sets (last dimension) of `a` and `b` shares, as a sparse tensor."""
    a, b, _ = _sets_operands(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


@tf_export("sets.difference", "sets.set_difference")
def set_difference(a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True) -> SparseTensor:
    """The values of each set of `a` not in `b`'s (`b`'s not in `a`'s if not `aminusb`), as a sparse tensor."""
    a, b, flipped = _sets_operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@tf_export("sets.union", "sets.set_union")
def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The values in either of each pair of sets (last dimension) of `a` and `b`, as a sparse tensor."""
    a, b, _ = _sets_operands(a, b)
    return _set_operation(a, b, "union", validate_indices)
