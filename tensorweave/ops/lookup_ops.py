"""Lookup tables (`tf.lookup`): static hash tables filled once by an initializer (from tensors or a text
file), vocabulary tables with out-of-vocabulary hash buckets, and mutable hash tables, with TF's V2 ops.

A table op (HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2, MutableDenseHashTableV2) finds or
makes its `Table` in the device's ResourceMgr on its first run, as queues do, and outputs it as the handle.
A table keeps its keys
sorted with their values beside them, so a lookup of a whole tensor of keys is one binary search
(`np.searchsorted`) rather than a dict access per key; an insert merges, the later value winning. A static
table refuses lookups until its initializer ran ("Table not initialized."); its initializers are in the
TABLE_INITIALIZERS collection that `tf.tables_initializer()` groups.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    device,
    get_collection,
    init_scope,
    name_scope,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.resource_mgr import ResourceSlot, resource_name
from tensorweave.framework.saveable_object import SaveableObject, SaveSpec
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops import control_flow_ops, elementwise_ops, sequence_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.ops.string_ops import as_string, string_to_hash_bucket_fast
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export


class Table:
    """A table's contents: sorted keys, and values in the same order (rows of `value_shape`)."""

    def __init__(self, name: str, key_dtype: dtypes.DType, value_dtype: dtypes.DType, value_shape: Any,
                 static: bool) -> None:
        self.name = name
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self.value_shape = tuple(value_shape)
        self.static = static
        self.initialized = not static
        self.lock = threading.Lock()
        self.reserved_keys: tuple = ()  # a dense table's empty and deleted keys
        self.keys = np.empty(0, key_dtype.as_numpy_dtype)
        self.values = np.empty((0, *self.value_shape), value_dtype.as_numpy_dtype)

    def size(self) -> int:
        return len(self.keys)

    def check_keys(self, ctx: OpKernelContext, keys: np.ndarray) -> None:
        """A dense table's empty and deleted keys mark its buckets: TF refuses them as keys."""
        for reserved, what in zip(self.reserved_keys, ("empty_key", "deleted_key")):
            if np.any(np.asarray(keys) == reserved):
                raise invalid_argument(ctx, f"Using the {what} as a table key is not allowed")

    def find(self, ctx: OpKernelContext, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        """The value of every key (default where absent): one binary search over the sorted keys."""
        with self.lock:
            if not self.initialized:
                raise errors.FailedPreconditionError(ctx.node_def, None, "Table not initialized.")
            table_keys, table_values = self.keys, self.values
        flat = np.ravel(keys)
        out = np.empty((flat.size, *self.value_shape), self.value_dtype.as_numpy_dtype)
        out[...] = default
        if table_keys.size and flat.size:
            index = np.minimum(np.searchsorted(table_keys, flat), table_keys.size - 1)
            found = table_keys[index] == flat
            out[found] = table_values[index[found]]
        return out.reshape(np.shape(keys) + self.value_shape)

    def check_values(self, ctx: OpKernelContext, keys: np.ndarray, values: np.ndarray) -> None:
        expected = np.shape(keys) + self.value_shape
        if np.shape(values) != expected:
            raise invalid_argument(ctx, f"Expected shape {tensor_shape.shape_string(expected)} for value, got "
                                        f"{tensor_shape.shape_string(np.shape(values))}")

    def insert(self, ctx: OpKernelContext, keys: np.ndarray, values: np.ndarray, replace: bool = False) -> None:
        """Merge (or, for an import, replace with) `keys` -> `values`: a later value for a key wins, but a
        static table refuses a second, different value for a key, as TF's HashTable."""
        self.check_values(ctx, keys, values)
        keys = np.ravel(keys)
        values = np.reshape(values, (keys.size, *self.value_shape))
        with self.lock:
            if not replace:
                keys = np.concatenate([self.keys, keys])
                values = np.concatenate([self.values, values])
            order = np.argsort(keys, kind="stable")
            keys, values = keys[order], values[order]
            last = np.ones(keys.size, bool)
            last[:-1] = keys[1:] != keys[:-1]
            if self.static and not last.all():
                same = values[:-1].reshape(keys.size - 1, -1) == values[1:].reshape(keys.size - 1, -1)
                clash = np.flatnonzero(~last[:-1] & ~same.all(axis=1))
                if clash.size:
                    i = clash[0]
                    raise errors.FailedPreconditionError(
                        ctx.node_def, None, f"HashTable has different value for same key. Key {_text(keys[i])} has "
                                            f"{_text(values[i])} and trying to add value {_text(values[i + 1])}")
            self.keys, self.values = keys[last], values[last]
            self.initialized = True

    def remove(self, keys: np.ndarray) -> None:
        with self.lock:
            keep = ~np.isin(self.keys, np.ravel(keys))
            self.keys, self.values = self.keys[keep], self.values[keep]


def _text(value: Any) -> str:
    """A key or value as TF's messages print it (floats shortest, without a trailing '.0')."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, np.floating):
        return np.format_float_positional(value, trim="-")
    return str(value)


_TABLE_ATTRS = ["container: string = ''", "shared_name: string = ''", "use_node_name_sharing: bool = false",
                "key_dtype: type", "value_dtype: type"]
HashTableV2 = Op("HashTableV2", outputs=["table_handle: resource"], attrs=_TABLE_ATTRS, is_stateful=True)
MutableHashTableV2 = Op("MutableHashTableV2", outputs=["table_handle: resource"], attrs=_TABLE_ATTRS,
                        is_stateful=True)
MutableHashTableOfTensorsV2 = Op("MutableHashTableOfTensorsV2", outputs=["table_handle: resource"],
                                 attrs=_TABLE_ATTRS + ["value_shape: shape = { }"], is_stateful=True)
MutableDenseHashTableV2 = Op("MutableDenseHashTableV2", inputs=["empty_key: key_dtype", "deleted_key: key_dtype"],
                             outputs=["table_handle: resource"],
                             attrs=_TABLE_ATTRS + ["value_shape: shape = { }", "initial_num_buckets: int = 131072",
                                                   "max_load_factor: float = 0.8"], is_stateful=True)


@HashTableV2.shape
@MutableHashTableV2.shape
@MutableHashTableOfTensorsV2.shape
@MutableDenseHashTableV2.shape
def _table_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@HashTableV2.kernel("CPU", state=ResourceSlot)
@MutableHashTableV2.kernel("CPU", state=ResourceSlot)
@MutableHashTableOfTensorsV2.kernel("CPU", state=ResourceSlot)
def _table(ctx: OpKernelContext) -> Table:
    return _find_or_make_table(ctx)


@MutableDenseHashTableV2.kernel("CPU", state=ResourceSlot)
def _dense_table(ctx: OpKernelContext, empty_key: Any, deleted_key: Any, **attrs: Any) -> Table:
    """A dense table (TF's open addressing over `initial_num_buckets`) kept sorted as the others are; its
    empty and deleted keys are refused as keys."""
    if np.array_equal(empty_key, deleted_key):
        raise invalid_argument(ctx, "Empty and deleted keys cannot be equal")
    table = _find_or_make_table(ctx)
    table.reserved_keys = (np.asarray(empty_key), np.asarray(deleted_key))
    return table


def _find_or_make_table(ctx: OpKernelContext) -> Table:
    def find_or_make() -> Table:
        attrs = ctx.node_def.attr
        shared_name = attrs["shared_name"].decode() or (ctx.name if attrs["use_node_name_sharing"] else "")
        name = resource_name(shared_name, ctx.name)
        value_shape = attrs.get("value_shape") or []
        return ctx.resources.lookup_or_create(
            attrs["container"].decode(), name,
            lambda: Table(name, attrs["key_dtype"], attrs["value_dtype"], value_shape, ctx.op == "HashTableV2"))

    slot: ResourceSlot = ctx.state
    return slot.get(find_or_make)


def _check_handle(ctx: InferenceContext) -> None:
    with_rank(ctx.input_shape(0), 0)


LookupTableFindV2 = Op("LookupTableFindV2", inputs=["table_handle: resource", "keys: Tin", "default_value: Tout"],
                       outputs=["values: Tout"], attrs=["Tin: type", "Tout: type"], is_stateful=True)
LookupTableInsertV2 = Op("LookupTableInsertV2", inputs=["table_handle: resource", "keys: Tin", "values: Tout"],
                         attrs=["Tin: type", "Tout: type"], is_stateful=True)
LookupTableImportV2 = Op("LookupTableImportV2", inputs=["table_handle: resource", "keys: Tin", "values: Tout"],
                         attrs=["Tin: type", "Tout: type"], is_stateful=True)
InitializeTableV2 = Op("InitializeTableV2", inputs=["table_handle: resource", "keys: Tkey", "values: Tval"],
                       attrs=["Tkey: type", "Tval: type"], is_stateful=True)
LookupTableRemoveV2 = Op("LookupTableRemoveV2", inputs=["table_handle: resource", "keys: Tin"],
                         attrs=["Tin: type"], is_stateful=True)
LookupTableSizeV2 = Op("LookupTableSizeV2", inputs=["table_handle: resource"], outputs=["size: int64"],
                       is_stateful=True)
LookupTableExportV2 = Op("LookupTableExportV2", inputs=["table_handle: resource"],
                         outputs=["keys: Tkeys", "values: Tvalues"], attrs=["Tkeys: type", "Tvalues: type"],
                         is_stateful=True)
InitializeTableFromTextFileV2 = Op(
    "InitializeTableFromTextFileV2", inputs=["table_handle: resource", "filename: string"],
    attrs=["key_index: int >= -2", "value_index: int >= -2", "vocab_size: int >= -1 = -1",
           "delimiter: string = '\t'", "offset: int = 0"], is_stateful=True)


@LookupTableFindV2.shape
def _find_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The keys' shape, then the value shape (the default value's, for a table of tensors)."""
    _check_handle(ctx)
    return [ctx.input_shape(1).concatenate(ctx.input_shape(2))]


@LookupTableInsertV2.shape
@LookupTableImportV2.shape
@InitializeTableV2.shape
@LookupTableRemoveV2.shape
@InitializeTableFromTextFileV2.shape
def _no_outputs_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx)
    return []


@LookupTableSizeV2.shape
def _size_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx)
    return [tensor_shape.TensorShape([])]


