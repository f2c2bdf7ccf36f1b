"""Shape ops: a tensor's shape read as a tensor (Shape, ShapeN, Size, Rank: a Const when known while building,
as in TF) and the same elements under another shape (Reshape, ExpandDims, Squeeze, BroadcastTo), with
`tf.broadcast_static_shape`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.ops import raw_ops
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.kernel_helpers import invalid_argument, make_shape
from tensorweave.ops.shape_helpers import broadcast_shapes, shape_from_tensor
from tensorweave.platform.tf_export import tf_export

# -- Reshape -----------------------------------------------------------------------------------------

Reshape = Op("Reshape", inputs=["tensor: T", "shape: Tshape"], outputs=["output: T"],
             attrs=["T: type", "Tshape: {int32, int64} = DT_INT32"])


def _known_elements(dims: list) -> tuple[int | None, int]:
    """TF's NumElements of a partial shape (0 as soon as a dim is 0, whatever the others), else the product of
    its known dims and the index of its one unknown dim (-2 for several: nothing is inferred then)."""
    if 0 in dims:
        return 0, -1
    unknown = [i for i, d in enumerate(dims) if d is None]
    if len(unknown) > 1:
        return None, -2
    return int(np.prod([d for d in dims if d is not None], dtype=np.int64)), unknown[0] if unknown else -1


@Reshape.shape
def _reshape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's SetOutputShapeForReshape: the one unknown output dim (a -1, or not known statically) is inferred
    from a fully known input size, an output size is checked against the input's known dims."""
    target = ctx.input_as_shape(1)
    source = ctx.input_shape(0)
    if target.ndims is None or source.ndims is None:
        return [target]
    dims = target.as_list()
    out_known, out_unknown = _known_elements(dims)
    in_known, in_unknown = _known_elements(source.as_list())
    if out_unknown == -2 or in_unknown == -2:
        return [target]
    if in_unknown < 0 and out_unknown < 0:
        if in_known != out_known:
            raise ValueError(f"Cannot reshape a tensor with {in_known} elements to shape "
                             f"{tensor_shape.shape_string(dims)} ({out_known} elements)")
    elif in_unknown < 0 and out_unknown >= 0 and out_known > 0:
        if in_known % out_known:
            raise ValueError(f"Dimension size must be evenly divisible by {out_known} but is {in_known}")
        dims[out_unknown] = in_known // out_known
    elif in_unknown >= 0 and out_unknown < 0 and in_known != 0 and out_known % in_known:
        raise ValueError(f"Dimension size must be evenly divisible by {in_known} but is {out_known}")
    return [tensor_shape.TensorShape(dims)]


@Reshape.kernel("CPU")
def _reshape(ctx: OpKernelContext, tensor: Any, shape: Any) -> Any:
    """TF's ReshapeOp: sizes are checked in order; a -1 is inferred from the input's size, where zero-sized
    dimensions on both sides are left out of the division (so an empty tensor can still infer it)."""
    if shape.ndim > 1:
        raise invalid_argument(ctx, f"sizes input must be 1-D, not {tensor_shape.shape_string(shape.shape)}")
    dims = shape.reshape(-1).tolist()
    product, unknown, has_zero = 1, -1, False
    for index, size in enumerate(dims):
        if size > 0:
            product *= size
        elif size == 0:
            has_zero = True
        elif size == -1:
            if unknown != -1:
                raise invalid_argument(ctx, f"Only one input size may be -1, not both {unknown} and {index}")
            unknown = index
        else:
            raise invalid_argument(ctx, f"Size {index} must be non-negative, not {size}")
    if unknown != -1:
        counted = [d for d in tensor.shape if d > 0 or not has_zero]
        input_size = math.prod(counted)
        missing = input_size // product
        if len(counted) == tensor.ndim and product * missing != input_size:
            raise invalid_argument(ctx, f"Input to reshape is a tensor with {input_size} values, but the requested shape "
                           f"requires a multiple of {product}")
        dims[unknown] = missing
    requested = math.prod(dims)
    if requested != tensor.size:
        raise invalid_argument(ctx, f"Input to reshape is a tensor with {tensor.size} values, but the requested shape has "
                       f"{requested}")
    return ctx.xp.reshape(tensor, dims)


@tf_export("reshape", "manip.reshape")
def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """`tensor` with a new shape of the same number of elements; one dim may be -1."""
    result = Reshape(tensor, shape, name=name)
    tensor_util.maybe_set_static_shape(result, shape)
    return result

