"""Resource variables: VarHandleOp and the ops that read and update a variable through its handle, and
`ResourceVariable`, TF1's `tf.Variable(use_resource=True)`.

A VarHandleOp outputs the variable's storage itself (a `ResourceVar` in its device's ResourceMgr) along a
`resource` edge; ReadVariableOp, AssignVariableOp, ResourceGather, the ResourceScatter ops and the
ResourceApply* training ops take it. Invariant (TF's copy on write): an array a read returned never changes.
A read is a read-only view of the current buffer; an update writes in place only while no such view is
alive (the buffer's reference count says so), else it writes a copy, which becomes the value.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import context, dtypes, tensor_shape
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    get_default_graph,
    name_scope,
    prepend_name_scope,
    strip_name_scope,
)
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.resource_mgr import DEFAULT_CONTAINER, ResourceSlot
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    control_flow_ops,
    fill_ops,
    indexing_ops,
    manipulation_ops,
    shape_ops,
    state_ops,
    variables,
)
from tensorweave.ops.scatter_ops import ScatterNd

# References to a buffer that only its variable holds: the attribute, the caller's local name and
# getrefcount's argument.
_UNSHARED_REFCOUNT = 3


class ResourceVar(state_ops.Var):
    """The storage of one resource variable: reads are snapshots (see the module docstring)."""

    __slots__ = ("_neighbours",)

    def __init__(self, name: str, dtype: Any, shape: list, neighbours: Callable[[], list[Any]] = list) -> None:
        super().__init__(name, dtype, shape)
        self._neighbours = neighbours  # the resources of its container now

    def uninitialized(self) -> errors.OpError:
        """TF creates the resource on the first assign: before it, a lookup finds none (nor the container,
        while no resource made one: an uninitialized resource variable is none)."""
        if all(isinstance(r, ResourceVar) and r.value is None for r in self._neighbours()):
            return errors.NotFoundError(None, None, f"Container {DEFAULT_CONTAINER} does not exist. (Could not find "
                                        f"resource: {DEFAULT_CONTAINER}/{self.name})")
        return errors.NotFoundError(None, None, f"Resource {DEFAULT_CONTAINER}/{self.name}/N10tensorflow3VarE does "
                                    "not exist.")

    def read(self) -> Any:
        value = self.value
        if value is None:
            raise self.uninitialized()
        view = value.view()
        view.flags.writeable = False
        return view

    def writable(self) -> Any:
        value = self.value
        if value is not None and sys.getrefcount(value) > _UNSHARED_REFCOUNT:
            value = self.value = value.copy()
        return value

    def store(self, value: Any, xp: Any) -> None:
        if value.base is None and value.flags.writeable and value.dtype == self.value.dtype:
            self.value = value  # a fresh result: taking it costs nothing and leaves earlier reads alone
        else:
            self.value = xp.array(value, dtype=self.value.dtype, copy=True)

    def assign(self, value: Any, validate_shape: bool, xp: Any) -> None:
        """A new buffer holding `value` (TF's AssignVariableOp; it checks shapes only when asked)."""
        current = self.value
        if validate_shape and current is not None and current.shape != np.shape(value):
            raise errors.InvalidArgumentError(
                None, None, f"Trying to assign to variable with tensor with wrong shape. Expected "
                f"{tensor_shape.shape_string(current.shape)} got {tensor_shape.shape_string(np.shape(value))}")
        self.value = xp.array(value, copy=True)


def handle_shape(ctx: InferenceContext, index: int) -> tensor_shape.TensorShape:
    """The shape of the variable behind resource input `index`: its VarHandleOp's `shape` attr, found through
    the Identity and control-flow ops a handle may pass and the captures of function graphs (TF keeps it as
    the handle's shape-and-type data)."""
    source = control_flow_ops.variable_handle_source(ctx.input(index))
    if source is None:
        return tensor_shape.unknown_shape()
    shape = source._node_def.attr["shape"]
    return tensor_shape.unknown_shape() if shape is None else tensor_shape.TensorShape(shape)


# -- the handle and whole-value reads and updates ------------------------------------------------------

VarHandleOp = Op("VarHandleOp", outputs=["resource: resource"],
                 attrs=["container: string = ''", "shared_name: string = ''", "debug_name: string = ''",
                        "dtype: type", "shape: shape", "allowed_devices: list(string) = []"], is_stateful=True)


@VarHandleOp.shape
def _var_handle_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@VarHandleOp.kernel("CPU", state=ResourceSlot)
def _var_handle(ctx: OpKernelContext, container: bytes, shared_name: bytes, debug_name: bytes, dtype: Any,
                shape: Any, allowed_devices: list) -> ResourceVar:
    slot: ResourceSlot = ctx.state
    if slot.resource is None:
        name = shared_name.decode() or ctx.name
        slot.resource = ctx.resources.lookup_or_create(
            container.decode(), name, lambda: ResourceVar(name, dtype, [] if shape is None else shape,
                                                          lambda: ctx.resources.resources(container.decode())))
    return slot.resource


ReadVariableOp = Op("ReadVariableOp", inputs=["resource: resource"], outputs=["value: dtype"], attrs=["dtype: type"],
                    is_stateful=True)


@ReadVariableOp.shape
def _read_variable_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [handle_shape(ctx, 0)]


@ReadVariableOp.kernel("CPU")
def _read_variable(ctx: OpKernelContext, resource: ResourceVar, dtype: Any) -> Any:
    if resource.value is None:  # TF's ReadVariableOp explains a missing variable
        raise errors.FailedPreconditionError(
            None, None, f"Could not find variable {resource.name}. This could mean that the variable has been "
            "deleted. In TF1, it can also mean the variable is uninitialized. Debug info: container="
            f"{DEFAULT_CONTAINER}, status error message={resource.uninitialized().message}")
    return resource.read()


@ReadVariableOp.gradient
def _read_variable_grad(op: Operation, grad: Tensor) -> list:
    """The gradient reaches the handle unchanged: `tf.gradients(y, resource_variable)` is taken there."""
    return [grad]


DisableCopyOnRead = Op("DisableCopyOnRead", inputs=["resource: resource"], is_stateful=True)


@DisableCopyOnRead.shape
def _disable_copy_on_read_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@DisableCopyOnRead.kernel("CPU")
def _disable_copy_on_read(ctx: OpKernelContext, resource: ResourceVar) -> None:
    """Reads here share the buffer and every update replaces it, so there is no copy-on-read to turn off."""


def _assign_op(name: str, extra_attrs: list[str]) -> Op:
    op = Op(name, inputs=["resource: resource", "value: dtype"], attrs=["dtype: type", *extra_attrs],
            is_stateful=True)

    @op.shape
    def _assign_variable_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        """TF's CreateAssignShapeFn: the value must fit the variable's shape, except for an AssignVariableOp
        without `validate_shape`, which may give the variable a new shape."""
        if name != "AssignVariableOp" or ctx.attr("validate_shape"):
            tensor_shape.merge_shapes(handle_shape(ctx, 0), ctx.input_shape(1))
        return []

    return op


AssignVariableOp = _assign_op("AssignVariableOp", ["validate_shape: bool = false"])


@AssignVariableOp.kernel("CPU")
def _assign_variable(ctx: OpKernelContext, resource: ResourceVar, value: Any, dtype: Any,
                     validate_shape: bool) -> None:
    with resource.lock:
        resource.assign(value, validate_shape, ctx.xp)


AssignAddVariableOp = _assign_op("AssignAddVariableOp", [])
AssignSubVariableOp = _assign_op("AssignSubVariableOp", [])


@AssignAddVariableOp.kernel("CPU")
def _assign_add_variable(ctx: OpKernelContext, resource: ResourceVar, value: Any, dtype: Any) -> None:
    with resource.lock:
        resource.update(np.add, value, ctx.device)


@AssignSubVariableOp.kernel("CPU")
def _assign_sub_variable(ctx: OpKernelContext, resource: ResourceVar, value: Any, dtype: Any) -> None:
    with resource.lock:
        resource.update(np.subtract, value, ctx.device)


VarIsInitializedOp = Op("VarIsInitializedOp", inputs=["resource: resource"], outputs=["is_initialized: bool"],
                        is_stateful=True)


@VarIsInitializedOp.shape
def _var_is_initialized_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@VarIsInitializedOp.kernel("CPU")
def _var_is_initialized(ctx: OpKernelContext, resource: ResourceVar) -> Any:
    return np.array(resource.value is not None)


VariableShape = Op("VariableShape", inputs=["input: resource"], outputs=["output: out_type"],
                   attrs=["out_type: {int32, int64} = DT_INT32"], is_stateful=True)


@VariableShape.shape
def _variable_shape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([handle_shape(ctx, 0).ndims])]


