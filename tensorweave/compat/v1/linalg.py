"""`tf.linalg`: the linear-algebra ops under their TF1 `tf.linalg` names."""

from tensorweave.ops.array_ops import transpose
from tensorweave.ops.math_ops import matmul

__all__ = ["matmul", "transpose"]
