"""float32 matrix products through oneDNN's sgemm: the GEMM that TF's own CPU MatMul calls.

NumPy's BLAS (OpenBLAS) is the fallback and the path for every other dtype. oneDNN picks its kernels by the
instruction sets the CPU has (`ONEDNN_MAX_CPU_ISA` caps them), so its products run as fast as TF's wherever
OpenBLAS is held to older kernels (`OPENBLAS_CORETYPE`) or lacks kernels for the CPU. Each call runs on the
calling thread alone: the devices split large products across their intra-op threads themselves (see
devices/device.py), as they do for OpenBLAS. ctypes releases the GIL for the call.

The library comes from the `onednn-cpu-gomp` wheel (x86-64 Linux), found in the environment's data
directory; `TENSORWEAVE_ONEDNN=0` turns it off.
"""

from __future__ import annotations

import ctypes
import os
import sysconfig
from typing import Any

import numpy as np

_FLOAT32 = np.dtype(np.float32)
_ITEM = _FLOAT32.itemsize
# Below this many multiply-adds (about 10 us) oneDNN's fixed cost per call (about 5 us) outweighs its faster
# kernels, and NumPy's BLAS is as fast or faster.
MIN_MULTIPLY_ADDS = 1 << 19


def _load() -> tuple[Any, Any, Any] | None:
    """(dnnl_sgemm, omp_get_max_threads, omp_set_num_threads) from the installed library, or None where it is absent or turned off."""
    if os.environ.get("TENSORWEAVE_ONEDNN", "1") == "0":
        return None
    for path in (os.path.join(sysconfig.get_paths()["data"], "lib", "libdnnl.so.3"), "libdnnl.so.3"):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        sgemm = library.dnnl_sgemm
        sgemm.restype = ctypes.c_int
        size, pointer, real = ctypes.c_int64, ctypes.c_void_p, ctypes.c_float
        sgemm.argtypes = [ctypes.c_char, ctypes.c_char, size, size, size, real, pointer, size, pointer, size,
                          real, pointer, size]
        # the library's threading runtime, already loaded; called holding the GIL (a few instructions), so that
        # a product gives the GIL up once, as NumPy's does, not at each call (a thread that gives it up waits to
        # get it back while another runs Python code)
        openmp = ctypes.PyDLL("libgomp.so.1")
        return sgemm, openmp.omp_get_max_threads, openmp.omp_set_num_threads
    return None


_LIBRARY = _load()
available = _LIBRARY is not None


def _layout(x: Any) -> tuple[bytes, int] | None:
    """('N', leading dimension) for a row-major matrix view, ('T', ...) for a transposed one, None for any
    other strides (which are copied first). A dimension of length one may carry any stride."""
    rows, cols = x.shape
    row_stride, col_stride = x.strides
    if (cols == 1 or col_stride == _ITEM) and row_stride % _ITEM == 0:
        lead = row_stride // _ITEM if rows > 1 else cols
        if lead >= cols:
            return b"N", lead
    if (rows == 1 or row_stride == _ITEM) and col_stride % _ITEM == 0:
        lead = col_stride // _ITEM if cols > 1 else rows
        if lead >= rows:
            return b"T", lead
    return None


def matmul(a: Any, b: Any, out: Any = None) -> Any:
    """a @ b for two matrices (into `out` when given), computed by oneDNN on this thread where both are
    float32 and the product is large enough to gain; np.matmul otherwise."""
    if (_LIBRARY is None or a.dtype != _FLOAT32 or b.dtype != _FLOAT32 or a.ndim != 2 or b.ndim != 2
            or a.shape[0] * a.shape[1] * b.shape[1] < MIN_MULTIPLY_ADDS or a.shape[1] != b.shape[0]):
        return np.matmul(a, b, out=out)
    m, k = a.shape
    n = b.shape[1]
    if out is not None and (out.dtype != _FLOAT32 or out.shape != (m, n) or out.strides[1] != _ITEM
                            or out.strides[0] % _ITEM or out.strides[0] < n * _ITEM
                            or np.may_share_memory(out, a) or np.may_share_memory(out, b)):
        return np.matmul(a, b, out=out)
    a_layout = _layout(a)
    if a_layout is None:
        a = np.ascontiguousarray(a)
        a_layout = b"N", k
    b_layout = _layout(b)
    if b_layout is None:
        b = np.ascontiguousarray(b)
        b_layout = b"N", n
    if out is None:
        out = np.empty((m, n), _FLOAT32)
    sgemm, get_threads, set_threads = _LIBRARY
    # oneDNN computes on as many threads as the calling thread's OpenMP setting allows: one for this call,
    # and the caller's own setting back after it
    threads = get_threads()
    if threads != 1:
        set_threads(1)
    try:
        status = sgemm(a_layout[0], b_layout[0], m, n, k, 1.0, a.ctypes.data, a_layout[1], b.ctypes.data,
                       b_layout[1], 0.0, out.ctypes.data, out.strides[0] // _ITEM)
    finally:
        if threads != 1:
            set_threads(threads)
    if status:
        raise RuntimeError(f"oneDNN sgemm failed with status {status} on a {m}x{k} by {k}x{n} product")
    return out
