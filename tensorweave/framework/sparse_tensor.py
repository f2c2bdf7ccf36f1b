"""`tf.SparseTensor`: a tensor given by the coordinates and values of its non-default entries, as three graph
tensors (indices `[N, ndims]` int64, values `[N]`, dense_shape `[ndims]` int64), and `tf.SparseTensorValue`, the
namedtuple a session fetches one as and accepts as its feed.

Invariant: a SparseTensor owns no op of its own; its dtype, op and graph are those of `values`, and its static
shape is what `dense_shape` fixes while building (a `sparse_placeholder` sets it from its declared shape).
"""

from __future__ import annotations

import collections
from typing import Any

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    _run_using_default_session,
    convert_to_tensor,
    name_scope,
)
from tensorweave.platform.tf_export import tf_export

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
tf_export("SparseTensorValue")(SparseTensorValue)


@tf_export("sparse.SparseTensor", "SparseTensor")
class SparseTensor:
    """`dense[indices[i]] = values[i]`, every other entry of `dense_shape` being zero (or a default)."""

    is_tensor_like = True  # tf.is_tensor says yes, as TF's does for its composite tensors

    @classmethod
    def from_value(cls, sparse_tensor_value: Any) -> SparseTensor:
        """A SparseTensor as it is; a SparseTensorValue as constants of the default graph."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        if not isinstance(sparse_tensor_value, SparseTensorValue):
            raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} is neither a SparseTensor nor "
                            "SparseTensorValue.")
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values, sparse_tensor_value.dense_shape)

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        with name_scope(None, "SparseTensor", [t for t in (indices, values, dense_shape) if isinstance(t, Tensor)]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes.int64)
            self._dense_shape_default = tensor_util.static_value_as_shape(dense_shape)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape.dims[0].assert_is_compatible_with(values_shape.dims[0])
        indices_shape.dims[1].assert_is_compatible_with(dense_shape_shape.dims[0])

    @property
    def indices(self) -> Tensor:
        """The int64 `[N, ndims]` coordinates of the entries."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """The `[N]` values of the entries."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """The int64 `[ndims]` shape of the dense tensor."""
        return self._dense_shape

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._dense_shape_default

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._dense_shape_default

    def set_shape(self, shape: Any) -> None:
        """Refine the static shape of the dense tensor with what the caller knows (ValueError if they
        conflict)."""
        self._dense_shape_default = self._dense_shape_default.merge_with(tensor_shape.as_shape(shape))

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def op(self) -> Operation:
        return self._values.op

    @property
    def graph(self) -> Graph:
        return self._values.graph

    def consumers(self) -> list[Operation]:
        """The ops reading any of the component tensors, each once, in creation order."""
        ops = {op for t in (self._indices, self._values, self._dense_shape) for op in t.consumers()}
        return sorted(ops, key=lambda op: op._id)

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> SparseTensorValue:
        """The value of this sparse tensor in `session` (default: the default session)."""
        return _run_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"


@tf_export("convert_to_tensor_or_sparse_tensor")
def convert_to_tensor_or_sparse_tensor(value: Any, dtype: Any = None, name: str | None = None) -> Any:
    """A SparseTensor as it is (its dtype checked, with TF's message), a SparseTensorValue as a SparseTensor,
    anything else as a Tensor."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype mismatch. Requested: {dtype.name},  Actual: {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
