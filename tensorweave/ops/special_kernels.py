"""Vectorized erf, erfc, lgamma and ndtri on NumPy arrays, the kernels' replacement for calling Python's math
module once per element.

erf, erfc and ndtri follow TF's own kernels (Eigen's rational approximations, Cephes's for ndtri), computed in
the input's type: float32 erf bit for bit, the rest within a few ulp (np.exp and np.log for Eigen's). lgamma,
which TF takes from the C library, reduces its argument to [1.5, 2.5) by the recurrence and sums the Taylor
series of lgamma about 2 (coefficients (-1)^k (zeta(k) - 1) / k), which keeps relative accuracy at its zeros 1
and 2, Stirling's series above 13 and the reflection formula below 0: within a few ulp of TF's in float64, except
close to its negative zeros (absolute error ~1e-16 there); other types round it once.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

# TF's double erf and erfc (Eigen's): erf(x) = x S(x^2) / T(x^2) for |x| <= 1; erfc(x) = exp(-x^2) P(1/x^2) /
# (x Q(1/x^2)) above, exp(-x^2) corrected for the rounding error of x^2.
_ERF_S = (0.00019493725660006057, 0.0018272566210022943, 0.04530336335169011, 0.1421501550361918, 1.1283791670955126)
_ERF_T = (2.02944841010831e-05, 0.0006811780589918682, 0.010582026056098615, 0.0932526031437575, 0.4593106281836894,
          1.0)
_ERFC_P = (0.00015252844933226974, 0.010909912393738931, 0.10628604636755033, 0.3349247297313798, 0.4506577621593329,
           0.29433039130294825, 0.09879267636060023, 0.01709593539550372, 0.0014249109729504578,
           4.4567378313647955e-05)
_ERFC_Q = (0.00204198510311579, 0.05316030659946044, 0.3426242193784685, 0.856563712430805, 1.0, 0.5968805280570777,
           0.18909228547233178, 0.031525054186560056, 0.0025650857518618826, 7.899362131678838e-05)

# Eigen's float erf (TF's float kernel): x P(x^2) / Q(x^2), x^2 clamped to 16, the quotient to [-1, 1].
_ERF32_P = tuple(np.float32(c) for c in (2.1237322e-06, 0.00028619796, 0.0036580483, 0.05243302, 0.18741608, 1.1283791))
_ERF32_Q = tuple(np.float32(c) for c in (3.8918573e-05, 0.001143296, 0.014752088, 0.112945676, 0.4994258, 1.0))

# Eigen's float erfc (TF's float kernel): 1 + x S(x^2) for |x| <= 1, exp(-x^2) P(1/x^2) / (x Q(1/x^2)) above.
_ERFC32_S = tuple(np.float32(c) for c in (0.0005618023, -0.0049138167, 0.026707515, -0.11280011, 0.37612295, -1.1283791))
_ERFC32_P = tuple(np.float32(c) for c in (0.102081165, 0.42920667, 0.3237908, 0.053971976))
_ERFC32_Q = tuple(np.float32(c) for c in (0.017251678, 0.39137164, 1.0, 0.6217324, 0.09566286))

# Cephes ndtri (Eigen's, TF's kernel): p - 1/2 = c, x = sqrt(2 pi) (c + c^3 R0(c^2)) above exp(-2); below, with
# t = sqrt(-2 log p), x = t - log(t) / t - R(1/t) / t, R = R1 for t < 8 and R2 beyond.
_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1, 1.39312609387279679503e1,
             -1.23916583867381258016e0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1, 1.59056225126211695515e1,
             -1.18331621121330003142e0)
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1, 4.40805073893200834700e1,
             1.46849561928858024014e1, 2.18663306850790267539e0, -1.40256079171354495875e-1, -3.50424626827848203418e-2,
             -8.57456785154685413611e-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1, -3.80806407691578277194e-2,
             -9.33259480895457427372e-4)
_NDTRI_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0, 1.33303460815807542389e0,
             2.01485389549179081538e-1, 1.23716634817820021358e-2, 3.01581553508235416007e-4, 2.65806974686737550832e-6,
             6.23974539184983293730e-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
             2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4, 2.89247864745380683936e-6,
             6.79019408009981274425e-9)

# Stirling's series for lgamma above 13 (Cephes lgam.c), in 1 / x^2.
_STIRLING = (8.11614167470508450300e-4, -5.95061904284301438324e-4, 7.93650340457716943945e-4,
             -2.77777777730099687205e-3, 8.33333333333331927722e-2)
_HALF_LOG_2PI = 0.91893853320467274178
_BLOCK = 1 << 16


def _zeta_minus_one(k: int) -> float:
    """zeta(k) - 1 for k >= 2: the sum to 999 and its Euler-Maclaurin tail (error below 1000^-(k+3))."""
    n = np.arange(2, 1000, dtype=np.float64)
    tail = 1000.0 ** (1 - k) / (k - 1) + 0.5 * 1000.0 ** -k + k * 1000.0 ** (-k - 1) / 12
    return float(np.sum(n[::-1] ** -k) + tail)


# lgamma(2 + d) = (1 - euler_gamma) d + sum_k>=2 (-1)^k (zeta(k) - 1) d^k / k, for |d| <= 1/2 (terms below 4^-k).
_LGAMMA2_SERIES = tuple((-1) ** k * _zeta_minus_one(k) / k for k in range(30, 1, -1)) + (1 - 0.5772156649015328606,)


def _polynomial(x: Any, coefficients: tuple[float, ...]) -> Any:
    """Horner's rule, highest coefficient first (in place: a fresh array per step costs more than the step)."""
    result = x * coefficients[0]
    result += coefficients[1]
    for c in coefficients[2:]:
        result *= x
        result += c
    return result


