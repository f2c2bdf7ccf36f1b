"""Special functions and the safe products of logs and quotients: Erfc, Lgamma, Digamma, Igamma, Igammac,
Betainc, Zeta, Polygamma, BesselI0e, BesselI1e, Ndtri, Erfinv (and the composite erfcinv), Xlogy, Xdivy, Xlog1py,
MulNoNan and NextAfter, with TF's gradients.

The kernels compute in float64 and round once to the input's type, except Erfc's float32 kernel, Ndtri and
Erfinv, which compute in the input's type as TF's (ops/special_kernels.py: TF's own Eigen forms of erfc and of
Cephes's ndtri; Erfinv is TF's ndtri((x + 1) / 2) / sqrt(2), the sum rounded in the input's type, so
erfinv(1e-8) is 0 in float32, as TF's). Lgamma is special_kernels' series form (within a few ulp of the C
library's function TF calls; float32 from 2 up as glibc's lgammaf rounds it); float32 Igamma and Igammac, and
IgammaGradA, compute in the input's type with Eigen's series and continued fraction (and their forward-mode
derivatives by a); the rest are vectorized versions of the algorithms Eigen ports from Cephes
(recurrence and asymptotic series for digamma, Euler-Maclaurin for zeta, the power series and continued fraction
for the incomplete gamma function) or classical series (Lentz's continued fraction for the incomplete beta
function, the power and asymptotic series of the scaled Bessel functions): they agree with TF's float64 results
to about 1e-13 relative, and with its float32 results to float32 rounding. Iterations run over whole arrays,
masked where converged, never per element.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import constant_ops, raw_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import Exp, Log, Log1p, Sign, Square, _true_divide, not_equal, where_v2
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.shape_helpers import broadcast_binary_shape, unary_shape
from tensorweave.ops.special_kernels import erfc32, erfc64, lgamma32, lgamma64, ndtri_in_type
from tensorweave.platform.tf_export import tf_export

_FLOAT = "{bfloat16, half, float, double}"
_EPS = np.finfo(np.float64).eps
_MAX_ITERATIONS = 2000

def _as_float64(*arrays: Any) -> list[Any]:
    return [np.asarray(a, dtype=np.float64) for a in np.broadcast_arrays(*arrays)]


# Eigen's digamma asymptotic coefficients (highest power first), shorter for float than for double.
_DIGAMMA_SERIES = {
    np.dtype(np.float32): (-4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
                           8.33333333333333333333e-2),
    np.dtype(np.float64): (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
                           -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
                           8.33333333333333333333e-2),
}


def _digamma(x: Any) -> Any:
    """psi(x) as Eigen computes it in x's own precision (half in float): reflection at x <= 0 (nan at the
    poles, 0 included), the recurrence up to 10, then the asymptotic series, so float32 matches TF's bits."""
    x = np.asarray(x)
    work = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    t = work.type
    x = x.astype(work)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        negative = x <= 0
        floor = np.floor(x)
        pole = negative & (floor == x)
        frac = x - floor
        frac = np.where(negative & (frac > t(0.5)), x - (floor + t(1)), frac)
        reflection = np.where(negative & (frac != t(0.5)), t(np.pi) / np.tan(t(np.pi) * frac), t(0))
        s = np.where(pole, t(10), np.where(negative, t(1) - x, x))
        w = np.zeros_like(s)
        small = s < 10
        while np.any(small):  # at most ten steps: the loop runs over the recurrence, not over elements
            w = np.where(small, w + t(1) / s, w)
            s = np.where(small, s + t(1), s)
            small = s < 10
        z = t(1) / (s * s)
        series = np.zeros_like(s)
        for coefficient in _DIGAMMA_SERIES[work]:
            series = series * z + t(coefficient)
        y = np.log(s) - t(0.5) / s - np.where(s < t(1e8), z * series, t(0)) - w
        out = np.where(negative, y - reflection, y)
    return np.where(pole, t(np.nan), out)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17,
           -7.1661652561756670113e18)


def _zeta(x: Any, q: Any) -> Any:
    """The Hurwitz zeta function sum_k (q + k)^-x, by Cephes' Euler-Maclaurin summation (as Eigen's)."""
    x, q = _as_float64(x, q)
    with np.errstate(all="ignore"):
        s = np.power(q, -x)
        a = q.copy()
        b = np.zeros_like(s)
        done = np.zeros(s.shape, bool)
        i = 0
        while i < 9 or np.any(~done & (a <= 9)):
            i += 1
            a = np.where(done, a, a + 1)
            b = np.where(done, b, np.power(a, -x))
            s = np.where(done, s, s + b)
            done |= np.abs(b / s) < _EPS
            if i > 9 + _MAX_ITERATIONS:
                break
        w = a
        s = np.where(done, s, s + b * w / (x - 1) - 0.5 * b)
        factor = np.ones_like(s)
        k = 0.0
        for coefficient in _ZETA_A:
            factor = factor * (x + k)
            b = b / w
            t = factor * b / coefficient
            s = np.where(done, s, s + t)
            done |= np.abs(t / s) < _EPS
            k += 1
            factor = factor * (x + k)
            b = b / w
            k += 1
        out = s
        out = np.where(x == 1, np.inf, out)
        out = np.where(x < 1, np.nan, out)
        nonpositive_q = q <= 0
        out = np.where(nonpositive_q & (q == np.floor(q)), np.inf, out)
        out = np.where(nonpositive_q & (q != np.floor(q)) & (x != np.floor(x)), np.nan, out)
    return out


