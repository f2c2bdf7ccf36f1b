"""Scatter, partition and stitch: ScatterNd and the TensorScatter{Update,Add,Sub,Max,Min} family (slices of
`updates` written into a zero or given tensor at the rows of `indices`), DynamicPartition (rows sorted into
`num_partitions` outputs) and DynamicStitch / ParallelDynamicStitch (rows merged back by index).

Every kernel works on the output viewed as [rows addressed by the index depth, slice]: an index row becomes one
flat row number, so the writes are one fancy assignment or one unbuffered `ufunc.at`, whatever the depth.
The Max/Min gradients compare and divide with elementwise ops, a family above this one, through `raw_ops`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.fill_ops import zeros_like
from tensorweave.ops.indexing_ops import gather, gather_nd
from tensorweave.ops.kernel_helpers import invalid_argument, no_kernel_registered
from tensorweave.ops.sequence_ops import Range
from tensorweave.ops.shape_helpers import shape_from_tensor, with_rank_at_least
from tensorweave.ops.shape_ops import reshape, shape
from tensorweave.platform.tf_export import tf_export

# -- ScatterNd and TensorScatter* ---------------------------------------------------------------------

ScatterNd = Op("ScatterNd", inputs=["indices: Tindices", "updates: T", "shape: Tindices"], outputs=["output: T"],
               attrs=["T: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"])


def _tensor_scatter_op(name: str, index_types: str) -> Op:
    return Op(name, inputs=["tensor: T", "indices: Tindices", "updates: T"], outputs=["output: T"],
              attrs=["T: type", f"Tindices: {{{index_types}}}", "bad_indices_policy: string = ''"])


TensorScatterUpdate = _tensor_scatter_op("TensorScatterUpdate", "int16, int32, int64, uint16")
TensorScatterAdd = _tensor_scatter_op("TensorScatterAdd", "int32, int64")
TensorScatterSub = _tensor_scatter_op("TensorScatterSub", "int32, int64")
TensorScatterMax = _tensor_scatter_op("TensorScatterMax", "int32, int64")
TensorScatterMin = _tensor_scatter_op("TensorScatterMin", "int32, int64")


def _dims_string(shape: tensor_shape.TensorShape) -> str:
    return tensor_shape.shape_string(shape, "?")


def _scatter_nd_output_shape(indices: tensor_shape.TensorShape, updates: tensor_shape.TensorShape,
                             output: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """TF's ScatterNdShapeHelper: the outer dims of `indices` must match those of `updates`, and the slice
    dims of `output` (after the index depth) the rest of `updates`; an empty output takes no updates."""
    indices = with_rank_at_least(indices, 1)
    if output.num_elements() == 0 and ((indices.num_elements() or 0) > 0 or (updates.num_elements() or 0) > 0):
        raise ValueError("Indices and updates specified for empty input")
    if indices.ndims is None or updates.ndims in (None, 0) or output.ndims is None:  # scalar updates: no check
        return output
    outer = indices.ndims - 1
    try:
        tensor_shape.merge_shapes(indices[:outer], updates[:outer])
    except ValueError as e:
        raise ValueError(f"Dimensions [0,{outer}) of indices[shape={_dims_string(indices)}] = "
                         f"{_dims_string(indices[:outer])} must match dimensions [0,{outer}) of updates[shape="
                         f"{_dims_string(updates)}] = {_dims_string(updates[:outer])}: {e}") from None
    depth = indices.dims[-1].value
    if depth is not None:
        try:
            tensor_shape.merge_shapes(output[depth:], updates[outer:])
        except ValueError as e:
            raise ValueError(f"Dimensions [{depth},{output.ndims}) of input[shape={_dims_string(output)}] = "
                             f"{_dims_string(output[depth:])} must match dimensions [{outer},{updates.ndims}) of "
                             f"updates[shape={_dims_string(updates)}] = {_dims_string(updates[outer:])}: "
                             f"{e}") from None
    return output


@ScatterNd.shape
def _scatter_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    indices = with_rank_at_least(ctx.input_shape(0), 1)
    updates = with_rank_at_least(ctx.input_shape(1), 1)
    return [_scatter_nd_output_shape(indices, updates, shape_from_tensor(ctx, 2))]


def _tensor_scatter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_scatter_nd_output_shape(ctx.input_shape(1), ctx.input_shape(2), ctx.input_shape(0))]


_SCATTER_POLICIES = (b"", b"DEFAULT", b"ERROR")


def _scatter_rows(ctx: OpKernelContext, out_shape: tuple, indices: Any, updates: Any,
                  bad_indices_policy: bytes) -> tuple[Any, Any, tuple]:
    """The flat row of each index row, the updates as [rows, slice] and the [rows, slice] view shape of the
    output, after the checks of TF's PrepareAndValidateInputs, in its order and words (a 1-D `indices` holds
    one index of depth 1 per element there, so it fails them whenever the op's own checks let it through);
    an index outside the output is TF's error."""
    if bad_indices_policy not in _SCATTER_POLICIES:
        raise no_kernel_registered(ctx)
    show = tensor_shape.shape_string
    if not out_shape:
        raise invalid_argument(ctx, f"Output must be at least 1-D, got shape: {show(out_shape)}")
    if (indices.size or updates.size) and not (math.prod(out_shape) and indices.size and updates.size):
        raise invalid_argument(ctx, f"Indices and updates specified for empty output.  indices shape: "
                                    f"{show(indices.shape)}")
    if updates.shape[0] != indices.shape[0]:
        raise invalid_argument(ctx, f"Dimensions [0,1) of indices[shape={show(indices.shape)}] = {indices.shape[0]} "
                                    f"must match dimensions [0,1) of updates[shape={show(updates.shape)}] = "
                                    f"{updates.shape[0]}")
    depth = indices.shape[-1] if indices.ndim > 1 else 1
    outer = indices.shape[:-1] if indices.ndim > 1 else indices.shape
    batch = len(outer)  # TF's ValidateUpdateShape, in its order
    prefix = (f"Dimensions [0,{batch}) of indices[shape={show(indices.shape)}] must match dimensions [0,{batch}) "
              f"of updates[shape={show(updates.shape)}]")
    suffix = (f"Dimensions [{depth},{len(out_shape)}) of input[shape={show(out_shape)}] must match dimensions "
              f"[{depth},{updates.ndim}) of updates[shape={show(updates.shape)}]")
    if updates.ndim < batch:
        raise invalid_argument(ctx, prefix)
    if len(out_shape) < depth + updates.ndim - batch or updates.ndim != batch + len(out_shape) - depth:
        raise invalid_argument(ctx, suffix)
    if updates.shape[:batch] != outer:
        raise invalid_argument(ctx, prefix)
    if updates.shape[batch:] != out_shape[depth:]:
        raise invalid_argument(ctx, suffix)
    rows = indices.reshape(-1, depth).astype(np.int64)
    prefix = np.asarray(out_shape[:depth], dtype=np.int64)
    bad = np.flatnonzero(((rows < 0) | (rows >= prefix)).any(axis=1))
    if bad.size:
        position = ",".join(map(str, np.unravel_index(bad[0], outer)))
        raise invalid_argument(ctx, f"indices[{position}] = [{', '.join(map(str, rows[bad[0]].tolist()))}] does not "
                                    f"index into shape {tensor_shape.shape_string(out_shape)}")
    strides = np.cumprod(np.append(prefix[1:], 1)[::-1])[::-1] if depth else np.zeros(0, np.int64)
    flat = rows @ strides
    view = (math.prod(out_shape[:depth]), math.prod(out_shape[depth:]))
    return flat, updates.reshape(rows.shape[0], view[1]), view


