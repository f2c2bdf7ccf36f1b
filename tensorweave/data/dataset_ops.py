"""`tf.data.Dataset` (TF1's DatasetV1) and its transformations, as graph-building definitions.

A Dataset is an immutable definition: its input datasets, the tensors it captured (in the graph it was made
in: a fed placeholder, a batch size, the outer tensors its functions read) and the structure of its elements
(`element_spec`, TypeSpecs nested as TF's, of which `output_types`, `output_shapes` and `output_classes` are
TF1's views). Functions given to map, filter, flat_map, interleave, scan and group_by_window are traced once
into function graphs (function.py) and run per element by an Executor, with the values of their captures.

At run time an iterator's `_PyDataset` node binds the captured values (`_bind`), and each `make_iterator()`
walks the definition into a pipeline of Python generators of flat elements (lists of arrays, a sparse
component as its three: structure.py; a window of Dataset.window as a WindowValue, which the function given
its dataset reads through a `_VariantDataset`); state that lives for one iterator (a shuffle's generator, an
in-memory cache) is kept in that iteration's `_Run`; a file cache is TF's tensor bundle. Shuffling draws TF's Philox stream and keeps TF's buffer, so a seeded shuffle
gives TF's exact order.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.data import iterator_ops, structure
from tensorweave.data.function import StructuredFunction, normalize_element
from tensorweave.data.options import Options
from tensorweave.formats import bundle
from tensorweave.framework import dtypes, nest, random_seed, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import (
    SparseTensorSpec,
    TensorSpec,
    TypeSpec,
    register_type_spec_from_value_converter,
)
from tensorweave.ops import (
    check_ops,
    constant_ops,
    dataset_ops,
    elementwise_ops,
    indexing_ops,
    io_ops,
    parsing_ops,
    random_ops,
    reduction_ops,
    shape_ops,
)
from tensorweave.ops.ragged_tensor import RaggedTensorSpec
from tensorweave.ops.random_ops import SingleSampleStream
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import export_value, tf_export

AUTOTUNE = -1
export_value(AUTOTUNE, "data.AUTOTUNE", "data.experimental.AUTOTUNE")
INFINITE_CARDINALITY = -1
export_value(INFINITE_CARDINALITY, "data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY")
UNKNOWN_CARDINALITY = -2
export_value(UNKNOWN_CARDINALITY, "data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY")

Element = list  # one flat element: a list of arrays, one per component

_map_pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="tensorweave-data-map")


class _Run:
    """One iteration over a bound dataset tree: each dataset's captured values, and per-iterator state.

    Below an `ignore_errors`, the run is its child (`ignoring()`): a stage whose element fails hands the error to
    `failed`, which counts it for the stages above, and goes on to its next element, where TF's iterator would
    return the error and be called again (a Python generator that raised cannot resume); elsewhere `failed`
    raises it."""

    def __init__(self, values: dict[int, list[Any]], fuse_map_and_batch: bool = True,
                 state: dict[int, Any] | None = None, failures: deque | None = None,
                 outer: _Run | None = None) -> None:
        self.values = values
        self.fuse_map_and_batch = fuse_map_and_batch  # the iterated dataset's options allow it (TF's default)
        self.state: dict[int, Any] = {} if state is None else state
        self.failures = failures  # the errors not yet taken by the ignore_errors stage; None: not below one
        self.failure_count = 0  # every failure so far (a batch drops the one it was gathering)
        self._outer = outer

    def ignoring(self) -> _Run:
        """The run of an ignore_errors stage's input: the same values and state, with its own failures."""
        return _Run(self.values, self.fuse_map_and_batch, self.state, deque())

    def nested(self, values: dict[int, list[Any]]) -> _Run:
        """The run of a dataset made for one element (interleave's inner datasets): its own values and state,
        its failures this run's, so that below an ignore_errors the inner iterator goes on as TF's does."""
        return _Run(values, self.fuse_map_and_batch, None, self.failures, self)

    def failed(self, error: errors.OpError) -> None:
        if self._outer is not None:
            self._outer.failed(error)
            return
        if self.failures is None or isinstance(error, errors.OutOfRangeError):
            raise error
        self.failure_count += 1
        self.failures.append(error)

    def captured(self, dataset: DatasetV1) -> list[Any]:
        return self.values[id(dataset)]

    def scalar(self, dataset: DatasetV1, index: int) -> Any:
        return np.asarray(self.values[id(dataset)][index]).item()


class _Bound:
    """A dataset with its captured values (the `variant` value a `_PyDataset` node outputs). A ref variable's
    value is its live buffer, as in TF: elements made after an update of the variable see it."""

    def __init__(self, dataset: DatasetV1, values: list[Any]) -> None:
        self.dataset = dataset
        self.values: dict[int, list[Any]] = {}
        position = 0
        for member in dataset._datasets():
            self.values[id(member)] = list(values[position:position + len(member._captures)])
            position += len(member._captures)

    def make_iterator(self) -> PyIterator[Element]:
        fuse = self.dataset.options().experimental_optimization.map_and_batch_fusion is not False
        return self.dataset._iterate(_Run(self.values, fuse))

    def cardinality(self) -> int:
        return self.dataset._cardinality(_Run(self.values))

    def iterate_in(self, run: _Run) -> PyIterator[Element]:
        """The elements, as a dataset made inside `run` (an interleave's) iterates them."""
        return self.dataset._iterate(run.nested(self.values))


