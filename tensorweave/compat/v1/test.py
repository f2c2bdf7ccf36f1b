"""`tf.compat.v1.test`: graph-mode test cases and the test-environment queries."""

from tensorweave import testing as _testing
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "test")