def _square_low(x: Any, x2: Any) -> Any:
    """x^2 - fl(x^2), exactly (Dekker's product of the halves of x)."""
    c = 134217729.0 * x
    hi = c - (c - x)
    lo = x - hi
    return ((hi * hi - x2) + 2 * hi * lo) + lo * lo


def _erfc_large(x: Any) -> Any:
    """erfc(x) for 1 < |x| <= 28 (nan where x^2 overflows). exp(-x^2) below the normal range is 0, as TF's
    kernels run with denormals flushed."""
    x2 = x * x
    e = np.exp(-x2)
    e[e < np.finfo(np.float64).tiny] = 0.0
    z = e - e * _square_low(x, x2)
    q2 = 1 / x2
    return z * (_polynomial(q2, _ERFC_P) / (x * _polynomial(q2, _ERFC_Q))) + np.where(x < 0, 2.0, 0.0)


def _erf_over_x(x2: Any) -> Any:
    """erf(x) / x for x^2 <= 1."""
    return _polynomial(x2, _ERF_S) / _polynomial(x2, _ERF_T)


def _in_blocks(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`fn` over float64 blocks of 64K elements: its temporaries stay in cache and come back from the
    allocator, where whole-array ones each cost fresh pages (more than the arithmetic on them)."""
    @functools.wraps(fn)
    def blocked(x: Any) -> Any:
        x = np.asarray(x, dtype=np.float64)
        flat = x.reshape(-1)
        out = np.empty_like(flat)
        with np.errstate(all="ignore"):
            for start in range(0, flat.size, _BLOCK):
                out[start:start + _BLOCK] = fn(flat[start:start + _BLOCK])
        return out.reshape(x.shape)
    return blocked


@_in_blocks
def erf64(x: Any) -> Any:
    """TF's double erf: odd (erf(-0) = -0), nan at nan and where x^2 overflows (|x| > 1.3e154, inf included)."""
    x2 = x * x
    out = np.empty_like(x)
    near = ~(x2 > 1)
    xn = x[near]
    out[near] = xn * _erf_over_x(xn * xn)
    far = ~near
    large = 1 - _erfc_large(x[far])
    large[np.isnan(large)] = np.nan  # TF's nan is positive
    out[far] = large
    return out


@_in_blocks
def erfc64(x: Any) -> Any:
    """TF's double erfc: 1 - erf near 0, the tail form elsewhere (x clamped to [-28, 28]), nan at nan."""
    x = np.clip(x, -28.0, 28.0)
    x2 = x * x
    out = np.empty_like(x)
    near = ~(x2 > 1)
    xn = x[near]
    out[near] = 1 - xn * _erf_over_x(xn * xn)
    far = ~near
    out[far] = _erfc_large(x[far])
    return out


def erf32(x: Any) -> Any:
    """TF's float erf to the bit: Eigen's rational approximation, each step rounded to float32 (no fused
    multiply-adds, as TF's x86 build); subnormal inputs are zeros, as TF's kernels run with denormals flushed."""
    x = np.asarray(x, dtype=np.float32)
    x = np.where(np.abs(x) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), x), x)
    x2 = np.minimum(x * x, np.float32(16))
    with np.errstate(invalid="ignore"):
        return np.clip(x * _polynomial(x2, _ERF32_P) / _polynomial(x2, _ERF32_Q), np.float32(-1), np.float32(1))


