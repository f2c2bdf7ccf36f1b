"""top_k, in_top_k, linspace, cumulative_logsumexp, bincount, histograms and confusion_matrix against values,
names and messages recorded from real TensorFlow 2.21 (`tf.compat.v1`), and their gradients."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op, runtime_message

import tensorweave.compat.v1 as tf


def test_top_k_gradient_is_tfs_scatter():
    """TF's _TopKGrad: linear indices over the flattened input, ScatterNd, Reshape to the input's shape (the
    result gradients/TopKV2_grad/Reshape_3); an unknown shape stays unknown until run."""
    with tf.Graph().as_default() as g:
        x = tf.constant(np.cos(np.arange(2 * 3 * 5, dtype=np.float32)).reshape(2, 3, 5))
        values, _ = tf.nn.top_k(x, 2)
        grad = tf.gradients(tf.reduce_sum(values * values), x)[0]
        assert grad.name == "gradients/TopKV2_grad/Reshape_3:0" and grad.shape.as_list() == [2, 3, 5]
        assert g.get_operation_by_name("gradients/TopKV2_grad/ScatterNd").type == "ScatterNd"
        ph = tf.placeholder(tf.float32, [None, None])
        grad2 = tf.gradients(tf.nn.top_k(ph, 1).values, ph)[0]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(grad2, {ph: [[1., 3., 2.]]}), [[0., 1., 0.]])


def test_top_k_orders_ties_by_index():
    x = np.array([[1., 3, 3, 2], [5, 5, 5, 1]], np.float32)
    values, indices = check_op(lambda t: list(tf.nn.top_k(t, k=3)), [x],
                               [np.array([[3, 3, 2], [5, 5, 5]], np.float32), np.array([[1, 2, 3], [0, 1, 2]], np.int32)])[0]
    check_op(lambda t: list(tf.math.top_k(t, 2, index_type=tf.int64)), [x[0]],
             [np.array([3, 3], np.float32), np.array([1, 2], np.int64)])
    check_gradient(lambda t: tf.nn.top_k(t, k=2)[0], [np.array([[0.5, 2.0, -1.0], [3.0, 1.0, 2.5]])])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="input must have last dimension >= k = 3 but is 2"):
            tf.nn.top_k([[1., 2]], 3)
        with pytest.raises(ValueError, match="Dimension size, given by scalar input 1, must be non-negative but is -1"):
            tf.nn.top_k([1., 2], -1)
        k = tf.placeholder(tf.int32)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="input must have at least k columns. Had 2, needed 3"):
            sess.run(tf.nn.top_k([1., 2], k), {k: 3})


def test_in_top_k():
    check_op(lambda p: tf.nn.in_top_k(p, [2, 3], 2), [np.array([[1., 3, 3, 2], [5, 5, 5, 1]], np.float32)],
             np.array([True, False]))
    check_op(lambda p: tf.math.in_top_k(p, [1, 0], 1), [np.array([[1., np.nan, 3, 2], [5, 5, 5, 1]], np.float32)],
             np.array([False, True]))
    assert tf.nn.in_top_k([[1.]], [0], 1).name == "in_top_k/InTopKV2:0"


def test_linspace_is_tf2s_composition():
    """TF 2.21's linspace_nd: named linspace/Slice, integer ends give float64, vector ends and `axis` work,
    the values are start + delta * i (TF's float32 rounding), and it is differentiable."""
    with tf.Graph().as_default():
        t = tf.lin_space(tf.constant(1.), tf.constant(0.), 3)
        assert (t.name, t.shape.as_list()) == ("linspace/Slice:0", [3])
        assert tf.linspace([0., 1.], [1., 3.], 3, axis=-1).shape.as_list() == [2, 3]
        x = tf.constant([0.3, 2.0])
        grad = tf.gradients(tf.reduce_sum(tf.linspace(x[0], x[1], 4) * [1., 2., 3., 4.]), x)[0]
        with tf.Session() as sess:
            assert sess.run(tf.linspace(0, 1, 3)).tolist() == [0.0, 0.5, 1.0]
            assert sess.run(tf.linspace(0., [1., 2.], 3, axis=1)).tolist() == [[0.0, 0.5, 1.0], [0.0, 1.0, 2.0]]
            assert sess.run(tf.lin_space(-1.3, 2.9, 11)).tolist()[3:5] == [-0.039999961853027344, 0.3799999952316284]
            np.testing.assert_allclose(sess.run(grad), [10 / 3, 20 / 3], rtol=1e-6)
        with pytest.raises(TypeError, match="^Argument `tensor` \\(name: num\\) must be of type integer"):
            tf.linspace(0., 1., 2.5)


def test_linspace_and_cumulative_logsumexp():
    check_op(lambda: [tf.linspace(0., 1., 5), tf.lin_space(np.float64(-1), 3., 4)], [],
             [np.array([0, 0.25, 0.5, 0.75, 1], np.float32), np.array([-1.0, 0.33333333333333326, 1.6666666666666665, 3.0])])
    check_op(lambda x: [tf.math.cumulative_logsumexp(x[0]), tf.math.cumulative_logsumexp(x, axis=1, exclusive=True,
                                                                                          reverse=True)],
             [np.array([[1., 2, 3]], np.float32)],
             [np.array([1.0, 2.3132617473602295, 3.4076061248779297], np.float32),
              np.array([[3.3132617473602295, 3.0, -np.inf]], np.float32)])
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
    for exclusive in (False, True):
        for reverse in (False, True):
            # through exp: an exclusive scan starts at -inf
            check_gradient(lambda t, e=exclusive, r=reverse: tf.exp(tf.math.cumulative_logsumexp(
                t, 1, exclusive=e, reverse=r)) * tf.constant([[1.0, -2.0, 0.5]], tf.float64), [x])


def test_bincount_histograms_confusion_matrix():
    check_op(lambda a: [tf.math.bincount(a), tf.bincount(a, weights=[0.5, 1, 2, 3], minlength=6),
                        tf.bincount(a, maxlength=2, dtype=tf.float64)],
             [np.array([1, 1, 3, 0], np.int32)],
             [np.array([1, 2, 0, 1], np.int32), np.array([3, 1.5, 0, 2, 0, 0], np.float32), np.array([1., 2])],
             fully_defined=False)
    values = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15])
    check_op(lambda v: [tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5), tf.histogram_fixed_width_bins(v, [0.0, 5.0], 5)],
             [values], [np.array([2, 1, 1, 0, 2], np.int32), np.array([0, 0, 1, 2, 4, 4], np.int32)],
             fully_defined=False)
    expected = np.zeros((5, 5), np.int32)
    expected[[1, 2, 4], [2, 2, 4]] = 1
    check_op(lambda labels, p: tf.confusion_matrix(labels, p), [np.array([1, 2, 4]), np.array([2, 2, 4])], expected,
             fully_defined=False)
    weighted = np.zeros((6, 6), np.float32)
    weighted[[1, 2, 4], [2, 2, 4]] = [1, 2, 3]
    check_op(lambda labels, p: tf.math.confusion_matrix(labels, p, num_classes=6, weights=[1., 2, 3], dtype=tf.float32),
             [np.array([1, 2, 4]), np.array([2, 2, 4])], weighted, fully_defined=False)
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input arr must be non-negative!"):
            sess.run(tf.bincount([1, -1]))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"value_range should satisfy value_range\[0\] < value_range\[1\], but got '\[5, 0\]'"):
            sess.run(tf.histogram_fixed_width(values, [5.0, 0.0], 5))


