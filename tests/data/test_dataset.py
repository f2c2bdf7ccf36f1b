"""tf.data in graph mode: datasets' values and static shapes, the four kinds of iterator, the file readers."""

import gzip
import re
import threading
import time
import warnings

import numpy as np
import pytest
from op_testing import dataset_elements, runtime_message

import tensorweave.compat.v1 as tf


def _ints(dataset):
    return [int(v) for v in dataset_elements(dataset)]


def test_from_tensor_slices_structure_and_values():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices({"a": np.arange(6).reshape(3, 2), "b": [1.0, 2.0, 3.0]})
        assert ds.output_types == {"a": tf.int64, "b": tf.float32}
        assert ds.output_shapes["a"].as_list() == [2] and ds.output_shapes["b"].as_list() == []
        assert tf.data.get_output_classes(ds) == {"a": tf.Tensor, "b": tf.Tensor}
        out = dataset_elements(ds)
        assert [o["a"].tolist() for o in out] == [[0, 1], [2, 3], [4, 5]]
        assert [o["b"] for o in out] == [1.0, 2.0, 3.0]


def test_from_tensor_slices_rejects_mismatched_rows():
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_from_tensors_range_zip_concatenate():
    with tf.Graph().as_default():
        assert [v.tolist() for v in dataset_elements(tf.data.Dataset.from_tensors([1, 2]))] == [[1, 2]]
        assert _ints(tf.data.Dataset.range(2, 11, 3)) == [2, 5, 8]
        assert tf.data.Dataset.range(3, output_type=tf.int32).output_types == tf.int32
        z = tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 20)))
        assert [(int(a), int(b)) for a, b in dataset_elements(z)] == [(0, 10), (1, 11), (2, 12)]
        c = tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7))
        assert _ints(c) == [0, 1, 5, 6]
        with pytest.raises(TypeError):
            tf.data.Dataset.range(2).concatenate(tf.data.Dataset.from_tensors(1.0))


def test_map_filter_flat_map_interleave():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).map(lambda x: x * x).filter(lambda x: tf.equal(x % 2, 0))
        assert _ints(ds) == [0, 4, 16, 36, 64]
        par = tf.data.Dataset.range(50).map(lambda x: tf.cast(x, tf.float32) / 2, num_parallel_calls=4)
        assert par.output_types == tf.float32
        assert dataset_elements(par) == [i / 2 for i in range(50)]
        flat = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(tf.data.Dataset.from_tensor_slices)
        assert _ints(flat) == [1, 2, 3, 4]
        inter = tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(6),
                                                      cycle_length=2, block_length=4)
        assert _ints(inter) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4,
                                5, 5, 5, 5, 5, 5]
        with pytest.raises(ValueError, match="predicate"):
            tf.data.Dataset.range(3).filter(lambda x: x)


def test_map_error_names_the_function_node():
    with tf.Graph().as_default():
        def checked(x):
            with tf.control_dependencies([tf.debugging.assert_positive(x, message="neg")]):
                return tf.identity(x)

        ds = tf.data.Dataset.from_tensor_slices([1.0, -1.0]).map(checked)
        with pytest.raises(tf.errors.InvalidArgumentError, match="neg"):
            dataset_elements(ds)


