"""TF1's variable sharing: `tf.get_variable`, `tf.variable_scope` and the per-graph variable store.

Each graph keeps, in collections under TF's own keys, one `_VariableStore` (every variable made by
`get_variable`, by full name) and one `_VariableScopeStore` (the current `VariableScope` and how often each
scope name was opened, so `default_name` scopes come out unique). A `VariableScope` carries the defaults
(reuse, initializer, regularizer, dtype, custom getter, ...) that `get_variable` applies, and
`variable_scope` opens one together with a name scope for the ops created inside, as TF does: re-entering a
scope object reuses its variable names while its ops go to a new name scope ('scope_1/').
"""

from __future__ import annotations

import contextlib
import copy
import enum
import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    get_graph_from_inputs,
    resource_variables_enabled,
)
from tensorweave.ops import indexing_ops, init_ops, variables
from tensorweave.ops.variables import (
    VariableAggregation,
    VariableSynchronization,
    validate_synchronization_aggregation_trainable,
)
from tensorweave.platform.tf_export import export_value, tf_export


class _ReuseMode(enum.Enum):
    """The reuse mode that creates a variable when missing and returns it when present."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
export_value(AUTO_REUSE, "AUTO_REUSE")

_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


def _needs_no_arguments(fn: Callable) -> bool:
    """True when `fn` can be called with no arguments (an initial-value function rather than an
    initializer that wants a shape)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return all(p.default is not p.empty for p in params if p.kind in positional)


