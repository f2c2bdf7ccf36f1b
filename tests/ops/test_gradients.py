"""tf.gradients: numeric checks of every op's gradient on tiny inputs, TF's op names, second derivatives,
stop_gradient, unconnected inputs, IndexedSlices from gather, and the errors."""

import numpy as np
import pytest
from op_testing import check_gradient

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(0)
A = RNG.uniform(0.2, 0.9, (2, 3))  # float64, away from every kink and pole
B = RNG.uniform(0.2, 0.9, (3,))
LABELS = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])

UNARY = {
    "Neg": tf.negative, "Abs": tf.abs, "Square": tf.square, "Sqrt": tf.sqrt, "Rsqrt": tf.rsqrt, "Exp": tf.exp,
    "Expm1": tf.math.expm1, "Log": tf.log, "Log1p": tf.log1p, "Sin": tf.sin, "Cos": tf.cos, "Tan": tf.tan,
    "Asin": tf.asin, "Acos": tf.acos, "Atan": tf.atan, "Sinh": tf.sinh, "Cosh": tf.cosh, "Asinh": tf.asinh,
    "Acosh": lambda x: tf.acosh(x + 1.5), "Atanh": tf.atanh, "Erf": tf.erf, "Tanh": tf.tanh,
    "Sigmoid": tf.sigmoid, "Reciprocal": tf.reciprocal, "Relu": lambda x: tf.nn.relu(x - 0.55),
    "Relu6": lambda x: tf.nn.relu6(x * 10 - 4), "Elu": lambda x: tf.nn.elu(x - 0.55),
    "Selu": lambda x: tf.nn.selu(x - 0.55), "Softplus": tf.nn.softplus, "Softsign": tf.nn.softsign,
    "LeakyRelu": lambda x: tf.nn.leaky_relu(x - 0.55), "Softmax": tf.nn.softmax, "LogSoftmax": tf.nn.log_softmax,
    "L2Loss": tf.nn.l2_loss, "Sum": lambda x: tf.reduce_sum(x, 1), "SumAll": tf.reduce_sum,
    "Mean": lambda x: tf.reduce_mean(x, 0), "Max": lambda x: tf.reduce_max(x, 1),
    "Min": lambda x: tf.reduce_min(x, [0, 1]), "Prod": lambda x: tf.reduce_prod(x, 1),
    "Cumsum": lambda x: tf.cumsum(x, 1, reverse=True), "Reshape": lambda x: tf.reshape(x, [3, 2]),
    "ExpandDims": lambda x: tf.expand_dims(x, 1), "Squeeze": lambda x: tf.squeeze(tf.reshape(x, [1, 6])),
    "Transpose": tf.transpose, "Identity": tf.identity, "Pack": lambda x: tf.stack([x, 2 * x], 1),
    "Unpack": lambda x: tf.unstack(x)[1], "ConcatV2": lambda x: tf.concat([x, x[:, :1]], 1),
    "Split": lambda x: tf.split(x, 3, 1)[2], "SplitV": lambda x: tf.split(x, [1, 2], 1)[1],
    "Tile": lambda x: tf.tile(x, [2, 1]), "Pad": lambda x: tf.pad(x, [[1, 0], [0, 2]]),
    "ReverseV2": lambda x: tf.reverse(x, [1]), "Slice": lambda x: tf.slice(x, [0, 1], [2, 2]),
    "StridedSlice": lambda x: x[:, ::-2], "GatherV2": lambda x: tf.gather(x, [1, 0, 1]),
    "GatherV2Axis1": lambda x: tf.gather(x, [2, 0], axis=1), "Cast": lambda x: tf.cast(x, tf.float32),
    "BroadcastTo": lambda x: tf.broadcast_to(x[:1], [4, 2, 3]), "ClipByValue": lambda x: tf.maximum(x, 0.55),
    "SoftmaxCrossEntropyWithLogits": lambda x: tf.nn.softmax_cross_entropy_with_logits_v2(LABELS, x),
    "SparseSoftmaxCrossEntropyWithLogits": lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[2, 0], logits=x),
    "Pow": lambda x: tf.pow(x, 3.0), "SelectV2": lambda x: tf.where(x > 0.5, x, x * x),
}

