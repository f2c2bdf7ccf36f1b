"""Per-node step statistics of a traced run (`RunOptions(trace_level=...)`), as TF's StepStats.

The executor appends one `NodeExecStats` per kernel it runs (from any thread); `to_proto` turns a step's
records, per device, into the StepStats message that `RunMetadata.step_stats` carries and timelines read.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tensorweave.formats import protos


class NodeExecStats(NamedTuple):
    node_name: str
    op: str
    start_micros: int
    end_micros: int
    thread_id: int


def to_proto(devices: list[tuple[str, list[NodeExecStats]]]) -> Any:
    """A StepStats message with one DeviceStepStats per (device name, its records)."""
    step_stats = protos.StepStats()
    for device_name, records in devices:
        device = step_stats.dev_stats.add(device=device_name)
        for record in sorted(records, key=lambda r: r.start_micros):
            elapsed = record.end_micros - record.start_micros
            device.node_stats.add(node_name=record.node_name, all_start_micros=record.start_micros,
                                  op_start_rel_micros=0, op_end_rel_micros=elapsed, all_end_rel_micros=elapsed,
                                  timeline_label=f"{record.node_name} = {record.op}()", thread_id=record.thread_id)
    return step_stats