@LookupTableExportV2.shape
def _export_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_handle(ctx)
    return [tensor_shape.TensorShape([None]), tensor_shape.unknown_shape()]


def _check_types(ctx: OpKernelContext, table: Table, key_type: dtypes.DType, value_type: dtypes.DType | None) -> None:
    """TF's CheckTableDataTypes."""
    if key_type != table.key_dtype or (value_type is not None and value_type != table.value_dtype):
        got = dtypes.type_string(key_type) + ("" if value_type is None else f"-{dtypes.type_string(value_type)}")
        want = dtypes.type_string(table.key_dtype) + (
            "" if value_type is None else f"-{dtypes.type_string(table.value_dtype)}")
        raise invalid_argument(ctx, f"Conflicting key/value dtypes {got} with {want}")


@LookupTableFindV2.kernel("CPU")
def _find(ctx: OpKernelContext, table: Table, keys: Any, default_value: Any, Tin: Any, Tout: Any) -> Any:  # noqa: N803
    _check_types(ctx, table, Tin, Tout)
    if np.shape(default_value) not in ((), table.value_shape):
        raise invalid_argument(ctx, f"Expected shape {tensor_shape.shape_string(table.value_shape)} or [] for "
                                    f"default value, got {tensor_shape.shape_string(np.shape(default_value))}")
    table.check_keys(ctx, keys)
    return table.find(ctx, keys, default_value)


