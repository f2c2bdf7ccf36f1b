"""Training ops: the in-place variable updates of TF's optimizers (ApplyGradientDescent, ApplyAdam, ...) and
their SparseApply* forms for IndexedSlices gradients.

Each op takes its variable and slot variables by reference (`Var`) and its hyperparameters and gradient by
value, and writes the new values into the variables' own buffers, as TF's training kernels do, so reads
created before the update see it (ref semantics). An update computes every new value before it writes any,
so a gradient that aliases a variable's buffer (a read of it) is used whole. GradientDescent's update,
var -= alpha * delta, is applied in place (`InPlace`): a large variable by blocks, each block's product made
just before it is subtracted, so no temporary as large as the variable exists and no new value is copied in
(a gradient aliasing the variable is copied first, by the variable's own copy on write or here). `use_locking` holds the
variables' locks for the update; without it updates may race, as in TF (Hogwild). The Resource* forms take the
variables' handles (the same `Var`s, as `ResourceVar`s) and output nothing; their updates store the new values
without touching a buffer an earlier read still holds (copy on write, see resource_variable_ops).

A sparse update applies the formula to the rows `indices` names. TF's kernels walk the indices in order, so a
repeated index is updated once per occurrence from the value the previous occurrence left: here the k-th
occurrences of all indices are updated together, one vectorized round per multiplicity.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.tensor_shape import shape_string
from tensorweave.ops import shape_helpers
from tensorweave.ops.kernel_helpers import C64, C128, F16, F32, F64, invalid_argument
from tensorweave.ops.resource_variable_ops import ResourceVar, handle_shape
from tensorweave.ops.state_ops import Var

# The dtypes TF registers its CPU training kernels for (the OpDefs allow every number type).
_KERNEL_TYPES = {"T": [F16, dtypes.bfloat16, F32, F64, C64, C128]}

# An update: the current values of the ref inputs followed by the value inputs (in OpDef order, `indices`
# left out; sparse updates see the rows of the refs and of `grad`), the op's bool attrs as keywords; returns
# the new values of the refs, in order.
Update = Callable[..., tuple]


class InPlace(NamedTuple):
    """An update of a single variable as `var = ufunc(var, operand * scale)` (value inputs named by `operand`
    and `scale`), written into its buffer."""

    ufunc: Any
    operand: str
    scale: str


class Blockwise(NamedTuple):
    """An update written into the refs' buffers a block of elements at a time, so that it makes no full-size
    temporaries (TF's fused kernels), the blocks split across the device's intra-op threads: `in_place` takes
    one block of the refs' flat buffers and the value inputs (that block of grad) and writes; `values` is the
    same update as an Update, for sparse rows and for buffers that cannot be written flat."""

    in_place: Callable[..., None]
    values: Update


# The only Resource* ops whose shape functions check the gradient's shape against the variable's (TF 2.x).
_RESOURCE_GRAD_CHECKED = frozenset({"ResourceApplyGradientDescent", "ResourceApplyProximalAdagrad"})


def _training_op(name: str, refs: list[str], values: list[str], update: Update | InPlace | Blockwise,
                 sparse: bool = False,
                 flags: tuple[str, ...] = (), resource: bool = False) -> Op:
    """One Apply*/SparseApply* op: its OpDef (`values` in TF's order, `indices` among them for a sparse op),
    its shape function and its kernel, all reading the same argument lists. The Resource* form takes the
    variables' handles and outputs nothing; its kernel gets the same `Var`s."""
    attrs = ["T: numbertype"] + (["Tindices: {int32, int64}"] if sparse else []) + \
        ["use_locking: bool = false"] + [f"{flag}: bool = {'true' if flag == 'update_slots' else 'false'}"
                                         for flag in flags]
    inputs = [f"{ref}: resource" if resource else f"{ref}: Ref(T)" for ref in refs] + [
        "indices: Tindices" if v == "indices" else "global_step: int64" if v == "global_step" else f"{v}: T"
        for v in values]
    op = Op(name, inputs=inputs, outputs=[] if resource else ["out: Ref(T)"], attrs=attrs, is_stateful=resource)
    names = refs + values
    grad_at = names.index("grad" if "grad" in names else "delta")
    grad_among_values = [v for v in values if v != "indices"].index(names[grad_at])
    scalars = [i for i, n in enumerate(names) if n not in refs and n not in ("grad", "delta", "indices")]

    @op.shape
    def _apply_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        # A Resource* form checks the variables' shapes behind their handles (TF's ShapeOrHandleShape); most
        # also read the gradient that way, find no handle data and so leave its shape unchecked.
        ref_shape = (lambda i: handle_shape(ctx, i)) if resource else ctx.input_shape
        shape = ref_shape(0)
        for i in range(1, len(refs)):
            shape = tensor_shape.merge_shapes(shape, ref_shape(i))
        for i in scalars:
            shape_helpers.with_rank(ctx.input_shape(i), 0)
        grad = ctx.input_shape(grad_at) if not resource or name in _RESOURCE_GRAD_CHECKED \
            else tensor_shape.unknown_shape()
        if not sparse:
            shape = tensor_shape.merge_shapes(shape, grad)
            return [] if resource else [shape]
        indices = shape_helpers.with_rank(ctx.input_shape(names.index("indices")), 1)
        grad = shape_helpers.with_rank_at_least(grad, 1)
        if grad.ndims is not None and None not in (indices.dims[0].value, grad.dims[0].value) and \
                indices.dims[0].value != grad.dims[0].value:
            raise ValueError(f"Dimensions must be equal, but are {indices.dims[0].value} and {grad.dims[0].value}")
        if shape.ndims is not None and grad.ndims is not None:
            rows = tensor_shape.merge_shapes(shape[1:], grad[1:])
            shape = tensor_shape.TensorShape([shape.dims[0]]).concatenate(rows)
        return [] if resource else [shape]

    @op.kernel("CPU", type_constraints=_KERNEL_TYPES)
    def _apply(ctx: OpKernelContext, *inputs: Any, use_locking: bool, use_nesterov: bool = False,
               update_slots: bool = True, multiply_linear_by_lr: bool = False) -> Var:
        given = {"use_nesterov": use_nesterov, "update_slots": update_slots,
                 "multiply_linear_by_lr": multiply_linear_by_lr}
        attrs = {flag: given[flag] for flag in flags}
        variables: list[Var] = list(inputs[:len(refs)])
        with contextlib.ExitStack() as stack:
            for var in variables if use_locking else ():
                stack.enter_context(var.lock)
            if any(isinstance(var, ResourceVar) and var.value is None for var in variables):
                raise errors.InternalError(None, None, "Invalid variable reference.")  # TF's, for a missing one
            current = [var.read() for var in variables]
            for ref_name, value in zip(refs[1:], current[1:]):
                if value.shape != current[0].shape:
                    raise invalid_argument(ctx, f"var and {ref_name} do not have the same shape"
                                           f"{shape_string(current[0].shape)} {shape_string(value.shape)}")
            for i in scalars:
                if np.ndim(inputs[i]) != 0:
                    raise invalid_argument(ctx, f"{names[i]} is not a scalar: {shape_string(np.shape(inputs[i]))}")
            grad = inputs[grad_at]
            others = [x for i, x in enumerate(inputs[len(refs):], len(refs)) if names[i] != "indices"]
            if not sparse:
                if grad.shape != current[0].shape:
                    raise invalid_argument(ctx, f"var and {names[grad_at]} do not have the same shape"
                                           f"{shape_string(current[0].shape)} {shape_string(grad.shape)}")
                if isinstance(update, InPlace):
                    operand, scale = inputs[names.index(update.operand)], inputs[names.index(update.scale)]
                    if np.may_share_memory(operand, current[0]):  # blocks would read what earlier ones wrote
                        operand = operand.copy()
                    current = None  # a resource variable's update writes in place when no other read holds it
                    variables[0].update(update.ufunc, operand, ctx.device, scale)
                    return None if resource else variables[0]
                if isinstance(update, Blockwise):
                    if all(value.flags.c_contiguous and not np.may_share_memory(value, grad) for value in current):
                        current = None
                        _by_blocks(ctx, update.in_place, [var.writable().reshape(-1) for var in variables],
                                   [np.ravel(x) if x is grad else x for x in others], attrs)
                        return None if resource else variables[0]
                    new = update.values(*current, *others, **attrs)
                else:
                    new = update(*current, *others, **attrs)
                current = None  # a resource variable's update need not copy for these reads
                for var, value in zip(variables, new):
                    var.store(value, ctx.xp)
                return None if resource else variables[0]
            current = None
            _sparse_update(ctx, variables, others, inputs[names.index("indices")], grad, grad_among_values,
                           update.values if isinstance(update, Blockwise) else update, attrs)
        return None if resource else variables[0]

    return op


_BLOCK = 1 << 16  # elements per block of a blockwise update: few NumPy calls, its temporaries in cache


def _by_blocks(ctx: OpKernelContext, in_place: Callable[..., None], refs: list[Any], values: list[Any],
               attrs: dict[str, bool]) -> None:
    """A blockwise update of flat refs, each block (of the refs and of the flat values; scalars whole) one task
    on the device's intra-op threads."""
    def block(index: int) -> None:
        part = slice(index * _BLOCK, (index + 1) * _BLOCK)
        in_place(*(ref[part] for ref in refs), *(value[part] if np.ndim(value) else value for value in values),
                 **attrs)

    ctx.device.parallel(-(-refs[0].size // _BLOCK), block)


def _sparse_update(ctx: OpKernelContext, variables: list[Var], others: list[Any], indices: Any, grad: Any,
                   grad_at: int, update: Update, attrs: dict[str, bool]) -> None:
    """The update on the rows `indices` names, the k-th occurrences of every index in round k (TF's order)."""
    current = [v.writable() for v in variables]
    var = current[0]
    if var.ndim < 1:
        raise invalid_argument(ctx, "var must be at least 1 dimensional")
    if indices.ndim != 1:
        raise invalid_argument(ctx, "indices must be one-dimensional")
    for d in range(1, var.ndim):
        if grad.ndim <= d or var.shape[d] != grad.shape[d]:
            raise invalid_argument(ctx, f"var and grad must match in dimension {d}")
    if grad.ndim < 1 or grad.shape[0] != indices.shape[0]:
        raise invalid_argument(ctx, "grad must be the same size as indices in the first dimension.")
    bad = np.flatnonzero((indices < 0) | (indices >= var.shape[0]))
    if bad.size:
        raise invalid_argument(ctx, f"Index {indices[bad[0]]} at offset {bad[0]} in indices is out of range")
    order = np.argsort(indices, kind="stable")
    ordered = indices[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    occurrence = np.empty_like(order)
    occurrence[order] = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    for k in range(int(occurrence.max(initial=-1)) + 1):
        positions = np.flatnonzero(occurrence == k)
        rows = indices[positions]
        others[grad_at] = grad[positions]
        new = update(*(value[rows] for value in current), *others, **attrs)
        for target, value in zip(current, new):
            target[rows] = value


_GRADIENT_DESCENT = InPlace(np.subtract, "delta", "alpha")


def _momentum(var: Any, accum: Any, lr: Any, grad: Any, momentum: Any, use_nesterov: bool) -> tuple:
    accum = accum * momentum + grad
    step = grad * lr + accum * momentum * lr if use_nesterov else accum * lr
    return var - step, accum


def _adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any, beta2: Any,
          epsilon: Any, grad: Any, use_nesterov: bool) -> tuple:
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m = m + (grad - m) * (1 - beta1)
    v = v + (np.square(grad) - v) * (1 - beta2)
    step = (grad * (1 - beta1) + beta1 * m if use_nesterov else m) * lr_t / (epsilon + np.sqrt(v))
    return var - step, m, v


def _adam_in_place(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any, beta2: Any,
                   epsilon: Any, grad: Any, use_nesterov: bool) -> None:
    """_adam's arithmetic, in its order (so the same values), written into a block of flat var, m and v."""
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    keep1, keep2 = 1 - beta1, 1 - beta2
    t, u = np.empty_like(var), np.empty_like(var)
    np.subtract(grad, m, out=t)
    t *= keep1
    m += t
    np.square(grad, out=t)
    t -= v
    t *= keep2
    v += t
    if use_nesterov:
        np.multiply(grad, keep1, out=t)
        np.multiply(m, beta1, out=u)
        t += u
        t *= lr_t
    else:
        np.multiply(m, lr_t, out=t)
    np.sqrt(v, out=u)
    u += epsilon
    t /= u
    var -= t


_ADAM = Blockwise(_adam_in_place, _adam)


# TF's training kernels, each in its own order so float32 values come out as TF's. Eigen's rsqrt is 1 / sqrt
# outside its 8-float packets (a tensor, or a sparse row, of fewer than 8 elements: exactly TF's values);
# within them TF's x86 build takes the CPU's approximate rsqrt and a Newton step, which no NumPy function
# reproduces. The sparse kernels work on matrix rows as the dense ones do, but on the elements of a vector
# in scalar C++ (`_sparse_kernel`), where TF's proximal steps divide by a double.


def _rsqrt(x: Any) -> Any:
    return 1 / np.sqrt(x)


def _rows_are_scalars(var: Any) -> bool:
    """Whether a sparse update's rows hold one element each (TF's `inner_dim == 1` loops)."""
    return int(np.prod(var.shape[1:])) == 1


def _sparse_kernel(rows: Update, scalars: Update) -> Update:
    """A sparse op's update: `rows` for the rows of a matrix, `scalars` for the elements of a vector."""
    def update(var: Any, *args: Any, **attrs: Any) -> tuple:
        return (scalars if _rows_are_scalars(var) else rows)(var, *args, **attrs)
    return update


def _adagrad(var: Any, accum: Any, lr: Any, grad: Any, update_slots: bool) -> tuple:
    if update_slots:
        accum = accum + np.square(grad)
    return var - grad * lr * _rsqrt(accum), accum


def _adagrad_scalars(var: Any, accum: Any, lr: Any, grad: Any, update_slots: bool) -> tuple:
    if update_slots:
        accum = accum + np.square(grad)
    return var - lr * grad / np.sqrt(accum), accum


def _rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any, grad: Any) -> tuple:
    ms = ms + (np.square(grad) - ms) * (1 - rho)
    mom = mom * momentum + lr * grad / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _sparse_rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                     grad: Any) -> tuple:
    ms = ms * rho + np.square(grad) * (1 - rho)
    mom = mom * momentum + _rsqrt(ms + epsilon) * lr * grad
    return var - mom, ms, mom


def _centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                       grad: Any) -> tuple:
    ms = ms + (np.square(grad) - ms) * (1 - rho)
    mg = mg + (grad - mg) * (1 - rho)
    mom = mom * momentum + lr * grad / np.sqrt(ms - np.square(mg) + epsilon)
    return var - mom, mg, ms, mom


def _sparse_centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any,
                              epsilon: Any, grad: Any) -> tuple:
    ms = ms * rho + np.square(grad) * (1 - rho)
    mg = mg * rho + grad * (1 - rho)
    mom = mom * momentum + _rsqrt(ms + epsilon - np.square(mg)) * lr * grad
    return var - mom, mg, ms, mom