def _scatter_into(ctx: OpKernelContext, base: Any, indices: Any, updates: Any, bad_indices_policy: bytes,
                  combine: Any) -> Any:
    """A copy of `base` with the update slices written (combine None) or combined in by the ufunc `combine`."""
    flat, rows, view = _scatter_rows(ctx, base.shape, indices, updates, bad_indices_policy)
    out = base.reshape(view).copy()
    if combine is None:
        out[flat] = rows
    else:
        combine.at(out, flat, rows)
    return out.reshape(base.shape)


def _check_scatter_nd(ctx: OpKernelContext, indices: Any, updates: Any, shape: Any) -> None:
    """TF's ScatterNdOp checks, in its order and words (TensorScatterOp's differ): the outer dims of `indices`
    match those of `updates`, and the output's dims after the index depth its other dims."""
    show = tensor_shape.shape_string
    for name, array in (("Indices", indices), ("Updates", updates)):
        if array.ndim < 1:
            raise invalid_argument(ctx, f"{name} shape must have rank at least one. Found:{show(array.shape)}")
    if shape.ndim != 1:
        raise invalid_argument(ctx, "Shape must be a vector")
    dims = tuple(shape.tolist())
    for d in dims:
        if d < 0:
            raise invalid_argument(ctx, f"Dimension {d} must be >= 0")
    if (indices.size or updates.size) and not (shape.size and indices.size and updates.size):
        raise invalid_argument(ctx, "Indices and updates specified for empty output shape")
    outer, depth = indices.ndim - 1, indices.shape[-1]
    if updates.shape[:outer] != indices.shape[:outer]:
        raise invalid_argument(ctx, f"Dimensions [0,{outer}) of indices[shape={show(indices.shape)}] must match "
                                    f"dimensions [0,{outer}) of updates[shape={show(updates.shape)}]")
    if updates.ndim - outer != len(dims) - depth or updates.shape[outer:] != dims[depth:]:
        raise invalid_argument(ctx, f"Dimensions [{depth},{len(dims)}) of input[shape={show(dims)}] must match "
                                    f"dimensions [{outer},{updates.ndim}) of updates[shape={show(updates.shape)}]")


