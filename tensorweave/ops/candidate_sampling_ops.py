"""Candidate samplers (`tf.nn.*_candidate_sampler`, also under `tf.random`) and `compute_accidental_hits`:
the negative classes of sampled losses (nce_loss, sampled_softmax_loss) and how often each is expected.

Each sampler node keeps, for the session's lifetime, TF's Philox stream of its (seed, seed2) and its
`RangeSampler`; every run reserves 2048 32-bit words per sampled candidate, as TF, and reads them in order
as TF's SimplePhilox does (64-bit draws low word first, rejection of the values that would bias a modulus).
So seeded uniform, log-uniform and learned-unigram samplers draw TF's own candidates. The fixed-unigram
sampler draws from the same distribution by inverting its CDF, where TF uses Walker's alias table: its
candidates differ from TF's, its expected counts do not. With `unique`, candidates are drawn until
`num_sampled` distinct ones came up, and the expected counts follow from the number of tries, as TF's
ExpectedCountHelper: 1 - (1 - p) ** tries in float32.
"""

from __future__ import annotations

import collections
import threading
from typing import Any

import numpy as np

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.random_ops import op_seeds, philox_state
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export

_SAMPLER_OUTPUTS = ["sampled_candidates: int64", "true_expected_count: float", "sampled_expected_count: float"]
_SAMPLER_ATTRS = ["num_true: int >= 1", "num_sampled: int >= 1", "unique: bool"]
_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]
_WORDS_PER_CANDIDATE = 2048  # TF reserves this many 32-bit samples per sampled candidate and run
_INT32_MAX = 2**31 - 1


