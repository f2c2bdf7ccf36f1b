"""`tf.saved_model.builder`: SavedModelBuilder."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import builder as _builder

_populate(globals(), "saved_model.builder")
