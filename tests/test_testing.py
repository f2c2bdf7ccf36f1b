"""tf.test.TestCase in graph mode: sessions, graph reset between tests, and TF's assertion messages.

Expected messages are recorded from TensorFlow 2.21 running the same TestCase subclasses."""

import io
import unittest

import numpy as np

import tensorweave.compat.v1 as tf


def _run(case: type) -> unittest.TestResult:
    return unittest.TextTestRunner(stream=io.StringIO()).run(unittest.defaultTestLoader.loadTestsFromTestCase(case))


def _failure(case: type) -> str:
    result = _run(case)
    assert len(result.failures) == 1, result.errors
    return result.failures[0][1]


def test_passing_assertions_and_the_reserved_test_session_name_is_skipped():
    class Passing(tf.test.TestCase):
        def test_all(self):
            x = tf.constant([1.0, 2.0])
            self.assertAllClose(x, [1.0, 2.0])
            self.assertAllClose({"a": [1.0], "b": (2.0, 3.0)}, {"a": [1.0], "b": (2.0, 3.0 + 1e-7)})
            self.assertAllEqual(tf.constant([b"a"]), [b"a"])
            self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0009]))
            self.assertNotAllClose([1.0], [2.0])
            self.assertNotAllEqual([1], [2])
            self.assertAllInRange([1, 5], 1, 5)
            self.assertAllInSet([1, 5], {1, 5})
            self.assertAllGreater([4, 5], 3)
            self.assertAllLessEqual([1, 3], 3)
            self.assertNear(1.0, 1.05, 0.1)
            self.assertArrayNear([1.0, 2.0], [1.0, 2.05], 0.1)
            self.assertShapeEqual(np.zeros([2, 3]), tf.placeholder(tf.float32, [2, 3]))
            self.assertDeviceEqual("/cpu:0", "/device:CPU:0")
            self.assertProtoEquals("dim { size: 2 }", tf.TensorShape([2]).as_proto())
            self.assertDTypeEqual(np.int32([1]), np.int32)
            self.assertStartsWith("abc", "ab")
            self.assertItemsEqual([1, 2], [2, 1])
            with self.assertRaisesOpError("must feed"):
                self.evaluate(tf.placeholder(tf.float32))

    result = _run(Passing)
    assert (result.testsRun, len(result.failures), len(result.errors), len(result.skipped)) == (2, 0, 0, 1)


def test_verbose_runner_describes_the_skipped_test_session_with_tfs_deprecation_line():
    """unittest's verbose runner prints a test's first docstring line; TF's `test_session` says it is deprecated."""
    class Empty(tf.test.TestCase):
        pass

    stream = io.StringIO()
    unittest.TextTestRunner(stream=stream, verbosity=2).run(unittest.defaultTestLoader.loadTestsFromTestCase(Empty))
    assert "Use cached_session instead. (deprecated) ... skipped 'Not a test.'" in stream.getvalue()

def test_sessions_graph_reset_and_evaluate():
    seen = {}

    class Sessions(tf.test.TestCase):
        def test_a(self):
            seen["graph"] = tf.get_default_graph()
            tf.constant(1.0)
            with self.cached_session() as first, self.cached_session() as second:
                seen["cached_is_shared"] = first is second
                seen["default"] = tf.get_default_session() is first
            with self.session() as fresh:
                seen["session_is_new"] = fresh is not first
            seen["evaluated"] = self.evaluate({"a": tf.constant([1, 2]), "b": (tf.constant(3.0),)})
            seen["temp"] = self.get_temp_dir() == self.get_temp_dir()

        def test_b(self):
            seen["fresh_graph"] = tf.get_default_graph() is not seen["graph"]
            seen["ops"] = len(tf.get_default_graph().get_operations())
            seen["seed"] = tf.get_default_graph().seed

    result = _run(Sessions)
    assert result.wasSuccessful(), result.failures + result.errors
    evaluated = seen.pop("evaluated")
    del seen["graph"]
    assert evaluated["a"].tolist() == [1, 2] and evaluated["a"].dtype == np.int32
    assert evaluated["b"] == (np.float32(3.0),)
    assert seen == {"cached_is_shared": True, "default": True, "session_is_new": True, "temp": True,
                    "fresh_graph": True, "ops": 0, "seed": 87654321}
    assert tf.get_default_session() is None


