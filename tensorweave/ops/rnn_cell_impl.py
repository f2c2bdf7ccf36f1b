"""`tf.nn.rnn_cell`: TF1's recurrent cells (basic RNN, LSTM with peepholes/clipping/projection, GRU), the
stacking MultiRNNCell and the dropout, residual and device wrappers.

A cell is one time step, `(output, new_state) = cell(inputs, state)`, that makes its variables with
`tf.get_variable` the first time it is called, in a variable scope named as TF1's layers name it: the class
name in snake case (`basic_lstm_cell`) under the scope the cell is first called in, so `dynamic_rnn` gives
`rnn/basic_lstm_cell/kernel` and a stack `rnn/multi_rnn_cell/cell_0/lstm_cell/kernel`, and checkpoints written
by TF1 restore here. Invariant: a cell's variables are made once; later calls reuse them, in the scope
captured on the first call. A wrapper adds no scope of its own.
"""

from __future__ import annotations

import collections
import hashlib
import numbers
import re
import warnings
from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, nest, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, device, name_scope
from tensorweave.ops import (
    clip_ops,
    constant_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    init_ops,
    linalg_ops,
    manipulation_ops,
    nn_ops,
    random_ops,
    shape_ops,
    tensor_array_ops,
    variable_scope,
)
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"


def _snake_case(name: str) -> str:
    """TF's layer base name of a class: `BasicLSTMCell` -> `basic_lstm_cell`."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _concat(prefix: Any, suffix: Any, static: bool = False) -> Any:
    """The shape `prefix + suffix` (each a tensor, a number or a shape): a TensorShape's list when `static`,
    else an int32 tensor."""
    def as_parts(value: Any) -> tuple[Tensor | None, list | None]:
        if isinstance(value, Tensor):
            known = tensor_util.constant_value(value)
            if value.shape.ndims == 0:
                value = shape_ops.expand_dims(value, 0)
            elif value.shape.ndims != 1:
                raise ValueError(f"prefix tensor must be either a scalar or vector, but saw tensor: {value}")
            return value, None if known is None else list(known.reshape(-1))
        shape = tensor_shape.TensorShape(value)
        static_list = shape.as_list() if shape.ndims is not None else None
        dynamic = constant_ops.constant(shape.as_list(), dtype=dtypes.int32) if shape.is_fully_defined() else None
        return dynamic, static_list

    p, p_static = as_parts(prefix)
    s, s_static = as_parts(suffix)
    if static:
        shape = tensor_shape.TensorShape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return manipulation_ops.concat((p, s), 0)


def _zero_state_tensors(state_size: Any, batch_size: Any, dtype: Any) -> Any:
    """Zeros of shape [batch_size] + size for every size in the (nested) `state_size`."""
    def zeros(size: Any) -> Tensor:
        value = fill_ops.zeros(_concat(batch_size, size), dtype=dtype)
        value.set_shape(_concat(batch_size, size, static=True))
        return value

    return nest.map_structure(zeros, state_size)


def assert_like_rnncell(cell_name: str, cell: Any) -> None:
    """A cell is anything with output_size, state_size, get_initial_state or zero_state, and a call."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"), callable(cell)]
    messages = ["'output_size' property is missing", "'state_size' property is missing",
                "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    errors = [message for ok, message in zip(conditions, messages) if not ok]
    if errors:
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(errors)}.")


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


@tf_export("nn.rnn_cell.LSTMStateTuple")
class LSTMStateTuple(_LSTMStateTuple):
    """An LSTM's state: the cell state `c` and the output `h` (a namedtuple, so nest sees its parts)."""

    __slots__ = ()

    @property
    def dtype(self) -> dtypes.DType:
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


