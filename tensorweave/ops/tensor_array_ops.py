"""TensorArrays: TF1's (the v3 ops: TensorArrayV3 and the ops that write, read, gather, scatter, concat,
split, size and close one), TF2's (a TensorList value, see list_ops), and `tf.TensorArray`, the Python object
over a handle and a flow, which makes the TF2 kind wherever control flow v2 is on (TF's choice).

A TensorArrayV3 node makes a new `TensorArrayStorage` each time it runs and outputs it as its `handle`
(a per-step object, never in a resource manager); every other op takes that handle and works on the storage
under its lock. The float `flow` carries no data: each write returns a new flow, and a read takes one, so the
dataflow graph orders reads after the writes they depend on, across loop iterations and cond branches too.
The storage keeps TF's rules: a fixed size unless dynamic, each index written once, an index read once when
`clear_after_read`, an element shape that the first write fixes when `identical_element_shapes`.
A TF2 array's flow is its list itself (a variant), so loops and conds carry the list as a value.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry, tensor_shape, tensor_util
from tensorweave.framework.func_graph import control_flow_v2_in_graph
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    device,
    name_scope,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.type_spec import TensorSpec, TypeSpec, register_type_spec_from_value_converter
from tensorweave.ops import cast_ops, list_ops, manipulation_ops, sequence_ops, shape_ops
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_counter = itertools.count()  # TF's process-wide TensorArray counter, which suffixes every storage's name


class TensorArrayStorage:
    """One TensorArray of one step: its elements and TF's bookkeeping for each (written, read, cleared)."""

    def __init__(self, name: str, dtype: dtypes.DType, size: int, element_shape: tensor_shape.TensorShape,
                 dynamic_size: bool, clear_after_read: bool, identical_element_shapes: bool,
                 multiple_writes_aggregate: bool = False) -> None:
        self.name = name
        self.dtype = dtype
        self.values: list[Any] = [None] * size
        self.written = [False] * size
        self.read = [False] * size
        self.cleared = [False] * size
        self.element_shape = element_shape
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.identical_element_shapes = identical_element_shapes
        self.multiple_writes_aggregate = multiple_writes_aggregate  # a gradient array sums repeated writes
        self.grads: dict[bytes, TensorArrayStorage] = {}  # gradient arrays by source (TensorArrayGradV3)
        self.closed = False
        self.lock = threading.Lock()
        self._checked_shape: tuple[tensor_shape.TensorShape, tuple[int, ...]] | None = None

    def check_open(self, ctx: OpKernelContext) -> None:
        if self.closed:
            raise invalid_argument(ctx, f"TensorArray {self.name} has already been closed.")

    def write(self, ctx: OpKernelContext, index: int, value: Any) -> None:
        """Store `value` at `index` (growing a dynamic array), under TF's shape and write-once rules."""
        size = len(self.values)
        if index < 0 or (not self.dynamic_size and index >= size):
            raise invalid_argument(ctx, f"TensorArray {self.name}: Tried to write to index {index} but array is not "
                                        f"resizeable and size is: {size}")
        if index >= size:
            grow = index + 1 - size
            self.values.extend([None] * grow)
            for flags in (self.written, self.read, self.cleared):
                flags.extend([False] * grow)
        shape = np.shape(value)
        checked = self._checked_shape  # the last shape found compatible with the element shape of then
        if (checked is None or checked[0] is not self.element_shape or checked[1] != shape) and \
                not self.element_shape.is_compatible_with(shape):
            raise invalid_argument(
                ctx, f"TensorArray {self.name}: Could not write to TensorArray index {index} because the value shape "
                     f"is {tensor_shape.shape_string(shape)} which is incompatible with the TensorArray's inferred "
                     f"element shape: {tensor_shape.shape_string(self.element_shape)} (consider setting "
                     "infer_shape=False).")
        if self.identical_element_shapes and not self.element_shape.is_fully_defined():
            self.element_shape = tensor_shape.TensorShape(shape)
        self._checked_shape = (self.element_shape, shape)
        if self.read[index]:
            raise invalid_argument(ctx, f"TensorArray {self.name}: Could not write to TensorArray index {index} "
                                        "because it has already been read.")
        if self.written[index]:
            if not self.multiple_writes_aggregate:
                raise invalid_argument(ctx, f"TensorArray {self.name}: Could not write to TensorArray index {index} "
                                            "because it has already been written to.")
            if np.shape(self.values[index]) != shape:
                raise invalid_argument(
                    ctx, f"TensorArray {self.name}: Could not aggregate to TensorArray index {index} because the "
                         f"existing shape is {tensor_shape.shape_string(np.shape(self.values[index]))} but the new "
                         f"input shape is {tensor_shape.shape_string(shape)}.")
            value = self.values[index] + value
        self.values[index] = value
        self.written[index] = True

    def read_at(self, ctx: OpKernelContext, index: int) -> Any:
        """The value at `index` (zeros when unwritten and the element shape is known), cleared after the
        read when the array says so."""
        if index < 0 or index >= len(self.values):
            raise invalid_argument(ctx, f"Tried to read from index {index} but array size is: {len(self.values)}")
        if self.cleared[index]:
            raise invalid_argument(ctx, f"TensorArray {self.name}: Could not read index {index} twice because it was "
                                        "cleared after a previous read (perhaps try setting clear_after_read = "
                                        "false?).")
        if self.written[index]:
            value = self.values[index]
        elif self.element_shape.is_fully_defined():
            value = ctx.xp.zeros(self.element_shape.as_list(), dtype=self.dtype.as_numpy_dtype)
        else:
            raise invalid_argument(
                ctx, f"TensorArray {self.name}: Could not read from TensorArray index {index}.  Furthermore, the "
                     f"element shape is not fully defined: {tensor_shape.shape_string(self.element_shape)}.  It is "
                     "possible you are working with a resizeable TensorArray and stop_gradients is not allowing "
                     "the gradients to be written.  If you set the full element_shape property on the forward "
                     "TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.")
        if self.clear_after_read:
            self.values[index] = None
            self.cleared[index] = True
        self.read[index] = True
        return value