BINARY = {
    "Add": tf.add, "Sub": tf.subtract, "Mul": tf.multiply, "RealDiv": tf.truediv, "Maximum": tf.maximum,
    "Minimum": tf.minimum, "SquaredDifference": tf.squared_difference, "Pow": tf.pow, "Atan2": tf.atan2,
    "DivNoNan": tf.div_no_nan, "AddN": lambda x, y: tf.add_n([x, x, x * 0 + y]), "FloorMod": tf.floormod,
    "BiasAdd": tf.nn.bias_add, "MatMul": lambda x, y: tf.matmul(x, tf.reshape(y, [3, 1])),
    "MatMulT": lambda x, y: tf.matmul(tf.reshape(y, [1, 3]), x, transpose_b=True),
    "BatchMatMulV2": lambda x, y: tf.matmul(tf.reshape(x, [2, 1, 3]), tf.reshape(y, [3, 1])),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient(name):
    check_gradient(UNARY[name], [A])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_with_broadcasting(name):
    check_gradient(BINARY[name], [A, B])


def test_gradient_op_names_as_tf():
    # Recorded from TF 2.21 (tf.compat.v1 graph mode) on this graph.
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.placeholder(tf.float32, [3], name="w")
    y = tf.reduce_sum(tf.nn.relu(x * w + 1.0) + tf.sigmoid(x), name="y")
    gx, gw = tf.gradients(y, [x, w])
    assert (gx.name, gw.name) == ("gradients/AddN:0", "gradients/mul_grad/Reshape:0")
    ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations() if op.name.startswith("gradients")]
    assert ops == [
        ("gradients/Shape", "Const"), ("gradients/grad_ys_0/Const", "Const"), ("gradients/grad_ys_0", "Fill"),
        ("gradients/y_grad/Reshape/shape", "Const"), ("gradients/y_grad/Reshape", "Reshape"),
        ("gradients/y_grad/Const", "Const"), ("gradients/y_grad/Tile", "Tile"),
        ("gradients/Relu_grad/ReluGrad", "ReluGrad"), ("gradients/Sigmoid_grad/SigmoidGrad", "SigmoidGrad"),
        ("gradients/add_grad/Shape", "Const"), ("gradients/add_grad/Shape_1", "Const"),
        ("gradients/add_grad/Sum/reduction_indices", "Const"), ("gradients/add_grad/Sum", "Sum"),
        ("gradients/add_grad/Reshape", "Reshape"), ("gradients/mul_grad/Mul", "Mul"),
        ("gradients/mul_grad/Mul_1", "Mul"), ("gradients/mul_grad/Shape", "Const"),
        ("gradients/mul_grad/Shape_1", "Const"), ("gradients/mul_grad/Sum/reduction_indices", "Const"),
        ("gradients/mul_grad/Sum", "Sum"), ("gradients/mul_grad/Reshape", "Reshape"), ("gradients/AddN", "AddN"),
    ]


def test_dynamic_shapes_use_broadcast_gradient_args():
    # Recorded from TF 2.21: the dynamic path of Mul's gradient.
    x = tf.placeholder(tf.float32, None, name="x")
    z = tf.placeholder(tf.float32, [None, 3], name="z")
    gx, gz = tf.gradients(x * z, [x, z])
    assert (gx.name, gz.name) == ("gradients/mul_grad/Reshape:0", "gradients/mul_grad/Reshape_1:0")
    assert tf.get_default_graph().get_operation_by_name("gradients/mul_grad/BroadcastGradientArgs").type == \
        "BroadcastGradientArgs"
    with tf.Session() as sess:
        values = sess.run([gx, gz], {x: [[2.0], [3.0]], z: np.ones((2, 3))})
    np.testing.assert_allclose(values[0], [[3.0], [3.0]])
    np.testing.assert_allclose(values[1], [[2.0] * 3, [3.0] * 3])


