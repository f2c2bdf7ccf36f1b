"""Kernel registrations: several per (op, device type) with their dtype constraints and host-memory args,
typed persistent state per node kernel, and the rendezvous and cancellation primitives kernels use."""

import threading

import numpy as np
import pytest

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.cancellation import CancellationManager
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.rendezvous import LocalRendezvous, create_key
from tensorweave.runtime.executor import Executor, new_kernel
from tensorweave.runtime.place import place
from tensorweave.runtime.prune import prune

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.fixture
def test_op():
    """An op registered for one test only (removed after, so the registry stays TF's)."""
    op = op_registry.Op("_TestTwoKernels", inputs=["x: T"], outputs=["y: T"], attrs=["T: {float, int32}"])
    yield op
    del op_registry._ops[op.name]


class _Counter:
    def __init__(self, attrs):
        self.calls = 0


def test_the_first_kernel_whose_constraints_admit_the_node_runs_it(test_op):
    @test_op.kernel("CPU", type_constraints={"T": [dtypes.float32]}, state=_Counter)
    def _float_kernel(ctx, x):
        ctx.state.calls += 1
        return x * 2.0 + ctx.state.calls

    @test_op.kernel("CPU", type_constraints={"T": [dtypes.int32]}, host_memory=["x", "y"])
    def _int_kernel(ctx, x):
        return x - 1

    assert [k.fn for k in test_op.kernels["CPU"]] == [_float_kernel, _int_kernel]
    assert test_op.find_kernel("CPU", {"T": dtypes.int32}).host_memory == ("x", "y")
    assert test_op.find_kernel("GPU", {"T": dtypes.int32}) is None
    device = DeviceBase(CPU0, "CPU", np)
    graph = GraphDef(node=[
        NodeDef("f", "Const", [], "", {"value": np.float32(1.0), "dtype": dtypes.float32}),
        NodeDef("i", "Const", [], "", {"value": np.int32(5), "dtype": dtypes.int32}),
        NodeDef("tf", "_TestTwoKernels", ["f"], "", {"T": dtypes.float32}),
        NodeDef("ti", "_TestTwoKernels", ["i"], "", {"T": dtypes.int32})])
    ex = Executor(prune(graph, [], ["tf:0", "ti:0"], [], {"tf:0": dtypes.float32, "ti:0": dtypes.int32}), device)
    assert ex.run([]) == [3.0, 4]
    assert ex.run([]) == [4.0, 4]  # the float kernel's state object lives as long as its OpKernel
    kernel = new_kernel(graph.node[2], device)
    assert kernel.state.calls == 0 and kernel.compute([np.float32(1.0)]) == [3.0]
    kernel.reset_state()
    assert kernel.state.calls == 0


def test_registration_errors_name_the_unknown_attr_or_arg(test_op):
    with pytest.raises(ValueError, match="Kernel constraint on unknown attr 'U'"):
        test_op.kernel("CPU", type_constraints={"U": [dtypes.float32]})
    with pytest.raises(ValueError, match="Host-memory arg 'z' is not an argument of Op '_TestTwoKernels'"):
        test_op.kernel("CPU", host_memory=["z"])


def test_soft_placement_honours_dtype_constraints(test_op):
    test_op.kernel("CPU", type_constraints={"T": [dtypes.int32]})(lambda ctx, x: x)
    test_op.kernel("GPU", type_constraints={"T": [dtypes.float32]})(lambda ctx, x: x)
    devices = [DeviceBase(GPU0, "GPU", np), DeviceBase(CPU0, "CPU", np)]
    node = NodeDef("n", "_TestTwoKernels", [], "/device:GPU:1", {"T": dtypes.int32})
    placed = place(GraphDef(node=[node]), devices, allow_soft_placement=True)
    assert placed.node[0].device == CPU0  # the GPU has no int32 kernel


def test_local_rendezvous_either_order_and_abort():
    rendezvous = LocalRendezvous()
    key = create_key(CPU0, 7, GPU0, "t:0", 1, 2)
    assert key == f"{CPU0};0000000000000007;{GPU0};t:0;1:2"
    rendezvous.send(key, 1)
    assert rendezvous.recv(key, timeout=1) == (1, False)  # value first
    got = []
    rendezvous.recv_async(key, lambda error, value, dead: got.append((error, value, dead)))
    rendezvous.send(key, 2, is_dead=False)  # receiver first: its callback runs on the sender
    assert got == [(None, 2, False)]
    waiting = []
    rendezvous.recv_async("other", lambda error, value, dead: waiting.append(error))
    failure = errors.AbortedError(None, None, "step failed")
    rendezvous.abort(failure)
    assert waiting == [failure]
    with pytest.raises(errors.AbortedError):
        rendezvous.send(key, 3)
    with pytest.raises(errors.AbortedError):
        rendezvous.recv(key, timeout=1)


def test_cancellation_runs_each_callback_once_and_refuses_late_ones():
    manager = CancellationManager()
    calls = []
    token = manager.get_cancellation_token()
    assert manager.register_callback(token, lambda: calls.append("a"))
    other = manager.get_cancellation_token()
    assert manager.register_callback(other, lambda: calls.append("b"))
    assert manager.deregister_callback(other)
    threads = [threading.Thread(target=manager.start_cancel) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["a"] and manager.is_cancelled
    assert not manager.register_callback(manager.get_cancellation_token(), lambda: calls.append("late"))
    assert calls == ["a"]
