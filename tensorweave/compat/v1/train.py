"""`tf.train`: checkpoint files, Example protos, event iteration (optimizers and Saver come later)."""

from tensorweave.formats.checkpoint_state import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_state,
    latest_checkpoint,
    update_checkpoint_state,
)
from tensorweave.formats.events import summary_iterator
from tensorweave.formats.protos import (
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SaverDef,
    SequenceExample,
)
from tensorweave.train.checkpoint_utils import (
    NewCheckpointReader,
    list_variables,
    load_checkpoint,
    load_variable,
)

__all__ = ["BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList",
           "Int64List", "NewCheckpointReader", "SaverDef", "SequenceExample", "checkpoint_exists",
           "generate_checkpoint_state_proto", "get_checkpoint_state", "latest_checkpoint", "list_variables",
           "load_checkpoint", "load_variable", "summary_iterator", "update_checkpoint_state"]
