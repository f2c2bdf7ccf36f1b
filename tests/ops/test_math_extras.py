"""The rest of TF1's tf.math: erfinv, ndtri, erfcinv, xlog1py, multiply_no_nan, polyval, reduce_euclidean_norm,
the approximate top-k ops, and tf.debugging.enable_check_numerics; expected values are literals recorded from
real TF 2.21 (`tf.compat.v1` in graph mode) unless NumPy computes them exactly."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op, check_tensor, runtime_message

import tensorweave.compat.v1 as tf

inf, nan = np.inf, np.nan

# float32 inputs: TF's float64 results below were computed from them rounded to float32
ERFINV_X = [-1., -0.999, -0.5, -0.1, 0., 1e-8, 0.3, 0.7, 0.9999, 1., 1.5]
# float32: TF computes ndtri((x + 1) / 2) / sqrt(2) in float32, so 1e-8 rounds away
ERFINV_32 = [-inf, -2.3267562, -0.4769363, -0.088856004, 0., 0., 0.27246267, 0.732869, 2.751035, inf, nan]
ERFINV_64 = [-inf, -2.3267563267961551e+00, -4.7693627620446988e-01, -8.8855991825306513e-02, 0.0,
             8.8622692006673974e-09, 2.7246272610552380e-01, 7.3286905988275897e-01, 2.7510354379032878e+00, inf, nan]
NDTRI_P = [-0.1, 0., 1e-300, 1e-20, 0.01, 0.025, 0.3, 0.5, 0.8, 0.975, 0.999999, 1., 1.1]
NDTRI_64 = [nan, -inf, -37.0470962993612, -9.262340089798409, -2.3263478740408408, -1.9599639845400545,
            -0.5244005127080409, 0., 0.8416212335729143, 1.959963984540054, 4.753424308817087, inf, nan]
NDTRI_32 = [nan, -inf, -inf, -9.26234, -2.3263478, -1.9599639, -0.5244005, 0., 0.8416212, 1.9599644, 4.7507577,
            inf, nan]
ERFCINV_X = [0., 0.2, 1., 1.5, 2., 1e-10, 2.5]
ERFCINV_64 = [inf, 0.9061937964329416, -0., -0.4769362762044699, -inf, 4.57282496596228, nan]


def test_erfinv_ndtri_erfcinv_values():
    check_op(lambda x: [tf.math.erfinv(x), tf.math.erfinv(tf.cast(x, tf.float64))],
             [np.array(ERFINV_X, np.float32)], [np.array(ERFINV_32, np.float32), np.array(ERFINV_64)],
             rtol=1e-6, atol=0)
    check_op(lambda x: tf.math.erfinv(x), [np.array(ERFINV_X, np.float32).astype(np.float64)], np.array(ERFINV_64),
             rtol=1e-14, atol=0)  # TF's float64 values were of the float32 inputs
    check_op(lambda p: [tf.math.ndtri(p), tf.math.ndtri(tf.cast(p, tf.float32))], [np.array(NDTRI_P)],
             [np.array(NDTRI_64), np.array(NDTRI_32, np.float32)], rtol=1e-6, atol=0)
    check_op(lambda p: tf.math.ndtri(p), [np.array(NDTRI_P)], np.array(NDTRI_64), rtol=1e-14, atol=0)
    x = np.array(ERFCINV_X, np.float32)
    check_op(lambda x: tf.math.erfcinv(tf.cast(x, tf.float64)), [x], np.array(ERFCINV_64), rtol=1e-14, atol=0)
    check_op(lambda x: tf.math.erfcinv(x), [x],
             np.array([inf, 0.9061938, -0., -0.4769363, -inf, 4.572825, nan], np.float32), rtol=1e-6, atol=0)


def test_erfinv_ndtri_graph_as_tf():
    with tf.Graph().as_default() as g:
        x = tf.constant([0.5])
        names = [tf.math.erfinv(x).op.name, tf.math.ndtri(x).op.name, tf.math.erfcinv(x, name="inv").op.name]
        assert names == ["erfinv/Erfinv", "ndtri/Ndtri", "inv/mul_1"]
        assert [op.name for op in g.get_operations() if op.name.startswith("inv/")] == [
            "inv/mul/x", "inv/mul", "inv/ndtri/Ndtri", "inv/Neg", "inv/mul_1/y", "inv/mul_1"]
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: bfloat16, float16, "
                                            "float32, float64"):
            tf.math.erfinv(tf.constant(1))
        half = tf.math.erfinv(tf.constant(0.5, tf.float16))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="No OpKernel was registered to support Op 'Erfinv'"):
            sess.run(half)  # TF's CPU kernels are float and double only


def test_erfinv_ndtri_gradients():
    check_gradient(lambda x: [tf.math.erfinv(x), tf.math.erfcinv(x + 1.0)], [np.array([-0.9, -0.2, 0.1, 0.6])])
    check_gradient(lambda p: tf.math.ndtri(p), [np.array([0.2, 0.35, 0.5, 0.8])])


def test_xlog1py_and_its_siblings():
    x = np.array([0., 1., 2., 0., 1., 3., 0.], np.float32)
    y = np.array([1., 1., 2., -1., -1., -2., nan], np.float32)
    check_op(lambda x, y: [tf.math.xlog1py(x, y), tf.math.xlogy(x, y + 1), tf.math.xdivy(x, y + 1)], [x, y],
             [np.array([0., 0.6931472, 2.1972246, 0., -inf, nan, 0.], np.float32),
              np.array([0., 0.6931472, 2.1972246, 0., -inf, nan, 0.], np.float32),
              np.array([0., 0.5, 2 / 3, 0., inf, -3., 0.], np.float32)])
    check_op(lambda x, y: tf.math.xlog1py(x, y), [np.array([0j, 1 + 1j], np.complex64),
                                                  np.array([1 + 2j, 2 - 1j], np.complex64)],
             np.array([0j, 1.4730432 + 0.8295421j], np.complex64))
    with tf.Graph().as_default():
        assert tf.math.xlog1py(1.0, 2.0).op.name == "xlog1py/Xlog1py"
    check_gradient(lambda x, y: tf.math.xlog1py(x, y), [np.array([[0.5, -1.0, 2.0]]), np.array([[0.5], [3.0]])])


def test_multiply_no_nan():
    check_op(lambda x, y: tf.math.multiply_no_nan(x, y),
             [np.array([nan, inf, 2., 3., 0.], np.float32), np.array([0., 0., nan, 4., inf], np.float32)],
             np.array([0., 0., nan, 12., nan], np.float32))
    with tf.Graph().as_default():
        a = tf.constant([[1., nan], [2., 3.]], tf.float64)
        b = tf.constant([0., 2.], tf.float64)
        product = tf.math.multiply_no_nan(a, b)
        assert (product.op.name, product.op.type) == ("multiply_no_nan", "MulNoNan")
        grads = tf.gradients(product, [a, b])
        check_tensor(grads[0], np.array([[0., 2.], [0., 2.]]))
        check_tensor(grads[1], np.array([3., nan]))
        with pytest.raises(ValueError, match="y: Tensor conversion requested dtype float32 for Tensor with "
                                             "dtype int32"):
            tf.math.multiply_no_nan(tf.constant(1.), tf.constant(1))
    check_gradient(lambda x, y: tf.math.multiply_no_nan(x, y), [np.array([[0.5, -1.0, 2.0]]),
                                                                np.array([[1.5], [0.0]])])


def test_polyval():
    check_op(lambda: [tf.math.polyval([1.0, 2.5, -4.2], 5.0), tf.math.polyval([2, 1, 0], 3),
                      tf.math.polyval([], tf.constant([1., 2.]))], [],
             [np.float32(33.3), np.int32(21), np.zeros(2, np.float32)])
    check_op(lambda x: tf.math.polyval([x, 2 * x, tf.constant(3.0, tf.float64)], x), [np.array([0.5, -2.0])],
             np.array([0.5 ** 3 + 2 * 0.5 ** 2 + 3, -8.0 + 8.0 + 3]))
    with tf.Graph().as_default():
        assert tf.math.polyval([1.0, 2.0], 3.0).op.name == "polyval/add"
        assert tf.math.polyval([], tf.constant([1.0])).op.name == "polyval_1"
        with pytest.raises(ValueError, match="Argument coeffs must be list type. Received type <class 'float'>."):
            tf.math.polyval(3.0, 2.0)
    check_gradient(lambda c, x: tf.math.polyval([c, c * 2.0, c], x), [np.array([0.3, -1.2]), np.array([1.5, 0.4])])


def test_reduce_euclidean_norm():
    i = np.array([[1, 2, 3], [1, 1, 1]], np.int32)
    check_op(lambda x: [tf.math.reduce_euclidean_norm(x), tf.math.reduce_euclidean_norm(x, [0, 1])], [i],
             [np.int32(4), np.int32(4)])
    check_op(lambda x: [tf.math.reduce_euclidean_norm(x, 1, keepdims=True), tf.math.reduce_euclidean_norm(x, 0)],
             [i.astype(np.float32)], [np.sqrt([[14.], [3.]]).astype(np.float32), np.sqrt([2., 5., 10.]).astype(np.float32)])
    check_op(lambda: [tf.math.reduce_euclidean_norm(tf.constant([[3 + 4j, 1j]], tf.complex64), 1),
                      tf.math.reduce_euclidean_norm(tf.constant([[200, 200]], tf.uint8), 1),
                      tf.math.reduce_euclidean_norm(tf.zeros([0, 3]), 0)], [],
             [np.array([5.0990195 + 0j], np.complex64), np.array([11], np.uint8), np.zeros(3, np.float32)])
    with tf.Graph().as_default():
        x = tf.constant([[0.3, -2.0, 1.5], [0.0, 4.0, -1.0]], tf.float64)
        norm = tf.math.reduce_euclidean_norm(x, 1)
        assert (norm.op.name, norm.op.type) == ("EuclideanNorm", "EuclideanNorm")
        check_tensor(tf.gradients(norm, x)[0], np.array([[0.11914522061843064, -0.7943014707895376, 0.5957261030921532],
                                                         [0., 0.9701425001453319, -0.24253562503633297]]))
        with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 dimensions"):
            tf.math.reduce_euclidean_norm(x, 2)
    check_gradient(lambda x: [tf.math.reduce_euclidean_norm(x, 0), tf.math.reduce_euclidean_norm(x, keepdims=True)],
                   [np.array([[0.3, -2.0, 1.5], [0.7, 4.0, -1.0]])])


X8 = np.array([[3., 1., 4., 1., 5., 9., 2., 6.], [5., 3., 5., 8., 9., 7., 9., 3.]], np.float32)


def test_approx_max_k_is_exact_on_cpu():
    values, indices = np.array([[9., 6., 5.], [9., 9., 8.]]), np.array([[5, 7, 4], [4, 6, 3]])
    for build in (lambda x: tf.math.approx_max_k(x, 3), lambda x: tf.nn.approx_max_k(x, 3, recall_target=1.0),
                  lambda x: tf.approx_top_k(x, 3, reduction_input_size_override=100)):
        check_op(build, [X8], [values.astype(np.float32), indices.astype(np.int32)])
    check_op(lambda x: tf.math.approx_max_k(x, 3), [np.array([[1., 2., 2., 1., 2.]], np.float32)],
             [np.full((1, 3), 2.0, np.float32), np.array([[1, 2, 4]], np.int32)])
    check_op(lambda x: tf.math.approx_max_k(x, 0), [X8], [np.zeros((2, 0), np.float32), np.zeros((2, 0), np.int32)])
    for dtype in (np.float16, tf.bfloat16.as_numpy_dtype):
        check_op(lambda x: tf.math.approx_max_k(x, 2), [np.array([0.5, -1., 2.], dtype)],
                 [np.array([2., 0.5], dtype), np.array([2, 0], np.int32)])
    cube = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[..., ::-1] % 5
    check_op(lambda x: tf.math.approx_max_k(x, 2)[1], [cube],
             np.array([[[0, 1], [3, 0], [2, 3]], [[1, 2], [0, 1], [0, 1]]], np.int32))


def test_approx_top_k_graph_and_errors_as_tf():
    with tf.Graph().as_default():
        x = tf.constant(X8)
        values, indices = tf.math.approx_max_k(x, 3, aggregate_to_topk=False)
        assert type(tf.math.approx_max_k(x, 3)).__name__ == "ApproxTopK"
        assert values.op.type == "ApproxTopK" and indices.dtype == tf.int32
        assert values.shape.as_list() == [2, 8]  # the static shape keeps the dimension; the kernel gives k
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(values), [[9., 6., 5.], [9., 9., 8.]])
        assert tf.math.approx_max_k(tf.placeholder(tf.float32, [None, 3]), 2)[0].shape.as_list() == [None, 2]
        assert tf.math.approx_max_k(tf.placeholder(tf.float32, [5, None]), 2, reduction_dimension=0)[0].shape.as_list() == [2, None]
        for build, error, message in [
                (lambda: tf.math.approx_max_k(x, 9), ValueError, "input must have last dimension >= k = 9 but was 8"),
                (lambda: tf.math.approx_max_k(tf.placeholder(tf.float32, [None, None]), 2), ValueError,
                 "input must have last dimension >= k = 2 but was -1"),
                (lambda: tf.math.approx_max_k(x, 2, reduction_dimension=2), ValueError,
                 r"Invalid reduction dimension: 2. Must be within the range of \[-2, 1\]"),
                (lambda: tf.math.approx_max_k(tf.placeholder(tf.float32), 2), ValueError,
                 r"Invalid reduction dimension: -1. Must be within the range of \[1, -2\]"),
                (lambda: tf.math.approx_max_k(tf.constant(1.), 1), ValueError,
                 "Shape must be at least rank 1 but is rank 0"),
                (lambda: tf.math.approx_max_k(x, 2, recall_target=1.5), ValueError,
                 r"Invalid recall target: 1.5. Valid value range in : \[0, 1.0\]."),
                (lambda: tf.math.approx_max_k(x, 2, recall_target=0.0), ValueError, "Invalid recall target: 0. "),
                (lambda: tf.math.approx_max_k(x, -1), ValueError, "Attr 'k' of 'ApproxTopK' Op passed -1 less than "
                                                                 "minimum 0."),
                (lambda: tf.math.approx_max_k(tf.constant([1., 2.], tf.float64), 1), TypeError,
                 "DataType float64 not in list of allowed values: float16, bfloat16, float32")]:
            with pytest.raises(error, match=message):
                build()
        with tf.Session() as sess:
            for result in (tf.math.approx_min_k(x, 2), tf.nn.approx_min_k(x, 2),
                           tf.math.approx_max_k(x, 2, reduction_dimension=0)):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match="No OpKernel was registered to support Op 'ApproxTopK'"):
                    sess.run(result)


def test_approx_max_k_gradient():
    with tf.Graph().as_default():
        x = tf.constant(np.array([[3., 1., 4., 1.], [5., 9., 2., 6.], [1., 1., 1., 1.]], np.float32))
        values = tf.math.approx_max_k(x, 2)[0]
        check_tensor(tf.gradients(values * tf.constant([[1., 2.]]), x)[0],
                     np.array([[2., 0., 1., 0.], [0., 1., 0., 2.], [1., 2., 0., 0.]], np.float32))
    check_gradient(lambda x: tf.math.approx_max_k(x, 2)[0], [np.array([[0.3, -1.0, 2.5, 0.9]], np.float32)])


MESSAGE = """

