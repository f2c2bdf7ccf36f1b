"""Unicode strings as code points: UnicodeDecode(WithOffsets), UnicodeEncode and UnicodeScript, and the
`tf.strings` functions built on them that return RaggedTensors (unicode_decode/split and their _with_offsets
forms, unicode_encode, unicode_script, bytes_split).

Invariant: the kernels decode with Python's codecs for the three encodings TF's ops document (UTF-8, UTF-16-BE,
UTF-32-BE); a malformed sequence is the span the codec reports (the maximal invalid subpart, as ICU's), replaced
by one `replacement_char`, dropped ('ignore') or an InvalidArgumentError ('strict').
"""

from __future__ import annotations

import codecs
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import unicode_script_table
from tensorweave.ops.fill_ops import fill
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.ragged_tensor import RaggedTensor, segment_ids_to_row_splits
from tensorweave.ops.reduction_ops import reduce_prod
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_helpers import unary_shape
from tensorweave.ops.shape_ops import reshape, shape, size
from tensorweave.ops.string_ops import StringSplit, _text, check_replacement_char
from tensorweave.platform.tf_export import tf_export

_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_ERRORS = "errors: {'strict', 'replace', 'ignore'} = 'replace'"
_MARK = 0xDC00  # a decoded lone surrogate DC00+n marks an invalid span of n bytes: valid text never holds one


def _mark_invalid(error: UnicodeDecodeError) -> tuple[str, int]:
    return chr(_MARK + error.end - error.start), error.end


codecs.register_error("tensorweave.mark_invalid", _mark_invalid)


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), "<u4").astype(np.int32)


def _icu_codec(name: str) -> str | None:
    """Python's codec for an ICU converter name; ICU also takes names such as LATIN-9 for Python's latin9."""
    for candidate in (name, name.replace("-", "")):
        try:
            return codecs.lookup(candidate).name
        except LookupError:
            pass
    return None


def _with_default_order(codec: str, data: bytes) -> str:
    """ICU reads UTF-16 and UTF-32 without a byte-order mark as big-endian (Python: as the machine's order)."""
    if codec == "utf-16" and data[:2] not in (codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE):
        return "utf-16-be"
    if codec == "utf-32" and data[:4] not in (codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE):
        return "utf-32-be"
    return codec


def _decode(ctx: OpKernelContext, input: Any, input_encoding: Any, errors: Any,  # noqa: A002
            replacement_char: int, replace_control_characters: bool) -> tuple:
    """(row_splits, code points, byte offset of each) over the flattened strings."""
    check_replacement_char(ctx, replacement_char)
    name, mode = _text(input_encoding), _text(errors)
    codec = _ENCODINGS.get(name.upper())
    if codec is None:  # other ICU converters (ISO-8859-1, windows-1252, UTF-7 ...): Python's codec stands in
        codec = _icu_codec(name)
        if codec is None:
            raise invalid_argument(ctx, f"Could not create converter for input encoding: {name}")
    texts = [s.decode(_with_default_order(codec, s), "tensorweave.mark_invalid")
             for s in np.asarray(input, object).reshape(-1)]
    points = _code_points("".join(texts))
    lengths = np.fromiter((len(t) for t in texts), np.int64, len(texts))
    invalid = (points >= _MARK) & (points <= _MARK + 4)
    if mode == "strict" and invalid.any():
        raise invalid_argument(ctx, "Invalid formatting on input string")
    if codec == "utf-8":
        width = 1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)
    elif codec in ("utf-16-be", "utf-32-be"):
        width = (4 if codec == "utf-32-be" else 2 + 2 * (points >= 0x10000)) * np.ones_like(points)
    else:
        width = np.array([len(chr(p).encode(codec, "surrogatepass")) if not _MARK <= p <= _MARK + 4 else 0
                          for p in points.tolist()], np.int32).reshape(points.shape)
    width = np.where(invalid, points - _MARK, width)
    rows = np.repeat(np.arange(len(texts)), lengths)
    splits = np.concatenate([[0], np.cumsum(lengths)])
    ends = np.cumsum(width)
    offsets = ends - width - np.concatenate([[0], ends])[splits[:-1]][rows]
    if replace_control_characters:
        points = np.where(points < 0x20, replacement_char, points)
    if mode == "ignore":
        keep = ~invalid
        splits = np.concatenate([[0], np.cumsum(np.bincount(rows[keep], minlength=len(texts)))])
        return splits, points[keep], offsets[keep]
    return splits, np.where(invalid, replacement_char, points), offsets