@tf_export("nn.rnn_cell.RNNCell")
class RNNCell:
    """An RNN cell: `(output, new_state) = cell(inputs, state)` for one time step, its variables made on the
    first call under the cell's variable scope (a TF1 layer's scope: its snake-case class name, unique in the
    scope it is first called in)."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        self._reuse = kwargs.pop("_reuse", None)
        if kwargs:
            raise TypeError("Keyword argument not understood:", next(iter(kwargs)))  # TF's two arguments
        self.trainable = trainable
        self._base_name = name or _snake_case(type(self).__name__)
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._scope: variable_scope.VariableScope | None = None
        self._rnncell_scope: variable_scope.VariableScope | None = None
        self._variables: list = []
        self.built = False

    @property
    def name(self) -> str:
        return self._base_name

    @property
    def dtype(self) -> dtypes.DType | None:
        return self._dtype

    @property
    def state_size(self) -> Any:
        """An int, a TensorShape, or a nested tuple of them: the size of each part of the state."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    @property
    def variables(self) -> list:
        return list(self._variables)

    weights = variables

    @property
    def trainable_variables(self) -> list:
        return list(self._variables) if self.trainable else []

    trainable_weights = trainable_variables

    def build(self, inputs_shape: tensor_shape.TensorShape) -> None:
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        raise NotImplementedError("Abstract method")

    def add_variable(self, name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                     partitioner: Any = None, trainable: bool | None = None) -> Any:
        """A variable of the cell, made (or reused) by `tf.get_variable` in the cell's scope."""
        variable = variable_scope.get_variable(name, shape=shape, dtype=dtype or self._dtype, initializer=initializer,
                                               partitioner=partitioner,
                                               trainable=self.trainable if trainable is None else trainable)
        self._variables.append(variable)
        return variable

    add_weight = add_variable

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Any, Any]:
        """Run the cell in `scope` if given, else in the variable scope it was first called in."""
        if scope is not None:
            with variable_scope.variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return self._layer_call(inputs, state, scope)
        if self._rnncell_scope is None:
            self._rnncell_scope = variable_scope.get_variable_scope()
        with variable_scope.variable_scope(self._rnncell_scope, custom_getter=self._rnn_get_variable):
            return self._layer_call(inputs, state, None)

    def _rnn_get_variable(self, getter: Callable, *args: Any, **kwargs: Any) -> Any:
        """Every variable the call gets (a `tf.get_variable` in a user's `call` too) is the cell's, as TF's."""
        variable = getter(*args, **kwargs)
        if all(variable is not v for v in self._variables):
            self._variables.append(variable)
        return variable

    def _layer_call(self, inputs: Any, state: Any, scope: Any) -> tuple[Any, Any]:
        """TF1's layer call: capture the cell's own scope once, build on the first call, then call."""
        if self._scope is None:
            if self._reuse:
                with variable_scope.variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with variable_scope.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured
        first_input = nest.flatten(inputs)[0]
        if self._dtype is None:
            self._dtype = convert_to_tensor(first_input).dtype.base_dtype
        with variable_scope.variable_scope(self._scope, reuse=True if self.built else self._reuse,
                                           auxiliary_name_scope=False) as current:
            with name_scope(current.original_name_scope):
                if not self.built:
                    self.build(nest.map_structure(lambda x: convert_to_tensor(x).shape, inputs))
                    self.built = True
                return self.call(inputs, state)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zeros of shape [batch_size, size] for each part of the state."""
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return _zero_state_tensors(self.state_size, batch_size, dtype)

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None) -> Any:
        if inputs is not None:
            inputs = convert_to_tensor(inputs)
            batch_size = tensor_shape.dimension_value(inputs.shape[0]) or shape_ops.shape(inputs)[0]
            dtype = inputs.dtype
        return self.zero_state(batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell whose variables are made in `build` from the input's depth."""

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Any, Any]:
        """Straight to the layer call, not through the variable scope of the first call (TF's LayerRNNCell):
        its ops are named from its own scope where it was first called, e.g. `rnn/while/basic_lstm_cell/`."""
        return self._layer_call(inputs, state, scope)


def _input_depth(inputs_shape: tensor_shape.TensorShape) -> int:
    depth = tensor_shape.dimension_value(inputs_shape[-1])
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
    return depth


@tf_export("nn.rnn_cell.BasicRNNCell")
class BasicRNNCell(LayerRNNCell):
    """The Elman cell: `output = new_state = activation(W [inputs, state] + b)`."""

    def __init__(self, num_units: int, activation: Callable | None = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        _warn_deprecated("BasicRNNCell", "SimpleRNNCell")
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or elementwise_ops.tanh

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: tensor_shape.TensorShape) -> None:
        depth = _input_depth(inputs_shape)
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple[Tensor, Tensor]:
        gate_inputs = linalg_ops.matmul(manipulation_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn_ops.bias_add(gate_inputs, self._bias))
        return output, output