def test_broadcast_gradient_args_as_tf():
    # Literals recorded from TF 2.21's BroadcastGradientArgs.
    cases = [([1, 3], [1, 3], [], []), ([2, 1, 3], [3], [1], [0, 1]), ([1], [2, 1], [0, 1], [1]),
             ([], [2, 3], [0, 1], [])]
    with tf.Session() as sess:
        for s0, s1, r0, r1 in cases:
            got = sess.run(tf.raw_ops.BroadcastGradientArgs(s0=tf.constant(s0, tf.int32),
                                                             s1=tf.constant(s1, tf.int32)))
            assert [g.tolist() for g in got] == [r0, r1]


def test_second_derivatives_and_hessians():
    x = tf.placeholder(tf.float64, [3])
    y = tf.reduce_sum(x ** 3 + tf.tanh(x) + tf.sigmoid(x))
    (g,) = tf.gradients(y, x)
    (gg,) = tf.gradients(g, x)
    (h,) = tf.hessians(y, x)
    value = np.array([0.1, 0.5, -0.3])
    t, s = np.tanh(value), 1 / (1 + np.exp(-value))
    want = 6 * value - 2 * t * (1 - t * t) + s * (1 - s) * (1 - 2 * s)
    with tf.Session() as sess:
        got_gg, got_h = sess.run([gg, h], {x: value})
    np.testing.assert_allclose(got_gg, want)
    np.testing.assert_allclose(got_h, np.diag(want))


def test_hessians_of_a_shape_known_only_at_run_time():
    # TF builds the Hessian with a while loop over a TensorArray, so x's leading dimension may be unknown
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    (h,) = tf.hessians(tf.reduce_sum(x ** 3), x)
    assert h.op.type == "Reshape" and h.shape.as_list() == [None, 3, None, 3]
    value = np.array([[1.0, 2.0, -1.0]], np.float32)
    with tf.Session() as sess:
        got = sess.run(h, {x: value})
    np.testing.assert_allclose(got, np.diag(6 * value[0]).reshape(1, 3, 1, 3))


def test_broadcast_gradient_names_follow_tf():
    # Literals recorded from TF 2.21: the reduction axes come from the static shapes where they decide them
    # (x [?] needs no reduction against a scalar b), so only b's gradient is reduced and reshaped
    x = tf.placeholder(tf.float32, [None], name="x")
    b = tf.Variable(0.5, name="b")
    gx, gb = tf.gradients(tf.reduce_sum(x + b), [x, b])
    assert (gx.name, gb.name) == ("gradients/Sum_grad/Tile:0", "gradients/add_grad/Reshape:0")
    with tf.Session() as sess:
        sess.run(b.initializer)
        assert sess.run(gb, {x: [1.0, 2.0, 3.0]}) == 3.0


def test_stop_gradient_and_stop_gradients():
    x = tf.placeholder(tf.float32, [2])
    a = x * 2.0
    y = tf.stop_gradient(x) * x + a * a
    with tf.Session() as sess:
        (g,) = sess.run(tf.gradients(y, x), {x: [1.0, 2.0]})
        np.testing.assert_allclose(g, [1.0 + 8.0, 2.0 + 16.0])
        (g,) = sess.run(tf.gradients(y, x, stop_gradients=[a]), {x: [1.0, 2.0]})
        np.testing.assert_allclose(g, [1.0, 2.0])