def test_bincount_and_bitcast_have_no_gradient_as_in_tf():
    """TF registers no gradient for (Dense)Bincount or Bitcast: a float path through them is a LookupError,
    while an integer path (never differentiated) is fine."""
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        with pytest.raises(LookupError, match=r"No gradient defined for operation'bincount/DenseBincount' \(op "
                                              r"type: DenseBincount\)"):
            tf.gradients(tf.bincount(tf.constant([1, 2, 2]), weights=x), x)
        with pytest.raises(LookupError, match="op type: Bitcast"):
            tf.gradients(tf.bitcast(tf.constant([1.0], tf.float64) * tf.cast(x[0], tf.float64), tf.float32), x)
        assert tf.gradients(tf.cast(tf.bincount(tf.cast(x, tf.int32)), tf.float32), x) == [None]


def test_bincount_is_tf1s_bincount_v1():
    """TF 1's bincount is TF's bincount_v1 (no axis or binary_output), and a wrong call names it so."""
    with pytest.raises(TypeError, match=r"^bincount_v1\(\) got an unexpected keyword argument 'axis'$"):
        tf.math.bincount([1, 2], axis=0)


def test_bincount_is_tf2s_dense_bincount():
    """TF 2.21's bincount: a float input is cast to int32, the flattened input goes to DenseBincount, and
    the static shape and runtime errors are that op's."""
    with tf.Graph().as_default():
        counts = tf.math.bincount(tf.constant([[1, 1], [3, 5]]), minlength=7)
        assert (counts.name, counts.shape.as_list()) == ("bincount/DenseBincount:0", [7])
        floats = tf.bincount(tf.constant([0.5, 1.5, 2.0]))
        assert tf.bincount(tf.placeholder(tf.int32, [None])).shape.as_list() == [None]
        size = tf.placeholder(tf.int32)
        raw = tf.raw_ops.DenseBincount
        assert raw(input=tf.placeholder(tf.int32, [None, 4]), size=size, weights=[]).shape.as_list() == [None, None]
        assert raw(input=tf.placeholder(tf.int32, [3, 4]), size=5, weights=[]).shape.as_list() == [3, 5]
        assert raw(input=3, size=3, weights=[]).shape.as_list() == [3]
        rows = raw(input=[[1, 1], [2, 0]], size=3, weights=[[2.0, 3.0], [1.0, 4.0]])
        binary = raw(input=[1, 1, 5], size=3, weights=[2.0, 3.0, 1.0], binary_output=True)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(counts), [0, 2, 0, 1, 0, 1, 0])
            np.testing.assert_array_equal(sess.run(floats), [1, 1, 1])
            np.testing.assert_array_equal(sess.run(rows), [[0, 5, 0], [4, 0, 1]])
            np.testing.assert_array_equal(sess.run(binary), [0, 1, 0])
            for t, message in [
                (raw(input=[[1, 1], [2, -1]], size=3, weights=[]),
                 "Input 'in' must be non-negative! Negative input value found: -1"),
                (tf.bincount(tf.constant([1, 2]), weights=tf.constant([1.0])),
                 "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as all "
                 "weights equal to 1. Received [1]"),
                (raw(input=[1], size=size, weights=[]), "size (-2) must be non-negative")]:
                with pytest.raises(tf.errors.InvalidArgumentError) as err:
                    sess.run(t, {size: -2})
                assert runtime_message(err.value).startswith(message)


