"""`tf.train.SessionRunHook` and the values a hook sees around each `MonitoredSession.run` call.

A hook is asked before every run what it wants fetched, fed and traced (`SessionRunArgs`); the
monitored session merges every hook's request with the caller's into one `Session.run`, then hands each
hook its own results (`SessionRunValues`). `SessionRunContext.request_stop` is how a hook ends the loop.
"""

from __future__ import annotations

import collections
from typing import Any

from tensorweave.platform.tf_export import tf_export


@tf_export("train.SessionRunHook")
class SessionRunHook:
    """Code run around the calls of a MonitoredSession: every method does nothing unless overridden."""

    def begin(self) -> None:
        """Called once before the session exists; the graph may still change here."""

    def after_create_session(self, session: Any, coord: Any) -> None:
        """Called when a new session is created (again after each recovery); the graph is final."""

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        """What to add to the coming `run` call (fetches, feeds, options), or None."""
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        """Called after each successful `run`, with this hook's fetched results."""

    def end(self, session: Any) -> None:
        """Called at the end of the session unless it ended with an exception."""


@tf_export("train.SessionRunArgs")
class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a `run` call: fetches (any fetch structure), feeds and RunOptions to merge."""

    __slots__ = ()

    def __new__(cls, fetches: Any, feed_dict: dict | None = None, options: Any = None) -> SessionRunArgs:
        return super().__new__(cls, fetches, feed_dict, options)


@tf_export("train.SessionRunContext")
class SessionRunContext:
    """The call being made (`original_args`), the session, and the stop flag hooks may raise."""

    def __init__(self, original_args: SessionRunArgs, session: Any) -> None:
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        """The fetches and feeds the caller passed to `run`."""
        return self._original_args

    @property
    def session(self) -> Any:
        """The session the run goes to: hooks may run extra ops in it."""
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """End the loop after this run: the session's `should_stop()` becomes True."""
        self._stop_requested = True


@tf_export("train.SessionRunValues")
class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """A hook's fetched results, the run's merged RunOptions, and its RunMetadata."""

    __slots__ = ()
