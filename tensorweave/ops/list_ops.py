"""TensorLists (TF2's variant lists): the lists TF2's while-loop gradients accumulate in (EmptyTensorList,
TensorListPushBack, TensorListPopBack) and the ones a TF2 graph's `tf.TensorArray` is (TensorListReserve,
SetItem, GetItem, Stack, FromTensor, Gather, Scatter, Split, ConcatV2, ElementShape, Length, Resize), with
TF's gradients.

A list is a value, as in TF: every op makes a new list and leaves its input as it was. A `TensorList` is a
view of the first `length` items of a Python list that several lists may share; a push appends in place when
no other list has grown that backing list past this one, and a SetItem sets in place when no other list has
grown or set it since this one was made (the older lists read the values it replaced through the backing
list's log, TF's in-place forwarding of a list no one else holds made safe for any holder), so that a loop
that pushes or writes one value per iteration, and the gradient loop that pops or reads them, stay linear in
the number of iterations. Other changes copy the items (the tensors themselves are shared). An unset item is
None: it reads as zeros when the element shape is known.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import fill_ops, indexing_ops, manipulation_ops, shape_ops
from tensorweave.ops.kernel_helpers import invalid_argument

_append_lock = threading.Lock()  # one list at a time may change a shared backing list
_LOG_SCAN = 8  # an older list reads one item through at most this many log entries, else copies its items


class _Backing(list):
    """The Python list several list values may view, and the log of the items set in place in it (index, the
    value it replaced), oldest first: a view made before an entry reads through it to the value it holds."""

    __slots__ = ("log",)

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.log: list[tuple[int, Any]] = []


class TensorList:
    """One list value: its element dtype, element shape (partial) and bound (-1: none), and its items: the
    first `length` of a backing list (None: unset) as they were when its log was `epoch` entries long."""

    __slots__ = ("element_dtype", "element_shape", "max_num_elements", "_items", "length", "_epoch")

    def __init__(self, element_dtype: dtypes.DType, element_shape: tensor_shape.TensorShape, max_num_elements: int,
                 items: list[Any] | None = None, length: int | None = None, epoch: int = 0) -> None:
        self.element_dtype = element_dtype
        self.element_shape = element_shape
        self.max_num_elements = max_num_elements
        self._items = items if isinstance(items, _Backing) else _Backing(() if items is None else items)
        self.length = len(self._items) if length is None else length
        self._epoch = epoch

    def _own(self) -> _Backing:
        """The backing list, made this list's own first if a newer list set items in it since this one was
        made (rebuilt from the log once; called holding `_append_lock`)."""
        backing = self._items
        if self._epoch != len(backing.log):
            items = _Backing(backing[:self.length])
            for index, old in reversed(backing.log[self._epoch:]):
                if index < self.length:
                    items[index] = old
            self._items, self._epoch = items, 0
        return self._items

    @property
    def items(self) -> list[Any]:
        """A new Python list of the items, for an op to change."""
        with _append_lock:
            return self._own()[:self.length]

    def get(self, index: int) -> Any:
        with _append_lock:
            log = self._items.log
            if len(log) - self._epoch <= _LOG_SCAN:  # a read just before a write (a gradient's) stays O(1)
                return next((old for i, old in log[self._epoch:] if i == index), self._items[index])
            return self._own()[index]

    def with_items(self, items: list[Any], element_shape: tensor_shape.TensorShape | None = None) -> TensorList:
        shape = self.element_shape if element_shape is None else element_shape
        return TensorList(self.element_dtype, shape, self.max_num_elements, items)

    def set(self, index: int, value: Any) -> TensorList:
        """The list with `value` at `index` (< length): set in place when this list is the newest view of its
        whole backing list (the lists made before read the replaced value through the log), else in a copy,
        as also once the log outgrows the list (O(1) amortised, the log's memory bounded)."""
        with _append_lock:
            backing = self._own()
            if len(backing) != self.length or len(backing.log) > len(backing):  # a copy bounds the log
                backing = _Backing(backing[:self.length])
            else:
                backing.log.append((index, backing[index]))
            backing[index] = value
            return TensorList(self.element_dtype, self.element_shape, self.max_num_elements, backing, self.length,
                              len(backing.log))

    def push(self, value: Any) -> TensorList:
        with _append_lock:
            backing = self._own()
            items = backing if len(backing) == self.length else _Backing(backing[:self.length])
            items.append(value)
            return TensorList(self.element_dtype, self.element_shape, self.max_num_elements, items, self.length + 1,
                              len(items.log))

    def pop(self) -> tuple[TensorList, Any]:
        with _append_lock:
            backing = self._own()
            return (TensorList(self.element_dtype, self.element_shape, self.max_num_elements, backing,
                               self.length - 1, len(backing.log)), backing[self.length - 1])

    def zeros_like(self, xp: Any) -> TensorList:
        """TF's ZerosLike of a list: zeros where an item is set, unset where it is not."""
        return self.with_items([None if t is None else xp.zeros_like(t) for t in self.items])

    def add(self, other: TensorList) -> TensorList:
        """TF's sum of two lists (AddN of gradients): item by item, an unset item adding nothing."""
        return self.with_items([b if a is None else a if b is None else a + b
                                for a, b in zip(self.items, other.items)])


def _list_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


def _shape_input(value: Any) -> tensor_shape.TensorShape:
    """A shape input's value (-1 or a vector with -1 for unknown dimensions) as a partial shape."""
    value = np.asarray(value)
    if value.ndim == 0:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([None if d == -1 else int(d) for d in value.tolist()])


def _static_shape_input(ctx: InferenceContext, index: int) -> tensor_shape.TensorShape:
    """A shape input as shape inference sees it, a scalar meaning an unknown shape."""
    if ctx.input_shape(index).ndims == 0:
        return tensor_shape.unknown_shape()
    return ctx.input_as_shape(index)


_LIST_FORWARDERS = frozenset(("Identity", "TensorListSetItem", "TensorListPushBack", "TensorListResize",
                              "TensorListScatterIntoExistingList", "TensorListPopBack"))  # pass input 0's list on


def _handle_data(ctx: InferenceContext, index: int) -> tuple[tensor_shape.TensorShape, dtypes.DType] | None:
    """The element shape and dtype shape inference attaches to a list handle (TF's handle data), found from
    the op that made the list; None where the list comes from elsewhere (a function argument)."""
    op = ctx.input(index).op
    while op.type in _LIST_FORWARDERS:
        op = op.inputs[0].op
    if op.type in ("EmptyTensorList", "TensorListReserve"):
        inner = InferenceContext.for_operation(op)
        return _static_shape_input(inner, 0), op._node_def.attr["element_dtype"]
    if op.type in ("TensorListFromTensor", "TensorListSplit", "TensorListScatterV2"):
        inner = InferenceContext.for_operation(op)
        return _static_shape_input(inner, 2 if op.type == "TensorListScatterV2" else 1), op.inputs[0].dtype.base_dtype
    return None


def _list_element_shape(ctx: InferenceContext, dtype: dtypes.DType) -> tensor_shape.TensorShape:
    """The list's element shape from its handle data (checking its dtype as TF does), else unknown."""
    data = _handle_data(ctx, 0)
    if data is None:
        return tensor_shape.unknown_shape()
    if data[1] != dtype:
        raise ValueError(f"Expected list with element dtype {dtypes.type_string(dtype)} but got list with element "
                         f"dtype {dtypes.type_string(data[1])}")
    return data[0]


def _check_dtype(ctx: OpKernelContext, handle: TensorList, element_dtype: dtypes.DType) -> None:
    if handle.element_dtype != element_dtype:
        raise invalid_argument(ctx, f"Invalid data types; op elements {dtypes.type_string(element_dtype)} but list "
                                    f"elements {dtypes.type_string(handle.element_dtype)}")


def _merged_shape(ctx: OpKernelContext, a: tensor_shape.TensorShape, b: Any) -> tensor_shape.TensorShape:
    """TF's PartialTensorShape::MergeWith, failing the op with its message."""
    b = tensor_shape.as_shape(b)
    if not a.is_compatible_with(b):
        raise invalid_argument(ctx, f"PartialTensorShape: Incompatible shapes during merge: "
                                    f"{tensor_shape.shape_string(a)} vs. {tensor_shape.shape_string(b)}")
    return a.merge_with(b)


def _element_shape(ctx: OpKernelContext, handle: TensorList, element_shape: Any) -> tensor_shape.TensorShape:
    """TF's GetElementShapeFromInput: the op's element shape merged with the list's."""
    return _merged_shape(ctx, _shape_input(element_shape), handle.element_shape)


def _zeros(ctx: OpKernelContext, shape: tensor_shape.TensorShape, dtype: dtypes.DType) -> Any:
    return ctx.xp.zeros(shape.as_list(), dtype=dtype.as_numpy_dtype)


def _stored(value: Any) -> Any:
    """A value as the list keeps it: a read-only input (a variable's live buffer) is copied."""
    return value.copy() if type(value) is np.ndarray and not value.flags.writeable else value


def _check_item_shape(ctx: OpKernelContext, handle: TensorList, value: Any) -> None:
    if not handle.element_shape.is_compatible_with(np.shape(value)):
        raise invalid_argument(ctx, "Tried to set a tensor with incompatible shape at a list index. Item element "
                                    f"shape: {tensor_shape.shape_string(np.shape(value))} list shape: "
                                    f"{tensor_shape.shape_string(handle.element_shape)}")


EmptyTensorList = Op("EmptyTensorList", inputs=["element_shape: shape_type", "max_num_elements: int32"],
                     outputs=["handle: variant"], attrs=["element_dtype: type", "shape_type: {int32, int64}"])
EmptyTensorList.shape(_list_shape)


@EmptyTensorList.kernel("CPU", "GPU", host_memory=("element_shape", "max_num_elements"))
def _empty_tensor_list(ctx: OpKernelContext, element_shape: Any, max_num_elements: Any,
                       element_dtype: dtypes.DType) -> TensorList:
    if np.ndim(max_num_elements) != 0:
        raise invalid_argument(ctx, "max_num_elements expected to be a scalar but got shape: "
                                    f"{tensor_shape.shape_string(np.shape(max_num_elements))}")
    return TensorList(element_dtype, _shape_input(element_shape), int(max_num_elements))


TensorListPushBack = Op("TensorListPushBack", inputs=["input_handle: variant", "tensor: element_dtype"],
                        outputs=["output_handle: variant"], attrs=["element_dtype: type"])
TensorListPushBack.shape(_list_shape)


@TensorListPushBack.kernel("CPU", "GPU")
def _tensor_list_push_back(ctx: OpKernelContext, input_handle: TensorList, tensor: Any,
                           element_dtype: dtypes.DType) -> TensorList:
    """The list with `tensor` after its elements."""
    _check_dtype(ctx, input_handle, element_dtype)
    bound = input_handle.max_num_elements
    if bound != -1 and input_handle.length >= bound:
        raise invalid_argument(ctx, f"Tried to push item into a full list list size: {input_handle.length} "
                                    f"max_num_elements: {bound}")
    return input_handle.push(_stored(tensor))


@TensorListPushBack.gradient
def _push_back_grad(op: Operation, dresult: Tensor) -> list:
    """The gradient list without its last element, and that element: the pushed value's gradient."""
    return list(TensorListPopBack(dresult, shape_ops.shape(op.inputs[1]), element_dtype=op.get_attr("element_dtype")))


TensorListPopBack = Op("TensorListPopBack", inputs=["input_handle: variant", "element_shape: int32"],
                       outputs=["output_handle: variant", "tensor: element_dtype"], attrs=["element_dtype: type"])


@TensorListPopBack.shape
def _pop_back_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([]), tensor_shape.unknown_shape()]


