"""tf.metrics: two streamed batches against values, names and variables recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

L = np.array([0, 1, 1, 0, 1, 0, 1, 1], np.int64)
P = np.array([0.1, 0.8, 0.4, 0.6, 0.9, 0.3, 0.55, 0.2], np.float32)
W = np.array([1., 2., 1., 0., 1., 1., 3., 1.], np.float32)

# name: (after batch 1, after batch 2)
EXPECTED = {
    "accuracy": (0.6, 0.625), "accuracy_w": (0.8, 0.8), "mean": (0.56000006, 0.48125005),
    "mean_w": (0.6, 0.515), "auc": (0.833333, 0.7333332), "auc_w": (0.999999, 0.9374995),
    "auc_pr": (0.9027776, 0.8347617), "auc_pr_ci": (0.904106, 0.8361747), "auc_min": (0.833333, 0.6),
    "auc_maj": (0.833333, 0.8666664), "precision": (0.6666667, 0.75), "precision_w": (1.0, 1.0),
    "recall": (0.6666667, 0.6), "tp": (2.0, 3.0), "fp": (0.0, 0.0), "tn": (1.0, 2.0), "fn": (1.0, 2.0),
    "tpt": ([3., 2., 2.], [4., 3., 2.]), "fpt": ([0., 0., 0.], [0., 0., 0.]), "tnt": ([1., 1., 2.], [2., 2., 3.]),
    "fnt": ([0., 1., 1.], [1., 2., 3.]), "mae": (0.32, 0.39375), "mse": (0.092, 0.17975),
    "rmse": (0.39496836, 0.4626689),
    "miou": ([[1., 1., 0.], [0., 1., 2.], [0., 0., 0.]], [[2., 1., 0.], [1., 2., 2.], [0., 0., 0.]]),
    "miou_w": ([[1., 0.], [1., 3.]], [[2., 0.], [2., 6.]]),
}
MIOU_VALUES = {"miou": 0.2777778, "miou_w": 0.625}


def _metrics(lab: tf.Tensor, pred: tf.Tensor, w: tf.Tensor) -> dict:
    flab = tf.cast(lab, tf.float32)
    thresholds = [0.3, 0.5, 0.7]
    return {
        "accuracy": tf.metrics.accuracy(lab, tf.cast(pred > 0.5, tf.int64)),
        "accuracy_w": tf.metrics.accuracy(lab, tf.cast(pred > 0.5, tf.int64), weights=w),
        "mean": tf.metrics.mean(pred),
        "mean_w": tf.metrics.mean(pred, weights=w),
        "auc": tf.metrics.auc(lab, pred, num_thresholds=10),
        "auc_w": tf.metrics.auc(lab, pred, weights=w),
        "auc_pr": tf.metrics.auc(lab, pred, curve="PR", num_thresholds=20),
        "auc_pr_ci": tf.metrics.auc(lab, pred, curve="PR", summation_method="careful_interpolation",
                                    num_thresholds=20),
        "auc_min": tf.metrics.auc(lab, pred, summation_method="minoring", thresholds=[0.25, 0.5, 0.75]),
        "auc_maj": tf.metrics.auc(lab, pred, summation_method="majoring", num_thresholds=7),
        "precision": tf.metrics.precision(lab, pred > 0.5),
        "precision_w": tf.metrics.precision(lab, pred > 0.5, weights=w),
        "recall": tf.metrics.recall(lab, pred > 0.5),
        "tp": tf.metrics.true_positives(lab, pred > 0.5),
        "fp": tf.metrics.false_positives(lab, pred > 0.5, weights=w),
        "tn": tf.metrics.true_negatives(lab, pred > 0.5),
        "fn": tf.metrics.false_negatives(lab, pred > 0.5),
        "tpt": tf.metrics.true_positives_at_thresholds(lab, pred, thresholds),
        "fpt": tf.metrics.false_positives_at_thresholds(lab, pred, thresholds, weights=w),
        "tnt": tf.metrics.true_negatives_at_thresholds(lab, pred, thresholds),
        "fnt": tf.metrics.false_negatives_at_thresholds(lab, pred, thresholds),
        "mae": tf.metrics.mean_absolute_error(flab, pred),
        "mse": tf.metrics.mean_squared_error(flab, pred, weights=w),
        "rmse": tf.metrics.root_mean_squared_error(flab, pred),
        "miou": tf.metrics.mean_iou(lab % 3, tf.cast(pred * 3, tf.int64), 3),
        "miou_w": tf.metrics.mean_iou(lab, tf.cast(pred > 0.5, tf.int64), 2, weights=w),
    }


def test_streaming_values() -> None:
    with tf.Graph().as_default():
        lab, pred, w = (tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None]),
                        tf.placeholder(tf.float32, [None]))
        metrics = _metrics(lab, pred, w)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            updates = {k: u for k, (_, u) in metrics.items()}
            first = sess.run(updates, {lab: L[:5], pred: P[:5], w: W[:5]})
            second = sess.run(updates, {lab: L[5:], pred: P[5:], w: W[5:]})
            values = sess.run({k: v for k, (v, _) in metrics.items()})
        for key, (after_first, after_second) in EXPECTED.items():
            np.testing.assert_allclose(first[key], after_first, rtol=2e-6, err_msg=key)
            np.testing.assert_allclose(second[key], after_second, rtol=2e-6, err_msg=key)
            np.testing.assert_allclose(values[key], MIOU_VALUES.get(key, after_second), rtol=2e-6, err_msg=key)


def test_names_and_collections() -> None:
    with tf.Graph().as_default():
        lab, pred = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None])
        acc = tf.metrics.accuracy(lab, tf.cast(pred > 0.5, tf.int64), metrics_collections=["m"],
                                  updates_collections=["u"])
        auc = tf.metrics.auc(lab, pred)
        prec = tf.metrics.precision(lab, pred > 0.5)
        tp = tf.metrics.true_positives(lab, pred > 0.5)
        tpt = tf.metrics.true_positives_at_thresholds(lab, pred, [0.5])
        miou = tf.metrics.mean_iou(lab, lab, 2)
        assert [t.name for t in acc + auc + prec + tp + tpt] == [
            "accuracy/value:0", "accuracy/update_op:0", "auc/value:0", "auc/update_op:0", "precision/value:0",
            "precision/update_op:0", "true_positives/Identity:0", "true_positives/AssignAdd:0",
            "true_positives_1/Identity:0", "true_positives_1/AssignAdd:0"]
        assert miou[1].name == "mean_iou/AssignAdd:0"
        assert tf.get_collection("m") == [acc[0]] and tf.get_collection("u") == [acc[1]]
        names = ["accuracy/total:0", "accuracy/count:0", "auc/true_positives:0", "auc/false_negatives:0",
                 "auc/true_negatives:0", "auc/false_positives:0", "precision/true_positives/count:0",
                 "precision/false_positives/count:0", "true_positives/count:0",
                 "true_positives_1/true_positives:0", "mean_iou/total_confusion_matrix:0"]
        assert [v.name for v in tf.local_variables()] == names
        assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == names
        assert tf.global_variables() == [] and tf.trainable_variables() == []


def test_errors() -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Curve must be either ROC or PR. Curve XX is unknown."):
            tf.metrics.auc(L, P, curve="XX")
        with pytest.raises(ValueError, match="Invalid summation_method: xx summation_method should be"):
            tf.metrics.auc(L, P, summation_method="xx", name="bad")
        # as TF, the method is checked once the confusion counts' variables are made
        assert len(tf.local_variables(scope="bad/")) == 4
        with pytest.raises(ValueError, match=r"^`sensitivity` must be in the range \[0, 1\]. Currently, "
                                             r"`sensitivity` is 1.5.$"):
            tf.metrics.specificity_at_sensitivity(L, P, 1.5)
        with pytest.raises(ValueError, match=r"^`specificity` must be in the range \[0, 1\]. Currently, "
                                             r"`specificity` got -0.5.$"):
            tf.metrics.sensitivity_at_specificity(L, P, -0.5)
        with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(8,\) are incompatible"):
            tf.metrics.accuracy(L, P[:3])


def test_mean_iou_checks_labels_through_confusion_matrix() -> None:
    """TF builds mean_iou's batch matrix with confusion_matrix, so a label past num_classes fails its assert."""
    with tf.Graph().as_default():
        lab, pred = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
        _, update = tf.metrics.mean_iou(lab, pred, 3, weights=tf.ones([4]))
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            np.testing.assert_array_equal(s.run(update, {lab: [0, 1, 2, 2], pred: [0, 2, 2, 1]}),
                                          [[1., 0., 0.], [0., 0., 1.], [0., 1., 1.]])
            with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound") as e:
                s.run(update, {lab: [0, 3, 1, 1], pred: [0, 1, 1, 1]})
            assert e.value.op.name == "mean_iou/confusion_matrix/assert_less/Assert/AssertGuard/Assert"
            with pytest.raises(tf.errors.InvalidArgumentError, match="`predictions` contains negative values"):
                s.run(update, {lab: [0, 1, 1, 1], pred: [0, 1, -1, 1]})


