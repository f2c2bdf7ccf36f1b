"""The `tf.layers.Layer` base: a callable that owns a variable scope and the variables made in it.

Invariant (TF1's legacy layers): a layer's variable scope is fixed on its first call (`dense`, `dense_1`,
... unique by default name, or the scope its `name`/`_scope` names); every later call re-enters that scope
with reuse, so one layer object shares its variables across calls, and its ops go under the scope's
original name scope (`dense/MatMul`, `dense/MatMul_1`). Weight regularization losses are made under
`<scope>/<weight>/Regularizer` and activity losses under `<scope>/ActivityRegularizer`; both go to the
layer's `losses` and GraphKeys.REGULARIZATION_LOSSES; update ops (batch norm's moving averages) go to its
`updates` and GraphKeys.UPDATE_OPS.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, tensor_util
from tensorweave.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from tensorweave.ops import cast_ops, control_flow_ops, shape_ops
from tensorweave.ops import variable_scope as vs
from tensorweave.platform.tf_export import tf_export


def _to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def static_bool(training: Any) -> bool | None:
    """A `training` flag's value when it is known as the graph is built (a bool or a constant), else None."""
    if isinstance(training, Tensor):
        value = tensor_util.constant_value(training)
        return None if value is None else bool(value)
    return bool(training)


def static_or_cond(training: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """`true_fn()` or `false_fn()` when `training` is known when the graph is built, else a tf.cond."""
    value = static_bool(training)
    if value is None:
        return control_flow_ops.cond(training, true_fn, false_fn)
    return true_fn() if value else false_fn()


@tf_export("layers.Layer")
class Layer:
    """Base of the tf.layers: `build` makes the weights on the first call, `call` computes the outputs."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 activity_regularizer: Callable | None = None, **kwargs: Any) -> None:
        allowed = {"_scope", "_reuse", "input_shape", "batch_input_shape", "batch_size"}
        for kwarg in kwargs:
            if kwarg not in allowed:
                raise TypeError(f"Keyword argument not understood: {kwarg}")
        self.trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._activity_regularizer = activity_regularizer
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._losses: list = []
        self._updates: list = []
        self._reuse = kwargs.get("_reuse")
        self._base_name = name or _to_snake_case(type(self).__name__)
        self._name = self._base_name
        self._scope: vs.VariableScope | None = kwargs.get("_scope")
        if isinstance(self._scope, str):
            self._scope = None
            self._scope_name_given = kwargs["_scope"]
        else:
            self._scope_name_given = None

    @property
    def name(self) -> str:
        return self._name

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

    @property
    def losses(self) -> list:
        return list(self._losses)

    @property
    def updates(self) -> list:
        return list(self._updates)

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Adds loss tensors to the layer's losses and to GraphKeys.REGULARIZATION_LOSSES."""
        losses = list(losses) if isinstance(losses, (list, tuple)) else [losses]
        self._losses.extend(losses)
        for loss in losses:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        self._updates.extend(list(updates) if isinstance(updates, (list, tuple)) else [updates])

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                   regularizer: Callable | None = None, trainable: bool = True, constraint: Callable | None = None,
                   **kwargs: Any) -> Any:
        """A variable `<scope>/<name>` from get_variable (shared on reuse); its regularization loss is
        added once, when the variable is made."""
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        is_new = f"{vs.get_variable_scope().name}/{name}" not in vs._get_default_variable_store()._vars
        variable = vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                                   trainable=trainable and self.trainable, constraint=constraint,
                                   collections=None if trainable else [GraphKeys.GLOBAL_VARIABLES])
        if is_new and regularizer is not None:
            with name_scope(name + "/Regularizer"):
                loss = regularizer(variable)
            if loss is not None:
                self.add_loss(loss)
        if trainable and variable not in self._trainable_weights:
            self._trainable_weights.append(variable)
        elif not trainable and variable not in self._non_trainable_weights:
            self._non_trainable_weights.append(variable)
        return variable

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
        self._name = self._scope.name.rpartition("/")[2]

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        self._set_scope(kwargs.pop("scope", None))
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            with name_scope(scope.original_name_scope):
                inputs = convert_to_tensor(inputs) if not isinstance(inputs, (list, tuple)) else inputs
                if self._dtype is None and isinstance(inputs, Tensor):
                    self._dtype = inputs.dtype.base_dtype if inputs.dtype.is_floating else dtypes.float32
                if not self.built:
                    self.build(inputs.get_shape() if isinstance(inputs, Tensor) else [i.get_shape()
                                                                                       for i in inputs])
                    self.built = True
                outputs = self.call(inputs, *args, **kwargs)
                if self._activity_regularizer is not None:
                    with name_scope("ActivityRegularizer"):
                        activity_loss = self._activity_regularizer(outputs)
                        batch_size = cast_ops.cast(shape_ops.shape(outputs)[0], activity_loss.dtype)
                        self.add_loss(activity_loss / batch_size)
        collected = get_collection(GraphKeys.UPDATE_OPS)
        for update in self._updates:
            if all(update is not u for u in collected):
                add_to_collection(GraphKeys.UPDATE_OPS, update)
        return outputs

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self(inputs, *args, **kwargs)