!!! Detected Infinity or NaN in output 0 of graph op "Log" (# of outputs: 1) !!!
  dtype: <dtype: 'float32'>
  shape: (2,)

  Input tensor: Tensor("x:0", shape=(2,), dtype=float32)

  Stack trace of op's creation ("->": inferred user code):
"""


def test_enable_check_numerics_instruments_new_ops():
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()  # idempotent
    try:
        with tf.Graph().as_default() as g:
            x = tf.placeholder(tf.float32, [2], name="x")
            y = tf.math.log(x, name="mylog")
            z = y * 2.0
            w = tf.constant([1, 2]) + 1
            mean, variance = tf.nn.moments(tf.reshape(z, [2, 1]), [0])
    finally:
        tf.debugging.disable_check_numerics()
    tf.debugging.disable_check_numerics()  # idempotent
    ops = [(op.name, op.type) for op in g.get_operations()]
    assert ops[:11] == [
        ("x", "Placeholder"), ("x/CheckNumericsV2", "CheckNumericsV2"), ("mylog", "Log"),
        ("mylog/CheckNumericsV2", "CheckNumericsV2"), ("mul/y", "Const"), ("mul/CheckNumericsV2", "CheckNumericsV2"),
        ("mul", "Mul"), ("mul/CheckNumericsV2_1", "CheckNumericsV2"), ("Const", "Const"), ("add/y", "Const"),
        ("add", "AddV2")]  # TF's names; an int output and a Reshape (TF's safe list) are not checked
    assert z.op.type == "CheckNumericsV2" and z.op.inputs[0].name == "mul:0"
    assert w.op.type == "AddV2"
    assert g.get_operation_by_name("mylog").control_inputs == [g.get_operation_by_name("x/CheckNumericsV2")]
    with tf.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(z, {x: [1.0, 2.0]}), [0.0, 2 * np.log(2.0)], rtol=1e-6)
        with pytest.raises(tf.errors.InvalidArgumentError) as caught:
            sess.run(z, {x: [1.0, 0.0]})
        assert caught.value.op.name == "mylog/CheckNumericsV2"
        assert runtime_message(caught.value).startswith(MESSAGE.lstrip())  # TF 2 strips the message
        assert " : Tensor had -Inf values" in caught.value.message
        assert "test_math_extras.py (L" in caught.value.message
        with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had NaN values"):
            sess.run(mean, {x: [-1.0, 1.0]})
    with tf.Graph().as_default() as g:
        tf.math.log(tf.placeholder(tf.float32, name="x"))
        assert [op.type for op in g.get_operations()] == ["Placeholder", "Log"]


def test_check_numerics_v2_names_what_it_found():
    with tf.Graph().as_default(), tf.Session() as sess:
        for values, found in [([inf], "+Inf"), ([-inf], "-Inf"), ([nan], "NaN"), ([inf, -inf], "-Inf and +Inf"),
                              ([inf, nan], "+Inf and NaN"), ([-inf, nan], "-Inf and NaN"),
                              ([inf, -inf, nan], "-Inf, +Inf, and NaN")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=f"m : Tensor had {re_escape(found)} values"):
                sess.run(tf.raw_ops.CheckNumericsV2(tensor=tf.constant(values), message="m"))
        assert sess.run(tf.raw_ops.CheckNumericsV2(tensor=tf.constant([1.0]), message="m")) == [1.0]


def re_escape(text: str) -> str:
    return text.replace("+", r"\+")
