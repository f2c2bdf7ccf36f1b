"""`tf.nn`: neural-network ops."""

from tensorweave.compat.v1 import _nn_experimental as experimental
from tensorweave.compat.v1 import _nn_rnn_cell as rnn_cell
from tensorweave.ops import candidate_sampling_ops as _candidate_sampling_ops
from tensorweave.ops import ctc_ops as _ctc_ops
from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.ops import embedding_ops as _embedding_ops
from tensorweave.ops import math_misc_ops as _math_misc_ops
from tensorweave.ops import nn_conv3d_ops as _nn_conv3d_ops
from tensorweave.ops import nn_conv_ops as _nn_conv_ops
from tensorweave.ops import nn_fractional_pool_ops as _nn_fractional_pool_ops
from tensorweave.ops import nn_impl_ops as _nn_impl_ops
from tensorweave.ops import nn_morphology_ops as _nn_morphology_ops
from tensorweave.ops import nn_norm_ops as _nn_norm_ops
from tensorweave.ops import nn_ops as _nn_ops
from tensorweave.ops import quantized_ops as _quantized_ops
from tensorweave.ops import rnn as _rnn
from tensorweave.ops import space_batch_ops as _space_batch_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "nn")