@LookupTableInsertV2.kernel("CPU")
def _insert(ctx: OpKernelContext, table: Table, keys: Any, values: Any, Tin: Any, Tout: Any) -> None:  # noqa: N803
    _check_types(ctx, table, Tin, Tout)
    table.check_keys(ctx, keys)
    table.insert(ctx, keys, values)


@LookupTableImportV2.kernel("CPU")
def _import(ctx: OpKernelContext, table: Table, keys: Any, values: Any, Tin: Any, Tout: Any) -> None:  # noqa: N803
    """Replace the contents; a static table is initialized once (later runs of its initializer do nothing)."""
    _check_types(ctx, table, Tin, Tout)
    if table.static and table.initialized:
        return
    if table.reserved_keys and np.ndim(keys) == 2:  # TF's dense table: its buckets, empty and deleted ones too
        keys = keys.reshape(len(keys))
        values = values.reshape(len(keys), *table.value_shape)
        used = ~np.isin(keys, table.reserved_keys)
        keys, values = keys[used], values[used]
    table.insert(ctx, keys, values, replace=True)


@InitializeTableV2.kernel("CPU")
def _initialize(ctx: OpKernelContext, table: Table, keys: Any, values: Any, Tkey: Any, Tval: Any) -> None:  # noqa: N803
    _import(ctx, table, keys, values, Tin=Tkey, Tout=Tval)


