"""`tf.io.gfile`: the file API under its TF2-style names, as `tf.compat.v1.io.gfile` has them."""

from tensorweave.platform import gfile as _gfile
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "io.gfile")
