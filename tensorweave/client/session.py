"""`tf.Session` and `tf.InteractiveSession`: the client of TF1's session interface.

The client turns Python fetches (nested lists, tuples, namedtuples, dicts of Tensors, Operations, names
and Variables) into tensor names and target ops, checks and converts feeds (dtype and shape, TF's
messages), extends the runtime session with the ops created since the last run, and rebuilds the fetch
structure from the results. Runtime errors come back naming a node; here they are interpolated with the
file and line where user code created it.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.client.config import session_config
from tensorweave.client.partial_run import PartialRun
from tensorweave.client.tensor_handle import TensorHandle
from tensorweave.formats import protos
from tensorweave.framework import dtypes, function_def, nest
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    _default_graph_stack,
    _default_session_stack,
    get_default_graph,
)
from tensorweave.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from tensorweave.framework.session_state import KeptTensor, is_handle_op
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.ops import session_ops
from tensorweave.ops.list_ops import TensorList
from tensorweave.ops.ragged_tensor import RaggedTensor, RaggedTensorValue
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.runtime import direct_session  # noqa: F401 - registers the in-process backend
from tensorweave.runtime.session_factory import PlanKey, new_session
from tensorweave.runtime.step_stats import cost_graph

_live_sessions: weakref.WeakSet = weakref.WeakSet()
_DEAD_HANDLES_THRESHOLD = 10  # dropped TensorHandles deleted together, as TF's
# TF's error_interpolation tags, {{type name}}, and the node of a session error's first '[[' (session.py's
# _NODEDEF_NAME_RE)
_NODE_TAG = re.compile(r"\{\{node ([A-Za-z0-9_.][A-Za-z0-9_.\-/]*?)\}\}")
_FUNCTION_TAG = re.compile(r"\{\{function_node [A-Za-z0-9_.][A-Za-z0-9_.\-/]*?\}\}")
_FIRST_NODE = re.compile(r"\[\[(?:Node: )?(?:\{\{node )?([^} ]*)")


class _DeviceAttributes:
    """What `Session.list_devices()` returns per device, as TF's `_DeviceAttributes` (read-only properties)."""

    def __init__(self, name: str, device_type: str, memory_limit_bytes: int, incarnation: int) -> None:
        self._name = name
        self._device_type = device_type
        self._memory_limit_bytes = memory_limit_bytes
        self._incarnation = incarnation

    @property
    def name(self) -> str:
        return self._name

    @property
    def device_type(self) -> str:
        return self._device_type

    @property
    def memory_limit_bytes(self) -> int:
        return self._memory_limit_bytes

    @property
    def incarnation(self) -> int:
        return self._incarnation

    def __repr__(self) -> str:
        return f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, {self.incarnation})"


class _FetchPlan:
    """The flattened form of one fetch structure: unique tensor names, target ops, and a rebuilder."""

    def __init__(self, graph: Graph, fetches: Any) -> None:
        self.graph = graph
        self.tensors: list[Tensor] = []
        self.targets: list[str] = []
        self._tensor_index: dict[Tensor, int] = {}
        self.structure = self._flatten(fetches)

    def _flatten(self, fetch: Any) -> Any:
        """Returns a tree whose leaves are result indices (ints) or None for operations."""
        if fetch is None:
            raise TypeError('Argument `fetch` = None has invalid type "NoneType". Cannot be None')
        if isinstance(fetch, (list, tuple)) and not isinstance(fetch, str):
            return ("seq", type(fetch), [self._flatten(f) for f in fetch])
        if isinstance(fetch, Mapping):
            return ("map", type(fetch), [(k, self._flatten(v)) for k, v in fetch.items()])
        if isinstance(fetch, SparseTensor):  # fetched as a SparseTensorValue of its three tensors
            return ("seq", SparseTensorValue, [self._flatten(t) for t in (fetch.indices, fetch.values,
                                                                          fetch.dense_shape)])
        if isinstance(fetch, RaggedTensor):  # a RaggedTensorValue of its values and row_splits
            return ("call", RaggedTensorValue, [self._flatten(fetch.values), self._flatten(fetch.row_splits)])
        if isinstance(fetch, IndexedSlices):  # an IndexedSlicesValue (dense_shape None when it has none)
            parts = (fetch.values, fetch.indices, fetch.dense_shape)
            return ("seq", IndexedSlicesValue, [None if t is None else self._flatten(t) for t in parts])
        try:
            element = self.graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}" must be a '
                            f"string or Tensor. ({e})") from None
        except (ValueError, KeyError) as e:
            raise ValueError(f"Argument `fetch` = {fetch} cannot be interpreted as a Tensor. ({e})") from None
        if not self.graph.is_fetchable(element):
            op = element if isinstance(element, Operation) else element.op
            raise errors.InaccessibleTensorError(
                f"Operation {op.name} has been marked as not fetchable. Typically this happens when it is defined "
                "in another function or code block. Use return values, explicit Python locals or TensorFlow "
                "collections to access it.")
        if isinstance(element, Operation):
            if element.name not in self.targets:
                self.targets.append(element.name)
            return None
        index = self._tensor_index.get(element)
        if index is None:
            index = self._tensor_index[element] = len(self.tensors)
            self.tensors.append(element)
        return index

    def build(self, values: list[Any]) -> Any:
        return _rebuild(self.structure, values)


