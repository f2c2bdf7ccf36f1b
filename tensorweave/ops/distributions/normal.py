"""`tf.distributions.Normal`: the Gaussian with mean `loc` and standard deviation `scale`, and its KL
divergence to another Normal.

Samples are `loc + scale * random_normal` (fully reparameterized: gradients reach `loc` and `scale`), the
CDFs and `quantile` go through `special_math` so their tails stay accurate.
"""

from __future__ import annotations

import math
from typing import Any

from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.distributions import distribution, kullback_leibler, special_math
from tensorweave.ops.elementwise_ops import log, square, squared_difference
from tensorweave.ops.fill_ops import ones_like
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.random_ops import random_normal
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Normal")
class Normal(distribution.LocationScale):
    """The normal distribution N(loc, scale**2), batched by broadcasting `loc` against `scale`."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Normal") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            self._set_loc_scale(loc, scale, validate_args)
        super().__init__(dtype=self._scale.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._loc, self._scale], name=name)


    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        sample_shape = concat([[n], self.batch_shape_tensor()], 0)
        sampled = random_normal(shape=sample_shape, mean=0., stddev=1., dtype=self.loc.dtype, seed=seed)
        return sampled * self.scale + self.loc

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_cdf(self, x: Tensor) -> Tensor:
        return special_math.log_ndtr(self._z(x))

    def _cdf(self, x: Tensor) -> Tensor:
        return special_math.ndtr(self._z(x))

    def _log_survival_function(self, x: Tensor) -> Tensor:
        return special_math.log_ndtr(-self._z(x))

    def _survival_function(self, x: Tensor) -> Tensor:
        return special_math.ndtr(-self._z(x))

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        return -0.5 * square(self._z(x))

    def _log_normalization(self) -> Tensor:
        return 0.5 * math.log(2. * math.pi) + log(self.scale)

    def _entropy(self) -> Tensor:
        scale = self.scale * ones_like(self.loc)
        return 0.5 * math.log(2. * math.pi * math.e) + log(scale)

    def _mean(self) -> Tensor:
        return self.loc * ones_like(self.scale)

    def _quantile(self, p: Tensor) -> Tensor:
        return self._inv_z(special_math.ndtri(p))

    def _stddev(self) -> Tensor:
        return self.scale * ones_like(self.loc)

    def _mode(self) -> Tensor:
        return self._mean()

    def _z(self, x: Tensor) -> Tensor:
        """(x - loc) / scale: x in standard units."""
        with name_scope("standardize", values=[x]):
            return (x - self.loc) / self.scale

    def _inv_z(self, z: Tensor) -> Tensor:
        with name_scope("reconstruct", values=[z]):
            return z * self.scale + self.loc


@kullback_leibler.RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a: Normal, n_b: Normal, name: str | None = None) -> Tensor:
    """KL(N(a) || N(b)) = (mu_a - mu_b)^2 / (2 s_b^2) + (r - 1 - log r) / 2 with r = s_a^2 / s_b^2."""
    with name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        one = constant(1, dtype=n_a.dtype)
        two = constant(2, dtype=n_a.dtype)
        half = constant(0.5, dtype=n_a.dtype)
        s_a_squared = square(n_a.scale)
        s_b_squared = square(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return squared_difference(n_a.loc, n_b.loc) / (two * s_b_squared) + half * (ratio - one - log(ratio))