def _adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any, grad: Any) -> tuple:
    accum = accum * rho + np.square(grad) * (1 - rho)
    step = np.sqrt(accum_update + epsilon) * _rsqrt(accum + epsilon) * grad
    return var - step * lr, accum, accum_update * rho + np.square(step) * (1 - rho)


def _ftrl_v2(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any, l2_shrinkage: Any,
             lr_power: Any, multiply_linear_by_lr: bool) -> tuple:
    """TF's Ftrl functors' arithmetic in their order (so the same float32 values): square roots where lr_power
    is -0.5, powers otherwise, and linear += the whole step."""
    shrunk = grad + 2 * l2_shrinkage * var
    new_accum = accum + np.square(grad)
    if lr_power == -0.5:
        new_power, old_power = np.sqrt(new_accum), np.sqrt(accum)
    else:
        new_power, old_power = np.power(new_accum, -lr_power), np.power(accum, -lr_power)
    if multiply_linear_by_lr:
        linear = linear + (shrunk * lr - (new_power - old_power) * var)
        l1_scaled, denominator = l1 * lr, new_power + 2 * l2 * lr
    else:
        linear = linear + (shrunk - (new_power - old_power) / lr * var)
        l1_scaled, denominator = l1, new_power / lr + 2 * l2
    shrunk_linear = np.clip(linear, -l1_scaled, l1_scaled) - linear
    var = np.where(np.abs(linear) > l1_scaled, shrunk_linear / denominator, 0).astype(var.dtype)
    return var, new_accum, linear


