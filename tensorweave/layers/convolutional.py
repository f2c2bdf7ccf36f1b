"""Convolution layers and their functional forms, as TF1's `tf.layers` (the legacy Keras layers).

Each layer owns `kernel` (and `bias`, or `depthwise_kernel`/`pointwise_kernel` for the separable ones)
shaped as TF's: kernel_size + (input channels, filters), or (kh, kw, filters, input channels) for the
transpose. The computation is the tf.nn op under TF's op names (`conv2d/Conv2D`, `conv1d/Conv1D/Squeeze`,
`conv2d_transpose/conv2d_transpose`, `conv3d/Conv3D`, `conv3d_transpose/conv3d_transpose`,
`separable_conv2d/separable_conv2d`) followed by bias_add.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorweave.framework import tensor_shape, tf2
from tensorweave.framework.graph import Tensor
from tensorweave.layers.base import (
    InputSpec,
    Layer,
    deprecated_functional_form,
    get_activation,
    get_initializer,
    serialize,
)
from tensorweave.layers.core import _ZEROS
from tensorweave.ops import init_ops, manipulation_ops, nn_conv3d_ops, nn_conv_ops, nn_ops, shape_ops
from tensorweave.platform.tf_export import tf_export


def normalize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> tuple[int, ...]:
    """One int or n ints, positive (or also zero, `allow_zero`), as Keras' conv_utils accepts a size, stride
    or rate argument, with its messages."""
    message = f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
    if isinstance(value, int):
        values: tuple = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for single in values:
            try:
                int(single)
            except (ValueError, TypeError):
                raise ValueError(f"{message}including element {single} of type {type(single)}") from None
        values = tuple(int(v) for v in values)
    unqualified = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if unqualified:
        raise ValueError(f"{message} including {unqualified} that does not satisfy the requirement "
                         f"`{'>= 0' if allow_zero else '> 0'}`.")
    return values


def normalize_padding(padding: str) -> str:
    padding = padding.lower()
    if padding not in ("valid", "same", "causal"):
        raise ValueError("The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or \"causal\", "
                         f"only for `Conv1D). Received: {padding}")
    return padding


def normalize_data_format(data_format: str | None) -> str:
    value = (data_format or "channels_last").lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(f"The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         f"Received: {data_format}")
    return value


def conv_output_length(length: int | None, filter_size: int, padding: str, stride: int, dilation: int = 1
                       ) -> int | None:
    """A convolution's or pool's output length along one dimension (None when the input's is unknown)."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    out = length if padding in ("same", "causal") else length - dilated + 1
    return (out + stride - 1) // stride


def deconv_output_length(length: Any, filter_size: int, padding: str, stride: int, dilation: int = 1,
                         output_padding: int | None = None) -> Any:
    """A transposed convolution's output length: an int, or a scalar tensor when the input's is dynamic."""
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is not None:
        pad = dilated // 2 if padding == "same" else 0
        return (length - 1) * stride + dilated - 2 * pad + output_padding
    if padding == "valid":
        return length * stride + max(dilated - stride, 0)
    return length * stride


class _Conv(Layer):
    """The N-D convolution layer (N = 1, 2 or 3): outputs = activation(conv(inputs, kernel) + bias)."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, activation: Callable | None = None,
                 use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        groups = kwargs.pop("groups", 1)  # Keras's, which TF's tf.layers pass on among their keyword arguments
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={self.filters}.")
        self.groups = groups or 1
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        if self.filters % self.groups != 0:
            raise ValueError("The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={self.groups}, filters={self.filters}")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0(s). Received: {self.strides}")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if self.padding == "causal" and not self._allows_causal:
            raise ValueError("Causal padding is only supported for `Conv1D`and `SeparableConv1D`.")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, "groups": self.groups,
                "activation": serialize(self.activation), "use_bias": self.use_bias,
                **{key: serialize(getattr(self, key)) for key in (
                    "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer")},
                "activity_regularizer": serialize(self._activity_regularizer),
                "kernel_constraint": serialize(self.kernel_constraint),
                "bias_constraint": serialize(self.bias_constraint)}

    # Whether padding may be "causal": left-padding the steps so no output sees a later input (1-D only).
    _allows_causal = False

    def _causal_pad(self, inputs: Tensor) -> Tensor:
        """Inputs left-padded along the steps by the dilated kernel's overhang, for "causal" padding."""
        if self.padding != "causal":
            return inputs
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        batch_rank = 1 if inputs.shape.ndims is None else inputs.shape.ndims - 2
        paddings = [[0, 0]] * batch_rank + ([[0, 0], [left, 0]] if self._channels_first else [[left, 0], [0, 0]])
        return manipulation_ops.pad(inputs, paddings)

    @property
    def _op_padding(self) -> str:
        return "VALID" if self.padding == "causal" else self.padding.upper()

    @property
    def _channel_axis(self) -> int:
        """The channel axis counted from the end, as the input spec names it."""
        return -1 - self.rank if self._channels_first else -1

    @property
    def _channels_first(self) -> bool:
        return self.data_format == "channels_first"

    @property
    def _nn_format(self) -> str:
        """The tf.nn data_format of a rank-(rank + 2) input."""
        spatial = {1: "W", 2: "HW", 3: "DHW"}[self.rank]
        return f"NC{spatial}" if self._channels_first else f"N{spatial}C"

    def _input_channels(self, input_shape: tensor_shape.TensorShape) -> int:
        """The input's channels, at `_channel_axis` counted from the end as Keras reads them, so that any
        number of batch dimensions comes before."""
        input_shape = tensor_shape.TensorShape(input_shape)
        channels = input_shape.as_list()[self._channel_axis] if input_shape.ndims else None
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. The input_shape received "
                             f"is {input_shape}, where axis {self._channel_axis} (0-based) is the "
                             "channel dimension, which found to be `None`.")
        return int(channels)

    def _add_bias(self) -> None:
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def build(self, input_shape: Any) -> None:
        channels = self._input_channels(input_shape)
        if channels % self.groups != 0:
            raise ValueError("The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {channels} channels (full input "
                             f"shape is {tensor_shape.TensorShape(input_shape)}).")
        self.kernel = self.add_weight("kernel", [*self.kernel_size, channels // self.groups, self.filters],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._add_bias()
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def _bias_and_activation(self, outputs: Tensor) -> Tensor:
        if self.use_bias:
            if self.rank == 1 and self._channels_first:
                outputs = outputs + shape_ops.reshape(self.bias, [1, self.filters, 1])
            else:
                data_format = "NCHW" if self._channels_first else "NHWC"
                rank = outputs.shape.ndims
                if rank is not None and rank > 2 + self.rank:  # more than one batch dimension
                    outputs = nn_conv_ops.squeeze_batch_dims(
                        outputs, lambda o: nn_ops.bias_add(o, self.bias, data_format=data_format),
                        inner_rank=self.rank + 1)
                else:
                    outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        return self.activation(outputs)

    def call(self, inputs: Tensor) -> Tensor:
        outputs = nn_conv_ops.convolution(self._causal_pad(inputs), self.kernel, self._op_padding,
                                          strides=list(self.strides), dilation_rate=list(self.dilation_rate),
                                          data_format=self._nn_format, name=type(self).__name__)
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return self._bias_and_activation(outputs)

    def _spatial_axes(self) -> range:
        return range(2, self.rank + 2) if self._channels_first else range(1, self.rank + 1)

    def compute_output_shape(self, input_shape: Any) -> tensor_shape.TensorShape:
        """The output's shape: the batch dimensions (one or more) as the input's, the spatial ones by the
        kernel, strides, dilation and padding, `filters` channels."""
        dims = tensor_shape.TensorShape(input_shape).as_list()
        first = len(dims) - self.rank - (0 if self._channels_first else 1)
        for i, axis in enumerate(range(first, first + self.rank)):
            dims[axis] = conv_output_length(dims[axis], self.kernel_size[i], self.padding, self.strides[i],
                                            self.dilation_rate[i])
        dims[self._channel_axis] = self.filters
        return tensor_shape.TensorShape(dims)


@tf_export("layers.Conv1D")
class Conv1D(_Conv):
    """The 1-D convolution layer (temporal convolution) over [batch, steps, channels] inputs."""

    _allows_causal = True

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, activation: Callable | None = None,
                 use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)


@tf_export("layers.Conv2D")
class Conv2D(_Conv):
    """The 2-D convolution layer over [batch, height, width, channels] (or channels_first) inputs."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = (1, 1),
                 activation: Callable | None = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = _ZEROS, kernel_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                 kernel_constraint: Callable | None = None, bias_constraint: Callable | None = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)


class _Transpose:
    """The transposed convolution's weights and call, shared by Conv2DTranspose and Conv3DTranspose: kernel
    kernel_size + (filters, input channels), each output dimension stride times the input's (plus the
    overhang of the kernel for 'valid')."""

    _transpose_function: Any = None
    _FIXED_CONFIG = {"groups": 1, "dilation_rate": None}

    def _set_output_padding(self, output_padding: Any) -> None:
        """Keras's `output_padding` (which TF's tf.layers take among their keyword arguments): the amount
        added to each output dimension, less than its stride."""
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = normalize_tuple(output_padding, self.rank, "output_padding", allow_zero=True)
            if any(pad >= stride for stride, pad in zip(self.strides, self.output_padding)):
                raise ValueError(f"Strides must be greater than output padding. Received strides={self.strides}, "
                                 f"output_padding={self.output_padding}.")

    def get_config(self) -> dict:
        return {**super().get_config(), "output_padding": self.output_padding}

    def _output_length(self, i: int, length: Any) -> Any:
        pad = None if self.output_padding is None else self.output_padding[i]
        return deconv_output_length(length, self.kernel_size[i], self.padding, self.strides[i], output_padding=pad)

    def build(self, input_shape: Any) -> None:
        input_shape = tensor_shape.TensorShape(input_shape)
        if input_shape.ndims != self.rank + 2:
            raise ValueError(f"Inputs should have rank {self.rank + 2}. Received input_shape={input_shape}.")
        channels = self._input_channels(input_shape)
        self.kernel = self.add_weight("kernel", [*self.kernel_size, self.filters, channels],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._add_bias()
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:
        dynamic = shape_ops.shape(inputs)
        static = inputs.get_shape().as_list()
        sizes = []
        for i, axis in enumerate(self._spatial_axes()):
            size = static[axis] if static[axis] is not None else dynamic[axis]
            sizes.append(self._output_length(i, size))
        batch = dynamic[0]
        output_shape = [batch, self.filters, *sizes] if self._channels_first else [batch, *sizes, self.filters]
        outputs = type(self)._transpose_function(inputs, self.kernel, manipulation_ops.stack(output_shape),
                                                 strides=list(self.strides), padding=self.padding.upper(),
                                                 data_format=self._nn_format)
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return self._bias_and_activation(outputs)

    def compute_output_shape(self, input_shape: Any) -> tensor_shape.TensorShape:
        dims = tensor_shape.TensorShape(input_shape).as_list()
        for i, axis in enumerate(self._spatial_axes()):
            if dims[axis] is not None:
                dims[axis] = self._output_length(i, dims[axis])
        dims[1 if self._channels_first else -1] = self.filters
        return tensor_shape.TensorShape(dims)


@tf_export("layers.Conv2DTranspose")
class Conv2DTranspose(_Transpose, Conv2D):
    """The transposed 2-D convolution (the gradient of Conv2D with respect to its input): kernel
    [kh, kw, filters, input channels], each output dimension stride times the input's (plus the overhang
    of the kernel for 'valid')."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", activation: Callable | None = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        output_padding = kwargs.pop("output_padding", None)
        super().__init__(filters, kernel_size, strides, padding, data_format, (1, 1), activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)
        self._set_output_padding(output_padding)

    _transpose_function = staticmethod(nn_conv_ops.conv2d_transpose)


