"""CTC loss (v1 and v2 forms) with its gradient, the greedy and beam-search decoders, ctc_unique_labels and
collapse_repeated: values recorded from TF 2.21, numeric gradients, TF's errors."""

import numpy as np
import pytest
from op_testing import check_gradient, check_tensor

import tensorweave.compat.v1 as tf

LOGITS = np.array([
    [[1.62, -0.61, -0.53, -1.07, 0.87], [-2.3, 1.74, -0.76, 0.32, -0.25], [1.46, -2.06, -0.32, -0.38, 1.13]],
    [[-1.1, -0.17, -0.88, 0.04, 0.58], [-1.1, 1.14, 0.9, 0.5, 0.9], [-0.68, -0.12, -0.94, -0.27, 0.53]],
    [[-0.69, -0.4, -0.69, -0.85, -0.67], [-0.01, -1.12, 0.23, 1.66, 0.74], [-0.19, -0.89, -0.75, 1.69, 0.05]],
    [[-0.64, 0.19, 2.1, 0.12, 0.62], [0.3, -0.35, -1.14, -0.35, -0.21], [0.59, 0.84, 0.93, 0.29, 0.89]],
    [[-0.75, 1.25, 0.51, -0.3, 0.49], [-0.08, 1.13, 1.52, 2.19, -1.4], [-1.44, -0.5, 0.16, 0.88, 0.32]],
    [[-2.02, -0.31, 0.83, 0.23, 0.76], [-0.22, -0.2, 0.19, 0.41, 0.2], [0.12, -0.67, 0.38, 0.12, 1.13]],
], np.float32)
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]], np.int64)
VALUES = np.array([1, 2, 2, 0, 3, 3, 3, 1], np.int32)
SEQ_LEN = np.array([6, 4, 5], np.int32)


def _labels():
    return tf.SparseTensor(INDICES, VALUES, [3, 3])


@pytest.mark.parametrize("collapse, merge, want", [
    (False, True, [5.4505205, 5.981925, 5.9958196]),
    (True, True, [4.193393, 5.981925, 3.9793644]),
    (False, False, [5.2331476, 6.581292, 5.0660915]),
    (True, False, [5.642024, 6.581292, 4.755077]),
])
def test_ctc_loss_values(collapse, merge, want):
    with tf.Graph().as_default():
        loss = tf.nn.ctc_loss(_labels(), LOGITS, SEQ_LEN, preprocess_collapse_repeated=collapse,
                              ctc_merge_repeated=merge)
        check_tensor(loss, np.array(want, np.float32), rtol=1e-5)


def test_ctc_loss_forms():
    with tf.Graph().as_default():
        batch_major = tf.nn.ctc_loss(_labels(), np.transpose(LOGITS, (1, 0, 2)), SEQ_LEN, time_major=False)
        check_tensor(batch_major, np.array([5.4505205, 5.981925, 5.9958196], np.float32), rtol=1e-5)
        ignored = tf.nn.ctc_loss(_labels(), LOGITS, np.array([6, 1, 0], np.int32),
                                 ignore_longer_outputs_than_inputs=True)
        check_tensor(ignored, np.array([5.4505205, 0, 0], np.float32), rtol=1e-5)
        dense = np.array([[1, 2, 2], [4, 3, 0], [3, 3, 1]], np.int32)
        check_tensor(tf.nn.ctc_loss_v2(dense, LOGITS, [3, 2, 3], SEQ_LEN),
                     np.array([6.6120477, 4.246523, 7.5357494], np.float32), rtol=1e-5)
        check_tensor(tf.nn.ctc_loss_v2(dense, LOGITS, [3, 2, 3], SEQ_LEN, blank_index=2),
                     np.array([8.400522, 4.285076, 7.5505695], np.float32), rtol=1e-5)
        check_tensor(tf.nn.ctc_loss_v2(_labels(), LOGITS, None, SEQ_LEN, blank_index=-1),
                     np.array([5.4505205, 5.981925, 5.9958196], np.float32), rtol=1e-5)
        with pytest.raises(ValueError, match="`blank_index` must be provided"):
            tf.nn.ctc_loss_v2(_labels(), LOGITS, None, SEQ_LEN)


def test_ctc_loss_v2_hands_sparse_labels_to_ctc_loss():
    """With SparseTensor labels TF's ctc_loss_v2 moves the blank last and calls ctc_loss (time_major as
    given), outside the `ctc_loss_dense` scope (values recorded from TF)."""
    with tf.Graph().as_default():
        last = tf.nn.ctc_loss_v2(_labels(), LOGITS, None, SEQ_LEN, blank_index=-1)
        moved = tf.nn.ctc_loss_v2(_labels(), np.transpose(LOGITS, (1, 0, 2)), None, SEQ_LEN, logits_time_major=False,
                                  blank_index=2)
        assert (last.name, moved.name) == ("CTCLoss:0", "CTCLoss_1:0")
        check_tensor(moved, np.array([8.400523, 6.558438, 7.550569], np.float32), rtol=1e-5)


