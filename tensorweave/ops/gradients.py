"""`tf.gradients`: reverse-mode differentiation over the graph, building the gradient as ordinary graph ops.

TF1's algorithm: mark the ops reachable forward from `xs` through backpropagatable (floating, complex)
tensors, keep those that also reach `ys` backward ("between" ops), count for each how many of its consumers
are between ops, and walk back from `ys` one op at a time once every consumer has sent its gradient.
Each op's gradient function (looked up by type in the op registry, honouring `gradient_override_map`) runs
under the name scope `gradients/<op name>_grad`; the gradients reaching one tensor along several paths are
summed by one AddN (IndexedSlices alone are concatenated, IndexedSlices with dense ones made dense first).
Because the result is ordinary ops, gradients of gradients (`tf.hessians`) work the same way.

Invariant: only ops between `xs` and `ys` are visited, and each exactly once.

Built inside a function (a loop body, say), the walk crosses the function's boundary as TF's does: a
captured tensor's placeholder leads to the outer tensor it stands for (so `xs` may be outer tensors), and the
outer ops' gradients are built in the function, capturing what they read.
"""

from __future__ import annotations

import collections
import contextlib
import enum
from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.indexed_slices import IndexedSlices, convert_to_tensor_or_indexed_slices
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    control_flow_state,
    fill_ops,
    manipulation_ops,
    resource_variable_ops,
    shape_ops,
    tensor_array_ops,
)
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import add_n
from tensorweave.platform.tf_export import tf_export

_TRAINABLE = frozenset([dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128,
                        dtypes.resource, dtypes.variant, dtypes.bfloat16])


@tf_export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What `tf.gradients` returns for an x that no y depends on: None, or zeros of x's shape."""

    NONE = "none"
    ZERO = "zero"