def _takes_argument(fn: Callable, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


class _VariableStore:
    """The variables `get_variable` made in one graph, by full name: the table that sharing consults."""

    __slots__ = ["_vars", "_partitioned_vars"]

    def __init__(self) -> None:
        self._vars: dict[str, variables.Variable] = {}
        self._partitioned_vars: dict[str, variables.PartitionedVariable] = {}

    def get_variable(self, name: str, shape: Any = None, dtype: Any = dtypes.float32, initializer: Any = None,
                     regularizer: Callable | None = None, reuse: Any = None, trainable: bool | None = None,
                     collections: list | None = None, caching_device: Any = None, partitioner: Any = None,
                     validate_shape: bool = True, use_resource: bool | None = None,
                     custom_getter: Callable | None = None, constraint: Callable | None = None,
                     synchronization: Any = VariableSynchronization.AUTO,
                     aggregation: Any = VariableAggregation.NONE) -> variables.Variable:
        """The variable `name`, made or shared according to `reuse`, through `custom_getter` when set."""
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        dtype = getattr(dtype, "base_dtype", dtype)

        def true_getter(name: str, shape: Any = None, dtype: Any = dtypes.float32, initializer: Any = None,
                        regularizer: Callable | None = None, reuse: Any = None, trainable: bool | None = None,
                        collections: list | None = None, caching_device: Any = None, partitioner: Any = None,
                        validate_shape: bool = True, use_resource: bool | None = None,
                        constraint: Callable | None = None, synchronization: Any = VariableSynchronization.AUTO,
                        aggregation: Any = VariableAggregation.NONE) -> variables.Variable:
            is_scalar = isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                with get_default_graph().name_scope(None):
                    return self._get_partitioned_variable(
                        name, partitioner, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, reuse=reuse, trainable=trainable, collections=collections,
                        caching_device=caching_device, validate_shape=validate_shape, use_resource=use_resource,
                        constraint=constraint, synchronization=synchronization, aggregation=aggregation)
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                # TF shares a partitioned variable under reuse=True without its partitioner being named again.
                return self._get_partitioned_variable(
                    name, None, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                    reuse=reuse, trainable=trainable, collections=collections, caching_device=caching_device,
                    validate_shape=validate_shape, use_resource=use_resource, constraint=constraint,
                    synchronization=synchronization, aggregation=aggregation)
            if f"{name}/part_0" in self._vars:
                raise ValueError(f"No partitioner was provided, but a partitioned version of the variable was found: "
                                 f"{name}/part_0. Perhaps a variable of the same name was already created with "
                                 f"partitioning?")
            return self._get_single_variable(
                name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, reuse=reuse,
                trainable=trainable, collections=collections, caching_device=caching_device,
                validate_shape=validate_shape, use_resource=use_resource, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)

        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        if custom_getter is None:
            return true_getter(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                               reuse=reuse, trainable=trainable, collections=collections,
                               caching_device=caching_device, partitioner=partitioner,
                               validate_shape=validate_shape, use_resource=use_resource, constraint=constraint,
                               synchronization=synchronization, aggregation=aggregation)
        kwargs = {"getter": true_getter, "name": name, "shape": shape, "dtype": dtype, "initializer": initializer,
                  "regularizer": regularizer, "reuse": reuse, "trainable": trainable, "collections": collections,
                  "caching_device": caching_device, "partitioner": partitioner, "validate_shape": validate_shape,
                  "use_resource": use_resource, "synchronization": synchronization, "aggregation": aggregation}
        if _takes_argument(custom_getter, "constraint"):
            kwargs["constraint"] = constraint
        return custom_getter(**kwargs)

    def _get_partitioned_variable(self, name: str, partitioner: Callable | None, shape: Any = None,
                                  dtype: Any = dtypes.float32, initializer: Any = None,
                                  regularizer: Callable | None = None, reuse: Any = None,
                                  trainable: bool | None = None, collections: list | None = None,
                                  caching_device: Any = None, validate_shape: bool = True,
                                  use_resource: bool | None = None, constraint: Callable | None = None,
                                  synchronization: Any = VariableSynchronization.AUTO,
                                  aggregation: Any = VariableAggregation.NONE) -> variables.PartitionedVariable:
        """The variable `name` as shards `name/part_i` split along the one axis `partitioner` picks; each
        shard is an ordinary variable (so a device function places each) that knows its slice for the Saver.
        An initializer tensor or value is sliced per shard; a callable one is called per shard with a
        `partition_info` giving the full shape and the shard's offset."""
        dtype = dtypes.as_dtype(dtype)
        initializing_from_value = isinstance(initializer, Tensor)
        if name in self._vars:
            raise ValueError(f"A partitioner was provided, but an unpartitioned version of the variable was found: "
                             f"{name}.  Perhaps a variable of the same name was already created without "
                             f"partitioning?")
        shape = tensor_shape.as_shape(shape)
        if initializing_from_value:
            shape = shape.merge_with(initializer.get_shape())
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            if reuse is False:
                raise ValueError(f"Partitioned variable with name {name} already exists. Did you mean to set "
                                 f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            existing = self._partitioned_vars[name]
            if not shape.is_compatible_with(existing.get_shape()):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified shape {shape} and "
                                 f"found shape {existing.get_shape()}.")
            if not dtype.is_compatible_with(existing.dtype):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified dtype {dtype.name} "
                                 f"and found dtype {existing.dtype.name}.")
            if partitions is not None and existing._get_partitions() != partitions:
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified partitions "
                                 f"{partitions} and found partitions {existing._get_partitions()}.")
            return existing
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created with tf.get_variable(). "
                             f"Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in VarScope?")
        slice_dim, num_slices = _get_slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self._vars:
            if f"{name}/part_{num_slices - 1}" not in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was already found.  "
                                 f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, but "
                                 f"{name}/part_{num_slices - 1} was not.")
            if f"{name}/part_{num_slices}" in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was already found.  "
                                 f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, but "
                                 f"so was the extra shard {name}/part_{num_slices}.")
        graph = get_default_graph()
        shards = []
        for i, (var_offset, var_shape) in enumerate(_iter_slices(shape.as_list(), num_slices, slice_dim)):
            partition_info = _PartitionInfo(full_shape=shape.as_list(), var_offset=var_offset)
            var_full_name = f"{name}/part_{i}"
            with graph.name_scope(var_full_name + "/PartitionedInitializer"):
                if initializer is None:
                    init: Any = _default_initializer(name, dtype)
                    init_shape = var_shape
                elif callable(initializer):
                    init, init_shape = initializer, var_shape
                elif isinstance(initializer, Tensor):
                    init = indexing_ops.slice(initializer, var_offset, var_shape)
                    dtype = init.dtype.base_dtype
                    init_shape = None
                else:
                    init = indexing_ops.slice(convert_to_tensor(initializer, dtype=dtype), var_offset, var_shape)
                    init_shape = None
            with graph.name_scope(None):
                var = self._get_single_variable(
                    var_full_name, shape=init_shape, dtype=dtype, initializer=init, partition_info=partition_info,
                    regularizer=regularizer, reuse=reuse, trainable=trainable, collections=collections,
                    caching_device=caching_device, validate_shape=validate_shape, use_resource=use_resource,
                    constraint=constraint, synchronization=synchronization, aggregation=aggregation)
            var._set_save_slice_info(variables.Variable.SaveSliceInfo(name, shape.as_list(), var_offset, var_shape))
            shards.append(var)
        partitioned = variables.PartitionedVariable(name=name, shape=shape, dtype=dtype, variable_list=shards,
                                                    partitions=partitions)
        self._partitioned_vars[name] = partitioned
        return partitioned

    def _get_single_variable(self, name: str, shape: Any = None, dtype: Any = dtypes.float32,
                             initializer: Any = None, regularizer: Callable | None = None,
                             partition_info: Any = None, reuse: Any = None, trainable: bool | None = None,
                             collections: list | None = None, caching_device: Any = None,
                             validate_shape: bool = True, use_resource: bool | None = None,
                             constraint: Callable | None = None, synchronization: Any = VariableSynchronization.AUTO,
                             aggregation: Any = VariableAggregation.NONE) -> variables.Variable:
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if shape is not None:
            shape = tensor_shape.as_shape(shape)

        if name in self._vars:
            found = self._vars[name]
            if reuse is False:
                message = (f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or "
                           f"reuse=tf.AUTO_REUSE in VarScope?")
                if found.op.type == "VarHandleOp":  # TF names no origin for a resource variable
                    raise ValueError(message)
                # TF's form: the five innermost user frames, innermost first, without their source lines.
                origin = "".join(f'  File "{filename}", line {lineno}, in {function}\n'
                                 for filename, lineno, function, _ in found.op.traceback[::-1][:5])
                raise ValueError(f"{message} Originally defined at:\n\n{origin}")
            if shape is not None and not shape.is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to share variable {name}, but specified shape {shape} and found shape "
                                 f"{found.get_shape()}.")
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                                 f"dtype {found.dtype.name}.")
            return found

        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with tf.get_variable(). Did you "
                             f"mean to set reuse=tf.AUTO_REUSE in VarScope?")
        if initializer is None:
            if shape is None:
                raise ValueError(f"Variable {name} did not get an initializer, so its `shape` argument must be "
                                 f"specified.")
            initializer = _default_initializer(name, dtype)
        if initializing_from_value:
            init_val = initializer
            variable_dtype = None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape is not None and shape.is_fully_defined():
                extra = {"partition_info": partition_info} if _takes_argument(initializer, "partition_info") else {}
                init_val = functools.partial(initializer, shape.as_list(), dtype=dtype, **extra)
                variable_dtype = dtype.base_dtype
            elif _needs_no_arguments(initializer):
                init_val = initializer
                variable_dtype = None
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable with no arguments "
                                 "and the shape should not be provided or an instance of "
                                 "`tf.keras.initializers.*' and `shape` should be fully defined.")
        v = variables.Variable(initial_value=init_val, name=name, trainable=trainable, collections=collections,
                               caching_device=caching_device, dtype=variable_dtype, validate_shape=validate_shape,
                               constraint=constraint, synchronization=synchronization, aggregation=aggregation,
                               shape=shape, use_resource=use_resource)
        self._vars[name] = v
        if regularizer:
            # TF calls the regularizer once bare (its ops at the top scope) to see whether it returns a loss,
            # then again beside the variable under 'name/Regularizer/' for the loss it collects.
            if regularizer(v) is not None:
                with colocate_with(v), get_default_graph().name_scope(name + "/Regularizer/"):
                    loss = regularizer(v)
                add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