def test_ops_of_several_outputs_give_tfs_namedtuples():
    # TF's generated wrappers return a namedtuple named after the op with its output args' names, and
    # Session.run fills the same namedtuple with values (recorded from TF 2.21)
    x = tf.constant([[4.0, 1.0], [2.0, 3.0]])
    results = {"TopKV2": tf.nn.top_k([1, 3, 2], 2), "Qr": tf.linalg.qr(x), "Lu": tf.linalg.lu(x),
               "LogMatrixDeterminant": tf.linalg.slogdet(x), "ListDiff": tf.setdiff1d([1, 2, 3], [2]),
               "UniqueWithCounts": tf.unique_with_counts([1, 1, 2])}
    fields = {"TopKV2": ("values", "indices"), "Qr": ("q", "r"), "Lu": ("lu", "p"),
              "LogMatrixDeterminant": ("sign", "log_abs_determinant"), "ListDiff": ("out", "idx"),
              "UniqueWithCounts": ("y", "idx", "count")}
    for name, result in results.items():
        assert (type(result).__name__, result._fields) == (name, fields[name])
    assert type(tf.linalg.eigh(x)) is tuple  # a Python wrapper's plain tuple, as TF's
    with tf.Session() as sess:
        top = sess.run(results["TopKV2"])
    assert type(top).__name__ == "TopKV2" and top.values.tolist() == [3, 2] and top.indices.tolist() == [1, 2]


