"""Math ops against NumPy: broadcasting, integer division rules, matmul forms, reductions, casts, unary math,
Select, AddN, ArgMax, Cumsum; op names, static shapes and error messages are literals recorded from real
TensorFlow 2.21 (`tf.compat.v1`)."""

import math

import numpy as np
import pytest
from op_testing import check_op, runtime_message

import tensorweave.compat.v1 as tf


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_elementwise_broadcasting_matches_numpy(dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3) + 1
    b = np.array([1, 2, 3], dtype=dtype)
    expected = [a + b, a - b, a * b, np.maximum(a, b), np.minimum(a, b), a < b, a >= b, -a, a, a * a]
    check_op(lambda ta, tb: [ta + tb, ta - tb, ta * tb, tf.maximum(ta, tb), tf.minimum(ta, tb), ta < tb, ta >= tb,
                             -ta, tf.abs(-ta), tf.square(ta)],
             [a, b], expected, rtol=0, atol=0)


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


def test_bitwise_shifts_clamp_the_shift_as_tf():
    # Recorded from TF 2.21: a shift outside [0, bits) is clamped; signed right shifts are arithmetic
    i8 = lambda values: tf.constant(values, tf.int8)  # noqa: E731
    values = _run(tf.bitwise.left_shift(i8([1, -1, 5, 3]), i8([1, 7, 9, -1])),
                  tf.bitwise.right_shift(i8([-128, -1, 64, 3]), i8([1, 7, 9, -1])),
                  tf.bitwise.right_shift(tf.constant([255, 128], tf.uint8), tf.constant([1, 8], tf.uint8)),
                  tf.bitwise.left_shift(tf.constant([1, 2 ** 30]), tf.constant([31, 40])),
                  tf.bitwise.left_shift(tf.constant([[1], [2]], tf.int64), tf.constant([1, 2], tf.int64)))
    assert [v.tolist() for v in values] == [[2, -128, -128, 3], [-64, -1, 0, 3], [127, 1], [-2 ** 31, 0],
                                           [[2, 4], [4, 8]]]
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: int8, int16"):
        tf.bitwise.left_shift(tf.constant([1.0]), tf.constant([1.0]))


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


def test_matmul_output_type_as_tf():
    """`output_type` other than an operand's type runs BatchMatMulV3 (values recorded from TF 2.21)."""
    i8 = np.array([[1, 2], [3, 4]], np.int8)
    u8 = np.array([[1, 2], [3, 200]], np.uint8)
    m1 = tf.matmul(tf.constant(u8), tf.constant(u8), output_type=tf.int32)
    m2 = tf.matmul(tf.constant(u8), tf.constant(i8), output_type=tf.int32)
    m3 = tf.matmul(tf.constant(i8[None]), i8, transpose_b=True, output_type=tf.int32)
    m4 = tf.matmul(tf.constant(i8), tf.constant(np.ones([2, 2]), tf.bfloat16), output_type=tf.bfloat16)
    m5 = tf.matmul(tf.constant(np.full([2, 2], -128, np.int8)), np.full([2, 3], -128, np.int8),
                   output_type=tf.int32)
    same = tf.matmul(np.ones([2, 2], np.float32), np.ones([2, 2], np.float32), output_type=tf.float32)
    assert [t.op.type for t in (m1, m3, m4, same)] == ["BatchMatMulV3"] * 3 + ["MatMul"]
    assert (m1.op.get_attr("Ta"), m2.op.get_attr("Tb"), m3.dtype, m3.shape.as_list()) == (
        tf.uint8, tf.int8, tf.int32, [1, 2, 2])
    v1, v2, v3, v4, v5 = _run(m1, m2, m3, m4, m5)
    assert v1.tolist() == [[7, 402], [603, 40006]] and v2.tolist() == [[7, 10], [603, 806]]
    assert v3.tolist() == [[[5, 11], [11, 25]]] and v4.tolist() == [[3, 3], [7, 7]]
    assert v5.dtype == np.int32 and v5.tolist() == [[32768] * 3] * 2
    with pytest.raises(TypeError, match="parameter 'a' has DataType int8 not in list"):
        tf.matmul(i8, i8, output_type=tf.int8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered to support Op "
                                                             "'BatchMatMulV3'"):
        with tf.Graph().as_default():
            _run(tf.matmul(np.ones([2, 2], np.float32), np.ones([2, 2], np.float32), output_type=tf.float64))


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


def _ops(skip=("x",)):
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations() if op.name not in skip]


