"""The dataset and iterator ops of tf.data: one node per dataset, of TF's op type (TensorSliceDataset,
MapDataset, BatchDatasetV2, ...), `_PyDataset` for the few TF builds otherwise, and the iterator ops
(IteratorV2, MakeIterator, IteratorGetNext, OneShotIterator, string handles).

A dataset's definition is a Python object of `tensorweave.data` (L5); its node has TF's inputs (the input
datasets' variants, then the scalars and captured tensors TF's op takes) and attrs (a `func` attr names the
traced function in the graph's library), plus the private `_dataset_factory` attr naming the definition in
this module's registry (as `py_func` names its function). Every dataset op shares one kernel: the factory
binds the input datasets' values and the node's other inputs into a `variant`, an object whose
`make_iterator()` returns a Python iterator of elements (lists of arrays).

An iterator is a resource in the device's ResourceMgr (`IteratorResource`), found by shared name, else by a
process-unique name, as queues are. `MakeIterator` (the initializer) replaces its element pipeline;
`IteratorGetNext` is asynchronous: the pull runs on a small shared thread pool (a pipeline may block on
prefetching, a generator or a file), so no executor thread waits, and a cancelled step (closed session,
timeout) fails the call at once. Pulls on one iterator are serialized by its lock, so concurrent steps get
distinct elements in order.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.op_kernel import Done, OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.resource_mgr import ResourceSlot, resource_name
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.sendrecv_ops import _once
from tensorweave.ops.shape_helpers import with_rank

_factories: dict[str, Callable[..., Any]] = {}
_factories_lock = threading.Lock()
_factory_ids = itertools.count()
_pull_pool = ThreadPoolExecutor(max_workers=max(4, os.cpu_count() or 1), thread_name_prefix="tensorweave-data")


def register_dataset_factory(factory: Callable[..., Any]) -> str:
    """Register a dataset definition's factory (`factory(*captured_values)` -> a dataset value with
    `make_iterator()`); the name a `_PyDataset` or `OneShotIterator` node carries."""
    name = f"__dataset_factory_{next(_factory_ids)}"
    with _factories_lock:
        _factories[name] = factory
    return name


def _factory(ctx: OpKernelContext, name: str) -> Callable[..., Any]:
    with _factories_lock:
        factory = _factories.get(name)
    if factory is None:
        raise errors.NotFoundError(ctx.node_def, None, f"Function {name} is not defined.")
    return factory


class IteratorResource:
    """An iterator's state: its element pipeline (None until initialized) and the structure it yields."""

    def __init__(self, container: str, name: str, output_types: list[dtypes.DType], output_shapes: list[Any]) -> None:
        self.container = container
        self.name = name
        self.output_types = list(output_types)
        self.output_shapes = [tensor_shape.TensorShape(s) for s in output_shapes]
        self.lock = threading.Lock()
        self.pipeline: Iterator[list[Any]] | None = None

    def initialize(self, dataset: Any) -> None:
        with self.lock:
            self.pipeline = dataset.make_iterator()

    def get_next(self) -> list[Any]:
        with self.lock:
            if self.pipeline is None:
                raise errors.FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been initialized. Ensure that you "
                    "have run the initializer operation for this iterator before getting the next element.")
            try:
                return next(self.pipeline)
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None

    @property
    def string_handle(self) -> bytes:
        return f"{self.container}\x00{self.name}".encode()


_STRUCTURE_ATTRS = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]

PyDataset = Op("_PyDataset", inputs=["arguments: Targuments"], outputs=["handle: variant"],
               attrs=["Targuments: list(type) >= 0"] + _STRUCTURE_ATTRS, is_stateful=True)


def _dataset_op(name: str, inputs: list[str], attrs: list[str], *, structure: bool = True,
                is_stateful: bool = False) -> Op:
    """A dataset op of TF's signature: a variant out, TF's inputs and attrs (with `metadata` and, unless a
    reader's, the element structure attrs)."""
    return Op(name, inputs=inputs, outputs=["handle: variant"],
              attrs=attrs + (_STRUCTURE_ATTRS if structure else []) + ["metadata: string = ''"],
              is_stateful=is_stateful)


