"""`tf.data.Iterator` (TF1's graph-mode iterator) and the functions that make one from a dataset.

An Iterator is a resource handle tensor with the element spec it yields: `get_next()` adds an IteratorGetNext
node of the element's flat components and rebuilds the nested structure (sparse tensors included) from them;
`make_initializer(dataset)` adds a MakeIterator node that binds a dataset of a compatible structure to it. A
one-shot iterator (OneShotIterator) evaluates what its dataset captured and initializes itself on its first
run; a dataset that captures a placeholder or a stateful op cannot be used so, as in TF.
"""

from __future__ import annotations

import warnings
from typing import Any

from tensorweave.data import structure
from tensorweave.data.function import GraphEvaluation
from tensorweave.framework import dtypes, nest, random_seed, tensor_shape
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tensorweave.ops import dataset_ops
from tensorweave.platform.tf_export import tf_export

# The collection of every iterator resource of a graph (TF's name)
GLOBAL_ITERATORS = "iterators"
GET_NEXT_CALL_WARNING_THRESHOLD = 32
GET_NEXT_CALL_WARNING_MESSAGE = (
    "An unusually high number of `Iterator.get_next()` calls was detected. This often indicates that "
    "`Iterator.get_next()` is being called inside a training loop, which will cause gradual slowdown and eventual "
    "resource exhaustion. If this is the case, restructure your code to call `next_element = iterator.get_next()` "
    "once outside the loop, and use `next_element` as the input to some computation that is invoked inside the loop.")


def _legacy_spec(output_types: Any, output_shapes: Any, output_classes: Any) -> Any:
    """The element spec TF1's legacy structure describes (shapes unknown and classes Tensor where not given)."""
    output_types = nest.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        output_shapes = nest.map_structure(lambda _: tensor_shape.unknown_shape(), output_types)
    else:
        output_shapes = structure.shapes_like(output_types, output_shapes)
    if output_classes is None:
        output_classes = nest.map_structure(lambda _: Tensor, output_types)
    return structure.element_spec(output_types, output_shapes, output_classes)