class _PartitionInfo:
    """What an initializer called for one shard learns: the full variable's shape and the shard's offset
    (so, e.g., Glorot scales by the full fan-in and a constant initializer slices its value)."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape: list, var_offset: list) -> None:
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError("`full_shape` must be a sequence (like tuple or list) instead of "
                            + type(full_shape).__name__)
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError("`var_offset` must be a sequence (like tuple or list) instead of "
                            + type(var_offset).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                             f"full_shape is of length {len(full_shape)}.")
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, shape={size} for "
                                 f"var_offset={var_offset}, full_shape={full_shape}")
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self) -> list:
        return self._full_shape

    @property
    def var_offset(self) -> list:
        return self._var_offset

    def single_offset(self, shape: list) -> int:
        """The offset along the one sliced dimension (0 when the variable is not sliced)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self._var_offset[dim]

    def single_slice_dim(self, shape: list) -> int | None:
        """The dimension a shard of `shape` is sliced along, None when it is the whole variable."""
        if not isinstance(shape, (tuple, list)):
            raise TypeError("`shape` must be a sequence (like tuple or list) instead of " + type(shape).__name__)
        if len(shape) != len(self._full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length {len(shape)} while "
                             f"self.full_shape={self._full_shape} is of length {len(self._full_shape)}.")
        for i, size in enumerate(shape):
            if self._var_offset[i] + size > self._full_shape[i]:
                raise ValueError(f"With self.var_offset={self._var_offset}, a partition of shape={shape} would "
                                 f"exceed self.full_shape={self._full_shape} in dimension {i}.")
        slice_dim = None
        for i, size in enumerate(shape):
            if size == self._full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and "
                                 f"self.full_shape={self._full_shape} since slice dim could be either dimension {i} "
                                 f"or {slice_dim}.")
            slice_dim = i
        return slice_dim