_FUNCTION = ["Targuments: list(type) >= 0"]
TensorDataset = _dataset_op("TensorDataset", ["components: Toutput_types"],
                            ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
                            structure=False, is_stateful=True)
TensorSliceDataset = _dataset_op("TensorSliceDataset", ["components: Toutput_types"],
                                 ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1",
                                  "is_files: bool = false",
                                  "replicate_on_split: bool = false"], structure=False, is_stateful=True)
SparseTensorSliceDataset = Op("SparseTensorSliceDataset", inputs=["indices: int64", "values: Tvalues",
                                                                  "dense_shape: int64"],
                              outputs=["handle: variant"], attrs=["Tvalues: type"], is_stateful=True)
RangeDataset = _dataset_op("RangeDataset", ["start: int64", "stop: int64", "step: int64"],
                           ["replicate_on_split: bool = false"], is_stateful=True)
RandomDataset = _dataset_op("RandomDataset", ["seed: int64", "seed2: int64"], [], is_stateful=True)
ZipDataset = _dataset_op("ZipDataset", ["input_datasets: N * variant"], ["N: int >= 1"])
ConcatenateDataset = _dataset_op("ConcatenateDataset", ["input_dataset: variant", "another_dataset: variant"], [])
MapDataset = _dataset_op("MapDataset", ["input_dataset: variant", "other_arguments: Targuments"],
                         ["f: func"] + _FUNCTION + ["use_inter_op_parallelism: bool = true",
                                                    "preserve_cardinality: bool = false",
                                                    "force_synchronous: bool = false"])
ParallelMapDatasetV2 = _dataset_op("ParallelMapDatasetV2", ["input_dataset: variant", "other_arguments: Targuments",
                                                            "num_parallel_calls: int64"],
                                   ["f: func"] + _FUNCTION + ["use_inter_op_parallelism: bool = true",
                                                              "deterministic: string = 'default'",
                                                              "preserve_cardinality: bool = false",
                                                              "use_unbounded_threadpool: bool = false"])
FilterDataset = _dataset_op("FilterDataset", ["input_dataset: variant", "other_arguments: Targuments"],
                            ["predicate: func"] + _FUNCTION)
TakeWhileDataset = _dataset_op("TakeWhileDataset", ["input_dataset: variant", "other_arguments: Targuments"],
                               ["predicate: func"] + _FUNCTION)
FlatMapDataset = _dataset_op("FlatMapDataset", ["input_dataset: variant", "other_arguments: Targuments"],
                             ["f: func"] + _FUNCTION)
InterleaveDataset = _dataset_op("InterleaveDataset", ["input_dataset: variant", "other_arguments: Targuments",
                                                      "cycle_length: int64", "block_length: int64"],
                                ["f: func"] + _FUNCTION)
ParallelInterleaveDatasetV4 = _dataset_op(
    "ParallelInterleaveDatasetV4", ["input_dataset: variant", "other_arguments: Targuments", "cycle_length: int64",
                                    "block_length: int64", "buffer_output_elements: int64",
                                    "prefetch_input_elements: int64", "num_parallel_calls: int64"],
    ["f: func", "deterministic: string = 'default'"] + _FUNCTION)
LegacyParallelInterleaveDatasetV2 = _dataset_op(
    "LegacyParallelInterleaveDatasetV2", ["input_dataset: variant", "other_arguments: Targuments",
                                          "cycle_length: int64", "block_length: int64",
                                          "buffer_output_elements: int64", "prefetch_input_elements: int64"],
    ["f: func", "deterministic: string = 'default'"] + _FUNCTION)
ScanDataset = _dataset_op("ScanDataset", ["input_dataset: variant", "initial_state: Tstate",
                                          "other_arguments: Targuments"],
                          ["f: func", "Tstate: list(type) >= 1"] + _FUNCTION + [
                              "preserve_cardinality: bool = false", "use_default_device: bool = true"])
GroupByWindowDataset = _dataset_op(
    "GroupByWindowDataset", ["input_dataset: variant", "key_func_other_arguments: Tkey_func_other_arguments",
                             "reduce_func_other_arguments: Treduce_func_other_arguments",
                             "window_size_func_other_arguments: Twindow_size_func_other_arguments"],
    ["key_func: func", "reduce_func: func", "window_size_func: func",
     "Tkey_func_other_arguments: list(type) >= 0", "Treduce_func_other_arguments: list(type) >= 0",
     "Twindow_size_func_other_arguments: list(type) >= 0"])
