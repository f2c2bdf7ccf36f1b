"""TF1's queue-based input pipelines: producers of work (`string_input_producer`, `input_producer`,
`range_input_producer`, `slice_input_producer`, `limit_epochs`, `match_filenames_once`) and batching
(`batch`, `shuffle_batch` and their `_join` and `maybe_` forms).

Each builds what TF1 builds, with its names and collections: a queue, enqueue ops run by a QueueRunner added to
the QUEUE_RUNNERS collection (`start_queue_runners` starts them), a scalar summary of how full the queue is, and
for a limited number of epochs a local `epochs` counter whose `CountUpTo` fails with OutOfRangeError after the
last epoch, which stops the runner and closes the queue, so its consumers drain it and then see OutOfRangeError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tensorweave.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    control_flow_ops,
    data_flow_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    io_ops,
    logging_ops,
    manipulation_ops,
    random_ops,
    sequence_ops,
    shape_ops,
    sparse_misc_ops,
    sparse_ops,
    summary_ops,
    variables,
)
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import queue_runner


@tf_export("io.match_filenames_once", "train.match_filenames_once")
def match_filenames_once(pattern: Any, name: str | None = None) -> variables.Variable:
    """A local variable holding the files matching `pattern`, matched once when it is initialized."""
    with name_scope(name, "matching_filenames", [pattern]) as name:
        return variables.Variable(io_ops.matching_files(pattern), name=name, trainable=False, validate_shape=False,
                                  collections=[GraphKeys.LOCAL_VARIABLES])


@tf_export("train.limit_epochs")
def limit_epochs(tensor: Any, num_epochs: int | None = None, name: str | None = None) -> Tensor:
    """`tensor`, each evaluation counted: after `num_epochs` of them it raises OutOfRangeError."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant_ops.constant(0, dtype=dtypes.int64)
        epochs = variables.Variable(zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return manipulation_ops.identity(tensor, name=name)


@tf_export("train.input_producer")
def input_producer(input_tensor: Any, element_shape: Any = None, num_epochs: int | None = None, shuffle: bool = True,
                   seed: int | None = None, capacity: int = 32, shared_name: str | None = None,
                   summary_name: str | None = None, name: str | None = None,
                   cancel_op: Operation | None = None) -> data_flow_ops.QueueBase:
    """A FIFO queue that a QueueRunner fills with the rows of `input_tensor`, shuffled each epoch if asked."""
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(tensor_shape.as_shape(element_shape)
                                                          if element_shape is not None else None)
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                                        shapes=[element_shape], shared_name=shared_name, name=name)
        enqueue = queue.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            summary_ops.scalar(summary_name, cast_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        return queue


@tf_export("train.string_input_producer")
def string_input_producer(string_tensor: Any, num_epochs: int | None = None, shuffle: bool = True,
                          seed: int | None = None, capacity: int = 32, shared_name: str | None = None,
                          name: str | None = None, cancel_op: Operation | None = None) -> data_flow_ops.QueueBase:
    """A queue of strings (filenames, for a reader) filled from `string_tensor`, epoch after epoch."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not string_tensor:
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_dependencies([logging_ops.Assert_(
                elementwise_ops.greater(shape_ops.size(string_tensor), 0), [not_null_err])]):
            string_tensor = manipulation_ops.identity(string_tensor)
        return input_producer(input_tensor=string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle,
                              seed=seed, capacity=capacity, shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


@tf_export("train.range_input_producer")
def range_input_producer(limit: Any, num_epochs: int | None = None, shuffle: bool = True, seed: int | None = None,
                         capacity: int = 32, shared_name: str | None = None,
                         name: str | None = None) -> data_flow_ops.QueueBase:
    """A queue of the integers 0 .. limit-1, epoch after epoch."""
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = sequence_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", name)


@tf_export("train.slice_input_producer")
def slice_input_producer(tensor_list: list, num_epochs: int | None = None, shuffle: bool = True,
                         seed: int | None = None, capacity: int = 32, shared_name: str | None = None,
                         name: str | None = None) -> list[Tensor]:
    """One row of each tensor of `tensor_list` (the same row of each), drawn from a range_input_producer."""
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = shape_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [indexing_ops.gather(t, index) for t in tensor_list]


# -- batching ---------------------------------------------------------------------------------------------


def _as_tensor_list(tensors: Any) -> list:
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list: Any) -> list:
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors: Any, tensor_list: Any) -> Any:
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _validate(tensor_list: list, what: str = "batch()") -> list[Tensor | SparseTensor]:
    tensor_list = [SparseTensor.from_value(t) if isinstance(t, (SparseTensor, SparseTensorValue))
                   else convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError(f"Expected at least one tensor in {what}.")
    return tensor_list


def _validate_keep_input(keep_input: Any, enqueue_many: bool) -> Tensor:
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list: list[list[Tensor]]) -> list[dtypes.DType]:
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other_types in all_types[1:]:
        if other_types != types:
            raise TypeError(f"Expected types to be consistent: {', '.join(x.name for x in types)} vs. "
                            f"{', '.join(x.name for x in other_types)}.")
    return types


def _merge_shapes(shape_list: list, enqueue_many: bool) -> list | None:
    shape_list = [tensor_shape.as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged_shape = shape_list[0]
    for s in shape_list[1:]:
        merged_shape.merge_with(s)
    return merged_shape.as_list()


def _shapes(tensor_list_list: list[list[Tensor]], shapes: Any, enqueue_many: bool) -> Any:
    """The queue's shapes: given, or each component's static shape (less its batch dimension)."""
    if shapes is not None:
        return shapes
    for tl in tensor_list_list:
        for t in tl:
            if t.shape.ndims is None:
                raise ValueError(f"Cannot infer Tensor's rank: {t}")
    return [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list], enqueue_many)
            for i in range(len(tensor_list_list[0]))]


def _enqueue_ops(queue: data_flow_ops.QueueBase, tensor_list_list: list[list[Tensor]], enqueue_many: bool,
                 keep_input: Tensor) -> list[Operation]:
    """One enqueue per list: of the rows `keep_input` keeps (a vector), or of all if it holds (a scalar)."""
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        return [enqueue_fn([indexing_ops.boolean_mask(x, keep_input) for x in tl]) for tl in tensor_list_list]
    return [_smart_cond(keep_input, lambda tl=tl: enqueue_fn(tl), control_flow_ops.no_op) for tl in tensor_list_list]


def _smart_cond(pred: Tensor, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """`true_fn()` or `false_fn()` when `pred` is known when building, else a `tf.cond` of them."""
    value = tensor_util.constant_value(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    return control_flow_ops.cond(pred, true_fn, false_fn)


def _store_sparse_tensors(tensor_list: list, enqueue_many: bool, keep_input: Tensor,
                          shared_map_ops: list | None = None) -> tuple[list[Tensor], list]:
    """Each SparseTensor of `tensor_list` put in a SparseTensorsMap (one per component, or `shared_map_ops`'),
    the queue to carry its int64 handle (a `[1]` row, or one per row with `enqueue_many`); with each, what its
    restore needs: (the map's adding op, its rank), None for a dense tensor (TF's _store_sparse_tensors)."""
    stored, infos = [], []
    for t, shared in zip(tensor_list, shared_map_ops or [None] * len(tensor_list)):
        if not isinstance(t, SparseTensor):
            stored.append(t)
            infos.append(None)
            continue
        handles = _store_sparse(t, shared.name if shared is not None else "", enqueue_many, keep_input)
        map_op = next((i.op for i in handles.op.inputs if i.op.type in ("AddSparseToTensorsMap",
                                                                          "AddManySparseToTensorsMap")), handles.op)
        rank = tensor_shape.dimension_at_index(t.dense_shape.shape.with_rank(1), 0)
        infos.append((shared or map_op, rank - 1 if enqueue_many else rank))
        stored.append(shape_ops.expand_dims(handles, [-1]))
    return stored, infos


def _store_sparse(t: SparseTensor, map_name: str, enqueue_many: bool, keep_input: Tensor) -> Tensor:
    """`t`'s handle (or handles, one per row) in its map; -1 where `keep_input` drops it."""
    many = sparse_misc_ops.AddManySparseToTensorsMap
    if keep_input.shape.ndims == 1:
        t = sparse_ops.sparse_retain(t, indexing_ops.gather(keep_input, t.indices[:, 0]))
        return many(t.indices, t.values, t.dense_shape, shared_name=map_name)
    if enqueue_many:
        handles = _smart_cond(keep_input, lambda: many(t.indices, t.values, t.dense_shape, shared_name=map_name),
                              lambda: -1 * fill_ops.ones(t.dense_shape[0:1], dtypes.int64))
        handles.set_shape([None])
        return handles
    return _smart_cond(keep_input, lambda: sparse_misc_ops.AddSparseToTensorsMap(t.indices, t.values, t.dense_shape,
                                                                                 shared_name=map_name),
                       lambda: constant_ops.constant(-1, dtypes.int64))


def _store_sparse_tensors_join(tensor_list_list: list, enqueue_many: bool, keep_input: Tensor
                               ) -> tuple[list[list[Tensor]], list]:
    """Every list's sparse tensors stored in the maps of the first list's."""
    first, infos = _store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    stored = [first]
    for tensor_list in tensor_list_list[1:]:
        more, candidate = _store_sparse_tensors(tensor_list, enqueue_many, keep_input,
                                                [info[0] if info else None for info in infos])
        if [info is None for info in infos] != [info is None for info in candidate] or any(
                a and not a[1].is_compatible_with(b[1]) for a, b in zip(infos, candidate)):
            raise ValueError(f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. {tensor_list}")
        infos = [a and (a[0], a[1].merge_with(b[1])) for a, b in zip(infos, candidate)]
        stored.append(more)
    return stored, infos


def _restore_sparse_tensors(dequeued: Any, infos: list) -> Any:
    """The dequeued handles taken back from their maps as batched SparseTensors; when there are any among
    several outputs, every output waits for all of them (TF's _restore_sparse_tensors)."""
    single = not isinstance(dequeued, (list, tuple))
    stored = [dequeued] if single else list(dequeued)
    tensors = [s if info is None else _take_sparse(info[0], shape_ops.squeeze(s, [1]),
                                                   tensor_shape.dimension_value(info[1] + 1))
               for s, info in zip(stored, infos)]
    if single:
        return tensors[0]
    if any(isinstance(t, SparseTensor) for t in tensors):
        values = [t.values if isinstance(t, SparseTensor) else t for t in tensors]

        def with_deps(x: Tensor) -> Tensor:
            return control_flow_ops.with_dependencies(values, x)

        tensors = [SparseTensor(with_deps(t.indices), with_deps(t.values), with_deps(t.dense_shape))
                   if isinstance(t, SparseTensor) else with_deps(t) for t in tensors]
    return tensors


def _take_sparse(map_op: Operation, handles: Tensor, rank: int | None) -> SparseTensor:
    with colocate_with(map_op):
        indices, values, shape = sparse_misc_ops.TakeManySparseFromTensorsMap(
            handles, dtype=map_op.get_attr("T"), container=map_op.get_attr("container"),
            shared_name=map_op.get_attr("shared_name") or map_op.name)
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)


def _batch_queue(tensor_list_list: list, batch_size: Any, keep_input: Any, capacity: int, enqueue_many: bool,
                 shapes: Any, queue_fn: Callable[..., data_flow_ops.QueueBase], threads: int | None,
                 allow_smaller_final_batch: bool, name: str,
                 full_summary: Callable[[data_flow_ops.QueueBase], tuple[str, Tensor]]) -> Any:
    """What every batching function builds (inside its name scope): the queue, its runner's enqueue ops (one per
    list, or `threads` copies of one), the fullness summary, and the dequeue of a batch."""
    keep_input = _validate_keep_input(keep_input, enqueue_many)
    tensor_list_list, sparse_infos = _store_sparse_tensors_join(tensor_list_list, enqueue_many, keep_input)
    types = _dtypes(tensor_list_list)
    shapes = _shapes(tensor_list_list, shapes, enqueue_many)
    queue = queue_fn(types, shapes)
    enqueue_ops = _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input)
    if threads is not None:
        enqueue_ops = enqueue_ops * threads
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))
    summary_ops.scalar(*full_summary(queue))
    if allow_smaller_final_batch:
        dequeued = queue.dequeue_up_to(batch_size, name=name)
    else:
        dequeued = queue.dequeue_many(batch_size, name=name)
    return _restore_sparse_tensors(dequeued, sparse_infos)