def _ftrl(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any, lr_power: Any,
          multiply_linear_by_lr: bool) -> tuple:
    return _ftrl_v2(var, accum, linear, grad, lr, l1, l2, 0, lr_power, multiply_linear_by_lr)


def _proximal_step(prox: Any, lr: Any, l1: Any, l2: Any) -> Any:
    """The proximal map of l1 and l2 regularization after a plain step to `prox`."""
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)
    return prox / (1 + lr * l2)


def _proximal_step_in_double(prox: Any, lr: Any, l1: Any, l2: Any) -> Any:
    """_proximal_step as TF's scalar loops write it: over `1.0 + l2 * lr`, a double, so the quotient is
    rounded once from double."""
    denominator = 1.0 + np.asarray(l2 * lr, np.float64)
    numerator = np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) if l1 > 0 else prox
    return (numerator / denominator).astype(prox.dtype)


def _proximal_gradient_descent(var: Any, alpha: Any, l1: Any, l2: Any, delta: Any) -> tuple:
    return (_proximal_step(var - delta * alpha, alpha, l1, l2),)


def _proximal_gradient_descent_scalars(var: Any, alpha: Any, l1: Any, l2: Any, delta: Any) -> tuple:
    return (_proximal_step_in_double(var - alpha * delta, alpha, l1, l2),)


