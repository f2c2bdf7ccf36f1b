"""`tf.math`: elementwise math, reductions and comparisons under their TF1 `tf.math` names."""

from tensorweave.compat.v1 import _math_special as special
from tensorweave.ops import check_ops as _check_ops
from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.ops import manipulation_ops as _manipulation_ops
from tensorweave.ops import math_misc_ops as _math_misc_ops
from tensorweave.ops import metrics_ops as _metrics_ops  # confusion_matrix
from tensorweave.ops import nn_impl_ops as _nn_impl_ops
from tensorweave.ops import nn_ops as _nn_ops
from tensorweave.ops import reduction_ops as _reduction_ops
from tensorweave.ops import segment_ops as _segment_ops
from tensorweave.ops import sobol_ops as _sobol_ops
from tensorweave.ops import special_functions_ops as _special_functions_ops
from tensorweave.ops import special_math_ops as _special_math_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "math")
