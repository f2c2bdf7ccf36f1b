"""Eager execution, as `tf.py_function` needs it: EagerTensor and ops that run when they are called (TF's
EagerTensor and eager/execute.py, in their smallest form).

An op called while the thread executes eagerly (context.py) is built exactly as in graph mode — the same
node building, attr inference, messages and shape function — as a node of a scratch graph of its own, in
which each EagerTensor input stands in as a Const of its value. Then the scratch graph's nodes (the op, and
whatever converting its inputs added: a Pack of a list of tensors) run in creation order on their kernels,
made by the registry's `new_kernel` and called through `OpKernel.compute` in the context's step, as the
executor makes and calls them; the op's outputs come back as EagerTensors and the scratch graph is dropped.
A kernel's failure is TF's eager error: its class, the kernel's message and `[Op:<type>]`.

Each op that ran is offered to the context's tapes (ops/backprop.py); its scratch Operation outlives its
graph only where a tape recorded it: its inputs and outputs are rebound to the EagerTensors, so the op's
registered gradient function, run eagerly, sees their values.

Invariant: an EagerTensor never names a node; in a graph (outside eager execution) it converts to a Const
of its value, as TF captures an eager value.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import context, dtypes, op_registry, tensor_shape
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    get_default_graph,
    internal_convert_to_tensor,
)
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.node_builder import execute_eagerly
from tensorweave.framework.op_kernel import kernel_failure

_UNDEFINED_IN_EAGER = frozenset({"op", "graph", "name", "consumers"})
_build = threading.local()  # the stand-ins of the eager op being built on this thread: Const op -> EagerTensor


class EagerTensor(Tensor):
    """A tensor that holds its value: what ops return while executing eagerly."""

    __slots__ = ("_value",)
    _is_eager = True

    def __init__(self, value: Any, dtype: dtypes.DType) -> None:  # noqa: D107 - no op, so no Tensor.__init__
        if not isinstance(value, np.ndarray):  # a kernel's NumPy scalar, a fed Python value
            value = np.asarray(value, dtype=object if dtype.base_dtype == dtypes.string else dtype.as_numpy_dtype)
        self._op = None
        self._value_index = 0
        self._dtype = dtype
        self._value = value
        self._shape = tensor_shape.TensorShape(np.shape(value))
        self._consumers = []
        self._name = None

    op = property(lambda self: self._undefined("op"))
    graph = property(lambda self: self._undefined("graph"))
    name = property(lambda self: self._undefined("name"))

    def _undefined(self, attribute: str) -> Any:
        raise AttributeError(f"Tensor.{attribute} is undefined when eager execution is enabled.")

    def __getattr__(self, name: str) -> Any:
        if name in _UNDEFINED_IN_EAGER:
            self._undefined(name)
        return super().__getattr__(name)

    @property
    def device(self) -> str:
        ctx = context.current()
        return ctx.device.name if ctx is not None else "/job:localhost/replica:0/task:0/device:CPU:0"

    def numpy(self) -> Any:
        """A copy of the value: a NumPy array, or a NumPy scalar (bytes for a string) at rank 0."""
        value = self._value
        return value[()] if value.ndim == 0 else value.copy()

    def set_shape(self, shape: Any) -> None:
        """Only checks: an eager value's shape is known."""
        if not self._shape.is_compatible_with(tensor_shape.as_shape(shape)):
            raise ValueError(f"Tensor's shape {self._shape} is not compatible with supplied shape "
                             f"{tensor_shape.as_shape(shape)}.")

    def _graph_constant(self, name: str | None) -> Tensor:
        """This value as a Const of the default graph: a captured value in a graph; while an eager op is built,
        the stand-in of its input, made directly (its attrs and shape are known: nothing to infer)."""
        g = get_default_graph()
        stand_ins = getattr(_build, "stand_ins", None)
        if stand_ins is None:
            return op_registry.create_op(g, "Const", [], name or "Const",
                                         {"value": self._value, "dtype": self._dtype}).outputs[0]
        node_def = NodeDef(g.unique_name("Const"), "Const", attr={"value": self._value, "dtype": self._dtype})
        const = g._create_op_from_node_def(node_def, [], [self._dtype], op_registry.get("Const").op_def)
        const._outputs[0]._shape = self._shape
        stand_ins[const] = self
        return const._outputs[0]

    def _text(self, is_repr: bool) -> str:
        value = self._value[()] if self._value.ndim == 0 else self._value
        if not is_repr:
            text = str(value)
        else:
            text = repr(value.item() if np.isscalar(value) and not isinstance(value, bytes) else value)
        return "\n" + text if "\n" in text else text

    def __repr__(self) -> str:
        return f"<tf.Tensor: shape={self._shape}, dtype={self._dtype.name}, numpy={self._text(True)}>"

    def __str__(self) -> str:
        return f"tf.Tensor({self._text(False)}, shape={self._shape}, dtype={self._dtype.name})"

    def __format__(self, format_spec: str) -> str:
        return self.numpy().__format__(format_spec)

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self._value, dtype=dtype)

    def __bool__(self) -> bool:
        return bool(self._value.size > 0 and self._value) if self._value.ndim else bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __index__(self) -> int:
        return self._value.__index__() if self._value.ndim == 0 else np.asarray(self._value).__index__()

    def __len__(self) -> int:
        if not self._shape.ndims:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self) -> Any:
        if not self._shape.ndims:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))


