"""`tf.GradientTape`: differentiating what was recorded while the tape was active, in a graph or eagerly
(TF's eager/backprop.py and its C++ tape, as TF1's graph mode and `tf.py_function` use them).

An entered tape sits in the thread's list of active tapes (framework/context.py: the graph's, or the eager
context's inside a py_function), and every op created there is offered to it (node_builder for graph ops,
eager.execute for eager ones): the tape keeps the op when one of its inputs is a watched tensor of a
trainable dtype, and then watches the op's outputs too. A trainable resource variable read while a tape is
active is watched through its handle. `gradient` runs the registered gradient functions of the recorded ops
backwards, in reverse recording order (a topological order), from ones (or the given output gradients) at
the targets: in a graph they build gradient ops, as TF1's tape does in the caller's name scope, or with
control flow v2 (TF 2's behavior) in `gradient_tape/<the name scope the forward op was made in>/`, as TF 2's;
eagerly they run at once. Those ops are themselves offered to the tapes still active, so nested tapes give higher derivatives.

Invariant: a tape holds every tensor it watches (by id: EagerTensors are unhashable), so no id is reused while
the tape lives; a non-persistent tape forgets everything after its first gradient.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tensorweave.framework import context, dtypes, nest, op_registry
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    control_dependencies,
    control_flow_v2_enabled,
    convert_to_tensor,
)
from tensorweave.framework.type_spec import type_spec_from_value
from tensorweave.ops import (
    check_ops,
    constant_ops,
    control_flow_ops,
    fill_ops,
    indexing_ops,
    manipulation_ops,
    shape_ops,
    tensor_array_ops,
)
from tensorweave.ops.gradients import UnconnectedGradients, is_trainable, sum_gradients
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_NOT_PERSISTENT = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
# The graph control-flow ops whose gradients need the loop and cond state only tf.gradients builds: TF's tape
# fails on them (an Enter alone, as the jacobian's loop reads the target through one, differentiates as it is).
_CONTROL_FLOW = frozenset({"Switch", "RefSwitch", "Merge", "RefMerge", "Exit", "RefExit", "NextIteration",
                           "RefNextIteration"})


class _Tape:
    """One recording: the watched tensors by id, the ops kept in recording order, the watched variables."""

    __slots__ = ("watch_accessed_variables", "tensors", "ops", "scopes", "variables")

    def __init__(self, watch_accessed_variables: bool) -> None:
        self.watch_accessed_variables = watch_accessed_variables
        self.tensors: dict[int, Tensor] = {}
        self.ops: list[Operation] = []
        self.scopes: dict[Operation, str] = {}  # the name scope each op was made in
        self.variables: dict[int, Any] = {}

    def watch(self, tensor: Tensor) -> None:
        self.tensors[id(tensor)] = tensor

    def watch_variable(self, variable: Any) -> None:
        self.variables.setdefault(id(variable), variable)
        self.watch(variable.handle)

    def variable_accessed(self, variable: Any) -> None:
        if self.watch_accessed_variables:
            self.watch_variable(variable)

    def watched_variables(self) -> tuple:
        """In order of construction, as TF's."""
        return tuple(sorted(self.variables.values(), key=lambda v: v.handle.op._id if v.handle._op else 0))

    def record(self, op: Operation, forward_scope: str = "") -> None:
        """Keep `op` (its outputs watched from now on) when it consumes a watched tensor of a trainable dtype;
        `forward_scope` is the name scope it was made in (its wrapper's, not its own)."""
        if any(id(t) in self.tensors and is_trainable(t) for t in op._inputs):
            self.ops.append(op)
            self.scopes[op] = forward_scope
            for t in op._outputs:
                self.tensors[id(t)] = t

    def backprop(self, targets: list[Tensor], initial: list[Any], sources: list[Tensor]) -> list[Any]:
        """The summed gradient reaching each source (None where none does), from `initial` at `targets`."""
        pending: dict[int, list[Any]] = {}
        for target, grad in zip(targets, initial):
            pending.setdefault(id(target), []).append(grad)
        producers = {id(t): op for op in self.ops for t in op._outputs}
        reached: set[Operation] = set()
        stack = [producers[id(t)] for t in targets if id(t) in producers]
        while stack:
            op = stack.pop()
            if op not in reached:
                reached.add(op)
                stack.extend(producers[id(t)] for t in op._inputs if id(t) in producers)
        for op in [op for op in reversed(self.ops) if op in reached]:  # gradient ops may join self.ops meanwhile
            if not any(id(t) in pending for t in op._outputs):
                continue
            out_grads = []
            for t in op._outputs:
                grad = _summed(pending.get(id(t)))
                if grad is not None:
                    pending[id(t)] = [grad]  # summed once, should t be a source too
                out_grads.append(_zeros_for(t) if grad is None and is_trainable(t) else grad)
            if op.type in _CONTROL_FLOW:
                raise NotImplementedError(
                    "tf.GradientTape.gradients() does not support graph control flow operations like tf.cond or "
                    "tf.while at this time. Use tf.gradients() instead. If you need this feature, please file a "
                    "feature request at https://github.com/tensorflow/tensorflow/issues/new")
            grad_fn = op_registry.get_gradient_function(op)
            if grad_fn is None:
                continue
            with _gradient_scope(op, self.scopes[op]):
                in_grads = grad_fn(op, *out_grads)
            in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
            for t, grad in zip(op._inputs, in_grads):
                if grad is not None and id(t) in self.tensors and is_trainable(t):
                    pending.setdefault(id(t), []).append(grad)
        return [_summed(pending.get(id(source))) for source in sources]