def _polygamma(n: Any, x: Any) -> Any:
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x); digamma for n = 0, nan for n not a natural number."""
    n, x = _as_float64(n, x)
    with np.errstate(all="ignore"):
        sign = np.where(np.mod(n, 2) == 0, -1.0, 1.0)
        higher = sign * np.exp(lgamma64(n + 1)) * _zeta(n + 1, x)
    out = np.where(n == 0, _digamma(x), higher)
    return np.where((n < 0) | (n != np.floor(n)), np.nan, out)


def _log_gamma_prefactor(a: Any, x: Any) -> Any:
    """x^a e^-x / Gamma(a), the factor both incomplete gamma expansions carry."""
    return np.exp(a * np.log(x) - x - lgamma64(a))


def _igamma_series(a: Any, x: Any) -> Any:
    ans, c, r = np.ones_like(x), np.ones_like(x), a.copy()
    done = np.zeros(x.shape, bool)
    for _ in range(_MAX_ITERATIONS):
        r = r + 1
        c = np.where(done, c, c * x / r)
        ans = np.where(done, ans, ans + c)
        done |= c <= ans * _EPS
        if done.all():
            break
    return ans * _log_gamma_prefactor(a, x) / a


def _igammac_fraction(a: Any, x: Any) -> Any:
    big, biginv = 4.503599627370496e15, 2.22044604925031308085e-16
    y = 1 - a
    z = x + y + 1
    c = np.zeros_like(x)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(x), x.copy(), x + 1, z * x
    ans = pkm1 / qkm1
    done = np.zeros(x.shape, bool)
    for _ in range(_MAX_ITERATIONS):
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        r = pk / np.where(nonzero, qk, 1)
        t = np.where(nonzero, np.abs((ans - r) / np.where(r == 0, 1, r)), 1.0)
        ans = np.where(done | ~nonzero, ans, r)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        scale = np.abs(pk) > big
        pkm2, pkm1 = np.where(scale, pkm2 * biginv, pkm2), np.where(scale, pkm1 * biginv, pkm1)
        qkm2, qkm1 = np.where(scale, qkm2 * biginv, qkm2), np.where(scale, qkm1 * biginv, qkm1)
        done |= t <= _EPS
        if done.all():
            break
    return ans * _log_gamma_prefactor(a, x)


def _igamma_pair(a: Any, x: Any) -> tuple[Any, Any]:
    """P(a, x) and Q(a, x) = 1 - P: the series where it converges fast, the continued fraction elsewhere;
    nan outside a > 0, x >= 0, except P(a, 0) = 0 for any a (Eigen tests x = 0 first, for P only)."""
    a, x = _as_float64(a, x)
    invalid = (a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x)
    use_fraction = (x > 1) & (x > a)
    sa, sx = np.where(invalid | (x == 0), 1.0, a), np.where(invalid | (x == 0), 1.0, x)
    with np.errstate(all="ignore"):
        p = np.empty_like(x)
        q = np.empty_like(x)
        series = ~use_fraction
        p[series] = _igamma_series(sa[series], sx[series])
        q[series] = 1 - p[series]
        q[use_fraction] = _igammac_fraction(sa[use_fraction], sx[use_fraction])
        p[use_fraction] = 1 - q[use_fraction]
    p = np.where(x == 0, 0.0, p)
    q = np.where(x == 0, 1.0, q)
    p = np.where(np.isinf(x) & (x > 0), 1.0, p)
    q = np.where(np.isinf(x) & (x > 0), 0.0, q)
    # a = inf: x^a e^-x / Gamma(a) is 0 (nan at x = inf), so Eigen's series gives P = 0, Q = 1 - 0 (Q's
    # continued fraction gives 0 at x = inf)
    p = np.where(np.isposinf(a) & (x > 0), 0.0, p)
    q = np.where(np.isposinf(a) & np.isfinite(x), 1.0, q)
    return np.where(invalid & (x != 0), np.nan, p), np.where(invalid, np.nan, q)


# Cephes's machine epsilon and rescaling bounds of the continued fraction, per type, as Eigen's.
_CEPHES = {np.dtype(np.float32): (2.0 ** -24, 16777216.0, 2.0 ** -24),
           np.dtype(np.float64): (2.0 ** -53, 4.503599627370496e15, 2.0 ** -52)}


def _igamma_series_by_a(a: Any, x: Any, iterations: int) -> tuple[Any, Any, Any]:
    """P's power series and its forward-mode derivative by `a` (the sum and its derivative, less the
    factor x^a e^-x / Gamma(a + 1)); an element stops when its derivative term is below epsilon of the sum."""
    machep = x.dtype.type(_CEPHES[x.dtype][0])
    ans, c, r = np.ones_like(x), np.ones_like(x), a.copy()
    dc, dans = np.zeros_like(x), np.zeros_like(x)
    done = np.zeros(x.shape, bool)
    for _ in range(iterations):
        r = r + 1
        ratio = x / r
        dc = np.where(done, dc, ratio * dc + -x / (r * r) * c)
        dans = np.where(done, dans, dans + dc)
        c = np.where(done, c, c * ratio)
        ans = np.where(done, ans, ans + c)
        done |= np.abs(dc) <= machep * np.abs(dans)
        if done.all():
            break
    return ans, dans, np.log(x) - _digamma(a + 1)


def _igammac_fraction_by_a(a: Any, x: Any, iterations: int) -> tuple[Any, Any, Any]:
    """Q's continued fraction (Cephes's recurrences) and its forward-mode derivative by `a`, as Eigen's."""
    machep, big, biginv = (x.dtype.type(v) for v in _CEPHES[x.dtype])
    one = x.dtype.type(1)
    y = one - a
    z = x + y + one
    c = np.zeros_like(x)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(x), x.copy(), x + one, z * x
    dpkm2, dqkm2, dpkm1, dqkm1 = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x), -x
    ans = pkm1 / qkm1
    dans = (dpkm1 - ans * dqkm1) / qkm1
    done = np.zeros(x.shape, bool)
    for _ in range(iterations):
        c, y, z = c + one, y + one, z + x.dtype.type(2)
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        dpk, dqk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c, dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        live = ~done & (qk != 0)
        safe_qk = np.where(qk != 0, qk, one)
        new_ans = np.where(live, pk / safe_qk, ans)
        new_dans = np.where(live, (dpk - new_ans * dqk) / safe_qk, dans)
        done |= live & (np.abs(new_dans - dans) <= machep)
        ans, dans = new_ans, new_dans
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
        scale = np.where(np.abs(pk) > big, biginv, one)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm2 * scale, dpkm1 * scale, dqkm2 * scale, dqkm1 * scale
        if done.all():
            break
    return ans, dans, np.log(x) - _digamma(a)


