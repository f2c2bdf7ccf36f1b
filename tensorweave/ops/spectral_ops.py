"""Fast Fourier transforms: the complex FFT/IFFT of rank 1-3 and N, the real RFFT/IRFFT of rank 1-3 and N, their
gradients, and the `tf.signal`/`tf.spectral` wrappers that infer `fft_length` and pad a short input (rfft,
irfft, ...), with fftshift and ifftshift.

The kernels transform the innermost `rank` dimensions (FFTND: the axes given, which TF requires to be
successive and end at the last); the real kernels crop an input longer than `fft_length` (the innermost of an
IRFFT's to `fft_length / 2 + 1`) and refuse a shorter one, which the Python wrappers pad first, as TF's.
An empty input passes through as an empty output of the output's shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import indexing_ops  # noqa: F401 - Tensor.__getitem__ for the gradients' slices
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import complex as make_complex
from tensorweave.ops.elementwise_ops import maximum, real
from tensorweave.ops.fill_ops import ones, zeros, zeros_like
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.manipulation_ops import concat, pad, roll, stack
from tensorweave.ops.reduction_ops import reduce_prod
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import rank as array_rank
from tensorweave.ops.shape_ops import shape
from tensorweave.platform.tf_export import export_value, tf_export

_COMPLEX = "Tcomplex: {complex64, complex128} = DT_COMPLEX64"
_REAL = "Treal: {float, double} = DT_FLOAT"
_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}
_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _fft_size_for_grad(grad: Tensor, rank: int) -> Tensor:
    """How many points the transform of `grad`'s innermost `rank` dims has: the scale of an inverse."""
    return reduce_prod(shape(grad)[-rank:])


