"""nn ops against NumPy (numerically stable softmax and cross entropy) and against real TensorFlow 2.21
(`tf.compat.v1`): op names and types of the composed graphs, static shapes, error classes and messages
are literals recorded from it."""

import numpy as np
import pytest
from op_testing import check_op

import tensorweave.compat.v1 as tf


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed)


def _ops(skip=("x",)):
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations() if op.name not in skip]


def _log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


LOGITS = np.array([[1e4, -1e4, 0.0], [3.0, 1.0, -2.0]], np.float32)


def test_activations_match_numpy():
    x = np.array([[-3.0, -0.5, 0.0], [0.5, 4.0, 8.0]], np.float32)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    cases = [
        (tf.nn.relu, "Relu", np.maximum(x, 0)),
        (tf.nn.relu6, "Relu6", np.clip(x, 0, 6)),
        (tf.nn.elu, "Elu", np.where(x < 0, np.expm1(x), x)),
        (tf.nn.selu, "Selu", scale * np.where(x < 0, alpha * np.expm1(x), x)),
        (tf.nn.leaky_relu, "LeakyRelu", np.where(x < 0, 0.2 * x, x)),
        (tf.nn.softplus, "Softplus", np.log1p(np.exp(x))),
        (tf.nn.softsign, "Softsign", x / (1 + np.abs(x))),
        (tf.nn.sigmoid, "Sigmoid", 1 / (1 + np.exp(-x))),
        (tf.nn.tanh, "Tanh", np.tanh(x)),
    ]
    for fn, op_type, want in cases:
        def build(t, fn=fn, op_type=op_type):
            out = fn(t)
            assert out.op.type == op_type and out.name == f"{op_type}:0"
            return out
        check_op(build, [x], want, dtype=np.float32, rtol=1e-6, atol=1e-6)


def test_activation_types_and_names():
    assert tf.nn.relu6(tf.constant([1, 8])).dtype == tf.int32
    assert _run(tf.nn.relu6(tf.constant([-1, 3, 9])))[0].tolist() == [0, 3, 6]
    tf.reset_default_graph()
    leaky = tf.nn.leaky_relu(tf.constant([1, -2]))  # integers are cast to float32 first
    assert _ops(skip=()) == [("Const", "Const"), ("LeakyRelu/Cast", "Cast"), ("LeakyRelu", "LeakyRelu")]
    np.testing.assert_allclose(_run(leaky)[0], [1.0, -0.4])
    assert tf.nn.leaky_relu([1.0], alpha=0.1, name="lr").op.inputs[0].name == "lr/features:0"
    assert tf.nn.softplus(tf.constant([-100.0, 100.0])).op.get_attr("T") == tf.float32
    with pytest.raises(TypeError, match="Value passed to parameter 'features' has DataType int32 not in list of "
                                        "allowed values: float16, bfloat16, float32, float64"):
        tf.nn.elu(tf.constant([1]))


def test_softmax_and_log_softmax_are_stable():
    sm, lsm = tf.nn.softmax(LOGITS), tf.nn.log_softmax(LOGITS, name="lsm")
    assert (sm.name, sm.op.type, lsm.name, lsm.op.type) == ("Softmax:0", "Softmax", "lsm:0", "LogSoftmax")
    sm_value, lsm_value = _run(sm, lsm)
    np.testing.assert_allclose(lsm_value, _log_softmax(LOGITS), rtol=1e-6)
    np.testing.assert_allclose(lsm_value, [[0.0, -20000.0, -10000.0], [-0.13284527, -2.1328452, -5.1328454]],
                               rtol=1e-6)  # TF's values
    np.testing.assert_allclose(sm_value, np.exp(_log_softmax(LOGITS)), rtol=1e-6, atol=1e-30)
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        tf.nn.softmax(tf.constant(1.0))
    x = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits must have >= 1 dimension, got \[\]"):
        _run(tf.nn.softmax(x), feed={x: 1.0})