def test_function_error_names_its_node_and_the_iterator_without_a_header():
    """TF 2.21's AttachDef: an error that names a node of the dataset function gets the IteratorGetNext as a
    plain '[[name]]', and the session finds no graph node to trace (map and batch fused: no prefix)."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(["1", "x"]).map(lambda s: tf.strings.to_number(s)).batch(2)
        n = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(n)
    assert info.value.message == ("Graph execution error:\n\nStringToNumberOp could not correctly convert string: x"
                                  "\n\t [[{{node StringToNumber}}]]\n\t [[IteratorGetNext]]")
    assert info.value.op is None and info.value.node_def is None


def _nan(x):
    return tf.debugging.check_numerics(tf.cast(x, tf.float32) * float("nan"), "m")


def _no_autotune():
    options = tf.data.Options()
    options.autotune.enabled = False
    return options


def _function_error(dataset, initializable=False):
    it = tf.data.make_initializable_iterator(dataset) if initializable else tf.data.make_one_shot_iterator(dataset)
    n = it.get_next()
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        if initializable:
            sess.run(it.initializer)
        sess.run(n)
    return info.value.message


@pytest.mark.parametrize("make, op, prefix", [
    (lambda r: r.map(_nan), "MapDataset", "Prefetch::Map"),
    (lambda r: r.map(_nan).shuffle(3, seed=1).batch(2), "MapDataset", "Prefetch::BatchV2::Shuffle::Map"),
    (lambda r: r.map(_nan).prefetch(1), "MapDataset", "Prefetch::Map"),
    (lambda r: r.map(_nan).repeat(), "MapDataset", "Prefetch::ForeverRepeat[0]::Map"),
    (lambda r: r.map(_nan).repeat(2), "MapDataset", "Prefetch::FiniteRepeat[0]::Map"),
    (lambda r: r.map(_nan, num_parallel_calls=2), "ParallelMapDatasetV2", "ParallelMapV2"),
    (lambda r: r.map(_nan, num_parallel_calls=2).take(3), "ParallelMapDatasetV2", "Prefetch::FiniteTake::ParallelMapV2"),
    (lambda r: r.filter(lambda x: _nan(x) > 0).batch(2), "FilterDataset", "Prefetch::BatchV2::Filter"),
    (lambda r: r.flat_map(lambda x: tf.data.Dataset.from_tensors(x).map(_nan)), "MapDataset",
     "Prefetch::FlatMap[0]::Map"),
    (lambda r: r.flat_map(lambda x: tf.data.Dataset.from_tensors(_nan(x))), "FlatMapDataset", "Prefetch::FlatMap"),
    (lambda r: r.interleave(lambda x: tf.data.Dataset.from_tensors(x).map(_nan), cycle_length=1), "MapDataset",
     "Prefetch::Interleave[0]::Map"),
    (lambda r: r.map(_nan).skip(1), "MapDataset", "Prefetch::FiniteSkip::Map"),
    (lambda r: r.map(_nan).cache(), "MapDataset", "Prefetch::MemoryCacheImpl::Map"),
    (lambda r: tf.data.Dataset.zip((r, r.map(_nan))), "MapDataset", "Prefetch::Zip[1]::Map"),
    (lambda r: r.map(_nan).with_options(tf.data.Options()), "MapDataset", "Prefetch::Map"),
    (lambda r: r.batch(2).map(_nan).unbatch(), "MapDataset", "Prefetch::Unbatch::Map"),
    (lambda r: r.map(_nan).shuffle(2, seed=1).repeat(), "MapDataset", "Prefetch::ShuffleAndRepeat::Map"),
    (lambda r: r.map(_nan).with_options(_no_autotune()), "MapDataset", "Map"),
    (lambda r: r.map(_nan).take(-1).skip(0).repeat(1).prefetch(0), "MapDataset", "Prefetch::Map"),
    (lambda r: r.map(_nan).window(2).flat_map(lambda w: w), "MapDataset", "Prefetch::FlatMap::Window::Map"),
    (lambda r: r.map(_nan).enumerate(), "MapDataset", "Prefetch::Zip[1]::Map"),
])
def test_function_error_context_as_tf(make, op, prefix):
    """TF 2.21's iterators prefix a function's error with the dataset's name (its op and a process-wide number)
    and the iterator's prefix, as TF's optimizations leave the pipeline (an injected Prefetch, fusions)."""
    with tf.Graph().as_default():
        message = _function_error(make(tf.data.Dataset.range(4)))
    assert re.fullmatch(rf"Graph execution error:\n\nError in user-defined function passed to {op}:\d+ transformation "
                        rf"with iterator: Iterator::Root::{re.escape(prefix)}: m : Tensor had NaN values\n\t "
                        r"\[\[\{\{node CheckNumerics\}\}\]\]\n\t \[\[IteratorGetNext\]\]", message), message


def test_function_error_names_datasets_in_the_order_tf_makes_them():
    """Each dataset made at run time takes the next number (a one-shot iterator's once, an initializer's on
    each run); a fused map and batch adds no context (TF's MapAndBatch)."""
    with tf.Graph().as_default():
        numbers = [int(re.search(r"MapDataset:(\d+) ", _function_error(tf.data.Dataset.range(4).map(_nan), init)
                                 ).group(1)) for init in (False, True)]
        fused = _function_error(tf.data.Dataset.range(4).map(_nan).batch(2))
    assert numbers[1] == numbers[0] + 2
    assert fused.startswith("Graph execution error:\n\nm : Tensor had NaN values\n")


def test_batch_and_padded_batch():
    with tf.Graph().as_default():
        b = tf.data.Dataset.range(7).batch(3)
        assert b.output_shapes.as_list() == [None]
        assert [v.tolist() for v in dataset_elements(b)] == [[0, 1, 2], [3, 4, 5], [6]]
        d = tf.data.Dataset.range(7).batch(3, drop_remainder=True)
        assert d.output_shapes.as_list() == [3]
        assert [v.tolist() for v in dataset_elements(d)] == [[0, 1, 2], [3, 4, 5]]
        p = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None])
        assert p.output_shapes.as_list() == [None, None]
        assert [v.tolist() for v in dataset_elements(p)] == [[[1, 0], [2, 2]], [[3, 3, 3]]]
        q = tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x)).padded_batch(2, [4], padding_values=np.int64(-1))
        with pytest.raises(TypeError, match=r"Invalid `padding_values`. `padding_values` values type <dtype: 'int32'> "
                                            r"does not match type <dtype: 'int64'> of the corresponding input component"):
            tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x)).padded_batch(2, [4], padding_values=-1)
        with pytest.raises(ValueError, match=r"`padding_values` values should be scalars, but got \(2,\)"):
            tf.data.Dataset.range(3).map(lambda x: (x, x)).padded_batch(2, padding_values=[1, 2])
        assert [v.tolist() for v in dataset_elements(q)] == [[[1, -1, -1, -1], [2, 2, -1, -1]]]
        scalars = tf.data.Dataset.range(1, 3).map(lambda x: (tf.fill([x], x), x, tf.as_string(x)))
        vectors, ints, strings = dataset_elements(scalars.padded_batch(2, ([3], [], []), (tf.constant(-1, tf.int64),
                                                                             tf.constant(0, tf.int64), "pad")))[0]
        assert (vectors.tolist(), ints.tolist(), strings.tolist()) == ([[1, -1, -1], [2, 2, -1]], [1, 2], [b"1", b"2"])
        ragged = tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x)).batch(2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors with different shapes"):
            dataset_elements(ragged)


def test_shuffle_repeat_take_skip_cache_shard_prefetch_unbatch():
    with tf.Graph().as_default():
        s = _ints(tf.data.Dataset.range(20).shuffle(5, seed=3))
        assert sorted(s) == list(range(20)) and s != list(range(20))
        assert _ints(tf.data.Dataset.range(20).shuffle(5, seed=3)) == s  # seeded: repeatable
        epochs = _ints(tf.data.Dataset.range(10).shuffle(10, seed=1).repeat(2))
        assert sorted(epochs[:10]) == sorted(epochs[10:]) == list(range(10)) and epochs[:10] != epochs[10:]
        fixed = _ints(tf.data.Dataset.range(10).shuffle(10, seed=1, reshuffle_each_iteration=False).repeat(2))
        assert fixed[:10] == fixed[10:]
        assert _ints(tf.data.Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
        assert _ints(tf.data.Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
        assert _ints(tf.data.Dataset.range(6).skip(4)) == [4, 5]
        assert _ints(tf.data.Dataset.range(10).shard(3, 1)) == [1, 4, 7]
        assert _ints(tf.data.Dataset.range(100).prefetch(2)) == list(range(100))
        cached = _ints(tf.data.Dataset.range(5).shuffle(5).cache().repeat(3))
        assert cached[:5] == cached[5:10] == cached[10:]
        u = tf.data.Dataset.from_tensors([[1, 2], [3, 4]]).apply(tf.data.experimental.unbatch())
        assert u.output_shapes.as_list() == [2] and [v.tolist() for v in dataset_elements(u)] == [[1, 2], [3, 4]]
        mb = tf.data.Dataset.range(5).apply(tf.data.experimental.map_and_batch(lambda x: x + 1, 2))
        assert [v.tolist() for v in dataset_elements(mb)] == [[1, 2], [3, 4], [5]]


def test_from_generator_with_args_and_shape_check():
    def gen(n):
        for i in range(n):
            yield i, [float(i)] * 2

    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32), ([], [2]), args=(3,))
        assert ds.output_shapes[1].as_list() == [2]
        assert [(int(a), b.tolist()) for a, b in dataset_elements(ds)] == [(0, [0.0, 0.0]), (1, [1.0, 1.0]), (2, [2.0, 2.0])]
        bad = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.int64, [2])
        with pytest.raises(tf.errors.InvalidArgumentError, match="yielded an element of shape"):
            dataset_elements(bad)


