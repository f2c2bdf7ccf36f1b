"""OpDef: an op's signature, parsed from TF's REGISTER_OP spec strings, and the checks on attr values.

The grammar and every consistency check are TF's (`OpDefBuilder` and `ValidateOpDef`), run once when an
op is registered: an `OpDef` is immutable afterwards, so node creation only reads it (`OpDef.attr` is a
dict lookup) and a bad spec fails at import with TF's message, naming the op and the spec string.

Attr values, as `check_attr_value` returns them and as `AttrDef.default` holds them, follow TF1's
`Operation.get_attr`: int and bool as Python scalars; float rounded to float32 (0.2 reads back as
0.2000000029...); string as bytes; type as a base `DType`; lists as Python lists (a default's list is
shared, so read-only: `check_attr_value(..., None)` hands out a copy). Where TF returns protos we use plain
values: a shape is None (unknown rank) or a list of int-or-None; a func is its name (or the function object
passed); a tensor value passes through unchanged, and the one tensor default TF's ops use (ImageSummary's
`bad_color`) stays TensorProto text.
"""

from __future__ import annotations

import math
import numbers
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tensorweave.framework import dtypes


class _NoDefault:
    """The type of `NO_DEFAULT`: a default of None is a real default for shape attrs."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __reduce__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True, slots=True)
class ArgDef:
    """One input or output: a fixed type, a type attr, a list of N of one type, or a list(type) attr.

    `full_type` is the output's experimental full type that TF's type constructor for the op sets (Shape's
    is a shape tensor of `out_type`), kept as FullTypeDef text as TF's registry shows it.
    """

    name: str
    type: dtypes.DType | None = None
    type_attr: str | None = None
    number_attr: str | None = None
    type_list_attr: str | None = None
    is_ref: bool = False
    full_type: str | None = None

    @property
    def is_list(self) -> bool:
        return self.number_attr is not None or self.type_list_attr is not None


@dataclass(frozen=True, slots=True)
class AttrDef:
    """One attr; `minimum` bounds an int's value or a list's length, `allowed_values` a type or string."""

    name: str
    type: str
    default: Any = field(default=NO_DEFAULT, hash=False)
    allowed_values: tuple | None = None
    minimum: int | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@dataclass(frozen=True, slots=True)
class OpDef:
    """An op's inputs, outputs and attrs, in declaration order, and TF's flags on the op.

    The flags are what TF's registry says of the op, for graph rewriters and a MetaGraphDef's op list:
    `is_commutative` (inputs may be swapped), `is_aggregate` (sums its inputs, so may be re-associated),
    `allows_uninitialized_input` (may read a ref variable that holds no value yet) and
    `is_distributed_communication` (talks to other tasks).
    """

    name: str
    input_args: tuple[ArgDef, ...]
    output_args: tuple[ArgDef, ...]
    attrs: tuple[AttrDef, ...]
    is_stateful: bool = False
    is_commutative: bool = False
    is_aggregate: bool = False
    allows_uninitialized_input: bool = False
    is_distributed_communication: bool = False
    _attr_index: dict[str, AttrDef] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_attr_index", {a.name: a for a in self.attrs})

    def attr(self, name: str) -> AttrDef:
        """The attr called `name` (KeyError if the op has none): read on every node creation."""
        return self._attr_index[name]


# TF's C++ type names, in DataType enum order (the order compound type sets list their members in).
_TYPE_NAMES = ("float", "double", "int32", "uint8", "int16", "int8", "string", "complex64", "int64", "bool",
               "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16", "complex128", "half",
               "resource", "variant", "uint32", "uint64")
_TYPES = {n: dtypes.as_dtype(n) for n in _TYPE_NAMES}
_TYPE_NAME_OF = {t: n for n, t in _TYPES.items()}
_TYPE_ENUM_NAMES = {"DT_" + n.upper(): t for n, t in _TYPES.items()}
# Every spelling of a type TF's DataTypeFromString accepts in a spec: the C++ names and three aliases.
_TYPE_SPELLINGS = {**_TYPES, "float32": _TYPES["float"], "float64": _TYPES["double"], "float16": _TYPES["half"]}
_REAL_NUMBER_TYPES = tuple(_TYPES[n] for n in (
    "float", "double", "int32", "uint8", "int16", "int8", "int64", "bfloat16", "uint16", "half", "uint32",
    "uint64"))
_QUANTIZED_TYPES = tuple(_TYPES[n] for n in ("qint8", "quint8", "qint32", "qint16", "quint16"))
_NUMBER_TYPES = tuple(sorted(_REAL_NUMBER_TYPES + _QUANTIZED_TYPES + (_TYPES["complex64"], _TYPES["complex128"]),
                             key=lambda t: t.as_datatype_enum))
_COMPOUND_TYPES = {"numbertype": _NUMBER_TYPES, "numerictype": _NUMBER_TYPES,
                   "realnumbertype": _REAL_NUMBER_TYPES, "realnumerictype": _REAL_NUMBER_TYPES,
                   "quantizedtype": _QUANTIZED_TYPES}
_ATTR_KINDS = ("string", "int", "float", "bool", "type", "shape", "tensor", "func")

_WS = " \t\n\r\f\v"
_OP_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*(?:>[A-Z][A-Za-z0-9_]*)*")
_ATTR_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\s*:\s*", re.ASCII)
_ARG_NAME = re.compile(r"([a-z][a-z0-9_]*)\s*:\s*", re.ASCII)
_LIST_OPEN = re.compile(r"list\s*\(\s*", re.ASCII)
# TF's unbraced form misspells 'realnumerictype' and so accepts it only inside braces; we do the same.
_COMPOUND = re.compile("numbertype|numerictype|quantizedtype|realnumbertype")
_TYPE_WORD = re.compile(r"([a-z0-9]+)\s*", re.ASCII)
_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*""", re.ASCII | re.DOTALL)
_MINIMUM = re.compile(r"\s*(-?[0-9]+)\s*", re.ASCII)
_REF_OPEN = re.compile(r"Ref\s*\(\s*", re.ASCII)
_REF_CLOSE = re.compile(r"\)\s*", re.ASCII)
_NAME_OR_TYPE = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\s*", re.ASCII)
_TIMES = re.compile(r"\*\s*([A-Za-z][A-Za-z0-9_]*)\s*", re.ASCII)