@LookupTableRemoveV2.kernel("CPU")
def _remove(ctx: OpKernelContext, table: Table, keys: Any, Tin: Any) -> None:  # noqa: N803
    _check_types(ctx, table, Tin, None)
    table.check_keys(ctx, keys)
    table.remove(keys)


@LookupTableSizeV2.kernel("CPU")
def _size(ctx: OpKernelContext, table: Table) -> Any:
    with table.lock:
        return np.int64(table.size())


@LookupTableExportV2.kernel("CPU")
def _export(ctx: OpKernelContext, table: Table, Tkeys: Any, Tvalues: Any) -> Any:  # noqa: N803
    with table.lock:
        return [table.keys.copy(), table.values.copy()]


WHOLE_LINE, LINE_NUMBER = -2, -1


def _text_column(ctx: OpKernelContext, filename: str, rows: list[list[bytes]], lines: list[bytes], index: int,
                 dtype: dtypes.DType, offset: int) -> np.ndarray:
    """One column of a vocabulary file as `dtype`: the whole line, the line number (plus `offset`), or a field."""
    if index == WHOLE_LINE:
        column: Any = lines
    elif index == LINE_NUMBER:
        return np.arange(offset, offset + len(lines), dtype=dtype.as_numpy_dtype)
    else:
        short = [i for i, row in enumerate(rows) if len(row) <= index]
        if short:
            raise invalid_argument(ctx, f"Invalid number of columns in {filename} line {short[0]} (" +
                                        _text(lines[short[0]]) + f") for column {index}")
        column = [row[index] for row in rows]
    if dtype == dtypes.string:
        return np.array(column, dtype=object)
    try:
        return np.array(column).astype(dtype.as_numpy_dtype)
    except ValueError:
        raise invalid_argument(ctx, f"Field in {filename} is not a valid {dtypes.type_string(dtype)}") from None


@InitializeTableFromTextFileV2.kernel("CPU")
def _initialize_from_text_file(ctx: OpKernelContext, table: Table, filename: Any, key_index: int, value_index: int,
                               vocab_size: int, delimiter: bytes, offset: int) -> None:
    """TF's InitializeTableFromTextFile: one entry per line (the first `vocab_size` lines, if given)."""
    if table.static and table.initialized:
        return
    path = _text(filename.item() if isinstance(filename, np.ndarray) else filename)
    with gfile.GFile(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if vocab_size >= 0:
        if len(lines) < vocab_size:
            raise invalid_argument(ctx, f"Invalid vocab_size in {path}: expected {vocab_size} but got {len(lines)}")
        lines = lines[:vocab_size]
    rows = [line.split(delimiter) for line in lines] if max(key_index, value_index) >= 0 else []
    keys = _text_column(ctx, path, rows, lines, key_index, table.key_dtype, 0)
    values = _text_column(ctx, path, rows, lines, value_index, table.value_dtype, offset)
    table.insert(ctx, keys, values, replace=True)


@tf_export("initializers.tables_initializer", "tables_initializer")
def tables_initializer(name: str = "init_all_tables") -> Operation:
    """One op that runs every table initializer of the graph (a no-op when there are none)."""
    initializers = get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)


@tf_export("initialize_all_tables")
def initialize_all_tables(name: str = "init_all_tables") -> Operation:
    """TF1's deprecated name of `tables_initializer`."""
    return tables_initializer(name)


@tf_export("lookup.TextFileIndex")
class TextFileIndex:
    """The special columns of a vocabulary file: the whole line, or its line number."""

    WHOLE_LINE = WHOLE_LINE
    LINE_NUMBER = LINE_NUMBER


