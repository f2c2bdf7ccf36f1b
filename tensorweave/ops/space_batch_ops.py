"""Moving blocks of space into depth or batch and back: SpaceToDepth and DepthToSpace, SpaceToBatchND and
BatchToSpaceND (with TF1's older SpaceToBatch and BatchToSpace), ExtractImagePatches and ExtractVolumePatches.

Every kernel is one reshape, one transpose and one reshape (plus a pad or a crop): the block dimensions are
split off the spatial ones and moved next to the channels or the batch. ExtractImagePatches gathers all
patches with one fancy index of row and column index grids. Gradients are each op's inverse; that of
ExtractImagePatches sums the patch gradients back into place by the pixel each patch element came from.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.indexing_ops import unsorted_segment_sum
from tensorweave.ops.kernel_helpers import invalid_argument, no_kernel_registered
from tensorweave.ops.manipulation_ops import transpose
from tensorweave.ops.sequence_ops import Range
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import reshape, shape
from tensorweave.platform.tf_export import tf_export

# -- SpaceToDepth and DepthToSpace ----------------------------------------------------------------------

_DEPTH_ATTRS = ["T: type", "block_size: int >= 2", "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"]
SpaceToDepth = Op("SpaceToDepth", inputs=["input: T"], outputs=["output: T"], attrs=_DEPTH_ATTRS)
DepthToSpace = Op("DepthToSpace", inputs=["input: T"], outputs=["output: T"], attrs=_DEPTH_ATTRS)


def _divided(dim: int | None, divisor: int) -> int | None:
    if dim is None:
        return None
    if dim % divisor:
        raise ValueError(f"Dimension size must be evenly divisible by {divisor} but is {dim}")
    return dim // divisor


@SpaceToDepth.shape
def _space_to_depth_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    block = ctx.attr("block_size")
    dims = with_rank(ctx.input_shape(0), 4)
    if dims.ndims is None:
        return [tensor_shape.unknown_shape(rank=4)]
    b, h, w, c = _nhwc(ctx, dims.as_list())
    return _in_format(ctx, [b, _divided(h, block), _divided(w, block), None if c is None else c * block * block])


@DepthToSpace.shape
def _depth_to_space_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    block = ctx.attr("block_size")
    dims = with_rank(ctx.input_shape(0), 4)
    if dims.ndims is None:
        return [tensor_shape.unknown_shape(rank=4)]
    b, h, w, c = _nhwc(ctx, dims.as_list())
    return _in_format(ctx, [b, None if h is None else h * block, None if w is None else w * block,
                            _divided(c, block * block)])


def _nhwc(ctx: InferenceContext, dims: list) -> list:
    """The dims of an NHWC, NCHW (or NCHW_VECT_C, whose vector lanes TF ignores here) input as [N, H, W, C]."""
    return dims if ctx.attr("data_format") in (b"NHWC", "NHWC") else [dims[0], dims[2], dims[3], dims[1]]


def _in_format(ctx: InferenceContext, dims: list) -> list[tensor_shape.TensorShape]:
    b, h, w, c = dims
    nhwc = ctx.attr("data_format") in (b"NHWC", "NHWC")
    return [tensor_shape.TensorShape([b, h, w, c] if nhwc else [b, c, h, w])]


def _check_nhwc(ctx: OpKernelContext, input: Any, data_format: bytes) -> None:  # noqa: A002
    """TF's CPU kernels take NHWC only (NCHW is a GPU layout there)."""
    if data_format != b"NHWC":
        raise no_kernel_registered(ctx)
    if input.ndim != 4:
        raise invalid_argument(ctx, f"Input rank should be: 4 instead of: {input.ndim}")