def _series_in_type(a: Any, x: Any, iterations: int) -> Any:
    """Eigen's igamma series in x's type: x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1)...(a+n))."""
    machep = x.dtype.type(_CEPHES[x.dtype][0])
    ans, c, r = np.ones_like(x), np.ones_like(x), a.copy()
    done = np.zeros(x.shape, bool)
    for _ in range(iterations):
        r = r + 1
        c = np.where(done, c, c * (x / r))
        ans = np.where(done, ans, ans + c)
        done |= c <= machep * ans
        if done.all():
            break
    return ans


def _fraction_in_type(a: Any, x: Any, iterations: int) -> Any:
    """Eigen's igammac continued fraction in x's type (less the factor x^a e^-x / Gamma(a))."""
    machep, big, biginv = (x.dtype.type(v) for v in _CEPHES[x.dtype])
    one = x.dtype.type(1)
    y = one - a
    z = x + y + one
    c = np.zeros_like(x)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(x), x.copy(), x + one, z * x
    ans = pkm1 / qkm1
    done = np.zeros(x.shape, bool)
    for _ in range(iterations):
        c, y, z = c + one, y + one, z + x.dtype.type(2)
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        live = ~done & (qk != 0)
        new_ans = np.where(live, pk / np.where(qk != 0, qk, one), ans)
        done |= live & (np.abs(ans - new_ans) <= machep * np.abs(new_ans))
        ans = new_ans
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        scale = np.where(np.abs(pk) > big, biginv, one)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        if done.all():
            break
    return ans


