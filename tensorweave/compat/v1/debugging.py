"""`tf.debugging`: numeric checks under their TF1 `tf.debugging` names."""

from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "debugging")
