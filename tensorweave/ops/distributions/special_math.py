"""The normal and Laplace distribution functions the distributions use, composed as TF composes them:
`ndtr` through erf/erfc (erf near zero, erfc in the tails, so neither cancels), `log_ndtr` piecewise (the
log of ndtr in the middle, -ndtr(-x) above the upper cut, the asymptotic series below the lower cut; cuts
at [-10, 5] for float32 and [-20, 8] for float64), and `log_cdf_laplace`; `ndtri` is the Ndtri op saturated as TF's composite saturates it (-inf at p <= 0, inf at
p >= 1, where the op gives NaN outside [0, 1]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.elementwise_ops import abs as tf_abs
from tensorweave.ops.elementwise_ops import (
    erf,
    exp,
    greater,
    less,
    log,
    log1p,
    maximum,
    minimum,
    square,
    where_v2,
)
from tensorweave.ops.fill_ops import fill, zeros_like
from tensorweave.ops.shape_ops import shape
from tensorweave.ops.special_math_ops import erfc
from tensorweave.ops.special_math_ops import ndtri as ndtri_op

_LOG_NDTR_CUTS = {np.float32: (np.float32(-10), np.float32(5)), np.float64: (np.float64(-20), np.float64(8))}


def _check_float(x: Tensor, what: str) -> None:
    if x.dtype.as_numpy_dtype not in (np.float32, np.float64):
        raise TypeError(f"{what}.dtype={x.dtype!r} is not handled, see docstring for supported types.")


def ndtr(x: Any, name: str = "ndtr") -> Tensor:
    """The standard normal CDF."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        _check_float(x, "x")
        return _ndtr(x)


def _ndtr(x: Tensor) -> Tensor:
    half_sqrt_2 = constant(0.5 * np.sqrt(2.), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = tf_abs(w)
    y = where_v2(less(z, half_sqrt_2), 1. + erf(w), where_v2(greater(w, 0.), 2. - erfc(z), erfc(z)))
    return 0.5 * y


def ndtri(p: Any, name: str = "ndtri") -> Tensor:
    """The inverse of the standard normal CDF."""
    with name_scope(name, values=[p]):
        p = convert_to_tensor(p, name="p")
        _check_float(p, "p")
        infinity = fill(shape(p), constant(np.inf, dtype=p.dtype))
        return where_v2(p <= 0.0, -infinity, where_v2(p >= 1.0, infinity, ndtri_op(p)))


def log_ndtr(x: Any, series_order: int = 3, name: str = "log_ndtr") -> Tensor:
    """log of the standard normal CDF, accurate far into both tails."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        cuts = _LOG_NDTR_CUTS.get(x.dtype.as_numpy_dtype)
        if cuts is None:
            raise TypeError(f"x.dtype={x.dtype!r} is not supported.")
        lower, upper = cuts
        return where_v2(greater(x, upper), -_ndtr(-x),
                        where_v2(greater(x, lower), log(_ndtr(maximum(x, lower))),
                                 _log_ndtr_lower(minimum(x, lower), series_order)))


def _log_ndtr_lower(x: Tensor, series_order: int) -> Tensor:
    """log ndtr(x) for x far below zero: the Gaussian tail times the asymptotic series."""
    log_scale = -0.5 * square(x) - log(-x) - 0.5 * np.log(2. * np.pi)
    return log_scale + log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x: Tensor, series_order: int) -> Any:
    """1 + sum_{n>=1} (-1)^n (2n-1)!! / x^(2n), summed as TF sums it (even and odd terms apart)."""
    dtype = x.dtype.as_numpy_dtype
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = square(x)
    even_sum = zeros_like(x)
    odd_sum = zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        term = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        if n % 2:
            odd_sum += term
        else:
            even_sum += term
        x_2n *= x_2
    return 1. + even_sum - odd_sum


def log_cdf_laplace(x: Any, name: str = "log_cdf_laplace") -> Tensor:
    """log of the standard Laplace CDF, without overflow for large |x|."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.) + x
        upper_solution = log1p(-0.5 * exp(-tf_abs(x)))
        return where_v2(x < 0., lower_solution, upper_solution)