def _stored(value: Any) -> Any:
    """A value as the array keeps it: a read-only input (a variable's live buffer) is copied, so later
    updates of its source do not show through."""
    return value if getattr(value, "flags", None) is None or value.flags.writeable else value.copy()


def _check_handle(handle: tensor_shape.TensorShape) -> None:
    """TF's check of a TensorArray handle input: a vector of two."""
    handle = with_rank(handle, 1)
    if handle[0] is not None and handle[0] != 2:
        raise ValueError(f"Dimension must be 2 but is {handle[0]}")


_HANDLE_FORWARDERS = ("Enter", "Identity", "Switch", "TensorArrayGradV3")


def _handle_element_shape(ctx: InferenceContext) -> tensor_shape.TensorShape | None:
    """The element shape TF's shape inference attaches to a TensorArrayV3 handle (its resource handle data):
    the op's `element_shape` when fully defined or the array has identical element shapes, carried through
    Enter, Identity and Switch, and to its gradient arrays; None when the handle has none."""
    op = ctx._inputs[0].op
    while op.type in _HANDLE_FORWARDERS:
        op = op.inputs[0].op
    if op.type != "TensorArrayV3":
        return None
    shape = tensor_shape.TensorShape(op._node_def.attr["element_shape"])
    return shape if shape.is_fully_defined() or op._node_def.attr["identical_element_shapes"] else None


def _check_scalar_flow(ctx: InferenceContext, index: int) -> None:
    with_rank(ctx.input_shape(index), 0)


def _check_read_dtype(ctx: OpKernelContext, storage: TensorArrayStorage, dtype: dtypes.DType) -> None:
    if storage.dtype != dtype:
        raise invalid_argument(ctx, f"TensorArray dtype is {dtypes.type_string(storage.dtype)} but Op requested "
                                    f"dtype {dtypes.type_string(dtype)}.")


def _check_write_dtype(ctx: OpKernelContext, storage: TensorArrayStorage, dtype: dtypes.DType) -> None:
    if storage.dtype != dtype:
        raise invalid_argument(ctx, f"TensorArray dtype is {dtypes.type_string(storage.dtype)} but Op is trying to "
                                    f"write dtype {dtypes.type_string(dtype)}.")


_FLOW = np.float32(0.0)

TensorArrayV3 = Op("TensorArrayV3", inputs=["size: int32"], outputs=["handle: resource", "flow: float"],
                   attrs=["dtype: type", "element_shape: shape = { unknown_rank: true }",
                          "dynamic_size: bool = false", "clear_after_read: bool = true",
                          "identical_element_shapes: bool = false", "tensor_array_name: string = ''"],
                   is_stateful=True)


@TensorArrayV3.shape
def _tensor_array_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    return [tensor_shape.TensorShape([2]), tensor_shape.TensorShape([])]


@TensorArrayV3.kernel("CPU")
def _tensor_array(ctx: OpKernelContext, size: Any, dtype: dtypes.DType, element_shape: Any, dynamic_size: bool,
                  clear_after_read: bool, identical_element_shapes: bool, tensor_array_name: bytes) -> list[Any]:
    """A new storage every run: a TensorArray lives for one step."""
    if np.ndim(size) != 0:
        raise invalid_argument(ctx, f"TensorArray size must be scalar, but had shape: "
                                    f"{tensor_shape.shape_string(np.shape(size))}")
    if int(size) < 0:
        raise invalid_argument(ctx, f"Size should be >= 0, but is {int(size)}")
    name = f"{tensor_array_name.decode() or ctx.name}_{next(_counter)}"
    storage = TensorArrayStorage(name, dtype, int(size), tensor_shape.TensorShape(element_shape), dynamic_size,
                                 clear_after_read, identical_element_shapes)
    return [storage, _FLOW]


NotDifferentiable("TensorArrayV3")


def _grad_source(value: Tensor | Operation) -> str:
    """The `gradients` name scope a gradient tensor was built under: one gradient array per tf.gradients call
    (TF's _GetGradSource)."""
    tokens = value.name.split("/")
    positions = [i for i, token in enumerate(tokens) if token.startswith("gradients")]
    if not positions:
        raise ValueError(f"Expected op/tensor name to start with gradients (excluding scope), got: {value.name}. "
                         "This means that a tf.gradients op with this op in its dependency path has a custom name "
                         "that does not start with 'gradients'. Please make sure all calls to tf.gradients that "
                         "have non-empty `name` arguments use names that start with 'gradients'.")
    return "/".join(tokens[:positions[-1] + 1])