@tf_export("layers.Conv3D")
class Conv3D(_Conv):
    """The 3-D convolution layer over [batch, depth, height, width, channels] (or channels_first) inputs."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = (1, 1, 1),
                 activation: Callable | None = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = _ZEROS, kernel_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                 kernel_constraint: Callable | None = None, bias_constraint: Callable | None = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)


@tf_export("layers.Conv3DTranspose")
class Conv3DTranspose(_Transpose, Conv3D):
    """The transposed 3-D convolution (the gradient of Conv3D with respect to its input)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
                 data_format: str = "channels_last", activation: Callable | None = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        output_padding = kwargs.pop("output_padding", None)
        super().__init__(filters, kernel_size, strides, padding, data_format, (1, 1, 1), activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)
        self._set_output_padding(output_padding)

    _transpose_function = staticmethod(nn_conv3d_ops.conv3d_transpose)


class _SeparableConv(_Conv):
    """A depthwise convolution (depth_multiplier filters per input channel) then a 1x1 convolution."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, depth_multiplier: int = 1,
                 activation: Callable | None = None, use_bias: bool = True, depthwise_initializer: Any = None,
                 pointwise_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 depthwise_regularizer: Callable | None = None, pointwise_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                 depthwise_constraint: Callable | None = None, pointwise_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(rank, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                         use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = get_initializer(depthwise_initializer)
        self.pointwise_initializer = get_initializer(pointwise_initializer)
        self.depthwise_regularizer, self.pointwise_regularizer = depthwise_regularizer, pointwise_regularizer
        self.depthwise_constraint, self.pointwise_constraint = depthwise_constraint, pointwise_constraint

    _FIXED_CONFIG = {"groups": 1, "kernel_initializer": None, "kernel_regularizer": None, "kernel_constraint": None}

    def get_config(self) -> dict:
        """Keras's keys, its unused `kernel_initializer` default (glorot_uniform) included: Keras's own
        initializer, whose config has no dtype where TF2 behaviour is on."""
        default = serialize(init_ops.GlorotUniform())
        if tf2.enabled():
            default["config"] = {"seed": None}
        return {**super().get_config(), "kernel_initializer": default,
                "depth_multiplier": self.depth_multiplier,
                **{f"{part}_{kind}": serialize(getattr(self, f"{part}_{kind}")) for part in ("depthwise", "pointwise")
                   for kind in ("initializer", "regularizer", "constraint")}}

    def build(self, input_shape: Any) -> None:
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [*self.kernel_size, channels, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [*([1] * self.rank), self.depth_multiplier * channels, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self._add_bias()
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True


@tf_export("layers.SeparableConv2D")
class SeparableConv2D(_SeparableConv):
    """The depthwise-separable 2-D convolution layer."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Callable | None = None, use_bias: bool = True, depthwise_initializer: Any = None,
                 pointwise_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 depthwise_regularizer: Callable | None = None, pointwise_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                 depthwise_constraint: Callable | None = None, pointwise_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                         activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name, **kwargs)

    def call(self, inputs: Tensor) -> Tensor:
        strides = [1, 1, *self.strides] if self._channels_first else [1, *self.strides, 1]
        outputs = nn_conv_ops.separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel, strides,
                                               self.padding.upper(), rate=list(self.dilation_rate),
                                               data_format=self._nn_format)
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return self._bias_and_activation(outputs)


