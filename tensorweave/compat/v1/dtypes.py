"""`tf.dtypes`: DType, the dtype constants, and the casts TF1 also lists there."""

from tensorweave.framework import dtypes as _dtypes
from tensorweave.ops import cast_ops as _cast_ops
from tensorweave.ops import clip_ops as _clip_ops
from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.ops import string_ops as _string_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "dtypes")
