"""`tf.linalg`: the linear-algebra ops under their TF1 `tf.linalg` names."""

from tensorweave.ops.linalg_ops import matmul
from tensorweave.ops.manipulation_ops import matrix_transpose
from tensorweave.ops.manipulation_ops import matrix_transpose as transpose
from tensorweave.ops.nn_ops import global_norm, l2_normalize

__all__ = ["global_norm", "l2_normalize", "matmul", "matrix_transpose", "transpose"]
