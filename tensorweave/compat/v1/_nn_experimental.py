"""`tf.nn.experimental`: dropout with a stateless or a caller-given noise sampler."""

from tensorweave.ops import nn_ops as _nn_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "nn.experimental")