def _fifo(capacity: int, dynamic_pad: bool, shared_name: str | None) -> Callable[..., data_flow_ops.QueueBase]:
    queue_class = data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue
    return lambda types, shapes: queue_class(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)


def _fifo_full(capacity: int) -> Callable[[data_flow_ops.QueueBase], tuple[str, Tensor]]:
    return lambda queue: (f"fraction_of_{capacity}_full",
                          cast_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))


def _shuffle(capacity: int, min_after_dequeue: int, seed: int | None,
             shared_name: str | None) -> Callable[..., data_flow_ops.QueueBase]:
    return lambda types, shapes: data_flow_ops.RandomShuffleQueue(
        capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types, shapes=shapes,
        shared_name=shared_name)


def _shuffle_full(capacity: int, min_after_dequeue: int) -> Callable[[data_flow_ops.QueueBase], tuple[str, Tensor]]:
    return lambda queue: (
        f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full",
        cast_ops.cast(elementwise_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32)
        * (1.0 / (capacity - min_after_dequeue)))


def _batch(tensors: Any, batch_size: Any, keep_input: Any, num_threads: int = 1, capacity: int = 32,
           enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
           allow_smaller_final_batch: bool = False, shared_name: str | None = None, name: str | None = None) -> Any:
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + [keep_input]) as name:
        dequeued = _batch_queue([_validate(tensor_list)], batch_size, keep_input, capacity, enqueue_many, shapes,
                                _fifo(capacity, dynamic_pad, shared_name), num_threads, allow_smaller_final_batch,
                                name, _fifo_full(capacity))
        return _as_original_type(tensors, dequeued)


