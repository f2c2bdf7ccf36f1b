"""The executor on hand-written GraphDefs: both schedules, value freeing, errors naming their node."""

import threading

import numpy as np
import pytest

import tensorweave.compat.v1  # noqa: F401 - registers the ops
from tensorweave import errors
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.executor import Executor, InterOpPool
from tensorweave.runtime.prune import prune

F32 = dtypes.float32


def _const(name, value):
    value = np.asarray(value, dtype=np.float32)
    return NodeDef(name, "Const", [], "", {"value": value, "dtype": F32})


def _executor(graph_def, feeds=(), fetches=(), targets=(), pool=None):
    device = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr())
    types = {name: F32 for name in list(feeds) + list(fetches)}
    return Executor(prune(graph_def, list(feeds), list(fetches), list(targets), types), device, pool=pool)


def _matmul(name, a, b):
    return NodeDef(name, "MatMul", [a, b], "", {"T": F32, "transpose_a": False, "transpose_b": False})


def _matmul_graph(second_input="x"):
    # two independent matmuls, then their sum: the first is launched, the second runs meanwhile
    return GraphDef(node=[
        NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
        _const("w1", np.eye(3) * 2),
        _const("w2", np.eye(3) * 3),
        _matmul("m1", "x", "w1"),
        _matmul("m2", second_input, "w2"),
        NodeDef("s", "AddV2", ["m1", "m2"], "", {"T": F32}),
    ])


def _forced_dataflow(nodes):
    """`nodes` and a Switch and Merge of a constant beside them: control flow takes the dataflow schedule."""
    return nodes + [NodeDef("t", "Const", [], "", {"value": np.array(True), "dtype": dtypes.bool}),
                    NodeDef("sw", "Switch", ["w1", "t"], "", {"T": F32}),
                    NodeDef("mg", "Merge", ["sw:1"], "", {"T": F32, "N": 1})]


def test_ordered_schedule_computes_chain():
    g = GraphDef(node=[_const("a", 2.0), _const("b", 3.0),
                       NodeDef("c", "Mul", ["a", "b"], "", {"T": F32}),
                       NodeDef("d", "AddV2", ["c", "a"], "", {"T": F32})])
    ex = _executor(g, fetches=["d:0", "c:0"])
    assert ex.ordered
    assert ex.run([]) == [8.0, 6.0]


def test_dataflow_schedule_with_pool_matches_numpy():
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        ex = _executor(GraphDef(node=_forced_dataflow(list(_matmul_graph().node))), feeds=["x:0"],
                       fetches=["s:0", "mg:0"], pool=pool)
        assert not ex.ordered
        x = np.arange(9, dtype=np.float32).reshape(3, 3)
        for _ in range(5):
            out, merged = ex.run([x])
            np.testing.assert_allclose(out, x * 5)
            np.testing.assert_allclose(merged, np.eye(3) * 2)


def test_straight_schedule_launches_an_expensive_kernel_until_measured_cheap():
    """Of two matmuls the first goes to the pool while the second runs on the caller, until its measured time
    shows it quicker than a thread hop; the values are the same either way. A pool of one thread launches
    nothing: the caller beside it would run two kernels where the session allows one."""
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    caller = threading.get_native_id()
    with InterOpPool(1) as single:
        stats = []
        _executor(_matmul_graph(), feeds=["x:0"], fetches=["s:0"], pool=single).run([x], stats)
        assert {s.thread_id for s in stats if s.op == "MatMul"} == {caller}
    with InterOpPool(2) as pool:
        ex = _executor(_matmul_graph(), feeds=["x:0"], fetches=["s:0"], pool=pool)
        assert ex.ordered
        threads = []
        for _ in range(3):
            stats = []
            (out,) = ex.run([x], stats)
            np.testing.assert_allclose(out, x * 5)
            threads.append({s.node_name: s.thread_id for s in stats if s.op == "MatMul"})
    assert threads[0]["m1"] != caller and threads[0]["m2"] == caller
    assert threads[1:] == [{"m1": caller, "m2": caller}] * 2


