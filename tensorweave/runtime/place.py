"""Placement: every node of a graph gets one of the session's devices (TF's Placer, its core rules).

A node's requested device, full or partial ('/device:GPU:0', '/job:worker/task:1', '/cpu:*'), must match
a device of the session; otherwise it is TF's InvalidArgumentError, unless `allow_soft_placement` lets
the node fall back to the first device whose type has its kernel. Colocation groups (`_class` attrs
'loc:@name', which `colocate_with` and ops that update a ref set, and every ref or resource edge) go to
one device: their requests must agree (except that a node taking a ref or resource gives up a request its
source contradicts, as TF's placer does), and a member already placed fixes the group's device. A generator
(no inputs, one output) that is unconstrained goes with its only consumer, as TF's heuristic does; any
other unconstrained node goes to the first device, or, with the cost model (`cost_model_place`), where a
simulation of the step says it finishes first. Pure function over GraphDefs; the nodes placed before
(`placed`) keep their devices.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.framework import device_spec as pydev
from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import arg_types
from tensorweave.runtime import cost_model
from tensorweave.runtime.partition import ENTER, EXIT, MERGE, NEXT_ITERATION, SWITCH

_LOOP_INPUTS = ENTER | NEXT_ITERATION


def _matches(request: pydev.DeviceSpec, device: Any) -> bool:
    spec = device.spec
    return ((request.job is None or request.job == spec.job)
            and (request.replica is None or request.replica == spec.replica)
            and (request.task is None or request.task == spec.task)
            and (request.device_type is None or request.device_type == spec.device_type)
            and (request.device_index is None or request.device_index == spec.device_index))


def _device_for(node: NodeDef, devices: Sequence[Any], allow_soft_placement: bool) -> Any:
    if not node.device:
        return devices[0]
    request = pydev.DeviceSpec.from_string(node.device)
    for device in devices:
        if _matches(request, device):
            return device
    # Soft placement lets go of the device type and index only, as TF's placer: the job, replica and task
    # asked for must still exist. Of those devices, the first with a kernel for the node's attrs (its dtypes).
    soft = [d for d in devices if _matches(pydev.DeviceSpec(request.job, request.replica, request.task), d)]
    if allow_soft_placement and soft:
        op = op_registry.registered_ops().get(node.op)
        return next((d for d in soft if op is not None and op.find_kernel(d.device_type, node.attr) is not None),
                    soft[0])
    available = ", ".join(d.name for d in devices)
    # (TF's pip wheels are CUDA builds: they add no "CUDA is not enabled" hint for a GPU asked for)
    raise errors.InvalidArgumentError(
        node, None, f"Cannot assign a device for operation {node.name}: {{{{node {node.name}}}}} was explicitly "
        f"assigned to {node.device} but available devices are [ {available} ]. Make sure the device "
        f"specification refers to a valid device.\n\t [[{node.name}]]")  # the placer's bare tag, as TF's


def is_generator(node: NodeDef) -> bool:
    """TF's placer heuristic: a node without inputs and with one non-ref output is placed after the others."""
    if node.input or node.op not in op_registry.registered_ops():
        return False
    outputs = arg_types(op_registry.get(node.op).op_def.output_args, node.attr)
    return len(outputs) == 1 and not outputs[0]._is_ref_dtype


def check_kernels(graph_def: GraphDef, devices: Sequence[Any]) -> None:
    """TF's placer first finds the devices each node has a kernel for: a node whose attrs (`T=DT_HALF`) no
    kernel of the session's device types supports fails the whole graph, whatever a step fetches, even with
    soft placement and before any device request is looked at."""
    device_types = list(dict.fromkeys(d.device_type for d in devices))
    ops = op_registry.registered_ops()
    for node in graph_def.node:
        op = ops.get(node.op)
        message = op.unsupported_message(node, device_types) if op is not None else None
        if message is not None:  # TF's placer appends the node's name in a bare tag: `\n\t [[name]]`
            raise errors.InvalidArgumentError(None, None, f"{message}\n\t [[{node.name}]]")


