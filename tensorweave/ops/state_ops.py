"""Ref variables: VariableV2, Assign, AssignAdd, AssignSub, StridedSliceAssign, IsVariableInitialized, and the
Scatter and ScatterNd updates.

A VariableV2 node outputs a reference to a `Var` living in its device's ResourceMgr (container, shared
name); Assign* take that reference and update it. Reads happen where a ref edge meets a value input (the
executor calls `Var.read`). As in TF, a read is the live buffer (a read-only view of it) and updates write
into that buffer, so a read that runs after an update sees it, whenever the read was created; the client
copies fetched read-only arrays, so what a caller gets never changes afterwards.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.resource_mgr import ResourceSlot
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import cast_ops, fill_ops, indexing_ops, manipulation_ops, sequence_ops, shape_ops
from tensorweave.platform.tf_export import tf_export


class Var:
    """The storage of one ref variable: its current array (None until initialized)."""

    __slots__ = ("name", "dtype", "shape", "value", "lock", "_view")

    def __init__(self, name: str, dtype: Any, shape: list) -> None:
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.value: Any = None
        self.lock = threading.Lock()
        self._view: Any = None

    def locked(self, use_locking: bool) -> Any:
        """The variable's lock when the update asks for it; unlocked updates race, as TF's do (Hogwild)."""
        return self.lock if use_locking else contextlib.nullcontext()

    def uninitialized(self) -> errors.OpError:
        """The error of a use before the first assign (a resource variable's differs: its resource is missing)."""
        return errors.FailedPreconditionError(None, None, f"Attempting to use uninitialized value {self.name}")

    def read(self) -> Any:
        """The live value as a read-only view: readers see later updates but can never write."""
        value = self.value
        if value is None:
            raise self.uninitialized()
        view = self._view
        if view is None or view.base is not value:
            view = value.view()
            view.flags.writeable = False
            self._view = view
        return view

    def writable(self) -> Any:
        """The buffer an in-place update writes (None while uninitialized): a ref variable's own buffer,
        which its live reads see change."""
        return self.value

    def store(self, value: Any, xp: Any) -> None:
        """Make `value` (same shape and dtype, computed from the current value) the variable's value."""
        xp.copyto(self.value, value)

    def assign(self, value: Any, validate_shape: bool, xp: Any) -> None:
        """Copy `value` in: into the current buffer when the shape is unchanged, as TF's Assign does.

        A validating assign compares with the current value (an earlier non-validating assign may have
        reshaped it), or before the first assign with the declared shape.
        """
        current = self.value
        lhs = list(np.shape(current)) if current is not None else self.shape
        if validate_shape and list(np.shape(value)) != lhs:
            raise errors.InvalidArgumentError(
                None, None, "Assign requires shapes of both tensors to match. lhs shape= "
                f"{tensor_shape.shape_string(lhs)} rhs shape= {tensor_shape.shape_string(np.shape(value))}")
        if current is not None and current.shape == np.shape(value):
            self.store(value, xp)
        else:
            self.value = xp.array(value, copy=True)

    def update(self, ufunc: Any, delta: Any, device: Any, scale: Any = None) -> None:
        """value = ufunc(value, delta * scale) (delta alone without a scale), in place."""
        current = self.writable()
        if current is None:
            raise self.uninitialized()
        if np.shape(current) != np.shape(delta):
            raise errors.InvalidArgumentError(None, None, "Parameters and update must be the same size")
        device.elementwise_inplace(ufunc, current, delta, scale)


VariableV2 = Op("VariableV2", outputs=["ref: Ref(dtype)"],
                attrs=["shape: shape", "dtype: type", "container: string = ''", "shared_name: string = ''"],
                is_stateful=True)


@VariableV2.shape
def _variable_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.attr("shape")
    return [tensor_shape.unknown_shape() if shape is None else tensor_shape.TensorShape(shape)]


@VariableV2.kernel("CPU", state=ResourceSlot)
def _variable(ctx: OpKernelContext, shape: Any, dtype: Any, container: bytes, shared_name: bytes) -> Var:
    name = shared_name.decode() or ctx.name
    slot: ResourceSlot = ctx.state
    return slot.get(lambda: ctx.resources.lookup_or_create(container.decode(), name,
                                                           lambda: _new_var(name, dtype, shape)))


def _new_var(name: str, dtype: Any, shape: list | None) -> Var:
    """TF's VariableOp creator: storage of the declared shape, [] for an unknown rank. A shape known only in
    part cannot be stored, so every step that runs the variable fails until its graph is fixed."""
    if shape is None:
        return Var(name, dtype, [])
    if None in shape:
        raise errors.InvalidArgumentError(None, None, f"Shape {tensor_shape.shape_string(shape)} is not fully defined")
    return Var(name, dtype, shape)


def variable_op_v2(shape: Any, dtype: Any, name: str = "Variable", container: str = "",
                   shared_name: str = "") -> Tensor:
    """The raw VariableV2 node: a ref tensor to uninitialized storage."""
    shape = tensor_shape.as_shape(shape)
    return VariableV2(shape=None if shape.ndims is None else shape.as_list(), dtype=dtype, name=name,
                      container=container, shared_name=shared_name)


Assign = Op("Assign", inputs=["ref: Ref(T)", "value: T"], outputs=["output_ref: Ref(T)"],
            attrs=["T: type", "validate_shape: bool = true", "use_locking: bool = true"],
            allows_uninitialized_input=True)


@Assign.shape
def _assign_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    if ctx.attr("validate_shape"):
        return [tensor_shape.merge_shapes(ctx.input_shape(0), ctx.input_shape(1))]
    return [ctx.input_shape(1)]


@Assign.kernel("CPU")
def _assign(ctx: OpKernelContext, ref: Var, value: Any, validate_shape: bool, use_locking: bool) -> Var:
    with ref.locked(use_locking):
        ref.assign(value, validate_shape, ctx.xp)
    return ref


def _update_op(name: str, ufunc: Any) -> Op:
    op = Op(name, inputs=["ref: Ref(T)", "value: T"], outputs=["output_ref: Ref(T)"],
            attrs=["T: numbertype", "use_locking: bool = false"])

    @op.shape
    def _update_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        return [tensor_shape.merge_shapes(ctx.input_shape(0), ctx.input_shape(1))]

    @op.kernel("CPU")
    def _update(ctx: OpKernelContext, ref: Var, value: Any, use_locking: bool) -> Var:
        with ref.locked(use_locking):
            ref.update(ufunc, value, ctx.device)
        return ref

    return op


AssignAdd = _update_op("AssignAdd", np.add)
AssignSub = _update_op("AssignSub", np.subtract)

StridedSliceAssign = Op(
    "StridedSliceAssign", inputs=["ref: Ref(T)", "begin: Index", "end: Index", "strides: Index", "value: T"],
    outputs=["output_ref: Ref(T)"],
    attrs=["T: type", "Index: {int32, int64}", "begin_mask: int = 0", "end_mask: int = 0", "ellipsis_mask: int = 0",
           "new_axis_mask: int = 0", "shrink_axis_mask: int = 0"])


@StridedSliceAssign.shape
def _strided_slice_assign_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@StridedSliceAssign.kernel("CPU")
def _strided_slice_assign(ctx: OpKernelContext, ref: Var, begin: Any, end: Any, strides: Any, value: Any, begin_mask: int,
                          end_mask: int, ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int) -> Var:
    """`ref[spec] = value` in place (`v[spec].assign(value)`); value broadcasts to the slice's shape, as in TF."""
    strided_slice_assign_into(ctx, ref, begin, end, strides, value, begin_mask, end_mask, ellipsis_mask,
                              new_axis_mask, shrink_axis_mask)
    return ref


def strided_slice_assign_into(ctx: OpKernelContext, ref: Var, begin: Any, end: Any, strides: Any, value: Any,
                              begin_mask: int, end_mask: int, ellipsis_mask: int, new_axis_mask: int,
                              shrink_axis_mask: int) -> None:
    """The update of StridedSliceAssign and ResourceStridedSliceAssign."""
    with ref.locked(True):
        ref.read()  # raises for an uninitialized variable
        current = ref.writable()
        try:
            slices, dims = indexing_ops._strided_slice_plan(
                list(current.shape), begin.tolist(), end.tolist(), strides.tolist(), begin_mask, end_mask,
                ellipsis_mask, new_axis_mask, shrink_axis_mask)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, str(e)) from None
        target = current[tuple(slices)]
        try:
            shape = np.broadcast_shapes(np.shape(value), tuple(dims))
        except ValueError:
            shape = None
        if shape is None or int(np.prod(shape)) != target.size:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot broadcast input shape {tensor_shape.shape_string(np.shape(value))} into final "
                f"shape {tensor_shape.shape_string(dims)}")
        target[...] = ctx.xp.broadcast_to(value, shape).reshape(target.shape)


