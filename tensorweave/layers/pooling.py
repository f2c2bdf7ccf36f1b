"""Max and average pooling layers (1-D, 2-D and 3-D) and their functional forms, as TF1's `tf.layers`.

2-D and 3-D pooling are nn.max_pool/avg_pool(3d) under the layer's scope (`max_pooling2d/MaxPool`,
`max_pooling3d/MaxPool3D`); 1-D pooling is TF's
composition: ExpandDims to a unit width, the 2-D pool, Squeeze (`max_pooling1d/Squeeze`).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.layers.base import InputSpec, Layer, deprecated_functional_form
from tensorweave.layers.convolutional import (
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
)
from tensorweave.ops import manipulation_ops, nn_conv3d_ops, nn_conv_ops, shape_ops
from tensorweave.platform.tf_export import tf_export


class _Pooling(Layer):
    """Pooling over `rank` spatial dimensions with window `pool_size` and step `strides`."""

    _rank = 2
    _pool_function: Any = None

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self.input_spec = InputSpec(ndim=self._rank + 2)
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = normalize_tuple(strides, self._rank, "strides", allow_zero=True)
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size, "padding": self.padding,
                "strides": self.strides, "data_format": self.data_format}

    def _pool(self, inputs: Tensor, pool_size: tuple, strides: tuple) -> Tensor:
        """The tf.nn pool over len(pool_size) (2 or 3) spatial dimensions."""
        spatial = "HW" if len(pool_size) == 2 else "DHW"
        if self.data_format == "channels_first":
            ksize, steps, data_format = [1, 1, *pool_size], [1, 1, *strides], f"NC{spatial}"
        else:
            ksize, steps, data_format = [1, *pool_size, 1], [1, *strides, 1], f"N{spatial}C"
        return type(self)._pool_function(inputs, ksize, steps, self.padding.upper(), data_format=data_format)

    def call(self, inputs: Tensor) -> Tensor:
        if self._rank == 3 and self.data_format == "channels_first":
            # As TF's layer: 3-D pooling runs channels-last between two transposes.
            outputs = type(self)._pool_function(
                manipulation_ops.transpose(inputs, (0, 2, 3, 4, 1)), [1, *self.pool_size, 1],
                [1, *self.strides, 1], self.padding.upper())
            return manipulation_ops.transpose(outputs, (0, 4, 1, 2, 3))
        if self._rank > 1:
            return self._pool(inputs, self.pool_size, self.strides)
        axis = 3 if self.data_format == "channels_first" else 2
        expanded = shape_ops.expand_dims(inputs, axis)
        outputs = self._pool(expanded, (*self.pool_size, 1), (*self.strides, 1))
        return shape_ops.squeeze(outputs, [axis])

    def compute_output_shape(self, input_shape: Any) -> tensor_shape.TensorShape:
        dims = tensor_shape.TensorShape(input_shape).as_list()
        first = 2 if self.data_format == "channels_first" else 1
        for i in range(self._rank):
            dims[first + i] = conv_output_length(dims[first + i], self.pool_size[i], self.padding, self.strides[i])
        return tensor_shape.TensorShape(dims)


@tf_export("layers.MaxPooling1D")
class MaxPooling1D(_Pooling):
    """The maximum over windows of [batch, steps, channels] inputs."""

    _rank = 1
    _pool_function = staticmethod(nn_conv_ops.max_pool)


@tf_export("layers.AveragePooling1D")
class AveragePooling1D(_Pooling):
    """The mean over windows of [batch, steps, channels] inputs (padding not counted)."""

    _rank = 1
    _pool_function = staticmethod(nn_conv_ops.avg_pool)


@tf_export("layers.MaxPooling2D")
class MaxPooling2D(_Pooling):
    """The maximum over windows of [batch, height, width, channels] inputs."""

    _pool_function = staticmethod(nn_conv_ops.max_pool)


@tf_export("layers.AveragePooling2D")
class AveragePooling2D(_Pooling):
    """The mean over windows of [batch, height, width, channels] inputs (padding not counted)."""

    _pool_function = staticmethod(nn_conv_ops.avg_pool)


@tf_export("layers.MaxPooling3D")
class MaxPooling3D(_Pooling):
    """The maximum over windows of [batch, depth, height, width, channels] inputs."""

    _rank = 3
    _pool_function = staticmethod(nn_conv3d_ops.max_pool3d)


@tf_export("layers.AveragePooling3D")
class AveragePooling3D(_Pooling):
    """The mean over windows of [batch, depth, height, width, channels] inputs (padding not counted)."""

    _rank = 3
    _pool_function = staticmethod(nn_conv3d_ops.avg_pool3d)


def _apply(layer_class: type, inputs: Any, pool_size: Any, strides: Any, padding: str, data_format: str,
           name: str | None) -> Tensor:
    return layer_class(pool_size, strides, padding=padding, data_format=data_format, name=name).apply(inputs)


@tf_export("layers.max_pooling1d")
@deprecated_functional_form("MaxPooling1D")
def max_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _apply(MaxPooling1D, inputs, pool_size, strides, padding, data_format, name)


@tf_export("layers.average_pooling1d")
@deprecated_functional_form("AveragePooling1D")
def average_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _apply(AveragePooling1D, inputs, pool_size, strides, padding, data_format, name)


@tf_export("layers.max_pooling2d")
@deprecated_functional_form("MaxPooling2D")
def max_pooling2d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _apply(MaxPooling2D, inputs, pool_size, strides, padding, data_format, name)


@tf_export("layers.average_pooling2d")
@deprecated_functional_form("AveragePooling2D")
def average_pooling2d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _apply(AveragePooling2D, inputs, pool_size, strides, padding, data_format, name)


@tf_export("layers.max_pooling3d")
@deprecated_functional_form("MaxPooling3D")
def max_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _apply(MaxPooling3D, inputs, pool_size, strides, padding, data_format, name)


@tf_export("layers.average_pooling3d")
@deprecated_functional_form("AveragePooling3D")
def average_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _apply(AveragePooling3D, inputs, pool_size, strides, padding, data_format, name)
