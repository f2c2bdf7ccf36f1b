"""Session.run workloads written once against the TF1 API, timed on tensorweave, real TensorFlow and NumPy.

Each workload is a function of the TF1 module `tf` that builds its graph in the current default graph and
returns `(session, step)`; the same function runs on `tensorweave.compat.v1` in this process and on
`tensorflow.compat.v1` in a child process of the python named by `--tf-python`, which prints its results as
JSON for this process to merge. A NumPy reference doing the same arithmetic shows what the kernels alone cost.
Times are medians of per-step `perf_counter` readings after a warmup; `threads` is reported as the speedup of
two concurrent steps on one session over one step at a time, with BLAS held to one thread.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

Step = Callable[[], object]

BACKENDS = ("tensorweave", "tensorflow", "numpy")
TF_PYTHON_ENV = "TENSORWEAVE_TF_PYTHON"
STEP_BUDGET_S = 1.5
WARMUP_S = 0.25
MAX_STEPS = 200_000
MIN_STEPS = 5
SPEEDUP_ROUNDS = 7


def load_backend(backend: str) -> Any:
    """Import a TF1-API module: tensorweave's, or real TensorFlow's switched to graph mode."""
    if backend == "tensorweave":
        return importlib.import_module("tensorweave.compat.v1")
    if backend == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.nn.rnn_cell and tf.layers need tf_keras
        tf = importlib.import_module("tensorflow.compat.v1")
        tf.disable_eager_execution()
        tf.disable_v2_behavior()
        return tf
    raise ValueError(f"no TF1-API module for backend {backend!r}")


def make_session(tf: Any, **config: Any) -> Any:
    """A session on the default graph; the config is passed only where the module has ConfigProto."""
    config_proto = getattr(tf, "ConfigProto", None)
    if config and config_proto is not None:
        return tf.Session(config=config_proto(**config))
    return tf.Session()


def null_step(tf: Any) -> tuple[Any, Step]:
    """The fixed cost of one run: a scalar placeholder plus 1.0, fed a Python float."""
    x = tf.placeholder(tf.float32, shape=[])
    y = x + 1.0
    sess = make_session(tf)
    return sess, lambda: sess.run(y, feed_dict={x: 3.0})


def chain_1000(tf: Any) -> tuple[Any, Step]:
    """Per-node cost: 2000 tiny dependent ops on a [4] tensor."""
    x = tf.placeholder(tf.float32, shape=[4])
    y = x
    for _ in range(1000):
        y = y * 1.0001 + 0.5
    data = np.arange(4, dtype=np.float32)
    sess = make_session(tf)
    return sess, lambda: sess.run(y, feed_dict={x: data})


def py_function_chain(tf: Any) -> tuple[Any, Step]:
    """Per-op cost of eager execution: a tf.py_function running 400 tiny dependent ops on a [4] tensor."""
    def chain(y: Any) -> Any:
        for _ in range(200):
            y = y * 1.0001 + 0.5
        return y

    x = tf.placeholder(tf.float32, shape=[4])
    y = tf.py_function(chain, [x], tf.float32)
    data = np.arange(4, dtype=np.float32)
    sess = make_session(tf)
    return sess, lambda: sess.run(y, feed_dict={x: data})


def fig1(tf: Any) -> tuple[Any, Step]:
    """The whitepaper's Figure 1 forward pass: sum(relu(x W + b))."""
    x = tf.placeholder(tf.float32, shape=[100, 784])
    w = tf.Variable(tf.random_uniform([784, 100], -1.0, 1.0))
    b = tf.Variable(tf.random_uniform([100], -1.0, 1.0))
    total = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) + b))
    data = np.random.default_rng(0).random((100, 784), dtype=np.float32)
    sess = make_session(tf)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(total, feed_dict={x: data})


def feed_fetch_1m(tf: Any) -> tuple[Any, Step]:
    """Feed and fetch costs on 4 MB: fetch x * 2.0 for a fed [1048576] array."""
    x = tf.placeholder(tf.float32, shape=[1 << 20])
    y = x * 2.0
    data = np.random.default_rng(0).random(1 << 20, dtype=np.float32)
    sess = make_session(tf)
    return sess, lambda: sess.run(y, feed_dict={x: data})


def var_update(tf: Any) -> tuple[Any, Step]:
    """A stateful target: assign_add of ones to a [1048576] variable, nothing fetched."""
    v = tf.Variable(tf.zeros([1 << 20]))
    update = tf.assign_add(v, tf.ones([1 << 20]))
    sess = make_session(tf)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(update.op)


def resource_var_update(tf: Any) -> tuple[Any, Step]:
    """var_update on a resource variable: with no read alive, AssignAddVariableOp updates in place."""
    v = tf.Variable(tf.zeros([1 << 20]), use_resource=True)
    update = v.assign_add(tf.ones([1 << 20]), read_value=False)
    sess = make_session(tf)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(update)


