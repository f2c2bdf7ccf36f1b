"""tf.CriticalSection: serialized execution on a mutex resource, with TF 2.21's graph-time checks."""

import threading
import time

import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors


def test_graph_structure_and_checks():
    with tf.Graph().as_default():
        cs = tf.CriticalSection(name="cs")
        assert (cs.name, cs._handle.op.type, cs._handle.dtype) == ("cs", "MutexV2", tf.resource)
        assert cs._handle.op.get_attr("shared_name") == b"cs/"
        assert tf.CriticalSection(shared_name="sh")._handle.op.get_attr("shared_name") == b"sh"
        v = tf.Variable(0.0, use_resource=True)
        r = cs.execute(lambda: v.assign_add(1.0))
        assert (r.op.type, r.dtype, r.shape) == ("Identity", tf.float32, tf.TensorShape([]))
        types = [op.type for op in tf.get_default_graph().get_operations()]
        assert "MutexLock" in types and "ConsumeMutexLock" in types
        assert cs.execute(lambda: v.read_value(), name="ex").name.startswith("ex/")
        assert cs.execute(lambda: 3).dtype == tf.int32
        assert set(cs.execute(lambda: {"a": v.read_value()})) == {"a"}
        with pytest.raises(ValueError, match=r"This execution would access resources: .*Did you mean to call "
                                             "execute with keyword argument exclusive_resource_access=False"):
            tf.CriticalSection().execute(lambda: v.read_value())
        with pytest.raises(ValueError, match=r"Attempting to lock a CriticalSection \(signature=\('', 'cs/', None\)\) "
                                             "in which we are already running. This is illegal and may cause "
                                             "deadlocks."):
            cs.execute(lambda: cs.execute(lambda: 1.0))
        assert tf.get_collection("critical_sections")[0] is cs
        assert len(tf.get_collection("critical_section_executions")) == 4


def test_executions_are_serialized_and_a_failure_releases_the_lock():
    with tf.Graph().as_default():
        v = tf.Variable(0.0, use_resource=True)

        def read_modify_write():
            x = v.read_value()
            with tf.control_dependencies([x]):  # a slow increment: unguarded runs lose updates
                return v.assign(tf.py_func(lambda a: (time.sleep(0.001), a + 1)[1], [x], tf.float32))

        cs = tf.CriticalSection()
        guarded = cs.execute(read_modify_write)

        def failing():
            with tf.control_dependencies([tf.debugging.assert_equal(v.read_value(), -1.0)]):
                return v.read_value()

        bad = cs.execute(failing)
        with tf.Session() as sess:
            sess.run(v.initializer)
            threads = [threading.Thread(target=lambda: [sess.run(guarded) for _ in range(10)]) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sess.run(v) == 40.0
            with pytest.raises(errors.InvalidArgumentError):
                sess.run(bad)
            assert sess.run(guarded) == 41.0  # the failed step gave the lock back
            assert sorted(sess.run([guarded, guarded])) == [42.0, 42.0]  # one execution fetched twice