@tf_export("layers.SeparableConv1D")
class SeparableConv1D(_SeparableConv):
    """The depthwise-separable 1-D convolution layer: separable_conv2d over a unit height, as TF."""

    _allows_causal = True

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, depth_multiplier: int = 1,
                 activation: Callable | None = None, use_bias: bool = True, depthwise_initializer: Any = None,
                 pointwise_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 depthwise_regularizer: Callable | None = None, pointwise_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                 depthwise_constraint: Callable | None = None, pointwise_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                         activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name, **kwargs)

    def call(self, inputs: Tensor) -> Tensor:
        spatial_start = 2 if self._channels_first else 1
        stride = self.strides[0]
        strides = [1, 1, stride, stride] if self._channels_first else [1, stride, stride, 1]
        expanded = shape_ops.expand_dims(self._causal_pad(inputs), spatial_start)
        depthwise = shape_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise = shape_ops.expand_dims(self.pointwise_kernel, 0)
        data_format = "NCHW" if self._channels_first else "NHWC"
        outputs = nn_conv_ops.separable_conv2d(expanded, depthwise, pointwise, strides, self._op_padding,
                                               rate=[1, *self.dilation_rate], data_format=data_format)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        outputs = shape_ops.squeeze(outputs, [spatial_start])
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return self.activation(outputs)


