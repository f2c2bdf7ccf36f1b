"""BatchNormalization and its functional form, as TF1's `tf.layers` (the legacy Keras layer in graph mode).

Variables `gamma`, `beta` (trainable), `moving_mean`, `moving_variance` (not trainable). While training the
output is normalized by the batch's statistics and two update ops move the population statistics toward
them: `AssignMovingAvg` and `AssignMovingAvg_1`, each `assign_sub(var, (var - batch) * (1 - momentum))`,
collected in the layer's `updates` and GraphKeys.UPDATE_OPS (TF1 programs run them with the train op).
A 4-D input normalized over its channels takes TF's fused path (one FusedBatchNormV3, whose training
variance is the unbiased one); other ranks take the composed path (nn.moments and nn.batch_normalization).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from tensorweave.layers.base import Layer, static_bool, static_or_cond
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    init_ops,
    nn_norm_ops,
    nn_ops,
    shape_ops,
    state_ops,
)
from tensorweave.platform.tf_export import tf_export

_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()


def _assign_moving_average(variable: Any, value: Tensor, momentum: Any) -> Tensor:
    """variable -= (variable - value) * (1 - momentum), under `AssignMovingAvg` and colocated with it."""
    with name_scope(None, "AssignMovingAvg") as scope:
        with colocate_with(variable):
            if isinstance(momentum, Tensor):
                decay = 1.0 - momentum
            else:
                decay = constant_ops.constant(1.0 - momentum, dtype=variable.dtype.base_dtype, name="decay")
            delta = (variable - cast_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)


@tf_export("layers.BatchNormalization")
class BatchNormalization(Layer):
    """Normalizes each channel (`axis`) by batch statistics when training, by moving ones otherwise."""

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = _ZEROS, gamma_initializer: Any = _ONES,
                 moving_mean_initializer: Any = _ZEROS, moving_variance_initializer: Any = _ONES,
                 beta_regularizer: Callable | None = None, gamma_regularizer: Callable | None = None,
                 beta_constraint: Callable | None = None, gamma_constraint: Callable | None = None,
                 renorm: bool = False, renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                 fused: bool | None = None, trainable: bool = True, virtual_batch_size: int | None = None,
                 adjustment: Callable | None = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization: renorm, virtual_batch_size and adjustment are not "
                                      "implemented")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.renorm, self.renorm_clipping, self.renorm_momentum = renorm, renorm_clipping, renorm_momentum
        self.fused = fused

    def build(self, input_shape: Any) -> None:
        input_shape = tensor_shape.TensorShape(input_shape)
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if a < -ndims or a >= ndims:
                raise ValueError(f"Invalid axis. Expected 0 <= axis < inputs.rank (with inputs.rank={ndims}). "
                                 f"Received: layer.axis={self.axis}")
        self._axes = sorted({a % ndims for a in axes})
        fusable = ndims == 4 and self._axes in ([1], [3])
        if self.fused and not fusable:
            raise ValueError(f"Passing `fused=True` is only supported when axis is 1 or 3 for input rank 4. Got "
                             f"axis {self.axis} and input rank {ndims}.")
        self.fused = fusable if self.fused is None else self.fused
        self._data_format = "NCHW" if self._axes == [1] else "NHWC"
        for a in self._axes:
            if input_shape[a] is None:
                raise ValueError(f"Axis {a} of input tensor should have a defined dimension but the layer received "
                                 f"an input with shape {input_shape}.")
        param_shape = [int(input_shape[a]) for a in self._axes]
        if len(self._axes) > 1:
            param_shape = [int(input_shape[a]) if a in self._axes else 1 for a in range(ndims)]
        input_dtype = self._dtype or dtypes.float32
        self._param_dtype = dtypes.float32 if input_dtype in (dtypes.float16, dtypes.bfloat16) else input_dtype
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", param_shape, dtype=self._param_dtype,
                                         initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        elif self.fused:
            self._gamma_const = constant_ops.constant(1.0, dtype=self._param_dtype, shape=param_shape)
        if self.center:
            self.beta = self.add_weight("beta", param_shape, dtype=self._param_dtype,
                                        initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)
        elif self.fused:
            self._beta_const = constant_ops.constant(0.0, dtype=self._param_dtype, shape=param_shape)
        self.moving_mean = self.add_weight("moving_mean", param_shape, dtype=self._param_dtype,
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", param_shape, dtype=self._param_dtype,
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _fused_batch_norm(self, inputs: Tensor, training: Any) -> Tensor:
        gamma = self.gamma if self.scale else self._gamma_const
        beta = self.beta if self.center else self._beta_const

        def train() -> tuple:
            return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                                variance=self.moving_variance, epsilon=self.epsilon,
                                                is_training=True, data_format=self._data_format)

        def infer() -> tuple:
            return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                                variance=self.moving_variance, epsilon=self.epsilon,
                                                is_training=False, data_format=self._data_format)

        output, mean, variance = static_or_cond(training, train, infer)
        if static_bool(training) is not False:
            momentum = static_or_cond(training, lambda: constant_ops.constant(self.momentum),
                                      lambda: constant_ops.constant(1.0))
            self.add_update(_assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(_assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def call(self, inputs: Tensor, training: Any = False) -> Tensor:
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        inputs_dtype = inputs.dtype.base_dtype
        if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
            inputs = cast_ops.cast(inputs, dtypes.float32)
        input_shape = inputs.get_shape()
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self._axes]
        broadcast_shape = [1] * ndims
        broadcast_shape[self._axes[0]] = int(input_shape[self._axes[0]])

        def broadcast(v: Any) -> Any:
            if v is not None and v.get_shape().ndims != ndims and reduction_axes != list(range(ndims - 1)):
                return shape_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if static_bool(training) is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = nn_ops.moments(cast_ops.cast(inputs, self._param_dtype), reduction_axes,
                                                        keep_dims=len(self._axes) > 1)
            mean = static_or_cond(training, lambda: batch_mean, lambda: convert_to_tensor(self.moving_mean))
            variance = static_or_cond(training, lambda: batch_variance,
                                      lambda: convert_to_tensor(self.moving_variance))
            for moving, new in ((self.moving_mean, mean), (self.moving_variance, variance)):
                self.add_update(static_or_cond(
                    training, lambda moving=moving, new=new: _assign_moving_average(moving, new, self.momentum),
                    lambda moving=moving: moving))
        mean, variance = cast_ops.cast(mean, inputs.dtype), cast_ops.cast(variance, inputs.dtype)
        offset = None if offset is None else cast_ops.cast(offset, inputs.dtype)
        scale = None if scale is None else cast_ops.cast(scale, inputs.dtype)
        outputs = nn_ops.batch_normalization(inputs, broadcast(mean), broadcast(variance), offset, scale,
                                             self.epsilon)
        if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
            outputs = cast_ops.cast(outputs, inputs_dtype)
        outputs.set_shape(input_shape)
        return outputs

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Keeps each update as its op, as TF's UPDATE_OPS holds them."""
        updates = updates if isinstance(updates, (list, tuple)) else [updates]
        super().add_update([u.op if isinstance(u, Tensor) else u for u in updates])


@tf_export("layers.batch_normalization")
def batch_normalization(inputs: Any, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                        center: bool = True, scale: bool = True, beta_initializer: Any = _ZEROS,
                        gamma_initializer: Any = _ONES, moving_mean_initializer: Any = _ZEROS,
                        moving_variance_initializer: Any = _ONES, beta_regularizer: Callable | None = None,
                        gamma_regularizer: Callable | None = None, beta_constraint: Callable | None = None,
                        gamma_constraint: Callable | None = None, training: Any = False, trainable: bool = True,
                        name: str | None = None, reuse: Any = None, renorm: bool = False,
                        renorm_clipping: Any = None, renorm_momentum: float = 0.99, fused: bool | None = None,
                        virtual_batch_size: int | None = None, adjustment: Callable | None = None) -> Tensor:
    """The functional BatchNormalization: run GraphKeys.UPDATE_OPS with the train op when training."""
    layer = BatchNormalization(axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer,
                               moving_mean_initializer, moving_variance_initializer, beta_regularizer,
                               gamma_regularizer, beta_constraint, gamma_constraint, renorm, renorm_clipping,
                               renorm_momentum, fused, trainable, virtual_batch_size, adjustment, name,
                               _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)
