"""tf.layers convolution, pooling and batch normalization: variable, op and update names, shapes and values
as TF 2.21's legacy tf.layers (tf_keras) gives them (literals recorded from it on the same inputs)."""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _arr(shape: list, f=np.sin) -> np.ndarray:
    return f(np.arange(np.prod(shape), dtype=np.float64) * 0.37).reshape(shape).astype(np.float32)


def _init(shape: list) -> object:
    return tf.constant_initializer(_arr(shape, np.cos))


_CASES = {
    "conv1d": ([2, 7, 3], lambda x: tf.layers.conv1d(
        x, 4, 3, strides=2, padding="same", kernel_initializer=_init([3, 3, 4]),
        bias_initializer=tf.constant_initializer(0.1)),
        ["conv1d/kernel:0", "conv1d/bias:0"], "conv1d/BiasAdd:0", [2, 4, 4], 8.7593, 7.044),
    "conv2d": ([2, 6, 7, 3], lambda x: tf.layers.conv2d(
        x, 4, (3, 2), padding="valid", dilation_rate=(1, 2), activation=tf.nn.relu,
        kernel_initializer=_init([3, 2, 3, 4])),
        ["conv2d/kernel:0", "conv2d/bias:0"], "conv2d/Relu:0", [2, 4, 5, 4], 82.0556, 103.3639),
    "conv2d_strided": ([2, 6, 7, 3], lambda x: tf.layers.conv2d(
        x, 4, 3, strides=2, padding="same", kernel_initializer=_init([3, 3, 3, 4])),
        ["conv2d/kernel:0", "conv2d/bias:0"], "conv2d/BiasAdd:0", [2, 3, 4, 4], 2.6965, 109.0969),
    "conv2d_transpose_same": ([2, 6, 7, 3], lambda x: tf.layers.conv2d_transpose(
        x, 2, 3, strides=2, padding="same", kernel_initializer=_init([3, 3, 2, 3])),
        ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0"], "conv2d_transpose/BiasAdd:0",
        [2, 12, 14, 2], -2.2195, 2304.1025),
    "conv2d_transpose_valid": ([2, 6, 7, 3], lambda x: tf.layers.conv2d_transpose(
        x, 2, (3, 2), strides=(2, 1), padding="valid", kernel_initializer=_init([3, 2, 2, 3])),
        ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0"], "conv2d_transpose/BiasAdd:0",
        [2, 13, 8, 2], 1.118, 1484.3915),
    "separable_conv2d": ([2, 6, 7, 3], lambda x: tf.layers.separable_conv2d(
        x, 5, 3, depth_multiplier=2, padding="same", depthwise_initializer=_init([3, 3, 3, 2]),
        pointwise_initializer=_init([1, 1, 6, 5])),
        ["separable_conv2d/depthwise_kernel:0", "separable_conv2d/pointwise_kernel:0", "separable_conv2d/bias:0"],
        "separable_conv2d/BiasAdd:0", [2, 6, 7, 5], 1.4263, 377.5481),
    "separable_conv1d": ([2, 7, 3], lambda x: tf.layers.separable_conv1d(
        x, 5, 3, depth_multiplier=2, strides=2, depthwise_initializer=_init([3, 3, 2]),
        pointwise_initializer=_init([1, 6, 5])),
        ["separable_conv1d/depthwise_kernel:0", "separable_conv1d/pointwise_kernel:0", "separable_conv1d/bias:0"],
        "separable_conv1d/Squeeze:0", [2, 3, 5], 0.2859, 13.9252),
    "max_pooling1d": ([2, 7, 3], lambda x: tf.layers.max_pooling1d(x, 2, 2),
                      [], "max_pooling1d/Squeeze:0", [2, 3, 3], 6.6632, 10.4262),
    "average_pooling1d": ([2, 7, 3], lambda x: tf.layers.average_pooling1d(x, 3, 2, padding="same"),
                          [], "average_pooling1d/Squeeze:0", [2, 4, 3], 4.175, 6.8196),
    "max_pooling2d": ([2, 6, 7, 3], lambda x: tf.layers.max_pooling2d(x, 3, 2, padding="same"),
                      [], "max_pooling2d/MaxPool:0", [2, 3, 4, 3], 64.0347, 59.1019),
    "average_pooling2d": ([2, 6, 7, 3], lambda x: tf.layers.average_pooling2d(x, (2, 3), (1, 2)),
                          [], "average_pooling2d/AvgPool:0", [2, 5, 3, 3], 0.0708, 9.7103),
    "conv2d_channels_first": ([2, 2, 6, 7], lambda x: tf.layers.conv2d(
        x, 4, 3, data_format="channels_first", kernel_initializer=_init([3, 3, 2, 4]),
        bias_initializer=tf.constant_initializer(0.2)),
        ["conv2d/kernel:0", "conv2d/bias:0"], "conv2d/BiasAdd:0", [2, 4, 4, 5], 73.525, 207.3028),
    "max_pooling2d_channels_first": ([2, 2, 6, 7], lambda x: tf.layers.max_pooling2d(
        x, 2, 2, data_format="channels_first"), [], "max_pooling2d/MaxPool:0", [2, 2, 3, 3], 26.1795, 22.0895),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_conv_and_pool_layers_match_tf(case: str) -> None:
    shape, build, variables, output, out_shape, total, squares = _CASES[case]
    with tf.Graph().as_default():
        y = build(tf.constant(_arr(shape)))
        assert [v.name for v in tf.global_variables()] == variables
        assert y.name == output and y.shape.as_list() == out_shape
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(y)
    assert value.shape == tuple(out_shape)
    np.testing.assert_allclose([value.sum(), (value * value).sum()], [total, squares], rtol=1e-4, atol=2e-4)


def test_conv_layer_objects_reuse_and_errors() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3])
        layer = tf.layers.Conv2D(6, 3, padding="same", kernel_regularizer=tf.nn.l2_loss)
        a, b = layer(x), layer(x)
        assert [a.name, b.name] == ["conv2d/BiasAdd:0", "conv2d/BiasAdd_1:0"]
        assert a.shape.as_list() == [None, 8, 8, 6] and len(tf.global_variables()) == 2
        assert layer.kernel.shape.as_list() == [3, 3, 3, 6] and layer.trainable_weights == [layer.kernel, layer.bias]
        assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == [
            "conv2d/kernel/Regularizer/L2Loss:0"]
        up = tf.layers.conv2d_transpose(x, 2, 3, strides=2)
        assert up.shape.as_list() == [None, 17, 17, 2]
        with pytest.raises(ValueError, match="channel dimension of the inputs should be defined"):
            tf.layers.conv2d(tf.placeholder(tf.float32, [1, 4, 4, None]), 2, 3)
        with pytest.raises(ValueError, match="`kernel_size` argument must be a tuple of 2 integers"):
            tf.layers.Conv2D(2, (3, 3, 3))
        with pytest.raises(ValueError, match="`padding` argument"):
            tf.layers.MaxPooling2D(2, 2, padding="full")
        free = tf.placeholder(tf.float32, [None, None, None, 3])
        dyn = tf.layers.conv2d_transpose(free, 2, 3, strides=2, padding="same")
        assert dyn.shape.as_list() == [None, None, None, 2]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(dyn, {free: np.zeros([1, 3, 5, 3])}).shape == (1, 6, 10, 2)


