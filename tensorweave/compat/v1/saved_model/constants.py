"""`tf.saved_model.constants`: the SavedModel directory layout and collection keys."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import constants as _constants

_populate(globals(), "saved_model.constants")
