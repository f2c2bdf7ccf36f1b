"""`tf.feature_column`: how a dict of raw features (Tensors and SparseTensors, as parse_example returns them)
becomes a model's dense input (`input_layer`) or a linear model's logits (`linear_model`), as TF1 builds them.

A column is an immutable description (a namedtuple, so equal columns are equal keys); `_LazyBuilder` turns
each raw feature or column into tensors once per `input_layer`/`linear_model` call, so a column two others
share (a bucketized column crossed and one-hot encoded) is transformed once. Variables are named as TF's
(`input_layer/<column>_embedding/embedding_weights`, `linear_model/<column>/weights`,
`linear_model/bias_weights`), so checkpoints move between TF and tensorweave.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    control_dependencies,
    get_collection,
    get_collection_ref,
    init_scope,
    name_scope,
)
from tensorweave.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tensorweave.ops import (
    check_ops,
    checkpoint_utils,
    control_flow_ops,
    elementwise_ops,
    embedding_ops,
    indexing_ops,
    init_ops,
    linalg_ops,
    lookup_ops,
    manipulation_ops,
    nn_ops,
    reduction_ops,
    scatter_ops,
    sequence_ops,
    shape_ops,
    sparse_cross_ops,
    sparse_ops,
    string_ops,
)
from tensorweave.ops import variable_scope as vs
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.fill_ops import fill
from tensorweave.ops.math_misc_ops import bucketize
from tensorweave.ops.parsing_ops import FixedLenFeature, VarLenFeature
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export

IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])


# -- the column kinds -----------------------------------------------------------------------------------

class _FeatureColumn:
    """A column of TF1's feature-column interface: a name, a parse spec and a transformation."""

    __slots__ = ()

    @property
    def _var_scope_name(self) -> str:
        return self.name

    @property
    def parse_example_spec(self) -> dict:
        """The public name TF's columns (shared by its v1 and v2 APIs) also give the parse spec."""
        return self._parse_example_spec


class _DenseColumn(_FeatureColumn):
    """A column with a dense representation: `input_layer` takes it."""

    __slots__ = ()

    @property
    def variable_shape(self) -> tensor_shape.TensorShape:
        return self._variable_shape


class _CategoricalColumn(_FeatureColumn):
    """A column of ids (and weights) as SparseTensors: `linear_model` takes it, embedding/indicator wrap it."""

    __slots__ = ()
    IdWeightPair = IdWeightPair

    @property
    def num_buckets(self) -> int:
        return self._num_buckets

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)


class _KeyedCategoricalColumn(_CategoricalColumn):
    """A categorical column of one raw feature, `key`, parsed as a VarLenFeature of its values' dtype."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _value_dtype(self) -> dtypes.DType:
        return self.dtype

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self._value_dtype)}


class _SequenceCategoricalColumn(_CategoricalColumn):
    """Ids of a sequence per example; only sequence layers take it."""

    __slots__ = ()


def _sequence_error(column: Any, kind: str) -> ValueError:
    return ValueError(
        f"In {kind}: {column.name}. categorical_column must not be of type _SequenceCategoricalColumn. "
        "Suggested fix A: If you wish to use DenseFeatures, use a non-sequence categorical_column_with_*. "
        "Suggested fix B: If you wish to create sequence input, use SequenceFeatures instead of DenseFeatures. "
        f"Given (type {type(column.categorical_column)}): {column.categorical_column}")


class NumericColumn(_DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A real-valued feature of a fixed shape."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs: _LazyBuilder) -> Tensor:
        tensor = inputs.get(self.key)
        if isinstance(tensor, SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return cast(tensor, dtypes.float32)

    @property
    def _variable_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Tensor:
        return inputs.get(self)


class BucketizedColumn(_DenseColumn, _CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column cut into len(boundaries) + 1 buckets: one-hot when dense, ids when categorical."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self) -> dict:
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs: _LazyBuilder) -> Tensor:
        return bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def _variable_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Tensor:
        return indexing_ops.one_hot(cast(inputs.get(self), dtypes.int64), depth=len(self.boundaries) + 1,
                                    on_value=1.0, off_value=0.0)

    @property
    def _num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        """Each source dimension's bucket as an id offset by dimension * buckets, one id per (row, dim)."""
        buckets = inputs.get(self)
        batch_size = shape_ops.shape(buckets)[0]
        dimension = self.source_column.shape[0]
        rows = shape_ops.reshape(manipulation_ops.tile(
            shape_ops.expand_dims(sequence_ops.range(0, batch_size), 1), [1, dimension]), (-1,))
        dims = manipulation_ops.tile(sequence_ops.range(0, dimension), [batch_size])
        ids = shape_ops.reshape(buckets, (-1,)) + (len(self.boundaries) + 1) * dims
        indices = cast(manipulation_ops.transpose(manipulation_ops.stack((rows, dims))), dtypes.int64)
        dense_shape = cast(manipulation_ops.stack([batch_size, dimension]), dtypes.int64)
        return IdWeightPair(SparseTensor(indices, ids, dense_shape), None)