@tf_export("data.Dataset")
class DatasetV1:
    """Represents a potentially large set of elements."""

    _tf_class_name: str | None = None  # the name TF's own class for this transformation has, where it differs

    def __init__(self, inputs: tuple[DatasetV1, ...], captures: list[Tensor], element_spec: Any) -> None:
        graph = get_default_graph()
        for tensor in captures:
            if not _visible_from(tensor, graph):  # TF's dataset op could not take it as an input
                raise ValueError(f"{tensor} must be from the same graph as the dataset that captures it (graphs are "
                                 f"{tensor.graph} and {graph}).")
        self._inputs = inputs
        self._captures = captures
        self._element_spec = element_spec
        self._components = structure.component_specs(element_spec)

    # -- structure -------------------------------------------------------------------------------------------

    @property
    def output_types(self) -> Any:
        return structure.legacy_types(self._element_spec)

    @property
    def output_shapes(self) -> Any:
        return structure.legacy_shapes(self._element_spec)

    @property
    def output_classes(self) -> Any:
        return structure.legacy_classes(self._element_spec)

    @property
    def element_spec(self) -> Any:
        """The TypeSpecs of this dataset's elements."""
        return self._element_spec

    def __repr__(self) -> str:
        """TF's: the transformation's class and the element spec, `<_RangeDataset element_spec=...>`."""
        return f"<{self._tf_class_name or type(self).__name__} element_spec={self._element_spec}>"

    def _flat_types(self) -> list[dtypes.DType]:
        """The dtypes of an element's flat components."""
        return [s.dtype for s in self._components]

    def _flat_shapes(self) -> list[tensor_shape.TensorShape]:
        return [s.shape for s in self._components]

    # -- binding to the graph and to run-time values -------------------------------------------------------

    def _datasets(self) -> list[DatasetV1]:
        """This dataset and every dataset it reads, each once, in a fixed order."""
        seen: dict[int, DatasetV1] = {}
        stack = [self]
        while stack:
            dataset = stack.pop()
            if id(dataset) not in seen:
                seen[id(dataset)] = dataset
                stack.extend(reversed(dataset._inputs))
        return list(seen.values())

    def _all_captures(self) -> list[Tensor]:
        return [t for dataset in self._datasets() for t in dataset._captures]

    def _bind(self, values: list[Any]) -> _Bound:
        return _Bound(self, values)

    def _variant_tensor(self) -> Tensor:
        """A `_PyDataset` node of this definition in the default graph."""
        captures = self._all_captures()
        factory = dataset_ops.register_dataset_factory(lambda *values: self._bind(list(values)))
        return dataset_ops.PyDataset(captures, dataset_factory=factory, output_types=self._flat_types(),
                                     output_shapes=self._flat_shapes(), name="PyDataset")

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        raise NotImplementedError

    _same_cardinality = False  # one element out per element in (a map, a shuffle)

    def _cardinality(self, run: _Run) -> int:
        """How many elements an iteration yields, as TF's kernels count them: INFINITE_CARDINALITY (-1), or
        UNKNOWN_CARDINALITY (-2) where counting would mean iterating."""
        return self._inputs[0]._cardinality(run) if self._same_cardinality else UNKNOWN_CARDINALITY

    def __iter__(self) -> Any:
        raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager mode or within "
                           "tf.function.")

    # -- iterators ---------------------------------------------------------------------------------------------

    def make_one_shot_iterator(self) -> iterator_ops.Iterator:
        """An iterator that initializes itself on first use."""
        return iterator_ops.make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> iterator_ops.Iterator:
        """An iterator with an initializer op (run it, feeding the dataset's placeholders)."""
        return iterator_ops.make_initializable_iterator(self, shared_name)

    def get_single_element(self, name: str | None = None) -> Any:
        """The tensors of this dataset's one element (InvalidArgumentError at run time when it has none or
        more than one)."""
        flat = dataset_ops.DatasetToSingleElement(self._variant_tensor(), output_types=self._flat_types(),
                                                  output_shapes=self._flat_shapes(), name=name)
        return structure.from_components(self._element_spec, flat if isinstance(flat, list) else [flat])

    # -- sources -----------------------------------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of one element, `tensors`."""
        return _TensorDataset(tensors)

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of the slices of `tensors` along their first dimension."""
        return _TensorSliceDataset(tensors)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
                   name: str | None = None) -> DatasetV1:
        """The names of the files matching `file_pattern` (a glob or a list of them) at run time, sorted, and
        shuffled (all at once) unless `shuffle` is False."""
        with name_scope("list_files"):
            matching = io_ops.matching_files(file_pattern)
            dataset = _TensorSliceDataset(matching)
            if shuffle is False:
                return dataset
            count = shape_ops.shape(matching, out_type=dtypes.int64)[0]
            return dataset.shuffle(elementwise_ops.maximum(count, 1), seed=seed)

    @staticmethod
    def from_sparse_tensor_slices(sparse_tensor: SparseTensor) -> DatasetV1:
        """The rows of a SparseTensor, each as its (indices, values, dense_shape) tensors (TF1's older form of
        `from_tensor_slices` of a sparse tensor)."""
        if not isinstance(sparse_tensor, SparseTensor):
            raise TypeError("Invalid `sparse_tensor`. `sparse_tensor` must be a `tf.sparse.SparseTensor`. Got "
                            f"{type(sparse_tensor)}.")
        return _SparseSliceDataset(sparse_tensor)

    @staticmethod
    def from_generator(generator: Callable, output_types: Any = None, output_shapes: Any = None, args: Any = None,
                       output_signature: Any = None, name: str | None = None) -> DatasetV1:
        """A dataset of what a Python generator yields (run in Python, one element at a time), its elements
        typed by `output_types` (and `output_shapes`) or by the TensorSpecs of `output_signature`."""
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            for given, argument in ((output_types, "output_types"), (output_shapes, "output_shapes")):
                if given is not None:
                    raise TypeError(f"The `{argument}` argument can not be used together with the "
                                    "`output_signature` argument.")
            output_types, output_shapes = structure.legacy_structure(output_signature)
        elif output_types is None:
            raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                            "argument or the `output_types` argument.")
        dataset = _GeneratorDataset(generator, output_types, output_shapes, args)
        dataset._tf_class_name = "_FlatMapDataset"  # TF flat-maps a range of generator ids
        return dataset

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> DatasetV1:
        """A dataset of a step-separated range of values, as Python's `range`."""
        return _RangeDataset(args, output_type)

    @staticmethod
    def zip(datasets: Any, name: str | None = None) -> DatasetV1:
        """A dataset of the elements of the given (nested) datasets, zipped together."""
        return _ZipDataset(datasets)

    # -- transformations ---------------------------------------------------------------------------------------

    def concatenate(self, dataset: DatasetV1, name: str | None = None) -> DatasetV1:
        return _ConcatenateDataset(self, dataset)

    def map(self, map_func: Callable, num_parallel_calls: int | None = None, deterministic: Any = None,
            name: str | None = None) -> DatasetV1:
        """`map_func` (traced once into a graph function) applied to every element."""
        dataset = _MapDataset(self, map_func, num_parallel_calls)
        if num_parallel_calls is not None:
            dataset._tf_class_name = "_ParallelMapDataset"
        return dataset

    def filter(self, predicate: Callable, name: str | None = None) -> DatasetV1:
        return _FilterDataset(self, predicate)

    def flat_map(self, map_func: Callable, name: str | None = None) -> DatasetV1:
        dataset = _InterleaveDataset(self, map_func, 1, 1)
        dataset._tf_class_name = "_FlatMapDataset"
        return dataset

    def interleave(self, map_func: Callable, cycle_length: int | None = None, block_length: int | None = None,
                   num_parallel_calls: int | None = None, deterministic: Any = None,
                   name: str | None = None) -> DatasetV1:
        """Elements of the datasets `map_func` makes from `cycle_length` input elements at a time, taken
        `block_length` at a time from each in turn."""
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        dataset = _InterleaveDataset(self, map_func, cycle_length, 1 if block_length is None else block_length)
        if num_parallel_calls is not None:
            dataset._tf_class_name = "_ParallelInterleaveDataset"
        return dataset

    def batch(self, batch_size: Any, drop_remainder: Any = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: str | None = None) -> DatasetV1:
        return _BatchDataset(self, batch_size, drop_remainder)

    def window(self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: Any = False,
               name: str | None = None) -> DatasetV1:
        """Windows of `size` elements (every `stride`-th), one starting every `shift` (default `size`) elements;
        each element a dataset per component of the input's structure (its spec a DatasetSpec). Without
        `drop_remainder` the last windows may be shorter."""
        return _SlidingWindowDataset(self, size, shift, stride, drop_remainder)

    def ragged_batch(self, batch_size: Any, drop_remainder: Any = False, row_splits_dtype: Any = dtypes.int64,
                     name: str | None = None) -> DatasetV1:
        """Batches in which a component whose shape is not fully known is ragged (its ragged dimensions from
        the last unknown one outward), so elements of differing shapes batch together."""
        return _DenseToRaggedDataset(self, row_splits_dtype).batch(batch_size, drop_remainder)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: Any = False, name: str | None = None) -> DatasetV1:
        return _PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def shuffle(self, buffer_size: Any, seed: int | None = None, reshuffle_each_iteration: bool | None = None,
                name: str | None = None) -> DatasetV1:
        """Elements drawn at random from a buffer of `buffer_size` (TF's order, for a seeded shuffle)."""
        return _ShuffleDataset(self, buffer_size, seed, True if reshuffle_each_iteration is None
                               else reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV1:
        return _CountDataset(self, "repeat", -1 if count is None else count)

    def take(self, count: Any, name: str | None = None) -> DatasetV1:
        return _CountDataset(self, "take", count)

    def skip(self, count: Any, name: str | None = None) -> DatasetV1:
        return _CountDataset(self, "skip", count)

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV1:
        """Elements produced ahead by a background thread, up to `buffer_size` of them."""
        return _CountDataset(self, "prefetch", buffer_size)

    def cache(self, filename: Any = "", name: str | None = None) -> DatasetV1:
        """The first pass's elements kept and replayed by later passes: in memory, or with a `filename` in a
        tensor bundle there, which later iterators (in any session or process) read instead of the input."""
        return _CacheDataset(self, filename)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> DatasetV1:
        return _ShardDataset(self, num_shards, index)

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV1:
        """(index, element) pairs, the index counting from `start` (TF zips a range with the dataset)."""
        return DatasetV1.zip((DatasetV1.range(start, np.iinfo(np.int64).max), self))

    def take_while(self, predicate: Callable, name: str | None = None) -> DatasetV1:
        """The elements up to the first for which `predicate` is false."""
        return _TakeWhileDataset(self, predicate)

    def scan(self, initial_state: Any, scan_func: Callable, name: str | None = None) -> DatasetV1:
        """scan_func(state, element) -> (new state, output element), the state carried across elements."""
        return _ScanDataset(self, initial_state, scan_func)

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """The state reduce_func(state, element) -> new state leaves after the last element, as tensors."""
        final = _ScanDataset(self, initial_state, lambda state, element: (reduce_func(state, element), state),
                             final_state=True)
        return final.get_single_element(name=name or "ReduceDataset")

    def unbatch(self, name: str | None = None) -> DatasetV1:
        return _UnbatchDataset(self)

    def unique(self, name: str | None = None) -> DatasetV1:
        """The first occurrence of each distinct element (int32, int64 or string elements)."""
        return _UniqueDataset(self)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: DatasetV1, stop_on_empty_dataset: bool = True,
                             name: str | None = None) -> DatasetV1:
        """The next element of `datasets[i]` for each `i` of `choice_dataset`."""
        return _choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    def group_by_window(self, key_func: Callable, reduce_func: Callable, window_size: Any = None,
                        window_size_func: Callable | None = None, name: str | None = None) -> DatasetV1:
        """Elements grouped by `key_func`'s int64 key into windows of up to `window_size` (or
        `window_size_func(key)`) elements, each window a dataset that `reduce_func(key, window)` turns into the
        dataset whose elements are produced."""
        if (window_size is not None and window_size_func) or not (window_size is not None or window_size_func):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified.")
        if window_size is not None:
            def window_size_func(key: Tensor) -> Tensor:
                return _int64(window_size, "window_size")
        return _GroupByWindowDataset(self, key_func, reduce_func, window_size_func)

    def bucket_by_sequence_length(self, element_length_func: Callable, bucket_boundaries: Any,
                                  bucket_batch_sizes: Any, padded_shapes: Any = None, padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                                  drop_remainder: bool = False, name: str | None = None) -> DatasetV1:
        """Elements batched (padded, unless `no_padding`) with others whose `element_length_func` length falls
        in the same bucket of `bucket_boundaries`, `bucket_batch_sizes[bucket]` to a batch."""
        return bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
                                         padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)(self)

    def cardinality(self) -> Tensor:
        return cardinality(self)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> DatasetV1:
        return _IgnoreErrorsDataset(self, log_warning)

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                             stop_on_empty_dataset: bool = False, rerandomize_each_iteration: Any = None) -> DatasetV1:
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64, name: str | None = None) -> DatasetV1:
        return Counter(start, step, dtype)

    def with_options(self, options: Options, name: str | None = None) -> DatasetV1:
        """This dataset with `options` merged over the options of its inputs."""
        return _OptionsDataset(self, options)

    def options(self) -> Options:
        """The options of this dataset and every dataset it reads, merged (later ones win)."""
        merged = Options()
        for source in self._inputs:
            merged = merged.merge(source.options())
        return merged

    def apply(self, transformation_func: Callable[[DatasetV1], DatasetV1]) -> DatasetV1:
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset


def _visible_from(tensor: Tensor, graph: Any) -> bool:
    """Whether `tensor` is of `graph` or of a graph enclosing it (which a function graph captures from)."""
    while graph is not None:
        if tensor.graph is graph:
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


def _int64(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


class _OptionsDataset(DatasetV1):
    def __init__(self, source: DatasetV1, options: Options) -> None:
        self._options = options
        super().__init__((source,), [], source.element_spec)

    def options(self) -> Options:
        return super().options().merge(self._options)

    _same_cardinality = True

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._inputs[0]._iterate(run)


class _TensorDataset(DatasetV1):
    def __init__(self, tensors: Any) -> None:
        values = normalize_element(tensors)
        spec = structure.spec_of(values)
        super().__init__((), structure.to_components(values, spec), spec)

    def _cardinality(self, run: _Run) -> int:
        return 1

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        yield list(run.captured(self))


class _TensorSliceDataset(DatasetV1):
    def __init__(self, tensors: Any) -> None:
        values = normalize_element(tensors)
        flat = nest.flatten(values)
        if not flat:
            raise ValueError("Invalid `tensors`: `tensors` should not be empty.")
        rows = tensor_shape.Dimension(None)
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, but got {t.shape}")
            if t.shape.ndims is not None:
                rows = rows.merge_with(t.shape[0])
        spec = structure.spec_of(values)
        self._batched = spec
        super().__init__((), structure.to_components(values, spec), nest.map_structure(lambda s: s._unbatch(), spec))

    def _cardinality(self, run: _Run) -> int:
        values, first = run.captured(self), nest.flatten(self._batched)[0]
        if isinstance(first, SparseTensorSpec):
            return int(np.asarray(values[2])[0])
        if isinstance(first, RaggedTensorSpec) and first.ragged_rank > 0:
            return len(values[1]) - 1
        return int(np.shape(values[0])[0])

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        if not structure.is_dense(self._batched):
            yield from _unbatched(self._batched, list(run.captured(self)))
            return
        values = [np.asarray(v) for v in run.captured(self)]
        rows = values[0].shape[0]
        for i, v in enumerate(values):
            if v.ndim == 0 or v.shape[0] != rows:
                raise errors.InvalidArgumentError(
                    None, None, f"Dimension 0 in both shapes must be equal: component 0 has {rows} rows and "
                                f"component {i} has {v.shape[0] if v.ndim else 0} rows")
        yield from _rows(values, rows)


class _SparseSliceDataset(_TensorSliceDataset):
    """The slices of a sparse tensor typed as the three dense tensors a sparse row is made of (its run-time
    elements are the same)."""

    _tf_class_name = "_SparseTensorSliceDataset"

    def __init__(self, sparse_tensor: SparseTensor) -> None:
        super().__init__(sparse_tensor)
        self._element_spec = tuple(self._components)


def _rows(values: list[Any], rows: int) -> PyIterator[Element]:
    """The rows of dense components: a string row as a 0-d array (indexing would give bare bytes, which
    kernels do not take), a numeric one as NumPy's scalar."""
    if all(np.asarray(v).dtype != object for v in values):
        for row in range(rows):
            yield [v[row] for v in values]
        return
    for row in range(rows):
        yield [v[row, ...] for v in values]


class _GeneratorDataset(DatasetV1):
    def __init__(self, generator: Callable, output_types: Any, output_shapes: Any, args: Any) -> None:
        output_types = nest.map_structure(dtypes.as_dtype, output_types)
        if output_shapes is None:
            output_shapes = nest.map_structure(lambda _: tensor_shape.unknown_shape(), output_types)
        else:
            output_shapes = structure.shapes_like(output_types, output_shapes)
        self._generator = generator
        self._num_args = 0 if args is None else len(args)
        captures = [convert_to_tensor(a) for a in (args or ())]
        self._output_structure = output_types
        super().__init__((), captures, structure.element_spec(output_types, output_shapes))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        args = [a.item() if isinstance(a, np.ndarray) and a.ndim == 0 and a.dtype == object else a
                for a in run.captured(self)]
        types, shapes = self._flat_types(), self._flat_shapes()
        for item in self._generator(*args):
            values = _flatten_like(self._output_structure, item)
            if values is None:
                raise errors.InvalidArgumentError(
                    None, None, "`generator` yielded an element that did not match the expected structure. The "
                    f"expected structure was {self._output_structure}, but the yielded element was {item}.")
            yield [_generated(v, t, s) for v, t, s in zip(values, types, shapes)]


def _flatten_like(types: Any, item: Any) -> list[Any] | None:
    """A yielded element's components in the order of `types` (a list is one component where `types` has
    one), or None when its structure differs."""
    if isinstance(types, tuple):
        if not isinstance(item, (tuple, list)) or len(item) != len(types):
            return None
        parts = [_flatten_like(t, v) for t, v in zip(types, item)]
    elif isinstance(types, dict):
        if not isinstance(item, dict) or set(item) != set(types):
            return None
        parts = [_flatten_like(types[k], item[k]) for k in sorted(types)]
    else:
        return [item]
    return None if any(p is None for p in parts) else [v for p in parts for v in p]


def _generated(value: Any, dtype: dtypes.DType, shape: tensor_shape.TensorShape) -> Any:
    """A yielded value as an array of the expected type and shape (TF's checks and messages)."""
    try:
        if dtype == dtypes.string:
            array = np.asarray(value, dtype=object)
            array = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(array) \
                if array.size else array
        else:
            array = np.asarray(value, dtype=dtype.as_numpy_dtype)
    except (ValueError, TypeError):
        raise errors.InvalidArgumentError(
            None, None, "TypeError: `generator` yielded an element that could not be converted to the expected "
            f"type. The expected type was {dtype.name}, but the yielded element was {value}.") from None
    if not shape.is_compatible_with(array.shape):
        raise errors.InvalidArgumentError(
            None, None, f"`generator` yielded an element of shape {array.shape} where an element of shape "
                        f"{tuple(shape.as_list()) if shape.ndims is not None else shape} was expected.")
    return array


class _RangeDataset(DatasetV1):
    def __init__(self, args: tuple, output_type: Any) -> None:
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but was {len(args)}.")
        self._dtype = dtypes.as_dtype(output_type)
        captures = [_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")]
        super().__init__((), captures, TensorSpec([], self._dtype))

    def _cardinality(self, run: _Run) -> int:
        start, stop, step = (run.scalar(self, i) for i in range(3))
        return len(range(start, stop, step)) if step else 0

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        start, stop, step = (run.scalar(self, i) for i in range(3))
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        np_type = self._dtype.as_numpy_dtype
        for value in range(start, stop, step):  # lazily: enumerate's range runs to the int64 maximum
            yield [np_type(value)]


def _holds_a_list(structure: Any) -> bool:
    if isinstance(structure, list):
        return True
    if isinstance(structure, dict):
        return any(_holds_a_list(v) for v in structure.values())
    return isinstance(structure, tuple) and any(_holds_a_list(v) for v in structure)


class _ZipDataset(DatasetV1):
    def __init__(self, datasets: Any) -> None:
        if _holds_a_list(datasets):  # tf.data's structures take a list for one value, never a dataset
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` "
                            "instead.")
        for d in nest.flatten(datasets):
            if not isinstance(d, DatasetV1):
                raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a (nested) structure of "
                                f"`tf.data.Dataset` objects. Encountered object with type {type(d)}.")
        self._structure = datasets
        flat = tuple(nest.flatten(datasets))
        super().__init__(flat, [], nest.map_structure(lambda d: d.element_spec, datasets))

    def _cardinality(self, run: _Run) -> int:
        counts = [d._cardinality(run) for d in self._inputs]
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        finite = [n for n in counts if n != INFINITE_CARDINALITY]
        return min(finite) if finite else INFINITE_CARDINALITY

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        for parts in zip(*(d._iterate(run) for d in self._inputs)):
            yield [v for part in parts for v in part]


class _ConcatenateDataset(DatasetV1):
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
    def __init__(self, source: DatasetV1, map_func: Callable, num_parallel_calls: int | None) -> None:
        self._function = StructuredFunction(map_func, source.element_spec)
        self._parallel = (os.cpu_count() or 1) if num_parallel_calls == AUTOTUNE else (num_parallel_calls or 1)
        super().__init__((source,), self._function.captures, self._function.output_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        """The mapped elements; an element whose function fails goes to `run.failed` (raised, unless below an
        ignore_errors). In parallel, the pool maps runs of elements (one task each: a task per element would
        cost more in thread handoffs than the graph function itself), in order."""
        function, source = self._function.bound(run.captured(self)), self._inputs[0]._iterate(run)
        if self._parallel <= 1:
            outcomes: PyIterator[Any] = (_outcome(function, element) for element in source)
        else:
            outcomes = self._in_order(function, source)
        for outcome in outcomes:
            if isinstance(outcome, errors.OpError):
                run.failed(outcome)
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
    def __init__(self, source: DatasetV1, predicate: Callable) -> None:
        self._function = StructuredFunction(predicate, source.element_spec)
        if not TensorSpec([], dtypes.bool).is_compatible_with(self._function.output_spec):
            raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return "
                             f"type was {self._function.output_spec}.")
        super().__init__((source,), self._function.captures, source.element_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        function = self._function.bound(run.captured(self))
        for element in self._inputs[0]._iterate(run):
            kept = _outcome(function, element)
            if isinstance(kept, errors.OpError):
                run.failed(kept)
            elif kept[0]:
                yield element


class _TakeWhileDataset(_FilterDataset):
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
        state = normalize_element(initial_state)
        self._state_spec = structure.spec_of(state)
        self._final_state = final_state
        self._function = StructuredFunction(scan_func, (self._state_spec, source.element_spec))
        output = self._function.output_spec
        if not isinstance(output, tuple) or len(output) != 2:
            raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the "
                            f"output value but its return type is {output}.")
        if nest.flatten(structure.legacy_types(output[0])) != nest.flatten(structure.legacy_types(self._state_spec)):
            raise TypeError(f"Invalid `scan_func`. The element types for the new state must match the initial "
                            f"state. Expected {structure.legacy_types(self._state_spec)}, got "
                            f"{structure.legacy_types(output[0])}.")
        self._state_size = len(structure.component_specs(self._state_spec))
        super().__init__((source,), structure.to_components(state, self._state_spec) + self._function.captures,
                         self._state_spec if final_state else output[1])

    def _cardinality(self, run: _Run) -> int:
        return 1 if self._final_state else self._inputs[0]._cardinality(run)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        values = run.captured(self)
        state, function = values[:self._state_size], self._function.bound(values[self._state_size:])
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

    def __init__(self, source: DatasetV1, map_func: Callable, cycle_length: int, block_length: int) -> None:
        self._function = StructuredFunction(map_func, source.element_spec, dataset_result=True)
        self._cycle_length, self._block_length = cycle_length, block_length
        inner = self._function.dataset
        super().__init__((source,), self._function.captures, inner.element_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        function, inner = self._function.bound(run.captured(self)), self._function.dataset
        source = self._inputs[0]._iterate(run)
        slots: list[PyIterator[Element] | None] = [None] * self._cycle_length
        index, open_count, input_done = 0, 0, False
        while not input_done or open_count:
            if slots[index] is None and not input_done:
                element = next(source, None)
                if element is None:
                    input_done = True
                else:
                    made = _outcome(function, element)
                    if isinstance(made, errors.OpError):  # as TF's: the slot takes the next input element
                        run.failed(made)
                        continue
                    slots[index] = inner._bind(made).iterate_in(run)
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
        self._window = _WindowDataset(source.element_spec)
        self._reduce = StructuredFunction(lambda key: reduce_func(key, self._window), scalar, dataset_result=True)
        super().__init__((source,), self._key.captures + self._window_size.captures + self._reduce.captures,
                         self._reduce.dataset.element_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        groups: dict[int, list[Element]] = {}
        sizes: dict[int, int] = {}
        values = iter(run.captured(self))
        key_of, size_of, reduce = (f.bound(itertools.islice(values, len(f.captures)))
                                   for f in (self._key, self._window_size, self._reduce))
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
        nested = run.nested(bound.values)
        nested.state[id(self._window)] = window
        return inner._iterate(nested)


class _SlidingWindowDataset(DatasetV1):
    """Dataset.window: TF's WindowDataset."""

    _tf_class_name = "_WindowDataset"

    def __init__(self, source: DatasetV1, size: Any, shift: Any, stride: Any, drop_remainder: Any) -> None:
        self._layout = [(start, len(nest.flatten(leaf._component_specs))) for start, leaf in
                        _layout(source.element_spec)]
        super().__init__((source,), [_int64(size, "size"), _int64(size if shift is None else shift, "shift"),
                                     _int64(stride, "stride"),
                                     convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")],
                         nest.map_structure(DatasetSpec, source.element_spec))

    def _parameters(self, run: _Run) -> tuple[int, int, int, bool]:
        size, shift, stride, drop = (run.scalar(self, i) for i in range(4))
        for value, what in ((size, "size"), (shift, "shift"), (stride, "stride")):
            if value <= 0:
                raise errors.InvalidArgumentError(None, None, f"Window {what} must be greater than zero.")
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
        size, shift, stride, drop = self._parameters(run)
        source = self._inputs[0]._iterate(run)
        buffer: deque[Element] = deque()
        first, start, exhausted = 0, 0, False  # the index of buffer[0], of the window's first element
        while True:
            last = start + (size - 1) * stride
            while not exhausted and first + len(buffer) <= last:
                element = next(source, None)
                if element is None:
                    exhausted = True
                else:
                    buffer.append(element)
            while buffer and first < start:
                buffer.popleft()
                first += 1
            if not buffer:
                return
            window = [buffer[i] for i in range(0, min(last - start + 1, len(buffer)), stride)]
            if drop and len(window) < size:
                return
            yield [WindowValue([element[at:at + count] for element in window]) for at, count in self._layout]
            start += shift


class _UniqueDataset(DatasetV1):
    def __init__(self, source: DatasetV1) -> None:
        for dtype in nest.flatten(source.output_types):
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
    return _DirectedInterleaveDataset(choice_dataset, list(datasets), stop_on_empty_dataset)


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
    def __init__(self, source: DatasetV1, batch_size: Any, drop_remainder: Any) -> None:
        size, drop = _int64(batch_size, "batch_size"), convert_to_tensor(drop_remainder, dtype=dtypes.bool)
        rows = _static_rows(size, drop)
        self._assemble = _stacked if structure.is_dense(source.element_spec) else _batcher(source.element_spec)
        super().__init__((source,), [size, drop], nest.map_structure(lambda s: s._batch(rows), source.element_spec))

    def _cardinality(self, run: _Run) -> int:
        return _batch_count(self._inputs[0]._cardinality(run), run.scalar(self, 0), run.scalar(self, 1))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        size, drop = run.scalar(self, 0), run.scalar(self, 1)
        if size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        if isinstance(self._inputs[0], _MapDataset) and run.fuse_map_and_batch:
            yield from self._mapped_batches(run, self._inputs[0], size, drop)
            return
        yield from _batches(run, self._inputs[0]._iterate(run), size, drop, self._assemble)

    def _mapped_batches(self, run: _Run, mapped: _MapDataset, size: int, drop: bool) -> PyIterator[Element]:
        """map then batch as TF's map_and_batch_fusion runs them: the function over windows of `size` input
        elements (a parallel map's pool maps a whole window per task); a window with a failing element fails."""
        function, inputs = mapped._function.bound(run.captured(mapped)), mapped._inputs[0]._iterate(run)
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
                yield from _checked(run, window, self._assemble)


def _batch_count(n: int, size: int, drop: bool) -> int:
    """The batches of `size` that `n` elements make (TF's count for batch and padded_batch)."""
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


def _stacked(batch: list[Element]) -> Element:
    return [_stack(i, [element[i] for element in batch]) for i in range(len(batch[0]))]


def _batches(run: _Run, source: PyIterator[Element], size: int, drop: bool,
             assemble: Callable[[list[Element]], Element]) -> PyIterator[Element]:
    """Batches of `size` input elements (batch's and padded_batch's); below an ignore_errors, a failed input
    element loses the batch being gathered and a batch that cannot be assembled is dropped, as TF's."""
    if run.failures is None:
        while batch := list(itertools.islice(source, size)):
            if drop and len(batch) < size:
                return
            yield assemble(batch)
        return
    batch, seen = [], 0
    for element in source:
        if run.failure_count != seen:  # an input element failed: TF's batch lost what it had gathered
            batch, seen = [], run.failure_count
        batch.append(element)
        if len(batch) == size:
            yield from _checked(run, batch, assemble)
            batch = []
    if batch and run.failure_count == seen and not drop:
        yield from _checked(run, batch, assemble)


def _checked(run: _Run, batch: list[Element], assemble: Callable[[list[Element]], Element]) -> PyIterator[Element]:
    """The batch of these elements, or nothing once `run.failed` took its error (shapes that differ)."""
    try:
        assembled = assemble(batch)
    except errors.OpError as e:
        run.failed(e)
        return
    yield assembled


def _static_rows(size: Tensor, drop: Tensor) -> int | None:
    """The batch dimension a batch knows at graph time: its size when the remainder is dropped."""
    size_value, drop_value = tensor_util.constant_value(size), tensor_util.constant_value(drop)
    return int(size_value) if drop_value is not None and bool(drop_value) and size_value is not None else None


def _stack(component: int, values: list[Any]) -> np.ndarray:
    shapes = list(map(np.shape, values))
    first = shapes[0]
    if shapes.count(first) != len(shapes):
        i = next(i for i, shape in enumerate(shapes) if shape != first)
        raise errors.InvalidArgumentError(
            None, None, f"Cannot batch tensors with different shapes in component {component}. First element "
            f"had shape {tensor_shape.shape_string(first)} and element {i} had shape "
            f"{tensor_shape.shape_string(shapes[i])}.")
    dtype = _numpy_dtype(values[0])
    if not first and dtype is object:
        batch = np.empty(len(values), dtype=object)
        # each bytes object as it is (np.asarray would make it numpy's bytes type), out of a 0-d array if in one
        batch[:] = [value[()] if isinstance(value, np.ndarray) else value for value in values]
        return batch
    return np.array(values, dtype=dtype)  # built in C: np.stack's per-array Python work costs three times more


def _layout(spec: Any) -> list[tuple[int, TypeSpec]]:
    """Where each value of an element of `spec` starts among its flat components, and its spec."""
    layout, position = [], 0
    for leaf in nest.flatten(spec):
        layout.append((position, leaf))
        position += len(nest.flatten(leaf._component_specs))
    return layout


def _batcher(spec: Any) -> Callable[[list[Element]], Element]:
    """The assembly of a batch of elements with sparse or ragged values, as TF batches them: a dense component
    is stacked, a sparse value becomes one sparse value of one more dimension, ragged values one ragged value
    of one more ragged dimension."""
    layout = _layout(spec)

    def assemble(batch: list[Element]) -> Element:
        out: Element = []
        for start, leaf in layout:
            if isinstance(leaf, SparseTensorSpec):
                out.extend(_batched_sparse([e[start] for e in batch], [e[start + 1] for e in batch],
                                           [e[start + 2] for e in batch]))
            elif isinstance(leaf, RaggedTensorSpec):
                end = start + 1 + leaf.ragged_rank
                out.extend(_batched_ragged([e[start:end] for e in batch], leaf.row_splits_dtype.as_numpy_dtype))
            else:
                out.append(_stack(start, [e[start] for e in batch]))
        return out

    return assemble


def _batched_sparse(indices: list[Any], values: list[Any], shapes: list[Any]) -> list[np.ndarray]:
    """Sparse values as the rows of one: each entry's index led by its row, the dense shape the largest of each
    dimension."""
    shapes = np.asarray(shapes, dtype=np.int64).reshape(len(shapes), -1)
    rows = np.repeat(np.arange(len(values), dtype=np.int64), [len(v) for v in values])
    flat_indices = np.concatenate([np.asarray(i, dtype=np.int64).reshape(-1, shapes.shape[1]) for i in indices])
    return [np.column_stack((rows, flat_indices)), np.concatenate(values),
            np.concatenate(([len(values)], shapes.max(axis=0))).astype(np.int64)]


def _batched_ragged(values: list[list[Any]], splits_dtype: Any) -> list[np.ndarray]:
    """Ragged values (each its flat values and row splits, outermost first; a dense value alone) as the rows of
    one: new outer splits over their row counts, each level's splits shifted past the earlier values' entries."""
    flats = [np.asarray(v[0]) for v in values]
    levels = [[np.asarray(v[level]) for v in values] for level in range(1, len(values[0]))]
    counts = [len(s) - 1 for s in levels[0]] if levels else [len(f) for f in flats]
    merged = [np.concatenate(([0], np.cumsum(counts))).astype(splits_dtype)]
    for splits in levels:
        offsets = np.concatenate(([0], np.cumsum([s[-1] for s in splits[:-1]], dtype=np.int64)))
        merged.append(np.concatenate([splits[0][:1]] + [s[1:] + o for s, o in zip(splits, offsets)]
                                     ).astype(splits_dtype))
    return [np.concatenate(flats), *merged]


def _unbatched(spec: Any, element: Element) -> PyIterator[Element]:
    """The rows of an element with sparse or ragged values (unbatch's, and the slices of from_tensor_slices):
    a sparse value's entries grouped by their first index, each row the rest of its dense shape; a ragged
    value's rows by its outer splits."""
    parts: list[Callable[[int], list[Any]]] = []
    counts = set()
    for start, leaf in _layout(spec):
        if isinstance(leaf, SparseTensorSpec):
            part, rows = _sparse_rows(*element[start:start + 3])
        elif isinstance(leaf, RaggedTensorSpec) and leaf.ragged_rank > 0:
            part, rows = _ragged_rows(element[start:start + 1 + leaf.ragged_rank])
        else:
            value = element[start]
            part, rows = (lambda row, value=value: [value[row, ...]]), (np.shape(value)[0] if np.ndim(value) else -1)
        parts.append(part)
        counts.add(rows)
    if len(counts) != 1 or -1 in counts:
        raise errors.InvalidArgumentError(None, None, "Input element must have a non-scalar value in each component.")
    for row in range(counts.pop()):
        yield [v for part in parts for v in part(row)]


def _sparse_rows(indices: Any, values: Any, dense_shape: Any) -> tuple[Callable[[int], list[Any]], int]:
    indices, values, dense_shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
    order = np.argsort(indices[:, 0], kind="stable")
    indices, values = indices[order], values[order]
    rows = int(dense_shape[0])
    bounds = np.searchsorted(indices[:, 0], np.arange(rows + 1))
    inner, row_shape = np.ascontiguousarray(indices[:, 1:]), dense_shape[1:]
    return (lambda row: [inner[bounds[row]:bounds[row + 1]], values[bounds[row]:bounds[row + 1]], row_shape]), rows


def _ragged_rows(components: list[Any]) -> tuple[Callable[[int], list[Any]], int]:
    flat, outer, *inner = (np.asarray(c) for c in components)

    def row(index: int) -> list[Any]:
        low, high = outer[index], outer[index + 1]
        splits = []
        for level in inner:
            splits.append(level[low:high + 1] - level[low])
            low, high = level[low], level[high]
        return [flat[low:high], *splits]

    return row, len(outer) - 1


def _numpy_dtype(value: Any) -> Any:
    """The dtype a batch of `value`s has: object for strings (numpy's own bytes type would cut trailing NULs
    and fix a width), else the value's."""
    if isinstance(value, (bytes, str)):
        return object
    dtype = np.asarray(value).dtype
    return object if dtype.kind in "SUO" else dtype


class _PaddedBatchDataset(DatasetV1):
    def __init__(self, source: DatasetV1, batch_size: Any, padded_shapes: Any, padding_values: Any,
                 drop_remainder: Any) -> None:
        for spec in nest.flatten(source.element_spec):
            if not isinstance(spec, TensorSpec):
                raise TypeError("`padded_batch` is only supported for datasets that produce tensor elements but type "
                                "spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{spec}`.")
        if padded_shapes is None:
            padded_shapes = source.output_shapes
        given: dict[int, Tensor] = {}  # the shapes given as tensors, by the id of the static shape read from each

        def read(shape: Any) -> tensor_shape.TensorShape:
            try:
                return tensor_shape.as_shape(shape)
            except (TypeError, ValueError):
                value = _int64(shape, "padded_shape")
                static = tensor_util.constant_value_as_shape(value)
                given[id(static)] = value
                return static

        shapes = structure.shapes_like(source.output_types, padded_shapes, read)
        flat_shapes = nest.flatten(shapes)
        dynamic = [given.get(id(shape)) for shape in flat_shapes]
        self._dynamic = [i for i, tensor in enumerate(dynamic) if tensor is not None]
        flat_types = source._flat_types()
        if padding_values is None:
            flat_pads = [b"" if t == dtypes.string else 0 for t in flat_types]
        else:
            flat_pads = nest.flatten(padding_values)
        size, drop = _int64(batch_size, "batch_size"), convert_to_tensor(drop_remainder, dtype=dtypes.bool)
        pads = [convert_to_tensor(p, dtype=t) for p, t in zip(flat_pads, flat_types)]
        self._padded = flat_shapes
        for declared, element in zip(flat_shapes, source._flat_shapes()):
            if declared.ndims is not None and element.ndims is not None and declared.ndims != element.ndims:
                raise ValueError(f"The padded shape {declared} is not compatible with the shape {element} of the "
                                 "corresponding input component.")
        rows = _static_rows(size, drop)
        super().__init__((source,), [size, drop] + pads + [dynamic[i] for i in self._dynamic],
                         structure.element_spec(source.output_types, nest.map_structure(
                             lambda s: tensor_shape.TensorShape([rows]).concatenate(s), shapes)))

    def _cardinality(self, run: _Run) -> int:
        return _batch_count(self._inputs[0]._cardinality(run), run.scalar(self, 0), run.scalar(self, 1))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        size, drop = run.scalar(self, 0), run.scalar(self, 1)
        count = len(self._padded)
        pads, given = run.captured(self)[2:2 + count], run.captured(self)[2 + count:]
        shapes = list(self._padded)
        for i, value in zip(self._dynamic, given):  # -1: the batch's largest
            shapes[i] = tensor_shape.TensorShape([None if d == -1 else int(d) for d in np.asarray(value)])

        def padded(batch: list[Element]) -> Element:
            return [_pad([e[i] for e in batch], shapes[i], pads[i]) for i in range(len(batch[0]))]

        yield from _batches(run, self._inputs[0]._iterate(run), size, drop, padded)


def _pad(values: list[Any], padded: tensor_shape.TensorShape, pad: Any) -> np.ndarray:
    """The elements of one component in one batch, padded to the declared shape (its unknown dimensions to
    the batch's largest)."""
    largest = np.max([np.shape(v) for v in values], axis=0) if np.ndim(values[0]) else np.zeros(0, int)
    dims = [int(n) if d is None else d for d, n in zip(padded.as_list(), largest)]
    for value in values:
        if any(n > d for n, d in zip(np.shape(value), dims)):
            raise errors.DataLossError(None, None, "Attempted to pad to a smaller size than the input element.")
    out = np.full((len(values), *dims), pad, dtype=_numpy_dtype(values[0]))
    for row, value in enumerate(values):  # the elements differ in shape: one copy each
        value = np.asarray(value)
        out[(row, *(slice(0, n) for n in value.shape))] = value if value.ndim else value[()]
    return out


class _ShuffleDataset(DatasetV1):
    def __init__(self, source: DatasetV1, buffer_size: Any, seed: int | None, reshuffle: bool) -> None:
        seed, seed2 = random_seed.get_seed(seed)
        if seed is None:
            seed, seed2 = 0, 0
        self._reshuffle = reshuffle
        super().__init__((source,), [_int64(buffer_size, "buffer_size"), _int64(seed, "seed"),
                                     _int64(seed2, "seed2")], source.element_spec)

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

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        """TF's ring buffer: a pick swaps the first live slot into its place, and the next input element
        takes that first slot, so a seeded shuffle gives TF's order."""
        size = run.scalar(self, 0)
        if size <= 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero.")
        draw = self._draws(run)
        source = self._inputs[0]._iterate(run)
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


class _CountDataset(DatasetV1):
    """repeat, take, skip and prefetch: one int64 count each."""

    def __init__(self, source: DatasetV1, kind: str, count: Any) -> None:
        self._kind = kind
        self._tf_class_name = f"_{kind.capitalize()}Dataset"
        super().__init__((source,), [_int64(count, "buffer_size" if kind == "prefetch" else "count")],
                         source.element_spec)

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
                yield from itertools.islice(source._iterate(run), count, None)
        elif self._kind == "repeat":
            passes = itertools.count() if count < 0 else range(count)
            for _ in passes:
                produced = False
                for element in source._iterate(run):
                    produced = True
                    yield element
                if not produced:
                    return
        else:
            yield from _prefetched(source._iterate(run), 16 if count <= 0 else count)


_END = object()


def _prefetched(source: PyIterator[Element], size: int) -> PyIterator[Element]:
    """`source` run ahead by a background thread; its error is raised where it would have been."""
    buffer: queue.Queue = queue.Queue(size)
    stop = threading.Event()

    def produce() -> None:
        try:
            for element in source:
                while not stop.is_set():
                    try:
                        buffer.put(element, timeout=0.1)
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

    def __init__(self, source: DatasetV1, filename: Any) -> None:
        super().__init__((source,), [convert_to_tensor(filename, dtype=dtypes.string, name="filename")],
                         source.element_spec)

    _same_cardinality = True

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
        seen = []
        for element in self._inputs[0]._iterate(run):
            seen.append(element)
            yield element
        run.state[id(self)] = seen
        if filename:
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
    def __init__(self, source: DatasetV1, num_shards: Any, index: Any) -> None:
        super().__init__((source,), [_int64(num_shards, "num_shards"), _int64(index, "index")],
                         source.element_spec)

    def _cardinality(self, run: _Run) -> int:
        shards, index, n = run.scalar(self, 0), run.scalar(self, 1), self._inputs[0]._cardinality(run)
        return n if n < 0 else n // shards + (1 if index < n % shards else 0)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        shards, index = run.scalar(self, 0), run.scalar(self, 1)
        if shards <= 0:
            raise errors.InvalidArgumentError(None, None, f"Number of shards must be greater than zero "
                                                          f"(currently num_shards = {shards}).")
        if not 0 <= index < shards:
            raise errors.InvalidArgumentError(None, None, f"Index must be between 0 and {shards - 1} (currently "
                                                          f"index = {index}).")
        yield from itertools.islice(self._inputs[0]._iterate(run), index, None, shards)


class _UnbatchDataset(DatasetV1):
    def __init__(self, source: DatasetV1) -> None:
        for shape in nest.flatten(source.output_shapes):
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


class DatasetSource(DatasetV1):
    """A source dataset whose elements a Python function of its captured values yields (the file readers);
    `produce(failed, *values)` hands an error it can go on after to `failed` (see `_Run.failed`)."""

    def __init__(self, captures: list[Tensor], output_types: Any, output_shapes: Any,
                 produce: Callable[..., PyIterator[Element]]) -> None:
        self._produce = produce
        super().__init__((), captures, structure.element_spec(output_types, output_shapes))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._produce(run.failed, *run.captured(self))


@tf_export("data.experimental.unbatch")
def unbatch() -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that splits elements into the rows of their first dimension."""
    return lambda dataset: dataset.unbatch()


@tf_export("data.experimental.group_by_window")
def group_by_window(key_func: Callable, reduce_func: Callable, window_size: Any = None,
                    window_size_func: Callable | None = None) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`): `Dataset.group_by_window`."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


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

    def bucket_id(*args: Any) -> Tensor:
        length = element_length_func(*args)
        within = elementwise_ops.logical_and(elementwise_ops.less_equal([lowest] + boundaries, length),
                                             elementwise_ops.less(length, boundaries + [highest]))
        return reduction_ops.reduce_min(indexing_ops.where(within))

    def window_size(bucket: Tensor) -> Tensor:
        return constant_ops.constant(bucket_batch_sizes, dtype=dtypes.int64)[bucket]

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
        shapes = padded_shapes or window.output_shapes
        flat = [[filler if tensor_shape.dimension_value(d) is None else d for d in tensor_shape.as_shape(s)]
                for s in nest.flatten(shapes)]
        shapes = nest.pack_sequence_as(shapes, flat)
        return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    return lambda dataset: dataset.group_by_window(bucket_id, batched, window_size_func=window_size)


@tf_export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets: Any, choice_dataset: DatasetV1, stop_on_empty_dataset: bool = False) -> DatasetV1:
    """TF1's `tf.data.experimental.choose_from_datasets` (which does not stop on an empty dataset by default)."""
    return _choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


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
    seed, seed2 = random_seed.get_seed(seed)
    seeds = DatasetSource([_int64(seed or 0, "seed"), _int64(seed2 or 0, "seed2")], dtypes.int64,
                          tensor_shape.TensorShape([]), _random_draws).batch(2)

    def choose(logits: Any, seeds: Tensor) -> Tensor:
        draw = random_ops.StatelessMultinomial(logits, 1, seeds, output_dtype=dtypes.int64)
        return shape_ops.squeeze(draw, axis=[0, 1])

    if isinstance(logits, DatasetV1):
        selector = DatasetV1.zip((logits, seeds)).map(choose)
    else:
        selector = seeds.map(lambda seeds: choose(logits, seeds))
    return _DirectedInterleaveDataset(selector, list(datasets), stop_on_empty_dataset)


def _random_draws(failed: Callable, seed: Any, seed2: Any) -> PyIterator[Element]:
    """TF's RandomDataset: the uint32 draws of Philox(seed, seed2), as int64 (random seeds when both are 0)."""
    seed, seed2 = int(seed), int(seed2)
    if seed == 0 and seed2 == 0:
        fresh = SingleSampleStream(0, 0)
        seed, seed2 = fresh(), fresh()
    draws = SingleSampleStream(seed, seed2)
    while True:
        yield [np.int64(draws())]


@tf_export("data.experimental.unique")
def unique() -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`): `Dataset.unique`."""
    return lambda dataset: dataset.unique()


@tf_export("data.experimental.Counter")
def Counter(start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64) -> DatasetV1:  # noqa: N802 (TF's name)
    """An endless dataset counting from `start` by `step` (TF's: a scan over a repeated element)."""
    with name_scope("counter"):
        start = convert_to_tensor(start, dtype=dtype, name="start")
        step = convert_to_tensor(step, dtype=dtype, name="step")
        return DatasetV1.from_tensors(0).repeat(None).scan(
            (start, step), lambda state, _: ((state[0] + state[1], state[1]), state[0]))


@tf_export("data.experimental.cardinality")
def cardinality(dataset: DatasetV1) -> Tensor:
    """The number of elements of `dataset` as a scalar int64 tensor: INFINITE_CARDINALITY when it repeats
    forever, UNKNOWN_CARDINALITY when only iterating could tell (a filter, a generator)."""
    return dataset_ops.DatasetCardinality(dataset._variant_tensor())


@tf_export("data.experimental.ignore_errors")
def ignore_errors(log_warning: bool = False) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that drops the elements whose computation failed; with
    `log_warning`, each error's message is logged."""
    return lambda dataset: _IgnoreErrorsDataset(dataset, log_warning)


@tf_export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size: Any, count: Any = None, seed: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """shuffle then repeat, as one transformation (TF 2.21's ShuffleAndRepeatDataset gives the same order)."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


@tf_export("data.experimental.parallel_interleave")
def parallel_interleave(map_func: Callable, cycle_length: Any, block_length: Any = 1, sloppy: bool = False,
                        buffer_output_elements: Any = None,
                        prefetch_input_elements: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """interleave as a transformation; its deterministic order is interleave's (TF 2.21)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


@tf_export("data.experimental.map_and_batch")
def map_and_batch(map_func: Callable, batch_size: Any, num_parallel_batches: Any = None, drop_remainder: Any = False,
                  num_parallel_calls: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """map then batch, as one transformation (for `Dataset.apply`)."""
    return lambda dataset: dataset.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder)


@tf_export("data.experimental.scan")
def scan(initial_state: Any, scan_func: Callable) -> Callable[[DatasetV1], DatasetV1]:
    """`Dataset.scan` as a transformation (for `Dataset.apply`)."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


@tf_export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size: Any, drop_remainder: Any = False,
                          row_splits_dtype: Any = dtypes.int64) -> Callable[[DatasetV1], DatasetV1]:
    """`Dataset.ragged_batch` as a transformation (for `Dataset.apply`)."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


class _DenseToRaggedDataset(DatasetV1):
    """Its input's elements, each dense component of a partly known shape read as a ragged value (ragged up to
    its last unknown dimension), as TF's ragged_batch prepares them."""

    def __init__(self, source: DatasetV1, row_splits_dtype: Any) -> None:
        splits_dtype = dtypes.as_dtype(row_splits_dtype)

        def ragged(spec: TypeSpec) -> TypeSpec:
            if type(spec) is not TensorSpec or spec.shape.rank is None or spec.shape.is_fully_defined():
                return spec
            ragged_rank = max(axis for axis, size in enumerate(spec.shape.as_list()) if size is None)
            return RaggedTensorSpec(spec.shape, spec.dtype, ragged_rank, splits_dtype)

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


def _dense_as_ragged(value: np.ndarray, ragged_rank: int, splits_dtype: Any) -> list[np.ndarray]:
    """The flat values and (uniform) row splits of a dense value read as ragged in its first dimensions."""
    dims = value.shape
    splits = [np.arange(0, int(np.prod(dims[:level])) * dims[level] + 1, dims[level], dtype=splits_dtype)
              if dims[level] else np.zeros(int(np.prod(dims[:level])) + 1, splits_dtype)
              for level in range(1, ragged_rank + 1)]
    return [value.reshape((-1, *dims[ragged_rank + 1:])), *splits]


@tf_export("data.experimental.get_single_element")
def get_single_element(dataset: DatasetV1) -> Any:
    """The tensors of the one element of `dataset`."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}.")
    return dataset.get_single_element()


@tf_export("data.experimental.parse_example_dataset")
def parse_example_dataset(features: dict, num_parallel_calls: int = 1,
                          deterministic: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that parses batches of serialized Examples (vectors of strings)
    into a dict of tensors and sparse tensors, as `tf.parse_example` inside a map."""
    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")

    def apply(dataset: DatasetV1) -> DatasetV1:
        if not TensorSpec([None], dtypes.string).is_compatible_with(dataset.element_spec):
            raise TypeError("Input dataset should be a dataset of vectors of strings. Instead it is "
                            f"`{dataset.element_spec}`.")
        return dataset.map(lambda serialized: _parsed_batch(serialized, features), num_parallel_calls)

    return apply


def _parsed_batch(serialized: Tensor, features: dict) -> dict:
    """parse_example of a batch, its sparse values' first dimension the batch's (what TF's ParseExampleDataset
    declares)."""
    parsed = parsing_ops.parse_example(serialized, features)
    for value in parsed.values():
        if isinstance(value, SparseTensor):
            value.set_shape(serialized.shape[:1].concatenate(value.shape[1:]))
    return parsed


@tf_export("data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size: Any, row_shape: Any) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that batches elements of differing shapes into one SparseTensor
    of dense shape `[batch, *row_shape]` (an unknown dimension of `row_shape` being the batch's largest)."""
    return lambda dataset: _DenseToSparseBatchDataset(dataset, batch_size, row_shape)


class _DenseToSparseBatchDataset(DatasetV1):
    def __init__(self, source: DatasetV1, batch_size: Any, row_shape: Any) -> None:
        row_shape = tensor_shape.as_shape(row_shape)
        dims = [-1 if d is None else d for d in row_shape.as_list()]
        super().__init__((source,), [_int64(batch_size, "batch_size"), _int64(dims, "row_shape")],
                         SparseTensorSpec(tensor_shape.TensorShape([None]).concatenate(row_shape),
                                          source.output_types))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        size, row_shape = run.scalar(self, 0), np.asarray(run.captured(self)[1])
        if size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")

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


@tf_export("data.DatasetSpec", "data.experimental.DatasetStructure")
class DatasetSpec(TypeSpec):
    """Describes a tf.data.Dataset by the spec of its elements (and, for a batch of datasets, their shape)."""

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self._element_spec = element_spec
        self._dataset_shape = tensor_shape.as_shape(dataset_shape)

    @staticmethod
    def from_value(value: DatasetV1) -> DatasetSpec:
        return DatasetSpec(value.element_spec)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    @property
    def value_type(self) -> type:
        return DatasetV1

    def _serialize(self) -> tuple:
        return (self._element_spec, self._dataset_shape)

    @property
    def _component_specs(self) -> TensorSpec:
        return TensorSpec(self._dataset_shape, dtypes.variant)

    def _to_components(self, value: Any) -> Any:
        if isinstance(value, _VariantDataset):
            return value._captures[0]
        raise NotImplementedError("tensorweave's datasets are Python definitions, not variant tensors.")

    def _from_components(self, components: Any) -> Any:
        """The dataset a variant tensor holds (a window, in a function over windows)."""
        return _VariantDataset(self._element_spec, components)

    def _batch(self, batch_size: int | None) -> TypeSpec:
        raise NotImplementedError("tensorweave does not batch datasets of datasets (Dataset.window's elements): "
                                  "flat_map them into their elements first.")

    def _to_legacy_output_types(self) -> DatasetSpec:
        return self

    def _to_legacy_output_shapes(self) -> DatasetSpec:
        return self

    def _to_legacy_output_classes(self) -> DatasetSpec:
        return self


class WindowValue:
    """The value of a window's variant tensor: the flat elements of one component of the window."""

    def __init__(self, elements: list[Element]) -> None:
        self.elements = elements


class _VariantDataset(DatasetV1):
    """The dataset a variant tensor holds: its elements are the run-time value's (a WindowValue)."""

    def __init__(self, element_spec: Any, variant: Tensor) -> None:
        super().__init__((), [variant], element_spec)

    def _cardinality(self, run: _Run) -> int:
        return len(run.captured(self)[0].elements)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return iter(run.captured(self)[0].elements)


register_type_spec_from_value_converter(DatasetV1, DatasetSpec.from_value)


@tf_export("data.experimental.get_structure")
def get_structure(dataset_or_iterator: Any) -> Any:
    """The element spec of a dataset or iterator."""
    if not isinstance(dataset_or_iterator, (DatasetV1, iterator_ops.Iterator)):
        raise TypeError("Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` or "
                        f"tf.data.Iterator object, but got {type(dataset_or_iterator)}.")
    return dataset_or_iterator.element_spec
