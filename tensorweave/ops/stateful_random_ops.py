"""`tf.random.Generator`: a random stream whose state is a resource variable, and the ops that read and move
it (RngReadAndSkip, RngSkip, the Stateful* sampling ops, StatefulRandomBinomial, NonDeterministicInts).

The state is TF's int64 vector [counter low word, counter high word, key] for Philox. Every op that draws
reads the state and moves its 128-bit counter on by 256 per output element under the variable's lock, so
the same seed and the same sequence of calls give TF's values. As in TF 2.21, the Generator's methods read
and skip the state with RngReadAndSkip and draw with the StatelessRandom*V2 ops from the counter and key it
returned; the Stateful* ops draw in one step (graphs that name them import and run).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, init_scope, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import elementwise_ops, random_distribution_ops, random_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.fill_ops import zeros_like
from tensorweave.ops.manipulation_ops import bitcast, concat, stack, unstack
from tensorweave.ops.reduction_ops import reduce_prod
from tensorweave.ops.resource_variable_ops import ResourceVar, ResourceVariable
from tensorweave.ops.shape_helpers import shape_from_tensor
from tensorweave.ops.shape_ops import reshape
from tensorweave.platform.tf_export import tf_export

_PHILOX = random_distribution_ops.Algorithm.PHILOX.value
_STATE_SIZE = 3  # two counter words and the key, for Philox (and for the automatic choice, which is Philox)


def _philox_algorithm(ctx: OpKernelContext, alg: Any) -> None:
    if int(alg) not in (_PHILOX, random_distribution_ops.Algorithm.AUTO_SELECT.value):
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Unsupported algorithm id: {int(alg)}")


def _read_and_skip(ctx: OpKernelContext, var: ResourceVar, samples: int) -> np.ndarray:
    """The state before the move (as uint64 words), after TF's checks; the counter moves on by `samples` 128-bit
    samples."""
    with var.lock:
        state = var.read()
        if state.dtype != np.int64:
            raise errors.InvalidArgumentError(ctx.node_def, None, "dtype of RNG state variable must be int64, not "
                                              f"{dtypes.as_dtype(state.dtype).name}")
        if state.ndim != 1:
            raise errors.InvalidArgumentError(ctx.node_def, None, "RNG state must have one and only one dimension, "
                                              f"not {state.ndim}")
        if state.size < _STATE_SIZE:
            raise errors.InvalidArgumentError(ctx.node_def, None, "For the Philox algorithm, the size of state must "
                                              f"be at least {_STATE_SIZE}; got {state.size}")
        words = state.view(np.uint64).copy()
        counter = (int(words[0]) | int(words[1]) << 64) + (samples & 0xFFFFFFFFFFFFFFFF)  # TF's Skip takes a uint64
        moved = words.copy()
        moved[0], moved[1] = counter & 0xFFFFFFFFFFFFFFFF, (counter >> 64) & 0xFFFFFFFFFFFFFFFF
        var.assign(moved.view(np.int64), False, ctx.xp)
    return words


def _key_counter(words: np.ndarray) -> tuple[tuple[int, int], int]:
    key = int(words[2])
    return (key & 0xFFFFFFFF, key >> 32), int(words[0]) | int(words[1]) << 64


def _reserve(ctx: OpKernelContext, var: ResourceVar, dims: tuple[int, ...]) -> tuple[tuple[int, int], int]:
    """TF's UpdateVariableAndFill: the key and counter to draw `dims` values from, 256 samples per value."""
    return _key_counter(_read_and_skip(ctx, var, int(np.prod(dims)) * random_ops._RESERVED_SAMPLES_PER_OUTPUT))


# -- RngReadAndSkip, RngSkip ----------------------------------------------------------------------------------

RngReadAndSkip = Op("RngReadAndSkip", inputs=["resource: resource", "alg: int32", "delta: uint64"],
                    outputs=["value: int64"], is_stateful=True)


@RngReadAndSkip.shape
def _rng_read_and_skip_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([_STATE_SIZE])]


@RngReadAndSkip.kernel("CPU")
def _rng_read_and_skip(ctx: OpKernelContext, resource: ResourceVar, alg: Any, delta: Any) -> np.ndarray:
    """The state as it was; the counter moves on by 256 samples per unit of `delta`."""
    _philox_algorithm(ctx, alg)
    words = _read_and_skip(ctx, resource, int(delta) * random_ops._RESERVED_SAMPLES_PER_OUTPUT)
    return words[:_STATE_SIZE].view(np.int64)


RngSkip = Op("RngSkip", inputs=["resource: resource", "algorithm: int64", "delta: int64"], is_stateful=True)