BatchDatasetV2 = _dataset_op("BatchDatasetV2", ["input_dataset: variant", "batch_size: int64",
                                                "drop_remainder: bool"], ["parallel_copy: bool = false"])
PaddedBatchDatasetV2 = _dataset_op(
    "PaddedBatchDatasetV2", ["input_dataset: variant", "batch_size: int64", "padded_shapes: N * int64",
                             "padding_values: Toutput_types", "drop_remainder: bool"],
    ["parallel_copy: bool = false", "Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1",
     "N: int >= 1"], structure=False)
ShuffleDataset = _dataset_op("ShuffleDataset", ["input_dataset: variant", "buffer_size: int64", "seed: int64",
                                                "seed2: int64"], ["reshuffle_each_iteration: bool = true"])
ShuffleAndRepeatDataset = _dataset_op("ShuffleAndRepeatDataset", ["input_dataset: variant", "buffer_size: int64",
                                                                  "seed: int64", "seed2: int64", "count: int64"],
                                      ["reshuffle_each_iteration: bool = true"])
MapAndBatchDataset = _dataset_op("MapAndBatchDataset", ["input_dataset: variant", "other_arguments: Targuments",
                                                        "batch_size: int64", "num_parallel_calls: int64",
                                                        "drop_remainder: bool"],
                                 ["f: func"] + _FUNCTION + ["preserve_cardinality: bool = false"])
_PARSED_TYPES = "{float, int64, string}"
ParseExampleDatasetV2 = Op("ParseExampleDatasetV2", inputs=["input_dataset: variant", "num_parallel_calls: int64",
                                                            "dense_defaults: Tdense"], outputs=["handle: variant"],
                           attrs=["sparse_keys: list(string) >= 0", "dense_keys: list(string) >= 0",
                                  f"sparse_types: list({_PARSED_TYPES}) >= 0", f"Tdense: list({_PARSED_TYPES}) >= 0",
                                  "dense_shapes: list(shape) >= 0"] + _STRUCTURE_ATTRS +
                           ["deterministic: string = 'default'", "ragged_keys: list(string) >= 0 = []",
                            f"ragged_value_types: list({_PARSED_TYPES}) >= 0 = []",
                            "ragged_split_types: list({int32, int64}) >= 0 = []"])
RepeatDataset = _dataset_op("RepeatDataset", ["input_dataset: variant", "count: int64"], [])
TakeDataset = _dataset_op("TakeDataset", ["input_dataset: variant", "count: int64"], [])
SkipDataset = _dataset_op("SkipDataset", ["input_dataset: variant", "count: int64"], [])
PrefetchDataset = _dataset_op("PrefetchDataset", ["input_dataset: variant", "buffer_size: int64"],
                              ["slack_period: int = 0", "legacy_autotune: bool = true", "buffer_size_min: int = 0"])
CacheDataset = _dataset_op("CacheDataset", ["input_dataset: variant", "filename: string"], [])
ShardDataset = _dataset_op("ShardDataset", ["input_dataset: variant", "num_shards: int64", "index: int64"],
                           ["require_non_empty: bool = false"])
UnbatchDataset = _dataset_op("UnbatchDataset", ["input_dataset: variant"], [])
UniqueDataset = _dataset_op("UniqueDataset", ["input_dataset: variant"], [])
WindowDataset = _dataset_op("WindowDataset", ["input_dataset: variant", "size: int64", "shift: int64",
                                              "stride: int64", "drop_remainder: bool"], [])
RewriteDataset = Op("RewriteDataset", inputs=["input_dataset: variant", "rewrite_name: string"],
                    outputs=["handle: variant"], attrs=_STRUCTURE_ATTRS)
OptionsDataset = _dataset_op("OptionsDataset", ["input_dataset: variant"], ["serialized_options: string"])
IgnoreErrorsDataset = Op("IgnoreErrorsDataset", inputs=["input_dataset: variant"], outputs=["handle: variant"],
                         attrs=_STRUCTURE_ATTRS + ["log_warning: bool = false"])
