"""`tf.data.experimental` transformations that wrap a Dataset method (take_while, enumerate_dataset), the
device-copy ones (one CPU device here: the elements stay where they are), assert_cardinality and
group_by_reducer."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from typing import Any

from tensorweave import errors
from tensorweave.data import structure
from tensorweave.data.dataset_ops import AUTOTUNE, INFINITE_CARDINALITY, DatasetV1, Element, _int64, _Run, _v1
from tensorweave.data.function import StructuredFunction
from tensorweave.data.transformations import (
    _choose_from_datasets,
    _DenseToSparseBatchDataset,
    _IgnoreErrorsDataset,
    _InterleaveDataset,
    _MapAndBatchDataset,
    _MapDataset,
    _ShuffleAndRepeatDataset,
)
from tensorweave.framework import dtypes, nest, tensor_util
from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import SparseTensorSpec, TensorSpec
from tensorweave.ops import dataset_ops, parsing_ops
from tensorweave.ops.ragged_tensor import RaggedTensorSpec
from tensorweave.platform.tf_export import tf_export

Transformation = Callable[[DatasetV1], DatasetV1]


@tf_export("data.experimental.take_while")
def take_while(predicate: Callable) -> Transformation:
    return lambda dataset: dataset.take_while(predicate)


@tf_export("data.experimental.enumerate_dataset")
def enumerate_dataset(start: Any = 0) -> Transformation:
    return lambda dataset: dataset.enumerate(start)


class _CopyToDeviceDataset(DatasetV1):
    _same_cardinality = True

    def __init__(self, source: DatasetV1) -> None:
        super().__init__((source,), [], source.element_spec)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._inputs[0]._iterate(run)


@tf_export("data.experimental.copy_to_device")
def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Transformation:
    return _CopyToDeviceDataset


@tf_export("data.experimental.prefetch_to_device")
def prefetch_to_device(device: str, buffer_size: Any = None) -> Transformation:
    return lambda dataset: _CopyToDeviceDataset(dataset).prefetch(-1 if buffer_size is None else buffer_size)


def _elements(count: int) -> str:
    if count == INFINITE_CARDINALITY:
        return "an infinite number of elements"
    return f"{count} element{'' if count == 1 else 's'}"


class _AssertCardinalityDataset(DatasetV1):
    """Its input's elements; FailedPreconditionError where their count proves other than the expected one."""

    _op = dataset_ops.AssertCardinalityDataset

    def __init__(self, source: DatasetV1, expected_cardinality: Any) -> None:
        super().__init__((source,), [_int64(expected_cardinality, "expected_cardinality")], source.element_spec)

    def _cardinality(self, run: _Run) -> int:
        return run.scalar(self, 0)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        expected, count = run.scalar(self, 0), 0
        for element in self._inputs[0]._iterate(run):
            count += 1
            if expected != INFINITE_CARDINALITY and count > expected:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {_elements(expected)} but contained at "
                                f"least {_elements(count)}.")
            yield element
        if count != expected:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_elements(expected)} but contained only "
                            f"{_elements(count)}.")


@tf_export("data.experimental.assert_cardinality")
def assert_cardinality(expected_cardinality: Any) -> Transformation:
    """Its input's elements, checked (when iterated) to be `expected_cardinality` many."""
    return lambda dataset: _AssertCardinalityDataset(dataset, expected_cardinality)


@tf_export("data.experimental.Reducer")
class Reducer:
    """What group_by_reducer does per key: `init_func(key)` makes the state, `reduce_func(state, element)` folds
    an element in, `finalize_func(state)` makes the output."""

    def __init__(self, init_func: Callable, reduce_func: Callable, finalize_func: Callable) -> None:
        self._init_func, self._reduce_func, self._finalize_func = init_func, reduce_func, finalize_func

    @property
    def init_func(self) -> Callable:
        return self._init_func

    @property
    def reduce_func(self) -> Callable:
        return self._reduce_func

    @property
    def finalize_func(self) -> Callable:
        return self._finalize_func


