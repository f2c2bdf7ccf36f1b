"""Op types TF still lists in `tf.raw_ops` beside their successors: older versions (Concat, Gather, Reverse,
InTopK, BatchMatMul) and aliases (Inv, InvGrad, Div, Mod), plus the small raw-only math and array ops
ApproximateEqual, ToBool, Empty, PreventGradient, InplaceAdd/Sub/Update, ScatterNdNonAliasingAdd and the
layout helpers DataFormatDimMap and DataFormatVecPermute.

Each older version runs its successor's kernel (with its fixed arguments) and has TF's gradient for it; no
public wrapper calls them (TF1's Python builds the successors), so graphs get them only from `tf.raw_ops` or
an imported GraphDef.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.elementwise_ops import _reciprocal
from tensorweave.ops.indexing_ops import _gather, _gather_shape
from tensorweave.ops.kernel_helpers import c_division, invalid_argument
from tensorweave.ops.linalg_ops import _batch_matmul, _batch_matmul_shape, _batch_matmul_v2_grad
from tensorweave.ops.manipulation_ops import _concat, _reverse, concat_gradient, concat_shape
from tensorweave.ops.math_misc_ops import _in_top_k
from tensorweave.ops.shape_helpers import broadcast_binary_shape, unary_shape, with_rank
from tensorweave.ops.shape_ops import broadcast_gradient_args, expand_dims, reshape, shape, size, unbroadcast

_UNARY_TYPES = "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"

# -- Inv, InvGrad, Div, Mod: aliases of Reciprocal, ReciprocalGrad, TruncateDiv/RealDiv, TruncateMod ------

Inv = Op("Inv", inputs=["x: T"], outputs=["y: T"], attrs=[f"T: {_UNARY_TYPES}"])
Inv.shape(unary_shape)
InvGrad = Op("InvGrad", inputs=["y: T", "dy: T"], outputs=["z: T"],
             attrs=["T: {bfloat16, half, float, double, complex64, complex128}"])
InvGrad.shape(broadcast_binary_shape)


@Inv.kernel("CPU")
def _inv(ctx: OpKernelContext, x: Any) -> Any:
    if x.dtype.kind in "iu":
        return c_division(np.ones_like(x), x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _reciprocal(x)


@InvGrad.kernel("CPU")
def _inv_grad(ctx: OpKernelContext, y: Any, dy: Any) -> Any:
    return -dy * np.conj(y * y)


@Inv.gradient
def _inv_gradient(op: Any, grad: Tensor) -> list:
    return [InvGrad(op.outputs[0], grad)]


@InvGrad.gradient
def _inv_grad_gradient(op: Any, grad: Tensor) -> list:
    """TF's: d/dy is -2 grad dy conj(y), d/ddy is InvGrad(y, grad)."""
    y, dy = op.inputs
    return [-2.0 * grad * dy * _conj(y), InvGrad(y, grad)]


def _conj(t: Tensor) -> Tensor:
    return raw_ops.Conj(input=t) if t.dtype.is_complex else t


_DIV_TYPES = "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}"
Div = Op("Div", inputs=["x: T", "y: T"], outputs=["z: T"], attrs=[f"T: {_DIV_TYPES}"])
Div.shape(broadcast_binary_shape)
Mod = Op("Mod", inputs=["x: T", "y: T"], outputs=["z: T"], attrs=["T: {int32, int64, float16, half, bfloat16, float, double}"])
Mod.shape(broadcast_binary_shape)


def _check_broadcast(ctx: OpKernelContext, x: Any, y: Any) -> None:
    try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise invalid_argument(ctx, f"Incompatible shapes: {tensor_shape.shape_string(np.shape(x))} vs. "
                                    f"{tensor_shape.shape_string(np.shape(y))}") from None


@Div.kernel("CPU")
def _div(ctx: OpKernelContext, x: Any, y: Any) -> Any:
    """Integers round toward 0 (C++ division, TF's error for a zero divisor); the rest divide exactly."""
    _check_broadcast(ctx, x, y)
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise invalid_argument(ctx, "Integer division by zero")
        return c_division(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y).astype(x.dtype)


