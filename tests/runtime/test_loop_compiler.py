"""Compiled loop frames (runtime/loop_compiler.py): the same values, errors and deadness as the executor's
dataflow schedule of the same frames (which a traced step takes), and the frames left to that schedule."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.executor import Executor
from tensorweave.runtime.prune import prune

I32 = dtypes.int32
_TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def _both_schedules(sess, fetches, feed=None):
    """The fetches from a plain step (compiled loops) and from a traced one (every node scheduled)."""
    fast = sess.run(fetches, feed)
    metadata = tf.RunMetadata()
    slow = sess.run(fetches, feed, options=_TRACED, run_metadata=metadata)
    return fast, slow, metadata


def _loop_frames_compiled(sess, fetches, feed=None):
    """The frame names the session's executors compiled for this step's plan."""
    sess.run(fetches, feed)
    names = set()
    for plan in sess._session._plans.values():
        for executor in plan.executors:
            names.update(executor._loops)
    return names


def test_counting_loop_compiles_and_matches_the_dataflow_schedule():
    n = tf.placeholder(tf.int32, [])
    count, total = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + tf.cast(i, tf.float32) * 0.5),
                                 [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as sess:
        assert _loop_frames_compiled(sess, count, {n: 3}) == {"while/while_context"}
        for value in (0, 1, 7):
            fast, slow, metadata = _both_schedules(sess, [count, total], {n: value})
            assert fast == slow == [value, 0.25 * value * (value - 1)]
        ran = [s.node_name for d in metadata.step_stats.dev_stats for s in d.node_stats]
        assert ran.count("while/add") == 7  # the traced step scheduled every iteration's nodes


def test_gradients_tensor_arrays_invariants_and_nesting_match():
    x = tf.placeholder(tf.float32, [3])
    w = tf.constant([0.5, -1.0, 2.0])

    def body(i, v, ta):
        v = tf.tanh(v * w + tf.cast(i, tf.float32))
        return i + 1, v, ta.write(i, v)

    _, final, ta = tf.while_loop(lambda i, v, ta: i < 4, body,
                                 [tf.constant(0), x, tf.TensorArray(tf.float32, size=4)])
    stacked = ta.stack()
    loss = tf.reduce_sum(stacked * stacked) + tf.reduce_sum(final)
    (grad,) = tf.gradients(loss, [x])

    def outer(k, acc):
        return k + 1, tf.while_loop(lambda j, a: j < k, lambda j, a: (j + 1, a + 2), [tf.constant(0), acc])[1]

    nested = tf.while_loop(lambda k, a: k < 4, outer, [tf.constant(0), tf.constant(0)])[1]
    capped = tf.while_loop(lambda v: v < 1000, lambda v: v + 1, [tf.constant(0)], maximum_iterations=7)
    feed = {x: np.array([0.1, -0.2, 0.3], np.float32)}
    with tf.Session() as sess:
        compiled = _loop_frames_compiled(sess, [stacked, grad, nested, capped], feed)
        assert {"while/while_context", "gradients/while/while_context", "while_1/while/while_context",
                "while_1/while_context", "while_2/while_context"} <= compiled  # the outer loop calls the inner
        fast, slow, _ = _both_schedules(sess, [stacked, grad, nested, capped], feed)
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
    assert fast[2:] == [12, 7]


def test_conds_around_and_inside_loops():
    p = tf.placeholder(tf.bool, [])
    in_cond = tf.cond(p, lambda: tf.while_loop(lambda v: v < 10, lambda v: v + 3, [tf.constant(0)]),
                      lambda: tf.constant(-1))
    with_cond = tf.while_loop(lambda v: v < 20, lambda v: tf.cond(v < 5, lambda: v + 1, lambda: v * 2),
                              [tf.constant(0)])
    with tf.Session() as sess:
        compiled = _loop_frames_compiled(sess, [in_cond, with_cond], {p: True})
        assert {"cond/while/while_context", "while/while_context"} <= compiled
        for taken in (True, False):  # untaken, the compiled loop's Enters are all dead and so are its Exits
            fast, slow, _ = _both_schedules(sess, [in_cond, with_cond], {p: taken})
            assert fast == slow == [12 if taken else -1, 20]


def test_conds_in_a_body_and_their_gradients_run_only_the_taken_side():
    x = tf.placeholder(tf.float32, [3])
    table = tf.constant([1.0, 2.0, 3.0])

    def body(i, v, side):
        # nested conds (tf.case), a branch that would fail if it ran (an index past the table), an empty branch
        v = tf.case([(i < 2, lambda: tf.tanh(v) * 2.0), (tf.reduce_sum(v) > 0, lambda: v - table[i])],
                    default=lambda: v * 0.5)
        picked = tf.cond(i < 3, lambda: tf.gather(table, i), lambda: tf.gather(table, i + 10, name="past"))
        side = tf.cond(i > 4, lambda: side, lambda: side + picked)
        return i + 1, v, side

    _, out, side = tf.while_loop(lambda i, v, s: i < 6, body, [tf.constant(0), x, tf.constant(0.0)])
    (grad,) = tf.gradients(tf.reduce_sum(out * out), x)
    _, _, early = tf.while_loop(lambda i, v, s: i < 3, body, [tf.constant(0), x, tf.constant(0.0)])
    with tf.Session() as sess:
        compiled = _loop_frames_compiled(sess, [out, grad, early], {x: [1.0, 2.0, 3.0]})
        assert {"while/while_context", "gradients/while/while_context", "while_1/while_context"} <= compiled
        for value in ([0.5, -0.2, 0.1], [-3.0, 0.2, 0.1]):
            fast, slow, _ = _both_schedules(sess, [out, grad, early], {x: value})
            for a, b in zip(fast, slow):
                np.testing.assert_array_equal(a, b)
            assert fast[2] == 6.0  # the side that would fail never ran
            for options in (None, _TRACED):  # i = 3 takes it
                with pytest.raises(errors.InvalidArgumentError, match=r"indices = 13 is not in \[0, 3\)") as info:
                    sess.run(side, {x: value}, options=options)
                assert info.value.node_def.name == "while/cond/past"


def test_conds_in_a_predicate_and_side_effects_in_a_side():
    in_predicate = tf.while_loop(lambda i: tf.cond(i < 3, lambda: tf.constant(True), lambda: i < 7),
                                 lambda i: i + 1, [tf.constant(0)])
    v = tf.Variable(0.0, use_resource=False)

    def body(i):
        update = tf.cond(i % 2 > 0, lambda: tf.assign_add(v, 1.0), lambda: tf.identity(v))
        with tf.control_dependencies([update]):
            return i + 1

    counted = tf.while_loop(lambda i: i < 7, body, [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert {"while/while_context", "while_1/while_context"} <= _loop_frames_compiled(sess, [in_predicate, counted])
        fast, slow, _ = _both_schedules(sess, [in_predicate, counted])
        assert fast == slow == [7, 7]
        assert sess.run(v) == 9.0  # three odd iterations in each of three steps


def test_nested_loops_inside_conds_their_gradients_and_errors():
    n = tf.placeholder(tf.int32, [])
    table = tf.constant([1.0, 2.0, 3.0])

    def outer(k, acc):
        def inner():  # a loop in a cond's side
            return tf.while_loop(lambda j, a: j < k, lambda j, a: (j + 1, a + tf.gather(table, j, name="lookup")),
                                 [tf.constant(0), acc])[1]
        return k + 1, tf.cond(k % 2 > 0, inner, lambda: acc - 1.0)

    total = tf.while_loop(lambda k, a: k < n, outer, [tf.constant(0), tf.constant(0.0)])[1]
    counted = tf.while_loop(lambda k, a: k < 3, lambda k, a: (k + 1, tf.while_loop(
        lambda j, b: j < k, lambda j, b: (j + 1, b + 2), [tf.constant(0), a])[1]), [tf.constant(0), tf.constant(0)])[1]
    with tf.Session() as sess:
        assert {"while/while_context", "while/cond/while/while_context", "while_1/while_context"} <= \
            _loop_frames_compiled(sess, [total, counted], {n: 3})
        for value in (0, 3, 4, 5):
            fast, slow, _ = _both_schedules(sess, [total, counted], {n: value})
            assert fast == slow == [{0: 0.0, 3: -1.0, 4: 5.0, 5: 4.0}[value], 6]
        x = tf.placeholder(tf.float32, [3])
        grown = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.while_loop(
            lambda j, u: j < i + 1, lambda j, u: (j + 1, tf.tanh(u * 1.5 + tf.cast(j, tf.float32))), [0, v])[1]),
            [tf.constant(0), x])[1]
        unrolled = x
        for i in range(3):
            for j in range(i + 1):
                unrolled = tf.tanh(unrolled * 1.5 + float(j))
        grads = tf.gradients(tf.reduce_sum(grown * grown), x) + tf.gradients(tf.reduce_sum(unrolled * unrolled), x)
        assert {"while_2/while_context", "gradients/while_2/while_context"} <= _loop_frames_compiled(
            sess, grads, {x: [0.3, -0.2, 0.5]})
        fast, slow, _ = _both_schedules(sess, grads, {x: [0.3, -0.2, 0.5]})
        np.testing.assert_array_equal(fast[0], slow[0])
        np.testing.assert_allclose(fast[0], fast[1], rtol=1e-5)
        for options in (None, _TRACED):  # k = 5 reads past the table (k = 4 takes the other side)
            with pytest.raises(errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)") as info:
                sess.run(total, {n: 6}, options=options)
            assert info.value.node_def.name == "while/cond/while/lookup"


def test_an_error_in_an_iteration_names_its_node():
    table = tf.constant([1.0, 2.0, 3.0])
    looked_up = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + tf.gather(table, i, name="lookup")),
                              [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as sess:
        for options in (None, _TRACED):
            with pytest.raises(errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)") as info:
                sess.run(looked_up, options=options)
            assert info.value.node_def.name == "while/lookup"


def test_mixed_dead_and_live_enters_fall_back_to_the_dataflow_schedule():
    # a loop whose invariant enters dead (from an untaken Switch output) and whose counter enters live: the
    # dataflow rules make the predicate, and so every Exit, dead
    def node(name, op, inputs, **attr):
        return NodeDef(name, op, inputs, "", attr)

    frame = {"T": I32, "frame_name": b"loop", "parallel_iterations": 10}
    g = GraphDef(node=[
        node("p", "Const", [], value=np.bool_(False), dtype=dtypes.bool),
        node("zero", "Const", [], value=np.int32(0), dtype=I32),
        node("limit", "Const", [], value=np.int32(3), dtype=I32),
        node("sw", "Switch", ["limit", "p"], T=I32),
        node("enter_limit", "Enter", ["sw:1"], is_constant=True, **frame),
        node("enter_i", "Enter", ["zero"], is_constant=False, **frame),
        node("merge", "Merge", ["enter_i", "next"], T=I32, N=2),
        node("less", "Less", ["merge", "enter_limit"], T=I32),
        node("cond", "LoopCond", ["less"]),
        node("switch", "Switch", ["merge", "cond"], T=I32),
        node("body", "Identity", ["switch:1"], T=I32),
        node("next", "NextIteration", ["body"], T=I32),
        node("exit", "Exit", ["switch"], T=I32),
        node("after", "Merge", ["exit", "zero"], T=I32, N=2),
    ])
    device = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr())
    ex = Executor(prune(g, [], ["after:0", "after:1"], [], {"after:0": I32, "after:1": I32}), device)
    assert "loop" in ex._loops
    assert ex.run([]) == ex.run([], stats=[]) == [0, 1]


def _straight(sess):
    return [executor.ordered for plan in sess._session._plans.values() for executor in plan.executors]


def test_a_step_whose_loops_all_compile_runs_straight_with_each_loop_as_one_line():
    """Loops entered from the root, one feeding the next (a loop and its gradient's), run on the straight-line
    path; a cond at the root keeps a step on the dataflow path. Values as the traced dataflow schedule's."""
    x = tf.placeholder(tf.float32, [3])
    _, final = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * 2.0), [tf.constant(0), x])
    gradient = tf.gradients(tf.reduce_sum(final), x)[0]
    feed = {x: [0.1, -0.2, 0.3]}
    with tf.Session() as sess:
        fast, slow, _ = _both_schedules(sess, [final, gradient], feed)
        assert _straight(sess) == [True]
        np.testing.assert_array_equal(fast[0], slow[0])
        np.testing.assert_array_equal(fast[1], slow[1])
    chosen = tf.cond(x[0] > 0, lambda: final, lambda: -final)
    with tf.Session() as sess:
        fast, slow, _ = _both_schedules(sess, chosen, feed)
        assert _straight(sess) == [False]
        np.testing.assert_array_equal(fast, slow)


def test_a_ref_variables_read_entering_a_loop_sees_its_assigns():
    """TF's `Variable/read` aliases the variable's buffer: each iteration's `w * 2` reads the last assign (TF 2.21: 8.0)."""
    w = tf.Variable(1.0)

    def body(i):
        with tf.control_dependencies([w.assign(w * 2)]):
            return tf.identity(i + 1)
    loop = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)], parallel_iterations=1)
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert _loop_frames_compiled(sess, loop) == {"while/while_context"}
        assert sess.run(w) == 8.0
