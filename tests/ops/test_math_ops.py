"""Math ops against NumPy: broadcasting, integer division rules, matmul forms, reductions, casts."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_elementwise_broadcasting_matches_numpy(dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3) + 1
    b = np.array([1, 2, 3], dtype=dtype)
    ta, tb = tf.constant(a), tf.constant(b)
    outputs = [ta + tb, ta - tb, ta * tb, tf.maximum(ta, tb), tf.minimum(ta, tb), ta < tb, ta >= tb, -ta,
               tf.abs(-ta), tf.square(ta)]
    expected = [a + b, a - b, a * b, np.maximum(a, b), np.minimum(a, b), a < b, a >= b, -a, a, a * a]
    for out, value, want in zip(outputs, _run(*outputs), expected):
        np.testing.assert_array_equal(value, want)
        assert value.dtype == want.dtype
        assert out.shape.as_list() == list(want.shape)


def test_integer_division_rules():
    x, y = tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])
    true, floor, mod, old = _run(x / y, x // y, x % y, tf.div(x, y))
    np.testing.assert_allclose(true, [3.5, -3.5, -3.5, 3.5])
    assert true.dtype == np.float64
    assert floor.tolist() == [3, -4, -4, 3] and mod.tolist() == [1, 1, -1, -1] and old.tolist() == [3, -4, -4, 3]
    assert tf.div(1.0, 2.0).op.type == "RealDiv" and tf.div(1, 2).op.type == "FloorDiv"
    z = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        _run(x // z, feed={z: 0})


def test_bitwise_and_logical_operators():
    i, j = tf.constant([12, 10]), tf.constant([10, 6])
    p, q = tf.constant([True, True, False]), tf.constant([True, False, False])
    values = _run(i & j, i | j, i ^ j, ~i, p & q, p | q, p ^ q, ~p)
    assert [v.tolist() for v in values] == [[8, 2], [14, 14], [6, 12], [-13, -11], [True, False, False],
                                           [True, True, False], [False, True, False], [False, False, True]]


def test_matmul_forms():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    batch = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m1 = tf.matmul(a, b)
    m2 = tf.matmul(a.T, b, transpose_a=True)
    m3 = tf.matmul(batch, b, transpose_b=True)
    m4 = tf.matmul(tf.placeholder_with_default(a, None), b)
    assert (m1.op.type, m3.op.type, m4.op.type) == ("MatMul", "BatchMatMulV2", "BatchMatMulV2")
    assert m3.shape.as_list() == [2, 3, 3] and m4.shape.ndims is None
    v1, v2, v3, v4 = _run(m1, m2, m3, m4)
    np.testing.assert_allclose(v1, a @ b)
    np.testing.assert_allclose(v2, a @ b)
    np.testing.assert_allclose(v3, batch @ b.T)
    np.testing.assert_allclose(v4, a @ b)
    c = np.array([[1 + 2j, 3j]], np.complex64)
    np.testing.assert_allclose(_run(tf.matmul(c, c, adjoint_b=True))[0], c @ c.conj().T)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        tf.matmul(a, a)


def test_reductions():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = tf.constant(x)
    outs = [tf.reduce_sum(t), tf.reduce_sum(t, 1), tf.reduce_mean(t, [0, 2], keepdims=True), tf.reduce_max(t, -1),
            tf.reduce_min(t, reduction_indices=0), tf.reduce_prod(t[0, 0]), tf.reduce_mean(tf.constant([1, 2]))]
    want = [x.sum(), x.sum(1), x.mean((0, 2), keepdims=True), x.max(-1), x.min(0), np.prod(x[0, 0]), 1]
    for out, value, expected in zip(outs, _run(*outs), want):
        np.testing.assert_allclose(value, expected)
        assert out.shape.as_list() == list(np.shape(expected))
    unknown = tf.placeholder(tf.float32)
    total = tf.reduce_sum(unknown)
    assert total.shape.as_list() == []
    assert _run(total, feed={unknown: x})[0] == x.sum()
    with pytest.raises(ValueError):
        tf.reduce_sum(t, 3)


def test_cast():
    x = tf.constant([1.7, -1.7, 2.5])
    as_int, as_bool, same = tf.cast(x, tf.int32), tf.cast(tf.constant([0, 2]), tf.bool), tf.cast(x, tf.float32)
    assert same is x and as_int.op.type == "Cast" and as_int.op.get_attr("DstT") == tf.int32
    ints, bools = _run(as_int, as_bool)
    assert ints.tolist() == [1, -1, 2] and bools.tolist() == [False, True]


def test_runtime_broadcast_error():
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        _run(x + y, feed={x: [1, 2], y: [1, 2, 3]})