IsVariableInitialized = Op("IsVariableInitialized", inputs=["ref: Ref(dtype)"], outputs=["is_initialized: bool"],
                           attrs=["dtype: type"], allows_uninitialized_input=True)


@IsVariableInitialized.shape
def _is_variable_initialized_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@IsVariableInitialized.kernel("CPU")
def _is_variable_initialized(ctx: OpKernelContext, ref: Var) -> Any:
    return np.array(ref.value is not None)


CountUpTo = Op("CountUpTo", inputs=["ref: Ref(T)"], outputs=["output: T"], attrs=["limit: int", "T: {int32, int64}"])


@CountUpTo.shape
def _count_up_to_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    if shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims}")
    return [tensor_shape.TensorShape([])]


@CountUpTo.kernel("CPU")
def _count_up_to(ctx: OpKernelContext, ref: Var, limit: int) -> Any:
    return count_up(ref, limit)


def count_up(ref: Var, limit: int) -> Any:
    """The update of CountUpTo and ResourceCountUpTo: the value before the increment."""
    with ref.locked(True):
        before = ref.read().copy()
        if before.shape != ():
            raise errors.InvalidArgumentError(None, None,
                                              f"input is not a scalar: {tensor_shape.shape_string(before.shape)}")
        if before >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        ref.store(before + 1, np)
    return before


