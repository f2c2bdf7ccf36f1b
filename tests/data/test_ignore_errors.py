"""tf.data.experimental.ignore_errors: elements whose production failed anywhere below it are dropped (values
recorded from TF 2.21)."""

import gzip
import re

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
    op, name = ("MapDataset", "Map") if parallel is None else ("ParallelMapDatasetV2", "ParallelMapV2")
    logged = re.findall(rf"Error raised with error message Error in user-defined function passed to {op}:\d+ "
                        rf"transformation with iterator: Iterator::Root::Prefetch::BatchV2::IgnoreErrors::{name}: "
                        "bad : Tensor had Inf values", caplog.text)
    assert len(logged) == 2


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


def _sized(sizes):
    return tf.data.Dataset.from_tensor_slices(sizes).map(lambda n: tf.fill([n], n))


def test_padded_batch_loses_the_batch_being_gathered_and_the_batches_it_cannot_pad():
    with tf.Graph().as_default():
        ignore = tf.data.experimental.ignore_errors()
        assert _rounded(_values(_reciprocals().padded_batch(2, padded_shapes=[]).apply(ignore))) == \
            [[1.0, 0.5], [0.25, 0.2], [0.1429, 0.125], [0.1111]]
        six = tf.data.Dataset.from_tensor_slices([1., 2., 0., 4., 5., 6., 0., 8.]).map(
            lambda x: tf.debugging.check_numerics(1. / x, "bad"))
        assert _rounded(_values(six.padded_batch(3, padded_shapes=[]).apply(ignore))) == [[0.25, 0.2, 0.1667],
                                                                                          [0.125]]
        sized = _sized([1, 2, 4, 1, 1, 2, 3])
        assert _values(sized.padded_batch(2, padded_shapes=[3]).apply(ignore)) == [
            [[1, 0, 0], [2, 2, 0]], [[1, 0, 0], [2, 2, 0]], [[3, 3, 3]]]
        with pytest.raises(tf.errors.DataLossError, match=r"Attempted to pad to a smaller size than the input "
                                                          r"element\.\n"):
            _values(sized.padded_batch(2, padded_shapes=[3]))


def _inner(x):
    """Reciprocals of [x, x - 1, x + 10]: 0 fails (x = 0 and x = 1)."""
    v = tf.cast(x, tf.float32)
    return tf.data.Dataset.from_tensor_slices(tf.stack([v, v - 1., v + 10.])).map(
        lambda y: tf.debugging.check_numerics(1. / y, "in"))


def _inner_made_failing(x):
    """x = 1 fails while making the inner dataset."""
    return tf.data.Dataset.from_tensors(tf.debugging.check_numerics(1. / (tf.cast(x, tf.float32) - 1.), "out")).repeat(2)


@pytest.mark.parametrize("transform, expected", [
    (lambda d: d.interleave(_inner, cycle_length=2, block_length=1),
     [-1.0, 1.0, 0.1, 0.0909, 0.5, 0.3333, 1.0, 0.5, 0.0833, 0.0769]),
    (lambda d: d.interleave(_inner, cycle_length=2, block_length=2),
     [-1.0, 0.1, 1.0, 0.0909, 0.5, 1.0, 0.3333, 0.5, 0.0833, 0.0769]),
    (lambda d: d.flat_map(_inner), [-1.0, 0.1, 1.0, 0.0909, 0.5, 1.0, 0.0833, 0.3333, 0.5, 0.0769]),
    (lambda d: d.interleave(_inner_made_failing, cycle_length=2, block_length=1), [-1.0, 1.0, -1.0, 1.0, 0.5, 0.5]),
    (lambda d: d.flat_map(_inner_made_failing), [-1.0, -1.0, 1.0, 1.0, 0.5, 0.5]),
])
def test_interleave_skips_a_failed_inner_element_and_a_failed_inner_dataset(transform, expected):
    """An inner iterator goes on after its failed element without counting it in its block; an input element
    whose dataset cannot be made leaves its slot to the next one (TF 2.21's order)."""
    with tf.Graph().as_default():
        dataset = transform(tf.data.Dataset.range(4)).apply(tf.data.experimental.ignore_errors())
        assert [round(v, 4) for v in _values(dataset)] == expected


def test_fixed_length_records_fail_as_tfs_and_a_compressed_file_that_fails_gives_way_to_the_next(tmp_path):
    def write(name, data, compress=False):
        path = str(tmp_path / name)
        open(path, "wb").write(gzip.compress(data) if compress else data)
        return path

    partial, whole = write("p.bin", b"HH0123456789FF"), write("w.bin", b"HHabcdefghFF")
    corrupt = write("c.gz", b"\x1f\x8b\x08\x00garbagegarbagegarbage")
    zpartial, zwhole = write("p.gz", b"HH0123456789FF", True), write("w.gz", b"HHabcdefghFF", True)
    with tf.Graph().as_default():
        def records(files, compression=None):
            return tf.data.FixedLengthRecordDataset(files, 4, 2, 2, compression_type=compression)

        ignore = tf.data.experimental.ignore_errors()
        assert _values(records([zpartial, corrupt, zwhole], "GZIP").apply(ignore)) == [b"0123", b"4567", b"abcd",
                                                                                       b"efgh"]
        with pytest.raises(tf.errors.DataLossError, match="inflate\\(\\) failed with error -3: invalid code lengths"):
            _values(records([corrupt], "GZIP"))
        body = ('Excluding the header \\(2 bytes\\) and footer \\(2 bytes\\), input file "{}" has body length 10 '
                'bytes, which is not an exact multiple of the record length \\(4 bytes\\).')
        with pytest.raises(tf.errors.DataLossError, match=body.format(zpartial)):
            _values(records([zpartial], "GZIP"))
        with pytest.raises(tf.errors.InvalidArgumentError, match=body.format(partial)):
            _values(records([partial]))
        assert _values(records([whole])) == [b"abcd", b"efgh"]


