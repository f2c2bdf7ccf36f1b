"""`tf.quantization`: quantize/dequantize and the fake-quantization ops of quantization-aware training."""

from tensorweave.ops import quantize_ops as _quantize_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "quantization")
