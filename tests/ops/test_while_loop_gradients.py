"""Gradients through `tf.while_loop` (TF1 control flow v1: stacks, a forward counter and a gradient loop) and
the stack ops they use. Graph names, values and messages are recorded from TensorFlow 2.21 (`tf.compat.v1`,
v2 behaviour disabled) running the same programs.
"""

import numpy as np
import pytest
from op_testing import check_gradient

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.ops import stack_ops


def _power(x, n, parallel_iterations=10):
    return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), [tf.constant(0), tf.ones_like(x)],
                         parallel_iterations=parallel_iterations)[1]


def test_gradient_of_repeated_multiplication_matches_the_unrolled_loop_and_numeric_differentiation():
    x = tf.placeholder(tf.float64, [3])
    looped = tf.gradients(_power(x, 4), x)[0]
    unrolled = tf.gradients(x * x * x * x, x)[0]
    value = np.array([0.5, -1.5, 2.0])
    with tf.Session() as sess:
        got, want = sess.run([looped, unrolled], {x: value})
    np.testing.assert_allclose(got, 4 * value ** 3)
    np.testing.assert_allclose(got, want)
    check_gradient(lambda a: _power(a, 3), [value])


def test_gradient_of_a_loop_invariant_weight_accumulates_over_iterations():
    def build(v, w):
        return tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w))), [0, v])[1]

    v0 = np.array([[0.3, -0.2]])
    w0 = np.array([[0.5, -0.4], [0.1, 0.8]])
    v, w = tf.constant(v0), tf.constant(w0)
    looped = tf.gradients(build(v, w), [v, w])
    h = v
    for _ in range(3):
        h = tf.tanh(tf.matmul(h, w))
    unrolled = tf.gradients(h, [v, w])
    with tf.Session() as sess:
        for got, want in zip(*sess.run([looped, unrolled])):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    check_gradient(build, [v0, w0])


def test_parallel_iterations_do_not_change_the_gradients():
    x = tf.placeholder(tf.float32, [])
    w = tf.placeholder(tf.float32, [])
    grads = [tf.gradients(_power(x, 6, p) * w, [x, w]) for p in (1, 10)]
    with tf.Session() as sess:
        serial, parallel = sess.run(grads, {x: 1.5, w: 2.0})
    assert serial == parallel
    np.testing.assert_allclose(serial, [2.0 * 6 * 1.5 ** 5, 1.5 ** 6], rtol=1e-6)


def test_zero_iterations_give_the_gradient_through_the_initial_value():
    x = tf.placeholder(tf.float32, [2])
    n = tf.placeholder(tf.int32, [])
    grad = tf.gradients(_power(x, n) * x, x)[0]
    with tf.Session() as sess:
        assert sess.run(grad, {x: [2.0, 3.0], n: 0}).tolist() == [1.0, 1.0]
        assert sess.run(grad, {x: [2.0, 3.0], n: 2}).tolist() == [12.0, 27.0]


def test_nested_loops_and_unused_exits_as_tf():
    def cube(x, start):
        def outer(k, acc):
            _, inner = tf.while_loop(lambda j, a: j < k, lambda j, a: (j + 1, a * x), [tf.constant(0), acc])
            return k + 1, inner

        return tf.while_loop(lambda k, a: k < 3, outer, [tf.constant(0), start])[1]

    x = tf.placeholder(tf.float64, [2])
    total = cube(x, tf.ones([2], tf.float64))
    a, b = tf.while_loop(lambda a, b: tf.reduce_sum(a) < 10.0, lambda a, b: (a * 2.0, b + a), [x, x])
    grads = tf.gradients(total, x) + tf.gradients(b, x) + tf.gradients(a, x)
    with tf.Session() as sess:  # recorded from TF: x**3 and two loops where one exit is unused
        values = sess.run(grads, {x: [1.5, 2.0]})
    assert [v.tolist() for v in values] == [[6.75, 12.0], [4.0, 4.0], [4.0, 4.0]]
    check_gradient(cube, [np.array([1.2, 0.7]), np.array([0.4, -0.9])])


