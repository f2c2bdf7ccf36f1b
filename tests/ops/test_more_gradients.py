"""Gradients of the ops that had none (second-order activation grads, Cumprod, ClipByValue, Fill, GatherNd,
MirrorPad and MirrorPadGrad, the conv backprops, DepthwiseConv2dNative, ...): each against central
differences; the complex ones against values recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops import raw_ops
from tests.op_testing import check_gradient

_rs = np.random.RandomState(0)


def _r(*shape: int) -> np.ndarray:
    return _rs.randn(*shape)


_CASES = {
    "EluGrad": (lambda g, y: raw_ops.EluGrad(gradients=g, outputs=y), [_r(5), _r(5)]),
    "SeluGrad": (lambda g, y: raw_ops.SeluGrad(gradients=g, outputs=y), [_r(5), _r(5)]),
    "SoftplusGrad": (lambda g, x: raw_ops.SoftplusGrad(gradients=g, features=x), [_r(5), _r(5)]),
    "LeakyReluGrad": (lambda g, x: raw_ops.LeakyReluGrad(gradients=g, features=x, alpha=0.3),
                      [_r(5), _r(5) + 0.01]),
    "RsqrtGrad": (lambda a, b: raw_ops.RsqrtGrad(y=a, dy=b), [_r(5), _r(5)]),
    "Cumprod": (lambda x: tf.math.cumprod(x, axis=1, exclusive=True, reverse=True), [_r(3, 4)]),
    "ClipByValue_scalars": (lambda x, lo, hi: tf.clip_by_value(x, lo, hi), [_r(3, 4), np.array(-0.5), np.array(0.7)]),
    "ClipByValue_tensor": (lambda x, lo: tf.clip_by_value(x, lo, 0.5), [_r(3, 4), _r(3, 4) - 0.5]),
    "Fill": (lambda v: tf.fill([2, 3], v), [np.array(1.5)]),
    "PlaceholderWithDefault": (lambda v: tf.placeholder_with_default(v, [3]) * 2, [_r(3)]),
    "CheckNumerics": (lambda v: tf.check_numerics(v, "m") * 2, [_r(3)]),
    "GatherV2_axis1": (lambda p: tf.gather(p, [2, 0, 2], axis=1), [_r(2, 3, 4)]),
    "GatherV2_axis2_matrix_indices": (lambda p: tf.gather(p, [[3, 1], [0, 0]], axis=2), [_r(2, 3, 4)]),
    "GatherV2_batch_dims": (lambda p: tf.gather(p, [[0, 2], [1, 1]], axis=1, batch_dims=1), [_r(2, 3, 4)]),
    "GatherV2_negative_batch_dims": (lambda p: tf.gather(p, [[0, 2], [1, 1]], axis=1, batch_dims=-1),
                                     [_r(2, 3, 4)]),
    "GatherV2_batch_dims_axis2": (lambda p: tf.gather(p, [[0, 3, 3], [1, 1, 2]], axis=2, batch_dims=1),
                                  [_r(2, 3, 4)]),
    "GatherV2_of_gather": (lambda p: tf.gather(tf.gather(p, [1, 0, 1]), [0, 2]), [_r(2, 3)]),
    "GatherNd": (lambda p: tf.gather_nd(p, [[1, 0], [0, 2], [1, 0]]), [_r(2, 3)]),
    "GatherNd_rows": (lambda p: tf.gather_nd(p, [[1], [0], [1]]), [_r(2, 3)]),
    "MirrorPad_reflect": (lambda x: tf.pad(x, [[1, 2], [2, 1]], "REFLECT"), [_r(4, 4)]),
    "MirrorPad_symmetric": (lambda x: tf.pad(x, [[2, 1], [0, 3]], "SYMMETRIC"), [_r(3, 4)]),
    "MirrorPadGrad": (lambda x: raw_ops.MirrorPadGrad(input=x, paddings=[[1, 2], [2, 1]], mode="REFLECT"),
                      [_r(7, 7)]),
    "NextAfter": (lambda x, y: tf.math.nextafter(x, y), [_r(3), _r(3)]),
    "DepthwiseConv2dNative_same": (lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"),
                                   [_r(2, 5, 5, 3), _r(3, 3, 3, 2)]),
    "DepthwiseConv2dNative_strided": (lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "VALID"),
                                      [_r(2, 6, 5, 2), _r(2, 3, 2, 2)]),
    "Conv2DBackpropInput": (lambda f, g: tf.nn.conv2d_transpose(g, f, [2, 6, 6, 3], [1, 2, 2, 1], "SAME"),
                            [_r(3, 3, 3, 4), _r(2, 3, 3, 4)]),
    "Conv2DBackpropFilter": (lambda x, g: tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], g, [1, 1, 1, 1], "VALID"),
                             [_r(2, 5, 5, 3), _r(2, 3, 3, 4)]),
    "AvgPoolGrad": (lambda g: raw_ops.AvgPoolGrad(orig_input_shape=[1, 4, 4, 2], grad=g, ksize=[1, 2, 2, 1],
                                                  strides=[1, 2, 2, 1], padding="VALID"), [_r(1, 2, 2, 2)]),
    "Sum_of_a_scalar": (lambda x: tf.reduce_sum(x) * 3.0, [np.array(1.5)]),
    "StridedSliceGrad": (lambda g: raw_ops.StridedSliceGrad(shape=[5, 4], begin=[1, 0], end=[4, 4], strides=[1, 2],
                                                            dy=g), [_r(3, 2)]),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_numeric_gradient(case: str) -> None:
    build, inputs = _CASES[case]
    check_gradient(build, inputs)


def test_print_gradient_passes_input_only(capsys: pytest.CaptureFixture) -> None:
    check_gradient(lambda v: tf.Print(v, [v], "x") * 2, [_r(3)])


def test_complex_gradients_and_gather_nd_slices_match_tf() -> None:
    with tf.Graph().as_default():
        z = tf.constant([1 + 2j, -3 + 0.5j], tf.complex128)
        (angle,) = tf.gradients(tf.math.angle(z), z)
        (magnitude,) = tf.gradients(tf.abs(z), z)
        p = tf.constant([[1.0, 2, 3], [4, 5, 6]])
        (rows,) = tf.gradients(tf.gather_nd(p, [[1], [0], [1]]), p)
        assert isinstance(rows, tf.IndexedSlices)
        with tf.Session() as sess:
            angle_v, magnitude_v, rows_v = sess.run([angle, magnitude, tf.convert_to_tensor(rows)])
    np.testing.assert_allclose(angle_v, [-0.4 + 0.2j, -0.05405405 - 0.32432432j], rtol=1e-6)
    np.testing.assert_allclose(magnitude_v, [0.4472136 + 0.89442719j, -0.98639392 + 0.16439899j], rtol=1e-6)
    np.testing.assert_array_equal(rows_v, [[1, 1, 1], [2, 2, 2]])


def test_mirror_pad_grad_errors_name_the_node() -> None:
    with tf.Graph().as_default():
        folded = raw_ops.MirrorPadGrad(input=tf.zeros([3]), paddings=[[2, 1]], mode="REFLECT", name="fold")
        assert folded.shape.as_list() == [0]
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="fold"):
            sess.run(folded)


_IDX = np.array([[0, 0], [0, 1], [1, 0], [2, 2]], np.int64)


def _sp(values: tf.Tensor) -> tf.SparseTensor:
    return tf.SparseTensor(_IDX, values, [3, 3])


_SPARSE_CASES = {
    "SparseToDense": (lambda v, d: tf.sparse_to_dense(_IDX, [3, 3], v, d), [_r(4), np.array(0.5)]),
    "SparseTensorDenseMatMul": (lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b), [_r(4), _r(3, 2)]),
    "SparseTensorDenseMatMul_adjoint_a": (
        lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b, adjoint_a=True), [_r(4), _r(3, 2)]),
    "SparseTensorDenseMatMul_adjoint_b": (
        lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b, adjoint_b=True), [_r(4), _r(2, 3)]),
    "SparseTensorDenseMatMul_adjoint_both": (
        lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b, adjoint_a=True, adjoint_b=True), [_r(4), _r(2, 3)]),
    "SparseTensorDenseAdd": (lambda v, d: tf.sparse.add(_sp(v), d), [_r(4), _r(3, 3)]),
    "SparseReduceSum": (lambda v: tf.sparse.reduce_sum(_sp(v), axis=1), [_r(4)]),
    "SparseReduceSum_keepdims": (lambda v: tf.sparse.reduce_sum(_sp(v), axis=0, keepdims=True), [_r(4)]),
    "SparseDenseCwiseMul": (lambda v, d: (_sp(v) * d).values, [_r(4), _r(3)]),
    "SparseDenseCwiseDiv": (lambda v, d: (_sp(v) / d).values, [_r(4), _rs.rand(3, 3) + 1]),
    "SparseReorder": (lambda v: tf.sparse.reorder(tf.SparseTensor(_IDX[[1, 2, 3, 0]], v, [3, 3])).values
                      * np.arange(4.0), [_r(4)]),
    "SparseSoftmax": (lambda v: tf.sparse.softmax(_sp(v)).values * np.arange(1.0, 5.0), [_r(4)]),
    "SparseMatMul": (lambda a, b: tf.matmul(a, b, a_is_sparse=True),
                     [_r(3, 4).astype(np.float32), _r(4, 2).astype(np.float32)]),
    "SparseMatMul_transposed": (lambda a, b: raw_ops.SparseMatMul(a=a, b=b, transpose_a=True, transpose_b=True),
                                [_r(4, 3).astype(np.float32), _r(2, 4).astype(np.float32)]),
}


@pytest.mark.parametrize("case", sorted(_SPARSE_CASES))
def test_sparse_numeric_gradient(case: str) -> None:
    build, inputs = _SPARSE_CASES[case]
    check_gradient(build, inputs)


def test_reduction_gradients_with_axes_known_only_at_run_time():
    """Values and op types recorded from TF 2.21: Prod's gradient works for fed axes (ListDiff and
    DynamicStitch at run time), Cumprod's is 0 where the input is 0 (div_no_nan)."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    axes = tf.placeholder(tf.int32, [None], name="axes")
    prod_grad = tf.gradients(tf.reduce_prod(x, axis=axes), x)[0]
    cumprod_grad = tf.gradients(tf.cumprod(x, axis=1), x)[0]
    max_grad = tf.gradients(tf.reduce_max(x, axis=1), x)[0]
    xv = np.array([[1., 0., 2.], [3., 3., -1.]], np.float32)
    with tf.Session() as sess:
        assert sess.run(prod_grad, {x: xv, axes: [1]}).tolist() == [[0.0, 2.0, 0.0], [-3.0, -3.0, 9.0]]
        assert sess.run(prod_grad, {x: xv, axes: [0, 1]}).tolist() == [[0.0, -18.0, 0.0], [0.0, 0.0, 0.0]]
        assert sess.run(cumprod_grad, {x: xv}).tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 9.0]]
        assert sess.run(max_grad, {x: xv}).tolist() == [[0.0, 0.0, 1.0], [0.5, 0.5, 0.0]]
    types = [op.type for op in tf.get_default_graph().get_operations() if op.name.startswith("gradients/Prod_grad/")]
    assert types[:15] == ["Shape", "Const", "Reshape", "Const", "AddV2", "FloorMod", "Shape", "Const", "Const",
                          "Range", "Const", "Fill", "DynamicStitch", "Reshape", "BroadcastTo"]
    assert "ListDiff" in types and "InvertPermutation" in types


