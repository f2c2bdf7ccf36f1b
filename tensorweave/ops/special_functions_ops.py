"""`tf.math.special`: the Bessel functions J0, J1, Y0, Y1, I0, I1, K0, K1 (and K0e, K1e scaled by e^x), Dawson's
integral, the exponential integral Ei, the Fresnel integrals and Spence's function, with TF's gradients.

TF's kernels are Cephes's rational approximations; these are classical methods of the same (float64) accuracy,
computed in float64 over whole arrays and rounded once to the input's type (so float32 results are the
correctly rounded ones, within a few float32 ulps of TF's own float32 approximations):
- J0, J1, Y0, Y1: Miller's backward recurrence normalized by J0 + 2 sum J2k = 1, with Y0 from Neumann's series
  over the same J2k and Y1 as -Y0'; Hankel's asymptotic series beyond |x| = 25; the power series below 1e-3.
- K0, K1: the power series up to x = 1, then the trapezoidal rule on K(x) e^x = int exp(-x (cosh t - 1))
  cosh(nu t) dt, whose error falls exponentially with the step (48 nodes reach float64 rounding).
- Dawson: its Taylor series below 1, Rybicki's exponentially convergent sum above.
- Ei: its power series up to 40, the asymptotic series above; Fresnel: the power series below 1.5, the
  continued fraction of the complex error function above (Lentz); Spence: the dilogarithm's series after
  its reflection and Landen transformations.
As TF's: Y0, Y1 are -inf for x <= 0; K0, K1 are inf there; Ei and Spence are nan below 0 and at inf.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, control_dependencies, name_scope
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.elementwise_ops import Cos, Exp, Log, Sin, Square, equal, reciprocal, where_v2
from tensorweave.ops.fill_ops import ones_like
from tensorweave.ops.special_math_ops import (
    FLOAT_KERNELS,
    bessel_scaled,
    special_unary_op,
)
from tensorweave.platform.tf_export import tf_export

_HALF_KERNELS = (dtypes.float16, dtypes.float32, dtypes.float64)
_EULER = 0.57721566490153286061
_TWO_OVER_PI = 2 / math.pi


def _as_float64(x: Any) -> Any:
    return np.asarray(x, dtype=np.float64)


def _quietly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with NumPy's floating-point warnings off: infinities and nans are results here, as in TF."""
    @functools.wraps(fn)
    def compute(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args)
    return compute


# -- J0, J1, Y0, Y1 ---------------------------------------------------------------------------------------

def _bessel_jy_small(a: Any) -> tuple[Any, Any, Any, Any]:
    """J0, J1, Y0, Y1 of 0 < a < 1e-3 by their power series (four terms reach float64 rounding)."""
    q = a * a / 4
    j0 = 1 - q + q * q / 4 - q ** 3 / 36
    j1 = a / 2 * (1 - q / 2 + q * q / 12)
    log_half = np.log(a / 2)
    y0 = _TWO_OVER_PI * ((log_half + _EULER) * j0 + q - 0.375 * q * q + 11 / 216 * q ** 3)
    psi = [1 - 2 * _EULER, 2.5 - 2 * _EULER, 10 / 3 - 2 * _EULER]  # psi(k + 1) + psi(k + 2)
    y1 = -_TWO_OVER_PI / a + _TWO_OVER_PI * log_half * j1 - a / (2 * math.pi) * (
        psi[0] - psi[1] * q / 2 + psi[2] * q * q / 12)
    return j0, j1, y0, y1