@RngSkip.shape
def _rng_skip_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@RngSkip.kernel("CPU")
def _rng_skip(ctx: OpKernelContext, resource: ResourceVar, algorithm: Any, delta: Any) -> None:
    _philox_algorithm(ctx, algorithm)
    _read_and_skip(ctx, resource, int(delta) * random_ops._RESERVED_SAMPLES_PER_OUTPUT)


NotDifferentiable("RngReadAndSkip")
NotDifferentiable("RngSkip")


# -- the Stateful* sampling ops ------------------------------------------------------------------------------

def _stateful_op(name: str, dtype_default: str, extra_inputs: tuple[str, ...] = ()) -> Op:
    op = Op(name, inputs=["resource: resource", "algorithm: int64", "shape: shape_dtype", *extra_inputs],
            outputs=["output: dtype"],
            attrs=[f"dtype: type = {dtype_default}", "shape_dtype: type = DT_INT64"], is_stateful=True)
    op.shape(_stateful_shape)
    NotDifferentiable(name)
    return op


def _stateful_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_from_tensor(ctx, 2)]


StatefulStandardNormalV2 = _stateful_op("StatefulStandardNormalV2", "DT_FLOAT")
StatefulUniform = _stateful_op("StatefulUniform", "DT_FLOAT")
StatefulTruncatedNormal = _stateful_op("StatefulTruncatedNormal", "DT_FLOAT")
StatefulUniformFullInt = _stateful_op("StatefulUniformFullInt", "DT_UINT64")
StatefulUniformInt = _stateful_op("StatefulUniformInt", "DT_INT64", ("minval: dtype", "maxval: dtype"))


def _stateful_float_kernel(op: Op, sample: Any) -> None:
    @op.kernel("CPU")
    def _kernel(ctx: OpKernelContext, resource: ResourceVar, algorithm: Any, shape: Any, dtype: dtypes.DType,
                shape_dtype: Any) -> np.ndarray:
        _philox_algorithm(ctx, algorithm)
        dims = random_ops._dims(ctx, shape)
        return sample(*_reserve(ctx, resource, dims), dims, dtype)


_stateful_float_kernel(StatefulStandardNormalV2, random_ops._normal_sample)
_stateful_float_kernel(StatefulUniform, random_ops._uniform_sample)
_stateful_float_kernel(StatefulTruncatedNormal, random_ops._truncated_normal_sample)


@StatefulUniformInt.kernel("CPU")
def _stateful_uniform_int(ctx: OpKernelContext, resource: ResourceVar, algorithm: Any, shape: Any, minval: Any,
                          maxval: Any, dtype: dtypes.DType, shape_dtype: Any) -> np.ndarray:
    _philox_algorithm(ctx, algorithm)
    dims = random_ops._dims(ctx, shape)
    if np.ndim(minval) == 0 and np.ndim(maxval) == 0 and minval >= maxval:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Need minval < maxval, got {minval} >= {maxval}")
    return random_ops._uniform_int_sample(ctx, *_reserve(ctx, resource, dims), dims, minval, maxval)


@StatefulUniformFullInt.kernel("CPU")
def _stateful_uniform_full_int(ctx: OpKernelContext, resource: ResourceVar, algorithm: Any, shape: Any,
                               dtype: dtypes.DType, shape_dtype: Any) -> np.ndarray:
    _philox_algorithm(ctx, algorithm)
    dims = random_ops._dims(ctx, shape)
    return random_ops._full_int_sample(*_reserve(ctx, resource, dims), dims, dtype)


# -- StatefulRandomBinomial, NonDeterministicInts ------------------------------------------------------------

_BINOMIAL_TYPES = "{half, float, double, int32, int64}"
StatefulRandomBinomial = Op("StatefulRandomBinomial",
                            inputs=["resource: resource", "algorithm: int64", "shape: S", "counts: T", "probs: T"],
                            outputs=["output: dtype"],
                            attrs=["S: {int32, int64}", f"T: {_BINOMIAL_TYPES} = DT_DOUBLE",
                                   f"dtype: {_BINOMIAL_TYPES} = DT_INT64"], is_stateful=True)
StatefulRandomBinomial.shape(_stateful_shape)
NotDifferentiable("StatefulRandomBinomial")


@StatefulRandomBinomial.kernel("CPU", expensive=True)
def _stateful_random_binomial(ctx: OpKernelContext, resource: ResourceVar, algorithm: Any, shape: Any, counts: Any,
                              probs: Any, dtype: dtypes.DType) -> np.ndarray:
    """TF reserves 200 samples per sample row and parameter, rounded up to four rows, before drawing."""
    if int(algorithm) != _PHILOX:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Unsupported algorithm id: {int(algorithm)}")
    dims, num_batches, samples_per_batch = random_distribution_ops.binomial_layout(ctx, shape, counts, probs)
    reserved = num_batches * 2 * 100 * (samples_per_batch + 3) // 4
    key, counter = _key_counter(_read_and_skip(ctx, resource, reserved * random_ops._RESERVED_SAMPLES_PER_OUTPUT))
    return random_distribution_ops.binomial_samples(key, counter, dims, num_batches, samples_per_batch, counts, probs,
                                                    dtype)