def test_gradient_graph_has_tfs_names():
    x = tf.placeholder(tf.float32, [], name="x")
    w = tf.constant(3.0, name="w")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x * w), [tf.constant(0), tf.constant(1.0)])
    grads = tf.gradients(y, [x, w])
    ops = [o for o in tf.get_default_graph().get_operations() if o.name.startswith("gradients/")]
    short = lambda name: name[len("gradients/"):] if name.startswith("gradients/") else name  # noqa: E731
    structure = [(short(o.name), o.type, sorted(short(c.name) for c in o.control_inputs)) for o in ops]
    expected = [  # recorded from TF
                ('Shape', 'Const', []), ('grad_ys_0/Const', 'Const', []), ('grad_ys_0', 'Fill', []), ('f_count', 'Const', []),
                ('f_count_1', 'Enter', []), ('Merge', 'Merge', []), ('Switch', 'Switch', []),
                ('Add/y', 'Const', ['while/Identity']), ('Add', 'AddV2', []),
                ('NextIteration', 'NextIteration', ['while/mul_1_grad/Mul_1/StackPushV2', 'while/mul_grad/Mul_1/StackPushV2']),
                ('f_count_2', 'Exit', []), ('b_count', 'Const', []), ('b_count_1', 'Enter', []), ('Merge_1', 'Merge', []),
                ('GreaterEqual', 'GreaterEqual', []), ('GreaterEqual/Enter', 'Enter', []), ('b_count_2', 'LoopCond', []),
                ('Switch_1', 'Switch', []), ('Sub', 'Sub', []),
                ('NextIteration_1', 'NextIteration', ['while/mul_1_grad/Mul_1/b_sync']), ('b_count_3', 'Exit', []),
                ('while/Exit_1_grad/b_exit', 'Enter', []), ('while/Switch_1_grad/b_switch', 'Merge', []),
                ('while/Merge_1_grad/Switch', 'Switch', []), ('while/Enter_1_grad/Exit', 'Exit', []),
                ('while/mul_1_grad/Mul', 'Mul', []), ('while/mul_1_grad/Mul/Enter', 'Enter', []),
                ('while/mul_1_grad/Mul_1', 'Mul', []), ('while/mul_1_grad/Mul_1/Const', 'Const', []),
                ('while/mul_1_grad/Mul_1/f_acc', 'StackV2', []), ('while/mul_1_grad/Mul_1/Enter', 'Enter', []),
                ('while/mul_1_grad/Mul_1/StackPushV2', 'StackPushV2', ['Add']),
                ('while/mul_1_grad/Mul_1/StackPopV2', 'StackPopV2', ['Sub']),
                ('while/mul_1_grad/Mul_1/StackPopV2/Enter', 'Enter', []),
                ('while/mul_1_grad/Mul_1/b_sync', 'ControlTrigger',
                 ['while/mul_1_grad/Mul_1/StackPopV2', 'while/mul_grad/Mul_1/StackPopV2']),
                ('while/mul_grad/Mul', 'Mul', []), ('while/mul_grad/Mul/Enter', 'Enter', []), ('while/mul_grad/Mul_1', 'Mul', []),
                ('while/mul_grad/Mul_1/Const', 'Const', []), ('while/mul_grad/Mul_1/f_acc', 'StackV2', []),
                ('while/mul_grad/Mul_1/Enter', 'Enter', []), ('while/mul_grad/Mul_1/StackPushV2', 'StackPushV2', ['Add']),
                ('while/mul_grad/Mul_1/StackPopV2', 'StackPopV2', ['Sub']),
                ('while/mul_grad/Mul_1/StackPopV2/Enter', 'Enter', []), ('while/mul_1/Enter_grad/b_acc', 'Const', []),
                ('while/mul_1/Enter_grad/b_acc_1', 'Enter', []), ('while/mul_1/Enter_grad/b_acc_2', 'Merge', []),
                ('while/mul_1/Enter_grad/Switch', 'Switch', []), ('while/mul_1/Enter_grad/Add', 'AddV2', []),
                ('while/mul_1/Enter_grad/NextIteration', 'NextIteration', []), ('while/mul_1/Enter_grad/b_acc_3', 'Exit', []),
                ('while/mul/Enter_grad/b_acc', 'Const', []), ('while/mul/Enter_grad/b_acc_1', 'Enter', []),
                ('while/mul/Enter_grad/b_acc_2', 'Merge', []), ('while/mul/Enter_grad/Switch', 'Switch', []),
                ('while/mul/Enter_grad/Add', 'AddV2', []), ('while/mul/Enter_grad/NextIteration', 'NextIteration', []),
                ('while/mul/Enter_grad/b_acc_3', 'Exit', []), ('while/Switch_1_grad_1/NextIteration', 'NextIteration', [])]
    assert structure == expected
    contexts = {o.name: o._get_control_flow_context() for o in ops}
    assert contexts["gradients/Sub"].name == "gradients/while/while_context"
    assert contexts["gradients/while/mul_grad/Mul_1/StackPushV2"].name == "while/while_context"
    assert contexts["gradients/while/mul_grad/Mul_1/f_acc"] is None
    with tf.Session() as sess:
        assert sess.run(grads, {x: 2.0}) == [324.0, 216.0]