def _call_partitioner(partitioner: Callable, shape: tensor_shape.TensorShape, dtype: dtypes.DType) -> list:
    """The partitioner's slicing, checked: one entry per dimension, all >= 1, at most one > 1."""
    if not shape.is_fully_defined():
        raise ValueError(f"Shape of a new partitioned variable must be fully defined, but instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(f"Partitioner returned a partition list that does not match the Variable's rank: {slicing} "
                         f"vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, partitioning: {slicing}")
    return slicing


def _get_slice_dim_and_num_slices(slicing: list) -> tuple[int, int]:
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def _iter_slices(full_shape: list, num_slices: int, slice_dim: int) -> Any:
    """(offset, shape) of each shard: equal lengths, the first `length % num_slices` shards one longer."""
    num_slices_with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_slice_len + (i < num_slices_with_excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


def _default_initializer(name: str, dtype: dtypes.DType) -> init_ops.Initializer:
    """Glorot-uniform for floating variables, zeros for integer, bool and string ones; others need one."""
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


@tf_export("no_regularizer")
def no_regularizer(_: Any) -> None:
    """A regularizer that adds no loss: turns off a scope's default regularizer for one variable."""
    return None


@tf_export("VariableScope")
class VariableScope:
    """A variable scope's name and the defaults `get_variable` takes from it inside the scope."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None, regularizer: Callable | None = None,
                 caching_device: Any = None, partitioner: Any = None, custom_getter: Callable | None = None,
                 name_scope: str = "", dtype: Any = dtypes.float32, use_resource: bool | None = None,
                 constraint: Callable | None = None) -> None:
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self) -> str:
        return self._name

    @property
    def original_name_scope(self) -> str:
        return self._name_scope

    @property
    def reuse(self) -> Any:
        return self._reuse

    @property
    def initializer(self) -> Any:
        return self._initializer

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def use_resource(self) -> bool | None:
        return self._use_resource

    @property
    def regularizer(self) -> Callable | None:
        return self._regularizer

    @property
    def caching_device(self) -> Any:
        return self._caching_device

    @property
    def partitioner(self) -> Any:
        return self._partitioner

    @property
    def custom_getter(self) -> Callable | None:
        return self._custom_getter

    @property
    def constraint(self) -> Callable | None:
        return self._constraint

    def reuse_variables(self) -> None:
        """From now on `get_variable` in this scope shares existing variables (and fails for new names)."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtype

    def set_use_resource(self, use_resource: bool | None) -> None:
        self._use_resource = use_resource

    def set_regularizer(self, regularizer: Callable | None) -> None:
        self._regularizer = regularizer

    def set_caching_device(self, caching_device: Any) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Any) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Callable | None) -> None:
        self._custom_getter = custom_getter

    def get_collection(self, name: str) -> list:
        """The collection's items whose names start with this scope's."""
        return get_collection(name, self._name + "/" if self._name else "")

    def trainable_variables(self) -> list:
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list:
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list:
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store: _VariableStore, name: str, shape: Any = None, dtype: Any = None,
                     initializer: Any = None, regularizer: Callable | None = None, reuse: Any = None,
                     trainable: bool | None = None, collections: list | None = None, caching_device: Any = None,
                     partitioner: Any = None, validate_shape: bool = True, use_resource: bool | None = None,
                     custom_getter: Callable | None = None, constraint: Callable | None = None,
                     synchronization: Any = VariableSynchronization.AUTO,
                     aggregation: Any = VariableAggregation.NONE) -> variables.Variable:
        """`var_store`'s variable `name` under this scope, with this scope's defaults filled in."""
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if use_resource is None:
            use_resource = self._use_resource
        if use_resource is None:  # what the variable is decided here, as TF's creators and getters see it
            use_resource = resource_variables_enabled()
        full_name = self.name + "/" + name if self.name else name
        # Variables are named by their scope alone, never by the name scopes around them.
        with get_default_graph().name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtype:
                    raise ValueError(f"Initializer type '{init_dtype}' and explicit dtype '{dtype}' don't match.")
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, reuse=reuse,
                trainable=trainable, collections=collections, caching_device=caching_device,
                partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                custom_getter=custom_getter, constraint=constraint, synchronization=synchronization,
                aggregation=aggregation)


