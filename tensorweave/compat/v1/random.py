"""`tf.random`: random ops and seeds under their TF1 `tf.random` names."""

from tensorweave.compat.v1 import _random_experimental as experimental
from tensorweave.framework import random_seed as _random_seed
from tensorweave.ops import candidate_sampling_ops as _candidate_sampling_ops
from tensorweave.ops import random_distribution_ops as _random_distribution_ops
from tensorweave.ops import random_ops as _random_ops
from tensorweave.ops import stateful_random_ops as _stateful_random_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "random")
