"""TF2's functional control flow: `If`, `While` and `Case` (and their stateless forms), whose branches, loop
condition and body are functions of the graph's library.

The kernels call those functions through the session's function library runtime (runtime/function.py), in
the caller's step: `If` runs `then_branch` or `else_branch` on its inputs, `Case` runs branch
`branch_index` (the last one for an index out of range, as TF's), `While` runs `cond` and then `body` on the
loop variables until `cond` is false. A condition is true as TF reads one: a scalar by its value (a string:
non-empty), a tensor of another rank when it has elements. The stateful and stateless forms differ only in
what the optimizer may do with them; both run alike here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, graph_io, op_registry, tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext, nested_error
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.control_flow_ops import check_selector
from tensorweave.ops.function_ops import function_name


def _declared_shapes(ctx: InferenceContext, count: int) -> list[tensor_shape.TensorShape]:
    """The `output_shapes` attr's shapes, or unknown ones when it lists none."""
    shapes = ctx.attr("output_shapes") or []
    if not shapes:
        return [tensor_shape.unknown_shape()] * count
    return [tensor_shape.as_shape(s) for s in shapes]


def _truth(ctx: OpKernelContext, value: Any, lowered_as: tuple[str, str, str]) -> bool:
    """A condition tensor's truth, as TF's If and While read it; for one marked `_lower_using_switch_merge`
    (control flow v2's), which TF's session runs lowered to Switch and Merge, as the lowered op (`lowered_as`:
    its type, input and name suffix) reads it: a bool (else its NodeDef fails to build, which TF reports
    unnamed, before the step runs), a scalar as the Switch checks."""
    array = np.asarray(value)
    if ctx.node_def.attr.get("_lower_using_switch_merge") is True:
        if array.dtype != np.bool_:
            op, arg, suffix = lowered_as
            kind = dtypes.type_string(dtypes.as_dtype(array.dtype))
            # TF names the lowered node by its graph's NewName, with a "/_" and a count of the graph's names
            raise nested_error(errors.InvalidArgumentError(
                None, None, f"Input '{arg}' passed {kind} expected bool while building NodeDef "
                f"'{ctx.node_def.name}/{suffix}/_0' using {graph_io.summarize_op_def(op_registry.get(op).op_def)}"))
        check_selector(ctx, value)
    if array.ndim:
        return array.size > 0
    item = array.item()
    return len(item) > 0 if isinstance(item, bytes) else bool(item)


_IF_ATTRS = ["Tcond: type", "Tin: list(type) >= 0", "Tout: list(type) >= 0", "then_branch: func",
             "else_branch: func", "output_shapes: list(shape) = []"]


def _if_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _declared_shapes(ctx, len(ctx.attr("Tout")))


def _if(ctx: OpKernelContext, cond: Any, *args: Any, then_branch: Any, else_branch: Any) -> list[Any]:
    branch = then_branch if _truth(ctx, cond, ("Switch", "pred", "switch_pred")) else else_branch
    return ctx.function_library.call(ctx, function_name(branch), args)


If = Op("If", inputs=["cond: Tcond", "input: Tin"], outputs=["output: Tout"], attrs=_IF_ATTRS, is_stateful=True)
If.shape(_if_shape)
If.kernel("CPU", "GPU", host_memory=("cond",))(_if)

StatelessIf = Op("StatelessIf", inputs=["cond: Tcond", "input: Tin"], outputs=["output: Tout"], attrs=_IF_ATTRS)
StatelessIf.shape(_if_shape)
StatelessIf.kernel("CPU", "GPU", host_memory=("cond",))(_if)

_CASE_ATTRS = ["Tin: list(type) >= 0", "Tout: list(type) >= 0", "branches: list(func) >= 1",
               "output_shapes: list(shape) = []"]


def _case(ctx: OpKernelContext, branch_index: Any, *args: Any, branches: list[Any]) -> list[Any]:
    index = int(branch_index)
    branch = branches[index] if 0 <= index < len(branches) else branches[-1]
    return ctx.function_library.call(ctx, function_name(branch), args)


Case = Op("Case", inputs=["branch_index: int32", "input: Tin"], outputs=["output: Tout"], attrs=_CASE_ATTRS,
          is_stateful=True)
Case.shape(_if_shape)
Case.kernel("CPU", "GPU", host_memory=("branch_index",))(_case)

StatelessCase = Op("StatelessCase", inputs=["branch_index: int32", "input: Tin"], outputs=["output: Tout"],
                   attrs=_CASE_ATTRS)
StatelessCase.shape(_if_shape)
StatelessCase.kernel("CPU", "GPU", host_memory=("branch_index",))(_case)

_WHILE_ATTRS = ["T: list(type) >= 0", "cond: func", "body: func", "output_shapes: list(shape) = []",
                "parallel_iterations: int = 10"]


def _while_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The `output_shapes` attr's, else the loop variables' shapes (TF's While shape function)."""
    shapes = ctx.attr("output_shapes") or []
    if shapes:
        return [tensor_shape.as_shape(s) for s in shapes]
    return ctx.input_shapes


def _while(ctx: OpKernelContext, *args: Any, cond: Any, body: Any) -> list[Any]:
    library, cond, body = ctx.function_library, function_name(cond), function_name(body)
    values = list(args)
    while _truth(ctx, library.call(ctx, cond, values)[0], ("LoopCond", "input", "LoopCond")):
        values = library.call(ctx, body, values)
    return values


While = Op("While", inputs=["input: T"], outputs=["output: T"], attrs=_WHILE_ATTRS, is_stateful=True)
While.shape(_while_shape)
While.kernel("CPU", "GPU")(_while)

StatelessWhile = Op("StatelessWhile", inputs=["input: T"], outputs=["output: T"], attrs=_WHILE_ATTRS)
StatelessWhile.shape(_while_shape)
StatelessWhile.kernel("CPU", "GPU")(_while)
