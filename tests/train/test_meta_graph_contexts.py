"""Meta graphs carrying control flow and queue runners: the "while_context" and "cond_context" collections
(WhileContextDef, CondContextDef with their ValuesDefs) and "queue_runners" (QueueRunnerDef), as TF writes
and rebuilds them, so an imported while_loop is differentiated and an imported QueueRunner runs.

tests/fixtures/tf_while_cond_queue.meta was written by TF 2.21 from `_program` below; the values are TF's
for that graph, and TF 2.21 imports the files we write with the same results.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos

TF_META = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf_while_cond_queue.meta"
# y and dy/dx at x = [1.5, 2] and at x = [30, -2], as TF 2.21 computes them on the fixture.
EXPECTED = [([10.125, 32.0], [27.0, 64.0]), ([450.0, 2.0], [30.0, -2.0])]
_PROTO_TYPES = {"while_context": protos.WhileContextDef, "cond_context": protos.CondContextDef,
                "queue_runners": protos.QueueRunnerDef}


def _program() -> tf.Graph:
    """A loop with a cond inside, a cond after it, and a queue runner."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")

        def body(i: tf.Tensor, a: tf.Tensor) -> tuple:
            return i + 1, tf.cond(a[0] > 100.0, lambda: a * 0.5, lambda: a * x)

        _, r = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), x], name="loop")
        y = tf.identity(tf.cond(r[1] > 0, lambda: r * 2.0, lambda: r), name="y")
        tf.add_to_collection("outputs", y)
        q = tf.FIFOQueue(4, [tf.float32], shapes=[[]], name="q")
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue([1.0])]))
    return g


def _collections(meta: object) -> dict[str, list]:
    return {key: [proto_type.FromString(v) for v in meta.collection_def[key].bytes_list.value]
            for key, proto_type in _PROTO_TYPES.items()}


def test_export_writes_the_contexts_and_queue_runners_as_tf() -> None:
    with _program().as_default():
        ours = tf.train.export_meta_graph()
    theirs = protos.MetaGraphDef.FromString(TF_META.read_bytes())
    assert _collections(ours) == _collections(theirs)
    loop = _collections(ours)["while_context"][0]
    assert (loop.context_name, loop.pivot_name, loop.loop_exit_names, len(loop.nested_contexts)) == (
        "loop/while_context", "loop/LoopCond:0", ["loop/Exit:0", "loop/Exit_1:0"], 2)
    assert loop.nested_contexts[0].cond_ctxt.context_name == "loop/cond/cond_text"


@pytest.mark.parametrize("scope", [None, "imported"])
@pytest.mark.parametrize("source", ["tf", "ours"])
def test_an_imported_loop_is_differentiated(tmp_path: pathlib.Path, source: str, scope: str | None) -> None:
    meta = str(TF_META)
    if source == "ours":
        meta = str(tmp_path / "ours.meta")
        with _program().as_default():
            tf.train.export_meta_graph(meta)
    prefix = scope + "/" if scope else ""
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta, import_scope=scope)
        loops, branches = tf.get_collection("while_context"), tf.get_collection("cond_context")
        assert [type(c).__name__ for c in loops] == ["WhileContext"]
        assert [c.name for c in branches] == [prefix + "cond/cond_text", prefix + "cond/cond_text_1"]
        enter = g.get_operation_by_name(prefix + "loop/Enter")
        assert enter._get_control_flow_context() is loops[0]
        assert enter.get_attr("frame_name") == (prefix + "loop/while_context").encode()
        assert g.get_operation_by_name(prefix + "loop/cond/mul")._get_control_flow_context().outer_context \
            is loops[0]
        x, y = g.get_tensor_by_name(prefix + "x:0"), tf.get_collection("outputs")[0]
        dx = tf.gradients(y, x)[0]
        with tf.Session() as sess:
            for value, (want_y, want_dx) in zip([[1.5, 2.0], [30.0, -2.0]], EXPECTED):
                got_y, got_dx = sess.run([y, dx], {x: value})
                np.testing.assert_allclose(got_y, want_y)
                np.testing.assert_allclose(got_dx, want_dx)


def test_an_imported_queue_runner_runs() -> None:
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(str(TF_META), import_scope="in")
        (runner,) = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert (runner.name, [op.name for op in runner.enqueue_ops], runner.close_op.name, runner.cancel_op.name,
                runner.queue_closed_exception_types) == ("in/q", ["in/q_enqueue"], "in/q_Close", "in/q_Close_1",
                                                         (tf.errors.OutOfRangeError,))
        dequeue = g.get_operation_by_name("in/q").outputs[0]
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            from_queue = tf.raw_ops.QueueDequeueV2(handle=dequeue, component_types=[tf.float32])
            assert sess.run(from_queue) == [1.0]
            coord.request_stop()
            coord.join(threads)


def test_export_scope_keeps_only_the_contexts_inside() -> None:
    with _program().as_default():
        meta = tf.train.export_meta_graph(export_scope="loop")
    collections = _collections(meta)
    assert [c.context_name for c in collections["while_context"]] == ["while_context"]
    assert collections["cond_context"] == collections["queue_runners"] == []
    with pytest.raises(ValueError, match="queue_runner_def and queue are mutually exclusive."):
        tf.train.QueueRunner(queue="q", queue_runner_def=protos.QueueRunnerDef())