@TensorListPopBack.kernel("CPU", "GPU", host_memory=("element_shape",))
def _tensor_list_pop_back(ctx: OpKernelContext, input_handle: TensorList, element_shape: Any,
                          element_dtype: dtypes.DType) -> list[Any]:
    """The list without its last element, and that element."""
    _check_dtype(ctx, input_handle, element_dtype)
    if input_handle.length == 0:
        raise invalid_argument(ctx, "Trying to pop from an empty list.")
    rest, value = input_handle.pop()
    if value is None:
        value = _zeros(ctx, _element_shape(ctx, input_handle, element_shape), element_dtype)
    return [rest, value]


@TensorListPopBack.gradient
def _pop_back_grad(op: Operation, dlist: Tensor | None, delement: Tensor | None) -> list:
    if dlist is None:
        dlist = empty_tensor_list(TensorListElementShape(op.outputs[0], shape_type=dtypes.int32),
                                  op.get_attr("element_dtype"))
    if delement is None:
        delement = fill_ops.zeros_like(op.outputs[1])
    return [TensorListPushBack(dlist, delement), None]


TensorListLength = Op("TensorListLength", inputs=["input_handle: variant"], outputs=["length: int32"])
TensorListLength.shape(_list_shape)
NotDifferentiable("TensorListLength")


