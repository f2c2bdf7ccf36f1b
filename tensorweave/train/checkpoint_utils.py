"""Checkpoint readers that need no graph: `tf.train.load_checkpoint` and friends, with TF's DTypes.

The file-level reader lives in `formats/` (L0), which knows DataType enums only; this layer hands it
`dtypes.as_dtype` so that `get_variable_to_dtype_map` returns `tf.float32` and not 1.
"""

from __future__ import annotations

import os

from tensorweave.formats import checkpoint_reader
from tensorweave.formats.checkpoint_reader import CheckpointReader, list_variables, load_variable
from tensorweave.framework import dtypes
from tensorweave.platform.tf_export import tf_export

__all__ = ["NewCheckpointReader", "list_variables", "load_checkpoint", "load_variable"]


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file: str | os.PathLike) -> CheckpointReader:
    """A reader for the latest checkpoint in a directory, or for the checkpoint with this prefix."""
    return checkpoint_reader.load_checkpoint(ckpt_dir_or_file, as_dtype=dtypes.as_dtype)


@tf_export("train.NewCheckpointReader")
def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TF's name
    """A reader for the checkpoint with this prefix."""
    return checkpoint_reader.NewCheckpointReader(filepattern, as_dtype=dtypes.as_dtype)
