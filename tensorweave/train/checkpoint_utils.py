"""Checkpoints read outside a Saver: `tf.train.load_checkpoint` and friends, `init_from_checkpoint`,
`warm_start`, `checkpoints_iterator`.

The file-level reader lives in `formats/` (L0), which knows DataType enums only; this layer hands it
`dtypes.as_dtype` so that `get_variable_to_dtype_map` returns `tf.float32` and not 1.
`init_from_checkpoint` never reads values when called: it replaces each matched variable's initializer by
an Assign from a RestoreV2 node (on CPU), so the values come in when the initializers run, as in TF.
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tensorweave.formats import checkpoint_reader
from tensorweave.formats.checkpoint_reader import CheckpointReader, list_variables, load_variable
from tensorweave.formats.checkpoint_state import latest_checkpoint
from tensorweave.framework import dtypes
from tensorweave.framework.graph import GraphKeys, device, get_collection
from tensorweave.ops import io_ops, resource_variable_ops, state_ops, variable_scope
from tensorweave.ops.variables import Variable
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

__all__ = ["NewCheckpointReader", "VocabInfo", "checkpoints_iterator", "init_from_checkpoint", "list_variables",
           "load_checkpoint", "load_variable", "wait_for_new_checkpoint", "warm_start"]


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file: str | os.PathLike) -> CheckpointReader:
    """A reader for the latest checkpoint in a directory, or for the checkpoint with this prefix."""
    return checkpoint_reader.load_checkpoint(ckpt_dir_or_file, as_dtype=dtypes.as_dtype)


@tf_export("train.NewCheckpointReader")
def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TF's name
    """A reader for the checkpoint with this prefix."""
    return checkpoint_reader.NewCheckpointReader(filepattern, as_dtype=dtypes.as_dtype)


# -- waiting for checkpoints -------------------------------------------------------------------------

def wait_for_new_checkpoint(checkpoint_dir: str, last_checkpoint: str | None = None, seconds_to_sleep: float = 1,
                            timeout: float | None = None) -> str | None:
    """Poll the directory's state file until it names a checkpoint other than `last_checkpoint` (None on
    timeout): how a separate evaluation job follows a training job."""
    tf_logging.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        checkpoint_path = latest_checkpoint(checkpoint_dir)
        if checkpoint_path is not None and checkpoint_path != last_checkpoint:
            tf_logging.info("Found new checkpoint at %s", checkpoint_path)
            return checkpoint_path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


@tf_export("train.checkpoints_iterator")
def checkpoints_iterator(checkpoint_dir: str, min_interval_secs: float = 0, timeout: float | None = None,
                         timeout_fn: Callable[[], bool] | None = None) -> Iterator[str]:
    """Yield each new checkpoint as it appears, at most one per `min_interval_secs`; after a `timeout` with
    no new one, stop unless `timeout_fn` says training goes on."""
    checkpoint_path = None
    while True:
        new_checkpoint_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_checkpoint_path:
            start = time.time()
            checkpoint_path = new_checkpoint_path
            yield checkpoint_path
            time_to_next_eval = start + min_interval_secs - time.time()
            if time_to_next_eval > 0:
                time.sleep(time_to_next_eval)
        elif timeout_fn is None:
            tf_logging.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            tf_logging.info("Done. No new checkpoints will be generated.")
            return


# -- init_from_checkpoint ---------------------------------------------------------------------------

def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


def _checkpoint_filename(ckpt_dir_or_file: str | os.PathLike) -> str | None:
    path = os.fspath(ckpt_dir_or_file)
    return latest_checkpoint(path) if os.path.isdir(path) else path


def _collect_partitioned_variable(name: str, all_vars: Mapping[str, Variable]) -> list[Variable] | None:
    """The slices `name/part_0`, `name/part_1`, ... of a partitioned variable, or None."""
    if name + "/part_0" not in all_vars:
        return None
    parts = []
    while f"{name}/part_{len(parts)}" in all_vars:
        parts.append(all_vars[f"{name}/part_{len(parts)}"])
    return parts


def _set_checkpoint_initializer(variable: Variable, ckpt_file: str, tensor_name: str, slice_spec: str,
                                name: str = "checkpoint_initializer") -> None:
    """Make the variable's initializer assign it the checkpoint's `tensor_name` (one slice of it for a
    partition); RestoreV2 runs on the CPU of the variable's job and task, as TF places it."""
    with device(variable.device), device("/cpu:0"):
        restore_op = io_ops.restore_v2(ckpt_file, [tensor_name], [slice_spec], [variable.dtype.base_dtype],
                                       name=name)[0]
    if resource_variable_ops.is_resource_variable(variable):
        variable._initializer_op = variable.assign(restore_op, read_value=False)
    else:
        variable._initializer_op = state_ops.assign(variable._ref(), restore_op,
                                                    validate_shape=variable.get_shape().is_fully_defined()).op
    restore_op.set_shape(variable.shape)
    variable._initial_value = restore_op


