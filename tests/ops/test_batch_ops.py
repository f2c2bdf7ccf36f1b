"""tf.nondifferentiable_batch_function (BatchFunction): TF's node (attrs, func name, unknown output shapes),
values as TF 2.21 gives them (recorded from real TF), concurrent runs batched into one call of the function
and split back, the timeout, padding to allowed batch sizes, and TF's messages."""

import threading

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _recording(sizes):
    """x + 1, noting the size of each batch the function is called on."""

    def note(x):
        sizes.append(len(x))
        return x

    def computation(x):
        return tf.py_func(note, [x], tf.int32) + 1

    return computation


def test_batch_function_node_and_values_match_tf():
    with tf.Graph().as_default():
        inp = tf.placeholder(tf.int32, [None])
        out = tf.nondifferentiable_batch_function(1, 10, 100000)(lambda x: x + 1)(inp)
        assert out.op.type == "BatchFunction" and out.op.name == "batch/BatchFunction" and out.shape.ndims is None
        attrs = {k: out.op.get_attr(k) for k in ["num_batch_threads", "max_batch_size", "batch_timeout_micros",
                                                 "allowed_batch_sizes", "max_enqueued_batches", "shared_name",
                                                 "enable_large_batch_splitting", "Tin", "Tcaptured", "Tout"]}
        assert attrs == {"num_batch_threads": 1, "max_batch_size": 10, "batch_timeout_micros": 100000,
                         "allowed_batch_sizes": [], "max_enqueued_batches": 10, "shared_name": b"batch/",
                         "enable_large_batch_splitting": True, "Tin": [tf.int32], "Tcaptured": [],
                         "Tout": [tf.int32]}
        assert out.op.node_def.attr["f"].func.name.startswith("__inference_")
        pair = tf.placeholder(tf.float32, [None, 2])

        @tf.nondifferentiable_batch_function(2, 4, 50000, allowed_batch_sizes=[2, 4],
                                             enable_large_batch_splitting=False)
        def two(a, b):
            return a * 2.0, tf.reduce_sum(b, axis=1, keepdims=True)

        doubled, summed = two(pair, pair)
        assert doubled.op.name == "batch_1/BatchFunction"
        with tf.Session() as sess:
            assert sess.run(out, {inp: [1, 2]}).tolist() == [2, 3]
            assert sess.run(out, {inp: []}).tolist() == []
            values = sess.run([doubled, summed], {pair: [[1, 2], [3, 4], [5, 6]]})
    assert values[0].tolist() == [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]] and values[1].tolist() == [[3.0], [7.0], [11.0]]


def test_concurrent_runs_are_batched_and_split_back():
    sizes = []
    with tf.Graph().as_default():
        inp = tf.placeholder(tf.int32, [None])
        out = tf.nondifferentiable_batch_function(1, 6, 5_000_000)(_recording(sizes))(inp)
        results = {}
        with tf.Session() as sess:
            threads = [threading.Thread(target=lambda i=i: results.setdefault(i, sess.run(out, {inp: [i, 10 * i]})))
                       for i in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=30)
    assert sizes == [6]
    assert {i: v.tolist() for i, v in results.items()} == {0: [1, 1], 1: [2, 11], 2: [3, 21]}


def test_timeout_and_padding():
    sizes = []
    with tf.Graph().as_default():
        inp = tf.placeholder(tf.int32, [None])
        alone = tf.nondifferentiable_batch_function(1, 10, 20000)(_recording(sizes))(inp)
        padded = tf.nondifferentiable_batch_function(1, 8, 20000, allowed_batch_sizes=[2, 5, 8])(
            _recording(sizes))(inp)
        with tf.Session() as sess:
            assert sess.run(alone, {inp: [4, 5]}).tolist() == [5, 6]
            assert sess.run(padded, {inp: [7, 8, 9]}).tolist() == [8, 9, 10]
    assert sizes == [2, 5]


def test_batch_function_errors():
    with tf.Graph().as_default():
        vector, scalar = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [])
        other = tf.placeholder(tf.float32, [None])
        identity = tf.nondifferentiable_batch_function(1, 4, 1000)(lambda x: x)
        not_batched = tf.nondifferentiable_batch_function(1, 4, 1000)(lambda x: tf.reduce_sum(x, keepdims=True))
        cases = [
            (identity(vector), {vector: np.zeros(5)}, tf.errors.InvalidArgumentError,
             "Task size 5 is larger than maximum input batch size 4"),
            (identity(scalar), {scalar: 1.0}, tf.errors.InvalidArgumentError,
             "Batching input tensors must have at least one dimension."),
            (tf.nondifferentiable_batch_function(1, 4, 1000)(lambda x, y: x + y[0])(vector, other),
             {vector: [1.0, 2.0], other: [1.0]}, tf.errors.InvalidArgumentError,
             "Batching input tensors supplied in a given op invocation must have equal 0th-dimension size."),
            (tf.nondifferentiable_batch_function(1, 4, 1000, allowed_batch_sizes=[3, 2])(lambda x: x)(vector),
             {vector: [1.0]}, tf.errors.InvalidArgumentError,
             "allowed_batch_sizes entries must be monotonically increasing"),
            (tf.nondifferentiable_batch_function(1, 4, 1000, allowed_batch_sizes=[2, 3],
                                                 enable_large_batch_splitting=False)(lambda x: x)(vector),
             {vector: [1.0]}, tf.errors.InvalidArgumentError,
             "final entry in allowed_batch_sizes must equal max_batch_size when enable_large_batch_splitting is False"),
            (not_batched(vector), {vector: [1.0, 2.0, 3.0]}, tf.errors.FailedPreconditionError,
             "Batched output tensor's 0th dimension does not equal the sum of the 0th dimension sizes of the input "
             "tensors. 0th dimension size: 1; batch size: 3; unbatched tasks size: 0; padding size: 0"),
        ]
        with tf.Session() as sess:
            for fetch, feed, error, message in cases:
                with pytest.raises(error, match=message.replace(".", r"\.")) as caught:
                    sess.run(fetch, feed)
                assert "BatchFunction" in str(caught.value)
