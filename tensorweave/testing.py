"""`tf.test` for graph-mode (TF1) tests: `TestCase` and the module-level helpers.

`TestCase` follows TF's `TensorFlowTestCase` for graph mode: every test starts on a fresh default graph
with the default graph seed, `cached_session()` gives one session per test (closed in `tearDown`),
and the array assertions evaluate tensors in the default session and fail with TF's messages (which
come from `np.testing`, so they read alike). Invariant: no test sees a graph, session or seed left by
another.
"""

from __future__ import annotations

import collections.abc
import contextlib
import functools
import inspect
import math
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import ml_dtypes
import numpy as np
from absl.testing import absltest
from google.protobuf import text_format

from tensorweave import errors
from tensorweave.client.session import Session
from tensorweave.distributed import rpc
from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.distributed.server import Server
from tensorweave.formats import tensor_proto
from tensorweave.formats.protos import POOL, ConfigProto, DataType, RewriterConfig
from tensorweave.formats.protos import GraphDef as GraphDefProto
from tensorweave.framework import device_spec, random_seed
from tensorweave.framework.dtypes import as_dtype
from tensorweave.framework.graph import (
    Graph,
    Tensor,
    clear_nested_default_graphs,
    convert_to_tensor,
    get_default_session,
    reset_default_graph,
)
from tensorweave.framework.tensor_util import is_tensor
from tensorweave.ops.constant_ops import placeholder
from tensorweave.ops.gradients import gradients
from tensorweave.ops.logging_ops import summarize_value
from tensorweave.platform import app, tf_logging
from tensorweave.platform.tf_export import export_value, tf_export

export_value(mock, "test.mock")  # TF's tf.test.mock is the standard library's

_TEMP_ROOT: str | None = None


@tf_export("test.create_local_cluster")
def create_local_cluster(num_workers: int, num_ps: int, protocol: str = "grpc", worker_config: Any = None,
                         ps_config: Any = None) -> tuple[list[Server], list[Server]]:
    """In-process servers for a cluster of `num_workers` workers and `num_ps` parameter servers on free
    localhost ports, all started: (workers, ps_servers)."""
    ports = rpc.free_ports(num_workers + num_ps)
    cluster_dict: dict[str, list[str]] = {"worker": [f"localhost:{port}" for port in ports[:num_workers]]}
    if num_ps > 0:
        cluster_dict["ps"] = [f"localhost:{port}" for port in ports[num_workers:]]
    cs = ClusterSpec(cluster_dict)
    workers = [Server(cs, job_name="worker", protocol=protocol, task_index=ix, config=worker_config, start=True)
               for ix in range(num_workers)]
    ps_servers = [Server(cs, job_name="ps", protocol=protocol, task_index=ix, config=ps_config, start=True)
                  for ix in range(num_ps)]
    return workers, ps_servers


@tf_export("test.get_temp_dir")
def get_temp_dir() -> str:
    """One temporary directory shared by the whole test run, as TF's `googletest.GetTempDir()`."""
    global _TEMP_ROOT
    if _TEMP_ROOT is None:
        _TEMP_ROOT = tempfile.mkdtemp(prefix="tensorweave_test_")
    return _TEMP_ROOT


@tf_export("test.main")
def main(argv: list[str] | None = None) -> None:
    """Run the test cases of `__main__` as `tf.test.main()` does: absltest's runner (its `[ RUN      ]` lines
    and summary) under `tf.app.run`, which leaves unknown flags to absltest."""
    app.run(main=lambda args: absltest.main(argv=args), argv=sys.argv if argv is None else argv)


@tf_export("test.is_built_with_cuda")
def is_built_with_cuda() -> bool:
    """Tensorweave is never a CUDA build: its GPU kernels, when present, come from CuPy at run time."""
    return False


@tf_export("test.is_built_with_rocm")
def is_built_with_rocm() -> bool:
    return False


@tf_export("test.is_built_with_gpu_support")
def is_built_with_gpu_support() -> bool:
    return is_built_with_cuda() or is_built_with_rocm()


@tf_export("test.is_built_with_xla")
def is_built_with_xla() -> bool:
    return False


def _gpu_device_names() -> list[str]:
    with Session(graph=Graph()) as sess:
        return [d.name for d in sess.list_devices() if d.device_type == "GPU"]


@tf_export("test.is_gpu_available")
def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability: Any = None) -> bool:
    """Whether the local process has a GPU device."""
    return bool(_gpu_device_names())


@tf_export("test.gpu_device_name")
def gpu_device_name() -> str:
    """The name of the first GPU device (`/device:GPU:0`), or "" when there is none."""
    names = _gpu_device_names()
    return "/" + names[0].rsplit("/", 1)[-1] if names else ""


