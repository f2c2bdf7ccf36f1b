"""`tf.IndexedSlices`: rows of a larger dense tensor, as (values, indices, dense_shape) graph tensors.

The sparse form the gradient of a row lookup (`tf.gather`) takes, so an optimizer updates only the rows
it touched. Invariant: an IndexedSlices owns no op of its own; its name, dtype, device, op and graph
are those of `values`. Turning one into a dense tensor needs an op (UnsortedSegmentSum), so the op
library registers that conversion, as it does for Python values.

One-way rule: this module builds on the Python graph and tensor_util; the graph recognises an IndexedSlices
by its base class, `graph.IndexedSlicesBase`, without importing this module.
"""

from __future__ import annotations

import collections
from typing import Any

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Graph, IndexedSlicesBase, Operation, Tensor, convert_to_tensor
from tensorweave.platform.tf_export import tf_export

# What a session returns for a fetched IndexedSlices (TF's IndexedSlicesValue, which TF1 does not export).
IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


@tf_export("IndexedSlices")
class IndexedSlices(IndexedSlicesBase):
    """A sparse set of slices of a dense tensor: `dense[indices[i], ...] = values[i, ...]`."""

    is_tensor_like = True  # tf.is_tensor says yes, as TF's does for its composite tensors

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Any:
        """The values of the slices: `[D0, D1, ..., Dn]`."""
        return self._values

    @property
    def indices(self) -> Any:
        """The 1-D indices `[D0]` of the slices along the first dimension of the dense tensor."""
        return self._indices

    @property
    def dense_shape(self) -> Any:
        """The 1-D shape of the dense tensor, or None."""
        return self._dense_shape

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The dense tensor's static shape, as far as `dense_shape` fixes it while building."""
        if self._dense_shape is None:
            return tensor_shape.TensorShape(None)
        return tensor_util.constant_value_as_shape(self._dense_shape)

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def op(self) -> Operation:
        return self._values.op

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def graph(self) -> Graph:
        return self._values.graph

    def consumers(self) -> list[Operation]:
        """The ops reading any of the component tensors, each once, in creation order."""
        components = [t for t in (self._values, self._indices, self._dense_shape) if t is not None]
        ops = {op for t in components for op in t.consumers()}
        return sorted(ops, key=lambda op: op._id)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self) -> str:
        dense_shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{dense_shape})"


@tf_export("convert_to_tensor_or_indexed_slices")
def convert_to_tensor_or_indexed_slices(value: Any, dtype: Any = None, name: str | None = None) -> Any:
    """A Tensor or IndexedSlices is returned as it is (TF checks its dtype with its own message);
    anything else converts to a Tensor."""
    if isinstance(value, (Tensor, IndexedSlices)):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Incompatible tensor conversion requested to `dtype` {dtypes.as_dtype(dtype).name} "
                             f"for `value` ({value}) with dtype {value.dtype.name}.")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
