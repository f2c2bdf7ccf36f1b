"""`tf.mixed_precision`: loss scales, the loss-scaling optimizer and the mixed-precision graph rewrite switch."""

from tensorweave.compat.v1 import _mixed_precision_experimental as experimental
from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train import loss_scale as _loss_scale

_populate(globals(), "mixed_precision")
