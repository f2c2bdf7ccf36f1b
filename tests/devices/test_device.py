"""The CPU device's intra-op work: shared tasks, split matrix products, and the process's BLAS threads."""

import platform
import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from tensorweave.devices import device as device_module
from tensorweave.devices.cpu import cpu_device, reuse_freed_memory
from tensorweave.framework.resource_mgr import ResourceMgr


def _device(threads=2):
    return cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr(), threads, hold_blas=True)


def _blas_threads():
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


@pytest.mark.parametrize("shape_a, shape_b, transpose_a, transpose_b", [
    ((256, 784), (784, 1024), False, False),  # split by rows
    ((200, 400), (400, 10000), True, False),  # wider than tall: by columns, a transposed view in place
    ((64, 1000), (1000, 300), False, True),
    ((20, 400), (400, 800), False, False),  # too small to split
    ((20, 800), (800, 400), False, True),  # a few rows by a transposed matrix: computed transposed
])
def test_matmul_split_across_threads_equals_one_product(shape_a, shape_b, transpose_a, transpose_b):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape_a[::-1] if transpose_a else shape_a, dtype=np.float32)
    b = rng.standard_normal(shape_b[::-1] if transpose_b else shape_b, dtype=np.float32)
    a, b = (a.T if transpose_a else a), (b.T if transpose_b else b)
    device = _device()
    try:
        product = device.matmul(a, b)
        np.testing.assert_allclose(product, a @ b, rtol=1e-5, atol=1e-3)
        assert product.flags.c_contiguous
        bias = rng.standard_normal(product.shape[1], dtype=np.float32)

        def add_bias(block, columns):  # each block, with its columns' bias
            block += bias[columns]

        np.testing.assert_array_equal(device.matmul(a, b, epilogue=add_bias), product + bias)
        assert device.matmul(a.astype(np.int32), b.astype(np.int32)).dtype == np.int32
    finally:
        device.close()


def test_parallel_tasks_run_once_each_and_errors_reach_the_caller():
    device = _device(threads=3)
    try:
        done, lock = [], threading.Lock()

        def task(i):
            with lock:
                done.append(i)

        device.parallel(7, task)
        assert sorted(done) == list(range(7))

        def failing(i):
            if i == 3:
                raise ValueError("task 3")

        with pytest.raises(ValueError, match="task 3"):
            device.parallel(5, failing)
    finally:
        device.close()


def test_blas_runs_on_one_thread_while_a_device_lives_and_gets_its_threads_back():
    if device_module._BLAS._holders:
        pytest.skip("another test's device is still alive")
    before = _blas_threads()
    first, second = _device(), _device()
    assert set(_blas_threads()) == {1}
    first.close()
    first.close()  # closing twice releases once
    assert set(_blas_threads()) == {1}
    del second  # a collected device releases too
    assert _blas_threads() == before
    unheld = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr(), 2)
    assert _blas_threads() == before
    a = np.ones((512, 512), np.float32)
    np.testing.assert_array_equal(unheld.matmul(a, a), a @ a)  # left to BLAS's own threads
    unheld.close()


def test_cpu_devices_keep_freed_memory_for_the_next_step():
    """glibc's thresholds set once (idempotent); a platform without glibc runs as before."""
    assert reuse_freed_memory() is reuse_freed_memory()
    if platform.libc_ver()[0] == "glibc":
        assert reuse_freed_memory()