def _is_type_name(name: str) -> bool:
    """Whether TF's DataTypeFromString accepts `name` (ref spellings included)."""
    return name in _TYPE_SPELLINGS or (name.endswith("_ref") and name[:-4] in _TYPE_SPELLINGS)


def parse_op_def(name: str, inputs: Sequence[str] = (), outputs: Sequence[str] = (),
                 attrs: Sequence[str] = (), is_stateful: bool = False, *, is_commutative: bool = False,
                 is_aggregate: bool = False, allows_uninitialized_input: bool = False,
                 is_distributed_communication: bool = False, output_full_types: Mapping[str, str] | None = None
                 ) -> OpDef:
    """Build an OpDef from TF's spec strings, with every check TF makes when it registers an op.

    As in TF, attrs are parsed first (so args may reference attrs declared after them), an int attr
    used as a list length and a list(type) attr used by an arg get a minimum of 1 unless given one,
    and an arg of fixed type `resource` makes the op stateful. Errors are ValueErrors. The flags are
    OpDefBuilder's SetIsCommutative, SetIsAggregate, SetAllowsUninitializedInput and
    SetIsDistributedCommunication (see `OpDef`); `output_full_types` maps output names to what the op's
    SetTypeConstructor puts on them (FullTypeDef text).
    """
    attr_list = [_parse_attr(name, spec) for spec in attrs]
    index: dict[str, int] = {}
    for i, attr in enumerate(attr_list):
        index.setdefault(attr.name, i)
    input_args = tuple(_parse_arg(name, spec, False, attr_list, index) for spec in inputs)
    output_args = tuple(_parse_arg(name, spec, True, attr_list, index) for spec in outputs)
    if output_full_types:
        unknown = set(output_full_types) - {a.name for a in output_args}
        if unknown:
            raise ValueError(f"Full type for unknown output '{min(unknown)}' of Op {name}")
        output_args = tuple(replace(a, full_type=output_full_types.get(a.name)) for a in output_args)
    _validate(name, attr_list, attrs, index, (input_args, inputs, "Input"), (output_args, outputs, "Output"))
    resource = _TYPES["resource"]
    stateful = is_stateful or any(a.type == resource for a in input_args + output_args)
    return OpDef(name, input_args, output_args, tuple(attr_list), stateful, is_commutative, is_aggregate,
                 allows_uninitialized_input, is_distributed_communication)