def test_size_arguments_are_checked_as_keras_checks_them() -> None:
    cases = [(lambda: tf.layers.Conv2D(2, 0), "The `kernel_size` argument must be a tuple of 2 integers. Received: 0 "
              "including {0} that does not satisfy the requirement `> 0`."),
             (lambda: tf.layers.Conv2D(2, (3, -1)), "The `kernel_size` argument must be a tuple of 2 integers. "
              "Received: (3, -1) including {-1} that does not satisfy the requirement `> 0`."),
             (lambda: tf.layers.Conv2D(2, 3, dilation_rate=0), "The `dilation_rate` argument must be a tuple of 2 "
              "integers. Received: 0 including {0} that does not satisfy the requirement `> 0`."),
             (lambda: tf.layers.Conv2D(2, 3, strides=(1, 0)), "The argument `strides` cannot contains 0(s). "
              "Received: (1, 0)"),
             (lambda: tf.layers.Conv2D(2, 3, strides=-1), "The `strides` argument must be a tuple of 2 integers. "
              "Received: -1 including {-1} that does not satisfy the requirement `>= 0`."),
             (lambda: tf.layers.Conv2D(2, (3, "a")), "The `kernel_size` argument must be a tuple of 2 integers. "
              "Received: (3, 'a')including element a of type <class 'str'>"),
             (lambda: tf.layers.MaxPooling2D(0, 1), "The `pool_size` argument must be a tuple of 2 integers. "
              "Received: 0 including {0} that does not satisfy the requirement `> 0`."),
             (lambda: tf.layers.Conv2DTranspose(2, 3, strides=2, output_padding=2), "Strides must be greater than "
              "output padding. Received strides=(2, 2), output_padding=(2, 2)."),
             (lambda: tf.layers.Conv2DTranspose(2, 3)(tf.ones([2, 5, 5, 3, 1])), "Inputs should have rank 4. "
              "Received input_shape=(2, 5, 5, 3, 1)."),
             (lambda: tf.layers.Conv2D(0, 3), "Invalid value for argument `filters`. Expected a strictly positive "
              "value. Received filters=0."),
             (lambda: tf.layers.SeparableConv1D(-2, 3), "Invalid value for argument `filters`. Expected a strictly "
              "positive value. Received filters=-2.")]
    for make, message in cases:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            make()
    assert tf.layers.MaxPooling2D(2, 0).strides == (0, 0)
    # the pooling op's shape function refuses the zero stride, known input size or not
    with pytest.raises(ValueError, match=r"^Stride must be > 0, but got 0 for '\{\{node max_pooling2d/MaxPool\}\}"):
        tf.layers.max_pooling2d(tf.placeholder(tf.float32, [None, None, 8, 3]), 2, 0)
    with pytest.raises(ValueError, match=r"^Stride must be > 0, but got 0 for '\{\{node AvgPool1D\}\}"):
        tf.nn.avg_pool1d(tf.zeros([1, 4, 2]), 2, 0, "SAME")
    with tf.Graph().as_default():  # a layer refused while being made takes no name: the next one is conv2d
        with pytest.raises(ValueError, match="Received filters=0"):
            tf.layers.conv2d(tf.zeros([1, 4, 4, 2]), 0, 3)
        assert tf.layers.conv2d(tf.zeros([1, 4, 4, 2]), 1, 3).name == "conv2d/BiasAdd:0"