_DECODE_ATTRS = ["input_encoding: string", _ERRORS, "replacement_char: int = 65533",
                 "replace_control_characters: bool = false", "Tsplits: {int32, int64} = DT_INT64"]
UnicodeDecode = Op("UnicodeDecode", inputs=["input: string"], outputs=["row_splits: Tsplits", "char_values: int32"],
                   attrs=_DECODE_ATTRS)
UnicodeDecodeWithOffsets = Op("UnicodeDecodeWithOffsets", inputs=["input: string"],
                              outputs=["row_splits: Tsplits", "char_values: int32", "char_to_byte_starts: int64"],
                              attrs=_DECODE_ATTRS)
NotDifferentiable("UnicodeDecode")
NotDifferentiable("UnicodeDecodeWithOffsets")


@UnicodeDecode.shape
def _unicode_decode_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    n = ctx.input_shape(0).num_elements()
    splits = tensor_shape.TensorShape([None if n is None else n + 1])
    return [splits] + [tensor_shape.TensorShape([None])] * (len(ctx.op_def.output_args) - 1)


UnicodeDecodeWithOffsets.shape(_unicode_decode_shape)


@UnicodeDecode.kernel("CPU")
def _unicode_decode(ctx: OpKernelContext, input: Any, input_encoding: Any, errors: Any,  # noqa: A002
                    replacement_char: int, replace_control_characters: bool, Tsplits: dtypes.DType) -> list:  # noqa: N803
    splits, points, _ = _decode(ctx, input, input_encoding, errors, replacement_char, replace_control_characters)
    return [splits.astype(Tsplits.as_numpy_dtype), points.astype(np.int32)]


@UnicodeDecodeWithOffsets.kernel("CPU")
def _unicode_decode_with_offsets(ctx: OpKernelContext, input: Any, input_encoding: Any, errors: Any,  # noqa: A002
                                 replacement_char: int, replace_control_characters: bool,
                                 Tsplits: dtypes.DType) -> list:  # noqa: N803
    splits, points, offsets = _decode(ctx, input, input_encoding, errors, replacement_char,
                                      replace_control_characters)
    return [splits.astype(Tsplits.as_numpy_dtype), points.astype(np.int32), offsets.astype(np.int64)]


UnicodeEncode = Op("UnicodeEncode", inputs=["input_values: int32", "input_splits: Tsplits"],
                   outputs=["output: string"],
                   # TF's registry lists UnicodeEncode's error modes in this order (the decoders' in _ERRORS')
                   attrs=["errors: {'ignore', 'replace', 'strict'} = 'replace'", "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
                          "replacement_char: int = 65533", "Tsplits: {int32, int64} = DT_INT64"])
NotDifferentiable("UnicodeEncode")


@UnicodeEncode.shape
def _unicode_encode_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    n = ctx.input_shape(1).with_rank(1).dims[0].value
    return [tensor_shape.TensorShape([None if n is None else n - 1])]


