"""Linear-algebra ops: the QR decomposition and the diagonal of a square tensor.

They exist for what builds on them (the orthogonal initializer), with TF's op types and attrs so graphs
round-trip with real TF; the batched forms run over the leading dimensions as TF's kernels do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext

Qr = Op("Qr", inputs=["input: T"], outputs=["q: T", "r: T"],
        attrs=["full_matrices: bool = false", "T: {double, float, half, complex64, complex128}"])


@Qr.shape
def _qr_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    if shape.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.ndims}")
    *batch, rows, cols = shape.dims
    rows, cols = rows.value, cols.value
    if ctx.attr("full_matrices"):
        q_cols = rows
        r_rows = rows
    else:
        q_cols = None if rows is None or cols is None else min(rows, cols)
        r_rows = q_cols
    return [tensor_shape.TensorShape(batch + [rows, q_cols]), tensor_shape.TensorShape(batch + [r_rows, cols])]


@Qr.kernel("CPU", expensive=True)
def _qr(ctx: OpKernelContext, input: Any, full_matrices: bool) -> tuple[Any, Any]:  # noqa: A002 - TF's arg name
    if input.ndim < 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Input tensor 0 must have rank >= 2, got "
                                          f"{input.ndim}")
    q, r = ctx.xp.linalg.qr(input, mode="complete" if full_matrices else "reduced")
    return q.astype(input.dtype, copy=False), r.astype(input.dtype, copy=False)


DiagPart = Op("DiagPart", inputs=["input: T"], outputs=["diagonal: T"],
              attrs=["T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"])


@DiagPart.shape
def _diag_part_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if shape.ndims % 2 or not shape.ndims:
        raise ValueError(f"Input must have even and non-zero rank, input rank is {shape.ndims}")
    half = shape.ndims // 2
    dims = []
    for a, b in zip(shape.dims[:half], shape.dims[half:]):
        if not a.is_compatible_with(b):
            raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}")
        dims.append(a.merge_with(b))
    return [tensor_shape.TensorShape(dims)]


@DiagPart.kernel("CPU")
def _diag_part(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002 - TF's arg name
    """input[i1..ik, i1..ik] for every index tuple: the diagonal of the input seen as a square matrix."""
    half = input.ndim // 2
    if input.ndim % 2 or input.shape[:half] != input.shape[half:]:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Invalid shape {list(input.shape)}: dimensions "
                                          f"must match for the input's two halves")
    size = int(np.prod(input.shape[:half], dtype=np.int64))
    return ctx.xp.diagonal(input.reshape(size, size)).reshape(input.shape[:half])