def igamma_pair_float32(a: Any, x: Any) -> tuple[Any, Any]:
    """P(a, x) and Q(a, x) of float32 inputs computed in float32 as Eigen's float kernels (200 iterations,
    float's epsilon, lgammaf, the factor flushed below the normal range), so their rounding is TF's; the
    domain rules are _igamma_pair's."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(x, np.float32))
    t = np.float32
    with np.errstate(all="ignore"):
        valid = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        sa, sx = np.where(valid, a, t(1)), np.where(valid, x, t(1))
        term = np.exp(sa * np.log(sx) - sx - _lgamma(sa))
        term = np.where(term >= np.finfo(np.float32).tiny, term, t(0))
        p, q = np.empty_like(sx), np.empty_like(sx)
        for fraction, out in (((sx > 1) & (sx > sa), p), ((sx >= 1) & (sx >= sa), q)):  # P's branch, Q's
            series = ~fraction
            lower = _series_in_type(sa[series], sx[series], 200) * (term[series] / sa[series])
            upper = _fraction_in_type(sa[fraction], sx[fraction], 200) * term[fraction]
            if out is p:
                p[series], p[fraction] = lower, t(1) - upper
            else:
                q[series], q[fraction] = t(1) - lower, upper
    reference_p, reference_q = _igamma_pair(a, x)
    return (np.where(valid, p, reference_p.astype(np.float32)), np.where(valid, q, reference_q.astype(np.float32)))


def igamma_derivatives(a: Any, x: Any) -> tuple[Any, Any]:
    """dP(a, x)/da (TF's IgammaGradA) and the implicit derivative of a Gamma(a, 1) sample x by a,
    -(dP/da) / (dP/dx) (TF's RandomGammaGrad), by forward-mode differentiation of the series and the
    continued fraction, in the inputs' own precision (float32 or float64) with Eigen's limits, so that TF's
    float32 rounding is mostly reproduced: 200 iterations for float, 500 for double, and 0 where
    x^a e^-x / Gamma(a) is below the normal range (P is flat there). Both are 0 at x = 0, nan elsewhere outside
    a > 0, x >= 0."""
    a, x = np.broadcast_arrays(a, x)
    t = x.dtype.type
    iterations = 200 if x.dtype == np.float32 else 500
    invalid = ((a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x)) & (x != 0)
    with np.errstate(all="ignore"):
        log_term = a * np.log(x) - x - _lgamma(a)
        term = np.exp(log_term)
        flat = invalid | ~(term >= np.finfo(x.dtype).tiny) | np.isinf(x)  # denormals flushed, as TF's CPU
        sa, sx, term = np.where(flat, t(1), a), np.where(flat, t(1), x), np.where(flat, t(0), term)
        fraction = (sx > 1) & (sx > sa)
        series = ~fraction
        by_a, sample = np.zeros_like(x), np.zeros_like(x)
        ans, dans, dlog = _igamma_series_by_a(sa[series], sx[series], iterations)
        by_a[series] = term[series] / sa[series] * (ans * dlog + dans)
        sample[series] = -(dans + ans * dlog) * sx[series] / sa[series]
        ans, dans, dlog = _igammac_fraction_by_a(sa[fraction], sx[fraction], iterations)
        by_a[fraction] = -(term[fraction] * (ans * dlog + dans))
        sample[fraction] = (dans + ans * dlog) * sx[fraction]
    flat_value = np.where((x > 1) & (x > a), t(-0.0), t(0))  # Eigen's continued fraction returns -0
    by_a = np.where(flat, flat_value, by_a)
    sample = np.where(flat, flat_value, sample)
    return np.where(invalid, t(np.nan), by_a), np.where(invalid, t(np.nan), sample)


def _betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b) by Lentz's continued fraction, on the side of the
    symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where it converges; nan outside a, b > 0, 0 <= x <= 1."""
    a, b, x = _as_float64(a, b, x)
    invalid = (a <= 0) | (b <= 0) | (x < 0) | (x > 1) | np.isnan(a) | np.isnan(b) | np.isnan(x)
    flip = x > (a + 1) / (a + b + 2)
    aa, bb, xx = np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1 - x, x)
    aa, bb = np.where(invalid, 1.0, aa), np.where(invalid, 1.0, bb)
    xx = np.where(invalid | (xx <= 0), 0.5, xx)
    tiny = 1e-300
    with np.errstate(all="ignore"):
        c = np.ones_like(xx)
        d = 1 - (aa + bb) * xx / (aa + 1)
        d = 1 / np.where(np.abs(d) < tiny, tiny, d)
        h = d.copy()
        done = np.zeros(xx.shape, bool)
        for m in range(1, _MAX_ITERATIONS):
            m2 = 2 * m
            for numerator in (m * (bb - m) * xx / ((aa + m2 - 1) * (aa + m2)),
                              -(aa + m) * (aa + bb + m) * xx / ((aa + m2) * (aa + m2 + 1))):
                d = 1 + numerator * d
                d = 1 / np.where(np.abs(d) < tiny, tiny, d)
                c = 1 + numerator / c
                c = np.where(np.abs(c) < tiny, tiny, c)
                delta = c * d
                h = np.where(done, h, h * delta)
            done |= np.abs(delta - 1) < _EPS
            if done.all():
                break
        front = np.exp(lgamma64(aa + bb) - lgamma64(aa) - lgamma64(bb) + aa * np.log(xx) + bb * np.log1p(-xx)) / aa
        value = front * h
    edge = np.where(flip, 1 - x, x) <= 0
    value = np.where(edge, 0.0, value)
    return np.where(invalid, np.nan, np.where(flip, 1 - value, value))


def bessel_scaled(x: Any, order: int) -> Any:
    """I_order(x) e^-|x| for order 0 or 1: the power series below |x| = 30, the asymptotic series above."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    small = np.minimum(ax, 30.0)
    quarter = (small * small / 4)[None]
    k = np.arange(1, 100, dtype=np.float64).reshape((-1,) + (1,) * x.ndim)
    ratios = quarter / (k * (k + order))
    first = np.exp(-small) * (small / 2 if order else 1.0)
    series = first * (1 + np.cumprod(ratios, axis=0).sum(axis=0))
    large = np.maximum(ax, 30.0)
    mu = 4.0 * order * order
    term = np.ones_like(large)
    asymptotic = np.ones_like(large)
    for j in range(1, 25):
        term = -term * (mu - (2 * j - 1) ** 2) / (j * 8 * large)
        asymptotic = asymptotic + term
    asymptotic = asymptotic / np.sqrt(2 * np.pi * large)
    out = np.where(ax <= 30, series, asymptotic)
    return np.sign(x) * out if order else out


def _in_dtype(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` computed in float64, rounded once to the first input's type (overflowing to inf there)."""
    def compute(*arrays: Any) -> Any:
        result = np.asarray(fn(*arrays), dtype=np.float64)
        with np.errstate(over="ignore"):
            return result.astype(np.asarray(arrays[0]).dtype)
    compute.__name__ = fn.__name__
    return compute


def special_unary_op(name: str, fn: Callable[[Any], Any],
                     kernel_types: tuple[dtypes.DType, ...] | None = None) -> Op:
    """A float op computed by `fn` in float64; `kernel_types` are the types TF's CPU kernel takes, where fewer
    than the OpDef's."""
    op = Op(name, inputs=["x: T"], outputs=["y: T"], attrs=[f"T: {_FLOAT}"])
    op.shape(unary_shape)
    compute = _in_dtype(fn)

    @op.kernel("CPU", type_constraints=None if kernel_types is None else {"T": kernel_types})
    def kernel(ctx: OpKernelContext, x: Any) -> Any:
        return compute(x)

    return op


def _check_broadcastable(ctx: OpKernelContext, x: Any, y: Any) -> None:
    try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise invalid_argument(ctx, f"Incompatible shapes: {tensor_shape.shape_string(np.shape(x))} vs. "
                                    f"{tensor_shape.shape_string(np.shape(y))}") from None


def _binary(name: str, args: tuple[str, str], result: str, types: str, fn: Callable[..., Any]) -> Op:
    """A broadcasting binary op computed by `fn` in float64 (integer-free types only)."""
    op = Op(name, inputs=[f"{arg}: T" for arg in args], outputs=[f"{result}: T"], attrs=[f"T: {types}"])
    op.shape(broadcast_binary_shape)
    compute = _in_dtype(fn)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, x: Any, y: Any) -> Any:
        _check_broadcastable(ctx, x, y)
        return compute(x, y)

    return op