def test_dataflow_schedule_without_pool_runs_inline():
    ex = _executor(_matmul_graph(), feeds=["x:0"], fetches=["s:0", "m1:0"])
    x = np.ones((3, 3), np.float32)
    out, m1 = ex.run([x])
    np.testing.assert_allclose(out, x * 5)
    np.testing.assert_allclose(m1, x * 2)


def test_kernel_error_names_the_node():
    g = GraphDef(node=[
        NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
        _const("w", np.ones((2, 2))),
        NodeDef("bad_matmul", "MatMul", ["x", "w"], "", {"T": F32, "transpose_a": False, "transpose_b": False}),
    ])
    ex = _executor(g, feeds=["x:0"], fetches=["bad_matmul:0"])
    with pytest.raises(errors.InvalidArgumentError) as info:
        ex.run([np.ones((3, 3), np.float32)])
    assert "Matrix size-incompatible: In[0]: [3,3], In[1]: [2,2]" in info.value.message
    assert "{{node bad_matmul}}" in info.value.message
    assert info.value.node_def.name == "bad_matmul"


@pytest.mark.parametrize("dataflow", [False, True])
def test_error_of_a_kernel_on_the_pool_names_the_node(dataflow):
    from concurrent.futures import ThreadPoolExecutor

    nodes = list(_matmul_graph(second_input="w1").node)
    with ThreadPoolExecutor(2) as pool:
        ex = _executor(GraphDef(node=_forced_dataflow(nodes) if dataflow else nodes), feeds=["x:0"],
                       fetches=["s:0"] + (["mg:0"] if dataflow else []), pool=pool)
        assert ex.ordered is not dataflow
        with pytest.raises(errors.InvalidArgumentError, match="node m1"):
            ex.run([np.ones((2, 2), np.float32)])


def test_unfed_placeholder_error():
    g = GraphDef(node=[NodeDef("p", "Placeholder", [], "", {"dtype": F32, "shape": [2, None]})])
    ex = _executor(g, fetches=["p:0"])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"You must feed a value for placeholder tensor 'p' with dtype float and shape \[2,\?\]"):
        ex.run([])


def test_cycle_is_rejected():
    g = GraphDef(node=[NodeDef("a", "Identity", ["b"], "", {"T": F32}),
                       NodeDef("b", "Identity", ["a"], "", {"T": F32})])
    with pytest.raises(errors.InvalidArgumentError, match="not a DAG"):
        _executor(g, fetches=["a:0"])


def test_unregistered_op_is_not_found():
    g = GraphDef(node=[NodeDef("a", "NoSuchOp", [], "", {})])
    with pytest.raises(errors.NotFoundError, match="Op type not registered 'NoSuchOp'"):
        _executor(g, targets=["a"])


@pytest.mark.parametrize("pool", [False, True])
def test_intermediate_values_are_freed_after_last_use(pool):
    """A chain of 10 ops on a 8 MB input never holds more than two new tensors at once."""
    import tracemalloc
    from concurrent.futures import ThreadPoolExecutor

    chain = [NodeDef(f"n{i}", "Neg", [f"n{i - 1}" if i else "x"], "", {"T": F32}) for i in range(10)]
    nodes = [NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None})] + chain
    if pool:
        nodes = _forced_dataflow(nodes + [_const("w1", np.eye(2))])
    with ThreadPoolExecutor(2) as threads:
        ex = _executor(GraphDef(node=nodes), feeds=["x:0"], fetches=["n9:0"] + (["mg:0"] if pool else []),
                       pool=threads)
        assert ex.ordered is not pool
        x = np.ones(2 * 1024 * 1024, np.float32)
        ex.run([x])
        tracemalloc.start()
        tracemalloc.reset_peak()
        result = ex.run([x])
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    np.testing.assert_array_equal(result[0], x)  # ten negations
    assert peak < 2.5 * x.nbytes


def test_concurrent_steps_share_one_plan():
    g = GraphDef(node=[NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
                       _const("two", 2.0), NodeDef("y", "Mul", ["x", "two"], "", {"T": F32})])
    ex = _executor(g, feeds=["x:0"], fetches=["y:0"])
    results = {}

    def worker(i):
        results[i] = [float(ex.run([np.float32(i + k)])[0]) for k in range(200)]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert results[i] == [2.0 * (i + k) for k in range(200)]
