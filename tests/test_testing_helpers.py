"""tf.test's module-level helpers: assert_equal_graph_def's diffs (recorded from TF 2.21 on the same graphs,
tests/fixtures/assert_equal_graph_def_tf.txt), the stubs, the decorators and Benchmark."""

import os
import pathlib
import unittest

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

_FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "assert_equal_graph_def_tf.txt"


def _graph_def():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1., 2.], name="a")
        b = tf.placeholder(tf.int32, [None, 3], name="b")
        with tf.control_dependencies([b]):
            tf.identity(a, name="d")
        tf.constant("hi", name="e")
        tf.nn.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([1, 1, 1, 1]), [1, 1, 1, 1], "SAME", name="f")
        tf.nn.leaky_relu(a, 0.25, name="h")
        tf.nn.leaky_relu(a, 123456789.0, name="h3")
        with tf.device("/cpu:0"):
            tf.placeholder(tf.float32, None, name="p")
        tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[], [2]], name="q")
    return g.as_graph_def()


def _diff(actual, expected):
    try:
        tf.test.assert_equal_graph_def(actual, expected)
    except AssertionError as e:
        return str(e)
    return "equal"


def test_assert_equal_graph_def_messages_match_tf():
    gd = _graph_def()
    got = []
    for n in gd.node:  # a missing node and an unexpected one: SummarizeNodeDef of every kind of attr
        one = tf.GraphDef()
        one.node.add().CopyFrom(n)
        got += [_diff(tf.GraphDef(), one), _diff(one, tf.GraphDef())]
    index = {n.name: i for i, n in enumerate(gd.node)}

    def changed(fn):
        x = tf.GraphDef()
        x.CopyFrom(gd)
        fn(x.node)
        x.versions.producer = 1  # versions are never compared
        return _diff(x, gd)

    def tensor_as_float_val(nodes):
        tensor = nodes[index["a"]].attr["value"].tensor
        tensor.ClearField("tensor_content")
        tensor.float_val.extend([1., 2.])

    got += [changed(lambda nodes: nodes[index["d"]].input.append("^e")),
            changed(lambda nodes: nodes[index["d"]].input.__setitem__(1, "^e")),
            changed(lambda nodes: nodes[index["d"]].input.__setitem__(0, "a:0")),
            changed(lambda nodes: nodes[index["d"]].input.__setitem__(0, "a:1")),
            changed(lambda nodes: setattr(nodes[index["a"]].attr["value"].tensor, "tensor_content",
                                          np.float32([3, 2]).tobytes())),
            changed(tensor_as_float_val),
            changed(lambda nodes: setattr(nodes[index["a"]], "device", "/cpu:0")),
            changed(lambda nodes: nodes[index["a"]].attr.pop("dtype")),
            changed(lambda nodes: nodes[index["a"]].attr["_class"].list.s.append(b"loc:@x")),
            changed(lambda nodes: nodes[index["a"]].attr["extra"].list.i.extend([3, 4])),
            changed(lambda nodes: setattr(nodes[index["h"]].attr["alpha"], "f", 0.5)),
            changed(lambda nodes: setattr(nodes[index["f"]].attr["use_cudnn_on_gpu"], "b", False)),
            changed(lambda nodes: nodes.add().CopyFrom(tf.NodeDef(name="z", op="NoOp"))),
            changed(lambda nodes: None)]
    assert got == _FIXTURE.read_text().splitlines()


def test_assert_equal_graph_def_type_errors_and_randomized_names():
    with pytest.raises(TypeError, match="^Expected tf.GraphDef for expected, got int$"):
        tf.test.assert_equal_graph_def(tf.GraphDef(), 1)
    with pytest.raises(TypeError, match="^Expected tf.GraphDef for actual, got int$"):
        tf.test.assert_equal_graph_def(1, tf.GraphDef())

    def saver_graph(shard):
        g = tf.GraphDef()
        node = g.node.add(name="c", op="Const")
        node.attr["value"].tensor.dtype = tf.string.as_datatype_enum
        node.attr["value"].tensor.string_val.append(shard)
        return g

    a, b = saver_graph(b"_temp_" + b"0" * 32 + b"/part"), saver_graph(b"_temp_" + b"f" * 32 + b"/part")
    with pytest.raises(AssertionError, match="has attr 'value'"):
        tf.test.assert_equal_graph_def(a, b)
    tf.test.assert_equal_graph_def(a, b, checkpoint_v2=True)
    assert a.node[0].attr["value"].tensor.string_val  # the caller's GraphDefs are left alone


