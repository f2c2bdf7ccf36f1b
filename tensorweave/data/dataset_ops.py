"""`tf.data.Dataset` (TF1's DatasetV1): the definition every dataset is, its iteration machinery, and DatasetSpec.

A Dataset is an immutable definition: its input datasets, the tensors it captured (in the graph it was made
in: a fed placeholder, a batch size, the outer tensors its functions read) and the structure of its elements
(`element_spec`, TypeSpecs nested as TF's, of which `output_types`, `output_shapes` and `output_classes` are
TF1's views). Functions given to map, filter, flat_map, interleave, scan and group_by_window are traced once
into function graphs (function.py) and run per element by an Executor, with the values of their captures.
The sources (sources.py) and transformations (transformations.py) subclass DatasetV1; its methods reach their
classes through the `transformation` hook, which transformations.py installs.

Each dataset makes its node where it is made, as TF's: TF's op type and name (`_op`), its input datasets'
nodes then its captures as inputs (`_node_inputs`, in TF's order), TF's attrs (`_node_attrs`; a function's
name, the traced function in the graph's library); a dataset TF builds otherwise is a `_PyDataset` node. At run
time the node binds its inputs' values into a `_Bound` (`_bind_node`; a one-shot iterator binds its dataset's
captured values all at once, `_bind`), and each `make_iterator()` walks the definition into a pipeline of Python generators of flat elements (lists of arrays, a sparse
component as its three: structure.py; a window of Dataset.window as a WindowValue, which the function given
its dataset reads through a `_VariantDataset`); state that lives for one iteration (a shuffle's generator, an
in-memory cache) is kept in that iteration's `_Run`. Each dataset bound at run time takes TF's name for it, its op
type and the next number of a process-wide count; with the prefix of its iterator in TF's optimized pipeline
(`Iterator::Root::Prefetch::Map`) it leads the message of an error of its function, as TF's AddErrorContext.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from collections import deque
from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.data import iterator_ops, structure
from tensorweave.data.options import Options
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import (
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    executing_eagerly,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.hooks import Hook
from tensorweave.framework.op_registry import Op
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import (
    TensorSpec,
    TypeSpec,
    register_type_spec_from_value_converter,
)
from tensorweave.ops import (
    dataset_ops,
    elementwise_ops,
    io_ops,
    logging_ops,
    manipulation_ops,
    shape_ops,
    string_ops,
)
from tensorweave.platform.tf_export import export_value, tf_export

AUTOTUNE = -1


export_value(AUTOTUNE, "data.AUTOTUNE", "data.experimental.AUTOTUNE")


INFINITE_CARDINALITY = -1


export_value(INFINITE_CARDINALITY, "data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY")


UNKNOWN_CARDINALITY = -2


export_value(UNKNOWN_CARDINALITY, "data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY")

# The shard index that asks tf.distribute's auto-sharding to fill it in (TF's)
SHARD_HINT = -1


export_value(SHARD_HINT, "data.experimental.SHARD_HINT")


Element = list  # one flat element: a list of arrays, one per component

# The classes (and functions) that make DatasetV1's sources and transformations, by name: they subclass it,
# so the module that defines them installs this lookup.
transformation: Hook[Callable[[str], Callable[..., Any]]] = Hook("tf.data transformations",
                                                                 "tensorweave.data.transformations")



class _Run:
    """One iteration over a bound dataset tree: each dataset's captured values, and per-iterator state.

    A stage whose element fails hands the error to `failed`, which counts it for the stages above, and goes on
    to its next element: TF's iterator returns the error and is called again (a Python generator that raised
    cannot resume), so the iteration's `_Reporting` raises it in its place, and an `ignore_errors` stage, whose
    input runs as a child run (`ignoring()`), drops it."""

    def __init__(self, values: dict[int, list[Any]], fuse_map_and_batch: bool = True,
                 state: dict[int, Any] | None = None, failures: deque | None = None,
                 outer: _Run | None = None, names: dict[int, str] | None = None,
                 root: tuple[DatasetV1, str] | None = None) -> None:
        self.values = values
        self.names = {} if names is None else names  # each dataset's TF name, '<op type>:<its number>'
        self.root = root  # the iterated dataset and the prefix of its iterator's, for TF's error context
        self.fuse_map_and_batch = fuse_map_and_batch  # the iterated dataset's options allow it (TF's default)
        self.state: dict[int, Any] = {} if state is None else state
        self.failures = deque() if failures is None else failures  # the errors not yet taken above
        self._count = 0  # every failure so far, counted by the outermost run
        self._outer = outer

    def ignoring(self) -> _Run:
        """The run of an ignore_errors stage's input: the same values and state, with its own failures."""
        return _Run(self.values, self.fuse_map_and_batch, self.state, deque(), names=self.names, root=self.root)

    def nested(self, bound: _Bound, prefix: str = "") -> _Run:
        """The run of a dataset made for one element (interleave's inner datasets): its own values and state,
        its failures this run's, so that the inner iterator goes on as TF's does; `prefix`, that of the
        iterator it is read by, with the element's index."""
        return _Run(bound.values, self.fuse_map_and_batch, None, self.failures, self, bound.names,
                    (bound.dataset, prefix))

    def in_function(self, dataset: DatasetV1, error: errors.OpError) -> errors.OpError:
        """The error of `dataset`'s function as TF's iterator reports it (its AddErrorContext): the dataset's
        name and the prefix of its iterator before the message."""
        prefix = self.iterator_prefix(dataset)
        if prefix is None or id(dataset) not in self.names:
            return error
        context = type(error)(error.node_def, None, f"Error in user-defined function passed to "
                                                    f"{self.names[id(dataset)]} transformation with iterator: "
                                                    f"{prefix}: {error.message}")
        context._names_its_node = getattr(error, "_names_its_node", False)
        return context

    def iterator_prefix(self, dataset: DatasetV1) -> str | None:
        """The prefix of `dataset`'s iterator, as TF names it after its optimizations ('Iterator::Root::
        Prefetch::Map'): each iterator's name below its parent's (its `_iterator_name`), the index of an input
        or an epoch in brackets; None where it is not in the iterated tree."""
        if self.root is None:
            return None
        top, prefix = self.root
        path = _iterator_path(top, dataset, self)
        return None if path is None else prefix + path

    def _root_prefix(self, dataset: DatasetV1) -> str:
        """'Iterator::Root', and TF's autotune's injected Prefetch where the last dataset does not run ahead."""
        autotune = dataset._merged_options().autotune.enabled is not False
        while dataset._iterator_name(self) is None and dataset._inputs:  # options: no iterator of their own
            dataset = dataset._inputs[0]
        injected = autotune and dataset._op.name not in _ASYNC_OPS
        return "Iterator::Root::Prefetch" if injected else "Iterator::Root"

    @property
    def failure_count(self) -> int:
        """Every failure so far (a batch drops the one it was gathering)."""
        return self._count if self._outer is None else self._outer.failure_count

    def failed(self, error: errors.OpError) -> None:
        if self._outer is not None:
            self._outer.failed(error)
            return
        if isinstance(error, errors.OutOfRangeError):
            raise error
        self._count += 1
        self.failures.append(error)

    def captured(self, dataset: DatasetV1) -> list[Any]:
        return self.values[id(dataset)]

    def scalar(self, dataset: DatasetV1, index: int) -> Any:
        return np.asarray(self.values[id(dataset)][index]).item()


