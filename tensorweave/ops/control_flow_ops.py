"""Control-flow ops of the core: NoOp, `tf.group` and `tf.tuple` (cond and while loops come with the
control-flow issue)."""

from __future__ import annotations

from typing import Any

from tensorweave.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_graph_from_inputs,
    name_scope,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.ops import manipulation_ops
from tensorweave.platform.tf_export import tf_export

_sequence_types = (list, tuple)  # captured before `tuple` below shadows the builtin

NoOp = Op("NoOp")


@NoOp.kernel("CPU")
def _no_op(ctx: OpKernelContext) -> None:
    return None


@tf_export("no_op")
def no_op(name: str | None = None) -> Operation:
    """An op that does nothing; useful as a control-dependency anchor."""
    return NoOp(name=name)


def _as_op(value: Any) -> Operation:
    if hasattr(value, "_as_graph_element") and not isinstance(value, (Tensor, Operation)):
        value = value._as_graph_element()
    if isinstance(value, Tensor):
        return value.op
    if isinstance(value, Operation):
        return value
    raise TypeError(f"'inputs' should be zero or more (nested) Tensors. Received '{value}' with type "
                    f"'{type(value)}'.")


def _flatten(inputs: Any) -> list:
    """Leaves of nested lists, tuples and dicts (dicts in key order), None included, as TF's nest does."""
    flat = []
    for value in inputs:
        if isinstance(value, _sequence_types):
            flat.extend(_flatten(value))
        elif isinstance(value, dict):
            flat.extend(_flatten([value[k] for k in sorted(value)]))
        else:
            flat.append(value)
    return flat


@tf_export("group")
def group(*inputs: Any, **kwargs: Any) -> Operation:
    """An op that runs after all `inputs` (control dependencies only; it outputs nothing).

    Inputs on several devices get one NoOp per device first, so only one control edge crosses devices.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    flat = _flatten(inputs)
    with name_scope(name, "group_deps", [v for v in flat if hasattr(v, "graph")]) as scope:
        ops = [_as_op(v) for v in flat]  # checked inside the scope: a bad input still uses up its name, as in TF
        if not ops:
            return no_op(name=scope)
        g = get_graph_from_inputs(ops)
        by_device: dict[str, list[Operation]] = {}
        for op in ops:
            by_device.setdefault(op.device, []).append(op)
        if len(by_device) > 1:
            ops = []
            for device in sorted(by_device):
                with g.device(device or None), g.control_dependencies(by_device[device]):
                    ops.append(no_op())
        with g.control_dependencies(ops):
            return no_op(name=scope)


def with_dependencies(dependencies: list, output_tensor: Tensor, name: str | None = None) -> Tensor:
    """`output_tensor`'s value, produced only after all `dependencies` have run."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        g = output_tensor.graph
        with g.colocate_with(output_tensor.op), g.control_dependencies(dependencies):
            if output_tensor.dtype._is_ref_dtype:  # a variable's own ref stays a ref, as TF's _Identity keeps it
                return manipulation_ops.RefIdentity(output_tensor, name=scope)
            return manipulation_ops.Identity(output_tensor, name=scope)


@tf_export("tuple")
def tuple(tensors: Any, name: str | None = None, control_inputs: Any = None) -> list:  # noqa: A001 - TF's name
    """Tensors with the same values as `tensors`, available only after all of them are computed.

    Anything but a tensor, an op or None (a variable, a Python value) is converted to a tensor first, as TF does.
    """
    with name_scope(name, "tuple", [t for t in tensors if isinstance(t, (Tensor, Operation))]):
        tensors = [t if t is None or isinstance(t, (Tensor, Operation)) else convert_to_tensor(t) for t in tensors]
        gating = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if not isinstance(c, (Tensor, Operation)):
                raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}")
            gating.append(_as_op(c))
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        result = []
        for t in tensors:
            if isinstance(t, Tensor):
                result.append(with_dependencies([gate], t))
            elif isinstance(t, Operation):
                with t.graph.control_dependencies([gate]):
                    result.append(group(t))
            else:
                result.append(None)
        return result
