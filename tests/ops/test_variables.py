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
        with pytest.raises(tf.errors.InvalidArgumentError, match="Parameters and update must be the same size"):
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
        with pytest.raises(tf.errors.CancelledError, match="Session has been closed."):
            sess.run(v)  # reset closes the sessions on its target, as TF's does
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value shared_v"):
            sess.run(v)


# -- Scatter updates (results recorded from TF 2.21, tf.compat.v1 ref variables) -------------------------
ROWS = [[1.0, 2, 3], [4, 5, 6], [7, 8, 9]]
SCATTERED = {  # indices [2, 0, 2] into arange(12).reshape(4, 3): repeated index 2 accumulates
    "scatter_update": [[4, 5, 6], [3, 4, 5], [7, 8, 9], [9, 10, 11]],
    "scatter_add": [[4, 6, 8], [3, 4, 5], [14, 17, 20], [9, 10, 11]],
    "scatter_sub": [[-4, -4, -4], [3, 4, 5], [-2, -3, -4], [9, 10, 11]],
    "scatter_mul": [[0, 5, 12], [3, 4, 5], [42, 112, 216], [9, 10, 11]],
    "scatter_div": [[0, 0.2, 1 / 3], [3, 4, 5], [6 / 1 / 7, 7 / 2 / 8, 8 / 3 / 9], [9, 10, 11]],
    "scatter_min": [[0, 1, 2], [3, 4, 5], [1, 2, 3], [9, 10, 11]],
    "scatter_max": [[4, 5, 6], [3, 4, 5], [7, 8, 9], [9, 10, 11]],
}
SCATTERED_INT = {  # indices [[1], [3]], updates [[[-7, 2, 3]], [[5, -5, 9]]] into a variable full of -7
    "scatter_update": [[-7, 2, 3], [5, -5, 9]], "scatter_add": [[-14, -5, -4], [-2, -12, 2]],
    "scatter_sub": [[0, -9, -10], [-12, -2, -16]], "scatter_mul": [[49, -14, -21], [-35, 35, -63]],
    "scatter_div": [[1, -3, -2], [-1, 1, 0]], "scatter_min": [[-7, -7, -7], [-7, -7, -7]],
    "scatter_max": [[-7, 2, 3], [5, -5, 9]],
}


def _run_update(variable, update, feed_dict=None):
    with tf.Session() as sess:
        sess.run(variable.initializer)
        result = sess.run(update, feed_dict)
        np.testing.assert_array_equal(sess.run(variable), result)
        return result


@pytest.mark.parametrize("fn", sorted(SCATTERED))
def test_scatter_ops(fn):
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    update = getattr(tf, fn)(v, [2, 0, 2], ROWS)
    op_type = "Scatter" + fn.split("_")[1].capitalize()
    assert update.name == f"{op_type}:0" and update.op.type == op_type and update.dtype == tf.float32._as_ref
    assert update.shape.as_list() == [4, 3] and update.op.get_attr("use_locking") == (fn == "scatter_update")
    assert [t.name for t in update.op.inputs] == ["Variable:0", f"{op_type}/indices:0", f"{op_type}/updates:0"]
    np.testing.assert_allclose(_run_update(v, update), SCATTERED[fn], rtol=1e-6)
    counts = tf.Variable(np.full((4, 3), -7, np.int32))
    result = _run_update(counts, getattr(tf, fn)(counts, [[1], [3]], [[[-7, 2, 3]], [[5, -5, 9]]]))
    assert result.dtype == np.int32 and result[[1, 3]].tolist() == SCATTERED_INT[fn]
    assert result[[0, 2]].tolist() == [[-7] * 3] * 2


def test_scatter_scalar_updates_and_int64_indices():
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    assert _run_update(v, tf.scatter_add(v, [1], 2.0))[1].tolist() == [5, 6, 7]
    assert _run_update(v, tf.scatter_max(v, [1], 2.0))[1].tolist() == [3, 4, 5]
    assert _run_update(v, tf.scatter_update(v, tf.constant([0], tf.int64), [[1.0, 1, 1]]))[0].tolist() == [1, 1, 1]
    names = tf.Variable(["x", "y"])
    assert _run_update(names, tf.scatter_update(names, [0], ["a"])).tolist() == [b"a", b"y"]
    assert tf.scatter_add(v, [0], [[1.0, 1, 1]], name="foo").name == "foo:0"


