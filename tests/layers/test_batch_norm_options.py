"""tf.layers.BatchNormalization's options against TF 2.21's legacy tf.layers (tf_keras, graph mode): batch
renormalization, virtual batches, adjustment, the fused-kernel choice, axis lists, a `training` tensor,
trainable=False, regularizers and constraints. Literals recorded from real TF."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos


def _steps() -> list:
    return [(np.sin(np.arange(18).reshape(6, 3) * (i + 1)) * (i + 1) + i).astype(np.float32) for i in range(3)]


# Per training step: the first two output rows before the step, then moving_mean, moving_variance,
# moving_stddev, renorm_mean, renorm_stddev after it.
_RENORM_STEPS = [
    ([[-0.04847, 0.95288, 0.9093], [0.19855, -0.87179, -0.95892]],
     [[0.00646, 0.0055, -0.00052], [0.88258, 0.92313, 0.99286], [0.93999, 0.96131, 0.99692],
      [0.01292, 0.011, -0.00103], [0.87998, 0.92263, 0.99385]]),
    ([[0.47824, -0.68169, -2.76436], [-0.1322, -0.34487, -2.33218]],
     [[-0.00954, 0.27549, 0.07295], [0.83776, 0.80229, 0.97256], [0.91584, 0.89627, 0.98669],
      [-0.02037, 0.54988, 0.146], [0.84368, 0.80027, 0.974]]),
    ([[-1.04977, -2.00216, -3.7462], [-0.15648, -2.76799, -2.90158]],
     [[0.21525, 0.43037, 0.2766], [1.096, 1.07068, 1.2545], [1.04738, 1.03522, 1.12049],
      [0.43137, 0.80477, 0.53869], [1.12119, 1.09737, 1.24413]]),
]


def test_renorm_trains_with_clipping_and_infers_with_moving_statistics() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        rmax = tf.placeholder_with_default(1.5, [])
        y = tf.layers.batch_normalization(x, training=True, renorm=True, momentum=0.9, renorm_momentum=0.8,
                                          renorm_clipping={"rmax": rmax, "rmin": 0.7, "dmax": 0.3})
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert [v.name for v in tf.global_variables()] == [
            "batch_normalization/" + n + ":0" for n in ("gamma", "beta", "moving_mean", "moving_variance",
                                                        "moving_stddev", "renorm_mean", "renorm_stddev")]
        assert [v.name for v in tf.trainable_variables()] == ["batch_normalization/gamma:0",
                                                              "batch_normalization/beta:0"]
        assert [(u.name, u.type) for u in update_ops] == [("batch_normalization/AssignMovingAvg_2", "AssignSub"),
                                                          ("batch_normalization/AssignNewValue", "Assign")]
        loss = tf.reduce_sum(y * tf.constant([1., 2., 3.]))
        with tf.control_dependencies(update_ops):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.variable_scope("", reuse=True):
            inferred = tf.layers.batch_normalization(x, renorm=True, name="batch_normalization")
        data = _steps()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for batch, (outputs, statistics) in zip(data, _RENORM_STEPS):
                np.testing.assert_allclose(sess.run(y, {x: batch})[:2], outputs, atol=1e-4)
                sess.run(train, {x: batch})
                np.testing.assert_allclose(sess.run(tf.global_variables()[2:]), statistics, atol=1e-4)
            np.testing.assert_allclose(sess.run(inferred, {x: data[0]})[:2],
                                       [[-1.98388, -3.51501, -5.43991], [-1.86332, -3.84544, -5.32206]], atol=1e-4)
            np.testing.assert_allclose(sess.run(y, {x: data[1], rmax: 3.0})[:2],
                                       [[-1.03407, -3.48123, -5.34021], [-1.53516, -3.40406, -5.36439]], atol=1e-4)


def test_virtual_batches_adjustment_and_renorm_under_a_training_tensor() -> None:
    x = tf.constant((np.cos(np.arange(36).reshape(6, 2, 3) * 0.7) * 2 + 1).astype(np.float32))
    training = tf.placeholder(tf.bool, [])

    def adjustment(shape: tf.Tensor) -> tuple:
        return tf.fill([3], 2.0), tf.cast(shape[1:2], tf.float32) * tf.ones([3])

    ys = [tf.layers.batch_normalization(x, training=True, virtual_batch_size=3, momentum=0.5),
          tf.layers.batch_normalization(x, training=training, virtual_batch_size=2, momentum=0.5, axis=[1, 2]),
          tf.layers.batch_normalization(x, training=training, momentum=0.5, adjustment=adjustment),
          tf.layers.batch_normalization(x, training=training, renorm=True, center=False, scale=False, momentum=0.5)]
    assert [y.name for y in ys] == ["batch_normalization/Reshape_1:0", "batch_normalization_1/Reshape_1:0",
                                    "batch_normalization_2/batchnorm/add_1:0",
                                    "batch_normalization_3/batchnorm/add_1:0"]
    assert [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
        "batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1",
        "batch_normalization_1/cond_2/Merge", "batch_normalization_1/cond_3/Merge",
        "batch_normalization_2/cond_4/Merge", "batch_normalization_2/cond_5/Merge",
        "batch_normalization_3/cond_6/Merge", "batch_normalization_3/cond_7/Merge"]
    shapes = [v.shape.as_list() for v in tf.global_variables()]
    assert shapes[:8] == [[1, 1, 1, 3]] * 4 + [[1, 1, 2, 3]] * 4 and shapes[8:] == [[3]] * 9
    trained = [[-0.72768, -1.34004, -1.31701], [0.67255, 0.32133, -0.36312], [0.56555, -0.66609, -0.65035]]
    expected = [trained + [[-0.00969, -0.88444, -0.87291]],
                [[-0.72768, -1.34004, -1.31701], [-0.72905, -1.9622, -1.94037], [-0.41781, -1.13056, -1.12131],
                 [-0.42395, -1.14754, -1.13812]],
                trained + [[-0.01965, -0.89078, -0.8793]]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for mode, rows in zip([True, False, True], expected):
            np.testing.assert_allclose([v[0, 1] for v in sess.run(ys, {training: mode})], rows, atol=1e-4)
            sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), {training: mode})
        heads = [np.ravel(v)[:3] for v in sess.run(tf.global_variables())]
    np.testing.assert_allclose(heads, [
        [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.87798, 0.88037, 0.88024], [1.86985, 1.88411, 1.88313],
        [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.74537, 0.75198, 0.75765], [0.25042, 0.25042, 0.25043],
        [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.75255, 0.7546, 0.75449], [1.74565, 1.75782, 1.75698],
        [0.75255, 0.7546, 0.75449], [1.7135, 1.72477, 1.72399], [1.30939, 1.31369, 1.31339],
        [0.01997, 0.02002, 0.02002], [1.00821, 1.00832, 1.00832]], atol=1e-4)


# (input shape, constructor arguments, float64 too) -> per dtype: (fused after build, axis, output op)
_FUSED = [
    ([2, 3, 4, 5], {}, [(True, [3], "FusedBatchNormV3"), (False, [3], "batchnorm/add_1")]),
    ([2, 3, 4, 5], {"axis": 1}, [(True, [1], "FusedBatchNormV3"), (False, [1], "batchnorm/add_1")]),
    ([2, 3, 4, 5], {"axis": 2}, [(False, [2], "batchnorm/add_1")] * 2),
    ([2, 3, 4, 5], {"fused": True, "axis": 2}, [(False, [2], "batchnorm/add_1")] * 2),
    ([2, 3, 4, 5, 2], {}, [(True, [4], "FusedBatchNormV3"), (False, [4], "batchnorm/add_1")]),
    ([2, 3, 4, 5, 2], {"axis": 1}, [(True, [1], "FusedBatchNormV3"), (False, [1], "batchnorm/add_1")]),
    ([2, 3, 4, 5, 2], {"axis": 3}, [(False, [3], "batchnorm/add_1")] * 2),
    ([2, 3, 4], {"fused": True}, [(False, [2], "batchnorm/add_1")] * 2),
    ([2, 3, 4, 5], {"renorm": True}, [(False, [3], "batchnorm/add_1")]),
    ([2, 3, 4, 5], {"fused": False}, [(False, [3], "batchnorm/add_1")] * 2),
    ([2, 3, 4, 5], {"axis": [1, 3]}, [(False, [1, 3], "batchnorm/add_1")] * 2),
    ([2, 3, 4, 5], {"axis": [3]}, [(True, [3], "FusedBatchNormV3"), (False, [3], "batchnorm/add_1")]),
    ([2, 3, 4, 5], {"virtual_batch_size": 1}, [(False, [4], "Reshape_1")] * 2),
    ([2, 3, 4, 5], {"adjustment": lambda shape: (tf.ones([5]), tf.zeros([5]))}, [(False, [3], "batchnorm/add_1")]),
]


@pytest.mark.parametrize("shape,kwargs,expected", _FUSED)
def test_fused_choice(shape: list, kwargs: dict, expected: list) -> None:
    for dtype, (fused, axis, output) in zip([tf.float32, tf.float64], expected):
        with tf.Graph().as_default():
            layer = tf.layers.BatchNormalization(**kwargs)
            assert layer.fused is (kwargs.get("fused") is not False)
            y = layer(tf.ones(shape, dtype), training=True)
            assert (layer.fused, layer.axis, y.op.name) == (fused, axis, "batch_normalization/" + output)
            assert y.shape.as_list() == shape


def test_training_variable_half_inputs_and_five_dimensions() -> None:
    x = tf.constant(np.cos(np.arange(96).reshape(2, 3, 2, 2, 4)).astype(np.float32))
    flag = tf.Variable(True, trainable=False)
    by_variable = tf.layers.batch_normalization(x, training=flag, axis=1)
    half = tf.layers.batch_normalization(tf.cast(x, tf.float16), training=True, momentum=0.5)
    assert by_variable.op.type == "Merge" and half.dtype == tf.float16 and half.op.type == "FusedBatchNormV3"
    assert [v.dtype.base_dtype for v in tf.global_variables()[-4:]] == [tf.float32] * 4
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([by_variable, half])
    np.testing.assert_allclose(a.transpose(1, 0, 2, 3, 4).reshape(3, -1).var(1), [1.0, 1.0, 1.0], atol=2e-3)
    np.testing.assert_allclose(b.reshape(-1, 4).mean(0), [0.0] * 4, atol=2e-3)


def test_trainable_false_regularizers_constraints_and_axis_lists() -> None:
    x = tf.constant((np.sin(np.arange(24).reshape(4, 3, 2)) * 2 + 1).astype(np.float32))
    frozen = tf.layers.BatchNormalization(trainable=False, momentum=0.5)
    y = frozen(x, training=True)
    assert frozen.updates == [] and tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    assert frozen.trainable_weights == [] and tf.trainable_variables() == []
    assert frozen.non_trainable_weights == [frozen.gamma, frozen.beta, frozen.moving_mean, frozen.moving_variance]

    def reg(w: tf.Tensor) -> tf.Tensor:
        return tf.reduce_sum(w * w) * 0.5

    y2 = tf.layers.batch_normalization(x, axis=[1, 2], training=True, beta_regularizer=reg, gamma_regularizer=reg,
                                       gamma_constraint=lambda g: tf.clip_by_value(g, 0., 0.5),
                                       beta_constraint=lambda b: b * 2, gamma_initializer=tf.constant_initializer(2.0),
                                       beta_initializer=tf.constant_initializer(0.3))
    assert [t.name for t in tf.losses.get_regularization_losses()] == [
        "batch_normalization_1/gamma/Regularizer/mul_1:0", "batch_normalization_1/beta/Regularizer/mul_1:0"]
    assert [v.shape.as_list() for v in tf.global_variables()[4:]] == [[1, 3, 2]] * 4
    tf.layers.batch_normalization(x, axis=1, training=True, center=False, scale=False)
    tf.layers.batch_normalization(x, axis=-2, center=False)
    assert [v.name for v in tf.global_variables()[8:]] == [
        "batch_normalization_2/moving_mean:0", "batch_normalization_2/moving_variance:0",
        "batch_normalization_3/gamma:0", "batch_normalization_3/moving_mean:0",
        "batch_normalization_3/moving_variance:0"]
    assert [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
        "batch_normalization_1/AssignMovingAvg", "batch_normalization_1/AssignMovingAvg_1",
        "batch_normalization_2/AssignMovingAvg", "batch_normalization_2/AssignMovingAvg_1"]
    loss = tf.reduce_sum(y2 * np.arange(24).reshape(4, 3, 2)) + tf.losses.get_regularization_loss()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        normalized = sess.run(y)
        sess.run([train, tf.get_collection(tf.GraphKeys.UPDATE_OPS)])
        gamma, beta, mean = sess.run(tf.global_variables()[4:7])
        assert [v.tolist() for v in sess.run(frozen.weights)] == [[1, 1], [0, 0], [0, 0], [1, 1]]
    np.testing.assert_allclose(normalized.reshape(-1, 2).mean(0), [0.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(gamma, [[[0.5, 0.5], [0.5, 0.0], [0.0, 0.0]]], rtol=1e-5)
    np.testing.assert_allclose(beta, [[[-6.66, -7.46], [-8.26, -9.06], [-9.86, -10.66]]], rtol=1e-5)
    np.testing.assert_allclose(mean, [[[0.00217, 0.02034], [0.02901, 0.0202], [0.00201, -0.00883]]], atol=1e-5)


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(axis=3), ValueError, "Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                               "inputs.rank=3). Received: axis=(3,)"),
    (dict(axis=[0, 0]), ValueError, "Duplicate axis: (0, 0)"),
    (dict(axis=1.5), TypeError, "Expected an int or a list/tuple of ints for the argument 'axis', but received: 1.5"),
    (dict(renorm=True, renorm_clipping={"rmax": 1, "x": 2}), ValueError,
     "Received invalid keys for `renorm_clipping` argument: {'rmax': 1, 'x': 2}. Supported values: "
     "['rmax', 'rmin', 'dmax']."),
    (dict(virtual_batch_size=0), ValueError, "`virtual_batch_size` must be a positive integer that divides the "
                                             "true batch size of the input tensor. Received: virtual_batch_size=0"),
    (dict(virtual_batch_size=2, axis=0), ValueError, "When using `virtual_batch_size`, the batch dimension must be "
                                                     "0 and thus axis cannot include 0. Received axis=[0]"),
    (dict(virtual_batch_size=2, adjustment=lambda s: (1, 0)), ValueError,
     "When using `virtual_batch_size`, adjustment cannot be specified"),
    (dict(training=2), TypeError, "`pred` must be a Tensor, or a Python bool, or 1 or 0. Received: <class 'int'>"),
])
def test_batch_normalization_errors(kwargs: dict, error: type, message: str) -> None:
    with tf.Graph().as_default():
        with pytest.raises(error) as info:
            tf.layers.batch_normalization(tf.ones([4, 3, 2]), **kwargs)
        assert str(info.value) == message


def test_input_spec_checks_later_calls() -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Input has undefined `axis` dimension. Received input with shape "
                                             r"\(Dimension\(None\), Dimension\(None\)\) and axis=\(1,\)$"):
            tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, None]))
        with pytest.raises(ValueError, match=r"^Input has undefined rank. Received: input_shape=<unknown>$"):
            tf.layers.batch_normalization(tf.placeholder(tf.float32))
        layer = tf.layers.BatchNormalization()
        layer(tf.ones([2, 3]))
        assert repr(layer.input_spec) == "InputSpec(ndim=2, axes={1: 3})"
        with pytest.raises(ValueError) as info:
            layer(tf.ones([2, 3, 3]))
        assert str(info.value) == ('Input 0 of layer "batch_normalization_3" is incompatible with the layer: expected '
                                   "ndim=2, found ndim=3. Full shape received: (Dimension(2), Dimension(3), "
                                   "Dimension(3))")
        with pytest.raises(ValueError) as info:
            layer(tf.ones([2, 4]))
        assert str(info.value) == ('Input 0 of layer "batch_normalization_3" is incompatible with the layer: expected '
                                   "axis 1 of input shape to have value 3, but received input with shape (2, 4)")


def test_moving_statistics_are_on_read_mean_variables_in_the_meta_graph() -> None:
    """TF's layer makes its statistics ON_READ with MEAN aggregation, and their VariableDefs say so
    (synchronization 3, aggregation 2), as in a `.meta` TF writes."""
    with tf.Graph().as_default():
        tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, 3]), training=True, renorm=True)
        summary = [(v.op.name, v.trainable, v.synchronization.name, v.aggregation.name) for v in tf.global_variables()]
        assert summary == [("batch_normalization/gamma", True, "AUTO", "NONE"),
                           ("batch_normalization/beta", True, "AUTO", "NONE")] + [
            (f"batch_normalization/{name}", False, "ON_READ", "MEAN")
            for name in ("moving_mean", "moving_variance", "moving_stddev", "renorm_mean", "renorm_stddev")]
        variable_defs = tf.train.export_meta_graph().collection_def["variables"].bytes_list.value
        assert [(d.synchronization, d.aggregation) for d in map(protos.VariableDef.FromString, variable_defs)] == [
            (0, 0), (0, 0)] + [(3, 2)] * 5


def test_virtual_batches_in_tf2_graph_mode_split_only_for_a_static_true_training():
    # TF2's Keras reshapes to [-1, 1, ...] unless `training` is statically True (a tensor here), so the whole
    # batch is one group and the moving variance moves to the full batch's; TF1 mode splits [2, -1, ...]
    tf.disable_eager_execution()
    xs = np.arange(16, dtype=np.float32).reshape(4, 2, 2) ** 1.5 / 7.0
    training = tf.placeholder_with_default(True, [])
    y = tf.layers.batch_normalization(tf.constant(xs), training=training, virtual_batch_size=2, momentum=0.5)
    for flag in (True, False):
        tf.layers.batch_normalization(tf.constant(xs), training=flag, virtual_batch_size=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y), [
            [[-1.2285, -1.2871], [-1.0685, -1.0671]], [[-0.7759, -0.7533], [-0.3971, -0.3683]],
            [[0.0516, 0.0764], [0.5604, 0.5737]], [[1.1231, 1.1186], [1.7349, 1.7071]]], atol=2e-4)
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS)[:2])
        moving_mean, moving_variance = (sess.run(v).ravel() for v in tf.global_variables()[2:4])
        np.testing.assert_allclose(moving_mean, [1.5511, 1.8245], atol=2e-4)
        np.testing.assert_allclose(moving_variance, [3.6879, 4.2096], atol=2e-4)
        graph = tf.get_default_graph()
        assert sess.run(graph.get_tensor_by_name("batch_normalization_1/Const_1:0")).tolist() == [2, -1]
        assert sess.run(graph.get_tensor_by_name("batch_normalization_2/Const_1:0")).tolist() == [-1, 1]