def test_softmax_of_non_finite_rows_as_tf():
    """TF's x86 float32 Softmax (oneDNN's) leaves rows holding NaN or +inf partly zero, lane by lane; float64
    (Eigen's), LogSoftmax and constant folding give NaN throughout. Values recorded from TF 2.21."""
    inf, nan = np.inf, np.nan
    rows = [[inf, 1, 2], [inf, inf, 0], [nan, 1, 0], [1, nan, inf], [-inf, inf, 0], [-inf, -inf, -inf],
            [nan, -inf, -inf], [-inf, -inf, 1], [1, 2, 3]]
    x32, x64 = tf.placeholder(tf.float32), tf.placeholder(tf.float64)
    sm32, lsm32, sm64 = _run(tf.nn.softmax(x32), tf.nn.log_softmax(x32), tf.nn.softmax(x64),
                             feed={x32: rows, x64: rows})
    np.testing.assert_array_equal(sm32[:8], [[nan, 0, 0], [nan, nan, 0], [nan, 0, 0], [0, nan, nan], [0, nan, 0],
                                             [nan, nan, nan], [nan, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(sm32[8], [0.090031, 0.244728, 0.665241], rtol=1e-5)
    assert np.isnan(lsm32[:7]).all() and np.isnan(sm64[:7]).all()
    np.testing.assert_array_equal(lsm32[7], [-inf, -inf, 0])
    folded = _run(tf.nn.softmax(tf.constant(rows[:7], tf.float32)))[0]
    assert np.isnan(folded).all()
    # 16 lanes, up to four partial maxima: where a lane's maximum is NaN its finite elements come out NaN
    wide = np.linspace(-1, 1, 40, dtype=np.float32).reshape(1, 40).repeat(3, 0)
    wide[0, [3, 19]] = nan
    wide[1, [5, 21, 37]] = [nan, inf, nan]
    wide[2, [0, 16, 32, 33]] = [inf, nan, 7.0, nan]
    value = _run(tf.nn.softmax(x32), feed={x32: wide})[0]
    for row, nans in zip(value, [[3, 12, 19, 28], [5, 21, 37], [0, 15, 16, 31, 33]]):
        np.testing.assert_array_equal(np.flatnonzero(np.isnan(row)), nans)
        assert not row[~np.isnan(row)].any()


def test_softmax_on_another_axis_transposes_as_tf():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
    out = tf.nn.softmax(tf.constant(x, name="x"), axis=0)
    assert _ops() == [
        ("Rank", "Const"), ("Rank_1", "Const"), ("Sub/y", "Const"), ("Sub", "Sub"), ("range/start", "Const"),
        ("range/limit", "Const"), ("range/delta", "Const"), ("range", "Range"), ("range_1/start", "Const"),
        ("range_1/delta", "Const"), ("range_1", "Range"), ("concat/values_1", "Pack"), ("concat/values_3", "Const"),
        ("concat/axis", "Const"), ("concat", "ConcatV2"), ("transpose", "Transpose"), ("Softmax", "Softmax"),
        ("Sub_1/y", "Const"), ("Sub_1", "Sub"), ("range_2/start", "Const"), ("range_2/limit", "Const"),
        ("range_2/delta", "Const"), ("range_2", "Range"), ("range_3/start", "Const"), ("range_3/delta", "Const"),
        ("range_3", "Range"), ("concat_1/values_1", "Pack"), ("concat_1/values_3", "Const"),
        ("concat_1/axis", "Const"), ("concat_1", "ConcatV2"), ("transpose_1", "Transpose")]
    assert out.name == "transpose_1:0" and out.shape.as_list() == [2, 3, 4]
    np.testing.assert_allclose(_run(out)[0], np.exp(_log_softmax(x, axis=0)), rtol=1e-6)
    negative = tf.nn.log_softmax(x, dim=-2, name="ls")
    assert negative.name == "ls:0" and negative.op.type == "Transpose"
    np.testing.assert_allclose(_run(negative)[0], _log_softmax(x, axis=1), rtol=1e-5, atol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`dim` must be in the range \[-3, 3\) where 3 is the "
                                                             "number of dimensions in the input. Received: dim=3"):
        tf.nn.softmax(x, axis=3)
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'."):
        tf.nn.softmax(x, axis=1, dim=1)


def test_bias_add():
    value = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    bias = np.array([1.0, 2.0, 3.0], np.float32)
    nchw = tf.nn.bias_add(value, bias, data_format="NCHW")
    nhwc = tf.nn.bias_add(value.reshape(2, 2, 2, 3), bias, name="ba")
    assert (nchw.name, nchw.op.type, nhwc.name) == ("BiasAdd:0", "BiasAdd", "ba:0")
    assert nchw.op.inputs[0].name == "BiasAdd/input:0" and nchw.op.get_attr("data_format") in ("NCHW", b"NCHW")
    got_nchw, got_nhwc = _run(nchw, nhwc)
    np.testing.assert_array_equal(got_nchw, value + bias.reshape(3, 1, 1))
    np.testing.assert_array_equal(got_nhwc, value.reshape(2, 2, 2, 3) + bias)
    partial = tf.nn.bias_add(tf.placeholder(tf.float32, [None, None, 4]), tf.zeros([3]), data_format="NCW")
    assert partial.shape.as_list() == [None, 3, 4]
    static_errors = [
        ((tf.zeros([2, 3]), tf.zeros([4])), "Dimensions must be equal, but are 3 and 4"),
        ((tf.zeros([3]), tf.zeros([3])), "Shape must be at least rank 2 but is rank 1"),
        ((tf.zeros([2, 3]), tf.zeros([1, 3])), "Shape must be rank 1 but is rank 2"),
    ]
    for args, message in static_errors:
        with pytest.raises(ValueError, match=message):
            tf.nn.bias_add(*args)
    with pytest.raises(ValueError, match="`data_format` must be of the form `N...C` or `NC...`. Received: "
                                         "data_format=NHCW"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([3]), data_format="NHCW")
    v, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    out = tf.nn.bias_add(v, b)
    runtime_errors = [
        ([[1.0, 2.0]], [1.0, 2.0, 3.0], r"Must provide as many biases as the last dimension of the input tensor: "
                                        r"\[3\] vs. \[1,2\]"),
        ([1.0, 2.0], [1.0, 2.0], r"Input tensor must be at least 2D: \[2\]"),
        ([[1.0, 2.0]], [[1.0, 2.0]], r"Biases must be 1D: \[1,2\]"),
    ]
    for v_value, b_value, message in runtime_errors:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(out, feed={v: v_value, b: b_value})


def test_l2_loss():
    out = tf.nn.l2_loss([1.0, 2.0], name="l")
    assert (out.name, out.op.type, out.op.inputs[0].name, out.shape.as_list()) == ("l:0", "L2Loss", "l/t:0", [])
    assert _run(out)[0] == np.float32(2.5)
    with pytest.raises(TypeError, match="parameter 't' has DataType int32 not in list of allowed values"):
        tf.nn.l2_loss(tf.constant([1, 2]))


def test_softmax_cross_entropy_with_logits_v1():
    labels = np.array([[0.2, 0.8, 0.0], [1.0, 0.0, 0.0]], np.float32)
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([2, 3]), logits=tf.placeholder(tf.float32, [2, 3],
                                                                                                 name="x"))
    prefix = "softmax_cross_entropy_with_logits_sg"
    assert [(name.replace(prefix, "P"), kind) for name, kind in _ops()] == [
        ("zeros", "Const"), ("P/labels_stop_gradient", "StopGradient"), ("P/Rank", "Const"), ("P/Shape", "Const"),
        ("P/Rank_1", "Const"), ("P/Shape_1", "Const"), ("P/Sub/y", "Const"), ("P/Sub", "Sub"),
        ("P/Slice/begin", "Pack"), ("P/Slice/size", "Const"), ("P/Slice", "Slice"), ("P/concat/values_0", "Const"),
        ("P/concat/axis", "Const"), ("P/concat", "ConcatV2"), ("P/Reshape", "Reshape"), ("P/Rank_2", "Const"),
        ("P/Shape_2", "Const"), ("P/Sub_1/y", "Const"), ("P/Sub_1", "Sub"), ("P/Slice_1/begin", "Pack"),
        ("P/Slice_1/size", "Const"), ("P/Slice_1", "Slice"), ("P/concat_1/values_0", "Const"),
        ("P/concat_1/axis", "Const"), ("P/concat_1", "ConcatV2"), ("P/Reshape_1", "Reshape"),
        ("P", "SoftmaxCrossEntropyWithLogits"), ("P/Sub_2/y", "Const"), ("P/Sub_2", "Sub"),
        ("P/Slice_2/begin", "Const"), ("P/Slice_2/size", "Pack"), ("P/Slice_2", "Slice"), ("P/Reshape_2", "Reshape")]
    assert loss.name == f"{prefix}/Reshape_2:0" and loss.shape.as_list() == [2]
    tf.reset_default_graph()
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=LOGITS, name="xe")
    assert loss.name == "xe/Reshape_2:0" and loss.op.inputs[0].op.type == "SoftmaxCrossEntropyWithLogits"
    np.testing.assert_allclose(_run(loss)[0], -(labels * _log_softmax(LOGITS)).sum(-1), rtol=1e-6)
    np.testing.assert_allclose(_run(loss)[0], [16000.0, 0.13284527], rtol=1e-6)  # TF's values
    by_columns = tf.nn.softmax_cross_entropy_with_logits(labels=labels.T, logits=LOGITS.T, dim=0)
    assert by_columns.shape.as_list() == [2]
    np.testing.assert_allclose(_run(by_columns)[0], [16000.0, 0.13284527], rtol=1e-6)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels, LOGITS)
    assert v2.name == "softmax_cross_entropy_with_logits/Reshape_2:0"
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([2, 4]), logits=tf.zeros([2, 3]))
    half = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=tf.constant(LOGITS, tf.float16))
    assert half.dtype == tf.float16 and half.name == f"{prefix}_2/Cast_1:0"


