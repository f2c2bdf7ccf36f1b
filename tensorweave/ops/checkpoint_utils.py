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
from tensorweave.framework.graph import GraphKeys, convert_to_tensor, device, get_collection
from tensorweave.ops import (
    checkpoint_ops,
    constant_ops,
    init_ops,
    io_ops,
    manipulation_ops,
    resource_variable_ops,
    sequence_ops,
    state_ops,
    variable_scope,
)
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
    restore_op.set_shape(variable.shape)
    if resource_variable_ops.is_resource_variable(variable):  # TF's saveable restore: a copy on its device
        with device(variable.device):
            variable._initializer_op = resource_variable_ops.AssignVariableOp(
                variable._ref(), manipulation_ops.identity(restore_op))
    else:  # the Assign's output, a Tensor, as TF leaves it
        variable._initializer_op = state_ops.assign(variable._ref(), restore_op,
                                                    validate_shape=variable.get_shape().is_fully_defined())
    variable._initial_value = restore_op


def _set_initial_value(variable: Variable, value: Any) -> None:
    """Make the variable's initializer assign it `value` instead of its own initial value."""
    if resource_variable_ops.is_resource_variable(variable):
        variable._initializer_op = variable.assign(value, read_value=False)
    else:
        variable._initializer_op = state_ops.assign(variable._ref(), value,
                                                    validate_shape=variable.get_shape().is_fully_defined()).op
    variable._initial_value = value


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


def _warm_start_var_with_vocab(var: Any, current_vocab_path: str, current_vocab_size: int, prev_ckpt: str,
                               prev_vocab_path: str, previous_vocab_size: int = -1, current_oov_buckets: int = 0,
                               prev_tensor_name: str | None = None, initializer: Any = None, axis: int = 0) -> None:
    """Make a vocabulary-keyed variable (or its partitions) initialize from the checkpoint's matrix, its rows
    (axis 0) or columns (axis 1) moved from the old vocabulary's ids to the new one's; tokens new to the
    vocabulary and the OOV buckets get `initializer`'s values (zeros by default)."""
    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, current_vocab_size, prev_ckpt, "
                         "prev_vocab_path}.")
    variables = list(var) if isinstance(var, (list, tuple)) else [var]
    if not all(_is_variable(v) for v in variables):
        raise TypeError(f"var MUST be one of the following: a Variable, list of Variable or PartitionedVariable, "
                        f"but is {type(var)}")
    if not prev_tensor_name:
        names = {v._save_slice_info.full_name if v._save_slice_info else v.op.name for v in variables}
        if len(names) > 1:
            raise TypeError(f"`var` = {var} passed as arg violates the constraints.  name_to_var_dict = {names}")
        prev_tensor_name = names.pop()
    ckpt_file = _checkpoint_filename(prev_ckpt)
    total_rows = sum(v.get_shape().as_list()[0] for v in variables)
    for v in variables:
        shape = v.get_shape().as_list()
        slice_info = v._save_slice_info
        partition_info = (variable_scope._PartitionInfo(full_shape=slice_info.full_shape,
                                                        var_offset=slice_info.var_offset) if slice_info else None)
        if axis == 0:  # rows keyed by the vocabulary (a partitioned variable is split along them)
            remap = dict(new_row_vocab_size=current_vocab_size, new_col_vocab_size=shape[1],
                         old_row_vocab_size=previous_vocab_size, old_row_vocab_file=prev_vocab_path,
                         new_row_vocab_file=current_vocab_path, num_row_oov_buckets=current_oov_buckets)
        else:  # columns keyed by it: the rows of every partition count
            remap = dict(new_row_vocab_size=total_rows, new_col_vocab_size=current_vocab_size,
                         old_col_vocab_file=prev_vocab_path, new_col_vocab_file=current_vocab_path,
                         num_col_oov_buckets=current_oov_buckets)
        init = _load_and_remap_matrix_initializer(ckpt_file, prev_tensor_name, initializer=initializer, **remap)
        _set_initial_value(v, convert_to_tensor(init(shape=shape, partition_info=partition_info)))


