"""Queue-based input pipelines: producers, limit_epochs and batching, with TF 2.21's names and collections."""

import time

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors


def _drain(sess, fetch):
    """Every value `fetch` gives until OutOfRangeError."""
    out = []
    while True:
        try:
            out.append(sess.run(fetch))
        except errors.OutOfRangeError:
            return out


def _run_pipeline(fetch, body):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            return body(sess)
        finally:
            coord.request_stop()
            start = time.time()
            coord.join(threads, stop_grace_period_secs=1)
            assert time.time() - start < 1 and not any(t.is_alive() for t in threads)


def test_tfrecord_reader_batch_pipeline_delivers_every_record_once_per_epoch(tmp_path):
    files = []
    for f in range(2):
        files.append(str(tmp_path / f"p{f}.tfr"))
        with tf.python_io.TFRecordWriter(files[-1]) as w:
            for i in range(50 * f, 50 * f + 50):
                w.write(b"%d" % i)
    filenames = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    _, value = tf.TFRecordReader().read(filenames)
    batch = tf.train.batch([tf.strings.to_number(value, tf.int32)], 16, num_threads=2,
                           allow_smaller_final_batch=True)
    assert (batch.name, batch.shape.as_list(), filenames.queue_ref.op.name) == ("batch:0", [None], "input_producer")
    assert [qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)] == ["input_producer", "batch/fifo_queue"]
    assert [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)] == [
        "input_producer/fraction_of_32_full:0", "batch/fraction_of_32_full:0"]
    assert [v.name for v in tf.local_variables()] == ["input_producer/limit_epochs/epochs:0"]
    got = _run_pipeline(batch, lambda sess: np.concatenate(_drain(sess, batch)))
    assert sorted(got.tolist()) == sorted(list(range(100)) * 2)


def test_limit_epochs_and_producers():
    with pytest.raises(ValueError, match="num_epochs must be > 0 not 0."):
        tf.train.limit_epochs([1], 0)
    limited = tf.train.limit_epochs(tf.constant([1, 2]), 2)
    assert limited.op.name == "limit_epochs"
    with pytest.raises(ValueError, match="string_input_producer requires a non-null input tensor"):
        tf.train.string_input_producer([])
    rows = tf.train.slice_input_producer([tf.constant([10, 20, 30]), tf.constant(["a", "b", "c"])], num_epochs=1,
                                         shuffle=False)
    ranged = tf.train.range_input_producer(4, num_epochs=1, shuffle=True, seed=7).dequeue()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert [sess.run(limited).tolist() for _ in range(2)] == [[1, 2], [1, 2]]
        with pytest.raises(errors.OutOfRangeError):
            sess.run(limited)
    got = _run_pipeline(rows, lambda sess: [tuple(sess.run(rows)) for _ in range(3)])
    assert got == [(10, b"a"), (20, b"b"), (30, b"c")]
    got = _run_pipeline(ranged, lambda sess: _drain(sess, ranged))
    assert sorted(got) == [0, 1, 2, 3]


@pytest.mark.parametrize("num_threads", [1, 2, 4])
def test_shuffle_batch_with_many_enqueue_threads_delivers_every_element_once(num_threads):
    value = tf.train.range_input_producer(64, num_epochs=1, shuffle=False).dequeue()
    batch = tf.train.shuffle_batch([value], 4, capacity=40, min_after_dequeue=10, num_threads=num_threads)
    got = _run_pipeline(batch, lambda sess: np.concatenate(_drain(sess, batch)))
    assert sorted(got.tolist()) == list(range(64))


def test_text_lines_through_shuffle_batch_with_seed_is_a_permutation(tmp_path):
    path = tmp_path / "lines.csv"
    path.write_text("header\n" + "".join(f"{i}\n" for i in range(64)))
    filenames = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader(skip_header_lines=1).read(filenames)
    batch = tf.train.shuffle_batch([tf.strings.to_number(line, tf.int32)], 8, capacity=40, min_after_dequeue=10,
                                   seed=3, allow_smaller_final_batch=True)
    assert batch.name == "shuffle_batch:0"
    assert tf.get_collection(tf.GraphKeys.SUMMARIES)[-1].name == "shuffle_batch/fraction_over_10_of_30_full:0"
    got = _run_pipeline(batch, lambda sess: np.concatenate(_drain(sess, batch)))
    assert sorted(got.tolist()) == list(range(64)) and got.tolist() != list(range(64))
    with pytest.raises(ValueError, match="capacity 10 must be bigger than min_after_dequeue 10."):
        tf.train.shuffle_batch([line], 8, capacity=10, min_after_dequeue=10)


