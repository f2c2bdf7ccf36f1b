"""`tf.Variable` (TF1's RefVariable) and the variable collections and initializers.

A Variable is a VariableV2 node (the storage), an Assign of its initial value (its initializer) and an
Identity snapshot 'read' colocated with it (its value wherever a tensor is expected). It registers itself
in its collections and converts to its snapshot, or to its ref when an op needs a mutable input.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave.formats import protos
from tensorweave.framework import dtypes, meta_graph, tensor_shape
from tensorweave.framework.func_graph import FuncGraph
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Reference,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    init_scope,
    name_scope,
    prepend_name_scope,
    register_tensor_conversion_function,
    resource_variables_enabled,
    strip_name_scope,
)
from tensorweave.framework.hooks import Hook
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    indexing_ops,
    manipulation_ops,
    shape_ops,
    state_ops,
)
from tensorweave.platform.tf_export import tf_export

# The ResourceVariable class, which lives above this module with its ops.
resource_variable_class: Hook = Hook("ResourceVariable", "tensorweave.ops.resource_variable_ops")
# The current variable scope's `use_resource` (None when it does not say), which tf.Variable follows too.
scope_use_resource: Hook = Hook("variable_scope use_resource", "tensorweave.ops.variable_scope")


@tf_export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synced (TF's values; ON_READ makes a variable non-trainable)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@tf_export("VariableAggregation")
class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are combined (TF1's names, with the deprecated ONLY_FIRST_TOWER)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3

    def __hash__(self) -> int:
        return hash(self.value)


def validate_synchronization_aggregation_trainable(synchronization: Any, aggregation: Any, trainable: bool | None,
                                                   name: str) -> tuple[VariableSynchronization,
                                                                       VariableAggregation, bool]:
    """TF's defaults for the three: an ON_READ variable is not trainable unless asked."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, VariableAggregation):
        try:
            aggregation = VariableAggregation(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: {name}") from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    else:
        try:
            synchronization = VariableSynchronization(synchronization)
        except ValueError:
            raise ValueError(f"Invalid variable synchronization mode: {synchronization} for variable: "
                             f"{name}") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable


def outside_functions() -> contextlib.AbstractContextManager:
    """Where a variable is made: out of any function graph (a branch or loop body of control flow v2) into
    the outermost graph, as TF's variables are made under `init_scope`."""
    return init_scope() if isinstance(get_default_graph(), FuncGraph) else contextlib.nullcontext()


def checked_variable_arguments(initial_value: Any, constraint: Any, synchronization: Any, aggregation: Any,
                               trainable: bool | None, collections: Any, name: str | None) -> tuple:
    """TF's checks of a new variable's arguments, shared by ref and resource variables: (synchronization,
    aggregation, trainable, the collections it joins)."""
    if initial_value is None:
        raise ValueError("initial_value must be specified.")
    if constraint is not None and not callable(constraint):
        raise ValueError("The `constraint` argument must be a callable.")
    synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
        synchronization, aggregation, trainable, name)
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError(f"collections argument to Variable constructor must be a list, tuple, or set. Got "
                         f"{collections} of type {type(collections)}")
    collections = list(collections)
    if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections.append(GraphKeys.TRAINABLE_VARIABLES)
    return synchronization, aggregation, trainable, collections


# graph -> the creators of `variable_creator_scope`s open on it, outermost first
_creator_stacks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@tf_export("variable_creator_scope")
@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable[..., Any]) -> Iterator[None]:
    """Route every `tf.Variable(...)` (and so `get_variable`) made in the default graph within the scope
    through `variable_creator(next_creator, **kwargs)`, innermost scope first, as TF1's creator chain."""
    stack = _creator_stacks.setdefault(get_default_graph(), [])
    outer = list(stack)
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack[:] = outer


