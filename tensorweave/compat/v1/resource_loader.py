"""`tf.resource_loader`."""

from tensorweave.platform import resource_loader as _resource_loader
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "resource_loader")
