"""The `checkpoint` state file: a text-format CheckpointState naming the latest checkpoints of a directory.

Paths in the file may be relative to its directory (TF resolves them on read). The file is replaced
atomically, and the Saver writes it last, after the bundle, so it never names a missing checkpoint.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf import text_format

from tensorweave import errors
from tensorweave.formats.bundle import write_file_atomically
from tensorweave.formats.protos import CheckpointState
from tensorweave.formats.tfrecord import os_error

DEFAULT_STATE_FILENAME = "checkpoint"


def _state_path(checkpoint_dir: str, latest_filename: str | None) -> str:
    return os.path.join(checkpoint_dir, latest_filename or DEFAULT_STATE_FILENAME)


def generate_checkpoint_state_proto(save_dir: str, model_checkpoint_path: str,
                                    all_model_checkpoint_paths: Sequence[str] | None = None,
                                    all_model_checkpoint_timestamps: Sequence[float] | None = None,
                                    last_preserved_timestamp: float | None = None) -> Any:
    """A CheckpointState whose path list ends with the model path, as TF builds it.

    Under a relative `save_dir`, relative paths (taken from the working directory) are stored relative
    to `save_dir`, which is how `get_checkpoint_state` resolves them again.
    """
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths {paths} "
                         f"and timestamps {list(all_model_checkpoint_timestamps)})")
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    state = CheckpointState(model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths)
    if all_model_checkpoint_timestamps is not None:
        state.all_model_checkpoint_timestamps.extend(all_model_checkpoint_timestamps)
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state(save_dir: str | os.PathLike, model_checkpoint_path: str,
                            all_model_checkpoint_paths: Sequence[str] | None = None,
                            latest_filename: str | None = None,
                            all_model_checkpoint_timestamps: Sequence[float] | None = None,
                            last_preserved_timestamp: float | None = None) -> None:
    """Atomically rewrite the state file so `latest_checkpoint` finds `model_checkpoint_path`.

    The directory must exist (TF does not create it: the Saver made it when writing the bundle).
    """
    save_dir = os.fspath(save_dir)
    path = _state_path(save_dir, latest_filename)
    state = generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths,
                                            all_model_checkpoint_timestamps, last_preserved_timestamp)
    if path == state.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint state.  "
                           "Please use a different save path.")
    try:
        write_file_atomically(path, text_format.MessageToString(state).encode("utf-8"))
    except FileNotFoundError as e:
        raise errors.NotFoundError(None, None, f"{e.filename}; No such file or directory") from None


def _ignored(error: Exception, path: str) -> None:
    """Nothing: the train layer installs TF's warnings (`report_ignored`)."""


# Told of a state file that cannot be read or parsed, which get_checkpoint_state then ignores
report_ignored: Callable[[Exception, str], None] = _ignored


def _unmatched(prefix: str) -> None:
    """Nothing: the train layer installs TF's error log (`report_unmatched`)."""


# Told of a newest checkpoint the state file names but no file matches, which latest_checkpoint then drops
report_unmatched: Callable[[str], None] = _unmatched


def get_checkpoint_state(checkpoint_dir: str | os.PathLike, latest_filename: str | None = None) -> Any:
    """The directory's CheckpointState with relative paths made absolute, or None if there is none."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            state = text_format.Merge(f.read(), CheckpointState())
    except (OSError, text_format.ParseError) as e:  # an unreadable or unparsable file is ignored; bad UTF-8 is not
        report_ignored(os_error(path, e) if isinstance(e, OSError) else e, path)
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def checkpoint_exists(checkpoint_prefix: str | os.PathLike) -> bool:
    """Whether a V2 checkpoint (its `.index`) or a V1 checkpoint file exists for the prefix or pattern."""
    prefix = os.fspath(checkpoint_prefix)
    return bool(glob.glob(prefix + ".index") or glob.glob(prefix))


def latest_checkpoint(checkpoint_dir: str | os.PathLike, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint named by the state file, if that checkpoint exists."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is not None and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        report_unmatched(state.model_checkpoint_path)
    return None
