"""The op registry: one `Op` handle per op type, keyed by TF's op-type string, at the bottom of the op machinery.

An `Op` owns its OpDef (parsed from TF's spec strings), its shape function, its kernels (`KernelDef`s keyed
by device type) and its gradient (in the gradient table, which `tf.RegisterGradient` and
`gradient_override_map` also fill). The runtime finds OpDefs and kernels here by op type, so
`import_graph_def` of a real TF graph works; and `attrs_summary` prints a node's attrs as TF's errors do.

One-way rule: this module knows the IR (graph_def, op_def, dtypes, tensor_shape) and op_kernel, never the
Python graph. Calling an `Op` adds a node to the default graph as TF1's generated wrappers do; that is node
building (framework/node_builder.py, above the Python graph), reached through the `apply_op` and
`create_op` hooks it installs (framework/hooks.py). `create_op` stays importable from here for the op
library, which creates Const nodes with it.
"""

from __future__ import annotations

import inspect
import itertools
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.hooks import Hook
from tensorweave.framework.op_def import OpDef, parse_op_def
from tensorweave.framework.op_kernel import KernelDef, OpKernel
from tensorweave.platform.tf_export import tf_export

_ops: dict[str, Op] = {}
_DATA_TYPE = protos.POOL.FindEnumTypeByName("tensorflow.DataType")
_gradients: dict[str, Callable | None] = {}

# fn(ctx) with ctx a shape_inference.InferenceContext (above this module): one shape per output.
ShapeFunction = Callable[[Any], Sequence[Any]]

# apply_op(op, args, kwargs, name): what calling an Op does (a Tensor, a list of them, or the Operation).
apply_op: Hook[Callable[[Op, tuple, dict, str | None], Any]] = Hook(
    "apply_op", "tensorweave.framework.node_builder")
# create_op(graph, op_type, inputs, name, attrs, output_types=None): a node from converted inputs and
# explicit attrs (Graph.create_op, import_graph_def, the op library's Const); the new Operation.
create_op: Hook[Callable[..., Any]] = Hook("create_op", "tensorweave.framework.node_builder")


