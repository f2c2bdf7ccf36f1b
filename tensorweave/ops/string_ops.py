"""String ops (`tf.strings`, TF1's top-level string names, `tf.io`'s decoders): joining, slicing, case, regexes,
number conversion and formatting, hashing to buckets, base64, raw bytes and CSV records, Unicode transcoding.

String tensors are NumPy object arrays of `bytes`. TF's string kernels work one string at a time, so these map a
per-string function over the array (`_per_string`); the outputs keep the input's shape, 0-d included.
Regexes are RE2's in TF and Python's `re` here: the patterns both accept mean the same, but RE2-only syntax
(`\\C`, `\\pN`, `\\z`) fails here and Python-only syntax (backreferences, lookaround) runs here where TF refuses
it; RE2's rewrite strings (`\\0`-`\\9`, `\\\\`) are translated, and an invalid pattern reports `re`'s reason.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import codecs
import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops import constant_ops, sequence_ops, shape_ops
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.ragged_tensor import RaggedTensor
from tensorweave.ops.reduction_ops import _deprecated_alias, _reduction_shape
from tensorweave.ops.shape_helpers import (
    broadcast_shapes,
    unary_shape,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
)
from tensorweave.platform.tf_export import tf_export

_MASK64 = (1 << 64) - 1


def _per_string(fn: Callable, *arrays: Any, otype: Any = object) -> np.ndarray:
    """`fn` applied to each element (broadcast over `arrays`), as an array of `otype` of the broadcast shape."""
    out = np.asarray(np.frompyfunc(fn, len(arrays), 1)(*arrays), dtype=object)
    return out if otype is object else out.astype(otype)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


# -- StringJoin --------------------------------------------------------------------------------------

StringJoin = Op("StringJoin", inputs=["inputs: N * string"], outputs=["output: string"],
                attrs=["N: int >= 0", "separator: string = ''"])


@StringJoin.shape
def _string_join_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Scalars broadcast; every other input must have one shape (TF merges them, it does not broadcast)."""
    out = tensor_shape.TensorShape([])
    for shape in ctx.input_shapes:
        if shape.ndims != 0:
            out = shape if out.ndims == 0 else tensor_shape.merge_shapes(out, shape)
    return [out]


@StringJoin.kernel("CPU")
def _string_join(ctx: OpKernelContext, *inputs: Any, separator: Any) -> Any:
    shaped = [np.shape(x) for x in inputs if np.ndim(x)]
    for shape in shaped[1:]:
        if shape != shaped[0]:
            raise invalid_argument(ctx, f"Input shapes do not match: {tensor_shape.shape_string(shaped[0])} vs. "
                                        f"{tensor_shape.shape_string(shape)}")
    sep = separator.encode() if isinstance(separator, str) else separator
    return _per_string(lambda *parts: sep.join(parts), *inputs) if inputs else np.asarray(b"", dtype=object)


@tf_export("strings.join", "string_join")
@add_dispatch_support
def string_join(inputs: Sequence[Any], separator: str = "", name: str | None = None) -> Tensor:
    """The strings of `inputs` joined elementwise (scalars broadcast), `separator` between them."""
    return StringJoin(list(inputs), separator=separator, name=name)


# -- StringLength and Substr -------------------------------------------------------------------------

_UNIT = "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"

StringLength = Op("StringLength", inputs=["input: string"], outputs=["output: int32"], attrs=[_UNIT])
StringLength.shape(unary_shape)


def _utf8_starts(s: bytes) -> np.ndarray:
    """Byte offsets of the characters of UTF-8 `s` (every byte that is not a continuation byte), then len(s)."""
    raw = np.frombuffer(s, dtype=np.uint8)
    return np.append(np.flatnonzero((raw & 0xC0) != 0x80), len(s))


@StringLength.kernel("CPU")
def _string_length(ctx: OpKernelContext, input: Any, unit: Any) -> Any:  # noqa: A002 - TF's name
    if _text(unit) == "BYTE":
        return _per_string(len, input, otype=np.int32)
    return _per_string(lambda s: len(_utf8_starts(s)) - 1, input, otype=np.int32)


@tf_export("strings.length")
@add_dispatch_support
def string_length(input: Any, name: str | None = None, unit: str = "BYTE") -> Tensor:  # noqa: A002
    """The length of each string, in bytes or (unit="UTF8_CHAR") UTF-8 characters."""
    return StringLength(input, unit=unit, name=name)


Substr = Op("Substr", inputs=["input: string", "pos: T", "len: T"], outputs=["output: string"],
            attrs=["T: {int32, int64}", _UNIT])


@Substr.shape
def _substr_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """`pos` and `len` have one shape, which broadcasts with the strings'. TF compares their dimensions'
    values, so an unknown one matches only another unknown one."""
    pos, length = ctx.input_shape(1), ctx.input_shape(2)
    if length.ndims is not None:
        with_rank(pos, length.ndims)
    if pos.ndims is not None and length.ndims is not None and pos.as_list() != length.as_list():
        raise ValueError(f"pos and len shapes must match: {tensor_shape.shape_string(pos, '?')} vs. "
                         f"{tensor_shape.shape_string(length, '?')}")
    return [broadcast_shapes(ctx.input_shape(0), pos)]


@Substr.kernel("CPU")
def _substr(ctx: OpKernelContext, input: Any, pos: Any, len: Any, unit: Any) -> Any:  # noqa: A002
    by_char = _text(unit) == "UTF8_CHAR"
    strings, pos, count = np.broadcast_arrays(input, pos, len)
    flat_pos, flat_count = pos.reshape(-1), count.reshape(-1)

    def cut(s: bytes, p: int, n: int, index: int) -> bytes:
        starts = _utf8_starts(s) if by_char else None
        size = builtins.len(starts) - 1 if by_char else builtins.len(s)
        if not -size <= p <= size:
            shown = "" if by_char else f" {s!r}"
            raise invalid_argument(ctx, f"pos {p} out of range for string{shown} at index {index}")
        p = p + size if p < 0 else p
        end = size if n < 0 else min(p + n, size)
        return s[starts[p]:starts[end]] if by_char else s[p:end]

    out = _per_string(cut, strings.reshape(-1), flat_pos.astype(object), flat_count.astype(object),
                      np.arange(strings.size))
    return out.reshape(strings.shape)


@tf_export("strings.substr", "substr")
@add_dispatch_support
def substr(input: Any, pos: Any, len: Any, name: str | None = None, unit: str = "BYTE") -> Tensor:  # noqa: A002
    """`len` bytes (or UTF-8 characters) of each string from `pos` (negative counts from the end)."""
    return Substr(input, pos, len, unit=unit, name=name)


# -- Regexes -----------------------------------------------------------------------------------------

def _attr_or_scalar(value: Any) -> bytes:
    """A string attr, or the bytes of a scalar string tensor."""
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.encode() if isinstance(value, str) else value


# Python's `re` accepts these; RE2 does not (lookarounds; backreferences and \Z are escapes it lacks).
_RE2_REJECTS = re.compile(rb"\\[1-9Z]|\\.|\(\?<?[=!]|\{\d+(?:,\d*)?\}", re.DOTALL)
_RE2_MAX_REPEAT = 1000


def _repetition_at(pattern: str, start: int) -> int:
    """The end of the repetition operator (`*`, `+`, `?` or `{n,m}`, maybe lazy) that starts at `start`."""
    end = pattern.index("}", start) + 1 if pattern[start] == "{" else start + 1
    return end + 1 if pattern[end:end + 1] == "?" else end


