"""`tf.debugging`: numeric checks under their TF1 `tf.debugging` names."""

from tensorweave.ops.elementwise_ops import is_finite, is_inf, is_nan

__all__ = ["is_finite", "is_inf", "is_nan"]
