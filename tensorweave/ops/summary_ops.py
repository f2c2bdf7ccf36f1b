"""Summary ops: ScalarSummary, HistogramSummary, ImageSummary, AudioSummaryV2, TensorSummaryV2 and MergeSummary,
with TF1's `tf.summary.scalar/histogram/image/audio/text/tensor_summary/merge/merge_all`.

Each kernel writes a serialized `Summary` protobuf whose bytes are TF's for the same input: histograms over
TF's exponential bucket limits (±1e-12 growing by 10% up to 1e20, ±DBL_MAX, and 0) with runs of empty buckets
collapsed and sums accumulated in order; images as PNG encoded as TF's libpng does (adaptive row filters,
zlib level 6 with memLevel 9 and Z_FILTERED, the window shrunk to the image, 8 KiB IDAT chunks), float
images scaled into uint8 by TF's rules; audio as 16-bit PCM WAV. Tags follow TF: `tag/image/0` ... when
`max_images` > 1, else `tag/image`. The wrappers scope names as TF1's `summary_scope` does (a family
prefixes the tag and the scope) and add each summary to `GraphKeys.SUMMARIES` unless told otherwise.
"""

from __future__ import annotations

import re
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from google.protobuf import json_format, message
from google.protobuf.message import DecodeError

from tensorweave import errors
from tensorweave.formats import events, tensor_proto
from tensorweave.formats.protos import Event, Summary, SummaryDescription, SummaryMetadata, TensorProto
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.png16_codec import encode_png
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_REAL = "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"


def _scalar_output(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Every summary op yields one serialized Summary; TF checks its inputs only when it runs."""
    return [tensor_shape.TensorShape([])]


def _serialized(summary: Any) -> np.ndarray:
    return np.asarray(summary.SerializeToString(), dtype=object)


def _scalar_tag(ctx: OpKernelContext, tag: Any, message_text: str) -> str:
    if np.ndim(tag) != 0:
        raise invalid_argument(ctx, message_text)
    return _text(tag.item() if isinstance(tag, np.ndarray) else tag)


def _text(value: Any) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


# -- ScalarSummary -------------------------------------------------------------------------------------

ScalarSummary = Op("ScalarSummary", inputs=["tags: string", "values: T"], outputs=["summary: string"],
                   attrs=[_REAL])
ScalarSummary.shape(_scalar_output)


@ScalarSummary.kernel("CPU")
def _scalar_summary(ctx: OpKernelContext, tags: Any, values: Any) -> np.ndarray:
    tags, values = np.asarray(tags, dtype=object), np.asarray(values)
    if tags.shape != values.shape:
        single = f" (tag '{_text(tags.reshape(-1)[0])}')" if tags.size == 1 else ""
        raise invalid_argument(ctx, f"tags and values are not the same shape: {tensor_shape.shape_string(tags.shape)}"
                                    f" != {tensor_shape.shape_string(values.shape)}{single}")
    summary = Summary()
    for tag, value in zip(tags.reshape(-1).tolist(), values.astype(np.float32).reshape(-1).tolist()):
        summary.value.add(tag=_text(tag), simple_value=value)
    return _serialized(summary)


# -- HistogramSummary ----------------------------------------------------------------------------------

def _default_bucket_limits() -> np.ndarray:
    """TF's histogram buckets: 1e-12 times 1.1 repeatedly (each step rounded, as C++'s `v *= 1.1`) below
    1e20, then DBL_MAX; the negatives mirrored in front and 0 between."""
    steps = np.full(800, 1.1)
    steps[0] = 1e-12
    positive = np.cumprod(steps)
    positive = np.append(positive[positive < 1e20], sys.float_info.max)
    return np.concatenate([-positive[::-1], [0.0], positive])


_BUCKET_LIMITS = _default_bucket_limits()

HistogramSummary = Op("HistogramSummary", inputs=["tag: string", "values: T"], outputs=["summary: string"],
                      attrs=[_REAL.replace("}", "} = DT_FLOAT")])
HistogramSummary.shape(_scalar_output)


@HistogramSummary.kernel("CPU")
def _histogram_summary(ctx: OpKernelContext, tag: Any, values: Any) -> np.ndarray:
    tag = _scalar_tag(ctx, tag, "tags must be scalar")
    values = np.asarray(values).astype(np.float64).reshape(-1)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        first = values[bad[0]]
        raise invalid_argument(ctx, f"Nan in summary histogram for: {tag}" if np.isnan(first)
                               else f"Infinity in Histogram for: {tag}")
    summary = Summary()
    summary.value.add(tag=tag).histo.CopyFrom(histogram_proto(values))
    return _serialized(summary)


def histogram_proto(values: np.ndarray) -> Any:
    """A HistogramProto of these finite doubles as TF's `Histogram::EncodeToProto(preserve_zero_buckets=false)`:
    each run of empty buckets is one entry at the run's last limit."""
    counts = np.bincount(np.searchsorted(_BUCKET_LIMITS, values, side="right"),
                         minlength=len(_BUCKET_LIMITS)).astype(np.float64)
    filled = counts > 0
    kept = filled | np.append(filled[1:], True)  # a filled bucket, or the last of a run of empty ones
    histo = Summary.Value().histo
    histo.min = values.min() if values.size else sys.float_info.max
    histo.max = values.max() if values.size else -sys.float_info.max
    histo.num = values.size
    histo.sum = np.cumsum(values)[-1] if values.size else 0.0  # in order, as TF adds them
    histo.sum_squares = np.cumsum(values * values)[-1] if values.size else 0.0
    histo.bucket_limit.extend(_BUCKET_LIMITS[kept].tolist())
    histo.bucket.extend(counts[kept].tolist())
    return histo


