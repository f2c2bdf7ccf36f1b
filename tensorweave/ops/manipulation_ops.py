"""Array manipulation, the ops that move elements without computing new ones: Identity, RefIdentity, IdentityN
and StopGradient; Pack and Unpack (`tf.stack`, `tf.unstack`, and the packing of lists that hold tensors,
registered as their tensor conversion when this module is imported); Split and SplitV; ConcatV2; Transpose
and ConjugateTranspose (`tf.transpose`, `tf.linalg.transpose`); Tile; Pad, PadV2 and MirrorPad; ReverseV2;
ReverseSequence; Roll; ParallelConcat (`tf.parallel_stack`); GuaranteeConst; Bitcast; InvertPermutation;
and the composites `tf.sequence_mask` and `tf.meshgrid` (their compare, max, fill and multiply through `raw_ops`).

`transpose` of a tensor of unknown rank takes Range from `sequence_ops` and subtracts with the Tensor operator,
which `elementwise_ops` installs (so, as for `raw_ops`, the op library must have been imported).
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import context, dtypes, tensor_shape, tensor_util
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import (
    Tensor,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import fill_ops, raw_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.sequence_ops import Range
from tensorweave.ops.shape_helpers import shape_from_tensor, unary_shape, with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import Rank, rank
from tensorweave.platform.tf_export import tf_export

# -- Identity ----------------------------------------------------------------------------------------

Identity = Op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"])


@Identity.shape
def _identity_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@Identity.kernel("CPU")
def _identity(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


@tf_export("identity")
def identity(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The same value as `input`, as a new tensor (a variable's value comes through its 'read' snapshot, as in TF)."""
    return Identity(input, name=name)


RefIdentity = Op("RefIdentity", inputs=["input: Ref(T)"], outputs=["output: Ref(T)"], attrs=["T: type"],
                 allows_uninitialized_input=True)
RefIdentity.shape(_identity_shape)


@RefIdentity.kernel("CPU")
def _ref_identity(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


Snapshot = Op("Snapshot", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"])
Snapshot.shape(_identity_shape)


@Snapshot.kernel("CPU")
def _snapshot(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    """A copy of `input`, so later in-place updates of its buffer do not show through."""
    return input.copy()


# -- IdentityN ---------------------------------------------------------------------------------------

IdentityN = Op("IdentityN", inputs=["input: T"], outputs=["output: T"], attrs=["T: list(type)"])


@IdentityN.shape
def _identity_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return ctx.input_shapes


@IdentityN.kernel("CPU")
def _identity_n(ctx: OpKernelContext, *values: Any) -> list:
    return list(values)


@tf_export("identity_n")
def identity_n(input: Any, name: str | None = None) -> list[Tensor]:  # noqa: A002 - TF's argument name
    """Each of a list of tensors passed through unchanged, in one op (so one control edge orders them all)."""
    return IdentityN(input, name=name)


# -- StopGradient ------------------------------------------------------------------------------------


StopGradient = Op("StopGradient", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"])
StopGradient.shape(unary_shape)


@StopGradient.kernel("CPU")
def _stop_gradient(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


@tf_export("stop_gradient")
def stop_gradient(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's name
    """`input` unchanged; gradients do not flow through it."""
    return StopGradient(input, name=name)


# -- Pack, Unpack, and lists of tensors as tensors -----------------------------------------------------

Pack = Op("Pack", inputs=["values: N * T"], outputs=["output: T"], attrs=["N: int >= 1", "T: type", "axis: int = 0"])


def _pack_axis(axis: int, rank: int) -> int:
    """An axis of a rank-`rank` shape, made non-negative (GetAxisForPackAndUnpack)."""
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    return axis + rank if axis < 0 else axis


@Pack.shape
def _pack_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shapes = ctx.input_shapes
    merged = shapes[-1]
    for i in range(len(shapes) - 2, -1, -1):
        try:
            merged = tensor_shape.merge_shapes(shapes[i], merged)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if merged.ndims is None:
        return [tensor_shape.unknown_shape()]
    dims = merged.as_list()
    dims.insert(_pack_axis(ctx.attr("axis"), len(dims) + 1), len(shapes))
    return [tensor_shape.TensorShape(dims)]


def _boxed_handle(handle: Any) -> np.ndarray:
    boxed = np.empty((), dtype=object)
    boxed[()] = handle
    return boxed


@Pack.kernel("CPU")
def _pack(ctx: OpKernelContext, *values: Any, axis: int) -> Any:
    if ctx.node_def.attr["T"] == dtypes.resource:  # handles (QueueBase.from_list): objects, boxed as scalars
        values = tuple(_boxed_handle(v) for v in values)
    first = values[0]
    rank = first.ndim
    if not -rank - 1 <= axis <= rank:
        raise invalid_argument(ctx, f"axis = {axis} not in [{-rank - 1}, {rank + 1})")
    for i, v in enumerate(values[1:], 1):
        if v.shape != first.shape:
            raise invalid_argument(ctx, f"Shapes of all inputs must match: values[0].shape = "
                           f"{tensor_shape.shape_string(first.shape)} != values[{i}].shape = "
                           f"{tensor_shape.shape_string(v.shape)}")
    if len(values) == 1:  # TF forwards the one input's buffer
        return ctx.xp.expand_dims(first, axis)
    return ctx.xp.stack(values, axis=axis)


@tf_export("stack")
def stack(values: Any, axis: int = 0, name: str = "stack") -> Tensor:
    """Stack rank-R tensors into one rank-(R+1) tensor; a list of constants becomes one Const, as in TF."""
    if axis == 0:
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass  # the values hold tensors that cannot be packed as they are: Pack says why
    value_shape = convert_to_tensor(values[0], name=name).shape
    if value_shape.ndims is not None:
        expanded = value_shape.ndims + 1
        if not -expanded <= axis < expanded:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-expanded}, {expanded})")
    return Pack(values, axis=axis, name=name)


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, Tensor) or (hasattr(value, "_as_graph_element") and not isinstance(value, type))


def _nested_dtype(values: Any) -> dtypes.DType | None:
    """The dtype of the first tensor in nested lists, or None when they hold none."""
    for v in values:
        if _is_tensor_like(v):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            found = _nested_dtype(v)
            if found is not None:
                return found
    return None


def _cast_nested(values: Any, dtype: dtypes.DType) -> list:
    return [cast(v, dtype) if isinstance(v, Tensor) else _cast_nested(v, dtype)
            if isinstance(v, (list, tuple)) else v for v in values]


def _autopack(values: Any, dtype: dtypes.DType, name: str) -> Any:
    """Pack nested lists that hold tensors (other entries become constants named by their index); lists
    without tensors come back as they are, for the caller to make one constant of."""
    must_pack = False
    converted = []
    with name_scope(name, None, [v for v in values if _is_tensor_like(v)]) as scope:
        for i, v in enumerate(values):
            if _is_tensor_like(v):
                v = convert_to_tensor(v)
                if v.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype} to {dtype} "
                                    f"(Tensor is: {v!r})")
                must_pack = True
            elif isinstance(v, (list, tuple)):
                v = _autopack(v, dtype, str(i))
                must_pack = must_pack or isinstance(v, Tensor)
            converted.append(v)
        if not must_pack:
            return converted
        return Pack([v if isinstance(v, Tensor) else constant(v, dtype=dtype, name=str(i))
                     for i, v in enumerate(converted)], name=scope)


def _autopacking_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Any:
    """Lists and tuples holding tensors convert by packing them (TF's auto-packing)."""
    inferred = None if as_ref else _nested_dtype(value)
    if inferred is None:
        return NotImplemented
    dtype = inferred if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if dtype != inferred:
        value = _cast_nested(value, dtype)
    return _autopack(value, dtype, name or "packed")


register_tensor_conversion_function((list, tuple), _autopacking_conversion, 99)

Unpack = Op("Unpack", inputs=["value: T"], outputs=["output: num * T"],
            attrs=["num: int >= 0", "T: type", "axis: int = 0"])


@Unpack.shape
def _unpack_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    value = ctx.input_shape(0)
    num = ctx.attr("num")
    if value.ndims is None:
        return [tensor_shape.unknown_shape()] * num
    dims = value.as_list()
    axis = _pack_axis(ctx.attr("axis"), len(dims))
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[axis]}")
    return [tensor_shape.TensorShape(dims[:axis] + dims[axis + 1:])] * num