class _CheckedThread:
    """A thread whose exception fails the test when it is joined (TF's `_CheckedThread`)."""

    def __init__(self, testcase: TestCase, target: Callable[..., Any], args: tuple | None = None,
                 kwargs: dict | None = None) -> None:
        self._testcase = testcase
        self._target = target
        self._args = () if args is None else args
        self._kwargs = {} if kwargs is None else kwargs
        self._thread = threading.Thread(target=self._protected_run)
        self._exception: Exception | None = None
        self._is_thread_joined = False

    def _protected_run(self) -> None:
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported by join()
            self._exception = e

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._is_thread_joined = True
        self._thread.join()
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def check_termination(self) -> None:
        """A started thread must be joined before the test ends, or the test fails."""
        if self._is_thread_joined:
            if self.is_alive():
                raise RuntimeError("Thread was not joined with main thread, and is still running when the test "
                                   "finished.")
        else:
            self._testcase.fail("A checked thread was not joined.")


class _ErrorLoggingSession(Session):
    """TF's test session: a failed `run` logs its error (OutOfRange, the end-of-input signal, excepted)
    before raising it, so the log shows what failed in which test."""

    def run(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().run(*args, **kwargs)
        except Exception as e:
            if not isinstance(e, errors.OutOfRangeError):
                tf_logging.error(str(e))
            raise


@tf_export("test.TestCase")
class TestCase(absltest.TestCase):
    """TF's `tf.test.TestCase` in graph mode."""

    def __init__(self, methodName: str = "runTest") -> None:  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._threads: list[_CheckedThread] = []
        self._tempdir: str | None = None
        self._cached_session: Session | None = None
        self._test_start_time: float | None = None

    def setUp(self) -> None:
        super().setUp()
        self._clear_cached_session()
        random.seed(random_seed.DEFAULT_GRAPH_SEED)
        np.random.seed(random_seed.DEFAULT_GRAPH_SEED)
        clear_nested_default_graphs()
        reset_default_graph()
        random_seed.set_random_seed(random_seed.DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")
        self._test_start_time = time.time()

    def tearDown(self) -> None:
        # A subclass whose setUp skips ours never started the clock; TF logs nothing then.
        if self._test_start_time is not None:
            tf_logging.info("time(%s): %ss", self.id(), round(time.time() - self._test_start_time, 2))
        for thread in self._threads:
            thread.check_termination()
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self) -> None:
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    def get_temp_dir(self) -> str:
        """A directory unique to this test, the same on every call within it."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._tempdir

    def checkedThread(self, target: Callable[..., Any], args: tuple | None = None,  # noqa: N802 - TF's name
                      kwargs: dict | None = None) -> _CheckedThread:
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # -- sessions ---------------------------------------------------------------------------------------

    @staticmethod
    def _create_session(graph: Graph | None, config: Any, force_gpu: bool) -> Session:
        """TF's test sessions allow soft placement unless a GPU is forced."""
        if config is None:
            config = ConfigProto(allow_soft_placement=not force_gpu)
        elif force_gpu and config.allow_soft_placement:
            config = ConfigProto()
            config.allow_soft_placement = False
        return _ErrorLoggingSession(graph=graph, config=config)

    @contextlib.contextmanager
    def _constrain_devices_and_set_default(self, sess: Session, use_gpu: bool, force_gpu: bool
                                           ) -> Iterator[Session]:
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device(gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    def _get_cached_session(self, graph: Graph | None, config: Any, force_gpu: bool,
                            crash_if_inconsistent_args: bool) -> Session:
        if self._cached_session is None:
            self._cached_session = self._create_session(graph, config, force_gpu)
            self._cached_graph, self._cached_config, self._cached_force_gpu = graph, config, force_gpu
            return self._cached_session
        for what, cached, given in (("graph", self._cached_graph, graph), ("config", self._cached_config, config),
                                    ("force_gpu value", self._cached_force_gpu, force_gpu)):
            if crash_if_inconsistent_args and cached is not given:
                raise ValueError(f"The {what} used to get the cached session is different than the one that was "
                                 "used to create the session. Maybe create a new session with self.session()")
        return self._cached_session

    @contextlib.contextmanager
    def session(self, graph: Graph | None = None, config: Any = None, use_gpu: bool = True,
                force_gpu: bool = False) -> Iterator[Session]:
        """A new session, default (with its graph) inside the block and closed after it."""
        with self._create_session(graph, config, force_gpu) as sess:
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph: Graph | None = None, config: Any = None, use_gpu: bool = True,
                       force_gpu: bool = False) -> Iterator[Session]:
        """The test's one session, made on first use and closed in `tearDown`."""
        sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=True)
        with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
            yield cached

    @contextlib.contextmanager
    def test_session(self, graph: Graph | None = None, config: Any = None, use_gpu: bool = True,
                     force_gpu: bool = False) -> Iterator[Session]:
        """Use cached_session instead. (deprecated)

        TF1's spelling of `cached_session` (a new session when `graph` is given). The first line is TF's
        (its deprecation notice): unittest's verbose runner prints it beside the skipped `test_session`."""
        if self.id().endswith(".test_session"):
            self.skipTest('Tests that have the name "test_session" are automatically skipped by TensorFlow test '
                          "fixture, as the name is reserved for creating sessions within tests. Please rename your "
                          "test if you have a test with this name.")
        if graph is None:
            sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=False)
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
                yield cached
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors: Any) -> Any:
        """Run `tensors` (any structure `Session.run` takes) in the default session, or the cached one."""
        sess = get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    # -- array assertions --------------------------------------------------------------------------------

    def _GetNdArray(self, a: Any) -> np.ndarray:  # noqa: N802 - TF's name, overridden by some tests
        if is_tensor(a):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                return np.array(a)
            except ValueError as e:
                if "inhomogeneous shape" in str(e):
                    return np.array(a, dtype=object)
                raise
        return a

    def evaluate_if_both_tensors(self, a: Any, b: Any) -> tuple[Any, Any]:
        if is_tensor(a) and is_tensor(b):
            return self.evaluate((a, b))
        return a, b

    def _assertArrayLikeAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,  # noqa: N802
                                 msg: str | None = None) -> None:
        a, b = self.evaluate_if_both_tensors(a, b)
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            shape_mismatch_msg = f"Shape mismatch: expected {a.shape}, got {b.shape} with contents {b}."
        else:
            shape_mismatch_msg = f"Shape mismatch: expected {a.shape}, got {b.shape}."
        self.assertEqual(a.shape, b.shape, shape_mismatch_msg)

        msgs = [msg]
        a_dtype = a.dtype
        a = a.astype(np.float32) if a.dtype == ml_dtypes.bfloat16 else a
        b = b.astype(np.float32) if b.dtype == ml_dtypes.bfloat16 else b
        if not np.allclose(a, b, rtol=rtol, atol=atol):
            cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
            if a.ndim:
                x, y = a[np.where(cond)], b[np.where(cond)]
                msgs.append(f"not close where = {np.where(cond)}")
            else:
                x, y = a, b
            msgs.append(f"not close lhs = {x}")
            msgs.append(f"not close rhs = {y}")
            msgs.append(f"not close dif = {np.abs(x - y)}")
            msgs.append(f"not close tol = {atol + rtol * np.abs(y)}")
            msgs.append(f"dtype = {a_dtype}, shape = {a.shape}")
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(map(str, msgs)),
                                       equal_nan=True)

    def _assertAllCloseRecursive(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,  # noqa: N802
                                 path: list | None = None, msg: str | None = None) -> None:
        """Walk dicts, namedtuples, lists and tuples together, naming the path of the first mismatch."""
        path = path or []
        path_str = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg if msg else ""
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{path_str} vs b{path_str}. {msg}")
        mismatch = f"Mismatched value: a{path_str} is different from b{path_str}. {msg}"
        if a_is_dict:
            self.assertCountEqual(a.keys(), b.keys(), msg=f"mismatched keys: a{path_str} has keys {a.keys()}, but "
                                                          f"b{path_str} has keys {b.keys()}. {msg}")
            for k in a:
                self._assertAllCloseRecursive(a[k], b[k], rtol=rtol, atol=atol, path=[*path, k], msg=msg)
        elif isinstance(a, (list, tuple)):
            try:
                a, b = self.evaluate_if_both_tensors(a, b)
                self._assertArrayLikeAllClose(self._GetNdArray(a), self._GetNdArray(b), rtol=rtol, atol=atol,
                                              msg=mismatch)
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{path_str} has {len(a)} items, but b{path_str} has "
                                     f"{len(b)} items. {msg}") from None
                for idx, (a_ele, b_ele) in enumerate(zip(a, b)):
                    self._assertAllCloseRecursive(a_ele, b_ele, rtol=rtol, atol=atol, path=[*path, str(idx)],
                                                  msg=msg)
        else:
            try:
                self._assertArrayLikeAllClose(a, b, rtol=rtol, atol=atol, msg=mismatch)
            except TypeError as e:
                e.args = (f"{e.args[0]} : Error: a{path_str} has {type(a)}, but b{path_str} has {type(b)}. {msg}",
                          *e.args[1:])
                raise

    def assertAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,  # noqa: N802
                       msg: str | None = None) -> None:
        """Nested structures of arrays or tensors are element-wise close: |a - b| <= atol + rtol * |b|."""
        self._assertAllCloseRecursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,  # noqa: N802
                                      float_rtol: float = 1e-6, float_atol: float = 1e-6,
                                      half_rtol: float = 1e-3, half_atol: float = 1e-3,
                                      bfloat16_rtol: float = 1e-2, bfloat16_atol: float = 1e-2,
                                      msg: str | None = None) -> None:
        """`assertAllClose` with tolerances widened to the least precise dtype of `a` and `b`."""
        a, b = self.evaluate_if_both_tensors(a, b)
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        dtypes_seen = {a.dtype, b.dtype}
        for wide, (type_rtol, type_atol) in (({np.float32, np.complex64}, (float_rtol, float_atol)),
                                             ({np.float16}, (half_rtol, half_atol)),
                                             ({ml_dtypes.bfloat16}, (bfloat16_rtol, bfloat16_atol))):
            if any(d == w for d in dtypes_seen for w in wide):
                rtol, atol = max(rtol, type_rtol), max(atol, type_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,  # noqa: N802
                          msg: str | None = None) -> None:
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def assertAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:  # noqa: N802
        """Arrays or tensors have the same shape and values (NaNs equal where both are NaN)."""
        msg = msg if msg else ""
        a, b = self.evaluate_if_both_tensors(a, b)
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if b.ndim <= 3 or b.size < 500:
            self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}. Contents: {b!r}. \n{msg}.")
        else:
            self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg}")
        same = a == b
        if a.dtype != object and as_dtype(a.dtype).is_floating:
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        msgs = [msg]
        diff = np.logical_not(same)
        if a.ndim:
            x, y = a[np.where(diff)], b[np.where(diff)]
            msgs.append(f"not equal where = {np.where(diff)}")
        else:
            x, y = a, b
        msgs.append(f"not equal lhs = {x!r}")
        msgs.append(f"not equal rhs = {y!r}")
        if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
            a, b = (np.array([item.encode("utf-8") if isinstance(item, str) else item for item in arr.flat])
                    for arr in (a, b))
        np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertNotAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:  # noqa: N802
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    @staticmethod
    def _format_subscripts(subscripts: tuple, value: np.ndarray, limit: int = 10, indent: int = 2) -> list[str]:
        """The first `limit` offending subscripts and their values, one a line."""
        prefix = " " * indent
        if np.ndim(value) == 0:
            return [prefix + "[0] : " + str(value)]
        rows = np.transpose(subscripts)
        lines = [prefix + str(row) + " : " + str(value[tuple(row)]) for row in rows[:limit]]
        if len(rows) > limit:
            lines.append(prefix + "...")
        return lines

    def assertAllInRange(self, target: Any, lower_bound: Any, upper_bound: Any,  # noqa: N802
                         open_lower_bound: bool = False, open_upper_bound: bool = False) -> None:
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating) or np.issubdtype(target.dtype, np.integer)):
            raise AssertionError(f"The value of {target} does not have an ordered numeric type, instead it has "
                                 f"type: {target.dtype}")
        nan_subscripts = np.where(np.isnan(target))
        if np.size(nan_subscripts):
            raise AssertionError(f"{len(nan_subscripts[0])} of the {np.size(target)} element(s) are NaN. Subscripts(s) "
                                 "and value(s) of the NaN element(s):\n"
                                 + "\n".join(self._format_subscripts(nan_subscripts, target)))
        range_str = ("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}" + \
            (")" if open_upper_bound else "]")
        violations = np.less_equal(target, lower_bound) if open_lower_bound else np.less(target, lower_bound)
        violations = np.logical_or(violations, np.greater_equal(target, upper_bound) if open_upper_bound
                                   else np.greater(target, upper_bound))
        violation_subscripts = np.where(violations)
        if np.size(violation_subscripts):
            raise AssertionError(f"{len(violation_subscripts[0])} of the {np.size(target)} element(s) are outside the "
                                 f"range {range_str}. "
                                 + "Subscript(s) and value(s) of the offending elements:\n"
                                 + "\n".join(self._format_subscripts(violation_subscripts, target)))

    def assertAllInSet(self, target: Any, expected_set: Any) -> None:  # noqa: N802
        diff = np.setdiff1d(self._GetNdArray(target).flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(f"{np.size(diff)} unique element(s) are not in the set {expected_set}: {diff}")

    def assertDTypeEqual(self, target: Any, expected_dtype: Any) -> None:  # noqa: N802
        self.assertEqual(self._GetNdArray(target).dtype, expected_dtype)

    def assertNear(self, f1: float, f2: float, err: float, msg: str | None = None) -> None:  # noqa: N802
        """|f1 - f2| <= err."""
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:
            diff = math.fabs(f1 - f2)
            self.assertTrue(diff <= err, f"{f1:f} != {f2:f} +/- {err:f} (difference: {diff:g})"
                            + (f" ({msg})" if msg is not None else ""))

    def assertArrayNear(self, farray1: Any, farray2: Any, err: float, msg: str | None = None) -> None:  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1: Any, ndarray2: Any, err: float, msg: str | None = None) -> None:  # noqa: N802
        self.assertTrue(np.linalg.norm(ndarray1 - ndarray2) < err, msg=msg)

    def assertShapeEqual(self, input_a: Any, input_b: Any, msg: str | None = None) -> None:  # noqa: N802
        """Static shapes of tensors (unknown dimensions as None) or shapes of arrays are equal."""
        for name, value in (("input_a", input_a), ("input_b", input_b)):
            if not isinstance(value, (np.ndarray, np.generic, Tensor)):
                raise TypeError(f"{name} must be a Numpy ndarray, Numpy scalar, or a Tensor.Instead received "
                                f"{type(value)}")
        shape_a = input_a.get_shape().as_list() if isinstance(input_a, Tensor) else input_a.shape
        shape_b = input_b.get_shape().as_list() if isinstance(input_b, Tensor) else input_b.shape
        self.assertAllEqual(shape_a, shape_b, msg=msg)

    def assertDeviceEqual(self, device1: Any, device2: Any, msg: str | None = None) -> None:  # noqa: N802
        device1 = device_spec.canonical_name(device1)
        device2 = device_spec.canonical_name(device2)
        self.assertEqual(device1, device2, f"Devices {device1} and {device2} are not equal. {msg}")

    # -- other assertions ---------------------------------------------------------------------------------

    def assertProtoEquals(self, expected_message_maybe_ascii: Any, validate_message: Any,  # noqa: N802
                          msg: str | None = None) -> None:
        """`validate_message` equals the expected proto, given as a message or in text format."""
        if isinstance(expected_message_maybe_ascii, type(validate_message)):
            expected = expected_message_maybe_ascii
        elif isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = type(validate_message)()
            text_format.Merge(expected_message_maybe_ascii, expected, descriptor_pool=POOL)
        else:
            raise AssertionError(f"Can't compare protos of type {type(expected_message_maybe_ascii)} and "
                                 f"{type(validate_message)}.")
        if expected != validate_message:
            self.assertMultiLineEqual(text_format.MessageToString(expected),
                                      text_format.MessageToString(validate_message), msg=msg)

    def assertStartsWith(self, actual: str, expected_start: str, msg: str | None = None) -> None:  # noqa: N802
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r}" + (f" : {msg!r}" if msg else ""))

    # TF's alias, which (unlike unittest's deprecated one) warns of nothing.
    assertRaisesRegexp = absltest.TestCase.assertRaisesRegex  # noqa: N815 - TF's name

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type: type[BaseException],  # noqa: N802
                                       expected_err_re_or_predicate: Any) -> Iterator[None]:
        """The block raises `exception_type`, whose message (an OpError's plus its op names) matches."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e: BaseException) -> Any:
                if isinstance(e, errors.OpError):
                    err_str, op = e.message, e.op
                else:
                    err_str, op = str(e), None
                while op is not None:
                    err_str += "\nCaused by: " + op.name
                    op = getattr(op, "_original_op", None)
                return re.search(expected_err_re_or_predicate, err_str)
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001 - every exception is judged by the predicate
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e

    def assertRaisesOpError(self, expected_err_re_or_predicate: Any) -> Any:  # noqa: N802
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)



def _jacobians(x: Any, x_shape: Any, y: Any, y_shape: Any, x_init_value: Any, delta: float,
               extra_feed_dict: dict | None, sess: Any) -> tuple[np.ndarray, np.ndarray]:
    """The theoretical (from tf.gradients, one y element at a time) and the numeric (central differences)
    Jacobians of y by x, each (x size, y size)."""
    x_dtype = as_dtype(x.dtype).base_dtype
    np_dtype = x_dtype.real_dtype.as_numpy_dtype if x_dtype.is_complex else x_dtype.as_numpy_dtype
    x_value = (np.asarray(x_init_value, dtype=x_dtype.as_numpy_dtype) if x_init_value is not None else
               np.random.random_sample(tuple(x_shape)).astype(x_dtype.as_numpy_dtype))
    x_size, y_size = int(np.prod(x_shape)), int(np.prod(y_shape))
    feed = dict(extra_feed_dict or {})
    dy = placeholder(y.dtype, tuple(y_shape))
    dx = gradients(y, x, grad_ys=dy)[0]
    if dx is not None and not isinstance(dx, Tensor):  # IndexedSlices: summed into place by the graph
        dx = convert_to_tensor(dx)
    theoretical = np.zeros((x_size, y_size), dtype=np_dtype)
    if dx is not None:
        for j in range(y_size):
            one_hot = np.zeros(y_size, dtype=as_dtype(y.dtype).as_numpy_dtype)
            one_hot[j] = 1
            value = sess.run(dx, {**feed, x: x_value, dy: one_hot.reshape(tuple(y_shape))})
            theoretical[:, j] = np.real(np.reshape(value, -1))
    numerical = np.zeros((x_size, y_size), dtype=np_dtype)
    for i in range(x_size):
        step = np.zeros(x_size, x_value.dtype)
        step[i] = delta
        step = step.reshape(x_value.shape)
        # Fresh arrays each run: a fetched value may be a view of what was fed.
        y_pos = np.array(sess.run(y, {**feed, x: x_value + step}))
        y_neg = np.array(sess.run(y, {**feed, x: x_value - step}))
        numerical[i, :] = np.real(np.reshape((y_pos - y_neg) / (2 * delta), -1))
    return theoretical, numerical


@tf_export("test.compute_gradient")
def compute_gradient(x: Any, x_shape: Any, y: Any, y_shape: Any, x_init_value: Any = None, delta: float = 1e-3,
                     init_targets: Any = None, extra_feed_dict: dict | None = None) -> Any:
    """TF1's gradient checker: (theoretical, numerical) Jacobians of y by x, each (x size, y size), in the
    default session; a list of such pairs when `x` is a list."""
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: call it inside `with tf.Session():`")
    if init_targets is not None:
        sess.run(init_targets)
    if isinstance(x, (list, tuple)):
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [_jacobians(xi, si, y, y_shape, vi, delta, extra_feed_dict, sess)
                for xi, si, vi in zip(x, x_shape, inits)]
    return _jacobians(x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict, sess)


@tf_export("test.compute_gradient_error")
def compute_gradient_error(x: Any, x_shape: Any, y: Any, y_shape: Any, x_init_value: Any = None,
                           delta: float = 1e-3, init_targets: Any = None, extra_feed_dict: dict | None = None) -> float:
    """The largest absolute difference between the theoretical and the numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    pairs = grads if isinstance(grads, list) else [grads]
    return max((float(np.max(np.abs(t - n))) if t.size else 0.0) for t, n in pairs)


