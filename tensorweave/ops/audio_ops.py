"""Audio codecs: 16-bit PCM WAV files to and from float tensors (`tf.audio`).

Samples are int16 scaled by 2^15: encoding rounds half away from zero and clamps to [-32768, 32767], so
1.0 becomes 32767 and -1.0 becomes -32768, byte for byte as TF writes them.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

_SCALE = 32768.0

# -- DecodeWav ----------------------------------------------------------------------------------------------

DecodeWav = Op("DecodeWav", inputs=["contents: string"], outputs=["audio: float", "sample_rate: int32"],
               attrs=["desired_channels: int = -1", "desired_samples: int = -1"])


@DecodeWav.shape
def _decode_wav_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    samples, channels = ctx.attr("desired_samples"), ctx.attr("desired_channels")
    return [tensor_shape.TensorShape([samples if samples != -1 else None, channels if channels != -1 else None]),
            tensor_shape.TensorShape([])]


class _Reader:
    """Little-endian fields of a WAV file, failing with TF's message when the data runs out."""

    def __init__(self, ctx: OpKernelContext, data: bytes) -> None:
        self.ctx, self.data, self.offset = ctx, data, 0

    def take(self, size: int, what: str) -> bytes:
        if self.offset + size > len(self.data):
            raise invalid_argument(self.ctx, f"Data too short when trying to read {what}")
        chunk = self.data[self.offset:self.offset + size]
        self.offset += size
        return chunk

    def string(self, size: int = 4) -> str:
        return self.take(size, "string").decode("latin-1")

    def uint(self, size: int) -> int:
        return int.from_bytes(self.take(size, "string"), "little")

    def expect(self, token: str) -> None:
        found = self.string()
        if found != token:
            raise invalid_argument(self.ctx, f"Header mismatch: Expected {token} but found {found}")


def _parse_wav(ctx: OpKernelContext, data: bytes) -> tuple[np.ndarray, int]:
    """The int16 samples as [samples, channels] and the sample rate."""
    reader = _Reader(ctx, data)
    reader.expect("RIFF")
    reader.uint(4)  # the RIFF size, which TF does not trust either
    reader.expect("WAVE")
    field = reader.string()
    if field != "fmt ":
        raise invalid_argument(ctx, f"Unexpected field {field}")
    fmt_size = reader.uint(4)
    audio_format = reader.uint(2)
    if audio_format != 1:
        raise invalid_argument(ctx, f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = reader.uint(2)
    if channels < 1:
        raise invalid_argument(ctx, f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    sample_rate = reader.uint(4)
    reader.uint(4)  # byte rate
    reader.uint(2)  # block align
    bits = reader.uint(2)
    if bits != 16:
        raise invalid_argument(ctx, f"Can only read 16-bit WAV files, but received {bits}")
    reader.take(max(fmt_size - 16, 0), "string")
    while reader.offset < len(data):
        chunk_id, chunk_size = reader.string(), reader.uint(4)
        body = reader.take(chunk_size, "string")
        if chunk_id == "data":
            frames = len(body) // (2 * channels)
            samples = np.frombuffer(body[:frames * 2 * channels], dtype="<i2").reshape(frames, channels)
            return samples, sample_rate
    raise invalid_argument(ctx, "No data chunk found in WAV")


@DecodeWav.kernel("CPU")
def _decode_wav(ctx: OpKernelContext, contents: Any, desired_channels: int, desired_samples: int) -> Any:
    """Channels beyond the file's repeat its last one; samples are cut or padded with zeros."""
    samples, sample_rate = _parse_wav(ctx, bytes(contents[()]))
    count, channels = samples.shape
    columns = np.minimum(np.arange(channels if desired_channels == -1 else desired_channels), channels - 1)
    rows = count if desired_samples == -1 else desired_samples
    audio = np.zeros((rows, columns.size), dtype=np.float32)
    kept = min(rows, count)
    audio[:kept] = samples[:kept][:, columns] / np.float32(_SCALE)
    return audio, np.int32(sample_rate)


@tf_export("audio.decode_wav")
def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1,
               name: str | None = None) -> Any:
    """A 16-bit PCM WAV file as float samples in [-1, 1) shaped [samples, channels], and its sample rate."""
    return DecodeWav(contents, desired_channels=desired_channels, desired_samples=desired_samples, name=name)


# -- EncodeWav ----------------------------------------------------------------------------------------------

EncodeWav = Op("EncodeWav", inputs=["audio: float", "sample_rate: int32"], outputs=["contents: string"])


@EncodeWav.shape
def _encode_wav_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 2)
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.TensorShape([])]


@EncodeWav.kernel("CPU")
def _encode_wav(ctx: OpKernelContext, audio: Any, sample_rate: Any) -> Any:
    """A canonical 44-byte header, then the samples interleaved as little-endian int16."""
    samples = np.clip(np.round(np.clip(audio, -1.0, 1.0) * _SCALE), -32768, 32767).astype("<i2")
    frames, channels = audio.shape
    rate = int(sample_rate)
    data = samples.tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, channels, rate,
                         rate * channels * 2, channels * 2, 16, b"data", len(data))
    return np.array(header + data, dtype=object)


@tf_export("audio.encode_wav")
def encode_wav(audio: Any, sample_rate: Any, name: str | None = None) -> Tensor:
    """Float samples shaped [samples, channels] as a 16-bit PCM WAV file."""
    return EncodeWav(audio, sample_rate, name=name)
