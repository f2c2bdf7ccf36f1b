"""`tf.train`: optimizers, the global step, learning-rate schedules, the Saver, meta graphs, Coordinator and
queue runners, checkpoint files, Example protos, event iteration.

The protobufs, checkpoint-state files, checkpoint reader and event iterator live in `formats/`, beside the
table, so they are declared here.
"""

from tensorweave.compat.v1 import _train_experimental as experimental
from tensorweave.compat.v1 import _train_queue_runner as queue_runner
from tensorweave.distributed import cluster_spec as _cluster_spec
from tensorweave.distributed import server as _server
from tensorweave.formats import checkpoint_reader as _checkpoint_reader
from tensorweave.formats import checkpoint_state as _checkpoint_state
from tensorweave.formats import events as _events
from tensorweave.formats import protos as _protos
from tensorweave.ops import checkpoint_utils as _checkpoint_utils
from tensorweave.platform.tf_export import export_value as _export_value
from tensorweave.platform.tf_export import populate as _populate
from tensorweave.train import adadelta as _adadelta
from tensorweave.train import adagrad as _adagrad
from tensorweave.train import adagrad_da as _adagrad_da
from tensorweave.train import adam as _adam
from tensorweave.train import basic_session_run_hooks as _basic_session_run_hooks
from tensorweave.train import checkpoint as _checkpoint  # noqa: F401 - registers its exports
from tensorweave.train import checkpoint_management as _checkpoint_management
from tensorweave.train import coordinator as _coordinator
from tensorweave.train import device_setter as _device_setter
from tensorweave.train import ftrl as _ftrl
from tensorweave.train import gradient_descent as _gradient_descent
from tensorweave.train import input as _input
from tensorweave.train import learning_rate_decay as _learning_rate_decay
from tensorweave.train import meta_graph_io as _meta_graph_io
from tensorweave.train import momentum as _momentum
from tensorweave.train import monitored_session as _monitored_session
from tensorweave.train import moving_averages as _moving_averages
from tensorweave.train import optimizer as _optimizer
from tensorweave.train import queue_runner as _queue_runner
from tensorweave.train import rmsprop as _rmsprop
from tensorweave.train import saver as _saver
from tensorweave.train import session_manager as _session_manager
from tensorweave.train import session_run_hook as _session_run_hook
from tensorweave.train import supervisor as _supervisor
from tensorweave.train import sync_replicas_optimizer as _sync_replicas_optimizer
from tensorweave.train import training_util as _training_util

_export_value(_protos.BytesList, "train.BytesList")
_export_value(_protos.ClusterDef, "train.ClusterDef")
_export_value(_protos.Example, "train.Example")
_export_value(_protos.Feature, "train.Feature")
_export_value(_protos.FeatureList, "train.FeatureList")
_export_value(_protos.FeatureLists, "train.FeatureLists")
_export_value(_protos.Features, "train.Features")
_export_value(_protos.FloatList, "train.FloatList")
_export_value(_protos.Int64List, "train.Int64List")
_export_value(_protos.JobDef, "train.JobDef")
_export_value(_protos.SaverDef, "train.SaverDef")
_export_value(_protos.SequenceExample, "train.SequenceExample")
_export_value(_protos.ServerDef, "train.ServerDef")
_export_value(_checkpoint_state.checkpoint_exists, "train.checkpoint_exists")
_export_value(_checkpoint_state.generate_checkpoint_state_proto, "train.generate_checkpoint_state_proto")
_export_value(_checkpoint_state.get_checkpoint_state, "train.get_checkpoint_state")
_export_value(_checkpoint_state.latest_checkpoint, "train.latest_checkpoint")
_export_value(_checkpoint_state.update_checkpoint_state, "train.update_checkpoint_state")
_export_value(_checkpoint_reader.list_variables, "train.list_variables")
_export_value(_checkpoint_reader.load_variable, "train.load_variable")
_export_value(_events.summary_iterator, "train.summary_iterator")

_populate(globals(), "train")
