"""tf.GradientTape in graph mode and inside tf.py_function; graph tensors and variables in a py_function.
Expected values and messages recorded from TF 2.21 (tf.compat.v1, v2 behaviour disabled)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _run(fetches, init=True):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_records_graph_ops_and_watches_resource_variables():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        v = tf.Variable([1.0, 2.0], use_resource=True, name="rv")
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], use_resource=True, name="wv")
        frozen = tf.Variable(5.0, trainable=False, use_resource=True, name="nt")
        ref = tf.Variable([3.0, 4.0], use_resource=False, name="refv")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            z = tf.reduce_sum(v * v) + frozen * 2.0 + tf.reduce_sum(ref * ref)
            sparse = tf.reduce_sum(w.sparse_read([0, 0]) * 3.0)
            with pytest.raises(ValueError, match="Tape is still recording, This can happen if you try to re-enter"):
                tape.__enter__()
            with tape.stop_recording():
                unrecorded = x * 2.0
        assert [var.name for var in tape.watched_variables()] == ["rv:0", "wv:0"]  # not the ref variable
        both = tape.gradient([y, z], [x, v])
        assert both[0].shape.as_list() == [3] and both[0].op.type == "AddN"
        assert tape.gradient(unrecorded, x) is None
        zeros = tape.gradient(unrecorded, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        nested = tape.gradient(z, {"a": v, "b": (x, frozen)})
        assert nested["b"] == (None, None)
        weighted = tape.gradient(y, x, output_gradients=[tf.constant([1.0, 10.0, 100.0])])
        sparse_grad = tape.gradient(sparse, w)
        assert isinstance(sparse_grad, tf.IndexedSlices)
        itself = tape.gradient(v, v)
        assert tape.gradient(tf.cast(y, tf.int32), x) is None
        with pytest.raises(AttributeError, match="'RefVariable' object has no attribute '_id'"):
            tape.gradient(z, ref)
        with pytest.raises(TypeError, match="Argument `target` should be a list or nested structure of Tensors"):
            tape.gradient(None, x)
        with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'foo'"):
            tape.gradient(y, x, unconnected_gradients="foo")
        with pytest.raises(ValueError, match="Passed in object 1.0 of type 'float', not tf.Tensor or tf.Variable"):
            tape.watch([1.0])
        with pytest.raises(SystemError):
            tape.watch(ref)
        values = _run([both, zeros, nested["a"], weighted, sparse_grad, itself])
    np.testing.assert_allclose(values[0][0], [2, 4, 6])
    np.testing.assert_allclose(values[0][1], [2, 4])
    np.testing.assert_allclose(values[1], [0, 0, 0])
    np.testing.assert_allclose(values[2], [2, 4])
    np.testing.assert_allclose(values[3], [2, 40, 600])
    np.testing.assert_allclose(values[4].values, [[3, 3], [3, 3]])
    np.testing.assert_array_equal(values[4].indices, [0, 0])
    np.testing.assert_array_equal(values[4].dense_shape, [2, 2])
    np.testing.assert_allclose(values[5], [1, 1])


def test_non_persistent_tape_reset_and_unentered_tapes():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        tape = tf.GradientTape()
        with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not recording."):
            tape.stop_recording().__enter__()
        with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to compute one set"):
            tape.gradient(x, x)
        with pytest.raises(ValueError, match="Tape is not recording."):
            tape.reset()
        assert tape.watched_variables() == ()
        with tape:
            tape.watch(x)
            first = x * 3.0
            tape.reset()
            tape.watch(x)
            second = x * 4.0
        grad = tape.gradient([first, second], x)  # only what follows the reset
        with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to compute one set"):
            tape.gradient(second, x)
        unwatched = tf.GradientTape()
        with unwatched:
            y = x * 2.0
        np.testing.assert_allclose(_run(grad, init=False), [4, 4, 4])
        assert unwatched.gradient(y, x) is None
        with tf.GradientTape() as inside:
            inside.watch(x)
            grad = inside.gradient(x * x, x)  # pops the tape: what follows is not recorded
            after = x * 3.0
        assert inside.watched_variables() == ()
        del after


def test_watch_accessed_variables_false_and_second_derivatives():
    with tf.Graph().as_default():
        x = tf.constant(3.0)
        v = tf.Variable(2.0, use_resource=True)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * v
            first = inner.gradient(y, [x, v])
        second = outer.gradient(first[0], [x, v])
        with tf.GradientTape(watch_accessed_variables=False) as manual:
            z = v * v
        assert manual.watched_variables() == () and manual.gradient(z, v) is None
        np.testing.assert_allclose(_run([first, second]), [[12, 9], [4, 6]])


def test_jacobian_and_batch_jacobian():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], use_resource=True)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            squares = w * w
        jacobian = tape.jacobian(y, x)
        assert jacobian.shape.as_list() == [3, 3]
        batch = tape.batch_jacobian(squares, w)
        outside = tape.batch_jacobian(w * w, w)  # computed outside the tape: zeros, as TF's
        assert tape.jacobian(w * 2.0, w) is None
        with pytest.raises(ValueError, match=r"Shape \(3,\) must have rank at least 2"):
            tape.batch_jacobian(y, x)
        values = _run([jacobian, batch, outside])
    np.testing.assert_allclose(values[0], np.diag([2, 4, 6]))
    np.testing.assert_allclose(values[1], [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])
    np.testing.assert_allclose(values[2], np.zeros([2, 2, 2]))


def test_tape_inside_py_function():
    def f(a):
        with tf.GradientTape() as t:
            t.watch(a)
            b = tf.reduce_sum(a * a * a)
        with tf.GradientTape(persistent=True) as t2:
            t2.watch(a)
            c = tf.sin(a)
        return t.gradient(b, a) + t2.gradient(c, a) + t2.jacobian(c, a)[0]

    with tf.Graph().as_default():
        p = tf.py_function(f, [tf.constant([1.0, 2.0])], tf.float32)
        np.testing.assert_allclose(_run(p, init=False), [4.0806, 11.58385], rtol=1e-5)


def test_graph_tensors_and_variables_in_py_function_are_out_of_scope():
    """TF does not read a graph variable inside a py_function: every read, like any graph tensor the function
    closes over, raises its out-of-scope TypeError (a ref variable's snapshot comes back as it is)."""
    seen = []

    with tf.Graph().as_default() as g:
        c = tf.constant([1.0, 2.0], name="cc")
        v = tf.Variable([1.0, 2.0], use_resource=True, name="rv")
        r = tf.Variable([3.0, 4.0], use_resource=False, name="refv")

        def f(x):
            for fn in [lambda: c + 1, lambda: x + c, lambda: tf.identity(c), lambda: v.read_value(),
                       lambda: v + 1, lambda: tf.identity(v), lambda: x * v, lambda: r.read_value(),
                       lambda: r + 1, lambda: tf.identity(r)]:
                try:
                    fn()
                    seen.append(None)
                except TypeError as e:
                    seen.append(str(e))
            seen.append(r.value() is r.value() and tf.convert_to_tensor(c) is c)
            return x

        y = tf.py_function(f, [tf.constant([1.0, 1.0])], tf.float32)
        init = tf.global_variables_initializer()
        count = len(g.get_operations())
        with tf.Session() as sess:
            sess.run(init)
            sess.run(y)
        assert len(g.get_operations()) == count  # nothing joined the graph
    names = ["cc:0"] * 3 + ["rv:0"] * 4 + ["refv:0"] + ["refv/read:0"] * 2
    dtypes = ["shape=(2,) dtype=float32"] * 3 + ["shape=() dtype=resource"] * 4 + \
        ["shape=(2,) dtype=float32_ref"] + ["shape=(2,) dtype=float32"] * 2
    for message, name, dtype in zip(seen, names, dtypes):
        tensor = f"<tf.Tensor '{name}' {dtype}>"
        assert message.startswith(f"{tensor} is out of scope and cannot be used here. Use return values, explicit "
                                  "Python locals or TensorFlow collections to access it.\nPlease see https://www."
                                  "tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values "
                                  f"for more information.\n\n{tensor} was defined here:\n    File \"")
        assert f"\n\nThe tensor {tensor} cannot be accessed from here, because it was defined in " in message
        assert message.endswith(", which is out of scope.")
    assert seen[-1] is True


def test_static_asserts_executing_eagerly():
    seen = []

    def f(x):
        for fn in [lambda: tf.debugging.assert_integer(x), lambda: tf.debugging.assert_integer(x, message="hey"),
                   lambda: tf.debugging.assert_shapes([(x, (3,))]), lambda: tf.debugging.assert_type(x, tf.int32),
                   lambda: tf.debugging.assert_scalar(x)]:
            try:
                fn()
            except (TypeError, ValueError) as e:
                seen.append(f"{type(e).__name__}: {e}")
        seen.append(tf.debugging.assert_integer(tf.cast(x, tf.int32)))
        seen.append(tf.debugging.assert_shapes([(x, ("N",))]))
        return x

    with tf.Graph().as_default():
        _run(tf.py_function(f, [tf.constant([1.0, 1.0])], tf.float32), init=False)
    assert seen == [
        "TypeError: Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>",
        "TypeError: hey.  Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>",
        "ValueError: Specified explicitly.  Tensor shape=(2,) dtype=float32 dimension 0 must have size 3.  "
        "Received size 2, shape (2,)",
        "TypeError: tensor must be of type tf.int32; got tf.float32",
        "ValueError: Expected scalar shape, saw shape: (2,).",
        None, None]


def test_graph_control_flow_raises_tfs_error():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        for build in [lambda: tf.cond(x > 1.0, lambda: x * x, lambda: x),
                      lambda: tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])[1]]:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = build()
            with pytest.raises(NotImplementedError, match=r"tf.GradientTape.gradients\(\) does not support graph "
                                                          "control flow operations like tf.cond or tf.while"):
                tape.gradient(y, x)


