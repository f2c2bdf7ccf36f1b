"""`tf.audio`: WAV decoding and encoding."""

from tensorweave.ops import audio_ops as _audio_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "audio")
