"""`tf.sysconfig`."""

from tensorweave.platform import sysconfig as _sysconfig
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "sysconfig")