def _proximal_adagrad(var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any) -> tuple:
    accum = accum + np.square(grad)
    rate = lr * _rsqrt(accum)
    return _proximal_step(var - grad * rate, rate, l1, l2), accum


def _proximal_adagrad_scalars(var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any) -> tuple:
    accum = accum + np.square(grad)
    rate = lr / np.sqrt(accum)
    return _proximal_step_in_double(var - rate * grad, rate, l1, l2), accum


def _adagrad_da(var: Any, gradient_accumulator: Any, gradient_squared_accumulator: Any, grad: Any, lr: Any, l1: Any,
                l2: Any, global_step: Any) -> tuple:
    accumulated = gradient_accumulator + grad
    squared = gradient_squared_accumulator + np.square(grad)
    step = np.asarray(np.float32(global_step), dtype=var.dtype)  # TF casts the step to float
    denominator = l2 * (step * lr) + np.sqrt(squared)
    if l1 > 0:
        var = lr * np.sign(-accumulated) * np.maximum(np.abs(accumulated) - step * l1, 0) / denominator
    else:
        var = -lr * accumulated / denominator
    return var, accumulated, squared


def _sparse_adagrad_da(var: Any, gradient_accumulator: Any, gradient_squared_accumulator: Any, grad: Any, lr: Any,
                       l1: Any, l2: Any, global_step: Any) -> tuple:
    """TF's SparseApplyAdagradDA on matrix rows: the accumulator averaged over the steps first."""
    accumulated = gradient_accumulator + grad
    squared = gradient_squared_accumulator + np.square(grad)
    step = np.asarray(global_step, dtype=var.dtype)
    denominator = l2 + np.sqrt(squared) / (step * lr)
    if l1 > 0:
        var = -np.sign(accumulated) * np.maximum(np.abs(accumulated) / step - l1, 0) / denominator
    else:
        var = -(accumulated / step) / denominator
    return var, accumulated, squared


