"""Logging ops: Assert, Print, PrintV2 and StringFormat, with `tf.Assert`, `tf.Print` and `tf.print`.

Their text is TF's: a tensor is summarised as the C++ `Tensor::SummarizeValue` writes it, in the legacy flat
layout (`[[1 2][3...]...]`, Assert and Print) or the numpy-like layout of `tf.print` (rows on their own lines,
`...` between the first and last `summarize` entries of each long dimension). Numbers are printed as TF's
`strings::StrCat` does: shortest of 6 (float) or 15 (double) significant digits that round-trips, else 9 or 17.
Assert and the printing ops are stateful, so no optimisation folds or deduplicates them; Print's `first_n`
counter lives in its kernel, so it counts across the runs of one session.
"""

from __future__ import annotations

import collections
import os
import pprint
import random
import sys
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, nest, tensor_shape, tensor_util
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Operation, Tensor, convert_n_to_tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops import control_flow_ops
from tensorweave.ops.kernel_helpers import BFLOAT16, invalid_argument, utf8_safe_c_escape
from tensorweave.ops.shape_helpers import unary_shape
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

# -- Tensor::SummarizeValue ----------------------------------------------------------------------------

_FLOAT_DIGITS = {np.dtype(np.float32): (6, 9), np.dtype(np.float64): (15, 17)}


def _format_float(value: Any, kind: np.dtype) -> str:
    """A float as TF's FloatToBuffer/DoubleToBuffer: the shorter precision when it round-trips."""
    if np.isnan(value):
        return "-nan" if np.signbit(value) else "nan"
    short, full = _FLOAT_DIGITS[kind]
    text = f"{float(value):.{short}g}"
    if kind.type(text) != value:
        text = f"{float(value):.{full}g}"
    return text


def _element_strings(flat: np.ndarray, print_v2: bool) -> list[str]:
    """TF's PrintOneElement for each of these elements (strings C-escaped, UTF-8 kept; quoted in the v2 layout)."""
    if flat.dtype == BFLOAT16 or flat.dtype == np.float16:
        flat = flat.astype(np.float32)
    if flat.dtype.kind == "f":
        return [_format_float(v, flat.dtype) for v in flat]
    if flat.dtype == np.bool_:
        return ["1" if v else "0" for v in flat]
    if flat.dtype.kind in "iu":
        return [str(v) for v in flat.tolist()]
    raw = [v if isinstance(v, bytes) else str(v).encode() for v in flat.tolist()]
    if print_v2:  # tf.print and strings.format keep a byte that is not UTF-8, as TF
        return [f'"{utf8_safe_c_escape(v, "surrogateescape")}"' for v in raw]
    return [utf8_safe_c_escape(v) for v in raw]


def _legacy_dims(shape: tuple[int, ...], texts: list[str], limit: int) -> str:
    """TF's PrintOneDim: nested brackets over the first `limit` elements, `...` where a row is cut."""
    out: list[str] = []
    index = 0

    def dim(d: int) -> None:
        nonlocal index
        if index >= limit:
            return
        if d == len(shape) - 1:
            for i in range(shape[d]):
                if index >= limit:
                    if d != 0:
                        out.append("...")
                    return
                out.append((" " if i else "") + texts[index])
                index += 1
            return
        for _ in range(shape[d]):
            opened = index < limit
            if opened:
                out.append("[")
            dim(d + 1)
            if index < limit or opened:
                out.append("]")

    dim(0)
    return "".join(out)


def _spacing(d: int, rank: int) -> str:
    """TF's PrintDimSpacing: a space between numbers, blank lines and indentation between sub-arrays."""
    return " " if d == rank - 1 else "\n" * (rank - d - 1) + " " * (d + 1)


def _v2_dims(array: np.ndarray, ends: int) -> str:
    """TF's PrintOneDimV2: every dimension longer than 2 * `ends` shows its first and last `ends` entries."""
    rank = array.ndim
    kept = array
    for axis, size in enumerate(array.shape):  # only the entries printed are formatted
        if size > 2 * ends:
            kept = np.take(kept, np.r_[0:ends, size - ends:size], axis=axis)
    texts = np.empty(kept.size, dtype=object)
    texts[:] = _element_strings(kept.reshape(-1), True)
    texts = texts.reshape(kept.shape)

    def dim(d: int, part: Any) -> str:
        if d == rank:
            return part
        size, spacing = array.shape[d], _spacing(d, rank)
        tail = size - max(ends, size - ends)
        text = "[" + spacing.join(dim(d + 1, part[i]) for i in range(min(ends, size)))
        if size > 2 * ends:
            text += spacing + "..."
        for i in range(len(part) - tail, len(part)):
            text += spacing + dim(d + 1, part[i])
        return text + "]"

    return dim(0, texts)


