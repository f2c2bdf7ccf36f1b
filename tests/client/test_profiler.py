"""tf.profiler against TF 2.21: each program below was run under real TF (TF_USE_LEGACY_KERAS=1,
`import tensorflow.compat.v1 as tf`); its stdout (the reports, the returned protos and their serialized
bytes) and stderr lines are recorded in tests/fixtures/profiler/, and tensorweave must print the same."""

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.client import flops_registry, profiler

FIXTURES = Path(__file__).parent.parent / "fixtures" / "profiler"

PROGRAM_A = """\
x = tf.placeholder(tf.float32, [2, 8, 8, 3], name="x")
with tf.variable_scope("conv"):
    w = tf.get_variable("w", [3, 3, 3, 4], initializer=tf.ones_initializer())
    b = tf.get_variable("b", [4], initializer=tf.zeros_initializer())
    y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
    y = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
with tf.variable_scope("fc"):
    w2 = tf.get_variable("w", [64, 10], initializer=tf.ones_initializer())
    z = tf.matmul(tf.reshape(y, [2, 64]), w2)
    loss = tf.reduce_mean(tf.square(z - 1.0))
step = tf.Variable(0, trainable=False, name="step")
g = tf.get_default_graph()
P = tf.profiler.ProfileOptionBuilder
p = tf.profiler.profile(g, options=P.trainable_variables_parameter())
print(type(p).__name__, p.name, p.total_parameters, p.parameters, [c.name for c in p.children])
print(p.children[0].children[0])
f = tf.profiler.profile(g, options=P.float_operation())
print(f.total_float_ops, f.float_ops, len(f.children))
o = tf.profiler.profile(g, cmd="op", options=P.float_operation())
print(type(o).__name__, o.name, o.total_float_ops, [(c.name, c.float_ops, c.total_float_ops, len(c.graph_nodes)) for c in o.children])
o = tf.profiler.profile(g, cmd="op", options=P.trainable_variables_parameter())
print(o.total_parameters, [(c.name, c.parameters) for c in o.children])
opts = P(P.float_operation()).with_max_depth(2).order_by("name").with_node_names(hide_name_regexes=[".*Initializer.*"]).build()
tf.profiler.profile(g, options=opts)
opts = P(P.trainable_variables_parameter()).with_node_names(show_name_regexes=["fc.*"]).account_displayed_op_only(False).build()
tf.profiler.profile(g, options=opts)
opts = P().select(["params", "float_ops"]).with_node_names(start_name_regexes=["conv"]).build()
tf.profiler.profile(g, options=opts)
opts = P(P.trainable_variables_parameter()).with_empty_output().build()
print(tf.profiler.profile(g, options=opts).total_parameters)
print(tf.profiler.profile(g, options=P(P.trainable_variables_parameter()).with_empty_output().build()).SerializeToString().hex())
print(tf.profiler.profile(g, cmd="op", options=P(P.float_operation()).with_empty_output().build()).SerializeToString().hex())
print(tf.profiler.profile(g, cmd="graph", options=P(P.float_operation()).with_empty_output().build()).SerializeToString().hex())
print(P.trainable_variables_parameter())
print(P.float_operation())
print(P.time_and_memory())
print(P().build())
print(P(P.time_and_memory(3, 4, 5, 6, 7, 8, 9)).with_max_depth(3).with_min_memory(1, 2, 3, 4).with_min_execution_time(5, 6, 7).with_min_parameters(8).with_min_occurrence(9).with_min_float_operations(10).with_accounted_types(["a"]).with_node_names(["b"], ["c"], ["d"], ["e"]).account_displayed_op_only(False).with_pprof_output("f").order_by("params").select(["params"]).with_step(2).build())
print(P().with_timeline_output("t").build()["output"], P().with_file_output("o").build()["output"], P().with_stdout_output().build()["output"])
tf.profiler.profile(g, cmd="scope", options=P().select(["params", "occurrence", "op_types"]).with_node_names(show_name_regexes=[".*/w"], trim_name_regexes=["fc"]).order_by("params").build())
tf.profiler.profile(g, cmd="op", options=P().select(["params", "op_types", "occurrence"]).with_accounted_types(["Variable.*", "Placeholder"]).with_node_names(start_name_regexes=["Var.*"]).order_by("params").build())
"""