def _bessel_jy_recurrence(a: Any) -> tuple[Any, Any, Any, Any]:
    """J0, J1, Y0, Y1 of 1e-3 <= a <= 25: J_k downward from far above a (rescaled before it overflows), with
    the sums Neumann's series need accumulated on the way, all normalized at the end."""
    start = 2 * int((float(np.max(a, initial=0.0)) + 30 + 10 * math.sqrt(float(np.max(a, initial=0.0)))) // 2 + 2)
    j_next, j = np.zeros_like(a), np.full_like(a, 1e-300)
    norm, neumann, neumann_derivative = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
    for k in range(start, 0, -1):
        j_prev = 2 * k / a * j - j_next
        if k % 2 == 0:
            i = k // 2
            sign = -1.0 if i % 2 else 1.0
            norm = norm + 2 * j
            neumann = neumann + sign * j / i
            neumann_derivative = neumann_derivative + sign * (j_prev - j_next) / i
        j_next, j = j, j_prev
        big = np.abs(j) > 1e250
        if big.any():
            scale = np.where(big, 1e-250, 1.0)
            j, j_next = j * scale, j_next * scale
            norm, neumann, neumann_derivative = norm * scale, neumann * scale, neumann_derivative * scale
    j0_raw, j1_raw = j, j_next
    norm = norm + j0_raw
    j0, j1 = j0_raw / norm, j1_raw / norm
    log_term = np.log(a / 2) + _EULER
    y0 = _TWO_OVER_PI * (log_term * j0 - 2 * neumann / norm)
    y1 = _TWO_OVER_PI * (-j0 / a + log_term * j1 + neumann_derivative / norm)
    return j0, j1, y0, y1


def _hankel(a: Any, order: int) -> tuple[Any, Any]:
    """J_order and Y_order of a > 25 by Hankel's asymptotic series (30 terms: the terms fall below 1e-18)."""
    mu = 4.0 * order * order
    term = np.ones_like(a)
    p, q = np.ones_like(a), np.zeros_like(a)
    for k in range(1, 31):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * a)
        if k % 2:
            q = q + (-1.0 if k % 4 == 3 else 1.0) * term
        else:
            p = p + (-1.0 if k % 4 == 2 else 1.0) * term
    chi = a - (order / 2 + 0.25) * math.pi
    amplitude = np.sqrt(2 / (math.pi * a))
    cos, sin = np.cos(chi), np.sin(chi)
    return amplitude * (p * cos - q * sin), amplitude * (p * sin + q * cos)


@_quietly
def _bessel_jy(x: Any) -> tuple[Any, Any, Any, Any]:
    """J0, J1 (even and odd in x), Y0, Y1 (-inf for x <= 0, as TF's), nan for nan."""
    x = _as_float64(x)
    a = np.abs(x)
    small, large = a < 1e-3, a > 25
    middle = ~small & ~large & ~np.isnan(a)
    j0, j1, y0, y1 = (np.full_like(a, np.nan) for _ in range(4))
    for mask, compute in ((small & (a > 0), _bessel_jy_small), (middle, _bessel_jy_recurrence)):
        if mask.any():
            for out, value in zip((j0, j1, y0, y1), compute(a[mask])):
                out[mask] = value
    if large.any():
        (j0[large], y0[large]), (j1[large], y1[large]) = _hankel(a[large], 0), _hankel(a[large], 1)
    zero = a == 0
    j0[zero], j1[zero] = 1.0, 0.0
    j1 = np.where(x < 0, -j1, j1)
    y0, y1 = (np.where(x <= 0, -np.inf, y) for y in (y0, y1))
    return j0, j1, y0, y1


@_quietly
def _bessel_y1(x: Any) -> Any:
    """Y1, nan at 0 in float32 and half (TF's single-precision kernel), -inf there in float64."""
    y1 = _bessel_jy(x)[3]
    return np.where((x == 0) & (x.dtype.itemsize <= 4), np.nan, y1)


# -- K0, K1 ---------------------------------------------------------------------------------------------

def _bessel_k_small(x: Any) -> tuple[Any, Any]:
    """K0 and K1 of 0 < x <= 1 by their power series."""
    q = x * x / 4
    log_term = np.log(x / 2)
    term0, term1 = np.ones_like(x), np.ones_like(x)  # q^k / k!^2 and q^k / (k! (k+1)!)
    harmonic = 0.0
    i0, k0_sum, i1_sum, k1_sum = np.ones_like(x), np.zeros_like(x), np.ones_like(x), np.full_like(x, 1 - 2 * _EULER)
    for k in range(1, 25):
        harmonic += 1 / k
        term0 = term0 * q / (k * k)
        term1 = term1 * q / (k * (k + 1))
        i0 = i0 + term0
        k0_sum = k0_sum + harmonic * term0
        i1_sum = i1_sum + term1
        k1_sum = k1_sum + (2 * harmonic + 1 / (k + 1) - 2 * _EULER) * term1
    k0 = -(log_term + _EULER) * i0 + k0_sum
    k1 = 1 / x + log_term * x / 2 * i1_sum - x / 4 * k1_sum
    return k0, k1


