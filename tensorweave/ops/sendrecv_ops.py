"""`_Send` and `_Recv` (and their host-memory twins): how a tensor crosses from one partition to another.

The partitioner puts a `_Send` on the producer's device and a `_Recv` on the consumer's for every edge that
crosses devices; both name the same rendezvous key (sender, its incarnation, receiver, tensor name, and the
loop frame and iteration of the call, so each iteration's transfer is its own). `_Send` hands the value to
the step's rendezvous and returns; `_Recv` is asynchronous: it finishes when the value arrives, from the
sending thread, without holding a thread while it waits, and fails at once when the step is cancelled or
its rendezvous aborted. Deadness travels too: a dead input is sent as dead and received as a dead output.
With `client_terminated`, the client is the other end (it feeds or fetches through the rendezvous).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes
from tensorweave.framework.op_kernel import DEAD, Done, OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.rendezvous import create_key

_TRANSFER_ATTRS = ["tensor_name: string", "send_device: string", "send_device_incarnation: int",
                   "recv_device: string", "client_terminated: bool = false"]

Send = Op("_Send", inputs=["tensor: T"], attrs=["T: type"] + _TRANSFER_ATTRS, is_stateful=True)
HostSend = Op("_HostSend", inputs=["tensor: T"], attrs=["T: type"] + _TRANSFER_ATTRS, is_stateful=True)
Recv = Op("_Recv", outputs=["tensor: tensor_type"], attrs=["tensor_type: type"] + _TRANSFER_ATTRS,
          is_stateful=True, is_distributed_communication=True)
HostRecv = Op("_HostRecv", outputs=["tensor: tensor_type"], attrs=["tensor_type: type"] + _TRANSFER_ATTRS,
              is_stateful=True, is_distributed_communication=True)


def _key(ctx: OpKernelContext, tensor_name: bytes, send_device: bytes, send_device_incarnation: int,
         recv_device: bytes) -> str:
    return create_key(send_device.decode(), send_device_incarnation, recv_device.decode(), tensor_name.decode(),
                      ctx.frame_id, ctx.iteration)


_NUMERIC = frozenset("biufc")


@Send.kernel("CPU")
@HostSend.kernel("CPU", host_memory=["tensor"])
def _send(ctx: OpKernelContext, tensor: Any, tensor_name: bytes, send_device: bytes, send_device_incarnation: int,
          recv_device: bytes) -> None:
    key = _key(ctx, tensor_name, send_device, send_device_incarnation, recv_device)
    ctx.rendezvous.send(key, None if tensor is DEAD else tensor, is_dead=tensor is DEAD)


@Recv.kernel("CPU", asynchronous=True)
@HostRecv.kernel("CPU", asynchronous=True, host_memory=["tensor"])
def _recv(ctx: OpKernelContext, done: Done, tensor_type: dtypes.DType, tensor_name: bytes, send_device: bytes,
          send_device_incarnation: int, recv_device: bytes) -> None:
    key = _key(ctx, tensor_name, send_device, send_device_incarnation, recv_device)
    finish = _once(done)
    cancellation = ctx.cancellation
    token = cancellation.get_cancellation_token()
    if not cancellation.register_callback(token, lambda: finish(error=errors.CancelledError(
            ctx.node_def, None, f"RecvAsync is cancelled. [[{{{{node {ctx.name}}}}}]]"))):
        finish(error=errors.CancelledError(ctx.node_def, None, "RecvAsync is cancelled."))
        return

    def arrived(error: BaseException | None, value: Any, is_dead: bool) -> None:
        cancellation.deregister_callback(token)
        if error is not None:
            finish(error=error)
        elif type(value) is np.ndarray and value.dtype.kind in _NUMERIC and value.dtype != tensor_type.as_numpy_dtype:
            # a value of another type than declared (a client's feed of float64 for float32): TF's executor
            # checks every output against its declared type
            finish(error=errors.InternalError(
                ctx.node_def, None, f"Output 0 of type {dtypes.type_string(dtypes.as_dtype(value.dtype))} does not "
                f"match declared output type {dtypes.type_string(tensor_type)} for node {{{{node {ctx.name}}}}}"))
        else:
            finish(DEAD if is_dead else value)

    ctx.rendezvous.recv_async(key, arrived)


def _once(done: Done) -> Done:
    """`done` guarded so that only the first of cancellation and arrival finishes the kernel."""
    lock = threading.Lock()
    called = False

    def finish(*args: Any, **kwargs: Any) -> None:
        nonlocal called
        with lock:
            if called:
                return
            called = True
        done(*args, **kwargs)

    return finish
