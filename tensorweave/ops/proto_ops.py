"""Ops between serialized protos and other encodings: DecodeJSONExample (`tf.io.decode_json_example`).

Messages come from the private descriptor pool of `formats/protos.py`, so the bytes these ops write are the
wire format real TensorFlow reads and writes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf import json_format

from tensorweave.formats import protos
from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
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