def test_unconnected_and_integer_paths():
    x = tf.placeholder(tf.float32, [2])
    u = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(x * 3.0) + tf.cast(tf.cast(x, tf.int32), tf.float32)
    assert tf.gradients(y, u) == [None]
    gx, gu = tf.gradients(y, [x, u], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    with tf.Session() as sess:
        gx, gu = sess.run([gx, gu], {x: [1.0, 2.0]})
    np.testing.assert_allclose(gx, [6.0, 6.0])  # y has shape [2]: the scalar sum gets both ones
    np.testing.assert_allclose(gu, [0.0, 0.0])


def test_grad_ys_and_aggregation_methods():
    x = tf.placeholder(tf.float32, [2])
    y = x * x + x
    with tf.Session() as sess:
        for method in (None, tf.AggregationMethod.ADD_N, tf.AggregationMethod.EXPERIMENTAL_TREE):
            (g,) = tf.gradients(y, x, grad_ys=[tf.constant([1.0, 10.0])], aggregation_method=method)
            np.testing.assert_allclose(sess.run(g, {x: [1.0, 2.0]}), [3.0, 50.0])


def test_gather_gives_indexed_slices_densified_with_dense():
    p = tf.placeholder(tf.float32, [4, 2])
    (g,) = tf.gradients(tf.reduce_sum(tf.gather(p, [0, 2])), p)
    assert isinstance(g, tf.IndexedSlices)
    (g2,) = tf.gradients(tf.reduce_sum(tf.gather(p, [0, 2])) + tf.reduce_sum(tf.gather(p, [2])), p)
    assert isinstance(g2, tf.IndexedSlices)  # IndexedSlices alone are concatenated
    (dense,) = tf.gradients(tf.reduce_sum(tf.gather(p, [0, 2])) + tf.reduce_sum(p * 2.0), p)
    assert isinstance(dense, tf.Tensor) and dense.op.type == "AddN"  # as TF: made dense, then summed
    with tf.Session() as sess:
        got = sess.run([tf.convert_to_tensor(g2), dense], {p: np.zeros((4, 2))})
    np.testing.assert_allclose(got[0], [[1, 1], [0, 0], [2, 2], [0, 0]])
    np.testing.assert_allclose(got[1], [[3, 3], [2, 2], [3, 3], [2, 2]])


def test_errors():
    x = tf.placeholder(tf.float32, [2])
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'bogus'"):
        tf.gradients(x, x, unconnected_gradients="bogus")
    with pytest.raises(ValueError, match="Invalid `aggregation_method` specified 7"):
        tf.gradients(x, x, aggregation_method=7)
    with pytest.raises(ValueError, match="Length mismatch. Passed 2 grad_ys for 1 ys"):
        tf.gradients(x, x, grad_ys=[x, x])
    with tf.get_default_graph().gradient_override_map({"Sin": "NoSuchGradient"}):
        y = tf.sin(x)
    with pytest.raises(LookupError, match=r"No gradient defined for operation'Sin' \(op type: Sin\)"):
        tf.gradients(y, x)
    assert tf.gradients(tf.argmax(tf.stack([x, x])), x) == [None]  # not differentiable


def test_compute_gradient_shapes():
    x = tf.placeholder(tf.float64, [2, 3])
    y = tf.reduce_sum(x * x, 1)
    with tf.Session():
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], y, [2], x_init_value=A)
    assert theoretical.shape == numerical.shape == (6, 2)
    np.testing.assert_allclose(theoretical, numerical, atol=1e-6)


def test_gradient_sums_are_added_per_device_as_tf():
    # Recorded from TF 2.21 (_MultiDeviceAddN): one AddN per device, each colocated with its first term,
    # then their sum where the aggregation happens (with colocate_gradients_with_ops: beside the forward op)
    with tf.device("/cpu:0"):
        a = tf.Variable(1.0, name="a")
    with tf.device("/cpu:1"):
        with tf.colocate_with(a):
            b = tf.multiply(a, 2.0, name="b")
        d = tf.identity(b, name="d")
        g = tf.gradients(d * a, [a])[0]
        g2 = tf.gradients(d * a, [a], colocate_gradients_with_ops=True)[0]
    assert (g.op.name, g.device, g.op.colocation_groups()) == (
        "gradients/AddN", "/device:CPU:1", [b"loc:@gradients/mul_grad/Mul_1"])
    assert (g2.op.name, g2.device, g2.op.colocation_groups()) == ("gradients_1/AddN", "/device:CPU:0", [b"loc:@a"])
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(a.initializer)
        assert sess.run([g, g2]) == [4.0, 4.0]