@pytest.mark.parametrize("merge", [True, False])
def test_ctc_loss_gradient(merge):
    logits = LOGITS.astype(np.float64)
    check_gradient(lambda x: tf.nn.ctc_loss(_labels(), x, SEQ_LEN, ctc_merge_repeated=merge), [logits])
    dense = np.array([[1, 2, 2], [4, 3, 0], [3, 3, 1]], np.int32)
    check_gradient(lambda x: tf.nn.ctc_loss_v2(dense, x, [3, 2, 3], SEQ_LEN, blank_index=2), [logits])


def test_ctc_loss_errors():
    x = np.zeros((2, 2, 3), np.float32)

    def fails(labels, seq_len=(2, 2)):
        with tf.Graph().as_default(), tf.Session() as sess:
            sess.run(tf.nn.ctc_loss(tf.SparseTensor(*labels), x, list(seq_len)))

    error = tf.errors.InvalidArgumentError
    with pytest.raises(error, match=r"Not enough time for target transition sequence \(required: 3, available: 2\)1You"):
        fails(([[0, 0], [1, 0], [1, 1], [1, 2]], [0, 1, 1, 0], [2, 3]))
    with pytest.raises(error, match="Labels length is zero in batch 1"):
        fails(([[0, 0]], [0], [2, 1]))
    with pytest.raises(error, match="Saw a non-null label .index >= num_classes - 1. following a null label, batch: 0 "
                                    "num_classes: 3 labels: 2,0 labels seen so far: \n"):
        fails(([[0, 0], [0, 1], [1, 0]], [2, 0, 1], [2, 2]))
    with pytest.raises(error, match=r"sequence_length\(1\) <= 2"):
        fails(([[0, 0], [1, 0]], [0, 1], [2, 1]), (2, 3))
    with pytest.raises(error, match="All labels must be nonnegative integers, batch: 0 labels: -1"):
        fails(([[0, 0], [1, 0]], [-1, 1], [2, 1]))
    with pytest.raises(error, match="is out of order"):
        fails(([[1, 0], [0, 0]], [0, 1], [2, 1]))
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Expected argument `labels` to be a SparseTensor. Received labels=.*list"):
            tf.nn.ctc_loss([[1]], x, [2, 2])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3 for '{{node CTCLoss}}"):
            tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [1, 0]], [0, 1], [2, 1]), x, [2, 2, 2])


def _decoded(sparse):
    return [sparse.indices, sparse.values, sparse.dense_shape]


def test_ctc_greedy_decoder():
    with tf.Graph().as_default():
        (decoded,), log_probability = tf.nn.ctc_greedy_decoder(LOGITS, SEQ_LEN)
        with tf.Session() as sess:
            indices, values, shape = sess.run(_decoded(decoded))
        np.testing.assert_array_equal(values, [0, 1, 2, 1, 2, 1, 3, 0, 0, 3, 2, 3])
        np.testing.assert_array_equal(indices[:, 0], [0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2])
        np.testing.assert_array_equal(indices[:, 1], [0, 1, 2, 3, 4, 0, 1, 2, 0, 1, 2, 3])
        np.testing.assert_array_equal(shape, [3, 5])
        check_tensor(log_probability, np.array([[-5.98], [-4.84], [-5.49]], np.float32), rtol=1e-6)
        (decoded,), _ = tf.nn.ctc_greedy_decoder(LOGITS, SEQ_LEN, merge_repeated=False, blank_index=0)
        with tf.Session() as sess:
            values = sess.run(decoded.values)
        np.testing.assert_array_equal(values, [4, 1, 2, 1, 2, 1, 1, 3, 4, 3, 2, 3])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2 for '{{node CTCGreedy"):
            tf.nn.ctc_greedy_decoder(LOGITS, [1, 2])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match=r"sequence_length\(1\) <= 6"):
                sess.run(tf.nn.ctc_greedy_decoder(LOGITS, [2, 7, 1])[1])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="blank_index expected to be between -5 and 4 but was 5"):
                sess.run(tf.nn.ctc_greedy_decoder(LOGITS, SEQ_LEN, blank_index=5)[1])


BEAM_LOGITS = (2 * np.sin(np.arange(6 * 3 * 5) * 1.3)).astype(np.float32).reshape(6, 3, 5)  # no ties