@Unpack.kernel("CPU")
def _unpack(ctx: OpKernelContext, value: Any, num: int, axis: int) -> list:
    rank = value.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(ctx, f"axis = {axis} not in [{-rank}, {rank})")
    axis = axis + rank if axis < 0 else axis
    if value.shape[axis] != num:
        raise invalid_argument(ctx, f"Input shape axis {axis} must equal {num}, got shape "
                       f"{tensor_shape.shape_string(value.shape)}")
    return [value[(builtins.slice(None),) * axis + (i,)].copy() for i in range(num)]


@tf_export("unstack")
def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list[Tensor]:
    """The slices of `value` along `axis`; `num` is inferred from the static shape when not given."""
    if num is None:
        value = convert_to_tensor(value)
        value_shape = value.shape
        if value_shape.ndims is not None:
            if not -value_shape.ndims <= axis < value_shape.ndims:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-value_shape.ndims}, "
                                 f"{value_shape.ndims})")
            num = value_shape.dims[axis].value
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value_shape}")
    return Unpack(value, num=num, axis=axis, name=name)


# -- Split, SplitV -----------------------------------------------------------------------------------

Split = Op("Split", inputs=["split_dim: int32", "value: T"], outputs=["output: num_split * T"],
           attrs=["num_split: int >= 1", "T: type"])
SplitV = Op("SplitV", inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
            outputs=["output: num_split * T"],
            attrs=["num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = DT_INT64"])


def _split_axis(ctx: InferenceContext, split_dim: int, value_shape: tensor_shape.TensorShape) -> int | None:
    """The constant split axis (input `split_dim`) made non-negative, or None when it is not known while
    building the graph."""
    with_rank(ctx.input_shape(split_dim), 0)
    axis = ctx.input_value(split_dim)
    if axis is None or value_shape.ndims is None:
        return None
    axis, rank = int(axis), value_shape.ndims
    if not -rank <= axis < rank:
        raise ValueError(f"Dimension size, given by scalar input {axis} must be in range [-{rank}, {rank})")
    return axis + rank if axis < 0 else axis


@Split.shape
def _split_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    value = ctx.input_shape(1)
    num = ctx.attr("num_split")
    axis = _split_axis(ctx, 0, value)
    if axis is None:
        return [tensor_shape.unknown_shape(rank=value.ndims)] * num
    dims = value.as_list()
    if dims[axis] is not None:
        if dims[axis] % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is {dims[axis]}\n\tNumber of "
                             "ways to split should evenly divide the split dimension")
        dims[axis] //= num
    return [tensor_shape.TensorShape(dims)] * num