def _yield_x():
    yield "x"


def _yield_one_a():
    yield (1, "a")


def _yield_three():
    yield 3


def _yield_nested():
    yield [[1], [2]]


@pytest.mark.parametrize("generator, types, shapes, headline, node", [
    (_yield_x, tf.int32, None, "TypeError: `generator` yielded an element that did not match the expected "
     "structure. The expected structure was TensorSpec(shape=<unknown>, dtype=tf.int32, name=None), but the "
     "yielded element was x.", "EagerPyFunc"),
    (_yield_x, tf.int32, [], "TypeError: `generator` yielded an element that could not be converted to the "
     "expected type. The expected type was int32, but the yielded element was x.", "PyFunc"),
    (_yield_one_a, (tf.int32, tf.int64), None, "TypeError: `generator` yielded an element that could not be "
     "converted to the expected type. The expected type was int64, but the yielded element was a.", "PyFunc"),
    (_yield_three, (tf.int32, tf.int64), None, "TypeError: `generator` yielded an element that did not match "
     "the expected structure. The expected structure was (tf.int32, tf.int64), but the yielded element was 3.",
     "PyFunc"),
    (_yield_nested, tf.int32, [None], "TypeError: `generator` yielded an element of shape (2, 1) where an "
     "element of shape (?,) was expected.", "PyFunc"),
])
def test_from_generator_element_errors_as_tf(generator, types, shapes, headline, node):
    """TF 2.21 checks a yielded element in the py_func that runs the generator (an EagerPyFunc where no shape
    is known): a TypeError, with its traceback, that names that node, then the IteratorGetNext."""
    with tf.Graph().as_default():
        n = tf.data.make_one_shot_iterator(tf.data.Dataset.from_generator(generator, types, shapes)).get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(n)
    lines = info.value.message.split("\n")
    assert lines[:4] == ["Graph execution error:", "", headline, "Traceback (most recent call last):"]
    assert lines[-2:] == [f"\t [[{{{{node {node}}}}}]]", "\t [[IteratorGetNext]]"]


