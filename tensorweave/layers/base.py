"""The `tf.layers.Layer` base: a callable that owns a variable scope and the variables made in it.

Invariant (TF1's legacy layers): a layer's variable scope is fixed on its first call (`dense`, `dense_1`,
... unique by default name, or the scope its `name`/`_scope` names); every later call re-enters that scope
with reuse, so one layer object shares its variables across calls, and its ops go under the scope's
original name scope (`dense/MatMul`, `dense/MatMul_1`). The layer's `name` is not its scope: it is unique
in its graph from construction (`dense_1`, `dense_2`, ...), as TF's Keras names objects. Weight
regularization losses are made under `<scope>/<weight>/Regularizer` and activity losses under
`<scope>/ActivityRegularizer`; both go to GraphKeys.REGULARIZATION_LOSSES and the layer's `losses`; update
ops (batch norm's moving averages) go to its `updates` and, while the layer is trainable, to
GraphKeys.UPDATE_OPS. Each call's inputs are checked against the layer's `input_spec` (TF's messages).
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util, tf2
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection_ref,
    get_default_graph,
    get_default_session,
    name_scope,
)
from tensorweave.layers import keras_initializers
from tensorweave.ops import (
    cast_ops,
    clip_ops,
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    init_ops,
    nn_impl_ops,
    nn_ops,
    shape_ops,
    variables,
)
from tensorweave.ops import variable_scope as vs
from tensorweave.platform.tf_export import tf_export

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def warn_at_user_code(message: str) -> None:
    """A UserWarning attributed to the innermost caller outside tensorweave (as TF's stacklevel=2 points
    at the user's line), however many of our frames lie between."""
    level, frame = 1, sys._getframe(0)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        level += 1
        frame = frame.f_back
    warnings.warn(message, UserWarning, stacklevel=level)


def deprecated_functional_form(keras_name: str, use: str = "use", extra: str = "") -> Callable:
    """A functional tf.layers form: each call warns as TF's legacy tf.layers do that it is deprecated in
    favour of the Keras layer `keras_name` (TF words some "Please Use", some "Please use")."""
    def decorate(fn: Callable) -> Callable:
        message = (f"`tf.layers.{fn.__name__}` is deprecated and will be removed in a future version. Please {use} "
                   f"`tf.keras.layers.{keras_name}` instead.{extra}")
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                signature.bind(*args, **kwargs)
            except TypeError:  # Python refuses the call before TF's function body (and its warning) runs
                return fn(*args, **kwargs)
            warn_at_user_code(message)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def _to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    # A private class's name would open a scope with "_": TF prefixes it.
    return "private" + snake if snake.startswith("_") else snake


def static_bool(training: Any) -> bool | None:
    """A `training` flag's value when it is known as the graph is built (a bool, 0 or 1, or a constant
    tensor), else None (a fed tensor or a variable), as TF's smart_cond reads it."""
    if isinstance(training, Tensor):
        value = tensor_util.constant_value(training)
        return None if value is None else bool(value)
    if isinstance(training, variables.Variable):
        return None
    if isinstance(training, bool) or training in (0, 1):
        return bool(training)
    raise TypeError("Argument `pred` must be a Tensor, or a Python bool, or 1 or 0. Received: "
                    f"pred={training} of type {type(training).__name__}")


def resolve_training(training: Any) -> tuple[Any, bool | None]:
    """A layer's `training` argument and its static_bool, read as TF's Keras layers read them: None means
    the graph's learning phase; anything but a tensor, a variable, a bool, 0 or 1 is a TypeError."""
    if training is None:
        training = learning_phase()
    if not isinstance(training, (Tensor, variables.Variable, bool)) and training not in (0, 1):
        raise TypeError(f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Received: {type(training)}")
    return training, static_bool(training)


# Per graph, the `keras_learning_phase` flag that layers called with training=None follow.
_LEARNING_PHASES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def learning_phase() -> Tensor:
    """The graph's `keras_learning_phase` (a bool placeholder defaulting to False), made on first use."""
    graph = get_default_graph()
    if graph not in _LEARNING_PHASES:
        with name_scope(""):
            _LEARNING_PHASES[graph] = constant_ops.placeholder_with_default(False, shape=(),
                                                                         name="keras_learning_phase")
    return _LEARNING_PHASES[graph]


def static_or_cond(training: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """`true_fn()` or `false_fn()` when `training` is known when the graph is built, else a tf.cond."""
    value = static_bool(training)
    if value is None:
        return control_flow_ops.cond(training, true_fn, false_fn)
    return true_fn() if value else false_fn()


def _shape_tuple(shape: tensor_shape.TensorShape) -> str:
    """A shape as TF prints `tuple(shape)`: Dimension objects (TF1), ints and Nones (TF2 TensorShape)."""
    return str(tuple(shape))


@tf_export("layers.InputSpec")
class InputSpec:
    """What a layer accepts as input (dtype, rank bounds, fixed dimensions): checked on every call."""

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: int | None = None, max_ndim: int | None = None,
                 min_ndim: int | None = None, axes: dict | None = None, allow_last_axis_squeeze: bool = False,
                 name: str | None = None, optional: bool = False) -> None:
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        shape = tensor_shape.TensorShape(shape)
        self.shape = None if shape.ndims is None else tuple(shape.as_list())
        self.ndim = ndim if self.shape is None else len(self.shape)
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.allow_last_axis_squeeze, self.optional = name, allow_last_axis_squeeze, optional
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            if max(self.axes) > max_dim:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self) -> str:
        fields = [("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                  ("min_ndim", self.min_ndim), ("axes", self.axes)]
        return f"InputSpec({', '.join(f'{key}={value}' for key, value in fields if value)})"

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config: dict) -> InputSpec:
        return cls(**config)


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """Raises TF's ValueError where an input breaks its InputSpec (rank, dtype, a fixed dimension, shape)."""
    if not input_spec:
        return
    specs = list(input_spec) if isinstance(input_spec, (list, tuple)) else [input_spec]
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(inputs) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it received {len(inputs)} input '
                         f"tensors. Inputs received: {inputs}")
    for index, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        shape = x.get_shape()
        if shape.ndims is None:
            return
        prefix = f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
        ndim = shape.ndims
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(f"{prefix}expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: "
                             f"{_shape_tuple(shape)}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(f"{prefix}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(f"{prefix}expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: "
                             f"{_shape_tuple(shape)}")
        if spec.dtype is not None and x.dtype.name != spec.dtype:
            raise ValueError(f"{prefix}expected dtype={spec.dtype}, found dtype={x.dtype}")
        dims = shape.as_list()
        for axis, value in spec.axes.items():
            value = getattr(value, "value", value)
            if value is not None and dims[int(axis)] not in (value, None):
                raise ValueError(f"{prefix}expected axis {axis} of input shape to have value {value}, but received "
                                 f"input with shape {tuple(dims)}")
        if spec.shape is not None:
            spec_shape = spec.shape
            if spec.allow_last_axis_squeeze:
                dims = dims[:-1] if dims and dims[-1] == 1 else dims
                spec_shape = spec_shape[:-1] if spec_shape and spec_shape[-1] == 1 else spec_shape
            if any(a is not None and b is not None and a != b for a, b in zip(spec_shape, dims)):
                raise ValueError(f"{prefix}expected shape={spec.shape}, found shape={tuple(shape.as_list())}")


def _reachable_ops(tensors: list) -> set:
    """The ops that data or control edges reach from `tensors`."""
    seen: set = set()
    stack = [op for tensor in tensors for op in tensor.consumers()]
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend(op._control_outputs)
            stack.extend(consumer for output in op.outputs for consumer in output.consumers())
    return seen


def _default_session() -> Any:
    """The session that get_weights/set_weights use: the default one (TF's Keras would make its own)."""
    session = get_default_session()
    if session is None:
        raise ValueError("Layer.get_weights and set_weights need a default session: call them inside "
                         "`with tf.Session():` (or after `sess.as_default()`).")
    return session


# Per graph, how many layers of each default name were made: a layer's `name` is unique in its graph
# (`dense_1`, `dense_2`, ...), apart from the variable scope its first call opens.
_LAYER_NAME_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _unique_layer_name(base_name: str) -> str:
    counts = _LAYER_NAME_COUNTS.setdefault(get_default_graph(), {})
    counts[base_name] = counts.get(base_name, 0) + 1
    return f"{base_name}_{counts[base_name]}"


def serialize(value: Any) -> Any:
    """A config value as TF's Keras writes it: an initializer as its class name and config (with its module
    and registered name where TF2 behaviour is on: Keras's newer format), a function (activation,
    regularizer, constraint) as its name."""
    if isinstance(value, init_ops.Initializer):
        config = {"class_name": type(value).__name__, "config": value.get_config()}
        if tf2.enabled():
            config = {"module": "keras.initializers", **config, "registered_name": None}
        return config
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return value


def hard_sigmoid(x: Any) -> Tensor:
    """Keras's piecewise-linear sigmoid, for the activation named "hard_sigmoid"."""
    return clip_ops.clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


def exponential(x: Any) -> Tensor:
    """Keras's activation named "exponential" (its config keeps that name)."""
    return elementwise_ops.exp(x)


_ACTIVATION_ALIASES = {"exponential": exponential, "hard_sigmoid": hard_sigmoid, "swish": nn_impl_ops.swish}
_CUSTOM_OBJECT_HINT = ("Please ensure you are using a `keras.utils.custom_object_scope` and that this object is "
                       "included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize"
                       "#registering_the_custom_object for details.")


def linear(x: Any) -> Any:
    """Keras's activation named "linear": a layer's activation when none is given (its input, no op)."""
    return x


def get_activation(value: Any) -> Callable:
    """A layer's activation argument as a function: Keras's names ("relu", "softmax", ...) are accepted as in
    TF's layers; None and "linear" are `linear`."""
    if value is None or value == "linear":
        return linear
    if not isinstance(value, str):
        return value
    if value in _ACTIVATION_ALIASES:
        return _ACTIVATION_ALIASES[value]
    for module in (nn_ops, elementwise_ops):
        if callable(getattr(module, value, None)):
            return getattr(module, value)
    raise ValueError(f"Unknown activation function: '{value}'. {_CUSTOM_OBJECT_HINT}")


_INITIALIZERS = {"zeros": init_ops.Zeros, "zero": init_ops.Zeros, "ones": init_ops.Ones, "one": init_ops.Ones,
                 "glorot_uniform": init_ops.GlorotUniform, "glorot_normal": init_ops.GlorotNormal,
                 "orthogonal": init_ops.Orthogonal, "identity": init_ops.Identity}


def get_initializer(value: Any) -> Any:
    """A layer's initializer argument: Keras's names ("zeros", "glorot_uniform", ...) as in TF's layers."""
    if not isinstance(value, str):
        return value
    keras = keras_initializers.KERAS_2 if tf2.enabled() else keras_initializers.KERAS_1
    if value in keras:  # the Keras classes of the variance-scaling family (TF2's draw statelessly)
        return keras[value]()
    if value not in _INITIALIZERS:
        raise ValueError(f"Unknown initializer: '{value}'. {_CUSTOM_OBJECT_HINT}")
    return _INITIALIZERS[value]()


def _deserialize(key: str, value: Any) -> Any:
    """A serialized config value back: initializers by class, activations by name."""
    if isinstance(value, dict) and {"class_name", "config"} <= set(value) <= {"class_name", "config", "module",
                                                                              "registered_name"}:
        cls = keras_initializers.by_class_name(value["class_name"], "module" in value) or \
            getattr(init_ops, value["class_name"])
        return cls.from_config(value["config"])
    if key == "activation":
        return get_activation(value)
    return value


@tf_export("layers.Layer")
class Layer:
    """Base of the tf.layers: `build` makes the weights on the first call, `call` computes the outputs."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 activity_regularizer: Callable | None = None, **kwargs: Any) -> None:
        allowed = {"_scope", "_reuse", "input_shape", "batch_input_shape", "batch_size"}
        for kwarg in kwargs:
            if kwarg not in allowed:
                raise TypeError("Keyword argument not understood:", kwarg)  # TF's two arguments
        self.trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._activity_regularizer = activity_regularizer
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._losses: list = []
        self._callable_losses: list = []
        # Losses and updates that depend on no input of the call that made them (get_*_for(None)).
        self._unconditional: set = set()
        self._call_inputs: list = []
        self._updates: list = []
        self._reuse = kwargs.get("_reuse")
        self._base_name = name or _to_snake_case(type(self).__name__)
        self._name = name or _unique_layer_name(self._base_name)
        self.input_spec: Any = None
        self._scope: vs.VariableScope | None = kwargs.get("_scope")
        if isinstance(self._scope, str):
            self._scope = None
            self._scope_name_given = kwargs["_scope"]
        else:
            self._scope_name_given = None

    @property
    def name(self) -> str:
        return self._name

    # Config keys TF's Keras base classes add that a TF1 layer's constructor does not take, each with the
    # only value it can have there.
    _FIXED_CONFIG: dict = {}

    def get_config(self) -> dict:
        """The constructor arguments that rebuild this layer (`from_config`), with TF's keys and values."""
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        return cls(**{key: _deserialize(key, value) for key, value in config.items() if key not in cls._FIXED_CONFIG})

    @property
    def dtype(self) -> Any:
        return None if self._dtype is None else self._dtype.name

    @property
    def scope_name(self) -> str:
        if self._scope is None:
            raise ValueError("No name available for layer scope because the layer \"" + self._name +
                             "\" has not been used yet. The scope name  is determined the first time the layer "
                             "instance is called. You must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    # A tf.layers layer called on graph tensors records no Keras node, so TF's Keras properties for the
    # tensors and shapes of its calls always raise.
    @property
    def graph(self) -> None:
        warnings.warn("`Layer.graph` is deprecated and will be removed in a future version. Please stop using this "
                      "property because tf.layers layers no longer track their graph.", stacklevel=2)
        return None

    @property
    def input(self) -> Any:
        raise AttributeError(f"Layer {self.name} is not connected, no input to return.")

    @property
    def output(self) -> Any:
        raise AttributeError(f"Layer {self.name} has no inbound nodes.")

    @property
    def input_shape(self) -> Any:
        raise AttributeError(f'The layer "{self.name}" has never been called and thus has no defined input shape. '
                             "Note that the `input_shape` property is only available for Functional and Sequential "
                             "models.")

    @property
    def output_shape(self) -> Any:
        raise AttributeError("The layer has never been called and thus has no defined output shape.")

    def compute_output_shape(self, input_shape: Any) -> Any:
        raise NotImplementedError

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    def _trackable_children(self) -> list[tuple[str, Any]]:
        """An object-based checkpoint's edges: each weight under the name `add_weight` gave it (`kernel`)."""
        return [(w.op.name.rsplit("/", 1)[-1], w) for w in self._trainable_weights + self._non_trainable_weights]

    @property
    def losses(self) -> list:
        """The losses added as tensors, then each callable one (weight regularizers) evaluated anew: as in
        TF, every read builds fresh regularizer ops under the current name scope."""
        evaluated = (loss() for loss in self._callable_losses)
        fresh = [loss for loss in evaluated if loss is not None]
        self._unconditional.update(fresh)
        return list(self._losses) + fresh

    @property
    def updates(self) -> list:
        """The update ops made by calls; none when the layer is not trainable (TF1 then leaves them out of
        GraphKeys.UPDATE_OPS, so a frozen batch norm keeps its moving statistics)."""
        return list(self._updates) if self.trainable else []

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Adds losses (tensors, or callables making one) to the layer's and to
        GraphKeys.REGULARIZATION_LOSSES; a callable is evaluated once now for the collection."""
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            made_by_callable = callable(loss)
            if made_by_callable:
                self._callable_losses.append(loss)
                loss = loss()
                if loss is None:
                    continue
            else:
                loss = convert_to_tensor(loss)
                self._losses.append(loss)
            if made_by_callable or inputs is None:
                self._unconditional.add(loss)
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Keeps each update (an op, a tensor, or a callable making one) as its op, as TF's UPDATE_OPS
        holds them."""
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            update = update() if callable(update) else update
            update = update if isinstance(update, Operation) else update.op
            if update not in _reachable_ops(self._call_inputs):
                self._unconditional.add(update)
            self._updates.append(update)

    def get_updates_for(self, inputs: Any) -> list:
        """The updates that depend on none of a call's inputs (`inputs` None), or those that `inputs` reach."""
        return self._conditional_on(self.updates, inputs)

    def get_losses_for(self, inputs: Any) -> list:
        """The losses that depend on none of a call's inputs (`inputs` None), or those that `inputs` reach."""
        return self._conditional_on(self.losses, inputs)

    def _conditional_on(self, items: list, inputs: Any) -> list:
        if inputs is None:
            return [item for item in items if item in self._unconditional]
        reachable = _reachable_ops(inputs if isinstance(inputs, (list, tuple)) else [inputs])
        return [item for item in items if item not in self._unconditional
                and (item if isinstance(item, Operation) else item.op) in reachable]

    def get_weights(self) -> list:
        """The weights' values, read in the default session."""
        return _default_session().run(self.weights) if self.weights else []

    def set_weights(self, weights: list) -> None:
        """Assigns NumPy values to the weights (in `weights` order), in the default session."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f'You called `set_weights(weights)` on layer "{self.name}" with a weight list of length '
                             f"{len(weights)}, but the layer was expecting {len(params)} weights. Provided weights: "
                             f"{str(weights)[:50]}...")
        for param, value in zip(params, weights):
            value_shape = np.shape(value)
            if not param.get_shape().is_compatible_with(value_shape):
                raise ValueError(f"Layer weight shape {param.get_shape()} not compatible with provided weight shape "
                                 f"{value_shape}")
        session = _default_session()
        for param, value in zip(params, weights):
            param.load(value, session)

    def count_params(self) -> int:
        """How many scalars the weights hold."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on {self.name}, but the layer isn't built. "
                             f"You can build it manually via: `{self.name}.build(batch_input_shape)`.")
        return int(sum(np.prod(w.get_shape().as_list()) for w in self.weights))


    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                   regularizer: Callable | None = None, trainable: bool = True, constraint: Callable | None = None,
                   **kwargs: Any) -> Any:
        """A variable `<scope>/<name>` from get_variable (shared on reuse); its regularization loss is
        added once, when the variable is made."""
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        # a weight made while the layer is frozen stays non-trainable, even once the layer is unfrozen (TF)
        trainable = trainable and self.trainable
        if initializer is None and vs.get_variable_scope().initializer is None and dtype.is_floating and \
                tf2.enabled():
            initializer = keras_initializers.GlorotUniform()  # TF 2's Keras default, not get_variable's
        store, full_name = vs._get_default_variable_store(), f"{vs.get_variable_scope().name}/{name}"
        is_new = full_name not in store._vars and full_name not in store._partitioned_vars
        variable = vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                                   trainable=trainable, constraint=constraint,
                                   collections=None if trainable else [GraphKeys.GLOBAL_VARIABLES],
                                   **{k: kwargs[k] for k in ("synchronization", "aggregation") if k in kwargs})
        # A partitioned variable counts as its shards: each is a weight with its own regularization loss.
        parts = list(variable) if isinstance(variable, variables.PartitionedVariable) else [variable]
        if is_new and regularizer is not None:
            for part in parts:
                def regularization_loss(part: Any = part) -> Any:
                    with name_scope(name + "/Regularizer"):
                        return regularizer(part)

                self.add_loss(regularization_loss)
        # TF files a trainable weight that is not in the graph's trainable variables (a partitioned variable,
        # whose shards are) under the non-trainable weights.
        if trainable and variable not in get_collection_ref(GraphKeys.TRAINABLE_VARIABLES):
            trainable = False
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        weights.extend(part for part in parts if part not in weights)
        return variable

    add_variable = add_weight

    def build(self, input_shape: Any) -> None:
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return inputs

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is not None:
            return
        given = scope if scope is not None else self._scope_name_given
        if self._reuse:
            with vs.variable_scope(given if given is not None else self._base_name) as captured:
                self._scope = captured
        else:
            with vs.variable_scope(given, default_name=self._base_name) as captured:
                self._scope = captured

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        self._set_scope(kwargs.pop("scope", None))
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            with name_scope(scope.original_name_scope):
                inputs = convert_to_tensor(inputs) if not isinstance(inputs, (list, tuple)) else inputs
                if self._dtype is None and isinstance(inputs, Tensor):
                    self._dtype = inputs.dtype.base_dtype  # any dtype, as TF: Dense refuses non-floats in build
                assert_input_compatibility(self.input_spec, inputs, self.name)
                if not self.built:
                    self.build(inputs.get_shape() if isinstance(inputs, Tensor) else [i.get_shape()
                                                                                       for i in inputs])
                    self.built = True
                self._call_inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
                try:
                    outputs = self.call(inputs, *args, **kwargs)
                finally:
                    self._call_inputs = []
                if self._activity_regularizer is not None:
                    with name_scope("ActivityRegularizer"):
                        activity_loss = self._activity_regularizer(outputs)
                        batch_size = cast_ops.cast(shape_ops.shape(outputs)[0], activity_loss.dtype)
                        self.add_loss(activity_loss / batch_size, inputs=inputs)
        collected = get_collection_ref(GraphKeys.UPDATE_OPS)  # the key exists after any call, as in TF
        for update in self.updates:
            if all(update is not u for u in collected):
                collected.append(update)
        return outputs

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self(inputs, *args, **kwargs)
