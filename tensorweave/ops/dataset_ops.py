"""The iterator ops of tf.data (IteratorV2, MakeIterator, IteratorGetNext, OneShotIterator, string handles)
and `_PyDataset`, the node that turns a dataset definition and its captured tensors into a dataset value.

A dataset's definition is a Python object of `tensorweave.data` (L5); the graph holds one `_PyDataset` node
per dataset a program iterates, whose inputs are every tensor the definition captured (a fed placeholder, a
batch size) and whose `dataset_factory` func attr names the definition in this module's registry (as
`py_func` names its function). Its kernel binds the captured values: the result, a `variant`, is an object
whose `make_iterator()` returns a Python iterator of elements (lists of arrays). TF builds one op per
transformation instead; the behaviour seen through the iterator ops is the same.

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
               attrs=["dataset_factory: func", "Targuments: list(type) >= 0"] + _STRUCTURE_ATTRS,
               is_stateful=True)  # its value is an object, never a constant to fold
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
IteratorToStringHandle = Op("IteratorToStringHandle", inputs=["resource_handle: resource"],
                            outputs=["string_handle: string"], is_stateful=True)
IteratorFromStringHandleV2 = Op("IteratorFromStringHandleV2", inputs=["string_handle: string"],
                                outputs=["resource_handle: resource"],
                                attrs=["output_types: list(type) >= 0 = []", "output_shapes: list(shape) >= 0 = []"],
                                is_stateful=True)


@PyDataset.shape
@IteratorV2.shape
@OneShotIterator.shape
@IteratorToStringHandle.shape
@DatasetCardinality.shape
@IteratorGetNextAsOptional.shape
@OptionalHasValue.shape
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
@OptionalGetValue.shape
def _get_next_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape(s) for s in ctx.attr("output_shapes")]


@PyDataset.kernel("CPU")
def _py_dataset(ctx: OpKernelContext, *arguments: Any, dataset_factory: str) -> Any:
    return _factory(ctx, dataset_factory)(*arguments)


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
    element = optional.components
    return element[0] if len(element) == 1 else element


@IteratorToStringHandle.kernel("CPU")
def _iterator_to_string_handle(ctx: OpKernelContext, resource_handle: IteratorResource) -> Any:
    return np.asarray(resource_handle.string_handle, dtype=object)


@IteratorFromStringHandleV2.kernel("CPU")
def _iterator_from_string_handle(ctx: OpKernelContext, string_handle: Any, output_types: list,
                                 output_shapes: list) -> IteratorResource:
    container, _, name = np.asarray(string_handle).item().decode().partition("\x00")
    resource = ctx.resources.lookup(container, name)
    if output_types and list(output_types) != resource.output_types:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, "Iterator output types do not match the expected output types: "
            f"{_type_names(resource.output_types)} vs. {_type_names(output_types)}")
    return resource


def _type_names(types: list[dtypes.DType]) -> str:
    return "[" + ", ".join(dtypes.type_string(t) for t in types) + "]"