_UNARY = [
    (tf.sqrt, "Sqrt", np.sqrt), (tf.rsqrt, "Rsqrt", lambda x: 1 / np.sqrt(x)), (tf.exp, "Exp", np.exp),
    (tf.expm1, "Expm1", np.expm1), (tf.log, "Log", np.log), (tf.log1p, "Log1p", np.log1p), (tf.sin, "Sin", np.sin),
    (tf.cos, "Cos", np.cos), (tf.tan, "Tan", np.tan), (tf.tanh, "Tanh", np.tanh),
    (tf.sigmoid, "Sigmoid", lambda x: 1 / (1 + np.exp(-x))), (tf.sign, "Sign", np.sign),
    (tf.reciprocal, "Reciprocal", np.reciprocal), (tf.round, "Round", np.round), (tf.floor, "Floor", np.floor),
    (tf.ceil, "Ceil", np.ceil), (tf.is_nan, "IsNan", np.isnan), (tf.is_inf, "IsInf", np.isinf),
    (tf.is_finite, "IsFinite", np.isfinite),
    (tf.erf, "Erf", np.vectorize(math.erf)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn, op_type, reference", _UNARY, ids=[c[1] for c in _UNARY])
def test_unary_math_matches_numpy(fn, op_type, reference, dtype):
    x = np.array([[0.25, 1.5, 2.5], [0.5, 3.0, 7.0]], dtype)

    def build(t):
        out = fn(t)
        assert out.op.type == op_type and out.name == f"{op_type}:0"
        return out
    check_op(build, [x], reference(x), dtype=np.bool_ if op_type.startswith("Is") else dtype, rtol=1e-6, atol=0)


def test_unary_math_rules():
    values = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4], np.float32)
    rounded, signs, complex_signs, huge = _run(
        tf.round(values), tf.sign([0.0, -2.0, 3.0, np.nan]), tf.sign(np.array([3 + 4j, 0], np.complex64)),
        tf.sigmoid([-1e4, 1e4]))
    assert rounded.tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 2.0]  # half to even, as TF
    np.testing.assert_array_equal(signs, [0.0, -1.0, 1.0, np.nan])
    np.testing.assert_allclose(complex_signs, [0.6 + 0.8j, 0])
    assert huge.tolist() == [0.0, 1.0]
    integers = tf.constant([1, 2])
    assert tf.round(integers) is integers  # no op for integers, as TF
    assert tf.sqrt(4.0, name="s").op.inputs[0].name == "s/x:0"
    assert tf.is_nan([1.0]).dtype == tf.bool
    with pytest.raises(TypeError, match="Value passed to parameter 'x' has DataType int32 not in list of allowed "
                                        "values: bfloat16, float16, float32, float64, complex64, complex128"):
        tf.sqrt(integers)
    with pytest.raises(TypeError, match="allowed values: bfloat16, float16, float32, float64$"):
        tf.is_nan(integers)


def test_squared_difference():
    out = tf.squared_difference([1.0, 4.0], 2.0)
    assert (out.name, out.op.inputs[0].name, out.op.inputs[1].name) == (
        "SquaredDifference:0", "SquaredDifference/x:0", "SquaredDifference/y:0")
    ints, cplx = _run(tf.squared_difference(tf.constant([1, 5]), 2),
                      tf.squared_difference(np.array([1 + 2j], np.complex64), np.array([3j], np.complex64)))
    assert _run(out)[0].tolist() == [1.0, 4.0] and ints.tolist() == [1, 9] and cplx.tolist() == [2 + 0j]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.squared_difference(tf.zeros([2]), tf.zeros([3]))


def test_add_n():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    total = tf.add_n([x, x, x])
    assert (total.name, total.op.type, total.op.get_attr("N")) == ("AddN:0", "AddN", 3)
    assert tf.add_n([x]) is x and tf.add_n([x], name="one").op.type == "Identity"
    assert tf.add_n([x, x], name="foo").name == "foo:0"
    partial = tf.add_n([tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [2, None])])
    assert partial.shape.as_list() == [2, 3]
    assert _run(tf.add_n([1, 2]))[0] == 3
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(_run(total, feed={x: feed})[0], 3 * feed)
    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are "
                                         r"\[2,3\] and \[2,4\].\n\tFrom merging shape 1 with other shapes. for "
                                         r"'\{\{node AddN_\d+\}\}"):
        tf.add_n([tf.zeros([2, 3]), tf.zeros([2, 3]), tf.zeros([2, 4])])
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 0\n\tFrom merging shape 0"):
        tf.add_n([tf.zeros([2, 3]), 1.0])
    with pytest.raises(ValueError, match="Inputs must be an iterable of at least one Tensor/IndexedSlices with the "
                                         "same dtype and shape."):
        tf.add_n([])
    with pytest.raises(TypeError, match="'NoneType' object is not iterable"):
        tf.add_n(None)
    with pytest.raises(TypeError, match=r"Tensors in list passed to 'inputs' of 'AddN' Op have types \[float32, "
                                        r"float64\] that don't all match."):
        tf.add_n([x, tf.zeros([2, 3], tf.float64)])
    a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Inputs to operation AddN_\d+ of type AddN must have "
                                                             r"the same size and shape.  Input 0: \[2\] != input 1: "
                                                             r"\[3\]"):
        _run(tf.add_n([a, b]), feed={a: [1, 2], b: [1, 2, 3]})