def _rebuild(node: Any, values: list[Any]) -> Any:
    if node is None:
        return None
    if isinstance(node, int):
        return values[node]
    kind, cls, children = node
    if kind == "call":
        return cls(*[_rebuild(c, values) for c in children])
    if kind == "seq":
        items = [_rebuild(c, values) for c in children]
        if cls is list:
            return items
        if hasattr(cls, "_fields"):  # namedtuple
            return cls(*items)
        return cls(items)
    items = [(k, _rebuild(c, values)) for k, c in children]
    if cls is dict:
        return dict(items)
    try:
        return cls(items)
    except TypeError:
        result = cls.__new__(cls)
        result.update(items)
        return result


def _handle_string(value: Any) -> str:
    """A fetched session handle: the string of GetSessionHandle, or the kept tensor of GetSessionHandleV2."""
    return value.handle if isinstance(value, KeptTensor) else value


class _Callable:
    """TF's BaseSession._Callable: call it with one value per feed (and `run_metadata=`) for the fetches'
    values as a list; the runtime's handle is released when it goes."""

    def __init__(self, session: BaseSession, callable_options: Any) -> None:
        self._session = session
        self._handle = None
        try:
            self._handle = session._session.make_callable(callable_options)
        except errors.OpError as e:
            raise session._raw(e) from e.__cause__

    def __call__(self, *args: Any, **kwargs: Any) -> list[Any]:
        session = self._session
        if session._closed:
            raise errors.CancelledError(None, None, "Session has been closed.")
        # as TF's TF_SessionRunCallable converts them: each as NumPy makes it, whatever the feed's dtype
        values = [np.asarray(value, dtype=object) if isinstance(value, (str, bytes)) else np.asarray(value)
                  for value in args]
        run_metadata = kwargs.get("run_metadata")
        reported = protos.RunMetadata() if run_metadata is not None else None
        try:
            results = session._session.run_callable(self._handle, _runtime_feed_values(values), reported)
        except errors.OpError as e:
            raise session._raw(e) from e.__cause__
        if run_metadata is not None:
            run_metadata.ParseFromString(reported.SerializeToString())
        return [_fetched_value(value) for value in results]

    def __del__(self) -> None:
        if self._handle is not None and not self._session._closed:
            try:
                self._session._session.release_callable(self._handle)
            except Exception:  # interpreter shutdown, or a master that is gone
                pass


def _fetched_value(value: Any) -> Any:
    """What the caller gets: numpy scalars for 0-d, quantized values as their plain integer type (TF's
    fetch drops the quantized wrapper), strings as an object array of bytes (whatever array of bytes a
    kernel made), and never an array the runtime still holds. A variant (a TensorList) has no NumPy form:
    TF fails the run."""
    if type(value) is TensorList:
        raise errors.InternalError(None, None, "Tensorflow type 21 not convertible to numpy dtype.")
    if type(value) is np.void:  # a 0-d quantized value
        return value[0]
    if type(value) is np.ndarray:
        if value.dtype.names:
            value = value.view(value.dtype[0])
        if value.dtype.kind == "S":
            value = value.astype(object)
        if value.ndim == 0:
            return value[()]
        if not value.flags.writeable:
            return value.copy()
    return value


def _check_target(target: str) -> None:
    """The in-process target '' and grpc:// ones run (the distributed runtime registers the latter); any
    other scheme has no session factory, with TF's error."""
    if target and not target.startswith("grpc://"):
        raise errors.NotFoundError(
            None, None, f'No session factory registered for the given session options: {{target: "{target}"}} '
            "Registered factories are {GRPC_SESSION, DIRECT_SESSION}.")


