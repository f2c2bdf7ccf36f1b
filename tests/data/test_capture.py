"""tf.data functions that read tensors of the enclosing graph: captured as inputs of the dataset node, their
values taken when the iterator is initialized (literals recorded from TF 2.21 with disable_v2_behavior)."""

import re

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf


def _initialized(dataset):
    iterator = tf.data.make_initializable_iterator(dataset)
    return iterator.initializer, iterator.get_next()


def _drain(sess, next_element):
    elements = []
    try:
        while True:
            elements.append(sess.run(next_element))
    except tf.errors.OutOfRangeError:
        return elements


def test_a_map_function_captures_a_constant_as_an_input_of_the_dataset_node():
    with tf.Graph().as_default() as g:
        scale = tf.constant(3.0)
        ds = tf.data.Dataset.range(5).map(lambda x: tf.cast(x, tf.float32) * scale)
        assert dataset_elements(ds) == [0.0, 3.0, 6.0, 9.0, 12.0]
        scale_2 = tf.constant(2, tf.int64, name="scale_2")
        init, _ = _initialized(tf.data.Dataset.range(3).map(lambda x: x * scale_2, num_parallel_calls=2).batch(2))
        consumers = scale_2.consumers()  # the dataset node (TF's: the ParallelMapDatasetV2 node) reads it
        assert [c.outputs[0].dtype for c in consumers] == [tf.variant]
        node = next(n for n in g.as_graph_def().node if n.name == consumers[0].name)
        assert "scale_2" in node.input


def test_a_fed_placeholder_is_read_at_each_initialization():
    with tf.Graph().as_default():
        limit = tf.placeholder(tf.int64, [])
        init, next_element = _initialized(tf.data.Dataset.range(10).filter(lambda x: x < limit))
        assert dataset_elements(next_element, {limit: 3}, init) == [0, 1, 2]
        assert dataset_elements(next_element, {limit: 5}, init) == [0, 1, 2, 3, 4]
        mapped = tf.data.Dataset.range(4).map(lambda x: x * limit).batch(3)  # map and batch, fused
        init, next_element = _initialized(mapped)
        assert [b.tolist() for b in dataset_elements(next_element, {limit: 10}, init)] == [[0, 10, 20], [30]]


@pytest.mark.parametrize("use_resource", [False, True])
def test_a_variable_is_read_as_elements_are_made(use_resource):
    """A ref variable's captured snapshot shares its buffer, as in TF; TF's injected prefetch may make a few
    elements ahead of the update, tensorweave makes none."""
    with tf.Graph().as_default():
        v = tf.Variable(2.0, use_resource=use_resource)
        init, next_element = _initialized(tf.data.Dataset.range(40).map(lambda x: tf.cast(x, tf.float32) * v))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init)
            assert sess.run(next_element) == 0.0
            sess.run(v.assign_add(10.0))
            assert _drain(sess, next_element)[-1] == 39 * 12.0
            sess.run(init)
            assert _drain(sess, next_element)[:3] == [0.0, 12.0, 24.0]


def test_lookup_tables_used_inside_map():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([0, 1, 2], tf.int64), tf.constant([10, 11, 12], tf.int64)), -1)
        vocabulary = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(["a", "c"]), tf.constant([0, 1], tf.int64)), num_oov_buckets=2)
        mutable = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, -1.0)
        init_1, next_1 = _initialized(tf.data.Dataset.range(5).map(table.lookup))
        init_2, next_2 = _initialized(tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]).map(vocabulary.lookup))
        init_3, next_3 = _initialized(tf.data.Dataset.range(5).map(mutable.lookup))
        with tf.Session() as sess:
            sess.run([tf.tables_initializer(), init_1, init_2])
            assert _drain(sess, next_1) == [10, 11, 12, -1, -1]
            assert _drain(sess, next_2) == [0, 2, 1, 3]
            sess.run(mutable.insert(tf.constant([1, 2], tf.int64), tf.constant([0.5, 0.25])))
            sess.run(init_3)
            assert _drain(sess, next_3) == [-1.0, 0.5, 0.25, -1.0, -1.0]


def test_nested_functions_capture_through_the_outer_function():
    with tf.Graph().as_default():
        limit, offset = tf.placeholder(tf.int64, []), tf.placeholder(tf.int64, [])
        nested = tf.data.Dataset.range(1, 4).flat_map(
            lambda x: tf.data.Dataset.range(x).map(lambda y: y * 10 + offset).filter(lambda y: y < limit))
        init, next_element = _initialized(nested)
        assert dataset_elements(next_element, {limit: 15, offset: 1}, init) == [1, 1, 11, 1, 11]
        assert dataset_elements(next_element, {limit: 25, offset: 2}, init) == [2, 2, 12, 2, 12, 22]
        interleaved = tf.data.Dataset.range(3).interleave(
            lambda x: tf.data.Dataset.from_tensors(x + offset).repeat(limit), cycle_length=2)
        init, next_element = _initialized(interleaved)
        assert dataset_elements(next_element, {limit: 2, offset: 100}, init) == [100, 101, 100, 101, 102, 102]
        returned = tf.data.Dataset.range(3).flat_map(lambda x: tf.data.Dataset.from_tensors(offset + x).repeat(2))
        init, next_element = _initialized(returned)
        assert dataset_elements(next_element, {offset: 10}, init) == [10, 10, 11, 11, 12, 12]