def test_fixed_length_records_batch_join_dynamic_pad_and_maybe_batch(tmp_path):
    path = tmp_path / "fx.bin"
    path.write_bytes(bytes(range(16)))
    filenames = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
    reader = tf.FixedLengthRecordReader(4)
    records = [[tf.decode_raw(reader.read(filenames)[1], tf.uint8)] for _ in range(2)]
    joined = tf.train.batch_join(records, 2, shapes=[[4]], allow_smaller_final_batch=True)
    got = _run_pipeline(joined, lambda sess: np.concatenate(_drain(sess, joined)))
    assert sorted(got[:, 0].tolist()) == [0, 4, 8, 12]

    ragged = tf.train.batch([tf.range(tf.constant(3))], 2, dynamic_pad=True, shapes=[[None]])
    kept = tf.train.maybe_batch([tf.constant([1, 2, 3, 4])], tf.constant([True, False, True, False]), 2,
                                enqueue_many=True)
    assert (ragged.shape.as_list(), kept.shape.as_list()) == ([2, None], [2])
    assert _run_pipeline(kept, lambda sess: (sess.run(ragged).tolist(), sess.run(kept).tolist())) == (
        [[0, 1, 2], [0, 1, 2]], [1, 3])
    with pytest.raises(ValueError, match="`keep_input` cannot be a vector when `enqueue_many=False`."):
        tf.train.maybe_batch([1], [True], 2)


def test_match_filenames_once(tmp_path):
    for name in ("b.txt", "a.txt"):
        (tmp_path / name).write_text(name)
    matched = tf.train.match_filenames_once(str(tmp_path / "*.txt"))
    assert (matched.op.name, tf.local_variables()[0] is matched) == ("matching_filenames", True)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(matched).tolist() == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]


def _example_files(tmp_path, sizes, corrupt=()):
    """TFRecord files of Examples (x: [i, -i] floats, y: i), numbered on across files; `corrupt` indices are
    written as bytes that are no Example."""
    paths, i = [], 0
    for f, size in enumerate(sizes):
        paths.append(str(tmp_path / f"e{f}.tfr"))
        with tf.python_io.TFRecordWriter(paths[-1]) as w:
            for _ in range(size):
                example = tf.train.Example()
                example.features.feature["x"].float_list.value.extend([i, -i])
                example.features.feature["y"].int64_list.value.append(i)
                w.write(b"\xff\xff" if i in corrupt else example.SerializeToString())
                i += 1
    return paths


def _parsed(filenames):
    reader = tf.TFRecordReader()
    _, record = reader.read(filenames)
    features = tf.parse_single_example(record, {"x": tf.FixedLenFeature([2], tf.float32),
                                                "y": tf.FixedLenFeature([], tf.int64)})
    return reader, features


def test_parsed_record_pipeline_keeps_file_order_with_one_thread_and_counts_every_read(tmp_path):
    filenames = tf.train.string_input_producer(_example_files(tmp_path, [40, 25]), num_epochs=2, shuffle=False)
    reader, features = _parsed(filenames)
    batch = tf.train.batch([features["x"], features["y"]], 16, num_threads=1, allow_smaller_final_batch=True)
    counts = [reader.num_records_produced(), reader.num_work_units_completed()]

    def body(sess):
        got = _drain(sess, batch)
        return np.concatenate([b[1] for b in got]), np.concatenate([b[0] for b in got]), sess.run(counts)

    y, x, (produced, completed) = _run_pipeline(batch, body)
    assert y.tolist() == list(range(65)) * 2
    assert x.tolist() == [[i, -i] for i in range(65)] * 2
    assert (produced, completed) == (130, 4)


def test_parsed_record_pipeline_with_four_threads_delivers_every_record_once(tmp_path):
    filenames = tf.train.string_input_producer(_example_files(tmp_path, [300, 200]), num_epochs=1)
    _, features = _parsed(filenames)
    batch = tf.train.shuffle_batch([features["y"]], 32, capacity=100, min_after_dequeue=20, num_threads=4,
                                   allow_smaller_final_batch=True)
    got = _run_pipeline(batch, lambda sess: np.concatenate(_drain(sess, batch)))
    assert sorted(got.tolist()) == list(range(500))


def test_a_repeated_enqueue_runs_records_while_the_queue_has_room_and_each_run_fails_as_its_own(tmp_path):
    files = tf.constant(_example_files(tmp_path, [8], corrupt={5}))
    work = tf.FIFOQueue(4, tf.string)
    reader, features = _parsed(work)
    queue = tf.FIFOQueue(5, [tf.float32, tf.int64], shapes=[[2], []])
    enqueue = queue.enqueue([features["x"], features["y"]])
    with tf.Session() as sess:
        sess.run(work.enqueue_many([files]))
        sess.run(work.close())
        repeated = sess._repeating_callable(enqueue)
        assert repeated(32) == 1  # the first takes a work unit from its queue: one ordinary step
        assert repeated(32) == 4  # as many as the queue has room for, in one call
        assert sess.run(queue.dequeue_many(5))[1].tolist() == [0, 1, 2, 3, 4]
        with pytest.raises(errors.InvalidArgumentError, match="ParseExampleV2") as failure:
            repeated(32)  # record 5 is no Example: its run fails, after the runs before it
        assert failure.value.op is None  # raw, as TF's make_callable reports it
        assert failure.value.message.endswith("[[{{node ParseSingleExample/ParseExample/ParseExampleV2}}]]")
        assert sess.run([queue.size(), reader.num_records_produced()]) == [0, 6]
        assert repeated(32) == 2
        assert sess.run(queue.dequeue_many(2))[1].tolist() == [6, 7]
        with pytest.raises(errors.OutOfRangeError):
            repeated(32)
        assert sess.run(reader.num_work_units_completed()) == 1


