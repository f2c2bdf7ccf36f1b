"""The transformations of tf.data datasets (map, filter, batch, shuffle, repeat, interleave, window, ...), each a
DatasetV1 whose `_iterate` turns its inputs' element generators into its own, and the sampling helpers that
build on them. Shuffling draws TF's Philox stream and keeps TF's buffer, so a seeded shuffle gives TF's exact
order; a file cache is TF's tensor bundle. It installs DatasetV1's `transformation` hook.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from tensorweave import errors
from tensorweave.data import sources, structure
from tensorweave.data.dataset_ops import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    DatasetSpec,
    DatasetV1,
    Element,
    WindowValue,
    _int64,
    _Run,
    _v1,
    transformation,
)
from tensorweave.data.elements import (
    _batch_count,
    _batched_sparse,
    _batcher,
    _batches,
    _checked,
    _layout,
    _pad,
    _rows,
    _stacked,
    _static_rows,
    _unbatched,
)
from tensorweave.data.function import StructuredFunction, normalize_element
from tensorweave.data.options import Options
from tensorweave.data.sources import (
    DatasetSource,
)
from tensorweave.formats import bundle
from tensorweave.framework import dtypes, nest, random_seed, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tensorweave.framework.type_spec import (
    SparseTensorSpec,
    TensorSpec,
    TypeSpec,
)
from tensorweave.ops import (
    cast_ops,
    check_ops,
    constant_ops,
    control_flow_ops,
    dataset_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    logging_ops,
    manipulation_ops,
    random_ops,
    reduction_ops,
    shape_ops,
)
from tensorweave.ops.ragged_tensor import RaggedTensor, RaggedTensorSpec
from tensorweave.ops.random_ops import SingleSampleStream
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_map_pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="tensorweave-data-map")


class _OptionsDataset(DatasetV1):
    _op = dataset_ops.OptionsDataset
    _colocated = True

    def __init__(self, source: DatasetV1, options: Options) -> None:
        self._options = options
        super().__init__((source,), [], source.element_spec)

    def _merged_options(self) -> Options:
        return super()._merged_options().merge(self._options)

    def _node_attrs(self) -> dict[str, Any]:
        return {"serialized_options": self._options._to_proto().SerializeToString()}

    def _iterator_name(self, run: _Run) -> str | None:
        return None  # TF applies the options to the pipeline, which has no iterator for them

    _same_cardinality = True

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._inputs[0]._iterate(run)


def _holds_a_list(structure: Any) -> bool:
    if isinstance(structure, list):
        return True
    if isinstance(structure, dict):
        return any(_holds_a_list(v) for v in structure.values())
    return isinstance(structure, tuple) and any(_holds_a_list(v) for v in structure)


class _RewriteDataset(DatasetV1):
    """TF's RewriteDataset (the `replicate_on_split` rewrite of a range enumerate zips, a choice dataset): its
    input's elements, here where there is no tf.data service to split them."""

    _op = dataset_ops.RewriteDataset
    _same_cardinality = True

    def __init__(self, source: DatasetV1, rewrite: str) -> None:
        self._rewrite = rewrite
        super().__init__((source,), [], source.element_spec)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], self._rewrite]  # converted in the node's scope, as TF's: `RewriteDataset/rewrite_name`

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._inputs[0]._iterate(run)


