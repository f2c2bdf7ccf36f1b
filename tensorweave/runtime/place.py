"""Placement: every node of a graph gets one of the session's devices (TF's Placer, its core rules).

A node's requested device, full or partial ('/device:GPU:0', '/job:worker/task:1', '/cpu:*'), must match
a device of the session; otherwise it is TF's InvalidArgumentError, unless `allow_soft_placement` lets
the node fall back to the first device whose type has its kernel. Colocation groups (`_class` attrs
'loc:@name', which `colocate_with` and ops that update a ref set) go to one device: their requests must
agree, and a member already placed fixes the group's device. A generator (no inputs, one output) that is
unconstrained goes with its only consumer, as TF's heuristic does; any other unconstrained node goes to the
first device. Pure function over GraphDefs; the nodes placed before (`placed`) keep their devices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.framework import device_spec as pydev
from tensorweave.framework import op_registry
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_def import arg_types


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
    if allow_soft_placement:  # the first device with a kernel for the node's attrs (its dtypes)
        op = op_registry.registered_ops().get(node.op)
        return next((d for d in devices if op is not None and op.find_kernel(d.device_type, node.attr) is not None),
                    devices[0])
    available = ", ".join(d.name for d in devices)
    hint = (" The requested device appears to be a GPU, but CUDA is not enabled."
            if request.device_type == "GPU" and not any(d.device_type == "GPU" for d in devices) else "")
    raise errors.InvalidArgumentError(
        node, None, f"Cannot assign a device for operation {node.name}: {{{{node {node.name}}}}} was explicitly "
        f"assigned to {node.device} but available devices are [ {available} ]. Make sure the device "
        f"specification refers to a valid device.{hint}")


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
        if message is not None:
            raise errors.InvalidArgumentError(None, None, message)


def place(graph_def: GraphDef, devices: Sequence[Any], allow_soft_placement: bool = False,
          placed: Mapping[str, str] | None = None) -> GraphDef:
    """The graph with every node's device set to the full name of the device it runs on.

    `placed` maps the names of nodes placed earlier (the session's graph so far) to their devices.
    """
    placed = placed or {}
    nodes = graph_def.node
    groups = _colocation_groups(nodes)
    by_name = {node.name: node for node in nodes}
    requests = _group_requests(nodes, groups, by_name, placed)
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
            device = placed.get(group) or chosen.get(group)
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


def _colocation_groups(nodes: Sequence[NodeDef]) -> _UnionFind:
    """Nodes joined by their `_class` colocation attrs ('loc:@name')."""
    groups = _UnionFind()
    for node in nodes:
        for entry in node.attr.get("_class") or ():
            entry = entry.decode() if isinstance(entry, bytes) else entry
            if entry.startswith("loc:@"):
                groups.union(node.name, entry[5:])
    return groups


def _group_requests(nodes: Sequence[NodeDef], groups: _UnionFind, by_name: Mapping[str, NodeDef],
                    placed: Mapping[str, str]) -> dict[str, pydev.DeviceSpec]:
    """Each group's merged device request; members that ask for incompatible devices fail as TF's."""
    merged: dict[str, tuple[str, pydev.DeviceSpec]] = {}
    members = [(node.name, node.device) for node in nodes]
    members += [(name, device) for name, device in placed.items() if name not in by_name]
    for name, device in members:
        if not device:
            continue
        group = groups.find(name)
        spec = pydev.DeviceSpec.from_string(device)
        if group not in merged:
            merged[group] = (name, spec)
            continue
        first, current = merged[group]
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