def _load_and_remap_matrix_initializer(ckpt_path: str, old_tensor_name: str, new_row_vocab_size: int,
                                       new_col_vocab_size: int, old_row_vocab_size: int = -1,
                                       old_row_vocab_file: str | None = None, new_row_vocab_file: str | None = None,
                                       old_col_vocab_file: str | None = None, new_col_vocab_file: str | None = None,
                                       num_row_oov_buckets: int = 0, num_col_oov_buckets: int = 0,
                                       initializer: Any = None, max_rows_in_memory: int = -1) -> Callable:
    """An initializer of a float matrix (or of one row partition of it) loaded from a checkpoint and remapped
    (LoadAndRemapMatrix), with `num_row_oov_buckets` rows and `num_col_oov_buckets` columns of `initializer`'s
    values after the vocabulary's."""
    initializer = initializer or init_ops.zeros_initializer()
    for name, value in (("new_row_vocab_size", new_row_vocab_size), ("new_col_vocab_size", new_col_vocab_size),
                        ("num_row_oov_buckets", num_row_oov_buckets), ("num_col_oov_buckets", num_col_oov_buckets)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value}")

    def _initializer(shape: list, dtype: Any = dtypes.float32, partition_info: Any = None) -> Any:
        if dtype != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[0] <= 0:
            raise ValueError(f"Expected 1st dim of shape to be > 0, but received shape: {shape}")
        if shape[1] != new_col_vocab_size + num_col_oov_buckets:
            raise ValueError(f"Expected shape[1]: {shape[1]} to be equal to new_col_vocab_size: {new_col_vocab_size}"
                             f" + num_col_oov_buckets: {num_col_oov_buckets}")
        offset = partition_info.single_offset(shape) if partition_info is not None else 0
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(f"Trying to initialize {shape[0]} additional rows after {offset} rows already "
                             f"initialized, which would exceed expected total row count of new_row_vocab_size: "
                             f"{new_row_vocab_size} + num_row_oov_buckets: {num_row_oov_buckets}.")
        row_oov_buckets = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        rows_to_load = shape[0] - row_oov_buckets
        if offset > new_row_vocab_size:  # a partition of OOV rows only
            return initializer(shape)
        if new_row_vocab_file and old_row_vocab_file:
            row_remapping, rows_present = checkpoint_ops.GenerateVocabRemapping(
                new_row_vocab_file, old_row_vocab_file, new_vocab_offset=offset, num_new_vocab=rows_to_load,
                old_vocab_size=old_row_vocab_size)
        else:
            row_remapping = sequence_ops.range(offset, offset + rows_to_load, dtype=dtypes.int64)
            rows_present = constant_ops.constant(rows_to_load, dtypes.int32)
        col_remapping, cols_present = constant_ops.constant([], dtypes.int64), new_col_vocab_size
        if new_col_vocab_file and old_col_vocab_file:
            col_remapping, cols_present = checkpoint_ops.GenerateVocabRemapping(
                new_col_vocab_file, old_col_vocab_file, new_vocab_offset=0, num_new_vocab=new_col_vocab_size)
        missing = rows_to_load * new_col_vocab_size - rows_present * cols_present
        matrix = checkpoint_ops.LoadAndRemapMatrix(
            ckpt_path, old_tensor_name, row_remapping, col_remapping,
            initializer(manipulation_ops.stack([missing, 1])), num_rows=rows_to_load, num_cols=new_col_vocab_size,
            max_rows_in_memory=max_rows_in_memory)
        if row_oov_buckets > 0:
            matrix = manipulation_ops.concat([matrix, initializer([row_oov_buckets, new_col_vocab_size])], 0)
        if num_col_oov_buckets > 0:
            matrix = manipulation_ops.concat([matrix, initializer([shape[0], num_col_oov_buckets])], 1)
        return matrix

    return _initializer


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
    for v in list_of_vars:  # a partitioned variable's slices under its full name
        grouped.setdefault(v._save_slice_info.full_name if v._save_slice_info else v.op.name, []).append(v)
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
        vocab_info = var_name_to_vocab_info.get(var_name)
        if vocab_info:
            vocab_info_used.add(var_name)
            warmstarted_count += 1
            _warm_start_var_with_vocab(variable, vocab_info.new_vocab, vocab_info.new_vocab_size,
                                       ckpt_to_initialize_from, vocab_info.old_vocab, vocab_info.old_vocab_size,
                                       vocab_info.num_oov_buckets, prev_var_name, vocab_info.backup_initializer,
                                       vocab_info.axis)
            continue
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