DirectedInterleaveDataset = Op("DirectedInterleaveDataset", inputs=["selector_input_dataset: variant",
                                                                    "data_input_datasets: N * variant"],
                               outputs=["handle: variant"],
                               attrs=_STRUCTURE_ATTRS + ["N: int >= 1", "stop_on_empty_dataset: bool = false"])
DenseToSparseBatchDataset = Op("DenseToSparseBatchDataset", inputs=["input_dataset: variant", "batch_size: int64",
                                                                    "row_shape: int64"],
                               outputs=["handle: variant"], attrs=_STRUCTURE_ATTRS)
AssertCardinalityDataset = Op("AssertCardinalityDataset", inputs=["input_dataset: variant", "cardinality: int64"],
                               outputs=["handle: variant"], attrs=_STRUCTURE_ATTRS)
TFRecordDataset = _dataset_op("TFRecordDataset", ["filenames: string", "compression_type: string",
                                                  "buffer_size: int64"], [], structure=False, is_stateful=True)
TextLineDataset = _dataset_op("TextLineDataset", ["filenames: string", "compression_type: string",
                                                  "buffer_size: int64"], [], structure=False, is_stateful=True)
FixedLengthRecordDatasetV2 = _dataset_op(
    "FixedLengthRecordDatasetV2", ["filenames: string", "header_bytes: int64", "record_bytes: int64",
                                   "footer_bytes: int64", "buffer_size: int64", "compression_type: string"], [],
    structure=False, is_stateful=True)
ExperimentalGroupByReducerDataset = Op(
    "ExperimentalGroupByReducerDataset",
    inputs=["input_dataset: variant", "key_func_other_arguments: Tkey_func_other_arguments",
            "init_func_other_arguments: Tinit_func_other_arguments",
            "reduce_func_other_arguments: Treduce_func_other_arguments",
            "finalize_func_other_arguments: Tfinalize_func_other_arguments"],
    outputs=["handle: variant"],
    attrs=["key_func: func", "init_func: func", "reduce_func: func", "finalize_func: func",
           "Tkey_func_other_arguments: list(type) >= 0", "Tinit_func_other_arguments: list(type) >= 0",
           "Treduce_func_other_arguments: list(type) >= 0", "Tfinalize_func_other_arguments: list(type) >= 0"]
    + _STRUCTURE_ATTRS, is_stateful=True)
CSVDatasetV2 = Op("CSVDatasetV2", inputs=["filenames: string", "compression_type: string", "buffer_size: int64",
                                          "header: bool", "field_delim: string", "use_quote_delim: bool",
                                          "na_value: string", "select_cols: int64", "record_defaults: output_types",
                                          "exclude_cols: int64"],
                  outputs=["handle: variant"], attrs=_STRUCTURE_ATTRS, is_stateful=True)
ModelDataset = Op("ModelDataset", inputs=["input_dataset: variant"], outputs=["handle: variant"],
                  attrs=["algorithm: int = 0", "cpu_budget: int = 0", "ram_budget: int = 0"] + _STRUCTURE_ATTRS)
OptimizeDatasetV2 = Op("OptimizeDatasetV2", inputs=["input_dataset: variant", "optimizations_enabled: string",
                                                    "optimizations_disabled: string",
                                                    "optimizations_default: string"],
                       outputs=["handle: variant"],
                       attrs=_STRUCTURE_ATTRS + ["optimization_configs: list(string) = []"])
ReduceDataset = Op("ReduceDataset", inputs=["input_dataset: variant", "initial_state: Tstate",
                                            "other_arguments: Targuments"], outputs=["components: output_types"],
                   attrs=["f: func", "Tstate: list(type) >= 1"] + _FUNCTION + _STRUCTURE_ATTRS + [
                       "use_inter_op_parallelism: bool = true", "metadata: string = ''"], is_stateful=True)