def test_argmax_argmin():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    first, by_row, old_name = tf.argmax(x), tf.argmax(x, 1, output_type=tf.int32), tf.argmin(x, dimension=1, name="am")
    assert _ops() == [("ArgMax/dimension", "Const"), ("ArgMax", "ArgMax"), ("ArgMax_1/dimension", "Const"),
                      ("ArgMax_1", "ArgMax"), ("am/dimension", "Const"), ("am", "ArgMin")]
    assert (first.dtype, first.shape.as_list(), by_row.dtype, old_name.shape.as_list()) == (tf.int64, [3], tf.int32,
                                                                                           [2])
    assert tf.argmax(tf.placeholder(tf.float32), 1).shape.ndims is None
    assert tf.argmax(x, tf.placeholder(tf.int32, [])).shape.as_list() == [None]
    feed = {x: [[1.0, 3.0, 3.0], [np.nan, 5.0, 0.0]]}
    values = _run(first, by_row, old_name, feed=feed)
    assert [v.tolist() for v in values] == [[0, 1, 0], [1, 1], [0, 2]]  # first on ties; NaN never wins
    assert _run(tf.argmax([True, False, True], 0))[0] == 0
    with pytest.raises(ValueError, match=r"Dimension \(2\) must be in the range \[-2, 2\), where 2 is the number of "
                                         "dimensions in the input."):
        tf.argmax(x, 2)
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'."):
        tf.argmax(x, axis=1, dimension=1)
    with pytest.raises(TypeError, match="axis must be int or Tensor with integer datatype"):
        tf.argmax(x, [1])
    with pytest.raises(TypeError, match="axis tensor dtypes int32 is not supported"):
        tf.argmax(x, np.int32(0))
    with pytest.raises(TypeError, match="Value passed to parameter 'output_type' has DataType float32 not in list "
                                        "of allowed values: int16, uint16, int32, int64"):
        tf.argmax(x, 0, output_type=tf.float32)
    a, d = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    out = tf.argmax(a, d)
    for value, axis, message in [([1.0, 2.0], 3, r"Expected dimension in the range \[-1, 1\), but got 3"),
                                 (np.zeros((0, 3)), 0, r"Reduction axis 0 is empty in shape \[0,3\]"),
                                 ([1.0, 2.0], [0], r"dim must be a scalar, but received tensor of shape: \[1\]")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(out, feed={a: value, d: axis})


def test_clip_by_value():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    out = tf.clip_by_value(x, 0.0, 1.0)
    assert _ops() == [("clip_by_value/Minimum/y", "Const"), ("clip_by_value/Minimum", "Minimum"),
                      ("clip_by_value/y", "Const"), ("clip_by_value", "Maximum")]
    assert out.name == "clip_by_value:0"
    feed = np.array([[-1.0, 0.5, 2.0], [0.0, 1.0, 9.0]], np.float32)
    np.testing.assert_array_equal(_run(out, feed={x: feed})[0], np.clip(feed, 0, 1))
    assert _run(tf.clip_by_value(tf.constant([1, 5]), 2, 3, name="cc"))[0].tolist() == [2, 3]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.clip_by_value(x, tf.zeros([3, 3]), 1.0)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2, 3\) are incompatible"):
        tf.clip_by_value(tf.zeros([3]), tf.zeros([2, 3]), 1.0)


