"""`tf.profiler`: TF1's model analyzer (profile, advise, Profiler, ProfileOptionBuilder, write_op_log and the
tfprof protos)."""

from tensorweave.client import profiler as _profiler
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "profiler")