def _error(what: str, spec: str, op_name: str, msg: str) -> ValueError:
    return ValueError(f'{msg} from {what}("{spec}") for Op {op_name}')


def _parse_attr(op_name: str, spec: str) -> AttrDef:
    """Parse '<name>: <type> [>= <min>] [= <default>]', <type> being a kind, list(kind) or {allowed}."""
    m = _ATTR_NAME.match(spec)
    if m is None:
        raise _error("Attr", spec, op_name, "Trouble parsing '<name>:'")
    name, rest = m.group(1), spec[m.end():]
    m = _LIST_OPEN.match(rest)
    is_list = m is not None
    if m is not None:
        rest = rest[m.end():]
    allowed: tuple | None = None
    kind = next((k for k in _ATTR_KINDS if rest.startswith(k)), None)
    if kind is not None:
        rest = rest[len(kind):]
    elif (m := _COMPOUND.match(rest)) is not None:
        kind, allowed, rest = "type", _COMPOUND_TYPES[m.group()], rest[m.end():]
    elif rest.startswith("{"):
        kind, allowed, rest = _parse_allowed(rest[1:].lstrip(_WS), lambda msg: _error("Attr", spec, op_name, msg))
    else:
        raise _error("Attr", spec, op_name, f"Trouble parsing type string at '{rest}'")
    rest = rest.lstrip(_WS)
    attr_type = kind
    if is_list:
        if not rest.startswith(")"):
            raise _error("Attr", spec, op_name, f"Expected ) to close 'list(', not: '{rest}'")
        rest = rest[1:].lstrip(_WS)
        attr_type = f"list({kind})"
    minimum = None
    if (is_list or kind == "int") and rest.startswith(">="):
        m = _MINIMUM.match(rest, 2)
        if m is None:
            raise _error("Attr", spec, op_name,
                         f"Could not parse integer lower limit after '>=', found '{rest[2:]}' instead")
        minimum, rest = int(m.group(1)), rest[m.end():]
    default = NO_DEFAULT
    if rest.startswith("="):
        text = rest[1:].lstrip(_WS)
        try:
            default = _parse_default(attr_type, text)
        except (ValueError, KeyError):
            raise _error("Attr", spec, op_name, f"Could not parse default value '{text}'") from None
    elif rest:
        raise _error("Attr", spec, op_name, f"Extra '{rest}' unparsed at the end")
    return AttrDef(name, attr_type, default, allowed, minimum)


def _parse_allowed(rest: str, fail: Callable[[str], ValueError]) -> tuple[str, tuple, str]:
    """Parse the inside of '{float, numbertype}' or "{'SAME', 'VALID'}" up to and including the '}'."""
    strings = rest.startswith(("'", '"'))
    values: list = []
    while True:
        if strings:
            m = _QUOTED.match(rest)
            if m is None:
                raise fail(f"Trouble parsing allowed string at '{rest}'")
            try:
                values.append(_unescape(m.group(1)[1:-1]).decode())
            except ValueError as e:
                raise fail(f'Trouble unescaping "{m.group(1)[1:-1]}", got error: {e}') from None
        else:
            m = _TYPE_WORD.match(rest)
            if m is None:
                raise fail(f"Trouble parsing type string at '{rest}'")
            word = m.group(1)
            if word in _COMPOUND_TYPES:
                values.extend(_COMPOUND_TYPES[word])
            elif word in _TYPE_SPELLINGS:
                values.append(_TYPE_SPELLINGS[word])
            else:
                raise fail(f"Unrecognized type string '{word}'")
        rest = rest[m.end():]
        if rest.startswith(","):
            rest = rest[1:].lstrip(_WS)
            if rest.startswith("}"):
                break
        elif rest.startswith("}"):
            break
        else:
            raise fail(f"Expected , or }} after {'strings' if strings else 'types'} in list, not: '{rest}'")
    return ("string" if strings else "type"), tuple(values), rest[1:]