class _Words:
    """TF's SimplePhilox over the stretch of the stream one run reserved: 32-bit words read in order; the
    stretch is generated as far as it is read (TF too reads on past its reservation when rejections need it)."""

    def __init__(self, generator: Any, counter: int) -> None:
        self._generator, self._counter = generator, counter
        self._words = np.empty(0, dtype=np.uint32)
        self._position = 0

    def take(self, count: int) -> np.ndarray:
        end = self._position + count
        if end > self._words.size:
            self._words = self._generator.uint32s(self._counter, max(end, 2 * self._words.size))
        words = self._words[self._position:end]
        self._position = end
        return words

    def rewind(self, count: int) -> None:
        self._position -= count

    def exact_uniform(self, count: int, n: int, width: int) -> np.ndarray:
        """`count` of TF's ExactUniformInt(n) over 32- (width 1) or 64-bit (width 2, Uniform64) draws: a draw
        below (2**bits - 1) % n + 1 is rejected and the next one read in its place."""
        power_of_two = n & (n - 1) == 0
        reject_below = np.uint64((2 ** (32 * width) - 1) % n + 1)
        out = []
        while count:
            words = self.take(count * width).astype(np.uint64)
            values = words if width == 1 else words[0::2] | words[1::2] << np.uint64(32)
            rejected = np.empty(0, dtype=np.intp) if power_of_two else np.flatnonzero(values < reject_below)
            accepted = rejected[0] if rejected.size else count
            out.append(values[:accepted] % np.uint64(n))
            self.rewind((count - accepted - (1 if rejected.size else 0)) * width)
            count -= accepted
        return np.concatenate(out).astype(np.int64)

    def floats(self, words: np.ndarray) -> np.ndarray:
        """RandFloat of each word: its 23 low bits as the mantissa of a float in [1, 2), less 1."""
        return ((words.astype(np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - 1

    def doubles(self, count: int) -> np.ndarray:
        """`count` of RandDouble: 20 high mantissa bits from the first word of a pair, 32 from the second."""
        words = self.take(2 * count).astype(np.uint64)
        bits = (words[0::2] & np.uint64(0xFFFFF)) << np.uint64(32) | words[1::2] | np.uint64(1023 << 52)
        return bits.view(np.float64) - 1.0


class _UniformSampler:
    def __init__(self, range_max: int) -> None:
        self.range = range_max

    def sample(self, words: _Words, count: int) -> np.ndarray:
        return words.exact_uniform(count, self.range, 2)

    def probability(self, values: np.ndarray) -> np.ndarray:
        return np.full(values.shape, 1.0 / self.range, dtype=np.float32)


class _LogUniformSampler:
    """P(v) = log((v + 2) / (v + 1)) / log(range + 1): Zipf-like, for classes sorted by falling frequency."""

    def __init__(self, range_max: int) -> None:
        self.range = range_max
        self._log_range = np.log1p(float(range_max))

    def sample(self, words: _Words, count: int) -> np.ndarray:
        values = np.exp(words.doubles(count) * self._log_range).astype(np.int64) - 1
        return values % self.range

    def probability(self, values: np.ndarray) -> np.ndarray:
        values = values.astype(np.float64)
        return (np.log((values + 2.0) / (values + 1.0)) / self._log_range).astype(np.float32)


class _LearnedUnigramSampler:
    """Every class starts at count 1; each run adds the true classes it saw (after sampling), as TF's
    UnigramSampler, and samples in proportion to the counts."""

    def __init__(self, range_max: int) -> None:
        self.range = range_max
        self._counts = np.ones(range_max, dtype=np.int64)
        self._total = range_max

    def sample(self, words: _Words, count: int) -> np.ndarray:
        picks = words.exact_uniform(count, self._total, 1)
        return np.searchsorted(np.cumsum(self._counts), picks, side="right").astype(np.int64)

    def probability(self, values: np.ndarray) -> np.ndarray:
        return self._counts[values].astype(np.float32) / np.float32(self._total)

    def update(self, values: np.ndarray) -> None:
        values = values[:max(0, min(values.size, _INT32_MAX - self._total))]
        self._counts += np.bincount(values, minlength=self.range)
        self._total += values.size


class _FixedUnigramSampler:
    """Weights given up front (a vocabulary file's last CSV column, or `unigrams`), raised to `distortion`;
    `num_reserved_ids` leading ids weigh 0; a shard keeps the ids i with i % num_shards == shard."""

    def __init__(self, attrs: Any) -> None:
        num_shards, shard = attrs["num_shards"], attrs["shard"]
        reserved = np.arange(attrs["num_reserved_ids"])
        reserved_count = int(np.count_nonzero(reserved % num_shards == shard))
        vocab_file, unigrams = attrs["vocab_file"], list(attrs["unigrams"])
        if not vocab_file and not unigrams:
            raise ValueError("Must provide either vocab_file or unigrams.")
        if vocab_file and unigrams:
            raise ValueError("Must only provide one of vocab_file and unigrams.")
        if vocab_file:
            unigrams = [_vocab_weight(line) for line in gfile.GFile(vocab_file).read().splitlines()]
        ids = reserved_count + np.arange(len(unigrams))  # TF numbers them on from the reserved ids it kept
        kept = np.asarray(unigrams, dtype=np.float32)[ids % num_shards == shard]
        weights = np.concatenate([np.zeros(reserved_count, np.float32),
                                  np.power(kept, np.float32(attrs["distortion"]))])
        self.range = attrs["range_max"]
        if self.range != weights.size:
            raise ValueError(f"range is {self.range} must be equal to weights size  {weights.size}")
        self._weights = weights
        self._total = np.cumsum(weights)[-1] if weights.size else np.float32(0)
        self._keep, self._alias = _alias_table(weights)

    def sample(self, words: _Words, count: int) -> np.ndarray:
        """TF's DistributionSampler: per draw a RandFloat `r` and a bucket Uniform(n); the bucket when `r` is
        below its share, else its alias. A rejected Uniform word is redrawn before the next sample's `r`."""
        n = self.range
        reject_below = np.uint32((2**32 - 1) % n + 1) if n & (n - 1) else np.uint32(0)
        out = []
        while count:
            taken = words.take(2 * count)
            r, u = words.floats(taken[0::2]), taken[1::2]
            rejected = np.flatnonzero(u < reject_below)
            accepted = rejected[0] if rejected.size else count
            r, buckets = r[:accepted], (u[:accepted] % np.uint32(n)).astype(np.int64)
            if rejected.size:
                words.rewind(2 * (count - accepted - 1))
                r = np.append(r, words.floats(taken[2 * accepted:2 * accepted + 1]))
                buckets = np.append(buckets, words.exact_uniform(1, n, 1))
                accepted += 1
            out.append(np.where(r < self._keep[buckets], buckets, self._alias[buckets]))
            count -= accepted
        return np.concatenate(out).astype(np.int64)

    def probability(self, values: np.ndarray) -> np.ndarray:
        return self._weights[values] / self._total


def _alias_table(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table as TF's DistributionSampler builds it (float32 shares, pairing the last small
    bucket with the last large one, leftovers their own alias). The pairing is sequential: it runs once,
    when the sampler is built."""
    n = weights.size
    share = (weights * np.float32(n)).astype(np.float64) / weights.astype(np.float64).sum()
    alias = np.full(n, -1, np.int64)
    low, high = list(np.flatnonzero(share < 1.0)), list(np.flatnonzero(share >= 1.0))
    while low and high:
        small, large = low.pop(), high.pop()
        alias[small] = large
        share[large] -= 1.0 - share[small]
        (low if share[large] < 1.0 else high).append(large)
    leftover = np.array(high + low, np.int64)
    share[leftover], alias[leftover] = 1.0, leftover
    return share.astype(np.float32), alias


class _AllSampler:
    """Every class of [0, num_sampled) once, each expected once: the exact loss a sampled one approximates."""

    def __init__(self, range_max: int) -> None:
        self.range = range_max


def _vocab_weight(line: str) -> float:
    try:
        return float(line.split(",")[-1])
    except ValueError:
        raise ValueError(f"Wrong vocabulary format at line: {line}") from None


class _SamplerState:
    """A sampler node's persistent state: its Philox stream and its sampler (or the error that building it
    raised, which every run reports as TF's kernel construction does)."""

    def __init__(self, attrs: Any, make_sampler: Any) -> None:
        self.generator = philox_state(attrs)
        self.lock = threading.Lock()
        self.sampler: Any = None
        self.error: str | None = None
        try:
            self.sampler = make_sampler(attrs)
        except (ValueError, OSError) as error:
            self.error = str(error)


def _sampler_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    true_classes = with_rank(ctx.input_shape(0), 2)
    num_sampled = tensor_shape.TensorShape([ctx.attr("num_sampled")])
    return [num_sampled, tensor_shape.TensorShape([true_classes.dims[0], ctx.attr("num_true")]), num_sampled]


def _draw(sampler: Any, words: _Words, num_sampled: int, unique: bool) -> tuple[np.ndarray, int]:
    """The candidates and the number of draws made: with `unique`, the first `num_sampled` distinct values
    of the stream of draws, drawn in growing batches."""
    if not unique:
        return sampler.sample(words, num_sampled), num_sampled
    drawn = sampler.sample(words, num_sampled)
    while True:
        first = np.sort(np.unique(drawn, return_index=True)[1])
        if first.size >= num_sampled:
            return drawn[first[:num_sampled]], int(first[num_sampled - 1]) + 1
        drawn = np.concatenate([drawn, sampler.sample(words, drawn.size)])


def _expected_count(probability: np.ndarray, num_sampled: int, tries: int) -> np.ndarray:
    """TF's ExpectedCountHelper in float32: p * num_sampled without rejections, else 1 - (1 - p) ** tries."""
    if tries == num_sampled:
        return probability * np.float32(num_sampled)
    log_miss = np.log1p(-probability.astype(np.float64)).astype(np.float32)  # glibc's float log1p/expm1 are
    return (-np.expm1((np.float32(tries) * log_miss).astype(np.float64))).astype(np.float32)  # correctly rounded


def _sample_candidates(ctx: OpKernelContext, true_classes: Any, num_true: int, num_sampled: int,
                       unique: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    state: _SamplerState = ctx.state
    if state.error is not None:
        raise invalid_argument(ctx, state.error)
    sampler = state.sampler
    if true_classes.ndim != 2:
        raise invalid_argument(ctx, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise invalid_argument(ctx, f"true_classes must have num_true columns, expected: {true_classes.shape[1]} "
                                    f"was: {num_true}")
    if unique and num_sampled > sampler.range:
        raise invalid_argument(ctx, "Sampler's range is too small.")
    flat = true_classes.reshape(-1)
    outside = flat[(flat < 0) | (flat >= sampler.range)]
    if outside.size:
        raise invalid_argument(ctx, f"`true_candidate` out of range [0, {sampler.range}), received {outside[0]}")
    counter = state.generator.reserve_samples128(-(-_WORDS_PER_CANDIDATE * num_sampled // 4))
    if isinstance(sampler, _AllSampler):
        return (np.arange(num_sampled, dtype=np.int64), np.ones(true_classes.shape, dtype=np.float32),
                np.ones(num_sampled, dtype=np.float32))
    with state.lock:
        sampled, tries = _draw(sampler, _Words(state.generator, counter), num_sampled, unique)
        true_expected = _expected_count(sampler.probability(flat), num_sampled, tries)
        sampled_expected = _expected_count(sampler.probability(sampled), num_sampled, tries)
        if hasattr(sampler, "update"):
            sampler.update(flat)
    return sampled, true_expected.reshape(true_classes.shape), sampled_expected


def _sampler_op(name: str, sampler: Any, extra_attrs: tuple[str, ...] = ()) -> Op:
    op = Op(name, inputs=["true_classes: int64"], outputs=_SAMPLER_OUTPUTS,
            attrs=[*_SAMPLER_ATTRS, "range_max: int >= 1", *extra_attrs, *_SEED_ATTRS], is_stateful=True)
    op.shape(_sampler_shape)

    @op.kernel("CPU", state=lambda attrs: _SamplerState(attrs, sampler))
    def kernel(ctx: OpKernelContext, true_classes: Any, num_true: int, num_sampled: int, unique: bool) -> Any:
        return _sample_candidates(ctx, true_classes, num_true, num_sampled, unique)

    return op


UniformCandidateSampler = _sampler_op("UniformCandidateSampler", lambda attrs: _UniformSampler(attrs["range_max"]))
LogUniformCandidateSampler = _sampler_op("LogUniformCandidateSampler",
                                         lambda attrs: _LogUniformSampler(attrs["range_max"]))
LearnedUnigramCandidateSampler = _sampler_op("LearnedUnigramCandidateSampler",
                                             lambda attrs: _LearnedUnigramSampler(attrs["range_max"]))
FixedUnigramCandidateSampler = _sampler_op(
    "FixedUnigramCandidateSampler", _FixedUnigramSampler,
    ("vocab_file: string = ''", "distortion: float = 1.0", "num_reserved_ids: int = 0", "num_shards: int >= 1 = 1",
     "shard: int >= 0 = 0", "unigrams: list(float) = []"))


AllCandidateSampler = Op("AllCandidateSampler", inputs=["true_classes: int64"], outputs=_SAMPLER_OUTPUTS,
                         attrs=[*_SAMPLER_ATTRS, *_SEED_ATTRS], is_stateful=True)
AllCandidateSampler.shape(_sampler_shape)


@AllCandidateSampler.kernel("CPU", state=lambda attrs: _SamplerState(attrs, lambda _: _AllSampler(attrs["num_sampled"])))
def _all_candidate_sampler(ctx: OpKernelContext, true_classes: Any, num_true: int, num_sampled: int,
                           unique: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _sample_candidates(ctx, true_classes, num_true, num_sampled, unique)


ComputeAccidentalHits = Op("ComputeAccidentalHits", inputs=["true_classes: int64", "sampled_candidates: int64"],
                           outputs=["indices: int32", "ids: int64", "weights: float"],
                           attrs=["num_true: int", *_SEED_ATTRS])


@ComputeAccidentalHits.shape
def _compute_accidental_hits_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    true_classes = with_rank(ctx.input_shape(0), 2)
    with_rank(ctx.input_shape(1), 1)
    num_true, columns = ctx.attr("num_true"), true_classes.dims[1].value
    if columns is not None and columns != num_true:
        raise ValueError(f"Dimension must be {num_true} but is {columns}")
    return [tensor_shape.TensorShape([None])] * 3


@ComputeAccidentalHits.kernel("CPU")
def _compute_accidental_hits(ctx: OpKernelContext, true_classes: Any, sampled_candidates: Any,
                             num_true: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each (row, position in `sampled_candidates`) where a row's true class was also sampled, in row-major
    order of the true classes; a class sampled twice is found at its last position, as TF's map keeps it."""
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise invalid_argument(ctx, "true_candidates must be a batch_size * num_true matrix")
    if sampled_candidates.ndim != 1:
        raise invalid_argument(ctx, "sampled_candidates must be a vector, which is typically an output from "
                                    "CandidateSampler")
    reversed_candidates = sampled_candidates[::-1]
    values, first_in_reversed = np.unique(reversed_candidates, return_index=True)
    last_position = sampled_candidates.size - 1 - first_in_reversed
    flat = true_classes.reshape(-1)
    slot = np.minimum(np.searchsorted(values, flat), max(values.size - 1, 0))
    hit = np.flatnonzero(values[slot] == flat) if values.size else np.empty(0, dtype=np.intp)
    return ((hit // max(num_true, 1)).astype(np.int32), last_position[slot[hit]].astype(np.int64),
            np.full(hit.size, -np.finfo(np.float32).max, dtype=np.float32))


_SAMPLER_RESULTS = {op.name: collections.namedtuple(op.name, ["sampled_candidates", "true_expected_count",
                                                                 "sampled_expected_count"])
                    for op in (UniformCandidateSampler, LogUniformCandidateSampler, LearnedUnigramCandidateSampler,
                               FixedUnigramCandidateSampler, AllCandidateSampler)}
_AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])


def _sampler_call(op: Op, true_classes: Any, seed: int | None, name: str | None, **attrs: Any) -> Any:
    """The op's three outputs as TF's namedtuple of them."""
    seed1, seed2 = op_seeds(seed)
    return _SAMPLER_RESULTS[op.name](*op(true_classes, seed=seed1, seed2=seed2, name=name, **attrs))


@tf_export("random.uniform_candidate_sampler", "nn.uniform_candidate_sampler")
def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: int | None = None, name: str | None = None) -> Any:
    """(sampled_candidates, true_expected_count, sampled_expected_count): `num_sampled` classes drawn
    uniformly from [0, range_max)."""
    return _sampler_call(UniformCandidateSampler, true_classes, seed, name, num_true=num_true,
                         num_sampled=num_sampled, unique=unique, range_max=range_max)


@tf_export("random.log_uniform_candidate_sampler", "nn.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                                  range_max: int, seed: int | None = None, name: str | None = None) -> Any:
    """Candidates from the log-uniform (Zipfian) distribution over [0, range_max): for classes sorted by
    falling frequency, the default sampler of the sampled losses."""
    return _sampler_call(LogUniformCandidateSampler, true_classes, seed, name, num_true=num_true,
                         num_sampled=num_sampled, unique=unique, range_max=range_max)


@tf_export("random.learned_unigram_candidate_sampler", "nn.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                                      range_max: int, seed: int | None = None, name: str | None = None) -> Any:
    """Candidates in proportion to how often each class has been a true class of this node so far."""
    return _sampler_call(LearnedUnigramCandidateSampler, true_classes, seed, name, num_true=num_true,
                         num_sampled=num_sampled, unique=unique, range_max=range_max)


@tf_export("random.fixed_unigram_candidate_sampler", "nn.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                                    range_max: int, vocab_file: str = "", distortion: float = 1.0,
                                    num_reserved_ids: int = 0, num_shards: int = 1, shard: int = 0,
                                    unigrams: Any = (), seed: int | None = None, name: str | None = None) -> Any:
    """Candidates in proportion to given unigram weights (from `vocab_file` or `unigrams`) ** distortion."""
    return _sampler_call(FixedUnigramCandidateSampler, true_classes, seed, name, num_true=num_true,
                         num_sampled=num_sampled, unique=unique, range_max=range_max, vocab_file=vocab_file,
                         distortion=distortion, num_reserved_ids=num_reserved_ids, num_shards=num_shards,
                         shard=shard, unigrams=list(unigrams))


@tf_export("random.all_candidate_sampler", "nn.all_candidate_sampler")
def all_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                          seed: int | None = None, name: str | None = None) -> Any:
    """All classes [0, num_sampled) as candidates: the exact loss that a sampled one approximates, for tests."""
    return _sampler_call(AllCandidateSampler, true_classes, seed, name, num_true=num_true,
                         num_sampled=num_sampled, unique=unique)


@tf_export("nn.compute_accidental_hits")
def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int, seed: int | None = None,
                            name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """(indices, ids, weights): where a sampled candidate is one of its row's true classes, with weight
    -FLT_MAX, so that adding them to the sampled logits removes those hits."""
    seed1, seed2 = op_seeds(seed)
    return _AccidentalHits(*ComputeAccidentalHits(true_classes, sampled_candidates, num_true=num_true, seed=seed1,
                                                  seed2=seed2, name=name))