def _bessel_ke_integral(x: Any) -> tuple[Any, Any]:
    """K0 e^x and K1 e^x of x > 1 by the trapezoidal rule over [0, T], exp(-x (cosh T - 1)) = e^-75."""
    nodes = 48
    step = np.arccosh(1 + 75 / x) / nodes
    t = step[..., None] * np.arange(nodes + 1)
    weights = np.ones(nodes + 1)
    weights[0] = 0.5
    decay = np.exp(-x[..., None] * 2 * np.sinh(t / 2) ** 2) * weights  # cosh t - 1 without cancellation
    return step * decay.sum(axis=-1), step * (decay * np.cosh(t)).sum(axis=-1)


@_quietly
def _bessel_k(x: Any, scaled: bool) -> tuple[Any, Any]:
    """K0 and K1 (times e^x when `scaled`): inf for x <= 0, as TF's."""
    x = _as_float64(x)
    k0, k1 = np.full_like(x, np.nan), np.full_like(x, np.nan)
    small, large = (x > 0) & (x <= 1), x > 1
    if small.any():
        s0, s1 = _bessel_k_small(x[small])
        factor = np.exp(x[small]) if scaled else 1.0
        k0[small], k1[small] = s0 * factor, s1 * factor
    if large.any():
        l0, l1 = _bessel_ke_integral(x[large])
        factor = 1.0 if scaled else np.exp(-x[large])
        k0[large], k1[large] = l0 * factor, l1 * factor
    k0, k1 = (np.where(x == np.inf, 0.0, k) for k in (k0, k1))
    return np.where(x <= 0, np.inf, k0), np.where(x <= 0, np.inf, k1)


# -- Dawson, Ei, Fresnel, Spence ------------------------------------------------------------------------

@_quietly
def _dawsn(x: Any) -> Any:
    """F(x) = e^-x^2 int_0^x e^t^2 dt: Taylor below |x| = 1; above, Rybicki's sum over odd n of
    e^-(x - nh)^2 / n / sqrt(pi) (h = 0.2: error ~ exp(-(pi / 2h)^2)), shifted to the nearest even n0."""
    x = _as_float64(x)
    small = np.abs(x) < 1
    xs = np.where(small, x, 0.0)
    term, series = xs.copy(), xs.copy()
    for k in range(1, 26):
        term = term * -2 * xs * xs / (2 * k + 1)
        series = series + term
    h = 0.2
    xl = np.where(small | ~np.isfinite(x), 1.0, x)
    n0 = 2 * np.round(xl / (2 * h))
    shifted = (xl - n0 * h)[..., None]
    m = np.arange(-35, 36, 2, dtype=np.float64)
    sums = (np.exp(-(shifted - m * h) ** 2) / (n0[..., None] + m)).sum(axis=-1) / math.sqrt(math.pi)
    out = np.where(small, series, sums)
    return np.where(np.isinf(x), 0.0, np.where(np.isnan(x), np.nan, out))


@_quietly
def _expint(x: Any) -> Any:
    """Ei(x) for x > 0: gamma + ln x + sum x^k / (k k!) up to 40, e^x / x sum k! / x^k above; -inf at 0, nan
    below and at inf, as TF's."""
    x = _as_float64(x)
    small = (x > 0) & (x <= 40)
    xs = np.where(small, x, 1.0)
    term, total = np.ones_like(xs), np.zeros_like(xs)
    for k in range(1, 161):
        term = term * xs / k
        total = total + term / k
    series = _EULER + np.log(xs) + total
    xl = np.where(x > 40, x, 41.0)
    term, asymptotic = np.ones_like(xl), np.ones_like(xl)
    for k in range(1, 41):
        term = term * k / xl
        asymptotic = asymptotic + term
    out = np.where(small, series, np.exp(xl) / xl * asymptotic)
    return np.where(x == 0, -np.inf, np.where((x < 0) | ~np.isfinite(x), np.nan, out))