def test_sum_gradient_of_a_partly_known_shape_colocates_its_kept_dims_shape():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    tf.gradients(tf.reduce_sum(x, axis=1), x)
    stitch = tf.get_default_graph().get_operation_by_name("gradients/Sum_grad/DynamicStitch")
    assert stitch.colocation_groups() == [b"loc:@gradients/Sum_grad/Shape"]


def test_variables_made_under_colocate_with_join_the_outer_group():
    a = tf.Variable(1.0, name="a")
    with tf.colocate_with(a):
        tf.get_variable("c", [], initializer=tf.zeros_initializer())
        tf.get_variable("r", [], initializer=tf.zeros_initializer(), use_resource=True)
    graph = tf.get_default_graph()
    for name in ("c", "c/Initializer/zeros", "c/Assign", "c/read", "r", "r/Initializer/zeros"):
        assert graph.get_operation_by_name(name).colocation_groups() == [b"loc:@a"], name


def test_gather_gradient_along_an_axis_known_only_at_run_time() -> None:
    """TF's graph moves the gathered axis first with shapes computed at run time; the axis-0 form stays the
    sparse IndexedSlices built from TF's ops (Shape colocated with the params, Size, ExpandDims)."""
    params = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    axis = tf.placeholder(tf.int32, [])
    grad = tf.gradients(tf.gather(params, [2, 2], axis=axis), params)[0]
    sparse = tf.gradients(tf.gather(params, [1, 1, 0]), params)[0]
    assert isinstance(sparse, tf.IndexedSlices) and sparse.dense_shape.op.name.endswith("_grad/Shape")
    assert sparse.dense_shape.dtype == tf.int32
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(grad, {axis: 1}), np.repeat([[[0] * 4, [0] * 4, [2] * 4]], 2, 0))
        np.testing.assert_array_equal(sess.run(grad, {axis: 2})[..., 2], np.full((2, 3), 2.0))