# -- tf.test.assert_equal_graph_def: the C++ EqualGraphDef's comparison and diff messages --------------------


def _summarize_float(value: float) -> str:
    """A float as TF's FloatToBuffer writes it: %g at 6 digits, at 9 when 6 do not round-trip the float32."""
    short = f"{value:.6g}"
    return short if np.float32(short) == np.float32(value) else f"{value:.9g}"


def _summarize_shape(shape: Any) -> str:
    return "<unknown>" if shape.unknown_rank else "[" + ",".join("?" if d.size < 0 else str(d.size)
                                                                for d in shape.dim) + "]"


def _summarize_attr_value(value: Any) -> str:
    """An AttrValue as TF's SummarizeAttrValue writes it inside a NodeDef summary."""
    kind = value.WhichOneof("value")
    if kind == "list":
        items = [_summarize_attr_value(type(value)(**{field.name: item}))
                 for field, items in value.list.ListFields() for item in items]
        return "[" + ", ".join(items) + "]"
    if kind == "s":
        return '"' + value.s.decode("utf-8", "backslashreplace") + '"'
    if kind == "type":
        return DataType.Name(value.type)
    if kind == "b":
        return "true" if value.b else "false"
    if kind == "f":
        return _summarize_float(value.f)
    if kind == "shape":
        return _summarize_shape(value.shape)
    if kind == "tensor":
        array = tensor_proto.make_ndarray(value.tensor)
        return (f"Tensor<type: {DataType.Name(value.tensor.dtype)[3:].lower()} shape: {_summarize_shape(value.tensor.tensor_shape)}"
                f" values: {summarize_value(array, 3)}>")
    if kind == "func":
        return value.func.name
    return str(getattr(value, kind)) if kind else ""


