"""`Timeline`: a traced step's StepStats as Chrome trace JSON (chrome://tracing, Perfetto), as TF's
tensorflow.python.client.timeline (not exported in compat.v1; the same class lives here).

Each device is a process ('<device> Compute') whose threads are the executor threads that ran its kernels;
each kernel is a complete event named by its op, with the node name and inputs as args. With
`show_dataflow`, every `_Send` starts a flow arrow that ends at the `_Recv` of the same rendezvous tensor
(the timeline labels name it: `x/_0 = _Send(edge_1_x @/job:...)`). With `show_memory`, a counter per device
shows the bytes its kernels' outputs allocated since the step began.
"""

from __future__ import annotations

import json
import re
from typing import Any

_LABEL = re.compile(r"^(.*?) = (.*?)\((.*)\)$")
_SENDS = frozenset({"_Send", "_HostSend"})
_RECVS = frozenset({"_Recv", "_HostRecv"})


class Timeline:
    """A step's trace, ready to be written as Chrome trace JSON."""

    def __init__(self, step_stats: Any, graph: Any = None) -> None:
        self._step_stats = step_stats
        self._graph = graph  # accepted as TF's; the labels carry what the trace shows

    def generate_chrome_trace_format(self, show_dataflow: bool = True, show_memory: bool = False) -> str:
        """The trace as a JSON string: {"traceEvents": [...]}, times in microseconds from the step's start."""
        nodes = [node for device in self._step_stats.dev_stats for node in device.node_stats]
        origin = min((node.all_start_micros for node in nodes), default=0)
        metadata: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        sends: dict[str, dict[str, Any]] = {}
        recvs: dict[str, dict[str, Any]] = {}
        for pid, device in enumerate(self._step_stats.dev_stats):
            metadata.append({"name": "process_name", "ph": "M", "pid": pid,
                             "args": {"name": f"{device.device} Compute"}})
            metadata.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}})
            allocated = 0
            for node in sorted(device.node_stats, key=lambda n: n.all_start_micros):
                name, op, inputs = _parse_label(node)
                event = {"ph": "X", "cat": "Op", "name": op, "pid": pid, "tid": node.thread_id,
                         "ts": node.all_start_micros - origin, "dur": node.all_end_rel_micros,
                         "args": {"name": name, "op": op, **{f"input{i}": v for i, v in enumerate(inputs)}}}
                events.append(event)
                if op in _SENDS and inputs:
                    sends[inputs[0].split(" @")[0]] = event
                elif op in _RECVS and inputs:
                    recvs[inputs[0].split(" @")[0]] = event
                if show_memory and node.output:
                    allocated += sum(o.tensor_description.allocation_description.allocated_bytes for o in node.output)
                    events.append({"ph": "C", "name": "Memory", "pid": pid, "ts": event["ts"] + event["dur"],
                                   "args": {"allocated bytes": allocated}})
        if show_dataflow:
            for flow_id, (tensor, send) in enumerate(sorted(sends.items())):
                recv = recvs.get(tensor)
                if recv is None:
                    continue
                common = {"cat": "DataFlow", "name": tensor, "id": flow_id}
                events.append({"ph": "s", "pid": send["pid"], "tid": send["tid"], "ts": send["ts"], **common})
                arrived = recv["ts"] + max(recv["dur"] - 1, 0)  # inside the _Recv's slice, when the value came
                events.append({"ph": "t", "pid": recv["pid"], "tid": recv["tid"], "ts": arrived, **common})
        return json.dumps({"traceEvents": metadata + events}, indent=1)


def _parse_label(node: Any) -> tuple[str, str, list[str]]:
    """(node name, op, inputs) from TF's timeline label `name = Op(a, b)`."""
    match = _LABEL.match(node.timeline_label)
    if match is None:
        return node.node_name, node.node_name, []
    name, op, inputs = match.groups()
    return name, op, [i.strip() for i in inputs.split(", ") if i.strip()]
