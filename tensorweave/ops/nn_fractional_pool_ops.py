"""Fractional pooling (Graham, arXiv:1412.6071): FractionalMaxPool and FractionalAvgPool over rows and columns
by a non-integer ratio, with their gradient ops.

Each run draws a row and a column pooling sequence (cumulative region bounds, from 0 to the input size)
from the node's Philox stream exactly as TF's GeneratePoolingSequence does, so a seeded node returns TF's
sequences and values: a random order of the k and k + 1 region sizes (TF's Fisher-Yates on uint32 draws), or
with `pseudo_random` the bounds ceil(alpha (i + u)) for one uniform double u. `deterministic` draws them once
and keeps them. Region (i, j) covers rows seq[i] to seq[i + 1] - 1 (to seq[i + 1] when `overlapping`),
clipped to the input. The kernels visit the regions' taps in TF's scan order, each tap gathered for every
region at once ([N, OH, OW, C]; a region shorter than the longest repeats its first index, or reads a zero
row or column where a repeat would count), so they loop over the few taps of a region, never over pixels.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import shape_ops
from tensorweave.ops.kernel_helpers import c_division, invalid_argument
from tensorweave.ops.random_ops import _fisher_yates_order, _PhiloxGenerator, _uint64_to_double
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

_POOL_TYPES = "{float, double, int32, int64}"
_POOL_ATTRS = ["pooling_ratio: list(float) >= 4", "pseudo_random: bool = false", "overlapping: bool = false",
               "deterministic: bool = false", "seed: int = 0", "seed2: int = 0", f"T: {_POOL_TYPES}"]
_POOL_OUTPUTS = ["output: T", "row_pooling_sequence: int64", "col_pooling_sequence: int64"]


class _PoolingState:
    """A node's Philox stream, and its sequences once drawn when the node is deterministic."""

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        self.generator = _PhiloxGenerator(attrs["seed"], attrs["seed2"])
        self.sequences: tuple[np.ndarray, np.ndarray] | None = None
        self.lock = threading.Lock()


def _pseudo_random_sizes(generator: _PhiloxGenerator, input_length: int, output_length: int) -> np.ndarray:
    """Region sizes from the bounds ceil(alpha (i + u)), u uniform below the largest value that keeps every size
    k or k + 1 (TF's GeneratePoolingSequencePseudoRandom)."""
    alpha = input_length / output_length
    k = input_length // output_length
    max_u = min((k + 2) / alpha - 1, (input_length + 1 - k) / alpha - (output_length - 1))
    words = generator.uint32s(generator.reserve_samples128(1), 2).astype(np.uint64)
    u = float(_uint64_to_double(words[:1], words[1:])[0]) * max_u
    bounds = np.empty(output_length + 1, dtype=np.int64)
    bounds[0], bounds[-1] = 1, input_length + 1
    bounds[1:-1] = np.ceil(alpha * (np.arange(1, output_length) + u))
    return np.diff(bounds)


