"""tf.nn.embedding_lookup over one tensor and over shards ("mod" and "div"), max_norm and gradients; expected
values are NumPy's, node names and errors TF's."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op, check_tensor

import tensorweave.compat.v1 as tf

PARAMS = np.arange(30, dtype=np.float32).reshape(10, 3)
IDS = np.array([[1, 3, 9], [0, 7, 3]], np.int32)


def _shards(strategy, count):
    """PARAMS split into `count` shards as `strategy` lays the ids out."""
    if strategy == "mod":
        return [PARAMS[i::count] for i in range(count)]
    return np.array_split(PARAMS, count)


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("count", [1, 3, 4])
def test_lookup_on_shards_is_gather_of_the_whole(strategy, count):
    shards = _shards(strategy, count)
    check_op(lambda *p: tf.nn.embedding_lookup(list(p), IDS, partition_strategy=strategy), shards, PARAMS[IDS])
    check_op(lambda *p: tf.nn.embedding_lookup(list(p), IDS.astype(np.int64), partition_strategy=strategy),
             shards, PARAMS[IDS], inputs_as="placeholder")


def test_div_with_unknown_shard_sizes():
    shards = _shards("div", 3)
    with tf.Graph().as_default():
        ps = [tf.placeholder(tf.float32, [None, 3]) for _ in shards]
        ids = tf.placeholder(tf.int32, None)
        out = tf.nn.embedding_lookup(ps, ids, partition_strategy="div")
        assert out.shape.ndims is None
        check_tensor(out, PARAMS[IDS], dict(zip(ps + [ids], shards + [IDS])), fully_defined=False)


def test_max_norm_clips_each_embedding():
    norms = np.linalg.norm(PARAMS[IDS], axis=-1, keepdims=True)
    want = PARAMS[IDS] * np.minimum(1, 5 / norms)
    check_op(lambda p: tf.nn.embedding_lookup(p, IDS, max_norm=5.0), [PARAMS], want, rtol=1e-6)
    check_op(lambda *p: tf.nn.embedding_lookup(list(p), IDS, partition_strategy="div", max_norm=5.0),
             _shards("div", 3), want, rtol=1e-6)


def test_names_as_tf():
    with tf.Graph().as_default():
        one = tf.nn.embedding_lookup(PARAMS, IDS)
        two = tf.nn.embedding_lookup(_shards("mod", 2), IDS, max_norm=1.0)
        three = tf.nn.embedding_lookup(_shards("div", 2), IDS, partition_strategy="div", name="emb")
        assert one.name == "embedding_lookup/Identity:0" and one.op.inputs[0].op.name == "embedding_lookup"
        assert two.name == "embedding_lookup_1/clip_by_norm:0"
        assert three.name == "emb/Reshape_1:0"
        assert three.op.inputs[0].op.type == "ParallelDynamicStitch" and three.op.inputs[0].op.name == "emb"


def test_gradient_is_indexed_slices_and_numeric():
    with tf.Graph().as_default():
        p = tf.constant(PARAMS)
        (grad,) = tf.gradients(tf.nn.embedding_lookup(p, IDS), p)
        assert isinstance(grad, tf.IndexedSlices)
    values = np.random.default_rng(0).standard_normal((10, 3))
    check_gradient(lambda p: tf.nn.embedding_lookup(p, IDS, max_norm=2.0), [values])
    check_gradient(lambda a, b, c: tf.nn.embedding_lookup([a, b, c], IDS, partition_strategy="div"),
                   np.array_split(values, 3))


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^params must be specified$"):
            tf.nn.embedding_lookup(None, IDS)
        with pytest.raises(ValueError, match=r"^Length of params is currently 0\. Need at least one param\.$"):
            tf.nn.embedding_lookup([], IDS)
        with pytest.raises(ValueError, match=r"^Unrecognized partition strategy: x\.Must be one of either `mod` "
                           r"or `div`\.$"):
            tf.nn.embedding_lookup([PARAMS, PARAMS], IDS, partition_strategy="x")
        out = tf.nn.embedding_lookup(PARAMS, [[11]])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0,0\] = 11 is "
                                                 r"not in \[0, 10\)"):
            sess.run(out)