def _summarize_node_def(node: Any) -> str:
    attrs = [f"{k}={_summarize_attr_value(node.attr[k])}" for k in sorted(node.attr)]
    if node.device:
        attrs.append(f'_device="{node.device}"')
    return f"{{{{node {node.name}}}}} = {node.op}[{', '.join(attrs)}]({', '.join(node.input)})"


def _attr_values_equal(a: Any, b: Any) -> bool:
    """AttrValue equality as TF's AreAttrValuesEqual: tensors by dtype, shape and values, whatever their
    encoding (tensor_content or the typed value fields)."""
    if a.WhichOneof("value") == b.WhichOneof("value") == "tensor":
        x, y = tensor_proto.make_ndarray(a.tensor), tensor_proto.make_ndarray(b.tensor)
        same = np.array_equal(x, y) if x.dtype == object else x.tobytes() == y.tobytes()  # bytes: NaN == NaN
        return a.tensor.dtype == b.tensor.dtype and x.shape == y.shape and same
    return a == b


def _node_diff(actual: Any, expected: Any) -> str | None:
    """Why two same-named nodes differ (None when they do not); attrs starting '_' are ignored."""
    name = actual.name
    if actual.op != expected.op:
        return f"Node named '{name}' has op '{actual.op}' that is not expected '{expected.op}'"
    if actual.device != expected.device:
        return f"Node named '{name}' has device '{actual.device}' that is not expected '{expected.device}'"
    if len(actual.input) != len(expected.input):
        return (f"Node named '{name}' has inputs '{', '.join(actual.input)}' that don't match expected "
                f"'{', '.join(expected.input)}'")
    first_control = next((i for i, x in enumerate(actual.input) if x.startswith("^")), len(actual.input))
    for i, (a, e) in enumerate(zip(actual.input[:first_control], expected.input[:first_control])):
        if a != e and a != e + ":0" and a + ":0" != e:  # "t" and "t:0" name the same tensor
            return f"Node named '{name}' has input {i} '{a}' that doesn't match expected '{e}'"
    actual_control = set(actual.input[first_control:])
    for e in dict.fromkeys(expected.input[first_control:]):
        if e not in actual_control:
            return f"Node named '{name}' missing expected control input '{e}'"
        actual_control.discard(e)
    if actual_control:
        return f"Node named '{name}' has unexpected control input '{next(iter(actual_control))}'"
    actual_attrs = {k for k in actual.attr if not k.startswith("_")}
    for key in (k for k in expected.attr if not k.startswith("_")):
        if key not in actual_attrs:
            return (f"Node named '{name}' missing expected attr '{key}' with value: "
                    f"{_summarize_attr_value(expected.attr[key])}")
        actual_attrs.discard(key)
        if not _attr_values_equal(actual.attr[key], expected.attr[key]):
            return (f"Node named '{name}' has attr '{key}' with value: {_summarize_attr_value(actual.attr[key])} "
                    f"that does not match expected: {_summarize_attr_value(expected.attr[key])}")
    if actual_attrs:
        key = next(iter(actual_attrs))
        return f"Node named '{name}' has unexpected attr '{key}' with value: {_summarize_attr_value(actual.attr[key])}"
    return None


