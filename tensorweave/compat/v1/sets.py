"""`tf.sets`: set size, intersection, union and difference along the last dimension of dense or sparse tensors."""

from tensorweave.ops import set_ops as _set_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "sets")
