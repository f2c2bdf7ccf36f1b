"""`tf.math.special`: Bessel functions, Dawson's integral, the exponential and Fresnel integrals, Spence's
function."""

from tensorweave.ops import special_functions_ops as _special_functions_ops
from tensorweave.ops import special_math_ops as _special_math_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "math.special")