class BaseSession:
    """A session over a graph in this process (the local implementation of the papers)."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: Any = None) -> None:
        if graph is None:
            graph = get_default_graph()
        elif not isinstance(graph, Graph):
            raise TypeError(f'Argument `graph` must be a tf.Graph, but got "{type(graph).__name__}"')
        if not isinstance(target, (str, bytes)):
            message = f'Argument `target` must be a string, but got "{type(target).__name__}"'
            if isinstance(target, protos.ConfigProto):
                message += '. Did you do "Session(config)" instead of "Session(config=config)"?'
            raise TypeError(message)
        if config is not None and not isinstance(config, protos.ConfigProto):
            raise TypeError(f'Argument `config` must be a tf.ConfigProto, but got "{type(config).__name__}"')
        if isinstance(target, bytes):
            target = target.decode()
        _check_target(target)
        self._target = target
        self._graph = graph
        if config is None:  # TF's session takes its eager context's config, which tf.config sets
            config = session_config()
        self._config = config
        self._session = new_session(target, config)
        self._runs_per_step: dict[PlanKey, int] = {}  # for GraphOptions.build_cost_model's schedule
        self._closed = False
        self._extended = 0
        self._functions_sent = 0  # of the graph's library, in the session's
        self._extend_lock = threading.Lock()
        self._feed_info: dict[Tensor, tuple] = {}
        self._partial_runs: dict[str, PartialRun] = {}
        self._incarnations: dict[str, int] = {}
        self._partial_run_ids = itertools.count()
        self._default_session_context: Any = None
        self._dead_handles: list[str] = []
        self._dead_handles_lock = threading.Lock()
        _live_sessions.add(self)

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self) -> Any:
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> bytes:
        return self._target.encode()

    def list_devices(self) -> list[_DeviceAttributes]:
        if self._closed:
            raise errors.CancelledError(None, None, "Session has been closed.")
        return [_DeviceAttributes(d.name, d.device_type, d.memory_limit_bytes, self._incarnation(d.name))
                for d in self._session.devices]

    def _incarnation(self, device_name: str) -> int:
        """The device's incarnation: a random nonzero int64 drawn once, which TF uses to tell restarts apart."""
        incarnation = self._incarnations.get(device_name)
        if incarnation is None:
            incarnation = self._incarnations[device_name] = random.randrange(1, 2**64) - 2**63 or 1
        return incarnation

    def as_default(self) -> Any:
        """A context manager that makes this session the default for `eval()` and `run()`."""
        return _SessionDefault(self)

    def register_dead_handle(self, handle: str) -> None:
        """Queue the kept tensor of a dropped TensorHandle; every tenth one, delete those queued in one run."""
        with self._dead_handles_lock:
            self._dead_handles.append(handle)
            if len(self._dead_handles) < _DEAD_HANDLES_THRESHOLD:
                return
            dead, self._dead_handles = self._dead_handles, []
        if self._closed:
            return
        feeds, deleters = {}, []
        for index, dead_handle in enumerate(dead):
            holder, deleter = session_ops.handle_deleter(self._graph, index, dead_handle)
            feeds[holder] = dead_handle
            deleters.append(deleter)
        self.run(deleters, feed_dict=feeds)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._partial_runs.clear()
            self._session.close()

    def __enter__(self) -> BaseSession:
        self._default_graph_context = self._graph.as_default()
        self._default_graph_context.__enter__()
        self._default_session_context = self.as_default()
        self._default_session_context.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, exc_tb: Any) -> None:
        self._default_session_context.__exit__(exc_type, exc_value, exc_tb)
        self._default_graph_context.__exit__(exc_type, exc_value, exc_tb)
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # -- run ----------------------------------------------------------------------------------------

    def run(self, fetches: Any, feed_dict: dict | None = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Run the ops and evaluate the tensors in `fetches`, with `feed_dict` substituted.

        As TF's does, it takes any false `options` or `run_metadata` for none, and reads other options
        through their SerializeToString (so a wrong kind is TF's AttributeError, before the step); metadata
        that is not a RunMetadata gets the step's through its ParseFromString, after the step.
        """
        options = _run_options(options) if options else None
        if not run_metadata:
            run_metadata = None
        elif not isinstance(run_metadata, protos.RunMetadata):
            metadata = protos.RunMetadata()
            result = self.run(fetches, feed_dict, options, metadata)
            _parse_into(run_metadata, metadata.SerializeToString())
            return result
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph before calling run().")
        feed_names, fed = self._convert_feeds(feed_dict) if feed_dict else ((), [])
        if isinstance(fetches, Tensor) and fetches.graph is self._graph and not self._graph._unfetchable_ops:
            plan = None
            fetch_tensors: list[Tensor] = [fetches]
            targets: tuple[str, ...] = ()
        else:
            plan = _FetchPlan(self._graph, fetches)
            fetch_tensors = plan.tensors
            targets = tuple(plan.targets)
        fetch_names = tuple(t.name for t in fetch_tensors)
        if (not targets and (not fetch_names or fetch_names[0] in feed_names)
                and set(fetch_names).issubset(feed_names)):
            results = [None] * len(fetch_names)  # every fetch is fed: TF asks the runtime nothing
            if run_metadata is not None:
                run_metadata.Clear()
        else:
            if len(self._graph._operations) != self._extended:  # ops were added since the last run
                try:
                    self._extend_graph()
                except errors.OpError as e:  # a node no kernel supports: TF's placer fails inside the run
                    raise self._interpolate(e) from e.__cause__
            # a fed fetch is the fed value: TF's session asks the runtime only for the others
            asked = tuple(name for name in fetch_names if name not in feed_names) if feed_names else fetch_names
            key = PlanKey.for_step(feed_names, asked, targets)
            traced = run_metadata is not None and options is not None and options.trace_level > 0
            costed = self._builds_cost_model(key) and run_metadata is not None
            step_stats = protos.StepStats() if traced or costed else None
            feed_values = _runtime_feed_values(fed) if fed else fed
            reported = protos.RunMetadata() if run_metadata is not None else None
            try:
                results = self._session.run(key, feed_values, step_stats,
                                            options.timeout_in_ms if options is not None else 0, options, reported)
            except errors.OpError as e:
                raise self._interpolate(e) from e.__cause__
            if run_metadata is not None:
                self._fill_run_metadata(run_metadata, options, step_stats if traced else None,
                                        step_stats if costed else None, key, reported)
            try:
                results = [_fetched_value(v) for v in results]
            except errors.OpError as e:  # TF's fetch conversion fails inside TF_SessionRun: the run's header
                raise self._interpolate(e) from None
            if len(asked) != len(fetch_names):
                computed = iter(results)
                results = [None if name in feed_names else next(computed) for name in fetch_names]
            if any(is_handle_op(t.op.type) for t in fetch_tensors):
                results = [TensorHandle(_handle_string(v), t.op.inputs[0].dtype, self)
                           if is_handle_op(t.op.type) else v for v, t in zip(results, fetch_tensors)]
        if feed_names:
            _substitute_fed(results, fetch_names, feed_names, fed)
        return results[0] if plan is None else plan.build(results)

    def _builds_cost_model(self, key: PlanKey) -> bool:
        """Whether this run of step `key` returns a cost graph: with GraphOptions.build_cost_model = every,
        TF's DirectSession builds one on the n-th run of a step (n counted per step) when n > after and
        n - after is a multiple of every (build_cost_model_after = after)."""
        options = self._config.graph_options if self._config is not None else None
        if options is None or options.build_cost_model <= 0:
            return False
        runs = self._runs_per_step[key] = self._runs_per_step.get(key, 0) + 1
        after = options.build_cost_model_after
        return runs > after and (runs - after) % options.build_cost_model == 0

    def _fill_run_metadata(self, run_metadata: Any, options: Any, step_stats: Any, cost_stats: Any, key: PlanKey,
                           reported: Any) -> None:
        """Replace the caller's metadata with the step's, as TF parses the runtime's into it after a step: what
        the backend `reported` (a remote master's partition graphs and cost graph), else what its plan shows:
        the traced `step_stats`, and the cost graph measured by `cost_stats` on the runs the cost model takes."""
        run_metadata.Clear()
        graphs = self._session.step_graphs(key)
        if step_stats is not None:
            run_metadata.step_stats.CopyFrom(step_stats)
        if cost_stats is not None and graphs:
            run_metadata.cost_graph.CopyFrom(cost_graph(graphs, cost_stats))
        if options is not None and options.output_partition_graphs:
            for graph_def in graphs:
                run_metadata.partition_graphs.add().CopyFrom(graph_def.to_proto())
        run_metadata.MergeFrom(reported)

    def make_callable(self, fetches: Any, feed_list: Any = None, accept_options: bool = False) -> Any:
        """A function that runs `fetches`, TF's way: with a `feed_list` it takes one value per feed and any
        `run` keyword; without one, fetches are checked now and it takes `options` and `run_metadata`
        only when `accept_options`."""
        if feed_list is not None:
            if not isinstance(feed_list, (list, tuple)):
                raise TypeError(f"Argument `feed_list` must be a list or tuple. Received: feed_list={feed_list}")

            def run_with_feeds(*feed_args: Any, **kwargs: Any) -> Any:
                return self.run(fetches, feed_dict=dict(zip(feed_list, feed_args)), **kwargs)

            return run_with_feeds
        plan = _FetchPlan(self._graph, fetches)
        if len(self._graph._operations) != self._extended:
            self._extend_graph()
        empty = not plan.tensors and not plan.targets
        key = PlanKey.for_step((), tuple(t.name for t in plan.tensors), tuple(plan.targets))

        def run_step_with_options(options: Any = None, run_metadata: Any = None) -> Any:
            if self._closed:  # TF's callable runs in the runtime session, which reports it so
                raise errors.CancelledError(None, None, "Session has been closed.")
            if empty:
                raise errors.InvalidArgumentError(None, None, "Must specify at least one target to fetch or execute.")
            if options or run_metadata:
                return self.run(fetches, options=options, run_metadata=run_metadata)
            # the fetches were resolved above: a step pays only for the runtime (a QueueRunner's loop calls this)
            if len(self._graph._operations) != self._extended:
                self._extend_graph()
            try:
                results = self._session.run(key, [])
            except errors.OpError as e:
                raise self._raw(e) from e.__cause__
            return plan.build([_fetched_value(v) for v in results])

        if accept_options:
            return run_step_with_options

        def run_step() -> Any:
            return run_step_with_options()

        return run_step

    def _make_callable_from_options(self, callable_options: Any) -> _Callable:
        """A callable for a CallableOptions (feeds, fetches and targets by name, run options): TF's private API,
        which Keras's graph-mode functions use; on a grpc:// session the master registers it once."""
        if len(self._graph._operations) != self._extended:
            self._extend_graph()
        return _Callable(self, callable_options)

    def _repeating_callable(self, op: Any) -> Callable[[int], int]:
        """For a QueueRunner's loop: a function that runs `op` up to n times in a row and returns how many runs
        it made (the runtime may make several at once, each as one `run`; at least one), or raises the error of
        the run that failed."""
        plan = _FetchPlan(self._graph, op)
        if len(self._graph._operations) != self._extended:
            self._extend_graph()
        key = PlanKey.for_step((), tuple(t.name for t in plan.tensors), tuple(plan.targets))

        def run_repeated(max_runs: int) -> int:
            if self._closed:
                raise errors.CancelledError(None, None, "Session has been closed.")
            if len(self._graph._operations) != self._extended:
                self._extend_graph()
            try:
                return self._session.run_repeated(key, max_runs)
            except errors.OpError as e:  # as the callable TF's QueueRunner makes reports it
                raise self._raw(e) from e.__cause__

        return run_repeated

    def partial_run_setup(self, fetches: Any, feeds: Any = None) -> str:
        """Set up a step whose feeds and fetches come in several `partial_run` calls; returns its handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph before calling run().")
        feed_names = []
        for feed in feeds if isinstance(feeds, (list, tuple)) else [] if feeds is None else [feeds]:
            try:
                tensor = self._graph.as_graph_element(feed, allow_tensor=True, allow_operation=False)
            except (TypeError, ValueError, KeyError) as e:
                message = e.args[0] if e.args else e
                raise type(e)(f"Cannot interpret argument `feed` key as Tensor: {message}") from None
            feed_names.append(tensor.name)
        plan = _FetchPlan(self._graph, fetches)
        if len(self._graph._operations) != self._extended:
            try:  # TF's setup extends (and places) inside its call: its errors read as a run's
                self._extend_graph()
            except errors.OpError as e:
                raise self._interpolate(e) from e.__cause__
        fetch_names = [t.name for t in plan.tensors]
        if self._session.runs_partial_runs:  # the runtime keeps the step (a master's RunState)
            try:
                return self._session.partial_run_setup(feed_names, fetch_names, plan.targets)
            except errors.OpError as e:
                raise self._interpolate(e) from e.__cause__
        try:
            state = PartialRun(self._graph, self._session, feed_names, fetch_names, plan.targets)
        except errors.OpError as e:
            raise self._interpolate(e) from e.__cause__
        handle = (f"{','.join(feed_names)}->{','.join(fetch_names)}/{','.join(plan.targets)}/1/;"
                  f"{next(self._partial_run_ids)}")  # TF's form: the step's signature, then a unique id
        self._partial_runs[handle] = state
        return handle

    def partial_run(self, handle: str | None, fetches: Any, feed_dict: dict | None = None) -> Any:
        """Feed more of a partial run's feeds and fetch more of its fetches (a plain `run` without a handle)."""
        if handle is None:
            return self.run(fetches, feed_dict)
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_names, fed = self._convert_feeds(feed_dict) if feed_dict else ((), [])
        plan = _FetchPlan(self._graph, fetches)
        if plan.targets:
            operations = [self._graph.get_operation_by_name(name) for name in plan.targets]
            raise RuntimeError(f"partial_run() requires empty `target_list`. Received: target_list={operations} "
                               "(non-empty)")
        fetch_names = tuple(t.name for t in plan.tensors)
        if not fetch_names and not feed_names:
            return plan.build([])
        state = self._partial_runs.get(handle)
        if state is None and not self._session.runs_partial_runs:
            raise errors.InvalidArgumentError(
                None, None, "Graph execution error:\n\nMust run 'setup' before performing partial runs!")
        try:
            if state is None:
                results = self._session.partial_run(handle, feed_names, _runtime_feed_values(fed), fetch_names)
            else:
                results = state.run(feed_names, _runtime_feed_values(fed), fetch_names)
            values = [_fetched_value(v) for v in results]
        except errors.OpError as e:
            raise self._interpolate(e) from e.__cause__
        finally:
            if state is not None and state.over:
                self._partial_runs.pop(handle, None)
        return plan.build(values)

    def _extend_graph(self) -> None:
        with self._extend_lock:
            ops = self._graph._operations_since(self._extended)
            for op in ops:  # TF's graph constructor checks every edge when the session takes the graph
                if op._input_mismatches:
                    raise errors.InvalidArgumentError(None, None, op._input_mismatches[min(op._input_mismatches)])
            library = self._graph._function_library()
            if len(library) != self._functions_sent:
                new = library[self._functions_sent:]
                self._session.add_functions(function_def.function_bodies(new, library), new)
                self._functions_sent = len(library)
            if ops:
                nodes = function_def.calls_by_name([op._node_def for op in ops],
                                                   {n: f.definition for n, f in self._graph._functions.items()})
                if self._session.wants_output_shapes:
                    nodes = [dataclasses.replace(node, attr={**node.attr, "_output_shapes": [t.shape for t in op.outputs]})
                             for node, op in zip(nodes, ops)]
                self._session.extend(nodes)
                self._extended += len(ops)

    def _convert_feeds(self, feed_dict: dict) -> tuple[tuple[str, ...], list[np.ndarray]]:
        """Feed names, and the converted arrays as a fetch of a fed tensor returns them."""
        names, fed = [], []
        for key, value in _flatten_feed_dict(feed_dict):
            info = self._feed_info.get(key) if isinstance(key, Tensor) else None
            if info is None or info[0]._shape is not info[3]:  # new key, or set_shape since it was cached
                info = self._feed_key_info(key)
            tensor, name, np_dtype, _, dims = info
            if isinstance(value, TensorHandle):
                value = value.to_numpy_array()
            if session_ops.is_handle_feeder(tensor):  # where the handle's tensor lives: TF checks it parses
                session_ops.handle_device(value)
            if isinstance(value, Tensor):
                raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                                "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, "
                                f"the tensor object was {value} which was passed to the argument `feed_dict` with "
                                f"key {key}.")
            array = _feed_array(value, tensor, np_dtype)
            if dims is not None and not _shape_matches(dims, array.shape):
                raise ValueError(f"Cannot feed value of shape {array.shape!r} for Tensor {name}, which has "
                                 f"shape {tensor.shape}")
            if tensor in self._graph._unfeedable_tensors:
                raise ValueError(f"Tensor {tensor.name} may not be fed.")
            names.append(name)
            fed.append(array)
        if len(names) > 1 and len(set(names)) != len(names):  # one tensor under two keys: the last wins
            last = {name: i for i, name in enumerate(names)}
            names, fed = ([items[i] for i in last.values()] for items in (names, fed))
        return tuple(names), fed

    def _feed_key_info(self, key: Any) -> tuple:
        try:
            tensor = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (TypeError, ValueError, KeyError) as e:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e.args[0] if e.args else e}") from None
        shape = tensor.shape
        dims = None if shape.ndims is None else tuple(shape.as_list())
        base = tensor.dtype.base_dtype
        np_dtype = object if base == dtypes.string else base.as_numpy_dtype
        info = (tensor, tensor.name, np_dtype, shape, dims)
        self._feed_info[tensor] = info
        if isinstance(key, Tensor) and key is not tensor:
            self._feed_info[key] = info
        return info

    def _interpolate(self, error: errors.OpError) -> errors.OpError:
        """The error as TF 2's Session raises it (its error_interpolation.interpolate_graph): 'Graph execution
        error:', then for each node of the graph the message tags ({{node NAME}}) the user code lines that
        defined it, then the message without its function tags; its op and node_def are those of the node in
        the message's first '[[' tag (none without one)."""
        message = error.message
        sections = ["Graph execution error:", ""]
        for name in _NODE_TAG.findall(message):
            try:
                op = self._graph.get_operation_by_name(name)
            except (KeyError, ValueError):  # a node of a function's body
                continue
            frames = [f'    File "{file}", line {line}, in {function}' for file, line, function, _ in op.traceback]
            sections += [f"Detected at node {name!r} defined at (most recent call last):", *frames, f"Node: {name!r}"]
        sections.append(_FUNCTION_TAG.sub("", message).strip())
        op = None
        first = _FIRST_NODE.search(message)
        if first is not None:
            try:
                op = self._graph.get_operation_by_name(first.group(1))
            except (KeyError, ValueError):
                pass
        return type(error)(None if op is None else op.node_def, op, "\n".join(sections))

    @staticmethod
    def _raw(error: errors.OpError) -> errors.OpError:
        """The error as TF's callables (TF_SessionRunCallable) raise it: the runtime's message, no op."""
        return type(error)(None, None, error.message)

    @staticmethod
    def reset(target: str, containers: list[str] | None = None, config: Any = None) -> None:
        """Clear the named resource containers (all when None) of the sessions on `target`, and close them:
        their later runs fail with CancelledError, as TF's DirectSessionFactory::Reset leaves them."""
        _check_target(target)
        if target:  # the master clears the containers of every task, and closes its sessions
            backend = new_session(target, config)
            try:
                backend.reset_containers(list(containers or []))
            finally:
                backend.close()
            return
        for session in list(_live_sessions):
            direct = session._session
            if not session._target and not direct.closed:
                names = containers
                if names is None:
                    names = direct.container_names()
                direct.reset_containers(names)
                direct.close()


def _run_options(options: Any) -> Any:
    """`options` as a RunOptions: TF serializes what it is given and parses the bytes as a RunOptions."""
    if isinstance(options, protos.RunOptions):
        return options
    serialize = getattr(options, "SerializeToString", None)
    if serialize is None:
        raise AttributeError(f"'{type(options).__name__}' object has no attribute 'SerializeToString'")
    data = serialize()
    if isinstance(data, str):  # TF's compat.as_bytes
        data = data.encode("utf-8")
    elif not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"Expected binary or unicode string, got {data!r}")
    try:
        return protos.RunOptions.FromString(bytes(data))
    except Exception:  # protobuf's DecodeError
        raise errors.InvalidArgumentError(None, None, "Unparseable RunOptions proto") from None