class _ZipDataset(DatasetV1):
    _op = dataset_ops.ZipDataset

    def _input_suffix(self, index: int, run: _Run) -> str:
        return f"[{index}]"

    def __init__(self, datasets: Any) -> None:
        if _holds_a_list(datasets):  # tf.data's structures take a list for one value, never a dataset
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` "
                            "instead.")
        for d in nest.flatten(datasets):
            if not isinstance(d, DatasetV1):
                raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects but encountered object of type {type(d)}.")
        self._structure = datasets
        flat = tuple(nest.flatten(datasets))
        super().__init__(flat, [], nest.map_structure(lambda d: d.element_spec, datasets))

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants]

    def _cardinality(self, run: _Run) -> int:
        counts = [d._cardinality(run) for d in self._inputs]
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        finite = [n for n in counts if n != INFINITE_CARDINALITY]
        return min(finite) if finite else INFINITE_CARDINALITY

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        """By position, as TF's: a position where any input's element failed is one error (the others'
        elements there are dropped)."""
        for parts in zip(*(_with_failures(d, run) for d in self._inputs)):
            failed = next((part for part in parts if isinstance(part, _Failed)), None)
            if failed is not None:
                run.failed(failed.error)
            else:
                yield [v for part in parts for v in part]


class _ConcatenateDataset(DatasetV1):
    _op = dataset_ops.ConcatenateDataset

    def _input_suffix(self, index: int, run: _Run) -> str:
        return f"[{index}]"

    def __init__(self, first: DatasetV1, second: DatasetV1) -> None:
        try:
            spec = nest.map_structure(_common_supertype, first.element_spec, second.element_spec)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs.   "
                            f"{second.element_spec}") from e
        super().__init__((first, second), [], spec)

    def _cardinality(self, run: _Run) -> int:
        counts = [d._cardinality(run) for d in self._inputs]
        for special in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            if special in counts:
                return special
        return sum(counts)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        yield from self._inputs[0]._iterate(run)
        yield from self._inputs[1]._iterate(run)


def _common_supertype(first: TypeSpec, second: TypeSpec) -> TypeSpec:
    """The spec of the elements of two concatenated datasets: shapes merged, all else equal."""
    spec = first.most_specific_common_supertype([second])
    if spec is None:
        raise TypeError(f"No common supertype of {first} and {second}.")
    return spec


class _MapDataset(DatasetV1):
    _preserve_cardinality = True  # False for TF1's map_with_legacy_function

    def __init__(self, source: DatasetV1, map_func: Callable, num_parallel_calls: int | None,
                 legacy: bool = False) -> None:
        self._preserve_cardinality = not legacy
        self._function = StructuredFunction(map_func, source.element_spec, transformation="Dataset.map")
        self._parallel = (os.cpu_count() or 1) if num_parallel_calls == AUTOTUNE else (num_parallel_calls or 1)
        extra = []
        if num_parallel_calls is not None:
            self._op = dataset_ops.ParallelMapDatasetV2
            extra = [_int64(num_parallel_calls, "num_parallel_calls")]
        super().__init__((source,), self._function.captures + extra, self._function.output_spec)

    _op = dataset_ops.MapDataset

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        count = len(self._function.captures)
        return [variants[0], self._captures[:count], *self._captures[count:]]

    def _node_attrs(self) -> dict[str, Any]:
        return {"f": self._function.name, "preserve_cardinality": self._preserve_cardinality}

    def _bound_function(self, run: _Run) -> Callable:
        return self._function.bound(run.captured(self)[:len(self._function.captures)])

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        """The mapped elements; an element whose function fails goes to `run.failed` (raised, unless below an
        ignore_errors). In parallel, the pool maps runs of elements (one task each: a task per element would
        cost more in thread handoffs than the graph function itself), in order."""
        function, source = self._bound_function(run), self._inputs[0]._iterate(run)
        if self._parallel <= 1:
            outcomes: PyIterator[Any] = (_outcome(function, element) for element in source)
        else:
            outcomes = self._in_order(function, source)
        for outcome in outcomes:
            if isinstance(outcome, errors.OpError):
                run.failed(run.in_function(self, outcome))
            else:
                yield outcome

    def _in_order(self, function: Callable, source: PyIterator[Element]) -> PyIterator[Any]:
        chunks = iter(lambda: list(itertools.islice(source, _MAP_CHUNK)), [])
        for outcomes in _pooled(function, chunks, self._parallel):
            yield from outcomes


# Elements a parallel map's pool task maps one after another
_MAP_CHUNK = 8


def _outcome(function: Callable, element: Element) -> Element | errors.OpError:
    """A map function's result for one element, or its error."""
    try:
        return function(element)
    except errors.OpError as e:
        return e


def _outcomes(function: Callable, elements: list[Element]) -> list[Element | errors.OpError]:
    return [_outcome(function, element) for element in elements]


def _pooled(function: Callable, chunks: PyIterator[list[Element]], in_flight: int) -> PyIterator[list]:
    """The outcomes of each chunk, mapped on the pool with up to `in_flight` chunks at once, in order."""
    futures: deque = deque()
    for chunk in chunks:
        futures.append(_map_pool.submit(_outcomes, function, chunk))
        if len(futures) >= in_flight:
            yield futures.popleft().result()
    while futures:
        yield futures.popleft().result()


class _IgnoreErrorsDataset(DatasetV1):
    """The elements of its input whose production did not fail anywhere below it (a map function, a corrupt
    record, a batch of mismatched shapes): each failing stage reports to this one's run and goes on."""

    def __init__(self, source: DatasetV1, log_warning: bool) -> None:
        self._log_warning = log_warning
        super().__init__((source,), [], source.element_spec)

    _op = dataset_ops.IgnoreErrorsDataset

    def _node_attrs(self) -> dict[str, Any]:
        return {"log_warning": self._log_warning}

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        below = run.ignoring()
        failures = below.failures
        source = self._inputs[0]._iterate(below)
        while True:
            try:
                element = next(source, None)
            except errors.OpError as e:  # from a stage that cannot go on: its input ends here
                if isinstance(e, errors.OutOfRangeError):
                    raise
                failures.append(e)
                element = None
            while failures:
                error = failures.popleft()
                if self._log_warning:
                    tf_logging.warning("Error raised with error message %s", error.message)
            if element is None:
                return
            yield element


class _FilterDataset(DatasetV1):
    _transformation = "Dataset.filter"
    _not_a_predicate = "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is "

    def __init__(self, source: DatasetV1, predicate: Callable) -> None:
        self._function = StructuredFunction(predicate, source.element_spec, transformation=self._transformation)
        if not TensorSpec([], dtypes.bool).is_compatible_with(self._function.output_spec):
            raise ValueError(f"{self._not_a_predicate}{self._function.output_spec}.")
        super().__init__((source,), self._function.captures, source.element_spec)

    _op = dataset_ops.FilterDataset

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], self._captures]

    def _node_attrs(self) -> dict[str, Any]:
        return {"predicate": self._function.name}

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        function = self._function.bound(run.captured(self))
        for element in self._inputs[0]._iterate(run):
            kept = _outcome(function, element)
            if isinstance(kept, errors.OpError):
                run.failed(run.in_function(self, kept))
            elif kept[0]:
                yield element


class _TakeWhileDataset(_FilterDataset):
    _op = dataset_ops.TakeWhileDataset
    _transformation = "Dataset.take_while"
    _not_a_predicate = "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its return type is"

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        function = self._function.bound(run.captured(self))
        for element in self._inputs[0]._iterate(run):
            kept = _outcome(function, element)
            if isinstance(kept, errors.OpError):
                run.failed(kept)
                continue
            if not kept[0]:
                return
            yield element


class _ScanDataset(DatasetV1):
    """Dataset.scan's outputs, or (`final_state`) one element, the state after the last input (reduce's)."""

    def __init__(self, source: DatasetV1, initial_state: Any, scan_func: Callable, final_state: bool = False) -> None:
        with name_scope("initial_state") if final_state else contextlib.nullcontext():  # reduce's, as TF's
            state = normalize_element(initial_state)
        self._state_spec = structure.spec_of(state)
        self._final_state = final_state
        self._function = StructuredFunction(scan_func, (self._state_spec, source.element_spec),
                                            transformation="Dataset.reduce" if final_state else "Dataset.scan")
        self._op = dataset_ops.ReduceDataset if final_state else dataset_ops.ScanDataset
        output = self._function.output_spec
        if not isinstance(output, tuple) or len(output) != 2:
            raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the "
                            f"output value but its return type is {output}.")
        if nest.flatten(structure.legacy_types(output[0])) != nest.flatten(structure.legacy_types(self._state_spec)):
            raise TypeError(f"Invalid `scan_func`. The element types for the new state must match the initial "
                            f"state. Expected {structure.legacy_types(self._state_spec)}, got "
                            f"{structure.legacy_types(output[0])}.")
        self._state_size = len(structure.component_specs(self._state_spec))
        self._state = structure.to_graph_tensors(state, self._state_spec)  # a sparse state serialized, as TF's
        super().__init__((source,), self._state + self._function.captures,
                         self._state_spec if final_state else output[1])

    def _cardinality(self, run: _Run) -> int:
        return 1 if self._final_state else self._inputs[0]._cardinality(run)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], self._state, self._function.captures]

    def _node_attrs(self) -> dict[str, Any]:
        return {"f": self._function.name} if self._final_state else {"f": self._function.name,
                                                                      "preserve_cardinality": True}

    def _node(self, name: str | None = None) -> Any:
        return None if self._final_state else super()._node(name)  # reduce's ReduceDataset node is `reduced`'s

    def reduced(self, name: str | None) -> list[Tensor]:
        """The final state's tensors, of reduce's ReduceDataset node (no dataset: TF's op reduces its input)."""
        return super()._node(name)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        values, count = run.captured(self), len(self._state)
        state = structure.from_graph_values(self._state_spec, list(values[:count]))
        function = self._function.bound(values[count:])
        for element in self._inputs[0]._iterate(run):
            outcome = _outcome(function, state + list(element))
            if isinstance(outcome, errors.OpError):
                run.failed(outcome)
                continue
            state = outcome[:self._state_size]
            if not self._final_state:
                yield outcome[self._state_size:]
        if self._final_state:
            yield state


class _InterleaveDataset(DatasetV1):
    """flat_map (a cycle of one) and interleave: TF's InterleaveDataset order."""

    def __init__(self, source: DatasetV1, map_func: Callable, cycle_length: Any = 1, block_length: Any = 1,
                 num_parallel_calls: Any = None, transformation: str = "Dataset.flat_map",
                 buffering: tuple[Any, Any] = (None, None)) -> None:
        """flat_map's (the `transformation`), or with the `cycle_length` and `block_length` given (None: TF's
        defaults), interleave's, parallel with `num_parallel_calls`; or tf.data.experimental.parallel_interleave's
        (its `buffering`: buffer_output_elements and prefetch_input_elements, None for TF's defaults)."""
        self._function = StructuredFunction(map_func, source.element_spec, dataset_result=True,
                                            transformation=transformation)
        extra = []
        self._deterministic = "default"
        if transformation == "tf.data.experimental.parallel_interleave":  # its legacy op; sloppy is ignored
            extra = [_int64(cycle_length, "cycle_length"), _int64(block_length, "block_length"),
                     _int64(2 * block_length if buffering[0] is None else buffering[0], "buffer_output_elements"),
                     _int64(2 * cycle_length if buffering[1] is None else buffering[1], "prefetch_input_elements")]
            self._op, self._deterministic = dataset_ops.LegacyParallelInterleaveDatasetV2, "true"
        elif transformation == "Dataset.interleave":
            cycle_length = AUTOTUNE if cycle_length is None else cycle_length
            block_length = 1 if block_length is None else block_length
            extra = [_int64(cycle_length, "cycle_length"), _int64(block_length, "block_length")]
            self._op = dataset_ops.InterleaveDataset
            if num_parallel_calls is not None:
                extra += [_int64(AUTOTUNE, "buffer_output_elements"), _int64(AUTOTUNE, "prefetch_input_elements"),
                          _int64(num_parallel_calls, "num_parallel_calls")]
                self._op = dataset_ops.ParallelInterleaveDatasetV4
        self._cycle_length = (os.cpu_count() or 1) if cycle_length == AUTOTUNE else cycle_length
        self._block_length = block_length
        inner = self._function.dataset
        super().__init__((source,), self._function.captures + extra, inner.element_spec)

    _op = dataset_ops.FlatMapDataset

    def _validate(self, captured: list[Any]) -> None:
        for value, what in ((self._cycle_length, "cycle_length"), (self._block_length, "block_length")):
            if int(value) <= 0:
                raise errors.InvalidArgumentError(None, None, f"{what} must be greater than zero.")

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        count = len(self._function.captures)
        return [variants[0], self._captures[:count], *self._captures[count:]]

    def _node_attrs(self) -> dict[str, Any]:
        if self._op is dataset_ops.FlatMapDataset or self._op is dataset_ops.InterleaveDataset:
            return {"f": self._function.name}
        return {"f": self._function.name, "deterministic": self._deterministic}

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        function = self._function.bound(run.captured(self)[:len(self._function.captures)])
        inner = self._function.dataset
        source = self._inputs[0]._iterate(run)
        slots: list[PyIterator[Element] | None] = [None] * self._cycle_length
        index, open_count, input_done = 0, 0, False
        flat = self._op is dataset_ops.FlatMapDataset  # TF's inner iterators: [element] for a flat_map, [slot] else
        made_count = itertools.count()
        while not input_done or open_count:
            if slots[index] is None and not input_done:
                element = next(source, None)
                if element is None:
                    input_done = True
                else:
                    made = _outcome(function, element)
                    if isinstance(made, errors.OpError):  # as TF's: the slot takes the next input element
                        run.failed(run.in_function(self, made))
                        continue
                    prefix = f"{run.iterator_prefix(self)}[{next(made_count) if flat else index}]"
                    slots[index] = inner._bind(made).iterate_in(run, prefix)
                    open_count += 1
            current = slots[index]
            if current is not None:
                taken = 0
                for value in current:
                    yield value
                    taken += 1
                    if taken == self._block_length:
                        break
                else:  # it ended within its block: the slot takes the next input element on the next round
                    slots[index] = None
                    open_count -= 1
            index = (index + 1) % self._cycle_length


class _WindowDataset(DatasetV1):
    """The window a group_by_window reduce function gets: the elements its run's state holds for it."""

    def __init__(self, element_spec: Any) -> None:
        super().__init__((), [], element_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return iter(run.state[id(self)])


class _GroupByWindowDataset(DatasetV1):
    """TF's GroupByWindowDataset order: a window is reduced once full; when the input ends, the windows left
    are reduced in the order of their keys."""

    def __init__(self, source: DatasetV1, key_func: Callable, reduce_func: Callable,
                 window_size_func: Callable) -> None:
        scalar = TensorSpec([], dtypes.int64)
        self._key = StructuredFunction(lambda *args: _int64(key_func(*args), "key"), source.element_spec)
        if not self._key.output_spec.is_compatible_with(scalar):
            raise ValueError("Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its "
                             f"return type is {self._key.output_spec}.")
        self._window_size = StructuredFunction(lambda key: _int64(window_size_func(key), "window_size"), scalar)
        if not self._window_size.output_spec.is_compatible_with(scalar):
            raise ValueError("Invalid `window_size_func`. `window_size_func` must return a single `tf.int64` scalar "
                             f"tensor but its return type is {self._window_size.output_spec}.")

        def reduce(key: Tensor) -> DatasetV1:
            self._window = _WindowDataset(source.element_spec)  # the function's argument, as TF's window variant
            return reduce_func(key, self._window)

        self._reduce = StructuredFunction(reduce, scalar, dataset_result=True)
        self._op = dataset_ops.GroupByWindowDataset
        super().__init__((source,), self._key.captures + self._reduce.captures + self._window_size.captures,
                         self._reduce.dataset.element_spec)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], self._key.captures, self._reduce.captures, self._window_size.captures]

    def _node_attrs(self) -> dict[str, Any]:
        return {"key_func": self._key.name, "reduce_func": self._reduce.name,
                "window_size_func": self._window_size.name}

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        groups: dict[int, list[Element]] = {}
        sizes: dict[int, int] = {}
        values = iter(run.captured(self))
        key_of, reduce, size_of = (f.bound(itertools.islice(values, len(f.captures)))
                                   for f in (self._key, self._reduce, self._window_size))
        for element in self._inputs[0]._iterate(run):
            key = key_of(element)[0]
            index = int(key)
            if index not in sizes:
                size = int(size_of([key])[0])
                if size <= 0:
                    raise errors.InvalidArgumentError(None, None,
                                                      f"Window size must be greater than zero, but got {size}.")
                sizes[index] = size
            group = groups.setdefault(index, [])
            group.append(element)
            if len(group) == sizes[index]:
                yield from self._reduced(run, reduce, index, groups.pop(index))
        for index in sorted(groups):
            yield from self._reduced(run, reduce, index, groups[index])

    def _reduced(self, run: _Run, reduce: Callable, key: int, window: list[Element]) -> PyIterator[Element]:
        inner = self._reduce.dataset
        bound = inner._bind(reduce([np.int64(key)]))
        nested = run.nested(bound)
        nested.state[id(self._window)] = window
        return inner._iterate(nested)


class _SlidingWindowDataset(DatasetV1):
    """Dataset.window: TF's WindowDataset."""

    _tf_class_name = "_WindowDataset"
    _op = dataset_ops.WindowDataset

    def __init__(self, source: DatasetV1, size: Any, shift: Any, stride: Any, drop_remainder: Any) -> None:
        counts = [len(nest.flatten(leaf._component_specs)) for leaf in nest.flatten(source.element_spec)]
        # a window dataset per value, a None's too (of elements of no component)
        self._layout = [(sum(counts[:i]), count) for i, count in enumerate(counts)]
        super().__init__((source,), [_int64(size, "size"), _int64(size if shift is None else shift, "shift"),
                                     _int64(stride, "stride"),
                                     convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")],
                         nest.map_structure(DatasetSpec, source.element_spec))

    def _validate(self, captured: list[Any]) -> None:
        for value, what in zip(captured, ("size", "shift", "stride")):
            if int(value) <= 0:
                raise errors.InvalidArgumentError(None, None, f"Window {what} must be greater than zero.")

    def _parameters(self, run: _Run) -> tuple[int, int, int, bool]:
        size, shift, stride, drop = (run.scalar(self, i) for i in range(4))
        return size, shift, stride, bool(drop)

    def _cardinality(self, run: _Run) -> int:
        count = self._inputs[0]._cardinality(run)
        size, shift, stride, drop = self._parameters(run)
        if count < 0:
            return count
        if drop:
            rest = count - ((size - 1) * stride + 1)
            return 0 if rest < 0 else rest // shift + 1
        return -(-count // shift)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        """TF's buffer of the input's elements and failures: a window fails with the first failure among
        the elements it picks; failures it skips by its stride or discards by its shift are dropped."""
        size, shift, stride, drop = self._parameters(run)
        source = _with_failures(self._inputs[0], run)
        target, buffer, exhausted = (size - 1) * stride + 1, [], False
        while True:
            while not exhausted and len(buffer) < target:
                item = next(source, _END)
                exhausted = item is _END
                if not exhausted:
                    buffer.append(item)
            if not buffer or (drop and len(buffer) < target):
                return
            window = buffer[::stride]
            failure = next((item for item in window if isinstance(item, _Failed)), None)
            for _ in range(shift - len(buffer)):
                if exhausted or next(source, _END) is _END:
                    exhausted = True
                    break
            del buffer[:shift]
            if failure is not None:
                run.failed(failure.error)
            else:
                yield [WindowValue([element[at:at + count] for element in window]) for at, count in self._layout]


class _UniqueDataset(DatasetV1):
    _op = dataset_ops.UniqueDataset

    def __init__(self, source: DatasetV1) -> None:
        for dtype in nest.flatten(structure.legacy_types(source.element_spec)):
            if dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
                raise TypeError(f"`tf.data.Dataset.unique` does not support type {dtype} -- only `tf.int32`, "
                                "`tf.int64`, and `tf.string` are supported.")
        super().__init__((source,), [], source.element_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        if len(self._components) != 1:
            raise errors.InvalidArgumentError(None, None,
                                              "UniqueDataset only supports inputs with a single component.")
        seen = set()
        for element in self._inputs[0]._iterate(run):
            value = np.asarray(element[0])
            key = (value.shape, value.tobytes() if value.dtype != object else tuple(value.ravel()))
            if key not in seen:
                seen.add(key)
                yield element


def _choose_from_datasets(datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool) -> DatasetV1:
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, DatasetV1):
        raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is "
                        f"{type(choice_dataset)}.")
    if not TensorSpec([], dtypes.int64).is_compatible_with(choice_dataset.element_spec):
        raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors "
                        f"but are {choice_dataset.element_spec}.")
    return _DirectedInterleaveDataset(_RewriteDataset(choice_dataset, "replicate_on_split"), list(datasets),
                                      stop_on_empty_dataset)


class _DirectedInterleaveDataset(DatasetV1):
    """An element of the input the selector's next element names; an ended input is skipped (or, with
    `stop_on_empty_dataset`, ends this one)."""

    def __init__(self, selector: DatasetV1, inputs: list[DatasetV1], stop_on_empty_dataset: bool) -> None:
        spec = inputs[0].element_spec
        for i, other in enumerate(inputs[1:]):
            try:
                spec = nest.map_structure(_common_supertype, spec, other.element_spec)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 "
                                f"element_spec={inputs[0].element_spec}.\nDataset {i + 1} "
                                f"element_spec={other.element_spec}.") from e
        self._stop = stop_on_empty_dataset
        super().__init__((selector, *inputs), [], spec)

    _op = dataset_ops.DirectedInterleaveDataset

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], variants[1:]]

    def _node_attrs(self) -> dict[str, Any]:
        return {"stop_on_empty_dataset": self._stop}

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        sources: list[PyIterator[Element] | None] = [d._iterate(run) for d in self._inputs[1:]]
        active = len(sources)
        for choice in self._inputs[0]._iterate(run):
            index = int(choice[0])
            if not 0 <= index < len(sources):
                raise errors.InvalidArgumentError(None, None,
                                                  f"Selector index out of range: {index} >= {len(sources)}")
            source = sources[index]
            if source is None:
                continue
            element = next(source, None)
            if element is not None:
                yield element
                continue
            if self._stop:
                return
            sources[index] = None
            active -= 1
            if not active:
                return


class _BatchDataset(DatasetV1):
    _op = dataset_ops.BatchDatasetV2

    def __init__(self, source: DatasetV1, batch_size: Any, drop_remainder: Any) -> None:
        size = _int64(batch_size, "batch_size")
        drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        rows = _static_rows(size, drop)
        self._assemble = _stacked if structure.is_dense(source.element_spec) else _batcher(source.element_spec)
        super().__init__((source,), [size, drop], nest.map_structure(lambda s: s._batch(rows), source.element_spec))

    def _cardinality(self, run: _Run) -> int:
        return _batch_count(self._inputs[0]._cardinality(run), run.scalar(self, 0), run.scalar(self, 1))

    def _validate(self, captured: list[Any]) -> None:
        _check_batch_size(captured[0])

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        size, drop = run.scalar(self, 0), run.scalar(self, 1)
        if isinstance(self._inputs[0], _MapDataset) and run.fuse_map_and_batch:
            yield from self._mapped_batches(run, self._inputs[0], size, drop)
            return
        yield from _batches(run, self._inputs[0]._iterate(run), size, drop, self._assemble)

    def _mapped_batches(self, run: _Run, mapped: _MapDataset, size: int, drop: bool) -> PyIterator[Element]:
        return _mapped_batches(run, mapped, mapped._inputs[0], size, drop, self._assemble)


def _mapped_batches(run: _Run, mapped: _MapDataset, source: DatasetV1, size: int, drop: bool,
                    assemble: Callable) -> PyIterator[Element]:
    """map then batch as TF's map_and_batch_fusion (and MapAndBatchDataset) runs them: `mapped`'s function over
    windows of `size` elements of `source` (a parallel map's pool maps a whole window per task); a window with a
    failing element fails."""
    function, inputs = mapped._bound_function(run), source._iterate(run)
    windows = iter(lambda: list(itertools.islice(inputs, size)), [])
    if mapped._parallel <= 1:
        outcomes: PyIterator[list] = (_outcomes(function, window) for window in windows)
    else:
        outcomes = _pooled(function, windows, 2)
    for window in outcomes:
        failure = next((o for o in window if isinstance(o, errors.OpError)), None)
        if failure is not None:
            run.failed(failure)
        elif not (drop and len(window) < size):
            yield from _checked(run, window, assemble)


class _MapAndBatchDataset(_MapDataset):
    """tf.data.experimental.map_and_batch: TF's one MapAndBatchDataset node (the function's captures, then the
    batch size, the parallel calls and drop_remainder)."""

    _op = dataset_ops.MapAndBatchDataset

    def __init__(self, source: DatasetV1, map_func: Callable, batch_size: Any, num_parallel_calls: Any,
                 drop_remainder: Any) -> None:
        self._function = StructuredFunction(map_func, source.element_spec,
                                            transformation="tf.data.experimental.map_and_batch()")
        size = _int64(batch_size, "batch_size")
        parallel = _int64(num_parallel_calls, "num_parallel_calls")
        drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        parallel_value = tensor_util.constant_value(parallel)
        self._parallel = (os.cpu_count() or 1) if parallel_value is None or parallel_value == AUTOTUNE \
            else max(int(parallel_value), 1)
        output = self._function.output_spec
        self._assemble = _stacked if structure.is_dense(output) else _batcher(output)
        rows = _static_rows(size, drop)
        DatasetV1.__init__(self, (source,), self._function.captures + [size, parallel, drop],
                           nest.map_structure(lambda s: s._batch(rows), output))

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        count = len(self._function.captures)
        return [variants[0], self._captures[:count], *self._captures[count:]]

    def _validate(self, captured: list[Any]) -> None:
        _check_batch_size(captured[len(self._function.captures)])

    def _cardinality(self, run: _Run) -> int:
        count = len(self._function.captures)
        return _batch_count(self._inputs[0]._cardinality(run), run.scalar(self, count), run.scalar(self, count + 2))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        count = len(self._function.captures)
        yield from _mapped_batches(run, self, self._inputs[0], run.scalar(self, count), run.scalar(self, count + 2),
                                   self._assemble)


def _padding_value(value: Any, dtype: dtypes.DType) -> Tensor:
    """A given padding value as TF's: converted as it is, then checked to be a scalar of the component's dtype."""
    value = convert_to_tensor(value, name="padding_value")
    if not value.shape.is_compatible_with(tensor_shape.TensorShape([])):
        raise ValueError(f"Invalid `padding_values`. `padding_values` values should be scalars, but got "
                         f"{value.shape}.")
    if value.dtype != dtype:
        raise TypeError(f"Invalid `padding_values`. `padding_values` values type {value.dtype!s} does not match "
                        f"type {dtype!s} of the corresponding input component.")
    return value


def _check_batch_size(size: Any) -> None:
    if int(size) <= 0:
        raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")


class _PaddedBatchDataset(DatasetV1):
    """TF's PaddedBatchDatasetV2: its captures are TF's inputs, the batch size, a shape vector per component
    (-1: the batch's largest), a padding value per component and drop_remainder."""

    _op = dataset_ops.PaddedBatchDatasetV2

    def __init__(self, source: DatasetV1, batch_size: Any, padded_shapes: Any, padding_values: Any,
                 drop_remainder: Any) -> None:
        for spec in nest.flatten(source.element_spec):
            if isinstance(spec, DatasetSpec):
                raise TypeError("`padded_batch` is not supported for datasets of datasets")
            if not isinstance(spec, TensorSpec):
                raise TypeError("`padded_batch` is only supported for datasets that produce tensor elements but type "
                                "spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{spec}`.")
        if padded_shapes is None:
            padded_shapes = structure.legacy_shapes(source.element_spec)
        given: dict[int, Tensor] = {}  # the shapes given as tensors, by the id of the static shape read from each

        def read(shape: Any) -> tensor_shape.TensorShape:
            try:
                return tensor_shape.as_shape(shape)
            except (TypeError, ValueError):
                value = _int64(shape, "padded_shape")
                static = tensor_util.constant_value_as_shape(value)
                given[id(static)] = value
                return static

        shapes = structure.shapes_like(structure.legacy_types(source.element_spec), padded_shapes, read)
        flat_shapes = nest.flatten(shapes)
        dynamic = [given.get(id(shape)) for shape in flat_shapes]
        self._dynamic = [i for i, tensor in enumerate(dynamic) if tensor is not None]
        flat_types = source._flat_types()
        size = _int64(batch_size, "batch_size")
        shape_tensors = [tensor if tensor is not None else
                         _int64([-1 if d is None else d for d in shape.as_list()] if shape.rank is not None else [],
                                "Const") for shape, tensor in zip(flat_shapes, dynamic)]
        if padding_values is None:
            pads = [convert_to_tensor(b"" if t == dtypes.string else 0, dtype=t, name="padding_value")
                    for t in flat_types]
        else:  # one value (tf.data's nest: a list is one) for every component, as TF broadcasts it
            one = not isinstance(padding_values, (tuple, dict))
            flat_pads = [padding_values] * len(flat_types) if one else nest.flatten(padding_values)
            pads = [_padding_value(p, t) for p, t in zip(flat_pads, flat_types)]
        drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        self._padded = flat_shapes
        for declared, element in zip(flat_shapes, source._flat_shapes()):
            if declared.ndims is not None and element.ndims is not None and declared.ndims != element.ndims:
                raise ValueError(f"The padded shape {declared} is not compatible with the shape {element} of the "
                                 "corresponding input component.")
        rows = _static_rows(size, drop)
        super().__init__((source,), [size, *shape_tensors, *pads, drop],
                         structure.element_spec(structure.legacy_types(source.element_spec), nest.map_structure(
                             lambda s: tensor_shape.TensorShape([rows]).concatenate(s), shapes)))

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        count = len(self._padded)
        return [variants[0], self._captures[0], self._captures[1:1 + count], self._captures[1 + count:-1],
                self._captures[-1]]

    def _cardinality(self, run: _Run) -> int:
        return _batch_count(self._inputs[0]._cardinality(run), run.scalar(self, 0), run.scalar(self, -1))

    def _validate(self, captured: list[Any]) -> None:
        _check_batch_size(captured[0])

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        size, drop = run.scalar(self, 0), run.scalar(self, -1)
        count = len(self._padded)
        given, pads = run.captured(self)[1:1 + count], run.captured(self)[1 + count:1 + 2 * count]
        shapes = list(self._padded)
        for i in self._dynamic:  # -1: the batch's largest
            shapes[i] = tensor_shape.TensorShape([None if d == -1 else int(d) for d in np.asarray(given[i])])

        def padded(batch: list[Element]) -> Element:
            return [_pad([e[i] for e in batch], shapes[i], pads[i]) for i in range(len(batch[0]))]

        yield from _batches(run, self._inputs[0]._iterate(run), size, drop, padded)


