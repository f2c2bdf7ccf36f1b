"""Ops between serialized protos and tensors: DecodeJSONExample (`tf.io.decode_json_example`), DecodeProtoV2
and EncodeProto (`tf.io.decode_proto`, `tf.io.encode_proto`).

Messages come from the private descriptor pool of `formats/protos.py` ("local://"), or from a
FileDescriptorSet the op names, so the bytes these ops read and write are the wire format real TensorFlow
reads and writes. A message's fields map to tensors as TF's: one row of values per message, padded with the
field's default to the longest row, with a `sizes` tensor saying how many values each message holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from google.protobuf import (
    descriptor,
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message,
    message_factory,
    text_format,
)

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank_at_least
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export

# -- DecodeJSONExample ---------------------------------------------------------------------------------

DecodeJSONExample = Op("DecodeJSONExample", inputs=["json_examples: string"], outputs=["binary_examples: string"])


@DecodeJSONExample.shape
def _decode_json_example_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@DecodeJSONExample.kernel("CPU")
def _decode_json_example(ctx: OpKernelContext, json_examples: Any) -> Any:
    """Each string, a tf.train.Example in protobuf's JSON mapping, as the Example's binary serialization: the
    same message as TF's (feature keys in sorted order), with int64 and float lists packed as the .proto
    declares them where TF's JSON converter writes them unpacked; parsers read both alike."""
    def decode(text: bytes) -> bytes:
        example = protos.Example()
        try:
            json_format.Parse(text, example)
        except json_format.ParseError as e:
            raise invalid_argument(ctx, f"Error while parsing JSON: {e}") from None
        return example.SerializeToString(deterministic=True)

    return np.asarray(np.frompyfunc(decode, 1, 1)(json_examples), dtype=object).reshape(np.shape(json_examples))


@tf_export("io.decode_json_example", "decode_json_example")
def decode_json_example(json_examples: Any, name: str | None = None) -> Tensor:
    """tf.train.Example protos written in JSON (as `json_format.MessageToJson` writes them) to binary ones, for
    the parsing ops."""
    return DecodeJSONExample(json_examples, name=name)


# -- DecodeProtoV2 and EncodeProto ---------------------------------------------------------------------

_FD = descriptor.FieldDescriptor
# A field's wire type -> (its name in TF's messages, the output dtypes TF converts it to)
_FIELD_TYPES = {
    _FD.TYPE_DOUBLE: ("double", (dtypes.float64, dtypes.float32)),
    _FD.TYPE_FLOAT: ("float", (dtypes.float32, dtypes.float64)),
    _FD.TYPE_INT64: ("int64", (dtypes.int64,)),
    _FD.TYPE_SINT64: ("sint64", (dtypes.int64,)),
    _FD.TYPE_SFIXED64: ("sfixed64", (dtypes.int64,)),
    _FD.TYPE_UINT64: ("uint64", (dtypes.uint64, dtypes.int64)),
    _FD.TYPE_FIXED64: ("fixed64", (dtypes.uint64, dtypes.int64)),
    _FD.TYPE_INT32: ("int32", (dtypes.int32, dtypes.int64)),
    _FD.TYPE_SINT32: ("sint32", (dtypes.int32, dtypes.int64)),
    _FD.TYPE_SFIXED32: ("sfixed32", (dtypes.int32, dtypes.int64)),
    _FD.TYPE_UINT32: ("uint32", (dtypes.uint32, dtypes.int64)),
    _FD.TYPE_FIXED32: ("fixed32", (dtypes.uint32, dtypes.int64)),
    _FD.TYPE_ENUM: ("enum", (dtypes.int32,)),
    _FD.TYPE_BOOL: ("bool", (dtypes.bool,)),
    _FD.TYPE_STRING: ("string", (dtypes.string,)),
    _FD.TYPE_BYTES: ("bytes", (dtypes.string,)),
    _FD.TYPE_MESSAGE: ("message", (dtypes.string,)),
    _FD.TYPE_GROUP: ("group", (dtypes.string,)),
}


def _message_class(ctx: OpKernelContext, message_type: str, descriptor_source: str) -> type[message.Message]:
    """The message class of `message_type` from `descriptor_source`: "local://" (the project's protos), a
    FileDescriptorSet as "bytes://<serialized set>", or the path of a file holding one."""
    if descriptor_source == "local://":
        pool = protos.POOL
    else:
        if descriptor_source.startswith("bytes://"):
            serialized = descriptor_source[len("bytes://"):].encode("latin-1")
        else:
            serialized = gfile.GFile(descriptor_source, "rb").read()
        pool = descriptor_pool.DescriptorPool()
        for file_proto in descriptor_pb2.FileDescriptorSet.FromString(serialized).file:
            pool.Add(file_proto)
    try:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(message_type))
    except KeyError:
        raise invalid_argument(ctx, f"No descriptor found for message type {message_type}") from None