def _forward_array(op: Operation, dtype_attr: str, flow: Tensor) -> TensorArray:
    """The forward TensorArray of a TensorArray op's handle, at `flow`, as its gradient functions see it."""
    return TensorArray(dtype=op.get_attr(dtype_attr), handle=op.inputs[0], flow=flow,
                       colocate_with_first_write_call=False)


TensorArrayGradV3 = Op("TensorArrayGradV3", inputs=["handle: resource", "flow_in: float"],
                       outputs=["grad_handle: resource", "flow_out: float"], attrs=["source: string"],
                       is_stateful=True)
NotDifferentiable("TensorArrayGradV3")


@TensorArrayGradV3.shape
def _tensor_array_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    _check_scalar_flow(ctx, 1)
    return [tensor_shape.TensorShape([2]), tensor_shape.TensorShape([])]


@TensorArrayGradV3.kernel("CPU")
def _tensor_array_grad(ctx: OpKernelContext, storage: TensorArrayStorage, flow_in: Any, source: bytes) -> list[Any]:
    """The gradient array of `storage` for one `source`, made on first use: the forward array's size and element
    shape, repeated writes summed (every use of a forward element adds to its gradient)."""
    with storage.lock:
        storage.check_open(ctx)
        grad = storage.grads.get(source)
        if grad is None:
            grad = TensorArrayStorage(f"{storage.name}@{source.decode()}", storage.dtype, len(storage.values),
                                      storage.element_shape, dynamic_size=False, clear_after_read=True,
                                      identical_element_shapes=storage.identical_element_shapes,
                                      multiple_writes_aggregate=True)
            storage.grads[source] = grad
    return [grad, _FLOW]


TensorArrayWriteV3 = Op("TensorArrayWriteV3", inputs=["handle: resource", "index: int32", "value: T", "flow_in: float"],
                        outputs=["flow_out: float"], attrs=["T: type"], is_stateful=True)


@TensorArrayWriteV3.shape
def _write_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    with_rank(ctx.input_shape(1), 0)
    _check_scalar_flow(ctx, 3)
    return [tensor_shape.TensorShape([])]


@TensorArrayWriteV3.kernel("CPU")
def _write(ctx: OpKernelContext, storage: TensorArrayStorage, index: Any, value: Any, flow_in: Any,
           T: dtypes.DType) -> Any:  # noqa: N803 - TF's attr name
    with storage.lock:
        storage.check_open(ctx)
        _check_write_dtype(ctx, storage, T)
        storage.write(ctx, int(index), _stored(value))
    return _FLOW


@TensorArrayWriteV3.gradient
def _write_grad(op: Operation, flow: Tensor) -> list:
    """The written value's gradient is what the gradient array holds at its index, read once the gradient
    flow has passed this write's."""
    source = _grad_source(flow)
    flow_out = manipulation_ops.identity(op.outputs[0], "flow_out")
    with control_dependencies([flow_out]):
        flow = manipulation_ops.identity(flow, "write_barrier")
    grad = _forward_array(op, "T", flow).grad(source=source, flow=flow)
    return [None, None, grad.read(op.inputs[1]), flow]


TensorArrayReadV3 = Op("TensorArrayReadV3", inputs=["handle: resource", "index: int32", "flow_in: float"],
                       outputs=["value: dtype"], attrs=["dtype: type"], is_stateful=True)


@TensorArrayReadV3.shape
def _read_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    with_rank(ctx.input_shape(1), 0)
    _check_scalar_flow(ctx, 2)
    return [_handle_element_shape(ctx) or tensor_shape.unknown_shape()]


@TensorArrayReadV3.kernel("CPU")
def _read(ctx: OpKernelContext, storage: TensorArrayStorage, index: Any, flow_in: Any, dtype: dtypes.DType) -> Any:
    with storage.lock:
        storage.check_open(ctx)
        _check_read_dtype(ctx, storage, dtype)
        return storage.read_at(ctx, int(index))


@TensorArrayReadV3.gradient
def _read_grad(op: Operation, grad: Tensor) -> list:
    """A read's gradient is written (summed) into the gradient array at the index read."""
    flow = op.inputs[2]
    g = _forward_array(op, "dtype", flow).grad(source=_grad_source(grad), flow=flow)
    return [None, None, g.write(op.inputs[1], grad).flow]


TensorArrayGatherV3 = Op("TensorArrayGatherV3", inputs=["handle: resource", "indices: int32", "flow_in: float"],
                         outputs=["value: dtype"],
                         attrs=["dtype: type", "element_shape: shape = { unknown_rank: true }"], is_stateful=True)


@TensorArrayGatherV3.shape
def _gather_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    indices = with_rank(ctx.input_shape(1), 1)
    _check_scalar_flow(ctx, 2)
    element_shape = _handle_element_shape(ctx)
    if element_shape is None:
        element_shape = tensor_shape.TensorShape(ctx.attr("element_shape"))
    return [indices.concatenate(element_shape)]


