"""`tf.bitwise`: the integer bitwise ops, called as TF's generated wrappers (x, y, name=None)."""

from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "bitwise")
