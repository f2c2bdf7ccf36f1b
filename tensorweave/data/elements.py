"""Flat elements (lists of arrays, one per component) gathered into batches and split into rows: what batch,
padded_batch, unbatch and from_tensor_slices share, with TF's checks and messages."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.data.dataset_ops import Element, _Run
from tensorweave.framework import nest, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
)
from tensorweave.framework.type_spec import (
    SparseTensorSpec,
    TypeSpec,
)
from tensorweave.ops.ragged_tensor import RaggedTensorSpec


def _rows(values: list[Any], rows: int) -> PyIterator[Element]:
    """The rows of dense components: a string row as a 0-d array (indexing would give bare bytes, which
    kernels do not take), a numeric one as NumPy's scalar."""
    if all(np.asarray(v).dtype != object for v in values):
        for row in range(rows):
            yield [v[row] for v in values]
        return
    for row in range(rows):
        yield [v[row, ...] for v in values]


def _batch_count(n: int, size: int, drop: bool) -> int:
    """The batches of `size` that `n` elements make (TF's count for batch and padded_batch)."""
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


def _stacked(batch: list[Element]) -> Element:
    return [_stack(i, [element[i] for element in batch]) for i in range(len(batch[0]))]


def _batches(run: _Run, source: PyIterator[Element], size: int, drop: bool,
             assemble: Callable[[list[Element]], Element]) -> PyIterator[Element]:
    """Batches of `size` input elements (batch's and padded_batch's); a failed input element loses the batch
    being gathered and a batch that cannot be assembled fails, as TF's."""
    batch, seen = [], run.failure_count
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
    """Where each value of an element of `spec` starts among its flat components, and its spec (a value of no
    component, a None, has no place)."""
    layout, position = [], 0
    for leaf in nest.flatten(spec):
        count = len(nest.flatten(leaf._component_specs))
        if count:
            layout.append((position, leaf))
        position += count
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
