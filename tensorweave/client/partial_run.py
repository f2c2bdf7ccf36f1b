"""Partial runs (`Session.partial_run_setup` / `Session.partial_run`): one step fed and fetched in pieces.

TF starts the setup's executor at once and lets every node run as soon as its inputs exist, so each node
of the step runs at most once per handle, whatever the order of the calls. The same schedule is taken
here in rounds: at setup, and after each call's feeds, every node of the setup's subgraph that has not
run yet and that no unfed feed blocks runs, as one ordinary step of the runtime session (its plan cached
per signature like any other). Invariant between rounds: every value that a node still to run, or a
fetch not yet made, needs is held by the handle (fed values and outputs of nodes that already ran).
"""

from __future__ import annotations

import threading
from typing import Any

from tensorweave import errors
from tensorweave.framework.graph import Graph
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.runtime.prune import check_partial_run_setup, prune
from tensorweave.runtime.session_factory import PlanKey, SessionBackend


def _tensor_name(spec: str) -> str:
    node, index = parse_input(spec)
    return f"{node}:{index}"


class PartialRun:
    """The state behind one partial-run handle: what was fed and fetched, and what is left to run."""

    def __init__(self, graph: Graph, session: SessionBackend, feeds: list[str], fetches: list[str],
                 targets: list[str]) -> None:
        check_partial_run_setup(feeds, fetches, targets)
        node_defs = [op._node_def for op in graph.get_operations()]
        needed = {node.name for node in prune(GraphDef(node=node_defs), feeds, fetches, targets).node}
        self._graph = graph
        self._session = session
        self._lock = threading.Lock()
        self._pending_feeds = dict.fromkeys(feeds, True)  # name -> still to be fed
        self._pending_fetches = dict.fromkeys(fetches, True)  # name -> still to be fetched
        self._to_run: list[NodeDef] = [node for node in node_defs if node.name in needed]
        self._values: dict[str, Any] = {}
        self._carried_refs: set[str] = set()  # names in `_values` that hold a ref, not a value
        self._error: errors.OpError | None = None
        self._failed = False
        try:
            self._run_round()
        except errors.OpError as e:  # TF's setup returns; the failure surfaces on the next call
            self._error = e

    @property
    def over(self) -> bool:
        """A kernel failed, or every feed was fed and every fetch made: TF forgets the handle then."""
        return self._failed or (not any(self._pending_feeds.values()) and not any(self._pending_fetches.values()))

    def run(self, feed_names: tuple[str, ...], feed_values: list[Any], fetch_names: tuple[str, ...]) -> list[Any]:
        """Feed, run what the feeds unblock, and return the fetched values in order."""
        with self._lock:
            for name in feed_names:
                if name not in self._pending_feeds:
                    raise errors.InvalidArgumentError(
                        None, None, f"The feed {name} was not specified in partial_run_setup.")
                if not self._pending_feeds[name]:
                    raise errors.InvalidArgumentError(None, None, f"The feed {name} has already been fed.")
            for name in fetch_names:
                if name not in self._pending_fetches:
                    raise errors.InvalidArgumentError(
                        None, None, f"The fetch {name} was not specified in partial_run_setup.")
                if not self._pending_fetches[name]:
                    raise errors.InvalidArgumentError(None, None, f"The fetch {name} has already been fetched.")
            self._check_computable(set(feed_names), fetch_names)
            for name, value in zip(feed_names, feed_values):
                self._pending_feeds[name] = False
                self._values[name] = value
            try:
                if self._error is not None:
                    raise self._error
                self._run_round()
            except errors.OpError:
                self._failed = True
                raise
            results = [self._values[name] for name in fetch_names]
            for name in fetch_names:
                self._pending_fetches[name] = False
            self._forget_unneeded_values()
            return results

    def _check_computable(self, feeding: set[str], fetch_names: tuple[str, ...]) -> None:
        """TF's CheckFetch: no fetch may depend on a feed that is still to come after this call."""
        unfed = {name for name, pending in self._pending_feeds.items() if pending and name not in feeding}
        if not unfed:
            return
        by_name = {node.name: node for node in self._to_run}
        stack = [parse_input(name)[0] for name in fetch_names]
        visited = set(stack)
        while stack:
            node = by_name.get(stack.pop())
            if node is None:  # ran already, so it depends on no unfed feed
                continue
            for spec in node.input:
                source, index = parse_input(spec)
                tensor = f"{source}:{index}"
                if tensor in unfed:
                    raise errors.InvalidArgumentError(
                        None, None, f"Fetch {tensor} can't be computed from the feeds that have been fed so far.")
                if tensor not in self._pending_feeds and source not in visited:
                    visited.add(source)
                    stack.append(source)

    def _blocked(self) -> set[str]:
        """The nodes still to run that depend, through any edge, on a feed not yet fed."""
        blocked: set[str] = set()
        changed = True
        while changed:  # a fixed point, so loops (NextIteration back edges) are covered
            changed = False
            for node in self._to_run:
                if node.name not in blocked and any(self._input_blocked(spec, blocked) for spec in node.input):
                    blocked.add(node.name)
                    changed = True
        return blocked

    def _input_blocked(self, spec: str, blocked: set[str]) -> bool:
        source, index = parse_input(spec)
        if index >= 0:
            pending = self._pending_feeds.get(f"{source}:{index}")
            if pending is not None:
                return pending
        return source in blocked

    def _run_round(self) -> None:
        """Run every node that can run now, keeping the values that later rounds and fetches need."""
        blocked = self._blocked()
        runnable = [node for node in self._to_run if node.name not in blocked]
        if not runnable:
            return
        names = {node.name for node in runnable}
        feeds: dict[str, None] = {}
        for node in runnable:
            for spec in node.input:
                source, index = parse_input(spec)
                tensor = f"{source}:{index}"
                if index >= 0 and (tensor in self._pending_feeds or source not in names):
                    feeds[tensor] = None
        keep: dict[str, None] = {}
        for node in self._to_run:
            if node.name in blocked:
                for spec in node.input:
                    source, index = parse_input(spec)
                    tensor = f"{source}:{index}"
                    if index >= 0 and source in names and tensor not in self._pending_feeds:
                        keep[tensor] = None
        for name, pending in self._pending_fetches.items():
            if pending and parse_input(name)[0] in names:
                keep[name] = None
        self._carried_refs.update(name for name in keep if name not in self._pending_fetches
                                  and self._graph.get_tensor_by_name(name).dtype._is_ref_dtype)
        feed_names, fetch_names = tuple(feeds), tuple(keep)
        # A ref that a later round's node consumes is carried as the ref itself (the variable), as TF's one
        # step holds it: an update in a later round changes the variable, a read there sees its value then.
        key = PlanKey(feed_names, fetch_names, tuple(node.name for node in runnable), exact_nodes=True,
                      refs=frozenset(self._carried_refs.intersection(feed_names + fetch_names)))
        values = self._session.run(key, [self._values[name] for name in feed_names])
        self._to_run = [node for node in self._to_run if node.name in blocked]
        self._values.update(zip(fetch_names, values))

    def _forget_unneeded_values(self) -> None:
        needed = {name for name, pending in self._pending_fetches.items() if pending}
        needed.update(_tensor_name(spec) for node in self._to_run for spec in node.input if not spec.startswith("^"))
        self._values = {name: value for name, value in self._values.items() if name in needed}