@SplitV.shape
def _split_v_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's SplitV shape function, its checks in its order: the sizes are asked for (so an error names them among
    the computed inputs) before the rank decides; a -1 takes what the others leave, and a size that comes out
    negative is an error before the sizes' total is checked."""
    value = ctx.input_shape(0)
    num = ctx.attr("num_split")
    with_rank(ctx.input_shape(1), 1)
    axis = _split_axis(ctx, 2, value)
    sizes = ctx.input_value(1)
    if value.ndims is None:
        return [tensor_shape.unknown_shape()] * num
    if value.ndims == 0:
        raise ValueError("Can't split scalars")
    if axis is None and sizes is None:
        return [tensor_shape.unknown_shape(rank=value.ndims)] * num
    dims = value.as_list()
    if sizes is None:
        return [tensor_shape.TensorShape(dims[:axis] + [None] + dims[axis + 1:])] * num
    if axis is None:  # TF reads the unknown dim's value, -1, as an axis: the sizes split the last one statically
        axis = value.ndims - 1
    sizes = [int(s) for s in sizes.reshape(-1)]
    if len(sizes) != num:
        raise ValueError("Length of size_splits should be equal to num_outputs")
    if sizes.count(-1) > 1:
        raise ValueError("size_splits can only have one -1")
    known, total = sum(s for s in sizes if s != -1), dims[axis]
    shapes = []
    for i, size in enumerate(sizes):
        if size == -1 and total is not None:
            size = total - known
        if size < -1 or (size == -1 and total is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {size}")
        shapes.append(tensor_shape.TensorShape(dims[:axis] + [None if size == -1 else size] + dims[axis + 1:]))
    if total is not None and (known > total if -1 in sizes else known != total):
        raise ValueError(f"can't split axis of size {total} into pieces of size [{','.join(map(str, sizes))}]")
    return shapes


def _split_kernel_axis(ctx: OpKernelContext, split_dim: Any, value: Any) -> int:
    axis, rank = int(split_dim), value.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(ctx, f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}")
    return axis + rank if axis < 0 else axis


@Split.kernel("CPU")
def _split(ctx: OpKernelContext, split_dim: Any, value: Any, num_split: int) -> list:
    axis = _split_kernel_axis(ctx, split_dim, value)
    if value.shape[axis] % num_split:
        raise invalid_argument(ctx, f"Number of ways to split should evenly divide the split dimension, but got split_dim "
                       f"{axis} (size = {value.shape[axis]}) and num_split {num_split}")
    return _pieces(value, axis, [value.shape[axis] // num_split] * num_split)


def _pieces(value: Any, axis: int, sizes: list[int]) -> list:
    """`value` cut along `axis` into pieces of `sizes`, each its own buffer as TF's (a view would show a later
    in-place update of a variable it was cut from); one piece is `value` itself, as TF forwards it."""
    if len(sizes) == 1:
        return [value]
    index, start, pieces = [slice(None)] * value.ndim, 0, []
    for size in sizes:
        index[axis] = slice(start, start + size)
        pieces.append(value[tuple(index)].copy())
        start += size
    return pieces


@SplitV.kernel("CPU")
def _split_v(ctx: OpKernelContext, value: Any, size_splits: Any, split_dim: Any, num_split: int) -> list:
    axis = _split_kernel_axis(ctx, split_dim, value)
    if size_splits.ndim != 1 or size_splits.size != num_split:
        raise invalid_argument(ctx, f"size of the split_tensor must be 1-D and have the same elements as outputs got "
                       f"{size_splits.ndim} -D and {size_splits.size} elements")
    sizes = [int(s) for s in size_splits.tolist()]
    if sizes.count(-1) > 1:
        raise invalid_argument(ctx, "There can only be one -1 in the input.")
    for index, size in enumerate(sizes):
        if size < -1:
            raise invalid_argument(ctx, f"Split size at index {index} must be >= 0. Got: {size}")
    known, dim = sum(s for s in sizes if s != -1), value.shape[axis]
    if known > dim or (-1 not in sizes and known != dim):
        raise invalid_argument(ctx, "Determined shape must either match input shape along split_dim exactly if fully "
                       "specified, or be less than the size of the input along split_dim if not fully "
                       f"specified.  Got: {known}")
    return _pieces(value, axis, [dim - known if s == -1 else s for s in sizes])


@tf_export("split")
def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None,
          name: str = "split") -> list[Tensor]:
    """`value` cut along `axis` into `num_or_size_splits` equal pieces (an int) or pieces of the given sizes
    (a 1-D list or tensor, one entry may be -1)."""
    if isinstance(num_or_size_splits, (numbers.Integral, tensor_shape.Dimension)):
        return Split(axis, value, num_split=int(num_or_size_splits), name=name)
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                         f"Argument provided: {num_or_size_splits}")
    if num is None:
        if size_splits.shape.ndims is not None:
            num = size_splits.shape.dims[0].value
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return SplitV(value, size_splits, axis, num_split=num, name=name)


# -- ConcatV2 ----------------------------------------------------------------------------------------

ConcatV2 = Op("ConcatV2", inputs=["values: N * T", "axis: Tidx"], outputs=["output: T"],
              attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"])


@ConcatV2.shape
def _concat_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return concat_shape(ctx, ctx.input_shapes[:-1], ctx.num_inputs - 1)


def concat_shape(ctx: InferenceContext, values: list[tensor_shape.TensorShape],
                 axis_index: int) -> list[tensor_shape.TensorShape]:
    """TF's ConcatShape: `values` joined along the (scalar) input `axis_index`, where the graph fixes it."""
    with_rank(ctx.input_shape(axis_index), 0)
    rank = next((v.ndims for v in values if v.ndims is not None), None)
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    shapes = [v if rank is None else with_rank(v, rank) for v in values]
    axis = ctx.input_value(axis_index)
    if axis is None:
        return [tensor_shape.unknown_shape(rank=rank)]
    axis = int(axis)
    for s in shapes:
        with_rank_at_least(s, -axis if axis < 0 else axis + 1)
    if rank is None:
        return [tensor_shape.unknown_shape()]
    axis = axis + rank if axis < 0 else axis
    dims = shapes[-1].as_list()
    before, middle, after = (tensor_shape.TensorShape(dims[:axis]), dims[axis],
                             tensor_shape.TensorShape(dims[axis + 1:]))
    for s in reversed(shapes[:-1]):
        d = s.as_list()
        before = tensor_shape.merge_shapes(tensor_shape.TensorShape(d[:axis]), before)
        middle = None if middle is None or d[axis] is None else middle + d[axis]
        after = tensor_shape.merge_shapes(tensor_shape.TensorShape(d[axis + 1:]), after)
    return [before.concatenate([middle]).concatenate(after)]


ConcatOffset = Op("ConcatOffset", inputs=["concat_dim: int32", "shape: N * shape_type"],
                  outputs=["offset: N * shape_type"], attrs=["N: int >= 2", "shape_type: {int32, int64} = DT_INT32"])
ConcatOffset.shape(lambda ctx: list(ctx.input_shapes[1:]))


@ConcatOffset.kernel("CPU")
def _concat_offset(ctx: OpKernelContext, concat_dim: Any, *shapes: Any, shape_type: dtypes.DType) -> list:
    """Where each of the concatenated shapes starts in the result: the running sum of their sizes along the
    concat dimension (the gradient of a concat slices its pieces at these offsets)."""
    if np.ndim(concat_dim):
        raise invalid_argument(ctx, "Concat dim tensor should be a scalar integer, but got shape "
                                    f"{tensor_shape.shape_string(np.shape(concat_dim))}")
    for i, shape in enumerate(shapes, 1):
        if np.ndim(shape) != 1:
            raise invalid_argument(ctx, f"input {i} should be a vector, but got shape {tensor_shape.shape_string(np.shape(shape))}")
    first, dims = shapes[0], len(shapes[0])
    cdim = int(concat_dim)
    axis = cdim + dims if cdim < 0 else cdim
    if not 0 <= axis < dims:
        raise invalid_argument(ctx, f"Concat dim is out of range: {cdim} vs. {dims}")
    offsets, offset = [], 0
    for i, shape in enumerate(shapes):
        if len(shape) != dims:
            raise invalid_argument(ctx, f"input {i} should contain {dims} elements, but got {len(shape)}")
        for j in range(dims):
            if j != axis and shape[j] != first[j]:
                raise invalid_argument(
                    ctx, f"All dimensions except {axis} must match. Input {i} has shape [{_summary(shape)}] and "
                         f"doesn't match input 0 with shape [{_summary(first)}].")
        out = np.zeros(dims, shape_type.as_numpy_dtype)
        out[axis] = offset
        offset += int(shape[axis])
        offsets.append(out)
    return offsets


def _summary(vector: Any) -> str:
    """A shape vector's first ten values as TF's SummarizeValue prints them."""
    values = " ".join(str(int(v)) for v in vector[:10])
    return values + ("..." if len(vector) > 10 else "")


@ConcatV2.kernel("CPU")
def _concat(ctx: OpKernelContext, *args: Any) -> Any:
    values, axis = args[:-1], args[-1]
    if not (axis.ndim == 0 or axis.shape == (1,)):
        raise invalid_argument(ctx, f"axis tensor should be a scalar integer, but got shape "
                       f"{tensor_shape.shape_string(axis.shape)}")
    concat_dim = int(axis.reshape(-1)[0])
    first = values[0]
    rank = first.ndim
    axis = concat_dim + rank if concat_dim < 0 else concat_dim
    if not (0 <= axis < rank or concat_dim == 0):
        raise invalid_argument(ctx, f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but "
                       f"got {concat_dim}")
    if rank == 0:
        raise invalid_argument(ctx, "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    try:
        return ctx.xp.concatenate(values, axis=axis)
    except ValueError:  # the shapes are checked only when NumPy refuses them: a step pays nothing
        for i, v in enumerate(values):
            if v.ndim != rank:
                raise invalid_argument(ctx, "ConcatOp : Ranks of all input tensors should match: "
                                       + _concat_shapes(first, v, i)) from None
            for j in range(rank):
                if j != axis and v.shape[j] != first.shape[j]:
                    raise invalid_argument(ctx, f"ConcatOp : Dimension {j} in both shapes must be equal: "
                                           + _concat_shapes(first, v, i)) from None
        raise


def _concat_shapes(first: Any, value: Any, index: int) -> str:
    """The two shapes a concat error names (spelled only when there is an error: a step pays nothing)."""
    return (f"shape[0] = {tensor_shape.shape_string(first.shape)} vs. shape[{index}] = "
            f"{tensor_shape.shape_string(value.shape)}")


@tf_export("concat")
@add_dispatch_support
def concat(values: Any, axis: Any, name: str = "concat") -> Tensor:
    """Join tensors along `axis`; a single value comes back through an Identity, as in TF."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name):
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32).shape.assert_has_rank(0)
            return identity(values[0], name=name)
    return ConcatV2(values, axis, name=name)


# -- Transpose, ConjugateTranspose -------------------------------------------------------------------


def _transpose_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    x, perm_shape = ctx.input_shapes
    perm = ctx.input_value(1)
    perm_size = perm_shape.num_elements()
    if x.ndims is None and perm_size is None and perm is None:
        return [tensor_shape.unknown_shape()]
    rank = x.ndims if x.ndims is not None else perm_size if perm_size is not None else perm.size
    if x.ndims is None and rank < 2:
        return [x]  # one entry could mean a scalar or a vector: either comes back unchanged
    dims = with_rank(x, rank).as_list()
    with_rank(perm_shape, 1)
    if perm_size is not None and perm_size != rank:
        raise ValueError(f"Dimension must be {rank} but is {perm_size}")
    if perm is None:
        return [tensor_shape.unknown_shape(rank=rank)]
    out = []
    for p in perm.reshape(-1).tolist()[:rank]:
        if not -rank <= p < rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}")
        out.append(dims[p])
    return [tensor_shape.TensorShape(out)]


def _transpose_axes(ctx: OpKernelContext, x: Any, perm: Any) -> list[int]:
    """The permutation as numpy axes, checked as TF's TransposeOp does."""
    if perm.ndim != 1:
        raise invalid_argument(ctx, f"perm must be rank 1, got shape {tensor_shape.shape_string(perm.shape)}")
    rank = x.ndim
    if perm.size != rank:
        raise invalid_argument(ctx, f"transpose expects a vector of size {rank}. But input(1) is a vector of size "
                       f"{perm.size}")
    axes = []
    for d in perm.tolist():
        d = d + rank if d < 0 else d
        if not 0 <= d < rank:
            raise invalid_argument(ctx, f"{d} is out of range [0 .. {rank})")
        axes.append(d)
    for i in range(rank):
        if i not in axes:
            raise invalid_argument(ctx, f"{i} is missing from {{{','.join(str(p) for p in perm.tolist())}}}.")
    return axes


Transpose = Op("Transpose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
               attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"])
Transpose.shape(_transpose_shape)


@Transpose.kernel("CPU")
def _transpose(ctx: OpKernelContext, x: Any, perm: Any) -> Any:
    axes = _transpose_axes(ctx, x, perm)
    # its own buffer, as TF's (a view would show a later in-place update of a variable it read)
    return x if axes == sorted(axes) else ctx.xp.ascontiguousarray(ctx.xp.transpose(x, axes))


ConjugateTranspose = Op("ConjugateTranspose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
                        attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"])
ConjugateTranspose.shape(_transpose_shape)


@ConjugateTranspose.kernel("CPU")
def _conjugate_transpose(ctx: OpKernelContext, x: Any, perm: Any) -> Any:
    return ctx.xp.conj(ctx.xp.transpose(x, _transpose_axes(ctx, x, perm)))


@tf_export("transpose")
def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False) -> Tensor:
    """`a` with its dimensions permuted (reversed by default); `conjugate` also conjugates complex values."""
    with name_scope(name, "transpose", [a]) as name:
        if not isinstance(a, Tensor):
            a = convert_to_tensor(a, name="a")
        op = ConjugateTranspose if conjugate and a.dtype.is_complex else Transpose
        if perm is None:
            if a.shape.ndims is None:
                perm = Range(Rank(a) - 1, -1, -1)
            else:
                perm = np.arange(a.shape.ndims - 1, -1, -1, dtype=np.int32)
        return op(a, perm, name=name)


@tf_export("linalg.matrix_transpose", "linalg.transpose", "matrix_transpose")
def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """`a` with its last two dimensions swapped (`tf.linalg.transpose`); `conjugate` also conjugates."""
    with name_scope(name, values=[a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError("Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
                                 f"{a} with shape: {a.shape}")
            perm = list(builtins.range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            a_rank = rank(a)
            perm = concat((Range(0, a_rank - 2, 1), [a_rank - 1, a_rank - 2]), 0)
        return transpose(a, perm=perm, conjugate=conjugate)


# -- Tile --------------------------------------------------------------------------------------------


Tile = Op("Tile", inputs=["input: T", "multiples: Tmultiples"], outputs=["output: T"],
          attrs=["T: type", "Tmultiples: {int32, int64} = DT_INT32"])


def _multiply_dims(a: int | None, b: int | None) -> int | None:
    """InferenceContext::Multiply: 0 and 1 decide the product even when the other factor is unknown."""
    if a == 0 or b == 0:
        return 0
    if a == 1 or b == 1:
        return b if a == 1 else a
    return None if a is None or b is None else a * b


@Tile.shape
def _tile_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    multiples = shape_from_tensor(ctx, 1)
    if input_shape.ndims is not None:
        multiples = with_rank(multiples, input_shape.ndims)
        tensor_shape.merge_shapes(ctx.input_shape(1), tensor_shape.TensorShape([input_shape.ndims]))
    if multiples.ndims is None:
        return [tensor_shape.unknown_shape()]
    input_shape = with_rank(input_shape, multiples.ndims)
    return [tensor_shape.TensorShape([_multiply_dims(a, b)
                                      for a, b in zip(input_shape.as_list(), multiples.as_list())])]


@Tile.kernel("CPU")
def _tile(ctx: OpKernelContext, input: Any, multiples: Any) -> Any:  # noqa: A002
    if multiples.ndim != 1:
        raise invalid_argument(ctx, f"Expected multiples to be 1-D, but got shape {tensor_shape.shape_string(multiples.shape)}")
    if multiples.size != input.ndim:
        raise invalid_argument(ctx, f"Expected multiples argument to be a vector of length {input.ndim} but got length "
                       f"{multiples.size}")
    for i, m in enumerate(multiples.tolist()):
        if m < 0:
            raise invalid_argument(ctx, f"Expected multiples[{i}] >= 0, but got {m}")
    if input.dtype == np.uint16 and input.ndim:
        raise errors.UnimplementedError(ctx.node_def, None, "TileOp : The input data type is not supported, "
                                        f"DataType : uint16, Dimension : {input.ndim}")
    return ctx.xp.tile(input, multiples.tolist())


@tf_export("tile", "manip.tile")
def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """`input` repeated `multiples[i]` times along each dimension i."""
    return Tile(input, multiples, name=name)


# -- Pad, PadV2, MirrorPad ---------------------------------------------------------------------------

Pad = Op("Pad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
         attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"])
PadV2 = Op("PadV2", inputs=["input: T", "paddings: Tpaddings", "constant_values: T"], outputs=["output: T"],
           attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"])
MirrorPad = Op("MirrorPad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
               attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32", "mode: {'REFLECT', 'SYMMETRIC'}"])


@Pad.shape
@PadV2.shape
@MirrorPad.shape
def _pad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    paddings_shape = with_rank(ctx.input_shape(1), 2)
    rank = paddings_shape.dims[0].value
    if rank is not None:
        input_shape = with_rank(input_shape, rank)
    if paddings_shape.dims[1].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {paddings_shape.dims[1].value}")
    value = ctx.input_value(1)
    if value is None:
        return [tensor_shape.unknown_shape(rank=input_shape.ndims)]
    if (value < 0).any():
        raise ValueError("Paddings must be non-negative")
    return [tensor_shape.TensorShape([None if d is None else d + int(before) + int(after)
                                      for d, (before, after) in zip(input_shape.as_list(), value.tolist())])]


def _checked_paddings(ctx: OpKernelContext, input: Any, paddings: Any, negative: str = "Paddings") -> list:  # noqa: A002
    """The paddings as (before, after) pairs; `negative` is how the op's message starts (MirrorPad: lower case)."""
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise invalid_argument(ctx, f"paddings must be a matrix with 2 columns: {tensor_shape.shape_string(paddings.shape)}")
    if paddings.shape[0] != input.ndim:
        raise invalid_argument(ctx, "The first dimension of paddings must be the rank of inputs"
                       f"{tensor_shape.shape_string(paddings.shape)} {tensor_shape.shape_string(input.shape)}")
    pairs = [(int(before), int(after)) for before, after in paddings.tolist()]
    for before, after in pairs:
        if before < 0 or after < 0:
            raise invalid_argument(ctx, f"{negative} must be non-negative: {before} {after}")
    return pairs


def _constant_pad(xp: Any, input: Any, pairs: list, value: Any) -> Any:  # noqa: A002
    """np.pad with a constant, also for strings (object arrays, which np.pad fills with the wrong type) and
    scalars; no padding at all is `input` itself, as TF forwards it."""
    if not any(before or after for before, after in pairs):
        return input
    if input.dtype != object:
        return xp.pad(input, pairs, constant_values=value)
    out = np.full([d + before + after for d, (before, after) in zip(input.shape, pairs)], value, dtype=object)
    out[tuple(builtins.slice(before, before + d) for d, (before, _) in zip(input.shape, pairs))] = input
    return out


@Pad.kernel("CPU")
def _pad(ctx: OpKernelContext, input: Any, paddings: Any) -> Any:  # noqa: A002
    pairs = _checked_paddings(ctx, input, paddings)
    return _constant_pad(ctx.xp, input, pairs, b"" if input.dtype == object else 0)


@PadV2.kernel("CPU")
def _pad_v2(ctx: OpKernelContext, input: Any, paddings: Any, constant_values: Any) -> Any:  # noqa: A002
    pairs = _checked_paddings(ctx, input, paddings)
    if constant_values.ndim:
        raise invalid_argument(ctx, f"constant_values must be a scalar. Found: "
                       f"{tensor_shape.shape_string(constant_values.shape)}")
    return _constant_pad(ctx.xp, input, pairs, constant_values.item())


@MirrorPad.kernel("CPU")
def _mirror_pad(ctx: OpKernelContext, input: Any, paddings: Any, mode: bytes) -> Any:  # noqa: A002
    reflect = mode == b"REFLECT"
    pairs = _checked_paddings(ctx, input, paddings, "paddings")
    for (before, after), size in zip(pairs, input.shape):
        if reflect and (before >= size or after >= size):
            raise invalid_argument(ctx, f"paddings must be less than the dimension size: {before}, {after} not less than "
                           f"{size}")
        if not reflect and (before > size or after > size):
            raise invalid_argument(ctx, f"paddings must be no greater than the dimension size: {before}, {after} greater "
                           f"than {size}")
    return ctx.xp.pad(input, pairs, mode="reflect" if reflect else "symmetric")


MirrorPadGrad = Op("MirrorPadGrad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
                   attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32", "mode: {'REFLECT', 'SYMMETRIC'}"])


@MirrorPadGrad.shape
def _mirror_pad_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    paddings_shape = with_rank(ctx.input_shape(1), 2)
    input_shape = ctx.input_shape(0)
    if paddings_shape.dims[0].value is not None:
        input_shape = with_rank(input_shape, paddings_shape.dims[0].value)
    value = ctx.input_value(1)
    if value is None:
        return [tensor_shape.unknown_shape(rank=input_shape.ndims)]
    return [tensor_shape.TensorShape([None if d is None else d - int(before) - int(after)
                                      for d, (before, after) in zip(input_shape.as_list(), value.tolist())])]


@MirrorPadGrad.kernel("CPU")
def _mirror_pad_grad(ctx: OpKernelContext, input: Any, paddings: Any, mode: bytes) -> Any:  # noqa: A002
    """MirrorPad's gradient: per dimension, the mirrored borders folded back onto the rows they copied
    (REFLECT copies from one row in from the edge, SYMMETRIC from the edge row)."""
    xp = ctx.xp
    offset = 1 if mode == b"REFLECT" else 0
    out = input
    for axis, (before, after) in enumerate(_checked_paddings(ctx, input, paddings, "paddings")):
        moved = xp.moveaxis(out, axis, 0)
        n = moved.shape[0] - before - after
        if n - offset < max(before, after):
            raise invalid_argument(ctx, f"paddings must be less than the dimension size: {before}, {after} not less "
                                   f"than {n}")
        core = moved[before:before + n].copy()
        core[offset:offset + before] += moved[:before][::-1]
        core[n - offset - after:n - offset] += moved[before + n:][::-1]
        out = xp.moveaxis(core, 0, axis)
    return out


@tf_export("pad")
def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None,
        constant_values: Any = 0) -> Tensor:
    """`tensor` padded by `paddings[i] = [before, after]` along each dimension: with `constant_values`
    (CONSTANT), or mirrored without (REFLECT) or with (SYMMETRIC) the edge."""
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == np.zeros_like(constant_values):
            result = Pad(tensor, paddings, name=name)
        else:
            result = PadV2(tensor, paddings, constant_values, name=name)
    elif mode in ("REFLECT", "SYMMETRIC"):
        result = MirrorPad(tensor, paddings, mode=mode, name=name)
    else:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    _restore_pad_shape(result, paddings)
    return result


def _restore_pad_shape(result: Tensor, paddings: Any) -> None:
    """Sharpen the output shape from the paddings known in part, as TF's Python `pad` does after the op's own
    shape function (which needs all of them): a dimension whose pair is known gets its padded size."""
    input_shape = result.op.inputs[0].shape
    known_paddings = _static_paddings(paddings)
    if input_shape.ndims is None or result.shape.is_fully_defined() or known_paddings is None:
        return
    result.set_shape([None if padding is None or dim is None or any(x is None for x in padding)
                      else sum(padding) + dim for padding, dim in zip(known_paddings, input_shape.as_list())])


def _static_paddings(paddings: Any) -> Any:
    """The paddings with each tensor (even nested in lists) replaced by its static value, None if unknown."""
    if isinstance(paddings, Tensor):
        return tensor_util.get_static_value(paddings, partial=True)
    if isinstance(paddings, (list, tuple)):
        return [_static_paddings(p) for p in paddings]
    return paddings


# -- ReverseV2 ---------------------------------------------------------------------------------------

ReverseV2 = Op("ReverseV2", inputs=["tensor: T", "axis: Tidx"], outputs=["output: T"],
               attrs=["Tidx: {int32, int64} = DT_INT32",
                      "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, "
                      "double, complex64, complex128, string}"])


def _reverse_axes(axes: list, rank: int) -> list:
    """The axes made non-negative, with TF's messages for one out of range (sic: no closing bracket) or repeated."""
    seen = []
    for i, axis in enumerate(axes):
        canonical = axis + rank if axis < 0 else axis
        if not 0 <= canonical < rank:
            raise ValueError(f"'axis'[{i}] = {axis} is out of valid range [0, {rank - 1}")
        if canonical in seen:
            raise ValueError(f"axis {canonical} specified more than once.")
        seen.append(canonical)
    return seen


@ReverseV2.shape
def _reverse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    with_rank(ctx.input_shape(1), 1)
    value = ctx.input_value(1)
    if value is not None and input_shape.ndims is not None:
        _reverse_axes(value.tolist(), input_shape.ndims)
    return [input_shape]


@ReverseV2.kernel("CPU")
def _reverse(ctx: OpKernelContext, tensor: Any, axis: Any) -> Any:
    if tensor.ndim == 0:  # a scalar reverses to itself, whatever the axes
        return tensor
    if axis.ndim != 1:
        raise invalid_argument(ctx, f"'dims' must be 1-dimension, not {axis.ndim}")
    try:
        axes = _reverse_axes(axis.tolist(), tensor.ndim)
    except ValueError as e:
        raise invalid_argument(ctx, str(e)) from None
    return ctx.xp.flip(tensor, axes).copy() if axes else tensor


@tf_export("reverse", "reverse_v2", "manip.reverse")
def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """`tensor` with the order of its elements reversed along each of `axis`."""
    return ReverseV2(tensor, axis, name=name)


# -- ReverseSequence ---------------------------------------------------------------------------------

ReverseSequence = Op("ReverseSequence", inputs=["input: T", "seq_lengths: Tlen"], outputs=["output: T"],
                     attrs=["seq_dim: int", "batch_dim: int = 0", "T: type", "Tlen: {int32, int64} = DT_INT64"])


@ReverseSequence.shape
def _reverse_sequence_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    lengths = with_rank(ctx.input_shape(1), 1)
    seq_dim, batch_dim = ctx.attr("seq_dim"), ctx.attr("batch_dim")
    if input_shape.ndims is None:
        return [input_shape]
    rank = input_shape.ndims
    if batch_dim >= rank:
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    if batch_dim < 0:  # TF's shape function is stricter than its range check here, as its kernel
        raise ValueError(f"batch_dim must be >=0, got {batch_dim}")
    batch, count = input_shape.as_list()[batch_dim], lengths.as_list()[0]
    if batch is not None and count is not None and batch != count:
        raise ValueError(f"Dimensions must be equal, but are {batch} and {count}")
    dims = input_shape.as_list()
    dims[batch_dim] = batch if batch is not None else count
    return [tensor_shape.TensorShape(dims)]


@ReverseSequence.kernel("CPU")
def _reverse_sequence(ctx: OpKernelContext, input: Any, seq_lengths: Any, seq_dim: int,  # noqa: A002
                      batch_dim: int) -> Any:
    for what, dim in (("batch_dim", batch_dim), ("seq_dim", seq_dim)):  # TF's kernel construction
        if dim < 0:
            raise invalid_argument(ctx, f"Invalid {what} {dim}")
    if batch_dim == seq_dim:
        raise invalid_argument(ctx, f"batch_dim == seq_dim == {seq_dim}")
    if seq_dim >= input.ndim:
        raise invalid_argument(ctx, f"seq_dim must be < input rank( {seq_dim} vs. {input.ndim})")
    if batch_dim >= input.ndim:
        raise invalid_argument(ctx, f"batch_dim must be < input rank( {batch_dim} vs. {input.ndim})")
    if seq_lengths.ndim != 1:
        raise invalid_argument(ctx, f"seq_lengths must be 1-dim, not {seq_lengths.ndim}")
    if seq_lengths.size != input.shape[batch_dim]:
        raise invalid_argument(ctx, f"Length of seq_lengths != input.dims({batch_dim}), ({seq_lengths.size} vs. "
                                    f"{input.shape[batch_dim]})")
    length = input.shape[seq_dim]
    for bad, relation in ((seq_lengths < 0, "<"), (seq_lengths > length, ">")):
        if bad.any():
            i = int(np.argmax(bad))
            bound = "0" if relation == "<" else f"input.dims({seq_dim})"
            raise invalid_argument(ctx, f"seq_lens({i}) {relation} {bound}")
    xp = ctx.xp
    moved = xp.moveaxis(input, (batch_dim, seq_dim), (0, 1))
    steps = xp.arange(length)[None, :]
    lengths = xp.asarray(seq_lengths)[:, None]
    source = xp.where(steps < lengths, lengths - 1 - steps, steps)
    source = source.reshape(source.shape + (1,) * (moved.ndim - 2))
    return xp.moveaxis(xp.take_along_axis(moved, source, axis=1), (0, 1), (batch_dim, seq_dim))


@tf_export("reverse_sequence")
def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: int | None = None,  # noqa: A002
                     batch_axis: int | None = None, name: str | None = None, seq_dim: int | None = None,
                     batch_dim: int | None = None) -> Tensor:
    """Each batch entry's first `seq_lengths` steps along `seq_axis` reversed, the rest left in place."""
    seq_axis = _deprecated_argument("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _deprecated_argument("batch_axis", batch_axis, "batch_dim", batch_dim)
    return ReverseSequence(input, seq_lengths, seq_dim=seq_axis, batch_dim=0 if batch_axis is None else batch_axis,
                           name=name)


def _deprecated_argument(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """TF's deprecated_argument_lookup: the new argument, else the old one, never both."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
        return old_value
    return new_value


@ReverseSequence.gradient
def _reverse_sequence_grad(op: Any, grad: Tensor) -> list:
    return [ReverseSequence(grad, op.inputs[1], seq_dim=op.get_attr("seq_dim"),
                            batch_dim=op.get_attr("batch_dim")), None]


# -- Roll --------------------------------------------------------------------------------------------

Roll = Op("Roll", inputs=["input: T", "shift: Tshift", "axis: Taxis"], outputs=["output: T"],
          attrs=["T: type", "Tshift: {int32, int64}", "Taxis: {int32, int64}"])


@Roll.shape
def _roll_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = with_rank_at_least(ctx.input_shape(0), 1)
    shift, axis = ctx.input_shape(1), ctx.input_shape(2)
    for s in (shift, axis):
        if s.ndims is not None and s.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {s.ndims}")
    if shift.ndims == 1 and axis.ndims == 1:
        tensor_shape.merge_shapes(shift, axis)
    return [input_shape]


@Roll.kernel("CPU", host_memory=("shift", "axis"))
def _roll(ctx: OpKernelContext, input: Any, shift: Any, axis: Any) -> Any:  # noqa: A002
    if input.ndim < 1:
        raise invalid_argument(ctx, "input must be 1-D or higher")
    if shift.ndim > 1:
        raise invalid_argument(ctx, "shift must be a scalar or a 1-D vector. Found: "
                                    f"{tensor_shape.shape_string(shift.shape)}")
    if axis.ndim > 1:
        raise invalid_argument(ctx, "axis must be a scalar or a 1-D vector. Found: "
                                    f"{tensor_shape.shape_string(axis.shape)}")
    if shift.shape != axis.shape:
        raise invalid_argument(ctx, "shift and axis must have the same size")
    axes = axis.reshape(-1).tolist()
    for a in axes:
        if not -input.ndim <= a < input.ndim:
            raise invalid_argument(ctx, f"axis {a} is out of range")
    return ctx.xp.roll(input, shift.reshape(-1).tolist(), axes) if axes else input


@tf_export("roll", "manip.roll")
def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The elements shifted along `axis` by `shift`, those pushed off one end coming back at the other."""
    return Roll(input, shift, axis, name=name)


@Roll.gradient
def _roll_grad(op: Any, grad: Tensor) -> list:
    return [Roll(grad, raw_ops.Neg(x=op.inputs[1]), op.inputs[2]), None, None]


# -- ParallelConcat (tf.parallel_stack), GuaranteeConst, Bitcast ---------------------------------------

ParallelConcat = Op("ParallelConcat", inputs=["values: N * T"], outputs=["output: T"],
                    attrs=["N: int >= 1", "T: type", "shape: shape"])


@ParallelConcat.shape
def _parallel_concat_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's: the shape attr and every input fully defined, each input one row of it."""
    declared = tensor_shape.as_shape(ctx.attr("shape"))
    if not declared.is_fully_defined():
        raise ValueError("shape attr must be fully defined.")
    if not declared.ndims:
        raise ValueError("Out of range dim_index 0 for shape with 0 dimensions")
    current = tensor_shape.TensorShape([1]).concatenate(declared[1:])
    for i in range(ctx.num_inputs):
        value = ctx.input_shape(i)
        if not value.is_fully_defined():
            raise ValueError("All input shapes must be fully defined.")
        if value.ndims < 1:
            raise ValueError(f"The rank of all input shapes must be greater than 0, but input {i} had rank "
                             f"{value.ndims}.")
        if value.dims[0].value != 1:
            raise ValueError("Size of first dimension must be 1.")
        try:
            current = tensor_shape.merge_shapes(value, current)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return [declared]


@ParallelConcat.kernel("CPU")
def _parallel_concat(ctx: OpKernelContext, *values: Any) -> Any:
    return ctx.xp.concatenate(values, axis=0)


@tf_export("parallel_stack")
def parallel_stack(values: list, name: str = "parallel_stack") -> Tensor:
    """`stack` along a new first axis, as one ParallelConcat that TF fills as its inputs arrive."""
    with name_scope(name):
        value_shape = convert_to_tensor(values[0]).shape
        output_shape = tensor_shape.TensorShape([len(values)]).concatenate(value_shape)
        return ParallelConcat([raw_ops.ExpandDims(input=v, dim=0) for v in values], shape=output_shape)


GuaranteeConst = Op("GuaranteeConst", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
                    is_stateful=True)
GuaranteeConst.shape(unary_shape)


@GuaranteeConst.kernel("CPU")
def _guarantee_const(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


@tf_export("guarantee_const")
def guarantee_const(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """`input`, promised to the runtime to be constant for the graph's lifetime."""
    return GuaranteeConst(input, name=name)


_BITCAST_TYPES = ("bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, "
                  "complex64, complex128, qint8, quint8, qint16, quint16, qint32")
Bitcast = Op("Bitcast", inputs=["input: T"], outputs=["output: type"],
             attrs=[f"T: {{{_BITCAST_TYPES}}}", f"type: {{{_BITCAST_TYPES}}}"])


def _bitcast_dims(dims: list, source: dtypes.DType, target: dtypes.DType) -> list:
    """The output dims: a trailing dimension added (to a narrower type) or consumed (to a wider one)."""
    in_size, out_size = source.size, target.size
    if in_size > out_size:
        return dims + [in_size // out_size]
    if in_size < out_size:
        if not dims or dims[-1] not in (None, out_size // in_size):
            last = "[]" if not dims else dims[-1]
            raise ValueError(f"Cannot bitcast from {source.as_datatype_enum} to {target.as_datatype_enum} due to "
                             f"shape. {last} does not match {out_size // in_size}")
        return dims[:-1]
    return dims


@Bitcast.shape
def _bitcast_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    if input_shape.ndims is None:
        return [input_shape]
    return [tensor_shape.TensorShape(_bitcast_dims(input_shape.as_list(), ctx.attr("T"), ctx.attr("type")))]


@Bitcast.kernel("CPU")
def _bitcast(ctx: OpKernelContext, input: Any, T: dtypes.DType, type: dtypes.DType) -> Any:  # noqa: A002, N803
    try:
        dims = _bitcast_dims(list(input.shape), T, type)
    except ValueError as e:
        raise invalid_argument(ctx, str(e)) from None
    return ctx.xp.ascontiguousarray(input).view(type.as_numpy_dtype).reshape(dims)


@tf_export("bitcast")
def bitcast(input: Any, type: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The bytes of `input` read as `type`, without converting values."""
    return Bitcast(input, type=type, name=name)




@tf_export("math.invert_permutation", "invert_permutation")
def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    """The permutation y with y[x[i]] = i."""
    return InvertPermutation(x, name=name)


# -- sequence_mask and meshgrid (composed) -----------------------------------------------------------


@tf_export("sequence_mask")
def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool, name: str | None = None) -> Tensor:
    """`mask[..., j] = j < lengths[...]` for j below `maxlen` (default: the largest length)."""
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = raw_ops.Max(input=lengths, reduction_indices=Range(0, Rank(lengths), 1))
            maxlen = raw_ops.Maximum(x=constant(0, maxlen.dtype), y=maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                             f"with shape '{maxlen.shape}' instead")
        row_vector = Range(constant(0, maxlen.dtype), maxlen, constant(1, maxlen.dtype))
        matrix = raw_ops.Cast(x=raw_ops.ExpandDims(input=lengths, dim=-1), DstT=maxlen.dtype)  # always an op, as TF
        result = raw_ops.Less(x=row_vector, y=matrix)
        if dtype is None or result.dtype.is_compatible_with(dtypes.as_dtype(dtype)):
            return result
        return cast(result, dtype)


@tf_export("meshgrid")
def meshgrid(*args: Any, **kwargs: Any) -> list:
    """N-D coordinate arrays from N vectors: Cartesian ('xy', the first two swapped) or matrix ('ij') indexing."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    with name_scope(name, "meshgrid", list(args)):
        ndim = len(args)
        if not ndim:
            return []
        ones = (1,) * ndim
        output = [raw_ops.Reshape(tensor=stack(x), shape=ones[:i] + (-1,) + ones[i + 1:]) for i, x in enumerate(args)]
        sizes = [shape_ops.size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = raw_ops.Reshape(tensor=output[0], shape=(1, -1) + (1,) * (ndim - 2))
            output[1] = raw_ops.Reshape(tensor=output[1], shape=(-1, 1) + (1,) * (ndim - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        mult_fact = fill_ops.ones(sizes, output_dtype)
        return [raw_ops.Mul(x=x, y=mult_fact, name="mul") for x in output]  # TF multiplies with `*`


# -- Gradients -----------------------------------------------------------------------------------------
# TF's array_grad for the ops above; ops of the families above this one are reached through raw_ops.

def _pass_through_grad(op: Any, *grads: Tensor) -> list:
    return list(grads)


for _handle in (Identity, RefIdentity, IdentityN):
    _handle.gradient(_pass_through_grad)
NotDifferentiable("StopGradient")


@Transpose.gradient
def _transpose_grad(op: Any, grad: Tensor) -> list:
    return [transpose(grad, invert_permutation(op.inputs[1])), None]


@ConjugateTranspose.gradient
def _conjugate_transpose_grad(op: Any, grad: Tensor) -> list:
    return [transpose(grad, invert_permutation(op.inputs[1]), conjugate=True), None]


InvertPermutation = Op("InvertPermutation", inputs=["x: T"], outputs=["y: T"], attrs=["T: {int32, int64} = DT_INT32"])


@InvertPermutation.shape
def _invert_permutation_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [with_rank(ctx.input_shape(0), 1)]


@InvertPermutation.kernel("CPU")
def _invert_permutation(ctx: OpKernelContext, x: Any) -> Any:
    if x.ndim != 1:
        raise invalid_argument(ctx, "invert_permutation expects a 1D vector.")
    values = np.asarray(x).tolist()
    if sorted(values) != list(builtins.range(x.size)):
        seen = set()
        for d in values:  # the first bad entry in order, as TF's loop reports it
            if not 0 <= d < x.size:
                raise invalid_argument(ctx, f"{d} is not between 0 and {x.size}")
            if d in seen:
                raise invalid_argument(ctx, f"{d} is duplicated in the input.")
            seen.add(d)
    return ctx.xp.argsort(x).astype(x.dtype)


NotDifferentiable("InvertPermutation")


@Pack.gradient
def _pack_grad(op: Any, grad: Tensor) -> list:
    return unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@Unpack.gradient
def _unpack_grad(op: Any, *grads: Tensor) -> list:
    return [stack(list(grads), axis=op.get_attr("axis"))]


def concat_gradient(grad: Tensor, values: list[Tensor], concat_dim: Tensor) -> list[Tensor]:
    """The gradients of a concat's `values`, built as TF's _ConcatGradHelper builds them in a graph: the axis
    mod the rank, the inputs' shapes (constants where all are known, else one ShapeN), then the pieces
    sliced at ConcatOffset's offsets, or (past 16 inputs) one SplitV by the sizes along the axis."""
    if context.executing_eagerly():  # the sizes along the axis, at once
        axis = int(concat_dim) % len(values[0].shape)
        return split(grad, [int(v.shape[axis]) for v in values], axis)
    if concat_dim.op.type == "Const" and (concat_dim.op._get_control_flow_context()
                                          is not grad.op._get_control_flow_context()):
        # a constant from another control-flow context, made again here rather than passed through an Enter
        concat_dim = constant(tensor_util.constant_value(concat_dim), dtype=concat_dim.dtype)
    axis = concat_dim % rank(values[0])
    sizes = _input_shapes(values)
    if len(sizes) > 16:
        along_axis = raw_ops.Squeeze(input=raw_ops.Slice(input=stack(sizes, axis=1), begin=stack([axis, 0]),
                                                          size=[1, -1]))
        return split(grad, along_axis, axis, num=len(values))
    offsets = ConcatOffset(axis, sizes)
    return [raw_ops.Slice(input=grad, begin=begin, size=size) for begin, size in zip(offsets, sizes)]


def _input_shapes(values: list[Tensor]) -> list[Tensor]:
    """Each value's shape: constants while every one is known (TF's _ExtractInputShapes: the shape of the
    first value that is not known is built, then left unused for one ShapeN of them all)."""
    sizes = []
    for value in values:
        size = shape_ops.shape(value)
        if size.op.type != "Const":
            return shape_ops.shape_n(values)
        sizes.append(size)
    return sizes


@ConcatV2.gradient
def _concat_v2_grad(op: Any, grad: Tensor) -> list:
    values = list(op.inputs[:-1])
    if len(values) == 1:
        return [grad, None]
    return [*concat_gradient(grad, values, op.inputs[-1]), None]


@Split.gradient
def _split_grad(op: Any, *grads: Tensor) -> list:
    return [None, concat(list(grads), op.inputs[0])]


@SplitV.gradient
def _split_v_grad(op: Any, *grads: Tensor) -> list:
    return [concat(list(grads), op.inputs[2]), None, None]


@Tile.gradient
def _tile_grad(op: Any, grad: Tensor) -> list:
    """Sum the tiles: the gradient reshaped to (multiple, size) pairs per dimension, summed over multiples."""
    input_shape = raw_ops.Shape(input=op.inputs[0], out_type=op.inputs[1].dtype)
    split_shape = raw_ops.Reshape(tensor=Transpose(stack([op.inputs[1], input_shape]), [1, 0]), shape=[-1])
    axes = Range(0, raw_ops.Size(input=split_shape, out_type=op.inputs[1].dtype), 2)
    input_grad = raw_ops.Sum(input=raw_ops.Reshape(tensor=grad, shape=split_shape), reduction_indices=axes)
    input_grad.set_shape(op.inputs[0].shape)
    return [input_grad, None]


def _pad_grad(op: Any, grad: Tensor) -> list:
    x, paddings = op.inputs[0], op.inputs[1]
    begin = raw_ops.Reshape(tensor=raw_ops.Slice(input=paddings, begin=[0, 0], size=stack([Rank(x), 1])),
                            shape=[-1])
    x_grad = raw_ops.Slice(input=grad, begin=begin, size=raw_ops.Shape(input=x, out_type=begin.dtype))
    return [x_grad, None] + [None] * (len(op.inputs) - 2)


Pad.gradient(_pad_grad)
PadV2.gradient(_pad_grad)


@MirrorPad.gradient
def _mirror_pad_grad_fn(op: Any, grad: Tensor) -> list:
    return [MirrorPadGrad(grad, op.inputs[1], mode=op.get_attr("mode")), None]


@MirrorPadGrad.gradient
def _mirror_pad_grad_grad(op: Any, grad: Tensor) -> list:
    return [MirrorPad(grad, op.inputs[1], mode=op.get_attr("mode")), None]


@ReverseV2.gradient
def _reverse_v2_grad(op: Any, grad: Tensor) -> list:
    return [ReverseV2(grad, op.inputs[1]), None]