@TensorListLength.kernel("CPU", "GPU", host_memory=("length",))
def _tensor_list_length(ctx: OpKernelContext, input_handle: TensorList) -> np.ndarray:
    return np.int32(input_handle.length)


TensorListReserve = Op("TensorListReserve", inputs=["element_shape: shape_type", "num_elements: int32"],
                       outputs=["handle: variant"], attrs=["element_dtype: type", "shape_type: {int32, int64}"])
TensorListReserve.shape(_list_shape)


@TensorListReserve.kernel("CPU", "GPU", host_memory=("element_shape", "num_elements"))
def _tensor_list_reserve(ctx: OpKernelContext, element_shape: Any, num_elements: Any,
                         element_dtype: dtypes.DType) -> TensorList:
    """A list of `num_elements` unset items."""
    if np.ndim(num_elements) != 0:
        raise invalid_argument(ctx, "The num_elements to reserve must be a tensor size 1, but got "
                                    f"{tensor_shape.shape_string(np.shape(num_elements))}")
    if num_elements < 0:
        raise invalid_argument(ctx, "The num_elements to reserve must be a non negative number, but got "
                                    f"{int(num_elements)}")
    return TensorList(element_dtype, _shape_input(element_shape), -1, [None] * int(num_elements))


TensorListElementShape = Op("TensorListElementShape", inputs=["input_handle: variant"],
                            outputs=["element_shape: shape_type"], attrs=["shape_type: {int32, int64}"])
NotDifferentiable("TensorListElementShape")


@TensorListElementShape.shape
def _element_shape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data = _handle_data(ctx, 0)
    if data is None or data[0].ndims is None:
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape([data[0].ndims])]


@TensorListElementShape.kernel("CPU", "GPU", host_memory=("element_shape",))
def _tensor_list_element_shape(ctx: OpKernelContext, input_handle: TensorList, shape_type: dtypes.DType) -> Any:
    shape = input_handle.element_shape
    if shape.ndims is None:
        return np.array(-1, shape_type.as_numpy_dtype)
    return np.array([-1 if d is None else d for d in shape.as_list()], shape_type.as_numpy_dtype)


TensorListGetItem = Op("TensorListGetItem", inputs=["input_handle: variant", "index: int32", "element_shape: Tshape"],
                       outputs=["item: element_dtype"],
                       attrs=["element_dtype: type", "Tshape: {int32, int64} = DT_INT32"])


@TensorListGetItem.shape
def _get_item_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = _list_element_shape(ctx, ctx.attr("element_dtype"))
    return [tensor_shape.merge_shapes(shape, _static_shape_input(ctx, 2))]