class _VariableScopeStore(threading.local):
    """Per thread: the current variable scope and how many times each scope name is open, so that
    `default_name` scopes get fresh names ('scope', 'scope_1')."""

    def __init__(self) -> None:
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count: dict[str, int] = {}

    def open_variable_scope(self, scope_name: str) -> None:
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name: str) -> None:
        """Leaving a scope forgets its sub-scopes' counts (re-entering it gives them their first names)."""
        prefix = scope_name + "/"
        for key in self.variable_scopes_count:
            if key.startswith(prefix):
                self.variable_scopes_count[key] = 0

    def variable_scope_count(self, scope_name: str) -> int:
        return self.variable_scopes_count.get(scope_name, 0)


def _get_variable_scope_store() -> _VariableScopeStore:
    store = get_collection(_VARSCOPESTORE_KEY)
    if store:
        return store[0]
    store = _VariableScopeStore()
    add_to_collection(_VARSCOPESTORE_KEY, store)
    return store


def _get_default_variable_store() -> _VariableStore:
    store = get_collection(_VARSTORE_KEY)
    if store:
        return store[0]
    store = _VariableStore()
    add_to_collection(_VARSTORE_KEY, store)
    return store


@tf_export("get_variable_scope")
def get_variable_scope() -> VariableScope:
    """The variable scope in effect in the default graph on this thread."""
    return _get_variable_scope_store().current_scope


variables.scope_use_resource.install(lambda: get_variable_scope().use_resource)


@tf_export("get_variable")
def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Callable | None = None, trainable: bool | None = None, collections: list | None = None,
                 caching_device: Any = None, partitioner: Any = None, validate_shape: bool = True,
                 use_resource: bool | None = None, custom_getter: Callable | None = None,
                 constraint: Callable | None = None, synchronization: Any = VariableSynchronization.AUTO,
                 aggregation: Any = VariableAggregation.NONE) -> variables.Variable:
    """The variable `name` in the current variable scope: created, or shared when the scope reuses."""
    return get_variable_scope().get_variable(
        _get_default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        custom_getter=custom_getter, constraint=constraint, synchronization=synchronization,
        aggregation=aggregation)


@tf_export("get_local_variable")
def get_local_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                       regularizer: Callable | None = None, trainable: bool = False, collections: list | None = None,
                       caching_device: Any = None, partitioner: Any = None, validate_shape: bool = True,
                       use_resource: bool | None = None, custom_getter: Callable | None = None,
                       constraint: Callable | None = None, synchronization: Any = VariableSynchronization.AUTO,
                       aggregation: Any = VariableAggregation.NONE) -> variables.Variable:
    """`get_variable` for a LOCAL_VARIABLES variable, never trainable (whatever `trainable` says, as in TF)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=False, collections=collections, caching_device=caching_device,
                        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                        synchronization=synchronization, aggregation=aggregation, custom_getter=custom_getter,
                        constraint=constraint)


def _maybe_wrap_custom_getter(custom_getter: Callable, old_getter: Callable | None) -> Callable:
    """A nested scope's getter runs first and gets the outer one (bound to the true getter) as its getter."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter: Callable, *args: Any, **kwargs: Any) -> Any:
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped_custom_getter


