"""Sparse tensors' ops: SparseToDense, SparseTensorDenseAdd, SparseAdd, SparseConcat, SparseReshape,
SparseReorder, SparseSlice, SparseSplit, SparseFillEmptyRows, SparseReduceSum/Max (dense and sparse outputs),
SparseTensorDenseMatMul, SparseSoftmax, SparseSparseMaximum/Minimum and SparseDenseCwiseMul/Div/Add, with the
`tf.sparse.*` and `tf.sparse_*` functions TF1 builds on them (retain, transpose, eye and from_dense are built
from existing ops, as TF builds them), and SparseTensor's `*` and `/` with a dense tensor.

A sparse tensor enters every kernel as its three arrays (indices `[N, ndims]`, values `[N]`, dense shape
`[ndims]`). Kernels work on whole index matrices: row-major order is one stable `lexsort` of the index
columns, so the order TF's kernels produce (or keep) for equal indices is kept too.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    manipulation_ops,
    raw_ops,
    reduction_ops,
    sequence_ops,
    shape_ops,
)
from tensorweave.ops.kernel_helpers import c_division, in_float32, invalid_argument
from tensorweave.ops.reduction_ops import _deprecated_alias
from tensorweave.ops.shape_helpers import merge_dim, with_rank
from tensorweave.platform.tf_export import tf_export

_Shape = tensor_shape.TensorShape
_shape_string = tensor_shape.shape_string
_INDEX_TYPES = "{int32, int64}"


def _index_string(row: Any) -> str:
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def _lex_order(indices: Any) -> Any:
    """The stable row-major order of the index rows."""
    if indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _new_rows(sorted_indices: Any) -> Any:
    """True where a row of lexicographically sorted indices differs from the one before it."""
    first = np.ones(sorted_indices.shape[0], dtype=bool)
    first[1:] = np.any(sorted_indices[1:] != sorted_indices[:-1], axis=1)
    return first


def _dim(shape: _Shape, index: int) -> int | None:
    return None if shape.ndims is None else shape.as_list()[index]


def _vector(shape: _Shape) -> int | None:
    """The length of a vector input, its rank checked as TF's WithRank(1)."""
    return with_rank(shape, 1).as_list()[0]


def _matrix(shape: _Shape) -> list:
    return with_rank(shape, 2).as_list()


def _require(ctx: OpKernelContext, array: Any, rank: int, message: str) -> None:
    """TF's kernels' checks that an input is a vector or a matrix: the message ends with the shape received."""
    if array.ndim != rank:
        raise invalid_argument(ctx, f"{message}{_shape_string(array.shape)}")


def _union(ctx: OpKernelContext, a_indices: Any, a_shape: Any, b_indices: Any, b_shape: Any) -> tuple:
    """The sorted union of two sorted index sets of equal shapes, as TF's merges take it: the union's rows and,
    per row, the positions of its entry in a and in b (-1 where that side has none)."""
    _require(ctx, a_indices, 2, "Input indices should be a matrix but received shape: ")
    _require(ctx, b_indices, 2, "Input indices should be a matrix but received shape: ")
    if a_shape.shape != b_shape.shape:
        raise invalid_argument(ctx, f"Operands do not have the same ranks; got shapes: {_shape_string(a_shape)} "
                                    f"and {_shape_string(b_shape)}")
    for d in np.flatnonzero(a_shape != b_shape)[:1]:
        raise invalid_argument(ctx, f"Operands' shapes do not match: got {a_shape[d]} and {b_shape[d]} for "
                                    f"dimension {d}")
    if not (_strictly_sorted(a_indices) and _strictly_sorted(b_indices)):
        return _merge_walk(a_indices.astype(np.int64), b_indices.astype(np.int64))
    both = np.concatenate([a_indices, b_indices]).astype(np.int64, copy=False)
    order = _lex_order(both)
    starts = _new_rows(both[order])
    group = np.cumsum(starts) - 1
    n = int(group[-1]) + 1 if group.size else 0
    from_a, from_b = np.full(n, -1), np.full(n, -1)
    in_a = order < a_indices.shape[0]
    from_a[group[in_a]] = order[in_a]
    from_b[group[~in_a]] = order[~in_a] - a_indices.shape[0]
    return both[order[starts]], from_a, from_b


def _is_sorted(indices: Any) -> bool:
    return bool(np.array_equal(_lex_order(indices), np.arange(indices.shape[0])))


def _strictly_sorted(indices: Any) -> bool:
    """Sorted without repeats (a repeated index is walked, as TF's merge emits it twice)."""
    return _is_sorted(indices) and bool(_new_rows(indices).all())


def _check_bounds(ctx: OpKernelContext, indices: Any, shape: Any) -> None:
    """TF's sparse_utils::ValidateSparseTensor with kUnordered: the first index out of its dimension fails."""
    bad = np.flatnonzero(np.any((indices < 0) | (indices >= shape), axis=1))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(ctx, f"Sparse index tuple indices[{i}, :] = [{', '.join(map(str, indices[i]))}] is "
                                    "out of bounds")


def _merge_walk(a: np.ndarray, b: np.ndarray) -> tuple:
    """TF's merge of two index lists it takes as sorted, step by step, for lists that are not: the entries it
    emits (some twice, some out of order) as _union returns them."""
    rows, from_a, from_b = [], [], []
    i = j = 0
    while i < len(a) and j < len(b):
        x, y = tuple(a[i]), tuple(b[j])
        rows.append(min(x, y))
        from_a.append(i if x <= y else -1)
        from_b.append(j if y <= x else -1)
        i, j = i + (x <= y), j + (y <= x)
    rows += [tuple(r) for r in a[i:]] + [tuple(r) for r in b[j:]]
    from_a += list(range(i, len(a))) + [-1] * (len(b) - j)
    from_b += [-1] * (len(a) - i) + list(range(j, len(b)))
    return (np.array(rows, np.int64).reshape(-1, a.shape[1]), np.array(from_a, np.int64),
            np.array(from_b, np.int64))


# -- SparseToDense ---------------------------------------------------------------------------------------

SparseToDense = Op("SparseToDense", inputs=["sparse_indices: Tindices", "output_shape: Tindices",
                                            "sparse_values: T", "default_value: T"],
                   outputs=["dense: T"], attrs=["validate_indices: bool = true", "T: type",
                                                f"Tindices: {_INDEX_TYPES}"])


@SparseToDense.shape
def _sparse_to_dense_shape(ctx: InferenceContext) -> list[_Shape]:
    return [ctx.input_as_shape(1)]


def check_valid_indices(ctx: OpKernelContext, indices: Any, shape: Any) -> None:
    """TF's SparseTensor::IndicesValid: the first entry out of bounds, out of order or repeated fails."""
    bad_bounds = np.any((indices < 0) | (indices >= shape), axis=1)
    steps = np.sign(indices[1:] - indices[:-1])
    first_change = np.argmax(steps != 0, axis=1)
    step = np.concatenate([[1], steps[np.arange(len(steps)), first_change]]) if indices.shape[1] else \
        np.concatenate([[1], np.zeros(len(steps), dtype=np.int64)])
    bad = np.flatnonzero(bad_bounds | (step <= 0))
    if bad.size == 0:
        return
    i = int(bad[0])
    where = f"indices[{i}] = {_index_string(indices[i])}"
    if bad_bounds[i]:
        raise invalid_argument(ctx, f"{where} is out of bounds: need 0 <= index < {_index_string(shape)}")
    if step[i] < 0:
        raise invalid_argument(ctx, f"{where} is out of order. Many sparse ops require sorted indices.\n    Use "
                                    "`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
    raise invalid_argument(ctx, f"{where} is repeated")


@SparseToDense.kernel("CPU")
def _sparse_to_dense(ctx: OpKernelContext, sparse_indices: Any, output_shape: Any, sparse_values: Any,
                     default_value: Any, validate_indices: bool) -> Any:
    if sparse_indices.ndim > 2:
        raise invalid_argument(ctx, "sparse_indices should be a scalar, vector, or matrix, got shape "
                                    f"{_shape_string(sparse_indices.shape)}")
    if output_shape.ndim > 1:
        raise invalid_argument(ctx, "output_shape should be a scalar or vector, got shape "
                                    f"{_shape_string(output_shape.shape)}")
    num_elems = sparse_indices.shape[0] if sparse_indices.ndim > 0 else 1
    num_dims = sparse_indices.shape[1] if sparse_indices.ndim > 1 else 1
    if sparse_values.ndim > 1 or (sparse_values.ndim == 1 and sparse_values.shape[0] != num_elems):
        raise invalid_argument(ctx, f"sparse_values has incorrect shape {_shape_string(sparse_values.shape)}, "
                                    f"should be [] or [{num_elems}]")
    if default_value.ndim != 0:
        raise invalid_argument(ctx, "default_value should be a scalar.")
    shape = output_shape.reshape(-1).astype(np.int64)
    if shape.size != num_dims:
        raise invalid_argument(ctx, f"output_shape has incorrect number of elements: {shape.size} should be: "
                                    f"{num_dims}")
    if np.any(shape < 0):  # TF's TensorShapeUtils::MakeShape
        raise invalid_argument(ctx, f"Dimension {int(shape[np.argmax(shape < 0)])} must be >= 0")
    indices = sparse_indices.reshape(num_elems, num_dims).astype(np.int64)
    if validate_indices:
        check_valid_indices(ctx, indices, shape)
    elif np.any((indices < 0) | (indices >= shape)):
        raise invalid_argument(ctx, f"Indices are not valid (out of bounds).  Shape: {_shape_string(shape)}")
    dense = np.full(tuple(shape), default_value, dtype=default_value.dtype)
    dense[tuple(indices.T)] = sparse_values
    return dense


@tf_export("sparse_to_dense")
def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any, default_value: Any = 0,
                    validate_indices: bool = True, name: str | None = None) -> Tensor:
    """`tf.sparse_to_dense`: a dense tensor of `default_value` with `sparse_values` at `sparse_indices`."""
    return SparseToDense(sparse_indices, output_shape, sparse_values, default_value,
                         validate_indices=validate_indices, name=name)


def _convert_to_sparse_tensor(sp_input: Any) -> SparseTensor:
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