class Op:
    """One op type: OpDef, shape function, gradient, kernels; calling it adds a node (through `apply_op`)."""

    def __init__(self, name: str, inputs: Sequence[str] = (), outputs: Sequence[str] = (),
                 attrs: Sequence[str] = (), is_stateful: bool = False, *, is_commutative: bool = False,
                 is_aggregate: bool = False, allows_uninitialized_input: bool = False,
                 is_distributed_communication: bool = False, output_full_types: Mapping[str, str] | None = None
                 ) -> None:
        """`name` and the spec strings as in TF's REGISTER_OP; the flags and the outputs' full types (FullTypeDef
        text by output name, what TF's SetTypeConstructor sets) are TF's (see `parse_op_def`)."""
        if name in _ops:
            raise ValueError(f"Op '{name}' is already registered.")
        self.name = name
        self.op_def: OpDef = parse_op_def(
            name, inputs, outputs, attrs, is_stateful=is_stateful, is_commutative=is_commutative,
            is_aggregate=is_aggregate, allows_uninitialized_input=allows_uninitialized_input,
            is_distributed_communication=is_distributed_communication, output_full_types=output_full_types)
        self.shape_fn: ShapeFunction | None = None
        self.kernels: dict[str, list[KernelDef]] = {}
        _ops[name] = self

    def shape(self, fn: ShapeFunction) -> ShapeFunction:
        """Register the shape function: `fn(ctx)` returns one shape per output from an `InferenceContext`."""
        self.shape_fn = fn
        return fn

    def gradient(self, fn: Callable) -> Callable:
        """Register the gradient: `fn(op, *output_grads)` returns one Tensor or None per input."""
        _gradients[self.name] = fn
        return fn

    def kernel(self, *device_types: str, expensive: bool = False, constant: bool = False,
               asynchronous: bool = False, type_constraints: Mapping[str, Sequence[dtypes.DType]] | None = None,
               host_memory: Sequence[str] = (), state: Callable[[Mapping[str, Any]], Any] | None = None
               ) -> Callable[[Callable], Callable]:
        """Register `fn` as a kernel of this op on the given device types ('CPU', 'GPU').

        `type_constraints` maps type attrs to the dtypes TF has this kernel for, when that is fewer than
        the OpDef allows; `host_memory` names the args it keeps on the host; `state(attrs)` makes the
        persistent state of each node's kernel. Several kernels per device type may be registered (other dtypes):
        the first that supports a node's attrs runs it.
        """
        attr_names = {a.name for a in self.op_def.attrs}
        constraints = tuple((name, tuple(allowed)) for name, allowed in (type_constraints or {}).items())
        for name, _ in constraints:
            if name not in attr_names:
                raise ValueError(f"Kernel constraint on unknown attr '{name}' of Op '{self.name}'")
        arg_names = {a.name for a in self.op_def.input_args + self.op_def.output_args}
        for name in host_memory:
            if name not in arg_names:
                raise ValueError(f"Host-memory arg '{name}' is not an argument of Op '{self.name}'")

        def register(fn: Callable) -> Callable:
            params = list(inspect.signature(fn).parameters)
            wanted = tuple(p for p in params if p in attr_names)
            for device_type in device_types:
                self.kernels.setdefault(device_type, []).append(KernelDef(
                    self.op_def, device_type, fn, wanted, expensive, constant, asynchronous, constraints,
                    tuple(host_memory), state))
            return fn

        return register

    def find_kernel(self, device_type: str, attrs: Mapping[str, Any]) -> KernelDef | None:
        """The first kernel on `device_type` whose constraints admit these attrs (TF's FindKernelDef)."""
        for kernel in self.kernels.get(device_type, ()):
            if kernel.supports(attrs):
                return kernel
        return None

    def unsupported_message(self, node: NodeDef, device_types: Sequence[str]) -> str | None:
        """TF's placement error for a node whose attrs no kernel of these device types supports (None when
        one does, or when the op has no kernel on them at all: the executor reports that)."""
        kernels = [(t, kernel) for t in device_types for kernel in self.kernels.get(t, ())]
        if not kernels or any(kernel.supports(node.attr) for _, kernel in kernels):
            return None
        attrs = attrs_summary(self.op_def, node)
        registered = "".join(f"\n  device='{device_type}'; {registration}"
                             for device_type, kernel in kernels for registration in _registrations(kernel))
        return (f"No OpKernel was registered to support Op '{self.name}' used by {{{{node {node.name}}}}} with "
                f"these attrs: [{attrs}]\nRegistered devices: [{', '.join(device_types)}]\nRegistered kernels:"
                f"{registered}\n")  # TF's list ends with a newline, so a blank line comes before the node

    def __call__(self, *args: Any, name: str | None = None, **kwargs: Any) -> Any:
        """Add a node of this op to the graph of its inputs (the default graph if none)."""
        return apply_op(self, args, kwargs, name)

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


def _registrations(kernel: KernelDef) -> list[str]:
    """The kernel's constraints as TF lists its registrations, one per dtype combination: `T in [DT_FLOAT]`."""
    names = [name for name, _ in kernel.type_constraints]
    return ["; ".join(f"{name} in [{_attr_summary('type', dtype)}]" for name, dtype in zip(names, combo))
            for combo in itertools.product(*(allowed for _, allowed in kernel.type_constraints))]


def get(op_type: str) -> Op:
    """The registered Op for a TF op-type string; NotFound is a KeyError naming it."""
    try:
        return _ops[op_type]
    except KeyError:
        raise KeyError(f"Op type not registered '{op_type}'") from None


def lookup_op(node_def: NodeDef) -> Op:
    """The Op of a node about to run; TF's NotFound naming the node when its type is not registered."""
    try:
        return _ops[node_def.op]
    except KeyError:
        raise errors.NotFoundError(node_def, None, f"Op type not registered '{node_def.op}' used by node "
                                   f"{node_def.name}") from None


def new_kernel(node_def: NodeDef, device: DeviceBase) -> OpKernel:
    """The node's kernel on `device`: the first registered kernel of its op whose constraints admit it (the
    executor's plans and eager execution make every kernel so)."""
    op = lookup_op(node_def)
    kernel_def = op.find_kernel(device.device_type, node_def.attr)
    if kernel_def is None:
        registered = ", ".join(sorted(op.kernels)) or "<no registered kernels>"
        raise errors.InvalidArgumentError(
            node_def, None, f"No OpKernel was registered to support Op '{node_def.op}' used by "
            f"{{{{node {node_def.name}}}}} on device {device.name}. Registered kernels: {registered}")
    return OpKernel(kernel_def, node_def, device)


