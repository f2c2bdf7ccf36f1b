"""`tf.data.experimental` transformations that wrap a Dataset method (scan, take_while, enumerate_dataset), the
device-copy ones (one CPU device here: the elements stay where they are) and assert_cardinality."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from typing import Any

from tensorweave import errors
from tensorweave.data.dataset_ops import INFINITE_CARDINALITY, DatasetV1, Element, _int64, _Run
from tensorweave.platform.tf_export import tf_export

Transformation = Callable[[DatasetV1], DatasetV1]


@tf_export("data.experimental.scan")
def scan(initial_state: Any, scan_func: Callable) -> Transformation:
    return lambda dataset: dataset.scan(initial_state, scan_func)


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
