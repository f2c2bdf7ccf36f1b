"""tf.metrics mean_tensor, percentage_below, mean_relative_error, mean_cosine_distance, mean_per_class_accuracy,
precision/recall_at_thresholds, sensitivity_at_specificity, specificity_at_sensitivity: names, local variables,
values and update values after two batches, recorded from TF 2.21 on the same data."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

rs = np.random.RandomState(3)
labels_b = (rs.rand(2, 12) > 0.5).astype(np.float32)
preds_p = rs.rand(2, 12).astype(np.float32)
w = rs.rand(2, 12).astype(np.float32)
lab_c = rs.randint(0, 4, size=(2, 10))
pred_c = rs.randint(0, 4, size=(2, 10))
reg_l = rs.randn(2, 6).astype(np.float32)
reg_p = rs.randn(2, 6).astype(np.float32)
norm = np.abs(rs.randn(2, 6)).astype(np.float32)
norm[0, 1] = 0
u = rs.randn(2, 5, 3)
u /= np.linalg.norm(u, axis=2, keepdims=True)
v = rs.randn(2, 5, 3)
v /= np.linalg.norm(v, axis=2, keepdims=True)

_NAMES = {'mean_tensor': ('mean/value:0', 'mean/update_op:0'), 'mean_tensor_w': ('mean_1/value:0', 'mean_1/update_op:0'), 'percentage_below': ('percentage_below_threshold/value:0', 'percentage_below_threshold/update_op:0'), 'mean_relative_error': ('mean_relative_error/value:0', 'mean_relative_error/update_op:0'), 'mean_cosine_distance': ('Sub_1:0', 'Sub_2:0'), 'mean_per_class_accuracy': ('mean_accuracy/mean_accuracy:0', 'mean_accuracy/update_op:0'), 'mean_per_class_accuracy_w': ('mean_accuracy_1/mean_accuracy:0', 'mean_accuracy_1/update_op:0'), 'precision_at_thresholds': ('precision_at_thresholds/precision_value:0', 'precision_at_thresholds/precision_update_op:0'), 'recall_at_thresholds': ('recall_at_thresholds/recall_value:0', 'recall_at_thresholds/recall_update_op:0'), 'sensitivity_at_specificity': ('sensitivity_at_specificity/value:0', 'sensitivity_at_specificity/update_op:0'), 'specificity_at_sensitivity': ('specificity_at_sensitivity/value:0', 'specificity_at_sensitivity/update_op:0')}
_LOCALS = ['mean/total_tensor:0', 'mean/count_tensor:0', 'mean_1/total_tensor:0', 'mean_1/count_tensor:0', 'percentage_below_threshold/total:0', 'percentage_below_threshold/count:0', 'mean_relative_error/total:0', 'mean_relative_error/count:0', 'mean_cosine_distance/total:0', 'mean_cosine_distance/count:0', 'mean_accuracy/total:0', 'mean_accuracy/count:0', 'mean_accuracy_1/total:0', 'mean_accuracy_1/count:0', 'precision_at_thresholds/true_positives:0', 'precision_at_thresholds/false_positives:0', 'recall_at_thresholds/true_positives:0', 'recall_at_thresholds/false_negatives:0', 'sensitivity_at_specificity/true_positives:0', 'sensitivity_at_specificity/false_negatives:0', 'sensitivity_at_specificity/true_negatives:0', 'sensitivity_at_specificity/false_positives:0', 'specificity_at_sensitivity/true_positives:0', 'specificity_at_sensitivity/false_negatives:0', 'specificity_at_sensitivity/true_negatives:0', 'specificity_at_sensitivity/false_positives:0']
_VALUES = {'mean_cosine_distance': 0.616892, 'mean_per_class_accuracy': 0.125, 'mean_per_class_accuracy_w': 0.118233, 'mean_relative_error': 2.664204, 'mean_tensor': [-0.49205, -0.255681, -1.745223, -0.540647, 0.043996, -0.685927], 'mean_tensor_w': [-0.560724, -0.135309, -1.456623, -0.333779, -0.098338, -0.799889], 'percentage_below': 0.25, 'precision_at_thresholds': [0.434783, 0.454545, 0.4], 'recall_at_thresholds': [1.0, 0.407185, 0.090876], 'sensitivity_at_specificity': 0.6, 'specificity_at_sensitivity': 0.428571}
_UPDATES = {'mean_cosine_distance': 0.616892, 'mean_per_class_accuracy': [0.5, 0.0, 0.0, 0.0], 'mean_per_class_accuracy_w': [0.472933, 0.0, 0.0, 0.0], 'mean_relative_error': 2.664204, 'mean_tensor': [-0.49205, -0.255681, -1.745223, -0.540647, 0.043996, -0.685927], 'mean_tensor_w': [-0.560724, -0.135309, -1.456623, -0.333779, -0.098338, -0.799889], 'percentage_below': 0.25, 'precision_at_thresholds': [0.434783, 0.454545, 0.4], 'recall_at_thresholds': [1.0, 0.407185, 0.090876], 'sensitivity_at_specificity': 0.6, 'specificity_at_sensitivity': 0.428571}


def test_metrics_match_tf_over_two_batches() -> None:
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [])

        def L(a: np.ndarray) -> tf.Tensor:  # noqa: N802 - one batch of `a`
            return tf.gather(tf.constant(a), i)

        ms = {
            "mean_tensor": tf.metrics.mean_tensor(L(reg_p)),
            "mean_tensor_w": tf.metrics.mean_tensor(L(reg_p), weights=L(w[:, :6])),
            "percentage_below": tf.metrics.percentage_below(L(preds_p), 0.3),
            "mean_relative_error": tf.metrics.mean_relative_error(L(reg_l), L(reg_p), L(norm)),
            "mean_cosine_distance": tf.metrics.mean_cosine_distance(L(u.astype(np.float32)), L(v.astype(np.float32)), dim=1),
            "mean_per_class_accuracy": tf.metrics.mean_per_class_accuracy(L(lab_c), L(pred_c), 4),
            "mean_per_class_accuracy_w": tf.metrics.mean_per_class_accuracy(L(lab_c), L(pred_c), 4, weights=L(w[:, :10])),
            "precision_at_thresholds": tf.metrics.precision_at_thresholds(L(labels_b), L(preds_p), [0.2, 0.5, 0.8]),
            "recall_at_thresholds": tf.metrics.recall_at_thresholds(L(labels_b), L(preds_p), [0.2, 0.5, 0.8], weights=L(w)),
            "sensitivity_at_specificity": tf.metrics.sensitivity_at_specificity(L(labels_b), L(preds_p), 0.6),
            "specificity_at_sensitivity": tf.metrics.specificity_at_sensitivity(L(labels_b), L(preds_p), 0.7, num_thresholds=50),
        }

        assert {k: (v[0].name, v[1].name) for k, v in ms.items()} == _NAMES
        assert [x.name for x in tf.local_variables()] == _LOCALS
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for step in range(2):
                updates = sess.run({k: v[1] for k, v in ms.items()}, {i: step})
            values = sess.run({k: v[0] for k, v in ms.items()})
    for key in _VALUES:
        np.testing.assert_allclose(values[key], _VALUES[key], rtol=1e-5, atol=1e-6, err_msg=key)
        np.testing.assert_allclose(updates[key], _UPDATES[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_metric_argument_errors() -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"`specificity` must be in the range \[0, 1\]. Currently, `specificity` got 2"):
            tf.metrics.sensitivity_at_specificity([1.0], [0.5], 2)
        with pytest.raises(ValueError, match=r"`sensitivity` must be in the range \[0, 1\]"):
            tf.metrics.specificity_at_sensitivity([1.0], [0.5], -0.1)