def _unbroadcast_pair(op: Any, grad: Tensor, gx: Tensor | None, gy: Tensor | None) -> list:
    """Each partial summed back to its input's shape, as TF's broadcasting gradients."""
    x, y = op.inputs
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return [None if gx is None else shape_ops.unbroadcast(gx, sx), None if gy is None else shape_ops.unbroadcast(gy, sy)]


def _constant_like(value: float, x: Tensor) -> Tensor:
    return constant_ops.constant(value, dtype=x.dtype.base_dtype)


# -- Erfc, Lgamma, Digamma, BesselI0e, BesselI1e -------------------------------------------------------

def _erfc(x: Any) -> Any:
    """TF's erfc: its float kernel's form for float32; half and bfloat16 as float64 rounded (TF's float form,
    rounded to them, gives the same). Results below the normal range of the type TF computes in are flushed to
    zero, as TF's kernels run with denormals flushed."""
    y = erfc32(x) if x.dtype == np.float32 else erfc64(x)
    return np.where(y < np.finfo(np.float64 if x.dtype == np.float64 else np.float32).tiny, 0.0, y)


Erfc = special_unary_op("Erfc", _erfc)
def _lgamma(x: Any) -> Any:
    """TF's double kernel's lgamma for float64; its float kernel's (glibc's lgammaf) for the narrower types."""
    return lgamma64(x) if x.dtype == np.float64 else lgamma32(x)


Lgamma = special_unary_op("Lgamma", _lgamma)
Digamma = special_unary_op("Digamma", _digamma)
BesselI0e = special_unary_op("BesselI0e", lambda x: bessel_scaled(x, 0))
BesselI1e = special_unary_op("BesselI1e", lambda x: bessel_scaled(x, 1))
FLOAT_KERNELS = (dtypes.float32, dtypes.float64)
Ndtri = special_unary_op("Ndtri", ndtri_in_type, FLOAT_KERNELS)
Erfinv = special_unary_op("Erfinv", lambda x: ndtri_in_type((x + x.dtype.type(1)) / x.dtype.type(2)) * x.dtype.type(math.sqrt(0.5)),
                          FLOAT_KERNELS)


