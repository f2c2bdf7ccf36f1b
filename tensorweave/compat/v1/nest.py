"""`tf.nest`: flattening and rebuilding nested structures."""

from tensorweave.framework import nest as _nest
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "nest")