def _parse_into(run_metadata: Any, data: bytes) -> None:
    """Hand the step's RunMetadata bytes to a metadata object that is not a RunMetadata, as TF does."""
    parse = getattr(run_metadata, "ParseFromString", None)
    if parse is None:
        raise AttributeError(f"'{type(run_metadata).__name__}' object has no attribute 'ParseFromString'")
    parse(data)


def _flatten_feed_dict(feed_dict: Any) -> list[tuple[Any, Any]]:
    """(key, value) pairs; a nested key (tuple) feeds its flattened tensors from the flattened value, as TF's
    `nest.flatten_dict_items` does, a SparseTensor key its three tensors from a SparseTensorValue or an
    (indices, values, dense_shape) triple, and a RaggedTensor key its component tensors from a RaggedTensorValue."""
    if not isinstance(feed_dict, Mapping):
        raise TypeError(f"FlattenDictItems: 'dict' must be a dictionary or collection.Mapping type object, "
                        f"instead of '{type(feed_dict).__name__}'.")
    for key in feed_dict:
        if isinstance(key, (tuple, SparseTensor, RaggedTensor)):
            break
    else:
        return list(feed_dict.items())
    pairs: dict[Any, Any] = {}
    for key, value in feed_dict.items():
        if isinstance(key, tuple):
            keys, values = nest.flatten(key), nest.flatten(value)
            if len(keys) != len(values):
                raise ValueError(f"Could not flatten dictionary. Key had {len(keys)} elements, but value had "
                                 f"{len(values)} elements. Key: {keys}, value: {values}.")
        else:
            keys, values = [key], [value]
        if any(isinstance(k, (SparseTensor, RaggedTensor)) for k in keys):
            keys, values = _expand_composite_feeds(keys, values)
        for flat_key, flat_value in zip(keys, values):
            if flat_key in pairs:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {flat_key}")
            pairs[flat_key] = flat_value
    return list(pairs.items())


