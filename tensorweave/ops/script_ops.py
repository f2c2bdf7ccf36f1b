"""`tf.py_func`, `tf.numpy_function` and `tf.py_function`: a Python function as a graph node (PyFunc,
PyFuncStateless, EagerPyFunc).

A graph can hold only strings, so the wrapper registers the function in a process-wide registry under a
token (`pyfunc_<n>`, as TF names them) and the node carries the token; the kernel looks it up and calls it.
PyFunc hands it NumPy arrays and checks what it returns against `Tout` without casting. EagerPyFunc calls it
executing eagerly (framework/eager.py): it gets EagerTensors, may run TF ops on them, and what it returns
converts to `Tout`. An exception raised inside becomes TF's error class for it, with the Python traceback in
the message. EagerPyFunc is differentiable as TF makes it: once `tf.gradients` asked for its gradient, each
call records a tape, which the gradient node (another EagerPyFunc) takes back by token to differentiate.
"""

from __future__ import annotations

import functools
import itertools
import threading
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import context, dtypes, tensor_shape
from tensorweave.framework.eager import EagerTensor, convert
from tensorweave.framework.graph import Graph, Tensor, control_dependencies, get_default_graph
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.type_spec import TensorSpec, TypeSpec, type_spec_from_value
from tensorweave.ops.backprop import GradientTape
from tensorweave.ops.gradients import is_trainable
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.platform.tf_export import tf_export

_registry: dict[str, Callable] = {}
_registry_lock = threading.Lock()
_tokens = itertools.count()

# TF's mapping of a Python exception raised in the function to the step's error class
_ERROR_CLASSES: tuple[tuple[type[BaseException], type[errors.OpError]], ...] = (
    (ValueError, errors.InvalidArgumentError), (TypeError, errors.InvalidArgumentError),
    (StopIteration, errors.OutOfRangeError), (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError))

_PY_FUNC_ATTRS = ["token: string", "Tin: list(type) >= 0", "Tout: list(type) >= 0"]
PyFunc = Op("PyFunc", inputs=["input: Tin"], outputs=["output: Tout"], attrs=_PY_FUNC_ATTRS, is_stateful=True)
PyFuncStateless = Op("PyFuncStateless", inputs=["input: Tin"], outputs=["output: Tout"], attrs=_PY_FUNC_ATTRS)


@PyFunc.shape
@PyFuncStateless.shape
def _py_func_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.unknown_shape() for _ in ctx.attr("Tout")]


@PyFunc.kernel("CPU")
@PyFuncStateless.kernel("CPU")
def _py_func(ctx: OpKernelContext, *inputs: Any, token: bytes, Tout: list) -> list[Any]:  # noqa: N803
    name, func = _lookup(ctx, token)
    try:  # as TF's kernel hands them over: a 0-d input as a NumPy scalar, a 0-d string as bytes
        result = func(*[value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
                        for value in inputs])
    except errors.OpError:
        raise
    except Exception as e:
        raise _raised_in_function(ctx, e, "".join(traceback.format_exception_only(type(e), e)).rstrip("\n")) from e
    values = list(result) if isinstance(result, (list, tuple)) else ([] if result is None and not Tout else [result])
    _check_count(ctx, name, values, Tout)
    return [_checked(ctx, name, i, value, dtype) for i, (value, dtype) in enumerate(zip(values, Tout))]


def _lookup(ctx: OpKernelContext, token: bytes) -> tuple[str, Any]:
    name = token.decode()
    with _registry_lock:
        func = _registry.get(name)
    if func is None:
        raise invalid_argument(ctx, f"Callback {name} is not found.")
    return name, func


def _raised_in_function(ctx: OpKernelContext, error: Exception, headline: str) -> errors.OpError:
    return raised_in_python(error, headline, ctx.node_def)


def raised_in_python(error: Exception, headline: str, node_def: Any = None) -> errors.OpError:
    """An exception a Python function raised, as TF's kernel reports it: its error class for the exception's
    type, the headline and the Python traceback."""
    cls = next((c for py, c in _ERROR_CLASSES if isinstance(error, py)), errors.UnknownError)
    trace = "\n".join(traceback.format_exception(type(error), error, error.__traceback__))
    return cls(node_def, None, f"{headline}\n{trace}\n")


def _check_count(ctx: OpKernelContext, name: str, values: list, types: list) -> None:
    if len(values) != len(types):
        raise invalid_argument(ctx, f"{name} returns {len(values)} values, but expects to see {len(types)} values.")


def _checked(ctx: OpKernelContext, name: str, index: int, value: Any, dtype: dtypes.DType) -> Any:
    """A returned value as an array of `dtype`, which it must already have (strings of either kind
    become bytes)."""
    array = np.asarray(value)
    if dtype == dtypes.string and array.dtype.kind in "USO":
        return np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(array) \
            if array.size else array.astype(object)
    if array.dtype != dtype.as_numpy_dtype:
        got = "string" if array.dtype.kind in "USO" else dtypes.type_string(dtypes.as_dtype(array.dtype))
        raise invalid_argument(ctx, f"{index}-th value returned by {name} is {got}, but expects "
                                    f"{dtypes.type_string(dtype)}")
    return array


