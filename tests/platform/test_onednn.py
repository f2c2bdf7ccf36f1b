"""oneDNN's float32 products (platform/onednn.py): every layout NumPy views take, against float64 NumPy."""

import numpy as np
import pytest

from tensorweave.platform import onednn

RNG = np.random.default_rng(7)
needs_onednn = pytest.mark.skipif(not onednn.available, reason="onednn-cpu-gomp is not installed")


def _matrix(rows, cols, layout):
    """A float32 [rows, cols] view: row-major, transposed, with a longer leading dimension, or strided."""
    if layout == "row":
        return RNG.standard_normal((rows, cols)).astype(np.float32)
    if layout == "transposed":
        return RNG.standard_normal((cols, rows)).astype(np.float32).T
    if layout == "padded":
        return RNG.standard_normal((rows, cols + 5)).astype(np.float32)[:, 2:cols + 2]
    return RNG.standard_normal((rows, 2 * cols)).astype(np.float32)[:, ::2]  # neither: copied first


def _assert_product(a, b, got):
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4 * np.sqrt(a.shape[1]))


@needs_onednn
@pytest.mark.parametrize("a_layout", ["row", "transposed", "padded", "strided"])
@pytest.mark.parametrize("b_layout", ["row", "transposed", "padded", "strided"])
def test_products_of_every_layout_equal_numpys(a_layout, b_layout):
    a, b = _matrix(70, 90, a_layout), _matrix(90, 110, b_layout)
    _assert_product(a, b, onednn.matmul(a, b))


@needs_onednn
def test_product_into_a_block_of_columns_and_over_nan_garbage():
    """The output may be a column block of a wider matrix; what it held before is never read (beta 0)."""
    a, b = _matrix(100, 80, "row"), _matrix(80, 120, "transposed")
    wide = np.full((100, 300), np.nan, np.float32)
    result = onednn.matmul(a, b, out=wide[:, 100:220])
    assert result.base is wide or result is wide[:, 100:220] or np.shares_memory(result, wide)
    _assert_product(a, b, wide[:, 100:220])
    assert np.isnan(wide[:, :100]).all() and np.isnan(wide[:, 220:]).all()


@needs_onednn
@pytest.mark.parametrize("shape", [(1, 600, 1000), (1000, 600, 1), (1000, 1, 600), (600, 1000, 1)])
def test_dimensions_of_one_with_any_stride(shape):
    m, k, n = shape
    a = RNG.standard_normal((k, m)).astype(np.float32).T  # a length-one dimension's stride is arbitrary
    b = RNG.standard_normal((k + 3, n)).astype(np.float32)[3:]
    _assert_product(a, b, onednn.matmul(a, b))


def test_other_dtypes_small_products_and_overlapping_outputs_go_to_numpy():
    a64 = RNG.standard_normal((90, 90))
    np.testing.assert_array_equal(onednn.matmul(a64, a64), a64 @ a64)
    small = RNG.standard_normal((4, 4)).astype(np.float32)
    np.testing.assert_array_equal(onednn.matmul(small, small), small @ small)
    square = RNG.standard_normal((100, 100)).astype(np.float32)
    want = square.astype(np.float64) @ square.astype(np.float64)
    got = onednn.matmul(square, square, out=square)  # NumPy copies an operand the output overlaps
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_mismatched_shapes_raise_numpys_error():
    with pytest.raises(ValueError):
        onednn.matmul(np.ones((100, 90), np.float32), np.ones((80, 100), np.float32))


@needs_onednn
def test_infinities_and_nans_propagate_as_blas():
    a, b = _matrix(100, 100, "row"), _matrix(100, 100, "row")
    a[3, 5], a[7, 1], b[2, 9] = np.inf, np.nan, -np.inf
    got = onednn.matmul(a, b)
    with np.errstate(invalid="ignore"):
        want = a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
