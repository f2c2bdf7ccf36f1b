"""Checkpoint housekeeping: `tf.train.get_checkpoint_mtimes`, `tf.train.remove_checkpoint`, the `checkpoint`
state file as savers write it, and `tf.train.CheckpointManager`, which numbers, records and expires the
checkpoints a `tf.train.Checkpoint` writes.

A checkpoint is named by its prefix: V2 keeps `<prefix>.index` and `<prefix>.data-?????-of-?????`, V1
the file `<prefix>` itself, and either may have a `<prefix>.meta` MetaGraphDef beside it. Prefixes may be
glob patterns, as TF's file-matching accepts them; what matches nothing is skipped, never an error.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import glob
import numbers
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tensorweave.formats import checkpoint_state
from tensorweave.formats.protos import SaverDef
from tensorweave.framework.graph import get_default_session
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import training_util


def _log_ignored_state_file(error: Exception, path: str) -> None:
    """TF's warnings for a checkpoint state file it cannot read or parse."""
    tf_logging.warning("%s: %s", type(error).__name__, error)
    tf_logging.warning("%s: Checkpoint ignored", path)


def _log_unmatched_checkpoint(prefix: str) -> None:
    """TF's error log for a newest checkpoint whose files are gone."""
    tf_logging.error("Couldn't match files for checkpoint %s", prefix)


checkpoint_state.report_ignored = _log_ignored_state_file
checkpoint_state.report_unmatched = _log_unmatched_checkpoint


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


def update_checkpoint_state_internal(save_dir: str, model_checkpoint_path: str,
                                     all_model_checkpoint_paths: Sequence[str] | None = None,
                                     latest_filename: str | None = None, save_relative_paths: bool = False,
                                     all_model_checkpoint_timestamps: Sequence[float] | None = None,
                                     last_preserved_timestamp: float | None = None) -> None:
    """The state file written after a bundle; with `save_relative_paths`, absolute paths made relative to
    `save_dir`, so the directory can move."""
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:
        def relative(path: str) -> str:
            return os.path.relpath(path, save_dir) if os.path.isabs(path) else path

        model_checkpoint_path = relative(model_checkpoint_path)
        paths = [relative(p) for p in paths]
    checkpoint_state.update_checkpoint_state(save_dir, model_checkpoint_path, paths, latest_filename,
                                             all_model_checkpoint_timestamps, last_preserved_timestamp)


@tf_export("train.CheckpointManager")
class CheckpointManager:
    """Numbers the saves of a `tf.train.Checkpoint` in one directory, keeps the newest `max_to_keep` (and one
    every `keep_checkpoint_every_n_hours`), and records them, with their times, in the `checkpoint` file."""

    def __init__(self, checkpoint: Any, directory: str | os.PathLike, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: int | None = None,
                 init_fn: Callable[[], Any] | None = None, last_checkpoint_step: int | None = None) -> None:
        self._checkpoint = checkpoint
        self._save_counter_assign: Any = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
            self._last_checkpoint_step = last_checkpoint_step
            self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        recovered = checkpoint_state.get_checkpoint_state(self._directory)
        now = time.time()
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        if recovered is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = recovered.model_checkpoint_path
        self._last_preserved_timestamp = recovered.last_preserved_timestamp
        if now < self._last_preserved_timestamp:
            tf_logging.get_logger().warning("time.time() returned a value %f seconds behind the last preserved "
                                            "checkpoint timestamp.", self._last_preserved_timestamp - now)
            self._last_preserved_timestamp = now
        paths = list(recovered.all_model_checkpoint_paths)
        stamps = list(recovered.all_model_checkpoint_timestamps) or [self._last_preserved_timestamp] * len(paths)
        for path, stamp in zip(paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint_interval(self) -> int | None:
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix, found in the directory when the manager was made or saved since."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The checkpoints this manager may still delete, oldest first."""
        return list(self._maybe_delete)

    @property
    def checkpoint(self) -> Any:
        return self._checkpoint

    def _sweep(self) -> None:
        """Delete the oldest checkpoints past `max_to_keep`, keeping one per `keep_checkpoint_every_n_hours`."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if (self._keep_checkpoint_every_n_hours
                    and stamp - self._keep_checkpoint_every_n_hours * 3600.0 >= self._last_preserved_timestamp):
                self._last_preserved_timestamp = stamp
                continue
            for pattern in (path + ".index", path + ".data-?????-of-?????"):
                for name in _matching_files(pattern):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(name)

    def _record_state(self) -> None:
        update_checkpoint_state_internal(
            self._directory, self._latest_checkpoint, list(self._maybe_delete), save_relative_paths=True,
            all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
            last_preserved_timestamp=self._last_preserved_timestamp)

    def _record_and_sweep(self, save_path: str) -> None:
        self._maybe_delete.pop(save_path, None)
        self._maybe_delete[save_path] = time.time()
        self._latest_checkpoint = save_path
        self._record_state()
        self._sweep()
        self._record_state()

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> str | None:
        """Write `<directory>/<checkpoint_name>-<number>` (the save counter, unless a number or step tensor
        is given), record it and sweep; None when `checkpoint_interval` steps have not passed yet."""
        session = get_default_session()
        if self._checkpoint_interval is not None:
            step = training_util.global_step(session, self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        if self._checkpoint._save_counter is None:
            session.run(self._checkpoint.save_counter.initializer)
        save_counter = self._checkpoint.save_counter
        if self._save_counter_assign is None:
            self._save_counter_assign = save_counter.assign_add(1, read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = save_counter
        if not isinstance(checkpoint_number, numbers.Integral):
            checkpoint_number = training_util.global_step(session, checkpoint_number)
        options = copy.copy(options) if options is not None else None
        callbacks = [self._record_and_sweep]
        if options is not None and options.experimental_write_callbacks is not None:
            callbacks = list(options.experimental_write_callbacks) + callbacks
        return self._checkpoint._write_with_callbacks(f"{self._checkpoint_prefix}-{checkpoint_number}", session,
                                                      options, callbacks)

    def restore_or_initialize(self) -> str | None:
        """The latest checkpoint's path after `restore` of it (whose status, in graph mode as in TF, still has
        to be run), else run `init_fn` and return None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = training_util.global_step(get_default_session(), self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
            tf_logging.get_logger().info("Customized initialization is done through the passed `init_fn`.")
        return None