def _re2_error(pattern: str, error: re.error) -> str:
    """RE2's parse error (what TF reports) for the pattern Python's `re` rejected with `error`."""
    msg, pos = error.msg, error.pos or 0
    if msg.startswith("missing ), unterminated subpattern"):
        return f"missing ): {pattern}"
    if msg == "unbalanced parenthesis":
        return f"unexpected ): {pattern}"
    if msg == "unterminated character set":
        return f"missing ]: {pattern[pos:]}"
    if msg == "nothing to repeat":
        return f"no argument for repetition operator: {pattern[pos:_repetition_at(pattern, pos)]}"
    if msg == "multiple repeat":
        start = pos - 1
        if pattern[start] == "?" and start > 0 and pattern[start - 1] in "*+?}":
            start -= 1
        if pattern[start] == "}":
            start = pattern.rindex("{", 0, start)
        return f"bad repetition operator: {pattern[start:_repetition_at(pattern, pos)]}"
    if msg == "min repeat greater than max repeat":
        return f"invalid repetition size: {pattern[pattern.rindex('{', 0, pos + 1):pattern.index('}', pos) + 1]}"
    if msg == "bad escape (end of pattern)":
        return "trailing \\"
    if msg.startswith("bad character range "):
        return f"invalid character class range: {msg[len('bad character range '):]}"
    if msg.startswith("bad escape \\p") and pattern[pos + 2:pos + 3] == "{":
        return f"invalid character class range: {pattern[pos:pattern.find('}', pos) + 1 or None]}"
    if msg.startswith(("bad escape \\", "invalid group reference")):
        start = pos if pattern[pos] == "\\" else pos - 1
        return f"invalid escape sequence: {pattern[start:start + 2]}"
    if msg == "missing -, : or )":
        return f"invalid perl operator: {pattern[pattern.rindex('(?', 0, pos + 1):]}"
    return msg


_RE2_CATEGORIES = ("C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd",
                   "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl",
                   "Zp", "Zs", "Any")
_UNICODE_CLASS = re.compile(r"\\(?:([pP])(\{\^?([A-Za-z]+)\}|[A-Za-z])|.)|\[|\]", re.DOTALL)


@functools.cache
def _general_categories() -> np.ndarray:
    """The general category of every code point, as an array of two-letter strings."""
    return np.array([unicodedata.category(chr(c)) for c in range(0x110000)])


@functools.cache
def _category_ranges(name: str, negated: bool) -> str:
    """A Unicode general category (RE2's one-letter groups and Any too), or all other code points, as `re`
    character-class ranges."""
    categories = _general_categories()
    if name == "Any":
        inside = np.ones(categories.shape, bool)
    elif name == "C":  # RE2's C: Cc, Cf, Co and Cs (not unassigned code points)
        inside = np.isin(categories, ["Cc", "Cf", "Co", "Cs"])
    else:
        inside = np.char.startswith(categories, name) if len(name) == 1 else categories == name
    edges = np.flatnonzero(np.diff(np.concatenate([[False], inside != negated, [False]]).astype(np.int8)))
    return "".join(f"\\U{a:08x}" + (f"-\\U{b - 1:08x}" if b - 1 > a else "") for a, b in zip(edges[::2], edges[1::2]))


def _unicode_classes(pattern: str) -> str:
    """RE2's Unicode classes of general categories (\\pL, \\p{Lu}, \\PN, \\p{^L}, also inside [...]) as `re`
    character-class ranges; other names are left for `re` to refuse (as RE2 refuses an unknown name; RE2's
    scripts, \\p{Greek}, are not built)."""
    depth = 0

    def replace(m: re.Match) -> str:
        nonlocal depth
        text = m.group()
        if text == "[":
            depth += 1
        elif text == "]":
            depth = max(depth - 1, 0)
        name = m.group(3) or (m.group(2) if m.group(2) and len(m.group(2)) == 1 else None)
        if not m.group(1) or name not in _RE2_CATEGORIES:
            return text
        ranges = _category_ranges(name, (m.group(1) == "P") != m.group(2).startswith("{^"))
        return ranges if depth else f"[{ranges}]"

    return _UNICODE_CLASS.sub(replace, pattern)


def _compile(ctx: OpKernelContext, pattern: Any) -> re.Pattern:
    """The pattern compiled by Python's `re`, refused with RE2's message where RE2 (TF's engine) refuses it."""
    pattern = _attr_or_scalar(pattern)
    text = pattern.decode(errors="replace")
    try:
        # RE2 matches UTF-8 text by code point ('.' takes a whole character) with ASCII classes (\w, \d, \s)
        compiled = re.compile(_unicode_classes(_utf8(pattern)), re.ASCII)
    except re.error as e:
        raise invalid_argument(ctx, f"Invalid pattern: {text}, error: {_re2_error(text, e)}") from None
    for match in _RE2_REJECTS.finditer(pattern):
        token = match.group().decode(errors="replace")
        if token.startswith("{"):
            if max(int(n) for n in re.findall(r"\d+", token)) > _RE2_MAX_REPEAT:
                raise invalid_argument(ctx, f"Invalid pattern: {text}, error: invalid repetition size: {token}")
        elif token.startswith("(?"):
            raise invalid_argument(ctx, f"Invalid pattern: {text}, error: invalid perl operator: {token[:3]}")
        elif token[1] in "123456789Z":
            raise invalid_argument(ctx, f"Invalid pattern: {text}, error: invalid escape sequence: {token}")
    return compiled


def _utf8(value: bytes) -> str:
    """Bytes as the text RE2 sees (invalid bytes kept, as lone surrogates, to be encoded back as they were)."""
    return value.decode("utf-8", "surrogateescape")


def _rewrite(ctx: OpKernelContext, rewrite: Any) -> tuple[str, int]:
    r"""RE2's rewrite string in `re.sub`'s terms (`\0`-`\9` name groups, `\\` is a backslash), and the
    highest group it names."""
    rewrite = _attr_or_scalar(rewrite)
    groups = [0]

    def escape(m: re.Match) -> str:
        if m.group(1) == "\\":
            return "\\\\"
        if m.group(1).isdigit():
            groups.append(int(m.group(1)))
            return "\\g<" + m.group(1) + ">"
        raise invalid_argument(ctx, f"Invalid rewrite pattern: {rewrite.decode(errors='replace')}")

    return re.sub(r"\\(.?)", escape, _utf8(rewrite), flags=re.DOTALL), max(groups)


def _regex_replace(ctx: OpKernelContext, input: Any, pattern: Any, rewrite: Any,  # noqa: A002
                   replace_global: bool) -> Any:
    compiled = _compile(ctx, pattern)
    template, highest = _rewrite(ctx, rewrite)
    if highest > compiled.groups:  # RE2 refuses the rewrite and replaces nothing
        return np.array(input, dtype=object)
    count = 0 if replace_global else 1
    return _per_string(lambda s: compiled.sub(template, _utf8(s), count=count).encode("utf-8", "surrogateescape"),
                       input)


RegexReplace = Op("RegexReplace", inputs=["input: string", "pattern: string", "rewrite: string"],
                  outputs=["output: string"], attrs=["replace_global: bool = true"])


@RegexReplace.shape
def _regex_replace_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    with_rank(ctx.input_shape(2), 0)
    return [ctx.input_shape(0)]


RegexReplace.kernel("CPU")(_regex_replace)

StaticRegexReplace = Op("StaticRegexReplace", inputs=["input: string"], outputs=["output: string"],
                        attrs=["pattern: string", "rewrite: string", "replace_global: bool = true"])
StaticRegexReplace.shape(unary_shape)
StaticRegexReplace.kernel("CPU")(_regex_replace)


@tf_export("strings.regex_replace", "regex_replace")
@add_dispatch_support
def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> Tensor:
    """Each match of `pattern` replaced by `rewrite` (the first only unless `replace_global`); a Python
    pattern and rewrite make the static op, as in TF."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return StaticRegexReplace(input, pattern=pattern, rewrite=rewrite, replace_global=replace_global, name=name)
    return RegexReplace(input, pattern, rewrite, replace_global=replace_global, name=name)


def _regex_full_match(ctx: OpKernelContext, input: Any, pattern: Any) -> Any:  # noqa: A002
    compiled = _compile(ctx, pattern)
    return _per_string(lambda s: compiled.fullmatch(_utf8(s)) is not None, input, otype=bool)


RegexFullMatch = Op("RegexFullMatch", inputs=["input: string", "pattern: string"], outputs=["output: bool"])


@RegexFullMatch.shape
def _regex_full_match_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return [ctx.input_shape(0)]


RegexFullMatch.kernel("CPU")(_regex_full_match)

StaticRegexFullMatch = Op("StaticRegexFullMatch", inputs=["input: string"], outputs=["output: bool"],
                          attrs=["pattern: string"])
StaticRegexFullMatch.shape(unary_shape)
StaticRegexFullMatch.kernel("CPU")(_regex_full_match)


@tf_export("strings.regex_full_match")
@add_dispatch_support
def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Whether each whole string matches `pattern` (a Python pattern makes the static op, as in TF)."""
    if isinstance(pattern, (str, bytes)):
        return StaticRegexFullMatch(input, pattern=pattern, name=name)
    return RegexFullMatch(input, pattern, name=name)


