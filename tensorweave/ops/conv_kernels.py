"""The NumPy arithmetic of the 2-D convolution and pooling kernels (nn_conv_ops holds the ops, their checks and
wrappers; nn_conv3d_ops and nn_morphology_ops share the window geometry): TF's window sizes and paddings, im2col
with one BLAS matmul per chunk, col2im, and pooling one window tap at a time.

Every kernel works on an NHWC view. A convolution copies a strided view of every window of the padded input
into an im2col matrix, a chunk of output positions at a time, into a buffer each thread reuses for its chunks
(no fresh pages to fault in per chunk). The kernels run as tasks of whole images on the device's intra-op
threads (BLAS on one thread per call, see devices/device.py), each task padding its own images and walking
its chunks (where padding makes many of the products zeros, a task reads instead a block of output
positions whose windows have the same taps inside the input, from the unpadded input, with only those taps:
see _regions); a chunk is small enough to stay in cache, which speeds its product (deep MNIST's second layer:
13 ms of one core for its forward product in 2 MB chunks against 17 ms in one, where a 16 MB chunk split
across OpenBLAS's threads had made each product a sync point). The matrix is copied row by row
([rows, KH*KW*C]), or tap by tap ([KH*KW*C, rows], handed to the matmul transposed) where that reads the
longer contiguous runs of the input (one input channel: whole output rows rather than KW values; 4x faster
for deep MNIST's first layer). The input's gradient computes each chunk's columns tap by tap ([KH*KW, rows,
C]), so that col2im's one strided add per tap reads them contiguously (22 ms against 28 ms of CPU for deep
MNIST's second layer), unless, with stride 1 and an output as large as the input, it is cheaper as the
forward convolution of the padded output gradient by the flipped filter (17 ms against 20). The filter's
gradient sums a fixed number of partial sums, so its values do not depend on the threads. A grouped
convolution (input depth a multiple of the filter's; the depthwise one is the grouped one with one input
channel per group) batches its matmul over groups. Pooling is separable: each dimension's window taps are
reduced in turn, each tap one vectorized ufunc over the output slice whose windows it falls inside, a block
of images at a time, so the padding is never materialized. half and bfloat16 compute in float32 and round
once. A stride-1 convolution that takes far fewer products through the Fourier transform (deep MNIST's second
layer and AlexNet's: 2-3x less CPU for each of its three kernels) goes there instead: see fourier_conv.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.ops import fourier_conv
from tensorweave.ops.kernel_helpers import BFLOAT16, invalid_argument
from tensorweave.platform import onednn

IM2COL_CHUNK_BYTES = 2 << 20  # measured: a chunk in cache speeds its product (deep MNIST: 13 ms against 17 ms whole)
FILTER_REPACKS = 4  # a chunk's im2col is at least this many times its filter's size (AlexNet's layer: 5% less CPU)
MIN_TASKS = 4  # a convolution's fewest tasks of images where the batch allows: work for two threads
POOL_BLOCK_BYTES = 1 << 20  # measured: a pooling pass's intermediate stays in cache for the next pass


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a kernel computes in: float32 for half and bfloat16 (rounded once at the end, as TF's)."""
    return np.dtype(np.float32) if dtype in (np.float16, BFLOAT16) else dtype


def lowest(dtype: np.dtype) -> Any:
    return -np.inf if dtype.kind == "f" or dtype == BFLOAT16 else np.iinfo(dtype).min


# -- Window geometry (TF's GetWindowedOutputSize) -------------------------------------------------------


class Window(NamedTuple):
    """One spatial dimension of a sliding window: its output size and the padding before and after."""

    size: int
    before: int
    after: int