def test_group_by_window_scan_reduce_and_take_while_capture():
    with tf.Graph().as_default():
        m, scale = tf.placeholder(tf.int64, []), tf.placeholder(tf.int64, [])
        grouped = tf.data.Dataset.range(10).group_by_window(
            lambda x: x % m, lambda k, w: w.map(lambda v: v * scale + k).batch(10),
            window_size_func=lambda k: k + m - 1)
        scanned = tf.data.Dataset.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x * scale, s * m))
        reduced = tf.data.Dataset.range(5).reduce(tf.constant(0, tf.int64), lambda s, x: s + x * scale)
        pairs = tf.data.Dataset.range(3).map(lambda x: (x, scale))
        init_1, next_1 = _initialized(grouped)
        init_2, next_2 = _initialized(scanned)
        init_3, next_3 = _initialized(tf.data.Dataset.range(10).take_while(lambda x: x < m))
        init_4, next_4 = _initialized(pairs)
        feed = {m: 3, scale: 10}
        assert [b.tolist() for b in dataset_elements(next_1, feed, init_1)] == [[0, 30], [11, 41, 71], [60, 90],
                                                                                 [22, 52, 82]]
        assert dataset_elements(next_2, feed, init_2) == [0, 0, 30, 90, 180]
        assert dataset_elements(next_3, feed, init_3) == [0, 1, 2]
        assert dataset_elements(next_4, feed, init_4) == [(0, 10), (1, 10), (2, 10)]
        with tf.Session() as sess:
            assert sess.run(reduced, {scale: 100}) == 1000


def test_control_flow_strings_sparse_and_py_func_inside_map():
    with tf.Graph().as_default():
        threshold = tf.placeholder(tf.int64, [])
        init_1, next_1 = _initialized(tf.data.Dataset.range(6).map(
            lambda x: tf.cond(x < threshold, lambda: x * 2, lambda: x + threshold)))
        init_2, next_2 = _initialized(tf.data.Dataset.range(4).map(lambda x: tf.while_loop(
            lambda i, a: i < threshold, lambda i, a: (i + 1, a + x),
            [tf.constant(0, tf.int64), tf.constant(0, tf.int64)])[1]))
        assert dataset_elements(next_1, {threshold: 3}, init_1) == [0, 2, 4, 6, 7, 8]
        assert dataset_elements(next_2, {threshold: 3}, init_2) == [0, 3, 6, 9]
        strings = tf.placeholder(tf.string, [None])
        init, next_element = _initialized(tf.data.Dataset.range(3).map(lambda x: tf.gather(strings, x)))
        assert dataset_elements(next_element, {strings: [b"a", b"b", b"c"]}, init) == [b"a", b"b", b"c"]
        sparse = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
        rows = dataset_elements(tf.data.Dataset.range(2).map(lambda x: tf.sparse.to_dense(sparse)[x]))
        assert [r.tolist() for r in rows] == [[1.0, 0.0], [0.0, 2.0]]
        factor = tf.placeholder(tf.float64, [])
        init, next_element = _initialized(tf.data.Dataset.range(3).map(
            lambda x: tf.py_func(lambda a, b: a * b, [tf.cast(x, tf.float64), factor], tf.float64)))
        assert dataset_elements(next_element, {factor: 1.5}, init) == [0.0, 1.5, 3.0]


def test_captures_survive_a_graph_def_round_trip():
    with tf.Graph().as_default() as g:
        limit = tf.placeholder(tf.int64, [], name="limit")
        scale = tf.constant(3, tf.int64, name="scale")
        init, next_element = _initialized(tf.data.Dataset.range(10).filter(lambda x: x < limit).map(
            lambda x: x * scale))
        graph_def = g.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="imp")
        assert dataset_elements("imp/" + next_element.name, {"imp/limit:0": 3},
                                "imp/" + init.name) == [0, 3, 6]


_STATEFUL = (": A likely cause of this error is that the dataset for which you are calling `make_one_shot_iterator()` "
             "captures a stateful object, such as a `tf.Variable` or `tf.lookup.StaticHashTable`, which is not "
             "supported. Use `make_initializable_iterator()` instead.")


