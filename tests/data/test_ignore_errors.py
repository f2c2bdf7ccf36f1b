"""tf.data.experimental.ignore_errors: failing map elements are dropped (values recorded from TF 2.21)."""

import pytest

import tensorweave.compat.v1 as tf


def _values(dataset):
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(sess.run(nxt).tolist())
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("parallel", [None, 2])
def test_failing_map_elements_are_skipped(parallel, caplog):
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices([1., 2., 0., 4., 0., 8.]).map(
            lambda x: tf.debugging.check_numerics(1. / x, "bad"), num_parallel_calls=parallel)
        with caplog.at_level("WARNING", logger="tensorflow"):
            got = _values(dataset.apply(tf.data.experimental.ignore_errors(log_warning=True)).batch(2))
    assert got == [[1.0, 0.5], [0.25, 0.125]]
    assert caplog.text.count("Error raised with error message bad : Tensor had Inf values") == 2


def test_without_it_the_error_reaches_the_caller():
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices([1., 0.]).map(lambda x: tf.debugging.check_numerics(1. / x, "bad"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had Inf values"):
            _values(dataset)