# -- Shape, Size, Rank -------------------------------------------------------------------------------

Shape = Op("Shape", inputs=["input: T"], outputs=["output: out_type"],
           attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
           output_full_types={"output": "type_id: TFT_SHAPE_TENSOR args { type_id: TFT_VAR s: 'out_type' }"})


@Shape.shape
def _shape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([ctx.input_shape(0).ndims])]


@Shape.kernel("CPU")
def _shape(ctx: OpKernelContext, input: Any, out_type: dtypes.DType) -> Any:  # noqa: A002
    return np.array(input.shape, dtype=out_type.as_numpy_dtype)


@tf_export("shape")
def shape(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:  # noqa: A002
    """The shape of `input` as a 1-D tensor: a Const when it is fully known while building, as in TF; a
    SparseTensor's is its dense_shape, cast."""
    out_type = dtypes.int32 if out_type is None else out_type
    with name_scope(name, "Shape", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):
            return raw_ops.Cast(x=input.dense_shape, DstT=out_type)
        input = convert_to_tensor(input)
        if input.shape.is_fully_defined():
            return constant(input.shape.as_list(), dtype=out_type, name=scope)
        return Shape(input, out_type=out_type, name=scope)


def shape_internal(input: Any, name: str | None = None, optimize: bool = True) -> Tensor:  # noqa: A002
    """TF's internal shape (out_type unset) that wrappers such as *_like and searchsorted use: a Const
    `Shape/shape_as_tensor` (int64 only when a dimension needs it) when the shape is fully known, else a
    Shape op `Shape`."""
    with name_scope(name, "Shape", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):
            return raw_ops.Cast(x=input.dense_shape, DstT=dtypes.int32)
        input = convert_to_tensor(input)
        static = input.shape
        if optimize and static.is_fully_defined():
            dims = static.as_list()
            dtype = dtypes.int64 if any(d >= 2**31 for d in dims) else dtypes.int32
            return constant(dims, dtype=dtype, name="shape_as_tensor")
        return Shape(input, out_type=dtypes.int32, name=scope)


ShapeN = Op("ShapeN", inputs=["input: N * T"], outputs=["output: N * out_type"],
            attrs=["N: int >= 1", "T: type", "out_type: {int32, int64} = DT_INT32"])


@ShapeN.shape
def _shape_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([s.ndims]) for s in ctx.input_shapes]


@ShapeN.kernel("CPU")
def _shape_n(ctx: OpKernelContext, *inputs: Any, out_type: dtypes.DType) -> list:
    return [np.array(x.shape, dtype=out_type.as_numpy_dtype) for x in inputs]


@tf_export("shape_n")
def shape_n(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> list[Tensor]:  # noqa: A002
    """The shapes of several tensors in one op (always a ShapeN node, unlike `shape`'s folding), as in TF."""
    return ShapeN(input, out_type=out_type, name=name)


Size = Op("Size", inputs=["input: T"], outputs=["output: out_type"],
          attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])


@Size.shape
def _size_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@Size.kernel("CPU")
def _size(ctx: OpKernelContext, input: Any, out_type: dtypes.DType) -> Any:  # noqa: A002
    return np.array(input.size, dtype=out_type.as_numpy_dtype)