def test_initializable_iterator_reinitialized_with_fed_placeholder():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int64, [None])
        it = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v + 1).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                sess.run(nxt)
            for n in (3, 2):
                sess.run(it.initializer, {x: np.arange(n)})
                assert [sess.run(nxt) for _ in range(n)] == list(range(1, n + 1))
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(nxt)
        with pytest.raises(ValueError, match="Cannot capture a placeholder"):
            tf.data.Dataset.from_tensor_slices(x).make_one_shot_iterator()


def test_reinitializable_and_feedable_iterators():
    with tf.Graph().as_default():
        train, val = tf.data.Dataset.range(100), tf.data.Dataset.range(50, 53)
        it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
        nxt = it.get_next()
        init_train, init_val = it.make_initializer(train), it.make_initializer(val)
        assert (init_train.name, init_val.name) == ("make_initializer", "make_initializer_1")  # TF's op names
        with pytest.raises(ValueError, match="does not have an initializer"):
            it.initializer  # noqa: B018
        handle = tf.placeholder(tf.string, [])
        feedable = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
        one_shot = tf.data.Dataset.range(7, 9).make_one_shot_iterator()
        fnext = feedable.get_next()
        with tf.Session() as sess:
            sess.run(init_train)
            assert [sess.run(nxt) for _ in range(2)] == [0, 1]
            sess.run(init_val)
            assert [sess.run(nxt) for _ in range(3)] == [50, 51, 52]
            h_one, h_re = sess.run([one_shot.string_handle(), it.string_handle()])
            sess.run(init_train)
            assert sess.run(fnext, {handle: h_one}) == 7
            assert sess.run(fnext, {handle: h_re}) == 0
            assert sess.run(fnext, {handle: h_one}) == 8
        with pytest.raises(TypeError):
            it.make_initializer(tf.data.Dataset.from_tensors(1.0))


def test_tfrecord_text_and_fixed_length_files(tmp_path):
    paths = []
    for i, kind in enumerate(["", "GZIP"]):
        path = str(tmp_path / f"r{i}.tfrecord")
        with tf.python_io.TFRecordWriter(path, tf.python_io.TFRecordOptions(kind or None)) as writer:
            for j in range(3):
                writer.write(f"rec{i}{j}".encode())
        paths.append(path)
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\r\nthree")
    with gzip.open(tmp_path / "b.txt.gz", "wb") as f:
        f.write(b"x\ny\n")
    (tmp_path / "f.bin").write_bytes(b"HH" + b"abcdef" + b"F")
    (tmp_path / "g.bin").write_bytes(b"HH" + b"abcdefgh" + b"F")
    with tf.Graph().as_default():
        plain = tf.data.TFRecordDataset(paths[0])
        assert plain.output_types == tf.string and plain.output_shapes.as_list() == []
        assert dataset_elements(plain) == [b"rec00", b"rec01", b"rec02"]
        batch = dataset_elements(tf.data.TFRecordDataset(paths[0]).batch(2))[0]  # bytes objects, as TF fetches them
        assert batch.dtype == object and [type(r) for r in batch] == [bytes, bytes]
        names = tf.placeholder(tf.string, [None])
        it = tf.data.TFRecordDataset(names, compression_type="GZIP").make_initializable_iterator()
        assert dataset_elements(it.get_next(), {names: paths[1:]}, it.initializer) == [b"rec10", b"rec11", b"rec12"]
        assert dataset_elements(tf.data.TextLineDataset(str(tmp_path / "a.txt"))) == [b"one", b"two", b"three"]
        assert dataset_elements(tf.data.TextLineDataset(str(tmp_path / "b.txt.gz"), "GZIP")) == [b"x", b"y"]
        fixed = tf.data.FixedLengthRecordDataset(str(tmp_path / "f.bin"), 3, header_bytes=2, footer_bytes=1)
        assert dataset_elements(fixed) == [b"abc", b"def"]
        partial = tf.data.FixedLengthRecordDataset(str(tmp_path / "g.bin"), 3, header_bytes=2, footer_bytes=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="has body length 8 bytes, which is not an exact "
                                                                 "multiple of the record length \\(3 bytes\\)"):
            dataset_elements(partial)  # TF 2.21: before the first record
        parsed = tf.data.TFRecordDataset(paths[0]).map(lambda r: tf.strings.length(r))
        assert _ints(parsed) == [5, 5, 5]
        with pytest.raises(tf.errors.NotFoundError):
            dataset_elements(tf.data.TFRecordDataset(str(tmp_path / "missing")))


