"""Asynchronous kernels, cancellation and dead entries in the executor, on hand-written GraphDefs.

`_Recv` is the asynchronous kernel: it finishes when a value arrives in the step's rendezvous, from the
sending thread. Every test that could hang runs its step on a helper thread and joins it with a timeout.
"""

import threading
import time

import numpy as np
import pytest

import tensorweave.compat.v1  # noqa: F401 - registers the ops
from tensorweave import errors
from tensorweave.framework import dtypes
from tensorweave.framework.cancellation import CancellationManager
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_kernel import StepContext
from tensorweave.framework.rendezvous import LocalRendezvous, create_key
from tensorweave.runtime.direct_session import _Plan
from tensorweave.runtime.executor import CallFrame, Executor, StepRunner, run_partitions
from tensorweave.runtime.prune import prune

F32 = dtypes.float32
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
TIMEOUT = 10


def _recv(name, tensor_name, send_device=CPU1, recv_device=CPU0):
    return NodeDef(name, "_Recv", [], recv_device, {
        "tensor_type": F32, "tensor_name": tensor_name.encode(), "send_device": send_device.encode(),
        "send_device_incarnation": 1, "recv_device": recv_device.encode(), "client_terminated": False})


def _send(name, source, tensor_name, send_device=CPU1, recv_device=CPU0):
    return NodeDef(name, "_Send", [source], send_device, {
        "T": F32, "tensor_name": tensor_name.encode(), "send_device": send_device.encode(),
        "send_device_incarnation": 1, "recv_device": recv_device.encode(), "client_terminated": False})


def _const(name, value, device=""):
    return NodeDef(name, "Const", [], device, {"value": np.asarray(value, np.float32), "dtype": F32})


def _executor(nodes, feeds=(), fetches=(), device_name=CPU0, pool=None):
    types = {name: F32 for name in list(feeds) + list(fetches)}
    graph_def = prune(GraphDef(node=nodes), list(feeds), list(fetches), [], types)
    return Executor(graph_def, DeviceBase(device_name, "CPU", np), pool=pool)


def _run_in_thread(fn):
    """Run `fn` on a thread; returns (thread, outcome) where outcome gets ('ok', value) or ('error', e)."""
    outcome = []

    def target():
        try:
            outcome.append(("ok", fn()))
        except BaseException as e:  # reported to the test
            outcome.append(("error", e))

    thread = threading.Thread(target=target)
    thread.start()
    return thread, outcome


def _key(tensor_name):
    return create_key(CPU1, 1, CPU0, tensor_name)


def test_recv_completes_from_the_sending_thread_and_holds_no_thread():
    ex = _executor([_recv("r", "x"), _const("two", 2.0), NodeDef("y", "Mul", ["r", "two"], "", {"T": F32})],
                   fetches=["y:0"])
    assert not ex.ordered  # an asynchronous kernel takes the dataflow path
    step = StepContext(rendezvous=LocalRendezvous())
    frame = CallFrame([])
    finished = []
    ex.run_async(frame, step, lambda error: finished.append((error, threading.get_ident())))
    assert finished == []  # run_async returned while the Recv waits: no thread is held

    sender = threading.Thread(target=lambda: step.rendezvous.send(_key("x"), np.float32(21.0)))
    sender.start()
    sender.join(TIMEOUT)
    assert finished == [(None, sender.ident)]  # the step was finished on the sending thread
    assert frame.rets == [42.0]


def test_blocking_run_waits_for_a_value_sent_later():
    ex = _executor([_recv("r", "x"), NodeDef("y", "Neg", ["r"], "", {"T": F32})], fetches=["y:0"])
    step = StepContext(rendezvous=LocalRendezvous())
    thread, outcome = _run_in_thread(lambda: ex.run([], step=step))
    time.sleep(0.05)
    assert outcome == []
    step.rendezvous.send(_key("x"), np.float32(3.0))
    thread.join(TIMEOUT)
    assert outcome[0][0] == "ok" and outcome[0][1] == [-3.0]


def test_value_already_in_the_rendezvous_completes_inline():
    ex = _executor([_recv("r", "x"), NodeDef("y", "Neg", ["r"], "", {"T": F32})], fetches=["y:0"])
    step = StepContext(rendezvous=LocalRendezvous())
    step.rendezvous.send(_key("x"), np.float32(5.0))
    assert ex.run([], step=step) == [-5.0]