@UnicodeEncode.kernel("CPU")
def _unicode_encode(ctx: OpKernelContext, input_values: Any, input_splits: Any, errors: Any, output_encoding: Any,
                    replacement_char: int, Tsplits: dtypes.DType) -> Any:  # noqa: N803
    """Row i's code points encoded; an out-of-range code point or surrogate replaced, dropped or an error."""
    check_replacement_char(ctx, replacement_char)
    mode, codec = _text(errors), _ENCODINGS[_text(output_encoding)]
    points, splits = np.asarray(input_values, np.int64), np.asarray(input_splits, np.int64)
    bad = (points < 0) | (points > 0x10FFFF) | ((points >= 0xD800) & (points <= 0xDFFF))
    if mode == "strict" and bad.any():
        raise invalid_argument(ctx, "Code point is out of range for Unicode, or is a surrogate.")
    if mode == "ignore":
        rows = np.repeat(np.arange(len(splits) - 1), np.diff(splits))
        splits = np.concatenate([[0], np.cumsum(np.bincount(rows[~bad], minlength=len(splits) - 1))])
        points = points[~bad]
    else:
        points = np.where(bad, replacement_char, points)
    text = points.astype("<u4").tobytes().decode("utf-32-le")
    rows = [text[lo:hi].encode(codec) for lo, hi in zip(splits[:-1].tolist(), splits[1:].tolist())]
    return np.array(rows, dtype=object)


UnicodeScript = Op("UnicodeScript", inputs=["input: int32"], outputs=["output: int32"])
UnicodeScript.shape(unary_shape)
NotDifferentiable("UnicodeScript")
_SCRIPT_STARTS = np.asarray(unicode_script_table.RANGE_STARTS, np.int64)
_SCRIPT_CODES = np.asarray(unicode_script_table.SCRIPT_CODES, np.int32)


@UnicodeScript.kernel("CPU")
def _unicode_script(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    """ICU's script code of each code point (-1 outside Unicode)."""
    points = np.asarray(input, np.int64)
    codes = _SCRIPT_CODES[np.searchsorted(_SCRIPT_STARTS, np.clip(points, 0, 0x10FFFF), "right") - 1]
    return np.where((points < 0) | (points > 0x10FFFF), -1, codes).astype(np.int32)


# -- tf.strings -------------------------------------------------------------------------------------------------

def _ragged_rows(input: Tensor, splits: Tensor, values: Any) -> Any:  # noqa: A002
    """Per-string rows over the flattened `input`, shaped back as `input`: a dense vector for a scalar, else a
    RaggedTensor whose leading dimensions are uniform ragged ones, as TF's."""
    rank = input.shape.ndims
    if rank == 0:
        return values
    result = RaggedTensor.from_row_splits(values, splits, validate=False)
    dims = shape(input, out_type=splits.dtype)
    for axis in reversed(range(1, rank)):
        lengths = fill(reshape(reduce_prod(dims[:axis]), [1]), dims[axis])
        outer_splits = RaggedTensor.from_row_lengths(result, lengths, validate=False).row_splits
        result = RaggedTensor(result, outer_splits, internal=True, static_row_length=input.shape.dims[axis].value)
    return result


def _check_encoding(encoding: str) -> None:
    if not isinstance(encoding, str) or not encoding:
        raise ValueError(f"input_encoding must be a non-empty string, got {encoding!r}")


@tf_export("strings.unicode_decode")
def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002 - TF's name
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: str | None = None) -> Any:
    """The code points of each string: a vector for a scalar input, else a RaggedTensor one ragged dimension
    deeper than `input`."""
    return _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, False,
                           name, "UnicodeDecode")


@tf_export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                                replacement_char: int = 65533, replace_control_characters: bool = False,
                                name: str | None = None) -> tuple:
    """unicode_decode's code points and the byte offset where each character starts in its string."""
    return _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, True,
                           name, "UnicodeDecodeWithOffsets")


