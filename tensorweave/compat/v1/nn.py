"""`tf.nn`: neural-network ops."""

from tensorweave.ops.math_ops import sigmoid, tanh
from tensorweave.ops.nn_ops import (
    bias_add,
    dropout,
    elu,
    l2_loss,
    leaky_relu,
    log_softmax,
    relu,
    relu6,
    selu,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    softplus,
    softsign,
    sparse_softmax_cross_entropy_with_logits,
)

__all__ = [
    "bias_add",
    "dropout",
    "elu",
    "l2_loss",
    "leaky_relu",
    "log_softmax",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
]
