"""The source datasets of tf.data: from_tensors, from_tensor_slices, from_generator, range, and `DatasetSource`
(whose elements a Python function yields: the file readers)."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.data import structure
from tensorweave.data.dataset_ops import (
    DatasetV1,
    Element,
    _int64,
    _Run,
)
from tensorweave.data.elements import (
    _rows,
    _unbatched,
)
from tensorweave.data.function import normalize_element
from tensorweave.framework import dtypes, nest, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    convert_to_tensor,
)
from tensorweave.framework.op_kernel import nested_error
from tensorweave.framework.op_registry import Op
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import (
    SparseTensorSpec,
    TensorSpec,
)
from tensorweave.ops import dataset_ops, script_ops
from tensorweave.ops.ragged_tensor import RaggedTensorSpec


class _TensorDataset(DatasetV1):
    _op = dataset_ops.TensorDataset

    def __init__(self, tensors: Any) -> None:
        values = normalize_element(tensors)
        spec = structure.spec_of(values)
        super().__init__((), structure.to_graph_tensors(values, spec), spec)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [self._captures]

    def _cardinality(self, run: _Run) -> int:
        return 1

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        yield structure.from_graph_values(self._element_spec, list(run.captured(self)))


class _TensorSliceDataset(DatasetV1):
    _op = dataset_ops.TensorSliceDataset

    def __init__(self, tensors: Any) -> None:
        values = normalize_element(tensors)
        flat = [t for t in nest.flatten(values) if t is not None]  # a None has no tensor (TF's NoneTensorSpec)
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        rows = tensor_shape.Dimension(None)
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if t.shape.ndims is not None:
                rows = rows.merge_with(t.shape[0])
        spec = structure.spec_of(values)
        self._batched = spec
        super().__init__((), self._graph_tensors(values, spec), nest.map_structure(lambda s: s._unbatch(), spec))

    def _graph_tensors(self, values: Any, spec: Any) -> list[Tensor]:
        """The node's inputs: the batched tensors, a sparse one serialized (SerializeManySparse), as TF's."""
        return structure.to_graph_tensors(values, spec, batched=True)

    def _batched_components(self, run: _Run) -> list[Any]:
        return structure.from_graph_values(self._batched, list(run.captured(self)), batched=True)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [self._captures]

    def _cardinality(self, run: _Run) -> int:
        values = self._batched_components(run)
        first = next(s for s in nest.flatten(self._batched) if nest.flatten(s._component_specs))
        if isinstance(first, SparseTensorSpec):
            return int(np.asarray(values[2])[0])
        if isinstance(first, RaggedTensorSpec) and first.ragged_rank > 0:
            return len(values[1]) - 1
        return int(np.shape(values[0])[0])

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        if not structure.is_dense(self._batched):
            yield from _unbatched(self._batched, self._batched_components(run))
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
    _op = dataset_ops.SparseTensorSliceDataset

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return self._captures

    def _graph_tensors(self, values: Any, spec: Any) -> list[Tensor]:
        return structure.to_components(values, spec)

    def _batched_components(self, run: _Run) -> list[Any]:
        return list(run.captured(self))

    def __init__(self, sparse_tensor: SparseTensor) -> None:
        super().__init__(sparse_tensor)
        self._element_spec = tuple(self._components)


class _GeneratorDataset(DatasetV1):
    """TF's from_generator: each element comes from a Python function its kernel calls, a PyFunc, or an
    EagerPyFunc where no output shape is known (TF's test `output_types and output_shapes`), which checks
    elements as TF's output_signature path does."""

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
        self._eager = not (output_types and output_shapes)
        super().__init__((), captures, structure.element_spec(output_types, output_shapes))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        args = [a.item() if isinstance(a, np.ndarray) and a.ndim == 0 and a.dtype == object else a
                for a in run.captured(self)]
        node = "EagerPyFunc" if self._eager else "PyFunc"
        generated = iter(self._generator(*args))
        while True:
            try:
                item = next(generated)
            except StopIteration:
                return
            except Exception as e:  # TF's error for this element; the generator, finished, then ends
                run.failed(_in_py_func(e, node))
                return
            try:  # an element that does not convert fails alone, and the generator goes on
                element = self._element(item)
            except TypeError as e:
                run.failed(_in_py_func(e, node))
                continue
            yield element

    def _element(self, item: Any) -> Element:
        """A yielded element's flat arrays, or TF's TypeError for it."""
        values = _flatten_like(self._output_structure, item)
        types, shapes = self._flat_types(), self._flat_shapes()
        if self._eager:  # TF's normalize_element, then a check of the specs (all compatible: no shape is known)
            try:
                if values is None:
                    raise ValueError
                return [_as_array(v, t, strict=True) for v, t in zip(values, types)]
            except (TypeError, ValueError):
                raise TypeError("`generator` yielded an element that did not match the expected structure. The "
                                f"expected structure was {self.element_spec}, but the yielded element was "
                                f"{item}.") from None
        if values is None:
            raise TypeError("`generator` yielded an element that did not match the expected structure. The "
                            f"expected structure was {self._output_structure}, but the yielded element was {item}.")
        arrays = []
        for value, dtype in zip(values, types):
            try:
                arrays.append(_as_array(value, dtype))
            except (ValueError, TypeError):
                raise TypeError("`generator` yielded an element that could not be converted to the expected "
                                f"type. The expected type was {dtype.name}, but the yielded element was "
                                f"{value}.") from None
        for array, shape in zip(arrays, shapes):
            if not shape.is_compatible_with(array.shape):
                raise TypeError(f"`generator` yielded an element of shape {array.shape} where an element of "
                                f"shape {shape} was expected.")
        return arrays


def _in_py_func(error: Exception, node: str) -> errors.OpError:
    """What the generator raised, as TF reports an exception of the py_func it runs in: the PyFunc names itself
    (the IteratorGetNext is added after it)."""
    raised = script_ops.raised_in_python(error, f"{type(error).__name__}: {error}")
    return nested_error(type(raised)(None, None, f"{raised.message}\n\t [[{{{{node {node}}}}}]]"))


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


def _as_array(value: Any, dtype: dtypes.DType, strict: bool = False) -> np.ndarray:
    """A yielded value as an array of `dtype`: as NumPy converts it (TF's py_func), or `strict`ly as
    convert_to_tensor does (TypeError for 1.5 as an int)."""
    if dtype == dtypes.string:
        array = np.asarray(value, dtype=object)
        return np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(array) \
            if array.size else array
    if strict:
        return tensor_util.make_ndarray_value(value, dtype=dtype)
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


class _RangeDataset(DatasetV1):
    _op = dataset_ops.RangeDataset

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

    def _validate(self, captured: list[Any]) -> None:
        if int(captured[2]) == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        start, stop, step = (run.scalar(self, i) for i in range(3))
        np_type = self._dtype.as_numpy_dtype
        for value in range(start, stop, step):  # lazily: enumerate's range runs to the int64 maximum
            yield [np_type(value)]


class DatasetSource(DatasetV1):
    """A source dataset whose elements a Python function of its captured values yields (the file readers);
    `produce(failed, *values)` hands an error it can go on after to `failed` (see `_Run.failed`). Its node is
    `op`'s, whose inputs are the captures (TF's reader or random op), else a `_PyDataset`."""

    def __init__(self, captures: list[Tensor], output_types: Any, output_shapes: Any,
                 produce: Callable[..., PyIterator[Element]], op: Op | None = None) -> None:
        self._produce = produce
        if op is not None:
            self._op = op
        super().__init__((), captures, structure.element_spec(output_types, output_shapes))

    def _iterate(self, run: _Run) -> PyIterator[Element]:
        return self._produce(run.failed, *run.captured(self))
