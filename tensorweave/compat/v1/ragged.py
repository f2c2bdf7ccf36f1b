"""`tf.ragged`: ragged tensors' functions under their TF1 `tf.ragged` names."""

from tensorweave.ops import ragged_dispatch as _ragged_dispatch
from tensorweave.ops import ragged_tensor as _ragged_tensor
from tensorweave.ops import sparse_cross_ops as _sparse_cross_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "ragged")
