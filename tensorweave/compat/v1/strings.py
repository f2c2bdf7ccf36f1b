"""`tf.strings`: the string ops under their TF1 `tf.strings` names."""

from tensorweave.ops import string_ops as _string_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "strings")
