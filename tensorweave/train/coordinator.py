"""`tf.train.Coordinator` and `tf.train.LooperThread`: how a set of threads learns to stop together.

Any thread may call `request_stop` (with the exception that made it stop); every thread polls
`should_stop` or blocks in `wait_for_stop`, and the main thread `join`s them, giving them a grace period
and then re-raising the first exception reported (not one of the clean-stop types, OutOfRangeError by
default, which is how an input queue says it is done).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave import errors
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_JOIN_POLL_SECS = 0.01  # how often join looks at its threads while none asked to stop


@tf_export("train.Coordinator")
class Coordinator:
    """A stop flag shared by threads, the first exception that set it, and the threads to join."""

    def __init__(self, clean_stop_exception_types: tuple | None = None) -> None:
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: tuple | None = None
        self._joined = False
        self._registered_threads: set[threading.Thread] = set()

    def _filter_exception(self, ex: Any) -> Any:
        """`ex` unless it is a clean stop (then None)."""
        error = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(error, self._clean_stop_exception_types) else ex

    def request_stop(self, ex: Any = None) -> None:
        """Ask every thread to stop; `ex` (an exception or a `sys.exc_info()` tuple), if the first one
        reported and not a clean stop, is what `join` re-raises. As TF's, an exception given alone is taken
        from `sys.exc_info()`, so it must be called in the handler of that exception (outside any handler
        TF's own message formatting fails with a TypeError). After `join`, the exception is raised here."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1].with_traceback(ex[2])
                if ex is not None:
                    raise sys.exc_info()[1]
            if self._stop_event.is_set():
                return
            if ex and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    tf_logging.info("Error reported to Coordinator: %s", str(ex[1]), exc_info=ex)
                    self._exc_info_to_raise = ex
                else:
                    tf_logging.info("Error reported to Coordinator: %s, %s", type(ex), str(ex))
                    self._exc_info_to_raise = sys.exc_info()
                if len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0] or \
                        not self._exc_info_to_raise[1]:
                    message = "ex must be a tuple or sys.exc_info must return the current exception: %s"
                    try:  # %-formatting with the tuple itself, as TF's: (None, None, None) fails as a TypeError
                        raise ValueError(message % self._exc_info_to_raise)  # noqa: UP031
                    except ValueError:
                        self._exc_info_to_raise = sys.exc_info()
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Forget a stop request and its exception, so the coordinator can be used again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """A block whose exception requests a stop (and is swallowed), as a thread's body wants."""
        try:
            yield
        except:  # noqa: E722 - TF's: any exception, reported with its traceback
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Block until a stop is requested (True) or `timeout` seconds pass (False)."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads: Any = None, stop_grace_period_secs: float = 120,
             ignore_live_threads: bool = False) -> None:
        """Wait for the threads (and the registered ones) to finish: until all are done or a stop is
        requested, then up to `stop_grace_period_secs` more. Re-raise the reported exception, else
        RuntimeError naming the threads still alive (unless `ignore_live_threads`)."""
        with self._lock:
            threads = self._registered_threads if threads is None else self._registered_threads | set(threads)
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(_JOIN_POLL_SECS):
            pass
        wait = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(wait)
            stop_grace_period_secs -= wait
            wait = max(min(2 * wait, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _reraise(self._exc_info_to_raise)
            if stragglers:
                if ignore_live_threads:
                    tf_logging.info("Coordinator stopped with threads still running: %s", " ".join(stragglers))
                else:
                    raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raise the exception reported with `request_stop`, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _reraise(self._exc_info_to_raise)


def _reraise(exc_info: tuple) -> None:
    """TF's six.reraise: a missing value is made by calling the type (an empty exc_info fails as TF's does)."""
    value = exc_info[1] if exc_info[1] is not None else exc_info[0]()
    raise value.with_traceback(exc_info[2])


@tf_export("train.LooperThread")
class LooperThread(threading.Thread):
    """A daemon thread that calls `run_loop` (or `target`) repeatedly, every `timer_interval_secs` if given,
    until its coordinator says stop; an exception in it requests the stop."""

    def __init__(self, coord: Coordinator, timer_interval_secs: float | None, target: Callable | None = None,
                 args: Any = None, kwargs: Any = None) -> None:
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord: Coordinator, timer_interval_secs: float | None, target: Callable, args: Any = None,
             kwargs: Any = None) -> LooperThread:
        """Start a LooperThread that calls `target(*args, **kwargs)`; returns it."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(next_time - time.time()):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once when the thread starts."""

    def stop_loop(self) -> None:
        """Called once when the thread stops."""

    def run_loop(self) -> None:
        """One iteration: calls `target` when one was given."""
        if self._target:
            self._target(*self._args, **self._kwargs)
