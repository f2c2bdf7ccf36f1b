"""`tf.layers`: TF1's layers and their functional forms."""

from tensorweave.layers import convolutional as _convolutional
from tensorweave.layers import core as _core
from tensorweave.layers import normalization as _normalization
from tensorweave.layers import pooling as _pooling
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "layers")