def test_second_order_loop_gradients_are_refused_as_tf():
    x = tf.placeholder(tf.float32, [])
    grad = tf.gradients(_power(x, 3), x)[0]
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported."):
        tf.gradients(grad, x)


def _stack_run(build):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(build())


def test_stack_ops_push_and_pop_in_reverse_order():
    def build():
        handle = stack_ops.StackV2(tf.constant(-1), elem_type=tf.float32, name="st")
        first = stack_ops.StackPushV2(handle, tf.constant([1.0, 2.0]))
        with tf.control_dependencies([first]):
            second = stack_ops.StackPushV2(handle, tf.constant([3.0]))
        with tf.control_dependencies([second]):
            top = stack_ops.StackPopV2(handle, elem_type=tf.float32)
        with tf.control_dependencies([top]):
            bottom = stack_ops.StackPopV2(handle, elem_type=tf.float32)
        assert (handle.shape, first.shape, top.shape.ndims) == (tf.TensorShape([2]), tf.TensorShape([2]), None)
        return top, bottom, first

    assert [v.tolist() for v in _stack_run(build)] == [[3.0], [1.0, 2.0], [1.0, 2.0]]


@pytest.mark.parametrize("case, error, message", [
    ("empty", errors.InvalidArgumentError, r"Stack\[st_\d+\] is empty when calling Pop\(\)."),
    ("closed", errors.InvalidArgumentError, r"Stack\[st_\d+\] has already been closed."),
    ("named", errors.InvalidArgumentError, r"Stack\[foo_\d+\] is empty when calling Pop\(\)."),
    ("dtype", errors.InternalError, r"Output 0 of type float does not match declared output type int32 for node "
                                    r"\{\{node StackPopV2\}\}"),
    ("size", errors.InvalidArgumentError, r"Stack size must be a scalar, but had shape: \[2\]"),
])
def test_stack_errors_as_tf(case, error, message):
    def build():
        size = tf.constant([1, 2] if case == "size" else -1)
        handle = stack_ops.StackV2(size, elem_type=tf.float32, name="st",
                                   stack_name="foo" if case == "named" else "")
        if case == "size":
            return stack_ops.StackCloseV2(handle)
        before = {"closed": [stack_ops.StackCloseV2(handle)],
                  "dtype": [stack_ops.StackPushV2(handle, tf.constant(1.0)).op]}.get(case, [])
        with tf.control_dependencies(before):
            return stack_ops.StackPopV2(handle, elem_type=tf.int32 if case == "dtype" else tf.float32)

    with pytest.raises(error, match=message):
        _stack_run(build)


def test_gradients_of_a_cond_inside_a_loop_and_a_loop_inside_a_cond():
    """Values recorded from TF: a ControlTrigger is never dead, and a dead Enter kills its loop's Merge."""
    x = tf.placeholder(tf.float32, [])
    looped = tf.while_loop(lambda i, a: i < 3,
                           lambda i, a: (i + 1, tf.cond(a > 5.0, lambda: a * 2.0, lambda: a * a)), [0, x])[1]
    grad = tf.gradients(looped, x)
    p = tf.placeholder(tf.bool, [])
    branched = tf.cond(p, lambda: tf.while_loop(lambda v: v < 10.0, lambda v: v * x, [x]), lambda: x * 3.0)
    branched_grad = tf.gradients(branched, x)
    with tf.Session() as sess:
        assert [sess.run([looped, grad], {x: v}) for v in (1.5, 2.0, 3.0)] == [
            [10.125, [27.0]], [32.0, [64.0]], [36.0, [24.0]]]
        assert sess.run([branched, branched_grad], {x: 2.0, p: True}) == [16.0, [32.0]]
        assert sess.run([branched, branched_grad], {x: 2.0, p: False}) == [6.0, [3.0]]