@tf_export("sparse.to_dense", "sparse_tensor_to_dense")
def sparse_tensor_to_dense(sp_input: Any, default_value: Any = None, validate_indices: bool = True,
                           name: str | None = None) -> Tensor:
    """`tf.sparse.to_dense`: the dense tensor, its missing entries `default_value` (zero by default)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    if default_value is None:
        default_value = fill_ops.zeros([], dtype=sp_input.dtype)
    return SparseToDense(sp_input.indices, sp_input.dense_shape, sp_input.values, default_value,
                         validate_indices=validate_indices, name=name)


# -- SparseTensorDenseAdd, SparseAdd ---------------------------------------------------------------------

SparseTensorDenseAdd = Op("SparseTensorDenseAdd", inputs=["a_indices: Tindices", "a_values: T", "a_shape: Tindices",
                                                          "b: T"],
                          outputs=["output: T"], attrs=["T: numbertype", f"Tindices: {_INDEX_TYPES}"])


@SparseTensorDenseAdd.shape
def _sparse_tensor_dense_add_shape(ctx: InferenceContext) -> list[_Shape]:
    return [ctx.input_shape(3)]


@SparseTensorDenseAdd.kernel("CPU")
def _sparse_tensor_dense_add(ctx: OpKernelContext, a_indices: Any, a_values: Any, a_shape: Any, b: Any) -> Any:
    _require(ctx, a_indices, 2, "Input a_indices should be a matrix but received shape: ")
    if a_values.ndim != 1 or a_shape.ndim != 1:
        raise invalid_argument(ctx, "Inputs a_values and a_shape should be vectors but received shapes: "
                                    f"{_shape_string(a_values.shape)} and {_shape_string(a_shape.shape)}")
    if a_shape.shape[0] != b.ndim:
        raise invalid_argument(ctx, f"Two operands have different ranks; received: {a_shape.shape[0]} and {b.ndim}")
    for d in np.flatnonzero(a_shape != np.array(b.shape, dtype=a_shape.dtype))[:1]:
        raise invalid_argument(ctx, f"Dimension {d} does not equal (no broadcasting is supported): sparse side "
                                    f"{a_shape[d]} vs dense side {b.shape[d]}")
    bad = (a_indices < 0) | (a_indices >= np.array(b.shape))
    if bad.any():
        i, d = np.argwhere(bad)[0]
        raise invalid_argument(ctx, f"Sparse tensor has an invalid index on dimension {d}: a_indices({i},{d}) = "
                                    f"{a_indices[i, d]}, dense tensor shape: {' '.join(map(str, b.shape))}")
    out = b.copy()
    np.add.at(out, tuple(a_indices.T), a_values)
    return out


SparseAdd = Op("SparseAdd", inputs=["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
                                    "b_values: T", "b_shape: int64", "thresh: Treal"],
               outputs=["sum_indices: int64", "sum_values: T", "sum_shape: int64"],
               attrs=["T: numbertype", "Treal: realnumbertype"])


@SparseAdd.shape
def _sparse_add_shape(ctx: InferenceContext) -> list[_Shape]:
    rank = _vector(ctx.input_shape(2))
    return [_Shape([None, rank]), _Shape([None]), _Shape([rank])]


@SparseAdd.kernel("CPU")
def _sparse_add(ctx: OpKernelContext, a_indices: Any, a_values: Any, a_shape: Any, b_indices: Any, b_values: Any,
                b_shape: Any, thresh: Any) -> list:
    """The union of both operands' entries; an entry both have is their sum, kept when |sum| >= thresh."""
    if thresh.ndim != 0:
        raise invalid_argument(ctx, "The magnitude threshold must be a scalar: got shape "
                                    f"{_shape_string(thresh.shape)}")
    if not (_strictly_ordered(a_indices) and _strictly_ordered(b_indices)):
        return [*_merge_as_ordered(a_indices, a_values, b_indices, b_values, thresh), a_shape]
    indices, from_a, from_b = _union(ctx, a_indices, a_shape, b_indices, b_shape)
    values = np.where(from_a >= 0, a_values[from_a], 0) + np.where(from_b >= 0, b_values[from_b], 0)
    values = values.astype(a_values.dtype, copy=False)
    keep = (from_a < 0) | (from_b < 0) | (np.abs(values) >= thresh)
    return [indices[keep], values[keep], a_shape]


def _strictly_ordered(indices: np.ndarray) -> bool:
    """Whether the index rows increase in row-major order, with no repeats."""
    if len(indices) < 2:
        return True
    steps = np.diff(indices, axis=0)
    moved = steps != 0
    first = np.argmax(moved, axis=1)
    return bool(moved.any(axis=1).all() and (steps[np.arange(len(steps)), first] > 0).all())


def _merge_as_ordered(a_indices: np.ndarray, a_values: np.ndarray, b_indices: np.ndarray, b_values: np.ndarray,
                      thresh: Any) -> tuple[np.ndarray, np.ndarray]:
    """TF's SparseAdd walk for operands out of order or with repeats: one merge pass that takes both as
    ordered (so its output is what TF's is, not the true sum); only sums meet the threshold."""
    a_keys, b_keys = [tuple(row) for row in a_indices.tolist()], [tuple(row) for row in b_indices.tolist()]
    rows, values, i, j = [], [], 0, 0
    while i < len(a_keys) and j < len(b_keys):
        if a_keys[i] < b_keys[j]:
            rows.append(a_indices[i]), values.append(a_values[i])
            i += 1
        elif a_keys[i] > b_keys[j]:
            rows.append(b_indices[j]), values.append(b_values[j])
            j += 1
        else:
            total = a_values[i] + b_values[j]
            if np.abs(total) >= thresh:
                rows.append(a_indices[i]), values.append(total)
            i, j = i + 1, j + 1
    rows += list(a_indices[i:]) + list(b_indices[j:])
    values += list(a_values[i:]) + list(b_values[j:])
    return (np.array(rows, np.int64).reshape(len(rows), a_indices.shape[1]),
            np.array(values, a_values.dtype).reshape(len(values)))


@tf_export("sparse.add", "sparse_add")
def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None) -> Any:
    """`tf.sparse.add`: a SparseTensor when both operands are sparse (entries both have are summed and dropped
    when smaller than `threshold` in magnitude), else the dense sum."""
    threshold = _deprecated_alias("threshold", threshold, "thresh", thresh)
    if threshold is None:
        threshold = 0
    sparse_classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse_classes) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if not all(isinstance(x, sparse_classes) for x in (a, b)):
        if isinstance(b, sparse_classes):
            a, b = b, a
        a = _convert_to_sparse_tensor(a)
        return SparseTensorDenseAdd(a.indices, a.values, a.dense_shape, b)
    a, b = _convert_to_sparse_tensor(a), _convert_to_sparse_tensor(b)
    threshold = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype.base_dtype, name="threshold")
    indices, values, shape = SparseAdd(a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape,
                                       threshold)
    a.shape.assert_is_compatible_with(b.shape)
    static = a.shape.merge_with(b.shape)
    return SparseTensor(indices, values, static.as_list() if static.is_fully_defined() else shape)


# -- SparseConcat ----------------------------------------------------------------------------------------

SparseConcat = Op("SparseConcat", inputs=["indices: N * int64", "values: N * T", "shapes: N * int64"],
                  outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
                  attrs=["concat_dim: int", "N: int >= 2", "T: type"])
NotDifferentiable("SparseConcat")  # as TF's: the values' gradients are None


@SparseConcat.shape
def _sparse_concat_shape(ctx: InferenceContext) -> list[_Shape]:
    n = ctx.attr("N")  # TF's: the rows added up, the columns and the dense shapes merged (C++ messages)
    rows: int | None = 0
    cols, dense = tensor_shape.Dimension(None), tensor_shape.unknown_shape()
    for i in range(n):
        indices = with_rank(ctx.input_shape(i), 2)
        values = with_rank(ctx.input_shape(n + i), 1)
        shape = with_rank(ctx.input_shape(2 * n + i), 1)
        count = merge_dim(indices.dims[0], values.dims[0])
        rows = None if rows is None or count.value is None else rows + count.value
        cols = merge_dim(cols, indices.dims[1])
        dense = tensor_shape.merge_shapes(dense, shape)
    return [_Shape([rows, cols.value]), _Shape([rows]), dense]