@VariableShape.kernel("CPU")
def _variable_shape(ctx: OpKernelContext, input: ResourceVar, out_type: Any) -> Any:  # noqa: A002
    return np.array(input.read().shape, dtype=out_type.as_numpy_dtype)


DestroyResourceOp = Op("DestroyResourceOp", inputs=["resource: resource"], attrs=["ignore_lookup_error: bool = true"],
                       is_stateful=True)


@DestroyResourceOp.shape
def _destroy_resource_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@DestroyResourceOp.kernel("CPU")
def _destroy_resource(ctx: OpKernelContext, resource: ResourceVar, ignore_lookup_error: bool) -> None:
    """The variable's value goes; a later read fails as for an uninitialized one."""
    with resource.lock:
        resource.value = None


ResourceCountUpTo = Op("ResourceCountUpTo", inputs=["resource: resource"], outputs=["output: T"],
                       attrs=["limit: int", "T: {int32, int64}"], is_stateful=True)


@ResourceCountUpTo.shape
def _resource_count_up_to_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = handle_shape(ctx, 0)
    if shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims}")
    return [tensor_shape.TensorShape([])]


@ResourceCountUpTo.kernel("CPU")
def _resource_count_up_to(ctx: OpKernelContext, resource: ResourceVar, limit: int, T: Any) -> Any:  # noqa: N803
    return state_ops.count_up(resource, limit)