def test_error_in_another_node_cancels_a_pending_recv_without_hanging():
    # the Recv is started first and never gets a value; the Reshape then fails: the step raises its error
    nodes = [_recv("r", "never"), NodeDef("y", "Neg", ["r"], "", {"T": F32}),
             NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
             NodeDef("shape", "Const", [], "", {"value": np.array([5], np.int32), "dtype": dtypes.int32}),
             NodeDef("bad", "Reshape", ["x", "shape"], "", {"T": F32, "Tshape": dtypes.int32})]
    ex = _executor(nodes, feeds=["x:0"], fetches=["y:0", "bad:0"])
    step = StepContext(rendezvous=LocalRendezvous())
    thread, outcome = _run_in_thread(lambda: ex.run([np.zeros(4, np.float32)], step=step))
    thread.join(TIMEOUT)
    assert not thread.is_alive()
    kind, error = outcome[0]
    assert kind == "error" and isinstance(error, errors.InvalidArgumentError)
    assert "Input to reshape is a tensor with 4 values, but the requested shape has 5" in error.message
    assert "{{node bad}}" in error.message
    assert step.cancellation.is_cancelled
    with pytest.raises(errors.InvalidArgumentError):  # the step's rendezvous was aborted with the error
        step.rendezvous.send(_key("late"), 1.0)


def test_cancelling_the_step_from_outside_fails_the_pending_recv():
    ex = _executor([_recv("r", "never"), NodeDef("y", "Neg", ["r"], "", {"T": F32})], fetches=["y:0"])
    step = StepContext(rendezvous=LocalRendezvous(), cancellation=CancellationManager())
    thread, outcome = _run_in_thread(lambda: ex.run([], step=step))
    time.sleep(0.05)
    assert outcome == []
    step.cancellation.start_cancel()
    thread.join(TIMEOUT)
    kind, error = outcome[0]
    assert kind == "error" and isinstance(error, errors.CancelledError)
    assert "RecvAsync is cancelled" in error.message and "{{node r}}" in error.message


def test_recv_on_an_already_cancelled_step_fails_at_once():
    ex = _executor([_recv("r", "x"), NodeDef("y", "Neg", ["r"], "", {"T": F32})], fetches=["y:0"])
    cancellation = CancellationManager()
    cancellation.start_cancel()
    with pytest.raises(errors.CancelledError, match="RecvAsync is cancelled"):
        ex.run([], step=StepContext(rendezvous=LocalRendezvous(), cancellation=cancellation))