NonDeterministicInts = Op("NonDeterministicInts", inputs=["shape: shape_dtype"], outputs=["output: dtype"],
                          attrs=["dtype: type = DT_INT64", "shape_dtype: type = DT_INT64"], is_stateful=True)
NotDifferentiable("NonDeterministicInts")


@NonDeterministicInts.shape
def _non_deterministic_ints_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_from_tensor(ctx, 0)]


@NonDeterministicInts.kernel("CPU")
def _non_deterministic_ints(ctx: OpKernelContext, shape: Any, dtype: dtypes.DType, shape_dtype: Any) -> np.ndarray:
    """Each value the low bits of 64 from the operating system's entropy."""
    if dtype not in (dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64):
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Unsupported dtype: {dtype.name}")
    dims = random_ops._dims(ctx, shape)
    count = int(np.prod(dims))
    words = np.frombuffer(os.urandom(8 * count), dtype=np.uint64)
    return words.astype(dtype.as_numpy_dtype).reshape(dims)


# -- tf.random.Generator -------------------------------------------------------------------------------------

def _algorithm_id(alg: Any) -> int:
    return random_distribution_ops._algorithm(alg).value


def _shape_tensor(shape: Any) -> Tensor:
    """Shapes as TF's Generator takes them: an empty list is an int64 tensor."""
    if isinstance(shape, (tuple, list)) and not shape:
        return convert_to_tensor(shape, dtype=dtypes.int64, name="shape")
    return convert_to_tensor(shape, name="shape")


def _state_tensor(value: Any) -> Tensor:
    """`value` as int64 state words; Python integers past 2**63 wrap to their two's complement."""
    if isinstance(value, (list, tuple)) and not any(isinstance(v, Tensor) for v in value):
        value = np.array([v - 2**64 if isinstance(v, int) and v >= 2**63 else v for v in value]).astype(np.int64)
    elif isinstance(value, int) and value >= 2**63:
        value -= 2**64
    elif isinstance(value, (list, tuple)):
        value = stack([cast(v, dtypes.int64) for v in value])
    return cast(value, dtypes.int64)


