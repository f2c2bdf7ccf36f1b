"""Checks: the CheckNumerics and CheckNumericsV2 ops (`tf.check_numerics`, `tf.verify_tensor_all_finite`,
`tf.add_check_numerics_ops`) and TF1's `tf.assert_*` family with its static helpers.

Each assert checks what it can while the graph is built, as TF does: values known statically (constants and
the constant subgraphs shape inference folds) fail at once with TF's exception and message, and a check
settled statically returns a NoOp; anything else becomes an Assert op (`tf.Assert`, guarded by a cond when
its data is not all strings and int32) that fails the step with the data summarised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_util
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    executing_eagerly,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.ops import (
    control_flow_ops,
    elementwise_ops,
    indexing_ops,
    logging_ops,
    reduction_ops,
    shape_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import unary_shape
from tensorweave.platform.tf_export import tf_export

# -- CheckNumerics -------------------------------------------------------------------------------------

CheckNumerics = Op("CheckNumerics", inputs=["tensor: T"], outputs=["output: T"],
                   attrs=["T: {bfloat16, half, float, double}", "message: string"], is_stateful=True)
CheckNumerics.shape(unary_shape)


@CheckNumerics.kernel("CPU")
def _check_numerics(ctx: OpKernelContext, tensor: Any, message: Any) -> Any:
    """`tensor` unchanged, or InvalidArgument naming which of Inf and NaN it holds."""
    values = np.asarray(tensor, dtype=np.float32) if tensor.dtype.itemsize == 2 else tensor
    has_inf, has_nan = bool(np.isinf(values).any()), bool(np.isnan(values).any())
    if has_inf or has_nan:
        found = "Inf and NaN" if has_inf and has_nan else "Inf" if has_inf else "NaN"
        text = message.decode() if isinstance(message, bytes) else message
        raise invalid_argument(ctx, f"{text} : Tensor had {found} values")
    return tensor


@CheckNumerics.gradient
def _check_numerics_grad(op: Any, grad: Tensor) -> list:
    """The gradient checked too (by the op's own version), its message saying so."""
    message = op.get_attr("message")
    message = message.decode() if isinstance(message, bytes) else message
    check = CheckNumericsV2 if op.type == "CheckNumericsV2" else CheckNumerics
    return [check(grad, message="Not a number (NaN) or infinity (Inf) values detected in gradient. " + message)]


CheckNumericsV2 = Op("CheckNumericsV2", inputs=["tensor: T"], outputs=["output: T"],
                     attrs=["T: {bfloat16, half, float, double}", "message: string"], is_stateful=True)
CheckNumericsV2.shape(unary_shape)


@CheckNumericsV2.kernel("CPU")
def _check_numerics_v2(ctx: OpKernelContext, tensor: Any, message: Any) -> Any:
    """`tensor` unchanged, or InvalidArgument naming which of -Inf, +Inf and NaN it holds (V2 tells the
    infinities apart)."""
    values = np.asarray(tensor, dtype=np.float32) if tensor.dtype.itemsize == 2 else tensor
    infinite = np.isinf(values)
    found = [kind for kind, present in (("-Inf", (infinite & (values < 0)).any()),
                                        ("+Inf", (infinite & (values > 0)).any()),
                                        ("NaN", np.isnan(values).any())) if present]
    if found:
        listed = " and ".join(found) if len(found) < 3 else f"{found[0]}, {found[1]}, and {found[2]}"
        text = message.decode() if isinstance(message, bytes) else message
        raise invalid_argument(ctx, f"{text} : Tensor had {listed} values")
    return tensor


CheckNumericsV2.gradient(_check_numerics_grad)


@tf_export("debugging.check_numerics", "check_numerics")
def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """`tensor`, failing the step if it holds any Inf or NaN."""
    return CheckNumerics(tensor, message=message, name=name)


def _renamed(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """TF's deprecated_argument_lookup: the value given under either name of a renamed argument."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return old_value


@tf_export("debugging.assert_all_finite", "verify_tensor_all_finite")
def verify_tensor_all_finite(t: Any = None, msg: str | None = None, name: str | None = None, x: Any = None,
                             message: str | None = None) -> Tensor:
    """`x`, available only after a CheckNumerics of it (colocated with it) has passed."""
    x = _renamed("x", x, "t", t)
    message = _renamed("message", message, "msg", msg)
    with name_scope(name, "VerifyFinite", [x]):
        x = convert_to_tensor(x, name="x")
        with colocate_with(x):
            verify_input = check_numerics(x, message=message)
            return control_flow_ops.with_dependencies([verify_input], x)


@tf_export("add_check_numerics_ops")
def add_check_numerics_ops() -> Operation:
    """One CheckNumerics per floating output of every op in the default graph, chained by control edges so
    they run one at a time, grouped into one op."""
    check_op: list[Tensor] = []
    for op in get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
                if op._get_control_flow_context() is not None:
                    raise ValueError("`tf.add_check_numerics_ops() is not compatible with TensorFlow control flow "
                                     "operations such as `tf.cond()` or `tf.while_loop()`.")
                with control_dependencies(check_op):
                    check_op = [check_numerics(output, message=f"{op.name}:{output.value_index}")]
    return control_flow_ops.group(*check_op)


# -- Static helpers ------------------------------------------------------------------------------------

NUMERIC_TYPES = frozenset([
    dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
    dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.qint8, dtypes.qint16, dtypes.qint32,
    dtypes.quint8, dtypes.quint16, dtypes.complex64, dtypes.complex128, dtypes.bfloat16])


@tf_export("debugging.is_numeric_tensor", "is_numeric_tensor")
def is_numeric_tensor(tensor: Any) -> bool:
    return isinstance(tensor, Tensor) and tensor.dtype in NUMERIC_TYPES


@tf_export("debugging.assert_proper_iterable", "assert_proper_iterable")
def assert_proper_iterable(values: Any) -> None:
    """TypeError unless `values` is an iterable of values (not a tensor, array or string, which iterate too)."""
    if isinstance(values, (Tensor, np.ndarray, bytes, str)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def _same_base_type(items: list, expected_type: dtypes.DType | None) -> dtypes.DType | None:
    """The items' common base dtype (or `expected_type`); ValueError naming the first item that differs."""
    first_name = None
    for item in items:
        if item is None:
            continue
        item_type = item.dtype.base_dtype
        if not expected_type:
            expected_type = item_type
            first_name = item.name if hasattr(item, "name") else str(item)
        elif expected_type != item_type:
            as_first = f" as {first_name}" if first_name else ""
            raise ValueError(f"{item.name if hasattr(item, 'name') else str(item)}, type={item_type}, must be of "
                             f"the same type ({expected_type}){as_first}.")
    return expected_type


@tf_export("debugging.assert_same_float_dtype", "assert_same_float_dtype")
def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> dtypes.DType:
    """The floating dtype all `tensors` (and `dtype`, if given) share; float32 when there is nothing."""
    if tensors:
        dtype = _same_base_type(tensors, dtype)
    if not dtype:
        return dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _message_prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


@tf_export("debugging.assert_type", "assert_type")
def assert_type(tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None) -> Operation:
    """A NoOp, or TypeError now if `tensor` is not of `tf_type` (dtypes are static)."""
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{_message_prefix(message)}{getattr(tensor, 'name', 'tensor')} must be of type {tf_type!r}; got "
                            f"{tensor.dtype!r}")
        return control_flow_ops.no_op("statically_determined_correct_type")


@tf_export("debugging.assert_integer", "assert_integer")
def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> Operation:
    """A NoOp, or TypeError now if `x` is not of an integer dtype."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  Found: '
                            f'{"tensor" if executing_eagerly() else x.name} of dtype {x.dtype}')
        return control_flow_ops.no_op("statically_determined_was_integer")


@tf_export("debugging.assert_scalar", "assert_scalar")
def assert_scalar(tensor: Any, name: str | None = None, message: str | None = None) -> Tensor:
    """`tensor` as a Tensor, or ValueError now unless its static shape is a scalar's."""
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        shape = tensor.get_shape()
        if shape.ndims != 0:
            named = "" if executing_eagerly() else f" for {tensor.name}"
            raise ValueError(f"{_message_prefix(message)}Expected scalar shape{named}, saw shape: {shape}.")
        return tensor


# -- Elementwise asserts -------------------------------------------------------------------------------


def _static_string(value: Any) -> str:
    """A data item as TF's static failure prints it: a tensor's constant value, else the item itself."""
    if isinstance(value, Tensor):
        constant = tensor_util.get_static_value(value)
        return str(value if constant is None else constant)
    return str(value)


def _label(tensor: Tensor, by_shape: bool = True) -> str:
    """How an assert's message names a tensor: by name, or when eager (it has none) by shape and dtype, or
    not at all (the rank asserts, as TF's)."""
    if not executing_eagerly():
        return tensor.name
    return f"shape={tensor.shape} dtype={tensor.dtype.name}" if by_shape else ""


def _pretty_print(item: Any, summarize: int) -> str:
    """A data item of an eager assert's message: a tensor as the list of its first `summarize` values."""
    if not isinstance(item, Tensor):
        return str(item)
    value = item.numpy()
    if np.isscalar(value):
        return str(value)
    flat = value.reshape(-1)
    return str([str(v) for v in flat[:summarize]] + (["..."] if flat.size > summarize else []))


def _eager_binary_assert(sym: str, op_func: Callable, x: Tensor, y: Tensor, data: Any, summarize: int | None,
                         message: str | None) -> None:
    """TF's eager assert: nothing when `op_func(x, y)` holds everywhere, else InvalidArgumentError now, listing
    the first values that differ."""
    holds = np.asarray(op_func(x, y))
    if holds.all():
        return
    summarize = 3 if summarize is None else 10**9 if summarize < 0 else summarize
    if data is None:
        data = [f"Condition x {sym} y did not hold."]
        x_np, y_np = np.asarray(x), np.asarray(y)
        if summarize > 0:
            if x.shape == y.shape and x.shape.as_list():  # the differing values, where their positions match
                differ = ~holds
                count = min(summarize, int(differ.sum()))
                data += [f"Indices of first {count} different values:", np.argwhere(differ)[:count],
                         "Corresponding x values:", x_np[differ][:count],
                         "Corresponding y values:", y_np[differ][:count]]
            count_x, count_y = min(x_np.size, summarize), min(y_np.size, summarize)
            data += [f"First {count_x} elements of x:", x_np.reshape(-1)[:count_x],
                     f"First {count_y} elements of y:", y_np.reshape(-1)[:count_y]]
    if message is not None:
        data = [message] + list(data)
    raise errors.InvalidArgumentError(None, None, "\n".join(_pretty_print(item, summarize) for item in data))


def _binary_assert(sym: str, opname: str, op_func: Callable, static_func: Callable, x: Any, y: Any, data: Any,
                   summarize: int | None, message: str | None, name: str | None) -> Operation | None:
    """An Assert that `op_func(x, y)` holds everywhere; InvalidArgumentError now when x and y are known (or
    eager: nothing then when it holds)."""
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if executing_eagerly():
            return _eager_binary_assert(sym, op_func, x, y, data, summarize, message)
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({_label(x)}) = ", x,
                    f"y ({_label(y)}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = reduction_ops.reduce_all(op_func(x, y))
        x_static, y_static = tensor_util.get_static_value(x), tensor_util.get_static_value(y)
        if x_static is not None and y_static is not None and not np.all(static_func(x_static, y_static)):
            raise errors.InvalidArgumentError(None, None, "\n".join(_static_string(item) for item in data))
        return logging_ops.Assert_(condition, data, summarize=summarize)



@tf_export("debugging.assert_equal", "assert_equal")
def assert_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                 name: str | None = None) -> Operation:
    """Assert `x == y` elementwise (a NoOp when `x` is `y`)."""
    with name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return control_flow_ops.no_op()
    return _binary_assert("==", "assert_equal", elementwise_ops.equal, np.equal, x, y, data, summarize, message,
                          name)


