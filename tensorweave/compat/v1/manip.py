"""`tf.manip`: TF1's older home of a few array ops (roll, scatter_nd, space_to_batch_nd, batch_to_space_nd)."""

from tensorweave.ops import manipulation_ops as _manipulation_ops
from tensorweave.ops import scatter_ops as _scatter_ops
from tensorweave.ops import space_batch_ops as _space_batch_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "manip")
