"""Random ops whose samples take a variable number of draws: gamma (RandomGamma, StatelessRandomGammaV3, with
RandomGammaGrad for the gradient by alpha), Poisson (RandomPoissonV2, StatelessRandomPoisson), binomial
(StatelessRandomBinomial; the stateful form lives with tf.random.Generator), the parameterized truncated
normal (StatelessParameterizedTruncatedNormal), plus the stateless seed utilities fold_in and split.

TF gives every output element its own Philox stream, 256 samples after the previous element's, and runs a
rejection loop on it: Marsaglia and Tsang's squeeze for gamma, Knuth's product of uniforms below rate 10 and
Hormann's transformed rejection above for Poisson, inversion (a sum of geometric draws, streams 42 samples
apart) below mean 10 and Hormann's BTRS above for binomial, taking two doubles per block and using them last
first.
`_ElementStreams` keeps that state for all elements at once; each loop round advances every element still
drawing by one step, so the values are TF's and Python loops only over rounds (a handful), never elements.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import shape_ops
from tensorweave.ops.elementwise_ops import maximum
from tensorweave.ops.fill_ops import ones
from tensorweave.ops.manipulation_ops import concat, stack
from tensorweave.ops.random_ops import (
    _RESERVED_SAMPLES_PER_OUTPUT,
    _SEED_ATTRS,
    _box_muller_double,
    _dims,
    _fill,
    _key_counter,
    _normal_distribution,
    _shape_tensor,
    _stateless_key_counter_alg,
    _stateless_random_get_key_counter,
    _uint64_to_double,
    _uniform_distribution,
    _values_per_block,
    op_seeds,
    philox_state,
    stateless_random_uniform,
)
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_helpers import broadcast_shapes, shape_from_tensor, with_rank
from tensorweave.ops.shape_ops import broadcast_dynamic_shape, broadcast_to, reshape, shape
from tensorweave.ops.special_kernels import lgamma64
from tensorweave.ops.special_math_ops import igamma_derivatives
from tensorweave.platform.tf_export import tf_export


class _ElementStreams:
    """One Philox stream per output element, drawn from as TF's kernels draw: a block of two uniform doubles or
    two Box-Muller normals at a time, its values used last first, normals and uniforms from one stream."""

    def __init__(self, key: tuple[int, int], counter: int, count: int, starts: np.ndarray | None = None) -> None:
        """`count` streams, 256 samples apart unless `starts` gives each stream's first block."""
        self.key, self.counter = key, counter
        self.starts = (np.arange(count, dtype=np.uint64) * np.uint64(_RESERVED_SAMPLES_PER_OUTPUT) if starts is None
                       else starts.astype(np.uint64))
        self.blocks = np.zeros(count, np.uint64)
        self.uniforms, self.uniforms_left = np.zeros((count, 2)), np.zeros(count, np.int8)
        self.normals, self.normals_left = np.zeros((count, 2)), np.zeros(count, np.int8)

    def _draw(self, which: np.ndarray, values: np.ndarray, left: np.ndarray, distribution: Any) -> np.ndarray:
        refill = which[left[which] == 0]
        if refill.size:
            values[refill] = _fill(self.key, self.counter, self.starts[refill] + self.blocks[refill], 2, np.float64,
                                   distribution)
            self.blocks[refill] += np.uint64(1)
            left[refill] = 2
        left[which] -= 1
        return values[which, left[which]]

    def uniform(self, which: np.ndarray) -> np.ndarray:
        return self._draw(which, self.uniforms, self.uniforms_left, _uint64_to_double)

    def normal(self, which: np.ndarray) -> np.ndarray:
        return self._draw(which, self.normals, self.normals_left, _box_muller_double)


def _gamma_samples(key: tuple[int, int], counter: int, alphas: np.ndarray, num_samples: int) -> np.ndarray:
    """[num_samples, alphas] gamma(alpha, 1) samples in double; output `a * num_samples + s` is sample s of
    alpha a. alpha = 1 is -log(1 - u); else Marsaglia-Tsang on d = alpha - 1/3 (alpha + 2/3 below one, the
    result then scaled by u^(1/alpha))."""
    alpha = np.repeat(alphas.astype(np.float64), num_samples)
    streams = _ElementStreams(key, counter, alpha.size)
    out = np.empty(alpha.size)
    exponential = np.flatnonzero(alpha == 1.0)
    out[exponential] = -np.log(1.0 - streams.uniform(exponential))
    below_one = alpha < 1
    d = alpha + np.where(below_one, 2.0 / 3, -1.0 / 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = 1.0 / 3 / np.sqrt(d)
    active = np.flatnonzero(alpha != 1.0)
    while active.size:
        x = streams.normal(active)
        v = 1 + c[active] * x
        trying = ~(v <= 0)  # v <= 0 draws a new normal; a NaN v (alpha <= 0) goes on to a NaN sample, as TF's
        trial, x, v = active[trying], x[trying], v[trying] ** 3
        u = streams.uniform(trial)
        with np.errstate(invalid="ignore", divide="ignore"):
            accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (np.log(u) < 0.5 * x * x + d[trial] * (1 - v + np.log(v)))
        done, v = trial[accept], v[accept]
        result = d[done] * v
        small = below_one[done]
        result[small] *= streams.uniform(done[small]) ** (1 / alpha[done[small]])
        out[done] = result
        active = np.setdiff1d(active, done, assume_unique=True)
    return out.reshape(alphas.size, num_samples).T


def _poisson_samples(key: tuple[int, int], counter: int, rates: np.ndarray, num_samples: int,
                     highest: float) -> np.ndarray:
    """[num_samples, rates] Poisson samples as doubles: Knuth's product of uniforms for rate < 10, Hormann's
    transformed rejection (PTRS) above."""
    rate = np.repeat(rates.astype(np.float64), num_samples)
    streams = _ElementStreams(key, counter, rate.size)
    out = np.empty(rate.size)
    small = np.flatnonzero(rate < 10)
    exp_neg_rate = np.exp(-rate[small])
    product, count = np.ones(small.size), np.zeros(small.size)
    position = np.arange(small.size)
    while position.size:
        product[position] *= streams.uniform(small[position])
        stop = (product[position] <= exp_neg_rate[position]) & (count[position] <= highest)
        out[small[position[stop]]] = count[position[stop]]
        position = position[~stop]
        count[position] += 1
    active = np.flatnonzero(~(rate < 10))
    log_rate = np.log(rate, where=rate > 0, out=np.zeros_like(rate))
    b = 0.931 + 2.53 * np.sqrt(np.maximum(rate, 0))
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while active.size:
        u = streams.uniform(active) - 0.5
        v = streams.uniform(active)
        u_shifted = 0.5 - np.abs(u)
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.floor((2 * a[active] / u_shifted + b[active]) * u + rate[active] + 0.43)
            fits = ~(k > highest)
            quick = fits & (u_shifted >= 0.07) & (v <= 0.9277 - 3.6224 / (b[active] - 2))
            rejected = ~fits | quick | (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
            s = np.log(v * inv_alpha[active] / (a[active] / (u_shifted * u_shifted) + b[active]))
            t = -rate[active] + k * log_rate[active] - lgamma64(np.where(k < 0, 0, k) + 1)
        accept = quick | (~rejected & (s <= t))
        out[active[accept]] = k[accept]
        active = active[~accept]
    return out.reshape(rates.size, num_samples).T


def _samples_then_params_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_from_tensor(ctx, 0).concatenate(ctx.input_shape(1))]


def _sample_count(ctx: OpKernelContext, shape: Any) -> tuple[tuple[int, ...], int]:
    if np.ndim(shape) != 1:
        raise errors.InvalidArgumentError(ctx.node_def, None, "shape must be a vector of {int32,int64}, got shape: "
                                          f"{tensor_shape.shape_string(np.shape(shape))}")
    dims = _dims(ctx, shape)
    return dims, int(np.prod(dims))


# -- RandomGamma, RandomGammaGrad ---------------------------------------------------------------------------

RandomGamma = Op("RandomGamma", inputs=["shape: S", "alpha: T"], outputs=["output: T"],
                 attrs=_SEED_ATTRS + ["S: {int32, int64}", "T: {half, float, double}"], is_stateful=True)
RandomGamma.shape(_samples_then_params_shape)


@RandomGamma.kernel("CPU", state=philox_state, expensive=True)
def _random_gamma(ctx: OpKernelContext, shape: Any, alpha: Any) -> np.ndarray:
    dims, num_samples = _sample_count(ctx, shape)
    if num_samples == 0 or alpha.size == 0:
        return np.zeros(dims + alpha.shape, alpha.dtype)
    generator = ctx.state
    counter = generator.reserve_outputs(num_samples * alpha.size)
    samples = _gamma_samples(generator.key, counter, alpha.reshape(-1), num_samples)
    return samples.astype(alpha.dtype).reshape(dims + alpha.shape)


@RandomGamma.gradient
def _random_gamma_grad(op: Any, grad: Tensor) -> list:
    """d sample / d alpha by implicit reparameterization, summed over the sample dimensions."""
    shape_tensor, alpha = op.inputs
    sample_rank = shape(shape_tensor)[0]
    leading_ones = reshape(alpha, _concat_ones(sample_rank, shape(alpha)))
    partial = RandomGammaGrad(leading_ones, op.outputs[0])
    return [None, reduce_sum(grad * partial, axis=tf_range(sample_rank))]


def _concat_ones(count: Tensor, dims: Tensor) -> Tensor:
    """The shape `[1] * count + dims`: alpha's dims after one unit dim per sample dim."""
    return concat([ones([count], dtypes.int32), dims], 0)


RandomGammaGrad = Op("RandomGammaGrad", inputs=["alpha: T", "sample: T"], outputs=["output: T"],
                     attrs=["T: {float, double}"])


@RandomGammaGrad.shape
def _random_gamma_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [broadcast_shapes(ctx.input_shape(0), ctx.input_shape(1))]


@RandomGammaGrad.kernel("CPU")
def _random_gamma_grad_kernel(ctx: OpKernelContext, alpha: Any, sample: Any) -> np.ndarray:
    """-(dP(a, x)/da) / (dP(a, x)/dx), Eigen's forward-mode derivative."""
    return igamma_derivatives(alpha, sample)[1]


NotDifferentiable("RandomGammaGrad")


@tf_export("random.gamma", "random_gamma")
def random_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = dtypes.float32, seed: int | None = None,
                 name: str | None = None) -> Tensor:
    """Samples of Gamma(alpha, beta) (shape, rate), `shape` of them per broadcast (alpha, beta) pair, floored at
    the smallest normal number of `dtype` as TF's."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        alpha = convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        alpha_broadcast = broadcast_to(alpha, broadcast_dynamic_shape(shape_ops.shape(alpha), shape_ops.shape(beta)))
        seed1, seed2 = op_seeds(seed)
        samples = RandomGamma(shape, alpha_broadcast, seed=seed1, seed2=seed2)
        return maximum(np.finfo(dtype.as_numpy_dtype).tiny, samples / beta)


# -- RandomPoissonV2 ----------------------------------------------------------------------------------------

_POISSON_TYPES = "{half, float, double, int32, int64}"
RandomPoissonV2 = Op("RandomPoissonV2", inputs=["shape: S", "rate: R"], outputs=["output: dtype"],
                     attrs=_SEED_ATTRS + ["S: {int32, int64}", f"R: {_POISSON_TYPES} = DT_DOUBLE",
                                          f"dtype: {_POISSON_TYPES} = DT_INT64"], is_stateful=True)
RandomPoissonV2.shape(_samples_then_params_shape)
NotDifferentiable("RandomPoissonV2")


def _highest(dtype: dtypes.DType) -> float:
    """The largest value of the output type, which TF's sampler never exceeds."""
    return float(np.finfo(dtype.as_numpy_dtype).max if dtype.is_floating else np.iinfo(dtype.as_numpy_dtype).max)


@RandomPoissonV2.kernel("CPU", state=philox_state, expensive=True)
def _random_poisson(ctx: OpKernelContext, shape: Any, rate: Any, dtype: dtypes.DType) -> np.ndarray:
    dims, num_samples = _sample_count(ctx, shape)
    if num_samples == 0 or rate.size == 0:
        return np.zeros(dims + rate.shape, dtype.as_numpy_dtype)
    generator = ctx.state
    counter = generator.reserve_outputs(num_samples * rate.size)
    samples = _poisson_samples(generator.key, counter, rate.reshape(-1), num_samples, _highest(dtype))
    return samples.astype(dtype.as_numpy_dtype).reshape(dims + rate.shape)


@tf_export("random.poisson", "random_poisson")
def random_poisson(lam: Any, shape: Any, dtype: Any = dtypes.float32, seed: int | None = None,
                   name: str | None = None) -> Tensor:
    """Samples of Poisson(lam), `shape` of them per rate."""
    with name_scope(name, "random_poisson", [lam, shape]):
        shape = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        seed1, seed2 = op_seeds(seed)
        return RandomPoissonV2(shape, lam, dtype=dtype, seed=seed1, seed2=seed2)


# -- StatelessRandomGammaV3, StatelessRandomPoisson ---------------------------------------------------------


StatelessRandomGammaV3 = Op("StatelessRandomGammaV3",
                            inputs=["shape: shape_dtype", "key: uint64", "counter: uint64", "alg: int32",
                                    "alpha: dtype"], outputs=["output: dtype"],
                            attrs=["dtype: {half, float, double}", "shape_dtype: {int32, int64} = DT_INT32"])
StatelessRandomPoisson = Op("StatelessRandomPoisson", inputs=["shape: T", "seed: Tseed", "lam: Rtype"],
                            outputs=["output: dtype"],
                            attrs=[f"Rtype: {_POISSON_TYPES}", f"dtype: {_POISSON_TYPES}", "T: {int32, int64}",
                                   "Tseed: {int32, int64} = DT_INT64"])
NotDifferentiable("StatelessRandomPoisson")


@StatelessRandomGammaV3.shape
def _stateless_gamma_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 1)
    with_rank(ctx.input_shape(2), 1)
    with_rank(ctx.input_shape(3), 0)
    return [shape_from_tensor(ctx, 0)]


@StatelessRandomPoisson.shape
def _stateless_poisson_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    seed = with_rank(ctx.input_shape(1), 1)
    if seed[0] is not None and tensor_shape.dimension_value(seed[0]) != 2:
        raise ValueError(f"Dimension must be 2 but is {tensor_shape.dimension_value(seed[0])}")
    return [shape_from_tensor(ctx, 0)]


def _per_parameter_count(ctx: OpKernelContext, dims: tuple[int, ...], params: Any) -> int:
    """How many samples each parameter gets: the output's trailing dims must be the parameters'."""
    if params.ndim > len(dims) or tuple(dims[len(dims) - params.ndim:]) != params.shape:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Shape passed in must end with broadcasted shape.")
    return int(np.prod(dims[:len(dims) - params.ndim]))


@StatelessRandomGammaV3.kernel("CPU", expensive=True)
def _stateless_random_gamma(ctx: OpKernelContext, shape: Any, key: Any, counter: Any, alg: Any,
                            alpha: Any) -> np.ndarray:
    dims = _dims(ctx, shape)
    num_samples = _per_parameter_count(ctx, dims, alpha)
    if num_samples == 0 or alpha.size == 0:
        return np.zeros(dims, alpha.dtype)
    samples = _gamma_samples(*_key_counter(ctx, key, counter, alg), alpha.reshape(-1), num_samples)
    return samples.astype(alpha.dtype).reshape(dims)


@StatelessRandomPoisson.kernel("CPU", expensive=True)
def _stateless_random_poisson(ctx: OpKernelContext, shape: Any, seed: Any, lam: Any,
                              dtype: dtypes.DType) -> np.ndarray:
    dims = _dims(ctx, shape)
    lam = np.broadcast_to(lam, dims[len(dims) - np.ndim(lam):]) if np.ndim(lam) <= len(dims) else lam
    num_samples = _per_parameter_count(ctx, dims, lam)
    if num_samples == 0 or lam.size == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    key, counter = _seed_key_counter(ctx, seed)
    samples = _poisson_samples(key, counter, lam.reshape(-1), num_samples, _highest(dtype))
    return samples.astype(dtype.as_numpy_dtype).reshape(dims)


def _seed_key_counter(ctx: OpKernelContext, seed: Any) -> tuple[tuple[int, int], int]:
    """The Philox key and counter of a V1 stateless op's seed pair (TF's GenerateKey)."""
    key, counter = _stateless_random_get_key_counter(ctx, seed)
    return _key_counter(ctx, key, counter, np.int32(1))


@tf_export("random.stateless_gamma")
def stateless_random_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None, dtype: Any = dtypes.float32,
                           name: str | None = None) -> Tensor:
    """Deterministic Gamma(alpha, beta) samples of `shape` (ending with the broadcast shape of alpha and beta)
    for the seed pair `seed`."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]):
        shape = _shape_tensor(shape)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        alpha_broadcast = broadcast_to(alpha, broadcast_dynamic_shape(shape_ops.shape(alpha), shape_ops.shape(beta)))
        key, counter, alg = _stateless_key_counter_alg(seed, "auto_select")
        samples = StatelessRandomGammaV3(shape, key, counter, alg, alpha_broadcast)
        result = maximum(np.finfo(dtype.as_numpy_dtype).tiny, samples / beta)
        result.set_shape(tensor_util.constant_value_as_shape(shape))
        return result


@tf_export("random.stateless_poisson")
def stateless_random_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = dtypes.int32,
                             name: str | None = None) -> Tensor:
    """Deterministic Poisson(lam) samples of `shape` (ending with lam's shape) for the seed pair `seed`."""
    with name_scope(name, "stateless_random_poisson", [shape, seed, lam]):
        shape = _shape_tensor(shape)
        result = StatelessRandomPoisson(shape, seed, lam, dtype=dtype)
        result.set_shape(tensor_util.constant_value_as_shape(shape))
        return result


# -- StatelessRandomBinomial --------------------------------------------------------------------------------

# Stirling's series tail log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(sqrt(2 pi)), tabulated below ten.
_STIRLING_TAILS = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                            0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                            0.00925546218271273, 0.00833056343336287])
_INVERSION_SAMPLES = 42  # a stream's reserve when the mean is below ten (ten standard deviations past it)


def _stirling_tail(k: np.ndarray) -> np.ndarray:
    squared = (k + 1) * (k + 1)
    with np.errstate(all="ignore"):
        series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / squared) / squared) / (k + 1)
    return np.where(k <= 9, _STIRLING_TAILS[np.clip(k, 0, 9).astype(np.intp)], series)


def _binomial_inversion(streams: _ElementStreams, which: np.ndarray, n: np.ndarray, p: np.ndarray,
                        out: np.ndarray) -> None:
    """Counts geometric waits (ceil(log u / log(1 - p))) until their sum passes n, for the elements `which`."""
    n, p = n[which], p[which]
    geom_sum, successes = np.zeros(which.size), np.zeros(which.size)
    log_q = np.log1p(-p)
    position = np.arange(which.size)
    while position.size:
        with np.errstate(divide="ignore"):
            geom_sum[position] += np.ceil(np.log(streams.uniform(which[position])) / log_q[position])
        stop = geom_sum[position] > n[position]
        out[which[position[stop]]] = successes[position[stop]]
        position = position[~stop]
        successes[position] += 1


def _binomial_btrs(streams: _ElementStreams, which: np.ndarray, n: np.ndarray, p: np.ndarray,
                   out: np.ndarray) -> None:
    """Hormann's transformed rejection with squeeze, as TF's btrs (whose ratio test lacks one log), for the
    elements `which`."""
    n, p = n[which], p[which]
    stddev = np.sqrt(n * p * (1 - p))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((n + 1) * p)
    bound_m = (m + 0.5) * np.log((m + 1) / (r * (n - m + 1))) + _stirling_tail(m) + _stirling_tail(n - m)
    position = np.arange(which.size)
    while position.size:
        u = streams.uniform(which[position]) - 0.5
        v = streams.uniform(which[position])
        nn, aa, bb = n[position], a[position], b[position]
        us = 0.5 - np.abs(u)
        with np.errstate(all="ignore"):
            k = np.floor((2 * aa / us + bb) * u + c[position])
            quick = (us >= 0.07) & (v <= v_r[position])
            in_range = (k >= 0) & (k <= nn)
            ratio = np.log(v * alpha[position] / (aa / (us * us) + bb))
            mm, rr = m[position], r[position]
            upper = (bound_m[position] + (nn + 1) * np.log((nn - mm + 1) / (nn - k + 1))
                     + (k + 0.5) * np.log(rr * (nn - k + 1) / (k + 1)) - _stirling_tail(k) - _stirling_tail(nn - k))
        accept = quick | (in_range & (ratio <= upper))
        out[which[position[accept]]] = k[accept]
        position = position[~accept]


def binomial_layout(ctx: OpKernelContext, shape: Any, counts: Any, probs: Any) -> tuple[tuple[int, ...], int, int]:
    """The output dims, parameter count (batches) and samples per parameter, after TF's checks."""
    try:
        batch_shape = np.broadcast_shapes(counts.shape, probs.shape)
    except ValueError:
        raise errors.InvalidArgumentError(ctx.node_def, None, "counts and probs must have compatible batch "
                                          f"dimensions: {tensor_shape.shape_string(counts.shape)} vs. "
                                          f"{tensor_shape.shape_string(probs.shape)}") from None
    return _batched_layout(ctx, shape, batch_shape)


def _batched_layout(ctx: OpKernelContext, shape: Any, batch_shape: tuple[int, ...]) -> tuple[tuple[int, ...], int, int]:
    """The output dims of `shape`, which must end with the parameters' broadcast `batch_shape`; the number of
    parameter sets (batches) and samples per set."""
    if np.ndim(shape) != 1:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Input shape should be a vector, got shape: "
                                          f"{tensor_shape.shape_string(np.shape(shape))}")
    dims = _dims(ctx, shape)
    if len(batch_shape) > len(dims) or dims[len(dims) - len(batch_shape):] != batch_shape:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Shape passed in must end with broadcasted shape.")
    return dims, int(np.prod(batch_shape)), int(np.prod(dims[:len(dims) - len(batch_shape)]))


def binomial_samples(key: tuple[int, int], counter: int, dims: tuple[int, ...], num_batches: int,
                     samples_per_batch: int, counts: Any, probs: Any, dtype: dtypes.DType) -> np.ndarray:
    """TF's RandomBinomialFunctor: output element (sample s, parameter b) has its own stream at block
    (b * samples_per_batch + s) * 256 for BTRS or * 42 for inversion; p above one half samples the failures."""
    if num_batches * samples_per_batch == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    batch_shape = np.broadcast_shapes(counts.shape, probs.shape)
    count = np.repeat(np.broadcast_to(counts, batch_shape).reshape(-1), samples_per_batch)
    prob = np.repeat(np.broadcast_to(probs, batch_shape).reshape(-1), samples_per_batch)
    with np.errstate(all="ignore"):
        flip = prob > 0.5
        q = np.where(flip, prob.dtype.type(1) - prob, prob)  # in the parameters' type, as TF
        btrs = count * q >= 10
        n, p = count.astype(np.float64), q.astype(np.float64)
    out = np.full(count.size, np.nan)
    zero, full = (n <= 0) | ~(prob > 0), prob >= 1
    sampled = ~zero & ~full & ~np.isnan(p)
    starts = np.arange(count.size, dtype=np.uint64) * np.where(btrs, _RESERVED_SAMPLES_PER_OUTPUT,
                                                               _INVERSION_SAMPLES).astype(np.uint64)
    streams = _ElementStreams(key, counter, count.size, starts)
    _binomial_btrs(streams, np.flatnonzero(sampled & btrs), n, p, out)
    _binomial_inversion(streams, np.flatnonzero(sampled & ~btrs), n, p, out)
    out = np.where(sampled & flip, n - out, out)
    out[zero & ~np.isnan(prob)] = 0
    out[full & ~zero] = n[full & ~zero]
    with np.errstate(invalid="ignore"):
        values = out.astype(dtype.as_numpy_dtype)
    return values.reshape(num_batches, samples_per_batch).T.reshape(dims)


_BINOMIAL_TYPES = "{half, float, double, int32, int64}"
StatelessRandomBinomial = Op("StatelessRandomBinomial", inputs=["shape: S", "seed: Tseed", "counts: T", "probs: T"],
                             outputs=["output: dtype"],
                             attrs=["S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64",
                                    f"T: {_BINOMIAL_TYPES} = DT_DOUBLE", f"dtype: {_BINOMIAL_TYPES} = DT_INT64"])
NotDifferentiable("StatelessRandomBinomial")


@StatelessRandomBinomial.shape
def _stateless_sample_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The `shape` input's, given a vector seed."""
    with_rank(ctx.input_shape(1), 1)
    return [shape_from_tensor(ctx, 0)]


@StatelessRandomBinomial.kernel("CPU", expensive=True)
def _stateless_random_binomial(ctx: OpKernelContext, shape: Any, seed: Any, counts: Any, probs: Any,
                               dtype: dtypes.DType) -> np.ndarray:
    if np.shape(seed) != (2,):
        raise errors.InvalidArgumentError(ctx.node_def, None, "seed must have shape [2], not "
                                          f"{tensor_shape.shape_string(np.shape(seed))}")
    dims, num_batches, samples_per_batch = binomial_layout(ctx, shape, counts, probs)
    if num_batches * samples_per_batch == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    key, counter = _seed_key_counter(ctx, seed)
    return binomial_samples(key, counter, dims, num_batches, samples_per_batch, counts, probs, dtype)


@tf_export("random.stateless_binomial")
def stateless_random_binomial(shape: Any, seed: Any, counts: Any, probs: Any, output_dtype: Any = dtypes.int32,
                              name: str | None = None) -> Tensor:
    """Deterministic Binomial(counts, probs) draws of `shape` (ending with the parameters' broadcast shape) for
    the seed pair `seed`."""
    with name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]):
        shape = _shape_tensor(shape)
        probs = convert_to_tensor(probs, dtype_hint=dtypes.float32, name="probs")
        counts = convert_to_tensor(counts, dtype_hint=probs.dtype, name="counts")
        result = StatelessRandomBinomial(shape, seed, counts, probs, dtype=output_dtype)
        result.set_shape(tensor_util.constant_value_as_shape(shape))
        return result


# -- StatelessParameterizedTruncatedNormal ------------------------------------------------------------------

_RANDN, _UNIFORM, _EXPONENTIAL = 0, 1, 2
_RANDN_INSIDE_BOUNDS = 1.3  # standard deviations of room on one side above which normals are drawn and rejected


class _TruncatedNormalParameters:
    """Per parameter set (batch), in the output type as TF computes them: the bounds in standard units (made
    one-sided below where possible, by flipping the sign of stddev) and the sampler TF picks for them."""

    def __init__(self, means: np.ndarray, stddevs: np.ndarray, minvals: np.ndarray, maxvals: np.ndarray) -> None:
        t = means.dtype.type
        with np.errstate(all="ignore"):
            flip = (np.isinf(minvals) & (minvals < 0)) | (maxvals < means)
            self.minvals, maxvals = np.where(flip, maxvals, minvals), np.where(flip, minvals, maxvals)
            self.stddevs, self.means = np.where(flip, -stddevs, stddevs), means
            self.norm_min = (self.minvals - means) / self.stddevs
            self.norm_max = (maxvals - means) / self.stddevs
            root = np.sqrt(self.norm_min * self.norm_min + t(4))
            cutoff = t(2) * np.exp(t(0.5) + (self.norm_min * (self.norm_min - root)) / t(4)) / (self.norm_min + root)
            self.diff = self.norm_max - self.norm_min
            self.plus = np.where(self.norm_min < 0, t(0), self.norm_min * self.norm_min)
            self.alpha = (self.norm_min + root) / t(2)
        inside = t(_RANDN_INSIDE_BOUNDS)
        randn = ((self.norm_min < -inside) & (self.norm_max >= 0)) | ((self.norm_max > inside) & (self.norm_min <= 0))
        self.sampler = np.where(randn, _RANDN, np.where(self.diff < cutoff, _UNIFORM, _EXPONENTIAL))


def _truncated_normal_units(key: tuple[int, int], counter: int, params: _TruncatedNormalParameters,
                            batches: np.ndarray, starts: np.ndarray, units: int, sampler: int,
                            dtype: dtypes.DType) -> tuple[np.ndarray, np.ndarray, int]:
    """The candidates ([batches, units * m], in stream order) and which are accepted, of `units` rounds of one
    sampler from each batch's start block; m candidates a round, and the blocks a round takes."""
    per_block = _values_per_block(dtype)
    blocks_per_unit = 2 if sampler == _UNIFORM else 1
    offsets = starts[:, None] + np.arange(units * blocks_per_unit, dtype=np.uint64)
    distribution = _normal_distribution(dtype) if sampler == _RANDN else _uniform_distribution(dtype)
    t = dtype.as_numpy_dtype
    draws = _fill(key, counter, offsets.reshape(-1), per_block, t, distribution).astype(t)
    draws = draws.reshape(batches.size, units, blocks_per_unit, per_block)
    column = (lambda values: values[batches][:, None, None])  # noqa: E731
    norm_min, norm_max = column(params.norm_min), column(params.norm_max)
    with np.errstate(all="ignore"):
        if sampler == _RANDN:
            z = draws[:, :, 0]
            accept = (z >= norm_min) & (z <= norm_max)
        elif sampler == _UNIFORM:
            z = draws[:, :, 0] * column(params.diff) + norm_min
            g = (column(params.plus) - z * z) / t(2)
            accept = draws[:, :, 1] <= np.exp(g)
        else:
            pairs = draws[:, :, 0].reshape(batches.size, units, per_block // 2, 2)
            alpha = column(params.alpha)
            z = -np.log(pairs[..., 0]) / alpha + norm_min
            x = np.where(norm_min < alpha, alpha - z, norm_min - alpha)
            accept = (pairs[..., 1] <= np.exp(-x * x / t(2))) & (z < norm_max)
    return z.reshape(batches.size, -1), accept.reshape(batches.size, -1), blocks_per_unit


def _truncated_normal_batches(key: tuple[int, int], counter: int, params: _TruncatedNormalParameters,
                              batches: np.ndarray, starts: np.ndarray, samples: int,
                              dtype: dtypes.DType) -> tuple[np.ndarray, np.ndarray]:
    """For each batch drawn from its start block: the blocks it takes and its first `samples` accepted values
    (in standard units), each sampler's batches together, rounds doubled until all have enough."""
    taken = np.zeros(batches.size, np.uint64)
    values = np.zeros((batches.size, samples), dtype.as_numpy_dtype)
    per_block = _values_per_block(dtype)
    for sampler in (_RANDN, _UNIFORM, _EXPONENTIAL):
        pending = np.flatnonzero(params.sampler[batches] == sampler)
        per_unit = per_block // 2 if sampler == _EXPONENTIAL else per_block
        units = -(-3 * samples // per_unit) + 1
        while pending.size:
            z, accept, blocks_per_unit = _truncated_normal_units(key, counter, params, batches[pending],
                                                                 starts[pending], units, sampler, dtype)
            counts = np.cumsum(accept, axis=1)
            enough = counts[:, -1] >= samples
            done = pending[enough]
            last = np.argmax(counts[enough] >= samples, axis=1)
            taken[done] = (last // per_unit + 1).astype(np.uint64) * np.uint64(blocks_per_unit)
            chosen = accept[enough] & (counts[enough] <= samples)
            values[done] = z[enough][chosen].reshape(done.size, samples)
            pending = pending[~enough]
            units *= 2
    return taken, values


def _parameterized_truncated_normal(key: tuple[int, int], counter: int, params: _TruncatedNormalParameters,
                                    num_batches: int, samples: int, dtype: dtypes.DType) -> np.ndarray:
    """[samples, batches] values. TF draws the batches one after another from one stream, each starting at a
    fresh block, so where a batch starts depends on how many blocks those before it took: solved as a fixed
    point, redrawing only the batches whose start moved (most take the same number of blocks from anywhere)."""
    starts = np.zeros(num_batches, np.uint64)
    taken, values = _truncated_normal_batches(key, counter, params, np.arange(num_batches), starts, samples, dtype)
    while True:
        moved = np.concatenate([[0], np.cumsum(taken)[:-1]]).astype(np.uint64)
        changed = np.flatnonzero(moved != starts)
        if not changed.size:
            break
        starts = moved
        taken[changed], values[changed] = _truncated_normal_batches(key, counter, params, changed, starts[changed],
                                                                    samples, dtype)
    return (values * params.stddevs[:, None] + params.means[:, None]).T


StatelessParameterizedTruncatedNormal = Op(
    "StatelessParameterizedTruncatedNormal",
    inputs=["shape: S", "seed: Tseed", "means: dtype", "stddevs: dtype", "minvals: dtype", "maxvals: dtype"],
    outputs=["output: dtype"],
    attrs=["S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64", "dtype: {half, float, double}"])
NotDifferentiable("StatelessParameterizedTruncatedNormal")
StatelessParameterizedTruncatedNormal.shape(_stateless_sample_shape)


@StatelessParameterizedTruncatedNormal.kernel("CPU", expensive=True)
def _stateless_parameterized_truncated_normal(ctx: OpKernelContext, shape: Any, seed: Any, means: Any, stddevs: Any,
                                              minvals: Any, maxvals: Any, dtype: dtypes.DType) -> np.ndarray:
    """Values equal TF's wherever TF runs the op as one shard (up to some tens of values); TF's own values for
    larger outputs depend on how many threads it splits them over."""
    if np.shape(seed) != (2,):
        raise errors.InvalidArgumentError(ctx.node_def, None, "seed must have shape [2], not "
                                          f"{tensor_shape.shape_string(np.shape(seed))}")
    params = (means, stddevs, minvals, maxvals)
    try:
        batch_shape = np.broadcast_shapes(*(p.shape for p in params))
    except ValueError:
        raise errors.InvalidArgumentError(ctx.node_def, None, "means, stddevs, minvals, maxvals must have compatible "
                                          "batch dimensions: " + " vs. ".join(tensor_shape.shape_string(p.shape)
                                                                             for p in params)) from None
    dims, num_batches, samples = _batched_layout(ctx, shape, batch_shape)
    if num_batches * samples == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    flat = [np.broadcast_to(p, batch_shape).reshape(-1) for p in params]
    mean, stddev, minval, maxval = flat
    with np.errstate(invalid="ignore"):
        valid = (stddev > 0) & (minval < maxval) & (np.isfinite(minval) | np.isfinite(maxval))
    if not valid.all():
        raise errors.InvalidArgumentError(ctx.node_def, None, "Invalid parameters")
    key, counter = _seed_key_counter(ctx, seed)
    values = _parameterized_truncated_normal(key, counter, _TruncatedNormalParameters(*flat), num_batches, samples,
                                             dtype)
    return values.astype(dtype.as_numpy_dtype).reshape(dims)


@tf_export("random.stateless_parameterized_truncated_normal")
def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0, stddevs: Any = 1.0,
                                             minvals: Any = -2.0, maxvals: Any = 2.0,
                                             name: str | None = None) -> Tensor:
    """Deterministic normal(means, stddevs) draws kept within [minvals, maxvals], of `shape` (ending with the
    parameters' broadcast shape), for the seed pair `seed`."""
    with name_scope(name, "stateless_parameterized_truncated_normal", [shape, means, stddevs, minvals, maxvals]):
        shape = _shape_tensor(shape)
        means = convert_to_tensor(means, name="means")
        stddevs = convert_to_tensor(stddevs, name="stddevs")
        minvals = convert_to_tensor(minvals, name="minvals")
        maxvals = convert_to_tensor(maxvals, name="maxvals")
        result = StatelessParameterizedTruncatedNormal(shape, seed, means, stddevs, minvals, maxvals)
        result.set_shape(tensor_util.constant_value_as_shape(shape))
        return result


# -- fold_in, split -----------------------------------------------------------------------------------------


@tf_export("random.split", "random.experimental.stateless_split")
def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """`num` new seed pairs derived from `seed`, as a [num, 2] tensor."""
    seed = convert_to_tensor(seed)
    return stateless_random_uniform(shape=[num, 2], seed=seed, dtype=seed.dtype, minval=None, maxval=None, alg=alg)


@tf_export("random.fold_in", "random.experimental.stateless_fold_in")
def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new seed pair from `seed` and the integer `data` (a step number, a replica id)."""
    data = convert_to_tensor(data)
    first = stateless_random_uniform(shape=[], seed=seed, dtype=data.dtype, minval=None, maxval=None, alg=alg)
    return stack([first, data])


# -- Algorithm, create_rng_state ----------------------------------------------------------------------------


@tf_export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """The random number generation algorithms (TF's ids)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_STATE_SIZES = {Algorithm.PHILOX: 3, Algorithm.THREEFRY: 2, Algorithm.AUTO_SELECT: 3}
_ALGORITHM_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY, "auto_select": Algorithm.AUTO_SELECT}


def _algorithm(alg: Any) -> Algorithm:
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, str) and alg.lower() in _ALGORITHM_NAMES:
        return _ALGORITHM_NAMES[alg.lower()]
    if isinstance(alg, (int, np.integer)) and int(alg) in {a.value for a in Algorithm}:
        return Algorithm(int(alg))
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                     "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")


@tf_export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed: Any, alg: Any) -> Tensor:
    """An RNG state (int64 vector: counter words then key) for `alg` from an integer seed (cut into 64-bit
    words) or a list of words, padded with zeros on the left."""
    size = _STATE_SIZES[_algorithm(alg)]
    if isinstance(seed, (int, np.integer)):
        seed, words = int(seed), []
        for _ in range(size):
            words.append(seed & 0xFFFFFFFFFFFFFFFF)
            seed >>= 64
        state = np.array(words, dtype=np.uint64).astype(np.int64)
    else:
        state = np.asarray(seed, dtype=np.int64).reshape(-1)[:size]
    state = np.pad(state, [(size - state.shape[0], 0)])
    return convert_to_tensor(state, dtype=dtypes.int64)