def _check_ids_dtype(key: str, column_dtype: dtypes.DType, tensor: SparseTensor) -> None:
    if column_dtype.is_integer != tensor.dtype.is_integer:
        raise ValueError("Column dtype and SparseTensors dtype must be compatible. "
                         f"key: {key}, column dtype: {column_dtype}, tensor dtype: {tensor.dtype}")
    _assert_string_or_int(tensor.dtype, f"column_name: {key} input_tensor")


class HashedCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """Ids as the fingerprint hash of each value (its string form for integers) modulo the bucket count."""

    __slots__ = ()

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not isinstance(tensor, SparseTensor):
            raise ValueError("SparseColumn input must be a SparseTensor.")
        _assert_string_or_int(tensor.dtype, f"column_name: {self.key} input_tensor")
        if self.dtype.is_integer != tensor.dtype.is_integer:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. "
                             f"key: {self.key}, column dtype: {self.dtype}, tensor dtype: {tensor.dtype}")
        values = tensor.values if self.dtype == dtypes.string else string_ops.as_string(tensor.values)
        ids = string_ops.string_to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(tensor.indices, ids, tensor.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size


def _vocabulary_ids(key: str, column_dtype: dtypes.DType, raw: Any,
                    make_table: Callable[[dtypes.DType], Any]) -> SparseTensor:
    """The ids a vocabulary table gives a feature's values; integer values are looked up as int64."""
    tensor = _to_sparse_input_and_drop_ignore_values(raw)
    _check_ids_dtype(key, column_dtype, tensor)
    key_dtype = column_dtype
    if tensor.dtype.is_integer:
        key_dtype = dtypes.int64
        tensor = cast(tensor, dtypes.int64)
    with init_scope():
        table = make_table(key_dtype)
    return table.lookup(tensor)


class VocabularyFileCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype", "default_value", "file_format"))):
    """Ids as line numbers in a vocabulary file; out-of-vocabulary values hashed past them or a default."""

    __slots__ = ()

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        return _vocabulary_ids(self.key, self.dtype, inputs.get(self.key), lambda key_dtype: (
            lookup_ops.index_table_from_file(
                vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
                vocab_size=self.vocabulary_size, default_value=self.default_value, key_dtype=key_dtype,
                name=f"{self.key}_lookup")))

    @property
    def _num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets


class VocabularyListCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn", ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """Ids as positions in an in-memory vocabulary; out-of-vocabulary values hashed past them or a default."""

    __slots__ = ()

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        return _vocabulary_ids(self.key, self.dtype, inputs.get(self.key), lambda key_dtype: (
            lookup_ops.index_table_from_tensor(
                vocabulary_list=tuple(self.vocabulary_list), default_value=self.default_value,
                num_oov_buckets=self.num_oov_buckets, dtype=key_dtype, name=f"{self.key}_lookup")))

    @property
    def _num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets


class IdentityCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    """Integer values that are their own ids; out-of-range ones become `default_value` when it is given."""

    __slots__ = ()

    @property
    def num_buckets(self) -> int:
        return self.number_buckets

    @property
    def _value_dtype(self) -> dtypes.DType:
        return dtypes.int64

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {tensor.dtype}")
        values = tensor.values
        if values.dtype != dtypes.int64:
            values = cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            values = cast(tensor.values, dtypes.int64, name="values")
            num_buckets = cast(self.number_buckets, dtypes.int64, name="num_buckets")
            zero = cast(0, dtypes.int64, name="zero")
            out_of_range = elementwise_ops.logical_or(elementwise_ops.less(values, zero),
                                                      elementwise_ops.greater_equal(values, num_buckets),
                                                      name="out_of_range")
            defaults = fill(dims=shape_ops.shape(values), value=cast(self.default_value, dtypes.int64),
                            name="default_values")
            values = elementwise_ops.where_v2(out_of_range, defaults, values)
        return SparseTensor(tensor.indices, values, tensor.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return self.number_buckets


class WeightedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """A categorical column whose every id carries the weight at the same place of another feature."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self) -> dict:
        config = self.categorical_column._parse_example_spec
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config[self.weight_feature_key]} already exists for "
                             f"{self.weight_feature_key}.")
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs: _LazyBuilder) -> tuple[SparseTensor, SparseTensor]:
        weights = inputs.get(self.weight_feature_key)
        if weights is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weights = convert_to_tensor_or_sparse_tensor(weights)
        if self.dtype != weights.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        if not isinstance(weights, SparseTensor):
            weights = _to_sparse_input_and_drop_ignore_values(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = cast(weights, dtypes.float32)
        return inputs.get(self.categorical_column), weights

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        ids, weights = inputs.get(self)
        return IdWeightPair(ids, weights)


def _leaf_keys(cross: CrossedColumn) -> list:
    """The keys of a cross with nested crosses flattened into theirs."""
    keys: list = []
    for key in cross.keys:
        keys.extend(_leaf_keys(key) if isinstance(key, CrossedColumn) else [key])
    return keys


class CrossedColumn(_CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """Every combination of its keys' values, hashed (TF's fingerprint cross) into `hash_bucket_size` ids."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return "_X_".join(sorted(key.name if isinstance(key, _FeatureColumn) else key for key in _leaf_keys(self)))

    @property
    def _parse_example_spec(self) -> dict:
        config: dict = {}
        for key in self.keys:
            if isinstance(key, _FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config.update({key: VarLenFeature(dtypes.string)})
        return config

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        tensors = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensors.append(inputs.get(key))
            elif isinstance(key, _CategoricalColumn):
                pair = key._get_sparse_tensors(inputs)
                if pair.weight_tensor is not None:
                    raise ValueError("crossed_column does not support weight_tensor, but the given column "
                                     f"populates weight_tensor. Given column: {key.name}")
                tensors.append(pair.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        return sparse_cross_ops.sparse_cross_hashed(inputs=tensors, num_buckets=self.hash_bucket_size,
                                                    hash_key=self.hash_key)

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size


class IndicatorColumn(_DenseColumn, collections.namedtuple("IndicatorColumn", ("categorical_column",))):
    """A categorical column as a multi-hot vector (counts, or summed weights for a weighted column)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([1, self.categorical_column._num_buckets])

    def _transform_feature(self, inputs: _LazyBuilder) -> Tensor:
        pair = self.categorical_column._get_sparse_tensors(inputs)
        size = int(self._variable_shape[-1])
        if pair.weight_tensor is not None:
            merged = sparse_ops.sparse_merge(sp_ids=pair.id_tensor, sp_values=pair.weight_tensor, vocab_size=size)
            merged = sparse_ops.sparse_slice(merged, [0, 0], merged.dense_shape)
            return scatter_ops.scatter_nd(merged.indices, merged.values, merged.dense_shape)
        dense_ids = sparse_ops.sparse_tensor_to_dense(pair.id_tensor, default_value=-1)
        one_hot = indexing_ops.one_hot(dense_ids, depth=size, on_value=1.0, off_value=0.0)
        return reduction_ops.reduce_sum(one_hot, axis=[-2])

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Tensor:
        if isinstance(self.categorical_column, _SequenceCategoricalColumn):
            raise _sequence_error(self, "indicator_column")
        return inputs.get(self)


def _embedding_lookup(weights: Any, pair: IdWeightPair, combiner: str, name: str, max_norm: Any,
                      use_safe_embedding_lookup: bool) -> Tensor:
    """The safe lookup (empty rows get zeros, invalid ids are dropped) unless the user turned it off."""
    rank = tensor_shape.dimension_value(pair.id_tensor.dense_shape.get_shape()[0])
    if not use_safe_embedding_lookup and rank is not None and rank <= 2:
        return embedding_ops.embedding_lookup_sparse(weights, pair.id_tensor, pair.weight_tensor,
                                                     combiner=combiner, name=name, max_norm=max_norm)
    return embedding_ops.safe_embedding_lookup_sparse(weights, pair.id_tensor, pair.weight_tensor,
                                                      combiner=combiner, name=name, max_norm=max_norm)


def _init_from_checkpoint(ckpt_to_load_from: Any, tensor_name_in_ckpt: Any, weights: Any) -> None:
    if ckpt_to_load_from is not None:
        checkpoint_utils.init_from_checkpoint(ckpt_to_load_from, {tensor_name_in_ckpt: weights})


class _Embedding(_DenseColumn):
    """A column of `dimension`-wide embeddings of a categorical column's ids."""

    __slots__ = ()

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([self.dimension])


class EmbeddingColumn(_Embedding, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                            "tensor_name_in_ckpt", "max_norm", "trainable", "use_safe_embedding_lookup"))):
    """A categorical column as the combined (mean, sum or sqrtn) rows of a trainable embedding matrix."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Tensor:
        if isinstance(self.categorical_column, _SequenceCategoricalColumn):
            raise _sequence_error(self, "embedding_column")
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        if weight_collections and GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(GraphKeys.GLOBAL_VARIABLES)
        weights = vs.get_variable("embedding_weights", shape=(self.categorical_column._num_buckets, self.dimension),
                                  dtype=dtypes.float32, initializer=self.initializer,
                                  trainable=self.trainable and trainable, collections=weight_collections)
        _init_from_checkpoint(self.ckpt_to_load_from, self.tensor_name_in_ckpt, weights)
        return _embedding_lookup(weights, pair, self.combiner, f"{self.name}_weights", self.max_norm,
                                 self.use_safe_embedding_lookup)


class _SharedEmbeddingColumn(_Embedding, collections.namedtuple(
        "_SharedEmbeddingColumn",
        ("categorical_column", "dimension", "combiner", "initializer", "shared_embedding_collection_name",
         "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm", "trainable", "use_safe_embedding_lookup"))):
    """An embedding column whose matrix the other columns of its `shared_embedding_columns` call share: the
    first to be built makes it and puts it in the collection named for them all."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Tensor:
        if isinstance(self.categorical_column, _SequenceCategoricalColumn):
            raise _sequence_error(self, "embedding_column")
        with name_scope(None, default_name=self.name):
            pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
            shape = (self.categorical_column._num_buckets, self.dimension)
            shared = get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(
                        f"Collection {shared} can only contain one variable. Suggested fix A: Choose a unique name "
                        "for this collection. Suggested fix B: Do not add any variables to this collection. The "
                        "feature_column library already adds a variable under the hood.")
                weights = shared[0]
                if weights.get_shape() != shape:
                    raise ValueError(
                        f"Shared embedding collection {self.shared_embedding_collection_name} contains variable "
                        f"{weights.name} of unexpected shape {weights.get_shape()}. Expected shape is {shape}. "
                        "Suggested fix A: Choose a unique name for this collection. Suggested fix B: Do not add any "
                        "variables to this collection. The feature_column library already adds a variable under "
                        "the hood.")
            else:
                weights = vs.get_variable("embedding_weights", shape=shape, dtype=dtypes.float32,
                                          initializer=self.initializer, trainable=self.trainable and trainable,
                                          collections=weight_collections)
                add_to_collection(self.shared_embedding_collection_name, weights)
            _init_from_checkpoint(self.ckpt_to_load_from, self.tensor_name_in_ckpt, weights)
            return _embedding_lookup(weights, pair, self.combiner, f"{self.name}_weights", self.max_norm,
                                     self.use_safe_embedding_lookup)


