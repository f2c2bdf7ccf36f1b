"""`tf.signal` composites over the Fourier transforms: framing and overlap-add, windows, short-time and modified
discrete cosine transforms, DCT types I-IV, mel weight matrices and MFCCs.

All are built from existing ops (no kernels of their own), so their gradients come from those ops. Framing
gathers each frame's samples by index (`frame_step * i + j`) in one Gather; overlap-add sums them back to their
sample positions in one UnsortedSegmentSum over the frames, so neither loops over frames.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops import indexing_ops  # noqa: F401 - Tensor.__getitem__
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.elementwise_ops import complex as make_complex
from tensorweave.ops.elementwise_ops import (
    cos,
    equal,
    exp,
    log,
    maximum,
    minimum,
    pow,
    real,
    rsqrt,
    sin,
    sqrt,
    square,
    where_v2,
)
from tensorweave.ops.fill_ops import ones, zeros_like
from tensorweave.ops.indexing_ops import gather, strided_slice, unsorted_segment_sum
from tensorweave.ops.manipulation_ops import concat, pad, reverse, split, tile, transpose
from tensorweave.ops.math_misc_ops import lin_space
from tensorweave.ops.reduction_ops import cumsum, reduce_sum
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_ops import expand_dims, reshape, shape
from tensorweave.ops.special_math_ops import bessel_i0e
from tensorweave.ops.spectral_ops import irfft, rfft
from tensorweave.platform.tf_export import tf_export

# -- frame, overlap_and_add ---------------------------------------------------------------------------------


def _static_int(value: Any) -> int | None:
    known = tensor_util.constant_value(value)
    return None if known is None else int(known)


def _frame_shape(signal: Tensor, frame_length: Tensor, frame_step: Tensor, pad_end: bool,
                 axis: int | None) -> list | None:
    """The frames' static shape as TF infers it: outer dims, frames, frame length, inner dims."""
    if signal.shape.ndims is None:
        return None
    if axis is None:
        return [None] * (signal.shape.ndims + 1)
    dims = signal.shape.as_list()
    length, step, samples = _static_int(frame_length), _static_int(frame_step), dims[axis]
    frames = None
    if samples is not None and step == 0:  # TF's NumPy division gives 0 frames; the kernels then fail
        frames = 0 if pad_end or length is not None else None
    elif samples is not None and step is not None:
        if pad_end:
            frames = max(0, -(-samples // step))
        elif length is not None:
            frames = max(0, (samples - length + step) // step)
    return dims[:axis] + [frames, length] + dims[axis:][1:]


@tf_export("signal.frame")
def frame(signal: Any, frame_length: Any, frame_step: Any, pad_end: bool = False, pad_value: Any = 0,
          axis: Any = -1, name: str | None = None) -> Tensor:
    """Overlapping frames of `frame_length` samples every `frame_step` along `axis` (padded at the end with
    `pad_value` so every sample is framed when `pad_end`)."""
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = convert_to_tensor(signal, name="signal")
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        axis_tensor = convert_to_tensor(axis, name="axis")
        signal.shape.with_rank_at_least(1)
        frame_length.shape.assert_has_rank(0)
        frame_step.shape.assert_has_rank(0)
        axis_tensor.shape.assert_has_rank(0)
        static_axis = _static_int(axis_tensor)
        result_shape = _frame_shape(signal, frame_length, frame_step, pad_end, static_axis)
        if static_axis is None or signal.shape.ndims is None:
            raise NotImplementedError("tf.signal.frame needs a known rank and a constant axis in tensorweave")
        axis = static_axis % signal.shape.ndims
        signal_shape = shape(signal)
        samples = signal_shape[axis]
        if pad_end:
            pad_value = convert_to_tensor(pad_value, signal.dtype)
            pad_value.shape.assert_has_rank(0)
            frames = -(-samples // frame_step)
            extra = maximum(0, frame_length + frame_step * (frames - 1) - samples)
            paddings = [[0, 0]] * axis + [[0, extra]] + [[0, 0]] * (signal.shape.ndims - axis - 1)
            signal = pad(signal, paddings, constant_values=pad_value)
            signal_shape = shape(signal)
            samples = signal_shape[axis]
        else:
            frames = maximum(constant(0, frame_length.dtype), 1 + (samples - frame_length) // frame_step)
        # TF's framing: cut the axis into subframes of gcd(length, step) samples (a strided slice and a reshape)
        # and gather whole subframes, so the signal's gradient is dense, as TF's
        length, step = _static_int(frame_length), _static_int(frame_step)
        sub = math.gcd(length, step) if length is not None and step is not None else 1
        outer, inner = signal_shape[:axis], signal_shape[axis + 1:]
        count = samples // sub
        subframes = reshape(strided_slice(signal, zeros_like(signal_shape), concat([outer, [count * sub], inner], 0)),
                            concat([outer, [count, sub], inner], 0))
        selector = (reshape(tf_range(frames, dtype=frame_length.dtype) * (frame_step // sub), [-1, 1])
                    + reshape(tf_range(frame_length // sub, dtype=frame_length.dtype), [1, -1]))
        frames_tensor = reshape(gather(subframes, selector, axis=axis),
                                concat([outer, [frames, frame_length], inner], 0))
        if result_shape:
            frames_tensor.set_shape(result_shape)
        return frames_tensor


@tf_export("signal.overlap_and_add")
def overlap_and_add(signal: Any, frame_step: Any, name: str | None = None) -> Tensor:
    """The sum of frames `[..., frames, frame_length]` placed `frame_step` samples apart."""
    with name_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(2)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if not frame_step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
        dims = shape(signal)
        frames, frame_length = dims[-2], dims[-1]
        frame_step = cast(frame_step, dims.dtype)
        output_length = frame_length + frame_step * (frames - 1)
        batched = transpose(reshape(signal, concat([[-1], dims[-2:]], 0)), [1, 2, 0])
        positions = (expand_dims(tf_range(frames) * frame_step, 1) + expand_dims(tf_range(frame_length), 0))
        summed = unsorted_segment_sum(batched, positions, output_length)
        result = reshape(transpose(summed, [1, 0]), concat([dims[:-2], [output_length]], 0))
        static = signal.shape
        if static.ndims is not None:
            frames_, length_ = static.as_list()[-2:]
            step = _static_int(frame_step)
            total = None if None in (frames_, length_, step) else length_ + step * (frames_ - 1)
            result.set_shape(static[:-2].concatenate([total]))
        return result


# -- windows ------------------------------------------------------------------------------------------------


def _window_length(window_length: Any, dtype: dtypes.DType) -> Tensor:
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    window_length = convert_to_tensor(window_length, dtype=dtypes.int32, name="window_length")
    window_length.shape.assert_has_rank(0)
    return window_length


def _raised_cosine_window(name: str | None, default_name: str, window_length: Any, periodic: Any,
                          dtype: Any, a: float, b: float) -> Tensor:
    """a - b cos(2 pi n / N): N is the length, less one unless a periodic window of even length."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with name_scope(name, default_name, [window_length, periodic]):
        window_length = convert_to_tensor(window_length, dtype=dtypes.int32, name="window_length")
        window_length.shape.assert_has_rank(0)
        known = _static_int(window_length)
        if known == 1:
            return ones([1], dtype=dtype)
        periodic = cast(convert_to_tensor(periodic, dtype=dtypes.bool, name="periodic"), dtypes.int32)
        periodic.shape.assert_has_rank(0)
        even = 1 - window_length % 2
        n = cast(window_length + periodic * even - 1, dtype)
        count = cast(tf_range(window_length), dtype)
        window = a - b * cos(constant(2 * np.pi, dtype=dtype) * count / n)
        if known is not None:
            return window
        return where_v2(equal(window_length, 1), ones([window_length], dtype=dtype), window)


@tf_export("signal.hann_window")
def hann_window(window_length: Any, periodic: Any = True, dtype: Any = dtypes.float32,
                name: str | None = None) -> Tensor:
    """The Hann window: 0.5 - 0.5 cos(2 pi n / N)."""
    return _raised_cosine_window(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


@tf_export("signal.hamming_window")
def hamming_window(window_length: Any, periodic: Any = True, dtype: Any = dtypes.float32,
                   name: str | None = None) -> Tensor:
    """The Hamming window: 0.54 - 0.46 cos(2 pi n / N)."""
    return _raised_cosine_window(name, "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


@tf_export("signal.kaiser_window")
def kaiser_window(window_length: Any, beta: float = 12.0, dtype: Any = dtypes.float32,
                  name: str | None = None) -> Tensor:
    """The Kaiser window I0(beta sqrt(1 - (2n/(L-1) - 1)^2)) / I0(beta), through the scaled Bessel function."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "kaiser_window"):
        window_length = _window_length(window_length, dtype)
        if _static_int(window_length) == 1:
            return ones([1], dtype=dtype)
        half = (cast(window_length, dtypes.float32) - 1.0) / 2.0
        arg = cast(tf_range(-half, half + 0.1, dtype=dtypes.float32), dtype)
        beta = cast(beta, dtype)
        half = cast(half, dtype)
        num = beta * sqrt(maximum(cast(0.0, dtype), cast(1.0, dtype) - square(arg / half)))
        return exp(num - beta) * (bessel_i0e(num) / bessel_i0e(beta))


@tf_export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length: Any, beta: float = 12.0, dtype: Any = dtypes.float32,
                                 name: str | None = None) -> Tensor:
    """The Kaiser-Bessel-derived window: square roots of a Kaiser window's normalised running sums, mirrored."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "kaiser_bessel_derived_window"):
        window_length = _window_length(window_length, dtype)
        kaiser = kaiser_window(window_length // 2 + 1, beta, dtype=dtype)
        sums = cumsum(kaiser)
        half = sqrt(sums[:-1] / sums[-1])
        return concat([half, reverse(half, [0])], axis=0)


@tf_export("signal.vorbis_window")
def vorbis_window(window_length: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """The Vorbis power-complementary window sin(pi/2 sin^2(pi (n + 1/2) / L))."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "vorbis_window"):
        window_length = _window_length(window_length, dtype)
        arg = cast(tf_range(window_length), dtype)
        inner = sin(np.pi / cast(window_length, dtype) * (arg + 0.5))
        return sin(np.pi / 2.0 * pow(inner, 2.0))


# -- DCT ----------------------------------------------------------------------------------------------------


def _check_dct_arguments(x: Any, dct_type: int, n: int | None, axis: int, norm: str | None) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        dims = x.shape.as_list() if isinstance(x, Tensor) and x.shape.ndims else list(np.shape(x))
        if dims and dims[-1] is not None and dims[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _last_dim(x: Tensor) -> Any:
    """The size of the last dim: an int where static (and non-zero, as TF's `or`), else a Tensor."""
    known = x.shape.as_list()[-1] if x.shape.ndims else None
    return known or shape(x)[-1]


def _dct(x: Any, dct_type: int, n: int | None, norm: str | None, name: str | None) -> Tensor:
    """DCT-I through IV of the last dim, each from one real FFT of twice the length (TF's formulation)."""
    with name_scope(name, "dct", [x]):
        x = convert_to_tensor(x)
        zero = convert_to_tensor(0.0, dtype=x.dtype)
        length = _last_dim(x)
        if n is not None:
            known = _static_int(length) if isinstance(length, Tensor) else length
            if known is not None and n <= known:
                x = x[..., 0:n]
            else:
                x = pad(x, [[0, 0]] * (x.shape.ndims - 1) + [[0, n - length]])
        size = _last_dim(x)
        size_float = cast(size, x.dtype)
        if dct_type == 1:
            return real(rfft(concat([x, x[..., -2:0:-1]], axis=-1)))
        if dct_type == 2:
            scale = 2.0 * exp(make_complex(zero, -tf_range(size_float) * math.pi * 0.5 / size_float))
            result = real(rfft(x, fft_length=[2 * size])[..., :size] * scale)
            if norm == "ortho":
                first = 0.5 * rsqrt(size_float)
                weights = pad(expand_dims(first, 0), [[0, size - 1]], constant_values=first * math.sqrt(2.0))
                result = result * weights
            return result
        if dct_type == 3:
            if norm == "ortho":
                first = sqrt(size_float)
                weights = pad(expand_dims(first, 0), [[0, size - 1]], constant_values=first * math.sqrt(0.5))
                x = x * weights
            else:
                x = x * size_float
            scale = 2.0 * exp(make_complex(zero, tf_range(size_float) * math.pi * 0.5 / size_float))
            return real(irfft(scale * make_complex(x, zero), fft_length=[2 * size]))[..., :size]
        result = _dct(x, 2, 2 * size, None, None)[..., 1::2]
        if norm == "ortho":
            result = result * (math.sqrt(0.5) * rsqrt(size_float))
        return result


@tf_export("signal.dct", "spectral.dct")
def dct(input: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None,  # noqa: A002
        name: str | None = None) -> Tensor:
    """The discrete cosine transform of type I-IV along the last axis (`norm='ortho'` for II-IV)."""
    _check_dct_arguments(input, type, n, axis, norm)
    return _dct(input, type, n, norm, name)


@tf_export("signal.idct", "spectral.idct")
def idct(input: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None,  # noqa: A002
         name: str | None = None) -> Tensor:
    """The inverse DCT: the DCT of the inverse type (III for II, II for III), unscaled unless `norm='ortho'`."""
    _check_dct_arguments(input, type, n, axis, norm)
    return _dct(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm, name)


# -- stft, inverse_stft, mdct, inverse_mdct -----------------------------------------------------------------


def _enclosing_power_of_two(value: Tensor) -> Tensor:
    known = _static_int(value)
    if known is not None:
        return constant(int(2 ** np.ceil(np.log(known) / np.log(2.0))), value.dtype)
    exponent = log(cast(value, dtypes.float32)) / math.log(2.0)
    return cast(pow(2.0, exponent - (exponent % 1.0) + cast(exponent % 1.0 > 0, dtypes.float32)), value.dtype)


@tf_export("signal.stft")
def stft(signals: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
         window_fn: Callable | None = hann_window, pad_end: bool = False, name: str | None = None) -> Tensor:
    """The short-time Fourier transform: the real FFT of each windowed frame of the innermost dim."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                      else convert_to_tensor(fft_length, name="fft_length"))
        frames = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            frames = frames * window_fn(frame_length, dtype=frames.dtype)
        return rfft(frames, [fft_length])


@tf_export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step: Any, forward_window_fn: Callable = hann_window,
                           name: str | None = None) -> Callable:
    """A window function for `inverse_stft` that undoes `forward_window_fn` where frames overlap: the forward
    window divided by the overlapped sum of its squares."""
    def inverse_window(frame_length: Any, dtype: Any) -> Tensor:
        with name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            step = convert_to_tensor(frame_step, name="frame_step")
            step.shape.assert_has_rank(0)
            length = convert_to_tensor(frame_length, name="frame_length")
            length.shape.assert_has_rank(0)
            forward = forward_window_fn(length, dtype=dtype)
            overlaps = -(-length // step)
            denominator = pad(square(forward), [(0, overlaps * step - length)])
            denominator = reduce_sum(reshape(denominator, [overlaps, step]), 0, keepdims=True)
            denominator = reshape(tile(denominator, [overlaps, 1]), [overlaps * step])
            denominator = denominator[:length]
            return where_v2(equal(denominator, 0.0), zeros_like(forward), forward / denominator)

    return inverse_window


@tf_export("signal.inverse_stft")
def inverse_stft(stfts: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
                 window_fn: Callable | None = hann_window, name: str | None = None) -> Tensor:
    """Signals from their STFTs: each frame's inverse real FFT, cut or padded to `frame_length`, windowed and
    overlap-added (pass `inverse_stft_window_fn` for a perfect reconstruction)."""
    with name_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = convert_to_tensor(fft_length, name="fft_length")
            fft_length.shape.assert_has_rank(0)
        frames = irfft(stfts, [fft_length])
        known = _static_int(frame_length)
        have = frames.shape[-1] if frames.shape.ndims is not None else None
        if known is None or have is None:
            frames = frames[..., :frame_length]
            extra = maximum(0, frame_length - shape(frames)[-1])
            rank = frames.shape.ndims
            if rank is None:
                raise NotImplementedError("tf.signal.inverse_stft needs stfts of known rank in tensorweave")
            frames = pad(frames, [[0, 0]] * (rank - 1) + [[0, extra]])
        elif have > known:
            frames = frames[..., :known]
        elif have < known:
            frames = pad(frames, [[0, 0]] * (frames.shape.ndims - 1) + [[0, known - have]])
        if known is not None and frames.shape.ndims is not None:
            frames.set_shape([None] * (frames.shape.ndims - 1) + [known])
        if window_fn is not None:
            frames = frames * window_fn(frame_length, dtype=stfts.dtype.real_dtype)
        return overlap_and_add(frames, frame_step)


@tf_export("signal.mdct")
def mdct(signals: Any, frame_length: Any, window_fn: Callable | None = vorbis_window, pad_end: bool = False,
         norm: str | None = None, name: str | None = None) -> Tensor:
    """The modified DCT of half-overlapping frames: each windowed frame folded to half length, then DCT-IV."""
    with name_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        known = _static_int(frame_length)
        if known is not None:
            if known % 4 != 0:
                raise ValueError("The frame length must be a multiple of 4.")
            frame_step = convert_to_tensor(known // 2, dtype=frame_length.dtype)
        else:
            frame_step = frame_length // 2
        frames = frame(signals, frame_length, frame_step, pad_end=pad_end)
        frames = frames * (window_fn(frame_length, dtype=frames.dtype) if window_fn is not None else 1.0 / np.sqrt(2))
        a, b, c, d = split(frames, 4, axis=-1)
        folded = concat([-reverse(c, [-1]) - d, a - reverse(b, [-1])], axis=-1)
        return dct(folded, type=4, norm=norm)


@tf_export("signal.inverse_mdct")
def inverse_mdct(mdcts: Any, window_fn: Callable | None = vorbis_window, norm: str | None = None,
                 name: str | None = None) -> Tensor:
    """Signals from their MDCTs: DCT-IV of each frame, unfolded to full length, windowed and overlap-added."""
    with name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(2)
        half = cast(mdcts.shape[-1], dtypes.int32)
        if norm is None:
            result = 0.5 / cast(half, mdcts.dtype) * dct(mdcts, type=4)
        elif norm == "ortho":
            result = dct(mdcts, type=4, norm="ortho")
        first, second = split(result, 2, axis=-1)
        frames = concat([second, -reverse(second, [-1]), -reverse(first, [-1]), -first], axis=-1)
        frames = frames * (window_fn(2 * half, dtype=mdcts.dtype) if window_fn is not None else 1.0 / np.sqrt(2))
        return overlap_and_add(frames, half)


# -- mel and cepstral features ------------------------------------------------------------------------------

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz: Any) -> Tensor:
    return _MEL_HIGH_FREQUENCY_Q * log(1.0 + hertz / _MEL_BREAK_FREQUENCY_HERTZ)


@tf_export("signal.linear_to_mel_weight_matrix")
def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: int = 129, sample_rate: Any = 8000,
                                lower_edge_hertz: float = 125.0, upper_edge_hertz: float = 3800.0,
                                dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """The [num_spectrogram_bins, num_mel_bins] matrix of triangular mel filters over linear frequency bins (HTK
    mel scale); the DC bin gets no weight."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, Tensor):
            known = tensor_util.constant_value(sample_rate)
            sample_rate = sample_rate if known is None else known
        if num_mel_bins <= 0:
            raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
        if lower_edge_hertz < 0.0:
            raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
        if lower_edge_hertz >= upper_edge_hertz:
            raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}")
        if not isinstance(sample_rate, Tensor):
            if sample_rate <= 0.0:
                raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
            if upper_edge_hertz > sample_rate / 2:
                raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                                 f"Got {upper_edge_hertz} for sample_rate: {sample_rate}")
        if not dtype.is_floating:
            raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
        sample_rate = cast(sample_rate, dtype, name="sample_rate")
        lower = convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
        upper = convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
        zero = convert_to_tensor(0.0, dtype)
        frequencies = lin_space(zero, sample_rate / 2.0, num_spectrogram_bins)[1:]
        bins_mel = expand_dims(_hertz_to_mel(frequencies), 1)
        edges = frame(lin_space(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2), frame_length=3,
                      frame_step=1)
        left, center, right = (reshape(t, [1, num_mel_bins]) for t in split(edges, 3, axis=1))
        rising = (bins_mel - left) / (center - left)
        falling = (right - bins_mel) / (right - center)
        weights = maximum(zero, minimum(rising, falling))
        return pad(weights, [[1, 0], [0, 0]], name=scope)


@tf_export("signal.mfccs_from_log_mel_spectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any, name: str | None = None) -> Tensor:
    """Mel-frequency cepstral coefficients: the orthonormally scaled DCT-II of log mel spectrograms."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        spectrograms = convert_to_tensor(log_mel_spectrograms)
        if spectrograms.shape.ndims and spectrograms.shape[-1] is not None:
            bins = spectrograms.shape[-1]
            if bins == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {spectrograms}")
        else:
            bins = shape(spectrograms)[-1]
        coefficients = dct(spectrograms, type=2)
        return coefficients * rsqrt(cast(bins, coefficients.dtype) * 2.0)