def test_unique_and_setdiff_have_no_gradient_and_random_shuffle_stops_it_as_tf():
    """TF registers no gradient for Unique or ListDiff (LookupError) and marks RandomShuffle not differentiable."""
    x = tf.constant([1.0, 2.0, 1.0])
    for y, op_type in ((tf.unique(x)[0], "Unique"), (tf.setdiff1d(x, [2.0])[0], "ListDiff")):
        with pytest.raises(LookupError, match=f"No gradient defined for operation'{y.op.name}' \\(op type: {op_type}\\)"):
            tf.gradients(y, x)
    assert tf.gradients(tf.random_shuffle(x, seed=1), x) == [None]


_X_SECOND = np.sin(np.arange(36) * 1.3).reshape(2, 3, 3, 2).astype(np.float32)


def _second_derivatives(f, *args: tf.Tensor) -> list:
    """d/d(args) of sum(g^2), g = d/d(args[0]) of a weighted sum of f(args)^2; every fifth element."""
    y = f(*args)
    weights = tf.reshape(tf.range(1., 1. + float(np.prod(y.shape.as_list()))), y.shape) / 10.
    g1 = tf.gradients(tf.reduce_sum(y * y * weights), args[0])[0]
    with tf.Session() as s:
        return [a.ravel()[::5] for a in s.run(tf.gradients(tf.reduce_sum(g1 * g1), args))]


