"""The session's graph, placed once (TF's GraphExecutionState).

The client's graph reaches the session as IR NodeDefs, a few at a time (`extend`, as the graph grows). Each
batch is checked (duplicate names, kernels for its attrs) and placed when it arrives, and every node keeps
that device for the life of the session: a variable and the ops that update it run on the same device in
every plan, whatever that plan fetches. Plans are built from `placed_graph()` by pruning it, never by
placing again. Dtypes of feeds and fetches come from the nodes and their OpDefs (`output_dtype`), so a
master that holds only a GraphDef can build plans too.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Collection, Sequence

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import arg_types
from tensorweave.runtime.place import check_kernels, place


class ExecutionState:
    """All nodes the session has been given, each with its device."""

    def __init__(self, devices: Sequence[DeviceBase], allow_soft_placement: bool = False,
                 cost_model: bool = False) -> None:
        self._devices = list(devices)
        self._allow_soft_placement = allow_soft_placement
        self._cost_model = cost_model
        self._nodes: dict[str, NodeDef] = {}
        self._placed: list[NodeDef] = []
        self._lock = threading.Lock()

    def extend(self, nodes: Sequence[NodeDef]) -> list[NodeDef]:
        """Check and place new nodes; returns them placed. On error nothing is added, so the client, which
        keeps the nodes, sends them again and every later run fails the same way, as in TF."""
        with self._lock:
            seen = set(self._nodes)
            for node in nodes:
                if node.name in self._nodes:
                    raise errors.InvalidArgumentError(
                        node, None, f"GraphDef argument to Extend includes node '{node.name}', which was created by "
                        "a previous call to Create or Extend in this session.")
                if node.name in seen:
                    raise errors.InvalidArgumentError(node, None, f"Duplicate node name in graph: '{node.name}'")
                seen.add(node.name)
            for node in nodes:  # a remote client's graph may name what it never sent
                for spec in node.input:
                    source, index = parse_input(spec)
                    if source not in seen:
                        raise errors.InvalidArgumentError(node, None, f"Node '{node.name}': Unknown input node "
                                                          f"'{source}'")
                    self._check_output_index(node, source, index)
            batch = GraphDef(node=list(nodes))
            check_kernels(batch, self._devices)
            earlier = {name: node.device for name, node in self._nodes.items()}
            placed = place(batch, self._devices, self._allow_soft_placement, earlier, self._cost_model).node
            for node in placed:
                self._nodes[node.name] = node
            self._placed.extend(placed)
            return placed

    def _check_output_index(self, node: NodeDef, source: str, index: int) -> None:
        """An input from an output the session's copy of its node lacks (the client's node gained outputs
        after the session had it, as a While does when its gradient adds accumulators) fails as in TF."""
        known = self._nodes.get(source)
        if known is None or index < 0:
            return
        try:
            count = len(arg_types(op_registry.get(known.op).op_def.output_args, known.attr))
        except (KeyError, TypeError):
            return
        if index >= count:
            raise errors.InvalidArgumentError(
                node, None, f"Node '{node.name}': Connecting to invalid output {index} of source node {source} which "
                f"has {count} outputs. Try using tf.compat.v1.experimental.output_all_intermediates(True).")

    def placed_graph(self) -> GraphDef:
        """Every node so far, with its device (a snapshot: later extensions do not change it)."""
        with self._lock:
            return GraphDef(node=list(self._placed))

    def device_of(self, name: str) -> str:
        return self._nodes[name].device

    def node(self, name: str) -> NodeDef | None:
        """The node of that name, if the graph has one."""
        return self._nodes.get(name)

    def output_dtype(self, tensor: str, as_ref: bool = False) -> dtypes.DType:
        """The dtype of 'node:index' from its NodeDef and OpDef; a ref output as its value type unless
        `as_ref` (a partial run carries a variable itself between its rounds)."""
        name, index = parse_input(tensor)
        node = self._nodes.get(name)
        if node is None:
            raise errors.NotFoundError(None, None, f"Tensor {tensor} is not in the session's graph")
        dtype = arg_types(op_registry.get(node.op).op_def.output_args, node.attr)[index]
        return dtype if as_ref else dtype.base_dtype


    def tensor_types(self, tensors: Sequence[str], refs: Collection[str] = ()) -> dict[str, dtypes.DType]:
        """The dtypes of the named feeds and fetches that are in the graph (pruning reports the others);
        those in `refs` as refs."""
        types = {}
        with self._lock:
            known = set(self._nodes)
        for tensor in tensors:
            name, index = parse_input(tensor)
            if name in known and index >= 0:
                try:
                    types[tensor] = self.output_dtype(tensor, tensor in refs)
                except IndexError:
                    pass
        return types


def without_outside_control_inputs(graph_def: GraphDef, names: Sequence[str]) -> GraphDef:
    """The graph with the control inputs that `names` take from other nodes dropped (a partial-run round:
    those nodes ran in an earlier round)."""
    inside = set(names)
    result = []
    for node in graph_def.node:
        if node.name in inside and any(spec.startswith("^") and spec[1:] not in inside for spec in node.input):
            kept = [spec for spec in node.input if not spec.startswith("^") or spec[1:] in inside]
            node = dataclasses.replace(node, input=kept)
        result.append(node)
    return GraphDef(node=result, producer=graph_def.producer)
