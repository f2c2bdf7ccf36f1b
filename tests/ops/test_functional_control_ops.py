"""TF2's functional If, While and Case kernels on a graph real TF 2.21 wrote (control_flow_v2.pbtxt: with
control flow v2 enabled, `switch_case` builds a StatelessCase, `tf.cond` a StatelessIf and `tf.while_loop`
a StatelessWhile counting n up to i while acc = 2 * acc + x)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.ops import def_function, functional_control_ops
from tests.op_testing import check_gradient

_FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "functions", "control_flow_v2.pbtxt")


def _imported() -> tf.Graph:
    with open(_FIXTURE) as f:
        graph_def = text_format.Parse(f.read(), protos.GraphDef())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
    return g


def test_functional_control_flow_of_a_tf_graph_runs_as_tf():
    g = _imported()
    assert [o.type for o in g.get_operations() if o.type.startswith("Stateless")] == [
        "StatelessCase", "StatelessIf", "StatelessWhile"]
    assert [t.shape.as_list() for t in g.get_operation_by_name("loop").outputs] == [[], [], [], [None], [], [None]]
    fetches = ["switch_case/indexed_case/Identity:0", "cond/Identity:0", "loop/Identity_2:0", "loop/Identity_3:0"]
    expected = {0: [[2., 4.], [-9., -8.], 0, [1., 2.]], 1: [[2., 3.], [10., 20.], 1, [3., 6.]],
                2: [[4., 5.], [10., 20.], 2, [7., 14.]], 7: [[4., 5.], [10., 20.], 7, [255., 510.]],
                -1: [[4., 5.], [-9., -8.], 0, [1., 2.]]}  # TF's values
    with tf.Session(graph=g) as sess:
        for i, want in expected.items():
            assert [v.tolist() for v in sess.run(fetches, {"i:0": i, "x:0": [1., 2.]})] == want


def _traced(fn, *specs):
    """A library function of the default graph traced from `fn` on placeholders of these specs; its name."""
    concrete = tf.function(fn).get_concrete_function(*[tf.placeholder(d, s) for d, s in specs])
    def_function.add_to_library(concrete.graph, concrete.name, tf.get_default_graph())
    return concrete.name


def test_if_reads_conditions_as_tf_and_while_runs_until_false():
    with tf.Graph().as_default():
        then_fn = _traced(lambda x: x + 1.0, (tf.float32, []))
        else_fn = _traced(lambda x: x - 1.0, (tf.float32, []))
        x = tf.constant(5.0)
        conds = [tf.constant(0), tf.constant(3), tf.constant(b""), tf.constant(b"a"), tf.zeros([0]), tf.zeros([2])]
        ifs = [functional_control_ops.StatelessIf(c, [x], Tout=[tf.float32], then_branch=then_fn,
                                                  else_branch=else_fn)[0] for c in conds]
        cond = _traced(lambda n, acc: n < 4, (tf.int32, []), (tf.float32, []))
        body = _traced(lambda n, acc: (n + 1, acc * 2.0), (tf.int32, []), (tf.float32, []))
        loop = functional_control_ops.While([tf.constant(0), tf.constant(1.0)], cond=cond, body=body)
        assert [t.shape.as_list() for t in loop] == [[], []]
        with tf.Session() as sess:
            assert sess.run(ifs) == [4.0, 6.0, 4.0, 6.0, 4.0, 6.0]
            assert sess.run(loop) == [4, 16.0]


def test_gradient_of_an_imported_stateless_if_is_tfs():
    g = _imported()  # cond: 10 * x when i > 0, else x - 10
    with g.as_default():
        x = g.get_tensor_by_name("x:0")
        dx, = tf.gradients(g.get_tensor_by_name("cond/Identity:0") * tf.constant([3., 5.]), [x])
        assert dx.op.type == "Identity" and dx.op.inputs[0].op.type == "StatelessIf"  # as TF's
    with tf.Session(graph=g) as sess:
        got = {i: sess.run(dx, {"i:0": i, "x:0": [1., 2.]}).tolist() for i in (0, 1, 7)}
    assert got == {0: [3., 5.], 1: [30., 50.], 7: [30., 50.]}  # TF's values


@pytest.mark.parametrize("taken", [True, False])
@pytest.mark.parametrize("stateful", [True, False])
def test_if_gradient_by_both_branches_checks_numerically(taken, stateful):
    def build(cond, x, y):
        then_fn = _traced(lambda a, b: (a * a * b, tf.reduce_sum(b)), (tf.float32, [2]), (tf.float32, [2]))
        else_fn = _traced(lambda a, b: (tf.sin(a) + b, tf.reduce_sum(a * b)), (tf.float32, [2]), (tf.float32, [2]))
        op = functional_control_ops.If if stateful else functional_control_ops.StatelessIf
        return op(cond, [x, y], Tout=[tf.float32, tf.float32], then_branch=then_fn, else_branch=else_fn,
                  output_shapes=[[2], []])

    check_gradient(build, [np.array(taken), np.array([0.5, -1.5], np.float32),
                           np.array([2., 0.7], np.float32)])


def test_gradient_of_an_imported_stateless_while_is_tfs():
    g = _imported()  # acc = 2 * acc + x while n < i, from x: d acc / dx = 2^(i+1) - 1
    with g.as_default():
        x = g.get_tensor_by_name("x:0")
        dx, = tf.gradients(g.get_tensor_by_name("loop/Identity_3:0") * tf.constant([3., 5.]), [x])
    with tf.Session(graph=g) as sess:
        got = {i: sess.run(dx, {"i:0": i, "x:0": [1., 2.]}).tolist() for i in (0, 1, 2, 7)}
    assert got == {0: [3., 5.], 1: [9., 15.], 2: [21., 35.], 7: [765., 1275.]}  # TF's values


@pytest.mark.parametrize("stateful", [True, False])
def test_while_gradient_checks_numerically(stateful):
    def build(x, w):
        cond = _traced(lambda n, acc, v: n < 3, (tf.int32, []), (tf.float32, [2]), (tf.float32, [2]))
        body = _traced(lambda n, acc, v: (n + 1, tf.sin(acc) * v + acc * acc, v),
                       (tf.int32, []), (tf.float32, [2]), (tf.float32, [2]))
        op = functional_control_ops.While if stateful else functional_control_ops.StatelessWhile
        return op([tf.constant(0), x, w], cond=cond, body=body)[1:]

    check_gradient(build, [np.array([0.3, -0.4], np.float32), np.array([0.5, 0.8], np.float32)])
