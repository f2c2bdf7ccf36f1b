"""Helpers the distributions share (TF's `distribution_util`): logits and probabilities from either one, the
`validate_args` checks embedded as control dependencies, `log_combinations`, and derived sample seeds.

Each `embed_check_*` returns its input behind assertions (an Identity with control inputs), so a check runs
exactly when the value is used; what is known statically is checked at graph build as TF does (ValueError,
TypeError), the rest at run time (InvalidArgumentError from the Assert).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import (
    assert_equal,
    assert_greater_equal,
    assert_less_equal,
    assert_near,
    assert_non_negative,
    assert_rank_at_least,
)
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.control_flow_ops import no_op, with_dependencies
from tensorweave.ops.elementwise_ops import log, log1p, sigmoid
from tensorweave.ops.nn_ops import softmax
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.shape_ops import shape
from tensorweave.ops.special_math_ops import lgamma

_UNSIGNED = (dtypes.bool, dtypes.uint8, dtypes.uint16)
_SIGNED = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def _known(dt: dtypes.DType) -> dtypes.DType:
    if dt.base_dtype not in _UNSIGNED + _SIGNED:
        raise TypeError(f"Unrecognized dtype: {dt.name}")
    return dt.base_dtype


def largest_integer_by_dtype(dt: dtypes.DType) -> int:
    """The largest integer the dtype holds exactly (2**(mantissa bits + 1) for a float)."""
    dt = _known(dt)
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.is_integer:
        return int(np.iinfo(dt.as_numpy_dtype).max)
    return 1


def smallest_integer_by_dtype(dt: dtypes.DType) -> int:
    return 0 if _known(dt) in _UNSIGNED else -largest_integer_by_dtype(dt)


def _is_integer_like(dt: dtypes.DType) -> bool:
    dt = _known(dt)
    return dt.is_integer or dt == dtypes.bool


def assert_integer_form(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                        int_dtype: Any = None, name: str = "assert_integer_form") -> Operation:
    """Assert a float tensor holds whole numbers (equal to itself cast to an integer type and back)."""
    with name_scope(name, values=[x, data]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return no_op()
        message = message or f"{x} has non-integer components"
        if int_dtype is None:
            int_dtype = {dtypes.float16: dtypes.int16, dtypes.float32: dtypes.int32,
                         dtypes.float64: dtypes.int64}.get(x.dtype.base_dtype)
            if int_dtype is None:
                raise TypeError(f"Unrecognized type {x.dtype.name}")
        return assert_equal(x, cast(cast(x, int_dtype), x.dtype), data=data, summarize=summarize, message=message,
                            name=name)


def embed_check_nonnegative_integer_form(x: Any, name: str = "embed_check_nonnegative_integer_form") -> Tensor:
    """`x`, checked to hold non-negative whole numbers."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        assertions = [assert_non_negative(x, message=f"'{x}' must be non-negative.")]
        if not x.dtype.is_integer:
            assertions.append(assert_integer_form(x, message=f"'{x}' cannot contain fractional components."))
        return with_dependencies(assertions, x)


def embed_check_categorical_event_shape(categorical_param: Any,
                                        name: str = "embed_check_categorical_event_shape") -> Tensor:
    """`categorical_param`, checked to have rank >= 1 and between 2 and the dtype's exact-integer limit
    classes in its last dimension."""
    with name_scope(name, values=[categorical_param]):
        x = convert_to_tensor(categorical_param, name="categorical_param")
        x_dtype = x.dtype.base_dtype
        max_event_size = largest_integer_by_dtype(x_dtype) if x_dtype.is_floating else 0
        if max_event_size == 0:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({x_dtype.name}).")
        try:
            static = x.get_shape().with_rank_at_least(1)
        except ValueError:
            raise ValueError("A categorical-distribution parameter must have at least 1 dimension.") from None
        event_size = tensor_shape.dimension_value(static[-1])
        if event_size is not None:
            if event_size < 2:
                raise ValueError("A categorical-distribution parameter must have at least 2 events.")
            if event_size > max_event_size:
                raise ValueError(f"Number of classes exceeds `dtype` precision, i.e., {x_dtype.name} implies shape "
                                 f"({event_size}) cannot exceed {max_event_size}.")
            return x
        event_size = shape(x, name="x_shape")[-1]
        return with_dependencies([
            assert_rank_at_least(x, 1, message="A categorical-distribution parameter must have at least 1 "
                                 "dimension."),
            assert_greater_equal(shape(x)[-1], 2, message="A categorical-distribution parameter must have at "
                                 "least 2 events."),
            assert_less_equal(event_size, max_event_size, message="Number of classes exceeds `dtype` precision, "
                              f"i.e., {x_dtype.name} dtype cannot exceed {max_event_size} shape."),
        ], x)