def _expand_composite_feeds(keys: list[Any], values: list[Any]) -> tuple[list[Any], list[Any]]:
    """Each SparseTensor key replaced by its three tensors, fed from the (first) three parts of its value, and
    each RaggedTensor key by its flat values and row splits, fed from a RaggedTensorValue."""
    flat_keys, flat_values = [], []
    for key, value in zip(keys, values):
        if isinstance(key, SparseTensor):
            parts = list(value)[:3]  # TF zips the value's items with the three tensors, so a dense array feeds
            flat_keys += [key.indices, key.values, key.dense_shape][:len(parts)]  # its rows to them
            flat_values += parts
        elif isinstance(key, RaggedTensor):
            if not isinstance(value, RaggedTensorValue) or value.ragged_rank != key.ragged_rank:
                raise ValueError(f"Cannot feed value {value} for RaggedTensor {key}: expected a RaggedTensorValue "
                                 f"of ragged_rank {key.ragged_rank}")
            flat_keys += [key.flat_values, *key.nested_row_splits]
            flat_values += [value.flat_values, *value.nested_row_splits]
        else:
            flat_keys.append(key)
            flat_values.append(value)
    return flat_keys, flat_values


def _feed_array(value: Any, tensor: Tensor, np_dtype: Any) -> np.ndarray:
    """The fed value as an array of the tensor's dtype, as TF converts it: zero-copy when it already is one."""
    if type(value) is np.ndarray and value.dtype == np_dtype:
        return value
    try:
        if isinstance(value, int) and _int_changes_in(np_dtype, value):
            raise OverflowError(value)
        if np_dtype is not object and np.issubdtype(np_dtype, np.number):
            return np.asarray(value).astype(np_dtype, copy=False)  # TF's cast: out-of-range values wrap
        return np.asarray(value, dtype=np_dtype)
    except OverflowError as e:
        raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type "
                        f"{np_dtype}. Try explicitly setting the type of the feed tensor to a larger type (e.g. "
                        "int64).") from e


