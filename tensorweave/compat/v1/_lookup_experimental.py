"""`tf.lookup.experimental`: the mutable hash tables."""

from tensorweave.ops import lookup_ops as _lookup_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "lookup.experimental")