# The datasets whose iterators run ahead of their consumer: TF's inject_prefetch adds no Prefetch after them
_ASYNC_OPS = frozenset({"PrefetchDataset", "ParallelMapDatasetV2", "ParallelInterleaveDatasetV4",
                        "ParallelBatchDataset", "MapAndBatchDataset"})

# Numbers the datasets made at run time, as TF's DatasetBase names itself when no name was given
_dataset_numbers = itertools.count()


def _iterator_path(top: DatasetV1, dataset: DatasetV1, run: _Run, absorbed: bool = False) -> str | None:
    """'::Name' for each iterator from `top` down to `dataset`'s (none for one its parent's absorbed), or None
    where `dataset` is not below it."""
    if top._op is dataset_ops.PyDataset:  # a dataset TF builds otherwise: its iterators' names are not known
        return None
    name = None if absorbed else top._iterator_name(run)
    here = "" if name is None else "::" + name
    if top is dataset:
        return here
    for index, source in enumerate(top._inputs):
        below = _iterator_path(source, dataset, run, top._absorbs_input(run))
        if below is not None:
            return here + top._input_suffix(index, run) + below
    return None


class _Reporting:
    """The elements of an iteration, and the errors of the elements that failed in their places: a stage
    whose element fails hands the error to its run and goes on, and the next call raises it, so the calls after
    go on with the next elements, as TF's iterator returns an element's error and can be called again. An
    error that ends a stage (its generator raised) ends the iteration after it."""

    def __init__(self, failures: deque, elements: PyIterator[Element]) -> None:
        self._failures = failures
        self._elements = elements
        self._held: Element | None = None  # an element made after a failure, returned on the next call

    def __iter__(self) -> _Reporting:
        return self

    def __next__(self) -> Element:
        if self._failures:
            raise self._failures.popleft()
        if self._held is not None:
            element, self._held = self._held, None
            return element
        try:
            element = next(self._elements)
        except StopIteration:
            if self._failures:
                raise self._failures.popleft() from None
            raise
        if self._failures:
            self._held = element
            raise self._failures.popleft()
        return element