def test_weights_of_unknown_rank_gain_or_lose_a_dimension_at_run_time() -> None:
    # as TF's metrics: conds on the ranks expand weights one rank below the values and squeeze one above
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.float32, [None, None])
        predictions = tf.placeholder(tf.float32, [None, None])
        weights = tf.placeholder(tf.float32, None)
        value, update = tf.metrics.mean_absolute_error(labels, predictions, weights=weights)
        feeds = {labels: np.zeros((3, 2)), predictions: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(update, {**feeds, weights: [1.0, 0.0, 1.0]}) == 3.5
            got = sess.run(update, {**feeds, weights: [[[1.0], [0.0]], [[1.0], [0.0]], [[1.0], [0.0]]]})
            np.testing.assert_allclose([got, sess.run(update, {**feeds, weights: 0.5})], [3.2857144, 3.35])
            with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast to values"):
                sess.run(update, {**feeds, weights: np.ones((2, 4))})


def test_labels_and_predictions_of_unknown_rank_are_squeezed_at_run_time() -> None:
    # values and op names as TF 2.21: the squeeze happens under 'remove_squeezable_dimensions', by conds
    # on the ranks when one is unknown
    with tf.Graph().as_default() as g:
        labels = tf.placeholder(tf.int64, None)
        predictions = tf.placeholder(tf.int64, [None])
        _, update = tf.metrics.accuracy(labels, predictions)
        tf.metrics.accuracy(tf.placeholder(tf.int64, [None, 1]), predictions)
        names = [op.name for op in g.get_operations() if op.type == "Squeeze"]
        assert names == ["remove_squeezable_dimensions/cond/Squeeze", "remove_squeezable_dimensions/cond_1/Squeeze",
                         "remove_squeezable_dimensions_1/Squeeze"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            got = [sess.run(update, {labels: [[1], [2], [3]], predictions: [1, 2, 0]}),
                   sess.run(update, {labels: [1, 2], predictions: [1, 2]})]
    np.testing.assert_allclose(got, [0.6666667, 0.8])
