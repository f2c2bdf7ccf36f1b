"""Stride-1 2-D convolutions through the discrete Fourier transform, where that takes far fewer products than
im2col (conv_kernels picks it): deep MNIST's 14x14x32 -> 64 5x5 layer takes 147M multiply-adds this way
against 642M directly, AlexNet's 27x27x96 -> 256 5x5 4.3G against 28.7G.

A convolution of a batch of NHWC signals with a [KH, KW, C, O] filter is, per frequency bin, a product of a
[N, C] matrix of the signals' spectra by a [C, O] matrix of the filter's: the channels mix bin by bin, with
BLAS. The transforms themselves are matrix products too (a real DFT along the columns, then a complex one
along the rows: the spatial sizes are small, where an FFT's per-transform overhead dominates), each one GEMM
over every signal at once. The period of each axis is the smallest with no wrap-around into the positions
read (`period`); the filter's spectrum carries the padding's shift, so no padded copy is ever made.

The three convolutions of a layer share the machinery: the forward one (signal x, spectrum product X·W~),
the input's gradient (signal dy, product DY·conj(W~)) and the filter's (the correlation of x with dy over the
batch, conj(DY)·X summed over images, transformed back at the filter's taps). Values differ from im2col's in
the last bits, as TF's own FFT convolutions on GPUs do (errors relative to the largest output, ~1e-7 in
float32).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tensorweave.framework.device_base import DeviceBase

FOURIER_MIN_SAVING = 2.5  # im2col's multiply-adds over the transforms', at least (their products are smaller, and
# the layout changes between them copy the spectra)
FOURIER_MIN_PRODUCTS = 1 << 25  # below this a convolution is cheap anyway: im2col's values, bit for bit
CHUNK_BYTES = 64 << 20  # the spectra of the images transformed at once, at most (but one image)
BIN_BLOCKS = 4  # tasks of the products per bin: work for two threads


def period(in_size: int, out_size: int, k: int, before: int) -> int:
    """The smallest DFT length along one axis where no input position wraps onto a position another reads
    (the output position plus the tap offset, less the padding, spans [-before, out_size + k - 2 - before])."""
    return max(out_size + k - 2 - before, in_size - 1 + before) + 1


def _products(batch: int, in_hw: tuple[int, int], out_hw: tuple[int, int], periods: tuple[int, int],
              depth_in: int, depth_out: int) -> int:
    """Multiply-adds of a Fourier convolution: the columns' and rows' transforms of the signals, the channel
    mixing per bin, and the transforms back."""
    (h, w), (oh, ow), (p, q) = in_hw, out_hw, periods
    half = q // 2 + 1
    forward = 2 * half * w * batch * h * depth_in + 4 * p * h * half * batch * depth_in
    backward = 4 * oh * p * half * batch * depth_out + ow * 2 * half * oh * batch * depth_out
    return forward + 4 * p * half * batch * depth_in * depth_out + backward


def applies(g: Any, dtype: np.dtype) -> bool:
    """Whether convolution `g` (a conv_kernels.ConvGeometry) goes through the Fourier transform: stride and
    dilation 1, one group, float32 or float64, and many fewer products than im2col's."""
    if ((g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, g.groups) != (1, 1, 1, 1, 1)
            or dtype not in (np.float32, np.float64) or 0 in (g.batch, g.in_h, g.in_w, g.in_depth, g.out_depth)):
        return False
    direct = g.batch * g.rows.size * g.cols.size * g.kh * g.kw * g.in_depth * g.out_depth
    if direct < FOURIER_MIN_PRODUCTS:
        return False
    periods = _periods(g)
    fourier = max(_products(g.batch, (g.in_h, g.in_w), (g.rows.size, g.cols.size), periods, g.in_depth,
                            g.out_depth),
                  _products(g.batch, (g.rows.size, g.cols.size), (g.in_h, g.in_w), periods, g.out_depth,
                            g.in_depth))
    return fourier * FOURIER_MIN_SAVING <= direct


def _periods(g: Any) -> tuple[int, int]:
    return (period(g.in_h, g.rows.size, g.kh, g.rows.before), period(g.in_w, g.cols.size, g.kw, g.cols.before))