def _fields(ctx: OpKernelContext, cls: type[message.Message], field_names: Sequence[Any]) -> list[Any]:
    fields = []
    for name in field_names:
        name = _text(name)
        field = cls.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise invalid_argument(ctx, f"Unknown field: {name} in message type {cls.DESCRIPTOR.full_name}")
        fields.append(field)
    return fields


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _field_values(field: Any, value: Any) -> list:
    """A parsed field's values as TF outputs them: a list (empty when absent), submessages serialized."""
    if value is None:
        return []
    values = list(value) if field.is_repeated else [value]
    if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return [v.SerializeToString() for v in values]
    if field.type == _FD.TYPE_STRING:
        return [v.encode() for v in values]
    return values


def _default(field: Any) -> Any:
    """The value that pads a field's rows: its declared default (a repeated field's element type's own)."""
    if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return b""
    if field.is_repeated:
        if field.type == _FD.TYPE_ENUM:
            return field.enum_type.values[0].number
        return b"" if field.type in (_FD.TYPE_STRING, _FD.TYPE_BYTES) else 0
    if field.type == _FD.TYPE_STRING:
        return field.default_value.encode()
    return field.default_value


def _padded(counts: np.ndarray, values: list, default: Any, dtype: dtypes.DType) -> np.ndarray:
    """Each message's values in a row, padded with `default` to the longest row (one wide at least, as TF's)."""
    width = max(int(counts.max()) if counts.size else 0, 1)
    np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
    out = np.full((counts.size, width), default, dtype=np_dtype)
    out[np.arange(width) < counts[:, None]] = np.asarray(values, dtype=np_dtype)
    return out


DecodeProtoV2 = Op("DecodeProtoV2", inputs=["bytes: string"], outputs=["sizes: int32", "values: output_types"],
                   attrs=["message_type: string", "field_names: list(string)", "output_types: list(type) >= 0",
                          "descriptor_source: string = 'local://'", "message_format: string = 'binary'",
                          "sanitize: bool = false"])


@DecodeProtoV2.shape
def _decode_proto_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    messages = ctx.input_shape(0)
    fields = len(ctx.attr("field_names"))
    return [messages.concatenate([fields])] + [messages.concatenate([None])] * len(ctx.attr("output_types"))


@DecodeProtoV2.kernel("CPU")
def _decode_proto(ctx: OpKernelContext, bytes: Any, message_type: str, field_names: Sequence[Any],  # noqa: A002
                  output_types: Sequence[dtypes.DType], descriptor_source: str, message_format: str,
                  sanitize: bool) -> list:
    """Each message's fields as padded rows, with how many values each message holds."""
    message_format = _text(message_format)
    if len(field_names) != len(output_types):
        raise invalid_argument(ctx, "field_names and output_types attributes must have the same length")
    if message_format not in ("binary", "text"):
        raise invalid_argument(ctx, "message_format must be 'binary' or 'text'")
    cls = _message_class(ctx, _text(message_type), _text(descriptor_source))
    fields = _fields(ctx, cls, field_names)
    for field, dtype in zip(fields, output_types):
        type_name, allowed = _FIELD_TYPES[field.type]
        if dtype not in allowed:
            raise invalid_argument(ctx, f"Unexpected output type for {field.full_name}: {type_name} to "
                                        f"DT_{dtypes.type_string(dtype).upper()}")

    def parse(data: bytes) -> list:
        msg = cls()
        try:
            if message_format == "text":
                text_format.Parse(data.decode(), msg)
            else:
                msg.ParseFromString(data)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise invalid_argument(ctx, f"Unable to parse text message: {e}") from None
        except message.DecodeError:
            raise errors.DataLossError(ctx.node_def, None, "Failed to parse the message: not a valid "
                                                           f"{cls.DESCRIPTOR.full_name}") from None
        present = {field.name: value for field, value in msg.ListFields()}
        return [_field_values(field, present.get(field.name)) for field in fields]

    flat = bytes.reshape(-1)
    parsed = list(np.frompyfunc(parse, 1, 1)(flat)) if flat.size else []
    counts = np.array([[len(v) for v in row] for row in parsed], dtype=np.int32).reshape(flat.size, len(fields))
    outputs = [counts.reshape(bytes.shape + (len(fields),))]
    for i, (field, dtype) in enumerate(zip(fields, output_types)):
        values = [v for row in parsed for v in row[i]]
        padded = _padded(counts[:, i], values, _default(field), dtype)
        outputs.append(padded.reshape(bytes.shape + (padded.shape[-1],)))
    return outputs