@tf_export("size")
@add_dispatch_support
def size(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:  # noqa: A002
    """The number of elements of `input`: a Const when known while building (or a dimension is 0); a
    SparseTensor's is the product of its dense_shape, cast."""
    out_type = dtypes.int32 if out_type is None else out_type
    with name_scope(name, "Size", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):
            cast = raw_ops.Cast(x=input.dense_shape, DstT=out_type)
            return raw_ops.Prod(input=cast, reduction_indices=0, name=scope)
        input = convert_to_tensor(input)
        static = input.shape
        if static.is_fully_defined():
            return constant(static.num_elements(), dtype=out_type, name=scope)
        if static.dims and any(d.value == 0 for d in static.dims):
            return constant(0, dtype=out_type, name=scope)
        return Size(input, out_type=out_type, name=scope)


Rank = Op("Rank", inputs=["input: T"], outputs=["output: int32"], attrs=["T: type"])


@Rank.shape
def _rank_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@Rank.kernel("CPU")
def _rank(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return np.array(input.ndim, dtype=np.int32)


@tf_export("rank")
@add_dispatch_support
def rank(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The number of dimensions of `input`: a Const when the rank is known while building, as in TF; a
    SparseTensor's is the size of its dense_shape."""
    with name_scope(name, "Rank", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):
            return Size(input.dense_shape, name=scope)
        input = convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtype=dtypes.int32, name=scope)
        return Rank(input, name=scope)


# -- ExpandDims, Squeeze -----------------------------------------------------------------------------

ExpandDims = Op("ExpandDims", inputs=["input: T", "dim: Tdim"], outputs=["output: T"],
                attrs=["T: type", "Tdim: {int32, int64} = DT_INT32"])


@ExpandDims.shape
def _expand_dims_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    dim = ctx.input_value(1)
    if dim is not None and dim.size != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    input_shape = ctx.input_shape(0)
    if dim is None or input_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    dim = int(dim.reshape(-1)[0])
    rank = input_shape.ndims
    if not -rank - 1 <= dim <= rank:
        raise ValueError(f"dim {dim} not in the interval [{-rank - 1}, {rank}].")
    dims = input_shape.as_list()
    dims.insert(dim + rank + 1 if dim < 0 else dim, 1)
    return [tensor_shape.TensorShape(dims)]


@ExpandDims.kernel("CPU")
def _expand_dims(ctx: OpKernelContext, input: Any, dim: Any) -> Any:  # noqa: A002
    if dim.size != 1:
        raise invalid_argument(ctx, "'dim' must be a tensor with a single value")
    dim = int(dim.reshape(-1)[0])
    if not -1 - input.ndim <= dim <= input.ndim:
        raise invalid_argument(ctx, f"Tried to expand dim index {dim} for tensor with {input.ndim} dimensions.")
    return ctx.xp.expand_dims(input, dim)


@tf_export("expand_dims")
def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:  # noqa: A002
    """`input` with a new dimension of size 1 inserted at `axis` (`dim` is TF1's deprecated alias)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return ExpandDims(input, axis, name=name)


Squeeze = Op("Squeeze", inputs=["input: T"], outputs=["output: T"],
             attrs=["T: type", "squeeze_dims: list(int) >= 0 = []"])


@Squeeze.shape
def _squeeze_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    if input_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rank = input_shape.ndims
    wanted = set()
    for i, d in enumerate(ctx.attr("squeeze_dims")):
        if not -rank <= d < rank:
            raise ValueError(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
        wanted.add(d + rank if d < 0 else d)
    dims = []
    for i, d in enumerate(input_shape.as_list()):
        if d is None:
            if i in wanted:
                continue  # assumed to be 1 when the graph runs
            if not wanted:
                return [tensor_shape.unknown_shape()]
        elif d == 1:
            if i in wanted or not wanted:
                continue
        elif i in wanted:
            raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
        dims.append(d)
    return [tensor_shape.TensorShape(dims)]


@Squeeze.kernel("CPU")
def _squeeze(ctx: OpKernelContext, input: Any, squeeze_dims: list) -> Any:  # noqa: A002
    rank = input.ndim
    wanted = set()
    for d in squeeze_dims:
        if not -rank <= d < rank:
            raise invalid_argument(ctx, f"Tried to squeeze dim index {d} for tensor with {rank} dimensions.")
        wanted.add(d + rank if d < 0 else d)
    for d in sorted(wanted):
        if input.shape[d] != 1:
            raise invalid_argument(ctx, f"Can not squeeze dim[{d}], expected a dimension of 1, got {input.shape[d]}")
    return ctx.xp.reshape(input, [n for i, n in enumerate(input.shape)
                                  if not (i in wanted or (not wanted and n == 1))])


@tf_export("squeeze")
def squeeze(input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None) -> Tensor:  # noqa: A002
    """`input` without its size-1 dimensions (only those in `axis` when given)."""
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'.")
    axis = squeeze_dims if axis is None else axis
    if np.isscalar(axis):
        axis = [axis]
    if axis is None:
        axis = []
    if not isinstance(axis, (list, tuple)):  # TF's generated wrapper names its Python argument, `axis`
        raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axis!r}.")
    return Squeeze(input, squeeze_dims=list(axis), name=name)


# -- BroadcastTo -------------------------------------------------------------------------------------

BroadcastTo = Op("BroadcastTo", inputs=["input: T", "shape: Tidx"], outputs=["output: T"],
                 attrs=["T: type", "Tidx: {int32, int64} = DT_INT32"])


@BroadcastTo.shape
def _broadcast_to_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape, target = ctx.input_shape(0), shape_from_tensor(ctx, 1)
    if target.ndims is None or input_shape.ndims is None:
        return [target]
    if input_shape.ndims > target.ndims:
        raise ValueError(f"Shape must be at most rank {target.ndims} but is rank {input_shape.ndims}")
    dims = target.as_list()
    offset = target.ndims - input_shape.ndims
    for i, in_dim in enumerate(input_shape.as_list()):
        out_dim = dims[offset + i]
        if out_dim is None:
            dims[offset + i] = in_dim if in_dim not in (None, 1) else None
        elif in_dim not in (None, 1, out_dim):
            raise ValueError(f"Dimensions must be equal, but are {in_dim} and {out_dim}")
    return [tensor_shape.TensorShape(dims)]


@BroadcastTo.kernel("CPU")
def _broadcast_to(ctx: OpKernelContext, input: Any, shape: Any) -> Any:  # noqa: A002
    target = make_shape(ctx, shape)
    if input.ndim > len(target):
        raise invalid_argument(ctx, f"Rank of input ({input.ndim}) must be no greater than rank of output shape "
                       f"({len(target)}).")
    try:
        broadcast = np.broadcast_shapes(input.shape, target)
    except ValueError:
        raise invalid_argument(ctx, f"Incompatible shapes: {tensor_shape.shape_string(input.shape)} vs. "
                       f"{tensor_shape.shape_string(target)}") from None
    if broadcast != target:
        raise invalid_argument(ctx, f"Unable to broadcast tensor of shape {tensor_shape.shape_string(input.shape)} to "
                       f"tensor of shape {tensor_shape.shape_string(target)}")
    return ctx.xp.broadcast_to(input, target)


@tf_export("broadcast_to")
def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """`input` repeated along its size-1 (and new leading) dimensions to `shape`."""
    return BroadcastTo(input, shape, name=name)


@BroadcastTo.gradient
def _broadcast_to_grad(op: Any, grad: Tensor) -> list:
    input_shape = shape(op.inputs[0])
    reduce_axes, _ = BroadcastGradientArgs(input_shape, shape(op.outputs[0]))
    summed = raw_ops.Sum(input=grad, reduction_indices=reduce_axes, keep_dims=True)
    return [Reshape(summed, input_shape), None]


BroadcastGradientArgs = Op("BroadcastGradientArgs", inputs=["s0: T", "s1: T"], outputs=["r0: T", "r1: T"],
                           attrs=["T: {int32, int64} = DT_INT32"])


@BroadcastGradientArgs.shape
def _broadcast_gradient_args_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    for i in range(2):
        if ctx.input_shape(i).ndims not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {ctx.input_shape(i).ndims}")
    return [tensor_shape.vector(None), tensor_shape.vector(None)]


def _static_reduction_axes(x: tensor_shape.TensorShape,
                           y: tensor_shape.TensorShape) -> tuple[list[int], list[int]] | None:
    """The axes each input of a broadcasting binary op was broadcast over, when the static shapes decide it
    (a dimension of 1 against any other, even unknown, one); None when the decision waits for the values."""
    if x.rank is None or y.rank is None:
        return None
    rank = max(x.rank, y.rank)
    dims_x = [1] * (rank - x.rank) + x.as_list()
    dims_y = [1] * (rank - y.rank) + y.as_list()
    axes_x: list[int] = []
    axes_y: list[int] = []
    for axis, (dim_x, dim_y) in enumerate(zip(dims_x, dims_y)):
        if dim_x == 1 and dim_y != 1:
            axes_x.append(axis)
        elif dim_y == 1 and dim_x != 1:
            axes_y.append(axis)
        elif dim_x is None or dim_y is None:
            return None
    return axes_x, axes_y


@BroadcastGradientArgs.kernel("CPU", host_memory=("s0", "s1", "r0", "r1"))
def _broadcast_gradient_args(ctx: OpKernelContext, s0: Any, s1: Any, T: dtypes.DType) -> list:  # noqa: N803
    x, y = tuple(s0.tolist()), tuple(s1.tolist())
    try:
        out = np.broadcast_shapes(x, y)
    except ValueError:
        raise invalid_argument(ctx, f"Incompatible shapes: {tensor_shape.shape_string(x)} vs. "
                                    f"{tensor_shape.shape_string(y)}") from None
    if x == y:
        return [np.zeros(0, T.as_numpy_dtype), np.zeros(0, T.as_numpy_dtype)]
    # TF's BCast: every dimension that is 1 in an input padded with leading ones to the output's rank.
    return [np.array([i for i, dim in enumerate((1,) * (len(out) - len(s)) + s) if dim == 1],
                     dtype=T.as_numpy_dtype) for s in (x, y)]


def broadcast_gradient_args(x: Tensor, y: Tensor, grad: Tensor | None = None) -> tuple[tuple, tuple]:
    """For each of a broadcasting binary op's inputs, (its shape, the axes to sum its gradient over, whether
    it must be summed): static axes where the shapes known while building decide them, else
    BroadcastGradientArgs at run time (TF's SmartBroadcastGradientArgs; `grad` is unused, as in TF)."""
    x_shape, y_shape = shape(x), shape(y)
    static = _static_reduction_axes(x.shape, y.shape)
    if static is None:
        reduce_x, reduce_y = BroadcastGradientArgs(x_shape, y_shape)
        return (x_shape, reduce_x, True), (y_shape, reduce_y, True)
    axes_x, axes_y = static
    return ((x_shape, axes_x, bool(axes_x) or x.shape.rank < y.shape.rank),
            (y_shape, axes_y, bool(axes_y) or y.shape.rank < x.shape.rank))


def unbroadcast(grad: Tensor | None, shape_axes_must_reduce: tuple) -> Tensor | None:
    """The gradient of a broadcast input: `grad` summed over its broadcast axes (kept, as TF's: a later
    Sum gradient needs no index arithmetic) and reshaped to its shape."""
    input_shape, axes, must_reduce = shape_axes_must_reduce
    if grad is None or not must_reduce:
        return grad
    return reshape(raw_ops.Sum(input=grad, reduction_indices=axes, keep_dims=True), input_shape)


def _reshape_to_input(op: Any, grad: Tensor) -> Tensor:
    return reshape(grad, shape(op.inputs[0]))


@Reshape.gradient
def _reshape_grad(op: Any, grad: Tensor) -> list:
    """Back to the input's shape; with one unknown dim (and none 0) a static shape with -1 (TF's wildcard),
    so the gradient does not depend on a Shape op."""
    dims = op.inputs[0].shape
    if dims.ndims is not None and not dims.is_fully_defined():
        as_list = dims.as_list()
        unknown = [i for i, d in enumerate(as_list) if d is None]
        if len(unknown) == 1 and 0 not in as_list:
            as_list[unknown[0]] = -1
            return [reshape(convert_to_tensor(grad), as_list), None]
    return [_reshape_to_input(op, convert_to_tensor(grad)), None]


@ExpandDims.gradient
def _expand_dims_grad(op: Any, grad: Tensor) -> list:
    return [_reshape_to_input(op, grad), None]


@Squeeze.gradient
def _squeeze_grad(op: Any, grad: Tensor) -> list:
    return [_reshape_to_input(op, grad)]


for _op_type in ("Shape", "ShapeN", "Size", "Rank", "BroadcastGradientArgs"):
    NotDifferentiable(_op_type)


@tf_export("broadcast_static_shape")
def broadcast_static_shape(shape_x: tensor_shape.TensorShape,
                           shape_y: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """`tf.broadcast_static_shape`: the broadcast of two TensorShapes, failing with TF's Python message."""
    try:
        return broadcast_shapes(shape_x, shape_y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                         "pair they are either equal or one of them is 1. Received: "
                         f"{shape_x} and {shape_y}.") from None


BroadcastArgs = Op("BroadcastArgs", inputs=["s0: T", "s1: T"], outputs=["r0: T"], attrs=["T: {int32, int64} = DT_INT32"])


@BroadcastArgs.shape
def _broadcast_args_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    lengths = []
    for i in range(2):
        s = ctx.input_shape(i)
        if s.ndims not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")
        lengths.append(None if s.ndims is None else s.dims[0].value)
    return [tensor_shape.vector(None if None in lengths else max(lengths))]


@BroadcastArgs.kernel("CPU", host_memory=("s0", "s1", "r0"))
def _broadcast_args(ctx: OpKernelContext, s0: Any, s1: Any) -> Any:
    x, y = tuple(s0.tolist()), tuple(s1.tolist())
    try:
        return np.array(np.broadcast_shapes(x, y), dtype=s0.dtype)
    except ValueError:
        raise invalid_argument(ctx, f"Incompatible shapes: {tensor_shape.shape_string(x)} vs. "
                                    f"{tensor_shape.shape_string(y)}") from None


NotDifferentiable("BroadcastArgs")


@tf_export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The broadcast of two shape vectors, computed when the graph runs."""
    return BroadcastArgs(shape_x, shape_y)
