"""`tf.train.experimental`: loss scaling for mixed-precision training."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train import loss_scale as _loss_scale

_populate(globals(), "train.experimental")