@pytest.mark.parametrize("v2", [False, True])
def test_graph_gradients_take_tfs_names_gradient_tape_scopes_under_control_flow_v2(v2):
    # TF 2.21: with control flow v2, each gradient is built in gradient_tape/<the scope its forward op's wrapper
    # ran in>/ (Sum's in its caller's scope, a*b's in its 'mul' scope); TF1's in the caller's scope
    if v2:
        tf.enable_control_flow_v2()
    try:
        with tf.Graph().as_default() as g:
            v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0]), use_resource=True)
            x = tf.constant([3.0, 4.0])
            with tf.name_scope("outer"):
                with tf.GradientTape(persistent=True) as tape:
                    tape.watch(x)
                    with tf.name_scope("fwd"):
                        y = tf.reduce_sum(v * x * x)
                    z = tf.sin(y)
                with tf.name_scope("bwd"):
                    grads = tape.gradient(z, [v, x])
            names = [op.name for op in g.get_operations() if "bwd" in op.name or "gradient_tape" in op.name]
            gv = tf.train.GradientDescentOptimizer(0.1).compute_gradients(lambda: tf.reduce_sum(v * 2.0))
    finally:
        tf.disable_control_flow_v2()
    if v2:
        assert [t.name for t in grads] == ["gradient_tape/outer/fwd/mul/Mul:0", "outer/bwd/AddN:0"]
        assert names == ["outer/bwd/ones", "gradient_tape/outer/Cos", "gradient_tape/outer/mul",
                         "gradient_tape/outer/fwd/Reshape/shape", "gradient_tape/outer/fwd/Reshape",
                         "gradient_tape/outer/fwd/Const", "gradient_tape/outer/fwd/Tile",
                         "gradient_tape/outer/fwd/mul_1/Mul", "gradient_tape/outer/fwd/mul_1/Mul_1",
                         "gradient_tape/outer/fwd/mul/Mul", "gradient_tape/outer/fwd/mul/Mul_1", "outer/bwd/AddN"]
        assert gv[0][0].name == "gradient_tape/mul/Mul:0"
    else:
        assert [t.name for t in grads] == ["outer/bwd/Mul_3:0", "outer/bwd/AddN:0"]
        assert names == ["outer/bwd/ones", "outer/bwd/Cos", "outer/bwd/mul", "outer/bwd/Reshape/shape",
                         "outer/bwd/Reshape", "outer/bwd/Const", "outer/bwd/Tile", "outer/bwd/Mul_1",
                         "outer/bwd/Mul_2", "outer/bwd/Mul_3", "outer/bwd/Mul_4", "outer/bwd/AddN"]
        assert gv[0][0].name == "Mul_1:0"
