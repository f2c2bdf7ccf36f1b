"""BatchNormalization and its functional form, as TF1's `tf.layers` (the legacy Keras layer in graph mode).

Variables `gamma`, `beta` (trainable), `moving_mean`, `moving_variance` (not trainable). While training the
output is normalized by the batch's statistics and two update ops move the population statistics toward
them: `AssignMovingAvg` and `AssignMovingAvg_1`, each `assign_sub(var, (var - batch) * (1 - momentum))`,
collected in the layer's `updates` and GraphKeys.UPDATE_OPS (TF1 programs run them with the train op).
A float16/bfloat16/float32 4-D or 5-D input normalized over its one channel axis (1, or the last) takes
TF's fused path (one FusedBatchNormV3, whose training variance is the unbiased one), unless renorm, virtual
batches or an adjustment ask for more; everything else takes the composed path (nn.moments and
nn.batch_normalization), whose ops and cond branches are made in TF's order so names match.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, tensor_shape, tf2
from tensorweave.framework.graph import (
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tensorweave.layers.base import (
    InputSpec,
    Layer,
    deprecated_functional_form,
    get_initializer,
    resolve_training,
    serialize,
    static_bool,
    static_or_cond,
)
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    fill_ops,
    init_ops,
    manipulation_ops,
    nn_norm_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
    state_ops,
    variables,
)
from tensorweave.ops import variable_scope as vs
from tensorweave.platform.tf_export import tf_export

_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()


def _assign_moving_average(variable: Any, value: Tensor, momentum: Any) -> Tensor:
    """variable -= (variable - value) * (1 - momentum), under `AssignMovingAvg` and colocated with it."""
    with name_scope(None, "AssignMovingAvg") as scope:
        with colocate_with(variable):
            decay = convert_to_tensor(1.0 - momentum, name="decay")
            if decay.dtype != variable.dtype.base_dtype:
                decay = cast_ops.cast(decay, variable.dtype.base_dtype)
            delta = (variable - cast_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)


def _assign_new_value(variable: Any, value: Tensor) -> Tensor:
    """variable = value, under `AssignNewValue` and colocated with it."""
    with name_scope(None, "AssignNewValue") as scope:
        with colocate_with(variable):
            return state_ops.assign(variable, value, name=scope)


def _validate_axis(axis: Any, input_shape: tensor_shape.TensorShape) -> list[int]:
    """`axis` as a list of non-negative axes of `input_shape`, as TF's layers validate it."""
    rank = input_shape.ndims
    if not rank:
        raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}")
    axes = [a + rank if a < 0 else a for a in ([axis] if isinstance(axis, int) else axis)]
    if any(a < 0 or a >= rank for a in axes):
        raise ValueError("Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                         f"inputs.rank={rank}). Received: axis={tuple(axes)}")
    if len(axes) != len(set(axes)):
        raise ValueError(f"Duplicate axis: {tuple(axes)}")
    return axes


# The fused kernel's data format for each (input rank, channel axis) it normalizes.
_FUSED_FORMATS = {(4, 1): "NCHW", (4, 3): "NHWC", (5, 1): "NCDHW", (5, 4): "NDHWC"}