def _parse_arg(op_name: str, spec: str, is_output: bool, attrs: list[AttrDef], index: dict[str, int]) -> ArgDef:
    """Parse '<name>: [Ref(] [<number_attr> *] <type or attr> [)]'; may set a length attr's minimum."""
    what = "Output" if is_output else "Input"
    m = _ARG_NAME.match(spec)
    if m is None:
        raise _error(what, spec, op_name, "Trouble parsing 'name:'")
    name, pos = m.group(1), m.end()
    m = _REF_OPEN.match(spec, pos)
    is_ref = m is not None
    if m is not None:
        pos = m.end()
    m = _NAME_OR_TYPE.match(spec, pos)
    if m is None:
        raise _error(what, spec, op_name, f"Trouble parsing either a type or an attr name at '{spec[pos:]}'")
    type_or_attr, pos = m.group(1), m.end()
    number_attr = None
    m = _TIMES.match(spec, pos)
    if m is not None:
        number_attr, type_or_attr, pos = type_or_attr, m.group(1), m.end()
    fixed = type_attr = type_list_attr = None
    if type_or_attr in _TYPE_SPELLINGS:
        fixed = _TYPE_SPELLINGS[type_or_attr]
    elif _is_type_name(type_or_attr):  # a ref type, named as TF's DataTypeString: 'float64_ref' is 'double_ref'
        ref_name = _TYPE_NAME_OF[_TYPE_SPELLINGS[type_or_attr[:-4]]] + "_ref"
        raise _error(what, spec, op_name, f"Illegal use of ref type '{ref_name}'. Use 'Ref(type)' instead")
    elif type_or_attr not in index:
        raise _error(what, spec, op_name, f"Reference to unknown attr '{type_or_attr}'")
    elif attrs[index[type_or_attr]].type == "type":
        type_attr = type_or_attr
    elif attrs[index[type_or_attr]].type == "list(type)":
        type_list_attr = type_or_attr
    else:
        raise _error(what, spec, op_name, f"Reference to attr '{type_or_attr}' with type "
                     f"{attrs[index[type_or_attr]].type} that isn't type or list(type)")
    if is_ref:
        m = _REF_CLOSE.match(spec, pos)
        if m is None:
            raise _error(what, spec, op_name, f"Did not find closing ')' for 'Ref(', instead found: '{spec[pos:]}'")
        pos = m.end()
    if pos != len(spec):
        raise _error(what, spec, op_name, f"Extra '{spec[pos:]}' unparsed at the end")
    length_attr = number_attr or type_list_attr
    if length_attr in index:
        i = index[length_attr]
        if attrs[i].minimum is None and (number_attr or attrs[i].type == "list(type)"):
            attrs[i] = replace(attrs[i], minimum=1)
    return ArgDef(name, fixed, type_attr, number_attr, type_list_attr, is_ref)


