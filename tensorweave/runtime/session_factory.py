"""The Session interface between the client and its backends, and the factories chosen by target.

The client (client/session.py) talks to a `SessionBackend`: extend the graph, run a step, run exactly some
nodes (a partial-run round), reset containers, close. `DirectSession` (in-process) registers for the empty
target; the distributed runtime registers its `grpc://` factory the same way, so the client never names a
backend. As TF's SessionFactory registry.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tensorweave import errors
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef


class PlanKey(NamedTuple):
    """What identifies a step's plan: its feeds, fetches and targets ('node:index' and node names), and
    for a partial-run round the exact nodes to run (`targets`) and the tensors carried as refs. (A named
    tuple: made and hashed on every run, it must cost next to nothing.)"""

    feeds: tuple[str, ...]
    fetches: tuple[str, ...]
    targets: tuple[str, ...]
    exact_nodes: bool = False
    refs: frozenset[str] = frozenset()

    @classmethod
    def for_step(cls, feeds: tuple[str, ...], fetches: tuple[str, ...], targets: tuple[str, ...]) -> PlanKey:
        """The key of an ordinary step, made without the keyword machinery (it is made on every run)."""
        return _new_tuple(cls, (feeds, fetches, targets, False, _NO_REFS))


_new_tuple = tuple.__new__
_NO_REFS: frozenset[str] = frozenset()


class SessionBackend(abc.ABC):
    """A session's runtime: where its graph lives and its steps run."""

    @property
    @abc.abstractmethod
    def devices(self) -> list[DeviceBase]: ...

    @property
    @abc.abstractmethod
    def closed(self) -> bool: ...

    @property
    def wants_output_shapes(self) -> bool:
        """Whether `extend` wants each node's `_output_shapes` attr (a cost-model placer reads them)."""
        return False

    @abc.abstractmethod
    def extend(self, nodes: list[NodeDef]) -> None:
        """Add nodes to the session's graph."""

    def add_functions(self, bodies: dict[str, GraphDef], definitions: Sequence[Any] = ()) -> None:
        """Add functions (name -> body GraphDef with `_Arg`/`_Retval`) to the session's function library,
        before the nodes that call them; `definitions` are the FunctionDefs they came from, for a backend
        that sends them elsewhere. A backend without a library ignores them: its calls fail when they run."""
        del bodies, definitions

    @abc.abstractmethod
    def run(self, key: PlanKey, feed_values: Sequence[Any], step_stats: Any = None,
            timeout_in_ms: int = 0, options: Any = None, run_metadata: Any = None) -> list[Any]:
        """One step of the plan `key` with these feed values; the fetched values in order. A step still
        waiting after `timeout_in_ms` (0: the session's operation timeout, if any) fails with
        DeadlineExceededError. `options` are the caller's RunOptions; a backend whose partitions live
        elsewhere (grpc://) puts what its runtime reports of them (partition graphs, cost graph) in
        `run_metadata`, where an in-process one leaves it to `step_graphs`."""

    def run_repeated(self, key: PlanKey, max_runs: int) -> int:
        """Up to `max_runs` consecutive steps of `key`, which feeds and fetches nothing (a QueueRunner's
        enqueue op), each as `run` does it; how many ran (at least one), or the error of the one that failed
        after those before it. This backend runs one."""
        self.run(key, [])
        return 1

    @abc.abstractmethod
    def step_graphs(self, key: PlanKey) -> list[GraphDef]:
        """The partition graphs of the plan `key`, once it ran."""

    # Partial runs: a backend whose graph lives elsewhere (grpc://) runs them there, under the handle its
    # `partial_run_setup` returns; an in-process one returns None, and the client runs them in rounds of
    # exact-node steps (client/partial_run.py).
    runs_partial_runs = False

    def partial_run_setup(self, feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str]) -> str:
        raise NotImplementedError

    def partial_run(self, handle: str, feeds: Sequence[str], feed_values: Sequence[Any],
                    fetches: Sequence[str]) -> list[Any]:
        raise NotImplementedError

    def make_callable(self, options: Any) -> Any:
        """The handle of a callable (TF's Session::MakeCallable) for `options` (CallableOptions): here its
        plan key and run options, each call one step; a remote master registers it and answers a number."""
        if options.tensor_connection:
            raise errors.UnimplementedError(None, None, "CallableOptions.tensor_connection is not supported")
        key = PlanKey.for_step(tuple(options.feed), tuple(options.fetch), tuple(options.target))
        return key, options.run_options

    def run_callable(self, handle: Any, feed_values: Sequence[Any], run_metadata: Any = None) -> list[Any]:
        """One step of the callable `handle` with one value per feed; the fetched values in order."""
        key, run_options = handle
        if len(feed_values) != len(key.feeds):
            raise errors.InvalidArgumentError(None, None, f"Invalid number of feed tensors. Expected: "
                                              f"{len(key.feeds)}. Got: {len(feed_values)}")
        step_stats = run_metadata.step_stats if run_metadata is not None and run_options.trace_level else None
        return self.run(key, feed_values, step_stats, run_options.timeout_in_ms, run_options, run_metadata)

    def release_callable(self, handle: Any) -> None:
        """Forget the callable `handle` (TF's Session::ReleaseCallable): here it holds nothing to release."""
        del handle

    @abc.abstractmethod
    def container_names(self) -> list[str]: ...

    @abc.abstractmethod
    def reset_containers(self, containers: list[str]) -> None: ...

    @abc.abstractmethod
    def close(self) -> None: ...


Factory = Callable[[str, Any], SessionBackend]
_factories: dict[str, tuple[Callable[[str], bool], Factory]] = {}


def register_session_factory(name: str, accepts: Callable[[str], bool], factory: Factory) -> None:
    """Make `factory(target, config)` the backend for the targets `accepts` takes ('DIRECT_SESSION', ...)."""
    _factories[name] = (accepts, factory)


def new_session(target: str, config: Any = None) -> SessionBackend:
    """The backend for `target`, from the first registered factory that accepts it."""
    for accepts, factory in _factories.values():
        if accepts(target):
            return factory(target, config)
    raise errors.NotFoundError(
        None, None, f'No session factory registered for the given session options: {{target: "{target}"}} '
        f"Registered factories are {{{', '.join(sorted(_factories))}}}.")