def resource_embedding_step(tf: Any) -> tuple[Any, Step]:
    """A sparse SGD step on a [100000, 64] resource embedding: 256 rows read (ResourceGather) and updated
    (ResourceScatterAdd) in place, where a copy on every write would move 25 MB."""
    emb = tf.Variable(tf.zeros([100000, 64]), use_resource=True)
    ids = tf.constant(np.random.default_rng(0).integers(0, 100000, 256))
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    sess = make_session(tf)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(train)


def threads(tf: Any) -> tuple[Any, Step]:
    """One [1024, 1024] matmul step; measured single-threaded and from two threads on the same session."""
    a = tf.Variable(tf.random_uniform([1024, 1024]))
    b = tf.Variable(tf.random_uniform([1024, 1024]))
    product = tf.matmul(a, b)
    sess = make_session(tf, intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(product)


def while_count(tf: Any) -> tuple[Any, Step]:
    """Loop overhead: a scalar counting tf.while_loop of 1000 iterations per step (issue 19's target)."""
    n = tf.placeholder(tf.int32, [])
    count = tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])
    sess = make_session(tf)
    return sess, lambda: sess.run(count, feed_dict={n: 1000})


class _LSTMCell:
    """A plain LSTM cell written against the TF1 API (real TF 2.x's tf.nn.rnn_cell needs legacy Keras)."""

    def __init__(self, tf: Any, depth: int, units: int) -> None:
        rng = np.random.default_rng(0)
        self.tf, self.output_size, self.state_size = tf, units, (units, units)
        self.kernel = tf.Variable(rng.normal(0, 0.1, (depth + units, 4 * units)).astype(np.float32))
        self.bias = tf.Variable(np.zeros(4 * units, np.float32))

    def zero_state(self, batch_size: Any, dtype: Any) -> tuple:
        return (self.tf.zeros([batch_size, self.output_size], dtype),) * 2

    def __call__(self, inputs: Any, state: tuple) -> tuple:
        tf = self.tf
        c, h = state
        i, j, f, o = tf.split(tf.matmul(tf.concat([inputs, h], 1), self.kernel) + self.bias, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
        h = tf.tanh(c) * tf.sigmoid(o)
        return h, (c, h)


def dynamic_rnn_train(tf: Any) -> tuple[Any, Step]:
    """A dynamic_rnn LSTM training step (issue 19's target): 32 steps of a batch of 16, 64 units, SGD."""
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [16, 32, 32])
    target = tf.placeholder(tf.float32, [16, 32, 64])
    outputs, _ = tf.nn.dynamic_rnn(_LSTMCell(tf, 32, 64), x, dtype=tf.float32)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_mean(tf.square(outputs - target)))
    feed = {x: rng.standard_normal((16, 32, 32), dtype=np.float32),
            target: rng.uniform(-0.5, 0.5, (16, 32, 64)).astype(np.float32)}
    sess = make_session(tf)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(train, feed_dict=feed)


def _conv_step(tf: Any, input_shape: tuple, filter_shape: tuple) -> tuple[Any, Step]:
    """conv2d forward, stride 1, SAME, of a fed input with a constant filter; the output is the target."""
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, shape=input_shape)
    y = tf.nn.conv2d(x, tf.constant(rng.standard_normal(filter_shape, dtype=np.float32)), [1, 1, 1, 1], "SAME")
    data = rng.standard_normal(input_shape, dtype=np.float32)
    sess = make_session(tf)
    return sess, lambda: sess.run(y.op, feed_dict={x: data})


def conv_mnist(tf: Any) -> tuple[Any, Step]:
    """Deep MNIST's first layer: conv2d [50, 28, 28, 1] with a 5x5x1x32 filter, SAME."""
    return _conv_step(tf, (50, 28, 28, 1), (5, 5, 1, 32))


def conv_alexnet(tf: Any) -> tuple[Any, Step]:
    """An AlexNet-like layer: conv2d [64, 27, 27, 96] with a 5x5x96x256 filter, SAME."""
    return _conv_step(tf, (64, 27, 27, 96), (5, 5, 96, 256))


def max_pool(tf: Any) -> tuple[Any, Step]:
    """max_pool 2x2, stride 2, VALID, on [64, 27, 27, 256]."""
    x = tf.placeholder(tf.float32, shape=(64, 27, 27, 256))
    y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    data = np.random.default_rng(0).standard_normal((64, 27, 27, 256), dtype=np.float32)
    sess = make_session(tf)
    return sess, lambda: sess.run(y.op, feed_dict={x: data})


def erf_lgamma_1m(tf: Any) -> tuple[Any, Step]:
    """erf, erfc and lgamma of 1e6 doubles each (vectorized special functions, ops/special_kernels.py)."""
    x = tf.placeholder(tf.float64, shape=(10**6,))
    ys = [tf.math.erf(x), tf.math.erfc(x), tf.math.lgamma(x)]
    data = np.random.default_rng(0).uniform(-10, 20, 10**6)
    sess = make_session(tf)
    return sess, lambda: sess.run([y.op for y in ys], feed_dict={x: data})