@pytest.mark.parametrize("fn, ufunc", [("scatter_sub", np.subtract), ("scatter_add", np.add),
                                       ("scatter_mul", np.multiply), ("scatter_max", np.maximum)])
def test_scatter_repeated_rows_apply_in_order(fn, ufunc):
    """Rows repeated up to four times over [2, 5] indices: each update sees the earlier ones (TF's sequential
    kernel), bit for bit as NumPy's unbuffered `ufunc.at`, with row and scalar updates."""
    rng = np.random.default_rng(3)
    initial = rng.standard_normal((6, 4)).astype(np.float32)
    indices = np.array([[4, 1, 4, 0, 4], [1, 5, 4, 2, 1]])
    updates = rng.standard_normal((2, 5, 4)).astype(np.float32)
    for update in (updates, np.float32(1.5)):
        v = tf.Variable(initial)
        expected = initial.copy()
        ufunc.at(expected, indices, update)
        np.testing.assert_array_equal(_run_update(v, getattr(tf, fn)(v, indices, update)), expected)


def test_scatter_graph_errors():
    v = tf.Variable(np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 1 and 2. Shapes are "
                       r"\[1,2\] and \[2,3\]. for '\{\{node ScatterAdd\}\}"):
        tf.scatter_add(v, [1, 2], [[1.0, 2]])
    with pytest.raises(ValueError, match="^Shapes must be equal rank, but are 1 and 2 for "):
        tf.scatter_add(v, [1, 2], [1.0, 2, 3])
    assert tf.scatter_add(v, tf.placeholder(tf.int32), tf.placeholder(tf.float32)).shape.as_list() == [4, 3]
    with pytest.raises(TypeError, match="^Value passed to parameter 'ref' has DataType string not in list of allowed "
                       "values: float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
                       "bfloat16, qint16, quint16, uint16, complex128, float16, uint32, uint64$"):
        tf.scatter_add(tf.Variable(["x"]), [0], ["a"])
    with pytest.raises(TypeError, match="^Value passed to parameter 'ref' has DataType complex64 not in list of "
                       "allowed values: float16, bfloat16, float32, float64, int32, int64$"):
        tf.scatter_min(tf.Variable(np.zeros((4, 3), np.complex64)), [[1]], 5.0)
    with pytest.raises(TypeError, match="^Value passed to parameter 'indices' has DataType float32 not in list of "
                       "allowed values: int32, int64$"):
        tf.scatter_update(v, [0.0], [[1.0, 1, 1]])


@pytest.mark.parametrize("fn", sorted(SCATTERED))
def test_scatter_run_errors(fn):
    v = tf.Variable(np.zeros((4, 3), np.float32))
    indices, updates = tf.placeholder(tf.int32), tf.placeholder(tf.float32)
    update = getattr(tf, fn)(v, indices, updates)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value Variable"):
            sess.run(update, {indices: [0], updates: [[1.0, 2, 3]]})
        sess.run(v.initializer)
        for index, rows, message in [
                ([1, 4], np.ones((2, 3)), r"indices\[1\] = 4 is not in \[0, 4\)"),
                ([[1], [-1]], np.ones((2, 1, 3)), r"indices\[1,0\] = -1 is not in \[0, 4\)"),
                ([0, 1], [1.0, 2.0], r"Must have updates.shape = indices.shape \+ params.shape\[1:\] or updates.shape "
                 r"= \[\], got updates.shape \[2\], indices.shape \[2\], params.shape \[4,3\]")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match="" + message):
                sess.run(update, {indices: index, updates: rows})
        assert sess.run(v).tolist() == [[0.0] * 3] * 4  # a failed update changes nothing
    scalar = tf.Variable(3.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"params must be at least 1-D, got shape \[\]"):
        _run_update(scalar, getattr(tf, fn)(scalar, [0], [1.0]))