def _seeds(seed: Any) -> list[Tensor]:
    """TF's seed tensors of a random dataset (tf.data's get_seed): 0 and 0 without a graph or op seed, else
    `seed` and a `seed2` that is 2**31 - 1 where both would be 0 (so the pair never reads as "unseeded")."""
    seed, seed2 = random_seed.get_seed(seed)
    if seed is None:
        return [_int64(0, "seed"), _int64(0, "seed2")]
    seed = _int64(seed, "seed")
    with name_scope("seed2") as scope:
        seed2 = convert_to_tensor(seed2, dtype=dtypes.int64)
        both_zero = elementwise_ops.logical_and(elementwise_ops.equal(seed, 0), elementwise_ops.equal(seed2, 0))
        return [seed, elementwise_ops.where_v2(both_zero, constant_ops.constant(2**31 - 1, dtype=dtypes.int64),
                                               seed2, name=scope)]


class _ShuffleDataset(DatasetV1):
    _op = dataset_ops.ShuffleDataset

    def __init__(self, source: DatasetV1, buffer_size: Any, seed: int | None, reshuffle: bool) -> None:
        self._reshuffle = reshuffle
        buffer_size = _int64(buffer_size, "buffer_size")
        super().__init__((source,), [buffer_size, *_seeds(seed)], source.element_spec)

    def _node_attrs(self) -> dict[str, Any]:
        return {"reshuffle_each_iteration": self._reshuffle}

    def _draws(self, run: _Run) -> SingleSampleStream:
        """TF's draws for one pass. Reshuffling, the seeds of each pass are the next two draws of one stream
        per iterator (TF's RandomSeedGenerator); else every pass uses the dataset's seeds (random ones, the
        same for every pass of an iterator, when both are 0)."""
        seed, seed2 = run.scalar(self, 1), run.scalar(self, 2)
        if self._reshuffle:
            seeds = run.state.setdefault(id(self), SingleSampleStream(seed, seed2))
            return SingleSampleStream(seeds(), seeds())
        if seed == 0 and seed2 == 0:
            fresh = SingleSampleStream(0, 0)
            seed, seed2 = run.state.setdefault(id(self), (fresh(), fresh()))
        return SingleSampleStream(seed, seed2)

    _same_cardinality = True

    def _validate(self, captured: list[Any]) -> None:
        size = int(captured[0])
        if size <= 0 and size != UNKNOWN_CARDINALITY:
            raise errors.InvalidArgumentError(None, None,
                                              "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        """TF's ring buffer: a pick swaps the first live slot into its place, and the next input element
        takes that first slot, so a seeded shuffle gives TF's order. UNKNOWN_CARDINALITY buffers the whole
        input."""
        size = run.scalar(self, 0)
        draw = self._draws(run)
        source = self._inputs[0]._iterate(run)
        if size == UNKNOWN_CARDINALITY:
            buffer = list(source)
            size = max(len(buffer), 1)
        else:
            buffer = list(itertools.islice(source, size))
        start, count = 0, len(buffer)
        exhausted = count < size
        while count:
            index = (start + draw() % count) % size
            element = buffer[index]
            buffer[index] = buffer[start]
            yield element
            incoming = None if exhausted else next(source, None)
            if incoming is None:
                exhausted = True
                count -= 1
            else:
                buffer[start] = incoming
            start = (start + 1) % size


class _ShuffleAndRepeatDataset(_ShuffleDataset):
    """tf.data.experimental.shuffle_and_repeat: TF's one ShuffleAndRepeatDataset node (its constants made in
    TF's order: buffer_size, count, then the seeds); each pass reshuffles, as shuffle then repeat."""

    _op = dataset_ops.ShuffleAndRepeatDataset

    def __init__(self, source: DatasetV1, buffer_size: Any, count: Any, seed: Any) -> None:
        self._reshuffle = True
        buffer_size = _int64(buffer_size, "buffer_size")
        count = _int64(-1 if count is None else count, "count")
        DatasetV1.__init__(self, (source,), [buffer_size, *_seeds(seed), count], source.element_spec)

    def _node_attrs(self) -> dict[str, Any]:
        return {}

    _same_cardinality = False

    def _cardinality(self, run: _Run) -> int:
        count, n = run.scalar(self, 3), self._inputs[0]._cardinality(run)
        if count < 0:
            return 0 if n == 0 else INFINITE_CARDINALITY
        return 0 if count == 0 else n if n < 0 else n * count

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        count = run.scalar(self, 3)
        for _ in itertools.count() if count < 0 else range(count):
            produced = False
            for element in super()._iterate(run):
                produced = True
                yield element
            if not produced:
                return


class _CountDataset(DatasetV1):
    """repeat, take, skip and prefetch: one int64 count each."""

    def __init__(self, source: DatasetV1, kind: str, count: Any) -> None:
        self._kind = kind
        self._tf_class_name = f"_{kind.capitalize()}Dataset"
        self._op = getattr(dataset_ops, f"{kind.capitalize()}Dataset")
        self._colocated = kind == "prefetch"
        super().__init__((source,), [_int64(count, "buffer_size" if kind == "prefetch" else "count")],
                         source.element_spec)

    def _validate(self, captured: list[Any]) -> None:
        if self._kind == "prefetch" and int(captured[0]) < AUTOTUNE:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be >= 0 or set buffer_size to be -1 "
                                                          "for auto-tuning")

    def _iterator_name(self, run: _Run) -> str | None:
        """TF's: Finite or Forever by the count; none where TF's noop_elimination removes the dataset; a repeat
        of a shuffle is fused with it (shuffle_and_repeat_fusion)."""
        count = run.scalar(self, 0)
        if self._kind == "prefetch":
            return "Prefetch" if count != 0 else None
        if (self._kind == "repeat" and count == 1) or (self._kind == "skip" and count == 0) or \
                (self._kind == "take" and count < 0):
            return None
        if self._kind == "repeat" and isinstance(self._inputs[0], _ShuffleDataset):
            return "ShuffleAndRepeat"
        return ("Forever" if count < 0 else "Finite") + self._kind.capitalize()

    def _absorbs_input(self, run: _Run) -> bool:
        return self._iterator_name(run) == "ShuffleAndRepeat"

    def _input_suffix(self, index: int, run: _Run) -> str:
        if self._kind != "repeat" or self._iterator_name(run) in (None, "ShuffleAndRepeat"):
            return ""
        return f"[{run.state.get(('epoch', id(self)), 0)}]"

    def _cardinality(self, run: _Run) -> int:
        count, n = run.scalar(self, 0), self._inputs[0]._cardinality(run)
        if self._kind == "repeat":
            if count < 0:
                return 0 if n == 0 else INFINITE_CARDINALITY
            return 0 if count == 0 else n if n < 0 else n * count
        if self._kind == "take":
            if n == UNKNOWN_CARDINALITY or count < 0:
                return n
            return count if n == INFINITE_CARDINALITY else min(n, count)
        if self._kind == "skip":
            return n if n < 0 else 0 if count < 0 else max(0, n - count)
        return n

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        count, source = run.scalar(self, 0), self._inputs[0]
        if self._kind == "take":
            yield from source._iterate(run) if count < 0 else itertools.islice(source._iterate(run), count)
        elif self._kind == "skip":
            if count >= 0:
                yield from _skipping(run, source, lambda position: max(count - position, 0))
        elif self._kind == "repeat":
            passes = itertools.count() if count < 0 else range(count)
            for epoch in passes:
                run.state[("epoch", id(self))] = epoch
                produced = False
                for element in source._iterate(run):
                    produced = True
                    yield element
                if not produced:
                    return
        else:
            # the elements' failures are buffered among them and handed on in their places
            for item in _prefetched(_with_failures(source, run), 16 if count <= 0 else count):
                if isinstance(item, _Failed):
                    run.failed(item.error)
                else:
                    yield item