def top_k_1000(tf: Any) -> tuple[Any, Step]:
    """tf.nn.top_k k=10 of a [1000, 1000] float32 matrix (a partition per row, then a sort of the 10)."""
    x = tf.placeholder(tf.float32, shape=(1000, 1000))
    values, indices = tf.nn.top_k(x, 10)
    data = np.random.default_rng(0).standard_normal((1000, 1000), dtype=np.float32)
    sess = make_session(tf)
    return sess, lambda: sess.run([values.op], feed_dict={x: data})


def ctc_beam_search(tf: Any) -> tuple[Any, Step]:
    """tf.nn.ctc_beam_search_decoder of [T=50, batch 16, 30 classes] logits, beam 100, the 3 best paths (TF's
    prefix beam search, all rows and beams of a step at once)."""
    x = tf.placeholder(tf.float32, shape=(50, 16, 30))
    decoded, log_probability = tf.nn.ctc_beam_search_decoder(x, np.full(16, 50, np.int32), beam_width=100,
                                                             top_paths=3)
    data = np.random.default_rng(0).standard_normal((50, 16, 30), dtype=np.float32) * 2
    sess = make_session(tf)
    return sess, lambda: sess.run([log_probability, decoded[0].values], feed_dict={x: data})


def _example_batch(tf: Any) -> tuple[list[bytes], np.ndarray]:
    """10,000 serialized tf.train.Examples of 20 scalar float features (f0..f19), and their values."""
    values = np.random.default_rng(0).random((10000, 20), dtype=np.float32)
    examples = []
    for row in values.tolist():
        example = tf.train.Example()
        for j, value in enumerate(row):
            example.features.feature[f"f{j}"].float_list.value.append(value)
        examples.append(example.SerializeToString())
    return examples, values


def parse_example_10k(tf: Any) -> tuple[Any, Step]:
    """tf.parse_example of a fed batch of 10,000 Examples, 20 FixedLenFeature([], float32) each."""
    examples, _ = _example_batch(tf)
    serialized = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(serialized, {f"f{j}": tf.FixedLenFeature([], tf.float32) for j in range(20)})
    sess = make_session(tf)
    return sess, lambda: sess.run(parsed, feed_dict={serialized: examples})


def _tfrecord_examples(tf: Any) -> str:
    """A TFRecord file (in a fresh temp dir) of 4,096 Examples: a 32-float feature `x` and an int64 `y`."""
    path = os.path.join(tempfile.mkdtemp(prefix="tw_bench_"), "examples.tfr")
    values = np.random.default_rng(0).random((4096, 32), dtype=np.float32)
    with tf.python_io.TFRecordWriter(path) as writer:
        for label, row in enumerate(values.tolist()):
            example = tf.train.Example()
            example.features.feature["x"].float_list.value.extend(row)
            example.features.feature["y"].int64_list.value.append(label)
            writer.write(example.SerializeToString())
    return path