def _validate(op_name: str, attrs: list[AttrDef], attr_specs: Sequence[str], index: dict[str, int],
              *arg_groups: tuple[tuple[ArgDef, ...], Sequence[str], str]) -> None:
    """TF's ValidateOpDef: the checks that need the whole op (names, minimums, defaults, length attrs)."""
    if not op_name.startswith("_") and _OP_NAME.fullmatch(op_name) is None:
        raise ValueError(f"Invalid name: {op_name} (Did you use CamelCase?)")
    names: set[str] = set()
    for attr, spec in zip(attrs, attr_specs):
        is_list = attr.type.startswith("list(")
        if attr.name in names:
            problem = f"Duplicate name: {attr.name}"
        elif _is_type_name(attr.name):
            problem = f"Attr can't have name {attr.name} that matches a data type"
        elif attr.minimum is not None and not (is_list or attr.type == "int"):
            problem = f"Attr '{attr.name}' has minimum for unsupported type {attr.type}"
        elif attr.minimum is not None and is_list and attr.minimum < 0:
            problem = f"Attr '{attr.name}' with list type must have a non-negative minimum, not {attr.minimum}"
        else:
            problem = _default_problem(attr) if attr.has_default else None
        if problem is not None:
            raise _error("Attr", spec, op_name, problem)
        names.add(attr.name)
    for args, specs, what in arg_groups:
        for arg, spec in zip(args, specs):
            where = f" for {what.lower()} '{arg.name}'"
            length = attrs[index[arg.number_attr]] if arg.number_attr in index else None
            if arg.name in names:
                problem = f"Duplicate name: {arg.name}"
            elif arg.number_attr is None:
                problem = None
            elif length is None:
                problem = f"No attr with name '{arg.number_attr}'{where}"
            elif length.type != "int":
                problem = f"Attr '{length.name}' used as length{where} has type {length.type} != int"
            elif length.minimum is not None and length.minimum < 0:
                problem = f"Attr '{length.name}' used as length{where} must have minimum >= 0"
            elif arg.type_list_attr is not None:
                problem = f"Can't have both number_attr and type_list_attr{where}"
            else:
                problem = None
            if problem is not None:
                raise _error(what, spec, op_name, problem)
            names.add(arg.name)


def _default_problem(attr: AttrDef) -> str | None:
    """TF's ValidateAttrValue for a default: its minimum, then its allowed values (C++ type names)."""
    default = attr.default
    values = default if attr.type.startswith("list(") else [default]
    if attr.minimum is not None:
        if attr.type == "int" and default < attr.minimum:
            return f"Value for attr '{attr.name}' of {default} must be at least minimum {attr.minimum}"
        if attr.type != "int" and len(default) < attr.minimum:
            return f"Length for attr '{attr.name}' of {len(default)} must be at least minimum {attr.minimum}"
    if attr.allowed_values is None:
        return None
    for value in values:
        if "string" in attr.type:
            if value.decode() not in attr.allowed_values:
                allowed = ", ".join(f'"{s}"' for s in attr.allowed_values)
                return (f"Value for attr '{attr.name}' of \"{value.decode()}\" is not in the list of allowed "
                        f"values: {allowed}")
        elif value not in attr.allowed_values:
            allowed = ", ".join(_TYPE_NAME_OF[t] for t in attr.allowed_values)
            return (f"Value for attr '{attr.name}' of {_TYPE_NAME_OF[value]} is not in the list of allowed "
                    f"values: {allowed}")
    return None


# Defaults are protobuf text format, as TF parses them: the subset that attr values use.
_TOKEN = re.compile(r"""
    (?P<space>\s+|\#[^\n]*)
  | (?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<num>[-+]?(?:0[xX][0-9A-Fa-f]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?))
  | (?P<ident>[-+]?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}<>\[\]:,])
""", re.VERBOSE | re.ASCII)
_INT = re.compile(r"[-+]?[0-9]+")
_HEX = re.compile(r"([-+]?)0[xX]([0-9A-Fa-f]+)")
_FLOAT_WORDS = frozenset(sign + word for sign in ("", "-", "+") for word in ("inf", "infinity", "nan"))
_BOOL_WORDS = {"true": True, "True": True, "1": True, "false": False, "False": False, "0": False}
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|[xX]([0-9A-Fa-f]{1,2})|(.))", re.DOTALL)
_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34,
                   "?": 63}