@tf_export("debugging.assert_none_equal", "assert_none_equal")
def assert_none_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                      name: str | None = None) -> Operation:
    return _binary_assert("!=", "assert_none_equal", elementwise_ops.not_equal, np.not_equal, x, y, data,
                          summarize, message, name)


@tf_export("debugging.assert_less", "assert_less")
def assert_less(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                name: str | None = None) -> Operation:
    return _binary_assert("<", "assert_less", elementwise_ops.less, np.less, x, y, data, summarize, message, name)


@tf_export("debugging.assert_less_equal", "assert_less_equal")
def assert_less_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                      name: str | None = None) -> Operation:
    return _binary_assert("<=", "assert_less_equal", elementwise_ops.less_equal, np.less_equal, x, y, data,
                          summarize, message, name)


@tf_export("debugging.assert_greater", "assert_greater")
def assert_greater(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                   name: str | None = None) -> Operation:
    return _binary_assert(">", "assert_greater", elementwise_ops.greater, np.greater, x, y, data, summarize,
                          message, name)


@tf_export("debugging.assert_greater_equal", "assert_greater_equal")
def assert_greater_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None,
                         message: str | None = None, name: str | None = None) -> Operation:
    return _binary_assert(">=", "assert_greater_equal", elementwise_ops.greater_equal, np.greater_equal, x, y,
                          data, summarize, message, name)