def _strip_randomized(graph_def: Any, checkpoint_v2: bool, hash_table_shared_name: bool) -> Any:
    """A copy without what differs run to run: v2 checkpoints' temporary shard names, hash tables' shared names."""
    graph_def = type(graph_def).FromString(graph_def.SerializeToString())
    for node in graph_def.node:
        if checkpoint_v2 and "value" in node.attr and node.attr["value"].tensor.string_val:
            if re.match(rb"_temp_[0-9a-f]{32}/part|_temp/part", node.attr["value"].tensor.string_val[0]):
                del node.attr["value"]
        if hash_table_shared_name and node.op.startswith("HashTable") and "shared_name" in node.attr:
            if re.match(rb"hash_table_[0-9a-z\-]+", node.attr["shared_name"].s):
                del node.attr["shared_name"]
    return graph_def


@tf_export("test.assert_equal_graph_def")
def assert_equal_graph_def(actual: Any, expected: Any, checkpoint_v2: bool = False,
                           hash_table_shared_name: bool = False) -> None:
    """Fail with TF's diff unless the GraphDefs hold the same nodes (by name; versions, node order, control
    input order and '_' attrs ignored), so golden-graph tests read as in TF."""
    for label, graph_def in (("actual", actual), ("expected", expected)):
        if not isinstance(graph_def, GraphDefProto):
            raise TypeError(f"Expected tf.GraphDef for {label}, got {type(graph_def).__name__}")
    actual = _strip_randomized(actual, checkpoint_v2, hash_table_shared_name)
    expected = _strip_randomized(expected, checkpoint_v2, hash_table_shared_name)
    actual_index = {node.name: node for node in actual.node}
    for node in expected.node:
        if node.name not in actual_index:
            raise AssertionError(f"Did not find expected node '{_summarize_node_def(node)}'")
        diff = _node_diff(actual_index.pop(node.name), node)
        if diff:
            raise AssertionError(diff)
    if actual_index:
        raise AssertionError(f"Found unexpected node '{_summarize_node_def(next(iter(actual_index.values())))}'")