def summarize_value(value: Any, max_entries: int, print_v2: bool = False) -> str:
    """A tensor's value as TF's `Tensor::SummarizeValue(max_entries, print_v2)` writes it."""
    array = np.asarray(value)
    count = array.size
    if max_entries < 0:
        max_entries = count
    limit = min(max_entries, count)
    flat = array.reshape(-1)
    regular = array.dtype.kind in "fiubSUO" or array.dtype == BFLOAT16
    if not regular:  # complex and other types: one '?' per element
        text = " ".join("?" * limit) + ("..." if max_entries < count else "")
        return f"[{text}]" if print_v2 and array.ndim else text
    if array.ndim == 0:
        return " ".join(_element_strings(flat[:limit], print_v2)) + ("..." if count > limit else "")
    if print_v2:
        return _v2_dims(array, limit)
    text = _legacy_dims(array.shape, _element_strings(flat[:limit], False), limit)
    return text + ("..." if count > limit else "")


# -- Assert --------------------------------------------------------------------------------------------

Assert = Op("Assert", inputs=["condition: bool", "data: T"], attrs=["T: list(type) >= 1", "summarize: int = 3"],
            is_stateful=True)


@Assert.shape
def _no_outputs(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return []


@Assert.kernel("CPU")
def _assert(ctx: OpKernelContext, condition: Any, *data: Any, summarize: int) -> None:
    if np.ndim(condition) != 0:
        raise invalid_argument(ctx, f"In[0] should be a scalar: {tensor_shape.shape_string(np.shape(condition))}")
    if not condition:
        summaries = " ".join(f"[{summarize_value(value, summarize)}]" for value in data)
        raise invalid_argument(ctx, f"assertion failed: {summaries}")


@tf_export("debugging.Assert", "Assert")
def Assert_(condition: Any, data: list, summarize: int | None = None,  # noqa: N802 - TF's name
            name: str | None = None) -> Operation:
    """An op that fails the step with `data` summarised when `condition` is false.

    As TF1 builds it: data of strings and int32 only (host values) feed the Assert directly; any other data
    is guarded by a `tf.cond` (`AssertGuard`), so it is only copied when the assertion fails, and the op
    returned is the cond's Merge.
    """
    with name_scope(name, "Assert", [condition, data]):
        xs = convert_n_to_tensor(data)
        if all(x.dtype in (dtypes.string, dtypes.int32) for x in xs):
            return Assert(condition, data, summarize=summarize, name="Assert")
        condition = convert_to_tensor(condition, name="Condition")
        guarded = control_flow_ops.cond(
            condition, control_flow_ops.no_op,
            lambda: Assert(condition, data, summarize=summarize, name="Assert"), name="AssertGuard")
        return guarded.op


Assert_.__name__ = "Assert"

# -- Print ---------------------------------------------------------------------------------------------

Print = Op("Print", inputs=["input: T", "data: U"], outputs=["output: T"],
           attrs=["T: type", "U: list(type) >= 0", "message: string = ''", "first_n: int = -1",
                  "summarize: int = 3"], is_stateful=True)
Print.shape(unary_shape)


class _PrintCounter:
    """How many times a Print node has printed (its `first_n` budget), shared by the session's runs."""

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        self.lock = threading.Lock()
        self.count = 0


def _text(value: Any) -> str:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else str(value)


def _raw_text(value: Any) -> str:
    """Bytes as text that encodes back to them (a byte that is not UTF-8 kept as a surrogate)."""
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


@Print.kernel("CPU", state=_PrintCounter)
def _print(ctx: OpKernelContext, input: Any, *data: Any, message: Any, first_n: int,  # noqa: A002
           summarize: int) -> Any:
    """`input` passed on; the message and each data tensor summarised go to stderr (first `first_n` runs)."""
    if first_n >= 0:
        counter: _PrintCounter = ctx.state
        with counter.lock:
            if counter.count >= first_n:
                return input
            counter.count += 1
    text = _text(message) + "".join(f"[{summarize_value(value, summarize)}]" for value in data)
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    return input


@Print.gradient
def _print_grad(op: Any, *grad: Any) -> list:
    """Print passes `input` through; its data tensors get no gradient."""
    return [grad[0]] + [None] * (len(op.inputs) - 1)


@tf_export("Print")
def Print_(input_: Any, data: list, message: str | None = None, first_n: int | None = None,  # noqa: N802
           summarize: int | None = None, name: str | None = None) -> Tensor:
    """`input_` unchanged; printing `message` and `data` to stderr whenever it is computed (TF1's tf.Print)."""
    return Print(input_, data, message=message, first_n=first_n, summarize=summarize, name=name)


Print_.__name__ = "Print"

# -- StringFormat and PrintV2: tf.print --------------------------------------------------------------

StringFormat = Op("StringFormat", inputs=["inputs: T"], outputs=["output: string"],
                  attrs=["T: list(type) >= 0", "template: string = '%s'", "placeholder: string = '%s'",
                         "summarize: int = 3"])


@StringFormat.shape
def _string_format_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    placeholders = _text(ctx.attr("template")).count(_text(ctx.attr("placeholder")))
    if placeholders != len(ctx.input_shapes):
        raise ValueError("num placeholders in template and num inputs must match: "
                         f"{placeholders} vs. {len(ctx.input_shapes)}")
    return [tensor_shape.TensorShape([])]


@StringFormat.kernel("CPU")
def _string_format(ctx: OpKernelContext, *inputs: Any, template: Any, placeholder: Any, summarize: int) -> Any:
    pieces = _raw_text(template).split(_raw_text(placeholder))
    text = pieces[0] + "".join(summarize_value(value, summarize, print_v2=True) + piece
                               for value, piece in zip(inputs, pieces[1:]))
    return np.array(text.encode("utf-8", "surrogateescape"), dtype=object)


@tf_export("strings.format")
@add_dispatch_support
def string_format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
                  name: str | None = None) -> Tensor:
    """A scalar string: `template` with each `placeholder` replaced by a summary of one input tensor."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    inputs = [convert_to_tensor(t) for t in inputs]
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has {len(inputs)}. Please "
                         "ensure the number of placeholders in template matches inputs length.")
    return StringFormat(inputs, template=template, placeholder=placeholder, summarize=summarize, name=name)


PrintV2 = Op("PrintV2", inputs=["input: string"], attrs=["output_stream: string = 'stderr'", "end: string = '\\n'"],
             is_stateful=True)


@PrintV2.shape
def _print_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    rank = ctx.input_shape(0).ndims
    if rank is not None and rank != 0:
        raise ValueError(f"input must be a scalar, but has rank: {rank}")
    return []


_LOGGERS = {"log(info)": tf_logging.info, "log(warning)": tf_logging.warning, "log(error)": tf_logging.error}


@PrintV2.kernel("CPU")
def _print_v2(ctx: OpKernelContext, input: Any, output_stream: Any, end: Any) -> None:  # noqa: A002
    """The string, then `end`, to the named stream, logger or `file://` path (appended)."""
    stream, data = _text(output_stream), b"".join(v if isinstance(v, bytes) else str(v).encode()
                                                  for v in (np.asarray(input).item(), end))
    text = _text(data)
    if stream == "stdout" or stream == "stderr":  # the bytes as they are (TF writes a non-UTF-8 byte raw)
        out = sys.stdout if stream == "stdout" else sys.stderr
        buffer = getattr(out, "buffer", None)
        if buffer is None:  # a stream of text only (a test's capture)
            out.write(text)
        else:
            out.flush()
            buffer.write(data)
            buffer.flush()
        out.flush()
    elif stream in _LOGGERS:
        _LOGGERS[stream](text)
    elif stream.startswith("file://"):
        with open(stream[len("file://"):], "ab") as f:
            f.write(data)
    else:
        raise invalid_argument(ctx, f"{stream} is not a valid output stream")


def _placeholder_for(template: str) -> str:
    """'{}', lengthened with TF's seeded random digits until the template does not contain it."""
    placeholder = "{}"
    rng = random.Random(5)
    while placeholder in template:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def _stream_name(output_stream: Any) -> str | None:
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    if output_stream is sys.stdout:
        return "stdout"
    if output_stream is sys.stderr:
        return "stderr"
    for level, functions, name in ((tf_logging.INFO, (tf_logging.info,), "log(info)"),
                                   (tf_logging.WARN, (tf_logging.warning, tf_logging.warn), "log(warning)"),
                                   (tf_logging.ERROR, (tf_logging.error,), "log(error)")):
        if (isinstance(output_stream, int) and output_stream == level) or output_stream in functions:
            return name
    return None