@TensorListGetItem.kernel("CPU", "GPU", host_memory=("index", "element_shape"))
def _tensor_list_get_item(ctx: OpKernelContext, input_handle: TensorList, index: Any, element_shape: Any,
                          element_dtype: dtypes.DType, Tshape: dtypes.DType) -> Any:  # noqa: N803 - TF's attr
    """The item at `index`; zeros for an unset one whose shape the list, its items or the op fix."""
    _check_dtype(ctx, input_handle, element_dtype)
    index = int(index)
    if index < 0 or index >= input_handle.length:
        raise invalid_argument(ctx, f"Trying to access element {index} in a list with {input_handle.length} "
                                    "elements.")
    value = input_handle.get(index)
    if value is not None:
        return value
    shape = _element_shape(ctx, input_handle, element_shape)
    if not shape.is_fully_defined():
        for item in input_handle.items:
            if item is not None:
                shape = _merged_shape(ctx, shape, np.shape(item))
                break
    if not shape.is_fully_defined():
        raise invalid_argument(ctx, "Trying to read an uninitialized tensor but element_shape is not fully "
                                    f"defined: {tensor_shape.shape_string(shape)} and no list element is set.")
    return _zeros(ctx, shape, element_dtype)


@TensorListGetItem.gradient
def _get_item_grad(op: Operation, ditem: Tensor) -> list:
    """The gradient list: unset but for `ditem` at the index read."""
    size = TensorListLength(op.inputs[0])
    reserved = TensorListReserve(TensorListElementShape(op.inputs[0], shape_type=dtypes.int32), size,
                                 element_dtype=ditem.dtype)
    return [TensorListSetItem(reserved, op.inputs[1], ditem), None, None]


TensorListSetItem = Op("TensorListSetItem", inputs=["input_handle: variant", "index: int32", "item: element_dtype"],
                       outputs=["output_handle: variant"],
                       attrs=["element_dtype: type", "resize_if_index_out_of_bounds: bool = false"])


@TensorListSetItem.shape
def _set_item_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data = _handle_data(ctx, 0)
    if data is not None:
        tensor_shape.merge_shapes(ctx.input_shape(2), data[0])
    return [tensor_shape.TensorShape([])]


@TensorListSetItem.kernel("CPU", "GPU", host_memory=("index",))
def _tensor_list_set_item(ctx: OpKernelContext, input_handle: TensorList, index: Any, item: Any,
                          element_dtype: dtypes.DType, resize_if_index_out_of_bounds: bool) -> TensorList:
    """The list with `item` at `index` (a later write replaces an earlier one, as in TF)."""
    _check_dtype(ctx, input_handle, element_dtype)
    index = int(index)
    length = input_handle.length
    if resize_if_index_out_of_bounds and index >= length:
        length = index + 1
    if index < 0 or index >= length:
        raise invalid_argument(ctx, f"Trying to modify element {index} in a list with {length} elements.")
    _check_item_shape(ctx, input_handle, item)
    if length > input_handle.length:
        items = input_handle.items + [None] * (length - input_handle.length)
        items[index] = _stored(item)
        return input_handle.with_items(items)
    return input_handle.set(index, _stored(item))


@TensorListSetItem.gradient
def _set_item_grad(op: Operation, dlist: Tensor) -> list:
    input_list, index, item = op.inputs
    list_grad = TensorListSetItem(dlist, index, fill_ops.zeros_like(item))
    element_grad = TensorListGetItem(dlist, index, shape_ops.shape(item), element_dtype=item.dtype)
    if op.get_attr("resize_if_index_out_of_bounds"):
        list_grad = TensorListResize(list_grad, TensorListLength(input_list))
    return [list_grad, None, element_grad]


TensorListResize = Op("TensorListResize", inputs=["input_handle: variant", "size: int32"],
                      outputs=["output_handle: variant"])
TensorListResize.shape(_list_shape)


@TensorListResize.kernel("CPU", "GPU", host_memory=("size",))
def _tensor_list_resize(ctx: OpKernelContext, input_handle: TensorList, size: Any) -> TensorList:
    size = int(size)
    if size < 0:
        raise invalid_argument(ctx, f"TensorListSlice expects size to be non-negative. Got: {size}")
    items = input_handle.items[:size]
    return input_handle.with_items(items + [None] * (size - len(items)))


@TensorListResize.gradient
def _resize_grad(op: Operation, dlist: Tensor) -> list:
    return [TensorListResize(dlist, TensorListLength(op.inputs[0])), None]


TensorListStack = Op("TensorListStack", inputs=["input_handle: variant", "element_shape: int32"],
                     outputs=["tensor: element_dtype"], attrs=["element_dtype: type", "num_elements: int = -1"])


@TensorListStack.shape
def _stack_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = tensor_shape.merge_shapes(_list_element_shape(ctx, ctx.attr("element_dtype")),
                                      _static_shape_input(ctx, 1))
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    count = ctx.attr("num_elements")
    return [tensor_shape.TensorShape([None if count == -1 else count] + shape.dims)]


def _full_items(ctx: OpKernelContext, handle: TensorList, shape: tensor_shape.TensorShape, indices: list[int] | None,
                empty_message: str, unset_message: str, dtype: dtypes.DType) -> list[Any]:
    """The items at `indices` (None: all) with zeros for the unset ones, their shape merged from the op's,
    the list's and the items' (every item for Stack, the first set one for Gather, as TF)."""
    items = handle.items
    if not shape.is_fully_defined() and not items:
        raise invalid_argument(ctx, f"{empty_message}{tensor_shape.shape_string(shape)}")
    picked = items if indices is None else [items[i] for i in indices]
    if not (handle.element_shape if indices is None else shape).is_fully_defined():
        for item in picked:
            if item is not None:
                shape = _merged_shape(ctx, shape, np.shape(item))
                if indices is not None:
                    break
    if not shape.is_fully_defined():
        raise invalid_argument(ctx, f"{unset_message}{tensor_shape.shape_string(shape)}")
    zeros = None
    for i, item in enumerate(picked):
        if item is None:
            zeros = _zeros(ctx, shape, dtype) if zeros is None else zeros
            picked[i] = zeros
        elif np.shape(item) != tuple(shape.as_list()):
            if indices is not None:  # TF's Gather merges each item's shape in
                _merged_shape(ctx, shape, np.shape(item))
            raise invalid_argument(ctx, f"Incompatible shapes in list: {tensor_shape.shape_string(np.shape(item))} "
                                        f"vs. {tensor_shape.shape_string(shape)}")
    return picked


