"""`tf.bitwise`: the integer bitwise ops, called as TF's generated wrappers (x, y, name=None)."""

from tensorweave.ops.elementwise_ops import BitwiseAnd as bitwise_and
from tensorweave.ops.elementwise_ops import BitwiseOr as bitwise_or
from tensorweave.ops.elementwise_ops import BitwiseXor as bitwise_xor
from tensorweave.ops.elementwise_ops import Invert as invert

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert"]