@tf_export("AggregationMethod")
class AggregationMethod:
    """How the gradients reaching one tensor along several paths are summed (all give the same values)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def is_trainable(tensor: Tensor) -> bool:
    """Whether gradients flow through `tensor` (TF's IsTrainable: floating, complex, resource, variant)."""
    return tensor.dtype.base_dtype in _TRAINABLE


def _supports_default_grad(tensor: Tensor) -> bool:
    """Whether zeros can stand for the missing gradient of `tensor` (TF's supports_default_grad): not for a
    handle that leads to no variable, such as a TensorArray's a loop passed on."""
    return tensor.dtype != dtypes.resource or control_flow_ops.variable_handle_source(tensor) is not None


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _as_x(x: Any) -> Any:
    """A variable is differentiated at its ref tensor (its reads go through Identity ops), as TF's `as_ref`."""
    ref = getattr(x, "_ref", None)
    return ref() if callable(ref) and not isinstance(x, (Tensor, IndexedSlices)) else \
        convert_to_tensor_or_indexed_slices(x, name="x")


class _Closure:
    """The inputs and consumers of tensors as a walk started in `graph` sees them: through the captures of
    the functions it is nested in (TF's _Inputs and _Consumers), a placeholder of an x excepted."""

    def __init__(self, graph: Any, xs: list) -> None:
        self.func_graphs = []
        while isinstance(graph, FuncGraph):
            self.func_graphs.append(graph)
            graph = graph.outer_graph
        self.xs = {id(x) for x in xs}

    def inputs(self, op: Operation) -> list[Tensor]:
        if not self.func_graphs or op.graph not in self.func_graphs:
            return op.inputs
        return [t if id(t) in self.xs else self._outermost(t) for t in op.inputs]

    def _outermost(self, t: Tensor) -> Tensor:
        while isinstance(t.graph, FuncGraph) and (outer := t.graph.capture_source(t)) is not None:
            t = outer
        return t

    def consumers(self, t: Tensor) -> list[Operation]:
        consumers = t.consumers()
        for graph in self.func_graphs:
            placeholder = graph.capture_placeholder(t)
            if placeholder is not None:
                consumers = consumers + self.consumers(placeholder)
        return consumers


def _pending_count(to_ops: list[Operation], from_ops: list[Operation], colocate_gradients_with_ops: bool,
                   closure: _Closure) -> tuple[set[Operation], collections.defaultdict[Operation, int], Any]:
    """The ys' ops reachable from the xs, for each between op how many between ops consume it, and the
    state of the while loops among them (None if none; every Exit of such a loop counts as between)."""
    reached: set[Operation] = set()
    queue = collections.deque(from_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            continue
        reached.add(op)
        for output in op.outputs:
            if is_trainable(output):
                queue.extend(closure.consumers(output))
    reachable_to_ops = {op for op in to_ops if op in reached}
    between: list[Operation] = []
    between_set: set[Operation] = set()
    queue = collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            between.append(op)
            between_set.add(op)
            reached.remove(op)
            queue.extend(t.op for t in closure.inputs(op))
    loop_state = control_flow_state.maybe_create_control_flow_state(between, between_set,
                                                                    colocate_gradients_with_ops)
    pending: collections.defaultdict[Operation, int] = collections.defaultdict(int)
    for op in between:
        for t in closure.inputs(op):
            if t.op in between_set:
                pending[t.op] += 1
    return reachable_to_ops, pending, loop_state


def _default_grad_ys(grad_ys: list, ys: list[Tensor]) -> list:
    """Ones for each y without a given gradient; a given one is checked and renamed `grad_ys_<i>`."""
    result = []
    for i, (y, grad_y) in enumerate(zip(ys, grad_ys)):
        if grad_y is None:
            if y.dtype.is_complex:
                raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys (y.dtype = "
                                f"{y.dtype.name})")
            result.append(fill_ops.ones(shape_ops.shape(y), dtype=y.dtype.base_dtype, name=f"grad_ys_{i}"))
            continue
        if y.dtype.is_floating or y.dtype.is_integer:
            if not (grad_y.dtype.is_floating or grad_y.dtype.is_integer):
                raise TypeError(f"Gradient type {grad_y.dtype.name} generated for real or integer-valued tensor "
                                f"{y} with type {y.dtype.name} must be real or integer")
        elif y.dtype.is_complex and not grad_y.dtype.is_complex:
            raise TypeError(f"Gradient type {grad_y.dtype.name} generated for complex-valued tensor {y} with type "
                            f"{y.dtype.name} must be real")
        if isinstance(grad_y, IndexedSlices):
            result.append(IndexedSlices(
                manipulation_ops.identity(grad_y.values, name=f"grad_ys_{i}_values"),
                manipulation_ops.identity(grad_y.indices, name=f"grad_ys_{i}_indices"),
                None if grad_y.dense_shape is None
                else manipulation_ops.identity(grad_y.dense_shape, name=f"grad_ys_{i}_shape")))
        else:
            result.append(manipulation_ops.identity(grad_y, name=f"grad_ys_{i}"))
    return result


def _aggregate(op: Operation, grads: list, aggregation_method: int) -> Any:
    """The sum of the gradients reaching one output of `op` (None if none did)."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, Tensor) for g in grads):
        if aggregation_method == AggregationMethod.ADD_N:
            return _multi_device_add_n(grads)
        with name_scope(op.name + "_gradient_sum"):
            total = grads[0]
            for g in grads[1:]:
                total = add_n([total, g])
            return total
    return sum_gradients(grads)


def sum_gradients(grads: list) -> Any:
    """The sum of several gradients of one tensor: one AddN, IndexedSlices made dense first where dense ones
    are among them; all IndexedSlices, concatenated."""
    if any(isinstance(g, Tensor) for g in grads):
        return add_n(grads)
    index_dtypes = {g.indices.dtype for g in grads}
    indices = [g.indices if len(index_dtypes) == 1 else cast(g.indices, dtypes.int64) for g in grads]
    return IndexedSlices(manipulation_ops.concat([g.values for g in grads], 0),
                         manipulation_ops.concat(indices, 0), grads[0].dense_shape)


def _multi_device_add_n(grads: list[Tensor]) -> Tensor:
    """The sum of `grads` as TF's _MultiDeviceAddN builds it: one AddN per device (in device order), each
    colocated with its first term, then the sum of those where the aggregation happens."""
    by_device: dict[str, list[Tensor]] = collections.defaultdict(list)
    for grad in grads:
        by_device[grad.device or ""].append(grad)
    partial_sums = []
    for device in sorted(by_device):
        terms = by_device[device]
        with colocate_with(terms[0].op, ignore_existing=True):
            partial_sums.append(add_n(terms))
    return partial_sums[0] if len(partial_sums) == 1 else add_n(partial_sums)


def _zeros_for(t: Tensor) -> Tensor:
    """Zeros standing for no gradient (TF's _ZerosLike): for a resource handle, zeros of the variable's shape
    (a constant when known) and dtype, which TF refuses for a handle of unknown dtype."""
    return fill_ops.zeros_like(t) if t.dtype != dtypes.resource else resource_variable_ops.zeros_like_handle(t)


@tf_export("gradients")
def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              colocate_gradients_with_ops: bool = False, gate_gradients: bool = False,
              aggregation_method: int | None = None, stop_gradients: Any = None,
              unconnected_gradients: Any = UnconnectedGradients.NONE) -> list:
    """The symbolic partial derivatives of sum(ys) with respect to each x: one Tensor, IndexedSlices or None
    per x (zeros instead of None with `UnconnectedGradients.ZERO`)."""
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: '{unconnected_gradients}'") from None
    if aggregation_method is None:
        aggregation_method = AggregationMethod.DEFAULT
    ys, xs = _as_list(ys), _as_list(xs)
    stop_gradients = [] if stop_gradients is None else _as_list(stop_gradients)
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    graph = get_default_graph()
    # TF checks the grad_ys count and the aggregation method inside the scope (the second once per op it
    # visits), so a call that fails on them still takes the scope's name and may leave the ones it built
    with name_scope(name, "gradients", ys + xs + stop_gradients + [g for g in grad_ys if g is not None]):
        graph.unique_name("uid")
        ys = [convert_to_tensor_or_indexed_slices(y, name="y") for y in ys]
        xs = [_as_x(x) for x in xs]
        stop_ops = {convert_to_tensor(t).op for t in stop_gradients}
        if len(grad_ys) != len(ys):
            raise ValueError(f"Length mismatch. Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
        grad_ys = [None if g is None else convert_to_tensor_or_indexed_slices(g, name="grad_y") for g in grad_ys]
        grad_ys = _default_grad_ys(grad_ys, ys)
        to_ops = [y.op for y in ys]
        from_ops = [x.op for x in xs]
        closure = _Closure(graph, xs)
        reachable_to_ops, pending, loop_state = _pending_count(to_ops, from_ops, colocate_gradients_with_ops,
                                                               closure)
        grads: dict[Operation, list[list]] = {}
        for y, grad_y in zip(ys, grad_ys):
            _set_grad(grads, y, grad_y)
        queue: collections.deque[Operation] = collections.deque()
        queued: set[Operation] = set()
        for op in to_ops:
            if pending[op] == 0 and op not in queued and op in reachable_to_ops:
                queued.add(op)
                queue.append(op)
        if loop_state is not None:
            for y in loop_state.process_unused_loop_exits(pending, queued):
                if is_trainable(y):
                    _set_grad(grads, y, loop_state.zeros_like_for_exit(y))
                queue.append(y.op)
        stop_ops |= {op for op in from_ops if all(pending[t.op] <= 0 for t in closure.inputs(op))}
        while queue:
            op = queue.popleft()
            with _maybe_colocate(op, colocate_gradients_with_ops):
                _backprop_op(op, grads, stop_ops, gate_gradients, aggregation_method, loop_state, closure)
            _update_pending_and_enqueue_ready(grads, op, queue, pending, loop_state, closure)
    if loop_state is not None:
        loop_state.post_processing()
    return [_get_grad(grads, x, unconnected_gradients) for x in xs]  # zeros for the unconnected: outside the scope


def _update_pending_and_enqueue_ready(grads: dict, op: Operation, queue: collections.deque, pending: dict,
                                      loop_state: Any, closure: _Closure) -> None:
    """Queue the inputs of `op` whose consumers have all sent their gradients. A loop's Switch is visited
    twice (from its Exit, then from the body); a loop's Exits wait for each other, and once all have come,
    the unused ones get zeros if any other got a gradient."""
    for t in closure.inputs(op):
        x = t.op
        pending[x] -= 1
        ready = pending[x] == 0
        if loop_state is not None and not ready:
            ready = pending[x] > 0 and control_flow_state._is_loop_switch(x)
        if not ready:
            continue
        if not control_flow_ops._is_loop_exit(x):
            queue.append(x)
            continue
        grad_state = loop_state.get_grad_state(x, before=False)
        grad_state.deferred_exits.append(t)
        grad_state.pending_exits_count -= 1
        if grad_state.pending_exits_count:
            continue
        has_real_grad = False
        for y in grad_state.deferred_exits:
            if any(g for g in grads.get(y.op, [])):
                has_real_grad = True
                queue.append(y.op)
            else:
                grad_state.unused_exits.append(y)
        for y in grad_state.unused_exits:
            if has_real_grad and is_trainable(y):
                _set_grad(grads, y, loop_state.zeros_like_for_exit(y))
            queue.append(y.op)


def _maybe_colocate(op: Operation, colocate: bool) -> Any:
    return colocate_with(op, ignore_existing=True) if colocate else contextlib.nullcontext()


def _set_grad(grads: dict, t: Tensor, grad: Any) -> None:
    op_grads = grads.setdefault(t.op, [[] for _ in t.op.outputs])
    op_grads[t.value_index].append(grad)


def _backprop_op(op: Operation, grads: dict, stop_ops: set[Operation], gate_gradients: bool,
                 aggregation_method: int, loop_state: Any, closure: _Closure) -> None:
    """Sum the gradients of `op`'s outputs and hand its inputs theirs, from its registered gradient (built
    in the gradient loop of `op`'s loop, if any)."""
    valid_methods = [AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                     AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]
    if aggregation_method not in valid_methods:
        raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. Accepted values are "
                         f"{valid_methods}.")
    with _grad_while_context(loop_state, op, before=True):
        out_grads = [_aggregate(op, g, aggregation_method) for g in grads.get(op, [[] for _ in op.outputs])]
    if op in grads:  # the sums replace the lists, so an x's gradient is its one sum
        grads[op] = [[] if g is None else [g] for g in out_grads]
    has_out_grads = any(g is not None for g in out_grads)
    grad_fn: Callable | None = None
    if has_out_grads and op not in stop_ops:
        grad_fn = op_registry.get_gradient_function(op)
    if grad_fn is None or not has_out_grads:
        return
    with _grad_while_context(loop_state, op, before=False):
        _backprop_through(op, grad_fn, out_grads, grads, gate_gradients, loop_state, closure)


@contextlib.contextmanager
def _grad_while_context(loop_state: Any, op: Operation, before: bool) -> Any:
    if loop_state is None:
        yield
        return
    loop_state.enter_grad_while_context(op, before)
    try:
        yield
    finally:
        loop_state.exit_grad_while_context(op, before)


def _backprop_through(op: Operation, grad_fn: Callable, out_grads: list, grads: dict, gate_gradients: bool,
                      loop_state: Any, closure: _Closure) -> None:
    for i, out_grad in enumerate(out_grads):
        if out_grad is None and is_trainable(op.outputs[i]):
            if loop_state is not None:
                out_grads[i] = loop_state.zeros_like(op, i)
            elif _supports_default_grad(op.outputs[i]):
                out_grads[i] = control_flow_ops.zeros_like_outside_loop(op, i)
    with name_scope(op.name + "_grad"):
        in_grads = _as_list(grad_fn(op, *out_grads))
        if len(in_grads) != len(op.inputs):
            raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.node_def} do not match num "
                             f"inputs {len(op.inputs)}")
        if gate_gradients and sum(g is not None for g in in_grads) > 1:
            in_grads = control_flow_ops.tuple(in_grads)
    for i, (t_in, in_grad) in enumerate(zip(closure.inputs(op), in_grads)):
        if in_grad is None:
            continue
        if isinstance(in_grad, Tensor) and t_in.dtype != dtypes.resource:
            try:
                in_grad.set_shape(t_in.shape)
            except ValueError:
                raise ValueError(
                    f"Incompatible shapes between op input and calculated input gradient. Forward operation: "
                    f"{op.name}. Input index: {i}. Original input shape: {t_in.shape}. Calculated input "
                    f"gradient shape: {in_grad.shape}") from None
        _set_grad(grads, t_in, in_grad)