@tf_export("io.decode_proto")
def decode_proto(bytes: Any, message_type: str, field_names: Sequence[str],  # noqa: A002 - TF's name
                 output_types: Sequence[Any], descriptor_source: str = "local://", message_format: str = "binary",
                 sanitize: bool = False, name: str | None = None) -> tuple[Tensor, list[Tensor]]:
    """`(sizes, values)`: the listed fields of each serialized `message_type` proto, one padded tensor per
    field, and how many values each message had in each field."""
    outputs = DecodeProtoV2(bytes, message_type=message_type, field_names=list(field_names),
                            output_types=list(output_types), descriptor_source=descriptor_source,
                            message_format=message_format, sanitize=sanitize, name=name)
    return outputs[0], outputs[1:]


EncodeProto = Op("EncodeProto", inputs=["sizes: int32", "values: Tinput_types"], outputs=["bytes: string"],
                 attrs=["field_names: list(string)", "message_type: string",
                        "descriptor_source: string = 'local://'", "Tinput_types: list(type) >= 1"])


@EncodeProto.shape
def _encode_proto_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    sizes = with_rank_at_least(ctx.input_shape(0), 1)
    return [sizes[:-1]]


def _field_value(field: Any, value: Any) -> Any:
    if field.type == _FD.TYPE_STRING:
        return value.decode()
    if field.type == _FD.TYPE_BOOL:
        return bool(value)
    return value.item() if isinstance(value, np.generic) else value


@EncodeProto.kernel("CPU")
def _encode_proto(ctx: OpKernelContext, sizes: Any, *values: Any, field_names: Sequence[Any], message_type: str,
                  descriptor_source: str, Tinput_types: Sequence[dtypes.DType]) -> Any:  # noqa: N803
    """Each message built from the first `sizes[..., i]` values of each field's row, serialized."""
    cls = _message_class(ctx, _text(message_type), _text(descriptor_source))
    fields = _fields(ctx, cls, field_names)
    if len(fields) != len(values) or sizes.shape[-1:] != (len(fields),):
        raise invalid_argument(ctx, "sizes should be batch_size + [len(field_names)]; values should match "
                                    "field_names in number")
    for field, dtype in zip(fields, Tinput_types):
        type_name, allowed = _FIELD_TYPES[field.type]
        if dtype not in allowed:
            raise invalid_argument(ctx, f"Incompatible type for field {field.name}.  Saw dtype: "
                                        f"{dtypes.type_string(dtype)} but field type is: {type_name}")
    count = int(np.prod(sizes.shape[:-1]))
    counts = sizes.reshape(count, len(fields))
    rows = [np.asarray(v).reshape(count, -1) for v in values]
    for i, row in enumerate(rows):
        over = np.flatnonzero(counts[:, i] > row.shape[-1])
        if over.size:
            raise invalid_argument(ctx, "Size to write must not be larger than value tensor; but saw: "
                                        f"{counts[over[0], i]} > {row.shape[-1]} at message {over[0]} field {i}")

    def encode(m: int) -> bytes:
        msg = cls()
        for field, row, n in zip(fields, rows, counts[m]):
            items = [_field_value(field, v) for v in row[m, :n]]
            if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
                if field.is_repeated:
                    for item in items:
                        getattr(msg, field.name).add().ParseFromString(item)
                elif items:
                    getattr(msg, field.name).ParseFromString(items[0])
            elif field.is_repeated:
                getattr(msg, field.name).extend(items)
            elif items:
                setattr(msg, field.name, items[0])
        return msg.SerializeToString()

    encoded = np.frompyfunc(encode, 1, 1)(np.arange(count)) if count else np.zeros(0, object)
    return np.asarray(encoded, dtype=object).reshape(sizes.shape[:-1])


@tf_export("io.encode_proto")
def encode_proto(sizes: Any, values: Sequence[Any], field_names: Sequence[str], message_type: str,
                 descriptor_source: str = "local://", name: str | None = None) -> Tensor:
    """Serialized `message_type` protos from per-field value rows (the inverse of `decode_proto`)."""
    return EncodeProto(sizes, list(values), field_names=list(field_names), message_type=message_type,
                       descriptor_source=descriptor_source, name=name)