def _gradient_scope(op: Operation, forward_scope: str) -> Any:
    """Where TF's tape builds an op's gradient: with control flow v2, `gradient_tape/<forward scope>/` (an
    absolute scope); else the caller's scope."""
    if not control_flow_v2_enabled() or context.executing_eagerly():
        return contextlib.nullcontext()
    return op.graph.name_scope(f"gradient_tape/{forward_scope}/" if forward_scope else "gradient_tape/")


def _summed(grads: list[Any] | None) -> Any:
    if not grads:
        return None
    return grads[0] if len(grads) == 1 else sum_gradients(grads)


def _shape_of(t: Tensor) -> Any:
    """t's shape: a list where static (always, eagerly), else a Shape op."""
    return t.shape.as_list() if t.shape.is_fully_defined() else shape_ops.shape(t)


def _zeros_for(t: Tensor) -> Tensor:
    return fill_ops.zeros(_shape_of(t), dtype=t.dtype.base_dtype)


def _ones_for(target: Any) -> Tensor:
    """The gradient a target starts from: ones of its shape (a variable's value's, for a variable)."""
    if hasattr(target, "handle"):
        shape = target.shape.as_list() if target.shape.is_fully_defined() else shape_ops.shape(target)
        return fill_ops.ones(shape, dtype=target.dtype.base_dtype)
    return fill_ops.ones(_shape_of(target), dtype=target.dtype.base_dtype)


def _tensors_and_variables(structure: Any) -> Iterator[Any]:
    """The tensors and variables in a nested structure, composites as their components (TF's message for
    anything else)."""
    for obj in nest.flatten(structure):
        if isinstance(obj, Tensor) or hasattr(obj, "_as_graph_element") and hasattr(obj, "trainable"):
            yield obj
        elif getattr(obj, "is_tensor_like", False):
            yield from _tensors_and_variables(type_spec_from_value(obj)._to_components(obj))
        else:
            raise ValueError(f"Passed in object {obj} of type {type(obj).__name__!r}, not tf.Tensor or tf.Variable "
                             "or ExtensionType.")


def _differentiable(x: Any) -> Tensor:
    """What the tape differentiates for `x`: a resource variable's handle, a tensor itself; a ref variable has
    no id on TF's tape (TF's AttributeError)."""
    if hasattr(x, "handle"):
        return x.handle
    if not isinstance(x, Tensor):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute '_id'")
    return x