def _unescape(text: str) -> bytes:
    """C-unescape a quoted string's body, as TF's CUnescape does (ValueError on a bad escape)."""
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(text):
        out += text[pos:m.start()].encode()
        octal, hexa, char = m.groups()
        if octal is not None:
            if int(octal, 8) > 255:
                raise ValueError(f"Value of \\{octal} exceeds 0xff")
            out.append(int(octal, 8))
        elif hexa is not None:
            out.append(int(hexa, 16))
        elif char in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[char])
        else:
            raise ValueError(f"Unknown escape sequence: \\{char}")
        pos = m.end()
    out += text[pos:].encode()
    return bytes(out)


class _Tokens:
    """A cursor over text-format tokens: (kind, text, start offset, end offset)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[str, str, int, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise ValueError(f"unexpected character at {text[pos:]!r}")
            if m.lastgroup != "space":
                self.items.append((m.lastgroup or "", m.group(), m.start(), m.end()))
            pos = m.end()
        self.pos = 0

    def kind(self) -> str | None:
        return self.items[self.pos][0] if self.pos < len(self.items) else None

    def peek(self) -> str | None:
        return self.items[self.pos][1] if self.pos < len(self.items) else None

    def next(self, kind: str | None = None) -> str:
        if self.pos >= len(self.items) or (kind is not None and self.items[self.pos][0] != kind):
            raise ValueError("unexpected token")
        self.pos += 1
        return self.items[self.pos - 1][1]

    def skip(self, punct: str) -> bool:
        if self.peek() == punct:
            self.pos += 1
            return True
        return False


def _parse_default(attr_type: str, text: str) -> Any:
    """Parse a default as TF's ParseAttrValue does: a scalar, or '[a, b]' for a list type."""
    tokens = _Tokens(text)
    if attr_type.startswith("list("):
        kind = attr_type[5:-1]
        if not tokens.skip("["):
            raise ValueError("expected [")
        value: Any = []
        if not tokens.skip("]"):
            value.append(_parse_scalar(kind, tokens))
            while tokens.skip(","):
                value.append(_parse_scalar(kind, tokens))
            if not tokens.skip("]"):
                raise ValueError("expected ]")
    else:
        value = _parse_scalar(attr_type, tokens)
    if tokens.peek() is not None:
        raise ValueError("trailing text")
    return value


def _parse_scalar(kind: str, tokens: _Tokens) -> Any:
    if kind == "int":
        text = tokens.next("num")
        if _INT.fullmatch(text) is None:
            raise ValueError("not a decimal integer")
        value = int(text)
        if not -(2**63) <= value < 2**63:
            raise ValueError("out of int64 range")
        return value
    if kind == "float":
        token_kind, text = tokens.kind(), tokens.next()
        if token_kind == "ident" and text.lower() in _FLOAT_WORDS:
            return float(text)
        if token_kind != "num":
            raise ValueError("not a float")
        hexa = _HEX.fullmatch(text)
        return _float32(float(int(hexa[1] + hexa[2], 16)) if hexa else float(text))
    if kind == "bool":
        return _BOOL_WORDS[tokens.next()]
    if kind == "string":
        return _unescape(tokens.next("str")[1:-1])
    if kind == "type":
        return _TYPE_ENUM_NAMES[tokens.next("ident")]
    if kind == "tensor":
        opening = tokens.pos
        _parse_message(tokens)
        return tokens.text[tokens.items[opening][3]:tokens.items[tokens.pos - 1][2]].strip(_WS)
    fields = _parse_message(tokens)
    if kind == "shape":
        return _shape_from_fields(fields)
    names = [v for f, v in fields if f == "name"]
    if kind != "func" or len(names) != 1 or not isinstance(names[0], bytes):
        raise ValueError("unsupported value")
    return names[0].decode()


def _parse_message(tokens: _Tokens) -> list[tuple[str, Any]]:
    """Parse '{ field: value field { ... } }' into (field, value) pairs; scalars stay token text."""
    close = {"{": "}", "<": ">"}.get(tokens.next("punct"))
    if close is None:
        raise ValueError("expected a message")
    fields: list[tuple[str, Any]] = []
    while not tokens.skip(close):
        name = tokens.next("ident")
        has_colon = tokens.skip(":")
        if tokens.peek() in ("{", "<"):
            fields.append((name, _parse_message(tokens)))
        elif not has_colon:
            raise ValueError("expected ':'")
        elif tokens.kind() == "str":
            fields.append((name, _parse_scalar("string", tokens)))
        else:
            fields.append((name, tokens.next()))
    return fields