# -- the rest of tf.test's module-level helpers ------------------------------------------------------------


@tf_export("test.is_cpu_target_available")
def is_cpu_target_available(target: str) -> bool:
    """TF answers whether its LLVM build can emit code for `target`; tensorweave compiles nothing, and like
    TF's default build it answers True for every target."""
    return True


@tf_export("test.benchmark_config")
def benchmark_config() -> Any:
    """A ConfigProto with the dependency optimizer off, TF's config for benchmarks that time no-op chains."""
    config = ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = RewriterConfig.OFF
    return config


@tf_export("test.test_src_dir_path")
def test_src_dir_path(relative_path: str) -> str:
    """The path of `relative_path` under Bazel's `$TEST_SRCDIR/org_tensorflow` (KeyError without it, as TF)."""
    return os.path.join(os.environ["TEST_SRCDIR"], "org_tensorflow", relative_path)


@tf_export("test.disable_with_predicate")
def disable_with_predicate(pred: Callable[[], bool], skip_message: str) -> Callable[[Any], Any]:
    """A decorator for test methods that skips the test with `skip_message` whenever `pred()` is true."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)

        return wrapper

    return decorator


@tf_export("test.with_eager_op_as_function")
def with_eager_op_as_function(cls: type | None = None, only_as_function: bool = False) -> Any:
    """TF adds eager-op-as-function variants of a class's test methods, which run only in eager mode; in
    TF1 graph mode the class comes back unchanged (and so does a decorator call without `cls`)."""
    if cls is None:
        return lambda c: c
    return cls


@tf_export("test.StubOutForTesting")
class StubOutForTesting:
    """Replace attributes for a test and put them back afterwards (TF's googletest helper)."""

    def __init__(self) -> None:
        self.cache: list[tuple[Any, Any, str]] = []  # Set's
        self.stubs: list[tuple[Any, str, Any]] = []  # SmartSet's

    def __del__(self) -> None:
        self.CleanUp()

    def SmartSet(self, obj: Any, attr_name: str, new_attr: Any) -> None:  # noqa: N802
        """Replace `obj.attr_name`: on a module, or an instance that holds the attribute itself, in place;
        otherwise on the class (an instance's own class), so the stub is inherited; a staticmethod is put
        back as one."""
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in obj.__dict__):
            owner = obj
        else:
            owner = obj if inspect.isclass(obj) else type(obj)
            if not hasattr(obj, attr_name):
                raise AttributeError("Attribute not found.")
        orig_attr = getattr(obj, attr_name)
        if isinstance(obj.__dict__.get(attr_name), staticmethod):
            orig_attr = staticmethod(orig_attr)
        self.stubs.append((owner, attr_name, orig_attr))
        setattr(owner, attr_name, new_attr)

    def SmartUnsetAll(self) -> None:  # noqa: N802
        """Undo every `SmartSet`, newest first."""
        for owner, attr_name, orig_attr in reversed(self.stubs):
            setattr(owner, attr_name, orig_attr)
        self.stubs = []

    def Set(self, parent: Any, child_name: str, new_child: Any) -> None:  # noqa: N802
        """Replace `parent.child_name` on `parent` itself (a class's staticmethod is put back as one)."""
        old_child = getattr(parent, child_name)
        if isinstance(parent.__dict__.get(child_name), staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self) -> None:  # noqa: N802
        """Undo every `Set`, newest first."""
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []

    def CleanUp(self) -> None:  # noqa: N802
        """Undo everything."""
        self.SmartUnsetAll()
        self.UnsetAll()