@Erfc.gradient
def _erfc_grad(op: Any, grad: Tensor) -> list:
    x = op.inputs[0]
    return [grad * _constant_like(-2 / math.sqrt(math.pi), x) * Exp(-Square(x))]


@Lgamma.gradient
def _lgamma_grad(op: Any, grad: Tensor) -> list:
    return [grad * Digamma(op.inputs[0])]


@Digamma.gradient
def _digamma_grad(op: Any, grad: Tensor) -> list:
    x = op.inputs[0]
    return [grad * Polygamma(_constant_like(1.0, x), x)]


@BesselI0e.gradient
def _bessel_i0e_grad(op: Any, grad: Tensor) -> list:
    x = op.inputs[0]
    return [grad * (BesselI1e(x) - Sign(x) * op.outputs[0])]


@BesselI1e.gradient
def _bessel_i1e_grad(op: Any, grad: Tensor) -> list:
    """I1e'(x) = I0e(x) - I1e(x) (sign(x) + 1/x), which is 1/2 at 0."""
    x, y = op.inputs[0], op.outputs[0]
    zero = not_equal(x, _constant_like(0.0, x))
    safe_x = where_v2(zero, x, _constant_like(1.0, x))
    derivative = BesselI0e(x) - y * (Sign(x) + 1 / safe_x)
    return [grad * where_v2(zero, derivative, _constant_like(0.5, x))]


@Ndtri.gradient
def _ndtri_grad(op: Any, grad: Tensor) -> list:
    """sqrt(2 pi) exp(ndtri(x)^2 / 2): the reciprocal of the normal density at the result."""
    with control_dependencies([grad]):
        return [grad * _constant_like(math.sqrt(2 * math.pi), grad) * Exp(Square(op.outputs[0]) / 2.0)]


@Erfinv.gradient
def _erfinv_grad(op: Any, grad: Tensor) -> list:
    """sqrt(pi) / 2 exp(erfinv(x)^2)."""
    with control_dependencies([grad]):
        return [grad * _constant_like(math.sqrt(math.pi) / 2, grad) * Exp(Square(op.outputs[0]))]


@tf_export("math.ndtri")
def ndtri(x: Any, name: str | None = None) -> Tensor:
    """The quantile of the standard normal distribution (inverse of its CDF) on [0, 1]."""
    with name_scope(name, "ndtri", [x]):
        return Ndtri(x)


@tf_export("math.erfinv")
def erfinv(x: Any, name: str | None = None) -> Tensor:
    """The inverse of erf on [-1, 1]."""
    with name_scope(name, "erfinv", [x]):
        return Erfinv(x)


@tf_export("math.erfcinv")
def erfcinv(x: Any, name: str | None = None) -> Tensor:
    """The inverse of erfc on [0, 2]: TF's composite -ndtri(x / 2) / sqrt(2)."""
    with name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


@tf_export("math.erfc", "erfc")
def erfc(x: Any, name: str | None = None) -> Tensor:
    """The complementary error function 1 - erf(x), accurate where erf(x) is near 1."""
    return Erfc(x, name=name)


@tf_export("math.lgamma", "lgamma")
def lgamma(x: Any, name: str | None = None) -> Tensor:
    """log |Gamma(x)|."""
    return Lgamma(x, name=name)


@tf_export("math.lbeta", "lbeta")
def lbeta(x: Any, name: str | None = None) -> Tensor:
    """log |B(x)| over the last dimension: sum of lgamma(x) - lgamma(sum of x) (-inf for an empty one)."""
    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        return reduce_sum(Lgamma(x), axis=[-1]) - Lgamma(reduce_sum(x, axis=[-1]))


@tf_export("math.digamma", "digamma")
def digamma(x: Any, name: str | None = None) -> Tensor:
    """psi(x), the derivative of lgamma."""
    return Digamma(x, name=name)