@TensorListStack.kernel("CPU", "GPU", host_memory=("element_shape",))
def _tensor_list_stack(ctx: OpKernelContext, input_handle: TensorList, element_shape: Any,
                       element_dtype: dtypes.DType, num_elements: int) -> Any:
    """Every item, stacked along a new first dimension."""
    _check_dtype(ctx, input_handle, element_dtype)
    if num_elements != -1 and input_handle.length != num_elements:
        raise invalid_argument(ctx, f"Operation expected a list with {num_elements} elements but got a list with "
                                    f"{input_handle.length} elements.")
    shape = _element_shape(ctx, input_handle, element_shape)
    items = _full_items(ctx, input_handle, shape, None,
                        "Tried to stack elements of an empty list with non-fully-defined element_shape: ",
                        "Tried to stack list which only contains uninitialized tensors and has a "
                        "non-fully-defined element_shape: ", element_dtype)
    if not items:
        return _zeros(ctx, tensor_shape.TensorShape([0]).concatenate(shape), element_dtype)
    return ctx.xp.stack(items)


@TensorListStack.gradient
def _stack_grad(op: Operation, dtensor: Tensor) -> list:
    return [tensor_list_from_tensor(dtensor, dtensor.shape[1:]), None]


TensorListGather = Op("TensorListGather", inputs=["input_handle: variant", "indices: int32", "element_shape: int32"],
                      outputs=["values: element_dtype"], attrs=["element_dtype: type"])


@TensorListGather.shape
def _gather_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = tensor_shape.merge_shapes(_list_element_shape(ctx, ctx.attr("element_dtype")),
                                      _static_shape_input(ctx, 2))
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [ctx.input_shape(1).concatenate(shape)]


@TensorListGather.kernel("CPU", "GPU", host_memory=("indices", "element_shape"))
def _tensor_list_gather(ctx: OpKernelContext, input_handle: TensorList, indices: Any, element_shape: Any,
                        element_dtype: dtypes.DType) -> Any:
    _check_dtype(ctx, input_handle, element_dtype)
    shape = _element_shape(ctx, input_handle, element_shape)
    indices = np.asarray(indices)
    flat = indices.ravel().tolist()
    for i in flat:  # TF words it by whether the list's own element shape is fully defined
        if i < 0 or i >= input_handle.length:
            raise invalid_argument(ctx, f"Index {i} out o range; list only has {input_handle.length} elements."
                                   if input_handle.element_shape.is_fully_defined() else
                                   f"Trying to gather element {i} in a list with {input_handle.length} elements.")
    items = _full_items(ctx, input_handle, shape, flat,
                        "Tried to gather elements from an empty list with non-fully-defined element_shape: ",
                        "Tried to gather uninitialized tensors from a list with non-fully-defined element_shape: ",
                        element_dtype)
    if not items:
        return _zeros(ctx, tensor_shape.TensorShape(indices.shape).concatenate(shape), element_dtype)
    return ctx.xp.stack(items).reshape(indices.shape + np.shape(items[0]))


@TensorListGather.gradient
def _gather_grad(op: Operation, dtensor: Tensor) -> list:
    input_list, indices, _ = op.inputs
    element_shape = TensorListElementShape(input_list, shape_type=dtypes.int32)
    reserved = tensor_list_reserve(element_shape, TensorListLength(input_list), dtensor.dtype)
    return [tensor_list_scatter(dtensor, indices, input_handle=reserved), None, None]


TensorListFromTensor = Op("TensorListFromTensor", inputs=["tensor: element_dtype", "element_shape: shape_type"],
                          outputs=["output_handle: variant"], attrs=["element_dtype: type", "shape_type: {int32, int64}"])
TensorListFromTensor.shape(_list_shape)


def _split_rows(ctx: OpKernelContext, tensor: Any, element_shape: Any) -> tensor_shape.TensorShape:
    """The element shape of a list of `tensor`'s rows, checked against them."""
    if np.ndim(tensor) < 1:
        raise invalid_argument(ctx, f"Tensor must be at least a vector, but saw shape: "
                                    f"{tensor_shape.shape_string(np.shape(tensor))}")
    shape = _shape_input(element_shape)
    rows = tensor_shape.TensorShape(np.shape(tensor)[1:])
    if not shape.is_compatible_with(rows):
        raise invalid_argument(ctx, f"Specified a list with shape {tensor_shape.shape_string(shape)} from a tensor "
                                    f"with shape {tensor_shape.shape_string(rows)}")
    return shape


@TensorListFromTensor.kernel("CPU", "GPU", host_memory=("element_shape",))
def _tensor_list_from_tensor(ctx: OpKernelContext, tensor: Any, element_shape: Any, element_dtype: dtypes.DType,
                             shape_type: dtypes.DType) -> TensorList:
    """A list of the rows of `tensor`."""
    shape = _split_rows(ctx, tensor, element_shape)
    tensor = _stored(tensor)
    return TensorList(element_dtype, shape, -1, [tensor[i] for i in range(np.shape(tensor)[0])])