def _get_grad(grads: dict, t: Any, unconnected_gradients: UnconnectedGradients) -> Any:
    op_grads = grads.get(t.op)
    grad = _aggregate(t.op, op_grads[t.value_index], AggregationMethod.ADD_N) if op_grads else None
    if grad is None and unconnected_gradients == UnconnectedGradients.ZERO:
        return _zeros_for(t)
    return grad


@tf_export("hessians")
def hessians(ys: Any, xs: Any, name: str = "hessians", colocate_gradients_with_ops: bool = False,
             gate_gradients: bool = False, aggregation_method: int | None = None) -> list:
    """The Hessian of sum(ys) for each x, of shape x.shape + x.shape, built as TF1 builds it: a while loop
    writes the gradient of each element of the flattened gradient into a TensorArray, so x's shape may be
    known only when the graph runs (`name` is unused, as in TF)."""
    xs = _as_list(xs)
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops, "gate_gradients": gate_gradients,
              "aggregation_method": aggregation_method}
    return [_hessian(gradient, x, kwargs) for gradient, x in zip(gradients(ys, xs, **kwargs), xs)]


def _hessian(gradient: Tensor, x: Tensor, kwargs: dict) -> Tensor:
    """One x's Hessian: row j, the gradient of the flattened gradient's element j, written by a while loop."""
    flat = shape_ops.reshape(gradient, [-1])
    size = shape_ops.size(x)
    loop_vars = [constant_ops.constant(0, dtypes.int32), tensor_array_ops.TensorArray(x.dtype, size)]
    _, hessian = control_flow_ops.while_loop(
        lambda j, _: j < size, lambda j, rows: (j + 1, rows.write(j, gradients(flat[j], x, **kwargs)[0])),
        loop_vars)
    x_shape = shape_ops.shape(x)
    return shape_ops.reshape(hessian.stack(), manipulation_ops.concat((x_shape, x_shape), 0))