def test_confusion_matrix_is_tfs_scatter_nd_with_bound_checks():
    """TF 2.21's composition: its result is a ScatterNd, and a label out of bound fails its assert."""
    with tf.Graph().as_default():
        cm = tf.confusion_matrix([0, 1, 2, 2, 1, 0, 3], [0, 2, 2, 1, 1, 0, 0], num_classes=4,
                                 weights=[1., 2., 1., 1., 0., 1., 1.])
        assert cm.name == "confusion_matrix/ScatterNd:0" and cm.dtype == tf.int32
        with tf.Session() as sess:
            assert sess.run(cm).tolist() == [[2, 0, 0, 0], [0, 0, 2, 0], [0, 1, 1, 0], [1, 0, 0, 0]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
                sess.run(tf.confusion_matrix([0, 5], [1, 1], num_classes=3))


def test_sparse_bincount_per_row_and_whole():
    """TF 2.21's SparseBincount: per row of a 2-D input, over all values of a 1-D one; negatives dropped."""
    indices = np.array([[0, 1], [1, 0], [1, 2], [2, 3]], np.int64)
    with tf.Graph().as_default(), tf.Session() as sess:
        rows = tf.raw_ops.SparseBincount(indices=indices, values=[1, 2, 3, -4], dense_shape=[3, 4], size=4,
                                         weights=tf.constant([], tf.float32), binary_output=False)
        whole = tf.raw_ops.SparseBincount(indices=[[0], [3], [5]], values=tf.constant([1, 2, 2], tf.int64),
                                          dense_shape=[7], size=tf.constant(3, tf.int64),
                                          weights=tf.constant([0.5, 1.0, 2.0], tf.float64), binary_output=False)
        assert rows.shape.as_list() == [3, 4] and whole.shape.as_list() == [3]
        got_rows, got_whole = sess.run([rows, whole])
    assert got_rows.tolist() == [[0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 0]]
    assert got_whole.tolist() == [0.0, 0.5, 3.0]


def test_top_k_unsorted_gives_tfs_heap_order():
    # recorded from TF: sorted=False leaves gtl::TopN's heap order (the lowest kept value first); k == 1 and
    # k == n are sorted anyway
    rows = np.float32([[4, 5, 0, 3, 3, 3, 1, 3, 5, 2],
                       [4, 0, 0, 4, 2, 1, 0, 1, 5, 1]])
    long_row = np.float32([[0, 0, 3, 0, 2, 2, 0, 4, 3, 4, 5, 0, 4, 3, 5, 3, 4, 5, 1, 5, 3, 0, 0, 0, 5, 5, 1, 0, 4,
                            1, 5, 5, 3]])
    with tf.Graph().as_default(), tf.Session() as sess:
        small, long, nan, whole = sess.run([
            tf.nn.top_k(rows, 3, sorted=False), tf.nn.top_k(long_row, 16, sorted=False),
            tf.nn.top_k(np.float32([[1, np.nan, 3, 2, np.nan, 0]]), 3, sorted=False),
            tf.nn.top_k(rows, 10, sorted=False)])
    assert small.indices.tolist() == [[0, 1, 8], [3, 0, 8]] and small.values.tolist() == [[4, 5, 5], [4, 4, 5]]
    assert long.indices.tolist() == [[13, 8, 2, 28, 9, 12, 16, 31, 24, 17, 10, 7, 25, 19, 14, 30]]
    assert nan.indices.tolist() == [[0, 1, 2]]
    assert whole.indices[0].tolist() == [1, 8, 0, 3, 4, 5, 7, 9, 6, 2]