@SpaceToDepth.kernel("CPU")
def _space_to_depth(ctx: OpKernelContext, input: Any, block_size: int, data_format: bytes) -> Any:  # noqa: A002
    _check_nhwc(ctx, input, data_format)
    b, h, w, c = input.shape
    if h % block_size or w % block_size:
        raise invalid_argument(ctx, f"Image width {w} and height {h} should be divisible by block_size: {block_size}")
    blocks = input.reshape(b, h // block_size, block_size, w // block_size, block_size, c)
    return blocks.transpose(0, 1, 3, 2, 4, 5).reshape(b, h // block_size, w // block_size, c * block_size ** 2)


@DepthToSpace.kernel("CPU")
def _depth_to_space(ctx: OpKernelContext, input: Any, block_size: int, data_format: bytes) -> Any:  # noqa: A002
    _check_nhwc(ctx, input, data_format)
    b, h, w, c = input.shape
    if c % block_size ** 2:
        raise invalid_argument(ctx, f"Input depth dimension {c} should be divisible by: {block_size ** 2}")
    blocks = input.reshape(b, h, w, block_size, block_size, c // block_size ** 2)
    return blocks.transpose(0, 1, 3, 2, 4, 5).reshape(b, h * block_size, w * block_size, c // block_size ** 2)


@tf_export("nn.space_to_depth", "space_to_depth")
def space_to_depth(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Tensor:
    """Each block_size x block_size block of pixels folded into the channels."""
    return SpaceToDepth(input, block_size=block_size, data_format=data_format, name=name)


@tf_export("nn.depth_to_space", "depth_to_space")
def depth_to_space(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Tensor:
    """The channels unfolded into block_size x block_size blocks of pixels (the inverse of space_to_depth)."""
    return DepthToSpace(input, block_size=block_size, data_format=data_format, name=name)


@SpaceToDepth.gradient
def _space_to_depth_grad(op: Any, grad: Tensor) -> list:
    return [DepthToSpace(grad, block_size=op.get_attr("block_size"), data_format=op.get_attr("data_format"))]


@DepthToSpace.gradient
def _depth_to_space_grad(op: Any, grad: Tensor) -> list:
    return [SpaceToDepth(grad, block_size=op.get_attr("block_size"), data_format=op.get_attr("data_format"))]


# -- SpaceToBatchND and BatchToSpaceND -------------------------------------------------------------------

SpaceToBatchND = Op("SpaceToBatchND", inputs=["input: T", "block_shape: Tblock_shape", "paddings: Tpaddings"],
                    outputs=["output: T"],
                    attrs=["T: type", "Tblock_shape: {int32, int64} = DT_INT32", "Tpaddings: {int32, int64} = DT_INT32"])
BatchToSpaceND = Op("BatchToSpaceND", inputs=["input: T", "block_shape: Tblock_shape", "crops: Tcrops"],
                    outputs=["output: T"],
                    attrs=["T: type", "Tblock_shape: {int32, int64} = DT_INT32", "Tcrops: {int32, int64} = DT_INT32"])
SpaceToBatch = Op("SpaceToBatch", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
                  attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32", "block_size: int >= 2"])
BatchToSpace = Op("BatchToSpace", inputs=["input: T", "crops: Tidx"], outputs=["output: T"],
                  attrs=["T: type", "block_size: int >= 2", "Tidx: {int32, int64} = DT_INT32"])


def _space_batch_shape(input_shape: tensor_shape.TensorShape, block_shape_shape: tensor_shape.TensorShape,
                       block: Any, pads_shape: tensor_shape.TensorShape, pads: Any,
                       to_batch: bool) -> tensor_shape.TensorShape:
    """TF's SpaceToBatchShapeHelper / BatchToSpaceShapeHelper over partial shapes and known values."""
    if block_shape_shape.ndims not in (None, 1):
        raise ValueError("block_shape must have rank 1.")
    m = None if block_shape_shape.ndims is None else block_shape_shape.dims[0].value
    input_shape = with_rank_at_least(input_shape, 1 + (m or 0))
    tensor_shape.merge_shapes(pads_shape, tensor_shape.TensorShape([m, 2]))
    if input_shape.ndims is None:
        return tensor_shape.unknown_shape()
    if m is None:
        return tensor_shape.unknown_shape(rank=input_shape.ndims)
    dims = input_shape.as_list()
    out = [None] * (1 + m) + dims[1 + m:]
    if block is not None:
        block = block.tolist()
        if any(b < 1 for b in block):
            raise ValueError("block_shape must be positive")
        if to_batch:
            out[0] = None if dims[0] is None else dims[0] * math.prod(block)
        else:
            out[0] = dims[0]
            for size in block:  # one block dimension at a time, as TF's message shows
                out[0] = _divided(out[0], size)
    if block is not None and pads is not None:
        pads = pads.tolist()
        if any(p < 0 for pair in pads for p in pair):
            raise ValueError("paddings cannot be negative" if to_batch else "crops cannot be negative")
        for i in range(m):
            dim = dims[1 + i]
            if dim is None:
                continue
            if to_batch:
                out[1 + i] = _divided(dim + pads[i][0] + pads[i][1], block[i])
            else:
                size = dim * block[i] - pads[i][0]
                if size - pads[i][1] < 0:
                    raise ValueError(f"Negative dimension size caused by subtracting {pads[i][1]} from {size}")
                out[1 + i] = size - pads[i][1]
    return tensor_shape.TensorShape(out)


@SpaceToBatchND.shape
def _space_to_batch_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_space_batch_shape(ctx.input_shape(0), ctx.input_shape(1), ctx.input_value(1), ctx.input_shape(2),
                               ctx.input_value(2), to_batch=True)]


@BatchToSpaceND.shape
def _batch_to_space_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_space_batch_shape(ctx.input_shape(0), ctx.input_shape(1), ctx.input_value(1), ctx.input_shape(2),
                               ctx.input_value(2), to_batch=False)]


def _square_block(ctx: InferenceContext) -> np.ndarray:
    return np.array([ctx.attr("block_size")] * 2)


@SpaceToBatch.shape
def _space_to_batch_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_space_batch_shape(with_rank(ctx.input_shape(0), 4), tensor_shape.vector(2), _square_block(ctx),
                               ctx.input_shape(1), ctx.input_value(1), to_batch=True)]


@BatchToSpace.shape
def _batch_to_space_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_space_batch_shape(with_rank(ctx.input_shape(0), 4), tensor_shape.vector(2), _square_block(ctx),
                               ctx.input_shape(1), ctx.input_value(1), to_batch=False)]


def _block_and_pads(ctx: OpKernelContext, input: Any, block_shape: Any, pads: Any,  # noqa: A002
                    pads_name: str) -> tuple[list, list]:
    if block_shape.ndim != 1:
        raise invalid_argument(ctx, f"block_shape rank should be 1 instead of {block_shape.ndim}")
    m = block_shape.size
    if pads.shape != (m, 2):
        raise invalid_argument(ctx, f"{pads_name} should have shape [{m}, 2] instead of "
                                    f"{tensor_shape.shape_string(pads.shape)}")
    if input.ndim < 1 + m:
        raise invalid_argument(ctx, f"input rank should be >= {1 + m} instead of {input.ndim}")
    block = block_shape.tolist()
    if any(b < 1 for b in block):
        raise invalid_argument(ctx, "All values in block_shape must be positive, got value, " + str(min(block)))
    if (pads < 0).any():
        raise invalid_argument(ctx, f"All values in {pads_name} must be non-negative")
    return block, pads.tolist()


def _space_to_batch_nd_compute(ctx: OpKernelContext, input: Any, block_shape: Any, paddings: Any) -> Any:  # noqa: A002
    block, pads = _block_and_pads(ctx, input, block_shape, paddings, "paddings")
    m = len(block)
    xp = ctx.xp
    padded = xp.pad(input, [(0, 0), *[tuple(p) for p in pads]] + [(0, 0)] * (input.ndim - 1 - m))
    for i in range(m):
        if padded.shape[1 + i] % block[i]:
            raise invalid_argument(ctx, f"padded_shape[{i}]={padded.shape[1 + i]} is not divisible by "
                                        f"block_shape[{i}]={block[i]}")
    batch, rest = padded.shape[0], padded.shape[1 + m:]
    split = [batch] + [d for i in range(m) for d in (padded.shape[1 + i] // block[i], block[i])] + list(rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, len(split)))
    out_spatial = [padded.shape[1 + i] // block[i] for i in range(m)]
    return padded.reshape(split).transpose(perm).reshape([batch * math.prod(block), *out_spatial, *rest])


def _batch_to_space_nd_compute(ctx: OpKernelContext, input: Any, block_shape: Any, crops: Any) -> Any:  # noqa: A002
    block, crop = _block_and_pads(ctx, input, block_shape, crops, "crops")
    m = len(block)
    product = math.prod(block)
    if input.shape[0] % product:
        raise invalid_argument(ctx, f"Input batch dimension ({input.shape[0]}) is not divisible by product of block "
                                    f"sizes ({product})")
    for i in range(m):
        size = input.shape[1 + i] * block[i] - crop[i][0] - crop[i][1]
        if size < 0:
            raise invalid_argument(ctx, f"cropped_shape[{i}]={size} must be non-negative")
    batch = input.shape[0] // product
    spatial, rest = list(input.shape[1:1 + m]), list(input.shape[1 + m:])
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)] + list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    full = input.reshape(block + [batch] + spatial + rest).transpose(perm)
    full = full.reshape([batch] + [s * b for s, b in zip(spatial, block)] + rest)
    return full[(slice(None), *[slice(c[0], full.shape[1 + i] - c[1]) for i, c in enumerate(crop)])]


SpaceToBatchND.kernel("CPU", host_memory=("block_shape", "paddings"))(_space_to_batch_nd_compute)
BatchToSpaceND.kernel("CPU", host_memory=("block_shape", "crops"))(_batch_to_space_nd_compute)


@SpaceToBatch.kernel("CPU", host_memory=("paddings",))
def _space_to_batch(ctx: OpKernelContext, input: Any, paddings: Any, block_size: int) -> Any:  # noqa: A002
    if input.ndim != 4:
        raise invalid_argument(ctx, f"Input rank should be: 4 instead of: {input.ndim}")
    return _space_to_batch_nd_compute(ctx, input, np.array([block_size] * 2), paddings)


@BatchToSpace.kernel("CPU", host_memory=("crops",))
def _batch_to_space(ctx: OpKernelContext, input: Any, crops: Any, block_size: int) -> Any:  # noqa: A002
    if input.ndim != 4:
        raise invalid_argument(ctx, f"Input rank should be: 4 instead of: {input.ndim}")
    return _batch_to_space_nd_compute(ctx, input, np.array([block_size] * 2), crops)


@tf_export("space_to_batch_nd", "manip.space_to_batch_nd")
def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The spatial dimensions padded, cut into blocks of `block_shape`, and the block offsets moved into the batch."""
    return SpaceToBatchND(input, block_shape, paddings, name=name)


@tf_export("batch_to_space_nd", "manip.batch_to_space_nd")
def batch_to_space_nd(input: Any, block_shape: Any, crops: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The inverse of `space_to_batch_nd`: batch blocks moved back into space, then cropped."""
    return BatchToSpaceND(input, block_shape, crops, name=name)


@tf_export("nn.space_to_batch", "space_to_batch")
def space_to_batch(input: Any, paddings: Any, block_size: Any = None, name: str | None = None,  # noqa: A002
                   block_shape: Any = None) -> Tensor:
    """`space_to_batch_nd` over the two spatial dimensions of a 4-D input with a square block (TF1's form)."""
    block_size = _deprecated_block_argument(block_shape, block_size)
    result = space_to_batch_nd(input, np.array([block_size, block_size], dtype=np.int64), paddings, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


@tf_export("batch_to_space")
def batch_to_space(input: Any, crops: Any, block_size: Any, name: str | None = None,  # noqa: A002
                   block_shape: Any = None) -> Tensor:
    """`batch_to_space_nd` with a square block over the two spatial dimensions of a 4-D input (TF1's form)."""
    block_size = _deprecated_block_argument(block_shape, block_size)
    result = batch_to_space_nd(input, np.array([block_size, block_size], dtype=np.int64), crops, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def _deprecated_block_argument(block_shape: Any, block_size: Any) -> Any:
    """TF's deprecated_argument_lookup of `block_shape` (new) and `block_size` (old)."""
    if block_shape is not None:
        if block_size is not None:
            raise ValueError("Cannot specify both 'block_shape' and 'block_size'")
        return block_shape
    return block_size


@SpaceToBatchND.gradient
def _space_to_batch_nd_grad(op: Any, grad: Tensor) -> list:
    return [BatchToSpaceND(grad, op.inputs[1], op.inputs[2]), None, None]


@BatchToSpaceND.gradient
def _batch_to_space_nd_grad(op: Any, grad: Tensor) -> list:
    return [SpaceToBatchND(grad, op.inputs[1], op.inputs[2]), None, None]


@SpaceToBatch.gradient
def _space_to_batch_grad(op: Any, grad: Tensor) -> list:
    return [BatchToSpace(grad, op.inputs[1], block_size=op.get_attr("block_size")), None]


@BatchToSpace.gradient
def _batch_to_space_grad(op: Any, grad: Tensor) -> list:
    return [SpaceToBatch(grad, op.inputs[1], block_size=op.get_attr("block_size")), None]


# -- ExtractImagePatches ------------------------------------------------------------------------------------

ExtractImagePatches = Op("ExtractImagePatches", inputs=["images: T"], outputs=["patches: T"],
                         attrs=["ksizes: list(int) >= 4", "strides: list(int) >= 4", "rates: list(int) >= 4",
                                "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, "
                                "uint64, complex64, complex128, bool}", "padding: {'SAME', 'VALID'}"])


def _patch_geometry(size: int, ksize: int, stride: int, rate: int, padding: bytes) -> tuple[int, int, int]:
    """Output size, leading padding and effective (dilated) kernel size along one spatial dimension."""
    effective = ksize + (ksize - 1) * (rate - 1)
    if padding == b"VALID":
        out = max(-(-(size - effective + 1) // stride), 0)
        return out, 0, effective
    out = -(-size // stride)
    return out, max((out - 1) * stride + effective - size, 0) // 2, effective


def _attr_bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


@ExtractImagePatches.shape
def _extract_image_patches_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    dims = with_rank(ctx.input_shape(0), 4)
    ksizes, strides, rates = (ctx.attr(a) for a in ("ksizes", "strides", "rates"))
    for attr, value in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if len(value) != 4:
            raise ValueError(f"ExtractImagePatches requires the {attr} attribute to contain 4 values, but got: "
                             f"{len(value)}")
    for stride in strides[1:3]:  # TF's windowed-size helper, which refuses it whatever the input size
        if stride <= 0:
            raise ValueError(f"Stride must be > 0, but got {stride}")
    if dims.ndims is None:
        return [tensor_shape.unknown_shape(rank=4)]
    b, h, w, c = dims.as_list()
    padding = _attr_bytes(ctx.attr("padding"))
    out = [None if size is None else _patch_geometry(size, ksizes[i], strides[i], rates[i], padding)[0]
           for i, size in ((1, h), (2, w))]
    return [tensor_shape.TensorShape([b, *out, None if c is None else ksizes[1] * ksizes[2] * c])]


@ExtractImagePatches.kernel("CPU")
def _extract_image_patches(ctx: OpKernelContext, images: Any, ksizes: list, strides: list, rates: list,
                           padding: bytes) -> Any:
    for attr, value in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if value[0] != 1 or value[3] != 1:
            raise errors.UnimplementedError(ctx.node_def, None, f"Only support {attr} across space.")
    if images.ndim != 4:
        raise invalid_argument(ctx, f"input must be 4-dimensional{tensor_shape.shape_string(images.shape)}")
    xp = ctx.xp
    grids, pads = [], []
    for i in (1, 2):
        out, before, effective = _patch_geometry(images.shape[i], ksizes[i], strides[i], rates[i], _attr_bytes(padding))
        grids.append(xp.arange(out)[:, None] * strides[i] + xp.arange(ksizes[i])[None, :] * rates[i])
        pads.append((before, max((out - 1) * strides[i] + effective - images.shape[i] - before, 0)))
    padded = xp.pad(images, [(0, 0), *pads, (0, 0)])
    rows, cols = grids
    patches = padded[:, rows[:, None, :, None], cols[None, :, None, :], :]  # [b, out_h, out_w, k_h, k_w, c]
    b, out_h, out_w = patches.shape[:3]
    return patches.reshape(b, out_h, out_w, -1)


@tf_export("image.extract_image_patches", "extract_image_patches")
def extract_image_patches(images: Any, ksizes: Any = None, strides: Any = None, rates: Any = None,
                          padding: Any = None, name: str | None = None, sizes: Any = None) -> Tensor:
    """Each ksizes patch of `images` (sampled every `rates`, placed every `strides`) flattened into the depth."""
    ksizes = _deprecated_sizes(sizes, ksizes)
    return ExtractImagePatches(images, ksizes=list(ksizes), strides=list(strides), rates=list(rates),
                               padding=padding, name=name)


def _deprecated_sizes(sizes: Any, ksizes: Any) -> Any:
    if sizes is not None:
        if ksizes is not None:
            raise ValueError("Cannot specify both 'sizes' and 'ksizes'")
        return sizes
    return ksizes


@ExtractImagePatches.gradient
def _extract_image_patches_grad(op: Any, grad: Tensor) -> list:
    """Patch gradients summed into the pixels they came from: the patches of a map of pixel numbers (1-based,
    0 for padding) say which pixel each patch element read."""
    images = op.inputs[0]
    image_shape = shape(images)
    height, width = image_shape[1], image_shape[2]
    pixels = height * width
    numbers = reshape(Range(1, pixels + 1, 1), raw_ops.Pack(values=[1, height, width, 1], axis=0))
    attrs = {a: op.get_attr(a) for a in ("ksizes", "strides", "rates", "padding")}
    sources = reshape(ExtractImagePatches(raw_ops.Cast(x=numbers, DstT=dtypes.int64), **attrs), [-1])
    channels = image_shape[3]
    per_element = transpose(reshape(grad, raw_ops.Pack(values=[image_shape[0], -1, channels], axis=0)), [1, 0, 2])
    summed = unsorted_segment_sum(per_element, sources, pixels + 1)[1:]
    return [transpose(reshape(summed, raw_ops.Pack(values=[height, width, image_shape[0], channels], axis=0)),
                      [2, 0, 1, 3])]


# -- ExtractVolumePatches -----------------------------------------------------------------------------------

ExtractVolumePatches = Op("ExtractVolumePatches", inputs=["input: T"], outputs=["patches: T"],
                          attrs=["ksizes: list(int) >= 5", "strides: list(int) >= 5",
                                 "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
                                 "uint64}", "padding: {'SAME', 'VALID'}"])


@ExtractVolumePatches.shape
def _extract_volume_patches_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    dims = with_rank(ctx.input_shape(0), 5)
    ksizes, strides = ctx.attr("ksizes"), ctx.attr("strides")
    for attr, value in (("ksizes", ksizes), ("strides", strides)):
        if len(value) != 5:
            raise ValueError(f"ExtractVolumePatches requires the {attr} attribute to contain 5 values, but got: "
                             f"{len(value)}")
    if dims.ndims is None:
        return [tensor_shape.unknown_shape(rank=5)]
    batch, *spatial, depth = dims.as_list()
    padding = _attr_bytes(ctx.attr("padding"))
    out = [None if size is None else _patch_geometry(size, ksizes[i + 1], strides[i + 1], 1, padding)[0]
           for i, size in enumerate(spatial)]
    return [tensor_shape.TensorShape([batch, *out, None if depth is None else
                                      ksizes[1] * ksizes[2] * ksizes[3] * depth])]


@ExtractVolumePatches.kernel("CPU")
def _extract_volume_patches(ctx: OpKernelContext, input: Any, ksizes: list, strides: list,  # noqa: A002
                            padding: bytes) -> Any:
    for attr, value in (("ksizes", ksizes), ("strides", strides)):
        if value[0] != 1 or value[4] != 1:
            raise errors.UnimplementedError(ctx.node_def, None, f"Only support {attr} across space.")
    if input.ndim != 5:
        raise invalid_argument(ctx, f"input must be 5-dimensional{tensor_shape.shape_string(input.shape)}")
    xp = ctx.xp
    grids, pads = [], []
    for i in (1, 2, 3):
        out, before, effective = _patch_geometry(input.shape[i], ksizes[i], strides[i], 1, _attr_bytes(padding))
        grids.append(xp.arange(out)[:, None] * strides[i] + xp.arange(ksizes[i])[None, :])
        pads.append((before, max((out - 1) * strides[i] + effective - input.shape[i] - before, 0)))
    padded = xp.pad(input, [(0, 0), *pads, (0, 0)])
    planes, rows, cols = grids
    # [b, out_p, out_r, out_c, k_p, k_r, k_c, depth]
    patches = padded[:, planes[:, None, None, :, None, None], rows[None, :, None, None, :, None],
                     cols[None, None, :, None, None, :], :]
    return patches.reshape(patches.shape[:4] + (-1,))


@ExtractVolumePatches.gradient
def _extract_volume_patches_grad(op: Any, grad: Tensor) -> list:
    """As ExtractImagePatches': the patches of a map of voxel numbers say where each element's gradient goes."""
    volume = op.inputs[0]
    dims = shape(volume)
    voxels = dims[1] * dims[2] * dims[3]
    numbers = reshape(Range(1, voxels + 1, 1), raw_ops.Pack(values=[1, dims[1], dims[2], dims[3], 1], axis=0))
    attrs = {a: op.get_attr(a) for a in ("ksizes", "strides", "padding")}
    sources = reshape(ExtractVolumePatches(raw_ops.Cast(x=numbers, DstT=dtypes.int64), **attrs), [-1])
    per_element = transpose(reshape(grad, raw_ops.Pack(values=[dims[0], -1, dims[4]], axis=0)), [1, 0, 2])
    summed = unsorted_segment_sum(per_element, sources, voxels + 1)[1:]
    return [transpose(reshape(summed, raw_ops.Pack(values=[dims[1], dims[2], dims[3], dims[0], dims[4]], axis=0)),
                      [3, 0, 1, 2, 4])]


@tf_export("extract_volume_patches")
def extract_volume_patches(input: Any, ksizes: Any, strides: Any, padding: Any,  # noqa: A002
                           name: str | None = None) -> Tensor:
    """Each ksizes patch of the [batch, planes, rows, cols, depth] `input`, placed every `strides`, flattened
    into the depth."""
    return ExtractVolumePatches(input, ksizes=list(ksizes), strides=list(strides), padding=padding, name=name)
