"""tf.config / tf.debugging placement settings in TF1 graph mode; values recorded from TF 2.21 on a CPU-only
machine. The settings are process-wide, so each test starts from fresh ones."""

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.client import config
from tensorweave.formats import protos


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch):
    for name, value in (("_settings", {}), ("_optimizer_options", {}), ("_visible", {}), ("_memory_growth", {}),
                        ("_jit", ""), ("_initialized", False)):
        monkeypatch.setattr(config, name, value)


def test_device_listings_like_tf():
    cpu = tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    assert tf.config.list_physical_devices("CPU")[0] == cpu
    assert repr(cpu) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert tf.config.list_physical_devices("cpu") == []  # the type is matched exactly
    assert cpu in tf.config.get_visible_devices()
    assert tf.config.list_logical_devices("CPU") == [tf.config.LogicalDevice("/device:CPU:0", "CPU")]
    tf.config.set_visible_devices(tf.config.get_visible_devices("GPU"), "GPU")  # no change: allowed
    with pytest.raises(RuntimeError, match="^Visible devices cannot be modified after being initialized$"):
        tf.config.set_visible_devices([], "CPU")
    with pytest.raises(ValueError, match="^Cannot set memory growth on non-GPU and non-Pluggable devices$"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(KeyError):
        tf.config.experimental.get_memory_growth(cpu)


def test_defaults_like_tf():
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    assert tf.config.optimizer.get_jit() == ""
    assert tf.config.optimizer.get_experimental_options() == {"disable_model_pruning": False,
                                                               "disable_meta_optimizer": False}
    assert tf.config.get_soft_device_placement() is False
    assert tf.debugging.get_log_device_placement() is False
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess._config is None


def test_settings_become_the_default_session_config(capsys):
    tf.config.threading.set_inter_op_parallelism_threads(3)
    tf.config.threading.set_intra_op_parallelism_threads(2)
    tf.config.optimizer.set_jit(True)
    assert tf.config.optimizer.get_jit() == "autoclustering"
    tf.config.optimizer.set_experimental_options({"constant_folding": False, "disable_model_pruning": True})
    assert tf.config.optimizer.get_experimental_options() == {"constant_folding": False, "disable_model_pruning": True,
                                                              "disable_meta_optimizer": False}
    tf.debugging.set_log_device_placement(True)
    assert tf.debugging.get_log_device_placement() is True
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.constant(1.0, name="c"))
        cfg = sess._config
    assert (cfg.inter_op_parallelism_threads, cfg.intra_op_parallelism_threads, cfg.log_device_placement) == (3, 2, True)
    assert cfg.graph_options.optimizer_options.global_jit_level == tf.OptimizerOptions.ON_1
    rewrite = cfg.graph_options.rewrite_options
    assert (rewrite.constant_folding, rewrite.disable_model_pruning) == (protos.RewriterConfig.OFF, True)
    assert "c: (Const): /job:localhost/replica:0/task:0/device:CPU:0" in capsys.readouterr().out
    with tf.Graph().as_default(), tf.Session(config=tf.ConfigProto()) as sess:  # an explicit config wins
        assert not sess._config.log_device_placement
    tf.config.optimizer.set_jit(False)
    assert tf.config.optimizer.get_jit() == ""
