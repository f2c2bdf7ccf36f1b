"""`tf.custom_gradient`, `tf.grad_pass_through` and `tf.recompute_grad` in graph mode.

TF's construction: the function's outputs, its inputs and the variables it reads pass through one IdentityN
whose gradient is overridden (`gradient_override_map`) by a gradient registered under a fresh name
`CustomGradient-<uid>`; that gradient calls the user's `grad_fn` and returns None for the outputs' own
slots, the input gradients, then the variable gradients. So tf.gradients, optimizers and second
derivatives see an ordinary op.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    get_default_graph,
)
from tensorweave.framework.op_registry import RegisterGradient
from tensorweave.ops import gradients, manipulation_ops
from tensorweave.ops import variable_scope as vs
from tensorweave.platform.tf_export import tf_export

_uids = itertools.count(1)
_VARIABLE_OP_TYPES = ("VariableV2", "Variable", "VarHandleOp")


def _flatten(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _pack_like(structure: Any, flat: Sequence) -> Any:
    """`flat`'s leaves in the nesting of `structure` (lists and tuples, as nest.pack_sequence_as)."""
    leaves = iter(flat)

    def pack(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return type(value)(pack(item) for item in value)
        return next(leaves)

    return pack(structure)


def _dependent_variables(inputs: Sequence[Tensor], outputs: Sequence[Tensor]) -> list:
    """The global and local variables whose variable op lies between `inputs` and `outputs` (the ops the
    outputs reach backwards through data edges without crossing an input)."""
    stop = {id(t) for t in inputs}
    seen: set[int] = set()
    stack: list[Operation] = [t.op for t in outputs if id(t) not in stop]
    var_names = set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type in _VARIABLE_OP_TYPES:
            var_names.add(op.name)
        stack.extend(t.op for t in op.inputs if id(t) not in stop)
    candidates = get_collection(GraphKeys.GLOBAL_VARIABLES) + get_collection(GraphKeys.LOCAL_VARIABLES)
    found = {v.op.name: v for v in candidates if v.op.name in var_names}
    return [found[name] for name in sorted(found)]


def _accepts_variables(fn: Callable) -> bool:
    spec = inspect.getfullargspec(fn)
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _graph_mode_custom_gradient(f: Callable, args: tuple, kwargs: dict) -> Any:
    if kwargs:
        raise ValueError("The custom_gradient decorator currently supports keywords arguments only when eager "
                         "execution is enabled.")
    name = f"CustomGradient-{next(_uids)}"
    args = [convert_to_tensor(a) for a in args]
    scope = vs.get_variable_scope()
    before = {id(v) for v in scope.global_variables() + scope.local_variables()}
    result, grad_fn = f(*args)
    new_vars = [v for v in scope.global_variables() + scope.local_variables() if id(v) not in before]
    if new_vars:
        raise TypeError("All variables used by a function wrapped with @custom_gradient must be "
                        f"`ResourceVariable`s. Ensure that no `variable_scope` is created with `use_resource=False`. "
                        f"Found non-resource variables: {new_vars}")
    flat_result = [convert_to_tensor(t) for t in _flatten(result)]
    variables = _dependent_variables(args, [manipulation_ops.identity(t) for t in flat_result])
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"uses variables: {variables}")
    n_results = len(flat_result)

    @RegisterGradient(name)
    def _custom_grad(op: Operation, *result_grads: Any) -> list:
        result_grads = list(result_grads[:n_results])
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*result_grads), []
        return [None] * n_results + _flatten(input_grads) + list(variable_grads)

    with get_default_graph().gradient_override_map({"IdentityN": name}):
        passed = manipulation_ops.identity_n(flat_result + args + [v.value() for v in variables])
    return _pack_like(result, passed[:n_results])


@tf_export("custom_gradient")
def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorates `f(*args) -> (outputs, grad_fn)` so that tf.gradients uses `grad_fn(*output_grads)` (with
    `variables=` and a second list of variable gradients when `f` reads variables) for its inputs."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        return _graph_mode_custom_gradient(f, args, kwargs)

    return decorated


@tf_export("grad_pass_through")
def grad_pass_through(f: Callable) -> Callable:
    """`f` in the forward pass, the identity in the backward one (a straight-through estimator); variables
    `f` reads get no gradient."""

    @custom_gradient
    def _grad_pass_through_op(*args: Any) -> tuple:
        def grad(*grads: Any, **kwargs: Any) -> Any:
            variables = kwargs.get("variables")
            if variables is not None:
                return list(grads), [None] * len(variables)
            return list(grads)

        return f(*args), grad

    return functools.wraps(f)(_grad_pass_through_op)


@tf_export("recompute_grad")
def recompute_grad(f: Callable) -> Callable:
    """`f` whose activations are not kept for the backward pass: its gradient runs `f` again (after the
    output gradients exist) and differentiates that copy, trading compute for memory."""

    @custom_gradient
    def inner(*args: Any) -> tuple:
        current_scope = vs.get_variable_scope()
        result = f(*args)

        def grad(*dresult: Any, variables: Any = None) -> tuple:
            with control_dependencies([dresult[0]]):
                id_args = [manipulation_ops.identity(a) for a in args]
            with vs.variable_scope(current_scope, reuse=True):
                recomputed = f(*id_args)
            wrt = id_args + list(variables or [])
            grads = gradients.gradients(_flatten(recomputed), wrt, grad_ys=list(dresult),
                                        unconnected_gradients="zero")
            return grads[:len(id_args)], grads[len(id_args):]

        return result, grad

    return functools.wraps(f)(inner)