@pytest.mark.parametrize("case", ["depthwise", "fbn_nhwc", "fbn_nchw", "fbn_nchw_inference"])
def test_second_derivatives_of_depthwise_conv_and_fused_batch_norm(case: str) -> None:
    """DepthwiseConv2dNativeBackprop{Input,Filter} and FusedBatchNormGradV3 have gradients (TF 2.21 values)."""
    with tf.Graph().as_default():
        x = tf.constant(_X_SECOND)
        scale3 = tf.constant([1.5, -0.5, 2.])
        cases = {
            "depthwise": (lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "VALID"), x,
                          tf.constant(np.cos(np.arange(16) * 0.7).reshape(2, 2, 2, 2), tf.float32)),
            "fbn_nhwc": (lambda a, b: tf.nn.fused_batch_norm(a, b, tf.zeros([2]), epsilon=0.01)[0], x,
                         tf.constant([1.5, -0.5])),
            "fbn_nchw": (lambda a, b: tf.nn.fused_batch_norm(a, b, tf.zeros([3]), epsilon=0.01,
                                                             data_format="NCHW")[0], x, scale3),
            "fbn_nchw_inference": (lambda a, b: tf.nn.fused_batch_norm(
                a, b, tf.zeros([3]), mean=[0.1, 0.2, 0.3], variance=[1., 2., 0.5], is_training=False,
                data_format="NCHW")[0], x, scale3)}
        expected = {
            "depthwise": [[22.95, 7.14, 602.14, 22.22, 2369.0, 80.94, -664.23, 317.12],
                          [3301.28, -2970.56, 1044.51, -259.13]],
            "fbn_nhwc": [[-7.91, -0.36, -93.69, -2.41, -225.52, -3.07, -40.07, 0.48], [1817.17]],
            "fbn_nchw": [[-31.52, -70.47, -0.83, -101.21, -136.53, -1.03, -594.53, -279.3], [1023.79]],
            "fbn_nchw_inference": [[-0.04, 1.68, 0.03, 398.88, 118.1, 0.58, 3253.06, 4617.03], [976.25]]}
        for got, want in zip(_second_derivatives(*cases[case]), expected[case], strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=0.011)
