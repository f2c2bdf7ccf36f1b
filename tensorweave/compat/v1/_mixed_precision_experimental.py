"""`tf.mixed_precision.experimental`: the loss scales under their older namespace."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train import loss_scale as _loss_scale

_populate(globals(), "mixed_precision.experimental")