@functools.lru_cache(maxsize=64)
def _column_dft(size: int, q: int, dtype: np.dtype) -> Any:
    """[2 * (q//2 + 1), size]: the real DFT of period q of `size` real values, real parts then imaginary."""
    angle = 2 * np.pi * (np.outer(np.arange(q // 2 + 1), np.arange(size)) % q) / q
    return np.concatenate([np.cos(angle), -np.sin(angle)]).astype(dtype)


@functools.lru_cache(maxsize=64)
def _row_dft(size: int, p: int, dtype: np.dtype) -> Any:
    """[2p, 2 * size]: the complex DFT of period p of `size` complex values, as a real block matrix over
    (real parts; imaginary parts)."""
    angle = 2 * np.pi * (np.outer(np.arange(p), np.arange(size)) % p) / p
    c, s = np.cos(angle), np.sin(angle)
    return np.block([[c, s], [-s, c]]).astype(dtype)


@functools.lru_cache(maxsize=64)
def _row_inverse(positions: range, p: int, dtype: np.dtype) -> Any:
    """[2 * len(positions), 2p]: the complex inverse DFT of period p (unscaled) at `positions`, as a real block
    matrix."""
    angle = 2 * np.pi * (np.outer(np.array(positions), np.arange(p)) % p) / p
    c, s = np.cos(angle), np.sin(angle)
    return np.block([[c, -s], [s, c]]).astype(dtype)


@functools.lru_cache(maxsize=64)
def _column_inverse(positions: range, q: int, scale: float, dtype: np.dtype) -> Any:
    """[len(positions), 2 * (q//2 + 1)]: the real values at `positions` of a real signal of period q from its
    half spectrum (real parts then imaginary), times `scale`: the bins other than 0 and q/2 count twice, for
    their conjugate partners."""
    half = q // 2 + 1
    weight = np.full(half, 2.0)
    weight[0] = 1.0
    if q % 2 == 0:
        weight[-1] = 1.0
    angle = 2 * np.pi * (np.outer(np.array(positions), np.arange(half)) % q) / q
    return (np.concatenate([np.cos(angle) * weight, -np.sin(angle) * weight], axis=1) * scale).astype(dtype)


def spectra(x: Any, periods: tuple[int, int], device: DeviceBase) -> Any:
    """[2, P*(Q//2+1), N, C]: the spectra (real parts, imaginary parts) of the [N, H, W, C] signals' channels."""
    n, h, w, c = x.shape
    p, q = periods
    half = q // 2 + 1
    columns = device.matmul(_column_dft(w, q, x.dtype), np.ascontiguousarray(x.transpose(2, 0, 1, 3)).reshape(w, -1))
    by_rows = np.ascontiguousarray(columns.reshape(2, half, n, h, c).transpose(0, 3, 1, 2, 4)).reshape(2 * h, -1)
    return device.matmul(_row_dft(h, p, x.dtype), by_rows).reshape(2, p * half, n, c)


@functools.lru_cache(maxsize=64)
def _filter_dft(taps: tuple[int, int], periods: tuple[int, int], before: tuple[int, int], dtype: np.dtype) -> Any:
    """[2 * P * (Q//2+1), KH*KW]: cos then sin of 2 pi (p (a - before_h) / P + q (b - before_w) / Q), by bin
    and tap."""
    (kh, kw), (p, q) = taps, periods
    angle = 2 * np.pi * (np.add.outer(np.outer(np.arange(p), np.arange(kh) - before[0]) % p / p,
                                      np.outer(np.arange(q // 2 + 1), np.arange(kw) - before[1]) % q / q)
                         .transpose(0, 2, 1, 3).reshape(-1, kh * kw))
    return np.concatenate([np.cos(angle), np.sin(angle)]).astype(dtype)


def filter_spectra(filters: Any, periods: tuple[int, int], before: tuple[int, int], conjugate: bool) -> tuple:
    """The [P*(Q//2+1), C, O] real and imaginary parts of the spectrum of the [KH, KW, C, O] filter read as
    a correlation shifted by the padding (or of its conjugate): sum over taps of w[a, b] exp(+2 pi i (p (a -
    before_h) / P + q (b - before_w) / Q))."""
    kh, kw, c, o = filters.shape
    parts = (_filter_dft((kh, kw), periods, before, filters.dtype)
             @ np.ascontiguousarray(filters).reshape(kh * kw, c * o)).reshape(2, -1, c, o)
    return parts[0], -parts[1] if conjugate else parts[1]


def mix(spectrum: Any, real: Any, imaginary: Any, device: DeviceBase) -> Any:
    """[2, bins, N, O]: each bin's [N, C] signal spectra times its [C, O] filter spectrum, complex, as 4 real
    products, blocks of bins as tasks on the device's threads."""
    xr, xi = spectrum
    bins = xr.shape[0]
    out = np.empty((2, bins, xr.shape[1], real.shape[2]), spectrum.dtype)

    def run(index: int) -> None:
        b = slice(index * bins // BIN_BLOCKS, (index + 1) * bins // BIN_BLOCKS)
        np.matmul(xr[b], real[b], out=out[0, b])
        out[0, b] -= np.matmul(xi[b], imaginary[b])
        np.matmul(xr[b], imaginary[b], out=out[1, b])
        out[1, b] += np.matmul(xi[b], real[b])

    device.parallel_products(BIN_BLOCKS, run)
    return out


def correlate(x_spectrum: Any, dy_spectrum: Any, device: DeviceBase) -> Any:
    """[2, bins, C, O]: per bin, the sum over images of conj(DY) X (the spectrum of the correlation of x with
    dy), blocks of bins as tasks on the device's threads."""
    (xr, xi), (dyr, dyi) = x_spectrum, dy_spectrum
    bins = xr.shape[0]
    out = np.empty((2, bins, xr.shape[2], dyr.shape[2]), xr.dtype)

    def run(index: int) -> None:
        b = slice(index * bins // BIN_BLOCKS, (index + 1) * bins // BIN_BLOCKS)
        np.matmul(xr[b].transpose(0, 2, 1), dyr[b], out=out[0, b])
        out[0, b] += np.matmul(xi[b].transpose(0, 2, 1), dyi[b])
        np.matmul(xi[b].transpose(0, 2, 1), dyr[b], out=out[1, b])
        out[1, b] -= np.matmul(xr[b].transpose(0, 2, 1), dyi[b])

    device.parallel_products(BIN_BLOCKS, run)
    return out


def at_positions(spectrum: Any, periods: tuple[int, int], rows: range, cols: range, device: DeviceBase) -> Any:
    """[len(cols), len(rows), B, O]: the real signals whose [2, P*(Q//2+1), B, O] spectrum is given, at the
    row and column positions asked (which may be negative: the period wraps them)."""
    _, _, b, o = spectrum.shape
    p, q = periods
    half = q // 2 + 1
    dtype = spectrum.dtype
    by_rows = device.matmul(_row_inverse(rows, p, dtype), spectrum.reshape(2 * p, -1))
    by_columns = np.ascontiguousarray(by_rows.reshape(2, len(rows), half, b, o).transpose(0, 2, 1, 3, 4))
    values = device.matmul(_column_inverse(cols, q, 1.0 / (p * q), dtype), by_columns.reshape(2 * half, -1))
    return values.reshape(len(cols), len(rows), b, o)


def _image_chunks(g: Any, depth: int, itemsize: int) -> list[slice]:
    """Chunks of images, in turn, whose spectra fit CHUNK_BYTES (the whole batch, but for large layers)."""
    p, q = _periods(g)
    size = max(1, CHUNK_BYTES // (2 * p * (q // 2 + 1) * depth * itemsize))
    return [slice(n, n + size) for n in range(0, g.batch, size)]


def _convolve(signal: Any, filters: Any, g: Any, out_hw: tuple[int, int], conjugate: bool,
              device: DeviceBase) -> Any:
    """The [N, OH, OW, O] correlation of the [N, H, W, C] signals with the [KH, KW, C, O] filter shifted by
    g's padding (with its conjugate spectrum: the transposed convolution), a chunk of images at a time."""
    periods = _periods(g)
    real, imaginary = filter_spectra(filters, periods, (g.rows.before, g.cols.before), conjugate)
    out = np.empty((signal.shape[0], *out_hw, filters.shape[3]), signal.dtype)
    for images in _image_chunks(g, signal.shape[3] + filters.shape[3], signal.dtype.itemsize):
        product = mix(spectra(signal[images], periods, device), real, imaginary, device)
        values = at_positions(product, periods, range(out_hw[0]), range(out_hw[1]), device)
        out[images] = values.transpose(2, 1, 0, 3)
    return out


def forward(x: Any, filters: Any, g: Any, device: DeviceBase) -> Any:
    """The [N, OH, OW, O] convolution of g (see `applies`) through the Fourier transform."""
    return _convolve(x, filters, g, (g.rows.size, g.cols.size), False, device)


def backprop_input(filters: Any, out_backprop: Any, g: Any, device: DeviceBase) -> Any:
    """The [N, H, W, C] gradient of the input of convolution g through the Fourier transform: the output
    gradient's correlation with the filter's conjugate spectrum, its depths swapped."""
    return _convolve(out_backprop, filters.transpose(0, 1, 3, 2), g, (g.in_h, g.in_w), True, device)


def backprop_filter(x: Any, out_backprop: Any, g: Any, device: DeviceBase) -> Any:
    """The [KH, KW, C, O] gradient of the filter of convolution g through the Fourier transform: the
    correlation spectra of the chunks of images summed in order, transformed back at the filter's taps."""
    periods = _periods(g)
    total = None
    for images in _image_chunks(g, g.in_depth + g.out_depth, x.dtype.itemsize):
        chunk = correlate(spectra(x[images], periods, device), spectra(out_backprop[images], periods, device),
                          device)
        total = chunk if total is None else np.add(total, chunk, out=total)
    values = at_positions(total, periods, range(-g.rows.before, g.kh - g.rows.before),
                          range(-g.cols.before, g.kw - g.cols.before), device)
    return np.ascontiguousarray(values.transpose(1, 0, 2, 3))
