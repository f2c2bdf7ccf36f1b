"""Neural-network ops: activations (the op-library issue adds convolutions, pooling, losses)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_registry import Op

Relu = Op("Relu", inputs=["features: T"], outputs=["activations: T"],
          attrs=["T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, qint8}"])


@Relu.shape
def _relu_shape(op: Any) -> list:
    return [op.inputs[0].shape]


@Relu.kernel("CPU", "GPU")
def _relu(ctx: Any, features: Any) -> Any:
    return np.maximum(features, 0) if ctx.xp is np else ctx.xp.maximum(features, 0)


def relu(features: Any, name: str | None = None) -> Tensor:
    """max(features, 0)."""
    return Relu(features, name=name)