@pytest.mark.parametrize("decoder, width, want_values, want_log_probability", [
    (lambda x, s, w: tf.nn.ctc_beam_search_decoder(x, s, beam_width=w, top_paths=2), 3,
     [[1, 0, 3, 1, 0, 1, 0], [1, 0, 1, 1, 0, 3]],
     [[-1.8040051, -1.9389027], [-0.8834222, -2.8677232], [-1.4065802, -2.1429286]]),
    (lambda x, s, w: tf.nn.ctc_beam_search_decoder_v2(x, s, beam_width=w, top_paths=2), 4,
     [[1, 0, 3, 1, 0, 1, 0], [1, 0, 1, 1, 0, 3]],
     [[-1.8040051, -1.922032], [-0.8681396, -2.8403623], [-1.391089, -2.128229]]),
])
def test_ctc_beam_search_decoder(decoder, width, want_values, want_log_probability):
    """TF's values; the search itself was checked against TF on 250 random problems (widths 1-8, up to 11
    steps and 6 classes), which it matches to float32 rounding."""
    with tf.Graph().as_default():
        decoded, log_probability = decoder(BEAM_LOGITS, SEQ_LEN, width)
        assert len(decoded) == 2 and log_probability.shape.as_list() == [3, 2]
        with tf.Session() as sess:
            paths = sess.run([_decoded(d) for d in decoded])
        for (_, values, shape), want in zip(paths, want_values):
            np.testing.assert_array_equal(values, want)
            np.testing.assert_array_equal(shape, [3, 3])
        check_tensor(log_probability, np.array(want_log_probability, np.float32), rtol=1e-5)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="requested more paths than the beam width."):
            sess.run(tf.nn.ctc_beam_search_decoder(LOGITS, SEQ_LEN, beam_width=2, top_paths=3)[1])


@pytest.mark.parametrize("merge_repeated, want_rows, want_values", [
    (False, [[0, 0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1]],
     [[2, 3, 0, 2, 1, 4, 3, 4], [2, 3, 0, 0, 2, 1, 4, 3, 3, 4], [2, 3, 0, 1, 4, 3, 1, 4]]),
    (True, [[0, 0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1]],
     [[2, 3, 0, 2, 1, 4, 3, 4], [2, 3, 0, 2, 1, 4, 3, 4], [2, 3, 0, 1, 4, 3, 1, 4]]),
])
def test_ctc_beam_search_decoder_pushed_out_beams(merge_repeated, want_rows, want_values):
    """A narrow beam over peaked inputs, recorded from TF: beams pushed out of the leaves before their parent
    proposes them lose their own proposals (TF resets them), which lets later beams propose."""
    x = (np.random.default_rng(4).standard_normal((8, 2, 6)) * 3).astype(np.float32)
    with tf.Graph().as_default():
        decoded, log_probability = tf.nn.ctc_beam_search_decoder(x, [8, 6], beam_width=4, top_paths=3,
                                                                 merge_repeated=merge_repeated)
        with tf.Session() as sess:
            paths = sess.run([_decoded(d) for d in decoded])
        for (indices, values, _), rows, want in zip(paths, want_rows, want_values):
            np.testing.assert_array_equal(indices[:, 0], rows)
            np.testing.assert_array_equal(values, want)
        check_tensor(log_probability, np.array([[-1.9118235, -2.2376626, -2.363962], [-1.72393, -2.432683, -3.780007]],
                                               np.float32), rtol=1e-6)


def test_collapse_repeated_and_unique_labels():
    with tf.Graph().as_default():
        labels, lengths = tf.nn.collapse_repeated(tf.constant([[1, 1, 2, 2, 0], [3, 3, 3, 4, 4], [5, 6, 6, 6, 6]]),
                                                  [5, 3, 4])
        check_tensor(labels, np.array([[1, 2, 0], [3, 0, 0], [5, 6, 0]], np.int32), fully_defined=False)
        check_tensor(lengths, np.array([3, 1, 2], np.int32))
        unique, index = tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 1, 2]]))
        check_tensor(unique, np.array([[3, 4, 0, 0], [1, 2, 0, 0]], np.int64), fully_defined=False)
        check_tensor(index, np.array([[0, 1, 1, 0], [0, 0, 0, 1]], np.int32), fully_defined=False)


def test_ctc_loss_has_no_second_derivative() -> None:
    """TF wraps CTCLoss's gradient output in PreventGradient: differentiating it again is a LookupError."""
    with tf.Graph().as_default():
        logits = tf.constant(np.linspace(-1, 1, 32).reshape(4, 2, 4), tf.float32)
        loss = tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [1, 0]], [1, 0], [2, 1]), logits, [4, 4])
        g1 = tf.gradients(tf.reduce_sum(loss), logits)[0]
        with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: b\"Currently there is no way to "
                                              "take the second  derivative of ctc_loss due to the fused"):
            tf.gradients(tf.reduce_sum(g1 * g1), logits)
