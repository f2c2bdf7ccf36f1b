"""tf.layers' public Layer API against TF 2.21's legacy tf.layers (tf_keras, graph mode): subclassing with
build/call/add_weight/add_loss/add_update, losses, updates, weights, get/set_weights, count_params, layer
names, InputSpec checks, and the 3-D conv/pool, separable 1-D, Flatten and Dropout options. Literals and
messages recorded from real TF."""

import re
import warnings

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


class ScaleLayer(tf.layers.Layer):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.input_spec = tf.layers.InputSpec(min_ndim=2)

    def build(self, input_shape: tf.TensorShape) -> None:
        self.w = self.add_weight("w", [int(input_shape[-1])], initializer=tf.ones_initializer(),
                                 regularizer=lambda w: tf.reduce_sum(w) * 0.1)
        self.count = self.add_weight("count", [], initializer=tf.zeros_initializer(), trainable=False)
        self.v = self.add_variable("v", [2], initializer=tf.constant_initializer(3.0))
        super().build(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        self.add_loss(tf.reduce_mean(inputs) * 0.0 + 1.0)
        self.add_update(tf.assign_add(self.count, 1.0))
        return inputs * self.w


def _message(fn: object) -> str:
    with pytest.raises(ValueError) as info:
        fn()
    return str(info.value)


def test_subclassed_layer_weights_losses_updates() -> None:
    layer = ScaleLayer()
    assert (layer.name, layer.built, layer.dtype) == ("scale_layer_1", False, None)
    x = tf.ones([2, 3])
    y = layer(x)
    assert (y.name, layer.built, layer.dtype, layer.scope_name) == ("scale_layer/mul_1:0", True, "float32", "scale_layer")
    assert [v.name for v in layer.variables] == ["scale_layer/w:0", "scale_layer/v:0", "scale_layer/count:0"]
    assert [v.name for v in layer.trainable_variables] == ["scale_layer/w:0", "scale_layer/v:0"]
    assert [v.name for v in layer.non_trainable_weights] == ["scale_layer/count:0"]
    # Each read of `losses` evaluates the regularizer anew, at the current name scope.
    assert [t.name for t in layer.losses] == ["scale_layer/add:0", "w/Regularizer/mul:0"]
    assert [u.name for u in layer.updates] == ["scale_layer/AssignAdd"]
    assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == [
        "scale_layer/w/Regularizer/mul:0", "scale_layer/add:0"]
    assert [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == ["scale_layer/AssignAdd"]
    assert layer(x).name == "scale_layer/mul_3:0"
    assert [t.name for t in layer.losses] == ["scale_layer/add:0", "scale_layer/add_1:0", "w/Regularizer_1/mul:0"]
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2 and layer.count_params() == 6
    assert _message(lambda: layer(tf.ones([3]))) == (
        'Input 0 of layer "scale_layer_1" is incompatible with the layer: expected min_ndim=2, found ndim=1. Full shape '
        "received: (Dimension(3),)")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [w.tolist() for w in layer.get_weights()] == [[1, 1, 1], [3, 3], 0]
        layer.set_weights([np.array([1., 2., 3.], np.float32), np.array([1., 1.], np.float32), np.float32(5.)])
        np.testing.assert_array_equal(sess.run(y), [[1, 2, 3], [1, 2, 3]])
        assert [w.tolist() for w in layer.get_weights()] == [[1, 2, 3], [1, 1], 5]
        assert _message(lambda: layer.set_weights([np.ones(2)])) == (
            'You called `set_weights(weights)` on layer "scale_layer_1" with a weight list of length 1, but the layer '
            "was expecting 3 weights. Provided weights: [array([1., 1.])]...")
        assert _message(lambda: layer.set_weights([np.ones(2), np.ones(2), 1.])) == (
            "Layer weight shape (3,) not compatible with provided weight shape (2,)")


def test_layer_names_are_unique_per_graph_apart_from_scopes() -> None:
    with tf.Graph().as_default():
        a, b, c, d = tf.layers.Dense(2), tf.layers.Dense(2), tf.layers.BatchNormalization(), tf.layers.Dense(3, name="foo")
        x = tf.ones([2, 2])
        for layer in (a, b, c, d):
            layer(x)
        assert [layer.name for layer in (a, b, c, d)] == ["dense_1", "dense_2", "batch_normalization_1", "foo"]
        assert [layer.scope_name for layer in (a, b, c, d)] == ["dense", "dense_1", "batch_normalization", "foo"]
        assert tf.layers.Dense(2).name == "dense_3"
        assert _message(lambda: tf.layers.Dense(2).count_params()) == (
            "You tried to call `count_params` on dense_4, but the layer isn't built. You can build it manually via: "
            "`dense_4.build(batch_input_shape)`.")
    with tf.Graph().as_default():
        assert (tf.layers.Dense(2).name, tf.layers.Conv2D(2, 3).name) == ("dense_1", "conv2d_1")
        assert (_Hidden().name, ABCLayer().name) == ("private__hidden_1", "abc_layer_1")


class _Hidden(tf.layers.Layer):
    pass


class ABCLayer(tf.layers.Layer):
    pass


def test_input_specs() -> None:
    assert repr(tf.layers.InputSpec(ndim=2, axes={1: 3})) == "InputSpec(ndim=2, axes={1: 3})"
    assert repr(tf.layers.InputSpec(shape=[None, 3], dtype=tf.float32)) == (
        "InputSpec(dtype=float32, shape=(None, 3), ndim=2)")
    x = tf.ones([2, 3])
    dense = tf.layers.Dense(3, kernel_constraint=lambda k: tf.clip_by_value(k, -0.1, 0.1),
                            bias_constraint=lambda b: b + 1.0, kernel_initializer=tf.ones_initializer())
    z = dense(x)
    assert repr(dense.input_spec) == "InputSpec(min_ndim=2, axes={-1: 3})"
    assert _message(lambda: dense(tf.ones([2, 4]))) == (
        'Input 0 of layer "dense_1" is incompatible with the layer: expected axis -1 of input shape to have value 3, '
        "but received input with shape (2, 4)")
    assert _message(lambda: dense(tf.ones([2]))) == (
        'Input 0 of layer "dense_1" is incompatible with the layer: expected min_ndim=2, found ndim=1. Full shape '
        "received: (Dimension(2),)")
    assert _message(lambda: tf.layers.dense(tf.placeholder(tf.float32, [2, None]), 2)) == (
        "The last dimension of the inputs to a Dense layer should be defined. Found None. Full input shape "
        "received: (2, ?)")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(z))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_array_equal(sess.run(dense.kernel), np.zeros([3, 3]))
        np.testing.assert_array_equal(sess.run(dense.bias), np.zeros([3]))
    pool = tf.layers.AveragePooling3D(2, 2)
    assert repr(pool.input_spec) == "InputSpec(ndim=5)"
    assert _message(lambda: pool(tf.ones([2, 3, 3]))) == (
        'Input 0 of layer "average_pooling3d_1" is incompatible with the layer: expected ndim=5, found ndim=3. Full '
        "shape received: (Dimension(2), Dimension(3), Dimension(3))")
    assert _message(lambda: tf.layers.flatten(tf.constant(1.0))) == (
        'Input 0 of layer "flatten_1" is incompatible with the layer: expected min_ndim=1, found ndim=0. Full shape '
        "received: ()")
    assert _message(lambda: tf.layers.conv2d(tf.ones([2, 3, 3]), 2, 1)) == (
        'Input 0 of layer "conv2d_1" is incompatible with the layer: expected min_ndim=4, found ndim=3. Full shape '
        "received: (Dimension(2), Dimension(3), Dimension(3))")


def test_conv3d_transpose_separable_conv1d_pool3d_flatten_dropout() -> None:
    x5 = tf.constant(np.sin(np.arange(2 * 4 * 5 * 6 * 3)).reshape(2, 4, 5, 6, 3).astype(np.float32))
    x5_cf = tf.transpose(x5, [0, 4, 1, 2, 3])
    transpose = tf.layers.Conv3DTranspose(2, 3, strides=(2, 1, 2), padding="same", activation=tf.nn.relu,
                                          kernel_initializer=tf.constant_initializer(0.1),
                                          bias_initializer=tf.constant_initializer(0.5))
    x3 = tf.constant(np.cos(np.arange(2 * 7 * 4)).reshape(2, 7, 4).astype(np.float32))
    separable = tf.layers.SeparableConv1D(3, 3, depth_multiplier=2, strides=2,
                                          depthwise_initializer=tf.constant_initializer(0.2),
                                          pointwise_initializer=tf.constant_initializer(-0.3))
    ys = [transpose(x5),
          tf.layers.conv3d_transpose(x5_cf, 2, (2, 3, 1), strides=2, data_format="channels_first",
                                     kernel_initializer=tf.ones_initializer()),
          separable(x3),
          tf.layers.separable_conv1d(x3, 2, 2, dilation_rate=2, data_format="channels_first",
                                     depthwise_initializer=tf.ones_initializer(),
                                     pointwise_initializer=tf.ones_initializer()),
          tf.layers.AveragePooling3D(2, 2, padding="same")(x5),
          tf.layers.max_pooling3d(x5, (2, 3, 2), (1, 2, 2)),
          tf.layers.average_pooling3d(x5_cf, 2, 1, data_format="channels_first"),
          tf.layers.MaxPooling3D(3, 2, padding="same", data_format="channels_first")(x5_cf),
          tf.layers.flatten(x5, data_format="channels_first"),
          tf.layers.flatten(tf.ones([3]))]
    assert [(y.name, y.shape.as_list()) for y in ys] == [
        ("conv3d_transpose/Relu:0", [2, 8, 5, 12, 2]), ("conv3d_transpose_1/BiasAdd:0", [2, 2, 8, 11, 12]),
        ("separable_conv1d/Squeeze:0", [2, 3, 3]), ("separable_conv1d_1/Squeeze:0", [2, 2, 2]),
        ("average_pooling3d/AvgPool3D:0", [2, 2, 3, 3, 3]), ("max_pooling3d/MaxPool3D:0", [2, 3, 2, 3, 3]),
        ("average_pooling3d_1/transpose_1:0", [2, 3, 3, 4, 5]), ("max_pooling3d_1/transpose_1:0", [2, 3, 2, 3, 3]),
        ("flatten/Reshape:0", [2, 360]), ("flatten_1/ExpandDims:0", [3, 1])]
    assert repr(transpose.input_spec) == "InputSpec(ndim=5, axes={-1: 3})"
    assert repr(separable.input_spec) == "InputSpec(ndim=3, axes={-1: 4})"
    assert [v.shape.as_list() for v in separable.variables] == [[3, 4, 2], [1, 8, 3], [3]]
    dropout = tf.layers.Dropout(0.5, noise_shape=[2, 1, 1, 1, 3], seed=7)
    dropped = dropout(x5, training=True)
    by_phase = tf.layers.dropout(x5, training=None)
    assert dropped.name == "dropout/dropout/SelectV2:0" and by_phase.name == "dropout_1/cond/Merge:0"
    assert tf.get_default_graph().get_operation_by_name("keras_learning_phase").type == "PlaceholderWithDefault"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(ys[:-1])
        kept = sess.run(dropped)
        np.testing.assert_allclose(sess.run(by_phase), sess.run(x5))
    sums = [964.334, 23.463, -0.029, -0.808, 0.204, 105.674, -0.019, 105.696, 1.955]
    np.testing.assert_allclose([v.sum() for v in values], sums, atol=2e-3)
    heads = [[0.7063, 0.7063, 0.7063, 0.7063, 0.547, 0.547], [1.7508, 0.0, -1.5746, 0.0, 1.3669, 0.0],
             [0.0496, 0.0496, 0.0496, 0.0416, 0.0416, 0.0416], [1.0683, 0.161, 1.0683, 0.161, -1.1623, -0.4709],
             [0.0293, 0.0016, -0.0276, 0.0329, 0.011, -0.021], [0.9638, 0.9726, 0.9129, 0.9836, 0.9454, 0.9894],
             [0.0293, -0.0314, 0.0329, -0.0337, 0.0338, 0.0321], [0.9836, 0.9948, 0.9999, 0.9988, 0.9726, 0.9999],
             [0.0, 0.894, -0.8012, -0.176, 0.8415, 0.106]]
    np.testing.assert_allclose([v.ravel()[:6] for v in values], heads, atol=1e-4)
    # One keep decision per (example, channel), as noise_shape says.
    zeros = (kept == 0).reshape(2, -1, 3)
    assert (zeros.all(1) | ~zeros.any(1)).all()


class _Counter(tf.layers.Layer):
    def build(self, input_shape: tf.TensorShape) -> None:
        self.c = self.add_weight("c", [], trainable=False, initializer=tf.zeros_initializer())

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        self.add_update(tf.assign_add(self.c, 1.0))
        self.add_update(tf.assign_add(self.c, tf.reduce_sum(inputs)))
        self.add_loss(tf.reduce_sum(inputs), inputs=inputs)
        self.add_loss(tf.constant(2.0))
        return inputs


def test_updates_and_losses_for_inputs() -> None:
    x = tf.placeholder(tf.float32, [None, 3])
    bn = tf.layers.BatchNormalization()
    y = bn(x, training=True)
    assert bn.get_updates_for(None) == [] and bn.get_updates_for(y) == []
    assert [u.name for u in bn.get_updates_for(x)] == ["batch_normalization/AssignMovingAvg",
                                                       "batch_normalization/AssignMovingAvg_1"]
    dense = tf.layers.Dense(2, kernel_regularizer=tf.reduce_sum, activity_regularizer=tf.reduce_sum)
    dense(x)
    assert [t.name for t in dense.get_losses_for(None)] == ["kernel/Regularizer/Sum:0"]
    assert [t.name for t in dense.get_losses_for(x)] == ["dense/ActivityRegularizer/truediv:0"]
    counter = _Counter()
    counter(x)
    assert ([u.name for u in counter.get_updates_for(None)], [u.name for u in counter.get_updates_for(x)]) == (
        ["private__counter/AssignAdd"], ["private__counter/AssignAdd_1"])
    assert ([t.name for t in counter.get_losses_for(None)], [t.name for t in counter.get_losses_for(x)]) == (
        ["private__counter/Const_2:0"], ["private__counter/Sum_1:0"])


def test_layer_dtype_casts_inputs_and_trainable_toggles_updates() -> None:
    x = tf.constant(np.arange(12).reshape(4, 3).astype(np.float32))
    assert tf.layers.BatchNormalization(dtype=tf.float64)(x, training=True).dtype == tf.float64
    assert tf.layers.Dense(2, dtype=tf.float64)(x).name == "dense/BiasAdd:0"
    bn = tf.layers.BatchNormalization()
    y = bn(x, training=True)
    bn.trainable = False
    assert bn.updates == [] and bn.trainable_weights == []
    y2 = bn(x, training=True)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 4
    assert y2.name == "batch_normalization_1/batchnorm_1/add_1:0"
    bn.trainable = True
    assert [u.name for u in bn.updates] == ["batch_normalization_1/AssignMovingAvg", "batch_normalization_1/"
                                            "AssignMovingAvg_1", "batch_normalization_1/AssignMovingAvg_2",
                                            "batch_normalization_1/AssignMovingAvg_3"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([y, y2])
    np.testing.assert_allclose(a[:, 0], [-1.34158, -0.44719, 0.44719, 1.34158], atol=1e-5)
    np.testing.assert_array_equal(a, b)


def test_causal_padding_for_one_dimensional_convolutions() -> None:
    x = tf.constant(np.sin(np.arange(2 * 6 * 3)).reshape(2, 6, 3).astype(np.float32))
    point3 = tf.constant_initializer(0.3)
    ys = [tf.layers.conv1d(x, 2, 3, padding="causal", kernel_initializer=point3),
          tf.layers.conv1d(x, 2, 2, padding="causal", dilation_rate=2, kernel_initializer=point3),
          tf.layers.conv1d(tf.transpose(x, [0, 2, 1]), 2, 3, padding="CAUSAL", data_format="channels_first",
                           kernel_initializer=point3),
          tf.layers.separable_conv1d(x, 2, 3, padding="causal", depthwise_initializer=tf.ones_initializer(),
                                     pointwise_initializer=tf.ones_initializer())]
    assert [y.shape.as_list() for y in ys] == [[2, 6, 2], [2, 6, 2], [2, 2, 6], [2, 6, 2]]
    assert tf.layers.conv1d(tf.placeholder(tf.float32, [None, None, 3]), 2, 3, padding="causal").name == (
        "conv1d_3/BiasAdd:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(ys)
    first = [0.52523, 0.05285, 0.46293, -0.40187, 0.33277, -0.25701]
    np.testing.assert_allclose([values[0][0, :, 0], values[1][0, :, 0], values[2][0, 0], values[3][0, :, 0]], [
        first, [0.52523, -0.47238, 0.93531, -0.81195, 0.67234, -0.51927], first,
        [1.75077, 0.17616, 1.54309, -1.33957, 1.10924, -0.8567]], atol=1e-4)
    assert _message(lambda: tf.layers.Conv2D(2, 3, padding="causal")) == (
        "Causal padding is only supported for `Conv1D`and `SeparableConv1D`.")
    assert _message(lambda: tf.layers.Conv1D(2, 3, padding="full")) == (
        'The `padding` argument must be a list/tuple or one of "valid", "same" (or "causal", only for `Conv1D). '
        "Received: full")
    assert _message(lambda: tf.layers.Conv1D(2, 3, strides=2, dilation_rate=2)) == (
        "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: strides=(2,) and "
        "dilation_rate=(2,)")


def test_dropout_rate_zero_is_identity_and_noise_shape_with_none() -> None:
    x = tf.ones([4, 3, 2])
    kept = tf.layers.dropout(x, 0.5, noise_shape=[None, 1, None], seed=1, training=True)
    assert tf.layers.Dropout(0.0)(x, training=True).name == "dropout_1/Identity:0"
    with tf.Session() as sess:
        value = sess.run(kept)
    # One decision per (example, last index), shared along the middle axis.
    assert (value == value[:, :1, :]).all() and set(np.unique(value)) <= {0.0, 2.0}


def test_weights_made_while_frozen_stay_non_trainable_after_unfreezing():
    x = tf.placeholder(tf.float32, [None, 4])
    layer = tf.layers.Dense(2, trainable=False, name="frozen")
    layer(x)
    assert [w.op.name for w in layer.trainable_weights] == []
    assert [w.op.name for w in layer.non_trainable_weights] == ["frozen/kernel", "frozen/bias"]
    layer.trainable = True
    assert [w.op.name for w in layer.trainable_weights] == []  # TF: they sit in _non_trainable_weights
    assert [w.op.name for w in layer.non_trainable_weights] == ["frozen/kernel", "frozen/bias"]
    assert tf.trainable_variables() == []


def test_input_spec_messages_print_the_shape_as_the_mode_iterates_it():
    x = tf.placeholder(tf.float32, [None, 4])
    with pytest.raises(ValueError, match=re.escape("expected min_ndim=4, found ndim=2. Full shape received: "
                                                   "(Dimension(None), Dimension(4))")):
        tf.layers.conv2d(x, 2, 3)
    tf.disable_eager_execution()  # TF2's TensorShape iterates to ints and Nones
    with pytest.raises(ValueError, match=re.escape("expected min_ndim=4, found ndim=2. Full shape received: "
                                                   "(None, 4)")):
        tf.layers.conv2d(tf.placeholder(tf.float32, [None, 4]), 2, 3)


def test_output_shapes_and_the_keras_properties_a_graph_call_leaves_unset() -> None:
    dense, flatten, dropout, norm = tf.layers.Dense(4), tf.layers.Flatten(), tf.layers.Dropout(0.5), \
        tf.layers.BatchNormalization()
    assert dense.compute_output_shape([None, 3]).as_list() == [None, 4]
    assert dense.compute_output_shape(tf.TensorShape([2, 5, 3])).as_list() == [2, 5, 4]
    with pytest.raises(ValueError, match=re.escape("The last dimension of the input shape of a Dense layer should "
                                                   "be defined. Found None. Received: input_shape=(2, ?)")):
        dense.compute_output_shape([2, None])
    assert flatten.compute_output_shape([None, 3, 4]).as_list() == [None, 12]
    assert flatten.compute_output_shape([2, None, 4]).as_list() == [2, None]
    assert flatten.compute_output_shape([]).as_list() == [1, 1]
    assert dropout.compute_output_shape([None, 3]) == [None, 3]
    assert norm.compute_output_shape([None, 3]) == [None, 3]
    with pytest.raises(NotImplementedError):
        ScaleLayer().compute_output_shape([None, 3])
    conv = tf.layers.Conv2D(3, 3, name="cc")
    conv(tf.zeros([1, 5, 5, 2]))
    assert conv.activation(tf.zeros([1])).op.type == "Const"  # TF's `linear`: its input, no op
    assert conv.activation.__name__ == "linear" and conv.get_config()["activation"] == "linear"
    with pytest.warns(UserWarning, match="`Layer.graph` is deprecated"):
        assert conv.graph is None
    for prop, message in [("input", "Layer cc is not connected, no input to return."),
                          ("output", "Layer cc has no inbound nodes."),
                          ("input_shape", 'The layer "cc" has never been called and thus has no defined input '
                                          "shape. Note that the `input_shape` property is only available for "
                                          "Functional and Sequential models."),
                          ("output_shape", "The layer has never been called and thus has no defined output shape.")]:
        with pytest.raises(AttributeError, match=f"^{re.escape(message)}$"):
            getattr(conv, prop)


def test_weights_made_in_a_partitioned_scope_are_their_shards() -> None:
    # As TF: each shard is a weight with its own regularization loss, a partitioned weight is filed as
    # non-trainable (it is not itself in TRAINABLE_VARIABLES) and batch norm's statistics are not partitioned.
    with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(2)):
        dense = tf.layers.Dense(4, kernel_regularizer=lambda w: tf.reduce_sum(w * 0 + 1.0),
                                bias_regularizer=tf.nn.l2_loss)
        dense(tf.ones([2, 6]))
        dense(tf.ones([2, 6]))
        norm = tf.layers.BatchNormalization()
        norm(tf.ones([4, 6]), training=True)
    shards = ["p/dense/kernel/part_0:0", "p/dense/kernel/part_1:0", "p/dense/bias/part_0:0", "p/dense/bias/part_1:0"]
    assert [w.name for w in dense.weights] == shards
    assert dense.trainable_weights == [] and len(dense.losses) == 4
    assert [v.name for v in tf.trainable_variables(scope="p/dense")] == shards
    assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == [
        "p/dense/kernel/Regularizer/Sum:0", "p/dense/kernel/Regularizer_1/Sum:0",
        "p/dense/bias/Regularizer/L2Loss:0", "p/dense/bias/Regularizer_1/L2Loss:0"]
    assert [w.name for w in norm.non_trainable_weights] == [
        "p/batch_normalization/gamma/part_0:0", "p/batch_normalization/gamma/part_1:0",
        "p/batch_normalization/beta/part_0:0", "p/batch_normalization/beta/part_1:0",
        "p/batch_normalization/moving_mean:0", "p/batch_normalization/moving_variance:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(tf.losses.get_regularization_loss()) == 24.0


def test_an_unknown_keyword_argument_is_refused_with_tf_two_arguments() -> None:
    for make, kwarg in [(lambda: tf.layers.Dense(2, foo=1), "foo"), (lambda: tf.layers.Conv2D(2, 3, bar=2, baz=3), "bar"),
                        (lambda: tf.nn.rnn_cell.BasicRNNCell(3, zz=1, aa=2), "zz")]:
        with pytest.raises(TypeError) as info:
            make()
        assert info.value.args == ("Keyword argument not understood:", kwarg)


def test_each_tf_layers_function_warns_as_tf_at_its_callers_line():
    # TF 2.21 (tf_keras's legacy layers): a UserWarning per function call, none for the Layer classes
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    x1 = tf.placeholder(tf.float32, [2, 8, 3])
    x3 = tf.placeholder(tf.float32, [2, 4, 4, 4, 3])
    calls = [("conv1d", "Conv1D", lambda: tf.layers.conv1d(x1, 2, 3)),
             ("conv2d_transpose", "Conv2DTranspose", lambda: tf.layers.conv2d_transpose(x, 2, 3)),
             ("separable_conv2d", "SeparableConv2D", lambda: tf.layers.separable_conv2d(x, 2, 3)),
             ("conv3d", "Conv3D", lambda: tf.layers.conv3d(x3, 2, 3)),
             ("dense", "Dense", lambda: tf.layers.dense(x, 2)),
             ("dropout", "Dropout", lambda: tf.layers.dropout(x)),
             ("flatten", "Flatten", lambda: tf.layers.flatten(x)),
             ("max_pooling2d", "MaxPooling2D", lambda: tf.layers.max_pooling2d(x, 2, 2)),
             ("average_pooling1d", "AveragePooling1D", lambda: tf.layers.average_pooling1d(x1, 2, 2))]
    for name, replacement, call in calls:
        please = "Please Use" if "conv" in name else "Please use"
        with pytest.warns(UserWarning) as record:
            call()
        assert [str(r.message) for r in record] == [
            f"`tf.layers.{name}` is deprecated and will be removed in a future version. {please} "
            f"`tf.keras.layers.{replacement}` instead."]
        assert record[0].filename == __file__
    with pytest.warns(UserWarning, match=r" instead\. In particular, `tf.control_dependencies\(tf.GraphKeys."
                      r"UPDATE_OPS\)` should not be used \(consult the `tf.keras.layers.BatchNormalization` "
                      r"documentation\).$"):
        tf.layers.batch_normalization(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tf.layers.Dense(3)(x)


def test_functional_forms_warn_that_they_are_deprecated_at_the_callers_line() -> None:
    """Each functional tf.layers form warns (UserWarning, TF's words, pointed at the user's call) as TF's
    legacy tf.layers do; the layer classes do not."""
    with tf.Graph().as_default(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = tf.ones([2, 4, 4, 3])
        tf.layers.conv2d(x, 2, 3)
        tf.layers.batch_normalization(x)
        tf.layers.max_pooling2d(x, 2, 2)
        tf.layers.Dense(2)(tf.ones([2, 3]))
    assert [str(w.message) for w in caught] == [
        "`tf.layers.conv2d` is deprecated and will be removed in a future version. Please Use "
        "`tf.keras.layers.Conv2D` instead.",
        "`tf.layers.batch_normalization` is deprecated and will be removed in a future version. Please use "
        "`tf.keras.layers.BatchNormalization` instead. In particular, `tf.control_dependencies(tf.GraphKeys."
        "UPDATE_OPS)` should not be used (consult the `tf.keras.layers.BatchNormalization` documentation).",
        "`tf.layers.max_pooling2d` is deprecated and will be removed in a future version. Please use "
        "`tf.keras.layers.MaxPooling2D` instead."]
    assert all(w.category is UserWarning and w.filename == __file__ for w in caught)
    with tf.Graph().as_default(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match="unexpected keyword argument 'output_padding'"):
            tf.layers.conv2d_transpose(tf.ones([1, 4, 4, 1]), 2, 3, output_padding=1)
    assert not caught  # Python refuses the call before the function (and its warning) runs