_END = object()


class _Failed(NamedTuple):
    error: errors.OpError


def _with_failures(dataset: DatasetV1, run: _Run) -> PyIterator[Element | _Failed]:
    """The elements of `dataset` with the failures of the elements before each (which its stages hand to a
    run of its own), in order: one item per position of TF's iterator."""
    below = run.ignoring()
    failures = below.failures
    elements = dataset._iterate(below)
    while True:
        try:
            element = next(elements)
        except Exception as e:  # its end, or an error that ended it: after the failures before it
            while failures:
                yield _Failed(failures.popleft())
            if isinstance(e, StopIteration):
                return
            raise
        while failures:
            yield _Failed(failures.popleft())
        yield element


def _skipping(run: _Run, dataset: DatasetV1, to_skip: Callable[[int], int]) -> PyIterator[Element]:
    """The elements of `dataset` after TF's skips (skip's, shard's): before each element, `to_skip(position)`
    more (position: the elements skipped and returned so far). A failure while skipping is returned and loses
    that skip's progress, as TF's Skip call fails before its caller adds what it skipped."""
    position, skipped = 0, 0
    for item in _with_failures(dataset, run):
        if skipped < to_skip(position):
            if isinstance(item, _Failed):
                run.failed(item.error)
                skipped = 0
            else:
                skipped += 1
            continue
        position, skipped = position + skipped, 0
        if isinstance(item, _Failed):
            run.failed(item.error)
        else:
            position += 1
            yield item


