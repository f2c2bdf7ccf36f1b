"""`check_op`: the one helper an op test calls to check an op's forward values, static shape and dtype.

An op test hands `check_op` a TF1 function that builds the op from its input tensors, the input arrays and
the expected output (a NumPy result or a literal recorded from real TensorFlow). `check_op` builds the op
afresh on every device a session lists, placed there with `tf.device`, runs it, and checks in one place
what each op test used to check by hand: the values (to a tolerance chosen by dtype, as TF's
`assertAllCloseAccordingToType`), the dtype of the static tensor and of the fetched array, and the static
shape the graph inferred against the shape the kernel produced. `check_tensor` is the same check for one
tensor a test has already built (when the test is about that graph: its names, attrs or partial shapes).

Invariant: `check_op` never touches the default graph; every device gets its own graph and session.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import ml_dtypes
import numpy as np
from numpy.typing import ArrayLike, DTypeLike

import tensorweave.compat.v1 as tf

InputsAs = Literal["constant", "placeholder"]

# (rtol, atol) by dtype, as TF's `assertAllCloseAccordingToType`; every other dtype compares exactly.
_TOLERANCES: dict[np.dtype, tuple[float, float]] = {
    np.dtype(np.float16): (1e-3, 1e-3),
    np.dtype(ml_dtypes.bfloat16): (1e-2, 1e-2),
    np.dtype(np.float32): (1e-6, 1e-6),
    np.dtype(np.float64): (1e-6, 1e-6),
    np.dtype(np.complex64): (1e-6, 1e-6),
    np.dtype(np.complex128): (1e-6, 1e-6),
}


def tolerance(dtype: DTypeLike) -> tuple[float, float] | None:
    """The (rtol, atol) values of `dtype` are compared to, or None where they must be equal exactly."""
    return _TOLERANCES.get(np.dtype(dtype))


@functools.cache
def devices() -> tuple[str, ...]:
    """The full names of the devices a session lists, in its order: every device `check_op` runs on."""
    with tf.Graph().as_default(), tf.Session() as sess:
        return tuple(device.name for device in sess.list_devices())


def _expected_array(expected: ArrayLike, dtype: DTypeLike | None) -> np.ndarray:
    """`expected` as an array of the dtype the op must produce: `dtype` if given, else the array's own.

    A Python literal has no dtype of its own worth trusting (`[1, 2]` is int64 to NumPy, int32 to TF), so a
    literal needs `dtype`.
    """
    if dtype is not None:
        return np.asarray(expected, dtype=dtype)
    if not isinstance(expected, (np.ndarray, np.generic)):
        raise TypeError(f"expected {expected!r} is a literal: pass dtype= for the dtype the op must produce")
    return np.asarray(expected)


def _fetched_array(value: Any, tensor: tf.Tensor) -> np.ndarray:
    """A fetched value as an array; a fetched string scalar is `bytes`, which an object array holds as is."""
    if tensor.dtype.base_dtype == tf.string:
        return np.asarray(value, dtype=object)
    return np.asarray(value)


def check_tensor(
    tensor: tf.Tensor,
    expected: ArrayLike,
    feed_dict: Mapping[Any, Any] | None = None,
    *,
    dtype: DTypeLike | None = None,
    fully_defined: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    sess: tf.Session | None = None,
) -> np.ndarray:
    """Run `tensor` (in `sess`, else a new session on its graph) and check it against `expected`.

    Checks the static dtype and the fetched array's dtype against `expected`'s (or `dtype`), the fetched
    shape against `expected`'s, the values (exactly, or to `rtol`/`atol`, by default `tolerance(dtype)`),
    and the static shape against the fetched one: fully defined, hence equal to it, or with
    `fully_defined=False` (a placeholder of unknown shape, a value-dependent shape) only compatible.
    Returns the fetched array.
    """
    if sess is None:
        with tf.Session(graph=tensor.graph) as own:
            return check_tensor(tensor, expected, feed_dict, dtype=dtype, fully_defined=fully_defined, rtol=rtol,
                                atol=atol, sess=own)
    want = _expected_array(expected, dtype)
    value = _fetched_array(sess.run(tensor, feed_dict), tensor)
    _check_fetched(tensor, value, want, fully_defined=fully_defined, rtol=rtol, atol=atol)
    return value


def _check_fetched(tensor: tf.Tensor, value: np.ndarray, want: np.ndarray, *, fully_defined: bool,
                   rtol: float | None, atol: float | None, where: str = "") -> None:
    static_dtype = np.dtype(tensor.dtype.base_dtype.as_numpy_dtype)
    assert static_dtype == want.dtype, f"{where}{tensor.name}: static dtype {tensor.dtype.name}, expected {want.dtype}"
    assert value.dtype == want.dtype, f"{where}{tensor.name}: fetched dtype {value.dtype}, expected {want.dtype}"
    assert value.shape == want.shape, f"{where}{tensor.name}: fetched shape {value.shape}, expected {want.shape}"
    assert tensor.shape.is_compatible_with(value.shape), (
        f"{where}{tensor.name}: static shape {tensor.shape} does not admit the runtime shape {value.shape}")
    if fully_defined:
        assert tensor.shape.is_fully_defined(), f"{where}{tensor.name}: static shape {tensor.shape} is not fully defined"
    default = tolerance(want.dtype)
    if default is None and rtol is None and atol is None:
        np.testing.assert_array_equal(value, want, err_msg=f"{where}{tensor.name}", strict=True)
        return
    default_rtol, default_atol = default or (0.0, 0.0)
    if want.dtype == ml_dtypes.bfloat16:  # NumPy's comparisons do not take bfloat16; float32 holds it exactly
        value, want = value.astype(np.float32), want.astype(np.float32)
    np.testing.assert_allclose(value, want, rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol, err_msg=f"{where}{tensor.name}")


def check_gradient(build: Callable[..., tf.Tensor | Sequence[tf.Tensor]], inputs: Sequence[ArrayLike],
                   max_error: float | None = None) -> None:
    """Check the gradient of each output of `build` by each floating input against central differences."""
    arrays = [np.asarray(x) for x in inputs]
    with tf.Graph().as_default(), tf.Session():
        tensors = [tf.placeholder(tf.as_dtype(x.dtype), x.shape) for x in arrays]
        built = build(*tensors)
        outputs = list(built) if isinstance(built, (list, tuple)) else [built]
        feed = dict(zip(tensors, arrays))
        for index, (tensor, array) in enumerate(zip(tensors, arrays)):
            if not tensor.dtype.is_floating:
                continue
            limit = max_error or (1e-3 if array.dtype == np.float64 else 1e-2)
            for output in outputs:
                error = tf.test.compute_gradient_error(tensor, array.shape, output, output.shape.as_list(),
                                                       x_init_value=array.copy(), extra_feed_dict=feed)
                assert error < limit, f"gradient of {output.name} by input {index}: error {error} >= {limit}"


def check_op(
    build: Callable[..., tf.Tensor | Sequence[tf.Tensor]],
    inputs: Sequence[ArrayLike],
    expected: ArrayLike | Sequence[ArrayLike],
    *,
    dtype: DTypeLike | None = None,
    inputs_as: InputsAs = "constant",
    fully_defined: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    grad: bool = False,
) -> list[list[np.ndarray]]:
    """Build `build(*input_tensors)` on every device in `devices()`, run it there and check what it gives.

    `inputs` become `tf.constant`s, or with `inputs_as="placeholder"` placeholders of their full shape and
    dtype, fed their values when run. `build` returns one tensor, or a list/tuple of them with `expected`
    a sequence of as many values. Each output is checked as `check_tensor` checks it: static and fetched
    dtypes, values to `tolerance(dtype)` (or `rtol`/`atol`), and the static shape against the runtime shape
    — by default it must be fully defined, hence equal; pass `fully_defined=False` for ops whose output
    shape depends on values (`Where`, `boolean_mask`), which then only need a compatible static shape.

    With `grad=True` each floating input's gradient (from `tf.gradients`) is also checked against central
    differences of the forward op (`tf.test.compute_gradient_error`, below 1e-3 for float64 inputs, 1e-2
    else), on the first device.

    Returns the fetched arrays, one list of outputs per device.
    """
    arrays = [np.asarray(x) for x in inputs]
    if grad:
        check_gradient(build, arrays)
    results = []
    for device in devices():
        with tf.Graph().as_default() as graph, tf.device(device):
            if inputs_as == "constant":
                tensors, feed = [tf.constant(x) for x in arrays], None
            else:
                tensors = [tf.placeholder(tf.as_dtype(x.dtype), x.shape) for x in arrays]
                feed = dict(zip(tensors, arrays))
            built = build(*tensors)
        outputs = list(built) if isinstance(built, (list, tuple)) else [built]
        wants = list(expected) if isinstance(built, (list, tuple)) else [expected]  # type: ignore[arg-type]
        assert len(outputs) == len(wants), f"{len(outputs)} outputs built, {len(wants)} expected"
        wants = [_expected_array(want, dtype) for want in wants]
        with tf.Session(graph=graph) as sess:
            fetched = sess.run(outputs, feed)
        values = [_fetched_array(value, tensor) for value, tensor in zip(fetched, outputs)]
        for tensor, value, want in zip(outputs, values, wants):
            _check_fetched(tensor, value, want, fully_defined=fully_defined, rtol=rtol, atol=atol,
                           where=f"on {device}: ")
        results.append(values)
    return results


def dataset_elements(dataset_or_next: Any, feed: Any = None, init: Any = None) -> list[Any]:
    """Every element a dataset (through a one-shot iterator) or a `get_next` tensor yields, run in a fresh
    session (after running `init` with `feed`, if given) until OutOfRange, whose message TF's."""
    next_element = (tf.data.make_one_shot_iterator(dataset_or_next).get_next() if hasattr(dataset_or_next, "map")
                    else dataset_or_next)
    elements = []
    with tf.Session() as sess:
        if init is not None:
            sess.run(init, feed)
        while True:
            try:
                elements.append(sess.run(next_element))
            except tf.errors.OutOfRangeError as e:
                assert "End of sequence" in e.message
                return elements


_INTERPOLATION_HEADER = "Graph execution error:\n\n"


def runtime_message(error: Any) -> str:
    """An OpError's message as the runtime wrote it: without what TF 2's Session puts before it (the 'Graph
    execution error:' header and, per node the message tags, where user code defined it, ending "Node: 'x'")."""
    message = error.message
    if not message.startswith(_INTERPOLATION_HEADER):
        return message
    lines = message[len(_INTERPOLATION_HEADER):].split("\n")
    start = 0
    while start < len(lines) and lines[start].startswith("Detected at node "):
        start += 1
        while start < len(lines) and lines[start].startswith("    File "):
            start += 1
        start += 1  # "Node: 'x'"
    return "\n".join(lines[start:])