def _merge_element_shape(ctx: OpKernelContext, storage: TensorArrayStorage, element_shape: Any) -> None:
    """TF's SetElemShape: the op's element shape refines the array's, or the two conflict."""
    wanted = tensor_shape.TensorShape(element_shape)
    if not storage.element_shape.is_compatible_with(wanted):
        raise invalid_argument(ctx, "PartialTensorShape: Incompatible shapes during merge: "
                                    f"{tensor_shape.shape_string(storage.element_shape)} vs. "
                                    f"{tensor_shape.shape_string(wanted)}")
    storage.element_shape = storage.element_shape.merge_with(wanted)


def _same_shapes(ctx: InferenceContext | OpKernelContext, values: list[Any], start: int, what: str) -> None:
    """Every value's shape (from dimension `start` on) is the first one's, as stacking and concatenating need."""
    first = np.shape(values[0])[start:]
    for i, value in enumerate(values[1:], 1):
        if np.shape(value)[start:] != first:
            raise invalid_argument(ctx, f"TensorArray has inconsistent shapes.  Index 0 has {what}shape: "
                                        f"{tensor_shape.shape_string(first)} but index {i} has {what}shape: "
                                        f"{tensor_shape.shape_string(np.shape(value)[start:])}")


@TensorArrayGatherV3.kernel("CPU")
def _gather(ctx: OpKernelContext, storage: TensorArrayStorage, indices: Any, flow_in: Any, dtype: dtypes.DType,
            element_shape: Any) -> Any:
    with storage.lock:
        storage.check_open(ctx)
        _check_read_dtype(ctx, storage, dtype)
        _merge_element_shape(ctx, storage, element_shape)
        if np.size(indices) == 0:
            if not storage.element_shape.is_fully_defined():
                raise errors.UnimplementedError(
                    ctx.node_def, None, "TensorArray has size zero, but element shape "
                    f"{tensor_shape.shape_string(storage.element_shape)} is not fully defined. Currently only static "
                    "shapes are supported when packing zero-size TensorArrays.")
            return ctx.xp.zeros([0] + storage.element_shape.as_list(), dtype=dtype.as_numpy_dtype)
        values = [storage.read_at(ctx, int(i)) for i in np.reshape(indices, -1)]
    _same_shapes(ctx, values, 0, "")
    return ctx.xp.stack(values)


@TensorArrayGatherV3.gradient
def _gather_grad(op: Operation, grad: Tensor) -> list:
    flow = op.inputs[2]
    g = _forward_array(op, "dtype", flow).grad(source=_grad_source(grad), flow=flow)
    return [None, None, g.scatter(op.inputs[1], grad).flow]


TensorArrayScatterV3 = Op("TensorArrayScatterV3",
                          inputs=["handle: resource", "indices: int32", "value: T", "flow_in: float"],
                          outputs=["flow_out: float"], attrs=["T: type"], is_stateful=True)


@TensorArrayScatterV3.shape
def _scatter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    with_rank(ctx.input_shape(1), 1)
    with_rank_at_least(ctx.input_shape(2), 1)
    _check_scalar_flow(ctx, 3)
    return [tensor_shape.TensorShape([])]


@TensorArrayScatterV3.kernel("CPU")
def _scatter(ctx: OpKernelContext, storage: TensorArrayStorage, indices: Any, value: Any, flow_in: Any,
             T: dtypes.DType) -> Any:  # noqa: N803 - TF's attr name
    with storage.lock:
        storage.check_open(ctx)
        _check_write_dtype(ctx, storage, T)
        if np.ndim(indices) != 1:
            raise invalid_argument(ctx, "Expected indices to be a vector, but received shape: "
                                        f"{tensor_shape.shape_string(np.shape(indices))}")
        if np.ndim(value) < 1:
            raise invalid_argument(ctx, "Expected value to be at least a vector, but received shape: "
                                        f"{tensor_shape.shape_string(np.shape(value))}")
        if len(indices) != np.shape(value)[0]:
            raise invalid_argument(ctx, f"Expected len(indices) == values.shape[0], but saw: {len(indices)} vs. "
                                        f"{np.shape(value)[0]}")
        if len(indices) and not storage.dynamic_size and int(np.max(indices)) >= len(storage.values):
            raise invalid_argument(ctx, f"Max scatter index must be < array size ({int(np.max(indices))} vs. "
                                        f"{len(storage.values)})")
        value = _stored(value)
        for i, index in enumerate(indices.tolist()):
            storage.write(ctx, index, value[i])
    return _FLOW


@TensorArrayScatterV3.gradient
def _scatter_grad(op: Operation, flow: Tensor) -> list:
    source = _grad_source(flow)
    flow_out = manipulation_ops.identity(op.outputs[0], "flow_out")
    with control_dependencies([flow_out]):
        flow = manipulation_ops.identity(flow, "write_barrier")
    grad = _forward_array(op, "T", flow).grad(source=source, flow=flow)
    return [None, None, grad.gather(op.inputs[1]), flow]


TensorArraySizeV3 = Op("TensorArraySizeV3", inputs=["handle: resource", "flow_in: float"], outputs=["size: int32"],
                       is_stateful=True)