def place(graph_def: GraphDef, devices: Sequence[Any], allow_soft_placement: bool = False,
          placed: Mapping[str, str] | None = None, cost_model: bool = False) -> GraphDef:
    """The graph with every node's device set to the full name of the device it runs on.

    `placed` maps the names of nodes placed earlier (the session's graph so far) to their devices. With
    `cost_model`, unconstrained nodes go where the simulation says they finish first (`cost_model_place`).
    """
    placed = placed or {}
    nodes = graph_def.node
    groups = _colocation_groups(nodes)
    by_name = {node.name: node for node in nodes}
    requests = _group_requests(nodes, groups, by_name, placed)
    greedy = (_greedy_devices(nodes, groups, requests, placed, devices, allow_soft_placement)
              if cost_model and len(devices) > 1 else {})
    consumers: dict[str, list[str]] = {}
    for node in nodes:
        for spec in node.input:
            if not spec.startswith("^"):
                consumers.setdefault(spec.split(":")[0], []).append(node.name)
    chosen: dict[str, str] = {}
    failure: errors.InvalidArgumentError | None = None
    for node in sorted(nodes, key=is_generator):  # TF places generators last
        group = groups.find(node.name)
        try:
            device = placed.get(group) or chosen.get(group) or greedy.get(group)
            if device is None:
                device = _group_device(node, requests.get(group), devices, allow_soft_placement)
                sole = consumers.get(node.name, [])
                if not requests.get(group) and is_generator(node) and len(sole) == 1 and sole[0] in chosen:
                    device = chosen[sole[0]]  # an unconstrained generator goes with its only consumer
                chosen[group] = device
            chosen[node.name] = device
        except errors.InvalidArgumentError as error:
            failure = failure or error
            break
    if failure is not None:
        raise failure
    out = [node if node.device == chosen[node.name] else dataclasses.replace(node, device=chosen[node.name])
           for node in nodes]
    return GraphDef(node=out, producer=graph_def.producer)


class _UnionFind:
    def __init__(self) -> None:
        self._parent: dict[str, str] = {}

    def find(self, name: str) -> str:
        parent = self._parent.setdefault(name, name)
        if parent != name:
            parent = self._parent[name] = self.find(parent)
        return parent

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)


def _state_sources(node: NodeDef, ops: Mapping[str, Any]) -> list[str]:
    """The nodes whose ref or resource outputs `node` takes: the state it works on."""
    op = ops.get(node.op)
    if op is None:
        return []
    data_inputs = [spec for spec in node.input if not spec.startswith("^")]
    return [parse_input(spec)[0] for spec, dtype in zip(data_inputs, arg_types(op.op_def.input_args, node.attr))
            if dtype._is_ref_dtype or dtype == dtypes.resource]


def _colocation_groups(nodes: Sequence[NodeDef]) -> _UnionFind:
    """Nodes joined by their `_class` colocation attrs ('loc:@name') and by ref and resource edges: a node
    that takes a ref or a resource handle works on the state itself, so it goes with the node that owns it
    (TF's ColocationGraph does the same for these edges)."""
    groups = _UnionFind()
    ops = op_registry.registered_ops()
    for node in nodes:
        for entry in node.attr.get("_class") or ():
            entry = entry.decode() if isinstance(entry, bytes) else entry
            if entry.startswith("loc:@"):
                groups.union(node.name, entry[5:])
        for source in _state_sources(node, ops):
            groups.union(node.name, source)
    for follower, merge in _loop_merges(nodes).items():
        groups.union(follower, merge)
    return groups