class TableInitializerBase:
    """What fills a static table once: its key and value dtypes, and the op that does it (`initialize`)."""

    def __init__(self, key_dtype: Any, value_dtype: Any) -> None:
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self) -> dtypes.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        return self._value_dtype

    def initialize(self, table: LookupInterface) -> Operation:
        raise NotImplementedError


@tf_export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a tensor of keys and one of their values."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: str | None = None) -> None:
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table: LookupInterface) -> Operation:
        _check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with name_scope(self._name, values=(table.resource_handle, self._keys, self._values)):
            init_op = LookupTableImportV2(table.resource_handle, self._keys, self._values)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


@tf_export("lookup.TextFileInitializer")
class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: per line, a key and a value taken from the whole line, the line number
    or a field split by `delimiter`."""

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any, value_index: int,
                 vocab_size: int | None = None, delimiter: str = "\t", name: str | None = None,
                 value_index_offset: int = 0) -> None:
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == LINE_NUMBER and key_dtype not in (dtypes.int64, dtypes.int32):
            raise ValueError("`key_dtype` must be int64 or int32 if `key_index` is "
                             f"TextFileIndex.LINE_NUMBER, received: {key_dtype}")
        if key_index == WHOLE_LINE and not key_dtype.is_integer and key_dtype != dtypes.string:
            raise ValueError("`key_dtype` should be either integer or string for `key_index` "
                             f"TextFileIndex.WHOLE_LINE, received: {key_dtype}")
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}")
        if value_index == LINE_NUMBER and value_dtype != dtypes.int64:
            raise ValueError("`value_dtype` must be int64 for `value_index` "
                             f"TextFileIndex.LINE_NUMBER, received: {value_dtype}")
        if value_index == WHOLE_LINE and value_dtype != dtypes.string:
            raise ValueError("`value_dtype` must be string for `value_index` "
                             f"TextFileIndex.WHOLE_LINE, received: {value_dtype}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename_arg = filename
        with init_scope(), device("CPU"):  # TF's trackable Asset: one `asset_path` constant at the graph's root
            self._filename = convert_to_tensor(filename, dtypes.string, name="asset_path")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table: LookupInterface) -> Operation:
        _check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            init_op = InitializeTableFromTextFileV2(
                table.resource_handle, filename, key_index=self._key_index, value_index=self._value_index,
                vocab_size=-1 if self._vocab_size is None else self._vocab_size, delimiter=self._delimiter,
                offset=self._offset)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if filename.op.type == "Const":  # a fed or computed path is no asset
            add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self) -> str:
        """TF names a file's table by the file and columns, so tables read from one file share one resource."""
        parts = [self._filename_arg, *([self._vocab_size] if self._vocab_size else []), self._key_index,
                 self._value_index, *([self._offset] if self._offset else [])]
        return "hash_table_" + "_".join(str(part) for part in parts)