def _int_changes_in(np_dtype: Any, value: int) -> bool:
    """TF refuses a Python int feed that its tensor's dtype cannot hold exactly (a string tensor holds none)."""
    if np_dtype is object:
        return True
    return np_dtype(np.array(value).astype(np_dtype)) != value


def _runtime_feed_values(fed: list[np.ndarray]) -> list[np.ndarray]:
    """The fed arrays as the runtime gets them. Strings are checked only here, when the runtime is asked, as
    TF's TF_SessionRun checks them: a fetch of only fed tensors returns even a non-string object as fed."""
    return [_as_runtime_strings(array) if array.dtype.hasobject else array for array in fed]


def _as_runtime_strings(array: np.ndarray) -> np.ndarray:
    """A string feed as the runtime holds strings (bytes); a copy when it holds str, the caller's untouched.
    Anything but str and bytes is refused, as TF's conversion to a string tensor does."""
    flat = array.reshape(-1)
    if all(type(v) is bytes for v in flat):
        return array
    for v in flat:
        if not isinstance(v, (bytes, str)):
            raise errors.InternalError(None, None, f"Unsupported object type {type(v).__name__}")
    encoded = np.empty(array.shape, dtype=object)
    encoded.reshape(-1)[:] = [v.encode() if isinstance(v, str) else v for v in flat]
    return encoded