@tf_export("test.Benchmark")
class Benchmark:
    """Helpers for benchmarks: time an op in a session and report the numbers, named after the calling
    `benchmark*` method as TF names them."""

    def _get_name(self, overwrite_name: str | None = None) -> str:
        frame = next((f for f in reversed(inspect.stack()) if isinstance(f.frame.f_locals.get("self"), Benchmark)),
                     None)
        if frame is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        return f"{type(frame.frame.f_locals['self']).__name__}.{overwrite_name or frame.function}"

    def report_benchmark(self, iters: int | None = None, cpu_time: float | None = None,
                         wall_time: float | None = None, throughput: float | None = None,
                         extras: dict | None = None, name: str | None = None, metrics: list | None = None) -> None:
        """Log the benchmark's numbers with TF's line (tensorweave writes no BenchmarkEntries file)."""
        if extras is not None and not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        if metrics is not None:
            if not isinstance(metrics, list):
                raise TypeError("metrics must be a list")
            for metric in metrics:
                for field in ("name", "value"):
                    if field not in metric:
                        raise TypeError(f"metric must has a '{field}' field")
        tf_logging.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, extras: %s, "
                        "metrics: %s", self._get_name(name), -1 if iters is None else iters,
                        -1 if wall_time is None else wall_time, -1 if cpu_time is None else cpu_time,
                        -1 if throughput is None else throughput, str(extras) if extras else "None",
                        str(metrics) if metrics else "None")

    def run_op_benchmark(self, sess: Any, op_or_tensor: Any, feed_dict: dict | None = None, burn_iters: int = 2,
                         min_iters: int = 10, store_trace: bool = False, store_memory_usage: bool = True,
                         name: str | None = None, extras: dict | None = None, mbs: int = 0) -> dict:
        """Run `op_or_tensor` `burn_iters` times untimed, then `min_iters` times; report and return the median
        wall time (and the throughput in MB/s when `mbs` is given). Memory and trace extras need TF's
        allocator stats, which tensorweave does not keep, so those flags add nothing."""
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        wall_time = float(np.median(deltas))
        benchmark_values = {"iters": min_iters, "wall_time": wall_time, "extras": dict(extras or {}),
                            "name": name, "throughput": mbs / wall_time}
        self.report_benchmark(**benchmark_values)
        benchmark_values["extras"].update(  # reported in the result only, as TF does
            wall_time_mean=float(np.mean(deltas)), wall_time_stdev=float(np.std(deltas, ddof=1)) if min_iters > 1 else -1)
        return benchmark_values

    def evaluate(self, tensors: Any) -> Any:
        """The tensors' values in the default session, as `sess.run(tensors)`."""
        return get_default_session().run(tensors)
