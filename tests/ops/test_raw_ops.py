"""`raw_ops`: ops called by TF type name, looked up in the op registry at call time, keyword arguments only.

A raw call builds the same node as the public wrapper (compared as whole GraphDefs, names, attrs and the
constants made of Python inputs included); unknown and underscore-named ops are AttributeErrors; positional,
unexpected and missing arguments are TypeErrors with TF's messages (recorded from TF 2.21's `tf.raw_ops`).
"""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework import op_registry
from tensorweave.ops import raw_ops


def _graph_def(build):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        y = tf.placeholder(tf.float32, [3, 3], name="y")
        build(x, y)
    return graph.as_graph_def()


@pytest.mark.parametrize("wrapper, raw", [
    (lambda x, y: tf.matmul(x, y, transpose_b=True), lambda x, y: raw_ops.MatMul(a=x, b=y, transpose_b=True)),
    (lambda x, y: tf.reduce_prod(x, [0]), lambda x, y: raw_ops.Prod(input=x, reduction_indices=[0])),
    (lambda x, y: tf.cast(x, tf.int32), lambda x, y: raw_ops.Cast(x=x, DstT=tf.int32)),
    (lambda x, y: tf.concat([x, y], 0), lambda x, y: raw_ops.ConcatV2(values=[x, y], axis=0, name="concat")),
    (lambda x, y: tf.reshape(x, [-1]), lambda x, y: raw_ops.Reshape(tensor=x, shape=[-1])),
    (lambda x, y: tf.placeholder(tf.int64, [None], name="p"),
     lambda x, y: raw_ops.Placeholder(dtype=tf.int64, shape=[None], name="p")),
], ids=["MatMul", "Prod", "Cast", "ConcatV2", "Reshape", "Placeholder"])
def test_raw_op_builds_the_wrappers_node(wrapper, raw):
    assert _graph_def(raw) == _graph_def(wrapper)


def test_raw_op_runs():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    product = raw_ops.MatMul(a=a, b=a, transpose_a=True)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(product), [[10.0, 14.0], [14.0, 20.0]])


def test_the_handle_is_looked_up_when_called():
    assert "MatMul" not in vars(raw_ops)  # nothing is bound when the module is imported
    assert raw_ops.MatMul.op is op_registry.get("MatMul")
    assert {"MatMul", "Prod", "Const"} <= set(dir(raw_ops))


@pytest.mark.parametrize("name", ["NoSuchOp", "_Arg", "matmul", "__wrapped__"])
def test_unknown_or_hidden_op_is_an_attribute_error(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(raw_ops, name)
    assert not hasattr(raw_ops, name)


@pytest.mark.parametrize("call, message", [
    (lambda: raw_ops.Add(1, 2), "add only takes keyword args (possible keys: ['x', 'y', 'name']). Please pass "
     "these args as kwargs instead."),
    (lambda: raw_ops.MatMul(1, 2), "mat_mul only takes keyword args (possible keys: ['a', 'b', 'transpose_a', "
     "'transpose_b', 'grad_a', 'grad_b', 'name']). Please pass these args as kwargs instead."),
    (lambda: raw_ops.Cast(1), "cast only takes keyword args (possible keys: ['x', 'DstT', 'Truncate', 'name']). "
     "Please pass these args as kwargs instead."),
    (lambda: raw_ops.BatchMatMulV2(1), "batch_mat_mul_v2 only takes keyword args (possible keys: ['x', 'y', "
     "'adj_x', 'adj_y', 'grad_x', 'grad_y', 'name']). Please pass these args as kwargs instead."),
    (lambda: raw_ops.ConcatV2(1), "concat_v2 only takes keyword args (possible keys: ['values', 'axis', 'name']). "
     "Please pass these args as kwargs instead."),
    (lambda: raw_ops.Add(x=1), "add() missing 1 required positional argument: 'y'"),
    (lambda: raw_ops.Add(x=1, y=2, z=3), "add() got an unexpected keyword argument 'z'"),
    (lambda: raw_ops.Add(x=1, y=2, T=tf.int32), "add() got an unexpected keyword argument 'T'"),
])
def test_arguments_are_checked_as_tf_raw_ops(call, message):
    with pytest.raises(TypeError) as error:
        call()
    assert str(error.value) == message


@pytest.mark.parametrize("op_type, name", [("Conv2D", "conv2d"), ("L2Loss", "l2_loss"), ("LRNGrad", "lrn_grad"),
                                           ("AddN", "add_n"), ("Any", "_any"), ("Range", "_range"),
                                           ("Round", "round"), ("Const", "const")])
def test_python_names_are_tfs(op_type, name):
    assert raw_ops._snake_name(op_type) == name


def test_arguments_tf_renames_in_raw_ops():
    """tf.raw_ops takes the names TF's API definitions give some arguments (axis for reduction_indices, x/y for
    Select's t/e, condition for Where's input), and lists them in its messages."""
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2], [3, 4]])
        outs = [tf.raw_ops.Sum(input=x, axis=[1], keep_dims=True), tf.raw_ops.ExpandDims(input=x, axis=0),
                tf.raw_ops.Select(condition=tf.constant([True, False]), x=x, y=-x),
                tf.raw_ops.Squeeze(input=tf.ones([1, 2]), axis=[0]), tf.raw_ops.Where(condition=[True, False]),
                tf.raw_ops.Split(axis=1, value=x, num_split=2)[0]]
        assert [t.shape.as_list() for t in outs] == [[2, 1], [1, 2, 2], [2, 2], [2], [None, 1], [2, 1]]
        with tf.Session() as sess:
            values = sess.run(outs)
        assert values[0].tolist() == [[3], [7]] and values[2].tolist() == [[1, 2], [-3, -4]]
        assert values[4].tolist() == [[0]]
        with pytest.raises(TypeError, match=r"_sum\(\) missing 1 required positional argument: 'axis'"):
            tf.raw_ops.Sum(input=x)
        with pytest.raises(TypeError, match=r"possible keys: \['input', 'axis', 'keep_dims', 'name'\]"):
            tf.raw_ops.Sum(x, [1])
