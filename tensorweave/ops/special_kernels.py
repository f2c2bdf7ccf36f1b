"""Vectorized erf, erfc and lgamma on NumPy arrays, the kernels' replacement for calling Python's math module
once per element.

float64 follows the published Cephes rational approximations (ndtr.c's erf and erfc tables) with exp(-x^2)
taken in two exact parts, so erfc keeps its relative accuracy far into the tail; lgamma reduces its argument to
[1.5, 2.5) by the recurrence and sums the Taylor series of lgamma about 2 (coefficients (-1)^k (zeta(k) - 1) / k),
which keeps relative accuracy at its zeros 1 and 2, Stirling's series above 13 and the reflection formula below
0. float32 erf is Eigen's float approximation, which TF's kernel uses, bit for bit. Against TF's float64 kernels: erf within 4 ulp, erfc within 12 ulp (its 1 - erf near |x| = 1) and the
exp(-x^2) tail's last bits below 1e-290, lgamma within a few ulp except close to its negative zeros (absolute
error ~1e-16 there). The kernels round these to float32 and smaller types once.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

# Cephes ndtr.c: erf(x) = x T(x^2) / U(x^2) for |x| <= 1; erfc(x) = exp(-x^2) P(x) / Q(x) for 1 <= x < 8 and
# exp(-x^2) R(x) / S(x) above (Q and S monic).
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3, 7.00332514112805075473e3,
          5.55923013010394962768e4)
_ERF_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0, 4.86371970985681366614e1,
           1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2, 1.02755188689515710272e3,
           5.57535335369399327526e2)
_ERFC_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3,
           5.57535340817727675546e2)
_ERFC_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0, 6.16021097993053585195e0,
           7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
           1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0)

# Eigen's float erf (TF's float kernel): x P(x^2) / Q(x^2), x^2 clamped to 16, the quotient to [-1, 1].
_ERF32_P = tuple(np.float32(c) for c in (2.1237322e-06, 0.00028619796, 0.0036580483, 0.05243302, 0.18741608, 1.1283791))
_ERF32_Q = tuple(np.float32(c) for c in (3.8918573e-05, 0.001143296, 0.014752088, 0.112945676, 0.4994258, 1.0))

# Stirling's series for lgamma above 13 (Cephes lgam.c), in 1 / x^2.
_STIRLING = (8.11614167470508450300e-4, -5.95061904284301438324e-4, 7.93650340457716943945e-4,
             -2.77777777730099687205e-3, 8.33333333333331927722e-2)
_HALF_LOG_2PI = 0.91893853320467274178
_BLOCK = 1 << 14


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


def _exp_minus_square(a: Any) -> Any:
    """exp(-a^2) for a >= 0 without the error of rounding a^2: a = h + l with h a multiple of 1/16, so h^2 is
    exact and the small rest 2hl + l^2 goes to a second exp."""
    h = np.floor(a * 16.0) / 16.0
    lo = a - h
    return np.exp(-h * h) * np.exp(-(2 * h + lo) * lo)


def _erfc_large(a: Any) -> Any:
    """erfc(a) for a >= 1 (0 beyond the float64 range), nan at nan."""
    out = np.where(np.isnan(a), np.nan, 0.0)
    near = a < 8
    an = a[near]
    out[near] = _exp_minus_square(an) * _polynomial(an, _ERFC_P) / _polynomial(an, _ERFC_Q)
    far = (a >= 8) & (a < 27.3)
    af = a[far]
    out[far] = _exp_minus_square(af) * _polynomial(af, _ERFC_R) / _polynomial(af, _ERFC_S)
    return out


def _erf_near_zero(x: Any) -> Any:
    """erf(x) for |x| <= 1."""
    z = x * x
    return x * _polynomial(z, _ERF_T) / _polynomial(z, _ERF_U)


def _in_blocks(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`fn` over float64 blocks of 16K elements: its temporaries stay in cache and come back from the
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
    """erf in float64, odd (erf(-0) = -0), +-1 at +-inf, nan at nan."""
    a = np.abs(x)
    out = np.empty_like(x)
    near = a <= 1
    out[near] = _erf_near_zero(x[near])
    far = ~near
    out[far] = np.copysign(1 - _erfc_large(a[far]), x[far])
    return out


@_in_blocks
def erfc64(x: Any) -> Any:
    """erfc in float64: 1 - erf near 0, the tail rational elsewhere (2 - erfc(-x) below -1)."""
    a = np.abs(x)
    out = np.empty_like(x)
    near = a < 1
    out[near] = 1 - _erf_near_zero(x[near])
    far = ~near
    tail = _erfc_large(a[far])
    out[far] = np.where(x[far] < 0, 2 - tail, tail)
    return out


def erf32(x: Any) -> Any:
    """TF's float erf to the bit: Eigen's rational approximation, each step rounded to float32 (no fused
    multiply-adds, as TF's x86 build); subnormal inputs are zeros, as TF's kernels run with denormals flushed."""
    x = np.asarray(x, dtype=np.float32)
    x = np.where(np.abs(x) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), x), x)
    x2 = np.minimum(x * x, np.float32(16))
    with np.errstate(invalid="ignore"):
        return np.clip(x * _polynomial(x2, _ERF32_P) / _polynomial(x2, _ERF32_Q), np.float32(-1), np.float32(1))


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
