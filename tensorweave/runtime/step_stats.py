"""Per-node step statistics of a traced run (`RunOptions(trace_level=...)`), as TF's StepStats and the
cost graph TF derives from them (the whitepaper's EEG, §9.2).

The executor appends one `NodeExecStats` per kernel it runs (from any thread), holding on to the node's
outputs only until the step ends; `to_proto` turns a step's records, per device, into the StepStats message
that `RunMetadata.step_stats` carries and timelines read: TF's fields and timeline labels
(`name = Op(inputs)`, `name = _Send(tensor_name @recv_device)` for transfers), each output's
TensorDescription, and a `_SOURCE` record first on every device, as TF lists it. `cost_graph` turns the
step's partition graphs and its StepStats into RunMetadata's CostGraphDef.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from tensorweave.formats import protos
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input

ALLOCATOR_NAME = "cpu"
_TRANSFERS = frozenset({"_Send", "_Recv", "_HostSend", "_HostRecv"})


class NodeExecStats(NamedTuple):
    node_name: str
    op: str
    start_micros: int
    end_micros: int
    thread_id: int
    outputs: Sequence[Any] = ()


def to_proto(devices: list[tuple[str, list[NodeExecStats]]], graphs: Sequence[GraphDef] | None = None) -> Any:
    """A StepStats message with one DeviceStepStats per (device name, its records); `graphs` (the partition
    graph of each device, in the same order) give the timeline labels their inputs."""
    step_stats = protos.StepStats()
    for number, (device_name, records) in enumerate(devices):
        device = step_stats.dev_stats.add(device=device_name)
        nodes = {node.name: node for node in graphs[number].node} if graphs is not None else {}
        records = sorted(records, key=lambda r: r.start_micros)
        if records:
            device.node_stats.add(node_name="_SOURCE", all_start_micros=records[0].start_micros,
                                  timeline_label="_SOURCE = NoOp()", thread_id=records[0].thread_id)
        for record in records:
            elapsed = record.end_micros - record.start_micros
            stats = device.node_stats.add(
                node_name=record.node_name, all_start_micros=record.start_micros, op_start_rel_micros=0,
                op_end_rel_micros=elapsed, all_end_rel_micros=elapsed, scheduled_micros=record.start_micros,
                timeline_label=_label(record, nodes.get(record.node_name)), thread_id=record.thread_id)
            for slot, value in enumerate(record.outputs):
                description = tensor_description(value)
                if description is not None:
                    stats.output.add(slot=slot, tensor_description=description)
    return step_stats


def _label(record: NodeExecStats, node: NodeDef | None) -> str:
    """TF's timeline label: `name = Op(input, ...)`; a transfer names its rendezvous tensor and receiver."""
    if node is None:
        return f"{record.node_name} = {record.op}()"
    if node.op in _TRANSFERS:
        tensor, receiver = node.attr.get("tensor_name", b""), node.attr.get("recv_device", b"")
        tensor = tensor.decode() if isinstance(tensor, bytes) else tensor
        receiver = receiver.decode() if isinstance(receiver, bytes) else receiver
        return f"{node.name} = {node.op}({tensor} @{receiver})"
    return f"{node.name} = {node.op}({', '.join(spec for spec in node.input if not spec.startswith('^'))})"


def tensor_description(value: Any) -> Any:
    """TF's TensorDescription of an output (dtype, shape, its allocation), or None for what is no tensor."""
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is None or shape is None:
        return None
    try:
        enum = dtypes.as_dtype(dtype).as_datatype_enum
    except (TypeError, ValueError, KeyError):
        return None
    size = int(getattr(value, "nbytes", 0))
    return protos.TensorDescription(
        dtype=enum, shape=protos.TensorShapeProto(dim=[protos.TensorShapeProto.Dim(size=int(d)) for d in shape]),
        allocation_description=protos.AllocationDescription(requested_bytes=size, allocated_bytes=size,
                                                            allocator_name=ALLOCATOR_NAME))


def cost_graph(graphs: Sequence[GraphDef], step_stats: Any) -> Any:
    """RunMetadata's CostGraphDef: every node of the step's partitions with its inputs (by id), control
    inputs, output sizes and shapes, and its measured compute time (microseconds)."""
    measured = {(device.device, stats.node_name): stats for device in step_stats.dev_stats
                for stats in device.node_stats}
    ids: dict[tuple[str, str], int] = {}
    for graph in graphs:
        for node in graph.node:
            ids[(node.device, node.name)] = len(ids)
    result = protos.CostGraphDef()
    for graph in graphs:
        for node in graph.node:
            stats = measured.get((node.device, node.name))
            elapsed = stats.op_end_rel_micros if stats is not None else 0
            entry = result.node.add(name=node.name, device=node.device, id=ids[(node.device, node.name)],
                                    compute_cost=elapsed, compute_time=elapsed,
                                    is_final=node.op == "_Retval" or node.op == "_Send")
            for spec in node.input:
                name, index = parse_input(spec)
                source = ids.get((node.device, name))
                if source is None:
                    continue
                if index < 0:
                    entry.control_input.append(source)
                else:
                    entry.input_info.add(preceding_node=source, preceding_port=index)
            for output in stats.output if stats is not None else ():
                description = output.tensor_description
                entry.output_info.add(size=description.allocation_description.requested_bytes, alias_input_port=-1,
                                      shape=description.shape, dtype=description.dtype)
    return result