PROGRAM_B = """\
x = tf.constant(np.ones([4, 6, 6, 2], np.float32), name="x")
w = tf.get_variable("w", [3, 3, 2, 5], initializer=tf.ones_initializer())
dw = tf.get_variable("dw", [3, 3, 2, 2], initializer=tf.ones_initializer())
y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME", name="conv")
d = tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "VALID", name="dconv")
p = tf.nn.avg_pool(d, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="apool")
m = tf.matmul(tf.reshape(y, [4, 45]), tf.ones([45, 7]), name="mm")
bm = tf.matmul(tf.ones([3, 4, 5]), tf.ones([3, 5, 2]), name="bmm")
s = tf.add_n([m, m, m], name="addn")
l = tf.nn.l2_loss(s, name="l2")
sm = tf.nn.softmax(s, name="sm")
r = tf.reduce_sum(p, axis=[1, 2], name="rsum") + tf.reduce_mean(p, name="rmean")
am = tf.argmax(s, 1, name="am")
sq = tf.squared_difference(s, 1.0, name="sqd")
rs = tf.rsqrt(tf.abs(s) + 1.0, name="rsq")
lg = tf.log(tf.abs(s) + 1.0, name="lg")
ng = -s
rc = tf.reciprocal(s + 1.0, name="rc")
mx = tf.maximum(s, 0.5, name="mx")
c3 = tf.nn.conv3d(tf.ones([1, 4, 4, 4, 2]), tf.ones([2, 2, 2, 2, 3]), [1, 1, 1, 1, 1], "VALID", name="c3")
grads = tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(p), [w, dw, x])
mp = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 1, 1, 1], "VALID", name="mpool")
g2 = tf.gradients(tf.reduce_sum(mp), [y])
P = tf.profiler.ProfileOptionBuilder
o = tf.profiler.profile(cmd="op", options=P(P.float_operation()).select(["float_ops", "occurrence", "params"]).build())
print(o.total_float_ops)
tf.profiler.profile(options=P(P.float_operation()).with_min_float_operations(100).with_node_names(trim_name_regexes=["gradients/conv.*"]).build())
tf.profiler.profile(cmd="graph", options=P(P.float_operation()).with_max_depth(3).build())
"""

PROGRAM_C = """\
x = tf.placeholder(tf.float32, [None, 4], name="x")
with tf.variable_scope("dense"):
    w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
    y = tf.nn.softmax(tf.matmul(x, w))
g = tf.get_default_graph()
P = tf.profiler.ProfileOptionBuilder
import os
f = tf.profiler.profile(g, options=P(P.float_operation()).with_file_output(os.path.join(d, "out.txt")).build())
print("file", f.total_float_ops, open(os.path.join(d, "out.txt")).read())
gr = tf.profiler.profile(g, cmd="graph", options=P.trainable_variables_parameter())
print(gr.name, gr.total_parameters, [c.name for c in gr.children])
tf.profiler.profile(g, cmd="graph", options=P().select(["params"]).with_node_names(start_name_regexes=["dense/MatMul"]).build())
tf.profiler.profile(g, cmd="graph", options=P().select(["params", "float_ops"]).with_max_depth(3).build())
sess = tf.Session()
sess.run(tf.global_variables_initializer())
rm = tf.RunMetadata()
sess.run(y, {x: np.ones([5, 4])}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=rm)
f = tf.profiler.profile(g, run_meta=rm, options=P(P.float_operation()).with_empty_output().build())
print("flops with run_meta", f.total_float_ops, [(c.name, c.float_ops) for c in f.children])
a = tf.profiler.advise(g, options={"OperationChecker": {}})
print(type(a).__name__, sorted(a.checkers.keys()))
pf = tf.profiler.Profiler(g)
pf.add_step(0, rm)
r = pf.profile_name_scope(P(P.trainable_variables_parameter()).with_empty_output().build())
print(r.total_parameters)
r = pf.profile_operations(P(P.float_operation()).with_empty_output().build())
print(r.total_float_ops)
print(type(pf.serialize_to_string()))
tf.profiler.write_op_log(g, d)
ol = tf.profiler.OpLogProto.FromString(open(os.path.join(d, "tfprof_log"), "rb").read())
print(sorted((e.name, e.float_ops, list(e.types), len(e.code_def.traces) > 0) for e in ol.log_entries))
print(sorted(n for n in dir(tf.profiler) if not n.startswith("_")))
try:
    tf.profiler.profile(g, cmd="nope")
except tf.errors.InvalidArgumentError as e:
    print("error", repr(e.message))
"""