@tf_export("count_up_to")
def count_up_to(ref: Any, limit: int, name: str | None = None) -> Tensor:
    """Increments the integer variable `ref` until `limit`; outputs its value before the increment."""
    return CountUpTo(ref, limit=limit, name=name)


def _is_ref(ref: Any) -> bool:
    return ref.dtype._is_ref_dtype


@tf_export("assign")
def assign(ref: Any, value: Any, validate_shape: bool | None = None, use_locking: bool | None = None,
           name: str | None = None) -> Any:
    """Store `value` in the variable `ref`; returns the ref, usable as the new value.

    A ref (a tf.Variable) gets an Assign node; anything else is asked to `assign` itself, as TF does.
    """
    if _is_ref(ref):
        return Assign(ref, value, validate_shape=validate_shape, use_locking=use_locking, name=name)
    return ref.assign(value, name=name)


@tf_export("assign_add")
def assign_add(ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None) -> Any:
    """ref += value; returns the ref."""
    if _is_ref(ref):
        return AssignAdd(ref, value, use_locking=use_locking, name=name)
    return ref.assign_add(value)


@tf_export("assign_sub")
def assign_sub(ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None) -> Any:
    """ref -= value; returns the ref."""
    if _is_ref(ref):
        return AssignSub(ref, value, use_locking=use_locking, name=name)
    return ref.assign_sub(value)


@tf_export("is_variable_initialized")
def is_variable_initialized(ref: Any, name: str | None = None) -> Tensor:
    """A scalar bool: whether the variable has been assigned a value; anything but a ref is asked itself, as TF
    does (so a plain tensor fails without leaving a half-made node)."""
    if _is_ref(ref):
        return IsVariableInitialized(ref, name=name)
    return ref.is_initialized(name=name)

# -- Scatter updates: rows of a ref variable picked by indices -----------------------------------------