def test_softmax_cross_entropy_op_broadcasts_and_checks():
    from tensorweave.ops.nn_ops import SoftmaxCrossEntropyWithLogits

    loss, backprop = SoftmaxCrossEntropyWithLogits(features=tf.zeros([1, 3]), labels=tf.zeros([4, 3]))
    assert loss.shape.as_list() == [4] and backprop.shape.as_list() == [4, 3]
    with pytest.raises(ValueError, match="Shape must be broadcasted with rank 2, but is rank 1"):
        SoftmaxCrossEntropyWithLogits(features=tf.zeros([2]), labels=tf.zeros([2]))
    f, lab = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    loss, backprop = SoftmaxCrossEntropyWithLogits(features=f, labels=lab)
    loss_value, backprop_value = _run(loss, backprop, feed={f: [[1.0, 2.0]], lab: [0.0, 1.0]})
    np.testing.assert_allclose(loss_value, [0.31326166], rtol=1e-6)
    np.testing.assert_allclose(backprop_value, [[0.26894143, -0.2689414]], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits and labels must be broadcastable: "
                                                             r"logits_size=\[1,3\] labels_size=\[1,2\]"):
        _run(loss, feed={f: [[1.0, 2.0, 3.0]], lab: [[1.0, 0.0]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits and labels must be either 2-dimensional, or "
                                                             "broadcasted to be 2-dimensional"):
        _run(loss, feed={f: [1.0, 2.0], lab: [0.0, 1.0]})


def test_sparse_softmax_cross_entropy_with_logits():
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=LOGITS, name="sx")
    assert loss.name == "sx/sx:0" and loss.shape.as_list() == [2]
    assert loss.op.inputs[1].name == "sx/Const:0" and loss.op.get_attr("Tlabels") == tf.int32
    np.testing.assert_allclose(_run(loss)[0], -_log_softmax(LOGITS)[[0, 1], [0, 2]], rtol=1e-6)
    np.testing.assert_allclose(_run(loss)[0], [0.0, 5.1328454], rtol=1e-6)  # TF's values
    tf.reset_default_graph()
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([4, 2], tf.int64),
                                                          logits=tf.zeros([4, 2, 3]))
    prefix = "SparseSoftmaxCrossEntropyWithLogits"
    assert [(name.replace(prefix, "P"), kind) for name, kind in _ops()] == [
        ("zeros", "Const"), ("zeros_1", "Const"), ("P/Shape", "Const"), ("P/Shape_1", "Const"), ("P/Rank", "Const"),
        ("P/sub/y", "Const"), ("P/sub", "Sub"), ("P/add/y", "Const"), ("P/add", "AddV2"),
        ("P/strided_slice/stack", "Pack"), ("P/strided_slice/stack_1", "Pack"), ("P/strided_slice/stack_2", "Const"),
        ("P/strided_slice", "StridedSlice"), ("P/Reshape/shape/0", "Const"), ("P/Reshape/shape", "Pack"),
        ("P/Reshape", "Reshape"), ("P/Reshape_1/shape", "Const"), ("P/Reshape_1", "Reshape"),
        ("P/P", "SparseSoftmaxCrossEntropyWithLogits"), ("P/Reshape_2", "Reshape")]
    assert loss.shape.as_list() == [4, 2]
    np.testing.assert_allclose(_run(loss)[0], np.full((4, 2), np.log(3.0)), rtol=1e-6)
    static_errors = [
        ([0, 2, 1], "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                    r"labels.shape=\(3,\) and logits.shape=\(2, 3\)"),
        ([[0, 2]], r"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=\(1, 2\) of "
                   r"rank 2 and logits.shape=\(2, 3\) of rank 2"),
    ]
    for labels, message in static_errors:
        with pytest.raises(ValueError, match=message):
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=LOGITS)
    with pytest.raises(TypeError, match="parameter 'labels' has DataType float32 not in list of allowed values: "
                                        "int32, int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 2.0], logits=LOGITS)
    labels = tf.placeholder(tf.int32, [2])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=LOGITS)
    for bad in ([0, 3], [0, -1]):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=rf"Received a label value of {bad[1]} which is outside the valid range of \[0, 3\).  "
                                 rf"Label values: 0 {bad[1]}"):
            _run(loss, feed={labels: bad})
    labels3 = tf.placeholder(tf.int32, [3])  # TF names the smallest label when one is negative, else the largest
    loss3 = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels3, logits=np.zeros((3, 3), np.float32))
    for bad, named in (([1, 3, -1], -1), ([4, 3, 0], 4)):
        with pytest.raises(tf.errors.InvalidArgumentError, match=rf"Received a label value of {named} which"):
            _run(loss3, feed={labels3: bad})