def _example_features(tf: Any) -> dict:
    return {"x": tf.FixedLenFeature([32], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}


# Batches an input pipeline's step takes: its time is throughput (a backlog the readers built while the
# consumer waited makes single dequeues instant, so a median of one-batch steps would flatter either backend)
PIPELINE_BATCHES = 10


def _batches(sess: Any, batch: Any) -> Step:
    return lambda: [sess.run(batch) for _ in range(PIPELINE_BATCHES)]


def queue_pipeline_batch(tf: Any) -> list[Any]:
    """The batch tensors of issue 22's queue pipeline: TFRecordReader -> parse_single_example ->
    shuffle_batch(32, num_threads=4); its QueueRunners start with the session's."""
    filenames = tf.train.string_input_producer([_tfrecord_examples(tf)])
    _, record = tf.TFRecordReader().read(filenames)
    features = tf.parse_single_example(record, _example_features(tf))
    return tf.train.shuffle_batch([features["x"], features["y"]], 32, capacity=1000, min_after_dequeue=500,
                                  num_threads=4)


def data_pipeline_batch(tf: Any) -> Any:
    """The same input as a tf.data chain: TFRecordDataset -> map(parse, 4 parallel) -> shuffle -> batch(32) ->
    prefetch(2); its get_next."""
    features = _example_features(tf)
    dataset = (tf.data.TFRecordDataset([_tfrecord_examples(tf)]).repeat()
               .map(lambda record: tf.parse_single_example(record, features), num_parallel_calls=4)
               .shuffle(500).batch(32).prefetch(2))
    return tf.data.make_one_shot_iterator(dataset).get_next()


def queue_input_pipeline(tf: Any) -> tuple[Any, Step]:
    """Ten batches of 32 per step from `queue_pipeline_batch`, kept full by its QueueRunners (issue 22's
    target: >= 0.8x TF's examples/s)."""
    batch = queue_pipeline_batch(tf)
    sess = make_session(tf)
    tf.train.start_queue_runners(sess, tf.train.Coordinator(), daemon=True)
    return sess, _batches(sess, batch)


def data_input_pipeline(tf: Any) -> tuple[Any, Step]:
    """Ten batches of 32 per step from `data_pipeline_batch`, the same input as a tf.data chain."""
    batch = data_pipeline_batch(tf)
    sess = make_session(tf)
    return sess, _batches(sess, batch)


def _numpy_null_step() -> Step:
    return lambda: np.asarray(3.0, np.float32) + np.float32(1.0)


def _numpy_chain(length: int) -> Step:
    data = np.arange(4, dtype=np.float32)
    scale, shift = np.float32(1.0001), np.float32(0.5)

    def step() -> np.ndarray:
        y = data
        for _ in range(length):
            y = y * scale + shift
        return y

    return step


def _numpy_chain_1000() -> Step:
    return _numpy_chain(1000)


def _numpy_py_function_chain() -> Step:
    return _numpy_chain(200)


def _numpy_fig1() -> Step:
    rng = np.random.default_rng(0)
    x = rng.random((100, 784), dtype=np.float32)
    w = rng.uniform(-1.0, 1.0, (784, 100)).astype(np.float32)
    b = rng.uniform(-1.0, 1.0, 100).astype(np.float32)
    return lambda: np.maximum(x @ w + b, np.float32(0.0)).sum()


def _numpy_feed_fetch_1m() -> Step:
    data = np.random.default_rng(0).random(1 << 20, dtype=np.float32)
    return lambda: data * np.float32(2.0)


def _numpy_var_update() -> Step:
    v = np.zeros(1 << 20, np.float32)
    ones = np.ones(1 << 20, np.float32)
    return lambda: np.add(v, ones, out=v)


def _numpy_resource_embedding_step() -> Step:
    emb = np.zeros((100000, 64), np.float32)
    ids = np.random.default_rng(0).integers(0, 100000, 256)

    def step() -> None:
        grad = 2 * (emb[ids] - 1)
        np.add.at(emb, ids, -0.01 * grad)
    return step


def _numpy_while_count() -> Step:
    def step() -> int:
        i = np.int32(0)
        while i < 1000:
            i = i + np.int32(1)
        return i

    return step


def _numpy_threads() -> Step:
    rng = np.random.default_rng(0)
    a = rng.random((1024, 1024), dtype=np.float32)
    b = rng.random((1024, 1024), dtype=np.float32)
    return lambda: a @ b


def _numpy_conv(input_shape: tuple, filter_shape: tuple) -> Step:
    """The same convolution as im2col (one copy of every window) and one matmul."""
    rng = np.random.default_rng(0)
    f = rng.standard_normal(filter_shape, dtype=np.float32).reshape(-1, filter_shape[-1])
    n, h, w, _ = input_shape
    kh, kw = filter_shape[:2]
    x = np.pad(rng.standard_normal(input_shape, dtype=np.float32),
               ((0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2)).transpose(0, 1, 2, 4, 5, 3)
    return lambda: windows.reshape(n * h * w, -1) @ f


def _numpy_conv_mnist() -> Step:
    return _numpy_conv((50, 28, 28, 1), (5, 5, 1, 32))


def _numpy_conv_alexnet() -> Step:
    return _numpy_conv((64, 27, 27, 96), (5, 5, 96, 256))


def _numpy_parse_example_10k() -> Step:
    """The dense assembly alone: 20 columns of 10,000 Python floats into float32 arrays."""
    columns = np.random.default_rng(0).random((20, 10000)).tolist()
    return lambda: [np.array(column, np.float32) for column in columns]


def _numpy_max_pool() -> Step:
    x = np.random.default_rng(0).standard_normal((64, 27, 27, 256), dtype=np.float32)
    return lambda: x[:, :26, :26].reshape(64, 13, 2, 13, 2, 256).max(axis=(2, 4))


def _train_step(tf: Any, train_op: Any, feeds: dict) -> tuple[Any, Step]:
    """Running `train_op` on fixed fed batches, the variables initialized first."""
    sess = make_session(tf)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(train_op, feed_dict=feeds)


def _dense(tf: Any, x: Any, units: int, activation: Any = None) -> Any:
    w = tf.Variable(tf.truncated_normal([int(x.shape[-1]), units], stddev=0.05, seed=1))
    y = tf.matmul(x, w) + tf.Variable(tf.zeros([units]))
    return activation(y) if activation is not None else y


MLP_SIZES = (784, 1024, 1024, 10)
MLP_BATCH = 256


def mlp_graph(tf: Any, sizes: tuple[int, ...] = MLP_SIZES, batch: int = MLP_BATCH) -> tuple[Any, dict]:
    """An MLP's SGD training op (ReLU between the dense layers, softmax cross-entropy) and fixed fed batches."""
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [batch, sizes[0]])
    labels = tf.placeholder(tf.int64, [batch])
    h = x
    for units in sizes[1:-1]:
        h = _dense(tf, h, units, tf.nn.relu)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=_dense(tf, h, sizes[-1])))
    feeds = {x: rng.random((batch, sizes[0]), dtype=np.float32), labels: rng.integers(0, sizes[-1], batch)}
    return tf.train.GradientDescentOptimizer(0.01).minimize(loss), feeds


