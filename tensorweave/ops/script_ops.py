"""`tf.py_func` and `tf.numpy_function`: a Python function as a graph node (PyFunc, PyFuncStateless).

A graph can hold only strings, so the wrapper registers the function in a process-wide registry under a
token (`pyfunc_<n>`, as TF names them) and the node carries the token; the kernel looks it up and calls it
with NumPy arrays. What it returns is checked against `Tout` without casting, and an exception raised
inside becomes TF's error class for it, with the Python traceback in the message.
"""

from __future__ import annotations

import itertools
import threading
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import get_default_graph
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
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
    name = token.decode()
    with _registry_lock:
        func = _registry.get(name)
    if func is None:
        raise invalid_argument(ctx, f"Callback {name} is not found.")
    try:  # as TF's kernel hands them over: a 0-d input as a NumPy scalar, a 0-d string as bytes
        result = func(*[value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
                        for value in inputs])
    except errors.OpError:
        raise
    except Exception as e:
        cls = next((c for py, c in _ERROR_CLASSES if isinstance(e, py)), errors.UnknownError)
        text = "".join(traceback.format_exception_only(type(e), e)).rstrip("\n")
        trace = "\n".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise cls(ctx.node_def, None, f"{text}\n{trace}\n") from e
    values = list(result) if isinstance(result, (list, tuple)) else ([] if result is None and not Tout else [result])
    if len(values) != len(Tout):
        raise invalid_argument(ctx, f"{name} returns {len(values)} values, but expects to see {len(Tout)} values.")
    return [_checked(ctx, name, i, value, dtype) for i, (value, dtype) in enumerate(zip(values, Tout))]


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