@SparseConcat.kernel("CPU")
def _sparse_concat(ctx: OpKernelContext, *inputs: Any, concat_dim: int) -> list:
    n = len(inputs) // 3
    indices, values, shapes = inputs[:n], inputs[n:2 * n], inputs[2 * n:]
    for i in range(n):
        _require(ctx, indices[i], 2, "Input indices should be a matrix but received shape ")
        _require(ctx, values[i], 1, "Input values should be a vector but received shape ")
        _require(ctx, shapes[i], 1, "Input shapes should be a vector but received shape ")
    rank = shapes[0].shape[0]
    if not -rank <= concat_dim < rank:
        raise invalid_argument(ctx, f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    axis = concat_dim % rank
    for i, shape in enumerate(shapes[1:], 1):
        if shape.shape[0] != rank:
            raise invalid_argument(ctx, f"Ranks of all input tensors must match: expected {rank} but got "
                                        f"{shape.shape[0]} at position {i}")
        for d in np.flatnonzero((shape != shapes[0]) & (np.arange(rank) != axis))[:1]:
            raise invalid_argument(ctx, f"Input shapes must match: expected {shapes[0][d]} for dimension {d} but "
                                        f"got {shape[d]} at position {i}")
    offsets = np.cumsum([0] + [int(s[axis]) for s in shapes[:-1]])
    shifted = np.concatenate([idx + np.eye(1, rank, axis, dtype=np.int64) * off for idx, off in zip(indices, offsets)])
    all_values = np.concatenate(values)
    order = _lex_order(shifted)
    out_shape = shapes[0].copy()
    out_shape[axis] = sum(int(s[axis]) for s in shapes)
    return [shifted[order], all_values[order], out_shape]


@tf_export("sparse.concat", "sparse_concat")
def sparse_concat(axis: Any, sp_inputs: Any, name: str | None = None, expand_nonconcat_dim: bool = False,
                  concat_dim: Any = None, expand_nonconcat_dims: Any = None) -> SparseTensor:
    """`tf.sparse.concat`: the inputs joined along `axis`, in row-major order; with `expand_nonconcat_dim`
    the other dimensions grow to the largest input's."""
    expand_nonconcat_dim = _deprecated_alias("expand_nonconcat_dims", expand_nonconcat_dims,
                                             "expand_nonconcat_dim", expand_nonconcat_dim)
    axis = _deprecated_alias("axis", axis, "concat_dim", concat_dim)
    if not isinstance(sp_inputs, list):
        raise TypeError("Inputs must be a list")
    sp_inputs = [_convert_to_sparse_tensor(sp) for sp in sp_inputs]
    if len(sp_inputs) == 1:  # TF's degenerate case: the one input itself
        return sp_inputs[0]
    shapes = [sp.dense_shape for sp in sp_inputs]
    if expand_nonconcat_dim:
        largest = reduction_ops.reduce_max(manipulation_ops.concat(
            [shape_ops.reshape(shape, [1, -1]) for shape in shapes], 0), 0)
        shapes = [manipulation_ops.concat([largest[:axis], shape[-1:] if axis == -1 else shape[axis:axis + 1],
                                           [] if axis == -1 else largest[axis + 1:]], 0) for shape in shapes]
    indices, values, output_shape = SparseConcat([sp.indices for sp in sp_inputs], [sp.values for sp in sp_inputs],
                                                 shapes, concat_dim=axis, name=name)
    static = [sp.shape for sp in sp_inputs]
    dims = None
    if all(s.ndims is not None for s in static):  # TF's static shape: the first input's (or the largest) dims,
        columns = list(zip(*[s.as_list() for s in static]))  # and the sum along `axis`
        dims = [_first_largest(c) for c in columns] if expand_nonconcat_dim else static[0].as_list()
        dims[axis] = None if None in columns[axis] else sum(columns[axis])
    if all(s.is_fully_defined() for s in static):  # TF converts the shape first: a Const outside the SparseTensor
        return SparseTensor(indices, values, convert_to_tensor(dims, dtype=dtypes.int64))
    result = SparseTensor(indices, values, output_shape)
    result.set_shape(dims)
    return result


def _first_largest(dims: Sequence[int | None]) -> int | None:
    """Python's max over TF Dimensions: an unknown one compares false, so it neither wins nor is replaced."""
    best = dims[0]
    for d in dims[1:]:
        if d is not None and best is not None and d > best:
            best = d
    return best


# -- SparseReshape, SparseReorder ------------------------------------------------------------------------

SparseReshape = Op("SparseReshape", inputs=["input_indices: int64", "input_shape: int64", "new_shape: int64"],
                   outputs=["output_indices: int64", "output_shape: int64"])


@SparseReshape.shape
def _sparse_reshape_shape(ctx: InferenceContext) -> list[_Shape]:
    indices = _matrix(ctx.input_shape(0))
    _vector(ctx.input_shape(1))
    rank = _vector(ctx.input_shape(2))
    return [_Shape([indices[0], rank]), _Shape([rank])]


def _row_major_strides(shape: Any) -> Any:
    return np.concatenate([np.cumprod(shape[:0:-1])[::-1], [1]]).astype(np.int64) if len(shape) else np.zeros(0, np.int64)


@SparseReshape.kernel("CPU")
def _sparse_reshape(ctx: OpKernelContext, input_indices: Any, input_shape: Any, new_shape: Any) -> list:
    _require(ctx, input_shape, 1, "Input shape should be a vector but received shape ")
    _require(ctx, new_shape, 1, "Target shape should be a vector but received shape ")
    dense_size = int(np.prod(input_shape))
    unknown = np.flatnonzero(new_shape == -1)
    if unknown.size > 1:
        raise invalid_argument(ctx, f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}")
    for d in np.flatnonzero(new_shape < -1)[:1]:
        raise invalid_argument(ctx, f"size {d} must be non-negative, not {new_shape[d]}")
    product = int(np.prod(np.where(new_shape == -1, 1, new_shape)))
    output_shape = np.where(new_shape == -1, 1, new_shape).astype(np.int64)
    shapes = f"input_shape={_shape_string(input_shape)} output_shape={_shape_string(output_shape)}"
    if unknown.size:
        if product <= 0:
            raise invalid_argument(ctx, "reshape cannot infer the missing input size for an empty tensor unless "
                                        "all specified input sizes are non-zero")
        if dense_size % product:
            raise invalid_argument(ctx, f"Input to reshape is a SparseTensor with {dense_size} dense values, but the "
                                        f"requested shape requires a multiple of {product}. {shapes}")
        output_shape[unknown[0]] = dense_size // product
    elif product != dense_size:
        raise invalid_argument(ctx, f"Input to reshape is a tensor with {dense_size} dense values, but the requested "
                                    f"shape has {product}. {shapes}")
    # TF's: each index's row-major offset divided down the new strides in C's integer arithmetic, unchecked (an
    # index out of its dimension moves into the next row; a negative one stays negative)
    linear = input_indices.astype(np.int64) @ _row_major_strides(input_shape)
    output_indices = np.empty((input_indices.shape[0], len(output_shape)), np.int64)
    for j, stride in enumerate(_row_major_strides(output_shape)):
        output_indices[:, j] = c_division(linear, max(int(stride), 1))
        linear = linear - output_indices[:, j] * max(int(stride), 1)
    return [output_indices, output_shape]


@tf_export("sparse.reshape", "sparse_reshape")
def sparse_reshape(sp_input: Any, shape: Any, name: str | None = None) -> SparseTensor:
    """`tf.sparse.reshape`: the same entries under a new dense shape (one dimension may be -1); the shape is
    checked while building where both are known."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    shape = cast_ops.cast(shape, dtypes.int64)
    with name_scope(name, "SparseReshape", [sp_input]) as name:
        indices, output_shape = SparseReshape(sp_input.indices, sp_input.dense_shape, shape, name=name)
        requested = tensor_util.constant_value_as_shape(shape)
        if requested.ndims is not None and sp_input.shape.is_fully_defined():
            by_user = tensor_util.constant_value(shape)
            if by_user is not None and int(np.sum(by_user == -1)) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {by_user}")
            original = requested.as_list()
            dims = list(original)
            size = int(np.prod(sp_input.shape.as_list()))
            implied = dims.count(None)
            if implied == 1 and 0 not in dims:
                index = dims.index(None)
                dims[index] = size // int(np.prod(dims[:index] + dims[index + 1:]))
            if implied == 0 or (implied == 1 and 0 not in dims):
                if int(np.prod(dims)) != size:
                    raise ValueError(f"Cannot reshape a tensor with {size} elements to shape {original} "
                                     f"({int(np.prod(dims))} elements).")
                output_shape = constant_ops.constant(dims, dtype=dtypes.int64)
        return SparseTensor(indices, manipulation_ops.identity(sp_input.values), output_shape)


SparseReorder = Op("SparseReorder", inputs=["input_indices: int64", "input_values: T", "input_shape: int64"],
                   outputs=["output_indices: int64", "output_values: T"], attrs=["T: type"])


@SparseReorder.shape
def _sparse_reorder_shape(ctx: InferenceContext) -> list[_Shape]:
    indices = with_rank(ctx.input_shape(0), 2)
    values = with_rank(ctx.input_shape(1), 1)
    with_rank(ctx.input_shape(2), 1)
    return [indices, values]


def _check_sparse(ctx: OpKernelContext, indices: Any, values: Any, shape: Any, names: tuple = ("indices", "values",
                                                                                              "shape")) -> None:
    """TF's checks of a sparse input's three parts (matrix, vector, vector, and agreeing sizes)."""
    _require(ctx, indices, 2, f"Input {names[0]} should be a matrix but received shape ")
    _require(ctx, values, 1, f"Input {names[1]} should be a vector but received shape ")
    _require(ctx, shape, 1, f"Input {names[2]} should be a vector but received shape ")
    if indices.shape[0] != values.shape[0]:
        raise invalid_argument(ctx, f"Number of elements in input_indices ({indices.shape[0]}) and input_values "
                                    f"({values.shape[0]}) do not match")
    if indices.shape[1] != shape.shape[0]:
        raise invalid_argument(ctx, f"Number of dimensions in input_indices ({indices.shape[1]}) and input_shape "
                                    f"({shape.shape[0]}) do not match")


def _check_sparse_tensor(ctx: OpKernelContext, indices: Any, values: Any, shape: Any) -> None:
    """TF's sparse::SparseTensor::Create checks, for the kernels that build one without checks of their own."""
    if indices.shape[0] != values.shape[0]:
        raise invalid_argument(ctx, f"Number of elements in indices ({indices.shape[0]}) and values "
                                    f"({values.shape[0]}) do not match")
    if indices.shape[1] != shape.shape[0]:
        raise invalid_argument(ctx, f"Index rank ({indices.shape[1]}) and shape rank ({shape.shape[0]}) do not match")


@SparseReorder.kernel("CPU")
def _sparse_reorder(ctx: OpKernelContext, input_indices: Any, input_values: Any, input_shape: Any) -> list:
    _require(ctx, input_indices, 2, "Input indices should be a matrix but received shape ")
    _require(ctx, input_values, 1, "Input values should be a vector but received shape ")
    _require(ctx, input_shape, 1, "Input shape should be a vector but received shape ")
    _check_sparse_tensor(ctx, input_indices, input_values, input_shape)
    order = _lex_order(input_indices)
    return [input_indices[order], input_values[order]]


@tf_export("sparse.reorder", "sparse_reorder")
def sparse_reorder(sp_input: Any, name: str | None = None) -> SparseTensor:
    """`tf.sparse.reorder`: the same sparse tensor with its entries in row-major order."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    indices, values = SparseReorder(sp_input.indices, sp_input.values, sp_input.dense_shape, name=name)
    if sp_input.shape.is_fully_defined():
        return SparseTensor(indices, values, sp_input.shape.as_list())
    result = SparseTensor(indices, values, manipulation_ops.identity(sp_input.dense_shape))
    result._dense_shape_default = sp_input.shape
    return result


@tf_export("sparse.merge", "sparse_merge")
def sparse_merge(sp_ids: Any, sp_values: Any, vocab_size: Any, name: str | None = None,
                 already_sorted: bool = False) -> SparseTensor:
    """`tf.sparse.merge`: the values of `sp_values` placed at the ids of `sp_ids` (one id tensor per new last
    dimension, each of `vocab_size`), as `tf.parse_example` assembles a SparseFeature; the leading indices
    and dense shape come from the first ids, as TF's."""
    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        if not isinstance(vocab_size, (Tensor, numbers.Integral)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found {type(vocab_size)}")
        sp_ids, vocab_size = [sp_ids], [vocab_size]
    else:
        if not isinstance(sp_ids, Iterable):
            raise TypeError(f"sp_ids has to be a SparseTensor or list thereof. Found {type(sp_ids)}")
        if not isinstance(vocab_size, Iterable):
            raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found {type(vocab_size)}")
        for size in vocab_size:
            if not isinstance(size, (Tensor, numbers.Integral)):
                raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found {type(size)}")
    sp_ids, vocab_size = list(sp_ids), list(vocab_size)
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", sp_ids + [sp_values]):
        sp_ids = [_convert_to_sparse_tensor(s) for s in sp_ids]
        sp_values = _convert_to_sparse_tensor(sp_values)
        ids = [shape_ops.expand_dims(s.values if s.dtype == dtypes.int64 else cast_ops.cast(s.values, dtypes.int64),
                                     axis=1) for s in sp_ids]
        sizes = [cast_ops.cast(size, dtypes.int64) for size in vocab_size]
        indices = manipulation_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        shape = manipulation_ops.concat([sp_ids[0].dense_shape[:-1], sizes], 0)
        result = SparseTensor(indices, sp_values.values, shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, shape)


@tf_export("sparse.retain", "sparse_retain")
def sparse_retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """`tf.sparse.retain`: the entries whose `to_retain` flag is true, in their order."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.shape
    retain_shape.assert_has_rank(1)
    if sp_input.values.shape.ndims is not None:
        sp_input.values.shape.dims[0].assert_is_compatible_with(retain_shape.dims[0])
    where_true = shape_ops.reshape(indexing_ops.where(to_retain), [-1])
    return SparseTensor(indexing_ops.gather(sp_input.indices, where_true),
                        indexing_ops.gather(sp_input.values, where_true),
                        manipulation_ops.identity(sp_input.dense_shape))


# -- SparseSlice, SparseSplit, transpose -----------------------------------------------------------------

SparseSlice = Op("SparseSlice", inputs=["indices: int64", "values: T", "shape: int64", "start: int64", "size: int64"],
                 outputs=["output_indices: int64", "output_values: T", "output_shape: int64"], attrs=["T: type"])


@SparseSlice.shape
def _sparse_slice_shape(ctx: InferenceContext) -> list[_Shape]:
    shape = with_rank(ctx.input_shape(2), 1)
    return [_Shape([None, shape.as_list()[0]]), _Shape([None]), shape]


@SparseSlice.kernel("CPU")
def _sparse_slice(ctx: OpKernelContext, indices: Any, values: Any, shape: Any, start: Any, size: Any) -> list:
    _check_sparse(ctx, indices, values, shape)
    _require(ctx, start, 1, "Input start should be a vector but received shape ")
    _require(ctx, size, 1, "Input size should be a vector but received shape ")
    rank = shape.shape[0]
    for label, vector in (("start", start), ("size", size)):
        if vector.shape[0] != rank:
            raise invalid_argument(ctx, f"Expected {label} to be a vector of length {rank} but got length "
                                        f"{vector.shape[0]}")
    if np.any(size < 0):
        raise invalid_argument(ctx, f"Expected a non-negative size, got {int(size[np.argmax(size < 0)])}")
    end = np.minimum(start + size, shape)
    keep = np.all((indices >= start) & (indices < end), axis=1)
    return [indices[keep] - start, values[keep], np.maximum(end - start, 0)]


@tf_export("sparse.slice", "sparse_slice")
def sparse_slice(sp_input: Any, start: Any, size: Any, name: str | None = None) -> SparseTensor:
    """`tf.sparse.slice`: the entries inside the box `[start, start + size)`, relative to `start`."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    start = convert_to_tensor(start, dtypes.int64)
    size = convert_to_tensor(size, dtypes.int64)
    with name_scope(name, "SparseSlice", [sp_input]) as name:
        indices, values, shape = SparseSlice(sp_input.indices, sp_input.values, sp_input.dense_shape, start, size,
                                             name=name)
        return SparseTensor(indices, values, shape)


SparseSplit = Op("SparseSplit", inputs=["split_dim: int64", "indices: int64", "values: T", "shape: int64"],
                 outputs=["output_indices: num_split * int64", "output_values: num_split * T",
                          "output_shape: num_split * int64"],
                 attrs=["num_split: int >= 1", "T: type"])


@SparseSplit.shape
def _sparse_split_shape(ctx: InferenceContext) -> list[_Shape]:
    n = ctx.attr("num_split")
    shape = with_rank(ctx.input_shape(3), 1)
    return [_Shape([None, shape.as_list()[0]])] * n + [_Shape([None])] * n + [shape] * n


@SparseSplit.kernel("CPU")
def _sparse_split(ctx: OpKernelContext, split_dim: Any, indices: Any, values: Any, shape: Any, num_split: int) -> list:
    _check_sparse(ctx, indices, values, shape)
    _check_bounds(ctx, indices, shape)
    rank = shape.shape[0]
    axis = int(split_dim)
    if not -rank <= axis < rank:
        raise invalid_argument(ctx, f"Input axis should be in range [{-rank}, {rank}), got {axis}")
    axis %= rank
    size = int(shape[axis])
    if not 1 <= num_split <= size:
        raise invalid_argument(ctx, f"Input num_split should be between 1 and the splitting dimension size "
                                    f"({size}), got {num_split}")
    small, big_count = divmod(size, num_split)  # the first `big_count` pieces are one longer
    coordinate = indices[:, axis]
    boundary = big_count * (small + 1)
    piece = np.where(coordinate < boundary, coordinate // (small + 1),
                     big_count + (coordinate - boundary) // max(small, 1))
    piece_start = np.where(piece < big_count, piece * (small + 1), boundary + (piece - big_count) * small)
    shifted = indices.copy()
    shifted[:, axis] -= piece_start
    out_indices, out_values, out_shapes = [], [], []
    for i in range(num_split):
        mine = piece == i
        out_indices.append(shifted[mine])
        out_values.append(values[mine])
        piece_shape = shape.copy()
        piece_shape[axis] = small + (i < big_count)
        out_shapes.append(piece_shape)
    return out_indices + out_values + out_shapes


class KeywordRequired:
    """The default of TF's first parameter of `tf.sparse.split`: it takes its arguments by keyword only."""

    def __repr__(self) -> str:
        return "KeywordRequired()"


@tf_export("sparse.split", "sparse_split")
def sparse_split(keyword_required: Any = KeywordRequired(), sp_input: Any = None, num_split: int | None = None,  # noqa: B008
                 axis: Any = None, name: str | None = None, split_dim: Any = None) -> list[SparseTensor]:
    """`tf.sparse.split`: `num_split` sparse tensors along `axis`, the first `size % num_split` one longer."""
    if not isinstance(keyword_required, KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    axis = _deprecated_alias("axis", axis, "split_dim", split_dim)
    if axis is None:
        raise ValueError("axis is required")
    sp_input = _convert_to_sparse_tensor(sp_input)
    outputs = SparseSplit(cast_ops.cast(axis, dtypes.int64), sp_input.indices, sp_input.values, sp_input.dense_shape,
                          num_split=num_split, name=name)
    return [SparseTensor(outputs[i], outputs[num_split + i], outputs[2 * num_split + i]) for i in range(num_split)]


@tf_export("sparse.transpose", "sparse_transpose")
def sparse_transpose(sp_input: Any, perm: Any = None, name: str | None = None) -> SparseTensor:
    """`tf.sparse.transpose`: the index columns permuted (reversed by default), then put back in order."""
    with name_scope(name, "SparseTranspose", [sp_input]):
        sp_input = _convert_to_sparse_tensor(sp_input)
        if perm is None:
            rank = sp_input.shape.ndims
            if rank is not None:
                perm = list(range(rank - 1, -1, -1))
            else:
                size = shape_ops.size(sp_input.dense_shape)
                perm = (size - 1) - sequence_ops.range(0, size, 1)
        indices = manipulation_ops.transpose(indexing_ops.gather(manipulation_ops.transpose(sp_input.indices), perm))
        perm_value = tensor_util.constant_value(convert_to_tensor(perm))
        if perm_value is not None and sp_input.shape.is_fully_defined():
            old = sp_input.shape.as_list()
            dense_shape: Any = [old[p] for p in perm_value]
        else:
            dense_shape = indexing_ops.gather(sp_input.dense_shape, perm)
        return sparse_reorder(SparseTensor(indices, sp_input.values, dense_shape))


# -- SparseFillEmptyRows ---------------------------------------------------------------------------------

SparseFillEmptyRows = Op("SparseFillEmptyRows", inputs=["indices: int64", "values: T", "dense_shape: int64",
                                                        "default_value: T"],
                         outputs=["output_indices: int64", "output_values: T", "empty_row_indicator: bool",
                                  "reverse_index_map: int64"], attrs=["T: type"])


@SparseFillEmptyRows.shape
def _sparse_fill_empty_rows_shape(ctx: InferenceContext) -> list[_Shape]:
    indices = _matrix(ctx.input_shape(0))
    _vector(ctx.input_shape(1))
    rank = _vector(ctx.input_shape(2))
    with_rank(ctx.input_shape(3), 0)
    rows = ctx.input_as_shape(2)
    return [_Shape([None, rank]), _Shape([None]), _Shape([_dim(rows, 0) if rows.ndims else None]),
            _Shape([indices[0]])]


@SparseFillEmptyRows.kernel("CPU")
def _sparse_fill_empty_rows(ctx: OpKernelContext, indices: Any, values: Any, dense_shape: Any,
                            default_value: Any) -> list:
    _require(ctx, indices, 2, "indices must be a matrix, saw shape: ")
    _require(ctx, values, 1, "values must be a vector, saw shape: ")
    _require(ctx, dense_shape, 1, "dense_shape must be a vector, saw shape: ")
    if default_value.ndim != 0:
        raise invalid_argument(ctx, f"default_value must be a scalar, saw shape: {_shape_string(default_value.shape)}")
    rows = int(dense_shape[0]) if dense_shape.size else 0
    if rows == 0 and indices.shape[0]:
        raise invalid_argument(ctx, f"Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = "
                                    f"{indices.shape[0]}")
    return _fill_empty_rows(ctx, indices, values, rows, default_value)


def _fill_empty_rows(ctx: OpKernelContext, indices: Any, values: Any, rows: int, default_value: Any) -> list:
    """Entries (index rows, first column their row) sorted by row with one `default_value` entry added per
    empty row; which rows were empty; where each input entry went."""
    row = indices[:, 0]
    for i in np.flatnonzero((row < 0) | (row >= rows))[:1]:
        raise invalid_argument(ctx, f"indices({i}, 0) is invalid: {row[i]} >= {rows}")
    counts = np.bincount(row, minlength=rows)
    empty = counts == 0
    filler = np.zeros((int(empty.sum()), indices.shape[1]), dtype=np.int64)
    filler[:, 0] = np.flatnonzero(empty)
    all_indices = np.concatenate([indices, filler])
    order = np.argsort(all_indices[:, 0], kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    all_values = np.concatenate([values, np.full(filler.shape[0], default_value, dtype=values.dtype)])
    return [all_indices[order], all_values[order], empty, position[:indices.shape[0]].astype(np.int64)]


@tf_export("sparse.fill_empty_rows", "sparse_fill_empty_rows")
def sparse_fill_empty_rows(sp_input: Any, default_value: Any, name: str | None = None) -> tuple[SparseTensor, Tensor]:
    """`tf.sparse.fill_empty_rows`: an entry `[row, 0, ...]` of `default_value` in every empty row, and which
    rows were empty."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    with name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        indices, values, empty, _ = SparseFillEmptyRows(sp_input.indices, sp_input.values, sp_input.dense_shape,
                                                        default_value)
        return SparseTensor(indices, values, sp_input.dense_shape), empty


RaggedFillEmptyRows = Op("RaggedFillEmptyRows", inputs=["value_rowids: int64", "values: T", "nrows: int64",
                                                        "default_value: T"],
                         outputs=["output_value_rowids: int64", "output_values: T", "empty_row_indicator: bool",
                                  "reverse_index_map: int64"], attrs=["T: type"])


@RaggedFillEmptyRows.shape
def _ragged_fill_empty_rows_shape(ctx: InferenceContext) -> list[_Shape]:
    count = merge_dim(tensor_shape.Dimension(_vector(ctx.input_shape(0))),
                      tensor_shape.Dimension(_vector(ctx.input_shape(1))))
    with_rank(ctx.input_shape(2), 0)
    with_rank(ctx.input_shape(3), 0)
    return [_Shape([None]), _Shape([None]), _Shape([None]), _Shape([count])]


@RaggedFillEmptyRows.kernel("CPU")
def _ragged_fill_empty_rows(ctx: OpKernelContext, value_rowids: Any, values: Any, nrows: Any,
                            default_value: Any) -> list:
    """SparseFillEmptyRows over a ragged tensor's row ids (a rank-1 sparse tensor of `nrows` rows)."""
    if int(nrows) < 0:
        raise invalid_argument(ctx, f"Expected shape dimensions to be non-negative, got {int(nrows)}")
    indices, values, empty, reverse = _fill_empty_rows(ctx, value_rowids.reshape(-1, 1), values, int(nrows),
                                                       default_value)
    return [indices[:, 0], values, empty, reverse]


@tf_export("ragged_fill_empty_rows")
def ragged_fill_empty_rows(value_rowids: Any, values: Any, nrows: Any, default_value: Any,
                           name: str | None = None) -> Any:
    """The raw op: a ragged tensor's rows with one `default_value` in each empty row."""
    return RaggedFillEmptyRows(value_rowids, values, nrows, default_value, name=name)


# -- SparseReduceSum, SparseReduceMax and their sparse forms ---------------------------------------------

_REDUCE_ATTRS = ["keep_dims: bool = false"]
_REDUCE_INPUTS = ["input_indices: int64", "input_values: T", "input_shape: int64", "reduction_axes: int32"]
SparseReduceSum = Op("SparseReduceSum", inputs=_REDUCE_INPUTS, outputs=["output: T"],
                     attrs=_REDUCE_ATTRS + ["T: numbertype"])
SparseReduceMax = Op("SparseReduceMax", inputs=_REDUCE_INPUTS, outputs=["output: T"],
                     attrs=_REDUCE_ATTRS + ["T: realnumbertype"])
_SPARSE_OUTPUTS = ["output_indices: int64", "output_values: T", "output_shape: int64"]
SparseReduceSumSparse = Op("SparseReduceSumSparse", inputs=_REDUCE_INPUTS, outputs=_SPARSE_OUTPUTS,
                           attrs=_REDUCE_ATTRS + ["T: numbertype"])
SparseReduceMaxSparse = Op("SparseReduceMaxSparse", inputs=_REDUCE_INPUTS, outputs=_SPARSE_OUTPUTS,
                           attrs=_REDUCE_ATTRS + ["T: realnumbertype"])


@SparseReduceSum.shape
@SparseReduceMax.shape
def _sparse_reduce_shape(ctx: InferenceContext) -> list[_Shape]:
    """Known when the dense shape and the axes are (an axis is taken modulo the rank, as TF's function does)."""
    shape, axes = ctx.input_value(2), ctx.input_value(3)
    if shape is None or axes is None:
        return [tensor_shape.unknown_shape()]
    rank = shape.size
    reduced = {(int(a) + rank) % rank for a in np.reshape(axes, -1)} if rank else set()
    keep = ctx.attr("keep_dims")
    return [_Shape([1 if d in reduced else int(shape[d]) for d in range(rank) if keep or d not in reduced])]


@SparseReduceSumSparse.shape
@SparseReduceMaxSparse.shape
def _sparse_reduce_sparse_shape(ctx: InferenceContext) -> list[_Shape]:
    return [tensor_shape.unknown_shape()] * 3


def _reduce_groups(ctx: OpKernelContext, indices: Any, values: Any, shape: Any, axes: Any, keep_dims: bool) -> tuple:
    """The output's dense shape, and per present group its output index and the position of each entry's group."""
    _check_sparse(ctx, indices, values, shape)
    rank = shape.shape[0]
    axes = np.reshape(axes, -1)
    for a in axes:
        if not -rank <= a < rank:
            raise invalid_argument(ctx, f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
    reduced = np.zeros(rank, dtype=bool)
    reduced[axes % rank if rank else axes] = True
    out_shape = np.where(reduced, 1, shape) if keep_dims else shape[~reduced]
    kept = np.where(reduced, 0, indices) if keep_dims else indices[:, ~reduced]
    if kept.shape[1]:
        groups, group_of = np.unique(kept, axis=0, return_inverse=True)
    else:
        groups, group_of = np.zeros((min(len(kept), 1), 0), np.int64), np.zeros(len(kept), np.int64)
    return out_shape.astype(np.int64), groups, group_of.reshape(-1)


def _group_reduce(values: Any, group_of: Any, count: int, maximum: bool) -> Any:
    if maximum:
        out = np.full(count, values.min() if values.size else 0, dtype=values.dtype)
        np.maximum.at(out, group_of, values)
        return out
    out = np.zeros(count, dtype=in_float32(values).dtype)
    np.add.at(out, group_of, in_float32(values))
    return out.astype(values.dtype, copy=False)


def _dense_reduction(maximum: bool) -> Any:
    def reduce(ctx: OpKernelContext, input_indices: Any, input_values: Any, input_shape: Any, reduction_axes: Any,
               keep_dims: bool) -> Any:
        out_shape, groups, group_of = _reduce_groups(ctx, input_indices, input_values, input_shape, reduction_axes,
                                                     keep_dims)
        out = np.zeros(tuple(out_shape), dtype=input_values.dtype)
        reduced = _group_reduce(input_values, group_of, len(groups), maximum)
        if groups.shape[1]:
            # TF writes each group at its row-major flat index, checking only that index's range: an index out
            # of its dimension's range lands in another row when the flat index stays inside the output
            strides = np.cumprod(np.concatenate([[1], out_shape[:0:-1]]))[::-1]
            flat = groups @ strides
            bad = np.flatnonzero((flat < 0) | (flat >= out.size))
            if bad.size:
                raise errors.InternalError(ctx.node_def, None, f"Obtained a write index of {flat[bad[0]]} which "
                                           f"is outside of bounds of [0, {out.size})")
            out.reshape(-1)[flat] = reduced
        elif reduced.size:
            out[...] = reduced[0]
        return out
    return reduce


def _sparse_reduction(maximum: bool) -> Any:
    def reduce(ctx: OpKernelContext, input_indices: Any, input_values: Any, input_shape: Any, reduction_axes: Any,
               keep_dims: bool) -> list:
        out_shape, groups, group_of = _reduce_groups(ctx, input_indices, input_values, input_shape, reduction_axes,
                                                     keep_dims)
        return [groups.astype(np.int64), _group_reduce(input_values, group_of, len(groups), maximum), out_shape]
    return reduce


SparseReduceSum.kernel("CPU")(_dense_reduction(maximum=False))
SparseReduceMax.kernel("CPU")(_dense_reduction(maximum=True))
SparseReduceSumSparse.kernel("CPU")(_sparse_reduction(maximum=False))
SparseReduceMaxSparse.kernel("CPU")(_sparse_reduction(maximum=True))


def _sparse_reduction_axes(sp_input: SparseTensor, axis: Any) -> Any:
    """Every axis when `axis` is None: a constant where the rank is known, else a Range to the dense shape's size."""
    if axis is not None:
        return axis
    if sp_input.shape.ndims is not None:
        return constant_ops.constant(np.arange(sp_input.shape.ndims, dtype=np.int32))
    return sequence_ops.range(0, shape_ops.size(sp_input.dense_shape))


def _sparse_reduce(op: Op, name: str, sparse_output: bool) -> Any:
    def reduce(sp_input: Any, axis: Any = None, keepdims: Any = None, reduction_axes: Any = None,
               keep_dims: Any = None) -> Any:
        keepdims = _deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims)
        axis = _deprecated_alias("axis", axis, "reduction_axes", reduction_axes)
        sp_input = _convert_to_sparse_tensor(sp_input)
        result = op(sp_input.indices, sp_input.values, sp_input.dense_shape, _sparse_reduction_axes(sp_input, axis),
                    keep_dims=bool(keepdims))
        return SparseTensor(*result) if sparse_output else result
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = (f"`tf.{name}`: the {'sums' if 'sum' in name else 'maxima'} of the present entries over "
                      f"`axis` (every axis by default), {'as a SparseTensor of the non-empty groups' if sparse_output else 'dense'}.")
    short = name.replace("sparse_", "", 1)
    return tf_export(f"sparse.{short}", name)(reduce)


sparse_reduce_sum = _sparse_reduce(SparseReduceSum, "sparse_reduce_sum", False)
sparse_reduce_max = _sparse_reduce(SparseReduceMax, "sparse_reduce_max", False)
sparse_reduce_sum_sparse = _sparse_reduce(SparseReduceSumSparse, "sparse_reduce_sum_sparse", True)
sparse_reduce_max_sparse = _sparse_reduce(SparseReduceMaxSparse, "sparse_reduce_max_sparse", True)


# -- SparseTensorDenseMatMul -----------------------------------------------------------------------------

SparseTensorDenseMatMul = Op("SparseTensorDenseMatMul", inputs=["a_indices: Tindices", "a_values: T", "a_shape: int64",
                                                                "b: T"],
                             outputs=["product: T"],
                             attrs=["T: type", f"Tindices: {_INDEX_TYPES} = DT_INT64", "adjoint_a: bool = false",
                                    "adjoint_b: bool = false"])


@SparseTensorDenseMatMul.shape
def _sparse_tensor_dense_matmul_shape(ctx: InferenceContext) -> list[_Shape]:
    with_rank(ctx.input_shape(0), 2)
    with_rank(ctx.input_shape(1), 1)
    a = with_rank(ctx.input_as_shape(2), 2).as_list()
    b = with_rank(ctx.input_shape(3), 2).as_list()
    if ctx.attr("adjoint_a"):
        a = a[::-1]
    if ctx.attr("adjoint_b"):
        b = b[::-1]
    if a[1] is not None and b[0] is not None and a[1] != b[0]:
        raise ValueError(f"Dimensions must be equal, but are {a[1]} and {b[0]}")
    return [_Shape([a[0], b[1]])]


@SparseTensorDenseMatMul.kernel("CPU", expensive=True)
def _sparse_tensor_dense_matmul(ctx: OpKernelContext, a_indices: Any, a_values: Any, a_shape: Any, b: Any,
                                adjoint_a: bool, adjoint_b: bool) -> Any:
    if a_shape.ndim != 1:
        raise invalid_argument(ctx, "Tensor 'a_shape' is not a vector")
    if a_shape.shape[0] != 2:
        raise invalid_argument(ctx, "Tensor 'a_shape' must have 2 elements")
    if a_values.ndim != 1:
        raise invalid_argument(ctx, "Tensor 'a_values' is not a vector")
    if a_indices.ndim != 2:
        raise invalid_argument(ctx, "Tensor 'a_indices' is not a matrix")
    if b.ndim != 2:
        raise invalid_argument(ctx, "Tensor 'b' is not a matrix")
    if a_indices.shape[0] != a_values.shape[0]:
        raise invalid_argument(ctx, "Number of rows of a_indices does not match number of entries in a_values")
    if a_indices.shape[1] != 2:
        raise invalid_argument(ctx, "Number of columns of a_indices does not match number of entries in a_shape")
    rows_side, inner_side = (1, 0) if adjoint_a else (0, 1)
    m, k = int(a_shape[rows_side]), int(a_shape[inner_side])
    b_inner, n = (b.shape[1], b.shape[0]) if adjoint_b else b.shape
    if k != b_inner:
        raise invalid_argument(ctx, f"Cannot multiply A and B because inner dimension does not match: {k} vs. "
                                    f"{b_inner}.  Did you forget a transpose?  Dimensions of A: "
                                    f"[{a_shape[0]}, {a_shape[1]}).  Dimensions of B: {_shape_string(b.shape)}")
    rows, cols = a_indices[:, rows_side], a_indices[:, inner_side]
    bad_k, bad_m = (cols < 0) | (cols >= k), (rows < 0) | (rows >= m)
    for i in np.flatnonzero(bad_k | bad_m)[:1]:
        if bad_k[i]:
            raise invalid_argument(ctx, f"k ({cols[i]}) from index[{i},{inner_side}] out of bounds (>={k})")
        raise invalid_argument(ctx, f"m ({rows[i]}) from index[{i},{rows_side}] out of bounds (>={m})")
    values = np.conj(a_values) if adjoint_a else a_values
    b = np.conj(b.T) if adjoint_b else b
    contributions = in_float32(values)[:, None] * in_float32(b)[cols]
    out = np.zeros((m, n), dtype=contributions.dtype)
    order = np.argsort(rows, kind="stable")
    starts = _new_rows(rows[order][:, None])
    if order.size:
        out[rows[order][starts]] = np.add.reduceat(contributions[order], np.flatnonzero(starts), axis=0)
    return out.astype(a_values.dtype, copy=False)


@tf_export("sparse.sparse_dense_matmul", "sparse.matmul", "sparse_tensor_dense_matmul")
def sparse_tensor_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False,
                               name: str | None = None) -> Tensor:
    """`tf.sparse.sparse_dense_matmul`: the dense product of a sparse and a dense matrix (either side sparse:
    a dense times a sparse one is the transpose of the product the other way round)."""
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        if adjoint_a != adjoint_b:
            return manipulation_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return manipulation_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_a,
                                                                     adjoint_b=not adjoint_b))
    sp_a = _convert_to_sparse_tensor(sp_a)
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]) as name:
        b = convert_to_tensor(b, name="b")
        return SparseTensorDenseMatMul(sp_a.indices, sp_a.values, sp_a.dense_shape, b, adjoint_a=adjoint_a,
                                       adjoint_b=adjoint_b)


