"""`tf.distributions.Laplace`: the double exponential with location `loc` and scale `scale`.

Samples invert the CDF on a uniform draw from (-1, 1) (fully reparameterized); the log CDFs use
`special_math.log_cdf_laplace` so they stay finite in the tails.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.ops.distributions import distribution, special_math
from tensorweave.ops.elementwise_ops import abs as tf_abs
from tensorweave.ops.elementwise_ops import exp, log, log1p, sign
from tensorweave.ops.fill_ops import zeros_like
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.random_ops import random_uniform
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Laplace")
class Laplace(distribution.LocationScale):
    """The Laplace distribution, density exp(-|x - loc| / scale) / (2 scale)."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Laplace") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            self._set_loc_scale(loc, scale, validate_args)
            super().__init__(dtype=self._loc.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                             validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                             graph_parents=[self._loc, self._scale], name=name)


    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        np_dtype = self.dtype.as_numpy_dtype
        uniform = random_uniform(shape=concat([[n], self.batch_shape_tensor()], 0),
                                 minval=np.nextafter(np_dtype(-1.), np_dtype(0.)), maxval=1., dtype=self.dtype,
                                 seed=seed)
        return self.loc - self.scale * sign(uniform) * log1p(-tf_abs(uniform))

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Tensor) -> Tensor:
        return exp(self._log_prob(x))

    def _log_cdf(self, x: Tensor) -> Tensor:
        return special_math.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x: Tensor) -> Tensor:
        return special_math.log_cdf_laplace(-self._z(x))

    def _cdf(self, x: Tensor) -> Tensor:
        z = self._z(x)
        return 0.5 + 0.5 * sign(z) * (1. - exp(-tf_abs(z)))

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        return -tf_abs(self._z(x))

    def _log_normalization(self) -> Tensor:
        return math.log(2.) + log(self.scale)

    def _entropy(self) -> Tensor:
        return math.log(2.) + 1. + log(self.scale + zeros_like(self.loc))

    def _mean(self) -> Tensor:
        return self.loc + zeros_like(self.scale)

    def _stddev(self) -> Tensor:
        return math.sqrt(2.) * self.scale + zeros_like(self.loc)

    def _mode(self) -> Tensor:
        return self._mean()

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale
