"""Random ops whose samples take a variable number of draws: gamma (RandomGamma, StatelessRandomGammaV3, with
RandomGammaGrad for the gradient by alpha) and Poisson (RandomPoissonV2, StatelessRandomPoisson), plus the
stateless seed utilities fold_in and split.

TF gives every output element its own Philox stream, 256 samples after the previous element's, and runs a
rejection loop on it: Marsaglia and Tsang's squeeze for gamma, Knuth's product of uniforms below rate 10 and
Hormann's transformed rejection above for Poisson, taking two doubles per block and using them last first.
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
    _shape_tensor,
    _stateless_key_counter_alg,
    _stateless_random_get_key_counter,
    _uint64_to_double,
    op_seeds,
    philox_state,
    stateless_random_uniform,
)
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_helpers import broadcast_shapes, shape_from_tensor, with_rank
from tensorweave.ops.shape_ops import broadcast_dynamic_shape, broadcast_to, reshape, shape
from tensorweave.ops.special_kernels import lgamma64
from tensorweave.ops.special_math_ops import _igamma_pair
from tensorweave.platform.tf_export import tf_export


class _ElementStreams:
    """One Philox stream per output element, drawn from as TF's kernels draw: a block of two uniform doubles or
    two Box-Muller normals at a time, its values used last first, normals and uniforms from one stream."""

    def __init__(self, key: tuple[int, int], counter: int, count: int) -> None:
        self.key, self.counter = key, counter
        self.starts = np.arange(count, dtype=np.uint64) * np.uint64(_RESERVED_SAMPLES_PER_OUTPUT)
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
        positive = v > 0
        active, x, v = active[positive], x[positive], v[positive] ** 3
        u = streams.uniform(active)
        with np.errstate(invalid="ignore", divide="ignore"):
            accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (np.log(u) < 0.5 * x * x + d[active] * (1 - v + np.log(v)))
        done, v = active[accept], v[accept]
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
    """-(dP(a, x)/da) / (dP(a, x)/dx): P's derivative by a from a fourth-order central difference."""
    a, x = np.broadcast_arrays(alpha.astype(np.float64), sample.astype(np.float64))
    step = 1e-3 * np.maximum(a, 1e-3)
    with np.errstate(all="ignore"):
        near = _igamma_pair(a + step, x)[0] - _igamma_pair(a - step, x)[0]
        far = _igamma_pair(a + 2 * step, x)[0] - _igamma_pair(a - 2 * step, x)[0]
        by_alpha = (8 * near - far) / (12 * step)
        density = np.exp((a - 1) * np.log(x) - x - lgamma64(a))
        result = -by_alpha / density
    return np.where(x > 0, result, 0.0).astype(alpha.dtype)


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
