"""TF's ragged dispatch: the public ops that take a tf.RaggedTensor where TF 2.21's do — elementwise math and
comparisons, cast, where, the reduce_* family over ragged and dense axes, concat, gather, zeros_like and
ones_like, size, rank, strings.length and reduce_join — and the RaggedTensor operators (`+`, `<`, `-rt`, `&`, ...),
registered with framework/dispatch.

Invariant: an elementwise op runs once on the flat values and keeps the ragged operand's row partitions; a
second ragged operand must have the same partitions (checked when run), a dense one either broadcasts over
the flat values' inner dimensions or has one row per outer row (size 1 on each ragged dimension). A
reduction over a ragged dimension is an unsorted segment reduction of the values by their row (axis 1) or
by their place in the row (axis 0).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.dispatch import dispatch_for_types
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops import (
    check_ops,
    control_flow_ops,
    elementwise_ops,
    reduction_ops,
    string_ops,
    unicode_ops,
)
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.fill_ops import ones_like, zeros_like
from tensorweave.ops.indexing_ops import boolean_mask, gather, unsorted_segment_sum
from tensorweave.ops.logging_ops import string_format
from tensorweave.ops.manipulation_ops import concat, stack
from tensorweave.ops.ragged_tensor import (
    RaggedTensor,
    _gather_rows,
    _positive_axis,
    ragged_stack_concat,
    row_splits_to_segment_ids,
)
from tensorweave.ops.segment_ops import unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_ops import expand_dims, rank, reshape, shape, size
from tensorweave.ops.string_ops import (
    as_string,
    reduce_join,
    regex_replace,
    string_length,
    unsorted_segment_join,
)

_UNARY = ("negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin", "cos", "tanh", "sigmoid",
          "sign", "reciprocal", "round", "floor", "ceil", "logical_not", "is_nan", "is_finite")
_BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "floordiv", "floormod", "pow", "truediv", "divide",
           "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor", "equal",
           "not_equal", "squared_difference")


def _outer_row_ids(rt: RaggedTensor) -> Tensor:
    """The outermost row of each flat value."""
    ids = None
    for splits in reversed(rt.nested_row_splits):
        level = row_splits_to_segment_ids(splits)
        ids = level if ids is None else gather(level, ids)
    return ids


def _flat_operand(value: Any, rt: RaggedTensor) -> Any:
    """`value` lined up with `rt`'s flat values (see the module invariant)."""
    if isinstance(value, RaggedTensor):
        if value is rt:
            return value.flat_values
        if value.ragged_rank != rt.ragged_rank:
            raise ValueError(f"Ragged operands must have the same ragged_rank, got {rt.ragged_rank} and "
                             f"{value.ragged_rank}")
        checks = [check_ops.assert_equal(a, b) for a, b in zip(rt.nested_row_splits, value.nested_row_splits)]
        return control_flow_ops.with_dependencies(checks, value.flat_values)
    if value is None:
        return None
    value = convert_to_tensor(value, dtype_hint=rt.dtype)
    dense, inner = value.shape.ndims, rt.flat_values.shape.ndims
    if dense is not None and inner is not None and dense <= inner - 1:
        return value
    if dense is not None and dense == rt.shape.ndims and all(
            d.value == 1 for d in value.shape.dims[1:rt.ragged_rank + 1]):
        rows = reshape(value, concat([shape(value)[:1], shape(value)[rt.ragged_rank + 1:]], 0))
        return gather(rows, _outer_row_ids(rt))
    raise ValueError(f"Unable to broadcast a Tensor of shape {value.shape} against a RaggedTensor of shape "
                     f"{rt.shape}")


def _elementwise(api: Callable, operands: Sequence[Any], args: tuple, kwargs: dict) -> RaggedTensor:
    rt = next(x for x in operands if isinstance(x, RaggedTensor))
    return rt.with_flat_values(api(*[_flat_operand(x, rt) for x in operands], *args, **kwargs))


def _register_unary(api: Callable) -> None:
    @dispatch_for_types(api, RaggedTensor)
    def _ragged_unary(x: Any, *args: Any, **kwargs: Any) -> Any:
        return _elementwise(api, [x], args, kwargs)


