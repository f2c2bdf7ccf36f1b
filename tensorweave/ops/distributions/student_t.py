"""`tf.distributions.StudentT`: Student's t with `df` degrees of freedom, location `loc` and scale `scale`.

Samples are normal / sqrt(chi2(df) / df) with the chi-squared draw a Gamma(df/2, 1/2) seeded
`gen_new_seed(seed, "student_t")`, as TF's; the mean is NaN where df <= 1 and the variance inf where
1 < df <= 2 (NaN where df <= 1), or assertions with `allow_nan_stats=False`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.ops.check_ops import assert_less, assert_positive, assert_same_float_dtype
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.control_flow_ops import with_dependencies
from tensorweave.ops.distributions import distribution
from tensorweave.ops.distributions.util import gen_new_seed
from tensorweave.ops.elementwise_ops import abs as tf_abs
from tensorweave.ops.elementwise_ops import greater, less, log, log1p, rsqrt, square, where_v2
from tensorweave.ops.fill_ops import fill, ones, ones_like
from tensorweave.ops.manipulation_ops import concat, identity
from tensorweave.ops.random_distribution_ops import random_gamma
from tensorweave.ops.random_ops import random_normal
from tensorweave.ops.shape_ops import broadcast_dynamic_shape, broadcast_static_shape, shape
from tensorweave.ops.special_math_ops import betainc, digamma, lbeta, lgamma
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.StudentT")
class StudentT(distribution.Distribution):
    """Student's t: (1 + y^2/df)^(-(df+1)/2) / (|scale| sqrt(df) B(df/2, 1/2)), y = (x - loc) / scale."""

    def __init__(self, df: Any, loc: Any, scale: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "StudentT") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[df, loc, scale]) as name:
            with control_dependencies([assert_positive(df)] if validate_args else []):
                self._df = identity(df, name="df")
                self._loc = identity(loc, name="loc")
                self._scale = identity(scale, name="scale")
                assert_same_float_dtype((self._df, self._loc, self._scale))
        super().__init__(dtype=self._scale.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._df, self._loc, self._scale], name=name)

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"df": sample_shape, "loc": sample_shape, "scale": sample_shape}

    @property
    def df(self) -> Tensor:
        return self._df

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_dynamic_shape(shape(self.df), broadcast_dynamic_shape(shape(self.loc), shape(self.scale)))

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return broadcast_static_shape(broadcast_static_shape(self.df.get_shape(), self.loc.get_shape()),
                                      self.scale.get_shape())

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        normal_sample = random_normal(concat([[n], self.batch_shape_tensor()], 0), dtype=self.dtype, seed=seed)
        df = self.df * ones(self.batch_shape_tensor(), dtype=self.dtype)
        gamma_sample = random_gamma([n], 0.5 * df, beta=0.5, dtype=self.dtype,
                                    seed=gen_new_seed(seed, salt="student_t"))
        samples = normal_sample * rsqrt(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.) * log1p(y ** 2. / self.df)

    def _log_normalization(self) -> Tensor:
        return (log(tf_abs(self.scale)) + 0.5 * log(self.df) + 0.5 * np.log(np.pi)
                + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.)))

    def _cdf(self, x: Tensor) -> Tensor:
        y = (x - self.loc) / tf_abs(self.scale)
        x_t = self.df / (y ** 2. + self.df)
        neg_cdf = 0.5 * betainc(0.5 * self.df, 0.5, x_t)
        return where_v2(less(y, 0.), neg_cdf, 1. - neg_cdf)

    def _entropy(self) -> Tensor:
        v = ones(self.batch_shape_tensor(), dtype=self.dtype)[..., None]
        u = v * self.df[..., None]
        beta_arg = concat([u, v], -1) / 2.
        return (log(tf_abs(self.scale)) + 0.5 * log(self.df) + lbeta(beta_arg)
                + 0.5 * (self.df + 1.) * (digamma(0.5 * (self.df + 1.)) - digamma(0.5 * self.df)))

    def _nan_where_df_at_most_one(self, value: Tensor, message: str) -> Tensor:
        """`value` where df > 1; elsewhere NaN, or a failed assertion when NaN statistics are not allowed."""
        if self.allow_nan_stats:
            nan = np.array(np.nan, dtype=self.dtype.as_numpy_dtype)
            return where_v2(greater(self.df, ones(self.batch_shape_tensor(), dtype=self.dtype)), value,
                            fill(self.batch_shape_tensor(), nan, name="nan"))
        return with_dependencies([assert_less(ones([], dtype=self.dtype), self.df, message=message)], value)

    def _mean(self) -> Tensor:
        mean = self.loc * ones(self.batch_shape_tensor(), dtype=self.dtype)
        return self._nan_where_df_at_most_one(mean, "mean not defined for components of df <= 1")

    def _variance(self) -> Tensor:
        denom = where_v2(greater(self.df, 2.), self.df - 2., ones_like(self.df))
        var = ones(self.batch_shape_tensor(), dtype=self.dtype) * square(self.scale) * self.df / denom
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype)
        result_where_defined = where_v2(self.df > fill(self.batch_shape_tensor(), 2.), var,
                                        fill(self.batch_shape_tensor(), inf, name="inf"))
        return self._nan_where_df_at_most_one(result_where_defined,
                                              "variance not defined for components of df <= 1")

    def _mode(self) -> Tensor:
        return identity(self.loc)
