"""`tf.gfile`: TF1's file API under its CamelCase names."""

from tensorweave.platform import gfile as _gfile
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "gfile")