def _substitute_fed(results: list[Any], fetch_names: tuple[str, ...], feed_names: tuple[str, ...],
                    fed: list[np.ndarray]) -> None:
    """A fetched tensor that was also fed comes back as the fed array itself, as in TF."""
    by_name = dict(zip(feed_names, fed))
    for i, name in enumerate(fetch_names):
        if name in by_name:
            results[i] = by_name[name]


def _shape_matches(dims: tuple, shape: tuple) -> bool:
    if len(dims) != len(shape):
        return False
    return all(d is None or d == s for d, s in zip(dims, shape))


class _SessionDefault:
    def __init__(self, session: BaseSession) -> None:
        self._session = session

    def __enter__(self) -> BaseSession:
        _default_session_stack.push(self._session)
        return self._session

    def __exit__(self, *exc: Any) -> None:
        _default_session_stack.pop(self._session)


@tf_export("Session")
class Session(BaseSession):
    """TF1's `tf.Session(target='', graph=None, config=None)`."""


@tf_export("InteractiveSession")
class InteractiveSession(BaseSession):
    """A session for shells and notebooks: it makes itself the default session on creation (and its graph
    the default graph, when one is given), until it is closed. Those defaults nest like any other: closing
    it while a later default is still in place fails, as in TF."""

    _count_lock = threading.Lock()
    _active_session_count = 0

    def __init__(self, target: str = "", graph: Graph | None = None, config: Any = None) -> None:
        super().__init__(target, graph, config)
        with InteractiveSession._count_lock:
            if InteractiveSession._active_session_count > 0:
                tf_logging.get_logger().error(
                    "An interactive session is already active. This can cause out-of-memory errors or some other "
                    "unexpected errors (due to the unpredictable timing of garbage collection) in some cases. You "
                    "must explicitly call `InteractiveSession.close()` to release resources held by the other "
                    "session(s). Please use `tf.Session()` if you intend to productionize.")
            InteractiveSession._active_session_count += 1
        self._explicitly_closed = False
        self._explicit_graph = graph
        _default_session_stack.push(self)
        if graph is not None:
            _default_graph_stack.push(graph)

    def close(self) -> None:
        super().close()
        with InteractiveSession._count_lock:
            if getattr(self, "_explicitly_closed", True):
                return
            InteractiveSession._active_session_count -= 1
            self._explicitly_closed = True
        if self._explicit_graph is not None:
            _default_graph_stack.pop(self._explicit_graph)
        _default_session_stack.pop(self)
