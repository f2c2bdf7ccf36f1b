"""`tf.distribute`: what TF1 programs use of it, the cluster resolvers."""

from tensorweave.compat.v1 import _distribute_cluster_resolver as cluster_resolver
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "distribute")