def _prefetched(source: PyIterator[Any], size: int) -> PyIterator[Any]:
    """`source` run ahead by a background thread; its error is raised where it would have been."""
    buffer: queue.Queue = queue.Queue(size)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in source:
                while not stop.is_set():
                    try:
                        buffer.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            buffer.put(_END)
        except Exception as e:  # raised to the consumer, in order
            buffer.put(e)

    threading.Thread(target=produce, daemon=True, name="tensorweave-data-prefetch").start()
    try:
        while (item := buffer.get()) is not _END:
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        stop.set()


class _CacheDataset(DatasetV1):
    """TF's CacheDataset; a file cache is TF's too: one bundle, element i's component j under the key
    `f"{i:7d}_{j:{width}d}"`, written once the input is exhausted."""

    _tf_class_name = "CacheDataset"
    _op = dataset_ops.CacheDataset

    def __init__(self, source: DatasetV1, filename: Any) -> None:
        super().__init__((source,), [convert_to_tensor(filename, dtype=dtypes.string, name="filename")],
                         source.element_spec)

    _same_cardinality = True

    def _iterator_name(self, run: _Run) -> str | None:
        return "FileCacheImpl" if run.scalar(self, 0) else "MemoryCacheImpl"

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        cached = run.state.get(id(self))
        if cached is not None:
            yield from cached
            return
        filename = run.scalar(self, 0)
        filename = filename.decode() if isinstance(filename, bytes) else str(filename)
        width = len(str(max(len(self._components) - 1, 0)))
        if filename and os.path.exists(bundle.index_filename(filename)):
            yield from self._read(filename, width)
            return
        seen, failures = [], run.failure_count
        for element in self._inputs[0]._iterate(run):
            seen.append(element)
            yield element
        run.state[id(self)] = seen
        if filename and run.failure_count == failures:  # TF's writer keeps no file of an input that failed
            with bundle.BundleWriter(filename) as writer:
                for i, element in enumerate(seen):
                    for j, (value, dtype) in enumerate(zip(element, self._flat_types())):
                        writer.add(f"{i:7d}_{j:{width}d}", value, dtype.as_datatype_enum)

    def _read(self, filename: str, width: int) -> PyIterator[Element]:
        reader = bundle.BundleReader(filename)
        for i in itertools.count():
            if not reader.contains(f"{i:7d}_{0:{width}d}"):
                return
            yield [reader.lookup(f"{i:7d}_{j:{width}d}") for j in range(len(self._components))]