def _sign_assert(sym: str, opname: str, compare: Callable, zero_first: bool, x: Any, data: Any,
                 summarize: int | None, message: str | None, name: str | None) -> Operation:
    """`x sym 0` as TF's unary asserts build it: a binary assert against a zero of x's dtype."""
    message = _message_prefix(message)
    with name_scope(name, opname, [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, f"Condition x {sym} 0 did not hold element-wise:", f"x ({_label(x)}) = ", x]
            if sym == "<=":  # TF's list lacks a comma here, so these two lines are one
                data[1:3] = [data[1] + data[2]]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return compare(zero, x, data=data, summarize=summarize) if zero_first else \
            compare(x, zero, data=data, summarize=summarize)


@tf_export("debugging.assert_negative", "assert_negative")
def assert_negative(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                    name: str | None = None) -> Operation:
    return _sign_assert("<", "assert_negative", assert_less, False, x, data, summarize, message, name)


@tf_export("debugging.assert_positive", "assert_positive")
def assert_positive(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                    name: str | None = None) -> Operation:
    return _sign_assert(">", "assert_positive", assert_less, True, x, data, summarize, message, name)


@tf_export("debugging.assert_non_negative", "assert_non_negative")
def assert_non_negative(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                        name: str | None = None) -> Operation:
    return _sign_assert(">=", "assert_non_negative", assert_less_equal, True, x, data, summarize, message, name)


@tf_export("debugging.assert_non_positive", "assert_non_positive")
def assert_non_positive(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                        name: str | None = None) -> Operation:
    return _sign_assert("<=", "assert_non_positive", assert_less_equal, False, x, data, summarize, message, name)


@tf_export("debugging.assert_near", "assert_near")
def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, data: Any = None, summarize: int | None = None,
                message: str | None = None, name: str | None = None) -> Operation:
    """Assert `|x - y| < atol + rtol * |y|` elementwise; both tolerances default to 10 * the dtype's eps."""
    message = _message_prefix(message)
    with name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}", f"x ({_label(x)}) = ", x,
                    f"y ({_label(y)}) = ", y]
        tol = atol + rtol * elementwise_ops.abs(y)
        diff = elementwise_ops.abs(x - y)
        condition = reduction_ops.reduce_all(elementwise_ops.less(diff, tol))
        return logging_ops.Assert_(condition, data, summarize=summarize)