def test_module_level_queries():
    assert tf.test.is_cpu_target_available("x86") and tf.test.is_cpu_target_available("aarch64")
    config = tf.test.benchmark_config()
    assert isinstance(config, tf.ConfigProto)
    assert str(config) == "graph_options {\n  rewrite_options {\n    dependency_optimization: OFF\n  }\n}\n"
    saved = os.environ.pop("TEST_SRCDIR", None)
    try:
        with pytest.raises(KeyError):
            tf.test.test_src_dir_path("x/y")
        os.environ["TEST_SRCDIR"] = "/src"
        assert tf.test.test_src_dir_path("x/y") == "/src/org_tensorflow/x/y"
    finally:
        os.environ.pop("TEST_SRCDIR", None)
        if saved is not None:
            os.environ["TEST_SRCDIR"] = saved


def test_decorators():
    class Case(tf.test.TestCase):
        @tf.test.disable_with_predicate(pred=lambda: True, skip_message="not here")
        def test_skipped(self):
            raise AssertionError("ran")

        @tf.test.disable_with_predicate(pred=lambda: False, skip_message="not here")
        def test_runs(self):
            pass

    assert tf.test.with_eager_op_as_function(Case) is Case
    assert tf.test.with_eager_op_as_function(only_as_function=True)(Case) is Case
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Case).run(result)
    assert not result.failures and not result.errors
    assert [test.id().rsplit(".", 1)[-1] for test, reason in result.skipped if reason == "not here"] == ["test_skipped"]


class _Holder:
    value = 1

    @staticmethod
    def static():
        return "static"


def test_stub_out_for_testing():
    """As recorded from TF: SmartSet on an instance stubs its class; Set stubs the object it is given."""
    stubs = tf.test.StubOutForTesting()
    stubs.Set(_Holder, "value", 2)
    stubs.Set(_Holder, "static", lambda: "stub")
    instance = _Holder()
    stubs.SmartSet(instance, "value", 3)
    assert (_Holder.value, instance.value, _Holder.static()) == (3, 3, "stub")
    stubs.SmartUnsetAll()
    assert (_Holder.value, instance.value, vars(instance)) == (2, 2, {})
    stubs.UnsetAll()
    assert (_Holder.value, _Holder.static()) == (1, "static")
    stubs.SmartSet(_Holder, "static", lambda: "smart")
    assert _Holder.static() == "smart"
    stubs.CleanUp()
    assert _Holder.static() == _Holder().static() == "static"
    with pytest.raises(AttributeError, match="^Attribute not found.$"):
        stubs.SmartSet(instance, "nope", 1)


def test_benchmark_reports_median_of_timed_runs(caplog):
    class OpBenchmark(tf.test.Benchmark):
        def benchmark_add(self):
            with tf.Graph().as_default(), tf.Session() as sess:
                total = tf.constant(1.0) + 2.0
                values = self.run_op_benchmark(sess, total, burn_iters=1, min_iters=3, mbs=1, extras={"k": 1})
                with sess.as_default():
                    assert self.evaluate(total) == 3.0
            return values

    with caplog.at_level("INFO", logger="tensorflow"):
        values = OpBenchmark().benchmark_add()
    assert set(values) == {"iters", "wall_time", "extras", "name", "throughput"}
    assert values["iters"] == 3 and values["name"] is None and values["wall_time"] > 0
    assert values["throughput"] == pytest.approx(1 / values["wall_time"])
    assert set(values["extras"]) == {"k", "wall_time_mean", "wall_time_stdev"}
    assert "Benchmark [OpBenchmark.benchmark_add] iters: 3, wall_time: " in caplog.text
    with pytest.raises(ValueError, match="Unable to determine calling Benchmark class."):
        tf.test.Benchmark._get_name(object())
    with pytest.raises(TypeError, match="metric must has a 'value' field"):
        OpBenchmark().report_benchmark(metrics=[{"name": "m"}])
