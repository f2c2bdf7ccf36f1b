"""`tf.quantization`: quantize/dequantize, quantize-and-dequantize, the fake-quantization ops of
quantization-aware training, and quantized_concat."""

from tensorweave.ops import quantize_ops as _quantize_ops
from tensorweave.ops import quantized_ops as _quantized_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "quantization")