# Every op whose node a dataset definition makes: one kernel serves them all (`_dataset_node`)
DATASET_OPS = (PyDataset, TensorDataset, TensorSliceDataset, SparseTensorSliceDataset, RangeDataset, RandomDataset,
               ZipDataset,
               ConcatenateDataset, MapDataset, ParallelMapDatasetV2, FilterDataset, TakeWhileDataset, FlatMapDataset,
               InterleaveDataset, ParallelInterleaveDatasetV4, LegacyParallelInterleaveDatasetV2, ScanDataset, GroupByWindowDataset, BatchDatasetV2,
               PaddedBatchDatasetV2, ShuffleDataset, ShuffleAndRepeatDataset, MapAndBatchDataset, ParseExampleDatasetV2,
               RepeatDataset, TakeDataset, SkipDataset, PrefetchDataset,
               CacheDataset, ShardDataset, UnbatchDataset, UniqueDataset, WindowDataset, RewriteDataset, OptionsDataset,
               IgnoreErrorsDataset, DirectedInterleaveDataset, DenseToSparseBatchDataset, AssertCardinalityDataset,
               TFRecordDataset,
               TextLineDataset, FixedLengthRecordDatasetV2, CSVDatasetV2, ExperimentalGroupByReducerDataset,
               ModelDataset, OptimizeDatasetV2)
IteratorV2 = Op("IteratorV2", outputs=["handle: resource"],
                attrs=["shared_name: string", "container: string"] + _STRUCTURE_ATTRS, is_stateful=True)
OneShotIterator = Op("OneShotIterator", outputs=["handle: resource"],
                     attrs=["dataset_factory: func"] + _STRUCTURE_ATTRS +
                     ["container: string = ''", "shared_name: string = ''"], is_stateful=True)
MakeIterator = Op("MakeIterator", inputs=["dataset: variant", "iterator: resource"], is_stateful=True)
IteratorGetNext = Op("IteratorGetNext", inputs=["iterator: resource"], outputs=["components: output_types"],
                     attrs=_STRUCTURE_ATTRS, is_stateful=True)
DatasetToSingleElement = Op("DatasetToSingleElement", inputs=["dataset: variant"], outputs=["components: output_types"],
                            attrs=_STRUCTURE_ATTRS + ["metadata: string = ''"], is_stateful=True)
DatasetCardinality = Op("DatasetCardinality", inputs=["input_dataset: variant"], outputs=["cardinality: int64"],
                        attrs=["cardinality_options: string = ''"])
IteratorGetNextAsOptional = Op("IteratorGetNextAsOptional", inputs=["iterator: resource"],
                               outputs=["optional: variant"], attrs=_STRUCTURE_ATTRS, is_stateful=True)
OptionalHasValue = Op("OptionalHasValue", inputs=["optional: variant"], outputs=["has_value: bool"])
OptionalGetValue = Op("OptionalGetValue", inputs=["optional: variant"], outputs=["components: output_types"],
                      attrs=_STRUCTURE_ATTRS)
OptionalFromValue = Op("OptionalFromValue", inputs=["components: Toutput_types"], outputs=["optional: variant"],
                       attrs=["Toutput_types: list(type) >= 1"])
OptionalNone = Op("OptionalNone", outputs=["optional: variant"])
IteratorToStringHandle = Op("IteratorToStringHandle", inputs=["resource_handle: resource"],
                            outputs=["string_handle: string"], is_stateful=True)
IteratorFromStringHandleV2 = Op("IteratorFromStringHandleV2", inputs=["string_handle: string"],
                                outputs=["resource_handle: resource"],
                                attrs=["output_types: list(type) >= 0 = []", "output_shapes: list(shape) >= 0 = []"],
                                is_stateful=True)


@IteratorV2.shape
@OneShotIterator.shape
@IteratorToStringHandle.shape
@DatasetCardinality.shape
@IteratorGetNextAsOptional.shape
@OptionalHasValue.shape
@OptionalFromValue.shape
@OptionalNone.shape
def _scalar_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@IteratorFromStringHandleV2.shape
def _from_string_handle_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    return [tensor_shape.TensorShape([])]


@MakeIterator.shape
def _make_iterator_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@IteratorGetNext.shape
@DatasetToSingleElement.shape
@ReduceDataset.shape
@OptionalGetValue.shape
def _get_next_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape(s) for s in ctx.attr("output_shapes")]