def _scatter_op(name: str, types: str, combine: Any, use_locking_default: str) -> Op:
    """ScatterUpdate/Add/Sub/Mul/Div/Min/Max: `ref[indices[i], ...] = combine(ref[indices[i], ...], updates[i, ...])`
    for every i, in order, so repeated indices accumulate (ScatterUpdate: the last one wins)."""
    op = Op(name, inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"], outputs=["output_ref: Ref(T)"],
            attrs=[f"T: {types}", "Tindices: {int32, int64}", f"use_locking: bool = {use_locking_default}"])

    @op.shape
    def _scatter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        ref, indices, updates = ctx.input_shapes
        check_scatter_shapes(ref, indices, updates)
        return [ref]

    @op.kernel("CPU")
    def _scatter(ctx: OpKernelContext, ref: Var, indices: Any, updates: Any, use_locking: bool) -> Var:
        with ref.locked(use_locking):
            scatter_rows(ref, indices, updates, combine)
        return ref

    return op


def check_scatter_shapes(ref: tensor_shape.TensorShape, indices: tensor_shape.TensorShape,
                         updates: tensor_shape.TensorShape) -> None:
    """TF's ScatterUpdateShape: updates (unless a scalar) = indices.shape + ref.shape[1:]."""
    if updates.ndims != 0 and ref.ndims is not None and indices.ndims is not None:
        tensor_shape.merge_shapes(updates, indices.concatenate(ref[1:]))


def scatter_rows(ref: Var, indices: Any, updates: Any, combine: Any) -> None:
    """The update of the Scatter and ResourceScatter ops, after TF's checks."""
    params = ref.writable()
    if params is None:
        raise ref.uninitialized()
    if params.ndim == 0:
        raise errors.InvalidArgumentError(None, None, f"params must be at least 1-D, got shape "
                                          f"{tensor_shape.shape_string(params.shape)}")
    if updates.ndim and updates.shape != indices.shape + params.shape[1:]:
        raise errors.InvalidArgumentError(
            None, None, "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            f"got updates.shape {tensor_shape.shape_string(updates.shape)}, indices.shape "
            f"{tensor_shape.shape_string(indices.shape)}, params.shape "
            f"{tensor_shape.shape_string(params.shape)}")
    bad = np.flatnonzero((indices < 0) | (indices >= params.shape[0]))
    if bad.size:
        position = ",".join(map(str, np.unravel_index(bad[0], indices.shape)))
        raise errors.InvalidArgumentError(None, None, f"indices[{position}] = {indices.flat[bad[0]]} is "
                                          f"not in [0, {params.shape[0]})")
    combine(params, indices, updates)


def _scatter_assign(params: Any, indices: Any, updates: Any) -> None:
    params[indices] = updates


def _scatter_ufunc(ufunc: Any) -> Any:
    """`ufunc` row by row in place, a repeated index seeing the earlier updates: for an array of row indices
    (ScatterNd passes a tuple, which goes through an unbuffered `ufunc.at`), in rounds of indexed updates, the
    k-th round applying each row's k-th update in the given order, so as many rounds as the most repeated row
    has updates (one when the rows are distinct), each several times faster than `ufunc.at`."""
    def combine(params: Any, indices: Any, updates: Any) -> None:
        if not isinstance(indices, np.ndarray) or indices.size < 2:
            ufunc.at(params, indices, updates)
            return
        rows = indices.reshape(-1)
        if np.ndim(updates):
            updates = updates.reshape(rows.shape + params.shape[1:])
        order = np.argsort(rows, kind="stable")
        ranked = rows[order]
        first = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
        occurrence = np.arange(rows.size) - np.repeat(first, np.diff(np.r_[first, rows.size]))
        for k in range(int(occurrence.max()) + 1):
            picked = order[occurrence == k] if k or first.size < rows.size else order
            at = rows[picked]
            params[at] = ufunc(params[at], updates[picked] if np.ndim(updates) else updates)
    return combine