def _sparse_adagrad_da_scalars(var: Any, gradient_accumulator: Any, gradient_squared_accumulator: Any, grad: Any,
                               lr: Any, l1: Any, l2: Any, global_step: Any) -> tuple:
    """TF's SparseApplyAdagradDA on a vector's elements: in double, each accumulator rounded as it is stored."""
    g = grad.astype(np.float64)
    accumulated = (gradient_accumulator + g).astype(var.dtype)
    squared = (gradient_squared_accumulator + g * g).astype(var.dtype)
    lr, l1, l2, step = np.float64(lr), np.float64(l1), np.float64(l2), int(global_step)
    denominator = step * l2 * lr + np.sqrt(squared)
    if l1 > 0:
        var = np.sign(-accumulated) * lr * np.maximum(np.abs(accumulated) - step * l1, 0.0) / denominator
    else:
        var = -accumulated * lr / denominator
    return var.astype(accumulated.dtype), accumulated, squared


_SPARSE_ADAGRAD = _sparse_kernel(_adagrad, _adagrad_scalars)
_SPARSE_PROXIMAL_GRADIENT_DESCENT = _sparse_kernel(_proximal_gradient_descent, _proximal_gradient_descent_scalars)
_SPARSE_PROXIMAL_ADAGRAD = _sparse_kernel(_proximal_adagrad, _proximal_adagrad_scalars)
_SPARSE_ADAGRAD_DA = _sparse_kernel(_sparse_adagrad_da, _sparse_adagrad_da_scalars)