# -- SparseSoftmax, SparseSparseMaximum/Minimum ----------------------------------------------------------

SparseSoftmax = Op("SparseSoftmax", inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64"],
                   outputs=["output: T"], attrs=["T: {half, float, double}"])


@SparseSoftmax.shape
def _sparse_softmax_shape(ctx: InferenceContext) -> list[_Shape]:
    _matrix(ctx.input_shape(0))
    values = with_rank(ctx.input_shape(1), 1)
    _vector(ctx.input_shape(2))
    return [values]


@SparseSoftmax.kernel("CPU")
def _sparse_softmax(ctx: OpKernelContext, sp_indices: Any, sp_values: Any, sp_shape: Any) -> Any:
    """A softmax over each group of entries sharing all but the last index, in the indices' sorted order."""
    _check_sparse(ctx, sp_indices, sp_values, sp_shape, ("sp_indices", "sp_values", "sp_shape"))
    if sp_shape.shape[0] < 2:
        raise invalid_argument(ctx, "Input should have rank >= 2, but received shape: "  # the shape's values
                                    f"{' '.join(map(str, np.asarray(sp_shape).reshape(-1)[:10].tolist()))}")
    if sp_values.size == 0:
        return sp_values.copy()
    _, group_of = np.unique(sp_indices[:, :-1], axis=0, return_inverse=True)
    group_of = group_of.reshape(-1)
    values = sp_values.astype(np.float64)  # float64 inside, as TF's rounding of the quotients shows
    peak = np.full(group_of.max() + 1, -np.inf, dtype=values.dtype)
    np.maximum.at(peak, group_of, values)
    exp = np.exp(values - peak[group_of])
    total = np.zeros_like(peak)
    np.add.at(total, group_of, exp)
    # TF's kernel reorders the entries and writes the values in that sorted order, whatever order the indices have
    order = np.lexsort(sp_indices.T[::-1])
    return (exp / total[group_of])[order].astype(sp_values.dtype, copy=False)


