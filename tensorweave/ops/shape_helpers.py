"""Shape-function helpers shared by the op families: TF's C++ InferenceContext checks (WithRank,
WithRankAtLeast, WithValue), a 1-D shape-like input read as a partial shape, the broadcast of two partial shapes, and the
shape functions of unary and of broadcasting binary ops.

They raise the ValueErrors of TF's C++ shape functions, which are what a bad graph reports (TensorShape's own
methods carry the Python API's messages instead). This module imports no op family, so every family uses it
and none keeps a copy.
"""

from __future__ import annotations

from tensorweave.framework import tensor_shape
from tensorweave.framework.shape_inference import InferenceContext


def with_rank(shape: tensor_shape.TensorShape, rank: int) -> tensor_shape.TensorShape:
    if shape.ndims is None:
        return tensor_shape.unknown_shape(rank=rank)
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


def with_rank_at_most(shape: tensor_shape.TensorShape, rank: int) -> tensor_shape.TensorShape:
    if shape.ndims is not None and shape.ndims > rank:
        raise ValueError(f"Shape must be at most rank {rank} but is rank {shape.ndims}")
    return shape


def with_rank_at_least(shape: tensor_shape.TensorShape, rank: int) -> tensor_shape.TensorShape:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.ndims}")
    return shape


def with_value(dim: tensor_shape.Dimension | int | None, value: int) -> tensor_shape.Dimension:
    """TF's WithValue: a dimension that must be `value` (an unknown one becomes it); `dim` is a Dimension or
    its int or None, as `shape[i]` gives either."""
    dim = tensor_shape.as_dimension(dim)
    if dim.value is not None and dim.value != value:
        raise ValueError(f"Dimension must be {value} but is {dim.value}")
    return tensor_shape.Dimension(value)


def merge_dim(a: tensor_shape.Dimension | int | None, b: tensor_shape.Dimension | int | None
              ) -> tensor_shape.Dimension:
    """TF's Merge of two dimensions: the known one of the two, which must agree where both are known."""
    a, b = tensor_shape.as_dimension(a), tensor_shape.as_dimension(b)
    if a.value is not None and b.value is not None and a.value != b.value:
        raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}")
    return a if a.value is not None else b


def shape_from_tensor(ctx: InferenceContext, index: int) -> tensor_shape.TensorShape:
    """A 1-D shape-like input (sizes, multiples) as a partial shape; -1 entries are unknown."""
    with_rank(ctx.input_shape(index), 1)
    return ctx.input_as_shape(index)


def broadcast_shapes(x: tensor_shape.TensorShape, y: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The broadcast of two partial shapes, or the ValueError of TF's C++ shape functions."""
    if x.ndims is None or y.ndims is None:
        return tensor_shape.unknown_shape()
    xs, ys = x.as_list(), y.as_list()
    n = max(len(xs), len(ys))
    xs = [1] * (n - len(xs)) + xs
    ys = [1] * (n - len(ys)) + ys
    dims = []
    for a, b in zip(xs, ys):
        if a == 1:
            dims.append(b)
        elif b == 1:
            dims.append(a)
        elif a is None or b is None:
            dims.append(a if b is None else b)
        elif a == b:
            dims.append(a)
        else:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return tensor_shape.TensorShape(dims)


def broadcast_binary_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [broadcast_shapes(ctx.input_shape(0), ctx.input_shape(1))]


def unary_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]
