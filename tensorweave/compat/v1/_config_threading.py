"""`tf.config.threading`."""

from tensorweave.client import config as _config
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "config.threading")