@tf_export("data.Iterator")
class Iterator:
    """Represents the state of iterating through a Dataset."""

    def __init__(self, iterator_resource: Tensor, initializer: Operation | None, element_spec: Any) -> None:
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._element_spec = element_spec
        self._components = structure.graph_specs(element_spec)
        self._string_handle = dataset_ops.IteratorToStringHandle(iterator_resource)  # TF makes it up front
        self._get_next_call_count = 0
        add_to_collection(GLOBAL_ITERATORS, iterator_resource)  # what a meta graph lists, as TF's

    @staticmethod
    def from_structure(output_types: Any, output_shapes: Any = None, shared_name: str | None = None,
                       output_classes: Any = None) -> Iterator:
        """A reusable iterator, not bound to a dataset: `make_initializer` binds one."""
        spec = _legacy_spec(output_types, output_shapes, output_classes)
        components = structure.graph_specs(spec)
        handle = dataset_ops.IteratorV2(shared_name=shared_name or "", container="",
                                        output_types=[s.dtype for s in components],
                                        output_shapes=[s.shape for s in components])
        return Iterator(handle, None, spec)

    @staticmethod
    def from_string_handle(string_handle: Any, output_types: Any, output_shapes: Any = None,
                           output_classes: Any = None) -> Iterator:
        """An iterator that uses whichever iterator a fed string handle names (a feedable iterator)."""
        spec = _legacy_spec(output_types, output_shapes, output_classes)
        components = structure.graph_specs(spec)
        string_handle = convert_to_tensor(string_handle, dtype=dtypes.string)
        handle = dataset_ops.IteratorFromStringHandleV2(string_handle, output_types=[s.dtype for s in components],
                                                        output_shapes=[s.shape for s in components])
        return Iterator(handle, None, spec)

    @property
    def initializer(self) -> Operation:
        if self._initializer is not None:
            return self._initializer
        raise ValueError("Iterator does not have an initializer.")

    def make_initializer(self, dataset: Any, name: str | None = None) -> Operation:
        """An op that (re)starts this iterator on `dataset`, whose structure must match."""
        with name_scope(name, "make_initializer") as scope:
            spec = dataset.element_spec  # a DatasetV2's too (no legacy structure attributes)
            types, theirs = self.output_types, structure.legacy_types(spec)
            shapes, classes = structure.legacy_shapes(spec), structure.legacy_classes(spec)
            nest.assert_same_data_structure(types, theirs)  # TF's ValueError
            nest.assert_same_data_structure(self.output_shapes, shapes)
            if nest.flatten(self.output_classes) != nest.flatten(classes):
                raise TypeError(f"Expected output classes {self.output_classes!r} but got dataset with output classes "
                                f"{classes!r}.")
            if nest.flatten(types) != nest.flatten(theirs):
                raise TypeError(f"Expected output types {types!r} but got dataset with output types {theirs!r}.")
            for mine, other in zip(nest.flatten(self.output_shapes), nest.flatten(shapes)):
                if not mine.is_compatible_with(other):
                    raise TypeError(f"Expected output shapes compatible with {self.output_shapes!r} but got dataset "
                                    f"with output shapes {shapes!r}.")
            return dataset_ops.MakeIterator(dataset._variant_tensor(), self._iterator_resource, name=scope)

    def get_next(self, name: str | None = None) -> Any:
        """The next element's tensors (OutOfRangeError 'End of sequence' when the dataset is exhausted). Past 32
        calls on one iterator each call warns as TF's: a get_next in a training loop grows the graph every step."""
        self._get_next_call_count += 1
        if self._get_next_call_count > GET_NEXT_CALL_WARNING_THRESHOLD:
            warnings.warn(GET_NEXT_CALL_WARNING_MESSAGE, stacklevel=2)
        with colocate_with(self._iterator_resource):
            flat = dataset_ops.IteratorGetNext(self._iterator_resource,
                                               output_types=[s.dtype for s in self._components],
                                               output_shapes=[s.shape for s in self._components], name=name)
            return structure.from_graph_tensors(self._element_spec, flat if isinstance(flat, list) else [flat])

    def get_next_as_optional(self) -> Optional:
        """The next element as an Optional, empty once the dataset is exhausted (no OutOfRangeError)."""
        with colocate_with(self._iterator_resource):
            handle = dataset_ops.IteratorGetNextAsOptional(
                self._iterator_resource, output_types=[s.dtype for s in self._components],
                output_shapes=[s.shape for s in self._components])
        return Optional(handle, self._element_spec)

    def string_handle(self, name: str | None = None) -> Tensor:
        """A string tensor naming this iterator, to feed to `from_string_handle`."""
        if name is None:
            return self._string_handle
        with colocate_with(self._iterator_resource):
            return dataset_ops.IteratorToStringHandle(self._iterator_resource, name=name)

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
        """The TypeSpecs of the elements this iterator yields."""
        return self._element_spec


@tf_export("data.make_one_shot_iterator")
def make_one_shot_iterator(dataset: Any) -> Iterator:
    """An iterator that initializes itself on first use: what its dataset captured is evaluated then, so it may
    capture neither a placeholder nor a stateful op (a variable, a lookup table, a random op), as in TF."""
    random_seed.get_seed(None)  # TF's draws an op seed (for the function it defines), which later ops' seeds count
    _check_capturable_by_value(_captures_in_tf_order(dataset, {}))
    evaluate = GraphEvaluation(get_default_graph(), [], dataset._all_captures(), control_inputs=False)
    factory = dataset_ops.register_dataset_factory(lambda: dataset._bind(evaluate([])))
    with colocate_with(dataset._variant_tensor()):  # TF's: with the dataset's node
        handle = dataset_ops.OneShotIterator(dataset_factory=factory, output_types=dataset._graph_types(),
                                             output_shapes=dataset._graph_shapes())
        return Iterator(handle, None, dataset.element_spec)


