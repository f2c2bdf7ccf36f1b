"""SobolSample (`tf.math.sobol_sample`): points of the Sobol low-discrepancy sequence, as TF draws them.

As TF: Joe & Kuo's direction numbers (new-joe-kuo-6.21201, its 21200 dimensions; packed from SciPy's BSD copy
by tools/pack_sobol_directions.py into sobol_direction_numbers.npz beside this module), the sequence's first
point (all zeros) left out, point `skip + 1` first. The integers carry as many binary digits as
`skip + num_results + 1` has, and each output is its integer (rounded to the output type) over 2**digits, so
at 31 digits TF's scale, `1 << 31` in a C int, is negative and so are its outputs. The points follow by the
Gray-code recurrence (each one XORs one direction number into the one before), run for all points at once as
a cumulative XOR.
"""

from __future__ import annotations

import functools
import math
import pathlib
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

_TABLE = pathlib.Path(__file__).resolve().parent / "sobol_direction_numbers.npz"
_MAX_DIM = 21200
_MAX_DIGITS = 31  # skip + num_results + 1 stays below 2**31
_INT32_MAX = 2**31 - 1

SobolSample = Op("SobolSample", inputs=["dim: int32", "num_results: int32", "skip: int32"],
                 outputs=["samples: dtype"], attrs=["dtype: {float, double} = DT_FLOAT"])
NotDifferentiable("SobolSample")


@SobolSample.shape
def _sobol_sample_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    for shape in ctx.input_shapes:
        with_rank(shape, 0)
    dim, num_results = (ctx.input_value(i) for i in (0, 1))
    return [tensor_shape.TensorShape([None if num_results is None else int(num_results),
                                      None if dim is None else int(dim)])]


@functools.lru_cache(maxsize=1)
def _direction_numbers() -> np.ndarray:
    """m[j, k] for every dimension j and digit k: the stored initial numbers, then Joe & Kuo's recurrence
    m_k = 2**s m_{k-s} ^ m_{k-s} ^ XOR_i a_i 2**i m_{k-i}, taken for all dimensions at once."""
    table = np.load(_TABLE)
    poly = table["poly"].astype(np.int64)
    degree = np.floor(np.log2(poly)).astype(np.int64)
    bits = np.unpackbits(table["bits"])
    m = np.ones((poly.size, _MAX_DIGITS), np.int64)
    start = 0
    for i in range(1, int(degree.max())):
        rows = np.flatnonzero(degree > i)
        column = bits[start:start + rows.size * i].reshape(rows.size, i).astype(np.int64)
        m[rows, i] = (column @ (1 << np.arange(i, 0, -1))) | 1
        start += rows.size * i
    rows = np.arange(poly.size)
    for k in range(1, _MAX_DIGITS):
        recurring = (degree >= 1) & (degree <= k)
        s = degree[recurring]
        oldest = m[rows[recurring], k - s]
        value = oldest ^ (oldest << s)
        for i in range(1, int(s.max(initial=1))):
            coefficient = (i < s) & (((poly[recurring] >> np.maximum(s - i, 0)) & 1) == 1)
            value ^= np.where(coefficient, m[rows[recurring], k - i] << i, 0)
        m[recurring, k] = value
    return m


def _trailing_ones(n: np.ndarray) -> np.ndarray:
    """Where the rightmost zero bit of each n sits: the digit whose direction number the next point takes."""
    lowest_zero = (n + 1) & -(n + 1)
    return np.frexp(lowest_zero.astype(np.float64))[1] - 1


@SobolSample.kernel("CPU")
def _sobol_sample(ctx: OpKernelContext, dim: Any, num_results: Any, skip: Any, dtype: Any) -> np.ndarray:
    dim, num_results, skip = int(dim), int(num_results), int(skip)
    if dim < 1:
        raise invalid_argument(ctx, "dim must be at least one")
    if dim > _MAX_DIM:
        raise invalid_argument(ctx, f"dim must be at most {_MAX_DIM}")
    if num_results < 1:
        raise invalid_argument(ctx, "num_results must be at least one")
    if skip < 0:
        raise invalid_argument(ctx, "skip must be non-negative")
    if num_results >= _INT32_MAX - skip:
        raise invalid_argument(ctx, f"num_results+skip must be less than {_INT32_MAX}")
    digits = int(math.log2(skip + num_results + 1) + 1)
    directions = _direction_numbers()[:dim, :digits] << np.arange(digits - 1, -1, -1)
    gray = (skip + 1) ^ ((skip + 1) >> 1)
    first = np.bitwise_xor.reduce(np.where((gray >> np.arange(digits)) & 1, directions, 0), axis=1)
    steps = directions[:, _trailing_ones(np.arange(skip + 1, skip + num_results, dtype=np.int64))].T
    points = np.bitwise_xor.accumulate(np.concatenate([first[None], steps]), axis=0)
    out_type = dtypes.as_dtype(dtype).as_numpy_dtype
    scale = -(2.0 ** -digits) if digits == _MAX_DIGITS else 2.0 ** -digits
    return points.astype(out_type) * out_type(scale)


@tf_export("math.sobol_sample")
def sobol_sample(dim: Any, num_results: Any, skip: Any = 0, dtype: Any = dtypes.float32,
                 name: str | None = None) -> Tensor:
    """`num_results` points of the `dim`-dimensional Sobol sequence after its first `skip`: quasi-random
    points that cover the unit cube more evenly than uniform draws."""
    with name_scope(name, "sobol", [dim, num_results, skip]):
        return SobolSample(dim, num_results, skip, dtype=dtype)