def _scatter_divide(params: Any, indices: Any, updates: Any) -> None:
    """Division as TF's kernel does it: true division for floats, truncating (C's `/`) for integers."""
    if params.dtype.kind in "fc":
        np.divide.at(params, indices, updates)
        return
    updates = np.broadcast_to(updates, indices.shape + params.shape[1:]).reshape((indices.size,) + params.shape[1:])
    for row, update in zip(indices.reshape(-1).tolist(), updates):
        quotient = np.abs(params[row]) // np.abs(update)
        params[row] = np.where((params[row] < 0) != (update < 0), -quotient, quotient)


ScatterUpdate = _scatter_op("ScatterUpdate", "type", _scatter_assign, "true")
ScatterAdd = _scatter_op("ScatterAdd", "numbertype", _scatter_ufunc(np.add), "false")
ScatterSub = _scatter_op("ScatterSub", "numbertype", _scatter_ufunc(np.subtract), "false")
ScatterMul = _scatter_op("ScatterMul", "numbertype", _scatter_ufunc(np.multiply), "false")
ScatterDiv = _scatter_op("ScatterDiv", "numbertype", _scatter_divide, "false")
ScatterMin = _scatter_op("ScatterMin", "{half, bfloat16, float, double, int32, int64}", _scatter_ufunc(np.minimum),
                         "false")
ScatterMax = _scatter_op("ScatterMax", "{half, bfloat16, float, double, int32, int64}", _scatter_ufunc(np.maximum),
                         "false")


@tf_export("scatter_update")
def scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None) -> Any:
    """ref[indices] = updates (the last of repeated indices wins); returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_update(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterUpdate(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_add")
def scatter_add(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices] += updates, accumulating repeated indices; returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_add(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterAdd(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_sub")
def scatter_sub(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices] -= updates, accumulating repeated indices; returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_sub(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterSub(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_mul")
def scatter_mul(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices] *= updates, accumulating repeated indices; returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_mul(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterMul(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_div")
def scatter_div(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices] /= updates, accumulating repeated indices; returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_div(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterDiv(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_min")
def scatter_min(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices] = minimum(ref[indices], updates); returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_min(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterMin(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_max")
def scatter_max(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices] = maximum(ref[indices], updates); returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_max(IndexedSlices(updates, indices), use_locking=use_locking, name=name)
    return ScatterMax(ref, indices, updates, use_locking=use_locking, name=name)


# -- ScatterNd updates: slices of a ref variable picked by index tuples ---------------------------------


def _subshape(shape: tensor_shape.TensorShape, start: int, end: int | None = None) -> tensor_shape.TensorShape:
    """shape[start:end] with TF's InferenceContext::Subshape clamping (a start past the rank gives [])."""
    rank = shape.ndims
    return tensor_shape.TensorShape(shape.as_list()[min(start, rank):None if end is None else min(end, rank)])


def _merged_or_explained(a: tensor_shape.TensorShape, b: tensor_shape.TensorShape, explain: Any) -> None:
    try:
        tensor_shape.merge_shapes(a, b)
    except ValueError as e:
        raise ValueError(f"{explain()}: {e}") from None


def _scatter_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    ref, indices, updates = ctx.input_shapes
    check_scatter_nd_shapes(ref, indices, updates)
    return [ref]


def check_scatter_nd_shapes(ref: tensor_shape.TensorShape, indices: tensor_shape.TensorShape,
                            updates: tensor_shape.TensorShape) -> None:
    """TF's ScatterNdUpdateShape: updates = indices.shape[:-1] + ref.shape[indices.shape[-1]:]."""
    for shape in (indices, updates):
        if shape.ndims is not None and shape.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {shape.ndims}")
    if ref.num_elements() == 0 and ((indices.num_elements() or 0) > 0 or (updates.num_elements() or 0) > 0):
        raise ValueError("Indices and updates specified for empty input")
    if indices.ndims is None or updates.ndims is None or indices.dims[-1].value is None:
        return
    outer = indices.ndims - 1
    depth = indices.dims[-1].value
    prefix_indices, prefix_updates = _subshape(indices, 0, outer), _subshape(updates, 0, outer)
    _merged_or_explained(prefix_indices, prefix_updates, lambda: (
        f"Dimensions [0,{outer}) of indices[shape={tensor_shape.shape_string(indices)}] = "
        f"{tensor_shape.shape_string(prefix_indices)} must match dimensions [0,{outer}) of updates[shape="
        f"{tensor_shape.shape_string(updates)}] = {tensor_shape.shape_string(prefix_updates)}"))
    if ref.ndims is not None:
        suffix_ref, suffix_updates = _subshape(ref, depth), _subshape(updates, outer)
        _merged_or_explained(suffix_ref, suffix_updates, lambda: (
            f"Dimensions [{depth},{ref.ndims}) of input[shape={tensor_shape.shape_string(ref)}] = "
            f"{tensor_shape.shape_string(suffix_ref)} must match dimensions [{outer},{updates.ndims}) of updates[shape="
            f"{tensor_shape.shape_string(updates)}] = {tensor_shape.shape_string(suffix_updates)}"))