@tf_export("print")
def print_v2(*inputs: Any, **kwargs: Any) -> Operation:
    """An op that prints `inputs` (tensors formatted numpy-like, Python values as pprint writes them) joined
    by `sep` and followed by `end`; in a graph it prints each time it runs."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    stream = _stream_name(output_stream)
    if stream is None:
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. Supported streams "
                         "are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. "
                         "File needs to be in the form of 'file://<filepath>'.")
    if (len(inputs) == 1 and isinstance(inputs[0], Tensor) and inputs[0].shape.ndims == 0
            and inputs[0].dtype == dtypes.string):
        formatted = inputs[0]
    else:
        ordered = [collections.OrderedDict(sorted(x.items())) if isinstance(x, collections.OrderedDict) else x
                   for x in inputs]
        tensor_free = nest.map_structure(lambda x: "" if tensor_util.is_tensor(x) else x, ordered)
        placeholder = _placeholder_for(" ".join(pprint.pformat(x) for x in tensor_free))
        tensors, templates = [], []
        for value in inputs:
            slots = []
            for leaf in nest.flatten(value):
                if isinstance(leaf, SparseTensor):
                    tensors.extend([leaf.indices, leaf.values, leaf.dense_shape])
                    slots.append(f"SparseTensor(indices={placeholder}, values={placeholder}, shape={placeholder})")
                elif tensor_util.is_tensor(leaf):
                    tensors.append(leaf)
                    slots.append(placeholder)
                else:
                    slots.append(leaf)
            templates.append(value if isinstance(value, str) else
                             pprint.pformat(nest.pack_sequence_as(value, slots)))
        template = sep.join(templates).replace(f"'{placeholder}'", placeholder)
        formatted = string_format(template, tensors, placeholder=placeholder, summarize=summarize,
                                  name=name + "_format" if name else None)
    return PrintV2(formatted, output_stream=stream, end=end, name=name)