@ScatterNd.kernel("CPU", host_memory=("shape",))
def _scatter_nd(ctx: OpKernelContext, indices: Any, updates: Any, shape: Any, bad_indices_policy: bytes) -> Any:
    _check_scatter_nd(ctx, indices, updates, shape)
    if updates.dtype == object:  # strings: TF adds (concatenates) them onto empty strings
        zeros = np.full(tuple(shape.tolist()), b"", dtype=object)
    else:
        zeros = ctx.xp.zeros(tuple(shape.tolist()), dtype=updates.dtype)
    combine = np.logical_or if updates.dtype == np.bool_ else ctx.xp.add
    return _scatter_into(ctx, zeros, indices, updates, bad_indices_policy, combine)


def _check_tensor_scatter(ctx: OpKernelContext, out_shape: tuple, indices: Any, updates: Any) -> None:
    """TF's TensorScatterOp checks, in its order and words (ScatterNd's own differ)."""
    show = tensor_shape.shape_string
    for name, array in (("Indices", indices), ("Updates", updates)):
        if array.ndim < 1:
            raise invalid_argument(ctx, f"{name} shape must have rank at least one. Found:{show(array.shape)}")
    if (indices.size or updates.size) and not (math.prod(out_shape) and indices.size and updates.size):
        raise invalid_argument(ctx, "Indices and updates specified for empty output shape")
    outer, depth = indices.ndim - 1, indices.shape[-1]
    if updates.shape[:outer] != indices.shape[:outer]:
        raise invalid_argument(ctx, f"Outer dimensions of indices and update must match. Indices shape: "
                                    f"{show(indices.shape)}, updates shape:{show(updates.shape)}")
    inner = updates.ndim - outer
    if inner != len(out_shape) - depth:
        raise invalid_argument(ctx, f"Inner dimensions of output shape must match inner dimensions of updates shape. "
                                    f"Output: {show(out_shape)} updates: {show(updates.shape)}")
    if updates.shape[outer:] != tuple(out_shape[depth:]):
        raise invalid_argument(ctx, f"The inner {len(out_shape) - depth} dimensions of output.shape="
                                    f"{show(out_shape)} must match the inner {inner} dimensions of updates.shape="
                                    f"{show(updates.shape)}")


def _tensor_scatter_kernel(combine_name: str | None) -> Any:
    def kernel(ctx: OpKernelContext, tensor: Any, indices: Any, updates: Any, bad_indices_policy: bytes) -> Any:
        _check_tensor_scatter(ctx, tensor.shape, indices, updates)
        combine = None if combine_name is None else getattr(ctx.xp, combine_name)
        return _scatter_into(ctx, tensor, indices, updates, bad_indices_policy, combine)

    return kernel