def test_map_of_a_graph_function_over_10000_elements_is_fast():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10000).map(lambda x: tf.cast(x, tf.float32) * 2.0 + 1.0).batch(10000)
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            start = time.perf_counter()
            values = sess.run(nxt)
            elapsed = time.perf_counter() - start
        np.testing.assert_array_equal(values, np.arange(10000, dtype=np.float32) * 2 + 1)
        assert elapsed < 2.0


def test_training_loop_fed_by_a_one_shot_iterator():
    rng = np.random.RandomState(0)
    x_data = rng.rand(64, 2).astype(np.float32)
    y_data = x_data @ np.array([[2.0], [-3.0]], np.float32) + 0.5
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices((x_data, y_data)).shuffle(64, seed=0).repeat(40).batch(16)
        x, y = ds.make_one_shot_iterator().get_next()
        w = tf.Variable(tf.zeros([2, 1]))
        b = tf.Variable(0.0)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        steps = 0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            while True:
                try:
                    _, last = sess.run([train, loss])
                    steps += 1
                except tf.errors.OutOfRangeError:
                    break
        assert steps == 160 and last < 1e-2


def test_public_names():
    assert tf.data.Dataset.__name__ == "DatasetV1"
    assert [tf.data.TFRecordDataset.__name__, tf.data.TextLineDataset.__name__,
            tf.data.FixedLengthRecordDataset.__name__] == [
        "TFRecordDatasetV1", "TextLineDatasetV1", "FixedLengthRecordDatasetV1"]  # as TF's (its TypeErrors name them)
    assert tf.data.experimental.AUTOTUNE == tf.data.AUTOTUNE == -1
    for name in ["Dataset", "Iterator", "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset",
                 "make_one_shot_iterator", "make_initializable_iterator", "get_output_types", "get_output_shapes",
                 "get_output_classes"]:
        assert hasattr(tf.data, name)


def test_a_blocked_get_next_fails_at_the_step_timeout():
    release = threading.Event()

    def gen():
        release.wait(5)
        yield 1

    with tf.Graph().as_default():
        nxt = tf.data.Dataset.from_generator(gen, tf.int64).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(nxt, options=tf.RunOptions(timeout_in_ms=100))
            release.set()


def test_batched_strings_are_object_arrays_that_keep_trailing_nuls():
    # TF fetches strings as object arrays of bytes; numpy's fixed-width bytes type would cut b"\x00"
    batched = tf.data.Dataset.from_tensor_slices(tf.constant([b"ab\x00", b"c"])).batch(2)
    padded = tf.data.Dataset.from_tensor_slices(tf.constant([[b"x\x00"], [b"y"]])).padded_batch(2, [None])
    with tf.Session() as sess:
        got = sess.run(batched.make_one_shot_iterator().get_next())
        got_padded = sess.run(padded.make_one_shot_iterator().get_next())
    assert got.dtype == object and got.tolist() == [b"ab\x00", b"c"]
    assert got_padded.dtype == object and got_padded.tolist() == [[b"x\x00"], [b"y"]]


def test_iterators_are_collected_as_tf():
    iterator = tf.data.Dataset.range(3).make_one_shot_iterator()
    assert tf.get_collection("iterators") == [iterator._iterator_resource]


def test_seeded_shuffle_gives_tf_orders():
    """Literals recorded from TF 2.21: its ring buffer, its Philox draws, and with reshuffle_each_iteration
    each pass seeded by the next two draws of the iterator's seed stream."""
    with tf.Graph().as_default():
        assert _ints(tf.data.Dataset.range(10).shuffle(4, seed=5, reshuffle_each_iteration=False)) == [
            3, 4, 2, 6, 1, 7, 5, 9, 8, 0]
        assert _ints(tf.data.Dataset.range(10).shuffle(4, seed=5)) == [1, 4, 5, 6, 2, 7, 0, 3, 9, 8]
        assert _ints(tf.data.Dataset.range(6).shuffle(10, seed=5).repeat(2)) == [1, 2, 5, 0, 3, 4, 2, 1, 5, 4, 0, 3]
        assert _ints(tf.data.Dataset.range(6).shuffle(10, seed=5, reshuffle_each_iteration=False).repeat(2)) == [
            1, 5, 2, 0, 4, 3, 1, 5, 2, 0, 4, 3]
        assert _ints(tf.data.Dataset.range(6).repeat(2).shuffle(4, seed=1)) == [0, 4, 5, 1, 2, 1, 3, 0, 3, 2, 5, 4]