@tf_export("sparse.softmax", "sparse_softmax")
def sparse_softmax(sp_input: Any, name: str | None = None) -> SparseTensor:
    """`tf.sparse.softmax`: softmax over the last dimension's present entries; missing ones count as -inf."""
    with name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        values = SparseSoftmax(sp_input.indices, sp_input.values, sp_input.dense_shape)
        return SparseTensor(sp_input.indices, values, sp_input.dense_shape)


_BINARY_INPUTS = ["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64", "b_values: T",
                  "b_shape: int64"]
SparseSparseMaximum = Op("SparseSparseMaximum", inputs=_BINARY_INPUTS,
                         outputs=["output_indices: int64", "output_values: T"], attrs=["T: realnumbertype"])
SparseSparseMinimum = Op("SparseSparseMinimum", inputs=_BINARY_INPUTS,
                         outputs=["output_indices: int64", "output_values: T"], attrs=["T: numbertype"])


@SparseSparseMaximum.shape
@SparseSparseMinimum.shape
def _sparse_sparse_binary_shape(ctx: InferenceContext) -> list[_Shape]:
    return [_Shape([None, None]), _Shape([None])]


def _sparse_sparse_binary(fn: Any) -> Any:
    def binary(ctx: OpKernelContext, a_indices: Any, a_values: Any, a_shape: Any, b_indices: Any, b_values: Any,
               b_shape: Any) -> list:
        """`fn` of both operands over the union of their entries, a missing entry counting as zero."""
        indices, from_a, from_b = _union(ctx, a_indices, a_shape, b_indices, b_shape)
        _check_bounds(ctx, a_indices, a_shape)  # TF validates both (unordered) after the shapes
        _check_bounds(ctx, b_indices, b_shape)
        zero = np.zeros((), dtype=a_values.dtype)
        a = np.where(from_a >= 0, a_values[from_a] if a_values.size else zero, zero)
        b = np.where(from_b >= 0, b_values[from_b] if b_values.size else zero, zero)
        return [indices, fn(a, b).astype(a_values.dtype, copy=False)]
    return binary


