"""`tf.strings`: the string ops under their TF1 `tf.strings` names."""

from tensorweave.ops import string_ops as _string_ops
from tensorweave.ops import unicode_ops as _unicode_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "strings")
