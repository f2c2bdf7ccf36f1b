"""tf.data.experimental.ignore_errors: elements whose production failed anywhere below it are dropped (values
recorded from TF 2.21)."""

import pytest

import tensorweave.compat.v1 as tf


def _values(dataset):
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                value = sess.run(nxt)
                out.append(value.tolist() if hasattr(value, "tolist") else value)
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


def _two_files_the_first_corrupt(tmp_path):
    """Two TFRecord files of four records each; the first's third record has a flipped data byte."""
    paths = []
    for f in range(2):
        path = str(tmp_path / f"f{f}.tfr")
        with tf.python_io.TFRecordWriter(path) as writer:
            for i in range(4):
                writer.write(b"rec%d-%d" % (f, i))
        paths.append(path)
    data = bytearray(open(paths[0], "rb").read())
    data[2 * (8 + 4 + 6 + 4) + 12] ^= 0xFF
    open(paths[0], "wb").write(bytes(data))
    return paths


def test_a_corrupt_record_ends_its_file_and_the_next_file_follows(tmp_path):
    paths = _two_files_the_first_corrupt(tmp_path)
    with tf.Graph().as_default():
        dataset = tf.data.TFRecordDataset(paths).apply(tf.data.experimental.ignore_errors())
        assert _values(dataset) == [b"rec0-0", b"rec0-1", b"rec1-0", b"rec1-1", b"rec1-2", b"rec1-3"]
        mapped = tf.data.TFRecordDataset(paths).map(tf.strings.length).apply(tf.data.experimental.ignore_errors())
        assert _values(mapped) == [6] * 6
        with pytest.raises(tf.errors.DataLossError, match="corrupted record at 56"):
            _values(tf.data.TFRecordDataset(paths))


def _reciprocals():
    return tf.data.Dataset.from_tensor_slices([1., 2., 0., 4., 5., 0., 7., 8., 9.]).map(
        lambda x: tf.debugging.check_numerics(1. / x, "bad"))


def _rounded(batches):
    return [[round(v, 4) for v in batch] for batch in batches]


def test_map_then_batch_loses_the_failing_window_as_tf_fuses_them():
    with tf.Graph().as_default():
        ignore = tf.data.experimental.ignore_errors()
        assert _rounded(_values(_reciprocals().batch(2).apply(ignore))) == [[1.0, 0.5], [0.1429, 0.125], [0.1111]]
        assert _rounded(_values(_reciprocals().batch(2, drop_remainder=True).apply(ignore))) == \
            [[1.0, 0.5], [0.1429, 0.125]]
        options = tf.data.Options()
        options.experimental_optimization.map_and_batch_fusion = False
        unfused = [[1.0, 0.5], [0.25, 0.2], [0.1429, 0.125], [0.1111]]
        assert _rounded(_values(_reciprocals().batch(2).with_options(options).apply(ignore))) == unfused
        assert _rounded(_values(_reciprocals().shuffle(1).batch(2).apply(ignore))) == unfused