class _GroupByReducerDataset(DatasetV1):
    """TF's GroupByReducerDataset: the whole input folded per key, then one output per key, in key order."""

    _op = dataset_ops.ExperimentalGroupByReducerDataset

    def __init__(self, source: DatasetV1, key_func: Callable, reducer: Reducer) -> None:
        scalar = TensorSpec([], dtypes.int64)
        name = "tf.data.experimental.group_by_reducer()"
        self._key = StructuredFunction(lambda *args: _int64(key_func(*args), "key"), source.element_spec,
                                       transformation=name)
        if not self._key.output_spec.is_compatible_with(scalar):
            raise ValueError("Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its "
                             f"return type is {self._key.output_spec}.")
        self._init = StructuredFunction(reducer.init_func, scalar, transformation=name)
        state_spec = self._init.output_spec
        self._reduce = StructuredFunction(reducer.reduce_func, (state_spec, source.element_spec),
                                          transformation=name)
        reduced = self._reduce.output_spec
        nest.assert_same_data_structure(state_spec, reduced)
        if nest.flatten(structure.legacy_types(state_spec)) != nest.flatten(structure.legacy_types(reduced)):
            raise TypeError(f"Invalid `reducer`. The element types for the new state must match the initial state. "
                            f"Expected {structure.legacy_types(state_spec)}, got "
                            f"{structure.legacy_types(reduced)}.")
        self._finalize = StructuredFunction(reducer.finalize_func, state_spec, transformation=name)
        self._functions = (self._key, self._init, self._reduce, self._finalize)
        super().__init__((source,), [t for f in self._functions for t in f.captures], self._finalize.output_spec)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], *(f.captures for f in self._functions)]

    def _node_attrs(self) -> dict[str, Any]:
        return {f"{kind}_func": f.name for kind, f in zip(("key", "init", "reduce", "finalize"), self._functions)}

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        values = iter(run.captured(self))
        key_func, init, reduce, finalize = [f.bound(itertools.islice(values, len(f.captures)))
                                            for f in self._functions]
        states: dict[int, list] = {}
        for element in self._inputs[0]._iterate(run):
            key = key_func(element)[0]
            state = states.get(int(key))
            if state is None:
                state = init([key])
            states[int(key)] = reduce([*state, *element])
        for key in sorted(states):
            yield finalize(states[key])


@tf_export("data.experimental.group_by_reducer")
def group_by_reducer(key_func: Callable, reducer: Reducer) -> Transformation:
    """Elements grouped by `key_func`'s int64 key, each group folded by `reducer` into one output."""
    return lambda dataset: _GroupByReducerDataset(dataset, key_func, reducer)


@tf_export("data.experimental.rejection_resample")
def rejection_resample(class_func: Callable, target_dist: Any, initial_dist: Any = None,
                       seed: int | None = None) -> Transformation:
    """A transformation (for `Dataset.apply`): `Dataset.rejection_resample`."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


@tf_export("data.experimental.unbatch")
def unbatch() -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that splits elements into the rows of their first dimension."""
    return lambda dataset: dataset.unbatch()