class _VariableCall(type):
    """`tf.Variable(...)` goes through the default graph's creator chain; a subclass called directly (and the
    last creator of the chain) builds the variable."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Variable:  # TF1's `tf.Variable(...)` ignores keyword arguments it does not know
            kwargs = {k: v for k, v in kwargs.items() if k in _VARIABLE_SIGNATURE.parameters}
        stack = _creator_stacks.get(get_default_graph()) if cls is Variable else None
        if not stack:
            return super().__call__(*args, **kwargs)
        bound = _VARIABLE_SIGNATURE.bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]
        arguments["synchronization"] = arguments["synchronization"] or VariableSynchronization.AUTO
        arguments["aggregation"] = arguments["aggregation"] or VariableAggregation.NONE
        arguments["experimental_enable_variable_lifting"] = None

        def build(**kw: Any) -> Any:
            kw.pop("experimental_enable_variable_lifting", None)
            return type.__call__(Variable, **kw)

        creator = build
        for getter in stack:
            creator = _chained(getter, creator)
        return creator(**arguments)


def _chained(getter: Callable[..., Any], next_creator: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kwargs: getter(next_creator, **kwargs)


@tf_export("Variable")
class Variable(metaclass=_VariableCall):
    """A mutable tensor that lives across `Session.run` calls.

    `tf.Variable(...)` makes a `RefVariable`, as TF1 does: the class name shows in Python's own messages.
    """

    # numpy defers binary operators to us (ndarray * Variable gives a Tensor), as for Tensor.
    __array_priority__ = 100
    is_tensor_like = True  # tf.is_tensor says yes, as TF's does for its variables
    _save_slice_info: SaveSliceInfo | None = None  # set on the shards of a partitioned variable

    class SaveSliceInfo:
        """Where a shard lies in its partitioned variable (`full_name`, `full_shape`, `var_offset`,
        `var_shape`): the Saver writes it as a slice of `full_name`, so any sharding restores it."""

        def __init__(self, full_name: str | None = None, full_shape: Any = None, var_offset: Any = None,
                     var_shape: Any = None, save_slice_info_def: Any = None, import_scope: str | None = None) -> None:
            if save_slice_info_def:
                self.full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
                self.full_shape = list(save_slice_info_def.full_shape)
                self.var_offset = list(save_slice_info_def.var_offset)
                self.var_shape = list(save_slice_info_def.var_shape)
            else:
                self.full_name = full_name
                self.full_shape = full_shape
                self.var_offset = var_offset
                self.var_shape = var_shape

        @property
        def spec(self) -> str:
            """TF's shape-and-slice string: the full shape, then `offset,length` per dimension."""
            full_shape = " ".join(str(d) for d in self.full_shape) + " "
            return full_shape + ":".join(f"{o},{s}" for o, s in zip(self.var_offset, self.var_shape))

        def to_proto(self, export_scope: str | None = None) -> Any:
            """The SaveSliceInfoDef, or None when the full variable lies outside `export_scope`."""
            if export_scope is not None and not self.full_name.startswith(export_scope):
                return None
            return protos.SaveSliceInfoDef(full_name=strip_name_scope(self.full_name, export_scope),
                                           full_shape=self.full_shape, var_offset=self.var_offset,
                                           var_shape=self.var_shape)

    def __new__(cls, *args: Any, **kwargs: Any) -> Variable:
        """`tf.Variable(...)` makes a RefVariable, or a ResourceVariable when asked (`use_resource`, a
        VariableDef's `is_resource`, the variable scope's `use_resource`, `tf.enable_resource_variables()`)."""
        if cls is not Variable:
            return super().__new__(cls)
        variable_def = kwargs.get("variable_def")
        use_resource = variable_def.is_resource if variable_def is not None else kwargs.get("use_resource")
        if use_resource is None:
            use_resource = scope_use_resource()
        if use_resource is None:
            use_resource = resource_variables_enabled()
        return super().__new__(resource_variable_class() if use_resource else RefVariable)

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, collections: Any = None,
                 validate_shape: bool = True, caching_device: Any = None, name: str | None = None,
                 variable_def: Any = None, dtype: Any = None, expected_shape: Any = None,
                 import_scope: str | None = None, constraint: Any = None, use_resource: bool | None = None,
                 synchronization: Any = None, aggregation: Any = None, shape: Any = None) -> None:
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        self._synchronization, self._aggregation, trainable, collections = checked_variable_arguments(
            initial_value, constraint, synchronization, aggregation, trainable, collections, name)
        with outside_functions():
            self._init_from_args(initial_value, trainable, collections, validate_shape, caching_device, name,
                                 dtype, constraint, shape)

    def _init_from_args(self, initial_value: Any, trainable: bool, collections: Any, validate_shape: bool,
                        caching_device: Any, name: str | None, dtype: Any, constraint: Any, shape: Any) -> None:
        init_from_fn = callable(initial_value)
        g = get_default_graph()
        with g.control_dependencies(None), name_scope(name, "Variable",
                                                      [] if init_from_fn else [initial_value]) as scope:
            true_name = scope[:-1]
            if init_from_fn:
                with g.name_scope("Initializer"), g.device(None):
                    self._initial_value = convert_to_tensor(initial_value(), name="initial_value", dtype=dtype)
                _colocate_initializer(self._initial_value.op, scope + "Initializer/", true_name)
            else:
                self._initial_value = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
                if self._initial_value.op._get_control_flow_context() is not None:
                    raise ValueError(f"Initializer for variable {scope} is from inside a control-flow construct, "
                                     "such as a loop or conditional. When creating a variable inside a loop or "
                                     "conditional, use a lambda as the initializer.")
            if shape is not None:
                var_shape = tensor_shape.as_shape(shape)
            elif validate_shape:
                var_shape = self._initial_value.shape
            else:
                var_shape = tensor_shape.unknown_shape()
            self._variable = state_ops.variable_op_v2(var_shape, self._initial_value.dtype.base_dtype, name=scope)
            if init_from_fn:
                colocate_by_attr_scope(self._variable.op, true_name)
            if validate_shape and not self._initial_value.shape.is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
            self._initializer_op = state_ops.assign(
                self._variable, guard_against_uninitialized_dependencies(scope, self._initial_value),
                validate_shape=validate_shape).op
            if caching_device is not None:
                with g.device(caching_device):
                    self._snapshot = manipulation_ops.identity(self._variable, name="read")
            else:
                with g.colocate_with(self._variable.op):
                    self._snapshot = manipulation_ops.identity(self._variable, name="read")
        self._trainable = trainable
        self._constraint = constraint
        self._caching_device = caching_device
        g.add_to_collections(collections, self)

    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        """The variable whose nodes `variable_def` names in the default graph (under `import_scope`); it joins
        no collection, as in TF."""
        g = get_default_graph()

        def element(name: str) -> Any:
            return g.as_graph_element(prepend_name_scope(name, import_scope))

        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = element(variable_def.initial_value_name) if variable_def.initial_value_name else None
        self._snapshot = element(variable_def.snapshot_name)
        self._synchronization, self._aggregation, self._trainable = validate_synchronization_aggregation_trainable(
            variable_def.synchronization, variable_def.aggregation, variable_def.trainable,
            variable_def.variable_name)
        self._constraint = None
        self._caching_device = None
        if variable_def.HasField("save_slice_info_def"):
            self._save_slice_info = Variable.SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                                                           import_scope=import_scope)

    def _set_save_slice_info(self, save_slice_info: Variable.SaveSliceInfo) -> None:
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self) -> Variable.SaveSliceInfo | None:
        return self._save_slice_info

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This variable's VariableDef, names relative to `export_scope` (None when it lies outside)."""
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        variable_def = protos.VariableDef(
            variable_name=strip_name_scope(self._variable.name, export_scope),
            initializer_name=strip_name_scope(self._initializer_op.name, export_scope),
            snapshot_name=strip_name_scope(self._snapshot.name, export_scope),
            trainable=self._trainable, synchronization=self._synchronization.value,
            aggregation=self._aggregation.value)
        if self._initial_value is not None:
            variable_def.initial_value_name = strip_name_scope(self._initial_value.name, export_scope)
        if self._save_slice_info:
            variable_def.save_slice_info_def.MergeFrom(self._save_slice_info.to_proto(export_scope))
        return variable_def

    @staticmethod
    def from_proto(variable_def: Any, import_scope: str | None = None) -> Variable:
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def _to_proto(self, export_scope: str | None = None) -> Any:
        """`to_proto` of the variable's own class (what a MetaGraphDef's collections store)."""
        return self.to_proto(export_scope)

    # -- identity -----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self) -> Operation:
        return self._variable.op

    @property
    def graph(self) -> Any:
        return self._variable.graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def dtype(self) -> dtypes.DType:
        return self._variable.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._variable.shape

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._variable.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Any:
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    @property
    def initializer(self) -> Operation:
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    def _as_graph_element(self) -> Tensor:
        return self._variable

    def _ref(self) -> Tensor:
        return self._variable

    def value(self) -> Tensor:
        """The snapshot tensor 'read': this variable's value in a step."""
        return self._snapshot

    def read_value(self) -> Tensor:
        """A new read of the variable's current value."""
        return manipulation_ops.identity(self._variable, name="read")

    def initialized_value(self) -> Tensor:
        """The value, or the initial value while uninitialized (TF1's cond on IsVariableInitialized): other
        initial values can depend on it without running its initializer again."""
        with self.graph.control_dependencies(None):
            return control_flow_ops.cond(state_ops.is_variable_initialized(self._variable), self.read_value,
                                         lambda: self.initial_value)

    # -- updates ------------------------------------------------------------------------------------

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> Any:
        result = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        result = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        result = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def _strided_slice_assign(self, begin: Any, end: Any, strides: Any, value: Any, name: str, **masks: int) -> Tensor:
        """The update behind `v[spec].assign(value)`."""
        return state_ops.StridedSliceAssign(self._variable, begin, end, strides, value, name=name, **masks)

    def _scatter(self, op: Any, sparse_delta: Any, use_locking: bool, name: str | None) -> Tensor:
        """`op` (a Scatter* update) of the rows `sparse_delta` names, as TF's RefVariable.scatter_* methods."""
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return op(self._variable, sparse_delta.indices, sparse_delta.values, use_locking=use_locking, name=name)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterAdd, sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterSub, sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterMul, sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterDiv, sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterMax, sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterMin, sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return self._scatter(state_ops.ScatterUpdate, sparse_delta, use_locking, name)

    def batch_scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Tensor:
        return state_ops.batch_scatter_update(self, sparse_delta.indices, sparse_delta.values, use_locking=use_locking,
                                              name=name)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        """self[indices[i]] = updates[i] for every index tuple (locked, as TF's method)."""
        return state_ops.ScatterNdUpdate(self._variable, indices, updates, use_locking=True, name=name)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return state_ops.ScatterNdAdd(self._variable, indices, updates, use_locking=True, name=name)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return state_ops.ScatterNdSub(self._variable, indices, updates, use_locking=True, name=name)

    def scatter_nd_max(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return state_ops.ScatterNdMax(self._variable, indices, updates, use_locking=True, name=name)

    def scatter_nd_min(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return state_ops.ScatterNdMin(self._variable, indices, updates, use_locking=True, name=name)

    def __getitem__(self, slice_spec: Any) -> Tensor:
        """A slice of the value that can also `assign` into the variable (TF's _SliceHelperVar)."""
        return indexing_ops._slice_helper(self.value(), slice_spec, self)

    def eval(self, session: Any = None) -> Any:
        return self._variable.eval(session=session)

    def load(self, value: Any, session: Any = None) -> None:
        """Write `value` into the variable by feeding its initializer."""
        from tensorweave.framework.graph import get_default_session

        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be "
                             "established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    def set_shape(self, shape: Any) -> None:
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def count_up_to(self, limit: int) -> Tensor:
        """Adds 1 per run until `limit` (then OutOfRangeError); outputs the value before the increment."""
        return state_ops.count_up_to(self._variable, limit=limit)

    def __iter__(self) -> Any:
        return iter(self.read_value())  # a new read, whose Tensor refuses iteration in a graph

    def __hash__(self) -> int:
        return id(self)

    def ref(self) -> Reference:
        """A hashable handle that compares by identity, as `Tensor.ref()`."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        return Reference(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    @classmethod
    def _overload_operators(cls) -> None:
        """Every Tensor operator overload, applied to the variable's value (TF's _OverloadAllOperators)."""
        names = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                 "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
                 "__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
                 "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__abs__", "__invert__"]
        for op_name in names:
            setattr(cls, op_name, _value_method(op_name))


class RefVariable(Variable):
    """The class of every `tf.Variable` in a TF1 graph: a VariableV2 node and the ops around it."""


def _colocate_initializer(initial_value_op: Operation, initializer_scope: str, variable_name: str) -> None:
    """Mark the ops of a callable initial value as colocated with the variable, not yet created.

    TF builds them under an attr scope of `_class: loc:@<variable>`: every op in the Initializer name
    scope carries it, as the GraphDef shows.
    """
    if get_default_graph()._stacks().colocation_stack:
        return  # an enclosing colocate_with already set every op's group, and wins over TF's attr scope
    colocation = ["loc:@" + variable_name]
    pending, seen = [initial_value_op], set()
    while pending:
        op = pending.pop()
        if op in seen or not op.name.startswith(initializer_scope):
            continue
        seen.add(op)
        op._set_attr("_class", colocation)
        pending.extend(tensor.op for tensor in op.inputs)
        pending.extend(op.control_inputs)


def colocate_by_attr_scope(variable_op: Operation, variable_name: str) -> None:
    """A variable op made from a callable initial value joins its own colocation group, unless an enclosing
    colocate_with set one (TF's attr scope yields to the colocation stack)."""
    if not get_default_graph()._stacks().colocation_stack:
        variable_op._set_attr("_class", ["loc:@" + variable_name])


def _value_method(op_name: str) -> Any:
    """Tensor's operator `op_name` on the variable's value, looked up when called: an operator a later module
    installs on Tensor (linalg_ops' `@`) serves variables too, whatever order the modules were imported in."""
    def method(self: Variable, *args: Any) -> Any:
        tensor_method = getattr(Tensor, op_name, None)
        return NotImplemented if tensor_method is None else tensor_method(self.value(), *args)
    method.__name__ = op_name
    return method


def _variable_conversion(v: Variable, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Tensor:
    if dtype is not None and not v.dtype.base_dtype.is_compatible_with(dtypes.as_dtype(dtype)):
        raise ValueError(f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' for "
                         f"variable of type '{v.dtype.name}'")
    return v._ref() if as_ref else v.value()


register_tensor_conversion_function(Variable, _variable_conversion, 0)
_VARIABLE_SIGNATURE = inspect.signature(Variable.__init__)
Variable._overload_operators()


class PartitionedVariable:
    """The shards of one variable split along one axis (what `get_variable` returns with a partitioner):
    iterates over them in offset order and converts to their concatenation."""

    def __init__(self, name: str, shape: Any, dtype: Any, variable_list: list, partitions: list) -> None:
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        if not all(v._get_save_slice_info() is not None for v in variable_list):
            raise ValueError(f"All variables must have a save_slice_info available: {[v.name for v in variable_list]}")
        if len(shape) != len(partitions):
            raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
        for v in variable_list:
            if v._get_save_slice_info().full_shape != shape:
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but full shapes were: "
                                 f"{[v._get_save_slice_info().full_shape]}")
        self._variable_list = sorted(variable_list, key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtype
        self._partitions = partitions

    def __iter__(self) -> Any:
        return iter(self._variable_list)

    def __len__(self) -> int:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def _partition_axes(self) -> list[int]:
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self) -> Tensor:
        """The shards concatenated, named as the partitioned variable, under the scope's control deps."""
        if len(self._variable_list) == 1:
            with name_scope(None):
                return manipulation_ops.identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot concatenate along more than one dimension: {axes}.  Multi-axis "
                                      "partition concat is not supported")
        with name_scope(self._name + "/ConcatPartitions/"):
            concatenated = manipulation_ops.concat(self._variable_list, axes[0])
        with name_scope(None):
            return manipulation_ops.identity(concatenated, name=self._name)

    def as_tensor(self) -> Tensor:
        """The concatenated value, free of the control dependencies in scope (as a variable's value is)."""
        with get_default_graph().control_dependencies(None):
            return self._concat()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def _get_variable_list(self) -> list:
        return self._variable_list

    def _get_partitions(self) -> list:
        return self._partitions

    def _apply_assign_fn(self, assign_fn: Any, value: Any) -> list:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot do assign action along more than one dimension: {axes}.  "
                                      "Multi-axis partition assign action is not supported ")
        if isinstance(value, list):
            assert len(value) == len(self._variable_list)
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            sizes = [v.shape.dims[axes[0]].value for v in self._variable_list]
            values = manipulation_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(v, values[i]) for i, v in enumerate(self._variable_list)]

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> list:
        return self._apply_assign_fn(lambda v, x: v.assign(x, use_locking=use_locking, name=name,
                                                           read_value=read_value), value)

    def assign_add(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> list:
        return self._apply_assign_fn(lambda v, x: v.assign_add(x, use_locking=use_locking, name=name,
                                                               read_value=read_value), value)

    def assign_sub(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> list:
        return self._apply_assign_fn(lambda v, x: v.assign_sub(x, use_locking=use_locking, name=name,
                                                               read_value=read_value), value)


def _partitioned_conversion(v: PartitionedVariable, dtype: Any = None, name: str | None = None,
                            as_ref: bool = False) -> Tensor:
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' for "
                         f"variable of type '{v.dtype.name}'")
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_conversion)