@TensorArraySizeV3.shape
def _size_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    return [tensor_shape.TensorShape([])]


@TensorArraySizeV3.kernel("CPU")
def _size(ctx: OpKernelContext, storage: TensorArrayStorage, flow_in: Any) -> Any:
    with storage.lock:
        storage.check_open(ctx)
        return np.int32(len(storage.values))


NotDifferentiable("TensorArraySizeV3")


TensorArrayConcatV3 = Op("TensorArrayConcatV3", inputs=["handle: resource", "flow_in: float"],
                         outputs=["value: dtype", "lengths: int64"],
                         attrs=["dtype: type", "element_shape_except0: shape = { unknown_rank: true }"],
                         is_stateful=True)


@TensorArrayConcatV3.shape
def _concat_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    _check_scalar_flow(ctx, 1)
    return [tensor_shape.unknown_shape(), tensor_shape.TensorShape([None])]


@TensorArrayConcatV3.kernel("CPU")
def _concat(ctx: OpKernelContext, storage: TensorArrayStorage, flow_in: Any, dtype: dtypes.DType,
            element_shape_except0: Any) -> list[Any]:
    with storage.lock:
        storage.check_open(ctx)
        _check_read_dtype(ctx, storage, dtype)
        if not storage.values:
            except0 = tensor_shape.TensorShape(element_shape_except0)
            if not except0.is_fully_defined():
                raise errors.UnimplementedError(
                    ctx.node_def, None, "TensorArray has size zero, but element_shape_except0 "
                    f"{tensor_shape.shape_string(except0)} is not fully defined. Currently only static shapes are "
                    "supported when concatenating zero-size TensorArrays.")
            return [ctx.xp.zeros([0] + except0.as_list(), dtype=dtype.as_numpy_dtype), np.zeros([0], np.int64)]
        values = [storage.read_at(ctx, i) for i in range(len(storage.values))]
    for i, value in enumerate(values):
        if np.ndim(value) == 0:
            raise invalid_argument(ctx, f"Concat saw a scalar shape at index {i} but requires at least vectors.  "
                                        "Did you mean to call pack?")
    _same_shapes(ctx, values, 1, "(excepting dimension 0) ")
    return [ctx.xp.concatenate(values), np.array([np.shape(v)[0] for v in values], dtype=np.int64)]


@TensorArrayConcatV3.gradient
def _concat_grad(op: Operation, grad: Tensor, unused_lengths_grad: Tensor | None) -> list:
    flow = op.inputs[1]
    g = _forward_array(op, "dtype", flow).grad(source=_grad_source(grad), flow=flow)
    return [None, g.split(grad, op.outputs[1]).flow]


TensorArraySplitV3 = Op("TensorArraySplitV3",
                        inputs=["handle: resource", "value: T", "lengths: int64", "flow_in: float"],
                        outputs=["flow_out: float"], attrs=["T: type"], is_stateful=True)


@TensorArraySplitV3.shape
def _split_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    with_rank_at_least(ctx.input_shape(1), 1)
    with_rank(ctx.input_shape(2), 1)
    _check_scalar_flow(ctx, 3)
    return [tensor_shape.TensorShape([])]


@TensorArraySplitV3.kernel("CPU")
def _split(ctx: OpKernelContext, storage: TensorArrayStorage, value: Any, lengths: Any, flow_in: Any,
           T: dtypes.DType) -> Any:  # noqa: N803 - TF's attr name
    with storage.lock:
        storage.check_open(ctx)
        _check_write_dtype(ctx, storage, T)
        if np.ndim(value) < 1:
            raise invalid_argument(ctx, "Expected value to be at least a vector, but received shape: "
                                        f"{tensor_shape.shape_string(np.shape(value))}")
        if np.ndim(lengths) != 1:
            raise invalid_argument(ctx, "Expected lengths to be a vector, received shape: "
                                        f"{tensor_shape.shape_string(np.shape(lengths))}")
        if int(np.sum(lengths)) != np.shape(value)[0]:
            raise invalid_argument(ctx, "Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                                        f"is {int(np.sum(lengths))} and value's shape is: "
                                        f"{tensor_shape.shape_string(np.shape(value))}")
        if len(storage.values) != len(lengths) and not storage.dynamic_size:
            raise invalid_argument(ctx, f"TensorArray's size is not equal to the size of lengths "
                                        f"({len(storage.values)} vs. {len(lengths)}), and the TensorArray is not "
                                        "marked as dynamically resizeable")
        value = _stored(value)
        for index, piece in enumerate(np.split(value, np.cumsum(lengths)[:-1])):
            storage.write(ctx, index, piece)
    return _FLOW


@TensorArraySplitV3.gradient
def _split_grad(op: Operation, flow: Tensor) -> list:
    source = _grad_source(flow)
    flow_out = manipulation_ops.identity(op.outputs[0], "flow_out")
    with control_dependencies([flow_out]):
        flow = manipulation_ops.identity(flow, "write_barrier")
    grad = _forward_array(op, "T", flow).grad(source=source, flow=flow)
    return [None, grad.concat(), None, flow]


TensorArrayCloseV3 = Op("TensorArrayCloseV3", inputs=["handle: resource"], is_stateful=True)