def test_clip_by_value_of_indexed_slices_clips_their_values():
    # TF: the result stays IndexedSlices (the gather gradient's indices and dense shape), values clipped
    e = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="e")
    grad = tf.gradients(tf.reduce_sum(tf.gather(e, [2, 0, 2]) * tf.constant([[3.0], [-4.0], [0.5]])), e)[0]
    out = tf.clip_by_value(grad, -1.0, 2.5)
    assert isinstance(out, tf.IndexedSlices)
    assert (out.values.name, out.indices.name, out.dense_shape.name) == (
        "clip_by_value:0", "gradients/GatherV2_grad/Reshape_1:0", "gradients/GatherV2_grad/Shape:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out.values).tolist() == [[2.5, 2.5], [-1.0, -1.0], [0.5, 0.5]]
        assert sess.run(out.indices).tolist() == [2, 0, 2]


def test_where_selects():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    out = tf.where(x > 0, x, -x)
    assert _ops() == [("Greater/y", "Const"), ("Greater", "Greater"), ("Neg", "Neg"), ("Select", "Select")]
    rows = tf.where([True, False], x, -x, name="w")
    scalar = tf.where(True, x, -x)
    broadcast = tf.where_v2(x > 0, x, 0.0)
    assert (rows.name, scalar.op.inputs[0].name, broadcast.op.type, broadcast.shape.as_list()) == (
        "w:0", "Select_1/condition:0", "SelectV2", [2, 3])
    assert tf.where([True]).op.type == "Where"
    feed = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)
    got = _run(out, rows, scalar, broadcast, feed={x: feed})
    np.testing.assert_array_equal(got[0], np.abs(feed))
    np.testing.assert_array_equal(got[1], [feed[0], -feed[1]])
    np.testing.assert_array_equal(got[2], feed)
    np.testing.assert_array_equal(got[3], np.maximum(feed, 0))
    assert tf.where(tf.placeholder(tf.bool, [None]), tf.zeros([3, 2]), tf.placeholder(tf.float32)).shape == [3, 2]
    static_errors = [
        ((tf.constant([True, False, True]), x, -x), r"Dimension 0 in both shapes must be equal, but are 3 and 2. "
                                                    r"Shapes are \[3\] and \[2\]."),
        ((x > 0, x, 0.0), "Shapes must be equal rank, but are 2 and 0"),
        ((tf.zeros([3, 2, 1], tf.bool), tf.zeros([3, 2, 4]), tf.zeros([3, 2, 4])),
         r"Dimension 2 in both shapes must be equal, but are 4 and 1. Shapes are \[3,2,4\] and \[3,2,1\]."),
    ]
    for args, message in static_errors:
        with pytest.raises(ValueError, match=message):
            tf.where(*args)
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None."):
        tf.where(x > 0, x)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.where_v2(tf.zeros([2, 1], tf.bool), tf.zeros([3]), tf.zeros([4]))
    c, a, b = tf.placeholder(tf.bool), tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    select, select_v2 = tf.where(c, a, b), tf.where_v2(c, a, b)
    runtime_errors = [
        (select, [True, False], [1.0, 2.0], [1.0, 2.0, 3.0], r"Inputs to operation Select_\d+ of type Select must "
                                                            r"have the same size and shape.  Input 0: \[2\] != "
                                                            r"input 2: \[3\]"),
        (select, True, [1.0], [1.0, 2.0], r"'then' and 'else' must have the same size.  but received: \[1\] vs. "
                                          r"\[2\]"),
        (select, [True, False, True], [[1.0], [2.0]], [[1.0], [2.0]],
         "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3"),
        (select, [True], 1.0, 2.0, r"'then' must be at least a vector, but saw shape: \[\]"),
        (select_v2, [True, False], [1.0, 2.0], [1.0, 2.0, 3.0], r"condition \[2\], then \[2\], and else \[3\] must "
                                                               "be broadcastable"),
    ]
    for fetch, cond, then, other, message in runtime_errors:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(fetch, feed={c: cond, a: then, b: other})