def test_unconnected_zeros_are_made_outside_the_gradients_scope():
    """TF returns the zeros after leaving the `gradients` name scope (names from TF 2.21)."""
    with tf.Graph().as_default():
        a, u = tf.constant([1.0, 2.0]), tf.constant(1.0)
        grads = tf.gradients(a * 3.0, [a, u], unconnected_gradients="zero")
        assert [g.name for g in grads] == ["gradients/mul_grad/Mul:0", "zeros_like:0"]


def test_unconnected_zeros_for_resource_variables_have_the_variables_shape_and_dtype():
    """A resource variable's handle gets zeros of the variable's shape (a Const) and dtype, a Fill named
    `zeros` (names and values from TF 2.21)."""
    with tf.Graph().as_default() as g:
        u = tf.Variable(1.0, use_resource=True)
        unused = tf.Variable([[2.0, 3.0]], use_resource=True)
        iv = tf.Variable([1, 2], use_resource=True)
        grads = tf.gradients(u * 2, [u, unused, iv], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        assert [(t.name, t.shape.as_list(), t.dtype) for t in grads[1:]] == [
            ("zeros:0", [1, 2], tf.float32), ("zeros_1:0", [2], tf.int32)]
        assert [(op.name, op.type) for op in g.get_operations()][-6:] == [
            ("Const", "Const"), ("zeros/Const", "Const"), ("zeros", "Fill"),
            ("Const_1", "Const"), ("zeros_1/Const", "Const"), ("zeros_1", "Fill")]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(grads)
        assert out[0] == 2.0 and out[1].tolist() == [[0.0, 0.0]] and out[2].tolist() == [0, 0]

def test_gather_gradient_is_indexed_slices_built_as_tfs():
    """Shape of the params (colocated with them), ExpandDims of the indices' (folded) size: TF 2.21's graph."""
    with tf.Graph().as_default() as g:
        emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        grad = tf.gradients(tf.reduce_sum(tf.gather(emb, [0, 2, 0]) * 2.0), emb)[0]
        assert [grad.values.name, grad.indices.name, grad.dense_shape.name] == [
            "gradients/GatherV2_grad/Reshape:0", "gradients/GatherV2_grad/Reshape_1:0",
            "gradients/GatherV2_grad/Shape:0"]
        assert grad.dense_shape.op.colocation_groups() == [b"loc:@Variable"]
        assert g.get_operation_by_name("gradients/GatherV2_grad/ExpandDims").inputs[0].op.type == "Const"
        with tf.Session() as sess:
            sess.run(emb.initializer)
            assert sess.run(tf.convert_to_tensor(grad)).tolist() == [[4.0] * 3, [0.0] * 3, [2.0] * 3, [0.0] * 3]


def test_a_call_failing_on_its_aggregation_method_or_grad_ys_count_still_takes_its_scope():
    # TF checks both inside the scope (the method as it visits the first op, after the grad_ys it built)
    with tf.Graph().as_default() as g:
        w = tf.Variable([1.0, 2.0], name="w")
        loss = tf.reduce_sum(w)
        with pytest.raises(ValueError, match=r"Invalid `aggregation_method` specified 7\. Accepted values are "
                                             r"\[0, 1, 2\]\."):
            tf.gradients(loss, w, aggregation_method=7)
        with pytest.raises(ValueError, match="Length mismatch. Passed 2 grad_ys for 1 ys"):
            tf.gradients(loss, w, grad_ys=[loss, loss])
        assert [op.name for op in g.get_operations() if op.name.startswith("gradients")] == \
            ["gradients/Shape", "gradients/grad_ys_0/Const", "gradients/grad_ys_0"]
        assert tf.gradients(loss, w)[0].name == "gradients_2/Sum_grad/Tile:0"