def _unicode_decode(input: Any, input_encoding: str, errors: str, replacement_char: int,  # noqa: A002
                    replace_control_characters: bool, with_offsets: bool, name: str | None, scope: str) -> Any:
    _check_encoding(input_encoding)
    with name_scope(name, scope, [input]):
        if isinstance(input, RaggedTensor):  # TF's: each flat string decoded, under the input's partitions
            decoded = _unicode_decode(input.flat_values, input_encoding, errors, replacement_char,
                                      replace_control_characters, with_offsets, None, scope)
            if with_offsets:
                return input.with_flat_values(decoded[0]), input.with_flat_values(decoded[1])
            return input.with_flat_values(decoded)
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        op = UnicodeDecodeWithOffsets if with_offsets else UnicodeDecode
        outputs = op(input, input_encoding=input_encoding, errors=errors, replacement_char=replacement_char,
                     replace_control_characters=replace_control_characters)
        splits, values = outputs[0], outputs[1]
        codes = _ragged_rows(input, splits, values)
        return (codes, _ragged_rows(input, splits, outputs[2])) if with_offsets else codes


@tf_export("strings.unicode_split")
def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002 - TF's name
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Each string cut into its characters (each a string in `input_encoding`)."""
    with name_scope(name, "UnicodeSplit", [input]):
        codes = unicode_decode(input, input_encoding, errors, replacement_char)
        return _encode_each(codes, input_encoding)


@tf_export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                               replacement_char: int = 65533, name: str | None = None) -> tuple:
    """unicode_split's characters and the byte offset where each starts in its string."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        codes, offsets = unicode_decode_with_offsets(input, input_encoding, errors, replacement_char)
        return _encode_each(codes, input_encoding), offsets


def _encode_each(codes: Any, encoding: str) -> Any:
    """Each code point as a one-character string."""
    flat = codes.flat_values if isinstance(codes, RaggedTensor) else codes
    one_each = UnicodeEncode(flat, _one_row_each(flat), errors="replace", output_encoding=encoding)
    return codes.with_flat_values(one_each) if isinstance(codes, RaggedTensor) else one_each


def _one_row_each(values: Tensor) -> Tensor:
    """The row_splits of one row per value: 0, 1, ..., len(values)."""
    return tf_range(size(values, out_type=dtypes.int64) + 1, dtype=dtypes.int64)


@tf_export("strings.unicode_encode")
def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",  # noqa: A002 - TF's name
                   replacement_char: int = 65533, name: str | None = None) -> Tensor:
    """Each innermost row of code points as one string: a RaggedTensor or dense tensor of rank k gives a
    string tensor of rank k - 1."""
    with name_scope(name, "UnicodeEncode", [input]):
        if isinstance(input, RaggedTensor):
            if input.ragged_rank > 1:
                return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
            return UnicodeEncode(input.values, input.row_splits, errors=errors, output_encoding=output_encoding,
                                 replacement_char=replacement_char)
        input = convert_to_tensor(input, dtype=dtypes.int32, name="input")  # noqa: A001
        rank = input.shape.ndims
        if rank is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        dims = shape(input, out_type=dtypes.int64)
        flat = reshape(input, [-1])
        splits = tf_range(0, size(flat, out_type=dtypes.int64) + 1, dims[-1])
        encoded = UnicodeEncode(flat, splits, errors=errors, output_encoding=output_encoding,
                                replacement_char=replacement_char)
        return reshape(encoded, shape(input)[:-1])


@tf_export("strings.unicode_script")
@add_dispatch_support
def unicode_script(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's name
    """ICU's UScriptCode of each code point."""
    return UnicodeScript(input, name=name)


@tf_export("strings.bytes_split")
def bytes_split(input: Any, name: str | None = None) -> Any:  # noqa: A002 - TF's name
    """Each string cut into its single bytes: a vector for a scalar, else one ragged dimension more."""
    with name_scope(name, "StringsByteSplit", [input]):
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        flat = reshape(input, [-1])
        indices, values, dense_shape = StringSplit(flat, "", skip_empty=False)
        rowids = indices[:, 0]
        splits = segment_ids_to_row_splits(rowids, num_segments=dense_shape[0])
        return _ragged_rows(input, splits, values)