def _complex_shape(rank: int) -> Any:
    def shape_fn(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        return [with_rank_at_least(ctx.input_shape(0), rank)]

    return shape_fn


def _complex_kernel(rank: int, forward: bool) -> Any:
    def kernel(ctx: OpKernelContext, x: Any) -> Any:
        if x.ndim < rank:
            raise invalid_argument(ctx, f"Input must have rank of at least {rank} but got: "
                                        f"{tensor_shape.shape_string(x.shape)}")
        if x.size == 0:
            return x.copy()
        axes = tuple(range(-rank, 0))
        transform = ctx.xp.fft.fftn if forward else ctx.xp.fft.ifftn
        return transform(x, axes=axes).astype(x.dtype, copy=False)

    return kernel


# -- FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D ----------------------------------------------------------------

FFT = Op("FFT", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"], attrs=[_COMPLEX])
FFT.shape(_complex_shape(1))
FFT.kernel("CPU", expensive=True)(_complex_kernel(1, forward=True))


@FFT.gradient
def _fft_grad(op: Any, grad: Tensor) -> list:
    return [_ifft_of(grad, 1) * cast(_fft_size_for_grad(grad, 1), grad.dtype)]


IFFT = Op("IFFT", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"], attrs=[_COMPLEX])
IFFT.shape(_complex_shape(1))
IFFT.kernel("CPU", expensive=True)(_complex_kernel(1, forward=False))


@IFFT.gradient
def _ifft_grad(op: Any, grad: Tensor) -> list:
    return [_fft_of(grad, 1) / cast(_fft_size_for_grad(grad, 1), grad.dtype)]


FFT2D = Op("FFT2D", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"], attrs=[_COMPLEX])
FFT2D.shape(_complex_shape(2))
FFT2D.kernel("CPU", expensive=True)(_complex_kernel(2, forward=True))


@FFT2D.gradient
def _fft2d_grad(op: Any, grad: Tensor) -> list:
    return [_ifft_of(grad, 2) * cast(_fft_size_for_grad(grad, 2), grad.dtype)]


IFFT2D = Op("IFFT2D", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"], attrs=[_COMPLEX])
IFFT2D.shape(_complex_shape(2))
IFFT2D.kernel("CPU", expensive=True)(_complex_kernel(2, forward=False))


@IFFT2D.gradient
def _ifft2d_grad(op: Any, grad: Tensor) -> list:
    return [_fft_of(grad, 2) / cast(_fft_size_for_grad(grad, 2), grad.dtype)]


FFT3D = Op("FFT3D", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"], attrs=[_COMPLEX])
FFT3D.shape(_complex_shape(3))
FFT3D.kernel("CPU", expensive=True)(_complex_kernel(3, forward=True))


@FFT3D.gradient
def _fft3d_grad(op: Any, grad: Tensor) -> list:
    return [_ifft_of(grad, 3) * cast(_fft_size_for_grad(grad, 3), grad.dtype)]


IFFT3D = Op("IFFT3D", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"], attrs=[_COMPLEX])
IFFT3D.shape(_complex_shape(3))
IFFT3D.kernel("CPU", expensive=True)(_complex_kernel(3, forward=False))


@IFFT3D.gradient
def _ifft3d_grad(op: Any, grad: Tensor) -> list:
    return [_fft_of(grad, 3) / cast(_fft_size_for_grad(grad, 3), grad.dtype)]


_FORWARD = {1: FFT, 2: FFT2D, 3: FFT3D}
_INVERSE = {1: IFFT, 2: IFFT2D, 3: IFFT3D}


def _fft_of(x: Tensor, rank: int) -> Tensor:
    return _FORWARD[rank](x)


def _ifft_of(x: Tensor, rank: int) -> Tensor:
    return _INVERSE[rank](x)


for _op, _names in ((FFT, "fft"), (IFFT, "ifft"), (FFT2D, "fft2d"), (IFFT2D, "ifft2d"), (FFT3D, "fft3d"),
                    (IFFT3D, "ifft3d")):
    export_value(_op, _names, f"signal.{_names}", f"spectral.{_names}")


# -- RFFT, IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D ----------------------------------------------------------

def _real_shape(rank: int, forward: bool) -> Any:
    """TF's RFFTShape: the innermost dims become `fft_length` (an RFFT's last `fft_length / 2 + 1`)."""
    def shape_fn(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        out = with_rank_at_least(ctx.input_shape(0), rank)
        lengths = with_rank(ctx.input_shape(1), 1)
        if lengths.dims is not None and lengths[0] is not None and lengths[0] != rank:
            raise ValueError(f"Dimension must be {rank} but is {lengths[0]}")
        if out.ndims is None:
            return [out]
        value = ctx.input_value(1)
        dims = out.as_list()
        for i in range(rank):
            length = None if value is None else int(value[i])
            if length is not None and forward and i == rank - 1 and length != 0:
                length = length // 2 + 1
            dims[len(dims) - rank + i] = length
        return [tensor_shape.TensorShape(dims)]

    return shape_fn


def _real_kernel_lengths(ctx: OpKernelContext, x: Any, fft_length: Any, rank: int, forward: bool) -> list[int]:
    """The transform's lengths, checked as TF's FFTBase checks them against the input."""
    if fft_length.ndim != 1 or fft_length.shape[0] != rank:
        raise invalid_argument(ctx, f"fft_length must have shape [{rank}]")
    lengths = [int(n) for n in fft_length]
    for i, length in enumerate(lengths):
        if length < 0:
            raise invalid_argument(ctx, f"fft_length[{i}] must >= 0, but got: {length}")
        least = length // 2 + 1 if not forward and i == rank - 1 else length
        index = x.ndim - rank + i
        if x.shape[index] != 0 and x.shape[index] < least:
            raise invalid_argument(ctx, f"Input dimension {index} must have length of at least {least} but got: "
                                        f"{x.shape[index]}")
    return lengths


def _rfft_kernel(rank: int) -> Any:
    def kernel(ctx: OpKernelContext, x: Any, fft_length: Any, Tcomplex: dtypes.DType) -> Any:  # noqa: N803
        if x.ndim < rank:
            raise invalid_argument(ctx, f"Input must have rank of at least {rank} but got: "
                                        f"{tensor_shape.shape_string(x.shape)}")
        lengths = _real_kernel_lengths(ctx, x, fft_length, rank, forward=True)
        out_shape = x.shape[:-rank] + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1 if lengths[-1] else 0,)
        out_type = Tcomplex.as_numpy_dtype
        if x.size == 0 or 0 in out_shape:
            return ctx.xp.zeros(out_shape, out_type)
        cropped = x[(Ellipsis, *(slice(0, n) for n in lengths))]
        return ctx.xp.fft.rfftn(cropped, s=lengths, axes=tuple(range(-rank, 0))).astype(out_type, copy=False)

    return kernel


def _irfft_kernel(rank: int) -> Any:
    def kernel(ctx: OpKernelContext, x: Any, fft_length: Any, Treal: dtypes.DType) -> Any:  # noqa: N803
        if x.ndim < rank:
            raise invalid_argument(ctx, f"Input must have rank of at least {rank} but got: "
                                        f"{tensor_shape.shape_string(x.shape)}")
        lengths = _real_kernel_lengths(ctx, x, fft_length, rank, forward=False)
        out_shape = x.shape[:-rank] + tuple(lengths)
        out_type = Treal.as_numpy_dtype
        if x.size == 0 or 0 in out_shape:
            return ctx.xp.zeros(out_shape, out_type)
        limits = lengths[:-1] + [lengths[-1] // 2 + 1]
        cropped = x[(Ellipsis, *(slice(0, n) for n in limits))]
        return ctx.xp.fft.irfftn(cropped, s=lengths, axes=tuple(range(-rank, 0))).astype(out_type, copy=False)

    return kernel


def _rfft_grad(rank: int) -> Any:
    """The adjoint of keeping the non-negative frequencies of a real signal's DFT: the inverse transform of the
    gradient zero-filled to the full spectrum, times its size, real part (TF's IRFFT-plus-edge-terms form)."""
    def grad_fn(op: Any, grad: Tensor) -> list:
        x, fft_length = op.inputs
        full_last = fft_length[-1:] - shape(grad)[-1:]
        paddings = concat([zeros([array_rank(grad) - 1, 2], dtypes.int32),
                           stack([zeros([1], dtypes.int32), full_last], axis=1)], 0)
        spectrum = pad(grad, paddings)
        size = cast(reduce_prod(fft_length), grad.dtype)
        return [real(_ifft_of(spectrum, rank) * size), None]

    return grad_fn


def _irfft_grad(rank: int) -> Any:
    """The RFFT of the gradient scaled by 1/size, the Hermitian-duplicated bins counted twice (TF's mask)."""
    def grad_fn(op: Any, grad: Tensor) -> list:
        x, fft_length = op.inputs
        real_dtype = grad.dtype
        is_odd = fft_length[-1] % 2
        last = shape(x)[-1]
        mask = concat([ones([1], real_dtype), 2.0 * ones([last - 2 + is_odd], real_dtype),
                       ones([1 - is_odd], real_dtype)], 0)
        scale = mask / cast(_fft_size_for_grad(grad, rank), real_dtype)
        return [_REAL_FORWARD[rank](grad, fft_length, Tcomplex=_COMPLEX_OF[real_dtype])
                * make_complex(scale, zeros_like(scale)), None]

    return grad_fn


RFFT = Op("RFFT", inputs=["input: Treal", "fft_length: int32"], outputs=["output: Tcomplex"], attrs=[_REAL, _COMPLEX])
RFFT.shape(_real_shape(1, forward=True))
RFFT.kernel("CPU", expensive=True)(_rfft_kernel(1))
RFFT.gradient(_rfft_grad(1))

IRFFT = Op("IRFFT", inputs=["input: Tcomplex", "fft_length: int32"], outputs=["output: Treal"],
           attrs=[_REAL, _COMPLEX])
IRFFT.shape(_real_shape(1, forward=False))
IRFFT.kernel("CPU", expensive=True)(_irfft_kernel(1))
IRFFT.gradient(_irfft_grad(1))

RFFT2D = Op("RFFT2D", inputs=["input: Treal", "fft_length: int32"], outputs=["output: Tcomplex"],
            attrs=[_REAL, _COMPLEX])
RFFT2D.shape(_real_shape(2, forward=True))
RFFT2D.kernel("CPU", expensive=True)(_rfft_kernel(2))
RFFT2D.gradient(_rfft_grad(2))

IRFFT2D = Op("IRFFT2D", inputs=["input: Tcomplex", "fft_length: int32"], outputs=["output: Treal"],
             attrs=[_REAL, _COMPLEX])
IRFFT2D.shape(_real_shape(2, forward=False))
IRFFT2D.kernel("CPU", expensive=True)(_irfft_kernel(2))
IRFFT2D.gradient(_irfft_grad(2))

# TF registers no gradient for the rank-3 real transforms.
RFFT3D = Op("RFFT3D", inputs=["input: Treal", "fft_length: int32"], outputs=["output: Tcomplex"],
            attrs=[_REAL, _COMPLEX])
RFFT3D.shape(_real_shape(3, forward=True))
RFFT3D.kernel("CPU", expensive=True)(_rfft_kernel(3))

IRFFT3D = Op("IRFFT3D", inputs=["input: Tcomplex", "fft_length: int32"], outputs=["output: Treal"],
             attrs=[_REAL, _COMPLEX])
IRFFT3D.shape(_real_shape(3, forward=False))
IRFFT3D.kernel("CPU", expensive=True)(_irfft_kernel(3))

_REAL_FORWARD = {1: RFFT, 2: RFFT2D, 3: RFFT3D}


def _infer_fft_length(x: Tensor, rank: int, inverse: bool) -> Tensor:
    """The innermost `rank` dims of `x` (an inverse's last from its `n / 2 + 1` bins): static if known."""
    inner = x.shape[-rank:]
    if inner.is_fully_defined():
        lengths = inner.as_list()
        if inverse and lengths:
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        return convert_to_tensor(lengths, dtypes.int32)
    dynamic = shape(x)[-rank:]
    if not inverse:
        return dynamic
    return concat([dynamic[:-1], maximum(0, 2 * (dynamic[-1:] - 1))], 0)


def _pad_to_fft_length(x: Tensor, rank: int, fft_length: Tensor, inverse: bool) -> Tensor:
    """`x` zero-padded on its innermost dims up to `fft_length` (an inverse's last to `n / 2 + 1`)."""
    if x.shape.ndims is not None and 0 in x.shape.as_list():
        return x
    lengths = tensor_util.constant_value(fft_length)
    inner = x.shape[-rank:] if x.shape.ndims is not None else tensor_shape.unknown_shape()
    if lengths is not None and inner.is_fully_defined():
        wanted = [int(n) for n in lengths]
        if inverse:
            wanted[-1] = wanted[-1] // 2 + 1
        extra = [max(w - d, 0) for w, d in zip(wanted, inner.as_list())]
        if not any(extra):
            return x
        return pad(x, [[0, 0]] * (x.shape.ndims - rank) + [[0, e] for e in extra])
    if inverse:
        fft_length = concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    extra = maximum(0, fft_length - shape(x)[-rank:])
    outer = zeros([maximum(0, array_rank(x) - rank)], dtypes.int32)
    amounts = concat([outer, extra], 0)
    return pad(x, stack([zeros_like(amounts), amounts], axis=1))


def _static_or_tensor(fft_length: Tensor) -> Any:
    value = tensor_util.constant_value(fft_length)
    return fft_length if value is None else value


def _rfft_wrapper(op: Op, rank: int, default_name: str) -> Any:
    def rfft(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        """The real-input FFT of the innermost dims; `fft_length` defaults to their sizes, a short input is
        zero-padded to it."""
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.float32)
            if x.dtype not in _COMPLEX_OF:
                raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
            x.shape.with_rank_at_least(rank)
            lengths = (_infer_fft_length(x, rank, inverse=False) if fft_length is None
                       else convert_to_tensor(fft_length, dtypes.int32))
            x = _pad_to_fft_length(x, rank, lengths, inverse=False)
            return op(x, _static_or_tensor(lengths), Tcomplex=_COMPLEX_OF[x.dtype], name=scope)

    rfft.__name__ = rfft.__qualname__ = default_name
    return rfft


def _irfft_wrapper(op: Op, rank: int, default_name: str) -> Any:
    def irfft(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        """The real signal of a Hermitian spectrum's non-negative half; `fft_length` defaults to
        2 * (bins - 1) on the last dim."""
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
            x.shape.with_rank_at_least(rank)
            if x.dtype not in _REAL_OF:
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}")
            lengths = (_infer_fft_length(x, rank, inverse=True) if fft_length is None
                       else convert_to_tensor(fft_length, dtypes.int32))
            x = _pad_to_fft_length(x, rank, lengths, inverse=True)
            return op(x, _static_or_tensor(lengths), Treal=_REAL_OF[x.dtype], name=scope)

    irfft.__name__ = irfft.__qualname__ = default_name
    return irfft


rfft = tf_export("signal.rfft", "spectral.rfft")(_rfft_wrapper(RFFT, 1, "rfft"))
irfft = tf_export("signal.irfft", "spectral.irfft")(_irfft_wrapper(IRFFT, 1, "irfft"))
rfft2d = tf_export("signal.rfft2d", "spectral.rfft2d")(_rfft_wrapper(RFFT2D, 2, "rfft2d"))
irfft2d = tf_export("signal.irfft2d", "spectral.irfft2d")(_irfft_wrapper(IRFFT2D, 2, "irfft2d"))
rfft3d = tf_export("signal.rfft3d", "spectral.rfft3d")(_rfft_wrapper(RFFT3D, 3, "rfft3d"))
irfft3d = tf_export("signal.irfft3d", "spectral.irfft3d")(_irfft_wrapper(IRFFT3D, 3, "irfft3d"))


# -- FFTND, IFFTND, RFFTND, IRFFTND -------------------------------------------------------------------------
# TF 2.21 has these kernels on GPU only; here they run on CPU too. TF's shape function passes the input's
# shape through, which the output does not have when fft_length differs; here the transformed dims come from a
# constant fft_length (an RFFTND's last is fft_length / 2 + 1), and are unknown otherwise.

def _nd_shape(forward_real: bool) -> Any:
    def shape_fn(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        out = with_rank_at_least(ctx.input_shape(0), 1)
        if out.ndims is None:
            return [out]
        value = ctx.input_value(1)
        if value is None or len(value) > out.ndims:
            return [tensor_shape.TensorShape([None] * out.ndims)]
        lengths = [int(n) for n in value]
        if forward_real and lengths and lengths[-1]:
            lengths[-1] = lengths[-1] // 2 + 1
        return [tensor_shape.TensorShape(out.as_list()[:out.ndims - len(lengths)] + lengths)]

    return shape_fn


def _nd_axes(ctx: OpKernelContext, x: Any, fft_length: Any, axes: Any) -> tuple[tuple[int, ...], list[int]]:
    """The axes (successive, ending at the last) and lengths of an N-d transform, checked as TF's FFTNBase."""
    rank = axes.shape[0]
    if x.ndim < rank:
        raise invalid_argument(ctx, f"Input must have rank of at least {rank} but got: "
                                    f"{tensor_shape.shape_string(x.shape)}")
    resolved = [int(a) + x.ndim if a < 0 else int(a) for a in axes]
    if any(b != a + 1 for a, b in zip(resolved, resolved[1:])):
        raise invalid_argument(ctx, "axes must be successive and ascending.")
    if resolved and resolved[-1] != x.ndim - 1:
        raise invalid_argument(ctx, "The last axis to perform transform on must be -1.")
    if fft_length.ndim != 1 or fft_length.shape[0] != rank:
        raise invalid_argument(ctx, f"fft_length must have shape [{rank}], but got: {fft_length.shape[0]}.")
    lengths = [int(n) for n in fft_length]
    for i, length in enumerate(lengths):
        if length < 0:
            raise invalid_argument(ctx, f"fft_length[{i}] must >= 0, but got: {length}")
    return tuple(resolved), lengths


def _nd_complex_kernel(forward: bool) -> Any:
    def kernel(ctx: OpKernelContext, x: Any, fft_length: Any, axes: Any) -> Any:
        axes_, lengths = _nd_axes(ctx, x, fft_length, axes)
        out_shape = x.shape[:x.ndim - len(lengths)] + tuple(lengths)
        if x.size == 0 or 0 in out_shape:
            return ctx.xp.zeros(out_shape, x.dtype)
        transform = ctx.xp.fft.fftn if forward else ctx.xp.fft.ifftn
        return transform(x, s=lengths, axes=axes_).astype(x.dtype, copy=False)

    return kernel


FFTND = Op("FFTND", inputs=["input: Tcomplex", "fft_length: int32", "axes: int32"], outputs=["output: Tcomplex"],
           attrs=[_COMPLEX])
FFTND.shape(_nd_shape(forward_real=False))
FFTND.kernel("CPU", expensive=True)(_nd_complex_kernel(forward=True))

IFFTND = Op("IFFTND", inputs=["input: Tcomplex", "fft_length: int32", "axes: int32"], outputs=["output: Tcomplex"],
            attrs=[_COMPLEX])
IFFTND.shape(_nd_shape(forward_real=False))
IFFTND.kernel("CPU", expensive=True)(_nd_complex_kernel(forward=False))

RFFTND = Op("RFFTND", inputs=["input: Treal", "fft_length: int32", "axes: int32"], outputs=["output: Tcomplex"],
            attrs=[_REAL, _COMPLEX])
RFFTND.shape(_nd_shape(forward_real=True))


@RFFTND.kernel("CPU", expensive=True)
def _rfftnd(ctx: OpKernelContext, x: Any, fft_length: Any, axes: Any, Tcomplex: dtypes.DType) -> Any:  # noqa: N803
    axes_, lengths = _nd_axes(ctx, x, fft_length, axes)
    out_shape = x.shape[:x.ndim - len(lengths)] + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1 if lengths[-1] else 0,)
    if x.size == 0 or 0 in out_shape:
        return ctx.xp.zeros(out_shape, Tcomplex.as_numpy_dtype)
    return ctx.xp.fft.rfftn(x, s=lengths, axes=axes_).astype(Tcomplex.as_numpy_dtype, copy=False)


IRFFTND = Op("IRFFTND", inputs=["input: Tcomplex", "fft_length: int32", "axes: int32"], outputs=["output: Treal"],
             attrs=[_REAL, _COMPLEX])
IRFFTND.shape(_nd_shape(forward_real=False))


@IRFFTND.kernel("CPU", expensive=True)
def _irfftnd(ctx: OpKernelContext, x: Any, fft_length: Any, axes: Any, Treal: dtypes.DType) -> Any:  # noqa: N803
    axes_, lengths = _nd_axes(ctx, x, fft_length, axes)
    out_shape = x.shape[:x.ndim - len(lengths)] + tuple(lengths)
    if x.size == 0 or 0 in out_shape:
        return ctx.xp.zeros(out_shape, Treal.as_numpy_dtype)
    return ctx.xp.fft.irfftn(x, s=lengths, axes=axes_).astype(Treal.as_numpy_dtype, copy=False)


for _op, _names in ((FFTND, "fftnd"), (IFFTND, "ifftnd"), (RFFTND, "rfftnd"), (IRFFTND, "irfftnd")):
    export_value(_op, _names)


def _nd_arguments(x: Tensor, fft_length: Any, axes: Any, inverse: bool) -> tuple[Tensor, Tensor]:
    """`axes` (default: every axis) and `fft_length` (default: their sizes; an inverse's last 2 * (n - 1))."""
    axes = (convert_to_tensor(np.arange(x.shape.ndims), dtypes.int32) if axes is None
            else convert_to_tensor(axes, dtypes.int32))
    if fft_length is None:  # TF takes every dim's size whatever the axes; here the transformed axes' sizes
        fft_length = _infer_fft_length(x, tensor_shape.dimension_value(axes.shape[0]), inverse)
    else:
        fft_length = convert_to_tensor(fft_length, dtypes.int32)
    return axes, fft_length


def _norm_factor(fft_length: Any, norm: str | None) -> float | None:
    """What the input is divided by (a forward transform) or multiplied by (an inverse) for `norm`."""
    if norm in (None, "backward"):
        return None
    size = int(np.prod(fft_length))
    return float(size) if norm == "forward" else float(np.sqrt(size))


@tf_export("signal.fftnd")
def fftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
          name: str | None = None) -> Tensor:
    """The N-d complex FFT over `axes` (default all), with NumPy's `norm` choices."""
    with name_scope(name, "fftnd", [input_tensor, fft_length, axes]) as scope:
        x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
        axes, fft_length = _nd_arguments(x, fft_length, axes, inverse=False)
        rank = tensor_shape.dimension_value(axes.shape[0])
        x.shape.with_rank_at_least(rank)
        x = _pad_to_fft_length(x, rank, fft_length, inverse=False)
        fft_length = _static_or_tensor(fft_length)
        factor = _norm_factor(fft_length, norm)
        if factor is not None:
            x = x / factor
        return FFTND(x, fft_length, axes, name=scope)


@tf_export("signal.ifftnd")
def ifftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
           name: str | None = None) -> Tensor:
    """The N-d complex inverse FFT over `axes` (default all), with NumPy's `norm` choices."""
    with name_scope(name, "ifftnd", [input_tensor, fft_length, axes]) as scope:
        x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
        axes, fft_length = _nd_arguments(x, fft_length, axes, inverse=False)
        rank = tensor_shape.dimension_value(axes.shape[0])
        x.shape.with_rank_at_least(rank)
        x = _pad_to_fft_length(x, rank, fft_length, inverse=False)
        fft_length = _static_or_tensor(fft_length)
        factor = _norm_factor(fft_length, norm)
        if factor is not None:
            x = x * factor
        return IFFTND(x, fft_length, axes, name=scope)


@tf_export("signal.rfftnd")
def rfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
           name: str | None = None) -> Tensor:
    """The N-d real-input FFT over `axes` (default all), with NumPy's `norm` choices."""
    with name_scope(name, "rfftnd", [input_tensor, fft_length, axes]) as scope:
        x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.float32)
        if x.dtype not in _COMPLEX_OF:
            raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
        axes, fft_length = _nd_arguments(x, fft_length, axes, inverse=False)
        rank = tensor_shape.dimension_value(axes.shape[0])
        x.shape.with_rank_at_least(rank)
        x = _pad_to_fft_length(x, rank, fft_length, inverse=False)
        fft_length = _static_or_tensor(fft_length)
        factor = _norm_factor(fft_length, norm)
        if factor is not None:
            x = x / factor
        return RFFTND(x, fft_length, axes, Tcomplex=_COMPLEX_OF[x.dtype], name=scope)


@tf_export("signal.irfftnd")
def irfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
            name: str | None = None) -> Tensor:
    """The N-d inverse of `rfftnd` over `axes` (default all), with NumPy's `norm` choices."""
    with name_scope(name, "irfftnd", [input_tensor, fft_length]) as scope:
        x = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
        axes, fft_length = _nd_arguments(x, fft_length, axes, inverse=True)
        rank = tensor_shape.dimension_value(axes.shape[0])
        x.shape.with_rank_at_least(rank)
        if x.dtype not in _REAL_OF:
            raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}")
        x = _pad_to_fft_length(x, rank, fft_length, inverse=True)
        fft_length = _static_or_tensor(fft_length)
        factor = _norm_factor(fft_length, norm)
        if factor is not None:
            x = x * factor
        return IRFFTND(x, fft_length, axes, Treal=_REAL_OF[x.dtype], name=scope)


# -- fftshift, ifftshift ------------------------------------------------------------------------------------

def _half_shifts(x: Tensor, axes: Any, inverse: bool) -> tuple[Any, Any]:
    """The axes to roll and by how much: half of each (rounded up for ifftshift), negative to undo."""
    if axes is None:
        axes = tuple(range(x.shape.ndims))
        sizes = shape(x)
    elif isinstance(axes, int):
        sizes = shape(x)[axes]
    else:
        axes = convert_to_tensor(axes, dtypes.int32)
        axes = axes + cast(axes < 0, dtypes.int32) * array_rank(x)
        sizes = gather(shape(x), axes)
    return axes, (-(sizes // 2) if inverse else sizes // 2)


@tf_export("signal.fftshift")
def fftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Move the zero frequency to the centre of the spectrum (NumPy's fftshift)."""
    with name_scope(name, "fftshift") as scope:
        x = convert_to_tensor(x)
        axes, shift = _half_shifts(x, axes, inverse=False)
        return roll(x, shift, axes, scope)


@tf_export("signal.ifftshift")
def ifftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Undo `fftshift` (the two differ for odd sizes)."""
    with name_scope(name, "ifftshift") as scope:
        x = convert_to_tensor(x)
        axes, shift = _half_shifts(x, axes, inverse=True)
        return roll(x, shift, axes, scope)
