"""tf.math.sobol_sample (SobolSample): TF 2.21's points (recorded from real TF: literals, and sums and a
weighted sum for the larger draws) in both dtypes, with skips, up to TF's last dimension and past 24 bits of
float32, the static shapes, TF's sign flip at 31 digits, and TF's messages."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_sobol_sample_matches_tf():
    with tf.Graph().as_default():
        first = tf.math.sobol_sample(3, 5)
        skipped = tf.math.sobol_sample(2, 4, skip=7, dtype=tf.float64)
        wide = tf.math.sobol_sample(40, 300, skip=1000, dtype=tf.float64)
        last_dims = tf.math.sobol_sample(21200, 3, skip=5)
        rounded = tf.math.sobol_sample(50, 1000, skip=2**25)
        exact = tf.math.sobol_sample(50, 1000, skip=2**25, dtype=tf.float64)
        many = tf.math.sobol_sample(7, 2000, skip=123)
        negative = tf.math.sobol_sample(1, 3, skip=2**30)
        assert first.shape.as_list() == [5, 3] and first.dtype == tf.float32 and first.op.name == "sobol/SobolSample"
        with tf.Session() as sess:
            values = sess.run([first, skipped, wide, last_dims, rounded, exact, many, negative])
    assert values[0].dtype == np.float32 and values[0].tolist() == [
        [0.5, 0.5, 0.5], [0.75, 0.25, 0.25], [0.25, 0.75, 0.75], [0.375, 0.375, 0.625], [0.875, 0.875, 0.125]]
    assert values[1].dtype == np.float64 and values[1].tolist() == [
        [0.1875, 0.3125], [0.6875, 0.8125], [0.9375, 0.0625], [0.4375, 0.5625]]
    assert values[2].sum() == 6000.4619140625 and (values[2] * np.arange(40)).sum() == 117061.4873046875
    assert values[2][-1, -5:].tolist() == [0.33251953125, 0.15087890625, 0.77880859375, 0.43310546875,
                                           0.82177734375]
    assert values[3].shape == (3, 21200) and values[3].sum(dtype=np.float64) == 31803.75
    assert values[3][:, -4:].tolist() == [[0.375, 0.375, 0.125, 0.125], [0.875, 0.875, 0.625, 0.625],
                                          [0.0625, 0.6875, 0.9375, 0.6875]]
    assert values[4].sum(dtype=np.float64) == 24996.260975301266
    assert values[5].sum() == 24996.261087179184
    assert values[6].sum(dtype=np.float64) == 6999.4970703125
    assert values[6][1500].tolist() == pytest.approx(
        [0.1821289, 0.43017578, 0.86279297, 0.5600586, 0.5229492, 0.57373047, 0.9477539], abs=5e-8)
    assert values[7].tolist() == [[-0.5], [-0.75], [-0.25]]


def test_sobol_sample_shapes_and_errors():
    with tf.Graph().as_default():
        unknown = tf.placeholder(tf.int32)
        assert tf.math.sobol_sample(unknown, 4).shape.as_list() == [4, None]
        assert tf.math.sobol_sample(3, unknown).shape.as_list() == [None, 3]
        with pytest.raises(ValueError, match=r"Shape must be rank 0 but is rank 1 .* input shapes: \[2\], \[\], \[\]"):
            tf.math.sobol_sample([1, 2], 3)
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: float32, float64"):
            tf.math.sobol_sample(2, 3, dtype=tf.int32)
        cases = {(0, 3, 0): "dim must be at least one", (21201, 3, 0): "dim must be at most 21200",
                 (2, 0, 0): "num_results must be at least one", (2, 3, -1): "skip must be non-negative",
                 (2, 2**31 - 2, 5): "num_results\\+skip must be less than 2147483647"}
        with tf.Session() as sess:
            for args, message in cases.items():
                with pytest.raises(tf.errors.InvalidArgumentError, match=message) as caught:
                    sess.run(tf.math.sobol_sample(*args))
                assert "SobolSample" in str(caught.value)