def test_sparse_softmax_cross_entropy_by_blocks_of_rows_matches_numpy():
    """Logits of several blocks of rows (the kernel's float32/float64 path: blocks claimed by two intra-op
    threads), ragged last block, its loss and backprop (through the gradient) against float64 NumPy."""
    from tensorweave.ops.nn_ops import SparseSoftmaxCrossEntropyWithLogits

    rng = np.random.default_rng(0)
    for dtype, rtol in ((np.float32, 2e-5), (np.float64, 1e-12)):
        logits = (rng.standard_normal((37, 10000)) * 5).astype(dtype)
        labels = rng.integers(0, 10000, 37)
        loss, backprop = SparseSoftmaxCrossEntropyWithLogits(logits, labels)
        config = tf.ConfigProto(intra_op_parallelism_threads=2)
        with tf.Session(config=config) as sess:
            loss_value, backprop_value = sess.run([loss, backprop])
        wide = logits.astype(np.float64)
        log_softmax = _log_softmax(wide)
        expected = np.exp(log_softmax)
        expected[np.arange(37), labels] -= 1
        assert loss_value.dtype == dtype and backprop_value.dtype == dtype
        np.testing.assert_allclose(loss_value, -log_softmax[np.arange(37), labels], rtol=rtol)
        np.testing.assert_allclose(backprop_value, expected, rtol=rtol, atol=1e-7 if dtype == np.float32 else 1e-15)
    empty_loss, empty_backprop = _run(*SparseSoftmaxCrossEntropyWithLogits(tf.zeros([0, 5]), tf.zeros([0], tf.int64)))
    assert empty_loss.shape == (0,) and empty_backprop.shape == (0, 5)