class SequenceCategoricalColumn(_SequenceCategoricalColumn, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column read as a sequence per example: ids reshaped to [batch, time, ids per step]."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        pair = self.categorical_column._get_sparse_tensors(inputs)
        dense_shape = shape_ops.shape(pair.id_tensor)
        target = [dense_shape[0], dense_shape[1], reduction_ops.reduce_prod(dense_shape[2:])]
        ids = sparse_ops.sparse_reshape(pair.id_tensor, target)
        weights = None if pair.weight_tensor is None else sparse_ops.sparse_reshape(pair.weight_tensor, target)
        return IdWeightPair(ids, weights)


class SequenceNumericColumn(collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A sequence of real values per example. As in TF, it belongs to the v2 (Keras SequenceFeatures) interface
    only: TF1's input_layer, linear_model and make_parse_example_spec reject it."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def variable_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(self.shape)


# -- raw features -----------------------------------------------------------------------------------------

class _LazyBuilder:
    """The raw features and every column's transformation, each made once, when first asked for."""

    def __init__(self, features: dict) -> None:
        self._features = dict(features)
        self._feature_tensors: dict = {}

    def get(self, key: Any) -> Any:
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            tensor = self._raw_feature(key)
            self._feature_tensors[key] = tensor
            return tensor
        if isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if not isinstance(key, _FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed

    def _raw_feature(self, key: str) -> Any:
        """The feature as a Tensor or SparseTensor of rank 2 or more (a rank-1 one gets a trailing 1)."""
        tensor = convert_to_tensor_or_sparse_tensor(self._features[key])

        def expand_dims() -> Any:
            if isinstance(tensor, SparseTensor):
                return sparse_ops.sparse_reshape(tensor, [shape_ops.shape(tensor)[0], 1])
            return shape_ops.expand_dims(tensor, -1)

        rank = tensor.get_shape().ndims
        if rank is not None:
            if rank == 0:
                raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {tensor}")
            return tensor if rank != 1 else expand_dims()
        message = f"Feature (key: {key}) cannot have rank 0. Given: {tensor}"
        with control_dependencies([check_ops.assert_positive(shape_ops.rank(tensor),
                                                                              message=message)]):
            return control_flow_ops.cond(elementwise_ops.equal(1, shape_ops.rank(tensor)), expand_dims,
                                         lambda: tensor)


def _to_sparse_input_and_drop_ignore_values(tensor: Any, ignore_value: Any = None) -> SparseTensor:
    """A dense feature as a SparseTensor of its entries other than `ignore_value` ('' for strings, -1 for
    integers, 0 for floats): TF's convention for a missing value in a dense categorical feature."""
    tensor = convert_to_tensor_or_sparse_tensor(tensor)
    if isinstance(tensor, SparseTensor):
        return tensor
    with name_scope(None, "to_sparse_input", (tensor, ignore_value)):
        if ignore_value is None:
            if tensor.dtype == dtypes.string:
                ignore_value = ""
            elif tensor.dtype.is_integer:
                ignore_value = -1
            else:
                ignore_value = tensor.dtype.as_numpy_dtype()
        ignore_value = cast(ignore_value, tensor.dtype, name="ignore_value")
        indices = elementwise_ops.where_v2(elementwise_ops.not_equal(tensor, ignore_value), name="indices")
        return SparseTensor(indices=indices, values=indexing_ops.gather_nd(tensor, indices, name="values"),
                            dense_shape=shape_ops.shape(tensor, out_type=dtypes.int64, name="dense_shape"))


def _normalize_feature_columns(feature_columns: Any) -> list:
    """The columns as a list sorted by name; a lone column, an iterator, duplicates and non-columns checked."""
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given (type {type(column)}): "
                             f"{column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name: dict = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and "
                             f"{by_name[column.name]}. This usually means that these columns refer to same base "
                             "feature. Either one must be discarded or a duplicated but renamed item must be "
                             "inserted in features dict.")
        by_name[column.name] = column
    return sorted(feature_columns, key=lambda column: column.name)


def _verify_static_batch_size_equality(tensors: list, columns: list) -> None:
    expected = None
    expected_index = 0
    for index, tensor in enumerate(tensors):
        batch_size = tensor_shape.Dimension(tensor_shape.dimension_value(tensor.shape[0]))
        if batch_size.value is None:
            continue
        if expected is None:
            expected, expected_index = batch_size, index
        elif not expected.is_compatible_with(batch_size):
            raise ValueError("Batch size (first dimension) of each feature must be same. Batch size of columns "
                             f"({columns[expected_index].name}, {columns[index].name}): ({expected}, {batch_size})")


def _assert_string_or_int(dtype: dtypes.DType, prefix: str) -> None:
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def _assert_key_is_string(key: Any) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def _check_shape(shape: Any, key: str) -> tuple:
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    for dimension in shape:
        if not isinstance(dimension, (int, np.integer)):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return shape


def _shape_matches(value: Any, shape: tuple) -> bool:
    if isinstance(value, (list, tuple)) != bool(shape):
        return False
    if not shape:
        return True
    return len(value) == shape[0] and all(_shape_matches(v, shape[1:]) for v in value)


def _check_default_value(shape: tuple, default_value: Any, dtype: dtypes.DType, key: str) -> Any:
    """The default as nested tuples of `shape`; a scalar fills the shape."""
    if default_value is None:
        return None
    if isinstance(default_value, int) or (isinstance(default_value, float) and dtype.is_floating):
        filled: Any = default_value
        for size in reversed(shape):
            filled = (filled,) * size
        return filled
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        if not _shape_matches(default_value, shape):
            raise ValueError("The shape of default_value must be equal to given shape. "
                             f"default_value: {default_value}, shape: {shape}, key: {key}")
        flat = np.asarray(default_value, dtype=object).ravel().tolist()
        if all(isinstance(v, int) for v in flat) or (any(isinstance(v, float) for v in flat) and dtype.is_floating):
            return _as_tuple(default_value)
    raise TypeError("default_value must be compatible with dtype. "
                    f"default_value: {default_value}, dtype: {dtype}, key: {key}")


def _as_tuple(value: Any) -> Any:
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


# -- the public constructors ------------------------------------------------------------------------------

@tf_export("feature_column.numeric_column")
def numeric_column(key: str, shape: Any = (1,), default_value: Any = None, dtype: Any = dtypes.float32,
                   normalizer_fn: Callable | None = None) -> NumericColumn:
    """A real-valued feature of `shape` per example (parsed as a FixedLenFeature)."""
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    _assert_key_is_string(key)
    return NumericColumn(key, shape=shape, default_value=default_value, dtype=dtype, normalizer_fn=normalizer_fn)


@tf_export("feature_column.bucketized_column")
def bucketized_column(source_column: NumericColumn, boundaries: Any) -> BucketizedColumn:
    """A numeric column cut at sorted `boundaries` into len(boundaries) + 1 buckets."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    if any(low >= high for low, high in zip(boundaries, boundaries[1:])):
        raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


@tf_export("feature_column.categorical_column_with_hash_bucket")
def categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                        dtype: Any = dtypes.string) -> HashedCategoricalColumn:
    """Ids as hashes of string (or integer) values into `hash_bucket_size` buckets."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    _assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


@tf_export("feature_column.categorical_column_with_vocabulary_file")
def categorical_column_with_vocabulary_file(key: str, vocabulary_file: str, vocabulary_size: int | None = None,
                                            num_oov_buckets: int = 0, default_value: int | None = None,
                                            dtype: Any = dtypes.string) -> VocabularyFileCategoricalColumn:
    """Ids as line numbers of a vocabulary file (its line count when `vocabulary_size` is not given)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    file_format = "tfrecord_gzip" if vocabulary_file.endswith("tfrecord.gz") else None
    if file_format is not None:
        raise NotImplementedError("gzipped TFRecord vocabulary files are not supported; use a text file.")
    if vocabulary_size is None:
        if not gfile.file_exists_v2(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with gfile.GFile(vocabulary_file, mode="rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, f"column_name: {key}")
    _assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value, dtype=dtype, file_format=file_format)


@tf_export("feature_column.categorical_column_with_vocabulary_list")
def categorical_column_with_vocabulary_list(key: str, vocabulary_list: Any, dtype: Any = None,
                                            default_value: int = -1,
                                            num_oov_buckets: int = 0) -> VocabularyListCategoricalColumn:
    """Ids as positions in `vocabulary_list` (strings or integers)."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary_list).dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _assert_string_or_int(vocabulary_dtype, f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not match, "
                             f"column_name: {key}")
    _assert_string_or_int(dtype, f"column_name: {key}")
    _assert_key_is_string(key)
    return VocabularyListCategoricalColumn(key=key, vocabulary_list=tuple(vocabulary_list), dtype=dtype,
                                           default_value=default_value, num_oov_buckets=num_oov_buckets)


@tf_export("feature_column.categorical_column_with_identity")
def categorical_column_with_identity(key: str, num_buckets: int,
                                     default_value: int | None = None) -> IdentityCategoricalColumn:
    """Integer values in [0, num_buckets) used as ids."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    _assert_key_is_string(key)
    return IdentityCategoricalColumn(key=key, number_buckets=num_buckets, default_value=default_value)


@tf_export("feature_column.indicator_column")
def indicator_column(categorical_column: _CategoricalColumn) -> IndicatorColumn:
    """A categorical column as a multi-hot dense vector."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return IndicatorColumn(categorical_column)


@tf_export("feature_column.weighted_categorical_column")
def weighted_categorical_column(categorical_column: _CategoricalColumn, weight_feature_key: str,
                                dtype: Any = dtypes.float32) -> WeightedCategoricalColumn:
    """A categorical column with a weight per id, read from the feature `weight_feature_key`."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column=categorical_column, weight_feature_key=weight_feature_key,
                                     dtype=dtype)


@tf_export("feature_column.crossed_column")
def crossed_column(keys: Any, hash_bucket_size: int, hash_key: int | None = None) -> CrossedColumn:
    """The cross of string features and categorical columns, hashed into `hash_bucket_size` ids."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             "crossing will increase probability of collision. Instead, use the feature name as a "
                             f"string. Given: {key}")
    return CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size, hash_key=hash_key)


