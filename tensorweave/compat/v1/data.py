"""`tf.data`: datasets, iterators and the file readers (TF1's graph-mode API), with `tf.data.experimental`."""

from tensorweave.compat.v1 import _data_experimental as experimental
from tensorweave.data import iterator_ops as _iterator_ops
from tensorweave.data import options as _options
from tensorweave.data import readers as _readers
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "data")