@tf_export("random.Generator", "random.experimental.Generator")
class Generator:
    """A random stream kept in a resource variable: each draw reads the state and moves it on, so a seeded
    generator replays TF's values for the same calls, and saving the variable saves the stream's place."""

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> Generator:
        """A generator starting at `state` (a variable is used as it is)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        """A generator whose state is `seed`: an integer cut into 64-bit words, or a vector of words."""
        alg = _algorithm_id(_PHILOX if alg is None else alg)
        return cls(state=random_distribution_ops.create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """A generator whose state comes from the operating system's entropy when the variable is initialized."""
        alg = _algorithm_id(_PHILOX if alg is None else alg)
        return cls(state=NonDeterministicInts([_STATE_SIZE], dtype=dtypes.int64), alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> Generator:
        """A generator whose counter is `counter` (two words) and key `key`."""
        alg = _algorithm_id(alg)
        counter, key = _state_tensor(counter), _state_tensor(key)
        counter.shape.assert_is_compatible_with([_STATE_SIZE - 1])
        key.shape.assert_is_compatible_with([])
        return cls(state=concat([counter, reshape(key, [1])], 0), alg=alg)

    def __init__(self, copy_from: Generator | None = None, state: Any = None, alg: Any = None) -> None:
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("Generator: `copy_from` excludes `state` and `alg`.")
            self._state_var = self._create_variable(copy_from.state)
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("Generator needs `state` and `alg` together (or `copy_from`).")
        self._alg = _algorithm_id(alg)
        if isinstance(state, ResourceVariable):
            state.shape.assert_is_compatible_with([_STATE_SIZE])
            self._state_var = state
        else:
            state = _state_tensor(state)
            state.shape.assert_is_compatible_with([_STATE_SIZE])
            self._state_var = self._create_variable(state)

    @staticmethod
    def _create_variable(initial_value: Any) -> ResourceVariable:
        with name_scope("random_generator"):
            return ResourceVariable(initial_value, dtype=dtypes.int64, trainable=False, name="StateVar")

    @property
    def state(self) -> ResourceVariable:
        """The state variable: [counter words..., key]."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> Tensor:
        """The key word of the state (its last element)."""
        return self._state_var[-1]

    def reset(self, state: Any) -> Any:
        """An op that sets the state to `state`."""
        state = _state_tensor(state)
        state.shape.assert_is_compatible_with([_STATE_SIZE])
        return self._state_var.assign(state)

    def reset_from_seed(self, seed: Any) -> Any:
        """An op that sets the state as `from_seed(seed)` would."""
        return self._state_var.assign(random_distribution_ops.create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key: Any, counter: Any) -> Any:
        """An op that sets the state as `from_key_counter(key, counter)` would."""
        counter, key = _state_tensor(counter), _state_tensor(key)
        counter.shape.assert_is_compatible_with([_STATE_SIZE - 1])
        key.shape.assert_is_compatible_with([])
        return self._state_var.assign(concat([counter, reshape(key, [1])], 0))

    def skip(self, delta: Any) -> Tensor:
        """The state before, as the counter moves on as far as drawing `delta` values moves it."""
        return RngReadAndSkip(self._state_var.handle, cast(self._alg, dtypes.int32), cast(delta, dtypes.uint64))

    def _prepare_key_counter(self, shape: Tensor) -> tuple[Tensor, Tensor]:
        counter_key = self.skip(reduce_prod(shape))
        return bitcast(counter_key[2:3], dtypes.uint64), bitcast(counter_key[:2], dtypes.uint64)

    def _stateless(self, op: Op, shape: Tensor, dtype: Any, name: str | None = None) -> Tensor:
        key, counter = self._prepare_key_counter(shape)
        return op(shape, key, counter, self._alg, dtype=dtype, name=name)

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
               name: str | None = None) -> Tensor:
        with name_scope(name, "stateful_normal", [shape, mean, stddev]) as scope:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._stateless(random_ops.StatelessRandomNormalV2, shape, dtype)
            return elementwise_ops.add(rnd * stddev, mean, name=scope)

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                         name: str | None = None) -> Tensor:
        with name_scope(name, "truncated_normal", [shape, mean, stddev]) as scope:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._stateless(random_ops.StatelessTruncatedNormalV2, shape, dtype)
            return elementwise_ops.add(rnd * stddev, mean, name=scope)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                name: str | None = None) -> Tensor:
        """[minval, maxval) values; integers with both bounds None take every value of their type."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                                 f"non-`None`; got minval={minval} and maxval={maxval}")
        elif maxval is None:
            maxval = 1
        with name_scope(name, "stateful_uniform", [shape, minval, maxval]) as scope:
            shape = _shape_tensor(shape)
            if dtype.is_integer and minval is None:
                return self._stateless(random_ops.StatelessRandomUniformFullIntV2, shape, dtype, scope)
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            if dtype.is_integer:
                key, counter = self._prepare_key_counter(shape)
                return random_ops.StatelessRandomUniformIntV2(shape, key, counter, self._alg, minval, maxval,
                                                              name=scope)
            rnd = self._stateless(random_ops.StatelessRandomUniformV2, shape, dtype)
            return elementwise_ops.add(rnd * (maxval - minval), minval, name=scope)

    def uniform_full_int(self, shape: Any, dtype: Any = dtypes.uint64, name: str | None = None) -> Tensor:
        with name_scope(name, "stateful_uniform_full_int", [shape]) as scope:
            return self._stateless(random_ops.StatelessRandomUniformFullIntV2, _shape_tensor(shape),
                                   dtypes.as_dtype(dtype), scope)

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = dtypes.int32,
                 name: str | None = None) -> Tensor:
        """Binomial(counts, probs) draws; `shape` ends with the broadcast shape of the parameters."""
        with name_scope(name, "binomial", [shape, counts, probs]) as scope:
            counts = convert_to_tensor(counts, name="counts")
            probs = convert_to_tensor(probs, name="probs")
            shape = _shape_tensor(shape)
            return StatefulRandomBinomial(self._state_var.handle, self._alg, shape, counts, probs,
                                          dtype=dtypes.as_dtype(dtype), name=scope)

    def make_seeds(self, count: int = 1) -> Tensor:
        """A [2, count] int64 tensor of seed pairs for the stateless ops."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new generators keyed by draws of this one (which moves on)."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64)
        return [Generator(state=[0] * (_STATE_SIZE - 1) + [key], alg=self._alg) for key in unstack(keys, num=count)]


_global_generator: Generator | None = None


@tf_export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator() -> Generator:
    """The process's generator, made from fresh entropy (in the outermost graph) the first time it is asked for."""
    global _global_generator
    if _global_generator is None:
        with init_scope():
            _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


@tf_export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator: Generator) -> None:
    """Makes `generator` the one `get_global_generator` returns."""
    global _global_generator
    _global_generator = generator