def _check_embedding_arguments(dimension: Any, ckpt_to_load_from: Any, tensor_name_in_ckpt: Any,
                               initializer: Any, initializer_error: str) -> Any:
    """The initializer to use (truncated normal with stddev 1/sqrt(dimension) by default)."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(initializer_error)
    if initializer is None:
        initializer = init_ops.TruncatedNormal(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


@tf_export("feature_column.embedding_column")
def embedding_column(categorical_column: _CategoricalColumn, dimension: int, combiner: str = "mean",
                     initializer: Any = None, ckpt_to_load_from: str | None = None,
                     tensor_name_in_ckpt: str | None = None, max_norm: float | None = None, trainable: bool = True,
                     use_safe_embedding_lookup: bool = True) -> EmbeddingColumn:
    """A categorical column as combined rows of a [num_buckets, dimension] embedding matrix."""
    initializer = _check_embedding_arguments(
        dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
        f"initializer must be callable if specified. Embedding of column_name: {categorical_column.name}")
    return EmbeddingColumn(categorical_column=categorical_column, dimension=dimension, combiner=combiner,
                           initializer=initializer, ckpt_to_load_from=ckpt_to_load_from,
                           tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm, trainable=trainable,
                           use_safe_embedding_lookup=use_safe_embedding_lookup)


def _base_categorical(column: Any) -> Any:
    while isinstance(column, (WeightedCategoricalColumn, SequenceCategoricalColumn)):
        column = column.categorical_column
    return column


@tf_export("feature_column.shared_embedding_columns")
def shared_embedding_columns(categorical_columns: Any, dimension: int, combiner: str = "mean",
                             initializer: Any = None, shared_embedding_collection_name: str | None = None,
                             ckpt_to_load_from: str | None = None, tensor_name_in_ckpt: str | None = None,
                             max_norm: float | None = None, trainable: bool = True,
                             use_safe_embedding_lookup: bool = True) -> list:
    """Embedding columns of categorical columns of one kind and size that share one embedding matrix."""
    initializer = _check_embedding_arguments(dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
                                             "initializer must be callable if specified.")
    sorted_columns = sorted(categorical_columns, key=lambda column: column.name)
    first = sorted_columns[0]
    num_buckets = first._num_buckets
    if not isinstance(first, _CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. Given: {first}, of "
                         f"type: {type(first)}")
    first = _base_categorical(first)
    for column in sorted_columns[1:]:
        column = _base_categorical(column)
        if not isinstance(column, type(first)):
            raise ValueError("To use shared_embedding_column, all categorical_columns must have the same type, or "
                             "be weighted_categorical_column or sequence column of the same type. Given column: "
                             f"{first} of type: {type(first)} does not match given column: {column} of type: "
                             f"{type(column)}")
        if num_buckets != column._num_buckets:
            raise ValueError("To use shared_embedding_column, all categorical_columns must have the same number "
                             f"of buckets. ven column: {first} with buckets: {num_buckets} does  not match column: "
                             f"{column} with buckets: {column._num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(column.name for column in sorted_columns) + "_shared_embedding"
    return [_SharedEmbeddingColumn(
        categorical_column=column, dimension=dimension, combiner=combiner, initializer=initializer,
        shared_embedding_collection_name=shared_embedding_collection_name, ckpt_to_load_from=ckpt_to_load_from,
        tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm, trainable=trainable,
        use_safe_embedding_lookup=use_safe_embedding_lookup) for column in categorical_columns]


@tf_export("feature_column.sequence_categorical_column_with_identity")
def sequence_categorical_column_with_identity(key: str, num_buckets: int,
                                              default_value: int | None = None) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_identity(key, num_buckets, default_value))


@tf_export("feature_column.sequence_categorical_column_with_hash_bucket")
def sequence_categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                                 dtype: Any = dtypes.string) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


@tf_export("feature_column.sequence_categorical_column_with_vocabulary_file")
def sequence_categorical_column_with_vocabulary_file(key: str, vocabulary_file: str,
                                                     vocabulary_size: int | None = None, num_oov_buckets: int = 0,
                                                     default_value: int | None = None,
                                                     dtype: Any = dtypes.string) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


@tf_export("feature_column.sequence_categorical_column_with_vocabulary_list")
def sequence_categorical_column_with_vocabulary_list(key: str, vocabulary_list: Any, dtype: Any = None,
                                                     default_value: int = -1,
                                                     num_oov_buckets: int = 0) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype, default_value, num_oov_buckets))


@tf_export("feature_column.sequence_numeric_column")
def sequence_numeric_column(key: str, shape: Any = (1,), default_value: float = 0.0, dtype: Any = dtypes.float32,
                            normalizer_fn: Callable | None = None) -> SequenceNumericColumn:
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                 normalizer_fn=normalizer_fn)


# -- what consumes columns --------------------------------------------------------------------------------

@tf_export("feature_column.make_parse_example_spec")
def make_parse_example_spec(feature_columns: Any) -> dict:
    """The parse_example features dict the columns need (one spec per raw feature key)."""
    result: dict = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: {column}")
        for key, value in column._parse_example_spec.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. Given {value} and "
                                 f"{result[key]}")
        result.update(column._parse_example_spec)
    return result


def _model_collections(weight_collections: Any) -> list:
    collections_ = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections_:
            collections_.append(key)
    return collections_


@tf_export("feature_column.input_layer")
def input_layer(features: dict, feature_columns: Any, weight_collections: Any = None, trainable: bool = True,
                cols_to_vars: dict | None = None, cols_to_output_tensors: dict | None = None) -> Tensor:
    """The dense columns' tensors, each flattened to [batch, n], concatenated in column-name order."""
    columns = _normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
                             f"with an embedding_column or indicator_column. Given: {column}")
    weight_collections = _model_collections(weight_collections)
    with vs.variable_scope(None, default_name="input_layer", values=list(features.values())):
        builder = _LazyBuilder(features)
        outputs = []
        for column in columns:
            with vs.variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                output = shape_ops.reshape(tensor, shape=(shape_ops.shape(tensor)[0], num_elements))
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                          scope=vs.get_variable_scope().name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _verify_static_batch_size_equality(outputs, columns)
        return manipulation_ops.concat(outputs, 1)