@TensorListFromTensor.gradient
def _from_tensor_grad(op: Operation, dlist: Tensor | None) -> list:
    t = op.inputs[0]
    num_elements = t.shape.as_list()[0] if t.shape.ndims and t.shape.as_list()[0] is not None else -1
    if dlist is None:
        dlist = empty_tensor_list(TensorListElementShape(op.outputs[0], shape_type=dtypes.int32), t.dtype)
    element_shape = indexing_ops.slice(shape_ops.shape(t), [1], [-1])
    return [TensorListStack(dlist, element_shape, element_dtype=t.dtype, num_elements=num_elements), None]


def _scatter_rows(ctx: OpKernelContext, items: list[Any], tensor: Any, indices: Any, hole: Any = None) -> None:
    """Set `tensor`'s rows at `indices`, the list grown to the largest with `hole` items."""
    indices = np.asarray(indices).tolist()
    if len(indices) != np.shape(tensor)[0]:
        raise invalid_argument(ctx, f"Expected len(indices) == tensor.shape[0], but saw: {len(indices)} vs. "
                                    f"{np.shape(tensor)[0]}")
    for i in indices:
        if i < 0:
            raise invalid_argument(ctx, f"Indices in TensorListScatter must all be non-negative. Got: {i}")
    top = max(indices, default=-1) + 1
    if top > len(items):
        items.extend([hole] * (top - len(items)))
    tensor = _stored(tensor)
    for row, i in enumerate(indices):
        items[i] = tensor[row]


TensorListScatterV2 = Op("TensorListScatterV2", inputs=["tensor: element_dtype", "indices: int32",
                                                        "element_shape: shape_type", "num_elements: int32"],
                         outputs=["output_handle: variant"], attrs=["element_dtype: type", "shape_type: {int32, int64}"])
TensorListScatterV2.shape(_list_shape)


@TensorListScatterV2.kernel("CPU", "GPU", host_memory=("indices", "element_shape", "num_elements"))
def _tensor_list_scatter_v2(ctx: OpKernelContext, tensor: Any, indices: Any, element_shape: Any, num_elements: Any,
                            element_dtype: dtypes.DType, shape_type: dtypes.DType) -> TensorList:
    """A new list with `tensor[i]` at `indices[i]` (at least `num_elements` long)."""
    shape = _split_rows(ctx, tensor, element_shape)
    items: list[Any] = [None] * max(int(num_elements), 0)
    _scatter_rows(ctx, items, tensor, indices)
    return TensorList(element_dtype, shape, -1, items)


@TensorListScatterV2.gradient
def _scatter_v2_grad(op: Operation, dlist: Tensor) -> list:
    tensor, indices = op.inputs[0], op.inputs[1]
    dtensor = TensorListGather(dlist, indices, indexing_ops.slice(shape_ops.shape(tensor), [1], [-1]),
                               element_dtype=tensor.dtype)
    return [dtensor, None, None, None]


TensorListScatterIntoExistingList = Op(
    "TensorListScatterIntoExistingList", inputs=["input_handle: variant", "tensor: element_dtype", "indices: int32"],
    outputs=["output_handle: variant"], attrs=["element_dtype: type"])
TensorListScatterIntoExistingList.shape(_list_shape)


@TensorListScatterIntoExistingList.kernel("CPU", "GPU", host_memory=("indices",))
def _tensor_list_scatter_into(ctx: OpKernelContext, input_handle: TensorList, tensor: Any, indices: Any,
                              element_dtype: dtypes.DType) -> TensorList:
    """The list with `tensor[i]` at `indices[i]`, grown to the largest index. TF's kernel grows it with
    default tensors (float32 of shape [0]), not unset items: a read of one gives that empty tensor, a
    concat skips it, a stack fails on its shape."""
    _check_dtype(ctx, input_handle, element_dtype)
    if np.ndim(tensor) < 1:
        raise invalid_argument(ctx, f"Tensor must be at least a vector, but saw shape: "
                                    f"{tensor_shape.shape_string(np.shape(tensor))}")
    if not input_handle.element_shape.is_compatible_with(np.shape(tensor)[1:]):
        raise invalid_argument(ctx, "Tried to scatter a tensor with incompatible shape into the list. Item element "
                                    f"shape: {tensor_shape.shape_string(np.shape(tensor)[1:])} list shape: "
                                    f"{tensor_shape.shape_string(input_handle.element_shape)}")
    items = input_handle.items
    _scatter_rows(ctx, items, tensor, indices, hole=ctx.xp.zeros([0], np.float32))
    return input_handle.with_items(items)


@TensorListScatterIntoExistingList.gradient
def _scatter_into_grad(op: Operation, dlist: Tensor) -> list:
    _, tensor, indices = op.inputs
    dtensor = TensorListGather(dlist, indices, indexing_ops.slice(shape_ops.shape(tensor), [1], [-1]),
                               element_dtype=tensor.dtype)
    zeros = fill_ops.zeros_like(tensor)
    return [tensor_list_scatter(zeros, indices, input_handle=dlist), dtensor, None]


TensorListSplit = Op("TensorListSplit", inputs=["tensor: element_dtype", "element_shape: shape_type",
                                                "lengths: int64"],
                     outputs=["output_handle: variant"], attrs=["element_dtype: type", "shape_type: {int32, int64}"])
TensorListSplit.shape(_list_shape)