def unregistered_op_message(op_type: str) -> str:
    """TF's message for a node of an op type this process has not registered (create_op, import)."""
    return (f"Op type not registered '{op_type}' in binary running on {socket.gethostname()}. Make sure the Op "
            "and Kernel are registered in the binary running in this process. Note that if you are loading a "
            "saved graph which used ops from tf.contrib (e.g. `tf.contrib.resampler`), accessing should be "
            "done before importing the graph, as contrib ops are lazily registered when the module is first "
            "accessed.")


def registered_ops() -> dict[str, Op]:
    return dict(_ops)


# The key of the gradient of a node that calls a library function by name (TF1's Defun call), which TF
# differentiates with a SymbolicGradient of the function.
FUNCTION_CALL = "<function call by name>"


def get_gradient_function(op: Any) -> Callable | None:
    """The gradient of the Operation `op` (None for an op without inputs or a NotDifferentiable type);
    LookupError if none.

    The type looked up is the `_gradient_op_type` attr that `gradient_override_map` set on the op when it
    was created, else the op's own type.
    """
    if not op._inputs:
        return None
    op_type = op._node_def.attr.get("_gradient_op_type", op.type)
    try:
        return _gradients[op_type]
    except KeyError:
        if op_type == op.type and op.graph._get_function(op.type) is not None:
            return _gradients[FUNCTION_CALL]
        raise LookupError(
            f"No gradient defined for operation'{op.name}' (op type: {op.type}). In general every operation "
            "must have an associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. "
            "If you want to pretend this operation is a constant in your program, you may insert "
            "`tf.stop_gradient`. This can be useful to silence the error in cases where you know gradients "
            "are not needed, e.g. the forward pass of tf.custom_gradient. Please see more details in "
            "https://www.tensorflow.org/api_docs/python/tf/custom_gradient.") from None


@tf_export("RegisterGradient")
class RegisterGradient:
    """Decorator registering a gradient function for an op type, as `tf.RegisterGradient`."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: Callable) -> Callable:
        if self._op_type in _gradients:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'! ")
        _gradients[self._op_type] = fn
        return fn


@tf_export("NotDifferentiable", "no_gradient", "NoGradient")
def NotDifferentiable(op_type: str) -> None:  # noqa: N802 - TF's name
    """Declare that ops of this type have no gradient (gradients through them are None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _gradients[op_type] = None


def attrs_summary(op_def: OpDef, node: NodeDef) -> str:
    """A node's op-def attrs as TF's errors list them, sorted by name: `T=DT_FLOAT, transpose_a=false`."""
    return ", ".join(f"{key}={_attr_summary(op_def.attr(key).type, value)}"
                     for key, value in sorted(node.attr.items()) if not key.startswith("_"))


def _attr_summary(kind: str, value: Any) -> str:
    """One attr value as TF's `SummarizeAttrValue` prints it."""
    if kind.startswith("list("):
        return "[" + ", ".join(_attr_summary(kind[5:-1], v) for v in value) + "]"
    if kind == "type":
        return _DATA_TYPE.values_by_number[value.as_datatype_enum].name
    if kind == "bool":
        return "true" if value else "false"
    if kind == "float":
        text = f"{value:.6g}"
        return text if np.float32(text) == np.float32(value) else f"{np.float32(value):.9g}"
    if kind == "string":
        text = value.decode(errors="backslashreplace") if isinstance(value, bytes) else value
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if kind == "shape":
        shape = tensor_shape.as_shape(value)
        return tensor_shape.shape_string(shape)
    if kind == "tensor":
        array = np.asarray(value)
        shown = " ".join(str(v) for v in array.reshape(-1)[:10]) + ("..." if array.size > 10 else "")
        return (f"Tensor<type: {dtypes.as_dtype(array.dtype).name} shape: {list(array.shape)} "
                f"values: {shown}>")
    return str(value)