@Mod.kernel("CPU")
def _mod(ctx: OpKernelContext, x: Any, y: Any) -> Any:
    """The truncated remainder (C++'s % and fmod), as TruncateMod."""
    _check_broadcast(ctx, x, y)
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise invalid_argument(ctx, "Integer division by zero")
    with np.errstate(invalid="ignore"):
        return np.fmod(x, y).astype(x.dtype)


@Div.gradient
def _div_grad(op: Any, grad: Tensor) -> list:
    """TF's: grad / y and grad * (-x / y) / y, each summed to its input's shape."""
    x, y = op.inputs
    sx, sy = broadcast_gradient_args(x, y, grad)
    x, y = _conj(x), _conj(y)
    return [unbroadcast(Div(grad, y), sx), unbroadcast(grad * Div(Div(-x, y), y), sy)]


# -- ApproximateEqual, ToBool, Empty, PreventGradient ---------------------------------------------------

ApproximateEqual = Op("ApproximateEqual", inputs=["x: T", "y: T"], outputs=["z: bool"],
                      attrs=["T: numbertype", "tolerance: float = 1e-05"], is_commutative=True)


@ApproximateEqual.shape
def _approximate_equal_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Both inputs' shapes merged: TF's op does not broadcast."""
    return [tensor_shape.merge_shapes(ctx.input_shape(0), ctx.input_shape(1))]


@ApproximateEqual.kernel("CPU")
def _approximate_equal(ctx: OpKernelContext, x: Any, y: Any, tolerance: float) -> Any:
    if x.shape != y.shape:
        raise invalid_argument(ctx, "x and y must be of the same shape. x shape: "
                                    f"{tensor_shape.shape_string(x.shape)}. y shape: "
                                    f"{tensor_shape.shape_string(y.shape)}")
    return np.abs(x - y) < np.asarray(tolerance).astype(np.abs(x).dtype)


@ApproximateEqual.gradient
def _approximate_equal_grad(op: Any, grad: Tensor) -> list:
    return [None, None]


ToBool = Op("ToBool", inputs=["input: T"], outputs=["output: bool"], attrs=["T: type"])


@ToBool.shape
def _to_bool_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@ToBool.kernel("CPU")
def _to_bool(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    """A scalar's truth (a non-empty string's for strings), a tensor's non-emptiness otherwise."""
    if input.ndim:
        return np.bool_(input.size > 0)
    value = input.item()
    return np.bool_(len(value) > 0 if isinstance(value, bytes) else value != 0)


NotDifferentiable("ToBool")

Empty = Op("Empty", inputs=["shape: int32"], outputs=["output: dtype"], attrs=["dtype: type", "init: bool = false"],
           is_stateful=True)


@Empty.shape
def _empty_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 1)
    value = ctx.input_value(0)
    if value is None:
        return [tensor_shape.unknown_shape(rank=ctx.input_shape(0).dims[0].value)]
    return [tensor_shape.TensorShape([None if d < 0 else int(d) for d in np.reshape(value, -1)])]


@Empty.kernel("CPU")
def _empty(ctx: OpKernelContext, shape: Any, dtype: dtypes.DType, init: bool) -> Any:
    """Zeros whether or not `init` asks for them (TF leaves the memory uninitialized without it)."""
    if shape.ndim != 1:
        raise invalid_argument(ctx, f"shape must be a vector of int32, got shape {tensor_shape.shape_string(shape.shape)}")
    return np.zeros([int(d) for d in shape], dtype.as_numpy_dtype)


PreventGradient = Op("PreventGradient", inputs=["input: T"], outputs=["output: T"],
                     attrs=["T: type", "message: string = ''"])
PreventGradient.shape(unary_shape)


@PreventGradient.kernel("CPU")
def _prevent_gradient(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


@PreventGradient.gradient
def _prevent_gradient_grad(op: Any, grad: Tensor) -> list:
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


# -- InplaceAdd, InplaceSub, InplaceUpdate, ScatterNdNonAliasingAdd -----------------------------------------

def _inplace_op(name: str, combine: Any) -> Op:
    """`x` with its rows `i` combined with the rows of `v` (TF writes into x's buffer where it may; the result
    is the same)."""
    op = Op(name, inputs=["x: T", "i: int32", "v: T"], outputs=["y: T"], attrs=["T: type"])
    op.shape(unary_shape)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, x: Any, i: Any, v: Any) -> Any:
        if v.ndim != x.ndim or (x.ndim and v.shape[1:] != x.shape[1:]) or i.ndim != 1 or v.ndim == 0 or \
                len(i) != v.shape[0]:
            raise invalid_argument(ctx, f"i and x shape doesn't match i:{tensor_shape.shape_string(i.shape)} "
                                        f"x:{tensor_shape.shape_string(v.shape)}")
        if np.any((i < 0) | (i >= x.shape[0])):
            raise invalid_argument(ctx, f"Index out of bounds: {i.tolist()}")
        out = x.copy()
        combine(out, i, v)
        return out

    NotDifferentiable(name)
    return op