def test_indexed_slices_gradients_of_loop_invariants_accumulate_as_slices_as_tf():
    params = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    ids = tf.constant([0, 3, 3, 5, 1])

    def body(i, acc):
        row = tf.gather(params, ids[i])
        emb = tf.nn.embedding_lookup(v, tf.stack([ids[i], ids[i - 1]]))
        return i + 1, acc + row * tf.cast(i + 1, tf.float32) + tf.reduce_sum(emb, 0) * 0.5

    _, out = tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), tf.zeros([2])])
    loss = tf.reduce_sum(out * out)
    g_params, g_v = tf.gradients(loss, [params, v])
    assert isinstance(g_params, tf.IndexedSlices) and isinstance(g_v, tf.IndexedSlices)
    assert g_params.values.shape.as_list() == [None, 2] and g_params.indices.shape.as_list() == [None]

    def inner_outer(k, a):  # the slices of an inner loop's gradient accumulate again in the outer one
        def inner(j, b):
            return j + 1, b + tf.reduce_sum(tf.gather(params, ids[j])) * tf.cast(k + 1, tf.float32)
        return k + 1, tf.while_loop(lambda j, b: j < 3, inner, [tf.constant(0), a])[1]

    nested = tf.gradients(tf.while_loop(lambda k, a: k < 2, inner_outer, [tf.constant(0), tf.constant(0.0)])[1],
                          params)[0]
    _, q = tf.while_loop(lambda i, q: i < 3, lambda i, q: (i + 1, q * 2.0), [tf.constant(0), params])
    through_exit = tf.gradients(tf.reduce_sum(tf.gather(q, [1, 4, 1])), params)[0]  # TF fails to build this one
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[v])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run([g_params.values, g_params.indices, g_params.dense_shape, g_v.values, g_v.indices,
                        tf.convert_to_tensor(g_params), nested.indices, nested.values, through_exit])
        sess.run(train)
        updated = sess.run(v)
    # recorded from TF: a zero slice at index 0, then each iteration's slices, the last iteration's first
    np.testing.assert_array_equal(got[0], [[0, 0], [1040, 1240], [832, 992], [624, 744], [416, 496], [208, 248]])
    assert got[1].tolist() == [0, 1, 5, 3, 3, 0] and got[2].tolist() == [6, 2]
    np.testing.assert_array_equal(got[3], [[0, 0]] + [[104, 124]] * 10)
    assert got[4].tolist() == [0, 1, 5, 5, 3, 3, 3, 3, 0, 0, 1]
    np.testing.assert_array_equal(got[5], [[208, 248], [1040, 1240], [0, 0], [1040, 1240], [0, 0], [832, 992]])
    assert got[6].tolist() == [0, 0, 3, 3, 0, 0, 3, 3, 0]
    np.testing.assert_array_equal(got[7][:, 0], [0, 0, 2, 2, 2, 0, 1, 1, 1])
    np.testing.assert_array_equal(got[8], [[0, 0], [16, 16], [0, 0], [0, 0], [8, 8], [0, 0]])
    np.testing.assert_allclose(updated, [[-20.8, -23.8], [-18.8, -21.8], [4, 5], [-35.6, -42.6], [8, 9],
                                         [-10.8, -13.8]], rtol=1e-6)


def test_cond_in_a_loop_reading_a_resource_variable_differentiates_as_tf():
    """The untaken branch's zeros for the handle inside the gradient loop are zeros of the variable's shape
    (TF's ZerosLike for a resource; values and names from TF 2.21)."""
    with tf.Graph().as_default():
        v = tf.get_variable("v", [3], initializer=tf.constant_initializer([1., 2., 3.]), use_resource=True)
        x = tf.placeholder(tf.float32, [])

        def body(i, a):
            r = tf.cond(i > 0, lambda: v * 2.0, lambda: tf.ones([3]))
            return i + 1, a + r * x

        _, acc = tf.while_loop(lambda i, a: i < 3, body, [0, tf.zeros([3])])
        grads = tf.gradients(tf.reduce_sum(acc), [v, x])
        assert grads[0].name == "gradients/while/cond/ReadVariableOp/Enter_grad/b_acc_3:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            dv, dx = sess.run(grads, {x: 2.0})
        assert dv.tolist() == [8.0, 8.0, 8.0] and dx == 27.0