def mlp_train(tf: Any) -> tuple[Any, Step]:
    """A training step of an MLP 784-1024-1024-10 (ReLU, softmax cross-entropy), batch 256, SGD."""
    return _train_step(tf, *mlp_graph(tf))


def cnn_train(tf: Any) -> tuple[Any, Step]:
    """A training step of deep MNIST's CNN (conv5x5x32-pool-conv5x5x64-pool-fc1024-fc10), batch 64, Adam."""
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [64, 28, 28, 1])
    labels = tf.placeholder(tf.int64, [64])
    h = x
    for depth_in, depth_out in ((1, 32), (32, 64)):
        w = tf.Variable(tf.truncated_normal([5, 5, depth_in, depth_out], stddev=0.1, seed=1))
        h = tf.nn.relu(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME") + tf.Variable(tf.constant(0.1, shape=[depth_out])))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = _dense(tf, tf.reshape(h, [64, 7 * 7 * 64]), 1024, tf.nn.relu)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=_dense(tf, h, 10)))
    feeds = {x: rng.random((64, 28, 28, 1), dtype=np.float32), labels: rng.integers(0, 10, 64)}
    return _train_step(tf, tf.train.AdamOptimizer(1e-4).minimize(loss), feeds)


def lstm_train(tf: Any) -> tuple[Any, Step]:
    """A training step of a 2-layer LSTM(200) language model unrolled 20 steps (a Python loop over the
    steps), batch 20, vocabulary 10000, gradients clipped by global norm 5, SGD."""
    rng = np.random.default_rng(0)
    batch, steps, units, vocab = 20, 20, 200, 10000
    inputs = tf.placeholder(tf.int64, [batch, steps])
    targets = tf.placeholder(tf.int64, [batch, steps])
    embedding = tf.Variable(tf.random_uniform([vocab, units], -0.1, 0.1, seed=1))
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(units) for _ in range(2)])
    state = cell.zero_state(batch, tf.float32)
    embedded = tf.nn.embedding_lookup(embedding, inputs)
    outputs = []
    with tf.variable_scope("rnn"):
        for t in range(steps):
            if t > 0:
                tf.get_variable_scope().reuse_variables()
            output, state = cell(embedded[:, t, :], state)
            outputs.append(output)
    logits = _dense(tf, tf.reshape(tf.concat(outputs, 1), [-1, units]), vocab)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]),
                                                                         logits=logits))
    variables = tf.trainable_variables()
    clipped, _ = tf.clip_by_global_norm(tf.gradients(loss, variables), 5.0)
    train_op = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(clipped, variables))
    feeds = {inputs: rng.integers(0, vocab, (batch, steps)), targets: rng.integers(0, vocab, (batch, steps))}
    return _train_step(tf, train_op, feeds)


def _matmul_branches(tf: Any, devices: list[str]) -> tuple[Any, Step]:
    """Two independent [2048, 2048] matmul branches, one per device in `devices`, with one core's worth of
    compute per device used: one inter-op thread per device named, and BLAS on one thread (intra-op 1)."""
    products = []
    for branch in range(2):
        with tf.device(devices[branch]):
            a = tf.Variable(tf.random_uniform([2048, 2048], seed=2 * branch + 1))
            b = tf.Variable(tf.random_uniform([2048, 2048], seed=2 * branch + 2))
            products.append(tf.reduce_sum(tf.matmul(a, b)))
    sess = make_session(tf, device_count={"CPU": 2}, intra_op_parallelism_threads=1,
                        inter_op_parallelism_threads=len(set(devices)), use_per_session_threads=True)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(products)


def matmul_branches_two_devices(tf: Any) -> tuple[Any, Step]:
    """Two independent 2048x2048 matmuls on /cpu:0 and /cpu:1, a core each; its time over one device's (both
    branches on /cpu:0, one core: one inter-op thread)."""
    return _matmul_branches(tf, ["/cpu:0", "/cpu:1"])


def matmul_branches_one_device(tf: Any) -> tuple[Any, Step]:
    return _matmul_branches(tf, ["/cpu:0", "/cpu:0"])