def _add_rows(out: Any, i: Any, v: Any) -> None:
    np.add.at(out, i, v)


def _sub_rows(out: Any, i: Any, v: Any) -> None:
    np.subtract.at(out, i, v)


def _set_rows(out: Any, i: Any, v: Any) -> None:
    out[i] = v


InplaceAdd = _inplace_op("InplaceAdd", _add_rows)
InplaceSub = _inplace_op("InplaceSub", _sub_rows)
InplaceUpdate = _inplace_op("InplaceUpdate", _set_rows)

ScatterNdNonAliasingAdd = Op("ScatterNdNonAliasingAdd", inputs=["input: T", "indices: Tindices", "updates: T"],
                             outputs=["output: T"], attrs=["T: {numbertype, bool}", "Tindices: {int32, int64}"])
ScatterNdNonAliasingAdd.shape(unary_shape)


@ScatterNdNonAliasingAdd.kernel("CPU")
def _scatter_nd_non_aliasing_add(ctx: OpKernelContext, input: Any, indices: Any, updates: Any) -> Any:  # noqa: A002
    """A copy of `input` with `updates` added at `indices` (repeated indices add up)."""
    depth = indices.shape[-1] if indices.ndim else 0
    if indices.ndim < 1 or depth > input.ndim or updates.shape != indices.shape[:-1] + input.shape[depth:]:
        raise invalid_argument(ctx, "Dimensions [0,1) of indices[shape="
                                    f"{tensor_shape.shape_string(indices.shape)}] = {indices.shape[0] if indices.ndim else 0} "
                                    "must match dimensions [0,1) of updates[shape="
                                    f"{tensor_shape.shape_string(updates.shape)}]")
    flat = indices.reshape(-1, depth)
    bad = np.nonzero(np.any((flat < 0) | (flat >= np.array(input.shape[:depth])), axis=1))[0]
    if bad.size:
        raise invalid_argument(ctx, f"indices[{bad[0]}] = [{', '.join(map(str, flat[bad[0]]))}] does not index "
                                    "into shape " + tensor_shape.shape_string(input.shape))
    out = input.copy()
    if input.dtype == np.bool_:
        np.logical_or.at(out, tuple(flat.T), updates.reshape((-1,) + input.shape[depth:]))
    else:
        np.add.at(out, tuple(flat.T), updates.reshape((-1,) + input.shape[depth:]))
    return out


@ScatterNdNonAliasingAdd.gradient
def _scatter_nd_non_aliasing_add_grad(op: Any, grad: Tensor) -> list:
    return [grad, None, raw_ops.GatherNd(params=grad, indices=op.inputs[1])]


# -- Concat, Gather, Reverse, InTopK, BatchMatMul: the first versions of ConcatV2, GatherV2, ReverseV2,
# InTopKV2 and BatchMatMulV2 ---------------------------------------------------------------------------

Concat = Op("Concat", inputs=["concat_dim: int32", "values: N * T"], outputs=["output: T"],
            attrs=["N: int >= 2", "T: type"])


@Concat.shape
def _concat_v1_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return concat_shape(ctx, ctx.input_shapes[1:], 0)


@Concat.kernel("CPU")
def _concat_v1(ctx: OpKernelContext, concat_dim: Any, *values: Any) -> Any:
    return _concat(ctx, *values, concat_dim)


@Concat.gradient
def _concat_v1_grad(op: Any, grad: Tensor) -> list:
    values = list(op.inputs[1:])
    if len(values) == 1:
        return [None, grad]
    return [None, *concat_gradient(grad, values, op.inputs[0])]