def _values_and_errors(dataset, calls):
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        for _ in range(calls):
            try:
                value = sess.run(nxt)
                out.append([v.tolist() for v in value] if isinstance(value, tuple) else value.tolist())
            except tf.errors.OutOfRangeError:
                out.append("end")
                break
            except tf.errors.InvalidArgumentError:
                out.append("error")
    return out


def test_without_ignore_errors_an_element_error_is_raised_and_the_iterator_goes_on_as_tfs():
    """TF 2.21: GetNext returns a failed element's error, and the next call returns the next element."""
    x = [1., 0., 2., 0., 4.]
    inverse = lambda v: tf.debugging.check_numerics(1. / v, "bad")  # noqa: E731
    with tf.Graph().as_default():
        mapped = tf.data.Dataset.from_tensor_slices(x).map(inverse)
        assert _values_and_errors(mapped, 8) == [1.0, "error", 0.5, "error", 0.25, "end"]
        assert _values_and_errors(mapped.batch(2), 8) == ["error", "error", [0.25], "end"]
        assert _values_and_errors(mapped.filter(lambda v: v > 0.3), 8) == [1.0, "error", 0.5, "error", "end"]
        nested = tf.data.Dataset.range(2).flat_map(lambda i: mapped.take(3))  # errors are not taken elements
        assert _values_and_errors(nested, 14) == [1.0, "error", 0.5, "error", 0.25] * 2 + ["end"]
        assert _values_and_errors(mapped.prefetch(2), 8) == [1.0, "error", 0.5, "error", 0.25, "end"]
        other = tf.data.Dataset.from_tensor_slices([1., 2., 0., 4., 8., 0.]).map(inverse)
        zipped = tf.data.Dataset.zip((tf.data.Dataset.range(10), mapped, other))  # one error per failed position
        assert _values_and_errors(zipped, 8) == [[0, 1.0, 1.0], "error", "error", "error", [4, 0.25, 0.125], "end"]
        interleaved = mapped.interleave(lambda v: tf.data.Dataset.from_tensors(v).repeat(2), cycle_length=2)
        assert _values_and_errors(interleaved, 12) == [1.0, "error", 0.5, 1.0, 0.5, "error", 0.25, 0.25, "end"]


def test_a_failure_while_skipping_loses_the_skip_progress_as_tfs():
    """TF 2.21's skip and shard skip through their input's Skip, which returns an element's error and loses what
    it had skipped; window fails a window with the first failure among the elements it picks."""
    inverse = lambda v: tf.debugging.check_numerics(1. / v, "bad")  # noqa: E731
    x = [1., 0., 0., 2., 4., 0., 8., 16., 32., 0.]
    with tf.Graph().as_default():
        mapped = tf.data.Dataset.from_tensor_slices(x).map(inverse)
        assert _values_and_errors(mapped.skip(2), 10) == ["error"] * 3 + [0.125, 0.0625, 0.03125, "error", "end"]
        assert _values_and_errors(mapped.skip(3), 10) == ["error"] * 4 + ["end"]
        assert _values_and_errors(mapped.shard(3, 1), 10) == ["error", "error", 0.5, "error", 0.03125, "error", "end"]
        assert _values_and_errors(mapped.prefetch(1).skip(2).take(2), 10) == ["error"] * 3 + [0.125, 0.0625, "end"]
        windows = mapped.window(2, 3, 2).flat_map(lambda w: w)
        assert _values_and_errors(windows, 10) == ["error", "error", 0.125, 0.03125, "error", "end"]


def test_a_side_effect_of_a_map_function_runs_though_nothing_reads_it():
    """TF 2.21's dataset functions get automatic control dependencies: an unread Assert still runs."""
    with tf.Graph().as_default():
        mapped = tf.data.Dataset.from_tensor_slices([1, 0]).map(lambda x: tf.debugging.assert_positive(x) and x)
        assert _values_and_errors(mapped, 4) == [1, "error", "end"]


def test_a_generator_error_ends_its_generator_and_a_bad_element_fails_alone():
    """TF 2.21: a generator that raises fails that element and then ends (a repeat starts it over); an element
    that does not convert fails alone and the generator goes on."""
    def raising():
        yield 1
        raise ValueError("boom")

    def one_bad():
        yield from (0, "bad", 2)

    with tf.Graph().as_default():
        repeated = tf.data.Dataset.from_generator(raising, tf.int64).repeat(2)
        assert _values_and_errors(repeated, 8) == [1, "error", 1, "error", "end"]
        assert _values_and_errors(tf.data.Dataset.from_generator(one_bad, tf.int64), 8) == [0, "error", 2, "end"]
