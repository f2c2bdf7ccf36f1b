"""`tf.io`: TFRecord files, `gfile` and the image codecs under their `tf.io` names.

TF1 keeps make_tensor_proto at the top level only. The TFRecord names are declared with `tf.python_io`'s.
"""

from tensorweave.compat.v1 import _io_gfile as gfile
from tensorweave.compat.v1 import python_io as _python_io
from tensorweave.ops import data_flow_ops as _data_flow_ops
from tensorweave.ops import image_ops as _image_ops
from tensorweave.ops import io_ops as _io_ops
from tensorweave.ops import parsing_ops as _parsing_ops
from tensorweave.ops import proto_ops as _proto_ops
from tensorweave.ops import sparse_misc_ops as _sparse_misc_ops
from tensorweave.ops import string_ops as _string_ops
from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train import input as _input

_populate(globals(), "io")
