"""Partition a placed step graph into one GraphDef per device (TF's graph/graph_partition).

Every node goes to the partition of its device; the call-frame nodes (`_Arg`, `_Retval`) go to the client's
device, where feeds arrive and fetches are read. An edge between
partitions becomes a `_Send` on the producer's device and a `_Recv` on the consumer's, named and keyed as
TF's partitioner does (`src/_0` and `src/_1`, tensor name `edge_<id>_<src>`): one pair per tensor and
consuming device. A control edge between partitions sends a dummy constant that runs after the source, and
the consumer waits on its `_Recv`. The executors of a step exchange these values through the step's
rendezvous, deadness included.

A loop whose frame spans devices (TF's AddControlFlow, whitepaper §4.4): the device of the loop's LoopCond
leads; every other device that receives a value inside the frame gets a control loop of its own (Enter,
Merge, Switch on the leader's predicate, NextIteration: one iteration per iteration of the real loop, and
no Exit), and each `_Recv` inside the frame waits on that control loop's Merge, so it is in the frame and
runs once per iteration (the rendezvous key carries the frame and iteration). In the last iteration the
predicate is false, the control loop stops, and what is sent from dead nodes arrives dead. A frame nested
in another stacks its control loop on the outer one's. Pure function.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import arg_types

# the op types of a loop's frame nodes, ref variants included
ENTER = frozenset({"Enter", "RefEnter"})
EXIT = frozenset({"Exit", "RefExit"})
NEXT_ITERATION = frozenset({"NextIteration", "RefNextIteration"})
MERGE = frozenset({"Merge", "RefMerge"})
SWITCH = frozenset({"Switch", "RefSwitch"})


def partition(graph_def: GraphDef, client_device: str, bfloat16_sendrecv: bool = False,
              names: Iterator[int] | None = None) -> dict[str, GraphDef]:
    """The step's graph split by device, in graph order within each partition. With `bfloat16_sendrecv`
    (GraphOptions.enable_bfloat16_sendrecv), a float32 tensor crosses as bfloat16: a Cast before its
    `_Send` and one after its `_Recv`, as TF's partitioner adds them. `names` numbers the added nodes: a
    session passes one counter for all its plans (TF's `new_name`), since it keeps stateful kernels
    (`_Send` and `_Recv` among them) by node name, and two plans' transfers must never share one."""
    nodes = _with_call_frame_devices(graph_def, client_device)
    names = itertools.count() if names is None else names
    nodes, edge_frame, control_merges = _add_control_loops(nodes, names)
    by_name = {n.name: n for n in nodes}
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
                gate = control_merges.get((edge_frame(source, node), node.device))
                recv = transfers[key] = _add_transfer(source, index, spec, node, names, next(edge_ids), extra,
                                                      bfloat16_sendrecv, gate)
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


def node_frames(nodes: Sequence[NodeDef]) -> tuple[list[str], dict[str, str]]:
    """Each node's loop frame ('' for the root) and each frame's parent frame, as TF infers them: a node is in
    the frame of its first input's node; past an Enter it is in the Enter's frame, past an Exit in the frame
    the exited one was entered from (an Enter itself lives in the parent frame, an Exit in the inner one)."""
    index = {n.name: i for i, n in enumerate(nodes)}
    successors: list[list[int]] = [[] for _ in nodes]
    waiting = [0] * len(nodes)
    for i, node in enumerate(nodes):
        for spec in node.input:
            source = index[parse_input(spec)[0]]
            successors[source].append(i)
            if nodes[source].op not in NEXT_ITERATION:
                waiting[i] += 1
    frames: list[str | None] = [None] * len(nodes)
    parents: dict[str, str] = {}
    ready = [i for i, count in enumerate(waiting) if count == 0]
    while ready:
        i = ready.pop()
        node = nodes[i]
        frame = frames[i] = frames[i] or ""
        if node.op in ENTER:
            parents.setdefault(node.attr["frame_name"].decode(), frame)
            frame = node.attr["frame_name"].decode()
        elif node.op in EXIT:
            frame = parents.get(frame, "")
        if node.op in NEXT_ITERATION:
            continue
        for successor in successors[i]:
            if frames[successor] is None:
                frames[successor] = frame
            waiting[successor] -= 1
            if waiting[successor] == 0:
                ready.append(successor)
    return [f or "" for f in frames], parents


def _add_control_loops(nodes: list[NodeDef], names: Iterator[int]
                       ) -> tuple[list[NodeDef], Callable[[NodeDef, NodeDef], str], dict[tuple[str, str], str]]:
    """The nodes with a control loop for every (frame, device) that receives a value inside that frame from
    another device; the frame an edge runs in; and the Merge of each control loop by (frame, device)."""
    frames, parents = node_frames(nodes)
    frame_of = {n.name: f for n, f in zip(nodes, frames)}
    by_name = {n.name: n for n in nodes}
    loop_conds = {frame_of[n.name]: n for n in nodes if n.op == "LoopCond"}
    parallel = {n.attr["frame_name"].decode(): n.attr["parallel_iterations"] for n in nodes if n.op in ENTER}

    def edge_frame(source: NodeDef, consumer: NodeDef) -> str:
        """The frame an edge lives in: '' unless its two ends see the same loop frame."""
        if source.op in ENTER:
            out_frame = source.attr["frame_name"].decode()
        elif source.op in EXIT:
            out_frame = parents.get(frame_of[source.name], "")
        else:
            out_frame = frame_of[source.name]
        return out_frame if out_frame == frame_of[consumer.name] else ""

    merges: dict[tuple[str, str], str] = {}
    added: list[NodeDef] = []

    def control_loop(frame: str, device: str, consumer: str) -> str:
        """The Merge of `frame`'s control loop on `device`, made (with its outer frames' loops) if new."""
        merge = merges.get((frame, device))
        if merge is not None:
            return merge
        if frame not in loop_conds:
            raise errors.InvalidArgumentError(None, None, f"A cross-device loop must have a pivot predicate: {frame}")
        outer = parents.get(frame, "")
        if outer:
            entered = control_loop(outer, device, consumer)
        else:
            entered = f"{consumer}/_{next(names)}"
            added.append(NodeDef(entered, "Const", [], device, {"value": np.zeros((0,), np.float32),
                                                                 "dtype": dtypes.float32}))
            frame_of[entered] = ""
        enter, merge, switch, next_iteration = (f"_cloop{consumer}/_{next(names)}" for _ in range(4))
        flow = {"T": dtypes.float32}
        added.extend([
            NodeDef(enter, "Enter", [entered], device, {**flow, "frame_name": frame.encode(), "is_constant": False,
                                                        "parallel_iterations": parallel[frame]}),
            NodeDef(merge, "Merge", [enter, next_iteration], device, {**flow, "N": 2}),
            NodeDef(switch, "Switch", [merge, loop_conds[frame].name], device, flow),
            NodeDef(next_iteration, "NextIteration", [f"{switch}:1"], device, flow)])
        frame_of[enter] = outer
        frame_of.update({merge: frame, switch: frame, next_iteration: frame})
        merges[(frame, device)] = merge
        return merge

    # devices whose own Merges in a frame start its iterations there (a loop variable's nodes, placed together)
    iterating = {(frame_of[n.name], n.device) for n in nodes if n.op in MERGE}
    for node in list(nodes):
        for spec in node.input:
            source = by_name[parse_input(spec)[0]]
            frame = edge_frame(source, node)
            if source.device != node.device and frame:
                control_loop(frame, node.device, node.name)
                if (frame, source.device) not in iterating:  # a loop invariant sent from a device that has
                    control_loop(frame, source.device, node.name)  # no loop of its own: one per iteration
    # the leader's predicate reaches each control loop's Switch through a _Recv gated by that loop's Merge
    return nodes + added, edge_frame, merges


def _add_transfer(source: NodeDef, index: int, spec: str, consumer: NodeDef, names: Iterator[int],
                  edge_id: int, extra: dict[str, list[NodeDef]], bfloat16_sendrecv: bool = False,
                  gate: str | None = None) -> str:
    """Add the _Send (source side) and _Recv (consumer side) of one edge; returns the name of the node the
    consumer reads (the _Recv, or the Cast back to float32 after it). A `gate` (a control loop's Merge) puts
    the _Recv in its loop frame."""
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
        NodeDef(recv_name, "_Recv", ["^" + gate] if gate else [], consumer.device, {**attrs, "tensor_type": dtype}))
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