@TensorListSplit.kernel("CPU", "GPU", host_memory=("element_shape", "lengths"))
def _tensor_list_split(ctx: OpKernelContext, tensor: Any, element_shape: Any, lengths: Any,
                       element_dtype: dtypes.DType, shape_type: dtypes.DType) -> TensorList:
    """A list of consecutive pieces of `tensor`, `lengths[i]` rows long."""
    if np.ndim(tensor) < 1:
        raise invalid_argument(ctx, f"Tensor must be at least a vector, but saw shape: "
                                    f"{tensor_shape.shape_string(np.shape(tensor))}")
    shape = _shape_input(element_shape)
    if shape.ndims == 0:
        raise invalid_argument(ctx, "TensorListSplit requires element_shape to be at least of rank 1, but saw: "
                                    f"{tensor_shape.shape_string(shape)}")
    if shape.ndims is not None:
        given, rest = tensor_shape.TensorShape(shape.dims[1:]), tensor_shape.TensorShape(np.shape(tensor)[1:])
        if not given.is_compatible_with(rest):
            raise invalid_argument(ctx, f"Specified a list with shape {tensor_shape.shape_string(given)} from a "
                                        f"tensor with shape {tensor_shape.shape_string(rest)}")
    lengths = np.asarray(lengths).tolist()
    items, start = [], 0
    for length in lengths:
        if length < 0:
            raise invalid_argument(ctx, f"Invalid value in lengths: {length}")
        if start + length > np.shape(tensor)[0]:
            raise invalid_argument(ctx, f"Attempting to slice [{start}, {start + length}] from tensor with length "
                                        f"{np.shape(tensor)[0]}")
        items.append(tensor[start:start + length].copy())
        start += length
    if start != np.shape(tensor)[0]:
        raise invalid_argument(ctx, f"Unused values in tensor. Length of tensor: {np.shape(tensor)[0]} Values used: "
                                    f"{start}")
    return TensorList(element_dtype, shape, -1, items)


@TensorListSplit.gradient
def _split_grad(op: Operation, dlist: Tensor) -> list:
    tensor, _, lengths = op.inputs
    element_shape = indexing_ops.slice(shape_ops.shape(tensor), [1], [-1])
    element_shape = manipulation_ops.concat([[-1], element_shape], axis=0)
    return [TensorListConcatV2(dlist, element_shape, lengths, element_dtype=op.inputs[0].dtype)[0], None, None]


TensorListConcatV2 = Op("TensorListConcatV2", inputs=["input_handle: variant", "element_shape: shape_type",
                                                      "leading_dims: int64"],
                        outputs=["tensor: element_dtype", "lengths: int64"],
                        attrs=["element_dtype: type", "shape_type: {int32, int64}"])


@TensorListConcatV2.shape
def _concat_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = tensor_shape.merge_shapes(_list_element_shape(ctx, ctx.attr("element_dtype")),
                                      _static_shape_input(ctx, 1))
    out = tensor_shape.unknown_shape() if shape.ndims is None else tensor_shape.TensorShape([None] + shape.dims[1:])
    return [out, tensor_shape.TensorShape([None])]


@TensorListConcatV2.kernel("CPU", "GPU", host_memory=("element_shape", "leading_dims", "lengths"))
def _tensor_list_concat(ctx: OpKernelContext, input_handle: TensorList, element_shape: Any, leading_dims: Any,
                        element_dtype: dtypes.DType, shape_type: dtypes.DType) -> list[Any]:
    """Every item concatenated along its first dimension, and each item's length; an unset item is zeros
    `leading_dims[i]` rows long (or the element shape's first dimension, when known: from the op and the
    list, else the set items' one shape, as TF's infers it)."""
    _check_dtype(ctx, input_handle, element_dtype)
    shape = _element_shape(ctx, input_handle, element_shape)
    if shape.ndims == 0:
        raise invalid_argument(ctx, "Concat requires elements to be at least vectors, found scalars instead.")
    items = input_handle.items
    first = None if shape.ndims is None else shape.as_list()[0]
    for i, item in enumerate(items):
        if item is not None and first is not None and np.size(item) and np.shape(item)[0] != first:
            raise invalid_argument(ctx, "First entry of element_shape input does not match the first dim of list "
                                        f"element at index: {i} Expected: {first} Actual: {np.shape(item)[0]}")
    set_shapes = {np.shape(item) for item in items if item is not None}
    if not shape.is_fully_defined() and len(set_shapes) == 1:
        shape = _merged_shape(ctx, shape, next(iter(set_shapes)))
    rest = None if shape.ndims is None else tensor_shape.TensorShape(shape.dims[1:])
    for item in items:
        if item is not None:
            if np.ndim(item) == 0:
                raise invalid_argument(ctx, "Concat saw a scalar shape at index 0 but requires at least vectors.")
            rest = _merged_shape(ctx, rest if rest is not None else tensor_shape.unknown_shape(),
                                 np.shape(item)[1:])
    leading = np.asarray(leading_dims).tolist()
    out = []
    for i, item in enumerate(items):
        if item is None:
            if shape.ndims is not None and shape.as_list()[0] is not None:
                rows = shape.as_list()[0]
            elif i < len(leading):
                rows = leading[i]
            else:
                raise invalid_argument(ctx, f"List contains uninitialized tensor at index {i} but leading_dims has "
                                            f"only {len(leading)} elements.")
            if rest is None or not rest.is_fully_defined():
                raise invalid_argument(ctx, "Trying to concat list with only uninitialized tensors but "
                                            f"element_shape_except_first_dim is not fully defined: "
                                            f"{tensor_shape.shape_string(rest)}")
            item = _zeros(ctx, tensor_shape.TensorShape([rows]).concatenate(rest), element_dtype)
        out.append(item)
    lengths = np.array([np.shape(t)[0] for t in out], np.int64)
    if not out:
        if rest is None or not rest.is_fully_defined():
            raise invalid_argument(ctx, "All except the first dimension must be fully defined when concating an "
                                        f"empty tensor list. element_shape: {tensor_shape.shape_string(shape)}")
        return [_zeros(ctx, tensor_shape.TensorShape([0]).concatenate(rest), element_dtype), lengths]
    return [ctx.xp.concatenate(out), lengths]