class _pure_variable_scope:  # noqa: N801 - TF's name
    """Switches the current VariableScope (no name scope): the part of `variable_scope` that names variables."""

    def __init__(self, name_or_scope: str | VariableScope, reuse: Any = None, initializer: Any = None,
                 regularizer: Callable | None = None, caching_device: Any = None, partitioner: Any = None,
                 custom_getter: Callable | None = None, old_name_scope: str | None = None,
                 dtype: Any = dtypes.float32, use_resource: bool | None = None,
                 constraint: Callable | None = None) -> None:
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._var_scope_store = _get_variable_scope_store()
        self._last_variable_scope_object: VariableScope | None = None
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            scope = VariableScope(
                name_or_scope.reuse if not reuse else reuse, name=self._new_name,
                initializer=name_or_scope.initializer, regularizer=name_or_scope.regularizer,
                caching_device=name_or_scope.caching_device, partitioner=name_or_scope.partitioner,
                dtype=name_or_scope.dtype, custom_getter=name_or_scope.custom_getter,
                name_scope=name_or_scope.original_name_scope, use_resource=name_or_scope.use_resource,
                constraint=constraint)
            self._apply_overrides(scope, name_or_scope.custom_getter)
            self._cached_variable_scope_object = scope

    def _apply_overrides(self, scope: VariableScope, outer_getter: Callable | None) -> None:
        """The arguments given to this scope replace what it inherited."""
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter, outer_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)

    def __enter__(self) -> VariableScope:
        store = self._var_scope_store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            store.open_variable_scope(self._new_name)
            self._old_subscopes = copy.copy(store.variable_scopes_count)
            scope = self._cached_variable_scope_object
        else:
            old = self._old
            self._new_name = old.name + "/" + self._name_or_scope if old.name else self._name_or_scope
            self._reuse = self._reuse or old.reuse  # sub-scopes inherit reuse
            scope = VariableScope(
                self._reuse, name=self._new_name, initializer=old.initializer, regularizer=old.regularizer,
                caching_device=old.caching_device, partitioner=old.partitioner, dtype=old.dtype,
                use_resource=old.use_resource, custom_getter=old.custom_getter,
                name_scope=self._name_or_scope if self._old_name_scope is None else self._old_name_scope,
                constraint=self._constraint)
            self._apply_overrides(scope, old.custom_getter)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._last_variable_scope_object = scope
        return scope

    def __exit__(self, *exc_info: Any) -> None:
        store = self._var_scope_store
        if store.current_scope is not self._last_variable_scope_object:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_subscopes
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old


def _get_unique_variable_scope(prefix: str) -> str:
    """`prefix`, or `prefix_N` with the first N whose scope is not open under the current scope."""
    store = _get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