class _Bound:
    """A dataset with the captured values of it and the datasets it reads (the `variant` value its node outputs).
    A ref variable's value is its live buffer, as in TF: elements made after an update of the variable see it."""

    def __init__(self, dataset: DatasetV1, values: dict[int, list[Any]], names: dict[int, str]) -> None:
        self.dataset = dataset
        self.values = values
        self.names = names

    def make_iterator(self) -> PyIterator[Element]:
        fuse = self.dataset._merged_options().experimental_optimization.map_and_batch_fusion is not False
        run = _Run(self.values, fuse, names=self.names)
        run.root = (self.dataset, run._root_prefix(self.dataset))
        elements = _Reporting(run.failures, self.dataset._iterate(run))
        spec = self.dataset.element_spec
        if structure.is_dense(spec):
            return elements
        return (structure.to_graph_values(spec, element) for element in elements)  # what the graph's tensors hold

    def cardinality(self) -> int:
        return self.dataset._cardinality(_Run(self.values))

    def iterate_in(self, run: _Run, prefix: str = "") -> PyIterator[Element]:
        """The elements, as a dataset made inside `run` (an interleave's) iterates them; `prefix`, that of the
        iterator reading them."""
        return self.dataset._iterate(run.nested(self, prefix))


def _v2(dataset: DatasetV1) -> DatasetV1:
    """`dataset` as TF's DatasetV2 (what a transformation TF1's Dataset does not override returns)."""
    dataset._v1 = False
    return dataset


def _v1(dataset: DatasetV1) -> DatasetV1:
    """`dataset` as TF1's Dataset (TF's DatasetV1Adapter of it)."""
    dataset._v1 = True
    return dataset


