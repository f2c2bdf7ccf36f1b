"""`tf.ragged`: ragged tensors' functions under their TF1 `tf.ragged` names."""

from tensorweave.ops import ragged_tensor as _ragged_tensor
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "ragged")