@_quietly
def _fresnel(x: Any) -> tuple[Any, Any]:
    """C(x) = int_0^x cos(pi t^2 / 2) dt and S(x) likewise with sin: odd; 1/2 beyond 36974, as Cephes's."""
    x = _as_float64(x)
    a = np.abs(x)
    small = a < 1.5
    xs = np.where(small, a, 0.0)
    t = math.pi / 2 * xs * xs
    term = np.ones_like(xs)
    c, s = np.zeros_like(xs), np.zeros_like(xs)
    for k in range(40):
        if k:
            term = term * t / k
        signed = term * (-1.0 if (k // 2) % 2 else 1.0) / (2 * k + 1)
        if k % 2:
            s = s + signed
        else:
            c = c + signed
    c, s = xs * c, xs * s
    xl = np.where(small | (a > 36974) | np.isnan(a), 2.0, a)
    pix2 = math.pi * xl * xl
    b = 1 - 1j * pix2
    cc = np.full_like(b, 1e300)
    d = h = 1 / b
    n = -1
    for _ in range(100):
        n += 2
        an = -n * (n + 1)
        b = b + 4
        d = 1 / (an * d + b)
        cc = b + an / cc
        h = h * cc * d
    h = (xl - 1j * xl) * h
    cs = (0.5 + 0.5j) * (1 - (np.cos(pix2 / 2) + 1j * np.sin(pix2 / 2)) * h)
    c = np.where(small, c, np.where(a > 36974, 0.5, cs.real))
    s = np.where(small, s, np.where(a > 36974, 0.5, cs.imag))
    sign = np.sign(x)
    return np.where(np.isnan(x), np.nan, sign * c), np.where(np.isnan(x), np.nan, sign * s)


def _dilog_series(z: Any) -> Any:
    """Li2(z) = sum z^k / k^2 for |z| <= 1/2 (56 terms)."""
    power, total = np.ones_like(z), np.zeros_like(z)
    for k in range(1, 57):
        power = power * z
        total = total + power / (k * k)
    return total


@_quietly
def _spence(x: Any) -> Any:
    """Spence's function Li2(1 - x) for x >= 0: the series where |1 - x| <= 1/2, the reflection Li2(w) =
    pi^2/6 - ln w ln(1 - w) - Li2(1 - w) below, Landen's Li2(w) = -Li2((x - 1)/x) - ln(x)^2 / 2 above (with the
    reflection again past x = 2). nan below 0 and at inf, as TF's."""
    x = _as_float64(x)
    pi2_6 = math.pi ** 2 / 6
    w = 1 - x
    middle = np.abs(w) <= 0.5
    low = (x >= 0) & (x < 0.5)
    out = np.where(middle, _dilog_series(np.where(middle, w, 0.0)), 0.0)
    xl = np.where(low, x, 0.25)
    reflected = pi2_6 - np.log(1 - xl) * np.log(xl) - _dilog_series(xl)
    out = np.where(low, np.where(x == 0, pi2_6, reflected), out)
    xh = np.where(x > 1.5, x, 2.0)
    u = (xh - 1) / xh
    li_u = np.where(xh <= 2, _dilog_series(np.where(xh <= 2, u, 0.0)),
                    pi2_6 - np.log(u) * np.log(1 / xh) - _dilog_series(1 / xh))
    out = np.where(x > 1.5, -li_u - 0.5 * np.log(xh) ** 2, out)
    return np.where((x < 0) | ~np.isfinite(x), np.nan, out)


@_quietly
def _bessel_i(x: Any, order: int) -> Any:
    """I0 or I1: e^|x| times the scaled function (inf past float64's range, nan at +-inf, as TF's)."""
    return np.exp(np.abs(_as_float64(x))) * bessel_scaled(x, order)


BesselI0 = special_unary_op("BesselI0", lambda x: _bessel_i(x, 0), _HALF_KERNELS)
BesselI1 = special_unary_op("BesselI1", lambda x: _bessel_i(x, 1), _HALF_KERNELS)
BesselJ0 = special_unary_op("BesselJ0", lambda x: _bessel_jy(x)[0], _HALF_KERNELS)
BesselJ1 = special_unary_op("BesselJ1", lambda x: _bessel_jy(x)[1], _HALF_KERNELS)
BesselY0 = special_unary_op("BesselY0", lambda x: _bessel_jy(x)[2], _HALF_KERNELS)
BesselY1 = special_unary_op("BesselY1", _bessel_y1, _HALF_KERNELS)
BesselK0 = special_unary_op("BesselK0", lambda x: _bessel_k(x, False)[0], _HALF_KERNELS)
BesselK1 = special_unary_op("BesselK1", lambda x: _bessel_k(x, False)[1], _HALF_KERNELS)
BesselK0e = special_unary_op("BesselK0e", lambda x: _bessel_k(x, True)[0], _HALF_KERNELS)
BesselK1e = special_unary_op("BesselK1e", lambda x: _bessel_k(x, True)[1], _HALF_KERNELS)
Dawsn = special_unary_op("Dawsn", _dawsn, FLOAT_KERNELS)
Expint = special_unary_op("Expint", _expint, FLOAT_KERNELS)
FresnelCos = special_unary_op("FresnelCos", lambda x: _fresnel(x)[0], FLOAT_KERNELS)
FresnelSin = special_unary_op("FresnelSin", lambda x: _fresnel(x)[1], FLOAT_KERNELS)
Spence = special_unary_op("Spence", _spence, FLOAT_KERNELS)


def _constant(value: float, like: Tensor) -> Tensor:
    return constant(value, dtype=like.dtype.base_dtype)


@BesselI0.gradient
def _bessel_i0_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * BesselI1(op.inputs[0])]


@BesselI1.gradient
def _bessel_i1_grad(op: Any, grad: Tensor) -> list:
    """I0(x) - I1(x) / x, and 1 at 0 as TF's (the true limit there is 1/2)."""
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * where_v2(equal(x, 0.0), _constant(1.0, x), BesselI0(x) - y / x)]