@tf_export("math.bessel_i0e", "math.special.bessel_i0e")
def bessel_i0e(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function I0 scaled by e^-|x| (finite where I0 overflows)."""
    with name_scope(name, "bessel_i0e", [x]):
        return BesselI0e(x)


@tf_export("math.bessel_i1e", "math.special.bessel_i1e")
def bessel_i1e(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function I1 scaled by e^-|x|."""
    with name_scope(name, "bessel_i1e", [x]):
        return BesselI1e(x)


# -- Igamma, Igammac, Zeta, Polygamma, Betainc -------------------------------------------------------

def _igamma_in_type(a: Any, x: Any) -> tuple[Any, Any]:
    """P and Q: float32 computed in float32 as TF's float kernel, the other types in float64."""
    return igamma_pair_float32(a, x) if np.asarray(a).dtype == np.float32 else _igamma_pair(a, x)


Igamma = _binary("Igamma", ("a", "x"), "z", "{bfloat16, half, float, double}", lambda a, x: _igamma_in_type(a, x)[0])
Igammac = _binary("Igammac", ("a", "x"), "z", "{bfloat16, half, float, double}", lambda a, x: _igamma_in_type(a, x)[1])
Zeta = _binary("Zeta", ("x", "q"), "z", "{float, double}", _zeta)
Polygamma = _binary("Polygamma", ("a", "x"), "z", "{float, double}", _polygamma)


def _igamma_x_partial(op: Any) -> Tensor:
    """d P(a, x) / dx = x^(a-1) e^-x / Gamma(a)."""
    a, x = op.inputs
    return Exp(-x + (a - 1) * Log(x) - Lgamma(a))


IgammaGradA = Op("IgammaGradA", inputs=["a: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"])
IgammaGradA.shape(broadcast_binary_shape)


@IgammaGradA.kernel("CPU")
def _igamma_grad_a(ctx: OpKernelContext, a: Any, x: Any) -> Any:
    _check_broadcastable(ctx, a, x)
    return igamma_derivatives(a, x)[0]


@Igamma.gradient
def _igamma_grad(op: Any, grad: Tensor) -> list:
    """By a: IgammaGradA; by x: the integrand x^(a-1) e^-x / Gamma(a) (in log space: both factors overflow)."""
    a, x = op.inputs
    with control_dependencies([grad]):
        return _unbroadcast_pair(op, grad, IgammaGradA(a, x) * grad, _igamma_x_partial(op) * grad)


@Igammac.gradient
def _igammac_grad(op: Any, grad: Tensor) -> list:
    """Minus Igamma's (Q = 1 - P)."""
    grad_a, grad_x = _igamma_grad(op, grad)
    return [-grad_a, -grad_x]


@Zeta.gradient
def _zeta_grad(op: Any, grad: Tensor) -> list:
    """By q: -x zeta(x + 1, q); TF has none by x."""
    x, q = op.inputs
    return _unbroadcast_pair(op, grad, None, grad * -x * Zeta(x + 1, q))


@Polygamma.gradient
def _polygamma_grad(op: Any, grad: Tensor) -> list:
    """By x: polygamma(a + 1, x); TF has none by a."""
    a, x = op.inputs
    return _unbroadcast_pair(op, grad, None, grad * Polygamma(a + 1, x))


@tf_export("math.igamma", "igamma")
def igamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """The regularized lower incomplete gamma function P(a, x)."""
    return Igamma(a, x, name=name)


@tf_export("math.igammac", "igammac")
def igammac(a: Any, x: Any, name: str | None = None) -> Tensor:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return Igammac(a, x, name=name)


@tf_export("math.zeta", "zeta")
def zeta(x: Any, q: Any, name: str | None = None) -> Tensor:
    """The Hurwitz zeta function."""
    return Zeta(x, q, name=name)


@tf_export("math.polygamma", "polygamma")
def polygamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """The a-th derivative of digamma."""
    return Polygamma(a, x, name=name)


Betainc = Op("Betainc", inputs=["a: T", "b: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"])


@Betainc.shape
def _betainc_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The shape of the non-scalar inputs, which must agree (TF's Betainc does not broadcast)."""
    merged = tensor_shape.unknown_shape()
    for i in range(3):
        shape = ctx.input_shape(i)
        if shape.ndims == 0:
            continue
        if not merged.is_compatible_with(shape):
            raise ValueError(f"Shapes must be equal rank, but are {merged.ndims} and {shape.ndims}"
                             if merged.ndims != shape.ndims else
                             f"Dimensions must be equal, but are {merged} and {shape}")
        merged = merged.merge_with(shape)
    if all(ctx.input_shape(i).ndims == 0 for i in range(3)):
        return [tensor_shape.TensorShape([])]
    return [merged]


@Betainc.kernel("CPU")
def _betainc_kernel(ctx: OpKernelContext, a: Any, b: Any, x: Any) -> Any:
    shapes = [np.shape(v) for v in (a, b, x)]
    full = [s for s in shapes if s]
    if any(s != full[0] for s in full):
        raise invalid_argument(ctx, "Shapes of a, b, and x are inconsistent: " + " vs. ".join(
            tensor_shape.shape_string(s) for s in shapes))
    return _in_dtype(_betainc)(a, b, x)


@Betainc.gradient
def _betainc_grad(op: Any, grad: Tensor) -> list:
    """By x: x^(a-1) (1-x)^(b-1) / B(a, b); TF has none by a and b."""
    a, b, x = op.inputs
    log_beta = Lgamma(a) + Lgamma(b) - Lgamma(a + b)
    partial = Exp((a - 1) * Log(x) + (b - 1) * Log1p(-x) - log_beta)
    grad_x = grad * partial
    if x.shape.is_fully_defined() and grad.shape.is_fully_defined() and x.shape != grad.shape:
        grad_x = shape_ops.reshape(raw_ops.Sum(input=grad_x, reduction_indices=list(range(grad.shape.ndims))),
                                   x.shape.as_list())
    return [None, None, grad_x]


@tf_export("math.betainc", "betainc")
def betainc(a: Any, b: Any, x: Any, name: str | None = None) -> Tensor:
    """The regularized incomplete beta function I_x(a, b)."""
    return Betainc(a, b, x, name=name)


# -- Xlogy, Xdivy, Xlog1py, MulNoNan, NextAfter ----------------------------------------------------------

def _zero_where(condition: Any, value: Callable[[], Any], x: Any, y: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.where(condition, np.zeros((), np.result_type(x, y)), value())


def _safe_binary(name: str, zero_at: str, fn: Callable[[Any, Any], Any],
                 types: str = "{half, bfloat16, float, double, complex64, complex128}") -> Op:
    """Xlogy, Xdivy, Xlog1py (0 where x is 0, whatever y is) or MulNoNan (0 where y is 0, whatever x is), in
    the input's own type (complex too)."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=["z: T"], attrs=[f"T: {types}"])
    op.shape(broadcast_binary_shape)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, x: Any, y: Any) -> Any:
        _check_broadcastable(ctx, x, y)
        zero = (x if zero_at == "x" else y) == 0
        return np.asarray(_zero_where(zero, lambda: fn(x, y), x, y)).astype(x.dtype, copy=False)

    return op


Xlogy = _safe_binary("Xlogy", "x", lambda x, y: x * np.log(y))
Xdivy = _safe_binary("Xdivy", "x", _true_divide)  # complex values as Div divides them
Xlog1py = _safe_binary("Xlog1py", "x", lambda x, y: x * np.log1p(y))
MulNoNan = _safe_binary("MulNoNan", "y", lambda x, y: x * y, "{bfloat16, half, float, double, complex64, complex128}")


def _not_zero(x: Tensor) -> Tensor:
    return cast(not_equal(x, _constant_like(0.0, x)), x.dtype)


@Xlogy.gradient
def _xlogy_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs
    return _unbroadcast_pair(op, grad, grad * Xlogy(_not_zero(x), y), grad * Xdivy(x, y))


@Xdivy.gradient
def _xdivy_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs
    return _unbroadcast_pair(op, grad, grad * Xdivy(_not_zero(x), y), grad * Xdivy(-x, Square(y)))


@Xlog1py.gradient
def _xlog1py_grad(op: Any, grad: Tensor) -> list:
    """By x: log1p(y) where x is not 0; by y: x / (y + 1) (0 where x is 0)."""
    x, y = op.inputs
    with control_dependencies([grad]):
        return _unbroadcast_pair(op, grad, Xlog1py(_not_zero(x), y) * grad,
                                 Xdivy(x, y + _constant_like(1.0, y)) * grad)


@MulNoNan.gradient
def _mul_no_nan_grad(op: Any, grad: Tensor) -> list:
    """MulNoNan of the gradient by the other input: a zero y still stops a non-finite x."""
    x, y = op.inputs
    gx, gy = MulNoNan(grad, y), MulNoNan(x, grad)
    if all(t.shape.is_fully_defined() for t in (x, y, grad)) and x.shape == y.shape == grad.shape:
        return [gx, gy]
    return _unbroadcast_pair(op, grad, gx, gy)


@tf_export("math.xlogy")
def xlogy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log(y), and 0 where x is 0 (even where log(y) is not finite)."""
    return Xlogy(x, y, name=name)


@tf_export("math.xdivy")
def xdivy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, and 0 where x is 0."""
    with name_scope(name, "xdivy", [x]):
        return Xdivy(x, y)


@tf_export("math.xlog1py")
def xlog1py(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log1p(y), and 0 where x is 0 (even where log1p(y) is not finite)."""
    with name_scope(name, "xlog1py", [x]):
        return Xlog1py(x, y)


@tf_export("math.multiply_no_nan")
def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * y, and 0 where y is 0 even if x is NaN or infinite (not symmetric: a zero x keeps y's NaN)."""
    with name_scope(name, "multiply_no_nan", [x, y]) as name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != "
                            f"{y.dtype.base_dtype!r}")
        return MulNoNan(x, y, name=name)


NextAfter = Op("NextAfter", inputs=["x1: T", "x2: T"], outputs=["output: T"],
               attrs=["T: {double, float} = DT_FLOAT"])
NextAfter.shape(broadcast_binary_shape)


@NextAfter.kernel("CPU")
def _next_after(ctx: OpKernelContext, x1: Any, x2: Any) -> Any:
    return np.nextafter(x1, x2)


@NextAfter.gradient
def _next_after_grad(op: Any, grad: Tensor) -> list:
    """TF's: slope 1 in x1 and 0 in x2 (the ulp step is ignored)."""
    x1, x2 = op.inputs
    s1, s2 = shape_ops.broadcast_gradient_args(x1, x2, grad)
    return [shape_ops.unbroadcast(grad, s1), shape_ops.unbroadcast(grad * 0, s2)]


@tf_export("math.nextafter")
def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """The next representable value after x1 toward x2."""
    return NextAfter(x1, convert_to_tensor(x2), name=name)
