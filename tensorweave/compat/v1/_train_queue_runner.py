"""`tf.train.queue_runner`: the queue-runner names under their module's own namespace, as TF1 exports them."""

from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train import queue_runner as _queue_runner

_populate(globals(), "train.queue_runner")