# -- Rank asserts --------------------------------------------------------------------------------------


class _StaticRankFailure(Exception):
    """The static rank check failed: (actual rank, given rank or ranks)."""


def _assert_ranks_condition(x: Tensor, ranks: tuple, static_condition: Callable, dynamic_condition: Callable,
                            data: list, summarize: int | None) -> Operation:
    """A NoOp when x's static rank settles the check (_StaticRankFailure when it fails), else an Assert; a
    rank not known statically is itself asserted to be a scalar first."""
    for rank in ranks:
        assert_type(rank, dtypes.int32)
    ranks_static = tuple(tensor_util.get_static_value(rank) for rank in ranks)
    if not any(r is None for r in ranks_static):
        if any(r.ndim != 0 for r in ranks_static):
            raise ValueError("Rank must be a scalar.")
        x_rank = x.get_shape().ndims
        if x_rank is not None:
            if not static_condition(x_rank, ranks_static):
                raise _StaticRankFailure(x_rank, ranks_static)
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(shape_ops.rank(x), ranks)
    for rank, rank_static in zip(ranks, ranks_static):
        if rank_static is None:
            rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
            condition = control_flow_ops.with_dependencies([rank_check], condition)
    return logging_ops.Assert_(condition, data, summarize=summarize)


def _rank_in(actual: Tensor, ranks: tuple) -> Tensor:
    result = elementwise_ops.equal(ranks[0], actual)
    for rank in ranks[1:]:
        result = elementwise_ops.logical_or(result, elementwise_ops.equal(rank, actual))
    return result


