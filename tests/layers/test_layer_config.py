"""tf.layers objects' get_config/from_config: TF 2.21's keys and values (recorded with its legacy Keras
layers), and a round trip through from_config."""

import tensorweave.compat.v1 as tf

ZEROS = {"class_name": "Zeros", "config": {"dtype": "float32"}}
ONES = {"class_name": "Ones", "config": {"dtype": "float32"}}


def test_dense_and_conv_configs_as_tf():
    with tf.Graph().as_default():
        dense = tf.layers.Dense(4, activation=tf.nn.relu, use_bias=False, name="d2")
        assert dense.get_config() == {
            "name": "d2", "trainable": True, "dtype": None, "units": 4, "activation": "relu", "use_bias": False,
            "kernel_initializer": None, "bias_initializer": ZEROS, "kernel_regularizer": None,
            "bias_regularizer": None, "activity_regularizer": None, "kernel_constraint": None,
            "bias_constraint": None}
        conv = tf.layers.Conv2D(4, (2, 3), strides=2, padding="same", data_format="channels_first")
        config = conv.get_config()
        assert config["name"] == "conv2d_1" and config["activation"] == "linear" and config["groups"] == 1
        assert (config["kernel_size"], config["strides"], config["dilation_rate"]) == ((2, 3), (2, 2), (1, 1))
        assert (config["padding"], config["data_format"]) == ("same", "channels_first")
        transpose = tf.layers.Conv2DTranspose(3, 2).get_config()
        assert transpose["output_padding"] is None and transpose["dilation_rate"] == (1, 1)
        separable = tf.layers.SeparableConv2D(4, 3).get_config()
        assert separable["kernel_initializer"] == {"class_name": "GlorotUniform",
                                                   "config": {"seed": None, "dtype": "float32"}}
        assert separable["depthwise_initializer"] is None and separable["depth_multiplier"] == 1
        for layer in (dense, conv, tf.layers.Conv2DTranspose(3, 2, activation=tf.nn.relu6)):
            copy = type(layer).from_config(layer.get_config())
            assert copy.get_config() == layer.get_config()
        assert tf.layers.Dense.from_config(dense.get_config()).activation is tf.nn.relu


def test_normalization_dropout_flatten_pooling_configs_as_tf():
    with tf.Graph().as_default():
        assert tf.layers.BatchNormalization().get_config() == {
            "name": "batch_normalization_1", "trainable": True, "dtype": None, "axis": -1, "momentum": 0.99,
            "epsilon": 0.001, "center": True, "scale": True, "beta_initializer": ZEROS, "gamma_initializer": ONES,
            "moving_mean_initializer": ZEROS, "moving_variance_initializer": ONES, "beta_regularizer": None,
            "gamma_regularizer": None, "beta_constraint": None, "gamma_constraint": None}
        renorm = tf.layers.BatchNormalization(axis=1, momentum=0.9, renorm=True).get_config()
        assert (renorm["renorm"], renorm["renorm_clipping"], renorm["renorm_momentum"]) == (True, {}, 0.99)
        assert tf.layers.Dropout(0.3).get_config() == {"name": "dropout_1", "trainable": True, "dtype": None,
                                                       "rate": 0.3, "noise_shape": None, "seed": None}
        assert tf.layers.Flatten().get_config()["data_format"] == "channels_last"
        pool = tf.layers.AveragePooling2D(3, 1, padding="same")
        assert pool.get_config() == {"name": "average_pooling2d_1", "trainable": True, "dtype": None,
                                     "pool_size": (3, 3), "padding": "same", "strides": (1, 1),
                                     "data_format": "channels_last"}
        assert tf.layers.AveragePooling2D.from_config(pool.get_config()).get_config() == pool.get_config()


def test_configs_in_tf2_graph_mode_use_keras_newer_initializer_format():
    """A program calling only disable_eager_execution() gets Keras's newer format (recorded from TF 2.21)."""
    tf.disable_eager_execution()
    with tf.Graph().as_default():
        config = tf.layers.SeparableConv2D(4, 3).get_config()
    assert config["bias_initializer"] == {"class_name": "Zeros", "config": {"dtype": "float32"},
                                          "module": "keras.initializers", "registered_name": None}
    assert config["kernel_initializer"] == {"class_name": "GlorotUniform", "config": {"seed": None},
                                            "module": "keras.initializers", "registered_name": None}
    assert list(config["bias_initializer"]) == ["module", "class_name", "config", "registered_name"]  # TF's order
    assert tf.layers.SeparableConv2D.from_config(config).get_config() == config
