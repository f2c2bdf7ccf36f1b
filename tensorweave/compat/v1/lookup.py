"""`tf.lookup`: static hash and vocabulary tables and their initializers, with `tf.lookup.experimental`."""

from tensorweave.compat.v1 import _lookup_experimental as experimental
from tensorweave.ops import lookup_ops as _lookup_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "lookup")