class _NameScope:
    """A name scope that opens afresh on every entry (so a re-entered variable_scope gets 'scope_1/')."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._open: list[Any] = []

    def __enter__(self) -> str:
        scope = get_default_graph().name_scope(self._name)
        entered = scope.__enter__()
        self._open.append(scope)
        return entered

    def __exit__(self, *exc_info: Any) -> None:
        self._open.pop().__exit__(*exc_info)


@tf_export("variable_scope")
class variable_scope:  # noqa: N801 - TF's name
    """`tf.variable_scope`: a variable scope (names and defaults for `get_variable`) with a name scope for
    the ops created inside."""

    def __init__(self, name_or_scope: str | VariableScope | None, default_name: str | None = None,
                 values: Any = None, initializer: Any = None, regularizer: Callable | None = None,
                 caching_device: Any = None, partitioner: Any = None, custom_getter: Callable | None = None,
                 reuse: Any = None, dtype: Any = None, use_resource: bool | None = None,
                 constraint: Callable | None = None, auxiliary_name_scope: bool = True) -> None:
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if self._reuse is False:
            self._reuse = None  # False means "inherit", as None does
        if not (self._reuse is True or self._reuse is None or self._reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        self._graph = get_graph_from_inputs([] if values is None else values)
        self._cached_pure_variable_scope: _pure_variable_scope | None = None
        self._current_name_scope: Any = None
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(f"The auxiliary_name_scope must be `True` or `False`, while get {auxiliary_name_scope}")
        self._auxiliary_name_scope = auxiliary_name_scope

    def __enter__(self) -> VariableScope:
        self._graph_context_manager = self._graph.as_default()
        self._graph_context_manager.__enter__()
        if self._cached_pure_variable_scope is not None:
            if self._current_name_scope is not None:
                self._current_name_scope.__enter__()
            return self._cached_pure_variable_scope.__enter__()
        try:
            return self._enter_scope_uncached()
        except BaseException as e:
            self._graph_context_manager.__exit__(type(e), e, e.__traceback__)
            raise

    def _pure_scope(self, name_or_scope: str | VariableScope, old_name_scope: str | None,
                    reuse: Any) -> _pure_variable_scope:
        return _pure_variable_scope(
            name_or_scope, reuse=reuse, initializer=self._initializer, regularizer=self._regularizer,
            caching_device=self._caching_device, partitioner=self._partitioner, custom_getter=self._custom_getter,
            old_name_scope=old_name_scope, dtype=self._dtype, use_resource=self._use_resource,
            constraint=self._constraint)

    def _enter_pure_scope(self, pure_scope: _pure_variable_scope) -> VariableScope:
        try:
            entered = pure_scope.__enter__()
        except BaseException as e:
            pure_scope.__exit__(type(e), e, e.__traceback__)
            raise
        self._cached_pure_variable_scope = pure_scope
        return entered

    def _enter_scope_uncached(self) -> VariableScope:
        current_name_scope = None
        if not self._auxiliary_name_scope:
            # No name scope of its own: re-enter the current one (ops keep their names).
            name_scope = get_default_graph().get_name_scope()
            current_name_scope = _NameScope(name_scope + "/" if name_scope else name_scope)
        if self._name_or_scope is not None:
            if not isinstance(self._name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            if isinstance(self._name_or_scope, str):
                name_scope = self._name_or_scope
            else:
                name_scope = self._name_or_scope.name.split("/")[-1]
            if not (name_scope or current_name_scope):
                self._current_name_scope = None
                return self._enter_pure_scope(self._pure_scope(self._name_or_scope, None, self._reuse))
            current_name_scope = current_name_scope or _NameScope(name_scope)
            current_name_scope_name = current_name_scope.__enter__()
            self._current_name_scope = current_name_scope
            if isinstance(self._name_or_scope, str):
                old_name_scope = current_name_scope_name
            else:
                old_name_scope = self._name_or_scope.original_name_scope
            return self._enter_pure_scope(self._pure_scope(self._name_or_scope, old_name_scope, self._reuse))
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        current_name_scope = current_name_scope or _NameScope(self._default_name)
        current_name_scope_name = current_name_scope.__enter__()
        self._current_name_scope = current_name_scope
        unique_default_name = _get_unique_variable_scope(self._default_name)
        return self._enter_pure_scope(self._pure_scope(unique_default_name, current_name_scope_name, None))

    def __exit__(self, *exc_info: Any) -> None:
        try:
            self._cached_pure_variable_scope.__exit__(*exc_info)
        finally:
            try:
                if self._current_name_scope:
                    self._current_name_scope.__exit__(*exc_info)
            finally:
                self._graph_context_manager.__exit__(*exc_info)


@tf_export("variable_op_scope")
@contextlib.contextmanager
def variable_op_scope(values: Any, name_or_scope: str | VariableScope | None, default_name: str | None = None,
                      initializer: Any = None, regularizer: Callable | None = None, caching_device: Any = None,
                      partitioner: Any = None, custom_getter: Callable | None = None, reuse: Any = None,
                      dtype: Any = None, use_resource: bool | None = None,
                      constraint: Callable | None = None) -> Iterator[VariableScope]:
    """TF1's deprecated `tf.variable_op_scope`: `variable_scope` with `values` first."""
    with variable_scope(name_or_scope, default_name=default_name, values=values, initializer=initializer,
                        regularizer=regularizer, caching_device=caching_device, partitioner=partitioner,
                        custom_getter=custom_getter, reuse=reuse, dtype=dtype, use_resource=use_resource,
                        constraint=constraint) as scope:
        yield scope
