"""DirectSession: the in-process master and worker of TF's local implementation.

It holds the session's copy of the graph (extended incrementally as the client's graph grows), its
devices with their resource managers, and one cached plan per (feeds, fetches, targets) signature: the
first run of a signature goes through the pipeline (prune, constant folding, placement, then one
Executor per device; partitioning joins with the devices issue), every later run only executes. `run` is safe to call from many
threads at once: plans are immutable and each step has its own state.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tensorweave import errors
from tensorweave.devices.cpu import cpu_device
from tensorweave.devices.device import Device
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.runtime.executor import Executor, KernelContext
from tensorweave.runtime.optimize import constant_folding_enabled, fold_constants
from tensorweave.runtime.place import place
from tensorweave.runtime.prune import prune
from tensorweave.runtime.resources import ResourceMgr
from tensorweave.runtime.step_stats import NodeExecStats, to_proto

LOCAL_TASK = "/job:localhost/replica:0/task:0"


class DirectSession:
    """Runs steps of a graph in this process."""

    def __init__(self, config: Any = None) -> None:
        intra_op_threads = getattr(config, "intra_op_parallelism_threads", 0)
        self._devices: list[Device] = [cpu_device(LOCAL_TASK, 0, ResourceMgr(), intra_op_threads)]
        threads = getattr(config, "inter_op_parallelism_threads", 0) or os.cpu_count() or 1
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="tensorweave-inter-op")
        self._nodes: dict[str, NodeDef] = {}
        self._node_list: list[NodeDef] = []
        self._executors: dict[tuple, Executor] = {}
        self._contexts: dict[str, KernelContext] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._fold_constants = constant_folding_enabled(config)
        self._allow_soft_placement = bool(getattr(config, "allow_soft_placement", False))

    @property
    def devices(self) -> list[Device]:
        return list(self._devices)

    def extend(self, nodes: list[NodeDef]) -> None:
        """Add nodes to the session's graph; plans already built stay valid.

        Nodes that cannot be placed are rejected here, as TF places the whole graph: until the client's
        graph is fixed, every run fails, whatever it fetches.
        """
        place(GraphDef(node=nodes), self._devices, self._allow_soft_placement)
        with self._lock:
            for node in nodes:
                if node.name in self._nodes:
                    raise errors.InvalidArgumentError(
                        node, None, f"Duplicate node name in graph: '{node.name}'")
                self._nodes[node.name] = node
                self._node_list.append(node)

    def run(self, feed_names: tuple[str, ...], feed_values: list[Any], fetches: tuple[str, ...],
            targets: tuple[str, ...], types: Callable[[], dict[str, Any]] | None = None,
            step_stats: Any = None) -> list[Any]:
        """One step: feed the named tensors, run the targets, return the fetched values in order.

        `types` gives the dtypes of feeds and fetches; it is called only when a plan is built. With a
        `step_stats` message the step is traced into it.
        """
        key = (feed_names, fetches, targets)
        executor = self._executors.get(key)
        if executor is None:
            executor = self._build_executor(key, types)
        if step_stats is None:
            return executor.run(feed_values)
        records: list[NodeExecStats] = []
        try:
            return executor.run(feed_values, records)
        finally:
            step_stats.CopyFrom(to_proto(self._devices[0].name, records))

    def _build_executor(self, key: tuple, types: Callable[[], dict[str, Any]] | None) -> Executor:
        feed_names, fetches, targets = key
        with self._lock:
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            executor = self._executors.get(key)
            if executor is not None:
                return executor
            device = self._devices[0]
            graph_def = prune(GraphDef(node=list(self._node_list)), feed_names, fetches, targets,
                              types() if types else None)
            if self._fold_constants:
                graph_def = fold_constants(graph_def, device)
            graph_def = place(graph_def, self._devices, self._allow_soft_placement)
            executor = Executor(graph_def, device, self._context_for, self._pool)
            self._executors[key] = executor
            return executor

    def _context_for(self, node_def: NodeDef) -> KernelContext:
        """The node's kernel context, shared by every plan of this session (called under the lock)."""
        ctx = self._contexts.get(node_def.name)
        if ctx is None:
            ctx = self._contexts[node_def.name] = KernelContext(node_def, self._devices[0])
        return ctx

    def reset_containers(self, containers: list[str]) -> None:
        for device in self._devices:
            for container in containers:
                device.resource_mgr.cleanup(container)
        with self._lock:
            for ctx in self._contexts.values():
                ctx.state.clear()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._executors.clear()
            self._contexts.clear()
        self._pool.shutdown(wait=False)
        for device in self._devices:
            device.resource_mgr.clear()
            device.close()
