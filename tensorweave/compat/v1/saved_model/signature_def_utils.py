"""`tf.saved_model.signature_def_utils`: building and checking SignatureDefs."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import signature_def_utils as _signature_def_utils

_populate(globals(), "saved_model.signature_def_utils")
