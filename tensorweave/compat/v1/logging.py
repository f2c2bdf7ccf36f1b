"""`tf.logging`: TF's "tensorflow" logger and its level constants."""

from tensorweave.platform import tf_logging as _tf_logging
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "logging")
