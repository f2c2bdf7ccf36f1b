"""`tf.spectral`: TF1's older name for the Fourier transforms and DCTs of `tf.signal`."""

from tensorweave.ops import signal_ops as _signal_ops
from tensorweave.ops import spectral_ops as _spectral_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "spectral")