Gather = Op("Gather", inputs=["params: Tparams", "indices: Tindices"], outputs=["output: Tparams"],
            attrs=["validate_indices: bool = true", "Tparams: type", "Tindices: {int32, int64}"])


@Gather.shape
def _gather_v1_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _gather_shape(_AxisZero(ctx))


class _AxisZero:
    """GatherV2's shape context for a Gather: its axis input a constant 0, no batch dims."""

    def __init__(self, ctx: InferenceContext) -> None:
        self._ctx = ctx

    def input_shape(self, index: int) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([]) if index == 2 else self._ctx.input_shape(index)

    def input_value(self, index: int) -> Any:
        return np.int32(0) if index == 2 else self._ctx.input_value(index)

    def attr(self, name: str) -> Any:
        return 0 if name == "batch_dims" else self._ctx.attr(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)


@Gather.kernel("CPU")
def _gather_v1(ctx: OpKernelContext, params: Any, indices: Any) -> Any:
    return _gather(ctx, params, indices, np.int32(0), 0)


@Gather.gradient
def _gather_v1_grad(op: Any, grad: Tensor) -> list:
    """The params' gathered rows as IndexedSlices, as TF's."""
    params, indices = op.inputs
    params_shape = shape(params)
    count = expand_dims(size(indices), 0)
    values = reshape(grad, raw_ops.ConcatV2(values=[count, params_shape[1:]], axis=0))
    return [IndexedSlices(values, reshape(indices, count), params_shape), None]


Reverse = Op("Reverse", inputs=["tensor: T", "dims: bool"], outputs=["output: T"],
             attrs=["T: {uint8, int8, uint16, int16, uint32, int32, uint64, int64, bool, bfloat16, half, float, "
                    "double, complex64, complex128, string}"])


@Reverse.shape
def _reverse_v1_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    dims = with_rank(ctx.input_shape(1), 1)
    shape = ctx.input_shape(0)
    if shape.ndims is not None and dims.dims[0].value is not None and dims.dims[0].value != shape.ndims:
        raise ValueError(f"Shape must be rank {dims.dims[0].value} but is rank {shape.ndims}")  # sic, as TF's
    if shape.ndims is not None and shape.ndims > 8:
        raise ValueError("reverse does not work on tensors with more than 8 dimensions")
    return [shape]


@Reverse.kernel("CPU")
def _reverse_v1(ctx: OpKernelContext, tensor: Any, dims: Any) -> Any:
    if dims.ndim != 1:
        raise invalid_argument(ctx, f"'dims' must be 1-dimension, not {dims.ndim}")
    if dims.size != tensor.ndim:
        raise invalid_argument(ctx, f"'dims' must have the same number of values as 'input' has dimensions. 'input' "
                                    f"has {tensor.ndim}'dims' has {dims.size} values")
    return _reverse(ctx, tensor, np.flatnonzero(dims).astype(np.int32))


@Reverse.gradient
def _reverse_v1_grad(op: Any, grad: Tensor) -> list:
    return [Reverse(grad, op.inputs[1]), None]


InTopK = Op("InTopK", inputs=["predictions: float", "targets: T"], outputs=["precision: bool"],
            attrs=["k: int", "T: {int32, int64} = DT_INT32"])


@InTopK.shape
def _in_top_k_v1_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    predictions = with_rank(ctx.input_shape(0), 2)
    targets = with_rank(ctx.input_shape(1), 1)
    batch = predictions.dims[0].merge_with(targets.dims[0])
    return [tensor_shape.TensorShape([batch])]


@InTopK.kernel("CPU")
def _in_top_k_v1(ctx: OpKernelContext, predictions: Any, targets: Any, k: int) -> Any:
    return _in_top_k(ctx, predictions, targets, np.asarray(k, targets.dtype))


NotDifferentiable("InTopK")

BatchMatMul = Op("BatchMatMul", inputs=["x: T", "y: T"], outputs=["output: T"],
                 attrs=["T: {bfloat16, half, float, double, int32, int64, complex64, complex128}",
                        "adj_x: bool = false", "adj_y: bool = false"])


@BatchMatMul.shape
def _batch_matmul_v1_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """BatchMatMulV2's, with the batch dimensions merged (equal), not broadcast."""
    x, y = ctx.input_shape(0), ctx.input_shape(1)
    if x.ndims is not None and y.ndims is not None and x.ndims >= 2 and y.ndims >= 2:
        tensor_shape.merge_shapes(x[:-2], y[:-2])
    return _batch_matmul_shape(ctx)