# -- row reads and updates --------------------------------------------------------------------------------

ResourceGather = Op("ResourceGather", inputs=["resource: resource", "indices: Tindices"], outputs=["output: dtype"],
                    attrs=["batch_dims: int = 0", "validate_indices: bool = true", "dtype: type",
                           "Tindices: {int32, int64}"], is_stateful=True)


@ResourceGather.shape
def _resource_gather_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    params, indices = handle_shape(ctx, 0), ctx.input_shape(1)
    batch_dims = ctx.attr("batch_dims")
    if params.ndims is None or indices.ndims is None:
        return [tensor_shape.unknown_shape()]
    p, i = params.as_list(), indices.as_list()
    return [tensor_shape.TensorShape(p[:batch_dims] + i[batch_dims:] + p[batch_dims + 1:])]


@ResourceGather.kernel("CPU")
def _resource_gather(ctx: OpKernelContext, resource: ResourceVar, indices: Any, batch_dims: int,
                     validate_indices: bool, dtype: Any) -> Any:
    return indexing_ops._gather(ctx, resource.read(), indices, np.array(batch_dims), batch_dims)


@ResourceGather.gradient
def _resource_gather_grad(op: Operation, grad: Tensor) -> list:
    """IndexedSlices of the gathered rows, dense shape the variable's (TF's _GatherGrad)."""
    indices = op.inputs[1]
    params_shape = variable_shape(op.inputs[0])
    size = shape_ops.expand_dims(shape_ops.size(indices), 0)
    values = shape_ops.reshape(grad, manipulation_ops.concat([size, params_shape[1:]], 0))
    return [IndexedSlices(values, shape_ops.reshape(indices, size), params_shape), None]


ResourceGatherNd = Op("ResourceGatherNd", inputs=["resource: resource", "indices: Tindices"],
                      outputs=["output: dtype"], attrs=["dtype: type", "Tindices: {int32, int64}"], is_stateful=True)


@ResourceGatherNd.shape
def _resource_gather_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [indexing_ops.gather_nd_shape(handle_shape(ctx, 0), ctx.input_shape(1))]


@ResourceGatherNd.kernel("CPU")
def _resource_gather_nd(ctx: OpKernelContext, resource: ResourceVar, indices: Any, dtype: Any) -> Any:
    return indexing_ops._gather_nd(ctx, resource.read(), indices, b"")


@ResourceGatherNd.gradient
def _resource_gather_nd_grad(op: Operation, grad: Tensor) -> list:
    """TF's: IndexedSlices when each index names one row ([N, 1] indices), else ScatterNd into the
    variable's shape (a VariableShape op even where the shape is known)."""
    handle, indices = op.inputs
    shape = VariableShape(handle, out_type=indices.dtype)
    if indices.shape.ndims == 2 and indices.shape.as_list()[-1] == 1:
        return [IndexedSlices(grad, shape_ops.squeeze(indices, axis=[-1]), shape), None]
    return [ScatterNd(indices, grad, shape), None]