# -- ImageSummary and PNG ------------------------------------------------------------------------------

ImageSummary = Op("ImageSummary", inputs=["tag: string", "tensor: T"], outputs=["summary: string"],
                  attrs=["max_images: int >= 1 = 3", "T: {uint8, float, half, double} = DT_FLOAT",
                         "bad_color: tensor = { dtype: DT_UINT8 tensor_shape { dim { size: 4 } } "
                         "int_val: 255 int_val: 0 int_val: 0 int_val: 255 }"])
ImageSummary.shape(_scalar_output)

_DEFAULT_BAD_COLOR = np.array([255, 0, 0, 255], np.uint8)


def _bad_color(value: Any) -> np.ndarray:
    """The `bad_color` attr as an array: the OpDef default is TensorProto text, a given one a proto or array."""
    if isinstance(value, str):
        return _DEFAULT_BAD_COLOR
    if isinstance(value, message.Message):
        return tensor_proto.make_ndarray(TensorProto.FromString(value.SerializeToString()))
    return np.asarray(value)


@ImageSummary.kernel("CPU")
def _image_summary(ctx: OpKernelContext, tag: Any, tensor: Any, max_images: int, bad_color: Any) -> np.ndarray:
    tag = _scalar_tag(ctx, tag, "Tags must be a scalar")
    bad_color = _bad_color(bad_color)
    if bad_color.ndim != 1:
        raise invalid_argument(ctx, f"bad_color must be a vector, got shape "
                                    f"{tensor_shape.shape_string(bad_color.shape)}")
    images = np.asarray(tensor)
    if images.ndim != 4 or images.shape[3] not in (1, 3, 4):
        raise invalid_argument(ctx, f"Tensor must be 4-D with last dim 1, 3, or 4, not "
                                    f"{tensor_shape.shape_string(images.shape)}")
    summary = Summary()
    if images.shape[0] == 0:
        return _serialized(summary)
    if 0 in images.shape[1:]:
        raise invalid_argument(ctx, f"input tensor must have non-zero dims. Found: "
                                    f"[{', '.join(map(str, images.shape))}].")
    images = images[:max_images]
    depth = images.shape[3]
    if images.dtype != np.uint8:
        if bad_color.shape[0] < depth:
            raise invalid_argument(ctx, f"expected depth <= bad_color.size, got depth = {depth}, "
                                        f"bad_color.size = {bad_color.shape[0]}")
        images = _float_images_as_uint8(images, bad_color[:depth].astype(np.uint8))
    for i, image in enumerate(images):
        value = summary.value.add(tag=f"{tag}/image/{i}" if max_images > 1 else f"{tag}/image")
        value.image.height, value.image.width = image.shape[:2]
        value.image.colorspace = depth
        value.image.encoded_image_string = encode_png(image)
    return _serialized(summary)


