"""tf.feature_column against literals recorded from TF 2.21's tf.compat.v1 (same features, same columns)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops.math_misc_ops import bucketize

fc = tf.feature_column


def _features() -> dict:
    return {
        "price": tf.constant([[1.0], [2.0], [3.0]]),
        "pair": tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        "age": tf.constant([[10], [25], [60]], dtype=tf.int64),
        "color": tf.SparseTensor(indices=[[0, 0], [1, 0], [1, 1], [2, 0]], values=["R", "B", "X", "G"],
                                 dense_shape=[3, 2]),
        "shape": tf.constant([["sq"], ["zz"], ["ci"]]),
        "id": tf.constant([[1, 3], [7, 0], [2, 2]], dtype=tf.int64),
        "id_w": tf.constant([[0.5, 2.0], [1.0, 1.0], [3.0, 4.0]]),
        "word": tf.constant([["hello", ""], ["world", "a"], ["b", "c"]]),
    }


def _columns() -> dict:
    age_b = fc.bucketized_column(fc.numeric_column("age", dtype=tf.int64), boundaries=[18, 30, 50])
    color = fc.categorical_column_with_vocabulary_list("color", ["R", "G", "B"], num_oov_buckets=1)
    ident = fc.categorical_column_with_identity("id", num_buckets=5, default_value=4)
    return {
        "price": fc.numeric_column("price"),
        "pair": fc.numeric_column("pair", shape=(2,), default_value=(0.0, 1.0), normalizer_fn=lambda x: x * 2.0),
        "age_b": age_b, "color": color,
        "shape": fc.categorical_column_with_vocabulary_list("shape", ["sq", "ci"], default_value=0),
        "hashed": fc.categorical_column_with_hash_bucket("word", hash_bucket_size=7),
        "crossed": fc.crossed_column([age_b, "color"], hash_bucket_size=11),
        "weighted": fc.weighted_categorical_column(ident, "id_w"),
    }


def _initialize(session: tf.Session) -> None:
    session.run([tf.global_variables_initializer(), tf.tables_initializer()])


def test_column_names_reprs_and_parse_spec() -> None:
    c = _columns()
    assert [c[k].name for k in ("price", "age_b", "color", "crossed", "weighted", "hashed")] == [
        "price", "age_bucketized", "color", "age_bucketized_X_color", "id_weighted_by_id_w", "word"]
    assert repr(c["price"]) == ("NumericColumn(key='price', shape=(1,), default_value=None, dtype=tf.float32, "
                                "normalizer_fn=None)")
    assert repr(c["color"]) == ("VocabularyListCategoricalColumn(key='color', vocabulary_list=('R', 'G', 'B'), "
                                "dtype=tf.string, default_value=-1, num_oov_buckets=1)")
    embedded = fc.embedding_column(c["color"], 3)
    assert [embedded.name, fc.indicator_column(c["crossed"]).name] == ["color_embedding",
                                                                        "age_bucketized_X_color_indicator"]
    spec = fc.make_parse_example_spec([c["price"], c["pair"], c["age_b"], embedded, c["crossed"], c["weighted"]])
    assert spec == {
        "price": tf.FixedLenFeature(shape=(1,), dtype=tf.float32, default_value=None),
        "pair": tf.FixedLenFeature(shape=(2,), dtype=tf.float32, default_value=(0.0, 1.0)),
        "age": tf.FixedLenFeature(shape=(1,), dtype=tf.int64, default_value=None),
        "color": tf.VarLenFeature(dtype=tf.string), "id": tf.VarLenFeature(dtype=tf.int64),
        "id_w": tf.VarLenFeature(dtype=tf.float32)}
    spec = fc.make_parse_example_spec([fc.sequence_categorical_column_with_identity("q", 3),
                                       fc.numeric_column("z", shape=[2, 2], default_value=3, dtype=tf.int64)])
    assert spec == {"q": tf.VarLenFeature(dtype=tf.int64),
                    "z": tf.FixedLenFeature(shape=(2, 2), dtype=tf.int64, default_value=((3, 3), (3, 3)))}


def test_input_layer_and_linear_model_values_and_variables() -> None:
    with tf.Graph().as_default():
        c = _columns()
        emb = fc.embedding_column(c["color"], 3, combiner="mean", initializer=tf.constant_initializer(0.5))
        features = _features()
        net = fc.input_layer(features, [c["price"], c["pair"], c["age_b"], emb, fc.indicator_column(c["hashed"]),
                                        fc.indicator_column(c["crossed"]), fc.indicator_column(c["weighted"]),
                                        fc.indicator_column(c["shape"])])
        logits = fc.linear_model(features, [c[k] for k in ("price", "pair", "age_b", "color", "crossed", "weighted",
                                                           "shape", "hashed")])
        assert net.name == "input_layer/concat:0" and net.shape.as_list() == [3, 35]
        assert logits.name == "linear_model_1/linear_model/weighted_sum:0" and logits.shape.as_list() == [3, 1]
        names = [v.name for v in tf.global_variables()]
        assert names == ["input_layer/color_embedding/embedding_weights:0", "linear_model/age_bucketized/weights:0",
                         "linear_model/age_bucketized_X_color/weights:0", "linear_model/color/weights:0",
                         "linear_model/id_weighted_by_id_w/weights:0", "linear_model/pair/weights:0",
                         "linear_model/price/weights:0", "linear_model/shape/weights:0",
                         "linear_model/word/weights:0", "linear_model/bias_weights:0"]
        assert [v.name for v in tf.trainable_variables()] == names
        assert [v.name for v in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)] == names
        assert sorted(tf.get_default_graph().get_all_collection_keys()) == [
            "model_variables", "table_initializer", "trainable_variables", "update_ops", "variables"]
        with tf.Session() as session:
            _initialize(session)
            expected = [  # TF 2.21
                [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, .5, .5, .5, 0, .5, 0, 2, 0, 2, 4, 1, 1, 0, 0, 0, 0, 0, 0,
                 1, 0],
                [0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, .5, .5, .5, 1, 0, 0, 0, 1, 6, 8, 2, 1, 0, 0, 0, 0, 0, 0,
                 1, 1],
                [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, .5, .5, .5, 0, 0, 7, 0, 0, 10, 12, 3, 0, 1, 0, 0, 1, 0, 0,
                 1, 0]]
            np.testing.assert_allclose(session.run(net), expected)
            session.run([v.assign(tf.reshape(tf.range(tf.size(v), dtype=tf.float32) * 0.1, tf.shape(v)))
                         for v in tf.trainable_variables() if "linear" in v.name])
            np.testing.assert_allclose(session.run(logits), [[2.35], [3.6], [4.8]], rtol=1e-6)


def test_shared_embeddings_vocabulary_files_hashes_and_cols_to_vars(tmp_path: pytest.TempPathFactory) -> None:
    vocab, vocab2 = tmp_path / "vocab.txt", tmp_path / "vocab2.txt"
    vocab.write_text("apple\nbanana\ncherry\n")
    vocab2.write_text("x\ny\nz\nw\nv\n")
    with tf.Graph().as_default():
        a = fc.categorical_column_with_vocabulary_file("fruit", str(vocab), num_oov_buckets=2)
        b = fc.categorical_column_with_vocabulary_file("fruit2", str(vocab2))
        assert (a.vocabulary_size, a._num_buckets, b._num_buckets, b.default_value) == (3, 5, 5, -1)
        h = fc.categorical_column_with_hash_bucket("n", 10, dtype=tf.int64)
        shared = fc.shared_embedding_columns([a, b], 2, combiner="sqrtn", initializer=tf.ones_initializer())
        assert [s.name for s in shared] == ["fruit_shared_embedding", "fruit2_shared_embedding"]
        features = {"fruit": tf.constant([["apple", "kiwi"], ["cherry", ""]]),
                    "fruit2": tf.constant([["banana", "zzz"], ["", ""]]),
                    "n": tf.constant([[5, 17], [3, -1]], tf.int64), "x": tf.constant([1.5, -2.0])}
        cols_to_vars: dict = {}
        net = fc.input_layer(features, shared + [
            fc.indicator_column(h), fc.numeric_column("x"),
            fc.embedding_column(h, 3, combiner="sum", initializer=tf.constant_initializer(np.arange(30).reshape(10, 3)))],
            cols_to_vars=cols_to_vars)
        assert sorted((k.name, [v.name for v in vs]) for k, vs in cols_to_vars.items()) == [
            ("fruit2_shared_embedding", ["input_layer/fruit_fruit2_shared_embedding/embedding_weights:0"]),
            ("fruit_shared_embedding", []), ("n_embedding", ["input_layer/n_embedding/embedding_weights:0"]),
            ("n_indicator", []), ("x", [])]
        assert [v.name for v in tf.get_collection("fruit_fruit2_shared_embedding")] == [
            "input_layer/fruit_fruit2_shared_embedding/embedding_weights:0"]
        lm_vars: dict = {}
        logits = fc.linear_model(features, [a, h, fc.numeric_column("x")], units=2, sparse_combiner="mean",
                                 cols_to_vars=lm_vars)
        assert sorted((k if isinstance(k, str) else k.name, [v.name for v in vs]) for k, vs in lm_vars.items()) == [
            ("bias", ["linear_model/bias_weights:0"]), ("fruit", ["linear_model/fruit/weights:0"]),
            ("n", ["linear_model/n/weights:0"]), ("x", ["linear_model/x/weights:0"])]
        with tf.Session() as session:
            _initialize(session)
            session.run([v.assign(tf.reshape(tf.range(tf.size(v), dtype=tf.float32) * 0.5 - 1, tf.shape(v)))
                         for v in tf.global_variables() if "linear" in v.name])
            np.testing.assert_allclose(session.run(net), [
                [0, 0, 1.414214, 1.414214, 27, 29, 31, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1.5],
                [0, 0, 1, 1, 3, 4, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, -2]], rtol=1e-6)
            np.testing.assert_allclose(session.run(logits), [[2.0, 4.25], [2.0, 2.5]])


@pytest.mark.parametrize("build, message", [
    (lambda f: fc.input_layer(f, [fc.categorical_column_with_identity("id", 5)]),
     "Items of feature_columns must be a _DenseColumn. You can wrap a categorical column"),
    (lambda f: fc.input_layer(f, [fc.numeric_column("missing")]), "Feature missing is not in features dictionary."),
    (lambda f: fc.input_layer({"x": tf.SparseTensor([[0, 0]], [1.0], [1, 1])}, [fc.numeric_column("x")]),
     "The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not supported. key: x"),
    (lambda f: fc.linear_model(f, [fc.numeric_column("price"), fc.numeric_column("price")]),
     "Duplicate feature column name found for columns"),
    (lambda f: fc.bucketized_column(fc.numeric_column("x"), [3, 1]), "boundaries must be a sorted list."),
    (lambda f: fc.crossed_column([fc.categorical_column_with_hash_bucket("n", 10), "x"], 5),
     "categorical_column_with_hash_bucket is not supported for crossing."),
    (lambda f: fc.categorical_column_with_vocabulary_list("c", ["a", "a"]),
     "Duplicate keys in vocabulary_list ['a', 'a'], column_name: c"),
    (lambda f: fc.numeric_column("x", shape=(2,), default_value=[1.0]),
     "The shape of default_value must be equal to given shape. default_value: [1.0], shape: (2,), key: x"),
    (lambda f: fc.embedding_column(fc.categorical_column_with_identity("id", 5), 0), "Invalid dimension 0."),
    (lambda f: fc.make_parse_example_spec([fc.sequence_numeric_column("s")]),
     "All feature_columns must be _FeatureColumn instances. Given: SequenceNumericColumn(key='s'"),
    (lambda f: fc.input_layer(f, {"a": fc.numeric_column("price")}), "Expected feature_columns to be iterable"),
    (lambda f: fc.input_layer(f, [fc.indicator_column(fc.sequence_categorical_column_with_identity("id", 3))]),
     "In indicator_column: id_indicator. categorical_column must not be of type _SequenceCategoricalColumn."),
    (lambda f: fc.input_layer(f, [fc.indicator_column(fc.categorical_column_with_vocabulary_list("id", ["a"]))]),
     "Column dtype and SparseTensors dtype must be compatible. key: id, column dtype: <dtype: 'string'>, tensor"),
])
def test_errors_as_tf(build: object, message: str) -> None:
    with tf.Graph().as_default(), pytest.raises(ValueError) as caught:
        build(_features())
    assert message in str(caught.value)


def test_rank_one_features_unknown_rank_and_batch_checks() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)  # unknown rank: a run-time check and a cond
        net = fc.input_layer({"x": x, "y": tf.constant([1.0, 2.0])}, [fc.numeric_column("x"), fc.numeric_column("y")])
        with tf.Session() as session:
            np.testing.assert_allclose(session.run(net, {x: [3.0, 4.0]}), [[3, 1], [4, 2]])
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Feature \(key: x\) cannot have rank 0"):
                session.run(net, {x: 3.0})
        with pytest.raises(ValueError, match=r"Batch size \(first dimension\) of each feature must be same"):
            fc.input_layer({"x": tf.constant([1.0]), "y": tf.constant([1.0, 2.0])},
                           [fc.numeric_column("x"), fc.numeric_column("y")])


def test_trains_a_linear_model_with_gradient_descent() -> None:
    with tf.Graph().as_default():
        color = fc.categorical_column_with_vocabulary_list("color", ["R", "G", "B"])
        features = {"color": tf.constant([["R"], ["G"], ["B"], ["R"]]), "x": tf.constant([[1.0], [2.0], [3.0], [4.0]])}
        logits = fc.linear_model(features, [color, fc.numeric_column("x")])
        labels = tf.constant([[1.0], [2.0], [3.0], [5.0]])
        loss = tf.losses.mean_squared_error(labels, logits)
        step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        with tf.Session() as session:
            _initialize(session)
            first = session.run(loss)
            for _ in range(300):
                session.run(step)
            assert session.run(loss) < 0.05 < first


def test_bucketize_compares_in_float32_and_checks_boundaries() -> None:
    with tf.Graph().as_default(), tf.Session() as session:
        values = bucketize(tf.constant([[-1.0, 0.0, 0.5, 1.0, 2.0, 100.0]]), [0.0, 1.0, 2.0])
        doubles = bucketize(tf.constant([0.1, 0.2], tf.float64), boundaries=[0.1, 0.2])
        assert values.shape.as_list() == [1, 6] and values.dtype == tf.int32
        assert session.run(values).tolist() == [[0, 1, 1, 2, 3, 3]]
        assert session.run(doubles).tolist() == [0, 1]  # 0.1 < float32(0.1), as in TF
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
            session.run(bucketize(tf.constant([1.0]), [1.0, 0.0]))


def test_columns_public_num_buckets_variable_shape_and_parse_example_spec():
    """The public properties TF 2.21's columns also carry (values recorded from it)."""
    fc = tf.feature_column
    vocab = fc.categorical_column_with_vocabulary_list("a", ["x", "y"])
    assert vocab.num_buckets == 2 and fc.crossed_column(["a", "b"], 4).num_buckets == 4
    assert fc.weighted_categorical_column(vocab, "w").num_buckets == 2
    bucketized = fc.bucketized_column(fc.numeric_column("n"), [1., 2.])
    assert bucketized.num_buckets == 3 and bucketized.variable_shape.as_list() == [1, 3]
    assert fc.numeric_column("n", shape=[2, 3]).variable_shape.as_list() == [2, 3]
    assert fc.embedding_column(vocab, 2).variable_shape.as_list() == [2]
    assert fc.indicator_column(vocab).variable_shape.as_list() == [1, 2]
    assert str(fc.weighted_categorical_column(vocab, "w").parse_example_spec["w"]) == (
        "VarLenFeature(dtype=tf.float32)")