PROGRAM_D = """\
step = tf.Variable(0, trainable=False, name="step")
s2 = tf.placeholder(tf.float32, [], name="sc")
u = tf.placeholder(tf.float32, None, name="unk")
h = tf.placeholder(tf.float32, [None, 3], name="half")
z = tf.add(u, h, name="z")
c = tf.control_dependencies([z])
with c:
    k = tf.identity(s2, name="k")
P = tf.profiler.ProfileOptionBuilder
tf.profiler.profile(options=P().select(["params", "input_shapes"]).build())
o = tf.profiler.profile(cmd="graph", options=P().select(["params", "input_shapes"]).build())
print(o)
tf.profiler.profile(cmd="op", options=P().select(["params", "input_shapes"]).build())
"""



def _run(program: str, tmp_path: Path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with tf.Graph().as_default(), redirect_stdout(out), redirect_stderr(err):
        exec(program, {"tf": tf, "np": np, "d": str(tmp_path), "__name__": "prog"})  # noqa: S102
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name, program", [
    ("a", PROGRAM_A),  # scope/op/graph views of params and flops, filters, protos' bytes, the builder's dicts
    ("b", PROGRAM_B),  # every flops rule (convs, pools, matmuls, reductions, elementwise, their gradients)
    ("c", PROGRAM_C),  # file output, graph view, run_meta filling shapes, advise, Profiler, write_op_log
    ("d", PROGRAM_D),  # scalar and unknown shapes, control inputs, input_shapes in every view
])
def test_program_prints_what_tf_prints(name: str, program: str, tmp_path: Path) -> None:
    out, err = _run(program, tmp_path)
    assert out == (FIXTURES / f"{name}.tf.out").read_text()
    assert err == (FIXTURES / f"{name}.tf.err").read_text()


def test_formats_as_tfprof() -> None:
    assert [profiler.format_number(n) for n in (0, 999, 1000, 31292, 16039999, 2500000000)] == [
        "0", "999", "1.00k", "31.29k", "16.04m", "2.50b"]
    assert [profiler.format_time(n) for n in (7, 83280, 2500000)] == ["7us", "83.28ms", "2.50sec"]
    assert [profiler.format_memory(n) for n in (4, 160000, 320010, 2000000)] == ["4B", "160.00KB", "320.01KB",
                                                                                  "2.00MB"]


