"""Partition a placed step graph into one GraphDef per device (TF's graph/graph_partition).

Every node goes to the partition of its device; the call-frame nodes (`_Arg`, `_Retval`, placed nowhere by
pruning) go to the partition of the node they feed or read, else to the client's device. An edge between
partitions needs a `_Send`/`_Recv` pair through the step's rendezvous, which the several-devices issue adds
here; until then such a graph is refused with UnimplementedError rather than run wrong. Pure function.
"""

from __future__ import annotations

import dataclasses

from tensorweave import errors
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input


def partition(graph_def: GraphDef, client_device: str) -> dict[str, GraphDef]:
    """The step's graph split by device, in graph order within each partition."""
    nodes = {n.name: n for n in graph_def.node}
    consumers: dict[str, str] = {}
    for node in graph_def.node:
        for spec in node.input:
            consumers.setdefault(parse_input(spec)[0], node.device)
    parts: dict[str, list[NodeDef]] = {}
    for node in graph_def.node:
        device = node.device
        if not device:
            if node.op == "_Retval" and node.input:
                device = nodes[parse_input(node.input[0])[0]].device
            device = device or consumers.get(node.name) or client_device
            node = dataclasses.replace(node, device=device)
        parts.setdefault(device, []).append(node)
    if len(parts) > 1:
        for device, part in parts.items():
            for node in part:
                for spec in node.input:
                    source = nodes[parse_input(spec)[0]]
                    if source.device and source.device != device:
                        raise errors.UnimplementedError(
                            node, None, f"Edge {source.name} -> {node.name} crosses devices ({source.device} -> "
                            f"{device}): Send/Recv partitioning is not available yet")
    return {device: GraphDef(node=part, producer=graph_def.producer) for device, part in parts.items()}