@BesselJ0.gradient
def _bessel_j0_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * -BesselJ1(op.inputs[0])]


@BesselJ1.gradient
def _bessel_j1_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * where_v2(equal(x, 0.0), _constant(0.5, x), BesselJ0(x) - y / x)]


@BesselY0.gradient
def _bessel_y0_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * -BesselY1(op.inputs[0])]


@BesselY1.gradient
def _bessel_y1_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * (BesselY0(x) - y / x)]


@BesselK0.gradient
def _bessel_k0_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * -BesselK1(op.inputs[0])]


@BesselK0e.gradient
def _bessel_k0e_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * (op.outputs[0] - BesselK1e(op.inputs[0]))]


@BesselK1.gradient
def _bessel_k1_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * (-BesselK0(x) - y / x)]


@BesselK1e.gradient
def _bessel_k1e_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * (y * (1.0 - reciprocal(x)) - BesselK0e(x))]


@Dawsn.gradient
def _dawsn_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * (1.0 - 2 * x * y)]


@Expint.gradient
def _expint_grad(op: Any, grad: Tensor) -> list:
    x = op.inputs[0]
    with control_dependencies([grad]):
        return [grad * Exp(x) / x]


@FresnelCos.gradient
def _fresnel_cos_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * Cos((np.pi / 2.0) * Square(op.inputs[0]))]


@FresnelSin.gradient
def _fresnel_sin_grad(op: Any, grad: Tensor) -> list:
    with control_dependencies([grad]):
        return [grad * Sin((np.pi / 2.0) * Square(op.inputs[0]))]


