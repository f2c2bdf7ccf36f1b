"""The `Op` handle: everything about one op type in one object, registered by TF's op-type string.

An `Op` owns its OpDef (parsed from TF's spec strings), its shape function, its gradient and its kernels
keyed by device type; calling it adds a node to the default graph exactly as TF1's generated op wrappers
do (input conversion with dtype inference, attr defaults and checks, a name scope named after the op).
The runtime finds kernels here by op type, so `import_graph_def` of a real TF graph works.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tensorweave.formats import protos
from tensorweave.framework import dtypes, shape_inference, tensor_shape
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    get_graph_from_inputs,
    internal_convert_to_tensor,
    shape_string,
)
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.op_def import (
    ArgDef,
    OpDef,
    _python_op_name,
    arg_types,
    check_attr_value,
    parse_op_def,
)
from tensorweave.framework.op_kernel import KernelDef

_ops: dict[str, Op] = {}
_DATA_TYPE = protos.POOL.FindEnumTypeByName("tensorflow.DataType")
_gradients: dict[str, Callable | None] = {}




class Op:
    """One op type: OpDef, shape function, gradient, kernels, and node creation when called."""

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
        self.shape_fn: shape_inference.ShapeFunction | None = None
        self.kernels: dict[str, list[KernelDef]] = {}
        _ops[name] = self

    def shape(self, fn: shape_inference.ShapeFunction) -> shape_inference.ShapeFunction:
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
                f"{registered}")

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


def registered_ops() -> dict[str, Op]:
    return dict(_ops)


def get_gradient_function(op: Operation) -> Callable | None:
    """The gradient of `op` (None for an op without inputs or a NotDifferentiable type); LookupError if none.

    The type looked up is the `_gradient_op_type` attr that `gradient_override_map` set on the op when it
    was created, else the op's own type.
    """
    if not op._inputs:
        return None
    op_type = op._node_def.attr.get("_gradient_op_type", op.type)
    try:
        return _gradients[op_type]
    except KeyError:
        raise LookupError(
            f"No gradient defined for operation'{op.name}' (op type: {op.type}). In general every operation "
            "must have an associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. "
            "If you want to pretend this operation is a constant in your program, you may insert "
            "`tf.stop_gradient`. This can be useful to silence the error in cases where you know gradients "
            "are not needed, e.g. the forward pass of tf.custom_gradient. Please see more details in "
            "https://www.tensorflow.org/api_docs/python/tf/custom_gradient.") from None


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


def NotDifferentiable(op_type: str) -> None:  # noqa: N802 - TF's name
    """Declare that ops of this type have no gradient (gradients through them are None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _gradients[op_type] = None


def _bind_inputs(op: Op, args: tuple, kwargs: dict) -> tuple[list[Any], dict[str, Any]]:
    """Split call arguments into input values (in OpDef order) and attrs."""
    input_args = op.op_def.input_args
    if len(args) > len(input_args):
        raise TypeError(f"{op.name} takes {len(input_args)} input arguments but {len(args)} were given")
    values = list(args)
    for arg in input_args[len(args):]:
        if arg.name not in kwargs:
            raise TypeError(f"{op.name} missing required input argument: '{arg.name}'")
        values.append(kwargs.pop(arg.name))
    return values, kwargs


def _default_type(op_def: OpDef, attr_name: str | None) -> dtypes.DType | None:
    if attr_name is None:
        return None
    attr = op_def.attr(attr_name)
    return attr.default if attr.has_default else None


def _check_ref(op: Op, arg: ArgDef, tensors: list[Tensor]) -> None:
    if arg.is_ref and not all(t.dtype._is_ref_dtype for t in tensors):
        raise TypeError(f"'{op.name}' Op requires that input '{arg.name}' be a mutable tensor "
                        "(e.g.: a tf.Variable)")


def _convert_input(op: Op, arg: ArgDef, value: Any, attrs: dict, sources: dict) -> Tensor:
    """Convert one single-tensor input; a dtype clash names the argument the type was inferred from.

    With nothing to go on, a Python value takes its natural dtype when the type attr allows it and the
    attr's default otherwise (so `[]` or `1` become the default type, as in TF).
    """
    op_def = op.op_def
    dtype = arg.type or attrs.get(arg.type_attr)
    default = None if dtype is not None else _default_type(op_def, arg.type_attr)
    allowed = op_def.attr(arg.type_attr).allowed_values if default is not None else None
    try:
        tensor = None
        if allowed:
            try:
                tensor = internal_convert_to_tensor(value, name=arg.name, as_ref=arg.is_ref)
            except TypeError:
                tensor = None
        if tensor is None or (allowed and tensor.dtype.base_dtype not in allowed):
            tensor = internal_convert_to_tensor(value, dtype=dtype, name=arg.name, as_ref=arg.is_ref,
                                                preferred_dtype=default)
    except TypeError as e:
        if dtype is None:
            raise
        raise TypeError(f"Expected {dtype.name} passed to parameter '{arg.name}' of op '{op.name}', got "
                        f"{value!r} of type '{type(value).__name__}' instead. Error: {e}") from e
    except ValueError:
        try:
            observed = internal_convert_to_tensor(value, as_ref=arg.is_ref).dtype.name
        except ValueError as e:
            raise ValueError(f"Tried to convert '{arg.name}' to a tensor and failed. Error: {e}") from None
        prefix = f"Input '{arg.name}' of '{op.name}' Op has type {observed} that does not match"
        if arg.type is not None:
            raise TypeError(f"{prefix} expected type of {arg.type.name}.") from None
        expected = attrs.get(arg.type_attr, default)
        source = sources.get(arg.type_attr, "Default in OpDef" if arg.type_attr not in attrs else None)
        if source is None:
            raise TypeError(f"{prefix} expected type of {expected.name}.") from None
        raise TypeError(f"{prefix} type {expected.name} of argument '{source}'.") from None
    _check_ref(op, arg, [tensor])
    return tensor


def _convert_list_input(op: Op, arg: ArgDef, values: Any, attrs: dict) -> list[Tensor]:
    """Convert a list input: `N * T` lists share one dtype (from attrs or their first Tensor)."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"Expected list for '{arg.name}' argument to '{_python_op_name(op.name)}' Op, "
                        f"not {values!r}.")
    dtype = arg.type
    if dtype is None and arg.number_attr:
        dtype = attrs.get(arg.type_attr) or next((v.dtype for v in values if isinstance(v, Tensor)), None)
        if dtype is not None and not arg.is_ref:
            dtype = dtype.base_dtype
    default = _default_type(op.op_def, arg.type_attr) if dtype is None else None
    try:
        tensors = [internal_convert_to_tensor(v, dtype=dtype, name=f"{arg.name}_{i}", as_ref=arg.is_ref,
                                              preferred_dtype=default) for i, v in enumerate(values)]
        if arg.number_attr and len({t.dtype.base_dtype for t in tensors}) > 1:
            raise TypeError("types differ")
    except (TypeError, ValueError):
        observed = []
        for v in values:
            try:
                observed.append(internal_convert_to_tensor(v, as_ref=arg.is_ref).dtype.base_dtype.name)
            except (TypeError, ValueError):
                observed.append("<NOT CONVERTIBLE TO TENSOR>")
        prefix = f"Tensors in list passed to '{arg.name}' of '{op.name}' Op have types [{', '.join(observed)}]"
        if not arg.number_attr:
            raise TypeError(f"{prefix} that are invalid. Tensors: {values}") from None
        if arg.type is not None:
            raise TypeError(f"{prefix} that do not match expected type {dtype.name}.") from None
        if arg.type_attr in attrs:
            raise TypeError(f"{prefix} that do not match type {dtype.name} inferred from earlier "
                            "arguments.") from None
        raise TypeError(f"{prefix} that don't all match.") from None
    _check_ref(op, arg, tensors)
    return tensors


def _infer_type(op: Op, arg_name: str, attr_name: str, dtype: dtypes.DType, attrs: dict, sources: dict) -> None:
    """Record the type attr `attr_name` from input `arg_name`; conflicts raise TF's TypeError."""
    if attr_name in attrs:
        if attrs[attr_name] != dtype:
            if attr_name in sources:
                raise TypeError(f"Input '{arg_name}' of '{op.name}' Op has type {dtype.name} that does not "
                                f"match type {attrs[attr_name].name} of argument '{sources[attr_name]}'.")
            raise TypeError(f"Input '{arg_name}' of '{op.name}' Op has type {dtype.name} that does not match "
                            f"expected type of {attrs[attr_name].name}.")
        return
    attrs[attr_name] = check_attr_value(op.op_def, op.op_def.attr(attr_name), dtype, param_name=arg_name)
    sources[attr_name] = arg_name


def _convert_inputs(op: Op, values: list, attrs: dict) -> list[Tensor]:
    """Convert input values to tensors, inferring type and length attrs as TF's op wrappers do."""
    op_def = op.op_def
    sources: dict[str, str] = {}
    inputs: list[Tensor] = []
    for arg, value in zip(op_def.input_args, values):
        if not arg.is_list:
            tensor = _convert_input(op, arg, value, attrs, sources)
            if arg.type_attr:
                _infer_type(op, arg.name, arg.type_attr, tensor.dtype.base_dtype, attrs, sources)
            inputs.append(tensor)
            continue
        tensors = _convert_list_input(op, arg, value, attrs)
        types = [t.dtype.base_dtype for t in tensors]
        if arg.type_list_attr:
            if arg.type_list_attr in attrs and list(attrs[arg.type_list_attr]) != types:
                source = sources.get(arg.type_list_attr)
                raise TypeError(f"Input '{arg.name}' of '{op.name}' Op has type list of "
                                f"{', '.join(t.name for t in types)} that does not match type list "
                                f"{', '.join(t.name for t in attrs[arg.type_list_attr])}"
                                + (f" of argument '{source}'." if source else "."))
            attrs[arg.type_list_attr] = check_attr_value(op_def, op_def.attr(arg.type_list_attr), types,
                                                         param_name=arg.name)
            sources[arg.type_list_attr] = arg.name
        else:
            source = sources.get(arg.number_attr)
            if source and attrs[arg.number_attr] != len(tensors):
                raise ValueError(f"List argument '{arg.name}' to '{op.name}' Op with length {len(tensors)} must "
                                 f"match length {attrs[arg.number_attr]} of argument "
                                 f"'{source}'.")
            minimum = op_def.attr(arg.number_attr).minimum
            if minimum is not None and len(tensors) < minimum:
                raise ValueError(f"List argument '{arg.name}' to '{op.name}' Op with length {len(tensors)} "
                                 f"shorter than minimum length {minimum}.")
            attrs[arg.number_attr] = len(tensors)
            sources[arg.number_attr] = arg.name
            if arg.type_attr and types:
                _infer_type(op, arg.name, arg.type_attr, types[0], attrs, sources)
            elif arg.type_attr and arg.type_attr not in attrs and _default_type(op_def, arg.type_attr) is None:
                raise TypeError(f"Don't know how to infer type variable from empty input list passed to input "
                                f"'{arg.name}' of '{op.name}' Op.")
        inputs.extend(tensors)
    return inputs


def _complete_attrs(op: Op, attrs: dict) -> dict[str, Any]:
    """Check given attrs, fill defaults, and reject unknown or missing ones."""
    op_def = op.op_def
    known = {a.name for a in op_def.attrs}
    unknown = sorted(k for k in attrs if k not in known)
    if unknown:
        raise TypeError(f"{op.name} got unexpected keyword arguments: {', '.join(unknown)}")
    result = {}
    for attr in op_def.attrs:
        if attr.name in attrs:
            result[attr.name] = check_attr_value(op_def, attr, attrs[attr.name])
        elif attr.has_default:
            result[attr.name] = check_attr_value(op_def, attr, None)
        else:
            raise TypeError(f"No argument for attr {attr.name} of op {op.name}")
    return result


def apply_op(op: Op, args: tuple, kwargs: dict, name: str | None) -> Any:
    """Create a node of `op` from call arguments; returns a Tensor, a list of Tensors or the Operation."""
    values, attr_args = _bind_inputs(op, args, dict(kwargs))
    g = get_graph_from_inputs(_flatten(values))
    with g.as_default(), g.name_scope(name or op.name) as scope:
        attrs = dict(attr_args)
        inputs = _convert_inputs(op, values, attrs)
        attrs = _complete_attrs(op, attrs)
        refs = _ref_inputs(op.op_def, inputs)
        with contextlib.ExitStack() as colocation:
            for ref in refs:  # an op that updates a ref lives with it, so the placer need not guess
                colocation.enter_context(g.colocate_with(ref.op))
            new_op = _add_node(g, op, g._name_for_new_op(scope), inputs, attrs, None)
    output_args = op.op_def.output_args
    if not output_args:
        return new_op
    if len(output_args) == 1 and not output_args[0].is_list:
        return new_op._outputs[0]
    return list(new_op._outputs)  # a list output may be empty (Unpack with num=0)


def _ref_inputs(op_def: OpDef, inputs: list[Tensor]) -> list[Tensor]:
    """The tensors fed to Ref(T) args (those before any list arg: ref args come first in TF's ops)."""
    refs = []
    for arg, t in zip(op_def.input_args, inputs):
        if arg.is_list:
            break
        if arg.is_ref:
            refs.append(t)
    return refs


def _flatten(values: list) -> list:
    flat = []
    for v in values:
        if isinstance(v, (list, tuple)):
            flat.extend(v)
        else:
            flat.append(v)
    return flat


def _add_node(g: Graph, op: Op, name: str, inputs: list[Tensor], attrs: dict,
              output_types: list | None) -> Operation:
    container = g._container
    if container and "container" in attrs and not attrs["container"]:
        attrs["container"] = container.encode()
    if output_types is None:
        output_types = arg_types(op.op_def.output_args, attrs)
    node_def = NodeDef(name=name, op=op.name, attr=attrs)
    new_op = g._create_op_from_node_def(node_def, inputs, output_types, op.op_def)
    if op.shape_fn is not None:
        try:
            shapes = shape_inference.InferenceContext.for_operation(new_op).run(op.shape_fn)
        except ValueError:
            g._remove_failed_op(new_op)
            raise
        for t, s in zip(new_op._outputs, shapes):
            t._shape = s
    return new_op


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
        return "<unknown>" if shape.ndims is None else shape_string(shape)
    if kind == "tensor":
        array = np.asarray(value)
        shown = " ".join(str(v) for v in array.reshape(-1)[:10]) + ("..." if array.size > 10 else "")
        return (f"Tensor<type: {dtypes.as_dtype(array.dtype).name} shape: {list(array.shape)} "
                f"values: {shown}>")
    return str(value)


def create_op(g: Graph, op_type: str, inputs: list[Tensor], name: str | None, attrs: dict,
              output_types: list | None = None) -> Operation:
    """Create a node from already-converted inputs and explicit attrs (Graph.create_op, import)."""
    if op_type not in _ops:
        raise RuntimeError(
            f"Op type not registered '{op_type}' in binary running on {socket.gethostname()}. Make sure the Op "
            "and Kernel are registered in the binary running in this process. Note that if you are loading a "
            "saved graph which used ops from tf.contrib (e.g. `tf.contrib.resampler`), accessing should be "
            "done before importing the graph, as contrib ops are lazily registered when the module is first "
            "accessed.")
    op = _ops[op_type]
    attrs = dict(attrs)
    name = op_type if name is None else name  # '' is kept, as in TF: a root-level '' is an invalid node name
    node_name = name[:-1] if name.endswith("/") else g.unique_name(name)
    arg_attrs = dict(attrs)
    for arg, t in zip(op.op_def.input_args, inputs):
        if arg.type_attr and not arg.number_attr and arg.type_attr not in arg_attrs:
            arg_attrs[arg.type_attr] = t.dtype.base_dtype
    return _add_node(g, op, node_name, list(inputs), _complete_attrs(op, arg_attrs), output_types)