def test_a_one_shot_iterator_refuses_placeholders_and_stateful_captures():
    with tf.Graph().as_default():
        p1 = tf.placeholder(tf.int64, [], name="p1")
        v = tf.Variable(1, dtype=tf.int64, name="vv")
        rv = tf.Variable(2.0, name="rv", use_resource=True)
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([0], tf.int64), tf.constant([1], tf.int64)), -1)
        draw = tf.random_uniform([])
        cases = [
            (tf.data.Dataset.range(10).filter(lambda x: x < p1),
             "Cannot capture a placeholder (name:p1, type:Placeholder) by value."),
            (tf.data.Dataset.range(3).map(lambda x: x * v).filter(lambda x: x < p1),
             "Cannot capture a stateful node (name:vv, type:VariableV2) by value." + _STATEFUL),
            (tf.data.Dataset.range(p1).map(lambda x: x * v),
             "Cannot capture a placeholder (name:p1, type:Placeholder) by value."),
            (tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * rv),
             "Cannot capture a stateful node (name:rv, type:VarHandleOp) by value." + _STATEFUL),
            (tf.data.Dataset.range(3).map(table.lookup),
             "Cannot capture a stateful node (name:hash_table, type:HashTableV2) by value." + _STATEFUL),
            (tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * draw),
             "Cannot capture a stateful node (name:random_uniform/RandomUniform, type:RandomUniform) by value."
             + _STATEFUL),
            (tf.data.Dataset.range(3).flat_map(lambda x: tf.data.Dataset.range(x).map(lambda y: y + p1)),
             "Cannot capture a placeholder (name:p1, type:Placeholder) by value."),
        ]
        for dataset, message in cases:
            with pytest.raises(ValueError) as e:
                tf.data.make_one_shot_iterator(dataset)
            assert str(e.value) == message
        default = tf.placeholder_with_default(tf.constant(4, tf.int64), [])
        assert dataset_elements(tf.data.Dataset.range(10).filter(lambda x: x < default)) == [0, 1, 2, 3]


def test_the_dataset_node_reads_each_captured_tensor():
    with tf.Graph().as_default():
        offset = tf.placeholder(tf.int64, [])
        base = tf.data.Dataset.range(3).map(lambda x: x + offset)
        init, next_element = _initialized(tf.data.Dataset.zip((base, base.map(lambda x: x * offset))))
        np.testing.assert_array_equal(dataset_elements(next_element, {offset: 2}, init), [(2, 4), (3, 6), (4, 8)])


def test_experimental_transformations_capture_and_foreign_tensors_are_refused():
    with tf.Graph().as_default():
        feed = tf.placeholder(tf.int64, [])
        v = tf.Variable(0, dtype=tf.int64)
        increment = tf.assign_add(v, 1)

        def ordered_after_an_outer_op(x):
            with tf.control_dependencies([increment]):  # an outer op: TF drops the dependency
                return x + 0

        cases = [
            (5, tf.data.experimental.map_and_batch(lambda x: x * feed, 2), [[0, 7], [14, 21], [28]]),
            (3, tf.data.experimental.parallel_interleave(
                lambda x: tf.data.Dataset.from_tensors(x + feed).repeat(2), cycle_length=2), [7, 8, 7, 8, 9, 9]),
            (4, tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + feed, s)), [0, 7, 14, 21]),
            (3, lambda ds: ds.map(ordered_after_an_outer_op), [0, 1, 2]),
        ]
        with tf.Session() as sess:
            sess.run(v.initializer)
            for size, transformation, want in cases:
                init, next_element = _initialized(tf.data.Dataset.range(size).apply(transformation))
                sess.run(init, {feed: 7})
                assert [np.asarray(e).tolist() for e in _drain(sess, next_element)] == want
            assert sess.run(v) == 0
    with tf.Graph().as_default():
        foreign = tf.constant(1, tf.int64)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be from the same graph as"):
            tf.data.Dataset.range(3).map(lambda x: x + foreign)


def test_a_tf_function_called_inside_map_runs_from_the_function_library():
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.int64, [])

        @tf.function
        def scaled(x):
            return x * scale  # captured through the map function

        init, next_element = _initialized(tf.data.Dataset.range(3).map(lambda x: scaled(x) + 1))
        assert dataset_elements(next_element, {scale: 5}, init) == [1, 6, 11]


def test_a_captured_ref_variable_is_a_value_an_update_cannot_take():
    """TF captures a ref variable's value: an update of it inside the function fails its input type check (TF's
    message is inside autograph's "in user code:"); a resource variable's handle can be updated."""
    with tf.Graph().as_default():
        v = tf.Variable(0, dtype=tf.int64)
        with pytest.raises(TypeError, match=re.escape(
                "In op 'AssignAdd', input types ([tf.int64, tf.int64]) are not compatible with expected types "
                "([tf.int64_ref, tf.int64])")):
            tf.data.Dataset.range(4).map(lambda x: tf.assign_add(v, x))
        rv = tf.Variable(0, dtype=tf.int64, use_resource=True)
        init, next_element = _initialized(tf.data.Dataset.range(4).map(lambda x: tf.assign_add(rv, x)))
        with tf.Session() as sess:
            sess.run([rv.initializer, init])
            assert _drain(sess, next_element) == [0, 1, 3, 6]
            assert sess.run(rv) == 6
