"""tf.Variable and the ref-variable ops: initialization, assign semantics, collections, fetch copies."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_variable_nodes_names_and_collections():
    v = tf.Variable([1.0, 2.0], name="v")
    local = tf.Variable(0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="counter")
    assert v.name == "v:0" and v.op.type == "VariableV2" and v.dtype == tf.float32._as_ref
    assert v.initializer.name == "v/Assign" and v.value().name == "v/read:0"
    assert v.initial_value.name == "v/initial_value:0"
    assert v.shape.as_list() == [2]
    assert tf.global_variables() == [v] and tf.trainable_variables() == [v]
    assert tf.local_variables() == [local]
    assert repr(v) == "<tf.Variable 'v:0' shape=(2,) dtype=float32_ref>"
    with pytest.raises(ValueError, match="initial_value must be specified."):
        tf.Variable()
    with pytest.raises(ValueError, match="collections argument to Variable constructor must be a list"):
        tf.Variable(1.0, collections="bad")


def test_initial_value_callable_dtype_and_initializers():
    v = tf.Variable(lambda: tf.ones([2, 2]), name="w")
    d = tf.Variable(3, dtype=tf.float64)
    assert v.initial_value.op.name == "w/Initializer/ones"
    assert d.dtype.base_dtype == tf.float64
    with tf.Session() as sess:
        assert sess.run(tf.report_uninitialized_variables()).tolist() == [b"w", b"Variable"]
        sess.run(tf.variables_initializer([v]))
        assert sess.run(tf.report_uninitialized_variables()).tolist() == [b"Variable"]
        sess.run(tf.global_variables_initializer())
        assert sess.run(tf.report_uninitialized_variables()).size == 0
        assert sess.run(v).tolist() == [[1, 1], [1, 1]] and sess.run(d) == 3.0
        assert sess.run(tf.is_variable_initialized(v))


def test_assign_add_sub_and_read_value():
    v = tf.Variable([1.0, 2.0])
    add = v.assign_add([10.0, 10.0])
    sub = tf.assign_sub(v, [1.0, 1.0])
    set_ = v.assign([5.0, 6.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(add).tolist() == [11.0, 12.0]
        assert sess.run(sub).tolist() == [10.0, 11.0]
        assert sess.run(v.read_value()).tolist() == [10.0, 11.0]
        assert sess.run(set_).tolist() == [5.0, 6.0]
        v.load([7.0, 8.0], sess)
        assert v.eval(sess).tolist() == [7.0, 8.0]


def test_counter_persists_across_runs_and_goes_up_by_one():
    counter = tf.Variable(0, name="counter")
    increment = tf.assign_add(counter, 1)
    with tf.Session() as sess:
        sess.run(counter.initializer)
        for expected in range(1, 6):
            sess.run(increment.op)
            assert sess.run(counter) == expected


def test_fetched_value_is_a_copy_that_later_updates_do_not_change():
    v = tf.Variable(np.zeros(4, np.float32))
    bump = tf.assign_add(v, tf.ones([4]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        before = sess.run(v)
        sess.run(bump.op)
        sess.run(bump.op)
        assert before.tolist() == [0, 0, 0, 0]
        before[0] = 99.0  # the caller owns the array: writing to it leaves the variable alone
        assert sess.run(v).tolist() == [2, 2, 2, 2]


def test_shape_validation():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        v.assign([1.0, 2.0, 3.0])
    loose = tf.Variable([1.0, 2.0], validate_shape=False)
    grow = tf.assign(loose, [1.0, 2.0, 3.0], validate_shape=False)
    placeholder = tf.placeholder(tf.float32)
    add = tf.assign_add(v, placeholder)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(grow).tolist() == [1.0, 2.0, 3.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Parameters and update must be the same size"):
            sess.run(add, {placeholder: [1.0, 2.0, 3.0]})


def test_ref_input_requires_variable():
    from tensorweave.ops.state_ops import Assign

    with pytest.raises(TypeError, match="'Assign' Op requires that input 'ref' be a mutable tensor"):
        Assign(tf.constant(1.0), 2.0)
    with pytest.raises(AttributeError, match="has no attribute 'assign'"):  # TF asks a non-ref to assign itself
        tf.assign(tf.constant(1.0), 2.0)
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are "
                                         r"\[2\] and \[3\]."):
        tf.assign(tf.Variable([1.0, 2.0]), [1.0, 2.0, 3.0])


def test_variable_operators_and_usable_as_tensor():
    v = tf.Variable([[1.0, 2.0]])
    w = tf.Variable([[3.0], [4.0]])
    outputs = [v + 1.0, 2.0 * v, v @ w, -v, tf.matmul(v, w), tf.identity(v), v > 1.5]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(outputs)
    assert values[0].tolist() == [[2.0, 3.0]] and values[1].tolist() == [[2.0, 4.0]]
    assert values[2].tolist() == [[11.0]] and values[3].tolist() == [[-1.0, -2.0]]
    assert values[4].tolist() == [[11.0]] and values[5].tolist() == [[1.0, 2.0]]
    assert values[6].tolist() == [[False, True]]
    with pytest.raises(TypeError, match="^Iterating over a symbolic `tf.Tensor` is not allowed"):
        iter(v)


def test_containers_share_state_between_sessions_and_reset():
    with tf.container("experiment"):
        v = tf.Variable(1.0, name="shared_v")
    assert v.op.get_attr("container") == b"experiment"
    bump = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(bump)
        assert sess.run(v) == 2.0
        tf.Session.reset("", ["experiment"])
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)
