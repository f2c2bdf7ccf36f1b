"""Placement: every node of a step gets one of the session's devices.

A node's requested device, full or partial ('/device:GPU:0', '/job:worker/task:1', '/cpu:*'), must match
a device of the session; otherwise it is TF's InvalidArgumentError, unless `allow_soft_placement` lets
the node fall back to the first device whose type has its kernel. Nodes without a request go to the
first device. (The devices issue adds colocation groups and the papers' cost-model placement here.)
Pure function over GraphDefs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
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


def place(graph_def: GraphDef, devices: Sequence[Any], allow_soft_placement: bool = False) -> GraphDef:
    """The graph with every node's device set to the full name of the device it runs on."""
    out = []
    try:
        for node in graph_def.node:
            name = _device_for(node, devices, allow_soft_placement).name
            out.append(node if node.device == name else dataclasses.replace(node, device=name))
    except errors.InvalidArgumentError as error:
        failure = error
    else:
        return GraphDef(node=out, producer=graph_def.producer)
    for node in graph_def.node:  # TF places generators last: the error it reports is the first other node's
        if not is_generator(node):
            _device_for(node, devices, allow_soft_placement)
    raise failure