def test_incomplete_shape_raises_and_unknown_type_has_no_rule() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.matmul(x, tf.ones([3, 2]))
        with pytest.raises(ValueError):
            flops_registry.float_ops(y.op)
        assert flops_registry.float_ops(tf.identity(x).op) is None
        nchw = tf.nn.max_pool(tf.ones([1, 2, 4, 4]), [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW")
        with pytest.raises(ValueError, match="Only NHWC format"):
            flops_registry.float_ops(nchw.op)


def test_unknown_cmd_is_invalid_argument() -> None:
    with tf.Graph().as_default(), redirect_stderr(io.StringIO()):
        with pytest.raises(tf.errors.InvalidArgumentError, match="unknown cmd: nope"):
            tf.profiler.profile(cmd="nope")


def test_time_and_memory_from_a_traced_step(capsys: pytest.CaptureFixture[str]) -> None:
    with tf.Graph().as_default() as g:
        a = tf.Variable(tf.ones([20, 20]), name="a")
        c = tf.reduce_sum(tf.matmul(a, a, name="mm"), name="s")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rm = tf.RunMetadata()
            sess.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=rm)
        opts = tf.profiler.ProfileOptionBuilder.time_and_memory(min_micros=0, min_bytes=0)
        scope = tf.profiler.profile(g, run_meta=rm, options=opts)
        by_name = {child.name: child for child in scope.children}
        assert by_name["mm"].run_count == 1 and by_name["mm"].requested_bytes == 1600
        assert by_name["mm"].devices == ["/job:localhost/replica:0/task:0/device:cpu:0"]
        assert scope.total_exec_micros == sum(child.total_exec_micros for child in scope.children)
        op = tf.profiler.profile(g, run_meta=rm, cmd="op", options=opts)
        assert isinstance(op, tf.profiler.MultiGraphNodeProto) and op.total_requested_bytes >= 1600
        report = capsys.readouterr().out
        assert "node name | requested bytes | total execution time | accelerator execution time | " \
               "cpu execution time\n_TFProfRoot (--/" in report
        assert "\nMatMul " in report and "1.60KB (" in report
        pf = tf.profiler.Profiler(g)
        pf.add_step(3, rm)
        graph_view = pf.profile_graph(tf.profiler.ProfileOptionBuilder(opts).with_step(3).with_empty_output().build())
        assert graph_view.children[0].name == "s"
        assert tf.profiler.GraphNodeProto.FromString(graph_view.SerializeToString()) == graph_view


def test_advise_reports_the_most_expensive_op_types(capsys: pytest.CaptureFixture[str]) -> None:
    with tf.Graph().as_default() as g:
        a = tf.Variable(tf.ones([20, 20]), name="a")
        c = tf.reduce_sum(tf.matmul(a, a, name="mm"), name="s")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rm = tf.RunMetadata()
            sess.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=rm)
        advice = tf.profiler.advise(g, run_meta=rm)
    assert sorted(advice.checkers) == ["AcceleratorUtilizationChecker", "ExpensiveOperationChecker",
                                       "OperationChecker"]
    top = advice.checkers["ExpensiveOperationChecker"].reports[0].split("\n")
    assert len(top) == 3 and all(line.startswith(f"top {i + 1} operation type: ") for i, line in enumerate(top))
    assert "\nExpensiveOperationChecker:\ntop 1 operation type: " in capsys.readouterr().out


def _layer(x: object, n: int, name: str) -> object:
    w = tf.get_variable(name, [x.shape[1], n], initializer=tf.ones_initializer())
    return tf.matmul(x, w)


def test_code_view_is_the_call_stack(capsys: pytest.CaptureFixture[str]) -> None:
    # TF 2.21 prints `tf_t_f.py:7:<module> (0/48 flops)` / `  tf_t_f.py:5:layer (0/48 flops)` / then its own
    # frames down to the op; tensorweave's traces hold the user's frames only, so the op sits on the layer line.
    with tf.Graph().as_default():
        y = _layer(tf.ones([2, 4]), 3, "w1")
        _layer(y, 2, "w2")
        opts = tf.profiler.ProfileOptionBuilder.float_operation()
        code = tf.profiler.profile(cmd="code", options=opts)
    assert isinstance(code, tf.profiler.MultiGraphNodeProto) and code.total_float_ops == 72
    lines = capsys.readouterr().out.split("Profile:\n")[1].split("\n")
    assert lines[1] == "_TFProfRoot (--/72 flops)"
    for flops in (48, 24):  # one node per call site in the test, the op on the layer's line below it
        at = next(i for i, line in enumerate(lines) if f":test_code_view_is... (0/{flops} flops)" in line)
        indent = lines[at].index("test_profiler.py:")
        assert lines[at + 1].startswith(" " * (indent + 2) + "test_profiler.py:")
        assert lines[at + 1].endswith(f":_layer ({flops}/{flops} flops)")
    holders = []
    pending = [code]
    while pending:
        node = pending.pop()
        holders += [(node.name.split(":")[-1], g.name) for g in node.graph_nodes if g.float_ops]
        pending += node.children
    assert sorted(holders) == [("_layer", "MatMul"), ("_layer", "MatMul_1")]