def _shape_from_fields(fields: list[tuple[str, Any]]) -> list[int | None] | None:
    """A TensorShapeProto's fields as our shape value: None for unknown rank, -1 sizes as None."""
    dims: list[int | None] = []
    unknown_rank = False
    for name, value in fields:
        if name == "unknown_rank" and isinstance(value, str):
            unknown_rank = _BOOL_WORDS[value]
        elif name == "dim" and isinstance(value, list):
            sizes = [int(v) for f, v in value if f == "size" and isinstance(v, str) and _INT.fullmatch(v)]
            if len(sizes) > 1 or any(f not in ("size", "name") for f, _ in value) or min(sizes, default=0) < -1:
                raise ValueError("bad dim")
            size = sizes[0] if sizes else 0
            dims.append(None if size == -1 else size)
        else:
            raise ValueError(f"unknown shape field {name}")
    if unknown_rank and dims:
        raise ValueError("unknown rank with dims")
    return None if unknown_rank else dims


def check_attr_value(op_def: OpDef, attr: AttrDef, value: Any, *, param_name: str | None = None) -> Any:
    """Convert and check one attr value with TF1's graph-mode op-wrapper rules and messages.

    None means "use the default" where the attr has one. `param_name` names the input a type attr was
    inferred from, which TF's allowed-types message names instead of the attr.
    """
    if value is None and attr.default is not NO_DEFAULT:
        return _copy_value(attr.type, attr.default)
    kind = attr.type
    if kind.startswith("list("):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{attr.name}' argument to '{_python_op_name(op_def.name)}' Op, "
                            f"not {value!r}.")
        make = _MAKERS[kind[5:-1]]
        result = [make(v, attr.name) for v in value]
        if attr.minimum is not None and len(result) < attr.minimum:
            raise ValueError(f"Attr '{attr.name}' of '{op_def.name}' Op passed list of length {len(result)} "
                             f"less than minimum {attr.minimum}.")
        items = result
    else:
        result = _MAKERS[kind](value, attr.name)
        if attr.minimum is not None and result < attr.minimum:
            raise ValueError(f"Attr '{attr.name}' of '{op_def.name}' Op passed {result} less than minimum "
                             f"{attr.minimum}.")
        items = [result]
    allowed = attr.allowed_values
    if allowed is not None:
        for item in items:
            if isinstance(item, bytes):
                if item.decode() not in allowed:
                    listed = '", "'.join(allowed)
                    raise ValueError(f"Attr '{attr.name}' of '{op_def.name}' Op passed string '{item.decode()}' "
                                     f'not in: "{listed}".')
            elif item not in allowed:
                raise TypeError(f"Value passed to parameter '{param_name or attr.name}' has DataType {item.name} "
                                f"not in list of allowed values: {', '.join(t.name for t in allowed)}")
    return result


def _copy_value(attr_type: str, value: Any) -> Any:
    """A default as a fresh value, so that no node shares (and could mutate) the OpDef's lists."""
    if attr_type == "list(shape)":
        return [None if s is None else list(s) for s in value]
    if attr_type == "shape" and value is not None or attr_type.startswith("list("):
        return list(value)
    return value


def _python_op_name(op_name: str) -> str:
    """TF's generated wrapper name for an op ('FIFOQueueV2' -> 'fifo_queue_v2'), named in its errors."""
    out = []
    for i, c in enumerate(op_name):
        if c.isupper() and i > 0 and (op_name[i - 1].islower()
                                      or (i + 1 < len(op_name) and op_name[i + 1].islower())):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def _make_int(v: Any, arg_name: str) -> int:
    if isinstance(v, str):
        raise TypeError(f"Expected int for argument '{arg_name}' not {v!r}.")
    try:
        return int(v)
    except (ValueError, TypeError):
        raise TypeError(f"Expected int for argument '{arg_name}' not {v!r}.") from None


