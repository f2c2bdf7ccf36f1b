"""Counting ops with sparse output: DenseCountSparseOutput and SparseCountSparseOutput (`tf.sparse.bincount`).

The counts of each value (per batch row for 2-D input), or the sums of their weights, as a SparseTensor whose
indices are sorted by row then value: one `np.unique` over (row, value) keys and one weighted `np.bincount`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops import check_ops
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.manipulation_ops import identity
from tensorweave.ops.shape_ops import reshape
from tensorweave.platform.tf_export import tf_export

_ATTRS = ["T: {int32, int64}", "minlength: int >= -1 = -1", "maxlength: int >= -1 = -1", "binary_output: bool",
          "output_type: {int32, int64, float, double}"]
_OUTPUTS = ["output_indices: int64", "output_values: output_type", "output_dense_shape: int64"]


def _count(ctx: OpKernelContext, rows: np.ndarray, values: np.ndarray, weights: np.ndarray | None, batch: int | None,
           minlength: int, maxlength: int, binary_output: bool, output_type: dtypes.DType) -> list:
    """The sparse counts of `values` (in `rows` of `batch`, or one vector when `batch` is None)."""
    if values.size and values.min() < 0:
        raise invalid_argument(ctx, "Input values must all be non-negative")
    size = maxlength if maxlength >= 0 else max(int(values.max()) + 1 if values.size else 1, minlength)
    kept = values < size
    rows, values = rows[kept], values[kept].astype(np.int64)
    keys, inverse = np.unique(rows * size + values, return_inverse=True)
    np_type = output_type.as_numpy_dtype
    if binary_output:
        counts = np.ones(keys.size, np_type)
    elif weights is not None:
        counts = np.bincount(inverse, weights=weights[kept], minlength=keys.size).astype(np_type)
    else:
        counts = np.bincount(inverse, minlength=keys.size).astype(np_type)
    if batch is None:
        return [(keys % size).reshape(-1, 1), counts, np.array([size], np.int64)]
    return [np.stack([keys // size, keys % size], axis=1), counts, np.array([batch, size], np.int64)]


def _count_shape(rank_input: int) -> Any:
    def shape_fn(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        rank = ctx.input_shape(rank_input)
        columns = rank.dims[0] if rank_input == 2 else rank.ndims
        return [tensor_shape.TensorShape([None, columns]), tensor_shape.TensorShape([None]),
                tensor_shape.TensorShape([columns])]
    return shape_fn


DenseCountSparseOutput = Op("DenseCountSparseOutput", inputs=["values: T", "weights: output_type"],
                            outputs=_OUTPUTS, attrs=_ATTRS)
DenseCountSparseOutput.shape(_count_shape(0))
NotDifferentiable("DenseCountSparseOutput")


@DenseCountSparseOutput.kernel("CPU")
def _dense_count(ctx: OpKernelContext, values: Any, weights: Any, T: dtypes.DType, minlength: int,  # noqa: N803
                 maxlength: int, binary_output: bool, output_type: dtypes.DType) -> list:
    """Counts of a vector, or of each row of a matrix; `weights` empty or shaped as `values`."""
    if values.ndim not in (1, 2):
        raise invalid_argument(ctx, f"Input must be a 1 or 2-dimensional tensor. Got: {values.ndim}")
    if weights.size and weights.shape != values.shape:
        raise invalid_argument(ctx, f"Weights and values must have the same shape. Weight shape: "
                                    f"{list(weights.shape)}; values shape: {list(values.shape)}")
    rows = np.repeat(np.arange(values.shape[0]), values.shape[1]) if values.ndim == 2 else np.zeros(values.size, int)
    return _count(ctx, rows, values.reshape(-1), weights.reshape(-1) if weights.size else None,
                  values.shape[0] if values.ndim == 2 else None, minlength, maxlength, binary_output, output_type)


SparseCountSparseOutput = Op("SparseCountSparseOutput",
                             inputs=["indices: int64", "values: T", "dense_shape: int64", "weights: output_type"],
                             outputs=_OUTPUTS, attrs=_ATTRS)
SparseCountSparseOutput.shape(_count_shape(2))
NotDifferentiable("SparseCountSparseOutput")


@SparseCountSparseOutput.kernel("CPU")
def _sparse_count(ctx: OpKernelContext, indices: Any, values: Any, dense_shape: Any, weights: Any,
                  T: dtypes.DType, minlength: int, maxlength: int, binary_output: bool,  # noqa: N803
                  output_type: dtypes.DType) -> list:
    """Counts of a sparse vector's values, or of each row's of a sparse matrix."""
    if weights.size and weights.shape != values.shape:
        raise invalid_argument(ctx, f"Weights and values must have the same shape. Weight shape: "
                                    f"{list(weights.shape)}; values shape: {list(values.shape)}")
    batched = dense_shape.size == 2
    rows = indices[:, 0] if batched else np.zeros(values.size, int)
    return _count(ctx, rows, values, weights if weights.size else None, int(dense_shape[0]) if batched else None,
                  minlength, maxlength, binary_output, output_type)


@tf_export("sparse.bincount")
def bincount(values: Any, weights: Any = None, axis: int | None = 0, minlength: int | None = None,
             maxlength: int | None = None, binary_output: bool = False, name: str | None = None) -> SparseTensor:
    """How often each value occurs (or the sum of its weights, or 1 with `binary_output`), over all of
    `values` (`axis=0`) or per row of a 2-D input (`axis=-1`), as a SparseTensor; TF's checks: weights of a
    SparseTensor are a SparseTensor with its indices and dense shape (asserted when run), else a Tensor."""
    with name_scope(name, "count", [values, weights]):
        if not isinstance(values, SparseTensor):
            values = convert_to_tensor(values, name="values")
        if weights is not None and not isinstance(weights, SparseTensor):
            weights = convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only "
                             "one.")
        axis = 0 if axis is None else axis
        if axis not in (0, -1):
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
        attrs = dict(minlength=-1 if minlength is None else minlength,
                     maxlength=-1 if maxlength is None else maxlength, binary_output=binary_output)
        if axis == 0:
            if isinstance(values, SparseTensor):
                if weights is not None:
                    weights = _sparse_weights(values, weights)
                values = values.values
            else:
                if weights is not None:
                    weights = reshape(weights, [-1])
                values = reshape(values, [-1])
        if isinstance(values, SparseTensor):
            outputs = SparseCountSparseOutput(values.indices, values.values, values.dense_shape,
                                              _sparse_weights(values, weights), **attrs)
        else:
            if weights is None:
                weights = convert_to_tensor([], dtype=values.dtype)
            elif not isinstance(weights, Tensor):
                raise ValueError(f"Argument `weights` must be a tf.Tensor if `values` is a tf.Tensor. Received "
                                 f"weights={weights} of type: {type(weights).__name__}")
            outputs = DenseCountSparseOutput(values, weights, **attrs)
        return SparseTensor(*outputs)


def _sparse_weights(values: SparseTensor, weights: Any) -> Tensor:
    """TF's validate_sparse_weights: the weights' values (empty without weights), asserted when run to share
    `values`' dense shape and indices unless they are the same tensors."""
    if weights is None:
        return convert_to_tensor([], dtype=values.values.dtype)
    if not isinstance(weights, SparseTensor):
        raise ValueError(f"Argument `weights` must be a SparseTensor if `values` is a SparseTensor. Received "
                         f"weights={weights} of type: {type(weights).__name__}")
    checks = []
    if weights.dense_shape is not values.dense_shape:
        checks.append(check_ops.assert_equal(weights.dense_shape, values.dense_shape,
                                             message="'weights' and 'values' must have the same dense shape."))
    if weights.indices is not values.indices:
        checks.append(check_ops.assert_equal(weights.indices, values.indices,
                                             message="'weights' and 'values' must have the same indices."))
    if not checks:
        return weights.values
    with control_dependencies(checks):
        return identity(weights.values)
