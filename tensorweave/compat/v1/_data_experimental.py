"""`tf.data.experimental`: the transformations TF1 programs `apply` (unbatch, map_and_batch, ...) and the
input helpers (make_batched_features_dataset)."""

from tensorweave.data import dataset_ops as _dataset_ops
from tensorweave.data import experimental_ops as _experimental_ops
from tensorweave.data import options as _options
from tensorweave.data import readers as _readers
from tensorweave.data import structure as _structure
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "data.experimental")