def _two_layers(tf: Any, devices: list[str]) -> tuple[Any, Step]:
    """A training step of a 2-layer ReLU network ([256, 1024] batch, 1024 wide), layer k on devices[k]."""
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random((256, 1024), dtype=np.float32))
    h = x
    for layer, device in enumerate(devices):
        with tf.device(device):
            w = tf.Variable(tf.random_uniform([1024, 1024], -0.01, 0.01, seed=layer + 1))
            h = tf.nn.relu(tf.matmul(h, w))
    loss = tf.reduce_sum(h)
    train = tf.train.GradientDescentOptimizer(1e-6).minimize(loss, colocate_gradients_with_ops=True)
    sess = make_session(tf, device_count={"CPU": 2}, intra_op_parallelism_threads=1)
    sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run([train, loss])


def model_parallel_two_devices(tf: Any) -> tuple[Any, Step]:
    """Model parallelism: layer 1 on /cpu:0, layer 2 on /cpu:1; reported as its time over one device's."""
    return _two_layers(tf, ["/cpu:0", "/cpu:1"])


def model_parallel_one_device(tf: Any) -> tuple[Any, Step]:
    return _two_layers(tf, ["/cpu:0", "/cpu:0"])


@dataclass(frozen=True)
class Workload:
    """A TF1 workload, its NumPy reference, and its target (a tw/tf ratio, or a speedup if concurrent)."""

    build: Callable[[Any], tuple[Any, Step]]
    numpy_step: Callable[[], Step] | None  # None: no NumPy counterpart (a device split, a pipeline, a training step)
    target: float
    concurrent: bool = False
    # With a one-device twin, the value is this workload's step time over the twin's (BLAS on one thread)
    one_device: Callable[[Any], tuple[Any, Step]] | None = None

    @property
    def name(self) -> str:
        """The build function's name, which is the workload's name on the command line."""
        return self.build.__name__

    def holds(self, value: float) -> bool:
        """Whether a tw/tf ratio (or, if concurrent, tensorweave's own speedup) meets the target."""
        return value >= self.target if self.concurrent else value <= self.target

    @property
    def relative(self) -> bool:
        """Whether the value compares the backend with itself (a speedup, or a time over one device's)."""
        return self.concurrent or self.one_device is not None

    def target_text(self) -> str:
        """The target as the table prints it."""
        if self.one_device is not None:
            return f"<= {self.target:g}x one device"
        return f">= {self.target:g}x speedup" if self.concurrent else f"<= {self.target:g}"


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(null_step, _numpy_null_step, 0.5),
        Workload(chain_1000, _numpy_chain_1000, 3.0),
        Workload(py_function_chain, _numpy_py_function_chain, 3.0),
        Workload(fig1, _numpy_fig1, 0.75),
        Workload(feed_fetch_1m, _numpy_feed_fetch_1m, 0.6),
        Workload(var_update, _numpy_var_update, 1.0),
        Workload(resource_var_update, _numpy_var_update, 1.0),
        Workload(resource_embedding_step, _numpy_resource_embedding_step, 1.5),
        Workload(threads, _numpy_threads, 1.6, concurrent=True),
        Workload(while_count, _numpy_while_count, 1.0),
        Workload(dynamic_rnn_train, None, 1.3),
        Workload(conv_mnist, _numpy_conv_mnist, 1.5),
        Workload(conv_alexnet, _numpy_conv_alexnet, 1.5),
        Workload(max_pool, _numpy_max_pool, 2.0),
        Workload(parse_example_10k, _numpy_parse_example_10k, 2.0),
        Workload(erf_lgamma_1m, None, 5.0),
        Workload(top_k_1000, None, 3.0),
        Workload(ctc_beam_search, None, 10.0),
        Workload(queue_input_pipeline, None, 1.25),
        Workload(data_input_pipeline, None, 1.25),
        Workload(matmul_branches_two_devices, None, 0.6, one_device=matmul_branches_one_device),
        Workload(model_parallel_two_devices, None, 1.1, one_device=model_parallel_one_device),
        Workload(mlp_train, None, 1.1),
        Workload(cnn_train, None, 1.5),
        Workload(lstm_train, None, 1.2),
    )
}


def _warm_and_count(step: Step, budget_s: float, repeat: int | None) -> int:
    """Run the step for the warmup time (the first run builds the plan); return how many steps fill the budget."""
    count, start = 0, time.perf_counter()
    while count < 3 or time.perf_counter() - start < WARMUP_S:
        step()
        count += 1
    if repeat is not None:
        return repeat
    per_step = (time.perf_counter() - start) / count
    return max(MIN_STEPS, min(MAX_STEPS, int(budget_s / per_step)))