def _dataset_node(ctx: OpKernelContext, *inputs: Any) -> Any:
    """A dataset node's value: its definition (named by `_dataset_factory`) bound to its inputs' values."""
    name = ctx.node_def.attr["_dataset_factory"]
    return _factory(ctx, name.decode() if isinstance(name, bytes) else name)(*inputs)


for _op in DATASET_OPS:
    _op.shape(_scalar_shape)
    _op.kernel("CPU")(_dataset_node)


@ReduceDataset.kernel("CPU", expensive=True)
def _reduce_dataset(ctx: OpKernelContext, *inputs: Any) -> Any:
    """The final state of a reduce: the one element of the (final-state scan) dataset its factory binds."""
    return next(_dataset_node(ctx, *inputs).make_iterator())


def _find_or_make_iterator(ctx: OpKernelContext) -> IteratorResource:
    """The resource of an IteratorV2 or OneShotIterator node, found or made (its kernel's first run)."""
    attrs = ctx.node_def.attr
    container = attrs["container"].decode()
    name = resource_name(attrs["shared_name"].decode(), ctx.name)
    return ctx.resources.lookup_or_create(
        container, name, lambda: IteratorResource(container, name, attrs["output_types"], attrs["output_shapes"]))


@IteratorV2.kernel("CPU", state=ResourceSlot)
def _iterator_v2(ctx: OpKernelContext) -> IteratorResource:
    slot: ResourceSlot = ctx.state
    return slot.get(lambda: _find_or_make_iterator(ctx))


@OneShotIterator.kernel("CPU", state=ResourceSlot)
def _one_shot_iterator(ctx: OpKernelContext, dataset_factory: str) -> IteratorResource:
    """The first run makes the dataset from its factory (no captured values) and initializes the iterator."""
    def find_and_initialize() -> IteratorResource:
        resource = _find_or_make_iterator(ctx)
        resource.initialize(_factory(ctx, dataset_factory)())
        return resource

    slot: ResourceSlot = ctx.state
    return slot.get(find_and_initialize)


@MakeIterator.kernel("CPU")
def _make_iterator(ctx: OpKernelContext, dataset: Any, iterator: IteratorResource) -> None:
    iterator.initialize(dataset)


@IteratorGetNext.kernel("CPU", asynchronous=True)
def _iterator_get_next(ctx: OpKernelContext, done: Done, iterator: IteratorResource, output_types: list,
                       output_shapes: list) -> None:
    finish = _once(done)
    cancellation = ctx.cancellation
    token = cancellation.get_cancellation_token()
    if not cancellation.register_callback(token, lambda: finish(error=errors.CancelledError(
            ctx.node_def, None, "GetNext operation was cancelled"))):
        finish(error=errors.CancelledError(ctx.node_def, None, "GetNext operation was cancelled"))
        return

    def pull() -> None:
        try:
            element = iterator.get_next()
        except Exception as e:  # the pipeline's own error (a map function's, End of sequence, ...)
            cancellation.deregister_callback(token)
            finish(error=e)
            return
        cancellation.deregister_callback(token)
        finish(element[0] if len(element) == 1 else element)

    _pull_pool.submit(pull)


@DatasetToSingleElement.kernel("CPU", expensive=True)
def _dataset_to_single_element(ctx: OpKernelContext, dataset: Any, output_types: list, output_shapes: list,
                               metadata: bytes) -> Any:
    """The one element of a dataset (InvalidArgumentError when it has none or more)."""
    elements = dataset.make_iterator()
    element = next(elements, None)
    if element is None:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Dataset was empty.")
    if next(elements, None) is not None:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Dataset had more than one element.")
    return element


@DatasetCardinality.kernel("CPU")
def _dataset_cardinality(ctx: OpKernelContext, input_dataset: Any, cardinality_options: bytes) -> Any:
    return np.int64(input_dataset.cardinality())


