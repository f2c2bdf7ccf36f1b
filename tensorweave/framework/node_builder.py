"""Node building: what calling an `Op` does, and `create_op` for explicit attrs (TF1's op wrappers, `op_def_library`).

`apply_op` binds call arguments to the OpDef's inputs and attrs, converts inputs to tensors inferring type
and length attrs with TF's messages, completes attrs with their defaults, and adds the node under a name
scope named after the op, colocated with the refs it updates; `create_op` adds a node from tensors and
attrs already given (`Graph.create_op`, `import_graph_def`, Const). Both run the op's shape function on an
`InferenceContext` of the new Operation, and remove the op again when it rejects its inputs.

One-way rule: this module sits above the Python graph (graph.py) and shape inference, and installs the
op registry's `apply_op` and `create_op` hooks on import, so the registry below never imports it.
"""

from __future__ import annotations

import collections
import contextlib
import functools
from collections.abc import Callable
from typing import Any

from tensorweave.framework import context, dtypes, op_callbacks, op_registry, shape_inference
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    get_default_graph,
    get_graph_from_inputs,
    internal_convert_to_tensor,
)
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.hooks import Hook
from tensorweave.framework.op_def import ArgDef, OpDef, _python_op_name, arg_types, check_attr_value
from tensorweave.framework.op_registry import Op

# execute_eagerly(build, op_type, name, call=None): while the thread executes eagerly (inside a py_function),
# the node `build()` makes runs at once, and its outputs come back as EagerTensors; `call` (the Op, its
# positional and keyword arguments) lets the eager core reuse what an identical earlier call built.
execute_eagerly: Hook[Callable[..., Any]] = Hook("execute_eagerly", "tensorweave.framework.eager")


def _bind_inputs(op: Op, args: tuple, kwargs: dict) -> tuple[list[Any], dict[str, Any]]:
    """Split call arguments into input values (in OpDef order) and attrs."""
    input_args = op.op_def.input_args
    if len(args) > len(input_args):
        raise TypeError(f"{op.name} takes {len(input_args)} input arguments but {len(args)} were given")
    for key in kwargs:  # as Python words it for TF's generated wrapper, which takes inputs and attrs by name
        if all(arg.name != key for arg in input_args) and all(attr.name != key for attr in op.op_def.attrs):
            raise TypeError(f"{_python_op_name(op.name)}() got an unexpected keyword argument '{key}'")
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
        if dtype is None or hasattr(e, "out_of_scope"):
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
    if not isinstance(values, (list, tuple)):  # op_def_library's message (`N * T` lists are checked before)
        raise TypeError(f"Expected list for '{arg.name}' argument to '{op.name}' Op, not {values}.")
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


def _check_number_lists(op: Op, values: list) -> None:
    """What TF's generated wrapper checks before it opens the op's name scope (so a failing call takes no
    name): each `N * T` input is a list, and the lists sharing a length attr have its first one's length."""
    lengths: dict[str, tuple[str, int]] = {}
    for arg, value in zip(op.op_def.input_args, values):
        if not arg.number_attr:
            continue
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{arg.name}' argument to '{_python_op_name(op.name)}' Op, "
                            f"not {value!r}.")
        source, length = lengths.setdefault(arg.number_attr, (arg.name, len(value)))
        if len(value) != length:
            raise ValueError(f"List argument '{arg.name}' to '{_python_op_name(op.name)}' Op with length "
                             f"{len(value)} must match length {length} of argument '{source}'.")


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


@op_registry.apply_op.install
def apply_op(op: Op, args: tuple, kwargs: dict, name: str | None) -> Any:
    """Create a node of `op` from call arguments; returns a Tensor, a list of Tensors or the Operation (run at
    once, when executing eagerly)."""
    if context.executing_eagerly():  # an op without outputs gives None, as TF's eager wrappers
        result = execute_eagerly(functools.partial(_apply_op, op, args, kwargs, name), op.name, name,
                                 (op, args, kwargs))
        return None if isinstance(result, Operation) else result
    return _apply_op(op, args, kwargs, name)


