"""File-level checkpoint housekeeping: `tf.train.get_checkpoint_mtimes` and `tf.train.remove_checkpoint`.

A checkpoint is named by its prefix: V2 keeps `<prefix>.index` and `<prefix>.data-?????-of-?????`, V1
the file `<prefix>` itself, and either may have a `<prefix>.meta` MetaGraphDef beside it. Prefixes may be
glob patterns, as TF's file-matching accepts them; what matches nothing is skipped, never an error.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
from collections.abc import Iterable

from tensorweave.formats.protos import SaverDef
from tensorweave.platform.tf_export import tf_export


def _matching_files(pattern: str) -> list[str]:
    return sorted(glob.glob(pattern))


@tf_export("train.get_checkpoint_mtimes")
def get_checkpoint_mtimes(checkpoint_prefixes: Iterable[str]) -> list[float]:
    """Each checkpoint's modification time in whole seconds (the V2 `.index`, else the V1 file).

    Checkpoints that do not exist are left out, so the list may be shorter than the prefixes, as in TF.
    """
    mtimes = []
    for prefix in checkpoint_prefixes:
        files = _matching_files(prefix + ".index") or _matching_files(prefix)
        if files:
            mtimes.append(float(os.stat(files[0]).st_mtime_ns // 1_000_000_000))  # TF's stat keeps whole seconds
    return mtimes


@tf_export("train.remove_checkpoint")
def remove_checkpoint(checkpoint_prefix: str, checkpoint_format_version: int = SaverDef.V2,
                      meta_graph_suffix: str = "meta") -> None:
    """Delete a checkpoint's files and its MetaGraphDef; files already gone are not an error."""
    meta_base = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_prefix)
    patterns = [f"{meta_base}.{meta_graph_suffix}"]
    if checkpoint_format_version == SaverDef.V2:
        patterns += [checkpoint_prefix + ".index", checkpoint_prefix + ".data-?????-of-?????"]
    else:
        patterns.append(checkpoint_prefix)
    for pattern in patterns:
        for path in _matching_files(pattern):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
