"""`tf.queue`: the queue classes (TF1 also has them at the top level and most under `tf.io`)."""

from tensorweave.ops import data_flow_ops as _data_flow_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "queue")
