"""Stacks (the V2 ops TF's while-loop gradients use): StackV2, StackPushV2, StackPopV2 and StackCloseV2.

A StackV2 node makes a new `StackStorage` each time it runs and outputs it as its handle (a per-step object,
never in a resource manager, as a TensorArray's); the other ops work on that storage with no lock of their
own, since a list's append and pop are atomic. A forward loop pushes the values its gradient needs, one per
iteration, and the gradient loop pops them in reverse order: a few hundred of each in a dynamic_rnn step,
so that they cost little matters. As TF's kernels: a push checks nothing, a pop fails on a closed or empty
stack.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument

_counter = itertools.count()  # TF's process-wide stack counter, which suffixes every stack's name


class StackStorage:
    """One stack of one step: its values, newest last."""

    def __init__(self, name: str, elem_type: dtypes.DType) -> None:
        self.name = name
        self.elem_type = elem_type
        self.values: list[Any] = []
        self.closed = False


StackV2 = Op("StackV2", inputs=["max_size: int32"], outputs=["handle: resource"],
             attrs=["elem_type: type", "stack_name: string = ''"], is_stateful=True)


@StackV2.shape
def _stack_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([2])]


@StackV2.kernel("CPU")
def _stack(ctx: OpKernelContext, max_size: Any, elem_type: dtypes.DType, stack_name: bytes) -> StackStorage:
    """A new, empty stack every run (TF accepts pushes past `max_size`, so it is not kept)."""
    if np.ndim(max_size) != 0:
        raise invalid_argument(ctx, "Stack size must be a scalar, but had shape: "
                                    f"{tensor_shape.shape_string(np.shape(max_size))}")
    return StackStorage(f"{stack_name.decode() or ctx.name}_{next(_counter)}", elem_type)


StackPushV2 = Op("StackPushV2", inputs=["handle: resource", "elem: T"], outputs=["output: T"],
                 attrs=["T: type", "swap_memory: bool = false"], is_stateful=True)


@StackPushV2.shape
def _push_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(1)]


@StackPushV2.kernel("CPU")
def _push(ctx: OpKernelContext, storage: StackStorage, elem: Any, T: dtypes.DType,  # noqa: N803 - TF's attr
          swap_memory: bool) -> Any:
    """Push `elem` (a read-only input, a variable's live buffer, is copied) and pass it on."""
    storage.values.append(elem.copy() if type(elem) is np.ndarray and not elem.flags.writeable else elem)
    return elem


StackPopV2 = Op("StackPopV2", inputs=["handle: resource"], outputs=["elem: elem_type"], attrs=["elem_type: type"],
                is_stateful=True)


@StackPopV2.shape
def _pop_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.unknown_shape()]


@StackPopV2.kernel("CPU")
def _pop(ctx: OpKernelContext, storage: StackStorage, elem_type: dtypes.DType) -> Any:
    if storage.closed:
        raise invalid_argument(ctx, f"Stack[{storage.name}] has already been closed.")
    try:
        value = storage.values.pop()
    except IndexError:
        raise invalid_argument(ctx, f"Stack[{storage.name}] is empty when calling Pop().") from None
    if elem_type in (dtypes.resource, dtypes.variant):  # a handle (a nested loop's TensorArray) has no array dtype
        return value
    dtype = getattr(value, "dtype", None)
    if (not isinstance(dtype, np.dtype) or dtype.type is not elem_type.as_numpy_dtype) and \
            dtypes.as_dtype(np.asarray(value).dtype) is not elem_type:
        raise errors.InternalError(
            ctx.node_def, None, f"Output 0 of type {dtypes.type_string(dtypes.as_dtype(np.asarray(value).dtype))} "
            f"does not match declared output type {dtypes.type_string(elem_type)} for node {{{{node {ctx.name}}}}}")
    return value


StackCloseV2 = Op("StackCloseV2", inputs=["handle: resource"], is_stateful=True)


@StackCloseV2.shape
def _close_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@StackCloseV2.kernel("CPU")
def _close(ctx: OpKernelContext, storage: StackStorage) -> None:
    storage.closed = True
    storage.values.clear()