def _batch_join(tensors_list: Any, batch_size: Any, keep_input: Any, capacity: int = 32, enqueue_many: bool = False,
                shapes: Any = None, dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
                shared_name: str | None = None, name: str | None = None) -> Any:
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "batch_join", [t for tl in tensor_list_list for t in tl] + [keep_input]) as name:
        dequeued = _batch_queue([_validate(tl, "batch_join()") for tl in tensor_list_list], batch_size, keep_input,
                                capacity, enqueue_many, shapes, _fifo(capacity, dynamic_pad, shared_name), None,
                                allow_smaller_final_batch, name, _fifo_full(capacity))
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int, keep_input: Any,
                   num_threads: int = 1, seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                   allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                   name: str | None = None) -> Any:
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list) + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        dequeued = _batch_queue([_validate(tensor_list)], batch_size, keep_input, capacity, enqueue_many, shapes,
                                _shuffle(capacity, min_after_dequeue, seed, shared_name), num_threads,
                                allow_smaller_final_batch, name, _shuffle_full(capacity, min_after_dequeue))
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(tensors_list: Any, batch_size: Any, capacity: int, min_after_dequeue: int, keep_input: Any,
                        seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                        allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                        name: str | None = None) -> Any:
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "shuffle_batch_join", [t for tl in tensor_list_list for t in tl] + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        dequeued = _batch_queue([_validate(tl, "batch_join()") for tl in tensor_list_list], batch_size, keep_input,
                                capacity, enqueue_many, shapes, _shuffle(capacity, min_after_dequeue, seed,
                                                                         shared_name),
                                None, allow_smaller_final_batch, name, _shuffle_full(capacity, min_after_dequeue))
        return _as_original_type(tensors_list[0], dequeued)