def _register(func: Callable) -> str:
    token = f"pyfunc_{next(_tokens)}"
    with _registry_lock:
        _registry[token] = func
    return token


@tf_export("py_func")
def py_func(func: Callable, inp: list, Tout: Any, stateful: bool = True,  # noqa: N803
            name: str | None = None) -> Any:
    """A node that calls `func` on the NumPy values of `inp` and returns values of the dtypes `Tout`
    (a list of tensors when `Tout` is a list, else one tensor)."""
    is_list = isinstance(Tout, (list, tuple))
    types = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    op = PyFunc if stateful else PyFuncStateless
    result = op(list(inp), token=_register(func), Tout=types, name=name)
    if not result:  # TF returns the node itself when the function has no outputs: the newest one
        return get_default_graph().get_operations()[-1]
    return result if is_list else result[0]


@tf_export("numpy_function")
def numpy_function(func: Callable, inp: list, Tout: Any, stateful: bool = True,  # noqa: N803
                   name: str | None = None) -> Any:
    """`py_func` under its TF 2 name: `func` takes and returns NumPy arrays."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


# -- EagerPyFunc: tf.py_function ----------------------------------------------------------------------

EagerPyFunc = Op("EagerPyFunc", inputs=["input: Tin"], outputs=["output: Tout"],
                 attrs=["token: string", "is_async: bool = false", "Tin: list(type) >= 0", "Tout: list(type) >= 0"],
                 is_stateful=True)
EagerPyFunc.shape(_py_func_shape)

# What each call of a differentiated EagerPyFunc recorded, by token, until its gradient node takes it: (tape,
# inputs, outputs). As in TF, concurrent calls of one node (parallel steps, loop iterations) share the entry.
_tape_cache: dict[bytes, tuple[GradientTape, list[EagerTensor], list[EagerTensor]]] = {}


class _EagerFunc:
    """A py_function's Python function with its output types; `record_tape` once a gradient was built.

    With composite tensors (a SparseTensor input, a TypeSpec in `Tout`), the node carries their components:
    `in_specs` rebuild each composite input (None for a tensor), and the results of `out_structure` (the
    TypeSpecs and dtypes of `Tout`) are checked against it and flattened to their components, as TF's
    `_wrap_for_composites` does.
    """

    def __init__(self, func: Callable, types: list[dtypes.DType], is_grad_func: bool,
                 in_specs: list[TypeSpec | None] | None = None, out_structure: list | None = None) -> None:
        self.func = func
        self.types = types
        self.is_grad_func = is_grad_func
        self.in_specs = in_specs
        self.out_structure = out_structure
        self.record_tape = False

    def __call__(self, token: bytes, args: list[EagerTensor], recording: bool) -> list[EagerTensor]:
        """The results of one call; with a tape recorded when a gradient was built for the node, or when the
        node itself runs eagerly under a tape (`recording`: a py_function inside a differentiated one)."""
        if not (self.record_tape or recording):
            return self._call(args)
        with GradientTape() as tape:
            for arg in args:
                if is_trainable(arg):
                    tape.watch(arg)
            outputs = self._call(args)
        _tape_cache[token] = (tape, args, outputs)
        return outputs

    def _call(self, args: list[EagerTensor]) -> list[EagerTensor]:
        """The function's results as EagerTensors of the output types (a list or tuple is zipped with them,
        as in TF: extra values are dropped, missing ones fail the count check)."""
        if self.in_specs is None:
            result = self.func(*args)
        else:
            result = self._flattened(self.func(*_packed(self.in_specs, args)))
        if result is None:
            return []
        if not isinstance(result, (list, tuple)):
            return [self._converted(result, self.types[0])]
        return [self._converted(value, dtype) for value, dtype in zip(result, self.types)]

    def _flattened(self, result: Any) -> list:
        """The components of what a function with composites returned, checked against `out_structure`."""
        if not self.out_structure:
            return []
        results = result if isinstance(result, (list, tuple)) else [result]
        flat: list = []
        for value, expected in zip(results, self.out_structure):
            if _is_composite_spec(expected):
                if not expected.is_compatible_with(value):
                    raise ValueError(f"py_function: func={self.func} returned {results!r}, which did not match "
                                     f"Tout={self.out_structure!r}.\nIn particular, {value!r} is not compatible "
                                     f"with {expected!r}.")
                flat.extend(expected._to_components(value))
            elif _is_composite(value):
                raise ValueError(f"py_function: func={self.func} returned {results!r}, which did not match "
                                 f"Tout={self.out_structure!r}.\nIn particular, {value!r} is not a Tensor.")
            else:
                flat.append(value)
        return flat

    def _converted(self, value: Any, dtype: dtypes.DType) -> EagerTensor:
        if value is None and self.is_grad_func:  # no gradient for that input: zeros, as TF's scalar 0.0
            value = 0.0
        return convert(value, dtype)


@EagerPyFunc.kernel("CPU")
def _eager_py_func(ctx: OpKernelContext, *inputs: Any, token: bytes, Tin: list, Tout: list) -> list[Any]:  # noqa: N803
    name, func = _lookup(ctx, token)
    outer = context.current()
    recording = outer is not None and bool(outer.tapes)
    with context.eager_mode(context.EagerContext(ctx.device, ctx.step)), Graph().as_default():
        try:
            outputs = func(token, [EagerTensor(value, dtype) for value, dtype in zip(inputs, Tin)], recording)
        except Exception as e:
            raise _raised_in_function(ctx, e, f"{type(e).__name__}: {e}") from e
    _check_count(ctx, name, outputs, Tout)
    return [t._value for t in outputs]


@EagerPyFunc.gradient
def _eager_py_func_grad(op: Any, *grads: Any) -> list:
    """Another EagerPyFunc, after the forward one, that differentiates the tape the forward call recorded."""
    token = op.get_attr("token")
    with _registry_lock:
        forward = _registry[token.decode()]
    forward.record_tape = True

    def eagerly_executed_grad(*dy: EagerTensor) -> list:
        tape, inputs, outputs = _tape_cache.pop(token)
        return tape.gradient(outputs, inputs, output_gradients=dy)

    with control_dependencies(op.outputs):
        return _eager_py_function(eagerly_executed_grad, list(grads), [t.dtype for t in op.inputs], None, True)


def _eager_py_function(func: Callable, inp: Any, Tout: Any, name: str | None,  # noqa: N803
                       is_grad_func: bool = False) -> Any:
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type {type(func)}.")
    inp = list(inp)
    is_list = isinstance(Tout, (list, tuple))
    structure = [t if isinstance(t, TypeSpec) else dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    if not any(_is_composite(v) for v in inp) and not any(isinstance(t, TypeSpec) for t in structure):
        eager_func = _EagerFunc(func, structure, is_grad_func)
        result = EagerPyFunc(inp, token=_register(eager_func), Tout=structure, name=name)
    else:  # the node carries components; composites are rebuilt around it
        in_specs = [type_spec_from_value(v) if _is_composite(v) else None for v in inp]
        flat_inp = [c for v, spec in zip(inp, in_specs) for c in ([v] if spec is None else spec._to_components(v))]
        types = [c.dtype for t in structure for c in _component_specs(t)]
        eager_func = _EagerFunc(func, types, is_grad_func, in_specs, structure)
        result = EagerPyFunc(flat_inp, token=_register(eager_func), Tout=types, name=name)
        result = _packed([t if _is_composite_spec(t) else None for t in structure], result)
    if not result:  # no outputs: the node itself, as TF returns it
        return get_default_graph().get_operations()[-1]
    return result if is_list else result[0]


def _is_composite(value: Any) -> bool:
    """A SparseTensor, RaggedTensor, ...: tensor-like but not a tensor."""
    return getattr(value, "is_tensor_like", False) and not isinstance(value, Tensor)


def _is_composite_spec(spec: Any) -> bool:
    return isinstance(spec, TypeSpec) and not isinstance(spec, TensorSpec)


def _component_specs(spec: Any) -> list:
    """What an entry of `Tout` takes of the node's outputs: a composite's components, else one tensor."""
    if _is_composite_spec(spec):
        return list(spec._component_specs)
    return [spec if isinstance(spec, TensorSpec) else TensorSpec(None, spec)]


def _packed(specs: list[TypeSpec | None], flat: list) -> list:
    """Each composite rebuilt from its components in `flat` (a None spec takes one value as it is)."""
    packed, position = [], 0
    for spec in specs:
        count = 1 if spec is None else len(spec._component_specs)
        part = flat[position:position + count]
        packed.append(part[0] if spec is None else spec._from_components(part))
        position += count
    return packed


@tf_export("py_function")
def py_function(func: Callable | None = None, inp: Any = None, Tout: Any = None,  # noqa: N803
                name: str | None = None) -> Any:
    """A node that calls `func` executing eagerly: it gets EagerTensors and may run TF ops on them, and its
    results convert to the dtypes `Tout` (a list of tensors when `Tout` is a list, else one tensor). Without
    `func`, a decorator."""
    if Tout is None:
        raise TypeError("Missing required argument: 'Tout'\n  If using tf.py_function as a decorator, set `Tout`\n"
                        "  **by name** above the function:\n  `@tf.py_function(Tout=tout)`")
    if func is None:
        if inp is not None:
            raise TypeError("Don't set the `inp` argument when using tf.py_function as a decorator (`func=None`).")

        def decorator(fun: Callable) -> Callable:
            @functools.wraps(fun)
            def wrapper(*args: Any) -> Any:
                return py_function(fun, inp=args, Tout=Tout, name=name)
            return wrapper
        return decorator
    if inp is None:
        raise TypeError("Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments to the\n"
                        "  function), unless you use `tf.py_function` as a decorator(`func=None`).")
    return _eager_py_function(func, inp, Tout, name)