def test_options_and_with_options():
    with tf.Graph().as_default():
        options = tf.data.Options()
        with pytest.raises(AttributeError, match="Cannot set the property foo on Options."):
            options.foo = 1
        options.experimental_optimization.map_parallelization = True
        later = tf.data.Options()
        later.experimental_deterministic = False
        later.threading.private_threadpool_size = 4
        dataset = tf.data.Dataset.range(3).with_options(options).map(lambda x: x * 2).with_options(later)
        with pytest.warns(UserWarning, match="Invoking this method in graph mode retains the legacy behavior"):
            merged = dataset.options()  # TF warns in graph mode
        assert (merged.deterministic, merged.experimental_threading.private_threadpool_size,
                merged.experimental_optimization.map_parallelization) == (False, 4, True)
        with pytest.warns(UserWarning):
            assert tf.data.Dataset.range(3).with_options(options).options() == options
        assert (tf.data.UNKNOWN_CARDINALITY, tf.data.experimental.INFINITE_CARDINALITY) == (-2, -1)
        assert _ints(dataset) == [0, 2, 4]


def _serialized_options(options):
    with tf.Graph().as_default() as graph:
        tf.data.Dataset.range(3).with_options(options)
        node, = [n for n in graph.as_graph_def().node if n.op == "OptionsDataset"]
        return node.attr["serialized_options"].s


def test_options_dataset_serializes_tfs_options_proto():
    """The bytes of TF 2.21's OptionsDataset attr: the options given (not merged), and every group."""
    options = tf.data.Options()
    assert _serialized_options(options) == b"\x12\x00\x1a\x00*\x00:\x00b\x00"
    options.experimental_deterministic = False
    options.experimental_optimization.map_and_batch_fusion = False
    options.experimental_optimization.map_parallelization = True
    options.threading.private_threadpool_size = 4
    options.threading.max_intra_op_parallelism = 1
    assert _serialized_options(options) == b"\x08\x00\x12\x00\x1a\x04H\x00`\x01*\x04\x08\x01\x10\x04:\x00b\x00"
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    options.experimental_slack = True
    options.experimental_external_state_policy = tf.data.experimental.ExternalStatePolicy.IGNORE
    options.autotune.enabled = False
    options.autotune.ram_budget = 100
    options.autotune.cpu_budget = 2
    assert _serialized_options(options) == b"\x12\x02\x08\x02\x1a\x00 \x01*\x000\x01:\x06\x08\x00\x10\x02\x18db\x00"
    with pytest.raises(TypeError, match='Property "private_threadpool_size" must be of type <class \'int\'>, got: x'):
        options.threading.private_threadpool_size = "x"
    merged = tf.data.Options().merge(tf.data.Options())
    assert merged.experimental_distribute.auto_shard_policy == tf.data.experimental.AutoShardPolicy.AUTO


