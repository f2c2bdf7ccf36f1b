"""Feature crosses: SparseCross and SparseCrossV2 (`tf.sparse.cross`, `tf.sparse.cross_hashed`), and
RaggedCross (`tf.ragged.cross`, `tf.ragged.cross_hashed`).

Each batch row's cross is the Cartesian product of that row's features in every input (sparse inputs first,
then dense, each in the order given; the last input varies fastest), as strings joined by a separator or as
TF's nested fingerprint hash (FarmHash Fingerprint64 of strings, combined with FingerprintCat64), so hashed
crosses are the same buckets TF computes. RaggedCross takes ragged, sparse and dense inputs and crosses them
in the order the user gave (its `input_order` attr), returning the crosses as a RaggedTensor's parts. The product is enumerated with index arithmetic over all rows at
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.ragged_tensor import RaggedTensor
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
             shapes: Sequence[np.ndarray], dense_inputs: Sequence[np.ndarray],
             ragged: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> tuple[int, list]:
    """The batch size and, per input, (features per row, each row's first feature, the flat features): the
    sparse inputs, the dense ones, then the ragged (values, row_splits) ones."""
    for i, (index, value, dense_shape) in enumerate(zip(indices, values, shapes)):
        if index.ndim != 2 or index.shape[-1:] != (2,) or value.ndim != 1 or dense_shape.shape != (2,):
            raise invalid_argument(ctx, f"Sparse input {i} should be a 2-D SparseTensor: indices [N, 2], values [N] "
                                        f"and shape [2]; got indices {list(index.shape)}, values "
                                        f"{list(value.shape)}, shape {list(dense_shape.shape)}")
    for i, dense in enumerate(dense_inputs):
        if dense.ndim != 2:
            raise invalid_argument(ctx, f"Dense inputs should be a matrix but received shape {list(dense.shape)} "
                                        f"at position {i}")
    for i, (value, splits) in enumerate(ragged):
        if value.ndim != 1 or splits.ndim != 1 or splits.size == 0:
            raise invalid_argument(ctx, f"Ragged input {i} should be a 2-D RaggedTensor: values [N] and row_splits "
                                        f"[B + 1]; got values {list(value.shape)}, row_splits {list(splits.shape)}")
    batches = ([(int(s[0]), f" at position {i}") for i, s in enumerate(shapes)]
               + [(d.shape[0], f" at dense tensor {i}") for i, d in enumerate(dense_inputs)]
               + [(s.size - 1, "") for _, s in ragged])
    batch = batches[0][0] if batches else 0
    for size, where in batches[1:]:
        if size != batch:
            raise invalid_argument(ctx, f"Expected batch size {batch} got {size}{where}")
    columns = []
    for index, value in zip(indices, values):
        counts = np.bincount(index[:, 0], minlength=batch)[:batch] if index.size else np.zeros(batch, np.int64)
        columns.append((counts, np.cumsum(counts) - counts, value))
    for dense in dense_inputs:
        width = dense.shape[1]
        columns.append((np.full(batch, width, np.int64), np.arange(batch) * width, dense.reshape(-1)))
    for value, splits in ragged:
        columns.append((np.diff(splits).astype(np.int64), splits[:-1].astype(np.int64), value))
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


class _Sparse(NamedTuple):
    indices: Tensor
    values: Tensor
    dense_shape: Tensor


def _split_inputs(inputs: Sequence[Any]) -> tuple[list[_Sparse], list[Tensor]]:
    """The inputs' sparse parts and dense tensors (in that order, as TF's kernels take them), int32 and the
    other integers widened to int64 (no SparseTensor is made: its name scope would take a name, as not in TF)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse, dense = [], []
    for item in inputs:
        if isinstance(item, SparseTensor):
            values = item.values if item.values.dtype == dtypes.string else cast(item.values, dtypes.int64)
            sparse.append(_Sparse(item.indices, values, item.dense_shape))
        else:
            tensor = convert_to_tensor(item)
            dense.append(tensor if tensor.dtype == dtypes.string else cast(tensor, dtypes.int64))
    return sparse, dense


@tf_export("sparse.cross")
def sparse_cross(inputs: Sequence[Any], name: str | None = None, separator: str | None = None) -> SparseTensor:
    """The crosses of each batch row's features across `inputs` (SparseTensors and dense 2-D tensors of
    strings or integers), as strings joined by `separator` ("_X_" by default)."""
    # TF converts the separator first, outside any scope (a `Const` before the inputs' casts)
    separator = convert_to_tensor("_X_" if separator is None else separator, dtypes.string)
    sparse, dense = _split_inputs(inputs)
    indices, values, shape = SparseCrossV2([s.indices for s in sparse], [s.values for s in sparse],
                                           [s.dense_shape for s in sparse], dense, separator, name=name)
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


RaggedCross = Op("RaggedCross",
                 inputs=["ragged_values: ragged_values_types", "ragged_row_splits: ragged_splits_types",
                         "sparse_indices: Nsparse * int64", "sparse_values: sparse_values_types",
                         "sparse_shape: Nsparse * int64", "dense_inputs: dense_types"],
                 outputs=["output_values: out_values_type", "output_row_splits: out_row_splits_type"],
                 attrs=["Nsparse: int >= 0", "input_order: string", "hashed_output: bool", "num_buckets: int >= 0",
                        "hash_key: int", "ragged_values_types: list({int64, string}) >= 0",
                        "ragged_splits_types: list({int32, int64}) >= 0",
                        "sparse_values_types: list({int64, string}) >= 0", "dense_types: list({int64, string}) >= 0",
                        "out_values_type: {int64, string}", "out_row_splits_type: {int32, int64}"])
