"""Partition a placed step graph into one GraphDef per device (TF's graph/graph_partition).

Every node goes to the partition of its device; the call-frame nodes (`_Arg`, `_Retval`) go to the client's
device, where feeds arrive and fetches are read. An edge between
partitions becomes a `_Send` on the producer's device and a `_Recv` on the consumer's, named and keyed as
TF's partitioner does (`src/_0` and `src/_1`, tensor name `edge_<id>_<src>`): one pair per tensor and
consuming device. A control edge between partitions sends a dummy constant that runs after the source, and
the consumer waits on its `_Recv`. The executors of a step exchange these values through the step's
rendezvous, deadness included. Edges across devices inside loop frames need the frame ops mirrored in every
partition (the loops issue's next step): such a graph is refused with UnimplementedError rather than run
wrong. Pure function.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import arg_types

_LOOP_OPS = frozenset({"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"})


def partition(graph_def: GraphDef, client_device: str, bfloat16_sendrecv: bool = False) -> dict[str, GraphDef]:
    """The step's graph split by device, in graph order within each partition. With `bfloat16_sendrecv`
    (GraphOptions.enable_bfloat16_sendrecv), a float32 tensor crosses as bfloat16: a Cast before its
    `_Send` and one after its `_Recv`, as TF's partitioner adds them."""
    nodes = _with_call_frame_devices(graph_def, client_device)
    by_name = {n.name: n for n in nodes}
    if len({n.device for n in nodes}) > 1 and any(n.op in _LOOP_OPS for n in nodes):
        crossing = next((n for n in nodes for spec in n.input if by_name[parse_input(spec)[0]].device != n.device),
                        None)
        if crossing is not None:
            raise errors.UnimplementedError(
                crossing, None, f"{crossing.name} on {crossing.device} reads from another device in a graph with "
                "while loops: Send/Recv inside loop frames is not available yet")
    names = itertools.count()
    edge_ids = itertools.count()
    transfers: dict[tuple[str, str], str] = {}  # (source tensor or ^node, consuming device) -> its _Recv
    extra: dict[str, list[NodeDef]] = {}
    parts: dict[str, list[NodeDef]] = {}
    for node in nodes:
        inputs = []
        for spec in node.input:
            source_name, index = parse_input(spec)
            source = by_name[source_name]
            if source.device == node.device:
                inputs.append(spec)
                continue
            key = (spec if index >= 0 else "^" + source_name, node.device)
            recv = transfers.get(key)
            if recv is None:
                recv = transfers[key] = _add_transfer(source, index, spec, node, names, next(edge_ids), extra,
                                                      bfloat16_sendrecv)
            inputs.append(recv if index >= 0 else "^" + recv)
        parts.setdefault(node.device, []).append(
            node if inputs == node.input else dataclasses.replace(node, input=inputs))
    for device, added in extra.items():
        parts.setdefault(device, []).extend(added)
    return {device: GraphDef(node=part, producer=graph_def.producer) for device, part in parts.items()}


def _with_call_frame_devices(graph_def: GraphDef, client_device: str) -> list[NodeDef]:
    """The nodes, with the call frame (`_Arg`, `_Retval`, placed nowhere by pruning) on the client's device,
    where a step's feeds arrive and its fetches are read, as TF's DirectSession places them."""
    return [node if node.device else dataclasses.replace(node, device=client_device) for node in graph_def.node]


def _add_transfer(source: NodeDef, index: int, spec: str, consumer: NodeDef, names: itertools.count,
                  edge_id: int, extra: dict[str, list[NodeDef]], bfloat16_sendrecv: bool = False) -> str:
    """Add the _Send (source side) and _Recv (consumer side) of one edge; returns the name of the node the
    consumer reads (the _Recv, or the Cast back to float32 after it)."""
    cast_to = None
    if index >= 0:
        dtype = _output_dtype(source, index, consumer)
        sent = spec
        if bfloat16_sendrecv and dtype == dtypes.float32:
            cast_to, dtype, sent = dtype, dtypes.bfloat16, f"{source.name}/_{next(names)}"
            extra.setdefault(source.device, []).append(NodeDef(
                sent, "Cast", [spec], source.device, {"SrcT": cast_to, "DstT": dtype, "Truncate": False}))
    else:  # a control edge: a dummy constant that runs after the source carries it
        dtype = dtypes.float32
        sent = f"{source.name}/_{next(names)}"
        extra.setdefault(source.device, []).append(NodeDef(
            sent, "Const", ["^" + source.name], source.device,
            {"value": np.zeros((), np.float32), "dtype": dtypes.float32}))
    attrs = {"tensor_name": f"edge_{edge_id}_{source.name}".encode(), "send_device": source.device.encode(),
             "send_device_incarnation": 1, "recv_device": consumer.device.encode(), "client_terminated": False,
             "_src": source.name.encode(), "_dst": consumer.name.encode()}
    send_name, recv_name = f"{source.name}/_{next(names)}", f"{source.name}/_{next(names)}"
    extra.setdefault(source.device, []).append(NodeDef(send_name, "_Send", [sent], source.device, {**attrs, "T": dtype}))
    extra.setdefault(consumer.device, []).append(
        NodeDef(recv_name, "_Recv", [], consumer.device, {**attrs, "tensor_type": dtype}))
    if cast_to is not None:
        back = f"{source.name}/_{next(names)}"
        extra[consumer.device].append(NodeDef(back, "Cast", [recv_name], consumer.device,
                                              {"SrcT": dtype, "DstT": cast_to, "Truncate": False}))
        return back
    if index >= 0:
        return recv_name
    gate = f"{source.name}/_{next(names)}"  # as TF's, the consumer waits on an Identity of the received dummy
    extra[consumer.device].append(NodeDef(gate, "Identity", [recv_name], consumer.device, {"T": dtype}))
    return gate


def _output_dtype(source: NodeDef, index: int, consumer: NodeDef) -> dtypes.DType:
    """What crosses: the value of the source's output (a ref output is read on its own device); a consumer
    that wants the ref itself cannot be on another device."""
    dtype = arg_types(op_registry.get(source.op).op_def.output_args, source.attr)[index]
    if dtype._is_ref_dtype:
        position = [parse_input(s) for s in consumer.input if not s.startswith("^")].index((source.name, index))
        wanted = arg_types(op_registry.get(consumer.op).op_def.input_args, consumer.attr)[position]
        if wanted._is_ref_dtype:
            raise errors.InvalidArgumentError(
                consumer, None, f"{consumer.name} on {consumer.device} needs the variable {source.name} on "
                f"{source.device} itself: colocate them (a ref cannot cross devices)")
    return dtype.base_dtype