@tf_export("layers.BatchNormalization")
class BatchNormalization(Layer):
    """Normalizes each channel (`axis`) by batch statistics when training, by moving ones otherwise.

    Batch renormalization (`renorm`) also keeps `renorm_mean` and `renorm_stddev` (moved by `renorm_momentum`)
    and corrects the normalized batch by r = stddev / renorm_stddev and d = (mean - renorm_mean) /
    renorm_stddev, clipped by `renorm_clipping`; the population variance then moves through `moving_stddev`.
    `virtual_batch_size` normalizes each of that many sub-batches by its own statistics; `adjustment` maps the
    input's shape to a (scale, bias) applied to the normalized values while training.
    """

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = _ZEROS, gamma_initializer: Any = _ONES,
                 moving_mean_initializer: Any = _ZEROS, moving_variance_initializer: Any = _ONES,
                 beta_regularizer: Callable | None = None, gamma_regularizer: Callable | None = None,
                 beta_constraint: Callable | None = None, gamma_constraint: Callable | None = None,
                 renorm: bool = False, renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                 fused: bool | None = None, trainable: bool = True, virtual_batch_size: int | None = None,
                 adjustment: Callable | None = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis: Any = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis!r}")
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = map(get_initializer, (beta_initializer, gamma_initializer))
        self.moving_mean_initializer = get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = get_initializer(moving_variance_initializer)
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.renorm = renorm
        self.virtual_batch_size, self.adjustment = virtual_batch_size, adjustment
        # TF1's layer tries the fused kernel unless told not to; build drops it where it cannot serve.
        self.fused = True if fused is None else fused
        if renorm:
            renorm_clipping = renorm_clipping or {}
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError(f"Received invalid keys for `renorm_clipping` argument: {renorm_clipping}. "
                                 f"Supported values: {keys}.")
            self.renorm_clipping, self.renorm_momentum = renorm_clipping, renorm_momentum

    def get_config(self) -> dict:
        """TF's keys: renorm's and virtual_batch_size only where set (as Keras keeps them out otherwise)."""
        config = {**super().get_config(), "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                  "center": self.center, "scale": self.scale,
                  **{f"{weight}_{kind}": serialize(getattr(self, f"{weight}_{kind}"))
                     for kind in ("initializer", "regularizer", "constraint")
                     for weight in ("beta", "gamma", "moving_mean", "moving_variance")
                     if kind == "initializer" or weight in ("beta", "gamma")}}
        if self.renorm:
            config.update(renorm=True, renorm_clipping=self.renorm_clipping, renorm_momentum=self.renorm_momentum)
        if self.virtual_batch_size is not None:
            config["virtual_batch_size"] = self.virtual_batch_size
        return config

    def _fused_format(self, rank: int) -> str | None:
        """The fused kernel's data format, or None where it cannot be used (renorm, several axes, virtual
        batches, adjustment, float64, or an input and axis it has no layout for)."""
        if (self.renorm or len(self.axis) > 1 or self.virtual_batch_size is not None
                or self.adjustment is not None or self._dtype not in (dtypes.float16, dtypes.bfloat16,
                                                                       dtypes.float32, None)):
            return None
        return _FUSED_FORMATS.get((rank, self.axis[0]))

    def build(self, input_shape: Any) -> None:
        input_shape = tensor_shape.TensorShape(input_shape)
        self.axis = _validate_axis(self.axis, input_shape)
        rank = input_shape.ndims
        if self.virtual_batch_size is not None:
            if self.virtual_batch_size <= 0:
                raise ValueError("`virtual_batch_size` must be a positive integer that divides the true batch size "
                                 f"of the input tensor. Received: virtual_batch_size={self.virtual_batch_size}")
            if 0 in self.axis:
                raise ValueError("When using `virtual_batch_size`, the batch dimension must be 0 and thus axis "
                                 f"cannot include 0. Received axis={self.axis}")
            if self.adjustment is not None:
                raise ValueError("When using `virtual_batch_size`, adjustment cannot be specified")
        self._data_format = self._fused_format(rank) if self.fused else None
        self.fused = self._data_format is not None
        axis_to_dim = {a: input_shape.dims[a].value for a in self.axis}
        if any(dim is None for dim in axis_to_dim.values()):
            raise ValueError(f"Input has undefined `axis` dimension. Received input with shape {tuple(input_shape)} "
                             f"and axis={tuple(self.axis)}")
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axis_to_dim) == 1 and self.virtual_batch_size is None:
            param_shape = [axis_to_dim[self.axis[0]]]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
            if self.virtual_batch_size is not None:
                param_shape.insert(1, 1)
                self.axis = [a + 1 for a in self.axis]
        self._param_shape = param_shape
        input_dtype = self._dtype or dtypes.float32
        self._param_dtype = dtypes.float32 if input_dtype in (dtypes.float16, dtypes.bfloat16) else input_dtype
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", param_shape, dtype=self._param_dtype,
                                         initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight("beta", param_shape, dtype=self._param_dtype,
                                        initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)

        def statistic(name: str, initializer: Any) -> Any:
            return self.add_weight(name, param_shape, dtype=self._param_dtype, initializer=initializer,
                                   trainable=False, synchronization=variables.VariableSynchronization.ON_READ,
                                   aggregation=variables.VariableAggregation.MEAN)

        # TF makes the statistics unpartitioned, whatever the scope's partitioner.
        scope = vs.get_variable_scope()
        partitioner = scope.partitioner
        scope.set_partitioner(None)
        try:
            self.moving_mean = statistic("moving_mean", self.moving_mean_initializer)
            self.moving_variance = statistic("moving_variance", self.moving_variance_initializer)
            if self.renorm:
                def moving_stddev_initializer(shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
                    return elementwise_ops.sqrt(self.moving_variance_initializer(shape, dtype=dtype,
                                                                                 partition_info=partition_info))

                self.moving_stddev = statistic("moving_stddev", moving_stddev_initializer)
                self.renorm_mean = statistic("renorm_mean", self.moving_mean_initializer)
                self.renorm_stddev = statistic("renorm_stddev", moving_stddev_initializer)
        finally:
            scope.set_partitioner(partitioner)
        self.built = True

    def _fused_batch_norm(self, inputs: Tensor, training: Any) -> Tensor:
        dtype, shape = self._param_dtype, self._param_shape
        beta = self.beta if self.center else constant_ops.constant(0.0, dtype=dtype, shape=shape)
        gamma = self.gamma if self.scale else constant_ops.constant(1.0, dtype=dtype, shape=shape)

        def batch_norm(is_training: bool) -> Callable[[], tuple]:
            return lambda: nn_norm_ops.fused_batch_norm(
                inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance, epsilon=self.epsilon,
                is_training=is_training, data_format=self._data_format)

        output, mean, variance = static_or_cond(training, batch_norm(True), batch_norm(False))
        training_value = static_bool(training)
        if training_value is not False:
            if training_value is None:
                momentum = static_or_cond(training, lambda: self.momentum, lambda: 1.0)
            else:
                momentum = convert_to_tensor(self.momentum)
            self.add_update(_assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(_assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def _renorm_correction_and_moments(self, mean: Tensor, variance: Tensor, training: Any) -> tuple:
        """(r, d, mean, variance): the renorm corrections, from the renorm statistics before this batch
        moves them, and the batch moments made to wait for that move."""
        stddev = elementwise_ops.sqrt(variance + self.epsilon)
        renorm_stddev = elementwise_ops.maximum(self.renorm_stddev, elementwise_ops.sqrt(self.epsilon))
        r = stddev / renorm_stddev
        d = (mean - self.renorm_mean) / renorm_stddev
        with control_dependencies([r, d]):
            mean = manipulation_ops.identity(mean)
            stddev = manipulation_ops.identity(stddev)
        rmin, rmax, dmax = (self.renorm_clipping.get(key) for key in ("rmin", "rmax", "dmax"))
        if rmin is not None:
            r = elementwise_ops.maximum(r, rmin)
        if rmax is not None:
            r = elementwise_ops.minimum(r, rmax)
        if dmax is not None:
            d = elementwise_ops.minimum(elementwise_ops.maximum(d, -dmax), dmax)
        r = static_or_cond(training, lambda: r, lambda: fill_ops.ones_like(r))
        d = static_or_cond(training, lambda: d, lambda: fill_ops.zeros_like(d))

        def update_renorm_variable(variable: Any, value: Tensor) -> Tensor:
            value = manipulation_ops.identity(value)
            return static_or_cond(training,
                              lambda: _assign_moving_average(variable, value, self.renorm_momentum),
                              lambda: manipulation_ops.identity(variable))

        update_mean = update_renorm_variable(self.renorm_mean, mean)
        update_stddev = update_renorm_variable(self.renorm_stddev, stddev)
        with control_dependencies([update_mean, update_stddev]):
            return r, d, manipulation_ops.identity(mean), manipulation_ops.identity(variance)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def call(self, inputs: Tensor, training: Any = False) -> Tensor:
        inputs = cast_ops.cast(inputs, self._dtype)
        training, training_value = resolve_training(training)
        if self.virtual_batch_size is not None:
            # TF1 splits the batch as [virtual_batch_size, -1, ...]; with TF2 behaviour on, Keras does so only
            # for a statically true `training`, else [-1, 1, ...] (each example its own batch).
            original_shape = manipulation_ops.concat(
                [constant_ops.constant([-1]), shape_ops.shape(inputs)[1:]], axis=0)
            split = [-1, 1] if tf2.enabled() and not training_value else [self.virtual_batch_size, -1]
            expanded_shape = manipulation_ops.concat([constant_ops.constant(split), original_shape[1:]], axis=0)
            inputs = shape_ops.reshape(inputs, expanded_shape)
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        inputs_dtype = inputs.dtype.base_dtype
        if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
            inputs = cast_ops.cast(inputs, dtypes.float32)
        input_shape = inputs.get_shape()
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.dims[self.axis[0]].value

        def broadcast(v: Any) -> Any:
            if v is not None and v.get_shape().ndims != ndims and reduction_axes != list(range(ndims - 1)):
                return shape_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)

        def compose(scale: Any, offset: Any, then_scale: Any, then_offset: Any) -> tuple:
            if then_scale is not None:
                scale, offset = scale * then_scale, offset * then_scale
            if then_offset is not None:
                offset = offset + then_offset
            return scale, offset

        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(shape_ops.shape(inputs))
                adj_scale = static_or_cond(training, lambda: adj_scale, lambda: fill_ops.ones_like(adj_scale))
                adj_bias = static_or_cond(training, lambda: adj_bias, lambda: fill_ops.zeros_like(adj_bias))
                scale, offset = compose(adj_scale, adj_bias, scale, offset)
            keep_dims = self.virtual_batch_size is not None or len(self.axis) > 1
            batch_mean, batch_variance = nn_ops.moments(cast_ops.cast(inputs, self._param_dtype), reduction_axes,
                                                        keep_dims=keep_dims)
            mean = static_or_cond(training, lambda: batch_mean, lambda: convert_to_tensor(self.moving_mean))
            variance = static_or_cond(training, lambda: batch_variance, lambda: convert_to_tensor(self.moving_variance))
            if self.virtual_batch_size is not None:
                new_mean = reduction_ops.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = reduction_ops.reduce_mean(variance, axis=1, keepdims=True)
            else:
                new_mean, new_variance = mean, variance
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(new_mean, new_variance, training)
                r = broadcast(manipulation_ops.stop_gradient(r, name="renorm_r"))
                d = broadcast(manipulation_ops.stop_gradient(d, name="renorm_d"))
                scale, offset = compose(r, d, scale, offset)

            def variance_update() -> Tensor:
                if not self.renorm:
                    return _assign_moving_average(self.moving_variance, new_variance, self.momentum)
                # The population variance follows the moving stddev, epsilon included as in training.
                moving_stddev = _assign_moving_average(self.moving_stddev,
                                                       elementwise_ops.sqrt(new_variance + self.epsilon),
                                                       self.momentum)
                return _assign_new_value(self.moving_variance,
                                         nn_ops.relu(moving_stddev * moving_stddev - self.epsilon))

            self.add_update(static_or_cond(training, lambda: _assign_moving_average(self.moving_mean, new_mean,
                                                                                self.momentum),
                                       lambda: self.moving_mean))
            self.add_update(static_or_cond(training, variance_update, lambda: self.moving_variance))
        mean, variance = cast_ops.cast(mean, inputs.dtype), cast_ops.cast(variance, inputs.dtype)
        offset = None if offset is None else cast_ops.cast(offset, inputs.dtype)
        scale = None if scale is None else cast_ops.cast(scale, inputs.dtype)
        outputs = nn_ops.batch_normalization(inputs, broadcast(mean), broadcast(variance), offset, scale,
                                             self.epsilon)
        if inputs_dtype in (dtypes.float16, dtypes.bfloat16):
            outputs = cast_ops.cast(outputs, inputs_dtype)
        outputs.set_shape(input_shape)
        if self.virtual_batch_size is not None:
            outputs = shape_ops.reshape(outputs, original_shape)
        return outputs


@tf_export("layers.batch_normalization")
@deprecated_functional_form("BatchNormalization", extra=" In particular, `tf.control_dependencies(tf.GraphKeys.UPDATE_OPS)` should not be used "
                            "(consult the `tf.keras.layers.BatchNormalization` documentation).")
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
