"""The RNN drivers of TF1: `tf.nn.dynamic_rnn` (a `tf.while_loop` over time reading inputs from, and writing
outputs to, TensorArrays), `tf.nn.raw_rnn` (the same loop driven by a user's `loop_fn`), `tf.nn.static_rnn`
(the cell unrolled in the graph), and their bidirectional forms.

Both drivers make the same variables in the same scopes (`rnn/<cell>/...`, `bidirectional_rnn/fw/<cell>/...`),
so a graph built with one restores a checkpoint of the other. With `sequence_length`, an entry's outputs past
its length are zeros and its state is the one at its last step, as TF's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes, nest, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    fill_ops,
    logging_ops,
    manipulation_ops,
    reduction_ops,
    sequence_ops,
    shape_ops,
    tensor_array_ops,
    variable_scope,
)
from tensorweave.ops.rnn_cell_impl import _concat, assert_like_rnncell
from tensorweave.platform.tf_export import tf_export


def _transpose_batch_time(x: Tensor) -> Tensor:
    """Swap the first two dimensions (batch-major <-> time-major), keeping the static shape."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    perm = manipulation_ops.concat(([1, 0], sequence_ops.range(2, shape_ops.rank(x))), axis=0)
    x_t = manipulation_ops.transpose(x, perm)
    if static.ndims is not None:
        x_t.set_shape(tensor_shape.TensorShape([static[1], static[0]]).concatenate(static[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input: Sequence[Tensor]) -> Any:
    """The batch size of time-major inputs: static when any input knows it, else the first input's."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={input_} of rank {shape.ndims}")
        if tensor_shape.dimension_value(shape[1]) is not None:
            return tensor_shape.dimension_value(shape[1])
    return shape_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype: Any, state: Any) -> dtypes.DType:
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_nested(state):
        inferred = [element.dtype for element in nest.flatten(state)]
        if not inferred:
            raise ValueError("Unable to infer dtype from empty state.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError("State has tensors of different inferred_dtypes. Unable to infer a single "
                             "representative dtype.")
        return inferred[0]
    return state.dtype


def _maybe_tensor_shape_from_tensor(shape: Any) -> Any:
    return tensor_shape.as_shape(tensor_util.constant_value(shape)) if isinstance(shape, Tensor) else shape


def _rnn_step(time: Any, sequence_length: Tensor, min_sequence_length: Tensor, max_sequence_length: Tensor,
              zero_output: Any, state: Any, call_cell: Any, skip_conditionals: bool = False) -> tuple[Any, Any]:
    """One step of an RNN over sequences of different lengths: entries past their length get zero outputs and
    keep their state. Unrolled, conds skip the cell past the longest sequence and the selection before the
    shortest one ends; in a loop (`skip_conditionals`) the selection is made every step."""
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output: Any, new_output: Any) -> Any:
        if isinstance(output, tensor_array_ops.TensorArray) or output.shape.ndims == 0:
            return new_output
        with colocate_with(new_output):
            return elementwise_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output: list, flat_new_state: list) -> list:
        return ([copy_one_through(z, o) for z, o in zip(flat_zero_output, flat_new_output)]
                + [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def new_output_and_state() -> tuple[list, list]:
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    def maybe_copy_some_through() -> list:
        flat_new_output, flat_new_state = new_output_and_state()
        return control_flow_ops.cond(time < min_sequence_length, lambda: flat_new_output + flat_new_state,
                                     lambda: copy_some_through(flat_new_output, flat_new_state))

    if skip_conditionals:
        final_output_and_state = copy_some_through(*new_output_and_state())
    else:
        final_output_and_state = control_flow_ops.cond(time >= max_sequence_length,
                                                       lambda: flat_zero_output + flat_state, maybe_copy_some_through)
    final_output = final_output_and_state[:len(flat_zero_output)]
    final_state = final_output_and_state[len(flat_zero_output):]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.shape)
    for substate, old in zip(final_state, flat_state):
        if not isinstance(substate, tensor_array_ops.TensorArray):
            substate.set_shape(old.shape)
    return (nest.pack_sequence_as(structure=zero_output, flat_sequence=final_output),
            nest.pack_sequence_as(structure=state, flat_sequence=final_state))


def _initial_state(cell: Any, initial_state: Any, batch_size: Any, dtype: Any) -> Any:
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _cache_reads_by_device(varscope: Any) -> None:
    """TF's default for an RNN built outside any while loop: its variables' `read`s are placed by their own
    device (a caching device) instead of colocated with the variables."""
    context = get_default_graph()._get_control_flow_context()
    if (context is None or context.get_while_context() is None) and varscope.caching_device is None:
        varscope.set_caching_device(lambda op: op.device)


@tf_export("nn.dynamic_rnn")
def dynamic_rnn(cell: Any, inputs: Any, sequence_length: Any = None, initial_state: Any = None, dtype: Any = None,
                parallel_iterations: int | None = None, swap_memory: bool = False, time_major: bool = False,
                scope: Any = None) -> tuple[Any, Any]:
    """Run `cell` over the time dimension of `inputs` in a while loop: (outputs, final state)."""
    assert_like_rnncell("cell", cell)
    with variable_scope.variable_scope(scope or "rnn") as varscope:
        _cache_reads_by_device(varscope)
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = tuple(_transpose_batch_time(convert_to_tensor(x)) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = cast_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("Argument sequence_length must be a vector of length batch_size. Received "
                                 f"sequence_length={sequence_length} of shape: {sequence_length.shape}")
            sequence_length = manipulation_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            x_shape = shape_ops.shape(sequence_length)
            packed_shape = manipulation_ops.stack([batch_size])
            check = logging_ops.Assert_(
                reduction_ops.reduce_all(elementwise_ops.equal(x_shape, packed_shape)),
                [f"Expected shape for Tensor {sequence_length.name} is ", packed_shape, " but saw shape: ", x_shape])
            with control_dependencies([check]):
                sequence_length = manipulation_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(structure=inputs, flat_sequence=flat_input)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory,
                                                 sequence_length, dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(cell: Any, inputs: Any, initial_state: Any, parallel_iterations: int, swap_memory: bool,
                      sequence_length: Tensor | None, dtype: Any) -> tuple[Any, Any]:
    """The while loop of dynamic_rnn over time-major `inputs`: TensorArrays in, the cell, TensorArrays out."""
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = shape_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(x.shape.with_rank_at_least(3) for x in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for tensor, shape in zip(flat_input, inputs_got_shape):
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             f"None for input={tensor}.")
        if const_time_steps != tensor_shape.dimension_value(shape[0]):
            raise ValueError("Time steps is not the same for all the elements in the input in a batch.")
        if const_batch_size != tensor_shape.dimension_value(shape[1]):
            raise ValueError("Batch_size is not the same for all the elements in the input.")
    state_dtype = _infer_state_dtype(dtype, state)
    flat_zero_output = tuple(fill_ops.zeros(_concat(batch_size, size), state_dtype)
                             for size in flat_output_size)
    zero_output = nest.pack_sequence_as(structure=cell.output_size, flat_sequence=flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = reduction_ops.reduce_min(sequence_length)
        max_sequence_length = reduction_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = constant_ops.constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name: str, element_shape: Any, dtype: Any) -> tensor_array_ops.TensorArray:
        return tensor_array_ops.TensorArray(dtype=dtype, size=time_steps, element_shape=element_shape,
                                            tensor_array_name=base_name + name)

    output_ta = tuple(create_ta(f"output_{i}", tensor_shape.TensorShape([const_batch_size]).concatenate(
                          _maybe_tensor_shape_from_tensor(size)), state_dtype)
                      for i, size in enumerate(flat_output_size))
    input_ta = tuple(create_ta(f"input_{i}", x.shape[1:], x.dtype) for i, x in enumerate(flat_input))
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def time_step(time: Tensor, output_ta_t: tuple, state: Any) -> tuple:
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(structure=inputs, flat_sequence=input_t)

        def call_cell() -> tuple[Any, Any]:
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell, skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, nest.flatten(output)))
        return time + 1, output_ta_t, new_state

    # at least one step, so that the output arrays learn their element shape
    loop_bound = elementwise_ops.minimum(time_steps, elementwise_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step, loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations, maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, size in zip(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], size, static=True))
    return nest.pack_sequence_as(structure=cell.output_size, flat_sequence=final_outputs), final_state


@tf_export("nn.raw_rnn")
def raw_rnn(cell: Any, loop_fn: Callable[..., tuple], parallel_iterations: int | None = None,
            swap_memory: bool = False, scope: Any = None) -> tuple[Any, Any, Any]:
    """The loop under dynamic_rnn with `loop_fn` in charge of inputs, state and what is emitted (a decoder's
    driver): `(emit_ta, final_state, final_loop_state)`.

    `loop_fn(time, cell_output, cell_state, loop_state)` returns `(finished, next_input, next_cell_state,
    emit_output, next_loop_state)`; its first call (time 0, the rest None) gives the first input, the initial
    state and the emit structure (None: `cell.output_size`). The loop runs while any batch entry is unfinished;
    a finished entry emits zeros and keeps its state.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    parallel_iterations = parallel_iterations or 32
    with variable_scope.variable_scope(scope or "rnn") as varscope:
        _cache_reads_by_device(varscope)
        time = constant_ops.constant(0, dtype=dtypes.int32)
        elements_finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(time, None, None,
                                                                                                 None)
        flat_input = nest.flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None else constant_ops.constant(0, dtype=dtypes.int32)
        static_batch_size = tensor_shape.dimension_at_index(flat_input[0].shape, 0)
        for input_ in flat_input:  # the inputs must agree on a static batch size
            static_batch_size.merge_with(tensor_shape.dimension_at_index(input_.shape, 0))
        const_batch_size = tensor_shape.dimension_value(static_batch_size)
        batch_size = const_batch_size if const_batch_size is not None else shape_ops.shape(flat_input[0])[0]
        nest.assert_same_structure(initial_state, cell.state_size)
        flat_state = [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        state = nest.pack_sequence_as(structure=initial_state, flat_sequence=flat_state)
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [emit.shape if emit.shape.is_fully_defined() else shape_ops.shape(emit)
                              for emit in flat_emit_structure]
            flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [tensor_array_ops.TensorArray(
            dtype=dtype, dynamic_size=True, size=0, name=f"rnn_output_{i}",
            element_shape=tensor_shape.TensorShape([const_batch_size]).concatenate(
                _maybe_tensor_shape_from_tensor(size)))
            for i, (dtype, size) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = nest.pack_sequence_as(structure=emit_structure, flat_sequence=flat_emit_ta)
        zero_emit = nest.pack_sequence_as(structure=emit_structure, flat_sequence=[
            fill_ops.zeros(_concat(batch_size, size), dtype) for size, dtype in zip(flat_emit_size, flat_emit_dtypes)])

        def condition(time: Tensor, elements_finished: Tensor, *_: Any) -> Tensor:
            return elementwise_ops.logical_not(reduction_ops.reduce_all(elements_finished))

        def body(time: Tensor, elements_finished: Tensor, current_input: Any, emit_ta: Any, state: Any,
                 loop_state: Any) -> tuple:
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def keep_finished(current: Any, candidate: Any) -> Any:
                """Finished entries keep `current`; TensorArrays and scalars take `candidate`."""
                if isinstance(current, tensor_array_ops.TensorArray) or current.shape.ndims == 0:
                    return candidate
                with colocate_with(candidate):
                    return elementwise_ops.where(elements_finished, current, candidate)

            emit_output = nest.map_structure(keep_finished, zero_emit, emit_output)
            next_state = nest.map_structure(keep_finished, state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta, emit_output)
            elements_finished = elementwise_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = control_flow_ops.while_loop(
            condition, body, loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        return emit_ta, final_state, (final_loop_state if init_loop_state is not None else None)


@tf_export("nn.static_rnn")
def static_rnn(cell: Any, inputs: Sequence[Any], initial_state: Any = None, dtype: Any = None,
               sequence_length: Any = None, scope: Any = None) -> tuple[list, Any]:
    """Run `cell` over a Python list of per-time-step inputs, unrolled in the graph: (outputs, final state)."""
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with variable_scope.variable_scope(scope or "rnn") as varscope:
        _cache_reads_by_device(varscope)
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        if first_input.shape.ndims != 1:
            fixed_batch_size = tensor_shape.dimension_value(first_input.shape.with_rank_at_least(2)[0])
            for flat_input in nest.flatten(inputs):
                input_shape = flat_input.shape.with_rank_at_least(2)
                for i, size in enumerate(input_shape[1:].as_list()):
                    if size is None:
                        raise ValueError(f"Input size (dimension {i} of inputs) must be accessible via shape "
                                         "inference, but saw value None.")
        else:
            fixed_batch_size = tensor_shape.dimension_value(first_input.shape.with_rank_at_least(1)[0])
        batch_size = fixed_batch_size if fixed_batch_size else shape_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument `sequence_length` must be a vector of length {batch_size}. Received "
                                 f"sequence_length={sequence_length}.")

            def create_zero_output(output_size: Any) -> Tensor:
                output = fill_ops.zeros(_concat(batch_size, output_size), _infer_state_dtype(dtype, state))
                output.set_shape(tensor_shape.TensorShape(_concat(fixed_batch_size, output_size, static=True)))
                return output

            flat_zero_output = tuple(create_zero_output(size) for size in nest.flatten(cell.output_size))
            zero_output = nest.pack_sequence_as(structure=cell.output_size, flat_sequence=flat_zero_output)
            sequence_length = cast_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = reduction_ops.reduce_min(sequence_length)
            max_sequence_length = reduction_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_: Any = input_, state: Any = state) -> tuple[Any, Any]:
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


@tf_export("nn.bidirectional_dynamic_rnn")
def bidirectional_dynamic_rnn(cell_fw: Any, cell_bw: Any, inputs: Any, sequence_length: Any = None,
                              initial_state_fw: Any = None, initial_state_bw: Any = None, dtype: Any = None,
                              parallel_iterations: int | None = None, swap_memory: bool = False,
                              time_major: bool = False, scope: Any = None) -> tuple[tuple, tuple]:
    """A forward dynamic_rnn and one over the reversed sequences (each entry reversed within its length),
    whose outputs are reversed back: ((outputs_fw, outputs_bw), (state_fw, state_bw))."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(input_: Any) -> Tensor:
        if sequence_length is not None:
            return manipulation_ops.reverse_sequence(input=input_, seq_lengths=sequence_length, seq_axis=time_axis,
                                                     batch_axis=batch_axis)
        return manipulation_ops.reverse(input_, axis=[time_axis])

    with variable_scope.variable_scope(scope or "bidirectional_rnn"):
        with variable_scope.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length, initial_state=initial_state_fw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with variable_scope.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(reverse, inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length, initial_state=initial_state_bw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = reverse(tmp)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def _reverse_seq(input_seq: Sequence[Any], lengths: Tensor | None) -> list:
    """A list of per-step inputs reversed (within each entry's length when `lengths` is given)."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(input_) for input_ in input_seq)
    flat_results: list[list] = [[] for _ in input_seq]
    for sequence in zip(*flat_input_seq):
        input_shape = tensor_shape.unknown_shape(rank=sequence[0].shape.ndims)
        for input_ in sequence:
            input_shape = input_shape.merge_with(input_.shape)
            input_.set_shape(input_shape)
        reversed_ = manipulation_ops.reverse_sequence(manipulation_ops.stack(sequence), lengths, 0, 1)
        for r, flat_result in zip(manipulation_ops.unstack(reversed_), flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(structure=input_, flat_sequence=flat_result)
            for input_, flat_result in zip(input_seq, flat_results)]


@tf_export("nn.static_state_saving_rnn")
def static_state_saving_rnn(cell: Any, inputs: Sequence[Any], state_saver: Any, state_name: Any,
                            sequence_length: Any = None, scope: Any = None) -> tuple[list, Any]:
    """`static_rnn` starting from the states `state_saver.state(name)` gives and saving the final ones with
    `state_saver.save_state(name, value)`: the last output and the state wait for the saves (TF's truncated
    backpropagation through a state saver)."""
    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    if state_is_tuple != nest.is_nested(state_name):
        raise ValueError("Argument `state_name` should be the same type as `cell.state_size`. Received: "
                         f"state_name={state_name!s}, cell.state_size={state_size!s}.")
    names = nest.flatten(state_name)
    if state_is_tuple:
        if len(names) != len(nest.flatten(state_size)):
            raise ValueError("Number of elements in argument `state_name` and `cell.state_size` are mismatched. "
                             f"Received state_name={state_name} with {len(names)} elements and "
                             f"cell.state_size={cell.state_size} with {len(nest.flatten(state_size))} elements.")
        initial_state = nest.pack_sequence_as(structure=state_size,
                                              flat_sequence=[state_saver.state(n) for n in names])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state, sequence_length=sequence_length,
                                scope=scope)
    flat_state = nest.flatten(state)
    saves = [state_saver.save_state(n, s) for n, s in zip(names, flat_state)]
    with control_dependencies(saves):
        last_output = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(
            structure=last_output, flat_sequence=[manipulation_ops.identity(o) for o in nest.flatten(last_output)])
        if state_is_tuple:
            state = nest.pack_sequence_as(structure=state,
                                          flat_sequence=[manipulation_ops.identity(s) for s in flat_state])
        else:
            state = manipulation_ops.identity(state)
    return outputs, state


@tf_export("nn.static_bidirectional_rnn")
def static_bidirectional_rnn(cell_fw: Any, cell_bw: Any, inputs: Sequence[Any], initial_state_fw: Any = None,
                             initial_state_bw: Any = None, dtype: Any = None, sequence_length: Any = None,
                             scope: Any = None) -> tuple[list, Any, Any]:
    """Unrolled forward and backward RNNs; each step's output is the two directions' outputs concatenated:
    (outputs, state_fw, state_bw)."""
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with variable_scope.variable_scope(scope or "bidirectional_rnn"):
        with variable_scope.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                                    scope=fw_scope)
        with variable_scope.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                                              scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(manipulation_ops.concat([fw, bw], 1)
                         for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    return nest.pack_sequence_as(structure=output_fw, flat_sequence=flat_outputs), output_state_fw, output_state_bw