def _resource_scatter_op(name: str, types: str, combine: Any) -> Op:
    """ResourceScatterAdd/Sub/Mul/Div/Min/Max/Update: the Scatter ops' updates through a handle."""
    op = Op(name, inputs=["resource: resource", "indices: Tindices", "updates: dtype"],
            attrs=[f"dtype: {types}", "Tindices: {int32, int64}"], is_stateful=True)

    @op.shape
    def _resource_scatter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        state_ops.check_scatter_shapes(handle_shape(ctx, 0), ctx.input_shape(1), ctx.input_shape(2))
        return []

    @op.kernel("CPU")
    def _resource_scatter(ctx: OpKernelContext, resource: ResourceVar, indices: Any, updates: Any,
                          dtype: Any) -> None:
        if combine is state_ops._scatter_divide and (updates == 0).any():  # TF checks any dtype, before indices
            raise errors.InvalidArgumentError(ctx.node_def, None, "updates must not contain 0")
        with resource.lock:
            state_ops.scatter_rows(resource, indices, updates, combine)

    return op


ResourceScatterUpdate = _resource_scatter_op("ResourceScatterUpdate", "type", state_ops._scatter_assign)


def _resource_scatter_nd_op(name: str, combine: Any) -> Op:
    """ResourceScatterNdUpdate/Add/Sub/Max/Min: the ScatterNd ops' updates through a handle."""
    op = Op(name, inputs=["ref: resource", "indices: Tindices", "updates: T"],
            attrs=["T: type", "Tindices: {int32, int64}", "use_locking: bool = true", "bad_indices_policy: string = ''"],
            is_stateful=True)

    @op.shape
    def _resource_scatter_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        state_ops.check_scatter_nd_shapes(handle_shape(ctx, 0), ctx.input_shape(1), ctx.input_shape(2))
        return []

    @op.kernel("CPU")
    def _resource_scatter_nd(ctx: OpKernelContext, ref: ResourceVar, indices: Any, updates: Any, T: Any,  # noqa: N803
                             use_locking: bool, bad_indices_policy: bytes) -> None:
        state_ops.scatter_nd_into(ref, indices, updates, use_locking, bad_indices_policy, combine)

    return op


ResourceScatterNdUpdate = _resource_scatter_nd_op("ResourceScatterNdUpdate", state_ops._scatter_assign)
ResourceScatterNdAdd = _resource_scatter_nd_op("ResourceScatterNdAdd", state_ops._scatter_ufunc(np.add))
ResourceScatterNdSub = _resource_scatter_nd_op("ResourceScatterNdSub", state_ops._scatter_ufunc(np.subtract))
ResourceScatterNdMax = _resource_scatter_nd_op("ResourceScatterNdMax", state_ops._scatter_ufunc(np.maximum))
ResourceScatterNdMin = _resource_scatter_nd_op("ResourceScatterNdMin", state_ops._scatter_ufunc(np.minimum))
ResourceScatterAdd = _resource_scatter_op("ResourceScatterAdd", "numbertype", state_ops._scatter_ufunc(np.add))
ResourceScatterSub = _resource_scatter_op("ResourceScatterSub", "numbertype", state_ops._scatter_ufunc(np.subtract))
ResourceScatterMul = _resource_scatter_op("ResourceScatterMul", "numbertype", state_ops._scatter_ufunc(np.multiply))
ResourceScatterDiv = _resource_scatter_op("ResourceScatterDiv", "numbertype", state_ops._scatter_divide)
ResourceScatterMin = _resource_scatter_op("ResourceScatterMin", "numbertype", state_ops._scatter_ufunc(np.minimum))
ResourceScatterMax = _resource_scatter_op("ResourceScatterMax", "numbertype", state_ops._scatter_ufunc(np.maximum))

ResourceStridedSliceAssign = Op(
    "ResourceStridedSliceAssign", inputs=["ref: resource", "begin: Index", "end: Index", "strides: Index", "value: T"],
    attrs=["T: type", "Index: {int32, int64}", "begin_mask: int = 0", "end_mask: int = 0", "ellipsis_mask: int = 0",
           "new_axis_mask: int = 0", "shrink_axis_mask: int = 0"], is_stateful=True)