def erfc32(x: Any) -> Any:
    """TF's float erfc: Eigen's form in float32 steps, x clamped to [-11, 11], exp(-x^2) corrected for the
    rounding error of x^2 and flushed to 0 below the normal range (within a few ulp of TF's: np.exp for Eigen's)."""
    x = np.clip(np.asarray(x, dtype=np.float32), np.float32(-11), np.float32(11))
    x2 = x * x
    out = x * _polynomial(x2, _ERFC32_S) + np.float32(1)
    far = x2 > 1
    xf, x2f = x[far], x2[far]
    x2_low = (xf.astype(np.float64) ** 2 - x2f).astype(np.float32)  # exact: the product is exact in float64
    e = np.exp(-x2f)
    e[e < np.finfo(np.float32).tiny] = 0
    z = e - e * x2_low
    q2 = np.float32(1) / x2f
    two = np.where(xf < 0, np.float32(2), np.float32(0))
    out[far] = z * (_polynomial(q2, _ERFC32_P) / (xf * _polynomial(q2, _ERFC32_Q))) + two
    return out


def ndtri_in_type(p: Any) -> Any:
    """TF's ndtri (the standard normal quantile) computed in p's type, float32 or float64, as its kernels: -inf
    at 0, inf at 1, nan outside [0, 1]; subnormal p are zeros, as TF's kernels run with denormals flushed."""
    p = np.asarray(p)
    t = p.dtype.type
    p = np.where(np.abs(p) < np.finfo(p.dtype).tiny, t(0), p)
    exp_minus_two = t(0.13533528323661269189)
    lower = p <= t(1) - exp_minus_two
    b = np.where(lower, p, t(1) - p)
    out = np.empty_like(p)
    with np.errstate(all="ignore"):
        middle = exp_minus_two < b
        c = b[middle] - t(0.5)
        c2 = c * c
        ratio = _polynomial(c2, tuple(map(t, _NDTRI_P0))) / _polynomial(c2, tuple(map(t, _NDTRI_Q0)))
        out[middle] = (c * (c2 * ratio) + c) * t(2.50662827463100050242)
        tail = ~middle
        x = np.sqrt(t(-2) * np.log(b[tail]))
        z = t(1) / x
        near = x < t(8)
        r = np.where(near, _polynomial(z, tuple(map(t, _NDTRI_P1))) / _polynomial(z, tuple(map(t, _NDTRI_Q1))),
                     _polynomial(z, tuple(map(t, _NDTRI_P2))) / _polynomial(z, tuple(map(t, _NDTRI_Q2))))
        value = (x - np.log(x) / x) - z * r
        out[tail] = np.where(lower[tail], -value, value)
    out[np.isnan(out)] = np.nan  # TF's nan is positive
    return np.where(p == 0, -np.inf, np.where(p == 1, np.inf, out)).astype(p.dtype)


def _lgamma_near_two(d: Any) -> Any:
    """lgamma(2 + d) for |d| <= 1/2."""
    return d * _polynomial(d, _LGAMMA2_SERIES)