def _random_sizes(generator: _PhiloxGenerator, input_length: int, output_length: int) -> np.ndarray:
    """The input_length % output_length sizes k + 1 and the rest k, shuffled (TF's GeneratePoolingSequenceRandom)."""
    k = input_length // output_length
    sizes = np.full(output_length, k, dtype=np.int64)
    sizes[:input_length % output_length] += 1
    draws = generator.uint32s(generator.reserve_samples128((output_length + 3) // 4), output_length)
    return sizes if output_length <= 1 else sizes[_fisher_yates_order(draws[:output_length - 1])]


def _pooling_sequence(generator: _PhiloxGenerator, input_length: int, output_length: int,
                      pseudo_random: bool) -> np.ndarray:
    sizes = (_pseudo_random_sizes if pseudo_random else _random_sizes)(generator, input_length, output_length)
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _output_dims(dims: Any, pooling_ratio: list[float]) -> list[int | None]:
    """floor(size / ratio) in float32, as TF (its ratios are floats)."""
    return [None if d is None else int(np.floor(np.float32(d) / np.float32(r))) for d, r in zip(dims, pooling_ratio)]


def _fractional_pool_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's FractionalPoolShapeFn (its sequence outputs have the static length of the pooled dims, one short of
    what the kernel returns, as in TF)."""
    value = with_rank(ctx.input_shape(0), 4)
    pooling_ratio = ctx.attr("pooling_ratio")
    for ratio in pooling_ratio:
        if ratio < 1:
            raise ValueError(f"pooling_ratio cannot be smaller than 1, got: {ratio:g}")
    dims = [None] * 4 if value.ndims is None else [tensor_shape.dimension_value(d) for d in value.dims]
    out = _output_dims(dims, pooling_ratio)
    return [tensor_shape.TensorShape(out), tensor_shape.TensorShape([out[1]]), tensor_shape.TensorShape([out[2]])]


def _regions(seq: Any, input_length: int, overlapping: bool, pad: int | None = None) -> np.ndarray:
    """Each region's indices ([regions, K], K the longest region), the shorter ones padded with their first index,
    or with `pad` (the index of an extra zero row or column) where padding must add nothing."""
    seq = np.asarray(seq, dtype=np.int64)
    starts = seq[:-1]
    ends = np.minimum(seq[1:] - (0 if overlapping else 1), input_length - 1)
    width = int(max((ends - starts).max(initial=0) + 1, 1))
    index = starts[:, None] + np.arange(width)
    return np.where(index <= ends[:, None], index, starts[:, None] if pad is None else pad)


def _zero_padded(value: Any) -> Any:
    """`value` with a zero row after the last row and a zero column after the last column."""
    return np.pad(value, ((0, 0), (0, 1), (0, 1), (0, 0)))


def _sequences(ctx: OpKernelContext, value: Any, kind: str, pooling_ratio: list[float], pseudo_random: bool,
               deterministic: bool, seed: int, seed2: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The output dims and this run's row and column sequences, after TF's checks."""
    if pooling_ratio[0] != 1 or pooling_ratio[3] != 1:
        raise errors.UnimplementedError(ctx.node_def, None, f"Fractional {kind} pooling is not yet supported on the "
                                        "batch nor channel dimension.")
    if not deterministic and (seed or seed2):
        raise invalid_argument(ctx, "Both seed and seed2 should be 0 if deterministic is false.")
    if value.ndim != 4:
        raise invalid_argument(ctx, "tensor_in must be 4-dimensional")
    for i, (size, ratio) in enumerate(zip(value.shape, pooling_ratio)):
        if size < ratio:
            raise invalid_argument(ctx, f"Pooling ratio is higher than input dimension size for dimension {i}. "
                                   f"Input dim size: {size} pooling ratio: {ratio:g}")
    out = _output_dims(value.shape, pooling_ratio)
    state: _PoolingState = ctx.state
    with state.lock:
        if deterministic and state.sequences is not None:
            return out, *state.sequences
        rows = _pooling_sequence(state.generator, value.shape[1], out[1], pseudo_random)
        cols = _pooling_sequence(state.generator, value.shape[2], out[2], pseudo_random)
        if deterministic:
            state.sequences = rows, cols
    return out, rows, cols


FractionalMaxPool = Op("FractionalMaxPool", inputs=["value: T"], outputs=_POOL_OUTPUTS, attrs=_POOL_ATTRS)
FractionalMaxPool.shape(_fractional_pool_shape)


@FractionalMaxPool.kernel("CPU", state=_PoolingState)
def _fractional_max_pool(ctx: OpKernelContext, value: Any, pooling_ratio: list[float], pseudo_random: bool,
                         overlapping: bool, deterministic: bool, seed: int, seed2: int) -> tuple:
    """Rows then columns (the maximum is separable), a tap at a time; padding repeats an index of the region."""
    _, rows, cols = _sequences(ctx, value, "max", pooling_ratio, pseudo_random, deterministic, seed, seed2)
    row_index = _regions(rows, value.shape[1], overlapping)
    col_index = _regions(cols, value.shape[2], overlapping)
    by_rows = np.take(value, row_index[:, 0], axis=1)
    for k in range(1, row_index.shape[1]):
        np.maximum(by_rows, np.take(value, row_index[:, k], axis=1), out=by_rows)
    pooled = np.take(by_rows, col_index[:, 0], axis=2)
    for k in range(1, col_index.shape[1]):
        np.maximum(pooled, np.take(by_rows, col_index[:, k], axis=2), out=pooled)
    return pooled, rows, cols


@FractionalMaxPool.gradient
def _fractional_max_pool_grad(op: Any, grad: Tensor, *_: Any) -> list:
    return [FractionalMaxPoolGrad(op.inputs[0], op.outputs[0], grad, op.outputs[1], op.outputs[2],
                                  overlapping=op.get_attr("overlapping"))]


FractionalAvgPool = Op("FractionalAvgPool", inputs=["value: T"], outputs=_POOL_OUTPUTS, attrs=_POOL_ATTRS)
FractionalAvgPool.shape(_fractional_pool_shape)


@FractionalAvgPool.kernel("CPU", state=_PoolingState)
def _fractional_avg_pool(ctx: OpKernelContext, value: Any, pooling_ratio: list[float], pseudo_random: bool,
                         overlapping: bool, deterministic: bool, seed: int, seed2: int) -> tuple:
    """The sum of each region in TF's order (a tap at a time, rows outer; padding taps read a zero) over its
    size, in the input's type."""
    _, rows, cols = _sequences(ctx, value, "average", pooling_ratio, pseudo_random, deterministic, seed, seed2)
    height, width = value.shape[1:3]
    row_index = _regions(rows, height, overlapping, pad=height)
    col_index = _regions(cols, width, overlapping, pad=width)
    padded = _zero_padded(value)
    total = np.zeros((value.shape[0], row_index.shape[0], col_index.shape[0], value.shape[3]), value.dtype)
    for kh in range(row_index.shape[1]):
        by_rows = np.take(padded, row_index[:, kh], axis=1)
        for kw in range(col_index.shape[1]):
            total += np.take(by_rows, col_index[:, kw], axis=2)
    count = ((row_index < height).sum(axis=1)[:, None] * (col_index < width).sum(axis=1)[None, :]).astype(value.dtype)
    count = count[None, :, :, None]
    pooled = c_division(total, count) if value.dtype.kind == "i" else total / count
    return pooled.astype(value.dtype), rows, cols


@FractionalAvgPool.gradient
def _fractional_avg_pool_grad(op: Any, grad: Tensor, *_: Any) -> list:
    return [FractionalAvgPoolGrad(shape_ops.shape(op.inputs[0], out_type=dtypes.int64), grad, op.outputs[1],
                                  op.outputs[2], overlapping=op.get_attr("overlapping"))]


FractionalMaxPoolGrad = Op("FractionalMaxPoolGrad",
                           inputs=["orig_input: T", "orig_output: T", "out_backprop: T",
                                   "row_pooling_sequence: int64", "col_pooling_sequence: int64"],
                           outputs=["output: T"], attrs=["overlapping: bool = false", f"T: {_POOL_TYPES}"])


@FractionalMaxPoolGrad.shape
def _fractional_max_pool_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [with_rank(ctx.input_shape(0), 4)]


def _check_sequences(ctx: OpKernelContext, out_shape: tuple[int, ...], rows: Any, cols: Any,
                     in_shape: tuple[int, ...]) -> None:
    for name, seq, out_size, in_size in (("row", rows, out_shape[1], in_shape[1]),
                                         ("col", cols, out_shape[2], in_shape[2])):
        if np.shape(seq) != (out_size + 1,):
            raise invalid_argument(ctx, f"{name}_pooling_sequence must have {out_size + 1} elements, got "
                                   f"{np.size(seq)}")
        if np.any(np.diff(seq) < 0) or np.any(seq < 0) or seq[-1] > in_size:
            raise invalid_argument(ctx, f"{name}_pooling_sequence must be non-decreasing and within "
                                   f"[0, {in_size}]")


@FractionalMaxPoolGrad.kernel("CPU")
def _fractional_max_pool_grad_kernel(ctx: OpKernelContext, orig_input: Any, orig_output: Any, out_backprop: Any,
                                     row_pooling_sequence: Any, col_pooling_sequence: Any,
                                     overlapping: bool) -> np.ndarray:
    """Each output's gradient goes to its region's first maximum in scan order (TF keeps a strictly larger value;
    padding repeats a tap already seen, so never wins), summed where regions overlap."""
    if out_backprop.shape != orig_output.shape:
        raise invalid_argument(ctx, "out_backprop must have the shape of orig_output")
    _check_sequences(ctx, out_backprop.shape, row_pooling_sequence, col_pooling_sequence, orig_input.shape)
    n, height, width, depth = orig_input.shape
    row_index = _regions(row_pooling_sequence, height, overlapping)
    col_index = _regions(col_pooling_sequence, width, overlapping)
    best = winner = None
    for kh in range(row_index.shape[1]):
        by_rows = np.take(orig_input, row_index[:, kh], axis=1)
        for kw in range(col_index.shape[1]):
            values = np.take(by_rows, col_index[:, kw], axis=2)
            pixel = (row_index[:, kh, None] * width + col_index[None, :, kw])[None, :, :, None]
            if best is None:
                best, winner = values, np.broadcast_to(pixel, values.shape)
            else:
                better = values > best
                best, winner = np.where(better, values, best), np.where(better, pixel, winner)
    flat = (np.arange(n)[:, None, None, None] * (height * width) + winner) * depth + np.arange(depth)
    grad = np.bincount(flat.reshape(-1), weights=out_backprop.reshape(-1), minlength=orig_input.size)
    return grad.astype(orig_input.dtype).reshape(orig_input.shape)


FractionalAvgPoolGrad = Op("FractionalAvgPoolGrad",
                           inputs=["orig_input_tensor_shape: int64", "out_backprop: T", "row_pooling_sequence: int64",
                                   "col_pooling_sequence: int64"],
                           outputs=["output: T"], attrs=["overlapping: bool = false", f"T: {_POOL_TYPES}"])


@FractionalAvgPoolGrad.shape
def _fractional_avg_pool_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_as_shape(0)
    return [shape if shape.ndims is not None else tensor_shape.unknown_shape(4)]


@FractionalAvgPoolGrad.kernel("CPU")
def _fractional_avg_pool_grad_kernel(ctx: OpKernelContext, orig_input_tensor_shape: Any, out_backprop: Any,
                                     row_pooling_sequence: Any, col_pooling_sequence: Any,
                                     overlapping: bool) -> np.ndarray:
    """Each output's gradient shared evenly (in double) by its region's inputs."""
    if np.shape(orig_input_tensor_shape) != (4,):
        raise invalid_argument(ctx, "original input tensor shape must be1-dimensional and 4 elements")
    in_shape = tuple(int(d) for d in orig_input_tensor_shape)
    _check_sequences(ctx, out_backprop.shape, row_pooling_sequence, col_pooling_sequence, in_shape)
    n, height, width, depth = in_shape
    row_index = _regions(row_pooling_sequence, height, overlapping, pad=height)
    col_index = _regions(col_pooling_sequence, width, overlapping, pad=width)
    count = (row_index < height).sum(axis=1)[:, None] * (col_index < width).sum(axis=1)[None, :]
    share = (out_backprop.astype(np.float64) / count[None, :, :, None]).reshape(-1)
    # flat indices into the zero-padded input, whose extra row and column take the padding taps' shares
    batch_depth = np.arange(n)[:, None, None, None] * ((height + 1) * (width + 1) * depth) + np.arange(depth)
    grad = np.zeros(n * (height + 1) * (width + 1) * depth)
    for kh in range(row_index.shape[1]):
        for kw in range(col_index.shape[1]):
            pixel = row_index[:, kh, None] * (width + 1) + col_index[None, :, kw]
            grad += np.bincount((batch_depth + (pixel * depth)[None, :, :, None]).reshape(-1), weights=share,
                                minlength=grad.size)
    grad = grad.reshape(n, height + 1, width + 1, depth)[:, :height, :width]
    return grad.astype(out_backprop.dtype)


_FractionalPoolOutput = collections.namedtuple("FractionalPoolOutput",
                                               ["output", "row_pooling_sequence", "col_pooling_sequence"])


@tf_export("nn.fractional_max_pool")
def fractional_max_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False, overlapping: bool = False,
                        deterministic: bool = False, seed: int = 0, seed2: int = 0,
                        name: str | None = None) -> tuple:
    """Max pooling by a non-integer ratio over rows and columns: (output, row_pooling_sequence,
    col_pooling_sequence). Seeds need `deterministic`, as in TF."""
    return _FractionalPoolOutput(*FractionalMaxPool(
        value, pooling_ratio=list(pooling_ratio), pseudo_random=pseudo_random, overlapping=overlapping,
        deterministic=deterministic, seed=seed, seed2=seed2, name=name))


@tf_export("nn.fractional_avg_pool")
def fractional_avg_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False, overlapping: bool = False,
                        deterministic: bool = False, seed: int = 0, seed2: int = 0,
                        name: str | None = None) -> tuple:
    """Average pooling by a non-integer ratio over rows and columns: (output, row_pooling_sequence,
    col_pooling_sequence)."""
    return _FractionalPoolOutput(*FractionalAvgPool(
        value, pooling_ratio=list(pooling_ratio), pseudo_random=pseudo_random, overlapping=overlapping,
        deterministic=deterministic, seed=seed, seed2=seed2, name=name))