def _apply_op(op: Op, args: tuple, kwargs: dict, name: str | None) -> Any:
    values, attr_args = _bind_inputs(op, args, dict(kwargs))
    _check_number_lists(op, values)
    # an eager op's node joins its scratch graph, whatever graph its inputs come from (_add_node rejects those)
    g = get_default_graph() if context.building_eager_op() else get_graph_from_inputs(_flatten(values))
    forward_scope = g.get_name_scope()  # a tape records the op in the scope its wrapper was called in, as TF's
    with g.as_default(), g.name_scope(name or op.name) as scope:
        attrs = dict(attr_args)
        inputs = _convert_inputs(op, values, attrs)
        attrs = _complete_attrs(op, attrs)
        refs = _ref_inputs(op.op_def, inputs)
        with contextlib.ExitStack() as colocation:
            for ref in refs:  # an op that updates a ref lives with it, so the placer need not guess
                colocation.enter_context(g.colocate_with(ref.op))
            new_op = _add_node(g, op, g._name_for_new_op(scope), inputs, attrs, None, forward_scope)
        output_args = op.op_def.output_args
        if not output_args:
            return new_op
        outputs = new_op._outputs
        if op_callbacks.should_invoke_op_callbacks():  # in the op's name scope, as TF's
            outputs = op_callbacks.invoke_op_callbacks(op.name, inputs, attrs, outputs, op_name=new_op.name,
                                                       graph=g) or outputs
    if len(output_args) == 1 and not output_args[0].is_list:
        return outputs[0]
    if any(arg.is_list for arg in output_args):
        return list(outputs)  # a list output may be empty (Unpack with num=0)
    return _outputs_tuple(op)._make(outputs)


@functools.cache
def _outputs_tuple(op: Op) -> type:
    """The namedtuple TF's generated wrappers return for an op of several outputs (`TopKV2(values, indices)`),
    which Session.run gives back filled with values."""
    return collections.namedtuple(op.name, [arg.name for arg in op.op_def.output_args])


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
              output_types: list | None, forward_scope: str | None = None) -> Operation:
    eager = context.building_eager_op()
    if eager:
        stray = next((t for t in inputs if t.graph is not g), None)
        if stray is not None:
            raise _out_of_scope(stray)
    container = g._container
    if container and "container" in attrs and not attrs["container"]:
        attrs["container"] = container.encode()
    if output_types is None:
        output_types = arg_types(op.op_def.output_args, attrs)
    node_def = NodeDef(name=name, op=op.name, attr=attrs)
    new_op = g._create_op_from_node_def(node_def, inputs, output_types, op.op_def, defer_control_flow=True)
    if op.shape_fn is not None and not eager:  # eager: the kernel checks, as in TF
        try:
            shapes = shape_inference.InferenceContext.for_operation(new_op).run(op.shape_fn)
        except ValueError:
            g._remove_failed_op(new_op)
            raise
        for t, s in zip(new_op._outputs, shapes):
            t._shape = s
    g._add_to_control_flow_context(new_op)
    for tape in context.active_tapes():  # graph ops join the tapes entered while building (eager ops: none)
        tape.record(new_op, g.get_name_scope() if forward_scope is None else forward_scope)
    return new_op


def _out_of_scope(t: Tensor) -> TypeError:
    """TF's error for a graph tensor given to an op that runs eagerly (a py_function's closure over its graph,
    a variable read there): only the function's arguments carry values into it. Marked `out_of_scope` (the
    tensor), so that converting an input passes it on as it is, not as a dtype clash."""
    frames = "\n".join(f'    File "{file}", line {line}, in {function}' for file, line, function, _ in t.op.traceback)
    error = TypeError(f"{t!r} is out of scope and cannot be used here. Use return values, explicit Python locals or "
                      "TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/guide/function"
                      "#all_outputs_of_a_tffunction_must_be_return_values for more information.\n\n"
                      f"{t!r} was defined here:\n{frames}\n\nThe tensor {t!r} cannot be accessed from here, because "
                      f"it was defined in {t.graph}, which is out of scope.")
    error.out_of_scope = t
    return error


@op_registry.create_op.install
def create_op(g: Graph, op_type: str, inputs: list[Tensor], name: str | None, attrs: dict,
              output_types: list | None = None) -> Operation:
    """Create a node from already-converted inputs and explicit attrs (Graph.create_op, import); executing
    eagerly, it runs at once (its graph is a scratch one, its inputs may be EagerTensors)."""
    if context.executing_eagerly():
        return execute_eagerly(lambda: _create_op(get_default_graph(), op_type,
                                                  [internal_convert_to_tensor(t) for t in inputs], name, attrs,
                                                  output_types), op_type, name)
    return _create_op(g, op_type, inputs, name, attrs, output_types)


def _create_op(g: Graph, op_type: str, inputs: list[Tensor], name: str | None, attrs: dict,
               output_types: list | None) -> Operation:
    try:
        op = op_registry.get(op_type)
    except KeyError:
        raise RuntimeError(op_registry.unregistered_op_message(op_type)) from None
    attrs = dict(attrs)
    name = op_type if name is None else name  # '' is kept, as in TF: a root-level '' is an invalid node name
    node_name = name[:-1] if name.endswith("/") else g.unique_name(name)
    arg_attrs = dict(attrs)
    for arg, t in zip(op.op_def.input_args, inputs):
        if arg.type_attr and not arg.number_attr and arg.type_attr not in arg_attrs:
            arg_attrs[arg.type_attr] = t.dtype.base_dtype
    return _add_node(g, op, node_name, list(inputs), _complete_attrs(op, arg_attrs), output_types)
