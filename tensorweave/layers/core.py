"""Dense, Flatten and Dropout layers and their functional forms, as TF1's `tf.layers`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.tensor_shape import dimension_value
from tensorweave.layers.base import (
    InputSpec,
    Layer,
    deprecated_functional_form,
    get_activation,
    get_initializer,
    learning_phase,
    serialize,
    static_or_cond,
)
from tensorweave.ops import cast_ops, constant_ops, init_ops, linalg_ops, manipulation_ops, nn_ops, shape_ops
from tensorweave.platform.tf_export import tf_export

# TF's default bias initializer (stateless, so one instance serves every layer).
_ZEROS = init_ops.zeros_initializer()


@tf_export("layers.Dense")
class Dense(Layer):
    """outputs = activation(inputs . kernel + bias), over the last axis of inputs of any rank >= 2."""

    def __init__(self, units: int, activation: Callable | None = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        if self.units < 0:
            raise ValueError("Received an invalid value for `units`, expected a positive integer. "
                             f"Received: units={units}")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units, "activation": serialize(self.activation),
                "use_bias": self.use_bias,
                **{key: serialize(getattr(self, key)) for key in (
                    "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer")},
                "activity_regularizer": serialize(self._activity_regularizer),
                "kernel_constraint": serialize(self.kernel_constraint),
                "bias_constraint": serialize(self.bias_constraint)}

    def build(self, input_shape: Any) -> None:
        dtype = self._dtype or dtypes.float32
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"A Dense layer can only be built with a floating-point dtype. Received: dtype={dtype}")
        last = dimension_value(input_shape[-1]) if input_shape.ndims else None
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: int(last)})
        self.kernel = self.add_weight("kernel", [int(last), self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> tensor_shape.TensorShape:
        input_shape = tensor_shape.TensorShape(input_shape).with_rank_at_least(2)
        if dimension_value(input_shape[-1]) is None:
            raise ValueError("The last dimension of the input shape of a Dense layer should be defined. Found None. "
                             f"Received: input_shape={input_shape}")
        return input_shape[:-1].concatenate(self.units)

    def call(self, inputs: Tensor) -> Tensor:
        inputs = cast_ops.cast(inputs, self._dtype)
        rank = inputs.get_shape().ndims
        if rank == 2 or rank is None:
            outputs = linalg_ops.matmul(inputs, self.kernel)
        else:  # Keras broadcasts the kernel over the leading axes with tensordot
            outputs = linalg_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.get_shape()[:-1].concatenate([self.units]))
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        return self.activation(outputs)


@tf_export("layers.dense")
@deprecated_functional_form("Dense")
def dense(inputs: Any, units: int, activation: Callable | None = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
          kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
          activity_regularizer: Callable | None = None, kernel_constraint: Callable | None = None,
          bias_constraint: Callable | None = None, trainable: bool = True, name: str | None = None,
          reuse: Any = None) -> Tensor:
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


@tf_export("layers.Flatten")
class Flatten(Layer):
    """[batch, ...] -> [batch, product of the rest]."""

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format or "channels_last"}

    def compute_output_shape(self, input_shape: Any) -> tensor_shape.TensorShape:
        dims = tensor_shape.TensorShape(input_shape).as_list()
        rest = dims[1:]
        return tensor_shape.TensorShape([dims[0] if dims else 1,
                                         int(np.prod(rest)) if all(rest) else None])

    def call(self, inputs: Tensor) -> Tensor:
        if inputs.get_shape().ndims == 1:
            return shape_ops.expand_dims(inputs, axis=1)
        if self.data_format == "channels_first" and inputs.get_shape().ndims and inputs.get_shape().ndims > 2:
            perm = [0, *range(2, inputs.get_shape().ndims), 1]
            inputs = manipulation_ops.transpose(inputs, perm)
        batch, rest = tensor_shape.dimension_value(inputs.get_shape()[0]), inputs.get_shape()[1:]
        if rest.is_fully_defined():
            return shape_ops.reshape(inputs, constant_ops.constant([-1, int(np.prod(rest.as_list()))]))
        if batch is not None:
            return shape_ops.reshape(inputs, constant_ops.constant([int(batch), -1]))
        return shape_ops.reshape(inputs, [shape_ops.shape(inputs)[0], -1])


@tf_export("layers.flatten")
@deprecated_functional_form("Flatten")
def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> Tensor:
    return Flatten(name=name, data_format=data_format).apply(inputs)


@tf_export("layers.Dropout")
class Dropout(Layer):
    """nn.dropout with `rate` when `training` (a bool or a boolean tensor), the identity otherwise."""

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
                 name: str | None = None, **kwargs: Any) -> None:
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value between 0 and 1.")
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed}

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def call(self, inputs: Tensor, training: Any = False) -> Tensor:
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return manipulation_ops.identity(inputs)
        if training is None:
            training = learning_phase()
        return static_or_cond(
            training, lambda: nn_ops.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed, rate=self.rate),
            lambda: manipulation_ops.identity(inputs))


@tf_export("layers.dropout")
@deprecated_functional_form("Dropout")
def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
            training: Any = False, name: str | None = None) -> Tensor:
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name).apply(inputs, training=training)
