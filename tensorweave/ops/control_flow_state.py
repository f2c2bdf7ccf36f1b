"""The state `tf.gradients` keeps for the while loops it differentiates (TF's control_flow_state, v1 loops).

For each forward loop between the xs and the ys, a `GradLoopState` adds a counter to the forward loop and
builds the gradient loop, a WhileContext that runs exactly as many iterations, counting down. A forward
value a gradient needs inside the loop is pushed on a stack (StackV2) each forward iteration and popped in
the gradient loop's matching iteration (`get_real_value`); a loop invariant or a constant needs no stack.
Pushes are ordered by the forward counter and pops by the gradient counter (through the b_sync trigger), so
any `parallel_iterations` pops the values in reverse push order. `ControlFlowState` maps forward loops to
their states and tells `tf.gradients` which gradient loop an op's gradient is built in.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, tensor_util
from tensorweave.framework.graph import Operation, Tensor, colocate_with, get_default_graph
from tensorweave.ops import constant_ops, fill_ops, resource_variable_ops, shape_ops, stack_ops
from tensorweave.ops.control_flow_ops import (
    CondContext,
    ControlTrigger,
    NextIteration,
    WhileContext,
    _entered,
    _is_loop_constant_enter,
    _is_loop_exit,
    _output_context,
    _switch_ref_or_tensor,
    _while_context_of,
    zeros_like_outside_loop,
)

_IDENTITY_OPS = ("Switch", "RefSwitch", "Identity", "RefIdentity")


def _loop_constant_enter(value: Tensor) -> Operation | None:
    """The constant Enter `value` passes on unchanged, if any (then `value` is a loop invariant)."""
    op = value.op
    while op.type in _IDENTITY_OPS:
        op = op.inputs[0].op
    return op if _is_loop_constant_enter(op) else None


def _is_loop_switch(op: Operation) -> bool:
    return op.type in ("Switch", "RefSwitch") and isinstance(op._get_control_flow_context(), WhileContext)


class GradLoopState:
    """One forward loop's gradient: its counters, the gradient loop, and the stacks of saved values."""

    def __init__(self, forward_context: WhileContext, outer_grad_state: GradLoopState | None) -> None:
        self.forward_context = forward_context
        self.outer_grad_state = outer_grad_state
        self.history_map: dict[str, Tensor] = {}  # forward value name -> its value in the gradient loop
        self.switch_map: dict[Operation, Tensor] = {}  # forward loop Switch -> its gradient's Merge
        self.unused_exits: list[Tensor] = []
        self.deferred_exits: list[Tensor] = []
        self.forward_loop_exits = list(forward_context.loop_exits)
        self.pending_exits_count = len(forward_context.loop_exits)
        self._forward_sync: Operation | None = None
        self._grad_sync: Operation | None = None
        outer_forward = outer_grad_state.forward_context if outer_grad_state else forward_context.outer_context
        with _entered(outer_forward):
            count, self.forward_index = forward_context.add_forward_loop_counter(outer_grad_state)
        settings = (forward_context.maximum_iterations, forward_context.parallel_iterations,
                    forward_context.back_prop, forward_context.swap_memory, forward_context.name)
        if outer_grad_state is not None:  # a nested loop: its iteration count per run of the outer one
            outer_forward.add_name(count.name)
            history_count = outer_grad_state.add_forward_accumulator(count)
            with _entered(outer_grad_state.grad_context):
                self.grad_context = WhileContext(*settings, grad_state=self)
                real_count = outer_grad_state.add_backprop_accumulated_value(history_count, count)
                self.grad_index = self.grad_context.add_backprop_loop_counter(real_count, outer_grad_state)
        else:
            with _entered(outer_forward):
                self.grad_context = WhileContext(*settings, grad_state=self)
                self.grad_index = self.grad_context.add_backprop_loop_counter(count, None)

    @property
    def forward_sync(self) -> Operation:
        """A trigger the forward counter waits on: pushes inside conds gather on it."""
        if self._forward_sync is None:
            with get_default_graph().control_dependencies(None):
                self._forward_sync = ControlTrigger(name="f_sync")
            self._forward_sync._set_control_flow_context(self.forward_context)
            self.forward_index.op._add_control_input(self._forward_sync)
        return self._forward_sync

    @property
    def grad_sync(self) -> Operation:
        """A trigger the gradient counter waits on: every pop of an iteration gathers on it."""
        if self._grad_sync is None:
            with get_default_graph().control_dependencies(None):
                self._grad_sync = ControlTrigger(name="b_sync")
            self._grad_sync._set_control_flow_context(self.grad_context)
            self.grad_index.op._add_control_input(self._grad_sync)
        return self._grad_sync

    def add_forward_accumulator(self, value: Tensor, dead_branch: bool = False) -> Tensor:
        """A stack that `value` is pushed on every forward iteration (after the counter's increment and
        before its NextIteration); returns the stack's handle."""
        graph = value.graph
        current = graph._get_control_flow_context()
        with graph.control_dependencies(None):
            with _entered(current), colocate_with(value.op):
                max_size = constant_ops.constant(-1, dtypes.int32)
                acc = stack_ops.StackV2(max_size, elem_type=value.dtype.base_dtype, name="f_acc")
            enter_acc = self.forward_context.add_value(acc)
            swap_memory = self.forward_context.swap_memory
            value_context = _output_context(value.op)
            if value_context is self.forward_context:
                with _entered(self.forward_context):
                    push = stack_ops.StackPushV2(enter_acc, value, swap_memory=swap_memory)
                self.forward_index.op._add_control_input(push.op)
            else:
                if not isinstance(value_context, CondContext):
                    raise TypeError(f"value_ctxt is not a CondContext: {value_context}")
                if dead_branch:  # zeros for an untaken branch: pushed whichever branch runs
                    with _entered(value_context.outer_context):
                        push = stack_ops.StackPushV2(enter_acc, value, swap_memory=swap_memory)
                    push.op._set_control_flow_context(value_context)
                else:
                    with _entered(value_context):
                        push = stack_ops.StackPushV2(enter_acc, value, swap_memory=swap_memory)
                self.forward_sync._add_control_input(push.op)
            push.op._add_control_input(self.forward_index.op.inputs[0].op)
        return acc

    def add_backprop_accumulated_value(self, history_value: Tensor, value: Tensor,
                                       dead_branch: bool = False) -> Tensor:
        """`value`'s forward value for this gradient iteration: a pop of its stack (behind a Switch on the
        saved predicate when `value` was made in a cond)."""
        history_context = history_value.op._get_control_flow_context()
        cond_context = None
        value_context = value.op._get_control_flow_context()
        while value_context is not None and value_context is not history_context:
            if isinstance(value_context, CondContext):
                cond_context = value_context
                break
            value_context = value_context.outer_context
        with value.graph.control_dependencies(None), _entered(self.grad_context):
            if cond_context is not None:
                grad_state: GradLoopState | None = self
                pred = None
                while pred is None and grad_state is not None:
                    pred = grad_state.history_map.get(cond_context.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_context.pred
                branch = 1 - cond_context.branch if dead_branch else cond_context.branch
                history_value = _switch_ref_or_tensor(history_value, pred)[branch]
            pop = stack_ops.StackPopV2(history_value, elem_type=value.dtype.base_dtype)
            pop.set_shape(value.shape)
        if self.grad_context.parallel_iterations > 1:  # an iteration's pops end before the next one's start
            self.grad_sync._add_control_input(pop.op)
        return pop

    def get_real_value(self, value: Tensor) -> Tensor:
        """What stands for the forward loop's `value` in the gradient loop: an invariant entered from outside,
        a constant cloned, anything else saved on a stack and popped."""
        real = self.history_map.get(value.name)
        if real is not None:
            return real
        current, state, history = value, self, None
        while True:
            enter_op = _loop_constant_enter(current)
            if enter_op is not None:
                current = enter_op.inputs[0]
                state = state.outer_grad_state
                if state is None:  # invariant of every loop being differentiated
                    real = self.grad_context.add_value(current)
                    break
            elif current.op.type == "Const":
                real = constant_ops.constant(tensor_util.constant_value(current), dtype=current.dtype)
                break
            else:
                self.grad_context.exit()
                history = state.add_forward_accumulator(current)
                self.grad_context.enter()
                break
        if real is None:
            real = state.add_backprop_accumulated_value(history, current)
            if state is not self:
                real = self.grad_context.add_value(real)
        self.history_map[value.name] = real
        return real


class ControlFlowState:
    """The gradient loop states of one `tf.gradients` call, by forward loop."""

    def __init__(self) -> None:
        self._map: dict[WhileContext, GradLoopState] = {}

    def get_grad_state(self, op: Operation, before: bool) -> GradLoopState | None:
        """The state whose gradient loop `op`'s gradient is built in; before it runs, an Exit's gradients
        are summed in the enclosing loop's."""
        if before and _is_loop_exit(op):
            forward = op._get_control_flow_context().outer_context
            forward = forward.get_while_context() if forward is not None else None
        else:
            forward = _while_context_of(op)
        return self._map.get(forward) if forward is not None else None

    def enter_grad_while_context(self, op: Operation, before: bool) -> None:
        grad_state = self.get_grad_state(op, before)
        if grad_state is not None:
            grad_state.grad_context.enter()

    def exit_grad_while_context(self, op: Operation, before: bool) -> None:
        grad_state = self.get_grad_state(op, before)
        if grad_state is not None:
            grad_state.grad_context.exit()

    def add_while_context(self, op: Operation, between_op_list: list[Operation], between_ops: set[Operation]
                          ) -> None:
        """Make the state of the loop `op` exits from (once), and count every exit of it as between."""
        forward = _while_context_of(op)
        if forward in self._map:
            return
        outer_forward = forward.outer_context.get_while_context() if forward.outer_context is not None else None
        grad_state = GradLoopState(forward, self._map.get(outer_forward) if outer_forward is not None else None)
        self._map[forward] = grad_state
        for loop_exit in grad_state.forward_loop_exits:
            if loop_exit.op not in between_ops:
                between_ops.add(loop_exit.op)
                between_op_list.append(loop_exit.op)

    def process_unused_loop_exits(self, pending: dict[Operation, int], to_ops: set[Operation]) -> list[Tensor]:
        """The exits no y depends on, once all of a loop's exits are known; every loop Enter is kept
        pending, so the gradient reaches each."""
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending[y.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending[y.op] == 0:
                    pending[y.op] = 1
        return loop_exits

    def zeros_like_for_exit(self, value: Tensor) -> Tensor:
        """Zeros for an Exit no gradient reached, made where the gradient loop's Enter takes them."""
        forward = value.op._get_control_flow_context()
        outer_forward = forward.outer_context.get_while_context() if forward.outer_context is not None else None
        outer_grad_state = self._map.get(outer_forward) if outer_forward is not None else None
        shape = value.shape
        if outer_grad_state is None:
            if shape.is_fully_defined():
                return fill_ops.zeros(shape.as_list(), value.dtype)
            return fill_ops.zeros_like(value, optimize=False)
        if shape.is_fully_defined():
            with _entered(outer_grad_state.grad_context):
                return fill_ops.zeros(shape.as_list(), value.dtype)
        with _entered(forward.outer_context):
            forward_shape = shape_ops.Shape(value, name="Shape")
        history_shape = outer_grad_state.add_forward_accumulator(forward_shape)
        with _entered(outer_grad_state.grad_context):
            real_shape = outer_grad_state.add_backprop_accumulated_value(history_shape, forward_shape)
            return fill_ops.zeros(real_shape, value.dtype)

    def zeros_like(self, op: Operation, index: int) -> Tensor | None:
        """Zeros for an output of `op` no gradient reached, in the gradient loop of `op`'s loop (its shape
        saved on a stack when not known statically; behind a Switch for a cond's untaken branch)."""
        if _is_loop_switch(op):
            return None
        dead_branch = op.type in ("Switch", "RefSwitch")
        grad_state = self._map.get(_while_context_of(op))
        if grad_state is None:
            return zeros_like_outside_loop(op, index)
        op_context: Any = op._get_control_flow_context()
        value = op.outputs[index]
        if value.shape.is_fully_defined():
            if value.dtype == dtypes.resource:
                result = resource_variable_ops.zeros_like_handle(value)
            else:
                result = constant_ops.constant(0, shape=value.shape.as_list(), dtype=value.dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_context.pred.name)
                result = _switch_ref_or_tensor(result, pred)[1 - op_context.branch]
            return result
        if dead_branch:
            with _entered(op_context.outer_context):
                value = _switch_ref_or_tensor(op.inputs[0], op_context.pred)[1 - op_context.branch]
                zeros_shape = shape_ops.Shape(value, name="Shape")
            value.op._set_control_flow_context(op_context)
            zeros_shape.op._set_control_flow_context(op_context)
        else:
            with _entered(op_context):
                zeros_shape = shape_ops.Shape(value, name="Shape")
        grad_state.grad_context.exit()
        history_zeros_shape = grad_state.add_forward_accumulator(zeros_shape, dead_branch=dead_branch)
        grad_state.grad_context.enter()
        shape = grad_state.add_backprop_accumulated_value(history_zeros_shape, zeros_shape, dead_branch)
        return fill_ops.zeros(shape, value.dtype)

    def post_processing(self) -> None:
        """A loop variable whose next value does not depend on its current one gets zero gradients after
        the first gradient iteration (its gradient Merge had no back edge)."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is not b_merge.op.inputs[1]:
                    continue
                dtype, shape = b_merge.op.inputs[0].dtype, b_merge.op.inputs[0].shape
                if shape.is_fully_defined():
                    with _entered(grad_state.grad_context):
                        next_value = NextIteration(constant_ops.constant(0, dtype=dtype, shape=shape.as_list()),
                                                   name="NextIteration")
                else:
                    with _entered(grad_state.grad_context.outer_context):
                        enter_grad = b_merge.op.inputs[0].op.inputs[0]
                        zeros = fill_ops.zeros(shape_ops.Shape(enter_grad, name="Shape"), dtype)
                    with _entered(grad_state.grad_context):
                        next_value = NextIteration(zeros, name="NextIteration")
                b_merge.op._update_input(1, next_value)


def maybe_create_control_flow_state(between_op_list: list[Operation], between_ops: set[Operation],
                                    colocate_gradients_with_ops: bool) -> ControlFlowState | None:
    """A state for the loops whose Exits are between the xs and the ys (None when there are none)."""
    loop_state = None
    for op in list(between_op_list):
        if _is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate_gradients_with_ops:
                with colocate_with(op):
                    loop_state.add_while_context(op, between_op_list, between_ops)
            else:
                loop_state.add_while_context(op, between_op_list, between_ops)
    return loop_state