def test_dataset_repr_and_initializable_iterator_initializer_name_match_tf():
    """TF 2.21 reprs a dataset as its class and element_spec, and make_initializable_iterator's initializer is a
    bare MakeIterator (no make_initializer scope)."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).batch(2)
        assert repr(ds) == "<_BatchDataset element_spec=TensorSpec(shape=(?,), dtype=tf.int64, name=None)>"
        assert repr(tf.data.Dataset.from_tensor_slices({"a": [1, 2]})) == (
            "<_TensorSliceDataset element_spec={'a': TensorSpec(shape=(), dtype=tf.int32, name=None)}>")
        assert ds.make_initializable_iterator().initializer.name == "MakeIterator"


def test_get_single_element_of_a_one_component_dataset():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.data.experimental.get_single_element(tf.data.Dataset.from_tensors(np.int64(5)))) == 5
        assert sess.run(tf.data.Dataset.from_tensors([1, 2]).get_single_element()).tolist() == [1, 2]


def test_enumerate_take_while_scan_reduce_and_experimental_transformations_match_tf():
    """Values recorded from TF 2.21."""
    with tf.Graph().as_default():
        enumerated = tf.data.Dataset.range(10).enumerate(3).take_while(lambda i, x: x < 4)
        assert [(int(i), int(x)) for i, x in dataset_elements(tf.data.make_one_shot_iterator(enumerated).get_next())] == [
            (3, 0), (4, 1), (5, 2), (6, 3)]
        scanned = tf.data.Dataset.range(5).scan(np.int64(0), lambda st, x: (st + x, st * 10))
        assert dataset_elements(tf.data.make_one_shot_iterator(scanned).get_next()) == [0, 0, 10, 30, 60]
        reduced = tf.data.Dataset.range(5).reduce((np.int64(0), np.int64(1)),
                                                   lambda st, x: (st[0] + x, st[1] * (x + 1)))
        assert reduced[0].name == "ReduceDataset:0"
        with tf.Session() as sess:
            assert sess.run(reduced) == (10, 120)
        shuffled = tf.data.Dataset.range(6).apply(tf.data.experimental.shuffle_and_repeat(4, 2, seed=3))
        assert dataset_elements(shuffled) == [0, 3, 2, 1, 4, 5, 0, 4, 1, 5, 3, 2]
        interleaved = tf.data.Dataset.range(4).apply(tf.data.experimental.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(3), cycle_length=2, block_length=2))
        assert dataset_elements(interleaved) == [0, 0, 1, 1, 0, 1, 2, 2, 3, 3, 2, 3]
        with pytest.raises(TypeError, match=r"^Invalid `scan_func`. `scan_func` should return a pair consisting of "
                                            r"new state and the output value but its return type is TensorSpec\("):
            tf.data.Dataset.range(3).scan(0, lambda st, x: st)
        with pytest.raises(TypeError, match="^Invalid input to `zip`. Inputs are expected to be \\(nested\\) "
                                            "structures of `tf.data.Dataset` objects. Python `list` is not "):
            tf.data.Dataset.zip([tf.data.Dataset.range(2)])


def test_dataset_methods_of_tf2_experimental_functions():
    """cardinality, ignore_errors, sample_from_datasets and counter are Dataset methods too (values from TF 2.21)."""
    with tf.Graph().as_default():
        bad = tf.data.Dataset.range(4).map(lambda x: tf.debugging.check_numerics(1.0 / tf.cast(x - 2, tf.float32), "b"))
        mixed = tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(5), tf.data.Dataset.range(100, 105)],
                                                     [0.3, 0.7], seed=4)
        with tf.Session() as sess:
            assert sess.run(tf.data.Dataset.range(10).batch(3).cardinality()) == 4
        assert [round(float(v), 3) for v in dataset_elements(bad.ignore_errors())] == [-0.5, -1.0, 1.0]
        assert [int(v) for v in dataset_elements(mixed.take(10))] == [100, 101, 0, 102, 103, 104, 1, 2, 3, 4]
        assert [int(v) for v in dataset_elements(tf.data.Dataset.counter(3, 2).take(3))] == [3, 5, 7]


def test_cache_to_a_file_is_read_by_later_iterators(tmp_path):
    """The file cache is TF's bundle (keys `f"{i:7d}_{j}"`): a later pipeline reads it instead of its input, and
    TF reads it too (the files and keys recorded from TF 2.21)."""
    prefix = str(tmp_path / "c")

    def cached(k):
        return tf.data.Dataset.range(3).map(lambda x: (x * k, tf.as_string(x * k))).cache(prefix)

    with tf.Graph().as_default():
        assert [(int(a), b) for a, b in dataset_elements(cached(3))] == [(0, b"0"), (3, b"3"), (6, b"6")]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["c.data-00000-of-00001", "c.index"]
        assert [(int(a), b) for a, b in dataset_elements(cached(100))] == [(0, b"0"), (3, b"3"), (6, b"6")]
    from tensorweave.formats.bundle import BundleReader
    assert BundleReader(prefix).keys()[:2] == [b"      0_0", b"      0_1"]


def test_file_datasets_take_a_dataset_of_file_names(tmp_path):
    paths = []
    for i in range(2):
        path = str(tmp_path / f"f{i}.tfr")
        with tf.io.TFRecordWriter(path) as writer:
            writer.write(b"r%d" % i)
        paths.append(path)
    names = tf.data.Dataset.from_tensor_slices(paths)
    records = tf.data.TFRecordDataset(names)
    assert repr(records) == "<TFRecordDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, name=None)>"
    assert repr(tf.data.TextLineDataset(paths[0])).startswith("<TextLineDatasetV2 ")
    lengths = tf.data.FixedLengthRecordDataset(names, 1)
    unknown = tf.data.TFRecordDataset([[paths[0]]], compression_type="BZIP")  # TF reads an unknown type uncompressed
    assert dataset_elements(records) == [b"r0", b"r1"]
    assert len(dataset_elements(lengths)) == 2 * len(open(paths[0], "rb").read())
    assert dataset_elements(unknown) == [b"r0"]
    with pytest.raises(TypeError, match="The `filenames` argument must contain `tf.string` elements. Got a dataset "
                                        "of `tf.int64` elements."):
        tf.data.TextLineDataset(tf.data.Dataset.range(3))
    with pytest.raises(TypeError, match="The `filenames` argument must contain `tf.string` elements. Got "
                                        "`tf.int32` elements."):
        tf.data.TFRecordDataset(1)


def test_file_dataset_argument_messages(tmp_path):
    """TF 2.21's kernel messages: the CSV dataset names a bad compression type, the other readers do not."""
    path = str(tmp_path / "x.bin")
    open(path, "wb").write(bytes(range(8)))
    cases = [(tf.data.experimental.CsvDataset(path, [[""]], compression_type="BAD"),
              "Unsupported compression_type: BAD."),
             (tf.data.TextLineDataset(path, compression_type="BAD"), "Unsupported compression_type."),
             (tf.data.FixedLengthRecordDataset(path, 4, header_bytes=-1), "`header_bytes` must be >= 0"),
             (tf.data.FixedLengthRecordDataset(path, -1, footer_bytes=-1), "`record_bytes` must be > 0"),
             (tf.data.FixedLengthRecordDataset(path, 4, footer_bytes=-2), "`footer_bytes` must be >= 0")]
    for dataset, message in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            dataset_elements(dataset)
        assert runtime_message(info.value).split("\n")[0] == message


