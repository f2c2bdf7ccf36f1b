"""`tf.sparse`: sparse tensors and their ops under their TF1 `tf.sparse` names."""

from tensorweave.framework import sparse_tensor as _sparse_tensor
from tensorweave.ops import count_ops as _count_ops
from tensorweave.ops import segment_ops as _segment_ops
from tensorweave.ops import sparse_cross_ops as _sparse_cross_ops
from tensorweave.ops import sparse_misc_ops as _sparse_misc_ops
from tensorweave.ops import sparse_ops as _sparse_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "sparse")