def _check_table_dtypes(table: LookupInterface, key_dtype: dtypes.DType, value_dtype: dtypes.DType) -> None:
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got {key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but got {value_dtype}.")


class LookupInterface:
    """A table of keys to values: its dtypes, name, handle, size and lookup."""

    def __init__(self, key_dtype: Any, value_dtype: Any, name: str) -> None:
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._name = name
        self._resource_handle: Tensor | None = None

    @property
    def key_dtype(self) -> dtypes.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        return self._value_dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def resource_handle(self) -> Tensor:
        return self._resource_handle

    def _keys(self, keys: Any) -> Tensor:
        if not isinstance(keys, Tensor):
            return convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        return keys

    def size(self, name: str | None = None) -> Tensor:
        """The number of entries (an int64 scalar)."""
        with name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return LookupTableSizeV2(self.resource_handle)


@tf_export("lookup.StaticHashTable")
class StaticHashTable(LookupInterface):
    """A table filled once by its initializer (in TABLE_INITIALIZERS); a missing key gives `default_value`."""

    def __init__(self, initializer: TableInitializerBase, default_value: Any, name: str | None = None,
                 experimental_is_anonymous: bool = False) -> None:
        self._initializer = initializer
        self._default_value = convert_to_tensor(default_value, dtype=initializer.value_dtype)
        super().__init__(initializer.key_dtype, initializer.value_dtype, name or "hash_table")
        shared_name = getattr(initializer, "_shared_name", "") or f"{self._name}_{uuid.uuid4()}"
        self._resource_handle = HashTableV2(shared_name=shared_name,
                                            key_dtype=initializer.key_dtype, value_dtype=initializer.value_dtype,
                                            name=self._name)
        self._name = self._resource_handle.op.name.split("/")[-1]
        self._init_op = initializer.initialize(self)

    @property
    def initializer(self) -> Operation:
        return self._init_op

    @property
    def default_value(self) -> Tensor:
        return self._default_value

    def lookup(self, keys: Any, name: str | None = None) -> Tensor:
        """The value of each key, `default_value` where a key is absent; shaped as `keys`."""
        with name_scope(name, f"{self.name}_Lookup", (self.resource_handle, keys, self._default_value)):
            return _on_values(keys, lambda k: LookupTableFindV2(self.resource_handle, self._keys(k),
                                                                self._default_value))

    def export(self, name: str | None = None) -> tuple[Tensor, Tensor]:
        with name_scope(name, f"{self.name}_Export", [self.resource_handle]):
            return LookupTableExportV2(self.resource_handle, Tkeys=self._key_dtype, Tvalues=self._value_dtype)


def _on_values(keys: Any, find: Any) -> Any:
    """TF's tables look up a SparseTensor's values and keep its indices and dense shape."""
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, find(keys.values), keys.dense_shape)
    return find(keys)


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(LookupInterface):
    """Ids of a vocabulary: the initializer's id for a known key, else `size + hash(key) % num_oov_buckets`."""

    def __init__(self, initializer: TableInitializerBase, num_oov_buckets: int, lookup_key_dtype: Any = None,
                 name: str | None = None, experimental_is_anonymous: bool = False) -> None:
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer.value_dtype != dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got {initializer.value_dtype}.")
        if initializer.key_dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(f"Invalid `key_dtype`, expected one of (tf.int32, tf.int64, tf.string), but got "
                            f"{initializer.key_dtype}.")
        self._init_around(StaticHashTable(initializer, -1, name=name or "hash_table"), num_oov_buckets,
                          lookup_key_dtype)

    def _init_around(self, table: StaticHashTable, num_oov_buckets: int, lookup_key_dtype: Any) -> None:
        self._num_oov_buckets = num_oov_buckets
        self._table = table
        key_dtype = dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype is not None else table.key_dtype
        super().__init__(key_dtype, dtypes.int64, table.name)
        self._resource_handle = table.resource_handle

    @classmethod
    def wrapping(cls, table: StaticHashTable, num_oov_buckets: int, lookup_key_dtype: Any) -> StaticVocabularyTable:
        """Out-of-vocabulary buckets around a table already built (TF1's IdTableWithHashBuckets)."""
        wrapper = cls.__new__(cls)
        wrapper._init_around(table, num_oov_buckets, lookup_key_dtype)
        return wrapper

    def size(self, name: str | None = None) -> Tensor:
        """The vocabulary's size plus the out-of-vocabulary buckets."""
        with name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return elementwise_ops.add(LookupTableSizeV2(self.resource_handle), self._num_oov_buckets)

    def lookup(self, keys: Any, name: str | None = None) -> Tensor:
        with name_scope(name, f"{self.name}_Lookup"):
            return _on_values(keys, self._lookup_dense)

    def _lookup_dense(self, keys: Any) -> Tensor:
        keys = self._keys(keys)
        if self._table.key_dtype == dtypes.int64 and keys.dtype != dtypes.int64:
            keys = cast(keys, dtypes.int64)
        strings = keys if keys.dtype == dtypes.string else as_string(keys)
        buckets = string_to_hash_bucket_fast(strings, num_buckets=self._num_oov_buckets, name="hash_bucket")
        ids = self._table.lookup(keys)
        buckets = elementwise_ops.add(buckets, self._table.size())
        known = elementwise_ops.not_equal(ids, self._table.default_value)
        return elementwise_ops.where_v2(known, ids, buckets)