class OptionalValue:
    """The value of an optional variant: an element's components, or None."""

    def __init__(self, components: list[Any] | None) -> None:
        self.components = components

    def zeros_like(self, xp: Any) -> OptionalValue:
        """An optional of zeros like each component (TF's ZerosLike of an optional; an empty one stays empty)."""
        if self.components is None:
            return self
        return OptionalValue([c.zeros_like(xp) if not hasattr(c, "dtype") else xp.zeros_like(c)
                              for c in self.components])

    def add(self, other: OptionalValue) -> OptionalValue:
        """The component-wise sum, as TF's AddN of optionals (a gradient summed over paths)."""
        if self.components is None or other.components is None:
            if self.components is None and other.components is None:
                return self
            raise errors.InvalidArgumentError(None, None, "Cannot add optionals because one has a value and the "
                                              "other doesn't.")
        return OptionalValue([a.add(b) if not hasattr(a, "dtype") else a + b
                              for a, b in zip(self.components, other.components)])


@IteratorGetNextAsOptional.kernel("CPU")
def _iterator_get_next_as_optional(ctx: OpKernelContext, iterator: IteratorResource, output_types: list,
                                   output_shapes: list) -> OptionalValue:
    try:
        return OptionalValue(iterator.get_next())
    except errors.OutOfRangeError:
        return OptionalValue(None)


@OptionalHasValue.kernel("CPU")
def _optional_has_value(ctx: OpKernelContext, optional: OptionalValue) -> Any:
    return np.asarray(optional.components is not None)


@OptionalGetValue.kernel("CPU")
def _optional_get_value(ctx: OpKernelContext, optional: OptionalValue, output_types: list,
                        output_shapes: list) -> Any:
    if optional.components is None:
        raise errors.InvalidArgumentError(ctx.node_def, None, "The given optional does not have a value.")
    return list(optional.components)


@OptionalFromValue.kernel("CPU", "GPU")
def _optional_from_value(ctx: OpKernelContext, *components: Any, Toutput_types: list) -> OptionalValue:
    return OptionalValue(list(components))


@OptionalNone.kernel("CPU", "GPU")
def _optional_none(ctx: OpKernelContext) -> OptionalValue:
    return OptionalValue(None)


@OptionalFromValue.gradient
def _optional_from_value_grad(op: Any, grad: Any) -> list[Any]:
    """The components' gradients, read from the optional gradient (TF's)."""
    return OptionalGetValue(grad, output_types=[t.dtype for t in op.inputs], output_shapes=[t.shape for t in op.inputs])


@OptionalGetValue.gradient
def _optional_get_value_grad(op: Any, *grads: Any) -> list[Any]:
    return [OptionalFromValue(list(grads))]


@IteratorToStringHandle.kernel("CPU")
def _iterator_to_string_handle(ctx: OpKernelContext, resource_handle: IteratorResource) -> Any:
    return np.asarray(resource_handle.string_handle, dtype=object)


@IteratorFromStringHandleV2.kernel("CPU")
def _iterator_from_string_handle(ctx: OpKernelContext, string_handle: Any, output_types: list,
                                 output_shapes: list) -> IteratorResource:
    handle = np.asarray(string_handle).item()
    container, separator, name = handle.decode(errors="replace").partition("\x00")
    if not separator:  # not a handle IteratorToStringHandle made
        raise errors.InvalidArgumentError(ctx.node_def, None,
                                          "Could not parse string_handle as a valid ResourceHandle")
    resource = ctx.resources.lookup(container, name)
    if output_types:  # TF's VerifyTypesMatch, then VerifyShapesCompatible
        if len(output_types) != len(resource.output_types):
            raise errors.InvalidArgumentError(
                ctx.node_def, None, f"Number of components does not match: expected {len(output_types)} types but "
                                    f"got {len(resource.output_types)}.")
        for i, (expected, got) in enumerate(zip(output_types, resource.output_types)):
            if expected != got:
                raise errors.InvalidArgumentError(
                    ctx.node_def, None, f"Data type mismatch at component {i}: expected "
                                        f"{dtypes.type_string(expected)} but got {dtypes.type_string(got)}.")
    if output_shapes:
        for i, (expected, got) in enumerate(zip(output_shapes, resource.output_shapes)):
            expected = tensor_shape.TensorShape(expected)
            if not expected.is_compatible_with(got):
                raise errors.InvalidArgumentError(
                    ctx.node_def, None, f"Incompatible shapes at component {i}: expected "
                                        f"{tensor_shape.shape_string(expected)} but got "
                                        f"{tensor_shape.shape_string(got)}.")
    return resource