def test_reduce_any_all():
    flags = np.array([[True, False], [True, True]])
    outs = [tf.reduce_any(flags), tf.reduce_all(flags, 1, keepdims=True), tf.reduce_any(flags, reduction_indices=0)]
    assert [o.op.type for o in outs] == ["Any", "All", "Any"] and outs[1].shape.as_list() == [2, 1]
    assert [v.tolist() for v in _run(*outs)] == [True, [[False], [True]], [True, True]]
    assert tf.reduce_any([True, False]).op.inputs[0].name == "Any_2/input:0"
    assert _run(tf.reduce_any(np.zeros(0, bool)))[0] == np.False_
    with pytest.raises(TypeError, match="Input 'input' of 'Any' Op has type float32 that does not match expected "
                                        "type of bool."):
        tf.reduce_any(tf.zeros([2]))
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'."):
        tf.reduce_all(flags, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'."):
        tf.reduce_sum([1.0], keepdims=True, keep_dims=True)


def test_reductions_of_python_values_and_scalars_build_as_tf():
    tf.reduce_sum([1.0, 2.0])
    assert _ops() == [("Rank/Const", "Const"), ("Rank", "Const"), ("range/start", "Const"), ("range/delta", "Const"),
                      ("range", "Range"), ("Sum/input", "Const"), ("Sum", "Sum")]
    tf.reset_default_graph()
    tf.reduce_sum(tf.constant(1.0))
    assert _ops() == [("Const", "Const"), ("Rank", "Const"), ("range/start", "Const"), ("range/delta", "Const"),
                      ("range", "Range"), ("Sum", "Sum")]


def test_reductions_of_variables_take_the_const_axes_path_as_tf():
    w = tf.Variable(tf.zeros([2, 1]), name="w")
    tf.reduce_sum(w)
    tf.reduce_mean(tf.get_variable("r", [3], use_resource=True))
    assert _ops()[-3:] == [("Const_1", "Const"), ("Mean/ReadVariableOp", "ReadVariableOp"), ("Mean", "Mean")]
    assert ("Const", "Const") in _ops() and ("Rank", "Const") not in _ops()


def test_reduce_logsumexp():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    out = tf.reduce_logsumexp(x, 1)
    assert _ops() == [
        ("ReduceLogSumExp/Max/reduction_indices", "Const"), ("ReduceLogSumExp/Max", "Max"),
        ("ReduceLogSumExp/IsFinite", "IsFinite"), ("ReduceLogSumExp/SelectV2/e", "Const"),
        ("ReduceLogSumExp/SelectV2", "SelectV2"), ("ReduceLogSumExp/StopGradient", "StopGradient"),
        ("ReduceLogSumExp/Sub", "Sub"), ("ReduceLogSumExp/Exp", "Exp"), ("ReduceLogSumExp/Sum/reduction_indices", "Const"),
        ("ReduceLogSumExp/Sum", "Sum"), ("ReduceLogSumExp/Log", "Log"), ("ReduceLogSumExp/Shape", "Shape"),
        ("ReduceLogSumExp/Reshape", "Reshape"), ("ReduceLogSumExp", "AddV2")]
    assert out.name == "ReduceLogSumExp:0" and out.shape.as_list() == [2]
    kept, total, unknown = (tf.reduce_logsumexp(x, 1, keepdims=True), tf.reduce_logsumexp(x),
                            tf.reduce_logsumexp(tf.placeholder(tf.float32)))
    assert (kept.shape.as_list(), total.shape.as_list(), unknown.shape.as_list()) == ([2, 1], [], [])
    feed = np.array([[1e4, 1e4, 0.0], [-np.inf, -np.inf, -np.inf]], np.float32)
    rows, kept_rows = _run(out, kept, feed={x: feed})
    np.testing.assert_allclose(rows, [1e4 + np.log(2), -np.inf])
    np.testing.assert_allclose(kept_rows, [[1e4 + np.log(2)], [-np.inf]])
    assert _run(tf.reduce_logsumexp([np.inf, 1.0]))[0] == np.inf
    with pytest.raises(TypeError, match="parameter 'x' has DataType int32 not in list of allowed values"):
        tf.reduce_logsumexp(tf.zeros([2, 3], tf.int32))


def test_count_nonzero():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    out = tf.count_nonzero(x, 1, dtype=tf.int32)
    assert _ops() == [("count_nonzero/zeros", "Const"), ("count_nonzero/NotEqual", "NotEqual"),
                      ("count_nonzero/Cast", "Cast"), ("count_nonzero/Sum/reduction_indices", "Const"),
                      ("count_nonzero/Sum", "Sum"), ("count_nonzero/Cast_1", "Cast")]
    total, flags, strings = (tf.count_nonzero(x), tf.count_nonzero(x > 0, keepdims=True),
                             tf.count_nonzero(tf.constant(["a", "", "b"])))
    assert (total.name, total.dtype, flags.shape.as_list(), out.dtype) == ("count_nonzero_1/Sum:0", tf.int64,
                                                                          [1, 1], tf.int32)
    feed = np.array([[0.0, 1.0, 0.01], [-1.0, 0.0, 0.0]], np.float32)
    assert [v.tolist() for v in _run(out, total, flags, strings, feed={x: feed})] == [[2, 1], 3, [[2]], 2]
    with pytest.raises(ValueError, match="Cannot specify both 'input_tensor' and 'input'."):
        tf.count_nonzero(x, input=x)


def test_cumsum():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    out = tf.cumsum(x, 1, exclusive=True, reverse=True, name="cs")
    assert _ops() == [("cs/axis", "Const"), ("cs", "Cumsum")] and out.shape.as_list() == [2, 3]
    data = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    values = _run(tf.cumsum(data), tf.cumsum(data, 1, exclusive=True), tf.cumsum(data, -1, reverse=True),
                  tf.cumsum(data, 1, exclusive=True, reverse=True))
    assert [v.tolist() for v in values] == [[[1, 2, 3], [5, 7, 9]], [[0, 1, 3], [0, 4, 9]],
                                            [[6, 5, 3], [15, 11, 6]], [[5, 3, 0], [11, 6, 0]]]
    assert values[0].dtype == np.int32
    with pytest.raises(TypeError, match="parameter 'x' has DataType bool not in list of allowed values"):
        tf.cumsum(x > 0)
    a, d = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    fetch = tf.cumsum(a, d)
    for axis, message in [(1, r"ScanOp: Expected scan axis in the range \[-1, 1\), but got 1"),
                          (-3, r"ScanOp: Expected scan axis in the range \[-1, 1\), but got -2"),  # shifted by rank
                          ([0], r"ScanOp: axis must be a scalar, not \[1\]")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(fetch, feed={a: [1.0, 2.0], d: axis})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"range \[-2, 2\), but got -1\n"):
        _run(tf.math.cumulative_logsumexp(np.zeros((2, 3), np.float32), axis=-3))


# -- Edge cases found by the differential harness (difftest/snippets_ops.py); literals recorded from TF --


def _runtime_message(fetch, feed=None, error=tf.errors.InvalidArgumentError):
    with pytest.raises(error) as info:
        _run(fetch, feed=feed)
    return runtime_message(info.value).split("\n")[0]


def test_float_floor_division_and_mod_are_floor_of_quotient_and_fmod():
    inf = float("inf")
    quotient, remainder = _run(
        tf.floordiv(tf.constant([inf, -inf, 1.0, -1.0, 0.0]), tf.constant([2.0, 2.0, inf, inf, -1.0])),
        tf.floormod(tf.constant([inf, 1.0, -1.0, -0.0, 5.0, -5.0]), tf.constant([2.0, inf, inf, 2.0, -3.0, 3.0])))
    assert quotient.tolist() == [inf, -inf, 0.0, 0.0, 0.0] and np.signbit(quotient).tolist() == [
        False, True, False, True, True]
    assert np.isnan(remainder[0]) and remainder[1:].tolist() == [1.0, inf, 0.0, -1.0, 1.0]
    assert np.signbit(remainder[3])


def test_integer_pow_with_negative_exponent_fails_at_run_time():
    e = tf.placeholder(tf.int32)
    message = "Integers to negative integer powers are not allowed"
    assert _runtime_message(tf.pow(tf.constant([2, 3]), e), {e: [1, -1]}) == message
    assert _runtime_message(tf.pow(tf.constant([1]), e), {e: -2}) == message  # broadcast, not a shape error
    assert _runtime_message(tf.pow(tf.constant([1, 2]), e), {e: [-1, 1, 2]}) == "Incompatible shapes: [2] vs. [3]"


def test_empty_max_and_min_give_the_identity():
    values = _run(tf.reduce_max(tf.zeros([0])), tf.reduce_min(tf.zeros([0], tf.int32)),
                  tf.reduce_max(tf.zeros([0], tf.int8)), tf.reduce_min(tf.zeros([0], tf.uint8)),
                  tf.reduce_max(tf.zeros([2, 0], tf.float64), 1, keepdims=True), tf.reduce_min(tf.zeros([0, 3]), 0))
    assert [v.tolist() for v in values] == [-np.inf, 2147483647, -128, 255, [[-np.inf], [-np.inf]],
                                            [np.inf] * 3]
    assert [v.dtype for v in values[:4]] == [np.float32, np.int32, np.int8, np.uint8]


def test_reduction_axes_must_be_a_vector_in_range():
    with pytest.raises(ValueError, match="^Shape must be at most rank 1 but is rank 2 for '{{node Sum}}"):
        tf.reduce_sum(tf.ones([2, 3]), [[0]])
    with pytest.raises(ValueError, match=r"^Invalid reduction dimension 0 for input with 0 dimensions\. for "):
        tf.reduce_sum(tf.constant(3.0), 0)
    x = tf.placeholder(tf.float32)
    assert _runtime_message(tf.reduce_max(x, 0), {x: 3.0}) == "Invalid reduction dimension (0 for input with 0 dimension(s)"
    assert _run(tf.reduce_sum(tf.constant(3.0)))[0] == 3.0


def test_cast_to_or_from_string_is_unimplemented():
    assert _runtime_message(tf.cast(tf.constant(["1"]), tf.float32), error=tf.errors.UnimplementedError) == (
        "Cast string to float is not supported")
    assert _runtime_message(tf.cast(tf.constant([1], tf.int64), tf.string), error=tf.errors.UnimplementedError) == (
        "Cast int64 to string is not supported")
    for dtype in (tf.resource, tf.variant):
        assert _runtime_message(tf.cast(tf.constant([1.0]), dtype), error=tf.errors.UnimplementedError) == (
            f"Cast float to {dtype.name} is not supported")


@pytest.mark.parametrize("build, attrs", [
    (lambda: tf.realdiv(tf.constant([7], tf.int16), tf.constant([2], tf.int16)), "T=DT_INT16"),
    (lambda: tf.reciprocal(tf.constant([2])), "T=DT_INT32"),
    (lambda: tf.range(3, dtype=tf.uint16), "Tidx=DT_UINT16"),
    (lambda: tf.floordiv(tf.constant([1j]), tf.constant([1j])), "T=DT_COMPLEX128"),
    (lambda: tf.matmul(tf.ones([1, 1], tf.uint8), tf.ones([1, 1], tf.uint8)),
     "T=DT_UINT8, grad_a=false, grad_b=false, transpose_a=false, transpose_b=false"),  # TF's order varies
])
def test_dtypes_tf_has_no_cpu_kernel_for_fail_at_run_time(build, attrs):
    t = build()
    message = _runtime_message(t)
    # TF's message keeps `{{node NAME}}`: it fails placing the graph, before any step
    assert message.startswith(f"No OpKernel was registered to support Op '{t.op.type}' used by {{{{node {t.op.name}}}}} ")
    assert message.endswith(f" with these attrs: [{attrs}]")


def test_range_argument_types():
    with pytest.raises(AssertionError):
        tf.range("a")
    with pytest.raises(AssertionError):
        tf.range(tf.constant(3, tf.int8))
    with pytest.raises(ValueError, match=r"^Unsupported dtype19 for '{{node range_2}} = Range\[Tidx=DT_HALF\]"):
        tf.range(0, 1, 0.5, dtype=tf.float16)  # the failed calls above took the names range and range_1
    assert tf.range(0, tf.placeholder(tf.int32), dtype=tf.float16).shape.as_list() == [None]


def test_complex_abs_and_sign_compose_as_tf():
    c = tf.constant([3 + 4j, -1 - 1j, 0j], name="c")
    magnitude, direction = tf.abs(c), tf.sign(c, name="dir")
    assert _ops(skip=("c",)) == [("Abs", "ComplexAbs"), ("ComplexAbs", "ComplexAbs"), ("Cast", "Cast"),
                                 ("dir", "DivNoNan")]
    assert (magnitude.dtype, tf.abs(tf.constant([1j], tf.complex64)).dtype) == (tf.float64, tf.float32)
    values = _run(magnitude, direction)
    np.testing.assert_allclose(values[0], [5.0, np.sqrt(2), 0.0])
    np.testing.assert_allclose(values[1], [0.6 + 0.8j, -(1 + 1j) / np.sqrt(2), 0j])


def test_string_add_and_matmul_flag_errors():
    assert _run(tf.add(tf.constant("a"), "b"))[0] == b"ab"
    with pytest.raises(ValueError, match=r"^Only one of `transpose_b` and `adjoint_b` can be True\. Received "
                                         r"`transpose_b`=True, `adjoint_b`=True\.$"):
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_b=True, adjoint_b=True)