class _ShardDataset(DatasetV1):
    _op = dataset_ops.ShardDataset

    def __init__(self, source: DatasetV1, num_shards: Any, index: Any) -> None:
        super().__init__((source,), [_int64(num_shards, "num_shards"), _int64(index, "index")],
                         source.element_spec)

    def _cardinality(self, run: _Run) -> int:
        shards, index, n = run.scalar(self, 0), run.scalar(self, 1), self._inputs[0]._cardinality(run)
        return n if n < 0 else n // shards + (1 if index < n % shards else 0)

    def _validate(self, captured: list[Any]) -> None:
        shards, index = int(captured[0]), int(captured[1])
        if shards <= 0:
            raise errors.InvalidArgumentError(None, None, f"Number of shards must be greater than zero "
                                                          f"(currently num_shards = {shards}).")
        if not 0 <= index < shards:
            raise errors.InvalidArgumentError(None, None, f"Index must be between 0 and {shards - 1} (currently "
                                                          f"index = {index}).")

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        shards, index = run.scalar(self, 0), run.scalar(self, 1)
        yield from _skipping(run, self._inputs[0], lambda position: (index - position) % shards)


class _NormalizedDataset(DatasetV1):
    """unbatch's input as TF's normalize_to_dense maps it (a MapDataset node of `normalize`, traced over the
    element's flat components, which it returns); the elements pass as they are, being flat already."""

    _op = dataset_ops.MapDataset
    _same_cardinality = True

    def __init__(self, source: DatasetV1) -> None:
        def normalize(*components: Any) -> Any:
            return components[0] if len(components) == 1 else components

        self._function = StructuredFunction(normalize, tuple(source._components), transformation="Dataset.map")
        super().__init__((source,), [], source.element_spec)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], []]

    def _node_attrs(self) -> dict[str, Any]:
        return {"f": self._function.name, "preserve_cardinality": True}

    def _iterator_name(self, run: _Run) -> str | None:
        return None  # TF's noop_elimination removes a map of the identity

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._inputs[0]._iterate(run)