def _loop_merges(nodes: Sequence[NodeDef]) -> dict[str, str]:
    """The Enter, NextIteration, Switch and Exit of each while-loop variable -> that variable's Merge.

    TF places them together, where the Merge goes, whatever devices they ask for: a loop variable's value
    then never leaves its device between iterations, and only the predicate, the body's inputs and the
    Exits' consumers cross devices (the partitioner's control loops cover those).
    """
    by_name = {node.name: node for node in nodes}

    def source(node: NodeDef, position: int = 0) -> NodeDef | None:
        data = [spec for spec in node.input if not spec.startswith("^")]
        return by_name.get(parse_input(data[position])[0]) if len(data) > position else None

    merge_of: dict[str, str] = {}
    for node in nodes:
        if node.op in MERGE:
            sources = [source(node, i) for i in range(2)]
            if any(s is not None and s.op in NEXT_ITERATION for s in sources):
                merge_of.update((s.name, node.name) for s in sources if s is not None and s.op in _LOOP_INPUTS)
    merges = set(merge_of.values())
    switches = {}
    for node in nodes:
        data = source(node)
        if node.op in SWITCH and data is not None and data.name in merges:
            switches[node.name] = merge_of[node.name] = data.name
    for node in nodes:
        data = source(node)
        if node.op in EXIT and data is not None and data.name in switches:
            merge_of[node.name] = switches[data.name]
    return merge_of


def _compatible(a: pydev.DeviceSpec, b: pydev.DeviceSpec) -> bool:
    return all(getattr(a, f) is None or getattr(b, f) is None or getattr(a, f) == getattr(b, f)
               for f in ("job", "replica", "task", "device_type", "device_index"))


def _requested_devices(nodes: Sequence[NodeDef]) -> dict[str, str]:
    """Each node's device request, where a node taking a ref or resource whose source asks for a device its own
    request contradicts takes the source's instead, keeping its fields the source leaves open (TF's
    EnsureCompatibilityAcrossResourceEdge: 'Ignoring device specification ... reference connection')."""
    ops = op_registry.registered_ops()
    requested = {node.name: node.device for node in nodes}
    edges = [(node.name, source) for node in nodes for source in _state_sources(node, ops)]
    for _ in range(len(edges)):  # passes until a chain of such edges (a stack entered into a loop) agrees
        changed = False
        for name, source in edges:
            mine, theirs = requested[name], requested.get(source)
            if mine and theirs:
                own, src = pydev.DeviceSpec.from_string(mine), pydev.DeviceSpec.from_string(theirs)
                if not _compatible(own, src):
                    requested[name] = own.make_merged_spec(src).to_string()
                    changed = True
        if not changed:
            break
    return requested


def _group_requests(nodes: Sequence[NodeDef], groups: _UnionFind, by_name: Mapping[str, NodeDef],
                    placed: Mapping[str, str]) -> dict[str, pydev.DeviceSpec]:
    """Each group's merged device request; members that ask for incompatible devices fail as TF's, except in
    a while loop's group, where the Merge's request (or an earlier placement) wins and the others give way."""
    merged: dict[str, tuple[str, pydev.DeviceSpec]] = {}
    requested = _requested_devices(nodes)
    loop_merges = set(_loop_merges(nodes).values())
    loops = {groups.find(name) for name in loop_merges}
    members = [(name, device) for name, device in placed.items() if name not in by_name]
    members += sorted(((node.name, requested[node.name]) for node in nodes), key=lambda m: m[0] not in loop_merges)
    for name, device in members:
        if not device:
            continue
        group = groups.find(name)
        spec = pydev.DeviceSpec.from_string(device)
        if group not in merged:
            merged[group] = (name, spec)
            continue
        first, current = merged[group]
        if group in loops and not _compatible(current, spec):
            continue
        for field in ("job", "replica", "task", "device_type", "device_index"):
            a, b = getattr(current, field), getattr(spec, field)
            if a is not None and b is not None and a != b:
                raise errors.InvalidArgumentError(
                    by_name.get(name), None, f"Cannot colocate nodes {{{{colocation_node {name}}}}} and "
                    f"{{{{colocation_node {first}}}}}: Cannot merge devices with incompatible ids: "
                    f"'{spec.to_string()}' and '{current.to_string()}'")
        merged[group] = (first, current.make_merged_spec(spec))
    return {group: spec for group, (_, spec) in merged.items()}


def _group_device(node: NodeDef, request: pydev.DeviceSpec | None, devices: Sequence[Any],
                  allow_soft_placement: bool) -> str:
    """The device of a node's group: its merged request matched against the session's devices."""
    if request is None:
        return devices[0].name
    own = pydev.DeviceSpec.from_string(node.device).to_string() if node.device else None
    requested = node if own == request.to_string() else dataclasses.replace(node, device=request.to_string())
    return _device_for(requested, devices, allow_soft_placement).name


