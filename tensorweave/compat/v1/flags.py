"""`tf.flags` (also `tf.app.flags`): absl's flags with TF's DEFINE_* wrappers and FLAGS."""

from tensorweave.platform import flags as _flags
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "flags")