ApplyGradientDescent = _training_op("ApplyGradientDescent", ["var"], ["alpha", "delta"], _GRADIENT_DESCENT)

ApplyMomentum = _training_op("ApplyMomentum", ["var", "accum"], ["lr", "grad", "momentum"], _momentum,
                             flags=("use_nesterov",))
SparseApplyMomentum = _training_op("SparseApplyMomentum", ["var", "accum"], ["lr", "grad", "indices", "momentum"],
                                   _momentum, sparse=True, flags=("use_nesterov",))

ApplyAdam = _training_op("ApplyAdam", ["var", "m", "v"], ["beta1_power", "beta2_power", "lr", "beta1", "beta2",
                                                         "epsilon", "grad"], _ADAM, flags=("use_nesterov",))

ApplyAdagrad = _training_op("ApplyAdagrad", ["var", "accum"], ["lr", "grad"], _adagrad, flags=("update_slots",))
SparseApplyAdagrad = _training_op("SparseApplyAdagrad", ["var", "accum"], ["lr", "grad", "indices"], _SPARSE_ADAGRAD,
                                  sparse=True, flags=("update_slots",))

ApplyRMSProp = _training_op("ApplyRMSProp", ["var", "ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad"],
                            _rms_prop)
SparseApplyRMSProp = _training_op("SparseApplyRMSProp", ["var", "ms", "mom"],
                                  ["lr", "rho", "momentum", "epsilon", "grad", "indices"], _sparse_rms_prop, sparse=True)

ApplyCenteredRMSProp = _training_op("ApplyCenteredRMSProp", ["var", "mg", "ms", "mom"],
                                    ["lr", "rho", "momentum", "epsilon", "grad"], _centered_rms_prop)
SparseApplyCenteredRMSProp = _training_op("SparseApplyCenteredRMSProp", ["var", "mg", "ms", "mom"],
                                          ["lr", "rho", "momentum", "epsilon", "grad", "indices"],
                                          _sparse_centered_rms_prop, sparse=True)

ApplyAdadelta = _training_op("ApplyAdadelta", ["var", "accum", "accum_update"], ["lr", "rho", "epsilon", "grad"],
                             _adadelta)