@tf_export("GradientTape")
class GradientTape:
    """Records the ops created while it is active that depend on watched tensors or on the trainable resource
    variables read meanwhile, to differentiate them with `gradient`, `jacobian` or `batch_jacobian` (graph
    gradient ops in a graph, values inside a `tf.py_function`)."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._tape: _Tape | None = None
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._watched_variables: tuple = ()
        self._recording = False
        self._tapes: list[Any] = []  # the active-tape list the tape was pushed on

    def __enter__(self) -> GradientTape:
        self._push_tape()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        if self._tape is None:
            self._tape = _Tape(self._watch_accessed_variables)
        self._tapes = context.active_tapes()
        self._tapes.append(self._tape)
        self._recording = True

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._tapes.remove(self._tape)
        self._recording = False

    @contextlib.contextmanager
    def _ensure_recording(self) -> Iterator[None]:
        if self._recording:
            yield
            return
        self._push_tape()
        try:
            yield
        finally:
            self._pop_tape()

    def watch(self, tensor: Any) -> None:
        """Record from now on the ops that consume `tensor` (a tensor, a variable, or a structure of them)."""
        for t in _tensors_and_variables(tensor):
            if not is_trainable(t):
                tf_logging.log_first_n(tf_logging.WARN, "The dtype of the watched tensor must be floating (e.g. "
                                       "tf.float32), got %r", 5, t.dtype)
            if self._tape is None:
                raise AttributeError("'NoneType' object has no attribute '_tape'")
            if hasattr(t, "handle"):
                self._tape.watch_variable(t)
            elif not isinstance(t, Tensor):  # a ref variable: TF's tape cannot hold it
                raise SystemError("<built-in method TFE_Py_TapeWatch of PyCapsule object> returned a result with an "
                                  "exception set") from AttributeError(f"'{type(t).__name__}' object has no "
                                                                       "attribute '_id'")
            else:
                self._tape.watch(t)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops created inside are not recorded."""
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Forget everything recorded, as if the tape were entered anew."""
        self._pop_tape()
        self._tape = None
        self._push_tape()

    def watched_variables(self) -> tuple:
        if self._tape is not None:
            self._watched_variables = self._tape.watched_variables()
        return self._watched_variables

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """d(sum of the targets, weighted by output_gradients)/d(source), in the structure of `sources`: a
        Tensor, IndexedSlices, or None (zeros with `UnconnectedGradients.ZERO`) where no target depends on it."""
        if self._tape is None:
            raise RuntimeError(_NOT_PERSISTENT)
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                tf_logging.log_first_n(
                    tf_logging.WARN, "Calling GradientTape.gradient on a persistent tape inside its context is "
                    "significantly less efficient than calling it outside the context (it causes the gradient ops "
                    "to be recorded on the tape, leading to increased CPU and memory usage). Only call "
                    "GradientTape.gradient inside the context if you actually want to trace the gradient in order "
                    "to compute higher order derivatives.", 1)
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        raw_targets = list(_tensors_and_variables(target))
        raw_sources = list(_tensors_and_variables(sources))
        targets = [_differentiable(t) for t in raw_targets]
        flat_sources = [_differentiable(s) for s in raw_sources]
        given = [None] * len(targets) if output_gradients is None else [
            None if g is None else convert_to_tensor(g) for g in nest.flatten(output_gradients)]
        try:
            unconnected_gradients = UnconnectedGradients(unconnected_gradients)
        except ValueError:
            raise ValueError(f"Unknown value for unconnected_gradients: '{unconnected_gradients}'") from None
        initial = [_ones_for(t) if g is None else g for t, g in zip(raw_targets, given)]
        grads = self._tape.backprop(targets, initial, flat_sources)
        if unconnected_gradients == UnconnectedGradients.ZERO:
            grads = [fill_ops.zeros_like(raw) if g is None else g for g, raw in zip(grads, raw_sources)]
        if not self._persistent:
            self._watched_variables = self._tape.watched_variables()
            self._tape = None
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """For each source, d target[i...] / d source[j...], of shape target.shape + source.shape: a while loop
        computes the gradient of each element of the flattened target (TF's for_loop form of it)."""
        if self._tape is None:
            raise RuntimeError(_NOT_PERSISTENT)
        flat_sources = nest.flatten(sources)
        target_shape = shape_ops.shape(target)
        with self._ensure_recording():
            target = shape_ops.reshape(target, [-1])

        def row(i: Tensor) -> list:
            with self._ensure_recording():
                y = indexing_ops.gather(target, i)
            return self.gradient(y, flat_sources, unconnected_gradients=unconnected_gradients)

        size = target.shape.as_list()[0]
        if size is None:
            size = shape_ops.shape(target)[0]
        rows = self._stacked_rows(row, size, target.dtype, len(flat_sources), parallel_iterations)
        output = [None if out is None else shape_ops.reshape(
            out, manipulation_ops.concat([target_shape, shape_ops.shape(out)[1:]], axis=0)) for out in rows]
        return nest.pack_sequence_as(sources, output)

    def batch_jacobian(self, target: Tensor, source: Tensor, unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Tensor:
        """The per-example jacobians d target[i, ...] / d source[i, ...], stacked on the batch dimension (for
        targets whose row i depends only on row i of the source)."""
        if self._tape is None:
            raise RuntimeError("A non-persistent GradientTape can only be used tocompute one set of gradients (or "
                               "jacobians)")
        target_static = target.shape
        target_static.with_rank_at_least(2)
        source.shape.with_rank_at_least(2)
        dim = target_static.as_list()[0] if target_static.ndims is not None else None
        source_dim = source.shape.as_list()[0] if source.shape.ndims is not None else None
        if not (dim is None or source_dim is None or dim == source_dim):
            raise ValueError(f"Need first dimension of target shape ({target.shape}) and source shape "
                             f"({source.shape}) to match.")
        if target_static.is_fully_defined():
            batch_size = dim
            row_size = target_static.num_elements() // batch_size
            target_shape: Any = target_static.as_list()
        else:
            target_shape = shape_ops.shape(target)
            batch_size = target_shape[0]
            row_size = shape_ops.size(target) // batch_size
        source_shape = shape_ops.shape(source)
        with self._ensure_recording():
            with control_dependencies([check_ops.assert_equal(batch_size, source_shape[0])]):
                target = shape_ops.reshape(target, [batch_size, row_size])

        def column(i: Tensor) -> list:
            with self._ensure_recording():
                y = indexing_ops.gather(target, i, axis=1)
            return [self.gradient(y, source, unconnected_gradients=unconnected_gradients)]

        new_shape = manipulation_ops.concat([target_shape, source_shape[1:]], axis=0)
        (output,) = self._stacked_rows(column, row_size, target.dtype, 1, parallel_iterations)
        if output is None:
            return fill_ops.zeros(new_shape, target.dtype)
        output = shape_ops.reshape(output, [row_size, batch_size, -1])
        return shape_ops.reshape(manipulation_ops.transpose(output, [1, 0, 2]), new_shape)

    def _stacked_rows(self, row: Any, size: Any, dtype: dtypes.DType, count: int, parallel_iterations: int | None
                      ) -> list:
        """`row(i)` (a list of `count` gradients) for i < size, each stacked on a new first dimension (None
        where `row` gave None): in a graph, a while loop that calls `row` once, to build its body; eagerly, a
        call per row on the tape kept until the last."""
        if context.executing_eagerly():
            persistent, self._persistent = self._persistent, True
            try:
                rows = [row(constant_ops.constant(i)) for i in range(int(size))]
            finally:
                self._persistent = persistent
            if not persistent:
                self._watched_variables, self._tape = self._tape.watched_variables(), None
            return [None if column[0] is None else manipulation_ops.stack([convert_to_tensor(g) for g in column])
                    for column in zip(*rows)]
        built: list = []

        def body(i: Tensor, *arrays: Any) -> tuple:
            grads = row(i)
            built[:] = [g is not None for g in grads]
            return (i + 1, *[a if g is None else a.write(i, convert_to_tensor(g)) for a, g in zip(arrays, grads)])

        arrays = [tensor_array_ops.TensorArray(dtype, size) for _ in range(count)]
        loop_vars = [constant_ops.constant(0, dtypes.int32), *arrays]
        results = control_flow_ops.while_loop(lambda i, *_: i < size, body, loop_vars,
                                              parallel_iterations=parallel_iterations or 10)
        return [array.stack() if present else None for array, present in zip(results[1:], built)]
