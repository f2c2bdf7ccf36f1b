"""TensorInfo protos: how a SignatureDef names a graph's tensors (`tf.saved_model.utils`), and back."""

from __future__ import annotations

from typing import Any

from tensorweave.formats import protos
from tensorweave.framework import dtypes
from tensorweave.framework.graph import Graph, get_default_graph, prepend_name_scope
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.platform.tf_export import tf_export


@tf_export("saved_model.build_tensor_info", "saved_model.utils.build_tensor_info")
def build_tensor_info(tensor: Any) -> Any:
    """The TensorInfo of a Tensor (its name) or a SparseTensor (its three component names), with dtype and
    static shape, so a loader can find and feed it."""
    info = protos.TensorInfo(dtype=dtypes.as_dtype(tensor.dtype).as_datatype_enum,
                             tensor_shape=tensor.get_shape().as_proto())
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


@tf_export("saved_model.get_tensor_from_tensor_info", "saved_model.utils.get_tensor_from_tensor_info")
def get_tensor_from_tensor_info(tensor_info: Any, graph: Graph | None = None,
                                import_scope: str | None = None) -> Any:
    """The Tensor or SparseTensor a TensorInfo names, in `graph` (the default graph) under `import_scope`."""
    graph = graph or get_default_graph()

    def tensor(name: str) -> Any:
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope=import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return tensor(tensor_info.name)
    if encoding == "coo_sparse":
        sparse = tensor_info.coo_sparse
        return SparseTensor(tensor(sparse.indices_tensor_name), tensor(sparse.values_tensor_name),
                            tensor(sparse.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}. Expected `coo_sparse`, `composite_tensor`, or "
                     "`name` for a dense tensor.")


def get_element_from_tensor_info(tensor_info: Any, graph: Graph | None = None,
                                 import_scope: str | None = None) -> Any:
    """The Tensor or Operation a TensorInfo names (init and train ops are named as operations)."""
    graph = graph or get_default_graph()
    return graph.as_graph_element(prepend_name_scope(tensor_info.name, import_scope=import_scope))
