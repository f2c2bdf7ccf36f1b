"""`tf.initializers`: TF1's initializer classes and the variable-initializer ops under their short names."""

from tensorweave.ops import init_ops as _init_ops
from tensorweave.ops import lookup_ops as _lookup_ops
from tensorweave.ops import variables as _variables
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "initializers")