@tf_export("train.batch")
def batch(tensors: Any, batch_size: Any, num_threads: int = 1, capacity: int = 32, enqueue_many: bool = False,
          shapes: Any = None, dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
          shared_name: str | None = None, name: str | None = None) -> Any:
    """Batches of `batch_size` of `tensors`, through a FIFO queue that `num_threads` enqueue threads fill."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_batch")
def maybe_batch(tensors: Any, keep_input: Any, batch_size: Any, num_threads: int = 1, capacity: int = 32,
                enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
                allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                name: str | None = None) -> Any:
    """`batch` of only the elements `keep_input` keeps."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


@tf_export("train.batch_join")
def batch_join(tensors_list: Any, batch_size: Any, capacity: int = 32, enqueue_many: bool = False,
               shapes: Any = None, dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
               shared_name: str | None = None, name: str | None = None) -> Any:
    """Batches drawn from several lists of tensors, one enqueue thread per list."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_batch_join")
def maybe_batch_join(tensors_list: Any, keep_input: Any, batch_size: Any, capacity: int = 32,
                     enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
                     allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                     name: str | None = None) -> Any:
    """`batch_join` of only the elements `keep_input` keeps."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


@tf_export("train.shuffle_batch")
def shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int, num_threads: int = 1,
                  seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                  allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                  name: str | None = None) -> Any:
    """Batches of `tensors` in random order, mixed in a queue that keeps `min_after_dequeue` elements."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True, num_threads, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_shuffle_batch")
def maybe_shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int, keep_input: Any,
                        num_threads: int = 1, seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                        allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                        name: str | None = None) -> Any:
    """`shuffle_batch` of only the elements `keep_input` keeps."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)


@tf_export("train.shuffle_batch_join")
def shuffle_batch_join(tensors_list: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                       seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                       allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                       name: str | None = None) -> Any:
    """Shuffled batches drawn from several lists of tensors, one enqueue thread per list."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, True, seed, enqueue_many,
                               shapes, allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_shuffle_batch_join")
def maybe_shuffle_batch_join(tensors_list: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                             keep_input: Any, seed: int | None = None, enqueue_many: bool = False,
                             shapes: Any = None, allow_smaller_final_batch: bool = False,
                             shared_name: str | None = None, name: str | None = None) -> Any:
    """`shuffle_batch_join` of only the elements `keep_input` keeps."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed,
                               enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)