def _set_variable_or_list_initializer(variable_or_list: Any, ckpt_file: str, tensor_name: str) -> None:
    if isinstance(variable_or_list, (list, tuple)):
        slice_name = None
        for v in variable_or_list:
            slice_info = v._save_slice_info
            if slice_name is None:
                slice_name = slice_info.full_name
            elif slice_name != slice_info.full_name:
                raise ValueError(f"Slices must all be from the same tensor: {slice_name} != {slice_info.full_name}")
            _set_checkpoint_initializer(v, ckpt_file, tensor_name, slice_info.spec)
    else:
        _set_checkpoint_initializer(variable_or_list, ckpt_file, tensor_name, "")


@tf_export("train.init_from_checkpoint")
def init_from_checkpoint(ckpt_dir_or_file: str | os.PathLike, assignment_map: Any) -> None:
    """Initialize variables from a checkpoint instead of their initializers (fine-tuning a part of a model).

    `assignment_map` maps checkpoint names to the current graph's, in TF's forms: `'scope/var': 'scope2/var'`,
    `'scope/var': variable` (or a list of a partitioned variable's slices), `'old_scope/': 'new_scope/'`
    (every `get_variable` variable under the scope) and `'/': 'scope/'` or `'scope/': '/'` (the root).
    """
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        variable_map = reader.get_variable_to_shape_map()
    finally:
        reader.close()
    if isinstance(assignment_map, Mapping):
        assignment_map = assignment_map.items()
    store_vars = variable_scope._get_default_variable_store()._vars
    for tensor_name_in_ckpt, current_var_or_name in sorted(assignment_map, key=lambda pair: pair[0]):
        if _is_variable(current_var_or_name) or (
                isinstance(current_var_or_name, list) and all(_is_variable(v) for v in current_var_or_name)):
            var = current_var_or_name
        else:
            var = store_vars.get(current_var_or_name)
            if var is None:
                var = _collect_partitioned_variable(current_var_or_name, store_vars)
        if var is not None:
            if tensor_name_in_ckpt not in variable_map:
                raise ValueError(f"Tensor {tensor_name_in_ckpt} is not found in {ckpt_dir_or_file} checkpoint "
                                 f"{variable_map}")
            if _is_variable(var):
                if not var.get_shape().is_compatible_with(variable_map[tensor_name_in_ckpt]):
                    raise ValueError(f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with shape "
                                     f"of tensor {tensor_name_in_ckpt} ({variable_map[tensor_name_in_ckpt]}) from "
                                     f"checkpoint reader.")
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name_in_ckpt)
            continue
        scopes = current_var_or_name[:current_var_or_name.rindex("/")] if "/" in current_var_or_name else ""
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to scope only "
                             f"{tensor_name_in_ckpt}. Should be 'scope/': 'other_scope/'.")
        scope_variables = set()
        for var_name in store_vars:
            if not scopes or var_name.startswith(scopes + "/"):
                if "/part_" in var_name:
                    var_name = var_name[:var_name.index("/part_")]
                scope_variables.add(var_name)
        for var_name in sorted(scope_variables):
            # The name below the scope, under the checkpoint's scope; '/' on either side is the root.
            full_tensor_name = var_name[len(scopes):]
            if current_var_or_name != "/":
                full_tensor_name = full_tensor_name[1:]
            if tensor_name_in_ckpt != "/":
                full_tensor_name = tensor_name_in_ckpt + full_tensor_name
            if full_tensor_name.endswith("/"):
                full_tensor_name = full_tensor_name[:-1]
            if full_tensor_name not in variable_map:
                raise ValueError(f"Tensor {full_tensor_name} ({var_name[len(scopes) + 1:]} in {tensor_name_in_ckpt}) "
                                 f"is not found in {ckpt_dir_or_file} checkpoint")
            var = store_vars.get(var_name)
            if var is None:
                var = _collect_partitioned_variable(var_name, store_vars)
            _set_variable_or_list_initializer(var, ckpt_file, full_tensor_name)