class _UnbatchDataset(DatasetV1):
    _op = dataset_ops.UnbatchDataset

    def __init__(self, source: DatasetV1) -> None:
        for shape in source._flat_shapes():
            if shape.ndims == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        super().__init__((source,), [], nest.map_structure(lambda s: s._unbatch(), source.element_spec))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        batched = self._inputs[0].element_spec
        if not structure.is_dense(batched):
            for element in self._inputs[0]._iterate(run):
                yield from _unbatched(batched, element)
            return
        for element in self._inputs[0]._iterate(run):
            rows = np.shape(element[0])[0]
            if any(np.ndim(v) == 0 or np.shape(v)[0] != rows for v in element):
                raise errors.InvalidArgumentError(None, None, "Input element must have a non-scalar value in each "
                                                              "component.")
            yield from _rows(element, rows)


@tf_export("data.experimental.bucket_by_sequence_length")
def bucket_by_sequence_length(element_length_func: Callable, bucket_boundaries: Any, bucket_batch_sizes: Any,
                              padded_shapes: Any = None, padding_values: Any = None,
                              pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                              drop_remainder: bool = False) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that batches elements of similar lengths together (TF's: a
    group_by_window keyed by the length's bucket, each window padded and batched)."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                         f"`len(bucket_boundaries)={len(bucket_boundaries)}`.")
    boundaries = list(bucket_boundaries)
    lowest, highest = np.iinfo(np.int32).min, np.iinfo(np.int32).max

    def apply(dataset: DatasetV1) -> DatasetV1:
        batch_sizes = constant_ops.constant(bucket_batch_sizes, dtype=dtypes.int64)  # captured, as TF's

        def bucket_id(*args: Any) -> Tensor:
            length = element_length_func(*args)
            within = elementwise_ops.logical_and(elementwise_ops.less_equal([lowest] + boundaries, length),
                                                 elementwise_ops.less(length, boundaries + [highest]))
            return reduction_ops.reduce_min(indexing_ops.where(within))

        def window_size(bucket: Tensor) -> Tensor:
            return batch_sizes[bucket]

        def batched(bucket: Tensor, window: DatasetV1) -> DatasetV1:
            size = window_size(bucket)
            if no_padding:
                return window.batch(size, drop_remainder=drop_remainder)
            filler = None
            if pad_to_bucket_boundary:
                check = check_ops.assert_less(
                    bucket, constant_ops.constant(len(bucket_batch_sizes) - 1, dtype=dtypes.int64),
                    message="When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries).")
                with control_dependencies([check]):
                    filler = constant_ops.constant(boundaries, dtype=dtypes.int64)[bucket] - 1
            shapes = padded_shapes or structure.legacy_shapes(window.element_spec)
            flat = [[filler if tensor_shape.dimension_value(d) is None else d for d in tensor_shape.as_shape(s)]
                    for s in nest.flatten(shapes)]
            shapes = nest.pack_sequence_as(shapes, flat)
            return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

        return dataset.group_by_window(bucket_id, batched, window_size_func=window_size)

    return apply


@tf_export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                         stop_on_empty_dataset: bool = False) -> DatasetV1:
    """Elements drawn from `datasets` at random, each with its weight's probability (TF's draws: a seeded
    Philox stream of seed pairs, one stateless multinomial draw per element). `weights` may be Python values,
    a tensor (captured by the drawing function, as TF's) or a dataset of weight vectors, one per draw."""
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if isinstance(weights, DatasetV1):
        logits: Any = weights.map(lambda *p: elementwise_ops.log(p, name="logits"))
    elif weights is None:
        logits = [[1.0] * len(datasets)]
    else:
        if isinstance(weights, Tensor):
            if not weights.shape.is_compatible_with([len(datasets)]):
                raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with "
                                 f"`[len(datasets)]` but is {weights.shape}.")
        else:
            if len(datasets) != len(weights):
                raise ValueError(f"Invalid `weights`. `weights` should have the same length as `datasets` but got "
                                 f"`len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`.")
            kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
            datasets, weights = zip(*kept) if kept else ([datasets[0].take(0)], [1.0])
        weights = convert_to_tensor(weights, name="weights")
        if weights.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f"Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` but is "
                            f"{weights.dtype}.")
        logits = shape_ops.expand_dims(elementwise_ops.log(weights, name="logits"), 0)
    if len(datasets) == 1 and not isinstance(logits, DatasetV1):
        return datasets[0]
    seeds = random_dataset(seed).batch(2)

    def choose(logits: Any, seeds: Tensor) -> Tensor:
        draw = random_ops.StatelessMultinomial(logits, 1, seeds, output_dtype=dtypes.int64)
        return shape_ops.squeeze(draw, axis=[0, 1])

    if isinstance(logits, DatasetV1):
        selector = DatasetV1.zip((logits, seeds)).map(choose)
    else:
        selector = seeds.map(lambda seeds: choose(logits, seeds))
    return _v1(_DirectedInterleaveDataset(selector, list(datasets), stop_on_empty_dataset))  # TF1's export


def rejection_resample(dataset: DatasetV1, class_func: Callable, target_dist: Any, initial_dist: Any = None,
                       seed: int | None = None) -> DatasetV1:
    """(class, element) pairs resampled towards `target_dist`, as TF's: elements kept with per-class acceptance
    probabilities (from `initial_dist`, or a running estimate over batches of 32 class values) mixed with the
    original elements with the probability that needs no rejection."""
    target = cast_ops.cast(convert_to_tensor(target_dist, name="target_dist"), dtypes.float32)
    if initial_dist is not None:
        initial = cast_ops.cast(convert_to_tensor(initial_dist, name="initial_dist"), dtypes.float32)
        accept, original = _acceptance_and_mixing(initial, target)
        initial_ds, accept_ds, original_ds = (DatasetV1.from_tensors(t).repeat() for t in (initial, accept, original))
        known = [tensor_util.constant_value(t) for t in (initial, target)]
        static = None if any(v is None for v in known) else np.min(known[1] / known[0])
    else:
        initial_ds = _estimated_distribution(target, dataset.map(class_func))
        both = initial_ds.map(lambda initial: _acceptance_and_mixing(initial, target))
        accept_ds, original_ds = both.map(lambda accept, _: accept), both.map(lambda _, original: original)
        static = None

    def warn_on_large_rejection(accept: Tensor, initial: Tensor) -> Tensor:
        rejected = reduction_ops.reduce_sum((1 - accept) * initial)
        return control_flow_ops.cond(elementwise_ops.less(rejected, .5), lambda: accept, lambda: logging_ops.Print_(
            accept, [rejected, initial, accept], message="Proportion of examples rejected by sampler is high: ",
            summarize=100, first_n=10))

    def with_acceptance(accept: Tensor, data: Any) -> Any:
        label = class_func(*data) if isinstance(data, tuple) else class_func(data)
        return label, indexing_ops.gather(accept, label), data

    accept_ds = DatasetV1.zip((accept_ds, initial_ds)).map(warn_on_large_rejection)
    filtered = DatasetV1.zip((accept_ds, dataset)).map(with_acceptance).filter(
        lambda label, p, data: random_ops.random_uniform([], seed=seed, dtype=p.dtype) < p).map(
        lambda label, p, data: (label, data)).prefetch(3)

    def with_class(*element: Any) -> Any:
        return class_func(*element), element[0] if len(element) == 1 else element

    if static == 1:
        return dataset.map(with_class)
    if static == 0:
        return filtered
    return sample_from_datasets([dataset.map(with_class), filtered],
                                original_ds.map(lambda p: [(p, 1.0 - p)]), seed, stop_on_empty_dataset=True)


