"""tf.metrics *_at_k and *_at_top_k (precision, recall, average precision; class_id, weights, one or several
labels per row): names, local variables, values and update values after two batches, recorded from TF 2.21
on the same data (average precision's running maximum is `max_1`: its `Max` op took `max`, case-insensitively)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

rs = np.random.RandomState(5)
logits = rs.rand(2, 4, 6).astype(np.float32)
labels1 = rs.randint(0, 6, size=(2, 4)).astype(np.int64)
labels2 = rs.randint(0, 6, size=(2, 4, 3)).astype(np.int64)
labels2[0, 1, 2] = labels2[0, 1, 0]
w = rs.rand(2, 4).astype(np.float32)

_NAMES = {'precision_at_k': ('precision_at_2:0', 'precision_at_2/update:0'), 'precision_at_k_multi': ('precision_at_3:0', 'precision_at_3/update:0'), 'precision_at_k_class': ('precision_at_3_class2:0', 'precision_at_3_class2/update:0'), 'precision_at_k_w': ('precision_at_2_1:0', 'precision_at_2_1/update:0'), 'recall_at_k': ('recall_at_2:0', 'recall_at_2/update:0'), 'recall_at_k_multi': ('recall_at_3:0', 'recall_at_3/update:0'), 'recall_at_k_class': ('recall_at_3_class2:0', 'recall_at_3_class2/update:0'), 'precision_at_top_k': ('precision_at_3_1:0', 'precision_at_3_1/update:0'), 'recall_at_top_k': ('recall_at_k:0', 'recall_at_k/update:0'), 'average_precision_at_k': ('average_precision_at_3/mean:0', 'average_precision_at_3:0'), 'average_precision_at_k_w': ('average_precision_at_2/mean:0', 'average_precision_at_2:0'), 'sparse_precision_at_k': ('precision_at_1:0', 'precision_at_1/update:0'), 'sparse_average_precision_at_k': ('average_precision_at_4/mean:0', 'average_precision_at_4:0')}
_LOCALS = ['precision_at_2/true_positive_at_2:0', 'precision_at_2/false_positive_at_2:0', 'precision_at_3/true_positive_at_3:0', 'precision_at_3/false_positive_at_3:0', 'precision_at_3_class2/true_positive_at_3_class2:0', 'precision_at_3_class2/false_positive_at_3_class2:0', 'precision_at_2_1/true_positive_at_2:0', 'precision_at_2_1/false_positive_at_2:0', 'recall_at_2/true_positive_at_2:0', 'recall_at_2/false_negative_at_2:0', 'recall_at_3/true_positive_at_3:0', 'recall_at_3/false_negative_at_3:0', 'recall_at_3_class2/true_positive_at_3_class2:0', 'recall_at_3_class2/false_negative_at_3_class2:0', 'precision_at_3_1/true_positive_at_3:0', 'precision_at_3_1/false_positive_at_3:0', 'recall_at_k/true_positive_at_k:0', 'recall_at_k/false_negative_at_k:0', 'average_precision_at_3/max_1:0', 'average_precision_at_3/total:0', 'average_precision_at_2/max_1:0', 'average_precision_at_2/total:0', 'precision_at_1/true_positive_at_1:0', 'precision_at_1/false_positive_at_1:0', 'average_precision_at_4/max_1:0', 'average_precision_at_4/total:0']
_VALUES = {'average_precision_at_k': 0.263889, 'average_precision_at_k_w': 0.078395, 'precision_at_k': 0.0625, 'precision_at_k_class': 0.5, 'precision_at_k_multi': 0.375, 'precision_at_k_w': 0.420575, 'precision_at_top_k': 0.375, 'recall_at_k': 0.125, 'recall_at_k_class': 0.535236, 'recall_at_k_multi': 0.473684, 'recall_at_top_k': 0.473684, 'sparse_average_precision_at_k': 0.368056, 'sparse_precision_at_k': 0.125}
_UPDATES = {'average_precision_at_k': 0.263889, 'average_precision_at_k_w': 0.078395, 'precision_at_k': 0.0625, 'precision_at_k_class': 0.5, 'precision_at_k_multi': 0.375, 'precision_at_k_w': 0.420575, 'precision_at_top_k': 0.375, 'recall_at_k': 0.125, 'recall_at_k_class': 0.535236, 'recall_at_k_multi': 0.473684, 'recall_at_top_k': 0.473684, 'sparse_average_precision_at_k': 0.368056, 'sparse_precision_at_k': 0.125}


def test_at_k_metrics_match_tf_over_two_batches() -> None:
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [])

        def L(a: np.ndarray) -> tf.Tensor:  # noqa: N802 - one batch of `a`
            return tf.gather(tf.constant(a), i)

        top = tf.nn.top_k(L(logits), 3)[1]
        ms = {
            "precision_at_k": tf.metrics.precision_at_k(L(labels1), L(logits), 2),
            "precision_at_k_multi": tf.metrics.precision_at_k(L(labels2), L(logits), 3),
            "precision_at_k_class": tf.metrics.precision_at_k(L(labels2), L(logits), 3, class_id=2),
            "precision_at_k_w": tf.metrics.precision_at_k(L(labels2), L(logits), 2, weights=L(w)),
            "recall_at_k": tf.metrics.recall_at_k(L(labels1), L(logits), 2),
            "recall_at_k_multi": tf.metrics.recall_at_k(L(labels2), L(logits), 3),
            "recall_at_k_class": tf.metrics.recall_at_k(L(labels2), L(logits), 3, class_id=2, weights=L(w)),
            "precision_at_top_k": tf.metrics.precision_at_top_k(L(labels2), tf.cast(top, tf.int64), k=3),
            "recall_at_top_k": tf.metrics.recall_at_top_k(L(labels2), top),
            "average_precision_at_k": tf.metrics.average_precision_at_k(L(labels2), L(logits), 3),
            "average_precision_at_k_w": tf.metrics.average_precision_at_k(L(labels1), L(logits), 2, weights=L(w)),
            "sparse_precision_at_k": tf.metrics.sparse_precision_at_k(L(labels1), L(logits), 1),
            "sparse_average_precision_at_k": tf.metrics.sparse_average_precision_at_k(L(labels2), L(logits), 4),
        }

        assert {k: (v[0].name, v[1].name) for k, v in ms.items()} == _NAMES
        assert [x.name for x in tf.local_variables()] == _LOCALS
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for step in range(2):
                updates = sess.run({k: v[1] for k, v in ms.items()}, {i: step})
            values = sess.run({k: v[0] for k, v in ms.items()})
    for key in _VALUES:
        np.testing.assert_allclose(values[key], _VALUES[key], rtol=1e-5, err_msg=key)
        np.testing.assert_allclose(updates[key], _UPDATES[key], rtol=1e-5, err_msg=key)


def test_at_k_sparse_labels_and_errors() -> None:
    with tf.Graph().as_default():
        scores = tf.constant([[0.1, 0.5, 0.4, 0.0], [0.7, 0.1, 0.1, 0.1]])
        labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([2, 2, 3], tf.int64), [2, 3])
        precision, precision_update = tf.metrics.precision_at_k(labels, scores, 2)
        recall, recall_update = tf.metrics.recall_at_k(labels, scores, 2)
        average, average_update = tf.metrics.average_precision_at_k(labels, scores, 2)
        with pytest.raises(ValueError, match="Invalid k=0. `k` should be >= 1."):
            tf.metrics.average_precision_at_k(labels, scores, 0)
        # precision/recall intersect the int64 top-k ids with the labels as sets: other label dtypes fail as in
        # TF, before any variable is made
        for metric in (tf.metrics.precision_at_k, tf.metrics.recall_at_k):
            for dense in ([[2], [3]], tf.constant([[2], [3]], tf.int16), tf.constant([2.0, 3.0])):
                with pytest.raises(TypeError, match="^Types don't match, <dtype: 'int64'> vs <dtype: '"):
                    metric(dense, scores, 2)
        with pytest.raises(TypeError, match="^Types don't match, <dtype: 'int64'> vs <dtype: 'int32'>.$"):
            tf.metrics.recall_at_top_k(tf.SparseTensor([[0, 0]], [2], [2, 1]), [[1], [2]], class_id=2)
        tf.metrics.average_precision_at_k(np.array([[2], [3]]), scores, 2)
        assert len(tf.local_variables()) == 8
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([precision_update, recall_update, average_update])
            got = sess.run([precision, recall, average])
    # as TF 2.21: row 0 top-2 {1, 2} against labels {2}; row 1 top-2 {0, 1} (ties to the lowest index) against {3}
    np.testing.assert_allclose(got, [0.25, 0.5, 0.25])


def test_average_precision_counts_only_non_negative_dense_labels() -> None:
    """-1 pads a row of dense labels: AveP@k divides by min(k, its non-negative labels), as TF 2.21."""
    with tf.Graph().as_default():
        labels = tf.constant([[1, -1, -1], [0, 2, -1], [3, 3, 1]], tf.int64)
        predictions = tf.constant([[0.1, 0.5, 0.2, 0.2], [0.4, 0.1, 0.3, 0.2], [0.3, 0.3, 0.3, 0.1]])
        ap2 = tf.metrics.average_precision_at_k(labels, predictions, 2)
        ap3 = tf.metrics.average_precision_at_k(labels, predictions, 3, weights=[1., 0.5, 2.])
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            np.testing.assert_allclose(s.run([ap2[1], ap3[1]]), [0.75, 0.5238095], rtol=1e-6)