def _float_images_as_uint8(images: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """TF's float-image scaling, per image over its finite pixels (a pixel with any non-finite channel is
    `bad_color`): all non-negative scales by 255/max, else by 127/max|v| around 128; a range under 1e-6 is 0.
    The scale is computed in float32 and the affine map in the image's own type, then truncated to uint8."""
    n = images.shape[0]
    finite = np.isfinite(images).all(axis=3, keepdims=True)
    flat_finite = np.broadcast_to(finite, images.shape).reshape(n, -1)
    flat = images.reshape(n, -1).astype(np.float32)
    low = np.where(flat_finite, flat, np.float32(np.inf)).min(axis=1)
    high = np.where(flat_finite, flat, np.float32(-np.inf)).max(axis=1)
    negative = low < 0
    top = np.where(negative, np.maximum(np.abs(low), np.abs(high)), high)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        scale = np.where(top < np.float32(1e-6), np.float32(0),
                         np.where(negative, np.float32(127) / top, np.float32(255) / top)).astype(np.float32)
    offset = np.where(negative, np.float32(128), np.float32(0))
    kind = images.dtype.type
    shaped = (n, 1, 1, 1)
    with np.errstate(invalid="ignore"):
        scaled = images * scale.astype(kind).reshape(shaped) + offset.astype(kind).reshape(shaped)
        out = np.where(finite, scaled, 0).astype(np.uint8)
    return np.where(finite, out, bad_color)


# -- AudioSummaryV2 and WAV ----------------------------------------------------------------------------

AudioSummaryV2 = Op("AudioSummaryV2", inputs=["tag: string", "tensor: float", "sample_rate: float"],
                    outputs=["summary: string"], attrs=["max_outputs: int >= 1 = 3"])
AudioSummaryV2.shape(_scalar_output)


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """(frames, channels) float samples as TF's 16-bit little-endian PCM WAV: scaled by 32768, clamped to
    int16, rounded half away from zero (NaN is 0, as on TF's x86 builds)."""
    frames, channels = samples.shape
    scaled = np.clip(samples.astype(np.float64) * 32768, -32768, 32767)
    pcm = np.nan_to_num(np.trunc(scaled + np.copysign(0.5, scaled))).astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * channels * 2, channels * 2, 16)
    return (b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVEfmt " + struct.pack("<I", len(fmt)) + fmt
            + b"data" + struct.pack("<I", len(pcm)) + pcm)


@AudioSummaryV2.kernel("CPU")
def _audio_summary_v2(ctx: OpKernelContext, tag: Any, tensor: Any, sample_rate: Any, max_outputs: int) -> np.ndarray:
    tag = _scalar_tag(ctx, tag, "Tag must be a scalar")
    rate = np.asarray(sample_rate)
    if rate.size != 1:
        raise invalid_argument(ctx, "sample_rate must be rank-0 or contain a single value")
    rate = float(rate.reshape(-1)[0])
    if not rate > 0:
        raise invalid_argument(ctx, "sample_rate must be > 0")
    sounds = np.asarray(tensor)
    if sounds.ndim not in (2, 3):
        raise invalid_argument(ctx, f"Tensor must be 3-D or 2-D, got: {tensor_shape.shape_string(sounds.shape)}")
    if sounds.ndim == 2:
        sounds = sounds[:, :, None]
    summary = Summary()
    for i, sound in enumerate(sounds[:max_outputs]):
        value = summary.value.add(tag=f"{tag}/audio/{i}" if max_outputs > 1 else f"{tag}/audio")
        value.audio.sample_rate = rate
        value.audio.num_channels, value.audio.length_frames = sound.shape[1], sound.shape[0]
        value.audio.encoded_audio_string = encode_wav(sound, int(np.rint(rate)))  # to the nearest, ties even
        value.audio.content_type = "audio/wav"
    return _serialized(summary)


