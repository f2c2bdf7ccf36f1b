"""Session handles: tensors a session keeps between runs (GetSessionHandle, GetSessionTensor,
DeleteSessionTensor) and TF1's `tf.get_session_handle` / `get_session_tensor` / `delete_session_tensor`.

The kernels keep and find values in their session's `SessionTensors` (framework/session_state.py). A
placeholder that `get_session_tensor` makes is remembered as a handle feeder of its graph, so the client
checks the handles fed to it; TensorHandle.eval and delete reuse one reader and deleter per graph.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.device_spec import canonical_name
from tensorweave.framework.graph import Graph, Operation, Tensor, colocate_with, device
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.session_state import KeptTensor, session_tensors
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.constant_ops import placeholder
from tensorweave.platform.tf_export import tf_export


def _handle_string(value: Any) -> str:
    handle = value.item() if isinstance(value, np.ndarray) else value
    return handle.decode() if isinstance(handle, bytes) else str(handle)


def _scalar_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


GetSessionHandle = Op("GetSessionHandle", inputs=["value: T"], outputs=["handle: string"], attrs=["T: type"],
                      is_stateful=True)
GetSessionHandle.shape(_scalar_shape)
NotDifferentiable("GetSessionHandle")


@GetSessionHandle.kernel("CPU")
def _get_session_handle(ctx: OpKernelContext, value: Any, T: dtypes.DType) -> np.ndarray:  # noqa: N803
    handle = session_tensors(ctx.device.resource_mgr).add(ctx.step_id, ctx.name, ctx.device.name, value)
    return np.array(handle.encode(), dtype=object)


GetSessionHandleV2 = Op("GetSessionHandleV2", inputs=["value: T"], outputs=["handle: resource"], attrs=["T: type"],
                        is_stateful=True)
GetSessionHandleV2.shape(_scalar_shape)
NotDifferentiable("GetSessionHandleV2")


@GetSessionHandleV2.kernel("CPU")
def _get_session_handle_v2(ctx: OpKernelContext, value: Any, T: dtypes.DType) -> KeptTensor:  # noqa: N803
    return KeptTensor(session_tensors(ctx.device.resource_mgr).add(ctx.step_id, ctx.name, ctx.device.name, value))


GetSessionTensor = Op("GetSessionTensor", inputs=["handle: string"], outputs=["value: dtype"],
                      attrs=["dtype: type"], is_stateful=True)
NotDifferentiable("GetSessionTensor")


@GetSessionTensor.shape
def _get_session_tensor_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.unknown_shape()]


@GetSessionTensor.kernel("CPU")
def _get_session_tensor(ctx: OpKernelContext, handle: Any, dtype: dtypes.DType) -> Any:
    value = session_tensors(ctx.device.resource_mgr).get(_handle_string(handle))
    kept = dtypes.as_dtype(value.dtype)
    if kept != dtype:
        raise errors.InternalError(None, None, f"Output 0 of type {dtypes.type_string(kept)} does not match "
                                               f"declared output type {dtypes.type_string(dtype)} for node "
                                               f"{ctx.name}")
    return value


DeleteSessionTensor = Op("DeleteSessionTensor", inputs=["handle: string"], is_stateful=True)
DeleteSessionTensor.shape(lambda ctx: [])
NotDifferentiable("DeleteSessionTensor")


@DeleteSessionTensor.kernel("CPU")
def _delete_session_tensor(ctx: OpKernelContext, handle: Any) -> None:
    session_tensors(ctx.device.resource_mgr).delete(_handle_string(handle))


def handle_device(handle: Any) -> str:
    """The canonical name of the device a handle's tensor lives on (the last field of the handle)."""
    return canonical_name(_handle_string(handle).split(";")[-1])


@tf_export("get_session_handle")
def get_session_handle(data: Tensor, name: str | None = None) -> Tensor:
    """A handle to `data` that keeps its value in the session, when fetched, for later runs."""
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data):
        return GetSessionHandle(data, name=name)


# graph -> the placeholders fed with handles (op name -> dtype), and the readers and deleters made for handles
_feeders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_readers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_deleters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@tf_export("get_session_tensor")
def get_session_tensor(handle: Any, dtype: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """A placeholder to feed a handle into, and the kept tensor of type `dtype` it reads."""
    with device(handle_device(handle)):
        holder = placeholder(dtypes.string)
        _feeders.setdefault(holder.graph, {})[holder.op.name] = dtypes.as_dtype(dtype)
        tensor = GetSessionTensor(holder, dtype=dtype, name=name)
    return holder, tensor


@tf_export("delete_session_tensor")
def delete_session_tensor(handle: Any, name: str | None = None) -> tuple[Tensor, Operation]:
    """A placeholder to feed a handle into, and the op that deletes its kept tensor."""
    with device(handle_device(handle)):
        holder = placeholder(dtypes.string)
        deleter = DeleteSessionTensor(holder, name=name)
    return holder, deleter


def is_handle_feeder(tensor: Tensor) -> bool:
    """Whether `tensor` is a placeholder that `get_session_tensor` reads a handle from."""
    return tensor.op.name in _feeders.get(tensor.graph, {})


def handle_reader(graph: Graph, handle: str, dtype: dtypes.DType) -> tuple[Tensor, Tensor]:
    """The (placeholder, GetSessionTensor) that reads kept tensors of `dtype` named like `handle`, made once
    per graph for each node and device the handles come from."""
    parts = handle.split(";")
    key = (parts[0], parts[-1], dtype)
    readers = _readers.setdefault(graph, {})
    if key not in readers:
        with graph.as_default():
            readers[key] = get_session_tensor(handle, dtype)
    return readers[key]


def handle_deleter(graph: Graph, index: int, handle: str) -> tuple[Tensor, Operation]:
    """The `index`-th (placeholder, DeleteSessionTensor) of the graph, made once, on `handle`'s device (TF
    keys deleters by position so one run can delete many handles)."""
    deleters = _deleters.setdefault(graph, {})
    if index not in deleters:
        with graph.as_default():
            deleters[index] = delete_session_tensor(handle)
    return deleters[index]
