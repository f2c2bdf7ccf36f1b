"""`tf.config`: devices and the process-wide settings that sessions built without a config use."""

from tensorweave.client import config as _config
from tensorweave.compat.v1 import _config_experimental as experimental
from tensorweave.compat.v1 import _config_optimizer as optimizer
from tensorweave.compat.v1 import _config_threading as threading
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "config")