NotDifferentiable("RaggedCross")


@RaggedCross.shape
def _ragged_cross_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The row_splits have batch + 1 entries when a ragged input's splits or a dense input's rows say so."""
    nragged, nsparse = len(ctx.attr("ragged_values_types")), ctx.attr("Nsparse")
    ndense = len(ctx.attr("dense_types"))
    dense_start = 2 * nragged + 3 * nsparse
    batch = tensor_shape.Dimension(None)
    for i in range(nragged, 2 * nragged):
        batch = batch.merge_with(ctx.input_shape(i).with_rank(1)[0] - 1)
    for i in range(dense_start, dense_start + ndense):
        batch = batch.merge_with(ctx.input_shape(i).with_rank(2)[0])
    splits = None if batch.value is None else batch.value + 1
    return [tensor_shape.TensorShape([None]), tensor_shape.TensorShape([splits])]


@RaggedCross.kernel("CPU")
def _ragged_cross(ctx: OpKernelContext, *inputs: Any, Nsparse: int, input_order: Any,  # noqa: N803
                  hashed_output: bool, num_buckets: int, hash_key: int, ragged_values_types: Sequence[dtypes.DType],
                  ragged_splits_types: Sequence[dtypes.DType], sparse_values_types: Sequence[dtypes.DType],
                  dense_types: Sequence[dtypes.DType], out_values_type: dtypes.DType,
                  out_row_splits_type: dtypes.DType) -> list:
    """Crosses in the inputs' original order (`input_order`, one of R, S, D per input), `_X_`-joined or
    hashed, as values and row_splits."""
    order = input_order.decode() if isinstance(input_order, bytes) else input_order
    nragged = len(ragged_values_types)
    counts = [nragged, nragged, Nsparse, Nsparse, Nsparse, len(dense_types)]
    bounds = np.cumsum([0] + counts)
    rvalues, rsplits, indices, values, shapes, dense = (inputs[a:b] for a, b in zip(bounds[:-1], bounds[1:]))
    batch, columns = _columns(ctx, indices, values, shapes, dense, list(zip(rvalues, rsplits)))
    kinds = {"S": iter(columns[:Nsparse]), "D": iter(columns[Nsparse:Nsparse + len(dense)]),
             "R": iter(columns[Nsparse + len(dense):])}
    columns = [next(kinds[kind]) for kind in order]
    rows, _, features = _cross_features(batch, columns)
    crossed = _hash(features, rows.size, num_buckets, hash_key) if hashed_output else \
        _join(features, rows.size, b"_X_")
    splits = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=batch))])
    return [crossed, splits.astype(out_row_splits_type.as_numpy_dtype)]


def _cross_ragged(inputs: Sequence[Any], hashed_output: bool, num_buckets: int, hash_key: int | None,
                  name: str | None) -> RaggedTensor:
    """The RaggedCross of ragged, sparse and dense 2-D inputs, integers widened to int64."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    with name_scope(name, "RaggedCross", [x for x in inputs if isinstance(x, Tensor)]):
        ragged, order = [], []
        for item in inputs:
            if isinstance(item, RaggedTensor):
                if item.ragged_rank != 1 or item.shape.ndims != 2:
                    raise ValueError("tf.ragged.cross only supports inputs with rank=2")
                ragged.append(item)
                order.append("R")
            else:
                order.append("S" if isinstance(item, SparseTensor) else "D")
        sparse, dense = _split_inputs([x for x in inputs if not isinstance(x, RaggedTensor)])
        for tensor in dense:
            tensor.shape.with_rank(2)
        rvalues = [r.values if r.dtype == dtypes.string else cast(r.values, dtypes.int64) for r in ragged]
        splits_type = dtypes.int32 if ragged and all(r.row_splits_dtype == dtypes.int32 for r in ragged) \
            else dtypes.int64
        values, splits = RaggedCross(rvalues, [r.row_splits for r in ragged], [s.indices for s in sparse],
                                     [s.values for s in sparse], [s.dense_shape for s in sparse], dense,
                                     input_order="".join(order), hashed_output=hashed_output,
                                     num_buckets=num_buckets,
                                     hash_key=_DEFAULT_HASH_KEY if hash_key is None else hash_key,
                                     out_values_type=dtypes.int64 if hashed_output else dtypes.string,
                                     out_row_splits_type=splits_type)
        return RaggedTensor.from_row_splits(values, splits, validate=False)


@tf_export("ragged.cross")
def ragged_cross(inputs: Sequence[Any], name: str | None = None) -> RaggedTensor:
    """The crosses of each batch row's features across `inputs` (RaggedTensors, SparseTensors and dense 2-D
    tensors of strings or integers, crossed in the order given), as `_X_`-joined strings."""
    return _cross_ragged(inputs, False, 0, None, name)


@tf_export("ragged.cross_hashed")
def ragged_cross_hashed(inputs: Sequence[Any], num_buckets: int = 0, hash_key: int | None = None,
                        name: str | None = None) -> RaggedTensor:
    """The crosses of `ragged.cross` as TF's int64 fingerprint hashes, modulo `num_buckets` when positive."""
    return _cross_ragged(inputs, True, num_buckets, hash_key, name)
