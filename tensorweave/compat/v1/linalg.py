"""`tf.linalg`: the linear-algebra ops under their TF1 `tf.linalg` names."""

from tensorweave.ops import linalg_decompositions as _linalg_decompositions
from tensorweave.ops import linalg_impl_ops as _linalg_impl_ops
from tensorweave.ops import linalg_ops as _linalg_ops
from tensorweave.ops import linear_operator as _linear_operator
from tensorweave.ops import linear_operator_structured as _linear_operator_structured
from tensorweave.ops import manipulation_ops as _manipulation_ops
from tensorweave.ops import nn_ops as _nn_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "linalg")