_OUT_OF_RANGE = [300.7, -300.7, 70000.7, -70000.7, 3e9, -3e9, 1e10, -1e10, float("nan"), float("inf"), -float("inf"),
                 127.9, -128.9, 255.9, 65535.5, -0.9, 32768.2, -32769.5, 32767.0, 12.5]


# Recorded from TF 2.21 on x86-64: 37 values, so that both Eigen's packets and its scalar tail are seen
@pytest.mark.parametrize("source, target, expected", [
    ("float32", "uint8", [255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 255, 255, 0, 255, 0, 255, 12, 255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 127, 128, 255, 255, 0, 0]),
    ("float32", "int8", [127, -128, 127, -128, -128, -128, -128, -128, -128, -128, -128, 127, -128, 127, 127, 0, 127, -128, 127, 12, 127, -128, 127, -128, -128, -128, -128, -128, -128, -128, -128, 127, -128, -1, -1, 0, 0]),
    ("float32", "int16", [300, -300, 32767, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, 127, -128, 255, 32767, 0, 32767, -32768, 32767, 12, 300, -300, 32767, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, 127, -128, 255, -1, 0, -32768]),
    ("float32", "uint16", [300, 0, 65535, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 255, 65535, 0, 32768, 0, 32767, 12, 300, 0, 65535, 0, 0, 0, 0, 0, 0, 0, 0, 127, 65408, 255, 65535, 0, 32768]),
    ("float64", "uint8", [255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 255, 0, 0, 0, 0, 255, 12, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 128, 255, 255, 0, 0]),
    ("float64", "int8", [127, -128, 127, -128, -128, -128, -128, -128, -128, -128, -128, 127, -128, 127, 127, 0, 127, -128, 127, 12, 127, -128, 127, -128, -128, -128, -128, -128, -128, -128, -128, 127, -128, -1, -1, 0, 0]),
    ("float64", "int16", [300, -300, 32767, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, 127, -128, 255, 32767, 0, 32767, -32768, 32767, 12, 300, -300, 32767, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, 127, -128, 255, -1, 0, -32768]),
    ("float64", "uint16", [300, 0, 65535, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 255, 65535, 0, 32768, 0, 32767, 12, 300, 0, 65535, 0, 0, 0, 0, 0, 0, 0, 0, 127, 65408, 255, 65535, 0, 32768]),
    ("float16", "uint8", [255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 255, 0, 0, 0, 0, 0, 12, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 128, 255, 0, 0, 0]),
    ("float16", "int8", [127, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 127, -128, 127, -128, 0, 127, -128, 127, 12, 127, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 127, -128, -1, 0, 0, 0]),
    ("float16", "int16", [300, -300, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, 127, -128, 255, -32768, 0, 32767, -32768, 32767, 12, 300, -300, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768, 127, -128, 255, 0, 0, -32768]),
    ("float16", "uint16", [300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 255, 0, 0, 32768, 0, 32768, 12, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 65408, 255, 0, 0, 32768]),
])
def test_float_cast_to_small_ints_saturates_in_packets_and_wraps_the_tail(source, target, expected):
    values = np.resize(np.array(_OUT_OF_RANGE), 37)
    with np.errstate(over="ignore"):  # float16 turns the large values into inf, as TF's conversion does
        x = tf.constant(values, getattr(tf, source))
    with tf.Session() as sess:
        assert sess.run(tf.cast(x, getattr(tf, target))).tolist() == expected


