"""Feature crosses: SparseCross and SparseCrossV2 (`tf.sparse.cross`, `tf.sparse.cross_hashed`).

Each batch row's cross is the Cartesian product of that row's features in every input (sparse inputs first,
then dense, each in the order given; the last input varies fastest), as strings joined by a separator or as
TF's nested fingerprint hash (FarmHash Fingerprint64 of strings, combined with FingerprintCat64), so hashed
crosses are the same buckets TF computes. The product is enumerated with index arithmetic over all rows at
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.string_ops import fingerprint64
from tensorweave.platform.tf_export import tf_export

_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_MUL = np.uint64(0xC6A4A7935BD1E995)
_MASK64 = (1 << 64) - 1


def _shift_mix(v: np.ndarray) -> np.ndarray:
    return v ^ (v >> np.uint64(47))


def fingerprint_cat64(fp1: np.ndarray, fp2: np.ndarray) -> np.ndarray:
    """TF's FingerprintCat64 of two arrays of 64-bit fingerprints (wrapping uint64 arithmetic)."""
    result = fp1 ^ _MUL
    result = result ^ (_shift_mix(fp2 * _MUL) * _MUL)
    result = result * _MUL
    result = _shift_mix(result) * _MUL
    return _shift_mix(result)


def _columns(ctx: OpKernelContext, indices: Sequence[np.ndarray], values: Sequence[np.ndarray],
             shapes: Sequence[np.ndarray], dense_inputs: Sequence[np.ndarray]) -> tuple[int, list]:
    """The batch size and, per input, (features per row, each row's first feature, the flat features)."""
    for i, (index, value, dense_shape) in enumerate(zip(indices, values, shapes)):
        if index.ndim != 2 or index.shape[-1:] != (2,) or value.ndim != 1 or dense_shape.shape != (2,):
            raise invalid_argument(ctx, f"Sparse input {i} should be a 2-D SparseTensor: indices [N, 2], values [N] "
                                        f"and shape [2]; got indices {list(index.shape)}, values "
                                        f"{list(value.shape)}, shape {list(dense_shape.shape)}")
    for i, dense in enumerate(dense_inputs):
        if dense.ndim != 2:
            raise invalid_argument(ctx, f"Dense inputs should be a matrix but received shape {list(dense.shape)} "
                                        f"at position {i}")
    batches = [int(s[0]) for s in shapes] + [d.shape[0] for d in dense_inputs]
    batch = batches[0] if batches else 0
    for size in batches[1:]:
        if size != batch:
            raise invalid_argument(ctx, f"Expected batch size {batch} got {size}")
    columns = []
    for index, value in zip(indices, values):
        counts = np.bincount(index[:, 0], minlength=batch)[:batch] if index.size else np.zeros(batch, np.int64)
        columns.append((counts, np.cumsum(counts) - counts, value))
    for dense in dense_inputs:
        width = dense.shape[1]
        columns.append((np.full(batch, width, np.int64), np.arange(batch) * width, dense.reshape(-1)))
    return batch, columns