@tf_export("data.experimental.group_by_window")
def group_by_window(key_func: Callable, reduce_func: Callable, window_size: Any = None,
                    window_size_func: Callable | None = None) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`): `Dataset.group_by_window`."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


@tf_export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets: Any, choice_dataset: DatasetV1, stop_on_empty_dataset: bool = False) -> DatasetV1:
    """TF1's `tf.data.experimental.choose_from_datasets` (which does not stop on an empty dataset by default)."""
    return _v1(_choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset))


@tf_export("data.experimental.unique")
def unique() -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`): `Dataset.unique`."""
    return lambda dataset: dataset.unique()


@tf_export("data.experimental.Counter")
def Counter(start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64) -> DatasetV1:  # noqa: N802 (TF's name)
    """An endless dataset counting from `start` by `step` (TF's: a scan over a repeated element)."""
    return _v1(DatasetV1.counter(start, step, dtype))


@tf_export("data.experimental.RandomDataset")
def RandomDataset(seed: int | None = None) -> DatasetV1:  # noqa: N802 (TF's name)
    """An endless dataset of pseudorandom int64 values: `Dataset.random`."""
    return _v1(DatasetV1.random(seed))


@tf_export("data.experimental.ignore_errors")
def ignore_errors(log_warning: bool = False) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation (for `Dataset.apply`) that drops the elements whose computation failed; with
    `log_warning`, each error's message is logged."""
    return lambda dataset: _IgnoreErrorsDataset(dataset, log_warning)


@tf_export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size: Any, count: Any = None, seed: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """shuffle then repeat, as one transformation: TF's ShuffleAndRepeatDataset node (the order of a shuffle
    then a repeat)."""
    return lambda dataset: _ShuffleAndRepeatDataset(dataset, buffer_size, count, seed)


@tf_export("data.experimental.parallel_interleave")
def parallel_interleave(map_func: Callable, cycle_length: Any, block_length: Any = 1, sloppy: bool = False,
                        buffer_output_elements: Any = None,
                        prefetch_input_elements: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """interleave as a transformation (TF's LegacyParallelInterleaveDatasetV2 node); its deterministic order is
    interleave's (TF 2.21), `sloppy` or not."""
    return lambda dataset: _InterleaveDataset(dataset, map_func, cycle_length, block_length, None,
                                              "tf.data.experimental.parallel_interleave",
                                              (buffer_output_elements, prefetch_input_elements))


@tf_export("data.experimental.map_and_batch_with_legacy_function")
def map_and_batch_with_legacy_function(map_func: Callable, batch_size: Any, num_parallel_batches: Any = None,
                                       drop_remainder: Any = False,
                                       num_parallel_calls: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """TF1's map_and_batch over a legacy (Defun) function: `map_and_batch`."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder, num_parallel_calls)


@tf_export("data.experimental.map_and_batch")
def map_and_batch(map_func: Callable, batch_size: Any, num_parallel_batches: Any = None, drop_remainder: Any = False,
                  num_parallel_calls: Any = None) -> Callable[[DatasetV1], DatasetV1]:
    """map then batch, as one transformation (for `Dataset.apply`): TF's MapAndBatchDataset node, whose parallel
    calls are `num_parallel_calls`, else `batch_size` times `num_parallel_batches` (or 1)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`map_and_batch` allows only one of `num_parallel_batches` and `num_parallel_calls` to be "
                         f"set, but `num_parallel_batches` was set to {num_parallel_batches} and `num_parallel_calls` "
                         f"as set to {num_parallel_calls}.")
    if num_parallel_calls is None:
        num_parallel_calls = batch_size if num_parallel_batches is None else batch_size * num_parallel_batches
    return lambda dataset: _MapAndBatchDataset(dataset, map_func, batch_size, num_parallel_calls, drop_remainder)


@tf_export("data.experimental.scan")
def scan(initial_state: Any, scan_func: Callable) -> Callable[[DatasetV1], DatasetV1]:
    """`Dataset.scan` as a transformation (for `Dataset.apply`)."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


@tf_export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size: Any, drop_remainder: Any = False,
                          row_splits_dtype: Any = dtypes.int64) -> Callable[[DatasetV1], DatasetV1]:
    """`Dataset.ragged_batch` as a transformation (for `Dataset.apply`)."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


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
        if any(isinstance(f, parsing_ops.SparseFeature) or isinstance(f, parsing_ops.RaggedFeature) and f.partitions
               or isinstance(getattr(f, "default_value", None), Tensor) for f in features.values()):
            # TF maps the composite features' parts together after its node: here, one map does both
            return dataset.map(lambda serialized: _parsed_batch(serialized, features), num_parallel_calls)
        return _ParseExampleDataset(dataset, features, num_parallel_calls, deterministic)

    return apply


class _ParseExampleDataset(_MapDataset):
    """TF's ParseExampleDatasetV2 node (its keys, types, shapes and dense defaults; the element spec TF's, the
    input's shape leading each feature's); its elements are `_parsed_batch`'s, run as a map's function."""

    _op = dataset_ops.ParseExampleDatasetV2
    _tf_class_name = "_ParseExampleDataset"

    def __init__(self, source: DatasetV1, features: dict, num_parallel_calls: Any, deterministic: Any) -> None:
        self._deterministic = "default" if deterministic is None else "true" if deterministic else "false"
        params = parsing_ops._ParseParams.from_features(parsing_ops._prepend_none_dimension(features), (
            parsing_ops.VarLenFeature, parsing_ops.SparseFeature, parsing_ops.FixedLenFeature,
            parsing_ops.FixedLenSequenceFeature, parsing_ops.RaggedFeature))
        self._params = params
        defaults = params.dense_defaults_vec()
        rows = structure.legacy_shapes(source.element_spec)
        spec: dict[str, Any] = {}
        for key, dtype in zip(params.sparse_keys, params.sparse_types):
            spec[key] = SparseTensorSpec(rows.concatenate([None]), dtype)
        for key, dtype, shape in zip(params.dense_keys, params.dense_types, params.dense_shapes):
            spec[key] = TensorSpec(rows.concatenate(shape), dtype)
        for key, dtype, splits in zip(params.ragged_keys, params.ragged_value_types, params.ragged_split_types):
            spec[key] = RaggedTensorSpec(rows.concatenate([None]), dtype, 1, splits)
        self._function = StructuredFunction(lambda serialized: _parsed_batch(serialized, features),
                                            source.element_spec,
                                            transformation="tf.data.experimental.parse_example_dataset()")
        self._preserve_cardinality = True
        with name_scope("ParseExampleDatasetV2") as self._scope:  # TF's: the op converts it in its own scope
            parallel = _int64(num_parallel_calls, "num_parallel_calls")
        value = tensor_util.constant_value(parallel)
        self._parallel = (os.cpu_count() or 1) if value is None or value == AUTOTUNE else max(int(value), 1)
        DatasetV1.__init__(self, (source,), [parallel, *defaults], spec)

    def _node(self, name: str | None = None) -> Tensor:
        return super()._node(name or self._scope)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [variants[0], self._captures[0], self._captures[1:]]

    def _node_attrs(self) -> dict[str, Any]:
        params = self._params
        return {"sparse_keys": params.sparse_keys, "dense_keys": params.dense_keys,
                "sparse_types": params.sparse_types, "dense_shapes": params.dense_shapes,
                "deterministic": self._deterministic, "ragged_keys": params.ragged_keys,
                "ragged_value_types": params.ragged_value_types, "ragged_split_types": params.ragged_split_types}

    def _bound_function(self, run: _Run) -> Callable:
        return self._function.bound([])


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
