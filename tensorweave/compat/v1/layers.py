"""`tf.layers`: TF1's layers and their functional forms."""

from tensorweave.layers import core as _core
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "layers")