@execute_eagerly.install
def execute(build: Callable[[], Any], op_type: str, name: str | None) -> Any:
    """Build a node with `build()` in a scratch graph, run it at once, and return its outputs as EagerTensors
    (an Operation comes back with its inputs and outputs rebound to them)."""
    ctx = context.current()
    scratch = Graph()
    scratch._records_tracebacks = False
    stand_ins: dict[Operation, EagerTensor] = {}
    _build.stand_ins = stand_ins
    try:
        with context.building(), scratch.as_default():
            result = build()
    finally:
        _build.stand_ins = None
    eager: dict[Tensor, EagerTensor] = {}
    for node in scratch.get_operations():
        if node in stand_ins:
            eager[node._outputs[0]] = stand_ins[node]
            continue
        inputs = [eager[t] for t in node._inputs]
        outputs = _run(ctx, node, inputs, op_type, name)
        for t, value in zip(node._outputs, outputs):
            eager[t] = EagerTensor(value, t.dtype)
        node._inputs, node._outputs = inputs, [eager[t] for t in node._outputs]
        for tape in ctx.tapes:
            tape.record(node)
    scratch._operations.clear()  # no cycle left through the graph: its nodes go as soon as nothing holds them
    scratch._ops_by_name.clear()
    return _eager_result(result, eager)


def _run(ctx: context.EagerContext, node: Operation, inputs: list[EagerTensor], op_type: str,
         name: str | None) -> list[Any]:
    """The node's outputs from its kernel on the context's device; a failure as TF's eager error."""
    try:
        kernel = op_registry.new_kernel(node._node_def, ctx.device)
        return kernel.compute([t._value for t in inputs], ctx.step)
    except errors.OpError as error:
        cls, message = kernel_failure(node._node_def, error.__cause__ or error)
        if error.__cause__ is None:  # not the kernel's own failure (no kernel): its message as it is
            message = error.message
        suffix = "" if name is None else f" name: {name}"
        raise cls(None, None, f"{{{{function_node __wrapped__{op_type}_device_{ctx.device.name}}}}} {message} "
                              f"[Op:{op_type}]{suffix}") from None


def _eager_result(result: Any, eager: dict[Tensor, EagerTensor]) -> Any:
    """What building returned, with each graph tensor replaced by its EagerTensor."""
    if isinstance(result, Tensor):
        return eager[result]
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result)(*(eager[t] for t in result))
    if isinstance(result, list):
        return [eager[t] for t in result]
    return result


def convert(value: Any, dtype: dtypes.DType | None = None) -> EagerTensor:
    """`value` as an EagerTensor (of `dtype`, which it must have or convert to), executing eagerly."""
    return internal_convert_to_tensor(value, dtype=dtype)