SparseApplyAdadelta = _training_op("SparseApplyAdadelta", ["var", "accum", "accum_update"],
                                   ["lr", "rho", "epsilon", "grad", "indices"], _adadelta, sparse=True)

ApplyFtrl = _training_op("ApplyFtrl", ["var", "accum", "linear"], ["grad", "lr", "l1", "l2", "lr_power"], _ftrl,
                         flags=("multiply_linear_by_lr",))
SparseApplyFtrl = _training_op("SparseApplyFtrl", ["var", "accum", "linear"],
                               ["grad", "indices", "lr", "l1", "l2", "lr_power"], _ftrl, sparse=True,
                               flags=("multiply_linear_by_lr",))
ApplyFtrlV2 = _training_op("ApplyFtrlV2", ["var", "accum", "linear"],
                           ["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"], _ftrl_v2,
                           flags=("multiply_linear_by_lr",))
SparseApplyFtrlV2 = _training_op("SparseApplyFtrlV2", ["var", "accum", "linear"],
                                 ["grad", "indices", "lr", "l1", "l2", "l2_shrinkage", "lr_power"], _ftrl_v2,
                                 sparse=True, flags=("multiply_linear_by_lr",))

ApplyProximalGradientDescent = _training_op("ApplyProximalGradientDescent", ["var"], ["alpha", "l1", "l2", "delta"],
                                            _proximal_gradient_descent)
SparseApplyProximalGradientDescent = _training_op("SparseApplyProximalGradientDescent", ["var"],
                                                  ["alpha", "l1", "l2", "grad", "indices"],
                                                  _SPARSE_PROXIMAL_GRADIENT_DESCENT, sparse=True)

ApplyProximalAdagrad = _training_op("ApplyProximalAdagrad", ["var", "accum"], ["lr", "l1", "l2", "grad"],
                                    _proximal_adagrad)
SparseApplyProximalAdagrad = _training_op("SparseApplyProximalAdagrad", ["var", "accum"],
                                          ["lr", "l1", "l2", "grad", "indices"], _SPARSE_PROXIMAL_ADAGRAD, sparse=True)

ApplyAdagradDA = _training_op("ApplyAdagradDA", ["var", "gradient_accumulator", "gradient_squared_accumulator"],
                              ["grad", "lr", "l1", "l2", "global_step"], _adagrad_da)
SparseApplyAdagradDA = _training_op("SparseApplyAdagradDA",
                                    ["var", "gradient_accumulator", "gradient_squared_accumulator"],
                                    ["grad", "indices", "lr", "l1", "l2", "global_step"], _SPARSE_ADAGRAD_DA, sparse=True)


# The resource-variable forms (TF's Resource* ops): the variables come as handles, nothing is output.
ResourceApplyGradientDescent = _training_op(
    "ResourceApplyGradientDescent", ["var"], ["alpha", "delta"], _GRADIENT_DESCENT, resource=True)
ResourceApplyMomentum = _training_op(
    "ResourceApplyMomentum", ["var", "accum"], ["lr", "grad", "momentum"], _momentum, flags=("use_nesterov",),
    resource=True)
ResourceSparseApplyMomentum = _training_op(
    "ResourceSparseApplyMomentum", ["var", "accum"], ["lr", "grad", "indices", "momentum"], _momentum,
    sparse=True, flags=("use_nesterov",), resource=True)
ResourceApplyAdam = _training_op(
    "ResourceApplyAdam", ["var", "m", "v"], ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
    "grad"], _ADAM, flags=("use_nesterov",), resource=True)
ResourceApplyAdagrad = _training_op(
    "ResourceApplyAdagrad", ["var", "accum"], ["lr", "grad"], _adagrad, flags=("update_slots",),
    resource=True)
ResourceSparseApplyAdagrad = _training_op(
    "ResourceSparseApplyAdagrad", ["var", "accum"], ["lr", "grad", "indices"], _SPARSE_ADAGRAD, sparse=True,
    flags=("update_slots",), resource=True)