def test_a_dead_value_propagates_and_a_dead_fetch_fails():
    nodes = [_recv("r", "x"), NodeDef("y", "Neg", ["r"], "", {"T": F32}),
             NodeDef("z", "Identity", ["y"], "", {"T": F32})]
    ex = _executor(nodes, fetches=["z:0"])
    step = StepContext(rendezvous=LocalRendezvous())
    step.rendezvous.send(_key("x"), None, is_dead=True)
    stats = []
    with pytest.raises(errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"):
        ex.run([], stats, step)
    assert [s.node_name for s in stats] == ["r"]  # Neg and Identity had a dead input: their kernels never ran


def _partition(nodes, device_name):
    return Executor(GraphDef(node=nodes), DeviceBase(device_name, "CPU", np))


def _retval(name, source, index):
    return NodeDef(name, "_Retval", [source], "", {"T": F32, "index": index})


def test_two_partitions_exchange_a_tensor_through_send_and_recv():
    """One step over two devices, as the partitioner cuts it: shared rendezvous, fetches gathered by index."""
    producer = _partition([_const("c", [1.0, 2.0], CPU1), NodeDef("d", "Mul", ["c", "c"], CPU1, {"T": F32}),
                           _send("s", "d", "d:0"), _retval("fetch_c", "c", 0)], CPU1)
    consumer = _partition([_recv("r", "d:0"), NodeDef("e", "Neg", ["r"], CPU0, {"T": F32}),
                           _retval("fetch_e", "e", 1)], CPU0)
    plan = _Plan([consumer, producer], num_fetches=2)
    c, e = plan.run([])
    np.testing.assert_array_equal(c, [1.0, 2.0])
    np.testing.assert_array_equal(e, [-1.0, -4.0])


def test_failing_partition_aborts_the_other_partitions_recv():
    producer = _partition([NodeDef("x", "Placeholder", [], CPU1, {"dtype": F32, "shape": None}),
                           _send("s", "x", "x:0")], CPU1)
    consumer = _partition([_recv("r", "x:0"), NodeDef("e", "Neg", ["r"], CPU0, {"T": F32}),
                           _retval("fetch_e", "e", 0)], CPU0)
    plan = _Plan([consumer, producer], num_fetches=1)
    thread, outcome = _run_in_thread(lambda: plan.run([]))
    thread.join(TIMEOUT)
    kind, error = outcome[0]
    assert kind == "error" and isinstance(error, errors.InvalidArgumentError)
    assert "You must feed a value for placeholder tensor 'x'" in error.message


def test_traced_steps_record_every_kernel_on_both_paths():
    from tensorweave.runtime.step_stats import NodeExecStats

    straight = _executor([_const("a", 1.0), NodeDef("b", "Neg", ["a"], "", {"T": F32}),
                          NodeDef("c", "Neg", ["b"], "", {"T": F32})], fetches=["c:0"])
    assert straight.ordered
    stats: list[NodeExecStats] = []
    assert straight.run([], stats) == [1.0]
    assert [(s.node_name, s.op) for s in stats] == [("a", "Const"), ("b", "Neg"), ("c", "Neg"),
                                                    ("_retval_c_0_0", "_Retval")]  # as TF lists a step

    dataflow = _executor([_recv("r", "x"), NodeDef("y", "Neg", ["r"], "", {"T": F32})], fetches=["y:0"])
    step = StepContext(rendezvous=LocalRendezvous())
    step.rendezvous.send(_key("x"), np.float32(1.0))
    stats = []
    assert dataflow.run([], stats, step) == [-1.0]
    assert sorted(s.node_name for s in stats) == ["_retval_y_0_0", "r", "y"]


def test_the_waiting_caller_of_a_step_runs_expensive_work_that_other_threads_make_ready():
    """A step over partitions: its caller waits for them, and two expensive kernels a Send makes ready on
    another thread run on the caller instead of queueing behind a busy inter-op pool: the first handed to it,
    the second claimed from the pool's queue once the caller is free again."""
    from concurrent.futures import ThreadPoolExecutor

    pool, release = ThreadPoolExecutor(1), threading.Event()
    pool_thread = pool.submit(lambda: (release.wait(), threading.get_native_id())[1])  # busy until released
    matmuls = [NodeDef(name, "MatMul", ["r", "r"], CPU0, {"T": F32, "transpose_a": False, "transpose_b": False})
               for name in ("m1", "m2")]
    executor = Executor(GraphDef(node=[_recv("r", "x"), *matmuls, _retval("fetch_m1", "m1", 0),
                                       _retval("fetch_m2", "m2", 1)]), DeviceBase(CPU0, "CPU", np), pool=pool)
    step, frame, stats = StepContext(rendezvous=LocalRendezvous()), CallFrame([]), [[]]
    caller, outcome = _run_in_thread(lambda: run_partitions([executor], [frame], step, stats))
    try:
        time.sleep(0.2)  # the caller waits for the partitions
        step.rendezvous.send(_key("x"), np.eye(2, dtype=np.float32))
        caller.join(TIMEOUT)  # the step is done while the pool is still busy
        assert outcome == [("ok", None)]
        ran = {record.node_name: record.thread_id for record in stats[0] if record.op == "MatMul"}
        assert ran == {"m1": caller.native_id, "m2": caller.native_id}
    finally:
        release.set()
        caller.join(TIMEOUT)
        pool.shutdown()
    np.testing.assert_array_equal(frame.rets[1], np.eye(2))
    assert pool_thread.result() not in ran.values()


def test_an_expensive_kernel_alone_runs_inline_while_other_recvs_wait():
    """Recvs that wait hold no thread and run nothing: an expensive kernel that is the only work runs on the
    thread that made it ready, with no hop to the pool."""
    from concurrent.futures import ThreadPoolExecutor

    matmul = NodeDef("m", "MatMul", ["r", "r"], CPU0, {"T": F32, "transpose_a": False, "transpose_b": False})
    with ThreadPoolExecutor(1) as pool:
        executor = Executor(GraphDef(node=[_recv("r", "x"), _recv("q", "y"), matmul, _retval("fetch_m", "m", 0),
                                           _retval("fetch_q", "q", 1)]), DeviceBase(CPU0, "CPU", np), pool=pool)
        step, frame, stats = StepContext(rendezvous=LocalRendezvous()), CallFrame([]), [[]]
        finished = []
        executor.run_async(frame, step, finished.append, stats[0])
        step.rendezvous.send(_key("x"), np.eye(2, dtype=np.float32))  # the Recv of y still waits
        step.rendezvous.send(_key("y"), np.float32(1.0))
    assert finished == [None]
    assert [record.thread_id for record in stats[0] if record.node_name == "m"] == [threading.get_native_id()]


def test_the_thread_running_a_step_makes_the_blocking_call_a_recv_offers():
    """A rendezvous that waits on a remote reply offers its blocking call to the step's runner: the thread that
    runs the step makes it (no thread hop) when it would only wait; an offer while it has one is refused, as
    is any once the step is done."""
    runner, callers, refused = StepRunner(None), [], []

    class Remote(LocalRendezvous):
        def recv_async(self, key, callback):
            def blocking():
                callers.append(threading.get_ident())
                callback(None, np.float32(2.0), False)

            if not runner.offer(blocking):
                refused.append(key)
                super().recv_async(key, callback)

    ex = _executor([_recv("a", "x"), _recv("b", "y"), NodeDef("s", "Add", ["a", "b"], "", {"T": F32})],
                   fetches=["s:0"])
    step, frame = StepContext(rendezvous=Remote()), CallFrame([])
    caller, outcome = _run_in_thread(lambda: run_partitions([ex], [frame], step, runner=runner))
    deadline = time.monotonic() + TIMEOUT
    while not refused and time.monotonic() < deadline:
        time.sleep(0.01)
    step.rendezvous.send(refused[0], np.float32(5.0))
    caller.join(TIMEOUT)
    assert outcome == [("ok", None)] and frame.rets == [7.0]
    assert callers == [caller.ident] and len(refused) == 1
    assert not runner.offer(lambda: None)
