"""`tf.saved_model.signature_constants`: TF Serving's signature keys and method names."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import constants as _constants

_populate(globals(), "saved_model.signature_constants")
