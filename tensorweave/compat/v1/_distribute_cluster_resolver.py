"""`tf.distribute.cluster_resolver`: the cluster, task and master of a process, from TF_CONFIG or code."""

from tensorweave.distributed import cluster_resolver as _cluster_resolver
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "distribute.cluster_resolver")