def test_transposed_convolutions_take_keras_output_padding() -> None:
    # shapes and sums recorded from TF 2.21 (seeded random inputs, graph seed 1)
    tf.set_random_seed(1)
    rs = np.random.RandomState(0)
    a = tf.layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)(tf.constant(rs.rand(1, 4, 4, 1), tf.float32))
    b = tf.layers.Conv3DTranspose(2, 3, strides=(2, 3, 2), output_padding=(1, 2, 0), padding="same")(
        tf.constant(rs.rand(1, 4, 4, 4, 1), tf.float32))
    layer = tf.layers.Conv2DTranspose(2, (3, 2), strides=(3, 2), output_padding=(2, 1))
    free = tf.placeholder(tf.float32, [None, None, None, 1])
    c = layer(free)
    assert layer.get_config()["output_padding"] == (2, 1)
    assert tf.layers.Conv2DTranspose.from_config(layer.get_config()).output_padding == (2, 1)
    assert a.shape.as_list() == [1, 10, 10, 2] and b.shape.as_list() == [1, 8, 12, 7, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([a, b, c], {free: rs.rand(2, 3, 5, 1)})
    assert got[2].shape == (2, 11, 11, 2)
    np.testing.assert_allclose([g.sum() for g in got], [13.866432, -32.733826, -30.682892], rtol=1e-5)


# (update op names, trainable names, output name, output sum of squares, moving mean, moving variance)
_BN = {
    "fused_train": ([4, 3, 2, 3], dict(training=True), ["AssignMovingAvg", "AssignMovingAvg_1"], True,
                    "FusedBatchNormV3:0", 71.8536, [0.000107, 0.000291, 0.000437], [0.994993, 0.995107, 0.995271]),
    "fused_infer": ([4, 3, 2, 3], dict(training=False), [], True, "FusedBatchNormV3:0", 35.3849,
                    [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
    "fused_placeholder": ([4, 3, 2, 3], dict(training="ph"), ["AssignMovingAvg", "AssignMovingAvg_1"], True,
                          "cond/Merge:0", 71.8536, [0.000107, 0.000291, 0.000437], [0.994993, 0.995107, 0.995271]),
    "fused_axis1": ([4, 3, 2, 3], dict(training=True, axis=1, momentum=0.9, epsilon=0.01),
                    ["AssignMovingAvg", "AssignMovingAvg_1"], True, "FusedBatchNormV3:0", 67.7487,
                    [0.073886, -0.039916, -0.025624], [0.908028, 0.930093, 0.935439]),
    "dense_train": ([5, 3], dict(training=True, momentum=0.5), ["AssignMovingAvg", "AssignMovingAvg_1"], True,
                    "batchnorm/add_1:0", 14.9711, [0.054184, 0.035646, 0.012284], [0.734078, 0.764298, 0.78462]),
    "dense_placeholder": ([5, 3], dict(training="ph"), ["cond_2/Merge", "cond_3/Merge"], True,
                          "batchnorm/add_1:0", 14.9711, [0.001084, 0.000713, 0.000246],
                          [0.994682, 0.995286, 0.995692]),
    "no_center_scale": ([4, 3, 2, 3], dict(training=True, center=False, scale=False),
                        ["AssignMovingAvg", "AssignMovingAvg_1"], False, "FusedBatchNormV3:0", 71.8536,
                        [0.000107, 0.000291, 0.000437], [0.994993, 0.995107, 0.995271]),
    "unfused_rank4": ([4, 3, 2, 3], dict(training=True, fused=False), ["AssignMovingAvg", "AssignMovingAvg_1"],
                      True, "batchnorm/add_1:0", 71.8536, [0.000107, 0.000291, 0.000437],
                      [0.994785, 0.994894, 0.995051]),
    "rank3": ([4, 5, 3], dict(training=True), ["AssignMovingAvg", "AssignMovingAvg_1"], True,
              "batchnorm/add_1:0", 59.8771, [0.00085, 0.000941, 0.000904], [0.994892, 0.994854, 0.99487]),
}


@pytest.mark.parametrize("case", sorted(_BN))
def test_batch_normalization_matches_tf(case: str) -> None:
    shape, kwargs, updates, has_params, output, squares, mean, variance = _BN[case]
    kwargs = dict(kwargs)
    with tf.Graph().as_default():
        training = tf.placeholder(tf.bool, []) if kwargs["training"] == "ph" else kwargs["training"]
        kwargs["training"] = training
        y = tf.layers.batch_normalization(tf.constant(_arr(shape)), **kwargs)
        params = ["batch_normalization/gamma:0", "batch_normalization/beta:0"] if has_params else []
        assert [v.name for v in tf.trainable_variables()] == params
        assert [v.name for v in tf.global_variables()] == params + [
            "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert [u.name for u in update_ops] == ["batch_normalization/" + u for u in updates]
        assert y.name == "batch_normalization/" + output
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value, _ = sess.run([y, update_ops], {training: True} if isinstance(training, tf.Tensor) else {})
            moving = sess.run(tf.global_variables()[-2:])
    np.testing.assert_allclose((value * value).sum(), squares, rtol=1e-4)
    np.testing.assert_allclose(moving[0], mean, atol=2e-6)
    np.testing.assert_allclose(moving[1], variance, atol=2e-6)


def test_batch_normalization_trains_and_infers_with_moving_statistics() -> None:
    x = np.random.RandomState(1).randn(8, 4, 4, 2).astype(np.float32) * 3 + 1
    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, [None, 4, 4, 2])
        training = tf.placeholder_with_default(False, [])
        layer = tf.layers.BatchNormalization(momentum=0.0)
        y = layer(inputs, training=training)
        loss = tf.reduce_sum(y * tf.constant(_arr([1, 4, 4, 2])))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        assert layer.updates == tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert layer.non_trainable_weights == [layer.moving_mean, layer.moving_variance]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {inputs: x, training: True})
            mean, variance = sess.run([layer.moving_mean, layer.moving_variance])
            np.testing.assert_allclose(mean, x.mean((0, 1, 2)), rtol=1e-5)
            np.testing.assert_allclose(variance, x.reshape(-1, 2).var(0, ddof=1), rtol=1e-5)
            gamma, beta = sess.run([layer.gamma, layer.beta])
            expected = (x - mean) / np.sqrt(variance + 1e-3) * gamma + beta
            np.testing.assert_allclose(sess.run(y, {inputs: x}), expected, rtol=1e-4, atol=1e-5)


_BATCHED_CASES = {  # more than one batch dimension: input shape, layer, output shape, TF's sum and sum of |y|
    "conv2d": ([2, 2, 6, 5, 3], lambda x: tf.layers.conv2d(
        x, 2, 3, kernel_initializer=_init([3, 3, 3, 2]), bias_initializer=tf.constant_initializer(0.1)),
        [2, 2, 4, 3, 2], 21.5905, 229.9516),
    "channels_first": ([2, 2, 3, 6, 5], lambda x: tf.layers.conv2d(
        x, 2, 3, data_format="channels_first", kernel_initializer=_init([3, 3, 3, 2]),
        bias_initializer=tf.constant_initializer(0.1)), [2, 2, 2, 4, 3], 9.2255, 11.7577),
    "conv1d_causal": ([2, 2, 7, 3], lambda x: tf.layers.conv1d(
        x, 2, 3, padding="causal", dilation_rate=2, kernel_initializer=_init([3, 3, 2]),
        bias_initializer=tf.constant_initializer(0.1)), [2, 2, 7, 2], 6.0594, 122.4971),
    "dilated": ([2, 2, 6, 5, 3], lambda x: tf.layers.conv2d(
        x, 2, 3, padding="same", dilation_rate=2, kernel_initializer=_init([3, 3, 3, 2]),
        bias_initializer=tf.constant_initializer(0.1)), [2, 2, 6, 5, 2], 44.8959, 627.2605),
    "conv3d": ([2, 2, 4, 4, 4, 3], lambda x: tf.layers.conv3d(
        x, 2, 2, strides=2, kernel_initializer=_init([2, 2, 2, 3, 2]), bias_initializer=tf.constant_initializer(0.1)),
        [2, 2, 2, 2, 2, 2], 8.1381, 102.8334),
}


@pytest.mark.parametrize("case", sorted(_BATCHED_CASES))
def test_conv_layers_take_more_than_one_batch_dimension(case: str) -> None:
    """Keras's conv layers run over inputs of more batch dimensions than one (tf.nn.convolution merges them),
    adding the bias under `squeeze_batch_dims` as TF does."""
    shape, build, out_shape, total, abs_total = _BATCHED_CASES[case]
    with tf.Graph().as_default():
        y = build(tf.constant(_arr(shape)))
        scope = y.name.split("/")[0]
        assert y.name == f"{scope}/squeeze_batch_dims/Reshape_1:0" and y.shape.as_list() == out_shape
        assert y.op.inputs[0].op.type == "BiasAdd"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(y)
    np.testing.assert_allclose([value.sum(), np.abs(value).sum()], [total, abs_total], rtol=1e-4)


def test_layers_tf_refuses_more_batch_dimensions_for() -> None:
    with tf.Graph().as_default():
        x = tf.ones([2, 2, 5, 5, 3])
        with pytest.raises(ValueError, match=re.escape("Inputs should have rank 4. Received input_shape=(2, 2, 5, 5, 3).")):
            tf.layers.Conv2DTranspose(2, 3)(x)
        with pytest.raises(ValueError, match=re.escape(
                "Shape must be rank 4 but is rank 5 for '{{node sep/separable_conv2d/depthwise}} = "
                "DepthwiseConv2dNative")):
            tf.layers.SeparableConv2D(2, 3, name="sep")(x)


def test_conv_layers_take_keras_groups() -> None:
    """Keras's `groups` (passed through tf.layers' keyword arguments): a kernel of input channels / groups,
    TF's checks and values. (TF runs a grouped convolution in a PartitionedCall to a jit-compiled function;
    here it is the Conv2D op, which takes grouped filters.)"""
    x = np.sin(np.arange(2 * 6 * 6 * 4, dtype=np.float32)).reshape(2, 6, 6, 4)
    with tf.Graph().as_default():
        layer = tf.layers.Conv2D(2, 3, groups=2, kernel_initializer=tf.constant_initializer(0.05))
        y = layer(tf.constant(x))
        assert y.name == "conv2d/BiasAdd:0" and layer.kernel.shape.as_list() == [3, 3, 2, 2]
        assert layer.get_config()["groups"] == 2
        with pytest.raises(ValueError, match=re.escape("The number of filters must be evenly divisible by the "
                                                       "number of groups. Received: groups=3, filters=2")):
            tf.layers.Conv2D(2, 3, groups=3)
        with pytest.raises(ValueError, match=re.escape("The number of input channels must be evenly divisible by "
                                                       "the number of groups. Received groups=3, but the input has 4 "
                                                       "channels (full input shape is (2, 6, 6, 4)).")):
            tf.layers.Conv2D(3, 3, groups=3)(tf.constant(x))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y).ravel()[:6], [0.011153, 0.039533, -0.044056, -0.002865, 0.046441,
                                                                  -0.035787], atol=1e-6)