def test_batching_sparse_tensors_through_sparse_tensors_maps():
    """A SparseTensor is queued as its SparseTensorsMap handle and comes out batched along a new first dimension;
    outputs beside it wait for it (names and values recorded from TF 2.21)."""
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 2]], [1, 2], [3, 4])
        b = tf.train.batch({"s": sp, "d": tf.constant(7)}, batch_size=2)
        assert [b["s"].indices.name, b["d"].name] == ["batch/control_dependency_1:0", "batch/control_dependency:0"]
        assert b["s"].indices.shape.as_list() == [None, 3] and b["s"].dense_shape.shape.as_list() == [3]
        assert [(o.name, o.type) for o in tf.get_default_graph().get_operations() if "Sparse" in o.type] == [
            ("batch/AddSparseToTensorsMap", "AddSparseToTensorsMap"),
            ("batch/TakeManySparseFromTensorsMap", "TakeManySparseFromTensorsMap")]
        many = tf.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.5, 2.5, 3.5], [3, 5])
        bm = tf.train.batch([many], batch_size=2, enqueue_many=True, allow_smaller_final_batch=True)
        assert bm.indices.name == "batch_1/TakeManySparseFromTensorsMap:0"
        kept = tf.train.maybe_batch([tf.SparseTensor([[0, 0], [1, 1], [2, 0]], [1, 2, 3], [3, 2]),
                                     tf.constant([10, 20, 30])], tf.constant([True, False, True]), batch_size=2,
                                    enqueue_many=True)

        def body(sess):
            r = sess.run(b)
            assert r["s"].indices.tolist() == [[0, 0, 0], [0, 1, 2], [1, 0, 0], [1, 1, 2]]
            assert r["s"].dense_shape.tolist() == [2, 3, 4] and r["d"].tolist() == [7, 7]
            first, second = sess.run(bm), sess.run(bm)
            assert (first.indices.tolist(), first.values.tolist(), first.dense_shape.tolist()) == (
                [[0, 1]], [1.5], [2, 5])
            assert (second.indices.tolist(), second.values.tolist(), second.dense_shape.tolist()) == (
                [[0, 0], [0, 3], [1, 1]], [2.5, 3.5, 1.5], [2, 5])
            r = sess.run(kept)
            assert (r[0].indices.tolist(), r[0].values.tolist(), r[0].dense_shape.tolist(), r[1].tolist()) == (
                [[0, 0], [1, 0]], [1, 3], [2, 2], [10, 30])
        _run_pipeline(None, body)


def test_take_many_sparse_from_tensors_map_errors():
    from tensorweave.ops import sparse_misc_ops
    with tf.Graph().as_default(), tf.Session() as sess:
        taken = sparse_misc_ops.TakeManySparseFromTensorsMap(tf.constant([5], tf.int64), dtype=tf.int32,
                                                             shared_name="m")
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unable to find SparseTensor: 5 in map: m"):
            sess.run(taken)


def test_batching_sparse_tensors_kept_by_a_fed_condition_and_dynamically_padded():
    """A keep_input known only at run time stores through a cond (values recorded from TF 2.21)."""
    with tf.Graph().as_default():
        keep = tf.placeholder_with_default(True, [])
        one = tf.train.maybe_batch([tf.SparseTensor([[0, 1]], [5], [2, 3]), tf.constant(1)], keep_input=keep,
                                   batch_size=1)
        many = tf.train.maybe_batch([tf.SparseTensor([[0, 1], [1, 0]], [5, 6], [2, 3])], keep_input=keep,
                                    batch_size=2, enqueue_many=True)
        padded = tf.train.batch([tf.SparseTensor([[0, 1]], [5], [2, 3]), tf.range(3)], batch_size=1,
                                dynamic_pad=True)
        assert many.indices.name == "batch_1/TakeManySparseFromTensorsMap:0"

        def body(sess):
            r = sess.run(one)
            assert (r[0].indices.tolist(), r[0].dense_shape.tolist(), r[1].tolist()) == ([[0, 0, 1]], [1, 2, 3], [1])
            r = sess.run(many)
            assert (r.indices.tolist(), r.dense_shape.tolist()) == ([[0, 1], [1, 0]], [2, 3])
            r = sess.run(padded)
            assert (r[0].indices.tolist(), r[1].tolist()) == ([[0, 0, 1]], [[0, 1, 2]])
        _run_pipeline(None, body)


def test_string_input_producer_takes_a_variable(tmp_path):
    """As TF: only a Python value that is empty is refused at build; a variable (match_filenames_once) is taken."""
    (tmp_path / "a.raw").write_bytes(b"x")
    files = tf.train.match_filenames_once(str(tmp_path / "*.raw"))
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert sess.run(queue.dequeue()) == str(tmp_path / "a.raw").encode()
        coord.request_stop()
        coord.join(threads)
    with pytest.raises(ValueError, match="string_input_producer requires a non-null input tensor"):
        tf.train.string_input_producer([])
