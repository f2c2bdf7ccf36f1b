"""`tf.random`: random ops and seeds under their TF1 `tf.random` names."""

from tensorweave.framework.random_seed import get_seed, set_random_seed
from tensorweave.ops.random_ops import random_normal as normal
from tensorweave.ops.random_ops import random_uniform as uniform
from tensorweave.ops.random_ops import truncated_normal

__all__ = ["get_seed", "normal", "set_random_seed", "truncated_normal", "uniform"]
