"""`tf.metrics`: TF1's streaming metrics (value, update_op) over local variables."""

from tensorweave.ops import metrics_ops as _metrics_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "metrics")