# -- TensorSummaryV2 -----------------------------------------------------------------------------------

TensorSummaryV2 = Op("TensorSummaryV2", inputs=["tag: string", "tensor: T", "serialized_summary_metadata: string"],
                     outputs=["summary: string"], attrs=["T: type"])
TensorSummaryV2.shape(_scalar_output)


@TensorSummaryV2.kernel("CPU")
def _tensor_summary_v2(ctx: OpKernelContext, tag: Any, tensor: Any, serialized_summary_metadata: Any,
                       T: Any) -> np.ndarray:  # noqa: N803 - TF's attr name
    tag = _scalar_tag(ctx, tag, "tag must be scalar")
    if np.ndim(serialized_summary_metadata) != 0:
        raise invalid_argument(ctx, "serialized_summary_metadata must be scalar")
    summary = Summary()
    value = summary.value.add(tag=tag)
    value.metadata.SetInParent()
    try:
        value.metadata.MergeFromString(np.asarray(serialized_summary_metadata, dtype=object).item())
    except message.DecodeError:  # TF keeps the metadata it could not parse empty
        value.metadata.Clear()
    value.tensor.CopyFrom(_tensor_as_proto(np.asarray(tensor), dtypes.as_dtype(T).as_datatype_enum))
    return _serialized(summary)


def _tensor_as_proto(array: np.ndarray, enum: int) -> Any:
    """As TF's kernel stores the tensor: strings in `string_val`, every other type in `tensor_content`."""
    proto = TensorProto(dtype=enum, tensor_shape=tensor_proto.as_shape_proto(array.shape))
    if array.dtype == object or array.dtype.kind in "SU":
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in array.reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


# -- MergeSummary --------------------------------------------------------------------------------------

MergeSummary = Op("MergeSummary", inputs=["inputs: N * string"], outputs=["summary: string"],
                  attrs=["N: int >= 1"])
MergeSummary.shape(_scalar_output)


@MergeSummary.kernel("CPU")
def _merge_summary(ctx: OpKernelContext, *inputs: Any) -> np.ndarray:
    merged = Summary()
    seen: set[str] = set()
    for serialized in (s for x in inputs for s in np.asarray(x, dtype=object).reshape(-1).tolist()):
        try:
            summary = Summary.FromString(serialized)
        except message.DecodeError:
            raise invalid_argument(ctx, "Could not parse one of the summary inputs") from None
        for value in summary.value:
            if value.tag and value.tag in seen:  # TensorSummary values may have no tag
                raise invalid_argument(ctx, f"Duplicate tag {value.tag} found in summary inputs ")
            seen.add(value.tag)
        merged.value.extend(summary.value)
    return _serialized(merged)


# -- tf.summary ----------------------------------------------------------------------------------------

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w.]")


def _clean_tag(name: str | None) -> str | None:
    """A summary name with the characters TensorBoard rejects replaced by '_' and no leading '/', logged."""
    if name is None:
        return None
    cleaned = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if cleaned != name:
        tf_logging.info(f"Summary name {name} is illegal; using {cleaned} instead.")
    return cleaned


def _summarize(name: str, family: str | None, collections: Sequence[str] | None, tensor: Any,
               build: Callable[[str, str], Tensor], default_name: str | None = None) -> Tensor:
    """TF1's summary scope around `build(tag, scope)`, and the summary collected (in SUMMARIES by default).

    The scope is `family/name` (made unique); the tag is the scope with the family once more in front, so
    TensorBoard shows the summary in the family's tab.
    """
    name, family = _clean_tag(name), _clean_tag(family)
    with name_scope(name if family is None else f"{family}/{name}", default_name, [tensor]) as scope:
        summary = build(scope.rstrip("/") if family is None else f"{family}/{scope.rstrip('/')}", scope)
    for key in [GraphKeys.SUMMARIES] if collections is None else collections:
        add_to_collection(key, summary)
    return summary


