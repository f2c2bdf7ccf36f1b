"""TF2's behaviours in graph mode: what `tf.compat.v1.disable_eager_execution()` alone turns on (v2
TensorShape, resource variables, tensor equality), what `disable_v2_behavior()` keeps off, and the toggles.
Expected values are recorded from TF 2.21 (`import tensorflow.compat.v1 as tf; tf.disable_eager_execution()`).
The conftest fixture puts TF1 behaviour back after each test."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _modes():
    return (tf.resource_variables_enabled(), isinstance(tf.TensorShape([1])[0], tf.Dimension))


def test_a_program_calling_neither_keeps_tf1_behaviour():
    assert _modes() == (False, True)
    x = tf.placeholder(tf.float32, [None, 3])
    assert str(x) == 'Tensor("Placeholder:0", shape=(?, 3), dtype=float32)'
    assert repr(tf.TensorShape([None, 3])) == "TensorShape([Dimension(None), Dimension(3)])"


def test_disable_eager_execution_alone_turns_on_tf2_defaults():
    tf.disable_eager_execution()
    assert _modes() == (True, False)
    assert tf.control_flow_v2_enabled() is True and tf.executing_eagerly() is False


@pytest.mark.parametrize("order", ["v2_first", "eager_first"])
def test_disable_v2_behavior_wins_in_either_order(order):
    calls = [tf.disable_v2_behavior, tf.disable_eager_execution]
    for call in calls if order == "v2_first" else calls[::-1]:
        call()
    assert _modes() == (False, True)


def test_a_toggle_forced_before_disable_eager_execution_stays():
    tf.disable_resource_variables()
    tf.disable_eager_execution()
    assert _modes() == (False, False)
    tf.disable_v2_tensorshape()
    tf.enable_resource_variables()
    assert _modes() == (True, True)


def test_v2_tensorshape_indexing_iteration_and_printing():
    tf.enable_v2_tensorshape()
    s = tf.TensorShape([None, 3])
    assert (s[0], s[1], s[-1], list(s), s.as_list()) == (None, 3, 3, [None, 3], [None, 3])
    assert type(s[1]) is int
    assert repr(s.dims) == "[Dimension(None), Dimension(3)]"
    assert (str(s), repr(s), repr(s[1:]), str(tf.TensorShape([None]))) == (
        "(None, 3)", "TensorShape([None, 3])", "TensorShape([3])", "(None,)")
    unknown = tf.TensorShape(None)
    assert (unknown[0], repr(unknown), str(unknown), repr(unknown[1:3])) == (
        None, "TensorShape(None)", "<unknown>", "TensorShape([None, None])")
    assert str(s.with_rank(2)) == "(None, 3)" and s.concatenate([4]).as_list() == [None, 3, 4]
    assert repr(tf.compat.dimension_at_index(s, 0)) == "Dimension(None)"
    assert (tf.compat.dimension_value(s[0]), tf.compat.dimension_value(s[1])) == (None, 3)
    assert repr(s.__reduce__()[1]) == "([Dimension(None), Dimension(3)],)"
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    assert str(x) == 'Tensor("x:0", shape=(None, 3), dtype=float32)'
    with pytest.raises(AttributeError, match="'int' object has no attribute 'value'"):
        x.shape[1].value  # noqa: B018 - as TF2 programs find
    with pytest.raises(ValueError, match="Shapes \\(None, 3\\) and \\(2, 4\\) are not compatible"):
        s.merge_with([2, 4])
    with pytest.raises(IndexError, match="^tuple index out of range$"):  # TF2's dims are a tuple (TF1's a list)
        tf.foldl(lambda a, e: a + e, tf.constant(1.0))


def test_the_library_builds_the_same_graph_in_both_shape_modes():
    def build():
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        h = tf.layers.conv2d(x, 3, 3, padding="same")
        h = tf.layers.batch_normalization(h, training=True)
        h = tf.layers.dense(tf.layers.flatten(tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")), 4)
        loss = tf.losses.sparse_softmax_cross_entropy(tf.constant([0, 1]), h)
        tf.train.AdamOptimizer(0.1).minimize(loss)
        return [(o.name, o.type, [t.shape.as_list() if t.shape.ndims is not None else None for t in o.outputs])
                for o in tf.get_default_graph().get_operations()]
    tf1 = build()
    tf.enable_v2_tensorshape()
    assert build() == tf1


def test_flatten_of_a_partly_known_shape_in_v2_shape_mode():
    """Keras' Flatten reads the batch size with dimension_value: an int or None under v2 TensorShapes."""
    tf.enable_v2_tensorshape()
    assert tf.layers.flatten(tf.placeholder(tf.float32, [None, None, 3])).shape.as_list() == [None, None]
    assert tf.layers.flatten(tf.placeholder(tf.float32, [4, None, 3])).shape.as_list() == [4, None]


