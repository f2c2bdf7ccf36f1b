"""Static float-operation counts per op type, as TF's profiler counts them (its flops_registry and the
`RegisterStatistics("...", "flops")` functions of nn_ops).

Each rule reads the op's static shapes; a shape it needs that is not fully defined raises ValueError, which
the profiler counts as "ops no flops stats due to incomplete shapes". Op types without a rule have no
flops. The counts follow TF's formulas to the letter (a BiasAdd is one flop per input element, a MatMul
2*k per output element, MaxPoolGrad adds one per pooled output, ...), so totals match TF's reports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_RULES: dict[str, Callable[[Any], int]] = {}


def _rule(*op_types: str) -> Callable[[Callable[[Any], int]], Callable[[Any], int]]:
    def register(fn: Callable[[Any], int]) -> Callable[[Any], int]:
        for op_type in op_types:
            _RULES[op_type] = fn
        return fn
    return register


def float_ops(op: Any) -> int | None:
    """The op's flops, None when no rule covers its type; ValueError when a needed shape is incomplete."""
    rule = _RULES.get(op.type)
    return None if rule is None else int(rule(op))


def _dims(tensor: Any) -> list[int]:
    shape = tensor.shape
    if not shape.is_fully_defined():
        raise ValueError(f"Shape {shape} is not fully defined")
    return shape.as_list()


def _count(tensor: Any) -> int:
    count = 1
    for d in _dims(tensor):
        count *= d
    return count


def _per_input(per_element: int) -> Callable[[Any], int]:
    return lambda op: _count(op.inputs[0]) * per_element


def _per_output(per_element: int) -> Callable[[Any], int]:
    return lambda op: _count(op.outputs[0]) * per_element


for _types, _fn in [
    (("Reciprocal", "Square", "Log", "Neg", "AssignSub", "AssignAdd", "BiasAdd"), _per_input(1)),
    (("Rsqrt",), _per_input(2)),
    (("Softmax",), _per_input(5)),
    (("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "GreaterEqual", "Greater",
      "LessEqual", "Less", "Equal", "NotEqual"), _per_output(1)),
    (("SquaredDifference",), _per_output(2)),
    (("RsqrtGrad",), _per_output(4)),
]:
    _rule(*_types)(_fn)


@_rule("L2Loss")
def _l2_loss(op: Any) -> int:
    return _count(op.inputs[0]) * 3 - 1


def _reduction(op: Any, reduce_flops: int, finalize_flops: int) -> int:
    return _count(op.inputs[0]) * reduce_flops + _count(op.outputs[0]) * (finalize_flops - reduce_flops)


@_rule("Mean")
def _mean(op: Any) -> int:
    return _reduction(op, 1, 1)


@_rule("Sum", "ArgMax", "ArgMin", "BiasAddGrad")
def _sum(op: Any) -> int:
    return _reduction(op, 1, 0)


def _nhwc_only(op: Any) -> None:
    if op.get_attr("data_format") not in (b"NHWC", "NHWC"):
        raise ValueError("Only NHWC format is supported in flops computations")


def _kernel_area(op: Any) -> int:
    area = 1
    for k in op.get_attr("ksize"):
        area *= k
    return area


@_rule("AvgPool", "MaxPool")
def _pool(op: Any) -> int:
    _nhwc_only(op)
    return _kernel_area(op) * _count(op.outputs[0])


@_rule("AvgPoolGrad")
def _avg_pool_grad(op: Any) -> int:
    _nhwc_only(op)
    return _kernel_area(op) * _count(op.inputs[1]) * 2


@_rule("MaxPoolGrad")
def _max_pool_grad(op: Any) -> int:
    _nhwc_only(op)
    pooled = _count(op.inputs[1])
    return _kernel_area(op) * pooled + pooled


def _stride_area(op: Any) -> int:
    strides = op.get_attr("strides")
    return strides[1] * strides[2]


@_rule("Conv2DBackpropInput")
def _conv2d_backprop_input(op: Any) -> int:
    _nhwc_only(op)
    out = _dims(op.outputs[0])
    return int(2 * _count(op.outputs[0]) * _count(op.inputs[1]) / (out[-1] * _stride_area(op)))


@_rule("Conv2DBackpropFilter")
def _conv2d_backprop_filter(op: Any) -> int:
    _nhwc_only(op)
    image = _dims(op.inputs[0])
    return int(2 * _count(op.inputs[0]) * _count(op.outputs[0]) / (image[-1] * _stride_area(op)))


@_rule("AddN")
def _add_n(op: Any) -> int:
    if not op.inputs:
        return 0
    return _count(op.inputs[0]) * (len(op.inputs) - 1)


@_rule("MatMul")
def _matmul(op: Any) -> int:
    a = _dims(op.inputs[0])
    k = a[0] if op.get_attr("transpose_a") else a[1]
    return k * _count(op.outputs[0]) * 2


@_rule("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def _batch_matmul(op: Any) -> int:
    # TF reads a `transpose_a` attr these ops do not have (theirs is adj_x): k is always a's last dimension.
    a = _dims(op.inputs[0])
    return a[-1] * _count(op.outputs[0]) * 2


@_rule("Conv2D")
def _conv2d(op: Any) -> int:
    _dims(op.inputs[0])
    f = _dims(op.inputs[1])
    return _count(op.outputs[0]) * f[2] * f[0] * f[1] * 2


@_rule("Conv3D")
def _conv3d(op: Any) -> int:
    _dims(op.inputs[0])
    f = _dims(op.inputs[1])
    return _count(op.outputs[0]) * f[3] * f[0] * f[1] * f[2] * 2


@_rule("DepthwiseConv2dNative", "Dilation2D")
def _depthwise(op: Any) -> int:
    _dims(op.inputs[0])
    f = _dims(op.inputs[1])
    return _count(op.outputs[0]) * f[0] * f[1] * 2