def test_l2_loss_of_many_elements_by_blocked_dots():
    """Float32/float64 L2Loss sums BLAS dots of blocks in float64: within a few roundings of the exact sum (how
    many depends on the BLAS kernels' order of accumulation)."""
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        t = rng.standard_normal((300, 1000)).astype(dtype)
        value = _run(tf.nn.l2_loss(t))[0]
        assert value.dtype == dtype
        np.testing.assert_allclose(value, np.sum(t.astype(np.float64) ** 2) / 2, rtol=4 * np.finfo(dtype).eps)
    assert _run(tf.nn.l2_loss(tf.zeros([0, 3])))[0] == 0.0


def test_sigmoid_cross_entropy_with_logits():
    labels = np.array([[0.2, 0.8, 1.0], [0.0, 0.5, 1.0]], np.float32)
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2, 3]), logits=x)
    assert _ops() == [
        ("zeros", "Const"), ("logistic_loss/zeros_like", "Const"), ("logistic_loss/GreaterEqual", "GreaterEqual"),
        ("logistic_loss/Select", "Select"), ("logistic_loss/Neg", "Neg"), ("logistic_loss/Select_1", "Select"),
        ("logistic_loss/mul", "Mul"), ("logistic_loss/sub", "Sub"), ("logistic_loss/Exp", "Exp"),
        ("logistic_loss/Log1p", "Log1p"), ("logistic_loss", "AddV2")]
    assert loss.name == "logistic_loss:0" and loss.shape.as_list() == [2, 3]
    value = _run(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=LOGITS))[0]
    want = np.maximum(LOGITS, 0) - LOGITS * labels + np.log1p(np.exp(-np.abs(LOGITS)))
    np.testing.assert_allclose(value, want, rtol=1e-6)
    assert value[0, 0] == np.float32(8000.0)  # TF's value: no overflow
    with pytest.raises(ValueError, match=r"`logits` and `labels` must have the same shape, received \(\(2, 3\) vs "
                                         r"\(2, 4\)\)."):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2, 4]), logits=x)