@ResourceStridedSliceAssign.shape
def _resource_strided_slice_assign_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@ResourceStridedSliceAssign.kernel("CPU")
def _resource_strided_slice_assign(ctx: OpKernelContext, ref: ResourceVar, begin: Any, end: Any, strides: Any,
                                   value: Any, T: Any, Index: Any, begin_mask: int, end_mask: int,  # noqa: N803
                                   ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int) -> None:
    state_ops.strided_slice_assign_into(ctx, ref, begin, end, strides, value, begin_mask, end_mask, ellipsis_mask,
                                        new_axis_mask, shrink_axis_mask)


def variable_shape(handle: Tensor, out_type: Any = dtypes.int32) -> Tensor:
    """The variable's shape: a constant when its VarHandleOp fixes it (through the Identities and captures a
    handle passes, as TF's handle data), else a VariableShape op (as TF)."""
    shape = tensor_shape.unknown_shape()
    source = control_flow_ops.variable_handle_source(handle)
    if source is not None:
        dims = source.get_attr("shape")
        shape = tensor_shape.unknown_shape() if dims is None else tensor_shape.TensorShape(dims)
    if shape.is_fully_defined():
        return constant_ops.constant(shape.as_list(), dtype=out_type)
    return VariableShape(handle, out_type=out_type)


def zeros_like_handle(handle: Tensor) -> Tensor:
    """Zeros standing for no gradient of a handle (TF's _ZerosLike in gradients_util, and ZerosLike inside
    a TF1 loop): of the variable's shape (a constant when known) and dtype; TF refuses a handle without them."""
    source = control_flow_ops.variable_handle_source(handle)
    if source is None:
        raise ValueError(f"Internal error: Tried to take gradients (or similar) of a variable without handle data:\n"
                         f"{handle}")
    return fill_ops.zeros(variable_shape(handle), dtype=source.get_attr("dtype"))


# -- ResourceVariable ------------------------------------------------------------------------------------


def _variable_accessed(variable: Any) -> None:
    """A read of `variable`: the tapes that watch reads, and the function graphs being built, note it (TF's)."""
    watch = getattr(get_default_graph(), "watch_variable", None)
    if watch is not None:
        watch(variable)
    context.variable_accessed(variable)