# The types TF registers kernels for: any for Update; numbers for Add and Sub; real numbers for Max and Min.
_NUMBERS = tuple(dtypes.as_dtype(n) for n in ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16",
                                              "uint16", "int32", "int64", "uint32", "uint64", "complex64",
                                              "complex128"))
for _handle, _combine, _types in ((TensorScatterUpdate, None, None), (TensorScatterAdd, "add", _NUMBERS),
                                  (TensorScatterSub, "subtract", _NUMBERS),
                                  (TensorScatterMax, "maximum", _NUMBERS[:-2]),
                                  (TensorScatterMin, "minimum", _NUMBERS[:-2])):
    _handle.shape(_tensor_scatter_shape)
    _handle.kernel("CPU", type_constraints={} if _types is None else {"T": _types})(_tensor_scatter_kernel(_combine))


@tf_export("scatter_nd", "manip.scatter_nd")
def scatter_nd(indices: Any, updates: Any, shape: Any, bad_indices_policy: str = "",
               name: str | None = None) -> Tensor:
    """A zero tensor of `shape` with the slices of `updates` summed in at the rows of `indices`."""
    return ScatterNd(indices, updates, shape, bad_indices_policy=bad_indices_policy, name=name)


@tf_export("tensor_scatter_nd_update", "tensor_scatter_update")
def tensor_scatter_update(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """`tensor` with the slices at the rows of `indices` replaced by those of `updates`."""
    return TensorScatterUpdate(tensor, indices, updates, name=name)


@tf_export("tensor_scatter_nd_add", "tensor_scatter_add")
def tensor_scatter_add(tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "",
                       name: str | None = None) -> Tensor:
    """`tensor` with the slices of `updates` added at the rows of `indices` (repeated rows add up)."""
    return TensorScatterAdd(tensor, indices, updates, bad_indices_policy=bad_indices_policy, name=name)


@tf_export("tensor_scatter_nd_sub", "tensor_scatter_sub")
def tensor_scatter_sub(tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "",
                       name: str | None = None) -> Tensor:
    """`tensor` with the slices of `updates` subtracted at the rows of `indices`."""
    return TensorScatterSub(tensor, indices, updates, bad_indices_policy=bad_indices_policy, name=name)


@tf_export("tensor_scatter_nd_max")
def tensor_scatter_nd_max(tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "",
                          name: str | None = None) -> Tensor:
    """`tensor` with the elementwise maximum of its slices and `updates` at the rows of `indices`."""
    return TensorScatterMax(tensor, indices, updates, bad_indices_policy=bad_indices_policy, name=name)


@tf_export("tensor_scatter_nd_min")
def tensor_scatter_nd_min(tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "",
                          name: str | None = None) -> Tensor:
    """`tensor` with the elementwise minimum of its slices and `updates` at the rows of `indices`."""
    return TensorScatterMin(tensor, indices, updates, bad_indices_policy=bad_indices_policy, name=name)


@ScatterNd.gradient
def _scatter_nd_grad(op: Any, grad: Tensor) -> list:
    return [None, gather_nd(grad, op.inputs[0]), None]


@TensorScatterUpdate.gradient
def _tensor_scatter_update_grad(op: Any, grad: Tensor) -> list:
    indices = op.inputs[1]
    return [TensorScatterUpdate(grad, indices, zeros_like(op.inputs[2])), None, gather_nd(grad, indices)]


@TensorScatterAdd.gradient
def _tensor_scatter_add_grad(op: Any, grad: Tensor) -> list:
    return [grad, None, gather_nd(grad, op.inputs[1])]


@TensorScatterSub.gradient
def _tensor_scatter_sub_grad(op: Any, grad: Tensor) -> list:
    return [grad, None, raw_ops.Neg(x=gather_nd(grad, op.inputs[1]))]


def _tensor_scatter_min_or_max_grad(op: Any, grad: Tensor) -> list:
    """The gradient shared among the inputs equal to the output (TF's tie split), in TF's order of operations
    and with its node names (`grad * x_indicators / indicators` names its nodes mul and truediv)."""
    x, indices, y = op.inputs
    output = op.outputs[0]
    x_indicators = raw_ops.Cast(x=raw_ops.Equal(x=x, y=output), DstT=grad.dtype)
    y_indicators = raw_ops.Cast(x=raw_ops.Equal(x=y, y=gather_nd(output, indices)), DstT=grad.dtype)
    indicators = raw_ops.AddV2(x=x_indicators, y=ScatterNd(indices, y_indicators, shape(x, out_type=indices.dtype)),
                               name="add")
    x_grad = raw_ops.RealDiv(x=raw_ops.Mul(x=grad, y=x_indicators, name="mul"), y=indicators, name="truediv")
    y_grad = raw_ops.Mul(x=gather_nd(raw_ops.RealDiv(x=grad, y=indicators, name="truediv"), indices),
                         y=y_indicators, name="mul")
    return [x_grad, None, y_grad]


TensorScatterMax.gradient(_tensor_scatter_min_or_max_grad)
TensorScatterMin.gradient(_tensor_scatter_min_or_max_grad)

# -- DynamicPartition ------------------------------------------------------------------------------------

DynamicPartition = Op("DynamicPartition", inputs=["data: T", "partitions: int32"],
                      outputs=["outputs: num_partitions * T"], attrs=["num_partitions: int >= 1", "T: type"])


@DynamicPartition.shape
def _dynamic_partition_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data, partitions = ctx.input_shape(0), ctx.input_shape(1)
    count = ctx.attr("num_partitions")
    if data.ndims is None or partitions.ndims is None:
        return [tensor_shape.unknown_shape()] * count
    if data.ndims < partitions.ndims:
        raise ValueError(f"Shape must be at least rank {partitions.ndims} but is rank {data.ndims}")
    for a, b in zip(data.as_list(), partitions.as_list()):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return [tensor_shape.TensorShape([None]).concatenate(data[partitions.ndims:])] * count


@DynamicPartition.kernel("CPU")
def _dynamic_partition(ctx: OpKernelContext, data: Any, partitions: Any, num_partitions: int) -> list:
    if data.shape[:partitions.ndim] != partitions.shape:
        raise invalid_argument(ctx, "data.shape must start with partitions.shape, got data.shape = "
                                    f"{tensor_shape.shape_string(data.shape)}, partitions.shape = "
                                    f"{tensor_shape.shape_string(partitions.shape)}")
    flat = partitions.reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= num_partitions))
    if bad.size:
        position = ",".join(map(str, np.unravel_index(bad[0], partitions.shape)))
        raise invalid_argument(ctx, f"partitions[{position}] = {int(flat[bad[0]])} is not in [0, {num_partitions})")
    rows = data.reshape((flat.size,) + data.shape[partitions.ndim:])
    order = np.argsort(flat, kind="stable")
    bounds = np.cumsum(np.bincount(flat, minlength=num_partitions))[:-1]
    return ctx.xp.split(rows[order], bounds)


