"""`tf.debugging`: numeric checks, asserts and `tf.debugging.Assert` under their TF1 `tf.debugging` names."""

from tensorweave.client import config as _config
from tensorweave.ops import check_numerics_callback as _check_numerics_callback
from tensorweave.ops import check_ops as _check_ops
from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.ops import logging_ops as _logging_ops
from tensorweave.platform import traceback_utils as _traceback_utils
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "debugging")