def embed_check_integer_casting_closed(x: Any, target_dtype: dtypes.DType, assert_nonnegative: bool = True,
                                       name: str = "embed_check_casting_closed") -> Tensor:
    """`x`, checked to survive a cast to `target_dtype` unchanged (whole, in range, non-negative)."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if not _is_integer_like(x.dtype) and not x.dtype.is_floating:
            raise TypeError(f"{x.dtype.name}.dtype must be floating- or integer-type.")
        if not _is_integer_like(target_dtype) and not target_dtype.is_floating:
            raise TypeError(f"target_dtype ({target_dtype.name}) must be floating- or integer-type.")
        if not _is_integer_like(x.dtype) and not _is_integer_like(target_dtype):
            raise TypeError(f"At least one of {x}.dtype ({x.dtype.name}) and target_dtype ({target_dtype.name}) "
                            "must be integer-type.")
        assertions = []
        if assert_nonnegative:
            assertions.append(assert_non_negative(x, message="Elements must be non-negative."))
        if x.dtype.is_floating:
            assertions.append(assert_integer_form(x, int_dtype=target_dtype,
                                                  message=f"Elements must be {target_dtype.name}-equivalent."))
        else:
            largest = largest_integer_by_dtype(target_dtype)
            if largest_integer_by_dtype(x.dtype) > largest:
                assertions.append(assert_less_equal(x, largest, message=f"Elements cannot exceed {largest}."))
            smallest = smallest_integer_by_dtype(target_dtype)
            if not assert_nonnegative and smallest_integer_by_dtype(x.dtype) < smallest:
                assertions.append(assert_greater_equal(x, smallest,
                                                       message=f"Elements cannot be smaller than {smallest}."))
        return with_dependencies(assertions, x) if assertions else x


def get_logits_and_probs(logits: Any = None, probs: Any = None, multidimensional: bool = False,
                         validate_args: bool = False, name: str = "get_logits_and_probs",
                         dtype: Any = None) -> tuple[Tensor, Tensor]:
    """(logits, probs) from exactly one of them: softmax/log for a categorical parameter
    (`multidimensional`), sigmoid/log-odds for a Bernoulli one."""
    with name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, softmax(logits, name="probs")
            return logits, sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with name_scope("validate_probs"):
                one = constant(1., probs.dtype)
                dependencies = [assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    dependencies.append(assert_near(reduce_sum(probs, -1), one, message="probs does not sum to 1."))
                else:
                    dependencies.append(assert_less_equal(probs, one,
                                                          message="probs has components greater than 1."))
                probs = with_dependencies(dependencies, probs)
        with name_scope("logits"):
            if multidimensional:
                return log(probs), probs
            return log(probs) - log1p(-1. * probs), probs


def log_combinations(n: Any, counts: Any, name: str = "log_combinations") -> Tensor:
    """log of the multinomial coefficient n! / prod(counts!), over the last axis of `counts`."""
    with name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        return lgamma(n + 1) - reduce_sum(lgamma(counts + 1), axis=[-1])


def gen_new_seed(seed: int | None, salt: str) -> int | None:
    """A second op seed derived from `seed` (TF's md5 of seed and salt), so two samplers in one distribution
    draw independent streams yet stay reproducible."""
    if seed is None:
        return None
    return int(hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()[:8], 16) & 0x7FFFFFFF