@tf_export("summary.scalar")
def scalar(name: str, tensor: Any, collections: Sequence[str] | None = None, family: str | None = None) -> Tensor:
    """A summary of one real scalar, which TensorBoard plots against the step."""
    return _summarize(name, family, collections, tensor, lambda tag, scope: ScalarSummary(tag, tensor, name=scope))


@tf_export("summary.histogram")
def histogram(name: str, values: Any, collections: Sequence[str] | None = None,
              family: str | None = None) -> Tensor:
    """A summary of the distribution of `values` over TF's exponential buckets."""
    return _summarize(name, family, collections, values,
                      lambda tag, scope: HistogramSummary(tag, values, name=scope), "HistogramSummary")


@tf_export("summary.image")
def image(name: str, tensor: Any, max_outputs: int = 3, collections: Sequence[str] | None = None,
          family: str | None = None) -> Tensor:
    """A summary of up to `max_outputs` images of a [batch, height, width, 1|3|4] tensor, as PNG."""
    return _summarize(name, family, collections, tensor,
                      lambda tag, scope: ImageSummary(tag, tensor, max_images=max_outputs, name=scope))


@tf_export("summary.audio")
def audio(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3, collections: Sequence[str] | None = None,
          family: str | None = None) -> Tensor:
    """A summary of up to `max_outputs` sounds of a [batch, frames(, channels)] float tensor in [-1, 1], as WAV."""

    def build(tag: str, scope: str) -> Tensor:
        rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        return AudioSummaryV2(tag, tensor, rate, max_outputs=max_outputs, name=scope)

    return _summarize(name, family, collections, tensor, build)


@tf_export("summary.tensor_summary")
def tensor_summary(name: str, tensor: Any, summary_description: str | None = None,
                   collections: Sequence[str] | None = None, summary_metadata: Any = None,
                   family: str | None = None, display_name: str | None = None) -> Tensor:
    """A summary holding a whole tensor, with the plugin metadata that tells TensorBoard how to show it."""
    if summary_metadata is None:
        summary_metadata = SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    return _summarize(name, family, collections, tensor,
                      lambda tag, scope: TensorSummaryV2(tag, tensor, serialized, name=scope))


@tf_export("summary.text")
def text(name: str, tensor: Tensor, collections: Sequence[str] | None = None) -> Tensor:
    """A tensor summary of strings for TensorBoard's text plugin (markdown)."""
    if tensor.dtype != dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got {tensor.dtype}")
    metadata = SummaryMetadata()
    metadata.plugin_data.plugin_name = "text"
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata, collections=collections)


@tf_export("summary.merge")
def merge(inputs: Sequence[Any], collections: Sequence[str] | None = None, name: str | None = None) -> Tensor:
    """One Summary of the values of all of `inputs` (a tag found twice fails the run)."""
    name = _clean_tag(name)
    with name_scope(name, "Merge", inputs):
        summary = MergeSummary(list(inputs), name=name)
    for key in collections or []:
        add_to_collection(key, summary)
    return summary


@tf_export("summary.merge_all")
def merge_all(key: str = GraphKeys.SUMMARIES, scope: str | None = None, name: str | None = None) -> Tensor | None:
    """The merge of every summary in the collection `key` (None when it has none)."""
    summaries = get_collection(key, scope=scope)
    return merge(summaries, name=name) if summaries else None


# -- the TF2-style summary helpers TF1 also exports --------------------------------------------------------