def _add_to_collections(variable: Any, weight_collections: list) -> None:
    for key in weight_collections:
        if key != GraphKeys.GLOBAL_VARIABLES:
            for part in (list(variable) if hasattr(variable, "_get_variable_list") else [variable]):
                add_to_collection(key, part)


def _weighted_sum(column: Any, builder: _LazyBuilder, weights: Any, sparse_combiner: str,
                  weight_collections: list, trainable: bool) -> Tensor:
    """A column's contribution to the logits: its ids' rows of `weights` combined, or its dense value times
    `weights`."""
    if isinstance(column, _CategoricalColumn):
        pair = column._get_sparse_tensors(builder, weight_collections=weight_collections, trainable=trainable)
        ids = sparse_ops.sparse_reshape(pair.id_tensor, [shape_ops.shape(pair.id_tensor)[0], -1])
        sparse_weights = pair.weight_tensor
        if sparse_weights is not None:
            sparse_weights = sparse_ops.sparse_reshape(sparse_weights, [shape_ops.shape(sparse_weights)[0], -1])
        return embedding_ops.safe_embedding_lookup_sparse(weights, ids, sparse_weights=sparse_weights,
                                                          combiner=sparse_combiner, name="weighted_sum")
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections, trainable=trainable)
    num_elements = column._variable_shape.num_elements()
    tensor = shape_ops.reshape(tensor, shape=(shape_ops.shape(tensor)[0], num_elements))
    return linalg_ops.matmul(tensor, weights, name="weighted_sum")