@tf_export("global_variables")
def global_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


@tf_export("all_variables")
def all_variables() -> list[Variable]:
    return global_variables()


@tf_export("trainable_variables")
def trainable_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


@tf_export("local_variables")
def local_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


@tf_export("model_variables")
def model_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


@tf_export("moving_average_variables")
def moving_average_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


@tf_export("initializers.variables", "initialize_variables", "variables_initializer")
def variables_initializer(var_list: list, name: str = "init") -> Operation:
    """One op that runs the initializers of `var_list` (a NoOp when it is empty)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


@tf_export("initializers.global_variables", "global_variables_initializer")
def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables())


@tf_export("initializers.local_variables", "local_variables_initializer")
def local_variables_initializer() -> Operation:
    return variables_initializer(local_variables())


@tf_export("initialize_all_variables")
def initialize_all_variables() -> Operation:
    return global_variables_initializer()


@tf_export("initialize_local_variables")
def initialize_local_variables() -> Operation:
    return local_variables_initializer()


initialize_variables = variables_initializer  # TF1's deprecated name


@tf_export("assert_variables_initialized")
def assert_variables_initialized(var_list: list | None = None) -> Tensor | None:
    """A tensor whose evaluation fails while any of `var_list` is uninitialized (each variable's Rank, stacked);
    None when there are no variables, as in TF."""
    g = get_default_graph()
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = [op.outputs[0] for op in g.get_operations() if op.type in ("Variable", "VariableV2")]
    ranks = []
    for var in var_list:
        with g.colocate_with(var.op), name_scope(None, "Rank", [var]) as scope:
            ranks.append(shape_ops.Rank(var, name=scope))
    if len(ranks) <= 1:
        return ranks[0] if ranks else None
    return manipulation_ops.stack(ranks)


# Kept as they are: the reads of resource variables, and their handles (an op taking a handle, such as a
# generator's RngReadAndSkip, needs the handle, not a value)
_KEPT_AS_IS = frozenset({"IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp", "If", "VarHandleOp"})


def guard_against_uninitialized_dependencies(scope: str, initial_value: Tensor) -> Tensor:
    """TF's rewrite of an initial value that reads other variables: each variable it reads is replaced by the
    variable's `initialized_value()` and the ops on the way copied (named `<op>_<scope>`), so initializers
    may run in any order. A graph with a cycle is left as it is."""
    if _reaches_a_cycle(initial_value.op):
        return initial_value
    variables_by_name = {var.name: var for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES)
                         for var in initial_value.graph.get_collection(key) if hasattr(var, "initialized_value")}
    replaced: dict[str, Any] = {}
    stack = [initial_value.op]
    while stack:  # post-order: an op is rebuilt once all its inputs have been seen
        op = stack[-1]
        if op.name in replaced:
            stack.pop()
            continue
        if op.type in _KEPT_AS_IS:
            replaced[op.name] = op
        elif op.type in ("Variable", "VariableV2"):
            var = variables_by_name.get(op.name) or variables_by_name.get(op.name + ":0")
            replaced[op.name] = op if var is None else var.initialized_value().op
        else:
            pending = [t.op for t in op.inputs if t.op.name not in replaced]
            if pending:
                stack.extend(pending)
                continue
            inputs = [replaced[t.op.name].outputs[t.value_index] for t in op.inputs]
            if all(new is old for new, old in zip(inputs, op.inputs)):
                replaced[op.name] = op
            else:
                op_type = "Switch" if op.type == "RefSwitch" else op.type
                replaced[op.name] = op.graph.create_op(op_type, inputs, name=f"{op.name}_{scope}".replace(":", "_"),
                                                       attrs=dict(op.node_def.attr))
        stack.pop()
    return replaced[initial_value.op.name].outputs[initial_value.value_index]


def _reaches_a_cycle(op: Any) -> bool:
    """Whether a walk up the data and control inputs from `op` comes back to an op on its own path."""
    on_path: set[str] = set()
    done: set[str] = set()
    stack: list[tuple[Any, bool]] = [(op, False)]
    while stack:
        current, leaving = stack.pop()
        if leaving:
            on_path.discard(current.name)
            done.add(current.name)
            continue
        if current.name in on_path:
            return True
        if current.name in done:
            continue
        on_path.add(current.name)
        stack.append((current, True))
        stack.extend((parent, False) for parent in [*(t.op for t in current.inputs), *current.control_inputs]
                     if parent.name not in done)
    return False


def is_variable_initialized(variable: Any) -> Tensor:
    return state_ops.is_variable_initialized(variable)


@tf_export("report_uninitialized_variables")
def report_uninitialized_variables(var_list: list | None = None,
                                   name: str = "report_uninitialized_variables") -> Tensor:
    """A 1-D string tensor of the names of uninitialized variables (empty when all are ready)."""
    g = get_default_graph()
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = [op.outputs[0] for op in g.get_operations() if op.type in ("Variable", "VariableV2")]
    with g.name_scope(name):
        init_vars = [state_ops.is_variable_initialized(v) for v in var_list]
        with g.device("/cpu:0"):
            if not var_list:
                return constant_ops.constant([], dtype=dtypes.string)
            mask = elementwise_ops.logical_not(manipulation_ops.stack(init_vars))
            names = constant_ops.constant([v.op.name for v in var_list])
            return indexing_ops.boolean_mask(names, mask)



def report_uninitialized_resources(resource_list: list | None = None,
                                   name: str = "report_uninitialized_resources") -> Tensor:
    """The names of the uninitialized resources of the RESOURCES and LOCAL_RESOURCES collections (TF's
    ops/resources.py helper that a Scaffold's default ready ops concatenate to the variables' report)."""
    g = get_default_graph()
    if resource_list is None:
        resource_list = g.get_collection(GraphKeys.RESOURCES) + g.get_collection(GraphKeys.LOCAL_RESOURCES)
    with g.name_scope(name), g.device("/cpu:0"):
        if not resource_list:
            return constant_ops.constant([], dtype=dtypes.string)
        mask = elementwise_ops.logical_not(manipulation_ops.stack([r.is_initialized for r in resource_list]))
        names = constant_ops.constant([r.handle.name for r in resource_list])
        return indexing_ops.boolean_mask(names, mask)



def initialize_resources(resource_list: list, name: str = "init") -> Operation:
    """One op creating every resource of the list (a no_op when there is none), as TF's resources helper."""
    if resource_list:
        return control_flow_ops.group(*[r.create for r in resource_list], name=name)
    return control_flow_ops.no_op(name=name)


# A MetaGraphDef carries variables as VariableDefs; `import_meta_graph` rebuilds them as Variables.
for _key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES,
             GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES, GraphKeys.GLOBAL_STEP, GraphKeys.METRIC_VARIABLES):
    meta_graph.register_proto_function(_key, proto_type=protos.VariableDef, to_proto=Variable._to_proto,
                                       from_proto=Variable.from_proto)