def test_assert_all_close_failure_reads_like_tf():
    class Failing(tf.test.TestCase):
        def test_it(self):
            self.assertAllClose({"x": [1.0], "y": (2.0, 3.0)}, {"x": [1.0], "y": (2.0, 3.1)})

    assert ("Not equal to tolerance rtol=1e-06, atol=1e-06\n"
            "Mismatched value: a[y] is different from b[y]. \n"
            "not close where = (array([1]),)\n"
            "not close lhs = [3.]\n"
            "not close rhs = [3.1]\n"
            "not close dif = [0.1]\n"
            "not close tol = [4.1e-06]\n"
            "dtype = float64, shape = (2,)\n") in _failure(Failing)


def test_assert_all_equal_failure_reads_like_tf():
    class Failing(tf.test.TestCase):
        def test_it(self):
            self.assertAllEqual([[1, 2], [3, 4]], [[1, 2], [3, 5]])

    assert ("Arrays are not equal\n\nnot equal where = (array([1]), array([1]))\nnot equal lhs = array([4])\n"
            "not equal rhs = array([5])\n") in _failure(Failing)


def test_other_failure_messages_read_like_tf():
    class Failing(tf.test.TestCase):
        def test_range(self):
            self.assertAllInRange([1, 5, 9], 0, 6)

        def test_set(self):
            self.assertAllInSet([1, 5, 9], [1, 5])

        def test_near(self):
            self.assertNear(1.0, 1.5, 0.1, msg="m")

        def test_not_close(self):
            self.assertNotAllClose([1.0], [1.0])

        def test_starts(self):
            self.assertStartsWith("abc", "b", msg="m")

        def test_shape(self):
            self.assertAllEqual([1, 2], [1, 2, 3])

        def test_op_error_wrong_type(self):
            with self.assertRaisesOpError("xyz"):
                raise ValueError("abc")

    result = _run(Failing)
    messages = {test.id().rsplit(".", 1)[-1]: text for test, text in result.failures}
    assert ("AssertionError: 1 of the 3 element(s) are outside the range [0, 6]. Subscript(s) and value(s) of "
            "the offending elements:\n  [2] : 9") in messages["test_range"]
    assert "AssertionError: 1 unique element(s) are not in the set [1, 5]: [9]" in messages["test_set"]
    assert "False is not true : 1.000000 != 1.500000 +/- 0.100000 (difference: 0.5) (m)" in messages["test_near"]
    assert "AssertionError: The two values are close at all elements. " in messages["test_not_close"]
    assert "AssertionError: 'abc' does not start with 'b' : 'm'" in messages["test_starts"]
    assert ": Shape mismatch: expected (2,), got (3,). Contents: array([1, 2, 3]). \n." in messages["test_shape"]
    assert "AssertionError: Exception of type <class 'ValueError'>: abc" in messages["test_op_error_wrong_type"]


def test_nested_structure_mismatch_raises_value_error():
    class Mismatch(tf.test.TestCase):
        def test_it(self):
            self.assertAllClose({"a": 1}, [1])

    result = _run(Mismatch)
    assert "ValueError: Can't compare dict to non-dict, a vs b. " in result.errors[0][1]


def test_module_queries():
    assert tf.test.is_built_with_cuda() is False
    assert tf.test.is_built_with_gpu_support() is False
    assert isinstance(tf.test.is_gpu_available(), bool)
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if tf.test.is_gpu_available() else "")
    assert tf.test.get_temp_dir() == tf.test.get_temp_dir()


def test_cached_session_rejects_another_graph_and_checked_threads_report_errors():
    class Threads(tf.test.TestCase):
        def test_inconsistent_graph(self):
            with self.cached_session():
                pass
            with self.assertRaisesRegex(ValueError, "^The graph used to get the cached session is different"):
                with self.cached_session(graph=tf.Graph()):
                    pass

        def test_session_with_graph(self):
            graph = tf.Graph()
            with self.session(graph=graph) as sess:
                self.assertIs(sess.graph, graph)
                self.assertIs(tf.get_default_graph(), graph)

        def test_thread_error(self):
            thread = self.checkedThread(target=lambda: 1 / 0)
            thread.start()
            thread.join()

    result = _run(Threads)
    assert [test.id().rsplit(".", 1)[-1] for test, _ in result.failures] == ["test_thread_error"]
    assert "AssertionError: Error in checkedThread: division by zero" in result.failures[0][1]
    assert not result.errors


def test_set_up_inside_a_leftover_graph_block_starts_from_a_fresh_default_graph():
    """A test that failed inside `with g.as_default()` leaves the block open; the next setUp forgets it."""
    class Case(tf.test.TestCase):
        def test_graph(self):
            self.assertEqual(tf.get_default_graph().get_operations(), [])

    leftover = tf.Graph().as_default()
    leftover.__enter__()
    tf.constant(1)
    result = _run(Case)
    assert result.wasSuccessful(), result.failures + result.errors
    assert tf.get_default_graph().get_operations() == []