@BatchMatMul.kernel("CPU", expensive=True)
def _batch_matmul_v1(ctx: OpKernelContext, x: Any, y: Any, adj_x: bool, adj_y: bool) -> Any:
    """BatchMatMulV2's product, without its broadcasting of the batch dimensions."""
    if x.ndim != y.ndim:
        raise invalid_argument(ctx, f"In[0] and In[1] has different ndims: {tensor_shape.shape_string(x.shape)} vs. "
                                    f"{tensor_shape.shape_string(y.shape)}")
    if x.shape[:-2] != y.shape[:-2]:
        axis = next(i for i in range(x.ndim - 2) if x.shape[i] != y.shape[i])
        raise invalid_argument(ctx, f"In[0].dim({axis}) and In[1].dim({axis}) must be the same: "
                                    f"{tensor_shape.shape_string(x.shape)} vs {tensor_shape.shape_string(y.shape)}")
    return _batch_matmul(ctx, x, y, adj_x, adj_y)


BatchMatMul.gradient(_batch_matmul_v2_grad)


# -- DataFormatDimMap, DataFormatVecPermute -------------------------------------------------------------

_FORMAT_ATTRS = ["T: {int32, int64} = DT_INT32", "src_format: string = 'NHWC'", "dst_format: string = 'NCHW'"]
DataFormatDimMap = Op("DataFormatDimMap", inputs=["x: T"], outputs=["y: T"], attrs=_FORMAT_ATTRS)
DataFormatDimMap.shape(unary_shape)
DataFormatVecPermute = Op("DataFormatVecPermute", inputs=["x: T"], outputs=["y: T"], attrs=_FORMAT_ATTRS)
DataFormatVecPermute.shape(unary_shape)


def _formats(ctx: OpKernelContext, src_format: Any, dst_format: Any) -> tuple[str, str]:
    src = src_format.decode() if isinstance(src_format, bytes) else src_format
    dst = dst_format.decode() if isinstance(dst_format, bytes) else dst_format
    if len(src) not in (4, 5):
        raise invalid_argument(ctx, f"Source format must be of length 4 or 5, received src_format = {src}")
    if len(dst) not in (4, 5):
        raise invalid_argument(ctx, f"Destination format must be of length 4 or 5, received dst_format = {dst}")
    if sorted(src) != sorted(dst):
        raise invalid_argument(ctx, f"Destination and source format must determine a permutation, got {src} and "
                                    f"{dst}")
    return src, dst


@DataFormatDimMap.kernel("CPU")
def _data_format_dim_map(ctx: OpKernelContext, x: Any, src_format: Any, dst_format: Any) -> Any:
    """Each dimension index (negative ones from the end) of a src_format tensor, as its index in dst_format."""
    src, dst = _formats(ctx, src_format, dst_format)
    table = np.array([dst.index(c) for c in src], x.dtype)
    return table[np.mod(x, len(src))]


@DataFormatVecPermute.kernel("CPU")
def _data_format_vec_permute(ctx: OpKernelContext, x: Any, src_format: Any, dst_format: Any) -> Any:
    """A vector (or [n, 2] rows) of sizes in src_format order, in dst_format order; a vector of 2 (or [2, 2])
    holds the spatial dimensions only."""
    src, dst = _formats(ctx, src_format, dst_format)
    n = len(src)
    if x.ndim not in (1, 2) or x.shape[0] not in (2, n) or (x.ndim == 2 and x.shape[1] != 2):
        raise invalid_argument(ctx, f"input must be a vector or 2D tensor, but got shape "
                                    f"{tensor_shape.shape_string(x.shape)}" if x.ndim not in (1, 2) else
                               f"{'1D' if x.ndim == 1 else '2D'} input must be of size 2 or {n}, but got shape "
                               f"{tensor_shape.shape_string(x.shape)}")
    if x.shape[0] == 2:
        src = "".join(c for c in src if c not in "NC")
        dst = "".join(c for c in dst if c not in "NC")
    return x[[src.index(c) for c in dst]]


NotDifferentiable("DataFormatDimMap")
NotDifferentiable("DataFormatVecPermute")