@tf_export("dynamic_partition")
def dynamic_partition(data: Any, partitions: Any, num_partitions: int, name: str | None = None) -> list:
    """The rows of `data` sorted, in order, into `num_partitions` tensors by `partitions`."""
    return DynamicPartition(data, partitions, num_partitions=num_partitions, name=name)


@DynamicPartition.gradient
def _dynamic_partition_grad(op: Any, *grads: Tensor) -> list:
    """Each gradient row stitched back to where its data row came from."""
    data, partitions = op.inputs
    prefix = shape(partitions)
    original = reshape(Range(0, raw_ops.Prod(input=prefix, reduction_indices=[0]), 1), prefix)
    partitioned = DynamicPartition(original, partitions, num_partitions=op.get_attr("num_partitions"))
    return [reshape(DynamicStitch(partitioned, list(grads)), shape(data)), None]


# -- DynamicStitch and ParallelDynamicStitch --------------------------------------------------------------

DynamicStitch = Op("DynamicStitch", inputs=["indices: N * int32", "data: N * T"], outputs=["merged: T"],
                   attrs=["N: int >= 1", "T: type"])
ParallelDynamicStitch = Op("ParallelDynamicStitch", inputs=["indices: N * int32", "data: N * T"],
                           outputs=["merged: T"], attrs=["N: int >= 1", "T: type"])


