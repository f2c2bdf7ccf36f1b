"""`tf.nn.rnn_cell`: TF1's recurrent cells and cell wrappers."""

from tensorweave.ops import rnn_cell_impl as _rnn_cell_impl
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "nn.rnn_cell")