def _window(in_size: int, k: int, stride: int, dilation: int, padding: str,
            explicit: tuple[int, int] = (0, 0)) -> Window:
    """The output size and padding of one dimension, as TF's kernels compute them (SAME puts the odd padding
    after); a negative size for a window larger than its padded input."""
    effective = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-in_size // stride)
        needed = max(0, (out - 1) * stride + effective - in_size)
        return Window(out, needed // 2, needed - needed // 2)
    before, after = explicit if padding == "EXPLICIT" else (0, 0)
    return Window((in_size + before + after - effective + stride) // stride, before, after)


def runtime_window(ctx: OpKernelContext, in_size: int, k: int, stride: int, dilation: int, padding: str,
                   explicit: tuple[int, int] = (0, 0)) -> Window:
    result = _window(in_size, k, stride, dilation, padding, explicit)
    if result.size < 0:
        raise invalid_argument(ctx, f"Computed output size would be negative: {result.size} [input_size: {in_size}, "
                                    f"effective_filter_size: {(k - 1) * dilation + 1}, stride: {stride}]")
    return result


def static_window(in_size: int | None, k: int | None, stride: int, dilation: int, padding: str,
                  explicit: tuple[int, int] = (0, 0)) -> int | None:
    """The output size a shape function infers (None if unknown), with TF's error for a window larger than
    its (padded) input; a stride below 1 is refused whether or not the size is known, as TF's
    GetWindowedOutputSizeFromDimsV2 refuses it."""
    if stride <= 0:
        raise ValueError(f"Stride must be > 0, but got {stride}")
    if in_size is None:
        return None
    if padding == "SAME":
        return -(-in_size // stride)
    if k is None:
        return None
    padded, effective = in_size + explicit[0] + explicit[1], (k - 1) * dilation + 1
    if padded < effective:
        raise ValueError(f"Negative dimension size caused by subtracting {effective} from {padded}")
    return (padded - effective + stride) // stride


def tap_range(window: Window, in_size: int, tap: int, stride: int) -> tuple[slice, slice]:
    """For one window tap: the output positions whose window has it inside the input, and the input
    positions it reads there (a strided slice)."""
    first = max(0, -(-(window.before - tap) // stride))
    last = min(window.size, (in_size - 1 + window.before - tap) // stride + 1)
    if last <= first:
        return slice(0, 0), slice(0, 0)
    start = first * stride - window.before + tap
    return slice(first, last), slice(start, start + (last - first - 1) * stride + 1, stride)


def window_counts(window: Window, in_size: int, k: int, stride: int) -> Any:
    """How many input positions each output window of one dimension covers."""
    starts = np.arange(window.size) * stride - window.before
    return np.minimum(starts + k, in_size) - np.maximum(starts, 0)


# -- Convolution: im2col, one matmul per chunk, col2im --------------------------------------------------


class ConvGeometry(NamedTuple):
    """A 2-D convolution in NHWC terms: sizes, the output windows of both spatial dimensions, and groups."""

    batch: int
    in_h: int
    in_w: int
    in_depth: int
    kh: int
    kw: int
    filter_depth: int
    out_depth: int
    rows: Window
    cols: Window
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int

    @property
    def groups(self) -> int:
        return self.in_depth // self.filter_depth

    @property
    def out_shape(self) -> tuple[int, int, int, int]:
        return self.batch, self.rows.size, self.cols.size, self.out_depth

    @property
    def taps(self) -> int:
        """The length of one window's column in the im2col matrix: KH*KW*C."""
        return self.kh * self.kw * self.in_depth

    @property
    def tap_major(self) -> bool:
        """Whether im2col copies tap by tap: its contiguous runs are then whole output rows of the one input
        channel, against KW*C values (C when dilated) row by row."""
        tap_run = self.cols.size if self.in_depth == 1 and self.stride_w == 1 else 1
        return tap_run > (self.kw * self.in_depth if self.dilation_w == 1 else self.in_depth)


def _padded(x: Any, g: ConvGeometry) -> Any:
    """The NHWC input (a block of its images) with its spatial padding (zeros), as one contiguous array (np.pad
    takes 6x the time for a few images)."""
    if not (g.rows.before or g.rows.after or g.cols.before or g.cols.after):
        return np.ascontiguousarray(x)
    n, h, w, c = x.shape
    padded = np.zeros((n, g.rows.before + h + g.rows.after, g.cols.before + w + g.cols.after, c), x.dtype)
    padded[:, g.rows.before:g.rows.before + h, g.cols.before:g.cols.before + w] = x
    return padded


def _windows(x_padded: Any, g: ConvGeometry) -> Any:
    """A read-only [N, OH, OW, KH, KW, C] view of every window of the padded input (or block of images)."""
    sn, sh, sw, sc = x_padded.strides
    return as_strided(x_padded, (x_padded.shape[0], g.rows.size, g.cols.size, g.kh, g.kw, g.in_depth),
                      (sn, sh * g.stride_h, sw * g.stride_w, sh * g.dilation_h, sw * g.dilation_w, sc), writeable=False)


# The product of two matrices, into `out` when given: np.matmul or a device's, which may split it across threads
MatMul = Callable[..., Any]


REGION_MIN_SKIPPED = 1 << 22  # multiply-adds of padding a split into regions must skip (~40 us, its overhead)
REGION_MIN_SKIPPED_PART = 8  # ... and at least this part of all (where less, its smaller products cost as much)


class _Region(NamedTuple):
    """Output positions of a convolution computed together: all of them over the padded input, or (see
    _regions) a block of them whose windows read the same filter taps inside the input. `g` is the convolution
    restricted to them (its taps and output sizes; no padding for a block), `top`/`left` the input position
    its first window's first tap reads, `tap_row`/`tap_col` its first tap."""

    rows: slice
    cols: slice
    top: int
    left: int
    tap_row: int
    tap_col: int
    g: ConvGeometry
    padded: bool


def _tap_classes(window: Window, in_size: int, k: int, stride: int, dilation: int) -> list[tuple[slice, int, int]]:
    """Runs of consecutive output positions of one dimension whose windows have the same taps inside the
    input: the positions, the first such tap and the one after the last (the same where none is inside)."""
    classes: list[tuple[slice, int, int]] = []
    for p in range(window.size):
        start = p * stride - window.before
        first = max(0, -(start // dilation))
        end = max(first, min(k, (in_size - 1 - start) // dilation + 1))
        if classes and classes[-1][1:] == (first, end):
            classes[-1] = (slice(classes[-1][0].start, p + 1), first, end)
        else:
            classes.append((slice(p, p + 1), first, end))
    return classes


def _whole(g: ConvGeometry) -> _Region:
    return _Region(slice(0, g.rows.size), slice(0, g.cols.size), 0, 0, 0, 0, g, True)


def _regions(g: ConvGeometry) -> list[_Region]:
    """The padded input as one region, or, where that would multiply enough padding zeros (at least
    REGION_MIN_SKIPPED and an eighth of the products), the blocks of output positions whose windows read the
    same taps inside the input, each read from the unpadded input with only those taps. Deep MNIST's second
    layer: 16% of its products are zeros, CPU ms with regions against the padded input, interleaved runs on
    the loaded machine: forward 15.5 against 17.2, input gradient (a forward convolution) 16.6 against 18.6,
    filter gradient 13.7 against 15.4. AlexNet's 27x27x96 -> 256 (9% zeros) is no faster (its regions'
    smaller products each pack the large filter again)."""
    whole = [_whole(g)]
    if not (g.rows.before or g.rows.after or g.cols.before or g.cols.after):
        return whole
    rows = _tap_classes(g.rows, g.in_h, g.kh, g.stride_h, g.dilation_h)
    cols = _tap_classes(g.cols, g.in_w, g.kw, g.stride_w, g.dilation_w)
    used = (sum((r.stop - r.start) * (end - first) for r, first, end in rows)
            * sum((c.stop - c.start) * (end - first) for c, first, end in cols))
    products = g.rows.size * g.kh * g.cols.size * g.kw
    skipped = (products - used) * g.batch * g.filter_depth * g.out_depth
    if skipped < REGION_MIN_SKIPPED or (products - used) * REGION_MIN_SKIPPED_PART < products:
        return whole
    return [_Region(r, c, r.start * g.stride_h - g.rows.before + i0 * g.dilation_h,
                    c.start * g.stride_w - g.cols.before + j0 * g.dilation_w, i0, j0,
                    g._replace(kh=i1 - i0, kw=j1 - j0, rows=Window(r.stop - r.start, 0, 0),
                               cols=Window(c.stop - c.start, 0, 0)), False)
            for r, i0, i1 in rows for c, j0, j1 in cols]


def _region_windows(x: Any, region: _Region) -> Any:
    """The windows view of a region over a block of images: of their padded copy, or of the input itself."""
    if region.padded:
        return _windows(_padded(x, region.g), region.g)
    if region.g.taps == 0:  # no tap inside the input: an empty im2col matrix
        return np.zeros((x.shape[0], region.g.rows.size, region.g.cols.size, region.g.kh, region.g.kw,
                         region.g.in_depth), x.dtype)
    return _windows(x[:, region.top:, region.left:], region.g)


def _taps_of(region: _Region) -> tuple[int, int, int, int]:
    """The filter taps a region reads: first row and column, and how many of each."""
    return region.tap_row, region.tap_col, region.g.kh, region.g.kw


class _Task(NamedTuple):
    """A block of whole images of one region, and the blocks of its output rows it walks in order (one per
    im2col chunk)."""

    images: slice
    rows: tuple[slice, ...]
    region: _Region


def _tasks(g: ConvGeometry, itemsize: int, regions: list[_Region]) -> tuple[int, int, list[_Task]]:
    """The most elements of one chunk's im2col matrix, the most output positions of one chunk, and the tasks
    of each region: as many whole images as fit the chunk budget (larger for a large filter, which BLAS packs
    again for every product) and leave MIN_TASKS tasks to share, or one image by blocks of rows that fit.
    Tasks touch disjoint outputs, so they may run at once."""
    most, positions, tasks = 0, 0, []
    for region in regions:
        rg = region.g
        budget = max(IM2COL_CHUNK_BYTES, FILTER_REPACKS * rg.taps * rg.out_depth * itemsize)
        row_bytes = max(1, rg.cols.size * rg.taps * itemsize)
        image_bytes = max(1, row_bytes * rg.rows.size)
        if image_bytes <= budget:
            images = max(1, min(budget // image_bytes, g.batch // max(1, MIN_TASKS // len(regions))))
            chunk = images * rg.rows.size * rg.cols.size
            tasks += [_Task(slice(n, n + images), (slice(None),), region) for n in range(0, g.batch, images)]
        else:
            rows = min(rg.rows.size, max(1, budget // row_bytes))
            chunk = rows * rg.cols.size
            blocks = tuple(slice(r, r + rows) for r in range(0, rg.rows.size, rows))
            tasks += [_Task(slice(n, n + 1), blocks, region) for n in range(g.batch)]
        most, positions = max(most, chunk * rg.taps), max(positions, chunk)
    return most, positions, tasks


def _thread_buffers(size: int, dtype: np.dtype) -> Callable[[], Any]:
    """A getter of one buffer of `size` elements per thread, made at its first use and reused by the thread's
    later chunks (no fresh pages per chunk)."""
    local = threading.local()

    def buffer() -> Any:
        if not hasattr(local, "buffer"):
            local.buffer = np.empty(size, dtype)
        return local.buffer

    return buffer


def _task_matmul(tasks: list[_Task], device: DeviceBase) -> MatMul:
    """The product inside tasks: the device's (which splits a large product across its threads) when there is
    one task to run or where BLAS splits each product, else one on the task's own thread."""
    return device.matmul if len(tasks) == 1 or not device.splits_products else onednn.matmul


def _matrix(buffer: Any, rows: int, g: ConvGeometry) -> Any:
    """A [rows, KH*KW*C] matrix in the front of the chunk buffer, stored tap-major where im2col copies so."""
    if g.tap_major:
        return buffer[:rows * g.taps].reshape(g.taps, rows).T
    return buffer[:rows * g.taps].reshape(rows, g.taps)


def _im2col(block: Any, buffer: Any, g: ConvGeometry) -> Any:
    """The im2col matrix [rows, KH*KW*C] of a block of windows [n, oh, ow, KH, KW, C], copied into the buffer."""
    n, oh, ow = block.shape[:3]
    matrix = _matrix(buffer, n * oh * ow, g)
    if g.tap_major:
        np.copyto(matrix.T.reshape(g.kh, g.kw, g.in_depth, n, oh, ow), block.transpose(3, 4, 5, 0, 1, 2))
    else:
        np.copyto(matrix.reshape(block.shape), block)
    return matrix


def _grouped_filter(filters: Any, g: ConvGeometry) -> Any:
    """The [KH, KW, Cg, O] filter as [G, KH*KW*Cg, O/G] (the output channels of a group are consecutive)."""
    groups, per_group = g.groups, g.out_depth // g.groups
    return (filters.reshape(g.kh, g.kw, g.filter_depth, groups, per_group).transpose(3, 0, 1, 2, 4)
            .reshape(groups, -1, per_group))


def _grouped_patches(patches: Any, g: ConvGeometry) -> Any:
    """[rows, KH, KW, C] windows as [G, rows, KH*KW*Cg]."""
    return (patches.reshape(-1, g.kh * g.kw, g.groups, g.filter_depth).transpose(2, 0, 1, 3)
            .reshape(g.groups, -1, g.kh * g.kw * g.filter_depth))


def conv_forward(x: Any, filters: Any, g: ConvGeometry, device: DeviceBase,
                 epilogue: Callable[[Any], None] | None = None) -> Any:
    """The NHWC convolution: tasks of whole images (of a region) on the device's threads, each padding its
    images and walking its chunks: im2col into the thread's buffer, then one matmul (batched over groups) by
    the region's taps of the filter into the output, and `epilogue` (a fused convolution's bias and
    activation) on that [rows, O] block while it is in cache."""
    dtype = compute_dtype(x.dtype)
    x, filters = x.astype(dtype, copy=False), filters.astype(dtype, copy=False)
    if 0 in g.out_shape or g.taps == 0:
        out = np.zeros(g.out_shape, dtype)
        if epilogue is not None:
            epilogue(out.reshape(-1, g.out_depth))
        return out
    if fourier_conv.applies(g, dtype):
        out = fourier_conv.forward(x, filters, g, device)
        if epilogue is not None:
            epilogue(out.reshape(-1, g.out_depth))
        return out
    out = np.empty(g.out_shape, dtype)
    regions = _regions(g)
    most, positions, tasks = _tasks(g, dtype.itemsize, regions)
    buffer, matmul = _thread_buffers(most, dtype), _task_matmul(tasks, device)
    results = _thread_buffers(positions * g.out_depth, dtype)
    flat_filters = {}
    for region in regions:  # each region's taps of the filter, as a matrix
        taps = filters[region.tap_row:region.tap_row + region.g.kh, region.tap_col:region.tap_col + region.g.kw]
        flat_filters[_taps_of(region)] = (np.ascontiguousarray(taps).reshape(-1, g.out_depth) if g.groups == 1
                                          else _grouped_filter(taps, region.g))

    def run(index: int) -> None:
        images, row_blocks, region = tasks[index]
        windows, flat_filter = _region_windows(x[images], region), flat_filters[_taps_of(region)]
        for rows in row_blocks:
            block = out[images, region.rows, region.cols][:, rows]
            patches = _im2col(windows[:, rows], buffer(), region.g)
            # a block of whole output rows is written in place, a region's narrower block copied in after
            target = (block.reshape(-1, g.out_depth) if region.padded
                      else results()[:patches.shape[0] * g.out_depth].reshape(-1, g.out_depth))
            if g.groups == 1:
                matmul(patches, flat_filter, out=target)
            else:
                target[...] = (np.matmul(_grouped_patches(patches, region.g), flat_filter).transpose(1, 0, 2)
                               .reshape(target.shape))
            if epilogue is not None:
                epilogue(target)
            if not region.padded:
                block[...] = target.reshape(block.shape)

    device.parallel_products(len(tasks), run)
    return out


def _transposed_forward(g: ConvGeometry) -> ConvGeometry | None:
    """The forward convolution whose output is the input's gradient, where it is the cheaper way: the output
    gradient padded by the filter's extent less the forward padding, by the filter flipped with its depths
    swapped. It takes no more products than col2im where the output is as large as the input (stride 1, SAME
    or its explicit equal), and its im2col copies cost less than col2im's adds unless the output is much
    deeper than the input (CPU ms, forward against col2im: 14x14x32 -> 64 5x5 17.2 against 20.4, 7x7x64 ->
    64 7.3 against 9.8, 28x28x32 -> 64 3x3 24.9 against 28.1; but 27x27x96 -> 256 190 against 173, and
    28x28x1 -> 32 7.8 against 2.9). None where it does not apply (strides, dilations, groups)."""
    if ((g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, g.groups) != (1, 1, 1, 1, 1)
            or (g.rows.size, g.cols.size) != (g.in_h, g.in_w) or g.out_depth > 2 * g.in_depth):
        return None
    return ConvGeometry(g.batch, g.in_h, g.in_w, g.out_depth, g.kh, g.kw, g.out_depth, g.in_depth,
                        Window(g.in_h, g.kh - 1 - g.rows.before, g.rows.before),
                        Window(g.in_w, g.kw - 1 - g.cols.before, g.cols.before), 1, 1, 1, 1)


def conv_backprop_input(filters: Any, out_backprop: Any, g: ConvGeometry, device: DeviceBase) -> Any:
    """The gradient of the input: a forward convolution where _transposed_forward applies, else col2im: tasks
    of whole images on the device's threads, each chunk's columns computed per group and tap ([G, KH*KW,
    rows, Cg] in the thread's buffer, from one matmul batched over groups, and over taps too unless a group
    has one channel), then added into the padded input by one strided slice per tap, each reading its [rows,
    C] columns contiguously."""
    dtype = compute_dtype(out_backprop.dtype)
    filters, out_backprop = filters.astype(dtype, copy=False), out_backprop.astype(dtype, copy=False)
    if fourier_conv.applies(g, dtype):
        return fourier_conv.backprop_input(filters, out_backprop, g, device)
    transposed = _transposed_forward(g)
    if transposed is not None and out_backprop.size and filters.size:
        flipped = np.ascontiguousarray(filters[::-1, ::-1].transpose(0, 1, 3, 2))
        return conv_forward(out_backprop, flipped, transposed, device)
    padded = np.zeros((g.batch, g.in_h + g.rows.before + g.rows.after, g.in_w + g.cols.before + g.cols.after,
                       g.in_depth), dtype)
    if out_backprop.size and filters.size:
        groups, per_group, taps, depth = g.groups, g.out_depth // g.groups, g.kh * g.kw, g.filter_depth
        # [G, KH*KW, O/G, Cg]: each tap's filter per group, transposed
        tap_filters = np.ascontiguousarray(filters.reshape(taps, depth, groups, per_group).transpose(2, 0, 3, 1))
        planes = padded.reshape(*padded.shape[:3], groups, depth)
        most, _, tasks = _tasks(g, dtype.itemsize, [_whole(g)])
        buffer = _thread_buffers(most, dtype)

        def run(index: int) -> None:
            images, row_blocks, _ = tasks[index]
            for rows in row_blocks:
                grad = out_backprop[images, rows]
                n, oh, ow = grad.shape[:3]
                cols = buffer()[:n * oh * ow * g.taps].reshape(groups, taps, n * oh * ow, depth)
                per_group_grad = grad.reshape(-1, groups, per_group).transpose(1, 0, 2)
                if depth == 1:  # one product per group: [KH*KW, O/G] by the gradient transposed
                    np.matmul(tap_filters[..., 0], per_group_grad.transpose(0, 2, 1), out=cols[..., 0])
                else:
                    np.matmul(per_group_grad[:, None], tap_filters, out=cols)
                row0 = 0 if rows.start is None else rows.start
                for tap in range(taps):
                    i, j = divmod(tap, g.kw)
                    top, left = row0 * g.stride_h + i * g.dilation_h, j * g.dilation_w
                    planes[images, top:top + (oh - 1) * g.stride_h + 1:g.stride_h,
                           left:left + (ow - 1) * g.stride_w + 1:g.stride_w] += (
                        cols[:, tap].reshape(groups, n, oh, ow, depth).transpose(1, 2, 3, 0, 4))

        device.parallel_products(len(tasks), run)
    return padded[:, g.rows.before:g.rows.before + g.in_h, g.cols.before:g.cols.before + g.in_w]


FILTER_PARTIAL_SUMS = 4  # the filter gradient's independent partial sums: a fixed count, so the same values


def conv_backprop_filter(x: Any, out_backprop: Any, g: ConvGeometry, device: DeviceBase) -> Any:
    """The gradient of the filter: the im2col matrix of each chunk, transposed, times its output gradient,
    added to its region's taps of the filter, summed over chunks into a few partial sums of consecutive tasks
    (run on the device's threads), added in order at the end."""
    dtype = compute_dtype(x.dtype)
    x, out_backprop = x.astype(dtype, copy=False), out_backprop.astype(dtype, copy=False)
    if fourier_conv.applies(g, dtype):
        return fourier_conv.backprop_filter(x, out_backprop, g, device)
    per_group = g.out_depth // max(1, g.groups)
    grad = np.zeros((g.groups, g.kh * g.kw * g.filter_depth, per_group), dtype)
    if out_backprop.size and x.size:
        most, _, tasks = _tasks(g, dtype.itemsize, _regions(g))
        buffer = _thread_buffers(most, dtype)
        parts = min(len(tasks), FILTER_PARTIAL_SUMS)
        partials = [grad] + [np.zeros_like(grad) for _ in range(parts - 1)]
        matmul = _task_matmul(tasks[:parts], device)

        def run(part: int) -> None:
            partial = partials[part].reshape(g.groups, g.kh, g.kw, g.filter_depth, per_group)
            for images, row_blocks, region in tasks[part * len(tasks) // parts:(part + 1) * len(tasks) // parts]:
                windows, rg = _region_windows(x[images], region), region.g
                taps = partial[:, region.tap_row:region.tap_row + rg.kh, region.tap_col:region.tap_col + rg.kw]
                for rows in row_blocks:
                    patches = _im2col(windows[:, rows], buffer(), rg)
                    dy = out_backprop[images, region.rows, region.cols][:, rows].reshape(-1, g.out_depth)
                    if g.groups == 1:
                        taps[0] += matmul(patches.T, dy).reshape(taps.shape[1:])
                    else:
                        taps += np.matmul(_grouped_patches(patches, rg).transpose(0, 2, 1),
                                          dy.reshape(-1, g.groups, per_group).transpose(1, 0, 2)).reshape(taps.shape)

        device.parallel_products(parts, run)
        for partial in partials[1:]:
            grad += partial
    return (grad.reshape(g.groups, g.kh, g.kw, g.filter_depth, per_group).transpose(1, 2, 3, 0, 4)
            .reshape(g.kh, g.kw, g.filter_depth, g.out_depth))


# -- Pooling ----------------------------------------------------------------------------------------------


class PoolGeometry(NamedTuple):
    rows: Window
    cols: Window
    kh: int
    kw: int
    stride_h: int
    stride_w: int

    def taps(self, x_shape: tuple[int, ...]) -> Iterator[tuple[tuple[slice, slice], tuple[slice, slice]]]:
        """Each window tap in row-major order: the output rows and columns it contributes to, and the input
        rows and columns it reads there."""
        for i in range(self.kh):
            out_rows, in_rows = tap_range(self.rows, x_shape[1], i, self.stride_h)
            for j in range(self.kw):
                out_cols, in_cols = tap_range(self.cols, x_shape[2], j, self.stride_w)
                yield (out_rows, out_cols), (in_rows, in_cols)

    @property
    def disjoint(self) -> bool:
        """Whether no input position falls inside two windows."""
        return self.stride_h >= self.kh and self.stride_w >= self.kw

    def tiles(self, x_shape: tuple[int, ...]) -> bool:
        """Whether every input position falls inside exactly one window (windows side by side, no padding)."""
        return (self.stride_h == self.kh and self.stride_w == self.kw and not (self.rows.before or self.cols.before)
                and self.rows.size * self.kh == x_shape[1] and self.cols.size * self.kw == x_shape[2])


def _reduce_axis(x: Any, axis: int, window: Window, k: int, stride: int, ufunc: Callable, identity: Any,
                 out: Any = None) -> Any:
    """Each window of one axis reduced by `ufunc` (into `out` if given), one pass per tap over the output slice
    whose windows it falls inside; the first two taps that every window holds start the result, else
    `identity` does."""
    taps = [tap_range(window, x.shape[axis], tap, stride) for tap in range(k)]
    taps = [(o, i) for o, i in taps if o.stop > o.start]

    def at(s: slice) -> tuple[slice, ...]:
        return (slice(None),) * axis + (s,)

    if out is None:
        out = np.empty(x.shape[:axis] + (window.size,) + x.shape[axis + 1:], x.dtype)
    whole = [t for t in taps if t[0] == slice(0, window.size)][:2]
    for tap in whole:
        taps.remove(tap)
    if len(whole) == 2:
        ufunc(x[at(whole[0][1])], x[at(whole[1][1])], out=out)
    elif whole:
        np.copyto(out, x[at(whole[0][1])])
    else:
        out[...] = identity
    for out_slice, in_slice in taps:
        target = out[at(out_slice)]
        ufunc(target, x[at(in_slice)], out=target)
    return out


def _image_blocks(n: int, image_bytes: int) -> Iterator[tuple[int, int]]:
    """(first image, count) of the blocks of images whose `image_bytes` each fit the pooling block budget."""
    step = max(1, POOL_BLOCK_BYTES // max(1, image_bytes))
    return ((start, step) for start in range(0, n, step))


def _separable(x: Any, g: PoolGeometry, ufunc: Callable, identity: Any, device: DeviceBase) -> Any:
    """A pooling reduction that separates over the two window dimensions: rows first (its taps read whole
    contiguous rows), then columns of the smaller result, a block of images at a time so that the
    intermediate stays in cache (half the memory traffic: 3.7 ms of CPU against 6.4 ms for a 2x2 max pool of
    [64, 27, 27, 256] in one block), the blocks tasks on the device's intra-op threads."""
    n, _, w, c = x.shape
    out = np.empty((n, g.rows.size, g.cols.size, c), x.dtype)
    blocks = list(_image_blocks(n, g.rows.size * w * c * x.dtype.itemsize))

    def run(index: int) -> None:
        start, step = blocks[index]
        across_rows = _reduce_axis(x[start:start + step], 1, g.rows, g.kh, g.stride_h, ufunc, identity)
        _reduce_axis(across_rows, 2, g.cols, g.kw, g.stride_w, ufunc, identity, out[start:start + step])

    device.parallel(len(blocks), run)
    return out


def max_pool_nhwc(x: Any, g: PoolGeometry, device: DeviceBase) -> Any:
    return _separable(x, g, np.maximum, lowest(x.dtype), device)


def avg_divisors(x_shape: tuple[int, ...], g: PoolGeometry, dtype: np.dtype) -> Any:
    rows = window_counts(g.rows, x_shape[1], g.kh, g.stride_h)
    cols = window_counts(g.cols, x_shape[2], g.kw, g.stride_w)
    return np.multiply.outer(rows, cols).astype(dtype)[None, :, :, None]


def sum_pool_nhwc(x: Any, g: PoolGeometry, device: DeviceBase) -> Any:
    """Each window's sum, in `x`'s own dtype."""
    return _separable(x, g, np.add, 0, device)


def avg_pool_nhwc(x: Any, g: PoolGeometry, device: DeviceBase) -> Any:
    dtype = compute_dtype(x.dtype)
    return sum_pool_nhwc(x.astype(dtype, copy=False), g, device) / avg_divisors(x.shape, g, dtype)


def first_max_taps(x: Any, out: Any, g: PoolGeometry) -> Iterator[tuple[tuple[slice, slice], tuple[slice, slice], Any]]:
    """Each window tap with the windows it is the maximum of: the first input position (in row-major window
    order) equal to the window's maximum, as TF's CPU kernels route gradients. Yields the tap's output and
    input slices and a boolean mask over that output slice (valid until the next tap's); a window claims once."""
    unclaimed, hits = np.ones(out.shape, bool), np.empty(out.shape, bool)
    for (out_rows, out_cols), (in_rows, in_cols) in g.taps(x.shape):
        free = unclaimed[:, out_rows, out_cols]
        hit = np.equal(x[:, in_rows, in_cols], out[:, out_rows, out_cols], out=hits[:, out_rows, out_cols])
        np.logical_and(hit, free, out=hit)
        np.logical_xor(free, hit, out=free)
        yield (out_rows, out_cols), (in_rows, in_cols), hit


def _where_hit(hit: Any, values: Any, out: Any, word: Any) -> None:
    """`values` where `hit`, else zero, into `out`: the values' bits and'ed with an all-ones or all-zeros word
    (NumPy's masked copy is ten times slower; multiplying by the mask would turn infinities into NaN). `word`
    is a buffer of hit's shape in the signed integer type of the values' size: the mask copied in and negated
    there takes half the time of a negation that casts."""
    np.copyto(word, hit)
    np.negative(word, out=word)
    np.bitwise_and(values.view(word.dtype), word, out=out.view(word.dtype))


def max_pool_grad_nhwc(x: Any, out: Any, dy: Any, g: PoolGeometry, device: DeviceBase) -> Any:
    """Each window's gradient into the position of its first maximum, blocks of images as tasks on the
    device's threads: written straight into the input's positions where windows are disjoint (into an
    uninitialized result where they tile the input, since every position is written), added where they
    overlap."""
    dtype = compute_dtype(x.dtype)
    dy = dy.astype(dtype, copy=False)
    result = (np.empty if g.tiles(x.shape) else np.zeros)(x.shape, dtype)
    blocks = list(_image_blocks(x.shape[0], x[:1].nbytes))

    def run(index: int) -> None:
        start, step = blocks[index]
        block = slice(start, start + step)
        word = np.empty((min(step, x.shape[0] - start), g.rows.size, g.cols.size, x.shape[3]), f"i{dtype.itemsize}")
        for (out_rows, out_cols), (in_rows, in_cols), hit in first_max_taps(x[block], out[block], g):
            target = result[block, in_rows, in_cols]
            words = word[:, out_rows, out_cols]
            if g.disjoint:
                _where_hit(hit, dy[block, out_rows, out_cols], target, words)
            else:
                share = np.empty(hit.shape, dtype)
                _where_hit(hit, dy[block, out_rows, out_cols], share, words)
                target += share

    device.parallel(len(blocks), run)
    return result