@TensorListConcatV2.gradient
def _concat_grad(op: Operation, dtensor: Tensor, _: Any) -> list:
    dlist = TensorListSplit(dtensor, TensorListElementShape(op.inputs[0], shape_type=dtypes.int32), op.outputs[1],
                            element_dtype=op.get_attr("element_dtype"))
    return [dlist, None, None]


def build_element_shape(shape: Any) -> Any:
    """A shape as these ops take it: -1 for an unknown rank, -1 for each unknown dimension, a tensor as it
    is (TF's `_build_element_shape`)."""
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list() if shape else None
    if shape is None:
        return -1
    if isinstance(shape, (np.ndarray, np.generic)) or not shape:
        return convert_to_tensor(shape, dtype=dtypes.int32)
    return [-1 if d is None else d if isinstance(d, Tensor) else
            (-1 if d.value is None else d.value) if isinstance(d, tensor_shape.Dimension) else d for d in shape]


def empty_tensor_list(element_shape: Any, element_dtype: dtypes.DType, max_num_elements: Any = None,
                      name: str | None = None) -> Tensor:
    """An empty list of `element_dtype` elements of `element_shape` (at most `max_num_elements`, -1: any)."""
    if max_num_elements is None:
        max_num_elements = -1
    return EmptyTensorList(build_element_shape(element_shape), max_num_elements, element_dtype=element_dtype,
                           name=name)


def tensor_list_reserve(element_shape: Any, num_elements: Any, element_dtype: dtypes.DType,
                        name: str | None = None) -> Tensor:
    """A list of `num_elements` unset elements."""
    return TensorListReserve(build_element_shape(element_shape), num_elements, element_dtype=element_dtype,
                             name=name)


def tensor_list_from_tensor(tensor: Any, element_shape: Any, name: str | None = None) -> Tensor:
    """A list of the rows of `tensor`."""
    return TensorListFromTensor(convert_to_tensor(tensor), build_element_shape(element_shape), name=name)


def tensor_list_get_item(input_handle: Tensor, index: Any, element_dtype: dtypes.DType, element_shape: Any = None,
                         name: str | None = None) -> Tensor:
    return TensorListGetItem(input_handle, index, build_element_shape(element_shape), element_dtype=element_dtype,
                             name=name)


def tensor_list_pop_back(input_handle: Tensor, element_dtype: dtypes.DType,
                         element_shape: tensor_shape.TensorShape, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The list without its last element, and that element (shaped `element_shape`)."""
    handle, tensor = TensorListPopBack(input_handle, -1, element_dtype=element_dtype, name=name)  # TF's -1
    tensor.set_shape(element_shape)
    return handle, tensor


def tensor_list_gather(input_handle: Tensor, indices: Any, element_dtype: dtypes.DType, element_shape: Any = None,
                       name: str | None = None) -> Tensor:
    return TensorListGather(input_handle, indices, build_element_shape(element_shape), element_dtype=element_dtype,
                            name=name)


def tensor_list_scatter(tensor: Any, indices: Any, element_shape: Any = None, input_handle: Tensor | None = None,
                        name: str | None = None) -> Tensor:
    """A list made, or `input_handle` updated, by writing `tensor[i]` at `indices[i]`."""
    tensor = convert_to_tensor(tensor)
    if input_handle is not None:
        return TensorListScatterIntoExistingList(input_handle, tensor, indices, name=name)
    return TensorListScatterV2(tensor, indices, build_element_shape(element_shape), -1, name=name)


def tensor_list_stack(input_handle: Tensor, element_dtype: dtypes.DType, num_elements: int = -1,
                      element_shape: Any = None, name: str | None = None) -> Tensor:
    return TensorListStack(input_handle, build_element_shape(element_shape), element_dtype=element_dtype,
                           num_elements=num_elements, name=name)


def tensor_list_concat(input_handle: Tensor, element_dtype: dtypes.DType, element_shape: Any = None,
                       name: str | None = None) -> Tensor:
    return TensorListConcatV2(input_handle, build_element_shape(element_shape),
                              convert_to_tensor([], dtype=dtypes.int64), element_dtype=element_dtype, name=name)[0]


def tensor_list_split(tensor: Any, element_shape: Any, lengths: Any, name: str | None = None) -> Tensor:
    return TensorListSplit(tensor, build_element_shape(element_shape), lengths, name=name)


def tensor_list_length(input_handle: Tensor, name: str | None = None) -> Tensor:
    return TensorListLength(input_handle, name=name)


def tensor_list_set_item(input_handle: Tensor, index: Any, item: Any, resize_if_index_out_of_bounds: bool = False,
                         name: str | None = None) -> Tensor:
    return TensorListSetItem(input_handle, index, item, resize_if_index_out_of_bounds=resize_if_index_out_of_bounds,
                             name=name)