def _lgamma_positive(x: Any) -> Any:
    """lgamma(x) for x > 0 (nan at nan, and at inf: the caller's to set)."""
    out = np.empty_like(x)
    low = x < 1.5
    xl = x[low]
    small = xl < 0.5
    d = np.where(small, xl, xl - 1)  # x - 1 is exact on [0.5, 1.5)
    out[low] = _lgamma_near_two(d) - np.log1p(d) - np.where(small, np.log(xl), 0.0)
    middle = (x >= 1.5) & (x < 13)
    u = x[middle]
    steps = np.floor(u - 1.5)  # down to [1.5, 2.5) by the recurrence, multiplying up the factors dropped
    product = np.ones_like(u)
    for j in range(1, int(steps.max(initial=0)) + 1):
        product *= np.where(steps >= j, u - j, 1.0)  # exact: u - j is a multiple of u's ulp
    out[middle] = np.log(product) + _lgamma_near_two(u - steps - 2)
    rest = ~(low | middle)
    xb = x[rest]
    out[rest] = (xb - 0.5) * np.log(xb) - xb + _HALF_LOG_2PI + _polynomial(1 / (xb * xb), _STIRLING) / xb
    return out


@_in_blocks
def lgamma64(x: Any) -> Any:
    """log|Gamma(x)| in float64: inf at the poles 0, -1, -2, ... and at +-inf, nan at nan."""
    negative = x < 0
    pole = (x <= 0) & (x == np.floor(x))
    out = _lgamma_positive(np.where(pole, 1.0, np.where(negative, 1 - x, x)))
    reflected = negative & ~pole
    xr = x[reflected]
    r = xr - np.round(xr)  # sin(pi x) = +-sin(pi r), r exact in [-1/2, 1/2]
    out[reflected] = math.log(math.pi) - np.log(np.abs(np.sin(math.pi * r))) - out[reflected]
    out[pole | np.isinf(x)] = np.inf
    return out


# The C library's float lgammaf (glibc's, which TF's float kernel calls) from 2 up: a rational function of
# the fraction y on [2, 8) plus the log of the recurrence's factors, Stirling's series w0..w6 from 8; log(x)
# correctly rounded, every other step in float.
_LGAMMAF_S = tuple(np.float32(c) for c in (-7.7215664089e-02, 2.1498242021e-01, 3.2577878237e-01, 1.4635047317e-01,
                                           2.6642270386e-02, 1.8402845599e-03, 3.1947532989e-05))
_LGAMMAF_R = tuple(np.float32(c) for c in (1.3920053244e+00, 7.2193557024e-01, 1.7193385959e-01, 1.8645919859e-02,
                                           7.7794247773e-04, 7.3266842264e-06))
_LGAMMAF_W = tuple(np.float32(c) for c in (4.1893854737e-01, 8.3333335817e-02, -2.7777778450e-03, 7.9365057172e-04,
                                           -5.9518753551e-04, 8.3633989561e-04, -1.6309292987e-03))


def _horner32(y: Any, coefficients: tuple) -> Any:
    """c0 + y (c1 + y (c2 + ...)) in float32, innermost first."""
    out = coefficients[-1]
    for coefficient in coefficients[-2::-1]:
        out = coefficient + y * out
    return out


def _log32(x: Any) -> Any:
    return np.log(x.astype(np.float64)).astype(np.float32)


def lgamma32(x: Any) -> Any:
    """log|Gamma(x)| of float32 values as TF's float kernel rounds it: glibc's float formulas from 2 up (where
    one ulp of lgamma moves exp(lgamma) most), float64 rounded below."""
    x = np.asarray(x, np.float32)
    out = lgamma64(x.astype(np.float64)).astype(np.float32)
    one = np.float32(1)
    with np.errstate(over="ignore"):
        middle = (x >= 2) & (x < 8)
        v = x[middle]
        whole = np.floor(v)
        y = v - whole
        ratio = y * _horner32(y, _LGAMMAF_S)
        r = np.float32(0.5) * y + ratio / (one + y * _horner32(y, _LGAMMAF_R))
        factors = np.ones_like(v)
        for k in range(7, 2, -1):
            factors = np.where(whole >= k, factors * (y + np.float32(k - 1)), factors)
        out[middle] = np.where(whole >= 3, r + _log32(factors), r)
        large = (x >= 8) & np.isfinite(x)
        v = x[large]
        log_v = _log32(v)
        z = one / v
        w = _LGAMMAF_W[0] + z * _horner32(z * z, _LGAMMAF_W[1:])
        out[large] = np.where(v < 2.0 ** 26, (v - np.float32(0.5)) * (log_v - one) + w, v * (log_v - one))
    return out
