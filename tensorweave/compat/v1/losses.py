"""`tf.losses`: TF1's loss functions and the loss collections' helpers."""

from tensorweave.ops import loss_ops as _loss_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "losses")