@Spence.gradient
def _spence_grad(op: Any, grad: Tensor) -> list:
    """log(x) / (1 - x), and -1 at x = 1 (its limit)."""
    x = op.inputs[0]
    with control_dependencies([grad]):
        partial = Log(x) / (1 - x)
        return [grad * where_v2(equal(x, 1.0), -ones_like(x), partial)]


@tf_export("math.bessel_i0", "math.special.bessel_i0")
def bessel_i0(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function of the first kind of order 0."""
    with name_scope(name, "bessel_i0", [x]):
        return BesselI0(x)


@tf_export("math.bessel_i1", "math.special.bessel_i1")
def bessel_i1(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function of the first kind of order 1."""
    with name_scope(name, "bessel_i1", [x]):
        return BesselI1(x)


@tf_export("math.special.bessel_j0")
def bessel_j0(x: Any, name: str | None = None) -> Tensor:
    """The Bessel function of the first kind of order 0."""
    with name_scope(name, "bessel_j0", [x]):
        return BesselJ0(x)


@tf_export("math.special.bessel_j1")
def bessel_j1(x: Any, name: str | None = None) -> Tensor:
    """The Bessel function of the first kind of order 1."""
    with name_scope(name, "bessel_j1", [x]):
        return BesselJ1(x)


@tf_export("math.special.bessel_y0")
def bessel_y0(x: Any, name: str | None = None) -> Tensor:
    """The Bessel function of the second kind of order 0 (-inf for x <= 0, as TF's)."""
    with name_scope(name, "bessel_y0", [x]):
        return BesselY0(x)


@tf_export("math.special.bessel_y1")
def bessel_y1(x: Any, name: str | None = None) -> Tensor:
    """The Bessel function of the second kind of order 1 (-inf for x <= 0, as TF's)."""
    with name_scope(name, "bessel_y1", [x]):
        return BesselY1(x)


@tf_export("math.special.bessel_k0")
def bessel_k0(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function of the second kind of order 0."""
    with name_scope(name, "bessel_k0", [x]):
        return BesselK0(x)


@tf_export("math.special.bessel_k0e")
def bessel_k0e(x: Any, name: str | None = None) -> Tensor:
    """K0(x) e^x, finite where K0 underflows."""
    with name_scope(name, "bessel_k0e", [x]):
        return BesselK0e(x)


@tf_export("math.special.bessel_k1")
def bessel_k1(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function of the second kind of order 1."""
    with name_scope(name, "bessel_k1", [x]):
        return BesselK1(x)


@tf_export("math.special.bessel_k1e")
def bessel_k1e(x: Any, name: str | None = None) -> Tensor:
    """K1(x) e^x, finite where K1 underflows."""
    with name_scope(name, "bessel_k1e", [x]):
        return BesselK1e(x)


@tf_export("math.special.dawsn")
def dawsn(x: Any, name: str | None = None) -> Tensor:
    """Dawson's integral e^-x^2 int_0^x e^t^2 dt."""
    with name_scope(name, "dawsn", [x]):
        return Dawsn(x)


@tf_export("math.special.expint")
def expint(x: Any, name: str | None = None) -> Tensor:
    """The exponential integral Ei(x) (nan for x < 0, as TF's)."""
    with name_scope(name, "expint", [x]):
        return Expint(x)


@tf_export("math.special.fresnel_cos")
def fresnel_cos(x: Any, name: str | None = None) -> Tensor:
    """The Fresnel integral int_0^x cos(pi t^2 / 2) dt."""
    with name_scope(name, "fresnel_cos", [x]):
        return FresnelCos(x)


@tf_export("math.special.fresnel_sin")
def fresnel_sin(x: Any, name: str | None = None) -> Tensor:
    """The Fresnel integral int_0^x sin(pi t^2 / 2) dt."""
    with name_scope(name, "fresnel_sin", [x]):
        return FresnelSin(x)


@tf_export("math.special.spence")
def spence(x: Any, name: str | None = None) -> Tensor:
    """Spence's function int_1^x ln(t) / (1 - t) dt, the dilogarithm of 1 - x."""
    with name_scope(name, "spence", [x]):
        return Spence(x)