@TensorArrayCloseV3.shape
def _close_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx.input_shape(0))
    return []


@TensorArrayCloseV3.kernel("CPU")
def _close(ctx: OpKernelContext, storage: TensorArrayStorage) -> None:
    """Closing frees the elements; any later use of the array fails."""
    with storage.lock:
        storage.closed = True
        storage.values = [None] * len(storage.values)


NotDifferentiable("TensorArrayCloseV3")


# -- tf.TensorArray -----------------------------------------------------------------------------------


def _static_value(value: Any) -> Any:
    """A size's value while building the graph: a Python number as it is, a tensor's when known."""
    return tensor_util.constant_value(value) if isinstance(value, Tensor) else value


@tf_export("TensorArray")
class TensorArray:
    """A list of tensors of one dtype that a graph writes and reads by index (TF1's graph TensorArray).

    Every write returns a new TensorArray: the same handle with a new flow, which orders what reads it after
    the write. With `infer_shape`, all elements share one shape, learned from the writes as the graph is
    built and set on what `read`, `stack`, `gather` and `concat` return.
    """

    def __new__(cls, dtype: Any = None, size: Any = None, dynamic_size: bool | None = None,
                clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                handle: Tensor | None = None, flow: Tensor | None = None, **kwargs: Any) -> TensorArray:
        """TF2's control flow (and a variant flow) makes the TensorList-backed array, as TF's TensorArray
        picks its implementation."""
        if cls is TensorArray and ((flow is not None and getattr(flow, "dtype", None) == dtypes.variant)
                                   or control_flow_v2_in_graph()):
            cls = _GraphTensorArrayV2
        return super().__new__(cls)

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None,
                 clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                 handle: Tensor | None = None, flow: Tensor | None = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None) -> None:
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot provide both `handle` and `tensor_array_name` arguments at the same time.")
        if handle is not None and not isinstance(handle, Tensor):
            raise TypeError(f"Expected `handle` to be a Tensor, but got `{handle}` of type `{type(handle)}` instead.")
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        for given, argument in ((size, "a `handle` and `size` arguments"),
                                (element_shape, "`handle` and `element_shape` arguments"),
                                (dynamic_size, "`handle` and `dynamic_size` arguments"),
                                (clear_after_read, "`handle` and `clear_after_read` arguments")):
            if handle is not None and given is not None:
                raise ValueError(f"Cannot provide both {argument} at the same time.")
        self._dynamic_size = dynamic_size or False
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with: list[Tensor] | None = [] if colocate_with_first_write_call else None
        self._element_shape = [tensor_shape.as_shape(element_shape)]  # shared by every TensorArray of the handle
        self._infer_shape = infer_shape
        self._size = size
        with name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return
            create = dict(dtype=self._dtype, element_shape=element_shape, identical_element_shapes=infer_shape,
                          dynamic_size=self._dynamic_size,
                          clear_after_read=True if clear_after_read is None else clear_after_read,
                          tensor_array_name=tensor_array_name or "", name=scope)
            with _unplaced() if colocate_with_first_write_call else contextlib.nullcontext():
                self._handle, self._flow = TensorArrayV3(size, **create)

    @property
    def flow(self) -> Tensor:
        """The flow tensor forcing ops leading to this TensorArray state."""
        return self._flow

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def handle(self) -> Tensor:
        """The reference to the TensorArray."""
        return self._handle

    @property
    def element_shape(self) -> tensor_shape.TensorShape:
        return self._element_shape[0]

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    def _check_element_shape(self, shape: tensor_shape.TensorShape) -> None:
        """Refine the shared element shape with a written value's (or fail as TF does)."""
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value: Tensor) -> Iterator[None]:
        """Writes go where the first written value is, unless the array was placed where it was made."""
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with colocate_with(self._colocate_with[0]):
            yield

    def identity(self) -> TensorArray:
        """A TensorArray whose flow is an identity of this one's: control dependencies around it apply to the
        reads and writes that use it."""
        return build_ta_with_new_flow(self, manipulation_ops.identity(self._flow))

    def read(self, index: Any, name: str | None = None) -> Tensor:
        value = TensorArrayReadV3(self._handle, index, self._flow, dtype=self._dtype, name=name)
        value.set_shape(self._element_shape[0].dims)
        return value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = TensorArrayWriteV3(self._handle, index, value, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def stack(self, name: str | None = None) -> Tensor:
        """Every element, stacked along a new first dimension."""
        with colocate_with(self._handle), name_scope(name, "TensorArrayStack", [self._handle]):
            value = self.gather(sequence_ops.range(0, self.size()), name=name)
            if self.element_shape and not self._dynamic_size and self._size is not None:
                value.set_shape([_static_value(self._size)] + self.element_shape.dims)
            return value

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        value = TensorArrayGatherV3(self._handle, indices, self._flow, dtype=self._dtype,
                                    element_shape=self._element_shape[0], name=name)
        if self.element_shape:
            value.set_shape([None] + self.element_shape.dims)
        return value

    def concat(self, name: str | None = None) -> Tensor:
        """Every element, concatenated along their first dimension."""
        value, _ = TensorArrayConcatV3(self._handle, self._flow, dtype=self._dtype,
                                       element_shape_except0=self.element_shape[1:], name=name)
        if self.element_shape:
            dim0 = None
            if self._infer_shape:
                size = _static_value(self.size())
                if size is not None and self.element_shape[0] is not None:
                    dim0 = int(size) * self.element_shape[0]
            value.set_shape([dim0] + self.element_shape.dims[1:])
        return value

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """Write `value[i]` at each index i."""
        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = shape_ops.shape(value)[0]
            return self.scatter(indices=sequence_ops.range(0, num_elements), value=value, name=name)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """Write `value[i]` at `indices[i]`."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = TensorArrayScatterV3(self._handle, indices, value, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Write consecutive pieces of `value`, `lengths[i]` rows long, at indices 0, 1, ..."""
        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                lengths_64 = cast_ops.cast(lengths, dtypes.int64)
                known = tensor_util.constant_value(lengths_64)
                if value.shape.dims is not None and known is not None and known.shape and known.max() == known.min():
                    self._check_element_shape(tensor_shape.TensorShape([int(known[0])]).concatenate(value.shape[1:]))
                flow_out = TensorArraySplitV3(self._handle, value, lengths_64, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements: the static size when the array cannot grow."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return TensorArraySizeV3(self._handle, self.flow, name=name)

    def close(self, name: str | None = None) -> Operation:
        return TensorArrayCloseV3(self._handle, name=name)

    def grad(self, source: str, flow: Tensor | None = None, name: str | None = None) -> TensorArray:
        """The gradient TensorArray of this one for the `tf.gradients` call `source` names."""
        flow = self.flow if flow is None else flow
        with name_scope(name, "TensorArrayGrad", [self._handle]), colocate_with(self._handle):
            g_handle, _ = TensorArrayGradV3(self._handle, flow, source=source, name=name)
            with control_dependencies([g_handle]):
                flow = manipulation_ops.identity(flow, name="gradient_flow")
            g = TensorArray(dtype=self._dtype, handle=g_handle, flow=flow, infer_shape=self._infer_shape,
                            colocate_with_first_write_call=False)
            g._element_shape = self._element_shape
            return g


class _GraphTensorArrayV2(TensorArray):
    """A TensorArray of a TF2 graph: its flow is a TensorList (a variant), its handle None, and every op a
    list op; each write makes a new list value (TF's `_GraphTensorArrayV2`). TensorLists keep no
    `clear_after_read` (a read leaves the item) and let an index be written again."""

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None,
                 clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                 handle: Tensor | None = None, flow: Tensor | None = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None) -> None:
        assert handle is None
        self._dynamic_size = dynamic_size
        self._size = size
        if flow is not None and (not isinstance(flow, Tensor) or flow.dtype != dtypes.variant):
            raise TypeError(f"Expected `flow` to be a variant tensor, but received `{flow.dtype}` instead.")
        if flow is None and size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both `flow` and `size` arguments at the same time.")
        if flow is not None and element_shape is not None:
            raise ValueError("Cannot provide both `flow` and `element_shape` argumentsat the same time.")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._infer_shape = infer_shape
        with name_scope(name, "TensorArrayV2", [size, flow]) as scope:
            self._flow = flow if flow is not None else list_ops.tensor_list_reserve(
                element_shape=element_shape, num_elements=size, element_dtype=dtype, name=scope)
        self._colocate_with_first_write_call = None
        self._colocate_with = None

    @property
    def handle(self) -> None:
        """None: the list is the flow (TF keeps the attribute so TF1's while_loop does not fail)."""
        return None

    def grad(self, source: str, flow: Tensor | None = None, name: str | None = None) -> TensorArray:
        raise NotImplementedError()

    def read(self, index: Any, name: str | None = None) -> Tensor:
        with name_scope(name, "TensorArrayV2Read", [self._flow, index]):
            return list_ops.tensor_list_get_item(self._flow, index, self._dtype, self.element_shape, name=name)

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArrayV2Write", [self._flow, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape)
            flow_out = list_ops.tensor_list_set_item(self._flow, index, value,
                                                     resize_if_index_out_of_bounds=bool(self._dynamic_size),
                                                     name=name)
            return build_ta_with_new_flow(self, flow_out)

    def stack(self, name: str | None = None) -> Tensor:
        with name_scope(name, "TensorArrayV2Stack", [self._flow]):
            size = -1
            if not self._dynamic_size and self._size is not None:
                size = _static_value(self._size)
            return list_ops.tensor_list_stack(self._flow, self._dtype, -1 if size is None else int(size),
                                              self.element_shape)

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        return list_ops.tensor_list_gather(self._flow, indices, self._dtype, self.element_shape, name=name)

    def concat(self, name: str | None = None) -> Tensor:
        element_shape = [None] + self.element_shape.dims[1:] if self.element_shape else None
        return list_ops.tensor_list_concat(self._flow, self._dtype, element_shape, name=name)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """A new list of the rows of `value` (the array's own list is dropped, as TF's)."""
        with name_scope(name, "TensorArrayUnstack", [self._flow, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape[1:])
            return build_ta_with_new_flow(self, list_ops.tensor_list_from_tensor(value, value.shape[1:]))

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArrayScatter", [self._flow, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape[1:])
            flow_out = list_ops.tensor_list_scatter(value, indices, self.element_shape, input_handle=self._flow)
            return build_ta_with_new_flow(self, flow_out)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArraySplit", [self._flow, value, lengths]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            lengths_64 = cast_ops.cast(lengths, dtypes.int64)
            known = tensor_util.constant_value(lengths_64)
            if value.shape.dims is not None and known is not None and known.shape and known.max() == known.min():
                self._check_element_shape(tensor_shape.TensorShape([int(known[0])]).concatenate(value.shape[1:]))
            return build_ta_with_new_flow(self, list_ops.tensor_list_split(value, self.element_shape, lengths_64,
                                                                           name=name))

    def size(self, name: str | None = None) -> Tensor:
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return list_ops.tensor_list_length(self._flow, name=name)

    def close(self, name: str | None = None) -> Operation:
        """Nothing to free: a NoOp, as TF's."""
        return op_registry.get("NoOp")(name=name)


_GraphTensorArrayV2.__name__ = _GraphTensorArrayV2.__qualname__ = "TensorArray"  # what TF's arrays print as


@tf_export("TensorArraySpec")
class TensorArraySpec(TypeSpec):
    """Describes a tf.TensorArray: its element shape and dtype, and whether it grows and infers shapes."""

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape: Any = None, dtype: Any = dtypes.float32, dynamic_size: bool = False,
                 infer_shape: bool = True) -> None:
        self._element_shape = tensor_shape.as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @staticmethod
    def from_value(value: TensorArray) -> TensorArraySpec:
        if not isinstance(value, TensorArray):
            raise ValueError(f"Expected value to be a TensorArray, but got: {type(value)}")
        return TensorArraySpec(value.element_shape, value.dtype, value.dynamic_size, value._infer_shape)

    def is_compatible_with(self, other: Any) -> bool:
        if isinstance(other, TensorArray):
            other = TensorArraySpec.from_value(other)
        return (isinstance(other, TensorArraySpec) and self._dtype.is_compatible_with(other._dtype)
                and self._element_shape.is_compatible_with(other._element_shape)
                and self._dynamic_size == other._dynamic_size)

    @property
    def value_type(self) -> type:
        return TensorArray

    def _serialize(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    @property
    def _component_specs(self) -> list[TensorSpec]:
        """The list of a TF2 array; the handle and the flow of a TF1 one."""
        if control_flow_v2_in_graph():
            return [TensorSpec([], dtypes.variant)]
        return [TensorSpec([], dtypes.resource), TensorSpec([], dtypes.float32)]

    def _to_components(self, value: TensorArray) -> list[Tensor]:
        return [value.flow] if isinstance(value, _GraphTensorArrayV2) else [value.handle, value.flow]

    def _from_components(self, components: Any) -> TensorArray:
        """A TF2 array of the list (its size unknown, as TF's), or a TF1 array of the handle and flow."""
        if len(components) == 1:
            array = TensorArray(self._dtype, flow=components[0], dynamic_size=self._dynamic_size,
                                infer_shape=self._infer_shape)
        else:
            handle, flow = components
            array = TensorArray(self._dtype, handle=handle, flow=flow, infer_shape=self._infer_shape)
            array._dynamic_size = self._dynamic_size
        array._element_shape = [self._element_shape]
        return array


register_type_spec_from_value_converter(TensorArray, TensorArraySpec.from_value)


@contextlib.contextmanager
def _unplaced() -> Iterator[None]:
    """No device and no colocation: a TensorArray that follows its first write is made outside both."""
    with device(None), colocate_with(None, ignore_existing=True):
        yield


def _check_dtypes(value: Tensor, dtype: dtypes.DType) -> None:
    """TF only logs a write of another dtype here; the kernel refuses it when it runs."""
    if value.dtype != dtype:
        tf_logging.error(f"Error: Input value {value} has dtype {value.dtype}, but expected dtype {dtype}.  This "
                         "leads to undefined behavior and will be an error in future versions of TensorFlow.")


def build_ta_with_new_flow(old_ta: TensorArray, flow: Tensor) -> TensorArray:
    """The TensorArray of `old_ta`'s handle at `flow`, sharing its element shape and colocation."""
    if not isinstance(old_ta, _GraphTensorArrayV2) and control_flow_v2_in_graph():
        raise NotImplementedError("Attempting to build a graph-mode TF2-style TensorArray from either an eager-mode "
                                  "TensorArray or a TF1-style TensorArray.  This is not currently supported.  You "
                                  "may be attempting to capture a TensorArray inside a tf.function or tf.data map "
                                  "function. Instead, construct a new TensorArray inside the function.")
    new_ta = TensorArray(dtype=old_ta.dtype, handle=old_ta.handle, flow=flow, infer_shape=old_ta._infer_shape,
                         colocate_with_first_write_call=old_ta._colocate_with_first_write_call)
    new_ta._dynamic_size = old_ta._dynamic_size
    new_ta._size = old_ta._size
    new_ta._colocate_with = old_ta._colocate_with
    new_ta._element_shape = old_ta._element_shape
    return new_ta