def _estimated_distribution(target: Tensor, labels: DatasetV1, batch: int = 32, smoothing: int = 10) -> DatasetV1:
    """TF's running estimate of the class distribution: counts (from `smoothing` each) updated per batch of
    class values, the estimate repeated for each value of the batch."""
    classes = tensor_shape.dimension_value(target.shape[0]) or shape_ops.shape(target)[0]

    def update(counts: Tensor, labels: Tensor) -> Any:
        counts = counts + reduction_ops.reduce_sum(indexing_ops.one_hot(labels, classes, dtype=dtypes.int64), 0)
        estimate = cast_ops.cast(elementwise_ops.truediv(counts, reduction_ops.reduce_sum(counts)), dtypes.float32)
        return counts, manipulation_ops.tile(shape_ops.expand_dims(estimate, 0), [batch, 1])

    start = fill_ops.fill([classes], np.int64(smoothing))
    return labels.batch(batch).scan(start, update).unbatch()


def _acceptance_and_mixing(initial: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """Per-class acceptance probabilities and the probability of taking an original element: with r the
    target-to-initial ratios, (r - min r) / (max r - min r) and min r."""
    ratios = target / (initial + np.finfo(initial.dtype.as_numpy_dtype).tiny)
    low = reduction_ops.reduce_min(ratios)
    return (ratios - low) / (reduction_ops.reduce_max(ratios) - low), low


def random_dataset(seed: int | None = None) -> DatasetV1:
    """TF's RandomDataset: an endless dataset of pseudorandom int64 values (the uint32 draws of Philox)."""
    return DatasetSource(_seeds(seed), dtypes.int64, tensor_shape.TensorShape([]), _random_draws,
                         dataset_ops.RandomDataset)


def _random_draws(failed: Callable, seed: Any, seed2: Any) -> PyIterator[Element]:
    """TF's RandomDataset: the uint32 draws of Philox(seed, seed2), as int64 (random seeds when both are 0)."""
    seed, seed2 = int(seed), int(seed2)
    if seed == 0 and seed2 == 0:
        fresh = SingleSampleStream(0, 0)
        seed, seed2 = fresh(), fresh()
    draws = SingleSampleStream(seed, seed2)
    while True:
        yield [np.int64(draws())]


class _DenseToRaggedDataset(DatasetV1):
    """Its input's elements, each dense component of a partly known shape read as a ragged value (ragged up to
    its last unknown dimension), as TF's ragged_batch prepares them: TF's map (a MapDataset node of the
    traced conversion), run here on the arrays themselves."""

    _op = dataset_ops.MapDataset

    def __init__(self, source: DatasetV1, row_splits_dtype: Any) -> None:
        splits_dtype = dtypes.as_dtype(row_splits_dtype)

        def ragged(spec: TypeSpec) -> TypeSpec:
            if type(spec) is not TensorSpec or spec.shape.rank is None or spec.shape.is_fully_defined():
                return spec
            ragged_rank = max(axis for axis, size in enumerate(spec.shape.as_list()) if size is None)
            return RaggedTensorSpec(spec.shape, spec.dtype, ragged_rank, splits_dtype)

        def to_ragged(value: Any) -> Any:
            spec = ragged(TensorSpec(value.shape, value.dtype)) if isinstance(value, Tensor) else None
            if not isinstance(spec, RaggedTensorSpec) or not spec.ragged_rank:
                return value
            return RaggedTensor.from_tensor(value, ragged_rank=spec.ragged_rank, row_splits_dtype=splits_dtype)

        def convert(*value: Any) -> Any:
            return nest.map_structure(to_ragged, value if len(value) > 1 else value[0])

        self._function = StructuredFunction(convert, source.element_spec, transformation="Dataset.map")
        super().__init__((source,), [], nest.map_structure(ragged, source.element_spec))
        # where each component to convert starts in an input element, and its ragged spec
        self._layout = [(start, leaf) for (start, given), leaf in zip(_layout(source.element_spec),
                                                                     nest.flatten(self.element_spec))
                        if leaf is not given and leaf.ragged_rank > 0]

    _same_cardinality = True

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        layout = self._layout
        for element in self._inputs[0]._iterate(run):
            if not layout:
                yield element
                continue
            out, position = [], 0
            for start, leaf in layout:
                out.extend(element[position:start])
                out.extend(_dense_as_ragged(np.asarray(element[start]), leaf.ragged_rank,
                                            leaf.row_splits_dtype.as_numpy_dtype))
                position = start + 1
            out.extend(element[position:])
            yield out


    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], []]

    def _node_attrs(self) -> dict[str, Any]:
        return {"f": self._function.name, "preserve_cardinality": True}


def _dense_as_ragged(value: np.ndarray, ragged_rank: int, splits_dtype: Any) -> list[np.ndarray]:
    """The flat values and (uniform) row splits of a dense value read as ragged in its first dimensions."""
    dims = value.shape
    splits = [np.arange(0, int(np.prod(dims[:level])) * dims[level] + 1, dims[level], dtype=splits_dtype)
              if dims[level] else np.zeros(int(np.prod(dims[:level])) + 1, splits_dtype)
              for level in range(1, ragged_rank + 1)]
    return [value.reshape((-1, *dims[ragged_rank + 1:])), *splits]


class _DenseToSparseBatchDataset(DatasetV1):
    _op = dataset_ops.DenseToSparseBatchDataset

    def __init__(self, source: DatasetV1, batch_size: Any, row_shape: Any) -> None:
        row_shape = tensor_shape.as_shape(row_shape)
        dims = _int64([-1 if d is None else d for d in row_shape.as_list()], "Const")
        with name_scope("DenseToSparseBatchDataset") as self._scope:  # TF's: the node is named by its scope
            size = _int64(batch_size, "batch_size")
        super().__init__((source,), [size, dims], SparseTensorSpec(
            tensor_shape.TensorShape([None]).concatenate(row_shape), structure.legacy_types(source.element_spec)))

    def _node(self, name: str | None = None) -> Tensor:
        return super()._node(name or self._scope)

    def _validate(self, captured: list[Any]) -> None:
        _check_batch_size(captured[0])

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        size, row_shape = run.scalar(self, 0), np.asarray(run.captured(self)[1])

        def assemble(batch: list[Element]) -> Element:
            values = [np.asarray(element[0]) for element in batch]
            shapes = np.array([v.shape for v in values], dtype=np.int64).reshape(len(values), -1)
            if shapes.shape[1] != len(row_shape):
                raise errors.InvalidArgumentError(
                    None, None, f"Input element had shape ({_shape_list(values[0].shape)}) that is incompatible with "
                                f"the row shape ({_shape_list(row_shape)}).")
            larger = np.any((row_shape >= 0) & (shapes > row_shape), axis=1)
            if larger.any():
                raise errors.DataLossError(
                    None, None, f"Input element had shape ({_shape_list(values[int(np.argmax(larger))].shape)}) that "
                                f"is larger than the row shape ({_shape_list(row_shape)}).")
            dense = np.where(row_shape >= 0, row_shape, shapes.max(axis=0))
            indices = [np.indices(v.shape).reshape(v.ndim, -1).T for v in values]
            return _batched_sparse(indices, [v.ravel() for v in values], [dense] * len(values))

        yield from _batches(run, self._inputs[0]._iterate(run), size, False, assemble)


def _shape_list(dims: Any) -> str:
    return f"[{','.join(str(int(d)) for d in dims)}]"


@transformation.install
def _transformation(name: str) -> Callable[..., Any]:
    """The class (or function) named, of this module or sources.py."""
    return globals()[name] if name in globals() else getattr(sources, name)