def cost_model_place(graph_def: GraphDef, devices: Sequence[Any], allow_soft_placement: bool = False,
                     placed: Mapping[str, str] | None = None) -> GraphDef:
    """The whitepaper's greedy placement (§3.2.1), beyond TF's open-source placer: simulate the graph's
    execution with static costs (runtime/cost_model.py) and put each unconstrained node, in topological
    order, on the device where it would finish earliest, counting the transfers of its inputs from other
    devices. Requests, colocation groups and kernel availability bind as in `place`; an unconstrained
    generator goes with its first consumer. A session uses it when TENSORWEAVE_PLACEMENT=cost_model."""
    return place(graph_def, devices, allow_soft_placement, placed, cost_model=True)


def _greedy_devices(nodes: Sequence[NodeDef], groups: _UnionFind, requests: Mapping[str, pydev.DeviceSpec],
                    placed: Mapping[str, str], devices: Sequence[Any], allow_soft_placement: bool) -> dict[str, str]:
    """The device of every unconstrained colocation group, from the simulation."""
    by_name = {node.name: node for node in nodes}
    device_of: dict[str, str] = {}
    finish: dict[str, float] = {}
    busy_until = {device.name: 0.0 for device in devices}
    chosen: dict[str, str] = {}
    deferred: list[NodeDef] = []
    ops = op_registry.registered_ops()
    for node in _topological(nodes, by_name):
        group = groups.find(node.name)
        free = group not in requests and group not in placed
        if free and group not in chosen and is_generator(node):
            deferred.append(node)  # placed with its consumer below; its value costs nothing to make
            continue
        if not free or group in chosen:
            try:
                fixed = placed.get(node.name) or chosen.get(group) or _group_device(
                    node, requests.get(group), devices, allow_soft_placement)
            except errors.InvalidArgumentError:
                fixed = devices[0].name  # `place` reports it
            candidates = [fixed]
        else:
            op = ops.get(node.op)
            candidates = [d.name for d in devices if op is None or op.find_kernel(d.device_type, node.attr)]
            candidates = candidates or [devices[0].name]
        cost = cost_model.compute_seconds(node, by_name)
        best = None
        for device in candidates:
            ready = 0.0
            for spec in node.input:
                name, index = parse_input(spec)
                if name not in finish:
                    continue
                arrival = finish[name]
                if device_of.get(name, device) != device:
                    arrival += cost_model.transfer_seconds(by_name[name], index)
                ready = max(ready, arrival)
            end = max(ready, busy_until.get(device, 0.0)) + cost
            if best is None or end < best[0]:
                best = (end, device)
        end, device = best
        device_of[node.name], finish[node.name] = device, end
        busy_until[device] = end
        if free:
            chosen.setdefault(group, device)
    consumers: dict[str, str] = {}
    for node in nodes:
        for spec in node.input:
            consumers.setdefault(parse_input(spec)[0], device_of.get(node.name, ""))
    for node in deferred:
        chosen.setdefault(groups.find(node.name), consumers.get(node.name) or devices[0].name)
    return chosen


def _topological(nodes: Sequence[NodeDef], by_name: Mapping[str, NodeDef]) -> list[NodeDef]:
    """The nodes with every node after its inputs (graph order among ready ones); nodes on cycles (loop
    back edges) follow in graph order."""
    pending = {node.name: sum(1 for spec in node.input if parse_input(spec)[0] in by_name) for node in nodes}
    consumers: dict[str, list[str]] = {}
    for node in nodes:
        for spec in node.input:
            if parse_input(spec)[0] in by_name:
                consumers.setdefault(parse_input(spec)[0], []).append(node.name)
    ready = collections.deque(node.name for node in nodes if pending[node.name] == 0)
    order: list[str] = []
    while ready:
        name = ready.popleft()
        order.append(name)
        for consumer in consumers.get(name, ()):
            pending[consumer] -= 1
            if pending[consumer] == 0:
                ready.append(consumer)
    seen = set(order)
    return [by_name[name] for name in order] + [node for node in nodes if node.name not in seen]