# -- warm_start ---------------------------------------------------------------------------------------

@tf_export("train.VocabInfo")
class VocabInfo(collections.namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets",
                                                     "old_vocab", "old_vocab_size", "backup_initializer",
                                                     "axis"])):
    """How a vocabulary-keyed variable's rows (axis 0) or columns (axis 1) map from an old vocabulary file
    to a new one when warm-starting."""

    def __new__(cls, new_vocab: str, new_vocab_size: int, num_oov_buckets: int, old_vocab: str,
                old_vocab_size: int = -1, backup_initializer: Any = None, axis: int = 0) -> VocabInfo:
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


def _grouped_variables(vars_to_warm_start: Any) -> dict[str, list[Variable]]:
    """The variables to warm-start by name: a regex over the trainable ones, a list of regex scopes over the
    global ones, or a list of variables."""
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        tf_logging.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        list_of_vars = get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            list_of_vars = [var for scope in vars_to_warm_start
                            for var in get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope)]
        elif all(_is_variable(v) for v in vars_to_warm_start):
            list_of_vars = vars_to_warm_start
        else:
            raise ValueError(f"If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  Given "
                             f"types are {[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError(f"`vars_to_warm_start must be a `list` or `str`.  Given type is {type(vars_to_warm_start)}")
    grouped: dict[str, list[Variable]] = {}
    for v in list_of_vars:
        grouped.setdefault(v.op.name, []).append(v)
    return grouped


@tf_export("train.warm_start")
def warm_start(ckpt_to_initialize_from: str, vars_to_warm_start: Any = ".*",
               var_name_to_vocab_info: dict[str, VocabInfo] | None = None,
               var_name_to_prev_var_name: dict[str, str] | None = None) -> None:
    """Initialize the chosen variables from a checkpoint of an earlier model, under their own names or the
    names `var_name_to_prev_var_name` gives; misspelt names in either map raise ValueError."""
    tf_logging.info(f"Warm-starting from: {ckpt_to_initialize_from}")
    grouped_variables = _grouped_variables(vars_to_warm_start)
    var_name_to_vocab_info = var_name_to_vocab_info or {}
    var_name_to_prev_var_name = var_name_to_prev_var_name or {}
    warmstarted_count = 0
    prev_var_name_used = set()
    vocab_info_used = set()
    vocabless_vars: dict[str, Any] = {}
    for var_name, variable in grouped_variables.items():
        prev_var_name = var_name_to_prev_var_name.get(var_name)
        if prev_var_name:
            prev_var_name_used.add(var_name)
        if var_name_to_vocab_info.get(var_name):
            vocab_info_used.add(var_name)
            raise NotImplementedError(f"Warm-starting {var_name} with a vocabulary remap needs TF's "
                                      f"LoadAndRemapMatrix op, which is not built yet.")
        if not vars_to_warm_start:
            continue
        warmstarted_count += 1
        var = variable[0] if len(variable) == 1 else variable
        prev_tensor_name = prev_var_name or var_name
        if prev_tensor_name in vocabless_vars:
            # Two variables from one checkpoint tensor: a dict holds one, so map the ones so far first.
            init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
            vocabless_vars.clear()
        vocabless_vars[prev_tensor_name] = var
    if vocabless_vars:
        init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
    prev_var_name_not_used = set(var_name_to_prev_var_name) - prev_var_name_used
    vocab_info_not_used = set(var_name_to_vocab_info) - vocab_info_used
    tf_logging.info("Warm-started %d variables.", warmstarted_count)
    if prev_var_name_not_used:
        raise ValueError(f"You provided the following variables in var_name_to_prev_var_name that were not used: "
                         f"{prev_var_name_not_used}.  Perhaps you misspelled them?  Here is the list of viable "
                         f"variable names: {grouped_variables.keys()}")
    if vocab_info_not_used:
        raise ValueError(f"You provided the following variables in var_name_to_vocab_info that were not used: "
                         f"{vocab_info_not_used}.  Perhaps you misspelled them?  Here is the list of viable "
                         f"variable names: {grouped_variables.keys()}")
