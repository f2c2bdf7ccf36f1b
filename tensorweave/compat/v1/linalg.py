"""`tf.linalg`: the linear-algebra ops under their TF1 `tf.linalg` names."""

from tensorweave.ops.array_ops import transpose
from tensorweave.ops.math_ops import matmul
from tensorweave.ops.nn_ops import l2_normalize

__all__ = ["l2_normalize", "matmul", "transpose"]