@tf_export("debugging.assert_rank", "assert_rank")
def assert_rank(x: Any, rank: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                name: str | None = None) -> Operation:
    """Assert `x` has rank `rank`: ValueError now when x's static rank differs."""
    with name_scope(name, "assert_rank", (x, rank) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {_label(x, False)} must have rank", rank, "Received shape: ", shape_ops.shape(x)]
        try:
            return _assert_ranks_condition(x, (rank,), lambda actual, given: actual == given[0],
                                           lambda actual, given: elementwise_ops.equal(actual, given[0]),
                                           data, summarize)
        except _StaticRankFailure as e:
            raise ValueError(f"{message}Tensor {_label(x, False)} must have rank {int(e.args[1][0])}.  Received rank "
                             f"{e.args[0]}, shape {x.get_shape()}") from None


@tf_export("debugging.assert_rank_at_least", "assert_rank_at_least")
def assert_rank_at_least(x: Any, rank: Any, data: Any = None, summarize: int | None = None,
                         message: str | None = None, name: str | None = None) -> Operation:
    """Assert `x` has rank `rank` or higher: ValueError now when x's static rank is lower."""
    with name_scope(name, "assert_rank_at_least", (x, rank) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {_label(x, False)} must have rank at least", rank, "Received shape: ",
                    shape_ops.shape(x)]
        try:
            return _assert_ranks_condition(x, (rank,), lambda actual, given: actual >= given[0],
                                           lambda actual, given: elementwise_ops.greater_equal(actual, given[0]),
                                           data, summarize)
        except _StaticRankFailure as e:
            raise ValueError(f"{message}Tensor {_label(x, False)} must have rank at least {int(e.args[1][0])}.  Received "
                             f"rank {e.args[0]}, shape {x.get_shape()}") from None


@tf_export("debugging.assert_rank_in", "assert_rank_in")
def assert_rank_in(x: Any, ranks: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                   name: str | None = None) -> Operation:
    """Assert `x` has one of `ranks`: ValueError now when x's static rank is none of them."""
    with name_scope(name, "assert_rank_in", (x,) + tuple(ranks) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(rank, name="rank") for rank in ranks)
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {_label(x, False)} must have rank in"] + list(ranks) + [
                "Received shape: ", shape_ops.shape(x)]
        try:
            return _assert_ranks_condition(x, ranks, lambda actual, given: actual in given,
                                           lambda actual, given: _rank_in(actual, given) if given else
                                           convert_to_tensor(False), data, summarize)
        except _StaticRankFailure as e:
            given = tuple(r.item() for r in e.args[1])
            raise ValueError(f"{message}Tensor {_label(x, False)} must have rank in {given}.  Received rank {e.args[0]}, "
                             f"shape {x.get_shape()}") from None


# -- Monotonicity --------------------------------------------------------------------------------------


def _monotonic_comparison(x: Any, compare_op: Callable) -> Tensor:
    """`compare_op(x[1:], x[:-1])` over x flattened, or an empty bool vector when x has under 2 entries."""
    x = shape_ops.reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    is_shorter_than_two = elementwise_ops.less(shape_ops.size(x), 2)
    s_len = shape_ops.shape(x) - 1
    return control_flow_ops.cond(
        is_shorter_than_two, lambda: convert_to_tensor([], dtype=dtypes.bool),
        lambda: compare_op(indexing_ops.strided_slice(x, [1], [1] + s_len),
                           indexing_ops.strided_slice(x, [0], s_len)))


@tf_export("math.is_non_decreasing", "debugging.is_non_decreasing", "is_non_decreasing")
def is_non_decreasing(x: Any, name: str | None = None) -> Tensor:
    """Whether `x` (flattened) never decreases; true for fewer than two entries."""
    with name_scope(name, "is_non_decreasing", [x]):
        return reduction_ops.reduce_all(_monotonic_comparison(x, elementwise_ops.greater_equal))


@tf_export("math.is_strictly_increasing", "debugging.is_strictly_increasing", "is_strictly_increasing")
def is_strictly_increasing(x: Any, name: str | None = None) -> Tensor:
    """Whether `x` (flattened) always increases; true for fewer than two entries."""
    with name_scope(name, "is_strictly_increasing", [x]):
        return reduction_ops.reduce_all(_monotonic_comparison(x, elementwise_ops.greater))


