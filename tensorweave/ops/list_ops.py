"""TensorLists (the variant lists TF2's while-loop gradients accumulate in): EmptyTensorList,
TensorListPushBack, TensorListPopBack and TensorListLength.

A list is a value, as in TF: pushing or popping makes a new list and leaves its input as it was. Each
`TensorList` is an immutable cons cell (its newest element and the list before it), so that a push and a pop
cost O(1) and share every older element, which keeps a loop that pushes one value per iteration, and the
gradient loop that pops them in reverse order, linear in the number of iterations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument


class TensorList:
    """One list value: its element dtype, shape (-1 for an unknown rank) and bound (-1: none), its newest
    element and the list it was pushed on (None for an empty list)."""

    __slots__ = ("element_dtype", "element_shape", "max_num_elements", "head", "rest", "length")

    def __init__(self, element_dtype: dtypes.DType, element_shape: Any, max_num_elements: int,
                 head: Any = None, rest: TensorList | None = None) -> None:
        self.element_dtype = element_dtype
        self.element_shape = element_shape
        self.max_num_elements = max_num_elements
        self.head = head
        self.rest = rest
        self.length = 0 if rest is None else rest.length + 1


def _list_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


EmptyTensorList = Op("EmptyTensorList", inputs=["element_shape: shape_type", "max_num_elements: int32"],
                     outputs=["handle: variant"], attrs=["element_dtype: type", "shape_type: {int32, int64}"])
EmptyTensorList.shape(_list_shape)


@EmptyTensorList.kernel("CPU", "GPU", host_memory=("element_shape", "max_num_elements"))
def _empty_tensor_list(ctx: OpKernelContext, element_shape: Any, max_num_elements: Any,
                       element_dtype: dtypes.DType) -> TensorList:
    if np.ndim(max_num_elements) != 0:
        raise invalid_argument(ctx, "max_num_elements expected to be a scalar but got shape: "
                                    f"{tensor_shape.shape_string(np.shape(max_num_elements))}")
    return TensorList(element_dtype, np.asarray(element_shape).tolist(), int(max_num_elements))


TensorListPushBack = Op("TensorListPushBack", inputs=["input_handle: variant", "tensor: element_dtype"],
                        outputs=["output_handle: variant"], attrs=["element_dtype: type"])
TensorListPushBack.shape(_list_shape)


@TensorListPushBack.kernel("CPU", "GPU")
def _tensor_list_push_back(ctx: OpKernelContext, input_handle: TensorList, tensor: Any,
                           element_dtype: dtypes.DType) -> TensorList:
    """The list with `tensor` after its elements (a read-only input, a variable's live buffer, is copied)."""
    if input_handle.element_dtype != element_dtype:
        raise invalid_argument(ctx, f"Invalid data types; op elements {element_dtype.name} but list elements "
                                    f"{input_handle.element_dtype.name}")
    bound = input_handle.max_num_elements
    if bound != -1 and input_handle.length >= bound:
        raise invalid_argument(ctx, f"Tried to push item into a full list list size: {input_handle.length} "
                                    f"max_num_elements: {bound}")
    if type(tensor) is np.ndarray and not tensor.flags.writeable:
        tensor = tensor.copy()
    return TensorList(element_dtype, input_handle.element_shape, bound, tensor, input_handle)


TensorListPopBack = Op("TensorListPopBack", inputs=["input_handle: variant", "element_shape: int32"],
                       outputs=["output_handle: variant", "tensor: element_dtype"], attrs=["element_dtype: type"])


@TensorListPopBack.shape
def _pop_back_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([]), tensor_shape.unknown_shape()]


@TensorListPopBack.kernel("CPU", "GPU", host_memory=("element_shape",))
def _tensor_list_pop_back(ctx: OpKernelContext, input_handle: TensorList, element_shape: Any,
                          element_dtype: dtypes.DType) -> list[Any]:
    """The list without its last element, and that element."""
    if input_handle.element_dtype != element_dtype:
        raise invalid_argument(ctx, f"Invalid data types; op elements {element_dtype.name} but list elements "
                                    f"{input_handle.element_dtype.name}")
    if input_handle.rest is None:
        raise invalid_argument(ctx, "Trying to pop from an empty list.")
    return [input_handle.rest, input_handle.head]


TensorListLength = Op("TensorListLength", inputs=["input_handle: variant"], outputs=["length: int32"])
TensorListLength.shape(_list_shape)


@TensorListLength.kernel("CPU", "GPU", host_memory=("length",))
def _tensor_list_length(ctx: OpKernelContext, input_handle: TensorList) -> np.ndarray:
    return np.int32(input_handle.length)


def _shape_value(shape: tensor_shape.TensorShape) -> Any:
    """A shape as these ops take it (-1 for an unknown rank or dimension), converted in the op's scope; a
    scalar's is a `Const` made before the op, outside its scope (TF's _build_element_shape)."""
    if shape.ndims == 0:
        return convert_to_tensor(np.zeros([0], np.int32))
    return np.asarray(-1 if shape.ndims is None else [-1 if d is None else d for d in shape.as_list()], np.int32)


def empty_tensor_list(element_shape: tensor_shape.TensorShape, element_dtype: dtypes.DType,
                      max_num_elements: Any = None, name: str | None = None) -> Tensor:
    """An empty list of `element_dtype` elements of `element_shape` (at most `max_num_elements`, -1: any)."""
    if max_num_elements is None:
        max_num_elements = -1
    return EmptyTensorList(_shape_value(tensor_shape.as_shape(element_shape)), max_num_elements,
                           element_dtype=element_dtype, name=name)


def tensor_list_pop_back(input_handle: Tensor, element_dtype: dtypes.DType,
                         element_shape: tensor_shape.TensorShape, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The list without its last element, and that element (shaped `element_shape`)."""
    handle, tensor = TensorListPopBack(input_handle, -1, element_dtype=element_dtype, name=name)  # TF's -1
    tensor.set_shape(element_shape)
    return handle, tensor