ResourceApplyRMSProp = _training_op(
    "ResourceApplyRMSProp", ["var", "ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad"], _rms_prop,
    resource=True)
ResourceSparseApplyRMSProp = _training_op(
    "ResourceSparseApplyRMSProp", ["var", "ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad",
    "indices"], _sparse_rms_prop, sparse=True, resource=True)
ResourceApplyCenteredRMSProp = _training_op(
    "ResourceApplyCenteredRMSProp", ["var", "mg", "ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad"],
    _centered_rms_prop, resource=True)
ResourceSparseApplyCenteredRMSProp = _training_op(
    "ResourceSparseApplyCenteredRMSProp", ["var", "mg", "ms", "mom"], ["lr", "rho", "momentum", "epsilon",
    "grad", "indices"], _sparse_centered_rms_prop, sparse=True, resource=True)
ResourceApplyAdadelta = _training_op(
    "ResourceApplyAdadelta", ["var", "accum", "accum_update"], ["lr", "rho", "epsilon", "grad"], _adadelta,
    resource=True)
ResourceSparseApplyAdadelta = _training_op(
    "ResourceSparseApplyAdadelta", ["var", "accum", "accum_update"], ["lr", "rho", "epsilon", "grad",
    "indices"], _adadelta, sparse=True, resource=True)
ResourceApplyFtrl = _training_op(
    "ResourceApplyFtrl", ["var", "accum", "linear"], ["grad", "lr", "l1", "l2", "lr_power"], _ftrl,
    flags=("multiply_linear_by_lr",), resource=True)
ResourceSparseApplyFtrl = _training_op(
    "ResourceSparseApplyFtrl", ["var", "accum", "linear"], ["grad", "indices", "lr", "l1", "l2", "lr_power"],
    _ftrl, sparse=True, flags=("multiply_linear_by_lr",), resource=True)
ResourceApplyFtrlV2 = _training_op(
    "ResourceApplyFtrlV2", ["var", "accum", "linear"], ["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"],
    _ftrl_v2, flags=("multiply_linear_by_lr",), resource=True)
ResourceSparseApplyFtrlV2 = _training_op(
    "ResourceSparseApplyFtrlV2", ["var", "accum", "linear"], ["grad", "indices", "lr", "l1", "l2",
    "l2_shrinkage", "lr_power"], _ftrl_v2, sparse=True, flags=("multiply_linear_by_lr",), resource=True)
ResourceApplyProximalGradientDescent = _training_op(
    "ResourceApplyProximalGradientDescent", ["var"], ["alpha", "l1", "l2", "delta"],
    _proximal_gradient_descent, resource=True)
ResourceSparseApplyProximalGradientDescent = _training_op(
    "ResourceSparseApplyProximalGradientDescent", ["var"], ["alpha", "l1", "l2", "grad", "indices"],
    _SPARSE_PROXIMAL_GRADIENT_DESCENT, sparse=True, resource=True)
ResourceApplyProximalAdagrad = _training_op(
    "ResourceApplyProximalAdagrad", ["var", "accum"], ["lr", "l1", "l2", "grad"], _proximal_adagrad,
    resource=True)
ResourceSparseApplyProximalAdagrad = _training_op(
    "ResourceSparseApplyProximalAdagrad", ["var", "accum"], ["lr", "l1", "l2", "grad", "indices"],
    _SPARSE_PROXIMAL_ADAGRAD, sparse=True, resource=True)
ResourceApplyAdagradDA = _training_op(
    "ResourceApplyAdagradDA", ["var", "gradient_accumulator", "gradient_squared_accumulator"], ["grad", "lr",
    "l1", "l2", "global_step"], _adagrad_da, resource=True)
ResourceSparseApplyAdagradDA = _training_op(
    "ResourceSparseApplyAdagradDA", ["var", "gradient_accumulator", "gradient_squared_accumulator"], ["grad",
    "indices", "lr", "l1", "l2", "global_step"], _SPARSE_ADAGRAD_DA, sparse=True, resource=True)
