"""`tf.train.ExponentialMovingAverage` and the moving-average update it runs, as TF1's moving_averages.

Each averaged variable gets a slot `<variable>/<ema name>` starting at the variable's value (a tensor's
starts at zeros); `apply` groups one `AssignMovingAvg` per average: avg -= (avg - value) * (1 - decay), with
decay = min(decay, (1 + n) / (10 + n)) when num_updates is given. Averages of tensors may be zero-debiased:
they keep a `biased` average and a `local_step`, and the average is biased / (1 - decay^local_step).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    device,
    get_default_graph,
    init_scope,
    name_scope,
)
from tensorweave.ops import (
    cast_ops,
    control_flow_ops,
    elementwise_ops,
    init_ops,
    state_ops,
    variable_scope,
    variables,
)
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.optimizer import create_slot, create_zeros_slot

_AVERAGED_DTYPES = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)


def _maybe_unique(name: str) -> str:
    """`name`, or `name_<n>` when a variable of that name already exists in the current scope."""
    scope = variable_scope.get_variable_scope()
    if scope.reuse:
        return name
    existing = {v.op.name for v in scope.global_variables()}
    full = f"{scope.name}/{name}"
    if full not in existing:
        return name
    index = 1
    while f"{full}_{index}" in existing:
        index += 1
    return f"{name}_{index}"


def _zero_debias(unbiased_var: Any, value: Any, decay: Tensor) -> Tensor:
    """The zero-debiased update: a biased average and a step count beside `unbiased_var`, which gets
    biased / (1 - (1 - decay)^step) (`decay` here is already 1 - the EMA's decay)."""
    with variable_scope.variable_scope(unbiased_var.op.name):
        with colocate_with(unbiased_var):
            biased_var = variable_scope.get_variable(
                _maybe_unique("biased"), initializer=init_ops.zeros_initializer(), shape=unbiased_var.get_shape(),
                dtype=unbiased_var.dtype.base_dtype, trainable=False)
            local_step = variable_scope.get_variable(
                _maybe_unique("local_step"), shape=[], dtype=unbiased_var.dtype.base_dtype,
                initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - elementwise_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor, name=get_default_graph().get_name_scope() + "/")


def assign_moving_average(variable: Any, value: Any, decay: Any, zero_debias: bool = True,
                          name: str | None = None) -> Tensor:
    """variable -= (variable - value) * (1 - decay), or its zero-debiased form; TF's moving_averages
    helper, also what batch normalization's moving statistics use."""
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = cast_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _key(value: Any) -> int:
    return id(value)


@tf_export("train.ExponentialMovingAverage")
class ExponentialMovingAverage:
    """Keeps moving averages of variables (and tensors): `apply` makes the update op, `average` gives the
    average's variable, `variables_to_restore` maps the averages' names onto the variables for a Saver
    that evaluates with averaged weights."""

    def __init__(self, decay: Any, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage") -> None:
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[int, Any] = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: list | None = None) -> Operation:
        """The op that updates the averages of `var_list` (default: the trainable variables), making the
        averages on the first call for each."""
        if var_list is None:
            var_list = variables.trainable_variables()
        zero_debias_true = set()
        for var in var_list:
            if var.dtype.base_dtype not in _AVERAGED_DTYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if _key(var) in self._averages:
                continue
            with init_scope():  # the averages' initializers wait on nothing `apply` is made under, as TF's
                if isinstance(var, variables.Variable):
                    with device(var.device):
                        initialized = control_flow_ops.cond(state_ops.is_variable_initialized(var), var.read_value,
                                                            lambda var=var: var.initial_value)
                    avg = create_slot(var, initialized, self.name, colocate_with_primary=True)
                    add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    is_variable_op = var.op.type in ("Variable", "VariableV2", "VarHandleOp")
                    avg = create_zeros_slot(var, self.name, colocate_with_primary=is_variable_op)
                    if self._zero_debias:
                        zero_debias_true.add(_key(avg))
            self._averages[_key(var)] = avg
        with name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = cast_ops.cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = elementwise_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = [assign_moving_average(self._averages[_key(var)], var, decay,
                                             zero_debias=_key(self._averages[_key(var)]) in zero_debias_true)
                       for var in var_list]
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var: Any) -> Any:
        """The variable holding `var`'s moving average, or None."""
        return self._averages.get(_key(var))

    def average_name(self, var: Any) -> str:
        """The name `var`'s average has or would get (what a Saver restoring averages looks for)."""
        if _key(var) in self._averages:
            return self._averages[_key(var)].op.name
        return get_default_graph().unique_name(var.op.name + "/" + self.name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables: list | None = None) -> dict[str, Any]:
        """{average name: variable} for the averaged variables (trainable and MOVING_AVERAGE_VARIABLES by
        default), {name: variable} for every other global variable."""
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables() + variables.moving_average_variables()
        unique = list({_key(v): v for v in moving_avg_variables}.values())
        name_map = {self.average_name(v): v for v in unique}
        averaged_names = {v.name for v in unique}
        for v in variables.global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
