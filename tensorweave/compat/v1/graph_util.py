"""`tf.graph_util`: import_graph_def and the GraphDef rewrites for deployment."""

from tensorweave.framework import graph_util as _graph_util
from tensorweave.framework import importer as _importer
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "graph_util")