def test_dropout_graph_and_values():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    out = tf.nn.dropout(x, 0.5)
    assert _ops() == [
        ("dropout/Const", "Const"), ("dropout/Mul", "Mul"), ("dropout/Shape", "Const"),
        ("dropout/random_uniform/RandomUniform", "RandomUniform"), ("dropout/GreaterEqual/y", "Const"),
        ("dropout/GreaterEqual", "GreaterEqual"), ("dropout/Const_1", "Const"), ("dropout/SelectV2", "SelectV2")]
    assert out.name == "dropout/SelectV2:0" and out.shape.as_list() == [2, 3]
    assert tf.nn.dropout(x, 1.0) is x and tf.nn.dropout(x, rate=0.0) is x
    tf.reset_default_graph()
    keep = tf.placeholder(tf.float32, [])
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    tf.nn.dropout(x, keep)
    assert _ops(skip=("x", "Placeholder")) == [
        ("sub/x", "Const"), ("sub", "Sub"), ("dropout/Const", "Const"), ("dropout/Sub", "Sub"),
        ("dropout/RealDiv", "RealDiv"), ("dropout/Shape", "Const"),
        ("dropout/random_uniform/RandomUniform", "RandomUniform"), ("dropout/GreaterEqual", "GreaterEqual"),
        ("dropout/Const_1", "Const"), ("dropout/SelectV2", "SelectV2")]
    ones = tf.ones([1000], tf.float64)
    seeded = tf.nn.dropout(ones, rate=0.25, seed=7)
    rows = tf.nn.dropout(tf.ones([50, 4]), 0.5, noise_shape=[50, 1], seed=3, name="dd")
    assert rows.op.inputs[0].op.inputs[0].op.inputs[0].name == "dd/random_uniform/shape:0"
    first, row_values = _run(seeded, rows)
    assert set(np.unique(first)) <= {0.0, 4 / 3} and 600 < np.count_nonzero(first) < 900
    assert set(np.unique(row_values)) <= {0.0, 2.0} and (row_values == row_values[:, :1]).all()
    np.testing.assert_array_equal(_run(seeded)[0], first)  # same seeds, same stream in a new session