@pytest.mark.parametrize("source, target, expected", [  # TF 2.21 on x86
    ("float32", "uint32", [3000000000, 2147483648, 2147483648, 4294967295, 2147483648, 2500000000, 2147483648,
                           2147483648, 0, 0, 0, 0]),  # the last 12 % 8 through Eigen's scalar loop
    ("float32", "uint64", [3000000000, 4294967296, 10000000000, 18446744073709551615, 18446744070709551616,
                           2500000000, 9223372036854775808, 9223372036854775808, 9223372036854775808,
                           9999999980506447872, 9223372036854775808, 9223372036854775808]),
    ("float64", "uint32", [3000000000, 4294967295, 2147483648, 4294967295, 2147483648, 2500000000, 2147483648,
                           2147483648, 0, 0, 0, 0]),
    ("float16", "uint64", [9223372036854775808] * 3 + [18446744073709551615] + [9223372036854775808] * 8),
])
def test_float_cast_to_unsigned_32_64_wraps_in_range_else_gives_the_top_bit(source, target, expected):
    values = [3e9, 4294967295.0, 1e10, -1.0, -3e9, 2.5e9, np.nan, np.inf, -np.inf, 1e19, -1e19, 2e19]
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.cast(tf.constant(values, tf.float64), getattr(tf, source))
        assert sess.run(tf.cast(x, getattr(tf, target))).tolist() == expected


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_and_bias_add_grad_over_many_leading_rows(dtype):
    """A bias's gradient (a Sum over the leading axes of many rows, or BiasAddGrad) goes through BLAS: the sums
    of a float64 reference, within float32's rounding, in every keep_dims and axes order."""
    x = np.random.default_rng(3).standard_normal((8, 16, 10, 3)).astype(dtype)  # 1280 rows of 3
    want = x.astype(np.float64).sum(axis=(0, 1, 2))
    tolerance = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    value = tf.placeholder(dtype, x.shape)
    sums = [tf.reduce_sum(value, [0, 1, 2]), tf.reduce_sum(value, [2, 0, 1], keepdims=True),
            tf.reduce_sum(value, [0, 1]), tf.raw_ops.BiasAddGrad(out_backprop=value)]
    with tf.Session() as sess:
        flat, kept, two, bias = sess.run(sums, {value: x})
    assert flat.dtype == dtype and kept.shape == (1, 1, 1, 3) and two.shape == (10, 3)
    for result in (flat, kept.reshape(3), bias):
        np.testing.assert_allclose(result, want, **tolerance)
    np.testing.assert_allclose(two, x.astype(np.float64).sum(axis=(0, 1)), **tolerance)