@tf_export("data.Dataset")
class DatasetV1:
    """Represents a potentially large set of elements."""

    _tf_class_name: str | None = None  # the name TF's own class for this transformation has, where it differs
    # Whether TF's value is a TF1 Dataset (DatasetV1Adapter): what TF1's Dataset overrides returns one, the
    # transformations only DatasetV2 has (take_while, scan, ...) a DatasetV2, which lacks TF1's iterator methods
    # and legacy structure attributes, as do the transformations of a DatasetV2
    _v1 = True

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
        self._v1 = inputs[0]._v1 if inputs else True
        self._variant: Tensor | None = None if executing_eagerly() else self._node()

    # -- structure -------------------------------------------------------------------------------------------

    def _v1_only(self, attribute: str) -> None:
        if not self._v1:
            # no name/obj for Python to suggest from: TF's DatasetV2 has none of TF1's attributes to suggest
            raise AttributeError(f"'{self._tf_class_name or type(self).__name__}' object has no attribute "
                                 f"'{attribute}'", name=None, obj=None)

    @property
    def output_types(self) -> Any:
        self._v1_only("output_types")
        return structure.legacy_types(self._element_spec)

    @property
    def output_shapes(self) -> Any:
        self._v1_only("output_shapes")
        return structure.legacy_shapes(self._element_spec)

    @property
    def output_classes(self) -> Any:
        self._v1_only("output_classes")
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

    def _graph_types(self) -> list[dtypes.DType]:
        """The dtypes of an element's tensors in the graph (a sparse value one variant), TF's output_types."""
        return [s.dtype for s in structure.graph_specs(self._element_spec)]

    def _graph_shapes(self) -> list[tensor_shape.TensorShape]:
        return [s.shape for s in structure.graph_specs(self._element_spec)]

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
        """This dataset bound to the values of `_all_captures()`."""
        bound, position = {}, 0
        members = self._datasets()
        for member in members:
            bound[id(member)] = list(values[position:position + len(member._captures)])
            member._validate(bound[id(member)])
            position += len(member._captures)
        return _Bound(self, bound, {id(m): f"{m._op.name}:{next(_dataset_numbers)}" for m in reversed(members)})

    def _variant_tensor(self) -> Tensor:
        """The output of this dataset's node (made where the dataset was, or first asked for when eager)."""
        if self._variant is None:
            self._variant = self._node()
        return self._variant

    # The op of this dataset's node: TF's, where TF's graph has one node for the transformation
    _op: Op = dataset_ops.PyDataset

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        """The node's inputs, one per input arg of its op; flattened, the input datasets' variants then this
        dataset's captures (the order `_bind_node` reads them in), or a constant the node converts in its own
        scope as TF's does (a rewrite's name), which no `_iterate` reads."""
        if self._op is dataset_ops.PyDataset:
            return [variants + self._captures]
        return [*variants, *self._captures]

    def _node_attrs(self) -> dict[str, Any]:
        """The node's attrs besides the element structure (a function's name, a flag)."""
        return {}

    _colocated = False  # its node is colocated with its input's (TF's prefetch and options)

    def _node(self, name: str | None = None) -> Any:
        """This dataset's node in the default graph, TF's op type and name, over its input datasets' nodes: its
        variant (the element's tensors, for an op that consumes the dataset, as ReduceDataset)."""
        op = self._op
        known = {a.name for a in op.op_def.attrs}
        attrs = {name: value for name, value in (("output_types", self._graph_types()),
                                                 ("output_shapes", self._graph_shapes())) if name in known}
        attrs.update(self._node_attrs())
        variants = [d._variant_tensor() for d in self._inputs]
        with colocate_with(variants[0]) if self._colocated else contextlib.nullcontext():
            variant = op(*self._node_inputs(variants), name=name or op.name.lstrip("_"), **attrs)
        (variant[0] if isinstance(variant, list) else variant).op._set_attr(
            "_dataset_factory", dataset_ops.register_dataset_factory(self._bind_node))
        return variant

    def _bind_node(self, *values: Any) -> _Bound:
        """The kernel of this dataset's node: the bound input datasets (a variant an input dataset is made of,
        a window's, as that dataset's captured value), then this dataset's captured values."""
        bound: dict[int, list[Any]] = {}
        names: dict[int, str] = {}
        for source, value in zip(self._inputs, values):
            bound.update(value.values if isinstance(value, _Bound) else {id(source): [value]})
            names.update(value.names if isinstance(value, _Bound) else {})
        bound[id(self)] = list(values[len(self._inputs):])
        self._validate(bound[id(self)])
        names[id(self)] = f"{self._op.name}:{next(_dataset_numbers)}"
        return _Bound(self, bound, names)

    def _validate(self, captured: list[Any]) -> None:
        """TF's checks of the dataset's arguments, which its node's kernel makes (so an iterator's initializer
        fails naming that node): InvalidArgumentError."""

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        raise NotImplementedError

    def _iterator_name(self, run: _Run) -> str | None:
        """The name TF's iterator of this dataset has in its prefix (TF's dataset type: the op's, without
        'Dataset'); None where TF's pipeline has no iterator for it."""
        return self._op.name.replace("Dataset", "")

    def _input_suffix(self, index: int, run: _Run) -> str:
        """What follows this dataset's iterator name in the prefix of its `index`-th input's ('[0]' for a zip)."""
        return ""

    def _absorbs_input(self, run: _Run) -> bool:
        """Whether TF fuses this dataset's input into its iterator (a repeat of a shuffle)."""
        return False

    _same_cardinality = False  # one element out per element in (a map, a shuffle)

    def _cardinality(self, run: _Run) -> int:
        """How many elements an iteration yields, as TF's kernels count them: INFINITE_CARDINALITY (-1), or
        UNKNOWN_CARDINALITY (-2) where counting would mean iterating."""
        return self._inputs[0]._cardinality(run) if self._same_cardinality else UNKNOWN_CARDINALITY

    def __iter__(self) -> Any:
        raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager mode or within "
                           "tf.function.")

    # -- iterators ---------------------------------------------------------------------------------------------

    @property
    def make_one_shot_iterator(self) -> Callable[[], iterator_ops.Iterator]:
        """An iterator that initializes itself on first use."""
        self._v1_only("make_one_shot_iterator")
        return lambda: iterator_ops.make_one_shot_iterator(self)

    @property
    def make_initializable_iterator(self) -> Callable[..., iterator_ops.Iterator]:
        """An iterator with an initializer op (run it, feeding the dataset's placeholders)."""
        self._v1_only("make_initializable_iterator")
        return lambda shared_name=None: iterator_ops.make_initializable_iterator(self, shared_name)

    def get_single_element(self, name: str | None = None) -> Any:
        """The tensors of this dataset's one element (InvalidArgumentError at run time when it has none or
        more than one)."""
        flat = dataset_ops.DatasetToSingleElement(self._variant_tensor(), output_types=self._graph_types(),
                                                  output_shapes=self._graph_shapes(), name=name)
        return structure.from_graph_tensors(self._element_spec, flat if isinstance(flat, list) else [flat])

    # -- sources -----------------------------------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of one element, `tensors`."""
        return transformation("_TensorDataset")(tensors)

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of the slices of `tensors` along their first dimension."""
        return transformation("_TensorSliceDataset")(tensors)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
                   name: str | None = None) -> DatasetV1:
        """The names of the files matching `file_pattern` (a glob or a list of them) at run time, sorted, and
        shuffled (all at once) unless `shuffle` is False."""
        with name_scope("list_files"):
            file_pattern = convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
            matching = io_ops.matching_files(file_pattern)
            # TF's check that some file matched, which the slices wait for (a one-shot iterator, capturing by
            # value, drops it)
            found = elementwise_ops.greater(shape_ops.shape(matching)[0], 0, name="match_not_empty")
            message = elementwise_ops.add("No files matched pattern: ",
                                          string_ops.reduce_join(file_pattern, separator=", "), name="message")
            check = logging_ops.Assert_(found, [message], summarize=1, name="assert_not_empty")
            with control_dependencies([check]):
                matching = manipulation_ops.identity(matching)
            dataset = transformation("_TensorSliceDataset")(matching)
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
        return transformation("_SparseSliceDataset")(sparse_tensor)

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
        if args is not None:
            args = tuple(convert_to_tensor(a, name=f"args_{i}") for i, a in enumerate(args))
        # TF's graph: a flat_map of one generator id into the generator's dataset (which reads the args)
        return DatasetV1.from_tensors(0).flat_map(
            lambda _: transformation("_GeneratorDataset")(generator, output_types, output_shapes, args))

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> DatasetV1:
        """A dataset of a step-separated range of values, as Python's `range`."""
        return transformation("_RangeDataset")(args, output_type)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> DatasetV1:
        """An endless dataset of pseudorandom int64 values (TF's, for a seed)."""
        return _v2(transformation("random_dataset")(seed))

    @staticmethod
    def zip(datasets: Any, name: str | None = None) -> DatasetV1:
        """A dataset of the elements of the given (nested) datasets, zipped together."""
        return _v1(transformation("_ZipDataset")(datasets))

    # -- transformations ---------------------------------------------------------------------------------------

    def concatenate(self, dataset: DatasetV1, name: str | None = None) -> DatasetV1:
        return transformation("_ConcatenateDataset")(self, dataset)

    def map(self, map_func: Callable, num_parallel_calls: int | None = None, deterministic: Any = None,
            name: str | None = None) -> DatasetV1:
        """`map_func` (traced once into a graph function) applied to every element."""
        dataset = transformation("_MapDataset")(self, map_func, num_parallel_calls)
        if num_parallel_calls is not None:
            dataset._tf_class_name = "_ParallelMapDataset"
        return dataset

    def filter(self, predicate: Callable, name: str | None = None) -> DatasetV1:
        return transformation("_FilterDataset")(self, predicate)

    @property
    def map_with_legacy_function(self) -> Callable[..., DatasetV1]:
        """TF1's map over a legacy (Defun) function: `map`, its node not preserving cardinality."""
        self._v1_only("map_with_legacy_function")

        def map_with_legacy_function(map_func: Callable, num_parallel_calls: int | None = None,
                                     deterministic: Any = None) -> DatasetV1:
            dataset = transformation("_MapDataset")(self, map_func, num_parallel_calls, legacy=True)
            if num_parallel_calls is not None:
                dataset._tf_class_name = "_ParallelMapDataset"
            return dataset
        return map_with_legacy_function

    @property
    def filter_with_legacy_function(self) -> Callable[[Callable], DatasetV1]:
        """TF1's filter over a legacy (Defun) function: `filter`, though TF's returns a DatasetV2."""
        self._v1_only("filter_with_legacy_function")
        return lambda predicate: _v2(transformation("_FilterDataset")(self, predicate))

    def flat_map(self, map_func: Callable, name: str | None = None) -> DatasetV1:
        dataset = transformation("_InterleaveDataset")(self, map_func)
        dataset._tf_class_name = "_FlatMapDataset"
        return dataset

    def interleave(self, map_func: Callable, cycle_length: int | None = None, block_length: int | None = None,
                   num_parallel_calls: int | None = None, deterministic: Any = None,
                   name: str | None = None) -> DatasetV1:
        """Elements of the datasets `map_func` makes from `cycle_length` input elements at a time, taken
        `block_length` at a time from each in turn."""
        dataset = transformation("_InterleaveDataset")(self, map_func, cycle_length, block_length, num_parallel_calls,
                                                       "Dataset.interleave")
        if num_parallel_calls is not None:
            dataset._tf_class_name = "_ParallelInterleaveDataset"
        return dataset

    def batch(self, batch_size: Any, drop_remainder: Any = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: str | None = None) -> DatasetV1:
        return transformation("_BatchDataset")(self, batch_size, drop_remainder)

    def window(self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: Any = False,
               name: str | None = None) -> DatasetV1:
        """Windows of `size` elements (every `stride`-th), one starting every `shift` (default `size`) elements;
        each element a dataset per component of the input's structure (its spec a DatasetSpec). Without
        `drop_remainder` the last windows may be shorter."""
        return transformation("_SlidingWindowDataset")(self, size, shift, stride, drop_remainder)

    def ragged_batch(self, batch_size: Any, drop_remainder: Any = False, row_splits_dtype: Any = dtypes.int64,
                     name: str | None = None) -> DatasetV1:
        """Batches in which a component whose shape is not fully known is ragged (its ragged dimensions from
        the last unknown one outward), so elements of differing shapes batch together."""
        return _v2(transformation("_DenseToRaggedDataset")(self, row_splits_dtype).batch(batch_size, drop_remainder))

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: Any = False, name: str | None = None) -> DatasetV1:
        return transformation("_PaddedBatchDataset")(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def shuffle(self, buffer_size: Any, seed: int | None = None, reshuffle_each_iteration: bool | None = None,
                name: str | None = None) -> DatasetV1:
        """Elements drawn at random from a buffer of `buffer_size` (TF's order, for a seeded shuffle)."""
        return transformation("_ShuffleDataset")(self, buffer_size, seed, True if reshuffle_each_iteration is None
                               else reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV1:
        return transformation("_CountDataset")(self, "repeat", -1 if count is None else count)

    def take(self, count: Any, name: str | None = None) -> DatasetV1:
        return transformation("_CountDataset")(self, "take", count)

    def skip(self, count: Any, name: str | None = None) -> DatasetV1:
        return transformation("_CountDataset")(self, "skip", count)

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV1:
        """Elements produced ahead by a background thread, up to `buffer_size` of them."""
        return transformation("_CountDataset")(self, "prefetch", buffer_size)

    def cache(self, filename: Any = "", name: str | None = None) -> DatasetV1:
        """The first pass's elements kept and replayed by later passes: in memory, or with a `filename` in a
        tensor bundle there, which later iterators (in any session or process) read instead of the input."""
        return transformation("_CacheDataset")(self, filename)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> DatasetV1:
        return transformation("_ShardDataset")(self, num_shards, index)

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV1:
        """(index, element) pairs, the index counting from `start` (TF zips a range with the dataset)."""
        counts = transformation("_RewriteDataset")(DatasetV1.range(start, np.iinfo(np.int64).max), "replicate_on_split")
        return DatasetV1.zip((counts, self))

    def take_while(self, predicate: Callable, name: str | None = None) -> DatasetV1:
        """The elements up to the first for which `predicate` is false."""
        return _v2(transformation("_TakeWhileDataset")(self, predicate))

    def scan(self, initial_state: Any, scan_func: Callable, name: str | None = None) -> DatasetV1:
        """scan_func(state, element) -> (new state, output element), the state carried across elements."""
        return _v2(transformation("_ScanDataset")(self, initial_state, scan_func))

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """The state reduce_func(state, element) -> new state leaves after the last element, as tensors."""
        final = transformation("_ScanDataset")(self, initial_state, lambda state, element: (reduce_func(state, element), state),
                             final_state=True)
        flat = final.reduced(name)
        return structure.from_graph_tensors(final.element_spec, flat if isinstance(flat, list) else [flat])

    def unbatch(self, name: str | None = None) -> DatasetV1:
        """The rows of each element (TF maps its elements to their dense form first: a MapDataset node, then
        UnbatchDataset); a batch of datasets gives its datasets."""
        return transformation("_UnbatchDataset")(transformation("_NormalizedDataset")(self))

    def sparse_batch(self, batch_size: Any, row_shape: Any, name: str | None = None) -> DatasetV1:
        """Batches of elements of differing shapes as one SparseTensor of dense shape `[batch, *row_shape]`
        (tf.data.experimental.dense_to_sparse_batch)."""
        return _v2(transformation("_DenseToSparseBatchDataset")(self, batch_size, row_shape))

    def unique(self, name: str | None = None) -> DatasetV1:
        """The first occurrence of each distinct element (int32, int64 or string elements)."""
        return _v2(transformation("_UniqueDataset")(self))

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: DatasetV1, stop_on_empty_dataset: bool = True,
                             name: str | None = None) -> DatasetV1:
        """The next element of `datasets[i]` for each `i` of `choice_dataset`."""
        return _v2(transformation("_choose_from_datasets")(datasets, choice_dataset, stop_on_empty_dataset))

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
        return _v2(transformation("_GroupByWindowDataset")(self, key_func, reduce_func, window_size_func))

    def bucket_by_sequence_length(self, element_length_func: Callable, bucket_boundaries: Any,
                                  bucket_batch_sizes: Any, padded_shapes: Any = None, padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                                  drop_remainder: bool = False, name: str | None = None) -> DatasetV1:
        """Elements batched (padded, unless `no_padding`) with others whose `element_length_func` length falls
        in the same bucket of `bucket_boundaries`, `bucket_batch_sizes[bucket]` to a batch."""
        return _v2(transformation("bucket_by_sequence_length")(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
                                         padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)(self))

    def cardinality(self) -> Tensor:
        return cardinality(self)

    def rejection_resample(self, class_func: Callable, target_dist: Any, initial_dist: Any = None,
                           seed: int | None = None, name: str | None = None) -> DatasetV1:
        """(class_func(element), element) pairs, resampled so that the classes follow `target_dist`."""
        return _v2(transformation("rejection_resample")(self, class_func, target_dist, initial_dist, seed))

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> DatasetV1:
        return _v2(transformation("_IgnoreErrorsDataset")(self, log_warning))

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                             stop_on_empty_dataset: bool = False, rerandomize_each_iteration: Any = None) -> DatasetV1:
        sampled = transformation("sample_from_datasets")(datasets, weights, seed, stop_on_empty_dataset)
        return sampled if any(sampled is d for d in datasets) else _v2(sampled)

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64, name: str | None = None) -> DatasetV1:
        """An endless dataset counting from `start` by `step` (TF's: a scan over a repeated element)."""
        with name_scope("counter"):
            start = convert_to_tensor(start, dtype=dtype, name="start")
            step = convert_to_tensor(step, dtype=dtype, name="step")
            return _v2(DatasetV1.from_tensors(0).repeat(None).scan(
                (start, step), lambda state, _: ((state[0] + state[1], state[1]), state[0])))

    def with_options(self, options: Options, name: str | None = None) -> DatasetV1:
        """This dataset with `options` merged over the options of its inputs."""
        return transformation("_OptionsDataset")(self, options)

    def options(self) -> Options:
        """The options of this dataset and every dataset it reads, merged (later ones win); in graph mode TF warns
        that its graph holds them."""
        if not executing_eagerly():
            warnings.warn("To make it possible to preserve tf.data options across serialization boundaries, their "
                          "implementation has moved to be part of the TensorFlow graph. As a consequence, the options "
                          "value is in general no longer known at graph construction time. Invoking this method in "
                          "graph mode retains the legacy behavior of the original implementation, but note that the "
                          "returned value might not reflect the actual value of the options.", stacklevel=2)
        return self._merged_options()

    def _merged_options(self) -> Options:
        merged = Options()
        for source in self._inputs:
            merged = merged.merge(source._merged_options())
        return merged

    def apply(self, transformation_func: Callable[[DatasetV1], DatasetV1]) -> DatasetV1:
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return _v1(dataset) if self._v1 else dataset  # TF1's apply wraps what it gets in a DatasetV1Adapter


