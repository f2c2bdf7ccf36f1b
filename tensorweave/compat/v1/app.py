"""`tf.app`: the flags namespace and run()."""

from tensorweave.compat.v1 import flags
from tensorweave.platform import app as _app
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "app")