@tf_export("summary.get_summary_description")
def get_summary_description(node_def: Any) -> Any:
    """The SummaryDescription a TensorSummary node carries as JSON in its `description` attr."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    return json_format.Parse(node_def.attr["description"].s.decode(), SummaryDescription())


@tf_export("summary.all_v2_summary_ops")
def all_v2_summary_ops() -> list:
    """The default graph's V2-style (tf.contrib.summary) summary ops: tensorweave builds none, so TF's
    collection for them stays empty unless a program fills it."""
    return get_collection("_SUMMARY_V2")


@tf_export("summary.initialize")
def initialize(graph: Any = None, session: Any = None) -> None:
    """TF initializes the thread's default tf.contrib.summary writer; tensorweave has no such writers (its
    summaries go through FileWriter), so there is never a default one, and TF's error says so."""
    raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")


# -- the summary-writer ops (TF 2's summary writer resource, which FileWriter(session=...) drives) -------------

SummaryWriter = Op("SummaryWriter", outputs=["writer: resource"],
                   attrs=["shared_name: string = ''", "container: string = ''"], is_stateful=True)
CreateSummaryFileWriter = Op("CreateSummaryFileWriter", inputs=["writer: resource", "logdir: string",
                                                                "max_queue: int32", "flush_millis: int32",
                                                                "filename_suffix: string"], is_stateful=True)
ImportEvent = Op("ImportEvent", inputs=["writer: resource", "event: string"], is_stateful=True)
FlushSummaryWriter = Op("FlushSummaryWriter", inputs=["writer: resource"], is_stateful=True)
CloseSummaryWriter = Op("CloseSummaryWriter", inputs=["writer: resource"], is_stateful=True)
SummaryWriter.shape(_scalar_output)
for _op in (CreateSummaryFileWriter, ImportEvent, FlushSummaryWriter, CloseSummaryWriter):
    _op.shape(lambda ctx: [])


class _WriterHandle:
    """A SummaryWriter's handle: where its writer lives (made by CreateSummaryFileWriter, dropped by
    CloseSummaryWriter), as TF's ResourceHandle names a resource that may not exist yet."""

    def __init__(self, resources: Any, container: str, name: str) -> None:
        self.resources, self.container, self.name = resources, container, name

    def writer(self) -> events.EventFileWriter:
        try:
            return self.resources.lookup(self.container, self.name)
        except errors.NotFoundError:
            raise errors.NotFoundError(None, None, f"Resource {self.container or 'localhost'}/{self.name}/"
                                                   "N10tensorflow22SummaryWriterInterfaceE does not exist.") from None


@SummaryWriter.kernel("CPU")
def _summary_writer(ctx: OpKernelContext, shared_name: bytes, container: bytes) -> _WriterHandle:
    return _WriterHandle(ctx.resources, _text(container), _text(shared_name) or ctx.name)


@CreateSummaryFileWriter.kernel("CPU")
def _create_summary_file_writer(ctx: OpKernelContext, writer: _WriterHandle, logdir: Any, max_queue: Any,
                                flush_millis: Any, filename_suffix: Any) -> None:
    writer.resources.lookup_or_create(writer.container, writer.name, lambda: events.EventFileWriter(
        _text(np.asarray(logdir).item()), int(max_queue), int(flush_millis) / 1000,
        _text(np.asarray(filename_suffix).item()), process_tag=True))


@ImportEvent.kernel("CPU")
def _import_event(ctx: OpKernelContext, writer: _WriterHandle, event: Any) -> None:
    try:
        parsed = Event.FromString(np.asarray(event).item())
    except DecodeError:
        raise invalid_argument(ctx, "Bad Event proto") from None
    writer.writer().add_event(parsed)


@FlushSummaryWriter.kernel("CPU")
def _flush_summary_writer(ctx: OpKernelContext, writer: _WriterHandle) -> None:
    writer.writer().flush()


@CloseSummaryWriter.kernel("CPU")
def _close_summary_writer(ctx: OpKernelContext, writer: _WriterHandle) -> None:
    writer.writer().close()
    writer.resources.delete(writer.container, writer.name)