SparseSparseMaximum.kernel("CPU")(_sparse_sparse_binary(np.maximum))
SparseSparseMinimum.kernel("CPU")(_sparse_sparse_binary(np.minimum))


def _sparse_sparse(op: Op, name: str) -> Any:
    def binary(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
        with name_scope(name, op.name, [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]) as name:
            indices, values = op(sp_a.indices, sp_a.values, sp_a.dense_shape, sp_b.indices, sp_b.values,
                                 sp_b.dense_shape, name=name)
            return SparseTensor(indices, values, sp_a.dense_shape)
    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"`tf.sparse.{name}`: the element-wise {name} of two sparse tensors of one shape."
    return tf_export(f"sparse.{name}", f"sparse_{name}")(binary)


sparse_maximum = _sparse_sparse(SparseSparseMaximum, "maximum")
sparse_minimum = _sparse_sparse(SparseSparseMinimum, "minimum")


# -- SparseDenseCwiseMul/Div/Add, and SparseTensor's `*` and `/` -----------------------------------------

_CWISE_INPUTS = ["sp_indices: int64", "sp_values: T", "sp_shape: int64", "dense: T"]


_CWISE_KERNEL_TYPES = {"T": tuple(dtypes.as_dtype(n) for n in (
    "float64", "float32", "bfloat16", "float16", "int32", "int8", "uint8", "int16", "uint16", "uint32", "int64",
    "uint64"))}  # TF registers no complex kernels for these ops (listed in its registry's order)


def _cwise_op(name: str, fn: Any, divides: bool = False) -> Op:
    """`divides`: a zero among the dense values an entry meets fails, as TF's division kernel checks."""
    op = Op(name, inputs=_CWISE_INPUTS, outputs=["output: T"], attrs=["T: numbertype"])

    @op.shape
    def _cwise_shape(ctx: InferenceContext) -> list[_Shape]:
        return [_Shape([_dim(with_rank(ctx.input_shape(0), 2), 0)])]

    @op.kernel("CPU", type_constraints=_CWISE_KERNEL_TYPES)
    def _cwise(ctx: OpKernelContext, sp_indices: Any, sp_values: Any, sp_shape: Any, dense: Any) -> Any:
        """`fn` of each present entry and the dense operand broadcast to the sparse shape (never the other way)."""
        _check_sparse(ctx, sp_indices, sp_values, sp_shape, ("sp_indices", "sp_values", "sp_shape"))
        shape = tuple(int(d) for d in sp_shape)
        if dense.ndim > len(shape) or any(d not in (1, s) for d, s in zip(dense.shape[::-1], shape[::-1])):
            raise invalid_argument(ctx, "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                                        f"shapes: {_shape_string(shape)} vs. {_shape_string(dense.shape)}")
        if np.any((sp_indices < 0) | (sp_indices >= np.array(shape, dtype=np.int64))):
            raise invalid_argument(ctx, "Provided indices are out-of-bounds w.r.t. dense side with broadcasted "
                                        "shape")
        gathered = np.broadcast_to(dense, shape)[tuple(sp_indices.T)]
        if divides and np.any(gathered == 0):
            raise invalid_argument(ctx, "SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains "
                                        "zero ")
        return fn(sp_values, gathered).astype(sp_values.dtype, copy=False)

    return op


def _divide(x: Any, y: Any) -> Any:
    return c_division(x, y) if np.issubdtype(x.dtype, np.integer) else x / y


SparseDenseCwiseMul = _cwise_op("SparseDenseCwiseMul", np.multiply)
SparseDenseCwiseDiv = _cwise_op("SparseDenseCwiseDiv", _divide, divides=True)
SparseDenseCwiseAdd = _cwise_op("SparseDenseCwiseAdd", np.add)


def _sparse_dense_operator(op: Op, op_name: str) -> Any:
    def operator(sp_x: SparseTensor, y: Any) -> SparseTensor:
        with name_scope(None, op_name, [sp_x, y]) as name:
            y = convert_to_tensor(y, dtype=sp_x.dtype.base_dtype, name="y")
            return SparseTensor(sp_x.indices, op(sp_x.indices, sp_x.values, sp_x.dense_shape, y, name=name),
                                sp_x.dense_shape)
    return operator


SparseTensor.__mul__ = _sparse_dense_operator(SparseDenseCwiseMul, "mul")
SparseTensor.__div__ = _sparse_dense_operator(SparseDenseCwiseDiv, "div")


def _sparse_dense_truediv(sp_x: SparseTensor, y: Any) -> SparseTensor:
    """`sp_x / y` in Python 3's sense: integer values and `y` are cast to a float type first, as dense `/`."""
    with name_scope(None, "truediv", [sp_x, y]) as name:
        y = convert_to_tensor(y, dtype=sp_x.dtype.base_dtype, name="y")
        values, y = elementwise_ops._division_operands(sp_x.values, y, "__truediv__")
        return SparseTensor(sp_x.indices, SparseDenseCwiseDiv(sp_x.indices, values, sp_x.dense_shape, y, name=name),
                            sp_x.dense_shape)


SparseTensor.__truediv__ = _sparse_dense_truediv


# -- placeholders, eye, from_dense -----------------------------------------------------------------------

@tf_export("sparse.placeholder", "sparse_placeholder")
def sparse_placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> SparseTensor:
    """`tf.sparse_placeholder`: a SparseTensor of three placeholders, fed a SparseTensorValue. A given shape
    becomes the default of a feedable dense shape and the static shape (-1 or None dims unknown)."""
    def named(suffix: str) -> str | None:
        return None if name is None else f"{name}/{suffix}"

    if shape is None:
        rank = None
        dense_shape = constant_ops.placeholder(dtypes.int64, shape=[rank], name=named("shape"))
        static_shape = tensor_util.constant_value_as_shape(dense_shape)
    else:
        if isinstance(shape, Tensor):
            rank = shape.shape.as_list()[0]
            static_shape = tensor_util.constant_value_as_shape(shape)
        else:
            rank = len(shape)
            static_shape = _Shape([None if d == -1 else d for d in shape])
            dims = [tensor_shape.dimension_value(d) for d in shape]
            shape = constant_ops.constant([-1 if d is None else d for d in dims], dtype=dtypes.int64,
                                          name=named("shape_default"))
        dense_shape = constant_ops.placeholder_with_default(shape, shape=shape.shape, name=named("shape"))
    result = SparseTensor(values=constant_ops.placeholder(dtype, shape=[None], name=named("values")),
                          indices=constant_ops.placeholder(dtypes.int64, shape=[None, rank], name=named("indices")),
                          dense_shape=dense_shape)
    result._dense_shape_default = static_shape
    return result


@tf_export("sparse.eye")
def sparse_eye(num_rows: Any, num_columns: Any = None, dtype: Any = dtypes.float32,
               name: str | None = None) -> SparseTensor:
    """`tf.sparse.eye`: a sparse identity matrix of `num_rows` rows (and as many columns by default)."""
    with name_scope(name, default_name="eye", values=[num_rows, num_columns]):
        num_rows = cast_ops.cast(convert_to_tensor(num_rows, name="num_rows"), dtypes.int64)
        num_columns = num_rows if num_columns is None else cast_ops.cast(
            convert_to_tensor(num_columns, name="num_columns"), dtypes.int64)
        diag_size = elementwise_ops.minimum(num_rows, num_columns)
        diag_range = sequence_ops.range(diag_size, dtype=dtypes.int64)
        return SparseTensor(indices=manipulation_ops.stack([diag_range, diag_range], axis=1),
                            values=fill_ops.ones(diag_size, dtype=dtype),
                            dense_shape=[num_rows, num_columns])


@tf_export("sparse.from_dense")
def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """`tf.sparse.from_dense`: the non-zero entries of a dense tensor (non-empty strings for strings)."""
    with name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        indices = indexing_ops.where(elementwise_ops.not_equal(tensor, fill_ops.zeros_like(tensor)))
        values = indexing_ops.gather_nd(tensor, indices)
        shape = shape_ops.shape(tensor, out_type=dtypes.int64)
        return SparseTensor(indices, values, shape)


# -- The value gradients' ops: SparseAddGrad, SparseSliceGrad, SparseFillEmptyRowsGrad ----------------------


def _positions_in(rows: Any, table: Any) -> Any:
    """For each index row of `rows`, its position among the rows of `table` (-1 where absent)."""
    if rows.shape[0] == 0 or table.shape[0] == 0:
        return np.full(rows.shape[0], -1, np.int64)
    _, group = np.unique(np.concatenate([table, rows]).astype(np.int64), axis=0, return_inverse=True)
    group = group.reshape(-1)
    lookup = np.full(int(group.max()) + 1, -1, np.int64)
    lookup[group[:table.shape[0]][::-1]] = np.arange(table.shape[0])[::-1]
    return lookup[group[table.shape[0]:]]


def _gathered_or_zero(grad: Any, positions: Any) -> Any:
    return np.where(positions >= 0, grad[np.maximum(positions, 0)] if grad.size else 0, 0).astype(grad.dtype)


SparseAddGrad = Op("SparseAddGrad", inputs=["backprop_val_grad: T", "a_indices: int64", "b_indices: int64",
                                            "sum_indices: int64"], outputs=["a_val_grad: T", "b_val_grad: T"],
                   attrs=["T: numbertype"])
NotDifferentiable("SparseAddGrad")  # as TF's


@SparseAddGrad.shape
def _sparse_add_grad_shape(ctx: InferenceContext) -> list[_Shape]:
    return [_Shape([_matrix(ctx.input_shape(1))[0]]), _Shape([_matrix(ctx.input_shape(2))[0]])]


@SparseAddGrad.kernel("CPU")
def _sparse_add_grad(ctx: OpKernelContext, backprop_val_grad: Any, a_indices: Any, b_indices: Any,
                     sum_indices: Any) -> list:
    """Each operand entry takes the gradient of the sum entry at its index (0 where the sum dropped it)."""
    for name, matrix in (("a_indices", a_indices), ("b_indices", b_indices), ("sum_indices", sum_indices)):
        _require(ctx, matrix, 2, f"Input {name} should be a matrix but received shape: ")
    if backprop_val_grad.ndim != 1 or backprop_val_grad.shape[0] != sum_indices.shape[0]:
        raise invalid_argument(ctx, "The backprop_val_grad must be a vector with as many entries as sum_indices "
                                    f"has rows: got {_shape_string(backprop_val_grad.shape)} and "
                                    f"{_shape_string(sum_indices.shape)}")
    return [_gathered_or_zero(backprop_val_grad, _positions_in(a_indices, sum_indices)),
            _gathered_or_zero(backprop_val_grad, _positions_in(b_indices, sum_indices))]


SparseSliceGrad = Op("SparseSliceGrad", inputs=["backprop_val_grad: T", "input_indices: int64", "input_start: int64",
                                                "output_indices: int64"], outputs=["val_grad: T"],
                     attrs=["T: numbertype"])


@SparseSliceGrad.shape
def _sparse_slice_grad_shape(ctx: InferenceContext) -> list[_Shape]:
    return [_Shape([_matrix(ctx.input_shape(1))[0]])]


@SparseSliceGrad.kernel("CPU")
def _sparse_slice_grad(ctx: OpKernelContext, backprop_val_grad: Any, input_indices: Any, input_start: Any,
                       output_indices: Any) -> Any:
    """Each input entry takes the gradient of the sliced entry it became (0 outside the slice)."""
    _require(ctx, input_indices, 2, "Input indices should be a matrix but received shape: ")
    _require(ctx, output_indices, 2, "Output indices should be a matrix but received shape: ")
    _require(ctx, input_start, 1, "The input_start should be a vector but received shape ")
    if backprop_val_grad.shape[:1] != output_indices.shape[:1]:
        raise invalid_argument(ctx, f"backprop_val_grad has {backprop_val_grad.shape[0]} entries, output_indices "
                                    f"{output_indices.shape[0]}")
    return _gathered_or_zero(backprop_val_grad, _positions_in(input_indices, output_indices + input_start))


SparseFillEmptyRowsGrad = Op("SparseFillEmptyRowsGrad", inputs=["reverse_index_map: int64", "grad_values: T"],
                             outputs=["d_values: T", "d_default_value: T"], attrs=["T: type"])


RaggedFillEmptyRowsGrad = Op("RaggedFillEmptyRowsGrad", inputs=["reverse_index_map: int64", "grad_values: T"],
                             outputs=["d_values: T", "d_default_value: T"], attrs=["T: type"])


@tf_export("ragged_fill_empty_rows_grad")
def ragged_fill_empty_rows_grad(reverse_index_map: Any, grad_values: Any, name: str | None = None) -> Any:
    return RaggedFillEmptyRowsGrad(reverse_index_map, grad_values, name=name)


@SparseFillEmptyRowsGrad.shape
@RaggedFillEmptyRowsGrad.shape
def _sparse_fill_empty_rows_grad_shape(ctx: InferenceContext) -> list[_Shape]:
    _vector(ctx.input_shape(1))
    return [with_rank(ctx.input_shape(0), 1), _Shape([])]


@SparseFillEmptyRowsGrad.kernel("CPU")
@RaggedFillEmptyRowsGrad.kernel("CPU")
def _sparse_fill_empty_rows_grad(ctx: OpKernelContext, reverse_index_map: Any, grad_values: Any) -> list:
    """Each input value takes the gradient of the output entry it moved to; the default value the rest."""
    _require(ctx, reverse_index_map, 1, "reverse_index_map must be a vector, saw: ")
    _require(ctx, grad_values, 1, "grad_values must be a vector, saw: ")
    bad = (reverse_index_map < 0) | (reverse_index_map >= grad_values.shape[0])
    for i in np.flatnonzero(bad)[:1]:
        raise invalid_argument(ctx, f"Elements in reverse index must be in [0, {grad_values.shape[0]}) but got "
                                    f"{reverse_index_map[i]}")
    moved = np.zeros(grad_values.shape[0], bool)
    moved[reverse_index_map] = True
    return [grad_values[reverse_index_map], grad_values[~moved].sum(dtype=grad_values.dtype)]


# -- Gradients ---------------------------------------------------------------------------------------------
# TF's sparse_grad: the value gradients of the ops above (indices and shapes are not differentiable).


@SparseToDense.gradient
def _sparse_to_dense_grad(op: Any, grad: Tensor) -> list:
    """Each value gets the gradient at its index; the default value the rest of the sum."""
    sparse_indices, output_shape = op.inputs[0], op.inputs[1]
    values_grad = indexing_ops.gather_nd(grad, sparse_indices)
    default_grad = reduction_ops.reduce_sum(grad) - reduction_ops.reduce_sum(values_grad)
    return [fill_ops.zeros_like(sparse_indices), fill_ops.zeros_like(output_shape), values_grad, default_grad]


@SparseTensorDenseAdd.gradient
def _sparse_tensor_dense_add_grad(op: Any, grad: Tensor) -> list:
    return [None, indexing_ops.gather_nd(grad, op.inputs[0]), None, grad]


@SparseTensorDenseMatMul.gradient
def _sparse_tensor_dense_matmul_grad(op: Any, grad: Tensor) -> list:
    """dB = adj(A) . grad (through the op itself); dA at each entry (r, c) is the dot product of grad's row and
    B's column it met, with the adjoints swapping which index picks which."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    b_grad = SparseTensorDenseMatMul(a_indices, a_values, a_shape, grad, adjoint_a=not adj_a)
    if adj_b:
        b_grad = manipulation_ops.transpose(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = indexing_ops.gather(grad, cols if adj_a else rows)
    parts_b = indexing_ops.gather(manipulation_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    return [None, reduction_ops.reduce_sum(parts_a * parts_b, axis=1), None, b_grad]


@SparseReduceSum.gradient
def _sparse_reduce_sum_grad(op: Any, grad: Tensor) -> list:
    """Each value gets the gradient of the output element it was summed into."""
    sp_indices, sp_shape, axes = op.inputs[0], op.inputs[2], op.inputs[3]
    rank = shape_ops.size(sp_shape)
    axes = elementwise_ops.floormod(cast_ops.cast(shape_ops.reshape(axes, [-1]), dtypes.int32), rank)
    reduced = reduction_ops.reduce_any(indexing_ops.one_hot(axes, rank, True, False), 0)
    kept_shape = elementwise_ops.where(reduced, fill_ops.ones_like(sp_shape), sp_shape)
    scale = sp_shape // kept_shape
    return [None, indexing_ops.gather_nd(shape_ops.reshape(grad, kept_shape), sp_indices // scale), None, None]


def _sparse_dense_cwise_grad(op: Any, grad: Tensor, is_mul: bool) -> list:
    """The dense operand is broadcast to the sparse shape: each sparse value meets the dense element its
    index scales down to, and the dense gradient sums over the values that met it."""
    x_indices, x_values, x_shape, y = op.inputs
    y_shape = cast_ops.cast(shape_ops.shape(y), dtypes.int64)
    num_added_dims = shape_ops.expand_dims(shape_ops.size(x_shape) - shape_ops.size(y_shape), 0)
    augmented_y_shape = manipulation_ops.concat([fill_ops.ones(num_added_dims, dtypes.int64), y_shape], 0)
    scaled_indices = indexing_ops.slice(x_indices // (x_shape // augmented_y_shape),
                                         manipulation_ops.concat([[0], num_added_dims], 0), [-1, -1])
    dense_vals = indexing_ops.gather_nd(y, scaled_indices)
    if is_mul:
        dx, dy_val = grad * dense_vals, grad * x_values
    else:
        dx, dy_val = grad / dense_vals, grad * (-x_values / elementwise_ops.square(dense_vals))
    return [None, dx, None, raw_ops.ScatterNd(indices=scaled_indices, updates=dy_val, shape=y_shape)]


@SparseDenseCwiseMul.gradient
def _sparse_dense_cwise_mul_grad(op: Any, grad: Tensor) -> list:
    return _sparse_dense_cwise_grad(op, grad, True)


@SparseDenseCwiseDiv.gradient
def _sparse_dense_cwise_div_grad(op: Any, grad: Tensor) -> list:
    return _sparse_dense_cwise_grad(op, grad, False)


@SparseReorder.gradient
def _sparse_reorder_grad(op: Any, output_indices_grad: Any, output_values_grad: Tensor) -> list:
    """The values' gradient unpermuted: reorder the entry numbers and invert that permutation."""
    input_indices, input_shape = op.inputs[0], op.inputs[2]
    entry_indices = sequence_ops.range(shape_ops.shape(input_indices)[0])
    _, ordered_entries = SparseReorder(input_indices, entry_indices, input_shape)
    return [None, indexing_ops.gather(output_values_grad, manipulation_ops.invert_permutation(ordered_entries)),
            None]


@SparseSoftmax.gradient
def _sparse_softmax_grad(op: Any, grad: Tensor) -> list:
    """softmax's (grad - sum over the row of grad * y) * y, over each row's stored entries only."""
    indices, _, shape = op.inputs
    out_vals = op.outputs[0]
    row_sums = -SparseReduceSum(indices, out_vals * grad, shape, [-1], keep_dims=True)
    return [None, SparseDenseCwiseAdd(indices, grad, shape, row_sums) * out_vals, None]


@SparseAdd.gradient
def _sparse_add_gradient(op: Any, *grads: Any) -> list:
    """TF's _SparseAddGrad: SparseAddGrad routes the sum's value gradient back to both operands' values."""
    a_val_grad, b_val_grad = SparseAddGrad(grads[1], op.inputs[0], op.inputs[3], op.outputs[0])
    a_val_grad.set_shape(op.inputs[1].get_shape())
    b_val_grad.set_shape(op.inputs[4].get_shape())
    return [None, a_val_grad, None, None, b_val_grad, None, None]


@SparseSlice.gradient
def _sparse_slice_gradient(op: Any, *grads: Any) -> list:
    val_grad = SparseSliceGrad(grads[1], op.inputs[0], op.inputs[3], op.outputs[0])
    val_grad.set_shape(op.inputs[1].get_shape())
    return [None, val_grad, None, None, None]


@SparseFillEmptyRows.gradient
def _sparse_fill_empty_rows_gradient(op: Any, *grads: Any) -> list:
    d_values, d_default_value = SparseFillEmptyRowsGrad(op.outputs[3], grads[1])
    return [None, d_values, None, d_default_value]


@RaggedFillEmptyRows.gradient
def _ragged_fill_empty_rows_gradient(op: Any, *grads: Any) -> list:
    d_values, d_default_value = RaggedFillEmptyRowsGrad(op.outputs[3], grads[1])
    return [None, d_values, None, d_default_value]


def _not_implemented(name: str) -> Any:
    def gradient(op: Any, *grads: Any) -> list:
        """TF registers this gradient only to refuse it."""
        raise NotImplementedError(f"Gradient for {name} is not implemented.")
    return gradient


SparseSparseMaximum.gradient(_not_implemented("SparseSparseMaximum"))
SparseSparseMinimum.gradient(_not_implemented("SparseSparseMinimum"))
