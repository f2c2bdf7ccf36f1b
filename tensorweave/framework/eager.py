"""Eager execution, as `tf.py_function` needs it: EagerTensor and ops that run when they are called (TF's
EagerTensor and eager/execute.py, in their smallest form).

An op called while the thread executes eagerly (context.py) is built exactly as in graph mode — the same
node building, attr inference, messages and shape function — as a node of a scratch graph of its own, in
which each EagerTensor input stands in as a Const of its value. Then the scratch graph's nodes (the op, and
whatever converting its inputs added: a Pack of a list of tensors) run in creation order on their kernels,
made by the registry's `new_kernel` and called through `OpKernel.compute` in the context's step, as the
executor makes and calls them; the op's outputs come back as EagerTensors and the scratch graph is dropped.
A kernel's failure is TF's eager error: its class, the kernel's message and `[Op:<type>]`.

A call of an Op whose arguments are EagerTensors, Python scalars, lists of them and attrs builds the same
scratch nodes whenever those arguments have the same dtypes, values (the scalars) and aliasing: the first
such call keeps the kernels it made as a plan (per device), and later ones rerun them on their inputs'
values, skipping the building — unless an op is stateful or a kernel keeps state (a seeded random op still
gets a new kernel each call, as before), a tape records, or op callbacks watch. A kernel failing on a
plan's rerun makes the call build again, for TF's eager error.

Each op that ran is offered to the context's tapes (ops/backprop.py); its scratch Operation outlives its
graph only where a tape recorded it: its inputs and outputs are rebound to the EagerTensors, so the op's
registered gradient function, run eagerly, sees their values.

Invariant: an EagerTensor never names a node; in a graph (outside eager execution) it converts to a Const
of its value, as TF captures an eager value.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import context, dtypes, op_callbacks, op_registry, tensor_shape
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    get_default_graph,
    internal_convert_to_tensor,
)
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.node_builder import execute_eagerly
from tensorweave.framework.op_kernel import OpKernel, kernel_failure

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
def execute(build: Callable[[], Any], op_type: str, name: str | None, call: tuple | None = None) -> Any:
    """Build a node with `build()` in a scratch graph, run it at once, and return its outputs as EagerTensors
    (an Operation comes back with its inputs and outputs rebound to them).

    With `call` (an Op's, its arguments), a call that built the same scratch nodes before reruns their kernels
    on its inputs' values instead (a `_Plan`), unless a tape records or op callbacks watch."""
    ctx = context.current()
    tensors: list[EagerTensor] = []
    key = None
    if call is not None and not ctx.tapes and not op_callbacks.should_invoke_op_callbacks():
        key = _call_key(*call, tensors)
        plans = _plans.setdefault(ctx.device, {}) if key is not None else None
        plan = plans.get(key) if plans is not None else None
        if plan is not None:
            try:
                return plan.run(ctx, tensors)
            except errors.OpError:
                pass  # built and run again below, for TF's eager error
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
    recorder = _PlanRecorder(tensors) if key is not None else None
    for node in scratch.get_operations():
        if node in stand_ins:
            eager[node._outputs[0]] = stand_ins[node]
            if recorder is not None:
                recorder.stand_in(node._outputs[0], stand_ins[node])
            continue
        inputs = [eager[t] for t in node._inputs]
        kernel, outputs = _run(ctx, node, inputs, op_type, name)
        if recorder is not None:
            recorder.step(kernel, node)
        for t, value in zip(node._outputs, outputs):
            eager[t] = EagerTensor(value, t.dtype)
        node._inputs, node._outputs = inputs, [eager[t] for t in node._outputs]
        for tape in ctx.tapes:
            tape.record(node)
    if recorder is not None and len(plans) < _PLANS_PER_DEVICE:
        plan = recorder.plan(result)
        if plan is not None:
            plans[key] = plan
    scratch._operations.clear()  # no cycle left through the graph: its nodes go as soon as nothing holds them
    scratch._ops_by_name.clear()
    return _eager_result(result, eager)


class _Uncacheable(Exception):
    """An eager call's argument that its scratch nodes may depend on by value: no plan for that call."""


def _call_key(op: Any, args: tuple, kwargs: dict, tensors: list[EagerTensor]) -> tuple | None:
    """What decides an eager call's scratch nodes: the Op, and each argument's kind — an EagerTensor's dtype
    and which of the call's EagerTensors it is (collected into `tensors`), a Python scalar's type and value,
    nested lists, attrs. None for a stateful op, or an argument of another kind (an array, an object)."""
    if op.op_def.is_stateful:
        return None
    try:
        key = [op]
        for value in args:
            key.append(_key(value, tensors))
        if kwargs:
            key.append(_key(tuple(sorted(kwargs.items())), tensors))
        return tuple(key)
    except _Uncacheable:
        return None


def _key(value: Any, tensors: list[EagerTensor]) -> Any:
    kind = type(value)
    if kind is EagerTensor:
        for index, tensor in enumerate(tensors):
            if tensor is value:
                return kind, value._dtype, index
        tensors.append(value)
        return kind, value._dtype, len(tensors) - 1
    if kind is float:
        return kind, value.hex()  # -0.0 is not 0.0
    if kind in (int, bool, str, bytes) or value is None or isinstance(value, dtypes.DType):
        return kind, value
    if kind in (list, tuple):
        return kind, tuple(_key(v, tensors) for v in value)
    raise _Uncacheable


_PLANS_PER_DEVICE = 4096  # Python scalars are part of a key: a loop over many values must not grow it forever
_plans: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # device -> {call key: _Plan}


class _Plan:
    """The kernels of an eager call's scratch nodes, in creation order, over value slots: the call's
    EagerTensors first, then each kernel's outputs; and where the call's result lies in them."""

    __slots__ = ("steps", "result")

    def __init__(self, steps: list[tuple[OpKernel, list[int]]], result: Any) -> None:
        self.steps = steps
        self.result = result  # (slot, dtype), or a list or namedtuple of them

    def run(self, ctx: context.EagerContext, tensors: list[EagerTensor]) -> Any:
        values = [t._value for t in tensors]
        for kernel, inputs in self.steps:
            values.extend(kernel.compute([values[i] for i in inputs], ctx.step))
        result = self.result
        if isinstance(result, list):
            return [EagerTensor(values[slot], dtype) for slot, dtype in result]
        if isinstance(result, tuple) and hasattr(result, "_fields"):
            return type(result)(*(EagerTensor(values[slot], dtype) for slot, dtype in result))
        return EagerTensor(values[result[0]], result[1])


class _PlanRecorder:
    """Follows the slow path through a call's scratch nodes and makes its `_Plan`, unless a node has state
    (a stateful op, a kernel with persistent state, an asynchronous one) or a stand-in is no argument."""

    def __init__(self, tensors: list[EagerTensor]) -> None:
        self.tensors = tensors
        self.slots: dict[Tensor, int] = {}
        self.count = len(tensors)
        self.steps: list[tuple[OpKernel, list[int]]] | None = []

    def stand_in(self, output: Tensor, tensor: EagerTensor) -> None:
        index = next((i for i, t in enumerate(self.tensors) if t is tensor), None)
        if index is None:
            self.steps = None
        else:
            self.slots[output] = index

    def step(self, kernel: OpKernel, node: Operation) -> None:
        kernel_def = kernel.kernel_def
        if self.steps is None or kernel.asynchronous or kernel_def.state is not None or kernel_def.op_def.is_stateful:
            self.steps = None
            return
        self.steps.append((kernel, [self.slots[t] for t in node._inputs]))
        for t in node._outputs:
            self.slots[t] = self.count
            self.count += 1

    def plan(self, result: Any) -> _Plan | None:
        if self.steps is None:
            return None
        if isinstance(result, Tensor):
            return _Plan(self.steps, (self.slots[result], result.dtype))
        if isinstance(result, list):
            return _Plan(self.steps, [(self.slots[t], t.dtype) for t in result])
        if isinstance(result, tuple) and hasattr(result, "_fields"):
            return _Plan(self.steps, type(result)(*((self.slots[t], t.dtype) for t in result)))
        return None


def _run(ctx: context.EagerContext, node: Operation, inputs: list[EagerTensor], op_type: str,
         name: str | None) -> tuple[OpKernel | None, list[Any]]:
    """The node's kernel and its outputs on the context's device; a failure as TF's eager error."""
    try:
        kernel = op_registry.new_kernel(node._node_def, ctx.device)
        return kernel, kernel.compute([t._value for t in inputs], ctx.step)
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
