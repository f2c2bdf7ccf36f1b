"""The global step: the int64 scalar variable in the GLOBAL_STEP collection that training increments."""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import GraphKeys, Tensor, get_default_graph
from tensorweave.ops import control_flow_ops, init_ops, variable_scope, variables
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


@tf_export("train.get_global_step")
def get_global_step(graph: Any = None) -> Any:
    """The graph's global step (the GLOBAL_STEP collection's one entry, else the tensor 'global_step:0'),
    or None."""
    graph = graph or get_default_graph()
    global_step_tensors = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(global_step_tensors) == 1:
        global_step_tensor = global_step_tensors[0]
    elif not global_step_tensors:
        try:
            global_step_tensor = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        tf_logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(global_step_tensor)
    return global_step_tensor


@tf_export("train.assert_global_step")
def assert_global_step(global_step_tensor: Any) -> None:
    """TypeError unless `global_step_tensor` is an integer scalar Variable or Tensor."""
    if not isinstance(global_step_tensor, (variables.Variable, Tensor)):
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: {global_step_tensor}.")
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: {global_step_tensor.dtype}")
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f"Existing \"global_step\" is not scalar: {shape}")


@tf_export("train.create_global_step")
def create_global_step(graph: Any = None) -> variables.Variable:
    """A new global step variable `global_step` (int64, 0, not trainable); ValueError if one exists."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError("\"global_step\" already exists.")
    with graph.as_default() as g, g.name_scope(None):
        return variable_scope.get_variable(
            GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64, initializer=init_ops.zeros_initializer(),
            trainable=False, aggregation=variables.VariableAggregation.ONLY_FIRST_REPLICA,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


@tf_export("train.get_or_create_global_step")
def get_or_create_global_step(graph: Any = None) -> Any:
    """The graph's global step, created first if it has none."""
    graph = graph or get_default_graph()
    global_step_tensor = get_global_step(graph)
    if global_step_tensor is None:
        global_step_tensor = create_global_step(graph)
    return global_step_tensor


@tf_export("train.global_step")
def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The global step's value, read in `sess`."""
    return int(sess.run(global_step_tensor))


def _get_or_create_global_step_read(graph: Any = None) -> Tensor | None:
    """A tensor reading the global step, made once per graph, that hooks fetch in every run: it reads the
    initial value while the variable is uninitialized, so a hook's fetch never fails before init."""
    graph = graph or get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    global_step_tensor = get_global_step(graph)
    if global_step_tensor is None:
        return None
    with graph.as_default() as g, g.name_scope(None), g.name_scope(global_step_tensor.op.name + "/"):
        if isinstance(global_step_tensor, variables.Variable):
            value = control_flow_ops.cond(variables.is_variable_initialized(global_step_tensor),
                                          global_step_tensor.read_value, lambda: global_step_tensor.initial_value)
        else:
            value = global_step_tensor
        read = value + 0
        graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read
