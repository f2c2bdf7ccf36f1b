"""`tf.saved_model.main_op`: the init op a loader runs after the restore."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import main_op as _main_op

_populate(globals(), "saved_model.main_op")