@tf_export("nn.rnn_cell.GRUCell")
class GRUCell(LayerRNNCell):
    """The gated recurrent unit (Cho et al. 2014): reset and update gates, then a candidate state."""

    def __init__(self, num_units: int, activation: Callable | None = None, reuse: Any = None,
                 kernel_initializer: Any = None, bias_initializer: Any = None, name: str | None = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        _warn_deprecated("GRUCell", "GRUCell")
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or elementwise_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: tensor_shape.TensorShape) -> None:
        depth = _input_depth(inputs_shape)
        units = self._num_units
        self._gate_kernel = self.add_variable(f"gates/{_WEIGHTS_VARIABLE_NAME}", shape=[depth + units, 2 * units],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            f"gates/{_BIAS_VARIABLE_NAME}", shape=[2 * units],
            initializer=self._bias_initializer or init_ops.constant_initializer(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_variable(f"candidate/{_WEIGHTS_VARIABLE_NAME}",
                                                   shape=[depth + units, units], initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            f"candidate/{_BIAS_VARIABLE_NAME}", shape=[units],
            initializer=self._bias_initializer or init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple[Tensor, Tensor]:
        gate_inputs = linalg_ops.matmul(manipulation_ops.concat([inputs, state], 1), self._gate_kernel)
        value = elementwise_ops.sigmoid(nn_ops.bias_add(gate_inputs, self._gate_bias))
        r, u = manipulation_ops.split(value=value, num_or_size_splits=2, axis=1)
        candidate = linalg_ops.matmul(manipulation_ops.concat([inputs, r * state], 1), self._candidate_kernel)
        c = self._activation(nn_ops.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


def _warn_deprecated(cell_name: str, keras_name: str) -> None:
    """TF's (tf_keras legacy cells') UserWarning, pointing at the line that made the cell."""
    warnings.warn(f"`tf.nn.rnn_cell.{cell_name}` is deprecated and will be removed in a future version. This class "
                  f"is equivalent as `tf.keras.layers.{keras_name}`, and will be replaced by that in Tensorflow 2.0.",
                  stacklevel=3)


def _warn_concatenated_state(cell: RNNCell, state_is_tuple: bool) -> None:
    if not state_is_tuple:
        tf_logging.warning(f"{cell}: Using a concatenated state is slower and will soon be deprecated.  Use "
                           "state_is_tuple=True.")


@tf_export("nn.rnn_cell.BasicLSTMCell")
class BasicLSTMCell(LayerRNNCell):
    """The LSTM of Zaremba et al. 2014: input, new-input, forget and output gates from one matmul, with
    `forget_bias` added to the forget gate; no peepholes, clipping or projection."""

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Callable | None = None, reuse: Any = None, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        _warn_deprecated("BasicLSTMCell", "LSTMCell")
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _warn_concatenated_state(self, state_is_tuple)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or elementwise_ops.tanh

    @property
    def state_size(self) -> Any:
        units = self._num_units
        return LSTMStateTuple(units, units) if self._state_is_tuple else 2 * units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: tensor_shape.TensorShape) -> None:
        depth = _input_depth(inputs_shape)
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple[Tensor, Any]:
        one = constant_ops.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = manipulation_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = nn_ops.bias_add(linalg_ops.matmul(manipulation_ops.concat([inputs, h], 1), self._kernel),
                                      self._bias)
        i, j, f, o = manipulation_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias = constant_ops.constant(self._forget_bias, dtype=f.dtype)
        sigmoid = elementwise_ops.sigmoid
        new_c = elementwise_ops.add(elementwise_ops.multiply(c, sigmoid(elementwise_ops.add(f, forget_bias))),
                                    elementwise_ops.multiply(sigmoid(i), self._activation(j)))
        new_h = elementwise_ops.multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else manipulation_ops.concat([new_c, new_h], 1)
        return new_h, new_state


@tf_export("nn.rnn_cell.LSTMCell")
class LSTMCell(LayerRNNCell):
    """The LSTM of Hochreiter & Schmidhuber with TF1's options: diagonal peepholes (Sak et al. 2014), a clipped
    cell state, and a projection of the output (with its own clip)."""

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip: float | None = None,
                 initializer: Any = None, num_proj: int | None = None, proj_clip: float | None = None,
                 num_unit_shards: int | None = None, num_proj_shards: int | None = None, forget_bias: float = 1.0,
                 state_is_tuple: bool = True, activation: Callable | None = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        _warn_deprecated("LSTMCell", "LSTMCell")
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _warn_concatenated_state(self, state_is_tuple)
        if num_unit_shards is not None or num_proj_shards is not None:
            tf_logging.warning(f"{self}: The num_unit_shards and proj_unit_shards parameters are deprecated and "
                               "will be removed in Jan 2017.  Use a variable scope with a partitioner instead.")
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or elementwise_ops.tanh
        h_size = num_proj or num_units
        self._state_size = LSTMStateTuple(num_units, h_size) if state_is_tuple else num_units + h_size
        self._output_size = h_size

    @property
    def state_size(self) -> Any:
        return self._state_size

    @property
    def output_size(self) -> int:
        return self._output_size

    def build(self, inputs_shape: tensor_shape.TensorShape) -> None:
        depth = _input_depth(inputs_shape)
        h_depth = self._num_units if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME, shape=[depth + h_depth, 4 * self._num_units],
                                         initializer=self._initializer,
                                         partitioner=_fixed_size_partitioner(self._num_unit_shards))
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag, self._w_i_diag, self._w_o_diag = (
                self.add_variable(name, shape=[self._num_units], initializer=self._initializer)
                for name in ("w_f_diag", "w_i_diag", "w_o_diag"))
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable(f"projection/{_WEIGHTS_VARIABLE_NAME}",
                                                  shape=[self._num_units, self._num_proj],
                                                  initializer=self._initializer,
                                                  partitioner=_fixed_size_partitioner(self._num_proj_shards))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple[Tensor, Any]:
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = elementwise_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = indexing_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = indexing_ops.slice(state, [0, self._num_units], [-1, num_proj])
        if tensor_shape.dimension_value(inputs.shape.with_rank(2)[1]) is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = nn_ops.bias_add(linalg_ops.matmul(manipulation_ops.concat([inputs, m_prev], 1), self._kernel),
                                      self._bias)
        i, j, f, o = manipulation_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = linalg_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else manipulation_ops.concat([c, m], 1)
        return m, new_state


def _fixed_size_partitioner(num_shards: int | None) -> Callable | None:
    """TF's fixed_size_partitioner(num_shards) (split along the first axis), or None."""
    if num_shards is None:
        return None

    def partitioner(shape: Any, dtype: Any) -> list[int]:
        return [num_shards] + [1] * (len(tensor_shape.as_shape(shape)) - 1)

    return partitioner


@tf_export("nn.rnn_cell.MultiRNNCell")
class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input; cell i works in variable scope `cell_i`."""

    def __init__(self, cells: Any, state_is_tuple: bool = True) -> None:
        tf_logging.warning("`tf.nn.rnn_cell.MultiRNNCell` is deprecated. This class is equivalent as "
                           "`tf.keras.layers.StackedRNNCells`, and will be replaced by that in Tensorflow 2.0.")
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        if len({id(cell) for cell in cells}) < len(cells):
            tf_logging.warning("At least two cells provided to MultiRNNCell are the same object and will share "
                               "weights.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set.  State "
                             f"sizes are: {[c.state_size for c in cells]}")

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    @property
    def variables(self) -> list:
        return [v for cell in self._cells for v in cell.variables]

    weights = variables

    @property
    def trainable_variables(self) -> list:
        return [v for cell in self._cells for v in cell.trainable_variables] if self.trainable else []

    trainable_weights = trainable_variables

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)  # in a scope of its own too, as TF's

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, but "
                                         f"received: {state}")
                    cell_state = state[i]
                else:
                    cell_state = indexing_ops.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        return current, tuple(new_states) if self._state_is_tuple else manipulation_ops.concat(new_states, 1)


class _RNNCellWrapper(RNNCell):
    """A cell around a cell: same sizes and variables, the wrapped cell called in the caller's scope."""

    def __init__(self, cell: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    @property
    def wrapped_cell(self) -> Any:
        return self.cell

    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    @property
    def output_size(self) -> Any:
        return self.cell.output_size

    @property
    def variables(self) -> list:
        return self.cell.variables

    weights = variables

    @property
    def trainable_variables(self) -> list:
        return self.cell.trainable_variables

    trainable_weights = trainable_variables

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Any, Any]:
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable, **kwargs: Any) -> tuple[Any, Any]:
        raise NotImplementedError


def _default_dropout_state_filter_visitor(substate: Any) -> Any:
    """Drop out every part of a state but an LSTM's memory `c` (and TensorArrays)."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return not isinstance(substate, tensor_array_ops.TensorArray)


def _filtered_map(filter_fn: Callable, fn: Callable, values: Any) -> Any:
    """`fn(do_dropout, value)` over `values`, where `filter_fn` says, per substructure, whether (a bool) or
    which of its parts (a structure of bools) to drop out."""
    decision = filter_fn(values)
    if isinstance(decision, bool):
        if decision and nest.is_nested(values):
            return nest.pack_sequence_as(values, [_filtered_map(filter_fn, fn, v) for v in values])
        return fn(decision, values) if not nest.is_nested(values) else values
    return nest.map_structure(fn, decision, values)


@tf_export("nn.rnn_cell.DropoutWrapper")
class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and state (Srivastava et al. 2014); with `variational_recurrent`,
    one dropout mask per sequence for all time steps (Gal & Ghahramani 2015)."""

    def __init__(self, cell: Any, input_keep_prob: Any = 1.0, output_keep_prob: Any = 1.0,
                 state_keep_prob: Any = 1.0, variational_recurrent: bool = False, input_size: Any = None,
                 dtype: Any = None, seed: int | None = None, dropout_state_filter_visitor: Callable | None = None,
                 **kwargs: Any) -> None:
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        with name_scope("DropoutWrapperInit"):
            for prob, attr in [(input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")]:
                tensor = convert_to_tensor(prob)
                known = tensor_util.get_static_value(tensor)
                if known is not None:
                    if known < 0 or known > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1. Received {known}")
                    setattr(self, f"_{attr}", float(known))
                else:
                    setattr(self, f"_{attr}", tensor)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = self._recurrent_state_noise = self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def noise(structure: Any, salt: str) -> Any:
                flat = [random_ops.random_uniform(manipulation_ops.concat(
                            ([1], tensor_shape.TensorShape(size).as_list()), 0),
                            seed=self._gen_seed(salt, i), dtype=dtype)
                        for i, size in enumerate(_flatten_sizes(structure))]
                return nest.pack_sequence_as(structure, flat) if nest.is_nested(structure) else flat[0]

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._recurrent_input_noise = noise(input_size, "input")
            self._recurrent_state_noise = noise(cell.state_size, "state")
            self._recurrent_output_noise = noise(cell.output_size, "output")

    def _gen_seed(self, salt_prefix: str, index: int) -> int | None:
        """TF's per-part seed: the md5 of the seed and a salt, so each part gets its own reproducible mask."""
        if self._seed is None:
            return None
        digest = hashlib.md5(f"{self._seed}{salt_prefix}_{index}".encode()).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values: Any, salt_prefix: str, recurrent_noise: Any, keep_prob: Any,
                 filter_fn: Callable = lambda _: True) -> Any:
        counter = iter(range(1 << 30))
        flat_noise = iter(nest.flatten(recurrent_noise)) if recurrent_noise is not None else None

        def dropout(do_dropout: bool, value: Tensor) -> Tensor:
            index = next(counter)
            noise = next(flat_noise) if flat_noise is not None else None
            if not do_dropout:
                return value
            if not self._variational_recurrent:
                return nn_ops.dropout(value, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, index))
            result = elementwise_ops.divide(value, keep_prob) * elementwise_ops.floor(keep_prob + noise)
            result.set_shape(value.shape)
            return result

        return _filtered_map(filter_fn, dropout, values)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable, **kwargs: Any) -> tuple[Any, Any]:
        def should_dropout(p: Any) -> bool:
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise, self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise, self._state_keep_prob,
                                      self._dropout_state_filter)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise, self._output_keep_prob)
        return output, new_state


def _flatten_sizes(structure: Any) -> list:
    """The sizes of a (nested) state or output size: a TensorShape or a list of ints is one size."""
    if isinstance(structure, (tensor_shape.TensorShape, list)):
        return [structure]
    return [s for part in structure for s in _flatten_sizes(part)] if nest.is_nested(structure) else [structure]


@tf_export("nn.rnn_cell.ResidualWrapper")
class ResidualWrapper(_RNNCellWrapper):
    """A cell whose output is its input plus the wrapped cell's output (or `residual_fn(inputs, outputs)`)."""

    def __init__(self, cell: Any, residual_fn: Callable | None = None, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable, **kwargs: Any) -> tuple[Any, Any]:
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs: Any, outputs: Any) -> Any:
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(lambda i, o: i.shape.assert_is_compatible_with(o.shape), inputs, outputs)
            return nest.map_structure(lambda i, o: i + o, inputs, outputs)

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


@tf_export("nn.rnn_cell.DeviceWrapper")
class DeviceWrapper(_RNNCellWrapper):
    """A cell whose ops (and zero state) are placed on `device`."""

    def __init__(self, cell: Any, device: str, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable, **kwargs: Any) -> tuple[Any, Any]:
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