def _visible_from(tensor: Tensor, graph: Any) -> bool:
    """Whether `tensor` is of `graph` or of a graph enclosing it (which a function graph captures from)."""
    while graph is not None:
        if tensor.graph is graph:
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


def _int64(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


@tf_export("data.experimental.cardinality")
def cardinality(dataset: DatasetV1) -> Tensor:
    """The number of elements of `dataset` as a scalar int64 tensor: INFINITE_CARDINALITY when it repeats
    forever, UNKNOWN_CARDINALITY when only iterating could tell (a filter, a generator)."""
    return dataset_ops.DatasetCardinality(dataset._variant_tensor())


@tf_export("data.experimental.get_single_element")
def get_single_element(dataset: DatasetV1) -> Any:
    """The tensors of the one element of `dataset`."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}.")
    return dataset.get_single_element()


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
        if isinstance(value, (_VariantDataset, _NestedVariant)):
            return value._variant_tensor()
        raise NotImplementedError("tensorweave's datasets are Python definitions, not variant tensors.")

    def _from_components(self, components: Any) -> Any:
        """The dataset a variant tensor holds (a window, in a function over windows); a batch of datasets is
        a _NestedVariant, as TF's."""
        if self._dataset_shape.ndims == 0:
            return _VariantDataset(self._element_spec, components)
        return _NestedVariant(components, self._element_spec, self._dataset_shape)

    def _batch(self, batch_size: int | None) -> TypeSpec:
        return DatasetSpec(self._element_spec, tensor_shape.TensorShape([batch_size]).concatenate(self._dataset_shape))

    def _unbatch(self) -> TypeSpec:
        if self._dataset_shape.ndims == 0:
            raise ValueError("Slicing dataset elements is not supported for rank 0.")
        return DatasetSpec(self._element_spec, self._dataset_shape[1:])

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


class _NestedVariant:
    """A batch of datasets (TF's `_NestedVariant`): the variant tensor of a batch of windows, which no dataset
    method reads; `unbatch` gives the datasets back."""

    def __init__(self, variant: Tensor, element_spec: Any, dataset_shape: tensor_shape.TensorShape) -> None:
        self._variant = variant
        self._element_spec = element_spec
        self._dataset_shape = dataset_shape

    def _variant_tensor(self) -> Tensor:
        return self._variant

    @property
    def _type_spec(self) -> DatasetSpec:
        return DatasetSpec(self._element_spec, self._dataset_shape)


class _VariantDataset(DatasetV1):
    """The dataset a variant tensor holds: its elements are the run-time value's (a WindowValue; one row of a
    batch of them is a 0-d object array holding one)."""

    def __init__(self, element_spec: Any, variant: Tensor) -> None:
        super().__init__((), [variant], element_spec)

    def _node(self) -> Tensor:
        return self._captures[0]  # the variant tensor it is made from, as TF's dataset of a variant

    def _window(self, run: _Run) -> WindowValue:
        value = run.captured(self)[0]
        return value[()] if isinstance(value, np.ndarray) else value

    def _cardinality(self, run: _Run) -> int:
        return len(self._window(run).elements)

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return iter(self._window(run).elements)


register_type_spec_from_value_converter(DatasetV1, DatasetSpec.from_value)


@tf_export("data.experimental.get_structure")
def get_structure(dataset_or_iterator: Any) -> Any:
    """The element spec of a dataset or iterator."""
    if not isinstance(dataset_or_iterator, (DatasetV1, iterator_ops.Iterator)):
        raise TypeError("Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` or "
                        f"tf.data.Iterator object, but got {type(dataset_or_iterator)}.")
    return dataset_or_iterator.element_spec
