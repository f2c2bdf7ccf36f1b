"""`tf.saved_model.utils`: TensorInfo protos from tensors and back."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import utils as _utils

_populate(globals(), "saved_model.utils")
