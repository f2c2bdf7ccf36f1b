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


_PARAMS = np.arange(24, dtype=np.float32).reshape(8, 3) / 7
_SPARSE_INDICES = [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [3, 0]]


def _sparse_ids_and_weights():
    return (tf.SparseTensor(_SPARSE_INDICES, np.array([1, 3, 1, 7, 0, 5], np.int64), [5, 3]),
            tf.SparseTensor(_SPARSE_INDICES, np.array([1.0, 2.0, 0.5, -1.0, 3.0, 0.0], np.float32), [5, 3]))


@pytest.mark.parametrize("combiner, want, want_safe", [
    ("sum", [[3.214286, 3.714286, 4.214286], [0, 0, 0], [-3.0, -2.714286, -2.428572], [0, 0, 0]],
     [[3.214286, 3.714286, 4.214286], [0, 0, 0], [-3.0, -2.714286, -2.428572], [0, 0, 0], [0, 0, 0]]),
    ("mean", [[0.918367, 1.061225, 1.204082], [0, 0, 0], [-1.5, -1.357143, -1.214286], [0, 0, 0]],
     [[0.918367, 1.061225, 1.204082], [0, 0, 0], [0.0, 0.142857, 0.285714], [0, 0, 0], [0, 0, 0]]),
    ("sqrtn", [[1.402829, 1.621047, 1.839265], [0, 0, 0], [-0.948683, -0.858332, -0.767982], [0, 0, 0]],
     [[1.402829, 1.621047, 1.839265], [0, 0, 0], [0.0, 0.142857, 0.285714], [0, 0, 0], [0, 0, 0]]),
])
def test_embedding_lookup_sparse(combiner, want, want_safe):
    """TF's values, weighted, over one tensor and over "mod" shards; the unweighted forms against NumPy."""
    with tf.Graph().as_default():
        ids, weights = _sparse_ids_and_weights()
        shards = [tf.constant(_PARAMS[0::3]), tf.constant(_PARAMS[1::3]), tf.constant(_PARAMS[2::3])]
        for params in (tf.constant(_PARAMS), shards):
            check_tensor(tf.nn.embedding_lookup_sparse(params, ids, weights, combiner=combiner),
                         np.array(want, np.float32), rtol=1e-5, atol=1e-6, fully_defined=False)
        check_tensor(tf.nn.safe_embedding_lookup_sparse(tf.constant(_PARAMS), ids, weights, combiner=combiner,
                                                        partition_strategy="mod"),
                     np.array(want_safe, np.float32), rtol=1e-5, atol=1e-6)
        rows = [_PARAMS[[1, 3, 1]], np.zeros((0, 3)), _PARAMS[[7, 0]], _PARAMS[[5]]]
        scale = {"sum": lambda n: 1, "mean": lambda n: n, "sqrtn": np.sqrt}[combiner]
        unweighted = [r.sum(axis=0) / scale(len(r)) if len(r) else np.zeros(3) for r in rows]
        check_tensor(tf.nn.embedding_lookup_sparse(tf.constant(_PARAMS), ids, None, combiner=combiner),
                     np.array(unweighted, np.float32), rtol=1e-5, fully_defined=False)


def test_embedding_lookup_sparse_gradient_and_errors():
    with tf.Graph().as_default():
        ids, _ = _sparse_ids_and_weights()
        with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or 'sum', got max"):
            tf.nn.embedding_lookup_sparse(_PARAMS, ids, None, combiner="max")
        with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
            tf.nn.embedding_lookup_sparse(_PARAMS, [[1]], None)
        with pytest.raises(TypeError, match="^sp_weights must be either None or SparseTensor,got <class"):  # TF's text
            tf.nn.embedding_lookup_sparse(_PARAMS, ids, tf.constant([1., 2.]))
        with pytest.raises(ValueError, match="Missing embedding_weights"):
            tf.nn.safe_embedding_lookup_sparse([], ids)

    def build(params, weights):
        ids = tf.SparseTensor(_SPARSE_INDICES, np.array([1, 3, 1, 7, 0, 5], np.int64), [5, 3])
        return tf.reshape(tf.nn.embedding_lookup_sparse(params, ids, tf.SparseTensor(_SPARSE_INDICES, weights, [5, 3]),
                                                        combiner="sqrtn"), [4, 3])

    check_gradient(build, [_PARAMS.astype(np.float64), np.array([1.0, 2.0, 0.5, -1.0, 3.0, 0.7])])


def test_safe_embedding_lookup_sparse_higher_rank():
    """Ids of rank 3: the negative id dropped, empty rows given `default_id`'s embedding, clipped by max_norm
    (TF's values)."""
    with tf.Graph().as_default():
        ids = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 0, 0]], np.array([1, -1, 4], np.int64), [2, 2, 2])
        result = tf.nn.safe_embedding_lookup_sparse(_PARAMS, ids, None, max_norm=1.0, default_id=7)
        assert result.shape.as_list() == [2, 2, 3]
        check_tensor(result, np.array([[[0.424264, 0.565685, 0.707107], [0.550728, 0.576953, 0.603178]],
                                       [[0.531891, 0.576215, 0.620539], [0.550728, 0.576953, 0.603178]]],
                                      np.float32), rtol=1e-5, fully_defined=False)


def test_embedding_lookup_sparse_on_a_resource_variable_looks_up_unique_ids():
    """A resource variable is a CompositeTensor in TF 2.21, so the unweighted lookup takes the Unique +
    ResourceGather path: the gradient is IndexedSlices and optimizers update sparsely."""
    with tf.Graph().as_default():
        emb = tf.Variable(tf.ones([4, 2]), name="e", use_resource=True)
        ids = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 3], dense_shape=[2, 2])
        r = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="sum")
        types = {op.type for op in tf.get_default_graph().get_operations()}
        assert {"Unique", "ResourceGather"} <= types and "GatherV2" not in types
        grad = tf.gradients(tf.reduce_sum(r), emb)[0]
        assert isinstance(grad, tf.IndexedSlices)
        train = tf.train.AdagradOptimizer(0.5).minimize(tf.reduce_sum(r))
        assert "ResourceSparseApplyAdagrad" in {op.type for op in tf.get_default_graph().get_operations()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(r).tolist() == [[1.0, 1.0], [1.0, 1.0]]
            sess.run(train)
            np.testing.assert_allclose(sess.run(emb), [[1, 1], [0.5232687, 0.5232687], [1, 1], [0.5232687, 0.5232687]],
                                       rtol=1e-6)