def _captures_in_tf_order(dataset: Any, seen: dict[int, None]) -> list[Tensor]:
    """The tensors `dataset` captured in the order TF's dataset node reads them: its input datasets' first."""
    if id(dataset) in seen:
        return []
    seen[id(dataset)] = None
    inputs = [t for source in dataset._inputs for t in _captures_in_tf_order(source, seen)]
    return inputs + list(dataset._captures)


def _check_capturable_by_value(tensors: list[Tensor]) -> None:
    """TF's capture by value (of a one-shot iterator's dataset): each op, then its inputs depth first; a stateful
    op or a placeholder fails."""
    seen: set[Operation] = set()
    stack = [t.op for t in reversed(tensors)]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if "_dataset_factory" in op._node_def.attr:  # a dataset a function captured: its own captures count
            stack.extend(t.op for t in reversed(op.inputs))
            continue
        if op._op_def is not None and op._op_def.is_stateful:
            raise ValueError(f"Cannot capture a stateful node (name:{op.name}, type:{op.type}) by value.: A likely "
                             "cause of this error is that the dataset for which you are calling "
                             "`make_one_shot_iterator()` captures a stateful object, such as a `tf.Variable` or "
                             "`tf.lookup.StaticHashTable`, which is not supported. Use "
                             "`make_initializable_iterator()` instead.")
        if op.type in ("Placeholder", "PlaceholderV2"):
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value.")
        stack.extend(t.op for t in reversed(op.inputs))


@tf_export("data.make_initializable_iterator")
def make_initializable_iterator(dataset: Any, shared_name: str | None = None) -> Iterator:
    """An iterator with an `initializer` op that (re)starts it on `dataset` (its placeholders fed then)."""
    with colocate_with(dataset._variant_tensor()):  # TF's: with the dataset's node
        handle = dataset_ops.IteratorV2(shared_name=shared_name or "", container="",
                                        output_types=dataset._graph_types(), output_shapes=dataset._graph_shapes())
        return Iterator(handle, dataset_ops.MakeIterator(dataset._variant_tensor(), handle), dataset.element_spec)


@tf_export("data.get_output_types")
def get_output_types(dataset_or_iterator: Any) -> Any:
    return structure.legacy_types(dataset_or_iterator.element_spec)


@tf_export("data.get_output_shapes")
def get_output_shapes(dataset_or_iterator: Any) -> Any:
    return structure.legacy_shapes(dataset_or_iterator.element_spec)


@tf_export("data.get_output_classes")
def get_output_classes(dataset_or_iterator: Any) -> Any:
    return structure.legacy_classes(dataset_or_iterator.element_spec)


@tf_export("data.experimental.Optional")
class Optional:
    """A value that may be absent: an iterator's next element, or nothing once it is exhausted."""

    def __init__(self, variant: Tensor, element_spec: Any) -> None:
        self._variant_tensor = variant
        self._element_spec = element_spec
        self._components = structure.graph_specs(element_spec)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def has_value(self, name: str | None = None) -> Tensor:
        """A scalar bool tensor: whether there is a value."""
        return dataset_ops.OptionalHasValue(self._variant_tensor, name=name)

    def get_value(self, name: str | None = None) -> Any:
        """The value's tensors (InvalidArgumentError at run time when there is none)."""
        with name_scope(name, "OptionalGetValue") as scope:  # TF's: a sparse value's rebuild in its scope
            flat = dataset_ops.OptionalGetValue(self._variant_tensor,
                                                output_types=[s.dtype for s in self._components],
                                                output_shapes=[s.shape for s in self._components], name=scope)
            return structure.from_graph_tensors(self._element_spec, flat if isinstance(flat, list) else [flat])


@tf_export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator: Iterator) -> Optional:
    """`iterator.get_next_as_optional()`."""
    return iterator.get_next_as_optional()