@pytest.mark.parametrize("make, node, message", [
    (lambda: tf.data.Dataset.range(3).batch(0), "BatchDatasetV2", "Batch size must be greater than zero."),
    (lambda: tf.data.Dataset.range(3).shuffle(0), "ShuffleDataset",
     "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"),
    (lambda: tf.data.Dataset.range(3).window(2, 0), "WindowDataset", "Window shift must be greater than zero."),
    (lambda: tf.data.Dataset.range(0, 3, 0), "RangeDataset", "step must be a non-zero integer."),
    (lambda: tf.data.Dataset.range(3).shard(2, 5), "ShardDataset",
     r"Index must be between 0 and 1 \(currently index = 5\)."),
    (lambda: tf.data.Dataset.range(3).prefetch(-5), "PrefetchDataset",
     "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"),
    (lambda: tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=-3),
     "InterleaveDataset", "cycle_length must be greater than zero."),
])
def test_bad_arguments_fail_the_initializer_naming_the_dataset_node(make, node, message):
    """TF 2.21 checks a dataset's arguments in its node's kernel: the iterator's initializer fails."""
    with tf.Graph().as_default():
        iterator = tf.data.make_initializable_iterator(make())
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message) as caught:
                sess.run(iterator.initializer)
    assert f"node {node}" in str(caught.value)


def test_shuffle_of_unknown_cardinality_buffers_the_whole_input():
    with tf.Graph().as_default():
        assert _ints(tf.data.Dataset.range(5).shuffle(tf.data.UNKNOWN_CARDINALITY, seed=1)) == [0, 4, 3, 1, 2]


def test_feedable_and_reinitializable_iterators_reject_what_tf_rejects():
    with tf.Graph().as_default():
        iterator = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
        with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
            iterator.make_initializer(tf.data.Dataset.from_tensors((1, 2)))
        handle = tf.placeholder(tf.string, [])
        nxt = tf.data.Iterator.from_string_handle(handle, tf.int32, tf.TensorShape([])).get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Could not parse string_handle as a valid ResourceHandle"):
                sess.run(nxt, {handle: b"garbage"})


def test_string_handle_checks_types_then_shapes_as_tf():
    """TF 2.21's IteratorFromStringHandleV2: VerifyTypesMatch (the count, then each type), then
    VerifyShapesCompatible."""
    with tf.Graph().as_default():
        handle = tf.placeholder(tf.string, [])
        sources = [tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensors(v)) for v in
                   ([1.0, 2.0], (1.0, 2.0), np.int64(1))]
        cases = [(tf.float32, tf.TensorShape([None, 2]), [
            "Incompatible shapes at component 0: expected [?,2] but got [2].",
            "Number of components does not match: expected 1 types but got 2.",
            "Data type mismatch at component 0: expected float but got int64."]),
            ((tf.float32, tf.float32), (tf.TensorShape([2]), tf.TensorShape([2])), [
                "Number of components does not match: expected 2 types but got 1.",
                "Incompatible shapes at component 0: expected [2] but got [].",
                "Number of components does not match: expected 2 types but got 1."])]
        with tf.Session() as sess:
            handles = sess.run([s.string_handle() for s in sources])
            for types, shapes, messages in cases:
                nxt = tf.data.Iterator.from_string_handle(handle, types, shapes).get_next()
                for value, message in zip(handles, messages):
                    with pytest.raises(tf.errors.InvalidArgumentError) as info:
                        sess.run(nxt, {handle: value})
                    assert runtime_message(info.value).split("\n")[0] == message


def test_make_initializer_structure_message_has_no_outlines():
    """tf.data's nest (TF's AssertSameStructureForData) words a mismatch without the structures' outlines."""
    with tf.Graph().as_default():
        it = tf.data.Iterator.from_structure((tf.int64, tf.float32), (tf.TensorShape([]), tf.TensorShape([2])))
        with pytest.raises(ValueError) as info:
            it.make_initializer(tf.data.Dataset.range(3))
    assert str(info.value).endswith('More specifically: Substructure "type=tuple str=(tf.int64, tf.float32)" is a '
                                    'sequence, while substructure "type=DType str=<dtype: \'int64\'>" is not')


def test_get_next_called_past_32_times_warns_as_tf():
    """TF warns from the 33rd get_next of one iterator on (a get_next inside a training loop)."""
    with tf.Graph().as_default():
        iterator = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3))
        other = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(34):
                iterator.get_next()
            other.get_next()
    assert [str(w.message)[:69] for w in caught] == [
        "An unusually high number of `Iterator.get_next()` calls was detected."] * 2