def median_step_time(step: Step, repeat: int | None = None) -> float:
    """Median seconds per step after a warmup."""
    times = []
    for _ in range(_warm_and_count(step, STEP_BUDGET_S, repeat)):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def two_thread_speedup(step: Step, repeat: int | None = None) -> float:
    """(2 x one step alone) / (two steps at once from two threads), BLAS on one thread.

    The median over interleaved rounds, so that a burst of load from elsewhere spoils one round, not the result.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1), ThreadPoolExecutor(2) as pool:
        n = _warm_and_count(step, STEP_BUDGET_S / SPEEDUP_ROUNDS, repeat)
        speedups = []
        for _ in range(SPEEDUP_ROUNDS):
            start = time.perf_counter()
            for _ in range(n):
                step()
            alone = time.perf_counter() - start
            barrier = threading.Barrier(3)
            futures = [pool.submit(_run_steps_after, barrier, step, n) for _ in range(2)]
            barrier.wait()
            start = time.perf_counter()
            for future in futures:
                future.result()
            speedups.append(2 * alone / (time.perf_counter() - start))
    return statistics.median(speedups)


def _run_steps_after(barrier: threading.Barrier, step: Step, n: int) -> None:
    barrier.wait()
    for _ in range(n):
        step()


def _measure_step(workload: Workload, step: Step, repeat: int | None) -> float:
    return two_thread_speedup(step, repeat) if workload.concurrent else median_step_time(step, repeat)


def measure(workload: Workload, tf: Any, repeat: int | None = None) -> float:
    """Build the workload in a fresh graph and time its step (seconds, the speedup if concurrent, or the
    time over its one-device twin's)."""
    if workload.one_device is not None:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):  # each device computes on one core, as intra_op_parallelism_threads=1 asks
            return _paired_ratio(workload.build, workload.one_device, tf, repeat)
    with tf.Graph().as_default():
        sess, step = workload.build(tf)
        try:
            return _measure_step(workload, step, repeat)
        finally:
            sess.close()


def _paired_ratio(build: Callable[[Any], tuple[Any, Step]], twin: Callable[[Any], tuple[Any, Step]], tf: Any,
                  repeat: int | None) -> float:
    """The median step time of `build` over that of `twin`, their steps alternated, so that load from elsewhere
    falls on both alike."""
    built = []
    try:
        for make in (build, twin):
            with tf.Graph().as_default():
                built.append(make(tf))
        steps = [step for _, step in built]
        n = max(_warm_and_count(step, STEP_BUDGET_S / 2, repeat) for step in steps)
        times: list[list[float]] = [[], []]
        for _ in range(n):
            for step, timed in zip(steps, times):
                start = time.perf_counter()
                step()
                timed.append(time.perf_counter() - start)
        return statistics.median(times[0]) / statistics.median(times[1])
    finally:
        for sess, _ in built:
            sess.close()