def _scatter_nd_rows(params_shape: tuple, indices: Any, updates: Any) -> tuple[Any, Any, int]:
    """TF's PrepareAndValidateInputs and ValidateUpdateShape: the index tuples as rows, the updates as one slice
    per row, and the index depth; InvalidArgumentError with TF's message for inconsistent shapes."""
    def invalid(message: str) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(None, None, message)

    shape_text = tensor_shape.shape_string
    if not params_shape:
        raise invalid(f"Output must be at least 1-D, got shape: {shape_text(params_shape)}")
    if (indices.size or updates.size) and not (int(np.prod(params_shape)) and indices.size and updates.size):
        raise invalid(f"Indices and updates specified for empty output.  indices shape: {shape_text(indices.shape)}")
    if updates.shape[0] != indices.shape[0]:
        raise invalid(f"Dimensions [0,1) of indices[shape={shape_text(indices.shape)}] = {indices.shape[0]} must "
                      f"match dimensions [0,1) of updates[shape={shape_text(updates.shape)}] = {updates.shape[0]}")
    depth = indices.shape[-1] if indices.ndim > 1 else 1
    outer = indices.ndim - 1 if indices.ndim > 1 else 1
    prefix_error = invalid(f"Dimensions [0,{outer}) of indices[shape={shape_text(indices.shape)}] must match "
                           f"dimensions [0,{outer}) of updates[shape={shape_text(updates.shape)}]")
    suffix_error = invalid(f"Dimensions [{depth},{len(params_shape)}) of input[shape={shape_text(params_shape)}] must "
                           f"match dimensions [{depth},{updates.ndim}) of updates[shape={shape_text(updates.shape)}]")
    if updates.ndim < outer:
        raise prefix_error
    if updates.ndim != outer + len(params_shape) - depth:
        raise suffix_error
    if updates.shape[:outer] != indices.shape[:outer]:
        raise prefix_error
    if updates.shape[outer:] != tuple(params_shape[depth:]):
        raise suffix_error
    count = int(np.prod(indices.shape[:-1])) if indices.ndim > 1 else indices.size
    return indices.reshape(count, depth), updates.reshape((count,) + tuple(params_shape[depth:])), depth


def _scatter_nd_op(name: str, types: str, combine: Any, use_locking_default: str) -> Op:
    """ScatterNdUpdate/Add/Sub/Max/Min: `ref[indices[i]] = combine(ref[indices[i]], updates[i])` for every index
    tuple in order, so repeated tuples accumulate (ScatterNdUpdate: the last one wins)."""
    op = Op(name, inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"], outputs=["output_ref: Ref(T)"],
            attrs=[f"T: {types}", "Tindices: {int32, int64}", f"use_locking: bool = {use_locking_default}",
                   "bad_indices_policy: string = ''"])
    op.shape(_scatter_nd_shape)

    @op.kernel("CPU")
    def _scatter_nd(ctx: OpKernelContext, ref: Var, indices: Any, updates: Any, use_locking: bool,
                    bad_indices_policy: bytes) -> Var:
        scatter_nd_into(ref, indices, updates, use_locking, bad_indices_policy, combine)
        return ref

    return op