def test_pow_gradient_graph_is_tfs():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.placeholder(tf.float32, [], name="y")
    tf.gradients(x ** y, [x, y])
    ops = [(op.name.removeprefix("gradients/pow_grad/"), op.type) for op in tf.get_default_graph().get_operations()
           if op.name.startswith("gradients/pow_grad/")]
    assert ops == [("mul", "Mul"), ("sub/y", "Const"), ("sub", "Sub"), ("Pow", "Pow"), ("mul_1", "Mul"),
                   ("Greater/y", "Const"), ("Greater", "Greater"), ("ones_like/Shape/shape_as_tensor", "Const"),
                   ("ones_like/Const", "Const"), ("ones_like", "Fill"), ("Select", "Select"), ("Log", "Log"),
                   ("zeros_like", "Const"), ("Select_1", "Select"), ("mul_2", "Mul"), ("mul_3", "Mul"),
                   ("Shape", "Const"), ("Shape_1", "Const"), ("Sum/reduction_indices", "Const"), ("Sum", "Sum"),
                   ("Reshape", "Reshape")]  # TF 2.21's


def test_complex_keeps_infinite_parts():
    # TF sets the parts (inf * 1j would make the real part NaN)
    values, double = _run(tf.complex([np.inf, 1.0, -np.inf], [np.inf, -np.inf, 2.0]),
                          tf.complex(np.float64(np.inf), np.float64(0.0)))
    assert values.dtype == np.complex64
    assert values.real.tolist() == [np.inf, 1.0, -np.inf] and values.imag.tolist() == [np.inf, -np.inf, 2.0]
    assert double.dtype == np.complex128 and double.real == np.inf