def test_resource_variables_by_default_after_disable_eager_execution():
    tf.disable_eager_execution()
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    assert repr(v) == "<tf.Variable 'v:0' shape=(2,) dtype=float32>"
    assert (v.op.type, w.op.type) == ("VarHandleOp", "VarHandleOp")
    assert str(v.value()) == 'Tensor("ReadVariableOp:0", shape=(2,), dtype=float32)'
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(v * w), global_step=step)
    assert (train.type, train.name) == ("AssignAddVariableOp", "GradientDescent")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(v), [0.5, 1.5])
        assert sess.run(step) == 1


def test_tensor_equality_is_identity_for_graph_tensors_in_both_settings():
    tf.enable_tensor_equality()
    x = tf.placeholder(tf.float32, [2])
    v = tf.Variable([1.0, 2.0], use_resource=True)
    assert (x == x, x != x, x == None, hash(x) == id(x)) == (True, False, False, True)  # noqa: E711
    assert (v == v, hash(v) == id(v)) == (True, True)


def test_enable_v2_behavior_turns_on_what_graphs_have_and_keeps_graph_mode():
    tf.enable_v2_behavior()
    assert _modes() == (True, False)
    assert tf.executing_eagerly() is False and tf.control_flow_v2_enabled() is True
    tf.disable_eager_execution()
    tf.disable_v2_behavior()
    assert _modes() == (False, True) and tf.control_flow_v2_enabled() is False


def test_toggles_to_what_graphs_lack_raise():
    with pytest.raises(NotImplementedError, match=r"^tf\.enable_eager_execution\(\) is not supported: tensorweave "):
        tf.enable_eager_execution()


def test_control_flow_v2_toggles_win_over_the_mode_in_either_direction():
    tf.enable_control_flow_v2()
    assert tf.control_flow_v2_enabled() is True
    assert tf.cond(tf.placeholder(tf.bool), lambda: 1.0, lambda: 2.0).op.inputs[0].op.type == "StatelessIf"
    tf.disable_eager_execution()
    tf.disable_control_flow_v2()
    assert tf.control_flow_v2_enabled() is False
    assert tf.cond(tf.placeholder(tf.bool), lambda: 1.0, lambda: 2.0).op.type == "Merge"


def test_datasets_print_as_tf_in_both_modes():
    d = tf.data.Dataset.range(3)
    assert repr(d.batch(2)) == "<_BatchDataset element_spec=TensorSpec(shape=(?,), dtype=tf.int64, name=None)>"
    tf.disable_eager_execution()
    assert repr(d.batch(2)) == "<_BatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>"
    assert [repr(e).split()[0] for e in (d.repeat(), d.take(1), d.map(lambda x: x, num_parallel_calls=2),
                                         d.flat_map(tf.data.Dataset.from_tensors), d.cache())] == [
        "<_RepeatDataset", "<_TakeDataset", "<_ParallelMapDataset", "<_FlatMapDataset", "<CacheDataset"]