def _make_float(v: Any, arg_name: str) -> float:
    if not isinstance(v, numbers.Real):
        raise TypeError(f"Expected float for argument '{arg_name}' not {v!r}.")
    return _float32(float(v))


def _float32(v: float) -> float:
    """`v` rounded to float32, as an AttrValue stores it and `get_attr` returns it (0.2 -> 0.2000000029...)."""
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _make_bool(v: Any, arg_name: str) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"Expected bool for argument '{arg_name}' not {v!r}.")
    return v


def _make_str(v: Any, arg_name: str) -> bytes:
    if isinstance(v, str):
        return v.encode()
    if not isinstance(v, bytes):
        raise TypeError(f"Expected string for argument '{arg_name}' not {v!r}.")
    return v


def _make_type(v: Any, arg_name: str) -> dtypes.DType:
    try:
        return dtypes.as_dtype(v).base_dtype
    except TypeError:
        raise TypeError(f"Expected DataType for argument '{arg_name}' not {v!r}.") from None


def _make_shape(v: Any, arg_name: str) -> list[int | None] | None:
    try:
        return _as_shape_list(v)
    except TypeError as e:
        raise TypeError(f"Error converting {arg_name} to a TensorShape: {e}.") from None
    except ValueError as e:
        raise ValueError(f"Error converting {arg_name} to a TensorShape: {e}.") from None


def _as_shape_list(v: Any) -> list[int | None] | None:
    """TF's `as_shape(v)` as None or a list: accepts None, sequences, TensorShapes and single dimensions."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_as_dim(d) for d in v]
    if hasattr(v, "ndims") and hasattr(v, "as_list"):
        return None if v.ndims is None else list(v.as_list())
    try:
        dims = iter(v)
    except TypeError:
        return [_as_dim(v)]
    result = []
    for d in dims:
        try:
            result.append(_as_dim(d))
        except TypeError as e:
            raise TypeError(f"Failed to convert '{v!r}' to a shape: '{d!r}'could not be converted to a dimension. "
                            "A shape should either be single dimension (e.g. 10), or an iterable of dimensions "
                            "(e.g. [1, 10, None]).") from e
    return result


def _as_dim(d: Any) -> int | None:
    """TF's `Dimension(d).value`: None, or an int >= 0 from anything with `__index__` (a Dimension too)."""
    if d is None:
        return None
    index = getattr(d, "__index__", None)
    if index is None:
        raise TypeError("Dimension value must be integer or None or have an __index__ method, got value "
                        f"'{d!r}' with type '{type(d)!r}'")
    value = index()
    if value is None:
        return None
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return int(value)


def _make_tensor(v: Any, arg_name: str) -> Any:
    if v is None:
        raise TypeError(f"Don't know how to convert None to a TensorProto for argument '{arg_name}'.")
    return v


def _make_func(v: Any, arg_name: str) -> Any:
    if isinstance(v, bytes):
        return v.decode()
    if not isinstance(v, str) and not hasattr(v, "name"):
        raise TypeError(f"Don't know how to convert {v!r} to a func for argument {arg_name}")
    return v


_MAKERS: dict[str, Callable[[Any, str], Any]] = {
    "int": _make_int, "float": _make_float, "bool": _make_bool, "string": _make_str, "type": _make_type,
    "shape": _make_shape, "tensor": _make_tensor, "func": _make_func}


def arg_types(args: Sequence[ArgDef], attrs: dict[str, Any]) -> list[dtypes.DType]:
    """The flat dtype list of input or output args under the given attrs (ref args as ref types)."""
    result: list[dtypes.DType] = []
    for arg in args:
        if arg.type_list_attr:
            types = list(attrs[arg.type_list_attr])
        else:
            t = arg.type if arg.type is not None else attrs[arg.type_attr]
            types = [t] * attrs[arg.number_attr] if arg.number_attr else [t]
        if arg.is_ref:
            types = [t._as_ref for t in types]
        result.extend(types)
    return result