class _MutableTable(LookupInterface):
    """A table that steps change: insert, remove, lookup and export."""

    def __init__(self, op: Op, key_dtype: Any, value_dtype: Any, default_value: Any, name: str, checkpoint: bool,
                 inputs: tuple = (), **table_attrs: Any) -> None:
        super().__init__(key_dtype, value_dtype, name)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default_value.shape
        self._resource_handle = op(*inputs, key_dtype=self._key_dtype, value_dtype=self._value_dtype,
                                   use_node_name_sharing=True, name=name, **table_attrs)
        self._name = self._resource_handle.op.name.split("/")[-1]
        if checkpoint:  # the Saver's: keys and values under `<name>-keys` and `<name>-values`, as in TF
            add_to_collection(GraphKeys.SAVEABLE_OBJECTS, _TableSaveable(self, name))

    def lookup(self, keys: Any, dynamic_default_values: Any = None, name: str | None = None) -> Tensor:
        """The value of each key, the default where a key is absent."""
        default = self._default_value if dynamic_default_values is None else dynamic_default_values
        with name_scope(name, f"{self._name}_lookup_table_find", (self.resource_handle, keys, default)):
            return LookupTableFindV2(self.resource_handle, self._keys(keys), default)

    def insert(self, keys: Any, values: Any, name: str | None = None) -> Operation:
        """An op that sets the value of each key (a later value for a key replaces the earlier one)."""
        with name_scope(name, f"{self._name}_lookup_table_insert", [self.resource_handle, keys, values]):
            keys = self._keys(keys)
            values = convert_to_tensor(values, self._value_dtype, name="values")
            return LookupTableInsertV2(self.resource_handle, keys, values)

    def remove(self, keys: Any, name: str | None = None) -> Operation:
        """An op that removes the keys (absent ones are ignored)."""
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}.")
        with name_scope(name, f"{self._name}_lookup_table_remove", (self.resource_handle, keys)):
            return LookupTableRemoveV2(self.resource_handle, keys)

    def export(self, name: str | None = None) -> tuple[Tensor, Tensor]:
        """Every key and its value."""
        with name_scope(name, f"{self._name}_lookup_table_export_values", [self.resource_handle]):
            keys, values = LookupTableExportV2(self.resource_handle, Tkeys=self._key_dtype, Tvalues=self._value_dtype)
        values.set_shape(tensor_shape.TensorShape([None]).concatenate(self._value_shape))
        return keys, values


class _TableSaveable(SaveableObject):
    """A mutable table in a checkpoint: its exported keys and values, imported back on restore."""

    def __init__(self, table: _MutableTable, name: str) -> None:
        keys, values = table.export()
        super().__init__(table, [SaveSpec(keys, "", name + "-keys"), SaveSpec(values, "", name + "-values")], name)

    def restore(self, restored_tensors: list[Any], restored_shapes: list[Any] | None) -> Operation:
        with colocate_with(self.op.resource_handle):
            return LookupTableImportV2(self.op.resource_handle, *restored_tensors)


