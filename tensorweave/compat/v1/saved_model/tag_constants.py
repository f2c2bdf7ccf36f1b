"""`tf.saved_model.tag_constants`: the standard meta graph tags."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import constants as _constants

_populate(globals(), "saved_model.tag_constants")
