"""`tf.saved_model.loader`: load and maybe_saved_model_directory."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train.saved_model import loader as _loader

_populate(globals(), "saved_model.loader")