@tf_export("feature_column.linear_model")
def linear_model(features: dict, feature_columns: Any, units: int = 1, sparse_combiner: str = "sum",
                 weight_collections: Any = None, trainable: bool = True, cols_to_vars: dict | None = None) -> Tensor:
    """Logits [batch, units]: each column's weighted sum (categorical columns through a [buckets, units]
    weight matrix, combined by `sparse_combiner`) plus a bias, all initialized to zero.

    Scopes follow TF's Layer-based construction: the variables live under `linear_model/<column>/`, the ops
    under the next unused `linear_model` name scope.
    """
    with vs.variable_scope(None, "linear_model") as model_scope:
        model_name = model_scope.name.rsplit("/", 1)[-1]
    columns = _normalize_feature_columns(feature_columns)
    weight_collections = _model_collections(weight_collections)
    scope_names = {}
    for column in columns:
        with vs.variable_scope(None, default_name=column._var_scope_name) as column_scope:
            scope_names[column] = column_scope.name.rsplit("/", 1)[-1]
    with name_scope(None, default_name=model_name), vs.variable_scope(model_name) as model_scope:
        for column in columns:
            if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
                raise ValueError("Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. "
                                 f"Given: {column}")
        builder = _LazyBuilder(features)
        weighted_sums = []
        ordered = sorted(columns, key=lambda column: scope_names[column])
        for column in ordered:
            with vs.variable_scope(None, default_name=scope_names[column]) as column_scope:
                rows = (column._num_buckets if isinstance(column, _CategoricalColumn)
                        else column._variable_shape.num_elements())
                weights = vs.get_variable("weights", shape=(rows, units), initializer=init_ops.Zeros(),
                                          trainable=trainable)
                _add_to_collections(weights, weight_collections)
                weighted_sums.append(_weighted_sum(column, builder, weights, sparse_combiner, weight_collections,
                                                   trainable))
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES, scope=column_scope.name)
        _verify_static_batch_size_equality(weighted_sums, ordered)
        no_bias = elementwise_ops.add_n(weighted_sums, name="weighted_sum_no_bias")
        get_collection_ref(GraphKeys.UPDATE_OPS)  # TF's Layer call makes the (empty) collection of its updates
        with vs.variable_scope(model_scope, auxiliary_name_scope=False):
            bias = vs.get_variable("bias_weights", shape=[units], initializer=init_ops.Zeros(), trainable=trainable)
        _add_to_collections(bias, weight_collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return nn_ops.bias_add(no_bias, bias, name="weighted_sum")
