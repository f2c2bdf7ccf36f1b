"""`tf.version`: the release and GraphDef versions tensorweave reports."""

from tensorweave.framework import versions as _versions
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "version")