def _cross_features(batch: int, columns: list) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(row of each cross, its position in the row, each input's feature in it), all rows at once."""
    counts = np.stack([c[0] for c in columns]) if columns else np.zeros((0, batch), np.int64)
    totals = np.prod(counts, axis=0, dtype=np.int64) if columns else np.zeros(batch, np.int64)
    rows = np.repeat(np.arange(batch), totals)
    positions = np.arange(totals.sum()) - np.repeat(np.cumsum(totals) - totals, totals)
    strides = np.cumprod(counts[::-1], axis=0)[::-1]  # features after each input, itself included
    features = []
    for k, (count, start, flat) in enumerate(columns):
        after = strides[k + 1][rows] if k + 1 < len(columns) else 1
        features.append(flat[start[rows] + (positions // after) % count[rows]])
    return rows, positions, features


def _as_bytes(feature: np.ndarray) -> np.ndarray:
    if feature.dtype == object:
        return feature
    return np.asarray(np.frompyfunc(lambda v: str(v).encode(), 1, 1)(feature), dtype=object).reshape(-1)


def _as_fingerprints(feature: np.ndarray) -> np.ndarray:
    if feature.dtype == object:
        return np.asarray(np.frompyfunc(fingerprint64, 1, 1)(feature), dtype=np.uint64).reshape(-1)
    return feature.astype(np.int64).view(np.uint64)


def _crossed(ctx: OpKernelContext, indices: Sequence[np.ndarray], values: Sequence[np.ndarray],
             shapes: Sequence[np.ndarray], dense_inputs: Sequence[np.ndarray], cross: Any) -> list:
    batch, columns = _columns(ctx, indices, values, shapes, dense_inputs)
    rows, positions, features = _cross_features(batch, columns)
    width = int(np.bincount(rows, minlength=batch).max()) if rows.size else 0
    return [np.stack([rows, positions], axis=1).astype(np.int64).reshape(-1, 2), cross(features, rows.size),
            np.array([batch, width], np.int64)]


def _join(features: list[np.ndarray], count: int, separator: bytes) -> np.ndarray:
    if not features:
        return np.zeros(count, object)
    joined = _as_bytes(features[0])
    for feature in features[1:]:
        joined = joined + separator + _as_bytes(feature)
    return np.asarray(joined, dtype=object)


def _hash(features: list[np.ndarray], count: int, num_buckets: int, hash_key: int) -> np.ndarray:
    hashed = np.full(count, hash_key & _MASK64, np.uint64)
    for feature in features:
        hashed = fingerprint_cat64(hashed, _as_fingerprints(feature))
    return (hashed % np.uint64(num_buckets if num_buckets > 0 else (1 << 63) - 1)).astype(np.int64)


def _cross_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([None, 2]), tensor_shape.TensorShape([None]), tensor_shape.TensorShape([2])]


_INPUTS = ["indices: N * int64", "values: sparse_types", "shapes: N * int64", "dense_inputs: dense_types"]
_TYPES = ["N: int >= 0", "sparse_types: list({int64, string}) >= 0", "dense_types: list({int64, string}) >= 0"]

SparseCross = Op("SparseCross", inputs=_INPUTS,
                 outputs=["output_indices: int64", "output_values: out_type", "output_shape: int64"],
                 attrs=["N: int >= 0", "hashed_output: bool", "num_buckets: int >= 0", "hash_key: int",
                        "sparse_types: list({int64, string}) >= 0", "dense_types: list({int64, string}) >= 0",
                        "out_type: {int64, string}", "internal_type: {int64, string}"])
SparseCross.shape(_cross_shape)
NotDifferentiable("SparseCross")


@SparseCross.kernel("CPU")
def _sparse_cross(ctx: OpKernelContext, *inputs: Any, N: int, hashed_output: bool, num_buckets: int,  # noqa: N803
                  hash_key: int, sparse_types: Sequence[dtypes.DType], dense_types: Sequence[dtypes.DType],
                  out_type: dtypes.DType, internal_type: dtypes.DType) -> list:
    """Crosses as `_X_`-joined strings, or hashed (modulo `num_buckets` when it is positive)."""
    indices, values, shapes, dense = inputs[:N], inputs[N:2 * N], inputs[2 * N:3 * N], inputs[3 * N:]
    if hashed_output:
        return _crossed(ctx, indices, values, shapes, dense, lambda f, n: _hash(f, n, num_buckets, hash_key))
    return _crossed(ctx, indices, values, shapes, dense, lambda f, n: _join(f, n, b"_X_"))


SparseCrossV2 = Op("SparseCrossV2", inputs=_INPUTS + ["sep: string"],
                   outputs=["output_indices: int64", "output_values: string", "output_shape: int64"], attrs=_TYPES)
SparseCrossV2.shape(_cross_shape)
NotDifferentiable("SparseCrossV2")


@SparseCrossV2.kernel("CPU")
def _sparse_cross_v2(ctx: OpKernelContext, *inputs: Any, N: int, sparse_types: Sequence[dtypes.DType],  # noqa: N803
                     dense_types: Sequence[dtypes.DType]) -> list:
    """Crosses as strings joined by `sep`."""
    indices, values, shapes, dense, sep = inputs[:N], inputs[N:2 * N], inputs[2 * N:3 * N], inputs[3 * N:-1], inputs[-1]
    return _crossed(ctx, indices, values, shapes, dense, lambda f, n: _join(f, n, sep.item()))


def _split_inputs(inputs: Sequence[Any]) -> tuple[list[SparseTensor], list[Tensor]]:
    """The inputs as SparseTensors and dense tensors (in that order, as TF's kernels take them), int32 and the
    other integers widened to int64."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse, dense = [], []
    for item in inputs:
        if isinstance(item, SparseTensor):
            values = item.values if item.values.dtype == dtypes.string else cast(item.values, dtypes.int64)
            sparse.append(SparseTensor(item.indices, values, item.dense_shape))
        else:
            tensor = convert_to_tensor(item)
            dense.append(tensor if tensor.dtype == dtypes.string else cast(tensor, dtypes.int64))
    return sparse, dense


@tf_export("sparse.cross")
def sparse_cross(inputs: Sequence[Any], name: str | None = None, separator: str | None = None) -> SparseTensor:
    """The crosses of each batch row's features across `inputs` (SparseTensors and dense 2-D tensors of
    strings or integers), as strings joined by `separator` ("_X_" by default)."""
    sparse, dense = _split_inputs(inputs)
    indices, values, shape = SparseCrossV2([s.indices for s in sparse], [s.values for s in sparse],
                                           [s.dense_shape for s in sparse], dense,
                                           "_X_" if separator is None else separator, name=name)
    return SparseTensor(indices, values, shape)


@tf_export("sparse.cross_hashed")
def sparse_cross_hashed(inputs: Sequence[Any], num_buckets: int = 0, hash_key: int | None = None,
                        name: str | None = None) -> SparseTensor:
    """The crosses of `sparse.cross` as TF's int64 fingerprint hashes, modulo `num_buckets` when positive."""
    sparse, dense = _split_inputs(inputs)
    internal = dtypes.string if all(t.dtype == dtypes.string for t in [s.values for s in sparse] + dense) \
        else dtypes.int64
    indices, values, shape = SparseCross([s.indices for s in sparse], [s.values for s in sparse],
                                         [s.dense_shape for s in sparse], dense, hashed_output=True,
                                         num_buckets=num_buckets,
                                         hash_key=_DEFAULT_HASH_KEY if hash_key is None else hash_key,
                                         out_type=dtypes.int64, internal_type=internal, name=name)
    return SparseTensor(indices, values, shape)