class ResourceVariable(variables.Variable):
    """A variable read and updated through its handle: each read is a snapshot, as in TF2 (and in TF1
    with `use_resource=True` or `tf.enable_resource_variables()`)."""

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, collections: Any = None,
                 validate_shape: bool = True, caching_device: Any = None, name: str | None = None,
                 variable_def: Any = None, dtype: Any = None, expected_shape: Any = None,
                 import_scope: str | None = None, constraint: Any = None, use_resource: bool | None = None,
                 synchronization: Any = None, aggregation: Any = None, shape: Any = None) -> None:
        """`tf.Variable`'s arguments, in its order (tf.Variable makes this class when asked)."""
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:  # TF 2.21 words it its own way for resource variables
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are not "
                             "providing a `variable_def`. You provided neither.")
        self._synchronization, self._aggregation, trainable, collections = variables.checked_variable_arguments(
            initial_value, constraint, synchronization, aggregation, trainable, collections, name)
        init_from_fn = callable(initial_value)
        with variables.outside_functions():
            self._init_from_args(initial_value, trainable, collections, validate_shape, caching_device, name,
                                 dtype, constraint, shape, init_from_fn)

    def _init_from_args(self, initial_value: Any, trainable: bool, collections: Any, validate_shape: bool,
                        caching_device: Any, name: str | None, dtype: Any, constraint: Any, shape: Any,
                        init_from_fn: bool) -> None:
        g = get_default_graph()
        with g.control_dependencies(None), name_scope(name, "Variable",
                                                      [] if init_from_fn else [initial_value]) as scope:
            handle_name = scope[:-1]
            with g.name_scope("Initializer"), g.device(None):
                self._initial_value = convert_to_tensor(initial_value() if init_from_fn else initial_value,
                                                        name="initial_value", dtype=dtype)
            variables._colocate_initializer(self._initial_value.op, scope + "Initializer/", handle_name)
            if self._initial_value.op._get_control_flow_context() is not None:
                raise ValueError(f"The `initial_value` passed to `tf.Variable` {scope} is from inside a control-flow"
                                 "  construct, such as a loop or conditional. When creating a `tf.Variable` inside "
                                 "a loop or conditional, use a lambda as the `initial_value`. Got: "
                                 f"initial_value=({self._initial_value})")
            if shape is not None:
                var_shape = tensor_shape.as_shape(shape)
                if not self._initial_value.shape.is_compatible_with(var_shape):
                    raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                                     f"({self._initial_value.shape}) is not compatible with the explicitly "
                                     f"supplied `shape` argument ({var_shape}).")
            else:
                var_shape = self._initial_value.shape
            self._dtype = self._initial_value.dtype.base_dtype
            self._shape = var_shape
            dims = None if var_shape.ndims is None else var_shape.as_list()
            self._handle = VarHandleOp(dtype=self._dtype, shape=dims, shared_name=handle_name, debug_name=scope,
                                       container="", allowed_devices=[], name=scope)
            variables.colocate_by_attr_scope(self._handle.op, handle_name)
            with g.name_scope("IsInitialized"):
                self._is_initialized_op = VarIsInitializedOp(self._handle)
            with g.name_scope("Assign") as assign_scope, g.device(self._handle.device):
                guarded = variables.guard_against_uninitialized_dependencies(scope, self._initial_value)
                self._initializer_op = AssignVariableOp(self._handle, guarded, name=assign_scope)
            self._cached_value = None
            with g.name_scope("Read"):
                with g.device(self._handle.device):
                    self._graph_element = ReadVariableOp(self._handle, dtype=self._dtype)
                if caching_device is not None:  # TF's: in 'Read', on the caching device alone (no outer scopes)
                    with g.colocate_with(None, ignore_existing=True), g.device(caching_device):
                        self._cached_value = manipulation_ops.identity(self._graph_element)
        self._trainable = trainable
        self._constraint = constraint
        self._caching_device = caching_device
        self._validate_shape = validate_shape
        g.add_to_collections(collections, self)

    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        g = get_default_graph()

        def element(name: str) -> Any:
            return g.as_graph_element(prepend_name_scope(name, import_scope))

        self._handle = element(variable_def.variable_name)
        self._dtype = dtypes.as_dtype(self._handle.op.get_attr("dtype"))
        dims = self._handle.op.get_attr("shape")
        self._shape = tensor_shape.unknown_shape() if dims is None else tensor_shape.TensorShape(dims)
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = element(variable_def.initial_value_name) if variable_def.initial_value_name else None
        self._graph_element = element(variable_def.snapshot_name)
        self._is_initialized_op = None
        self._cached_value = None
        self._synchronization, self._aggregation, self._trainable = \
            variables.validate_synchronization_aggregation_trainable(
                variable_def.synchronization, variable_def.aggregation, variable_def.trainable,
                variable_def.variable_name)
        self._constraint = None
        self._caching_device = None
        self._validate_shape = True
        if variable_def.HasField("save_slice_info_def"):
            self._save_slice_info = variables.Variable.SaveSliceInfo(
                save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope)

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This variable's VariableDef (`is_resource` set), names relative to `export_scope`."""
        if export_scope is not None and not self._handle.name.startswith(export_scope):
            return None
        variable_def = protos.VariableDef(
            variable_name=strip_name_scope(self._handle.name, export_scope),
            initializer_name=strip_name_scope(self._initializer_op.name, export_scope),
            snapshot_name=strip_name_scope(self._graph_element.name, export_scope), is_resource=True,
            trainable=self._trainable, synchronization=self._synchronization.value,
            aggregation=self._aggregation.value)
        if self._initial_value is not None:
            variable_def.initial_value_name = strip_name_scope(self._initial_value.name, export_scope)
        if self._save_slice_info:
            variable_def.save_slice_info_def.MergeFrom(self._save_slice_info.to_proto(export_scope))
        return variable_def

    # -- identity -----------------------------------------------------------------------------------

    @property
    def handle(self) -> Tensor:
        return self._handle

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def op(self) -> Operation:
        return self._handle.op

    @property
    def graph(self) -> Any:
        return self._handle.graph

    @property
    def device(self) -> str:
        return self._handle.device

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(shape)

    def _as_graph_element(self) -> Tensor:
        return self._graph_element

    def _ref(self) -> Tensor:
        return self._handle

    # -- reads --------------------------------------------------------------------------------------

    def _read_variable_op(self) -> Tensor:
        _variable_accessed(self)
        return ReadVariableOp(self._handle, dtype=self._dtype)

    def value(self) -> Tensor:
        """A new read of the variable (the cached copy when it has a caching device)."""
        if self._cached_value is not None:
            return self._cached_value
        with colocate_with(None, ignore_existing=True):
            return self._read_variable_op()

    def read_value(self) -> Tensor:
        """A read under 'Read', through an Identity, as TF builds it."""
        with name_scope("Read"):
            value = self._read_variable_op()
        return manipulation_ops.identity(value)

    def read_value_no_copy(self) -> Tensor:
        """read_value after a DisableCopyOnRead: how TF's Saver reads a shard of a partitioned variable."""
        with name_scope("Read"):
            DisableCopyOnRead(self._handle)
            value = self._read_variable_op()
        return manipulation_ops.identity(value)

    def initialized_value(self) -> Tensor:
        """TF 2's base Variable's: only TF1's ref variables (VariableV1) have it, so a resource variable raises
        NotImplementedError (with either behavior, and for use_resource=True)."""
        raise NotImplementedError

    def is_initialized(self, name: str | None = None) -> Tensor:
        return VarIsInitializedOp(self._handle, name=name)

    def eval(self, session: Any = None) -> Any:
        return self._graph_element.eval(session=session)

    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        """The rows `indices` by ResourceGather (its gradient is IndexedSlices)."""
        _variable_accessed(self)
        with name_scope("Gather" if name is None else name) as name:
            return ResourceGather(self._handle, indices, dtype=self._dtype, name=name)

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor:
        """The slices `indices` address, by ResourceGatherNd (named by its scope) and an Identity, as TF's."""
        _variable_accessed(self)
        with name_scope("GatherNd" if name is None else name) as name:
            value = ResourceGatherNd(self._handle, indices, dtype=self._dtype, name=name)
        return manipulation_ops.identity(value)

    def count_up_to(self, limit: int) -> Tensor:
        return ResourceCountUpTo(self._handle, limit=limit, T=self._dtype)

    # -- updates ------------------------------------------------------------------------------------

    def _lazy_read(self, update: Operation, read_value: bool) -> Any:
        """What an update returns: the variable as it is after the update, or the update op itself."""
        return _UnreadVariable(self, update) if read_value else update

    def assign(self, value: Any, use_locking: bool | None = None, name: str | None = None,
               read_value: bool = True) -> Any:
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable shape "
                             f"{self._shape}, and the assigned value shape {value.shape} are incompatible.")
        validate_shape = self._validate_shape and self._shape.is_fully_defined()  # else checked only here, as TF
        update = AssignVariableOp(self._handle, value, validate_shape=validate_shape, name=name)
        return self._lazy_read(update, read_value)

    def assign_add(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> Any:
        update = AssignAddVariableOp(self._handle, convert_to_tensor(delta, dtype=self._dtype), name=name)
        return self._lazy_read(update, read_value)

    def assign_sub(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> Any:
        update = AssignSubVariableOp(self._handle, convert_to_tensor(delta, dtype=self._dtype), name=name)
        return self._lazy_read(update, read_value)

    def _strided_slice_assign(self, begin: Any, end: Any, strides: Any, value: Any, name: str, **masks: int) -> Any:
        update = ResourceStridedSliceAssign(self._handle, begin, end, strides,
                                            convert_to_tensor(value, dtype=self._dtype), name=name, **masks)
        return self._lazy_read(update, True)

    def _scatter(self, op: Op, sparse_delta: Any, use_locking: bool, name: str | None) -> Tensor:
        """The ResourceScatter form of `op` (the ref variable's Scatter op) on the rows `sparse_delta` names."""
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        update = _RESOURCE_SCATTER[op](self._handle, sparse_delta.indices,
                                       convert_to_tensor(sparse_delta.values, dtype=self._dtype), name=name)
        return self._lazy_read(update, True)

    def _scatter_nd(self, op: Op, indices: Any, updates: Any, name: str | None) -> Any:
        update = op(self._handle, indices, convert_to_tensor(updates, dtype=self._dtype), name=name)
        return self._lazy_read(update, True)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """self[indices[i]] = updates[i] for every index tuple; the variable after the update, as TF's."""
        return self._scatter_nd(ResourceScatterNdUpdate, indices, updates, name)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd(ResourceScatterNdAdd, indices, updates, name)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd(ResourceScatterNdSub, indices, updates, name)

    def scatter_nd_max(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd(ResourceScatterNdMax, indices, updates, name)

    def scatter_nd_min(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd(ResourceScatterNdMin, indices, updates, name)

    # In-place operators would silently rebind the name to a tensor: TF 2.21 refuses them (its messages, typo
    # in `-=` included).
    def __iadd__(self, other: Any) -> Any:
        raise RuntimeError("`variable += value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_add(value)` to modify the variable, or `out = variable + value` if "
                           "you need to get a new output Tensor.")

    def __isub__(self, other: Any) -> Any:
        raise RuntimeError("`variable -= value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_sub(value)` to modify the variable, or `out = variable * value` if "
                           "you need to get a new output Tensor.")

    def __imul__(self, other: Any) -> Any:
        raise RuntimeError("`var *= value` with `tf.Variable`s is not supported. Use `var.assign(var * value)` to "
                           "modify the variable, or `out = var * value` if you need to get a new output Tensor.")

    def __itruediv__(self, other: Any) -> Any:
        raise RuntimeError("`var /= value` with `tf.Variable`s is not supported. Use `var.assign(var / value)` to "
                           "modify the variable, or `out = var / value` if you need to get a new output Tensor.")


class _UnreadVariable(ResourceVariable):
    """The variable after one of its updates (TF's _UnreadVariable): its op is the update, and its reads and
    further updates wait for it. Made in graph mode with one read after the update (its graph element), but
    not in a function body, where only a use reads it (as TF's, so an unused result reads nothing)."""

    def __init__(self, parent: ResourceVariable, update: Operation) -> None:
        self.__dict__.update({k: v for k, v in parent.__dict__.items() if k != "_cached_value"})
        self._cached_value = None
        self._update = update
        self._graph_element = None if get_default_graph()._building_function else self._read_variable_op()

    @property
    def name(self) -> str:
        return self._update.name

    @property
    def op(self) -> Operation:
        return self._update

    def _read_variable_op(self) -> Tensor:
        _variable_accessed(self)
        with get_default_graph().control_dependencies([self._update]):
            return ReadVariableOp(self._handle, dtype=self._dtype)

    def read_value(self) -> Tensor:
        return self._read_variable_op()

    def assign(self, *args: Any, **kwargs: Any) -> Any:
        with get_default_graph().control_dependencies([self._update]):
            return super().assign(*args, **kwargs)

    def assign_add(self, *args: Any, **kwargs: Any) -> Any:
        with get_default_graph().control_dependencies([self._update]):
            return super().assign_add(*args, **kwargs)

    def assign_sub(self, *args: Any, **kwargs: Any) -> Any:
        with get_default_graph().control_dependencies([self._update]):
            return super().assign_sub(*args, **kwargs)

    def _strided_slice_assign(self, *args: Any, **kwargs: Any) -> Any:
        with get_default_graph().control_dependencies([self._update]):
            return super()._strided_slice_assign(*args, **kwargs)

    def _scatter(self, *args: Any) -> Any:
        with get_default_graph().control_dependencies([self._update]):
            return super()._scatter(*args)

    def _scatter_nd(self, *args: Any) -> Any:
        with get_default_graph().control_dependencies([self._update]):
            return super()._scatter_nd(*args)


_RESOURCE_SCATTER = {state_ops.ScatterAdd: ResourceScatterAdd, state_ops.ScatterSub: ResourceScatterSub,
                     state_ops.ScatterMul: ResourceScatterMul, state_ops.ScatterDiv: ResourceScatterDiv,
                     state_ops.ScatterMin: ResourceScatterMin, state_ops.ScatterMax: ResourceScatterMax,
                     state_ops.ScatterUpdate: ResourceScatterUpdate}

variables.resource_variable_class.install(lambda: ResourceVariable)


@cast_ops.is_resource_variable.install
def is_resource_variable(var: Any) -> bool:
    """Whether `var` is read and updated through a resource handle (TF1 does not export it)."""
    return isinstance(var, ResourceVariable)
