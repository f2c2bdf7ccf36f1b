"""The gradient of TF2's functional `While` and `StatelessWhile` (what imported TF2 graphs' `tf.while_loop`
is), built from functional loops over the library's `cond` and `body` as TF's while_v2 builds its own.

TF keeps each iteration's intermediates in accumulators the forward loop fills. Here the forward loop is left
as it is and the gradient recomputes: one While counts the iterations n, and a backward While runs k = n-1
down to 0, each step rebuilding iteration k's loop variables from the initial ones (an inner While running
`body` k times) and back-propagating the loop variables' gradients through one `body` at them. That costs
O(n^2) body runs and no memory per iteration; the values are TF's for a body whose runs repeat (no random or
other stateful ops).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes, importer
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorweave.framework.type_spec import TensorSpec
from tensorweave.ops import constant_ops, def_function, fill_ops, gradients
from tensorweave.ops.elementwise_ops import greater, less
from tensorweave.ops.function_ops import function_name
from tensorweave.ops.functional_control_ops import StatelessWhile, While


def _library_function(fn: Callable[..., Sequence[Any]], specs: Sequence[TensorSpec]) -> str:
    """`fn` traced on placeholders of `specs` into the default graph's library; its name."""
    name = f"__inference_while_grad_{next(def_function.uids)}"
    concrete = def_function.trace(fn, name, list(specs), [f"arg{i}" for i in range(len(specs))], list(specs))
    def_function.add_to_library(concrete.graph, name, get_default_graph())
    return name


def _inline(name: str, args: Sequence[Tensor]) -> list[Tensor]:
    return importer.inline_function_body(get_default_graph(), name, list(args))


def _while_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    """Gradients of the loop's initial values (None for those that are not floating)."""
    cond, body = function_name(op._node_def.attr["cond"]), function_name(op._node_def.attr["body"])
    x0 = list(op.inputs)
    count = len(x0)
    floating = [i for i, x in enumerate(x0) if x.dtype.is_floating]
    if not floating:
        return [None] * count
    specs = [TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype.base_dtype)
             for x, y in zip(x0, op.outputs)]
    index = TensorSpec([], dtypes.int32)

    counted = While([constant_ops.constant(0)] + x0, cond=_library_function(
        lambda n, *xs: _inline(cond, xs)[:1], [index] + specs), body=_library_function(
        lambda n, *xs: [n + 1] + _inline(body, xs), [index] + specs))

    def back_step(k: Tensor, *rest: Tensor) -> list[Tensor]:
        dys, xs = rest[:count], rest[count:]
        k = k - 1
        rebuilt = While([constant_ops.constant(0), k] + list(xs), cond=_library_function(
            lambda j, n, *vs: [less(j, n)], [index, index] + specs), body=_library_function(
            lambda j, n, *vs: [j + 1, n] + _inline(body, vs), [index, index] + specs))[2:]
        ys = _inline(body, rebuilt)
        dxs = gradients.gradients([ys[i] for i in floating], [rebuilt[i] for i in floating],
                                  grad_ys=[dys[i] for i in floating])
        new = list(dys)
        for i, dx in zip(floating, dxs):
            new[i] = fill_ops.zeros_like(rebuilt[i]) if dx is None else convert_to_tensor(dx)
        return [k] + new + list(xs)

    dys = [fill_ops.zeros_like(y) if g is None else convert_to_tensor(g) for y, g in zip(op.outputs, grads)]
    backward = While([counted[0]] + dys + x0, cond=_library_function(
        lambda k, *rest: [greater(k, 0)], [index] + specs + specs), body=_library_function(
        back_step, [index] + specs + specs))
    return [backward[1 + i] if i in floating else None for i in range(count)]


While.gradient(_while_grad)
StatelessWhile.gradient(_while_grad)
