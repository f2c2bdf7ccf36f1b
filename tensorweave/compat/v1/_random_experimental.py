"""`tf.random.experimental`: the stateless seed utilities under their experimental names."""

from tensorweave.ops import random_distribution_ops as _random_distribution_ops
from tensorweave.ops import random_index_shuffle_ops as _random_index_shuffle_ops
from tensorweave.ops import stateful_random_ops as _stateful_random_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "random.experimental")