def test_dropout_errors():
    x = tf.zeros([2, 3])
    cases = [
        (dict(keep_prob=0.5, rate=0.5), "Cannot specify both 'keep_prob' and 'rate'."),
        ({}, "`rate` must be provided. Received: rate=None"),
        (dict(keep_prob=1.5), r"`rate` must be a scalar tensor or a float in the range \[0, 1\). Received: rate=-0.5"),
        (dict(rate=1), r"`rate` must be a scalar tensor or a float in the range \[0, 1\). Received: rate=1"),
        (dict(rate=tf.zeros([2])), r"Shape \(2,\) must have rank 0"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            tf.nn.dropout(x, **kwargs)
    with pytest.raises(ValueError, match="`x.dtype` must be a floating point tensor as `x` will be scaled. "
                                         "Received: x_dtype=<dtype: 'int32'>"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)


def test_half_precision_softmax_rounds_like_tf():
    """Half rows are summed pairwise in half and scaled by the rounded reciprocal, as TF's kernel (values
    recorded from TF; a float32 computation differs in the last place)."""
    softmax, rows, log_softmax = _run(tf.nn.softmax(tf.constant([1.0, 2.0, 3.0], tf.float16)),
                                      tf.nn.softmax(tf.constant([[0.1, 0.2], [5.0, -5.0]], tf.float16)),
                                      tf.nn.log_softmax(tf.constant(np.linspace(-3, 3, 13), tf.float16)))
    assert softmax.dtype == np.float16 and softmax.tolist() == np.array([0.09003, 0.2446, 0.665], np.float16).tolist()
    assert rows.tolist() == np.array([[0.47485, 0.5249], [1.0, 4.542e-05]], np.float16).tolist()
    assert log_softmax[-3:].tolist() == np.array([-1.9316, -1.4316, -0.93115], np.float16).tolist()


def test_relu_and_maximum_tie_on_signed_zeros_as_tfs_cpu_kernel():
    """TF 2.21's kernels give the first argument on a tie only in the scalar tail after the 8-float packets:
    relu(-0.0) is -0.0 there and 0.0 inside a packet (signs recorded from TF, graph mode)."""
    def signs(values):
        return "".join("-" if np.signbit(v) else "+" for v in np.reshape(values, -1))

    with tf.Graph().as_default(), tf.Session() as sess:
        for n, expected in [(4, "----"), (9, "++++++++-"), (17, "++++++++++++++++-")]:
            x = tf.constant(np.full(n, -0.0, np.float32))
            assert [signs(v) for v in sess.run([tf.nn.relu(x), tf.maximum(x, tf.zeros(n)), tf.nn.relu6(x)])] \
                == [expected] * 3
        assert signs(sess.run(tf.minimum(tf.zeros(4), -tf.zeros(4)))) == "++++"
        assert signs(sess.run(tf.nn.relu(tf.constant(np.full(6, -0.0))))) == "++++--"