def _dynamic_stitch_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    n = ctx.attr("N")
    extra = tensor_shape.unknown_shape()
    all_known = True
    largest = -1
    for i in range(n):
        indices, data = ctx.input_shape(i), ctx.input_shape(n + i)
        value = ctx.input_value(i)
        if value is None:
            all_known = False
        elif value.size:
            largest = max(largest, int(value.max()))
        if indices.ndims is None or data.ndims is None:
            continue
        if data.ndims < indices.ndims:
            raise ValueError(f"Shape must be at least rank {indices.ndims} but is rank {data.ndims}")
        for a, b in zip(data.as_list(), indices.as_list()):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
        extra = tensor_shape.merge_shapes(extra, data[indices.ndims:])
    if extra.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape([largest + 1 if all_known else None]).concatenate(extra)]


def _dynamic_stitch(ctx: OpKernelContext, *args: Any, N: int) -> Any:  # noqa: N803 - TF's attr name
    """The data rows placed at their indices; where an index repeats, the last one given wins (as TF's CPU
    kernel); indices never given stay zero."""
    indices, data = args[:N], args[N:]
    for i, (ix, d) in enumerate(zip(indices, data)):
        if d.shape[:ix.ndim] != ix.shape:
            raise invalid_argument(ctx, f"data[{i}].shape = {tensor_shape.shape_string(d.shape)} does not start with "
                                        f"indices[{i}].shape = {tensor_shape.shape_string(ix.shape)}")
    slice_shape = data[0].shape[indices[0].ndim:]
    for i, (ix, d) in enumerate(zip(indices, data)):
        if d.shape[ix.ndim:] != slice_shape:
            raise invalid_argument(ctx, f"Need data[0].shape[{indices[0].ndim}:] = data[{i}].shape[{ix.ndim}:], got "
                                        f"data[0].shape = {tensor_shape.shape_string(data[0].shape)}, data[{i}].shape = "
                                        f"{tensor_shape.shape_string(d.shape)}, indices[0].shape = "
                                        f"{tensor_shape.shape_string(indices[0].shape)}, indices[{i}].shape = "
                                        f"{tensor_shape.shape_string(ix.shape)}")
    for ix in indices:
        flat = ix.reshape(-1)
        negative = np.flatnonzero(flat < 0)
        if negative.size:
            raise invalid_argument(ctx, f"indices[{int(negative[0])}] is out of range")
    all_indices = np.concatenate([ix.reshape(-1) for ix in indices]).astype(np.int64)
    all_rows = ctx.xp.concatenate([d.reshape((ix.size,) + slice_shape) for ix, d in zip(indices, data)])
    size = int(all_indices.max()) + 1 if all_indices.size else 0
    merged = ctx.xp.zeros((size,) + slice_shape, dtype=data[0].dtype)
    last, first_from_end = np.unique(all_indices[::-1], return_index=True)
    merged[last] = all_rows[all_indices.size - 1 - first_from_end]
    return merged


for _handle in (DynamicStitch, ParallelDynamicStitch):
    _handle.shape(_dynamic_stitch_shape)
    _handle.kernel("CPU")(_dynamic_stitch)


@tf_export("dynamic_stitch")
def dynamic_stitch(indices: list, data: list, name: str | None = None) -> Tensor:
    """One tensor whose row `indices[m][i]` is `data[m][i]`: the inverse of `dynamic_partition`."""
    return DynamicStitch(list(indices), list(data), name=name)


def parallel_dynamic_stitch(indices: list, data: list, name: str | None = None) -> Tensor:
    """`dynamic_stitch` as the ParallelDynamicStitch op (TF's `data_flow_ops.parallel_dynamic_stitch`)."""
    return ParallelDynamicStitch(list(indices), list(data), name=name)


def _dynamic_stitch_grad(op: Any, grad: Tensor) -> list:
    """Each data input's rows gathered back from the merged gradient (TF's: repeated indices get it twice)."""
    n = len(op.inputs) // 2
    return [None] * n + [gather(grad, i) for i in op.inputs[:n]]


DynamicStitch.gradient(_dynamic_stitch_grad)
ParallelDynamicStitch.gradient(_dynamic_stitch_grad)