def scatter_nd_into(ref: Var, indices: Any, updates: Any, use_locking: bool, bad_indices_policy: bytes,
                    combine: Any) -> None:
    """The update of the ScatterNd and ResourceScatterNd ops, after TF's checks."""
    policy = bad_indices_policy.decode()
    if policy not in ("", "DEFAULT", "ERROR", "IGNORE"):
        raise errors.InvalidArgumentError(None, None, f"Unknown bad indices handling attribute: {policy}")
    with ref.locked(use_locking):
        ref.read()  # raises for an uninitialized variable
        params = ref.writable()
        rows, slices, depth = _scatter_nd_rows(params.shape, indices, updates)
        if not rows.size:
            return
        out_of_range = ((rows < 0) | (rows >= np.asarray(params.shape[:depth]))).any(axis=1)
        bad = np.flatnonzero(out_of_range)
        if bad.size and policy == "IGNORE":
            rows, slices = rows[~out_of_range], slices[~out_of_range]
        elif bad.size:
            tuples_shape = indices.shape[:-1] if indices.ndim > 1 else indices.shape
            position = ",".join(map(str, np.unravel_index(bad[0], tuples_shape)))
            raise errors.InvalidArgumentError(
                None, None, f"indices[{position}] = [{', '.join(map(str, rows[bad[0]].tolist()))}] does not "
                f"index into shape {tensor_shape.shape_string(params.shape)}")
        combine(params, tuple(rows.T), slices)


ScatterNdUpdate = _scatter_nd_op("ScatterNdUpdate", "type", _scatter_assign, "true")
ScatterNdAdd = _scatter_nd_op("ScatterNdAdd", "numbertype", _scatter_ufunc(np.add), "false")
ScatterNdSub = _scatter_nd_op("ScatterNdSub", "numbertype", _scatter_ufunc(np.subtract), "false")
ScatterNdMax = _scatter_nd_op("ScatterNdMax", "numbertype", _scatter_ufunc(np.maximum), "false")
ScatterNdMin = _scatter_nd_op("ScatterNdMin", "numbertype", _scatter_ufunc(np.minimum), "false")


@tf_export("scatter_nd_update")
def scatter_nd_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                      name: str | None = None) -> Any:
    """ref[indices[i]] = updates[i] for every index tuple (the last of repeated tuples wins); returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_nd_update(indices, updates, name=name)
    return ScatterNdUpdate(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_nd_add")
def scatter_nd_add(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices[i]] += updates[i], accumulating repeated index tuples; returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_nd_add(indices, updates, name=name)
    return ScatterNdAdd(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("scatter_nd_sub")
def scatter_nd_sub(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices[i]] -= updates[i], accumulating repeated index tuples; returns the ref."""
    if not _is_ref(ref):
        return ref.scatter_nd_sub(indices, updates, name=name)
    return ScatterNdSub(ref, indices, updates, use_locking=use_locking, name=name)


@tf_export("batch_scatter_update")
def batch_scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                         name: str | None = None) -> Any:
    """ref[i..., indices[i...]] = updates[i...]: one scatter per leading batch position, as one ScatterNdUpdate
    whose index tuples are the batch coordinates followed by the index."""
    with name_scope(name):
        indices = convert_to_tensor(indices, name="indices")
        indices_shape = shape_ops.shape(indices)
        rank = indices.shape.ndims
        if rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = shape_ops.expand_dims(indices, axis=-1)
        coordinates = []
        for dimension in range(rank - 1):
            size = indices_shape[dimension]
            broadcast_shape = [1] * (rank + 1)
            broadcast_shape[dimension] = size
            positions = shape_ops.reshape(sequence_ops.Range(0, size, 1), broadcast_shape)
            if positions.dtype.base_dtype != nd_indices.dtype:
                positions = cast_ops.cast(positions, nd_indices.dtype)
            coordinates.append(positions * fill_ops.ones_like(nd_indices))
        coordinates.append(nd_indices)
        return scatter_nd_update(ref, manipulation_ops.concat(coordinates, axis=-1), updates, use_locking=use_locking)