@tf_export("layers.conv1d")
@deprecated_functional_form("Conv1D", use="Use")
def conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = 1, activation: Callable | None = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
           kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
           activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
           bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> Tensor:
    layer = Conv1D(filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                   kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                   kernel_constraint, bias_constraint, trainable, name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


@tf_export("layers.conv2d")
@deprecated_functional_form("Conv2D", use="Use")
def conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = (1, 1), activation: Callable | None = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
           kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
           activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
           bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> Tensor:
    layer = Conv2D(filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                   kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                   kernel_constraint, bias_constraint, trainable, name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


@tf_export("layers.conv2d_transpose")
@deprecated_functional_form("Conv2DTranspose", use="Use")
def conv2d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                     data_format: str = "channels_last", activation: Callable | None = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                     kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                     activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                     bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> Tensor:
    layer = Conv2DTranspose(filters, kernel_size, strides, padding, data_format, activation, use_bias,
                            kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                            activity_regularizer, kernel_constraint, bias_constraint, trainable, name,
                            _reuse=reuse, _scope=name)
    return layer.apply(inputs)


@tf_export("layers.separable_conv1d")
@deprecated_functional_form("SeparableConv1D", use="Use")
def separable_conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                     data_format: str = "channels_last", dilation_rate: Any = 1, depth_multiplier: int = 1,
                     activation: Callable | None = None, use_bias: bool = True, depthwise_initializer: Any = None,
                     pointwise_initializer: Any = None, bias_initializer: Any = _ZEROS,
                     depthwise_regularizer: Callable | None = None, pointwise_regularizer: Callable | None = None,
                     bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                     depthwise_constraint: Callable | None = None, pointwise_constraint: Callable | None = None,
                     bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> Tensor:
    layer = SeparableConv1D(filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                            activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
                            depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
                            depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name,
                            _reuse=reuse, _scope=name)
    return layer.apply(inputs)


@tf_export("layers.separable_conv2d")
@deprecated_functional_form("SeparableConv2D", use="Use")
def separable_conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                     data_format: str = "channels_last", dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                     activation: Callable | None = None, use_bias: bool = True, depthwise_initializer: Any = None,
                     pointwise_initializer: Any = None, bias_initializer: Any = _ZEROS,
                     depthwise_regularizer: Callable | None = None, pointwise_regularizer: Callable | None = None,
                     bias_regularizer: Callable | None = None, activity_regularizer: Callable | None = None,
                     depthwise_constraint: Callable | None = None, pointwise_constraint: Callable | None = None,
                     bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> Tensor:
    layer = SeparableConv2D(filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                            activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
                            depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
                            depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name,
                            _reuse=reuse, _scope=name)
    return layer.apply(inputs)


@tf_export("layers.conv3d")
@deprecated_functional_form("Conv3D", use="Use")
def conv3d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = (1, 1, 1), activation: Callable | None = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
           kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
           activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
           bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> Tensor:
    layer = Conv3D(filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                   kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                   kernel_constraint, bias_constraint, trainable, name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


@tf_export("layers.conv3d_transpose")
@deprecated_functional_form("Conv3DTranspose", use="Use")
def conv3d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
                     data_format: str = "channels_last", activation: Callable | None = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                     kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                     activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                     bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> Tensor:
    layer = Conv3DTranspose(filters, kernel_size, strides, padding, data_format, activation, use_bias,
                            kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                            activity_regularizer, kernel_constraint, bias_constraint, trainable, name,
                            _reuse=reuse, _scope=name)
    return layer.apply(inputs)