# -- Strip and case ----------------------------------------------------------------------------------

StringStrip = Op("StringStrip", inputs=["input: string"], outputs=["output: string"])
StringStrip.shape(unary_shape)


@StringStrip.kernel("CPU")
def _string_strip(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return _per_string(bytes.strip, input)  # ASCII whitespace, as absl's


@tf_export("strings.strip", "string_strip")
@add_dispatch_support
def string_strip(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string without its leading and trailing ASCII whitespace."""
    return StringStrip(input, name=name)


def _case_kernel(ascii_fn: Callable, text_fn: Callable) -> Callable:
    """ASCII letters only without an encoding; every letter (Unicode's full case mapping) for "utf-8"."""
    def kernel(ctx: OpKernelContext, input: Any, encoding: Any) -> Any:  # noqa: A002
        encoding = _text(encoding)
        if encoding == "":
            return _per_string(ascii_fn, input)
        if encoding.lower() != "utf-8":
            raise invalid_argument(ctx, f"only utf-8 or '' (no encoding) is supported, received {encoding}")
        return _per_string(lambda s: text_fn(s.decode("utf-8", "replace")).encode(), input)
    return kernel


StringLower = Op("StringLower", inputs=["input: string"], outputs=["output: string"], attrs=["encoding: string = ''"])
StringLower.shape(unary_shape)
StringLower.kernel("CPU")(_case_kernel(bytes.lower, str.lower))
StringUpper = Op("StringUpper", inputs=["input: string"], outputs=["output: string"], attrs=["encoding: string = ''"])
StringUpper.shape(unary_shape)
StringUpper.kernel("CPU")(_case_kernel(bytes.upper, str.upper))


@tf_export("strings.lower")
@add_dispatch_support
def string_lower(input: Any, encoding: str = "", name: str | None = None) -> Tensor:  # noqa: A002
    return StringLower(input, encoding=encoding, name=name)


@tf_export("strings.upper")
@add_dispatch_support
def string_upper(input: Any, encoding: str = "", name: str | None = None) -> Tensor:  # noqa: A002
    return StringUpper(input, encoding=encoding, name=name)


# -- StringToNumber ----------------------------------------------------------------------------------

StringToNumber = Op("StringToNumber", inputs=["string_tensor: string"], outputs=["output: out_type"],
                    attrs=["out_type: {float, double, int32, int64, uint32, uint64} = DT_FLOAT"])
StringToNumber.shape(unary_shape)

_INTEGER_TEXT = re.compile(rb"\s*[+-]?[0-9]+\s*")
_HEX_FLOAT_TEXT = re.compile(rb"\s*[+-]?0[xX]")


def parse_number(text: bytes, dtype: np.dtype) -> Any:
    """`text` as a number of `dtype` as TF's safe_strto* read it (surrounding whitespace allowed; floats as
    strtod: inf, nan, hex), or None where it is not one."""
    if dtype.kind in "iu":
        if _INTEGER_TEXT.fullmatch(text) is None:
            return None
        value = int(text)
        info = np.iinfo(dtype)
        return value if info.min <= value <= info.max else None
    if b"_" in text:  # Python's float() reads digit separators; strtod does not
        return None
    try:
        value = float.fromhex(text.decode()) if _HEX_FLOAT_TEXT.match(text) else float(text)
    except (ValueError, UnicodeDecodeError):
        return None
    with np.errstate(over="ignore"):
        return dtype.type(value)


@StringToNumber.kernel("CPU")
def _string_to_number(ctx: OpKernelContext, string_tensor: Any, out_type: dtypes.DType) -> Any:
    dtype = np.dtype(out_type.as_numpy_dtype)

    def convert(text: bytes) -> Any:
        value = parse_number(text, dtype)
        if value is None:
            raise invalid_argument(ctx, "StringToNumberOp could not correctly convert string: "
                                        f"{text.decode(errors='replace')}")
        return value

    return _per_string(convert, string_tensor, otype=dtype)


@tf_export("strings.to_number", "string_to_number")
def string_to_number(string_tensor: Any = None, out_type: Any = dtypes.float32, name: str | None = None,
                     input: Any = None) -> Tensor:  # noqa: A002
    """Each string parsed as a number of `out_type` (`input` is the deprecated name of `string_tensor`)."""
    string_tensor = _deprecated_alias("input", input, "string_tensor", string_tensor)
    return StringToNumber(string_tensor, out_type=out_type, name=name)


# -- AsString ----------------------------------------------------------------------------------------

AsString = Op("AsString", inputs=["input: T"], outputs=["output: string"],
              attrs=["T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
                     "complex64, complex128, bool, variant, string}",
                     "precision: int = -1", "scientific: bool = false", "shortest: bool = false", "width: int = -1",
                     "fill: string = ''"])
AsString.shape(unary_shape)


_PRINTF_FLAGS = re.compile(r"%([-+ #0]*)(\d*)")


def _printf_nonfinite(value: float, spec: str) -> bytes:
    """C's printf of a NaN or infinity: its sign ("-nan" with the sign bit), padded with spaces even with the
    `0` flag (Python pads with zeros and drops the NaN's sign)."""
    flags, width = _PRINTF_FLAGS.match(spec).groups()
    sign = "-" if np.signbit(value) else "+" if "+" in flags else " " if " " in flags else ""
    text = sign + ("nan" if np.isnan(value) else "inf")
    return (text.ljust if "-" in flags else text.rjust)(int(width or 0)).encode()


def _printf(values: Any, spec: str) -> np.ndarray:
    """printf's `spec` applied to each value, as C's printf formats it."""
    if values.dtype.kind != "f":
        return _per_string(lambda v: (spec % v).encode(), values.astype(object))
    return _per_string(lambda v: (spec % v).encode() if np.isfinite(v) else _printf_nonfinite(v, spec),
                       values.astype(np.float64).astype(object))


@AsString.kernel("CPU")
def _as_string(ctx: OpKernelContext, input: Any, T: dtypes.DType, precision: int, scientific: bool,  # noqa: A002, N803
               shortest: bool, width: int, fill: Any) -> Any:
    fill = _text(fill)
    if scientific and shortest:
        raise invalid_argument(ctx, "Cannot select both scientific and shortest notation")
    if len(fill) > 1:
        raise invalid_argument(ctx, "Fill string must be one or fewer characters")
    if fill and fill not in " +-0#":
        raise invalid_argument(ctx, f'Fill argument not supported: "{fill}"')
    spec = "%" + fill + (str(width) if width > -1 else "")
    kind = np.dtype(input.dtype).kind
    if kind in "fcV" or input.dtype == np.float16:
        spec += (f".{precision}" if precision > -1 else "") + ("g" if shortest else "e" if scientific else "f")
    elif precision > -1:
        raise invalid_argument(ctx, f"precision not supported for datatype {dtypes.type_string(T)}")
    elif scientific or shortest:
        raise invalid_argument(ctx, "scientific and shortest format not supported for datatype "
                                    f"{dtypes.type_string(T)}")
    if kind == "b":
        return np.where(input, b"true", b"false").astype(object)
    if kind == "O":
        return _per_string(lambda s: ((spec + "s") % s.decode("latin-1")).encode("latin-1"), input)
    if kind == "c":
        real, imag = _printf(input.real, spec), _printf(input.imag, spec)
        return _per_string(lambda r, i: b"(" + r + b"," + i + b")", real, imag)
    return _printf(input, spec if kind in "fV" or input.dtype == np.float16 else spec + "d")


@tf_export("strings.as_string", "as_string", "dtypes.as_string")
@add_dispatch_support
def as_string(input: Any, precision: int = -1, scientific: bool = False, shortest: bool = False,  # noqa: A002
              width: int = -1, fill: str = "", name: str | None = None) -> Tensor:
    """Each element as text, formatted as C's printf with TF's options."""
    return AsString(input, precision=precision, scientific=scientific, shortest=shortest, width=width, fill=fill,
                    name=name)


# -- ReduceJoin --------------------------------------------------------------------------------------

ReduceJoin = Op("ReduceJoin", inputs=["inputs: string", "reduction_indices: int32"], outputs=["output: string"],
                attrs=["keep_dims: bool = false", "separator: string = ''"])
ReduceJoin.shape(_reduction_shape)


@ReduceJoin.kernel("CPU")
def _reduce_join(ctx: OpKernelContext, inputs: Any, reduction_indices: Any, keep_dims: bool, separator: Any) -> Any:
    """Joins in the order of `reduction_indices` with the first listed axis varying fastest, as TF's."""
    rank = np.ndim(inputs)
    axes: list[int] = []
    for axis in np.asarray(reduction_indices).reshape(-1).tolist():
        if not -rank <= axis < rank:
            raise errors.OutOfRangeError(ctx.node_def, None, f"Invalid reduction dimension {axis} for input with "
                                                             f"{rank} dimension(s)")
        if axis % rank in axes:
            raise invalid_argument(ctx, f"Duplicate reduction dimension {axis % rank}")
        axes.append(axis % rank)
    kept = [a for a in range(rank) if a not in axes]
    order = np.transpose(inputs, kept + axes[::-1])
    rows = order.reshape(order.shape[:len(kept)] + (-1,))
    sep = separator.encode() if isinstance(separator, str) else separator
    flat = rows.reshape(int(np.prod(rows.shape[:-1])), rows.shape[-1])
    joined = np.empty(flat.shape[0], dtype=object)
    joined[:] = [sep.join(row) for row in flat]  # one join per output string
    joined = joined.reshape(rows.shape[:-1])
    if keep_dims:
        joined = joined.reshape([1 if a in axes else n for a, n in enumerate(np.shape(inputs))])
    return joined


@tf_export("strings.reduce_join", "reduce_join")
@add_dispatch_support
def reduce_join(inputs: Any, axis: Any = None, keep_dims: Any = None, separator: str = "", name: str | None = None,
                reduction_indices: Any = None, keepdims: Any = None) -> Tensor:
    """The strings joined across `axis` (all axes when None: the whole tensor in row-major order)."""
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keep_dims = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(None, "ReduceJoin", [inputs, axis]):
        inputs = convert_to_tensor(inputs)
        if axis is None:
            rank = inputs.shape.ndims
            axis = (constant_ops.constant(np.arange(rank - 1, -1, -1, dtype=np.int32)) if rank is not None
                    else sequence_ops.range(shape_ops.rank(inputs) - 1, -1, -1))
        return ReduceJoin(inputs, axis, keep_dims=keep_dims, separator=separator, name=name)


# -- Hashing to buckets ------------------------------------------------------------------------------
# FarmHash's Fingerprint64 (farmhashna's Hash64), SipHash-2-4 and TF's legacy Hash64 (a MurmurHash64A), on
# Python ints masked to 64 bits: the exact values TF's bucket ops take modulo num_buckets.

_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _fetch64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _rotate(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _MASK64


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = _shift_mix(((u ^ v) * mul) & _MASK64)
    b = _shift_mix(((v ^ a) * mul) & _MASK64)
    return (b * mul) & _MASK64


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _MASK64
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK64
        d = ((_rotate(a, 25) + b) * mul) & _MASK64
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _hash_len16(n + (_fetch32(s, 0) << 3), _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK64) * _K2) & _MASK64
    return _K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _MASK64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK64
    d = (_fetch64(s, n - 16) * _K2) & _MASK64
    return _hash_len16((_rotate((a + b) & _MASK64, 43) + _rotate(c, 30) + d) & _MASK64,
                       (a + _rotate((b + _K2) & _MASK64, 18) + c) & _MASK64, mul)


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _MASK64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK64
    d = (_fetch64(s, n - 16) * _K2) & _MASK64
    y = (_rotate((a + b) & _MASK64, 43) + _rotate(c, 30) + d) & _MASK64
    z = _hash_len16(y, (a + _rotate((b + _K2) & _MASK64, 18) + c) & _MASK64, mul)
    e = (_fetch64(s, 16) * mul) & _MASK64
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _MASK64
    h = ((z + _fetch64(s, n - 24)) * mul) & _MASK64
    return _hash_len16((_rotate((e + f) & _MASK64, 43) + _rotate(g, 30) + h) & _MASK64,
                       (e + _rotate((f + a) & _MASK64, 18) + g) & _MASK64, mul)


def _weak_hash_len32_with_seeds(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _MASK64
    b = _rotate((b + a + z) & _MASK64, 21)
    c = a
    a = (a + x + y) & _MASK64
    b = (b + _rotate(a, 44)) & _MASK64
    return (a + z) & _MASK64, (b + c) & _MASK64


def fingerprint64(s: bytes) -> int:
    """FarmHash's Fingerprint64 of `s`, as TF's StringToHashBucketFast hashes."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK64
    z = (_shift_mix((y * _K2 + 113) & _MASK64) * _K2) & _MASK64
    v = w = (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _MASK64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _MASK64, 37) * _K1) & _MASK64
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _MASK64, 42) * _K1) & _MASK64
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _MASK64
        z = (_rotate((z + w[0]) & _MASK64, 33) * _K1) & _MASK64
        v = _weak_hash_len32_with_seeds(s, i, (v[1] * _K1) & _MASK64, (x + w[0]) & _MASK64)
        w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _MASK64, (y + _fetch64(s, i + 16)) & _MASK64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK64
    v0 = (v[0] + w0) & _MASK64
    w0 = (w0 + v0) & _MASK64
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _MASK64, 37) * mul) & _MASK64
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _MASK64, 42) * mul) & _MASK64
    x ^= (w[1] * 9) & _MASK64
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _MASK64
    z = (_rotate((z + w[0]) & _MASK64, 33) * mul) & _MASK64
    v = _weak_hash_len32_with_seeds(s, i, (v[1] * mul) & _MASK64, (x + w[0]) & _MASK64)
    w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _MASK64, (y + _fetch64(s, i + 16)) & _MASK64)
    z, x = x, z
    return _hash_len16((_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK64,
                       (_hash_len16(v[1], w[1], mul) + x) & _MASK64, mul)


def _sip_round(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
    v0 = (v0 + v1) & _MASK64
    v1 = _rotate(v1, 64 - 13) ^ v0
    v0 = _rotate(v0, 64 - 32)
    v2 = (v2 + v3) & _MASK64
    v3 = _rotate(v3, 64 - 16) ^ v2
    v0 = (v0 + v3) & _MASK64
    v3 = _rotate(v3, 64 - 21) ^ v0
    v2 = (v2 + v1) & _MASK64
    v1 = _rotate(v1, 64 - 17) ^ v2
    v2 = _rotate(v2, 64 - 32)
    return v0, v1, v2, v3


def siphash24(k0: int, k1: int, s: bytes) -> int:
    """SipHash-2-4 of `s` under the 128-bit key (k0, k1), TF's StrongKeyedHash."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    n = len(s)
    tail = n - n % 8
    for i in range(0, tail + 8, 8):
        m = _fetch64(s, i) if i < tail else int.from_bytes(s[tail:], "little") | ((n & 0xFF) << 56)
        v3 ^= m
        v0, v1, v2, v3 = _sip_round(*_sip_round(v0, v1, v2, v3))
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def legacy_hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's own Hash64 (a MurmurHash64A), which the legacy StringToHashBucket uses."""
    m, r, n = 0xC6A4A7935BD1E995, 47, len(s)
    h = (seed ^ (n * m)) & _MASK64
    tail = n - n % 8
    for i in range(0, tail, 8):
        k = (_fetch64(s, i) * m) & _MASK64
        k = ((k ^ (k >> r)) * m) & _MASK64
        h = ((h ^ k) * m) & _MASK64
    if n % 8:
        h = ((h ^ int.from_bytes(s[tail:], "little")) * m) & _MASK64
    h = ((h ^ (h >> r)) * m) & _MASK64
    return h ^ (h >> r)


def _bucket_kernel(hash_fn: Callable[[bytes], int]) -> Callable:
    def kernel(ctx: OpKernelContext, input: Any, num_buckets: int) -> Any:  # noqa: A002
        return _per_string(lambda s: hash_fn(s) % num_buckets, input, otype=np.int64)
    return kernel


StringToHashBucketFast = Op("StringToHashBucketFast", inputs=["input: string"], outputs=["output: int64"],
                            attrs=["num_buckets: int >= 1"])
StringToHashBucketFast.shape(unary_shape)
StringToHashBucketFast.kernel("CPU")(_bucket_kernel(fingerprint64))

StringToHashBucket = Op("StringToHashBucket", inputs=["string_tensor: string"], outputs=["output: int64"],
                        attrs=["num_buckets: int >= 1"])
StringToHashBucket.shape(unary_shape)
StringToHashBucket.kernel("CPU")(_bucket_kernel(legacy_hash64))

StringToHashBucketStrong = Op("StringToHashBucketStrong", inputs=["input: string"], outputs=["output: int64"],
                              attrs=["num_buckets: int >= 1", "key: list(int)"])
StringToHashBucketStrong.shape(unary_shape)


@StringToHashBucketStrong.kernel("CPU")
def _string_to_hash_bucket_strong(ctx: OpKernelContext, input: Any, num_buckets: int,  # noqa: A002
                                  key: Sequence[int]) -> Any:
    if len(key) != 2:
        raise invalid_argument(ctx, "Key must have 2 elements")
    k0, k1 = (k & _MASK64 for k in key)
    return _per_string(lambda s: siphash24(k0, k1, s) % num_buckets, input, otype=np.int64)


@tf_export("strings.to_hash_bucket_fast", "string_to_hash_bucket_fast")
@add_dispatch_support
def string_to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Tensor:  # noqa: A002
    """Fingerprint64 of each string modulo `num_buckets`: stable across processes and versions."""
    return StringToHashBucketFast(input, num_buckets=num_buckets, name=name)


@tf_export("strings.to_hash_bucket_strong", "string_to_hash_bucket_strong")
@add_dispatch_support
def string_to_hash_bucket_strong(input: Any, num_buckets: int, key: Sequence[int],  # noqa: A002
                                 name: str | None = None) -> Tensor:
    """SipHash-2-4 of each string under `key` (two ints) modulo `num_buckets`, for adversarial inputs."""
    return StringToHashBucketStrong(input, num_buckets=num_buckets, key=list(key), name=name)


@tf_export("strings.to_hash_bucket", "string_to_hash_bucket")
@add_dispatch_support
def string_to_hash_bucket(string_tensor: Any = None, num_buckets: int | None = None, name: str | None = None,
                          input: Any = None) -> Tensor:  # noqa: A002
    """TF's legacy Hash64 of each string modulo `num_buckets` (`input` is the deprecated name)."""
    string_tensor = _deprecated_alias("input", input, "string_tensor", string_tensor)
    return StringToHashBucket(string_tensor, num_buckets=num_buckets, name=name)


# -- Fingerprint -------------------------------------------------------------------------------------

Fingerprint = Op("Fingerprint", inputs=["data: T", "method: string"], outputs=["fingerprint: uint8"],
                 attrs=["T: type"])


@Fingerprint.shape
def _fingerprint_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data = with_rank_at_least(ctx.input_shape(0), 1)
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.TensorShape([data.dims[0], 8])]


@Fingerprint.kernel("CPU")
def _fingerprint(ctx: OpKernelContext, data: Any, method: Any, T: dtypes.DType) -> Any:  # noqa: N803
    """Fingerprint64 of each row's bytes (a string row: of its strings' fingerprints, unless it holds one
    string), as 8 little-endian bytes."""
    if np.ndim(method) != 0:
        raise invalid_argument(ctx, f"`method` should be a scalar string: {tensor_shape.shape_string(method.shape)}")
    if method.item() != b"farmhash64":
        raise invalid_argument(ctx, f"Unsupported fingerprint method: {_text(method.item())}")
    if np.ndim(data) == 0:
        raise invalid_argument(ctx, "`data` should have at least one dimension: []")
    rows = data.shape[0]
    if T == dtypes.string:
        prints = _per_string(fingerprint64, data.reshape(-1), otype=np.uint64)
        if prints.size == rows:
            return prints.astype("<u8").view(np.uint8).reshape(rows, 8)
        data = prints
    raw = np.ascontiguousarray(data).tobytes()
    width = len(raw) // rows if rows else 0
    prints = _per_string(lambda i: fingerprint64(raw[i * width:(i + 1) * width]), np.arange(rows), otype=np.uint64)
    return prints.astype("<u8").view(np.uint8).reshape(rows, 8)


@tf_export("fingerprint")
def fingerprint(data: Any, method: str = "farmhash64", name: str | None = None) -> Tensor:
    """A stable 64-bit fingerprint of each row of `data` (FarmHash Fingerprint64), as `[rows, 8]` uint8: the
    same across processes, platforms and TF versions, for sharding and deduplication."""
    return Fingerprint(data, method, name=name)


# -- Base64 (web-safe alphabet, as TF's) -------------------------------------------------------------

EncodeBase64 = Op("EncodeBase64", inputs=["input: string"], outputs=["output: string"], attrs=["pad: bool = false"])
EncodeBase64.shape(unary_shape)


@EncodeBase64.kernel("CPU")
def _encode_base64(ctx: OpKernelContext, input: Any, pad: bool) -> Any:  # noqa: A002
    encoded = _per_string(base64.urlsafe_b64encode, input)
    return encoded if pad else _per_string(lambda s: s.rstrip(b"="), encoded)


DecodeBase64 = Op("DecodeBase64", inputs=["input: string"], outputs=["output: string"])
DecodeBase64.shape(unary_shape)
_WEB_SAFE = re.compile(rb"[A-Za-z0-9_-]*")


@DecodeBase64.kernel("CPU")
def _decode_base64(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    def decode(s: bytes) -> bytes:
        # TF's Base64Decode: the quads before the last are decoded (checked) first; then the last, less its
        # padding ("xy==" or "xyz=" only), must not be one character
        head, tail = s[:(len(s) - 1) // 4 * 4], s[(len(s) - 1) // 4 * 4:]
        if _WEB_SAFE.fullmatch(head) is None:
            raise invalid_argument(ctx, "Invalid character found in base64.")
        if len(tail) == 4 and tail[3:] == b"=":
            tail = tail[:2] if tail[2:3] == b"=" else tail[:3]
        if len(tail) == 1:
            raise invalid_argument(ctx, "Base64 string length cannot be 1 modulo 4.")
        body = head + tail
        if _WEB_SAFE.fullmatch(tail) is None:
            raise invalid_argument(ctx, "Invalid character found in base64.")
        try:
            return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
        except binascii.Error:
            raise invalid_argument(ctx, "Invalid character found in base64.") from None
    return _per_string(decode, input)


@tf_export("io.encode_base64", "encode_base64")
@add_dispatch_support
def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string in web-safe base64 ('-' and '_'), '=' padded only when `pad`."""
    return EncodeBase64(input, pad=pad, name=name)


@tf_export("io.decode_base64", "decode_base64")
@add_dispatch_support
def decode_base64(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Each web-safe base64 string decoded (padding optional)."""
    return DecodeBase64(input, name=name)


# -- DecodeRaw ---------------------------------------------------------------------------------------

DecodeRaw = Op("DecodeRaw", inputs=["bytes: string"], outputs=["output: out_type"],
               attrs=["out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, "
                      "complex128, bool, bfloat16}", "little_endian: bool = true"])


@DecodeRaw.shape
def _decode_raw_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    return [tensor_shape.unknown_shape() if shape.ndims is None else shape.concatenate([None])]


@DecodeRaw.kernel("CPU")
def _decode_raw(ctx: OpKernelContext, bytes: Any, out_type: dtypes.DType, little_endian: bool) -> Any:  # noqa: A002
    """One row of values per string; every string must have the same length, a multiple of the item size."""
    dtype = np.dtype(out_type.as_numpy_dtype)
    flat = bytes.reshape(-1)
    sizes = _per_string(builtins.len, flat, otype=np.int64)
    if flat.size == 0:
        return np.zeros(np.shape(bytes) + (0,), dtype=dtype)
    odd = np.flatnonzero(sizes != sizes[0])
    if odd.size:
        raise invalid_argument(ctx, "DecodeRaw requires input strings to all be the same size, but element "
                                    f"{odd[0]} has size {sizes[0]} != {sizes[odd[0]]}")  # TF's order
    if sizes[0] % dtype.itemsize:
        raise invalid_argument(ctx, f"Input to DecodeRaw has length {sizes[0]} that is not a multiple of "
                                    f"{dtype.itemsize}, the size of {dtypes.type_string(out_type)}")
    values = np.frombuffer(b"".join(flat), dtype=dtype)  # this host is little-endian, as NumPy's default
    values = values if little_endian else values.byteswap()
    return values.reshape(np.shape(bytes) + (sizes[0] // dtype.itemsize,))


@tf_export("io.decode_raw", "decode_raw")
def decode_raw(input_bytes: Any = None, out_type: Any = None, little_endian: bool = True, name: str | None = None,
               bytes: Any = None) -> Tensor:  # noqa: A002 - TF's deprecated argument name
    """The bytes of each string reinterpreted as a vector of `out_type` (`bytes` is the deprecated name)."""
    input_bytes = _deprecated_alias("input_bytes", input_bytes, "bytes", bytes)
    return DecodeRaw(input_bytes, out_type=out_type, little_endian=little_endian, name=name)


# -- DecodeCSV ---------------------------------------------------------------------------------------

DecodeCSV = Op("DecodeCSV", inputs=["records: string", "record_defaults: OUT_TYPE"], outputs=["output: OUT_TYPE"],
               attrs=["OUT_TYPE: list({float, double, int32, int64, string})", "field_delim: string = ','",
                      "use_quote_delim: bool = true", "na_value: string = ''", "select_cols: list(int) = []"])


@DecodeCSV.shape
def _decode_csv_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    for shape in ctx.input_shapes[1:]:
        if with_rank_at_most(shape, 1).ndims == 1 and shape.as_list()[0] not in (0, 1, None):
            raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a scalar.")
    return [ctx.input_shape(0)] * (len(ctx.input_shapes) - 1)


def _csv_fields(ctx: OpKernelContext, record: bytes, delim: int, use_quote: bool,
                selected: Callable[[int], bool], wanted: int) -> list[bytes]:
    """The fields of one record, split as TF's DecodeCSV does (RFC 4180 quotes when `use_quote`); only the
    selected ones are kept, and parsing stops once `wanted` of them are (when selecting: `wanted` > 0)."""
    fields: list[bytes] = []
    i, parsed, n = 0, 0, len(record)
    while i < n:
        if record[i] in b"\r\n":
            i += 1
            continue
        field = bytearray()
        if use_quote and record[i] == 0x22:
            i += 1
            while i < n - 1 and (record[i] != 0x22 or record[i + 1] != delim):
                if record[i] != 0x22:
                    field.append(record[i])
                    i += 1
                elif record[i + 1] != 0x22:
                    raise invalid_argument(ctx, "Quote inside a string has to be escaped by another quote")
                else:
                    field.append(0x22)
                    i += 2
            if not (i < n and record[i] == 0x22 and (i == n - 1 or record[i + 1] == delim)):
                raise invalid_argument(ctx, "Quoted field has to end with quote followed by delim or end")
            i += 2
        else:
            while i < n and record[i] != delim:
                if (use_quote and record[i] == 0x22) or record[i] in b"\r\n":
                    raise invalid_argument(ctx, "Unquoted fields cannot have quotes/CRLFs inside")
                field.append(record[i])
                i += 1
            i += 1
        if selected(parsed):
            fields.append(bytes(field))
            if len(fields) == wanted:
                return fields
        parsed += 1
    if record and record[-1] == delim and selected(parsed):
        fields.append(b"")
    return fields


_CSV_TYPE_NAMES = {"float32": "float", "float64": "double"}


@DecodeCSV.kernel("CPU")
def _decode_csv(ctx: OpKernelContext, records: Any, *record_defaults: Any, OUT_TYPE: Sequence[dtypes.DType],  # noqa: N803
                field_delim: Any, use_quote_delim: bool, na_value: Any, select_cols: Sequence[int]) -> list:
    delim, na = field_delim.encode() if isinstance(field_delim, str) else field_delim, \
        na_value.encode() if isinstance(na_value, str) else na_value
    if len(delim) != 1:
        raise invalid_argument(ctx, "field_delim should be only 1 char")
    columns = list(select_cols)
    wanted = len(record_defaults)
    selected = (lambda k: k in columns) if columns else (lambda k: True)
    flat = records.reshape(-1)
    rows = [_csv_fields(ctx, record, delim[0], use_quote_delim, selected, len(columns)) for record in flat]
    outputs = []
    for f, (default, dtype) in enumerate(zip(record_defaults, OUT_TYPE)):
        np_dtype = np.dtype(dtype.as_numpy_dtype)
        column = np.empty(flat.size, dtype=object)
        for r, fields in enumerate(rows):
            if len(fields) != wanted:
                raise invalid_argument(ctx, f"Expect {wanted} fields but have {len(fields)} in record {r}")
            text = fields[f]
            if text == b"" or text == na:
                if np.size(default) != 1:
                    raise invalid_argument(ctx, f"Field {f} is required but missing in record {r}!")
                column[r] = np.asarray(default).reshape(-1)[0]
            elif dtype == dtypes.string:
                column[r] = text
            else:
                column[r] = parse_number(text, np_dtype)
                if column[r] is None:
                    name = _CSV_TYPE_NAMES.get(dtype.name, dtype.name)
                    raise invalid_argument(ctx, f"Field {f} in record {r} is not a valid {name}: "
                                                f"{text.decode(errors='replace')}")
        outputs.append(column.astype(np_dtype).reshape(np.shape(records)))
    return outputs


@tf_export("io.decode_csv", "decode_csv")
def decode_csv(records: Any, record_defaults: Sequence[Any], field_delim: str = ",", use_quote_delim: bool = True,
               name: str | None = None, na_value: str = "", select_cols: Sequence[int] | None = None) -> list[Tensor]:
    """One tensor per column of CSV `records`, typed by `record_defaults` (an empty default makes the column
    required); `select_cols` picks columns, in increasing order."""
    if select_cols is not None:
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    return DecodeCSV(records, list(record_defaults), field_delim=field_delim, use_quote_delim=use_quote_delim,
                     na_value=na_value, select_cols=list(select_cols or []), name=name)


# -- StringSplit and StringSplitV2 -------------------------------------------------------------------

_SPLIT_OUTPUTS = ["indices: int64", "values: string", "shape: int64"]
StringSplit = Op("StringSplit", inputs=["input: string", "delimiter: string"], outputs=_SPLIT_OUTPUTS,
                 attrs=["skip_empty: bool = true"])
StringSplitV2 = Op("StringSplitV2", inputs=["input: string", "sep: string"], outputs=_SPLIT_OUTPUTS,
                   attrs=["maxsplit: int = -1"])


@StringSplit.shape
@StringSplitV2.shape
def _string_split_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 1)
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.TensorShape([None, 2]), tensor_shape.TensorShape([None]), tensor_shape.TensorShape([2])]


def _split_output(ctx: OpKernelContext, input: Any, sep: Any, split: Callable) -> list:  # noqa: A002
    """The tokens of each string as a sparse [n, most tokens] matrix, row by row."""
    if input.ndim != 1:
        raise invalid_argument(ctx, f"input must be a vector, got shape: {tensor_shape.shape_string(input.shape)}")
    if np.ndim(sep) != 0:
        raise invalid_argument(ctx, f"sep must be a scalar, got shape: {tensor_shape.shape_string(np.shape(sep))}")
    tokens = [split(s) for s in input]
    counts = np.fromiter(map(builtins.len, tokens), np.int64, builtins.len(tokens))
    rows = np.repeat(np.arange(builtins.len(tokens)), counts)
    columns = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    values = np.empty(counts.sum(), dtype=object)
    values[:] = list(itertools.chain.from_iterable(tokens))
    return [np.stack([rows, columns], axis=1).astype(np.int64), values,
            np.array([builtins.len(tokens), counts.max(initial=0)], np.int64)]


@StringSplit.kernel("CPU")
def _string_split(ctx: OpKernelContext, input: Any, delimiter: Any, skip_empty: bool) -> list:  # noqa: A002
    """Every byte of `delimiter` splits (an empty one splits into single bytes); an empty string has no tokens."""
    delims = _attr_or_scalar(delimiter)
    pattern = re.compile(b"[" + re.escape(delims) + b"]") if delims else None

    def split(s: bytes) -> list:
        if not s:
            return []
        tokens = pattern.split(s) if pattern else [s[i:i + 1] for i in range(builtins.len(s))]
        return [t for t in tokens if t] if skip_empty else tokens

    return _split_output(ctx, input, delimiter, split)


@StringSplitV2.kernel("CPU")
def _string_split_v2(ctx: OpKernelContext, input: Any, sep: Any, maxsplit: int) -> list:  # noqa: A002
    """Python's `str.split`: runs of whitespace when `sep` is empty, else every `sep`, at most `maxsplit` times;
    as TF's, `maxsplit=0` keeps the string whole and whitespace splitting that reaches `maxsplit` keeps the
    (maybe empty) rest."""
    separator = _attr_or_scalar(sep) or None

    def split(s: bytes) -> list:
        if maxsplit == 0:
            return [s]
        tokens = s.split(separator, maxsplit)
        return tokens + [b""] if separator is None and builtins.len(tokens) == maxsplit else tokens

    return _split_output(ctx, input, sep, split)


@tf_export("string_split")
def string_split(source: Any, sep: Any = None, skip_empty: bool = True, delimiter: Any = None,
                 result_type: str = "SparseTensor", name: str | None = None) -> Any:
    """TF1's tf.string_split: each string of the vector `source` split at any byte of `sep` (default a space)."""
    sep = _deprecated_alias("sep", sep, "delimiter", delimiter)
    with name_scope(name, "StringSplit", [source]):
        delimiter = convert_to_tensor(" " if sep is None else sep, dtype=dtypes.string)  # first, as TF's
        source = convert_to_tensor(source, dtype=dtypes.string)
        indices, values, shape = StringSplit(source, delimiter, skip_empty=skip_empty)
        return _split_result(SparseTensor(indices, values, shape), result_type)


def _split_result(tokens: SparseTensor, result_type: str) -> Any:
    """The tokens as the SparseTensor the op gives, or as the RaggedTensor of its rows."""
    if result_type == "SparseTensor":
        return tokens
    if result_type == "RaggedTensor":
        return RaggedTensor.from_sparse(tokens)
    raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


@tf_export("strings.split")
def strings_split(input: Any = None, sep: Any = None, maxsplit: int = -1,  # noqa: A002 - TF's name
                  result_type: str = "SparseTensor", source: Any = None, name: str | None = None) -> Any:
    """TF1's tf.strings.split: Python's `str.split` of each string (whitespace runs when `sep` is None)."""
    input = _deprecated_alias("input", input, "source", source)  # noqa: A001
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    with name_scope(name, "StringSplit", [input]):
        if isinstance(input, RaggedTensor):  # TF's: the flat strings split, under the input's partitions
            split = input.with_flat_values(strings_split(input.flat_values, sep, maxsplit, result_type="RaggedTensor"))
            return split.to_sparse() if result_type == "SparseTensor" else split
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        if input.shape.ndims == 0:
            input = shape_ops.expand_dims(input, 0)  # noqa: A001 - TF1's form splits a scalar as a vector
        if input.shape.ndims in (None, 1):
            indices, values, shape = StringSplitV2(input, "" if sep is None else sep, maxsplit=maxsplit)
            return _split_result(SparseTensor(indices, values, shape), result_type)
        rows = RaggedTensor.from_tensor(input, ragged_rank=input.shape.ndims - 1)
        tokens = strings_split(rows.flat_values, sep, maxsplit, result_type="RaggedTensor")
        split = rows.with_flat_values(tokens)
        return split.to_sparse() if result_type == "SparseTensor" else split


# -- UnicodeTranscode --------------------------------------------------------------------------------

UnicodeTranscode = Op("UnicodeTranscode", inputs=["input: string"], outputs=["output: string"],
                      attrs=["input_encoding: string", "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
                             "errors: {'strict', 'replace', 'ignore'} = 'replace'", "replacement_char: int = 65533",
                             "replace_control_characters: bool = false"])
UnicodeTranscode.shape(unary_shape)
_CONTROL_CHARACTERS = re.compile("[\x00-\x1f]")


def check_replacement_char(ctx: OpKernelContext, replacement_char: int) -> None:
    """TF's GetErrorOptions (the unicode kernels' construction): a code point, 0 to U+10FFFF."""
    if not 0 <= replacement_char <= 0x10FFFF:
        raise invalid_argument(ctx, "replacement_char out of unicode codepoint range")


@UnicodeTranscode.kernel("CPU")
def _unicode_transcode(ctx: OpKernelContext, input: Any, input_encoding: Any, output_encoding: Any,  # noqa: A002
                       errors: Any, replacement_char: int, replace_control_characters: bool) -> Any:
    """Python's codecs stand in for ICU's converters: a malformed sequence may give a different number of
    replacement characters than ICU's."""
    check_replacement_char(ctx, replacement_char)
    source, target, mode = _text(input_encoding), _text(output_encoding), _text(errors)
    try:
        codecs.lookup(source)
    except LookupError:
        raise invalid_argument(ctx, f"Could not create converter for input encoding: {source}") from None
    replacement = chr(replacement_char)

    def transcode(s: bytes) -> bytes:
        try:
            text = s.decode(source, "strict" if mode == "strict" else mode)
        except UnicodeDecodeError:
            raise invalid_argument(ctx, "Invalid formatting on input string") from None
        if mode == "replace" and replacement != "\ufffd":
            text = text.replace("\ufffd", replacement)
        if replace_control_characters:
            text = _CONTROL_CHARACTERS.sub(replacement, text)
        return text.encode(target)

    return _per_string(transcode, input)


@tf_export("strings.unicode_transcode")
@add_dispatch_support
def unicode_transcode(input: Any, input_encoding: str, output_encoding: str, errors: str = "replace",  # noqa: A002
                      replacement_char: int = 65533, replace_control_characters: bool = False,
                      name: str | None = None) -> Tensor:
    """Each string re-encoded from `input_encoding` to `output_encoding`, malformed input handled per `errors`."""
    return UnicodeTranscode(input, input_encoding=input_encoding, output_encoding=output_encoding, errors=errors,
                            replacement_char=replacement_char,
                            replace_control_characters=replace_control_characters, name=name)


UnsortedSegmentJoin = Op("UnsortedSegmentJoin", inputs=["inputs: string", "segment_ids: Tindices",
                                                        "num_segments: Tnumsegments"],
                         outputs=["output: string"],
                         attrs=["separator: string = ''", "Tindices: {int32, int64}",
                                "Tnumsegments: {int32, int64} = DT_INT32"])


@UnsortedSegmentJoin.shape
def _unsorted_segment_join_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data, ids = ctx.input_shape(0), ctx.input_shape(1)
    num = ctx.input_value(2)
    if data.ndims is None or ids.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape([None if num is None else int(num)]).concatenate(data[ids.ndims:])]


@UnsortedSegmentJoin.kernel("CPU")
def _unsorted_segment_join(ctx: OpKernelContext, inputs: Any, segment_ids: Any, num_segments: Any, separator: bytes,
                           Tindices: Any, Tnumsegments: Any) -> Any:  # noqa: N803
    """Each segment's strings joined in input order: a stable sort by segment, then one reduceat over strings
    prefixed by the separator (all but each segment's first)."""
    inputs, ids = np.asarray(inputs, dtype=object), np.asarray(segment_ids)
    if inputs.shape[:ids.ndim] != ids.shape:
        raise invalid_argument(ctx, "segment_ids should be the same shape as the prefix of data's shape. "
                                    f"data.shape = {tensor_shape.shape_string(inputs.shape)}, segment_ids.shape = "
                                    f"{tensor_shape.shape_string(ids.shape)}")
    segments = int(num_segments)
    inner = inputs.shape[ids.ndim:]
    ids = ids.reshape(-1)
    if ids.size and (ids.min() < 0 or ids.max() >= segments):
        raise invalid_argument(ctx, "segment_ids are not allowed to exceed num_segments or to have negative values.")
    order = np.argsort(ids, kind="stable")
    ids, rows = ids[order], inputs.reshape(ids.size, -1)[order]
    out = np.full((segments, rows.shape[1]), b"", dtype=object)
    if ids.size:
        first = np.ones(ids.size, bool)
        first[1:] = ids[1:] != ids[:-1]
        starts = np.flatnonzero(first)
        prefixed = np.where(first[:, None], rows, separator + rows)
        out[ids[starts]] = np.add.reduceat(prefixed, starts, axis=0)
    return out.reshape((segments, *inner))


@tf_export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs: Any, segment_ids: Any, num_segments: Any, separator: str = "",
                          name: str | None = None) -> Tensor:
    """The strings of each segment joined by `separator`, in input order; '' for an empty segment."""
    return UnsortedSegmentJoin(inputs, segment_ids, num_segments, separator=separator, name=name)


StringNGrams = Op("StringNGrams", inputs=["data: string", "data_splits: Tsplits"],
                  outputs=["ngrams: string", "ngrams_splits: Tsplits"],
                  attrs=["separator: string", "ngram_widths: list(int) >= 0", "left_pad: string", "right_pad: string",
                         "pad_width: int", "preserve_short_sequences: bool", "Tsplits: {int32, int64} = DT_INT64"])


@StringNGrams.shape
def _string_ngrams_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 1)
    return [tensor_shape.TensorShape([None]), with_rank(ctx.input_shape(1), 1)]


def _join_columns(tokens: np.ndarray, used: np.ndarray, separator: bytes) -> np.ndarray:
    """Each row's tokens joined by `separator`, the first `used[row]` of them (a pass per column)."""
    joined = tokens[:, 0].copy()
    for column in builtins.range(1, tokens.shape[1]):
        more = used > column
        joined[more] = joined[more] + separator + tokens[more, column]
    return joined


def _ngram_tokens(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, first: np.ndarray, width: np.ndarray,
                  left_pad: bytes, right_pad: bytes) -> np.ndarray:
    """Tokens of ngrams whose first position in their row is `first` (negative: left padding), `width` each."""
    positions = first[:, None] + np.arange(int(width.max(initial=1)))[None, :]
    index = np.clip(starts[:, None] + positions, 0, max(data.size - 1, 0))
    tokens = data[index] if data.size else np.full(positions.shape, b"", dtype=object)
    tokens = np.where(positions < 0, left_pad, tokens)
    return np.where(positions >= lengths[:, None], right_pad, tokens)


@StringNGrams.kernel("CPU")
def _string_ngrams(ctx: OpKernelContext, data: Any, data_splits: Any, separator: bytes, ngram_widths: list,
                   left_pad: bytes, right_pad: bytes, pad_width: int, preserve_short_sequences: bool,
                   Tsplits: Any) -> Any:  # noqa: N803
    """TF's StringNGrams over every row at once, one width at a time: ngram k of a row starts at position
    k - pad, positions before the row are `left_pad` and after it `right_pad`."""
    data, splits = np.asarray(data, dtype=object), np.asarray(data_splits).astype(np.int64)
    if splits.size < 1 or splits[0] != 0 or splits[-1] != data.size or np.any(np.diff(splits) < 0):
        raise invalid_argument(ctx, "Invalid split value.")
    starts, lengths = splits[:-1], np.diff(splits)
    rows = np.arange(lengths.size)
    pieces, owners, counts = [], [], np.zeros(lengths.size, np.int64)
    for width in ngram_widths:
        pad = min(width - 1 if pad_width < 0 else pad_width, width - 1)
        per_row = np.maximum(0, lengths + 2 * pad - width + 1)
        owner = np.repeat(rows, per_row)
        k = np.arange(owner.size) - np.repeat(np.cumsum(per_row) - per_row, per_row)
        widths = np.full(owner.size, width)
        tokens = _ngram_tokens(data, starts[owner], lengths[owner], k - pad, widths, left_pad, right_pad)
        pieces.append(_join_columns(tokens, widths, separator))
        owners.append(owner)
        counts += per_row
    if preserve_short_sequences:
        short = np.flatnonzero((lengths > 0) & (counts == 0))
        if short.size:
            widths = lengths[short] + 2 * pad_width
            pads = np.minimum(np.where(pad_width < 0, widths - 1, pad_width), widths - 1)
            tokens = _ngram_tokens(data, starts[short], lengths[short], -pads, widths, left_pad, right_pad)
            pieces.append(_join_columns(tokens, widths, separator))
            owners.append(short)
            counts[short] = 1
    if not pieces:
        return [np.zeros(0, dtype=object), np.zeros(lengths.size + 1, Tsplits.as_numpy_dtype)]
    owner = np.concatenate(owners)
    ngrams = np.concatenate(pieces)[np.argsort(owner, kind="stable")]
    out_splits = np.concatenate([[0], np.cumsum(counts)]).astype(Tsplits.as_numpy_dtype)
    return [ngrams.astype(object), out_splits]


@tf_export("strings.ngrams")
def ngrams(data: Any, ngram_width: Any, separator: str = " ", pad_values: Any = None, padding_width: int | None = None,
           preserve_short_sequences: bool = False, name: str | None = None) -> Tensor:
    """The ngrams of each row (the innermost dimension) of a dense string tensor or RaggedTensor, of each width in
    `ngram_width`, optionally padded: a tensor shaped as `data` but for its last dimension."""
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        if len(pad_values) != 2 or not all(isinstance(p, str) for p in pad_values):
            raise ValueError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = pad_values
    elif isinstance(pad_values, str):
        left_pad = right_pad = pad_values
    else:
        raise ValueError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if pad_values is None:
        padding_width = 0
    elif padding_width is None:
        padding_width = -1
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    attrs = dict(separator=separator, ngram_widths=widths, left_pad=left_pad, right_pad=right_pad,
                 pad_width=padding_width, preserve_short_sequences=preserve_short_sequences)
    with name_scope(name, "StringNGrams", [data]):
        if any(width < 1 for width in widths):
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        if isinstance(data, RaggedTensor):
            if data.ragged_rank > 1:
                return data.with_values(ngrams(data.values, ngram_width, separator, pad_values, padding_width,
                                               preserve_short_sequences))
            output, splits = StringNGrams(data.values, data.row_splits, **attrs)
            return RaggedTensor.from_row_splits(output, splits, validate=False)
        data = convert_to_tensor(data, dtype=dtypes.string, name="data")
        rank = data.shape.ndims
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        flat = shape_ops.reshape(data, [-1], name="flat_values") if rank > 1 else data
        row_length = shape_ops.shape(data, out_type=dtypes.int64)[-1]
        splits = sequence_ops.range(0, shape_ops.size(flat, out_type=dtypes.int64) + 1, row_length)
        output, _ = StringNGrams(flat, splits, **attrs)
        if rank == 1:
            return output
        return shape_ops.reshape(output, concat([shape_ops.shape(data)[:-1], [-1]], 0))