# -- assert_shapes -------------------------------------------------------------------------------------


def _dimension_sizes(x: Tensor) -> Any:
    """x's dimension sizes for assert_shapes: ints where static, scalar tensors where not; a scalar counts as
    shape [1], as TF has it."""
    rank = x.get_shape().ndims
    if rank == 0:
        return (1,)
    dynamic = shape_ops.shape(x)
    if rank is not None:
        return [size if size is not None else dynamic[i] for i, size in enumerate(x.get_shape().as_list())]
    return control_flow_ops.cond(elementwise_ops.equal(shape_ops.rank(x), 0),
                                 lambda: convert_to_tensor([1]), lambda: dynamic)


def _is_known_size(size: Any) -> bool:
    """Whether a size (or a size symbol) is a number: an int, or a string that reads as one."""
    if size is None or isinstance(size, Tensor):
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                  name: str | None = None) -> Operation:
    """Assert the tensors' shapes against specs of sizes and shared symbols (`[(x, ('N', 'Q')), (y, ('Q',))]`;
    '.' or None any size, a leading '...' or '*' any number of outer dimensions): what is known statically
    fails now with a ValueError, the rest at run time."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    with name_scope(name, "assert_shapes"):
        specs = []
        for x, spec in ((convert_to_tensor(x), spec) for x, spec in shapes if spec is not None):
            if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
                raise ValueError(f"{prefix}Tensor {_label(x)}.  Specified shape must be an iterable.  An iterable has "
                                 "the attribute `__iter__` or `__getitem__`.  Received specified shape: "
                                 f"{spec}")
            spec = tuple(spec)
            for i, symbol in enumerate(spec):
                if symbol in (Ellipsis, "*") and i != 0:
                    raise ValueError(f"{prefix}Tensor {_label(x)} specified shape index {i}.  Symbol `...` or `*` for "
                                     "a variable number of unspecified dimensions is only allowed as the first entry")
            outer = bool(spec) and spec[0] in (Ellipsis, "*")
            symbols = spec[1:] if outer else spec
            specs.append((x, outer, _dimension_sizes(x), symbols or (1,)))

        rank_assertions = []
        for x, outer, _, symbols in specs:
            rank = len(symbols)
            if outer and rank in (0, 1):
                continue
            if outer:
                check = assert_rank_at_least(x, rank, data=data, summarize=summarize, message=message, name=name)
            elif rank in (0, 1):
                check = assert_rank_in(x, [0, 1], data=data, summarize=summarize, message=message, name=name)
            else:
                check = assert_rank(x, rank, data=data, summarize=summarize, message=message, name=name)
            rank_assertions.append(check)

        size_assertions = []
        bound: dict[Any, tuple[Any, Tensor, int]] = {}
        for x, outer, sizes, symbols in specs:
            for i, symbol in enumerate(symbols):
                if symbol in (None, "."):
                    continue
                dim = i - len(symbols) if outer else i
                with control_dependencies(rank_assertions):
                    actual = sizes[dim]
                if not _is_known_size(symbol) and symbol not in bound:
                    bound[symbol] = (actual, x, dim)
                    continue
                if _is_known_size(symbol):
                    expected, source = int(symbol), "Specified explicitly"
                else:
                    expected, by, by_dim = bound[symbol]
                    source = f"Specified by tensor {_label(by)} dimension {by_dim}"
                if _is_known_size(actual) and _is_known_size(expected):
                    if int(actual) != int(expected):
                        raise ValueError(f"{prefix}{source}.  Tensor {_label(x)} dimension {dim} must have size "
                                         f"{int(expected)}.  Received size {int(actual)}, shape {x.get_shape()}")
                    continue
                condition = elementwise_ops.equal(convert_to_tensor(actual), convert_to_tensor(expected))
                summary = data if data is not None else [
                    prefix, source, f"Tensor {_label(x)} dimension", dim, "must have size", expected,
                    "Received shape: ", shape_ops.shape(x)]
                size_assertions.append(logging_ops.Assert_(condition, summary, summarize=summarize))
    with control_dependencies(rank_assertions):
        return control_flow_ops.group(*size_assertions)