@tf_export("lookup.experimental.MutableHashTable")
class MutableHashTable(_MutableTable):
    """A mutable table of keys to scalar values, or to tensors of the default value's shape."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, name: str = "MutableHashTable",
                 checkpoint: bool = True, experimental_is_anonymous: bool = False) -> None:
        shape = convert_to_tensor(default_value, dtype=value_dtype).shape
        if shape.ndims == 0:
            super().__init__(MutableHashTableV2, key_dtype, value_dtype, default_value, name, checkpoint)
        else:
            super().__init__(MutableHashTableOfTensorsV2, key_dtype, value_dtype, default_value, name, checkpoint,
                             value_shape=shape.as_list())


@tf_export("lookup.experimental.DenseHashTable")
class DenseHashTable(_MutableTable):
    """A mutable table whose keys may be neither `empty_key` nor `deleted_key` (TF's open-addressing table)."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, empty_key: Any, deleted_key: Any,
                 initial_num_buckets: int | None = None, name: str = "MutableDenseHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False) -> None:
        empty = convert_to_tensor(empty_key, dtype=key_dtype, name="empty_key")
        deleted = convert_to_tensor(deleted_key, dtype=key_dtype, name="deleted_key")
        shape = convert_to_tensor(default_value, dtype=value_dtype).shape
        buckets = {} if initial_num_buckets is None else {"initial_num_buckets": initial_num_buckets}
        super().__init__(MutableDenseHashTableV2, key_dtype, value_dtype, default_value, name, checkpoint,
                         (empty, deleted), value_shape=shape.as_list(), **buckets)


def _id_table(initializer: TableInitializerBase, num_oov_buckets: int, default_value: int) -> LookupInterface:
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    if num_oov_buckets:
        return StaticVocabularyTable(initializer, num_oov_buckets)
    return StaticHashTable(initializer, default_value)


def index_table_from_tensor(vocabulary_list: Any, num_oov_buckets: int = 0, default_value: int = -1,
                            hasher_spec: Any = None, dtype: Any = dtypes.string,
                            name: str | None = None) -> LookupInterface:
    """A table of each vocabulary entry to its position, out-of-vocabulary keys to hash buckets past them or
    to `default_value` (TF's lookup_ops.index_table_from_tensor); integer vocabularies are keyed as int64."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater or equal than 0, got {num_oov_buckets}.")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer and dtype.base_dtype != dtypes.string:
        raise TypeError("`dtype` must either be integer or string.")
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Invalid `dtype`: Expected {'integer' if dtype.is_integer else 'non-integer'}, got "
                             f"{keys.dtype}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Invalid `dtype`: Expected {dtype}, got {keys.dtype}.")
        values = cast(sequence_ops.range(shape_ops.size(keys)), dtypes.int64)
        with name_scope(None, "hash_table"):
            table_keys = cast(keys, dtypes.int64) if keys.dtype.is_integer else keys
            initializer = KeyValueTensorInitializer(table_keys, values, name="table_init")
            table = StaticHashTable(initializer, default_value)
        if num_oov_buckets:
            return StaticVocabularyTable.wrapping(table, num_oov_buckets, dtype)
        return table


def index_table_from_file(vocabulary_file: Any = None, num_oov_buckets: int = 0, vocab_size: int | None = None,
                          default_value: int = -1, hasher_spec: Any = None, key_dtype: Any = dtypes.string,
                          name: str | None = None, key_column_index: int = WHOLE_LINE,
                          value_column_index: int = LINE_NUMBER, delimiter: str = "\t") -> LookupInterface:
    """A table of each line of a vocabulary file to its line number (TF's lookup_ops.index_table_from_file)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    with name_scope(name, "string_to_index"), name_scope(None, "hash_table"):
        initializer = TextFileInitializer(vocabulary_file, key_dtype, key_column_index, dtypes.int64,
                                          value_column_index, vocab_size=vocab_size, delimiter=delimiter)
        return _id_table(initializer, num_oov_buckets, default_value)


def index_to_string_table_from_tensor(vocabulary_list: Any, default_value: str = "UNK",
                                      name: str | None = None) -> StaticHashTable:
    """A table of positions to vocabulary entries (TF's lookup_ops.index_to_string_table_from_tensor)."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with name_scope(name, "index_to_string"):
        values = convert_to_tensor(vocabulary_list, dtypes.string)
        keys = cast(sequence_ops.range(shape_ops.size(values)), dtypes.int64)
        initializer = KeyValueTensorInitializer(keys, values, dtypes.int64, dtypes.string, name="table_init")
        return StaticHashTable(initializer, default_value)


def index_to_string_table_from_file(vocabulary_file: Any, vocab_size: int | None = None,
                                    default_value: str = "UNK", name: str | None = None,
                                    key_column_index: int = LINE_NUMBER, value_column_index: int = WHOLE_LINE,
                                    delimiter: str = "\t") -> StaticHashTable:
    """A table of line numbers to the lines of a vocabulary file (TF's index_to_string_table_from_file)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    with name_scope(name, "index_to_string"):
        initializer = TextFileInitializer(vocabulary_file, dtypes.int64, key_column_index, dtypes.string,
                                          value_column_index, vocab_size=vocab_size, delimiter=delimiter)
        return StaticHashTable(initializer, default_value)
