"""`tf.data.experimental` transformations that wrap a Dataset method (take_while, enumerate_dataset), the
device-copy ones (one CPU device here: the elements stay where they are), assert_cardinality and
group_by_reducer."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from typing import Any

from tensorweave import errors
from tensorweave.data import structure
from tensorweave.data.dataset_ops import INFINITE_CARDINALITY, DatasetV1, Element, _int64, _Run
from tensorweave.data.function import StructuredFunction
from tensorweave.framework import dtypes, nest
from tensorweave.framework.type_spec import TensorSpec
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

    def __init__(self, source: DatasetV1, key_func: Callable, reducer: Reducer) -> None:
        scalar = TensorSpec([], dtypes.int64)
        self._key = StructuredFunction(lambda *args: _int64(key_func(*args), "key"), source.element_spec)
        if not self._key.output_spec.is_compatible_with(scalar):
            raise ValueError("Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its "
                             f"return type is {self._key.output_spec}.")
        self._init = StructuredFunction(reducer.init_func, scalar)
        state_spec = self._init.output_spec
        self._reduce = StructuredFunction(reducer.reduce_func, (state_spec, source.element_spec))
        reduced = self._reduce.output_spec
        nest.assert_same_structure(state_spec, reduced)
        if nest.flatten(structure.legacy_types(state_spec)) != nest.flatten(structure.legacy_types(reduced)):
            raise TypeError(f"Invalid `reducer`. The element types for the new state must match the initial state. "
                            f"Expected {structure.legacy_types(state_spec)}, got "
                            f"{structure.legacy_types(reduced)}.")
        self._finalize = StructuredFunction(reducer.finalize_func, state_spec)
        self._functions = (self._key, self._init, self._reduce, self._finalize)
        super().__init__((source,), [t for f in self._functions for t in f.captures], self._finalize.output_spec)

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