def _register_binary(api: Callable) -> None:
    @dispatch_for_types(api, RaggedTensor)
    def _ragged_binary(x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
        return _elementwise(api, [x, y], args, kwargs)


for _name in _UNARY:
    _register_unary(getattr(elementwise_ops, _name))
for _name in _BINARY:
    _register_binary(getattr(elementwise_ops, _name))
for _api in (cast, zeros_like, ones_like, string_length, string_ops.substr, string_ops.regex_replace,
             string_ops.regex_full_match, string_ops.string_strip, string_ops.string_lower, string_ops.string_upper,
             string_ops.as_string, string_ops.string_to_hash_bucket_fast,
             string_ops.string_to_hash_bucket_strong, string_ops.string_to_hash_bucket, string_ops.encode_base64,
             string_ops.decode_base64, string_ops.unicode_transcode, unicode_ops.unicode_script):
    _register_unary(_api)  # TF's map_flat_values of the op


@dispatch_for_types(string_ops.string_join, RaggedTensor)
def _ragged_string_join(inputs: Sequence[Any], separator: str = "", name: str | None = None) -> Any:
    """TF's: the flat values joined elementwise (the ragged inputs' partitions must match)."""
    with name_scope(name, "RaggedStringJoin", [x for x in inputs if isinstance(x, Tensor)]):
        return _elementwise(lambda *flat: string_ops.string_join(list(flat), separator=separator), inputs, (), {})


@dispatch_for_types(size, RaggedTensor)
def _ragged_size(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:  # noqa: A002
    return size(input.flat_values, name=name, out_type=out_type)


@dispatch_for_types(rank, RaggedTensor)
def _ragged_rank(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    with name_scope(name, "RaggedRank", [input]):
        return rank(input.flat_values) + input.ragged_rank


@dispatch_for_types(elementwise_ops.where, RaggedTensor)
def _ragged_where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
    if x is None and y is None:
        raise NotImplementedError("tf.where with a RaggedTensor condition needs x and y")
    return _elementwise(elementwise_ops.where, [condition, x, y], (), {"name": name})


# -- reductions ----------------------------------------------------------------------------------------------

_SEGMENT_REDUCERS: dict[str, tuple[Callable, Callable]] = {
    "sum": (unsorted_segment_sum, reduction_ops.reduce_sum),
    "max": (unsorted_segment_max, reduction_ops.reduce_max),
    "min": (unsorted_segment_min, reduction_ops.reduce_min),
    "prod": (unsorted_segment_prod, reduction_ops.reduce_prod),
}


def _segment_reduce(kind: str, data: Any, segment_ids: Tensor, num_segments: Tensor) -> Any:
    """The rows of `data` combined by segment; ragged rows combine position by position (a segment's row is
    as long as its longest member)."""
    segment_fn = _SEGMENT_REDUCERS[kind][0]
    if not isinstance(data, RaggedTensor):
        return segment_fn(data, segment_ids, num_segments)
    dtype = data.row_splits_dtype
    segment_ids = cast(segment_ids, dtype)
    lengths = elementwise_ops.maximum(unsorted_segment_max(data.row_lengths(), segment_ids, num_segments), 0)
    splits = concat([reshape(cast(0, dtype), [1]), reduction_ops.cumsum(lengths)], 0)
    rowids = data.value_rowids()
    positions = tf_range(shape(rowids, out_type=dtype)[0]) - gather(data.row_splits, rowids)
    targets = gather(splits, gather(segment_ids, rowids)) + positions
    values = _segment_reduce(kind, data.values, targets, splits[-1])
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _reduce_axis(kind: str, value: Any, axis: int) -> Any:
    if not isinstance(value, RaggedTensor):
        return _SEGMENT_REDUCERS[kind][1](value, axis=axis)
    if axis == 0:
        rowids = value.value_rowids()
        positions = tf_range(shape(rowids, out_type=value.row_splits_dtype)[0]) - gather(value.row_splits, rowids)
        return _segment_reduce(kind, value.values, positions, value.bounding_shape(axis=1))
    if axis == 1:
        return _segment_reduce(kind, value.values, value.value_rowids(), value.nrows())
    return value.with_values(_reduce_axis(kind, value.values, axis - 1))


def _ragged_reduce(kind: str, rt: RaggedTensor, axis: Any) -> Any:
    """Reduce `rt` over `axis` (every axis when None), the innermost axis first."""
    if axis is None:
        return _SEGMENT_REDUCERS[kind][1](rt.flat_values)
    rank = rt.shape.ndims
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if any(not isinstance(a, int) for a in axes):
        raise TypeError("RaggedTensor reductions need axis to be a Python int or a list of them")
    result = rt
    for a in sorted({_positive_axis(a, rank) for a in axes}, reverse=True):
        result = _reduce_axis(kind, result, a)
    return result


def _kept_dims(result: Any, rt: RaggedTensor, axis: Any) -> Any:
    """keepdims: each reduced axis back with size 1 (a dense result only, as far as supported here)."""
    if isinstance(result, RaggedTensor):
        raise NotImplementedError("keepdims=True is supported for RaggedTensor reductions with a dense result")
    rank_in = rt.shape.ndims
    axes = range(rank_in) if axis is None else axis if isinstance(axis, (list, tuple)) else [axis]
    for a in sorted({_positive_axis(a, rank_in) for a in axes}):
        result = expand_dims(result, a)
    return result


def _register_reduction(api: Callable, kind: str, scope: str) -> None:
    @dispatch_for_types(api, RaggedTensor)
    def _ragged_reduction(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                          reduction_indices: Any = None, keep_dims: Any = None) -> Any:
        axis = reduction_ops._deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
        keep = reduction_ops._deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims)
        with name_scope(name, scope, [input_tensor]):
            if kind == "mean":
                total = _ragged_reduce("sum", input_tensor, axis)
                ones = input_tensor.with_flat_values(ones_like(input_tensor.flat_values))
                result = elementwise_ops.truediv(total, _ragged_reduce("sum", ones, axis))
            elif kind in ("any", "all"):
                as_int = input_tensor.with_flat_values(cast(input_tensor.flat_values, dtypes.int32))
                result = cast(_ragged_reduce("max" if kind == "any" else "min", as_int, axis), dtypes.bool)
            else:
                result = _ragged_reduce(kind, input_tensor, axis)
            return _kept_dims(result, input_tensor, axis) if keep else result


for _api, _kind, _scope in ((reduction_ops.reduce_sum, "sum", "RaggedReduceSum"),
                            (reduction_ops.reduce_max, "max", "RaggedReduceMax"),
                            (reduction_ops.reduce_min, "min", "RaggedReduceMin"),
                            (reduction_ops.reduce_prod, "prod", "RaggedReduceProd"),
                            (reduction_ops.reduce_mean, "mean", "RaggedReduceMean"),
                            (reduction_ops.reduce_any, "any", "RaggedReduceAny"),
                            (reduction_ops.reduce_all, "all", "RaggedReduceAll")):
    _register_reduction(_api, _kind, _scope)


@dispatch_for_types(reduce_join, RaggedTensor)
def _ragged_reduce_join(inputs: Any, axis: Any = None, keep_dims: Any = None, separator: str = "",
                        name: str | None = None, reduction_indices: Any = None, keepdims: Any = None) -> Any:
    """The strings of each row joined (the innermost ragged axis of a 2-D RaggedTensor), or all of them."""
    axis = reduction_ops._deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    if keep_dims or keepdims:
        raise NotImplementedError("keepdims=True is not supported for a RaggedTensor reduce_join")
    with name_scope(name, "RaggedSegmentJoin", [inputs]):
        if axis is None:
            return reduce_join(inputs.flat_values, separator=separator)
        if inputs.ragged_rank != 1 or inputs.shape.ndims != 2 or _positive_axis(axis, 2) != 1:
            raise NotImplementedError("reduce_join on a RaggedTensor supports the rows of a 2-D one (axis=1)")
        return unsorted_segment_join(inputs.values, inputs.value_rowids(), inputs.nrows(), separator=separator)


# -- concat and gather ---------------------------------------------------------------------------------------

@dispatch_for_types(concat, RaggedTensor)
def _ragged_concat(values: Any, axis: Any, name: str = "concat") -> Any:
    with name_scope(name, "RaggedConcat", [v for v in values if isinstance(v, Tensor)]):
        return ragged_stack_concat(values, axis, stack_values=False)


@dispatch_for_types(gather, RaggedTensor)
def _ragged_gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None,
                   axis: Any = None, batch_dims: int = 0) -> Any:
    """Rows of `params` (axis 0) picked by `indices`; ragged indices give ragged results of their shape."""
    if axis not in (None, 0) or batch_dims != 0:
        raise NotImplementedError("gather on a RaggedTensor supports axis=0 and batch_dims=0 only")
    with name_scope(name, "RaggedGather", [x for x in (params, indices) if isinstance(x, Tensor)]):
        if isinstance(indices, RaggedTensor):
            return indices.with_flat_values(gather(params, indices.flat_values))
        indices = convert_to_tensor(indices, name="indices")
        if indices.shape.ndims == 0:
            return _gather_rows(params, reshape(indices, [1])).values
        if indices.shape.ndims == 1:
            return _gather_rows(params, indices)
        return gather(params, RaggedTensor.from_tensor(indices, ragged_rank=builtins.max(indices.shape.ndims - 1, 1)))


# -- operators -----------------------------------------------------------------------------------------------

def _reflected(api: Callable) -> Callable:
    return lambda self, other: api(other, self)


for _op, _api in (("add", elementwise_ops.add), ("sub", elementwise_ops.subtract),
                  ("mul", elementwise_ops.multiply), ("truediv", elementwise_ops.truediv),
                  ("floordiv", elementwise_ops.floordiv), ("mod", elementwise_ops.floormod),
                  ("pow", elementwise_ops.pow), ("and", elementwise_ops.logical_and),
                  ("or", elementwise_ops.logical_or), ("xor", elementwise_ops.logical_xor)):
    setattr(RaggedTensor, f"__{_op}__", _api)
    setattr(RaggedTensor, f"__r{_op}__", _reflected(_api))
for _op, _api in (("lt", elementwise_ops.less), ("le", elementwise_ops.less_equal),
                  ("gt", elementwise_ops.greater), ("ge", elementwise_ops.greater_equal)):
    setattr(RaggedTensor, f"__{_op}__", _api)
RaggedTensor.__neg__ = elementwise_ops.negative
RaggedTensor.__abs__ = elementwise_ops.abs
RaggedTensor.__invert__ = elementwise_ops.logical_not


# -- strings.format and tf.print of a RaggedTensor -----------------------------------------------------------

def _joined_rows(pieces: Tensor, splits: Tensor, summarize: Any) -> Tensor:
    """One string per row, "[a, b, c]": the row's pieces joined (TF's _ragged_tensor_to_string, whose rows of
    more than 2 * summarize pieces keep the first and last `summarize`, with "..." between)."""
    ids = row_splits_to_segment_ids(splits)
    if summarize not in (-1, None):
        starts, lengths = gather(splits[:-1], ids), gather(splits[1:] - splits[:-1], ids)
        position = tf_range(size(pieces, out_type=splits.dtype), dtype=splits.dtype) - starts
        long = elementwise_ops.greater(lengths, 2 * summarize)
        pieces = elementwise_ops.where(elementwise_ops.logical_and(long, elementwise_ops.equal(position, summarize - 1)),
                                       elementwise_ops.add(pieces, ", ..."), pieces)
        keep = elementwise_ops.logical_or(elementwise_ops.logical_not(long), elementwise_ops.logical_or(
            elementwise_ops.less(position, summarize), elementwise_ops.greater_equal(position, lengths - summarize)))
        pieces, ids = boolean_mask(pieces, keep), boolean_mask(ids, keep)
    joined = unsorted_segment_join(pieces, ids, size(splits) - 1, separator=", ")
    return elementwise_ops.add(elementwise_ops.add("[", joined), "]")


def _ragged_to_string(rt: RaggedTensor, summarize: Any) -> Tensor:
    """TF's ragged_tensor_to_string: "[[1, 2], [3]]" (strings quoted, ' and \\ escaped), each dimension
    summarized; of a RaggedTensor whose flat values are a vector."""
    if summarize is not None and summarize != -1 and not (isinstance(summarize, int) and summarize > 0):
        raise ValueError(f"Expected summarize to be -1 or a positive int, got {summarize!r}")
    with name_scope(None, "AsString", [rt]):
        values = rt.flat_values
        if values.shape.ndims != 1:
            raise NotImplementedError("printing a RaggedTensor with uniform inner dimensions is not built")
        if values.dtype == dtypes.string:
            values = elementwise_ops.add(elementwise_ops.add("'", regex_replace(values, r"(['\\])", r"\\\1")), "'")
        else:
            values = as_string(values)
        for splits in reversed(rt.nested_row_splits):
            values = _joined_rows(values, splits, summarize)
        outer = stack([constant(0, rt.row_splits.dtype), size(values, out_type=rt.row_splits.dtype)])
        return reshape(_joined_rows(values, outer, summarize), [])


@dispatch_for_types(string_format, RaggedTensor)
def _ragged_string_format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
                          name: str | None = None) -> Tensor:
    """TF's: the template's text between the inputs' strings, a RaggedTensor's from ragged_tensor_to_string."""
    if isinstance(inputs, (Tensor, RaggedTensor)):
        inputs = [inputs]
    split_template = template.split(placeholder)
    if len(inputs) != len(split_template) - 1:
        raise ValueError(f"num placeholders in template and num inputs must match: {len(split_template) - 1} vs "
                         f"{len(inputs)}")
    with name_scope(name, "StringFormat", [t for t in inputs if isinstance(t, Tensor)]):
        pieces = [constant(split_template[0])]
        for value, text in zip(inputs, split_template[1:]):
            pieces.append(_ragged_to_string(value, summarize) if isinstance(value, RaggedTensor)
                          else string_format("{}", [value], summarize=summarize))
            pieces.append(constant(text))
        return reduce_join(pieces)