def run_backend(backend: str, names: list[str], repeat: int | None) -> dict[str, Any]:
    """Results of one backend in this process: {"version", "results": {name: value}, "errors": {name: text}}."""
    column: dict[str, Any] = {"version": "", "results": {}, "errors": {}}
    try:
        tf = None if backend == "numpy" else load_backend(backend)
    except Exception as exc:  # an unavailable backend is reported, not fatal
        column["errors"] = {name: f"import failed: {exc!r}" for name in names}
        return column
    # tensorweave's tf.VERSION is the TF release whose formats it writes: name its own package version here
    column["version"] = (np.__version__ if tf is None else importlib.metadata.version(backend)
                         if backend == "tensorweave" else getattr(tf, "VERSION", "") or getattr(tf, "__version__", ""))
    for name in names:
        workload = WORKLOADS[name]
        if tf is None and workload.numpy_step is None:
            continue
        try:
            if tf is None:
                value = _measure_step(workload, workload.numpy_step(), repeat)
            else:
                value = measure(workload, tf, repeat)
        except Exception as exc:  # a missing op fails one workload, not the table
            column["errors"][name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        else:
            column["results"][name] = value
        print(f"  {backend:<11} {name:<14} done", file=sys.stderr, flush=True)
    return column


def find_tf_python(explicit: str | None) -> str | None:
    """The python to run real TensorFlow with: --tf-python, this interpreter, or $TENSORWEAVE_TF_PYTHON."""
    if explicit:
        return explicit
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    return os.environ.get(TF_PYTHON_ENV)


def run_tensorflow_child(python: str, names: list[str], repeat: int | None) -> dict[str, Any]:
    """Run the workloads on real TensorFlow in a child process and read back its JSON column."""
    command = [python, "-m", "benchmarks.workloads", "--backend", "tensorflow", "--json", "--only", *names]
    if repeat is not None:
        command += ["--repeat", str(repeat)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run(
        command, cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True
    )
    sys.stderr.write(
        "".join(line + "\n" for line in done.stderr.splitlines() if line.startswith("  tensorflow"))
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"TensorFlow child failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(lines[-1])


def _joined(columns: list[dict[str, Any]]) -> dict[str, Any]:
    """One column from the columns of single workloads."""
    return {"version": columns[0]["version"] if columns else "",
            "results": {k: v for c in columns for k, v in c["results"].items()},
            "errors": {k: v for c in columns for k, v in c["errors"].items()}}


def _format(value: float | None, concurrent: bool) -> str:
    if value is None:
        return "-"
    if concurrent:
        return f"{value:.2f}x"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a / b:.2f}"


def format_table(columns: dict[str, dict[str, Any]], names: list[str]) -> str:
    """The comparison table: medians (speedups for concurrent workloads), ratios, targets, and which hold."""
    header = ("workload", "numpy", "tensorweave", "TensorFlow", "tw/tf", "np/tf", "tw/np", "target", "holds")
    rows = [header]
    for name in names:
        workload = WORKLOADS[name]
        np_v, tw, tf = (
            columns.get(b, {}).get("results", {}).get(name) for b in ("numpy", "tensorweave", "tensorflow")
        )
        checked = tw if workload.relative else (None if tw is None or tf is None else tw / tf)
        holds = "?" if checked is None else ("yes" if workload.holds(checked) else "NO")
        ratios = (
            ("-", "-", "-") if workload.relative else (_ratio(tw, tf), _ratio(np_v, tf), _ratio(tw, np_v))
        )
        cells = [_format(v, workload.relative) for v in (np_v, tw, tf)]
        rows.append((name, *cells, *ratios, workload.target_text(), holds))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    for backend, column in columns.items():
        lines += [f"{backend} {name}: {error}" for name, error in column.get("errors", {}).items()]
    return "\n".join(lines)


def profile(name: str, backend: str, repeat: int | None) -> None:
    """Run one workload's step under cProfile (after a warmup) and print the top 25 functions by tottime."""
    tf = load_backend(backend)
    workload = WORKLOADS[name]
    profiler = cProfile.Profile()
    with tf.Graph().as_default():
        sess, step = workload.build(tf)
        try:
            n = _warm_and_count(step, STEP_BUDGET_S, repeat)
            profiler.enable()
            for _ in range(n):
                step()
            profiler.disable()
        finally:
            sess.close()
    print(f"{backend} {name}: {n} steps profiled")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None) -> None:
    """Command line: the full comparison table, one backend (--backend, as JSON with --json), or --profile."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.workloads", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--only", nargs="+", choices=sorted(WORKLOADS), help="run only these workloads")
    parser.add_argument(
        "--tf-python", help=f"python that can import tensorflow (default: this one, else ${TF_PYTHON_ENV})"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        help="timed steps per workload, per round for threads (default: about 1.5 s worth)",
    )
    parser.add_argument("--backend", choices=BACKENDS, help="run one backend in this process only")
    parser.add_argument(
        "--interleave", action="store_true",
        help="run TensorFlow right after tensorweave for each workload (slower: one TF process per workload)",
    )
    parser.add_argument(
        "--json", action="store_true", help="with --backend: print its results as one JSON line"
    )
    parser.add_argument(
        "--profile", metavar="NAME", choices=sorted(WORKLOADS), help="cProfile one workload's steps"
    )
    args = parser.parse_args(argv)
    names = args.only or list(WORKLOADS)

    if args.profile:
        profile(args.profile, args.backend or "tensorweave", args.repeat)
        return
    if args.backend:
        column = run_backend(args.backend, names, args.repeat)
        print(json.dumps(column) if args.json else format_table({args.backend: column}, names))
        return

    tf_python = find_tf_python(args.tf_python)
    notes = []
    if tf_python is None:
        notes.append(f"TensorFlow skipped: not importable here; pass --tf-python or set ${TF_PYTHON_ENV}.")
    if args.interleave and tf_python is not None:
        # each workload on tensorweave, then at once on TensorFlow: load that drifts on a shared machine then
        # weighs on both sides of a ratio alike
        parts = [(run_backend("tensorweave", [name], args.repeat), run_tensorflow_child(tf_python, [name], args.repeat))
                 for name in names]
        columns = {"tensorweave": _joined([tw for tw, _ in parts]), "numpy": run_backend("numpy", names, args.repeat),
                   "tensorflow": _joined([tf for _, tf in parts])}
    else:
        columns = {b: run_backend(b, names, args.repeat) for b in ("tensorweave", "numpy")}
        if tf_python is not None:
            columns["tensorflow"] = run_tensorflow_child(tf_python, names, args.repeat)
    versions = ", ".join(f"{b} {c['version']}" for b, c in columns.items() if c["version"])
    print(f"\n{os.cpu_count()} CPUs; {versions}; medians per step, ratios tw/tf")
    print(format_table(columns, names))
    control = columns["numpy"]["results"].get("threads")
    if control is not None and control < WORKLOADS["threads"].target:
        notes.append(
            f"NumPy alone reaches only {control:.2f}x on threads: other load holds a core; rerun when idle."
        )
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
