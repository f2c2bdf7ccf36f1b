"""Static per-node costs for the whitepaper's cost-model placement (§3.2.1): compute time from shapes and
FLOPs, and the time to move a tensor between devices.

Costs come from the `_output_shapes` attr a node carries (`Graph.as_graph_def(add_shapes=True)` writes it;
a session using the cost model asks its client for it); an unknown dimension counts as 1, so a node
without shapes costs next to nothing and placement falls back to keeping things together. The rates are
deliberately rough: the greedy placer only compares alternatives, it never predicts wall time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorweave.framework import op_registry
from tensorweave.framework.graph_def import NodeDef, parse_input
from tensorweave.framework.op_def import arg_types
from tensorweave.framework.tensor_shape import TensorShape

FLOPS_PER_SECOND = 1e10  # one CPU device's sustained BLAS rate, roughly
BYTES_PER_SECOND = 1e10  # a copy between two devices of one process
OP_OVERHEAD_SECONDS = 1e-6  # dispatching one kernel
TRANSFER_OVERHEAD_SECONDS = 1e-5  # one _Send/_Recv pair through the rendezvous

_MATMULS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})
_CONVOLUTIONS = frozenset({"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative"})


def _dims(shape: Any) -> list[int]:
    if not isinstance(shape, TensorShape) or shape.dims is None:
        return []
    return [d if d is not None else 1 for d in shape.as_list()]


def _elements(shape: Any) -> int:
    count = 1
    for d in _dims(shape):
        count *= d
    return count


def output_shapes(node: NodeDef) -> Sequence[Any]:
    return node.attr.get("_output_shapes") or ()


def tensor_bytes(node: NodeDef, index: int) -> int:
    """Bytes of output `index` of `node`, from its shape and its OpDef's dtype."""
    shapes = output_shapes(node)
    if index >= len(shapes):
        return 0
    op = op_registry.registered_ops().get(node.op)
    try:
        dtype = arg_types(op.op_def.output_args, node.attr)[index].base_dtype if op is not None else None
    except (KeyError, IndexError):
        dtype = None
    size = getattr(dtype, "size", 0) or 4
    return _elements(shapes[index]) * size


def compute_seconds(node: NodeDef, by_name: Mapping[str, NodeDef]) -> float:
    """Estimated run time of `node`: MatMul 2mnk, convolution 2 x outputs x window x input channels,
    reductions the input size, everything else (elementwise) one operation per output element."""
    outputs = output_shapes(node)
    first_output = outputs[0] if outputs else None
    inputs = []
    for spec in node.input:
        name, index = parse_input(spec)
        source = by_name.get(name)
        if index >= 0:
            shapes = output_shapes(source) if source is not None else ()
            inputs.append(shapes[index] if index < len(shapes) else None)
    if node.op in _MATMULS and inputs:
        a = _dims(inputs[0])
        transposed = node.attr.get("transpose_a") or node.attr.get("adj_x")
        k = (a[-2] if transposed else a[-1]) if len(a) >= 2 else 1
        flops = 2 * _elements(first_output) * k
    elif node.op in _CONVOLUTIONS and len(inputs) >= 2:
        window = _dims(inputs[1])
        flops = 2 * _elements(first_output) * (window[0] * window[1] * window[2] if len(window) == 4 else 1)
    else:
        flops = max([_elements(s) for s in outputs] + [_elements(s) for s in inputs[:1]] + [1])
    return OP_OVERHEAD_SECONDS + flops / FLOPS_PER_SECOND


def transfer_seconds(source: NodeDef, index: int) -> float:
    """Estimated time for output `index` of `source` to reach another device (a control edge sends a
    scalar)."""
    return TRANSFER_OVERHEAD_SECONDS + (tensor_bytes(source, index) if index >= 0 else 4) / BYTES_PER_SECOND
