"""`tf.random`: random ops and seeds under their TF1 `tf.random` names."""

from tensorweave.framework.random_seed import get_seed, set_random_seed
from tensorweave.ops.random_ops import multinomial, truncated_normal
from tensorweave.ops.random_ops import random_normal as normal
from tensorweave.ops.random_ops import random_shuffle as shuffle
from tensorweave.ops.random_ops import random_uniform as uniform

__all__ = ["get_seed", "multinomial", "normal", "set_random_seed", "shuffle", "truncated_normal", "uniform"]
