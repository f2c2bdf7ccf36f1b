"""`tf.train.Saver`: the graph ops that write and read V2 checkpoints, and the bookkeeping of the files.

The Saver builds its nodes once, named as TF's BulkSaverBuilder names them (`save/Const` is the filename
fed at run time, `save/control_dependency` the save tensor, `save/restore_all` the restore op, or their
sharded forms with `save/ShardedFilename`, `save/MergeV2Checkpoints` and `save/restore_shard`), and keeps
them in a SaverDef, so a graph it built is saved and restored by real TF too. A save writes the bundle
(each file fsynced and renamed into place by the kernels), then the `checkpoint` state file, then deletes
checkpoints past `max_to_keep`: whatever a crash interrupts, `latest_checkpoint` names a complete bundle.
"""

from __future__ import annotations

import collections
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.client.session import BaseSession
from tensorweave.formats import checkpoint_reader, checkpoint_state
from tensorweave.formats.bundle import write_file_atomically
from tensorweave.formats.events import flush_open_event_files
from tensorweave.formats.protos import SaverDef
from tensorweave.framework import device_spec, dtypes, meta_graph, nest, tensor_shape
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    device,
    get_default_graph,
    name_scope,
    prepend_name_scope,
    strip_name_scope,
)
from tensorweave.framework.saveable_object import SaveableObject, SaveSpec
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    io_ops,
    manipulation_ops,
    resource_variable_ops,
    shape_ops,
    state_ops,
    string_ops,
)
from tensorweave.ops.variables import PartitionedVariable, Variable
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import checkpoint_management

_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable")


class _Saveable:
    """One tensor to save: its checkpoint key, its slice spec ("" for a whole variable, TF's spec string for
    a shard of a partitioned one), its ref tensor (saved, and assigned on restore), its device."""

    __slots__ = ("name", "slice_spec", "ref", "snapshot")

    def __init__(self, name: str, ref: Tensor, slice_spec: str = "",
                 snapshot: Tensor | Callable[[], Tensor] | None = None) -> None:
        """`snapshot`: what TF saves when it is not the ref itself: a resource variable's own read (else the
        Saver reads it), a ref variable's shard's `read` snapshot (TF converts the shard Variable)."""
        self.name = name
        self.slice_spec = slice_spec
        self.ref = ref
        self.snapshot = snapshot

    @property
    def is_resource(self) -> bool:
        """A resource variable's handle: saved through ReadVariableOp, restored by AssignVariableOp."""
        return self.ref.dtype == dtypes.resource

    @property
    def dtype(self) -> Any:
        return self.ref.op.get_attr("dtype") if self.is_resource else self.ref.dtype.base_dtype

    @property
    def shape(self) -> Any:
        if self.is_resource:
            dims = self.ref.op.get_attr("shape")
            return tensor_shape.unknown_shape() if dims is None else tensor_shape.TensorShape(dims)
        return self.ref.get_shape()

    def tensor(self) -> Tensor:
        """The value to save."""
        if callable(self.snapshot):  # read where the save is built, once
            self.snapshot = self.snapshot()
        if self.snapshot is not None:
            return self.snapshot
        if self.is_resource:
            return resource_variable_ops.ReadVariableOp(self.ref, dtype=self.dtype)
        return self.ref

    def restore(self, tensor: Tensor, validate_shape: bool) -> Any:
        if self.is_resource:  # TF copies the value to the variable's device first
            with device(self.ref.device):
                return resource_variable_ops.AssignVariableOp(self.ref, manipulation_ops.identity(tensor))
        return state_ops.assign(self.ref, tensor, validate_shape=validate_shape)

    @property
    def device(self) -> str:
        return self.ref.device


class _SpecSaveable(_Saveable):
    """One tensor of a SaveableObject (a table's keys or values): saved as is, restored with its siblings by
    the object."""

    __slots__ = ("spec", "owner")

    def __init__(self, spec: SaveSpec, owner: SaveableObject) -> None:
        super().__init__(spec.name, spec.tensor, spec.slice_spec)
        self.spec, self.owner = spec, owner

    @property
    def is_resource(self) -> bool:
        return False

    @property
    def dtype(self) -> Any:
        return self.spec.dtype

    @property
    def device(self) -> str:
        return self.spec.device


def _read_shard_on_cpu(var: Any) -> Any:
    """TF's save of a resource shard: read it without a copy on its device, then copy to that host's CPU."""
    def read() -> Tensor:
        with device(var.device):
            value = var.read_value_no_copy()
            with device("/device:CPU:0"):
                return manipulation_ops.identity(value)
    return read


def _as_ref(var: Any, listed: bool = False) -> Tensor:
    """The ref tensor a checkpoint entry is saved from and restored into (`listed`: from a var_list list,
    whose wrong entries TF words differently from a dict's)."""
    if isinstance(var, Variable):
        return var._ref()
    if isinstance(var, Tensor) and var.op.type in _VARIABLE_OPS:
        return var
    if not isinstance(var, Tensor):  # TF converts the value first: its message shows the constant
        var = convert_to_tensor(var)
    if listed:
        raise TypeError(f"Variable to save is not a Variable: {var}")
    raise TypeError(f"names_to_saveables must be a dict mapping string names to Tensors/Variables. Not a "
                    f"variable: {var}")


def _op_list_to_dict(var_list: Any) -> dict[str, Any]:
    """TF's op_list_to_dict: each variable by its op name, except shards of a partitioned variable, which
    are listed together under the full variable's name."""
    if not isinstance(var_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list. Got {var_list}")
    named: dict[str, Any] = {}
    for var in sorted(nest.flatten(list(var_list)), key=lambda v: v.name):
        if isinstance(var, SaveableObject):
            named[var.name] = var
        elif isinstance(var, PartitionedVariable):
            if var.name in named:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            named[var.name] = var
        elif isinstance(var, Variable) and var._get_save_slice_info():
            name = var._get_save_slice_info().full_name
            if name in named and not isinstance(named[name], list):
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            named.setdefault(name, []).append(var)
        else:
            ref = _as_ref(var, listed=True)
            if ref.op.name in named:
                raise ValueError(f"At least two variables have the same name: {ref.op.name}")
            named[ref.op.name] = var
    return named


def _saveables(var_list: Any) -> list[_Saveable]:
    """TF's op_list_to_dict + validate_and_slice_inputs: one saveable per name (per shard for a partitioned
    variable, each with its slice spec), sorted by name."""
    named = dict(var_list) if isinstance(var_list, dict) else _op_list_to_dict(var_list)
    saveables = []
    seen: set[Tensor] = set()
    for name, var in sorted(named.items(), key=lambda item: item[0]):
        if isinstance(var, SaveableObject):
            saveables.extend(_SpecSaveable(spec, var) for spec in var.specs)
            continue
        if isinstance(var, (list, tuple, PartitionedVariable)):
            parts = [(v, v._ref(), v._get_save_slice_info().spec) for v in _slices_of_one_tensor(var)]
        else:
            parts = [(var, _as_ref(var), "")]
        for v, ref, spec in parts:
            if ref in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(ref)
            if resource_variable_ops.is_resource_variable(v):
                snapshot = _read_shard_on_cpu(v) if spec else v._as_graph_element()
            else:
                snapshot = v.value() if spec else None
            saveables.append(_Saveable(name, ref, spec, snapshot))
    return saveables


def _slices_of_one_tensor(slices: Any) -> list:
    """The variables of a list saved under one name, checked as TF's saveable_objects_for_op checks them: each a
    variable partitioned out of the same full tensor."""
    full_name = None
    for variable in slices:
        if not isinstance(variable, Variable):
            raise ValueError(f"Slices must all be Variables: {variable}")
        info = variable._get_save_slice_info()
        if not info:
            raise ValueError(f"Slices must all be slices: {variable}")
        if full_name is None:
            full_name = info.full_name
        elif full_name != info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {full_name} != {info.full_name}")
    return list(slices)


def _set_cpu0(device_string: str) -> str:
    """The CPU:0 of the job and task of a device: where TF runs a shard's save."""
    spec = device_spec.DeviceSpec.from_string(device_string)
    return spec.replace(device_type="CPU", device_index=0).to_string()


class BulkSaverBuilder:
    """Builds the save and restore nodes of a Saver (TF's BulkSaverBuilder: one RestoreV2 for all)."""

    def __init__(self, write_version: int = SaverDef.V2) -> None:
        self._write_version = write_version

    def save_op(self, filename_tensor: Tensor, saveables: Sequence[_Saveable]) -> Operation:
        """One node writing every saveable: SaveV2 to the prefix `filename_tensor`, or SaveSlices to the V1
        file of that name."""
        names, specs = [s.name for s in saveables], [s.slice_spec for s in saveables]
        tensors = [s.tensor() for s in saveables]
        if self._write_version == SaverDef.V1:
            return io_ops.save_slices(filename_tensor, names, specs, tensors, name="save")
        if self._write_version != SaverDef.V2:
            raise RuntimeError(f"Unexpected write_version: {self._write_version}")
        return io_ops.save_v2(filename_tensor, names, specs, tensors)

    def bulk_restore(self, filename_tensor: Tensor, saveables: Sequence[_Saveable]) -> list[Tensor]:
        """One RestoreV2 node on CPU:0 reading every saveable (TF loads them all there)."""
        with device("cpu:0"):
            return io_ops.restore_v2(filename_tensor, [s.name for s in saveables], [s.slice_spec for s in saveables],
                                     [s.dtype for s in saveables])

    def _add_save_ops(self, filename_tensor: Tensor, saveables: Sequence[_Saveable]) -> Tensor:
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    def _add_restore_ops(self, filename_tensor: Tensor, saveables: Sequence[_Saveable], reshape: bool,
                         name: str = "restore_all") -> Operation:
        restored = self.bulk_restore(filename_tensor, saveables)
        assigns = []
        objects: dict[SaveableObject, list[Tensor]] = {}
        for saveable, tensor in zip(saveables, restored):
            if isinstance(saveable, _SpecSaveable):  # restored by its object, once all its tensors are read
                objects.setdefault(saveable.owner, []).append(tensor)
                if len(objects[saveable.owner]) == len(saveable.owner.specs):
                    assigns.append(saveable.owner.restore(objects[saveable.owner], None))
                continue
            shape = saveable.shape
            if reshape:
                tensor = shape_ops.reshape(tensor, shape.as_list() if shape.is_fully_defined()
                                           else shape_ops.shape(saveable.tensor()))
            validate = not reshape and shape.is_fully_defined()
            assigns.append(saveable.restore(tensor, validate))
        return control_flow_ops.group(*assigns, name=name)

    @staticmethod
    def _group_by_devices(saveables: Sequence[_Saveable]) -> list[tuple[str, list[_Saveable]]]:
        per_device: dict[str, list[_Saveable]] = collections.defaultdict(list)
        for saveable in saveables:
            per_device[device_spec.canonical_name(saveable.device)].append(saveable)
        return sorted(per_device.items(), key=lambda item: item[0])

    def _add_sharded_save_ops(self, checkpoint_prefix: Tensor,
                              per_device: list[tuple[str, list[_Saveable]]]) -> Tensor:
        """One SaveV2 per device into `<prefix>_temp/part-*`, then one merge into `<prefix>` (TF's V2 path);
        for V1, one file `<prefix>-NNNNN-of-NNNNN` per device, named as a whole by their pattern."""
        if self._write_version == SaverDef.V1:
            num_shards = constant_ops.constant(len(per_device), name="num_shards")
            saves = []
            for shard, (dev, saveables) in enumerate(per_device):
                with device(dev or None):
                    filename = io_ops.sharded_filename(checkpoint_prefix, shard, num_shards)
                    saves.append(self._add_save_ops(filename, saveables))
            with control_dependencies([s.op for s in saves]):
                return io_ops.sharded_filespec(checkpoint_prefix, num_shards)
        with device("CPU"):
            suffix = elementwise_ops.where(string_ops.regex_full_match(checkpoint_prefix, "^s3://.*"),
                                           constant_ops.constant(".part"),
                                           constant_ops.constant(os.path.normpath("_temp/part")))
            tmp_prefix = string_ops.string_join([checkpoint_prefix, suffix])
        num_shards = constant_ops.constant(len(per_device), name="num_shards")
        saves, prefixes = [], []
        for shard, (dev, saveables) in enumerate(per_device):
            with device(_set_cpu0(dev)):
                filename = io_ops.sharded_filename(tmp_prefix, shard, num_shards)
                prefixes.append(filename)
                saves.append(self._add_save_ops(filename, saveables))
        with control_dependencies([s.op for s in saves]), device(_set_cpu0(per_device[-1][0])):
            merge = io_ops.merge_v2_checkpoints(prefixes, checkpoint_prefix, delete_old_dirs=True)
            with control_dependencies([merge]):
                return manipulation_ops.identity(checkpoint_prefix)

    def _build_internal(self, var_list: Any, reshape: bool = False, sharded: bool = False, max_to_keep: int = 5,
                        keep_checkpoint_every_n_hours: float = 10000.0, name: str | None = None,
                        filename: str | None = None) -> Any:
        """The nodes and the SaverDef naming them."""
        saveables = _saveables(var_list)
        if max_to_keep is None:
            max_to_keep = 0
        with name_scope(name, "save", [s.ref.op for s in saveables]):
            filename_tensor = constant_ops.placeholder_with_default(filename or "model", shape=(), name="filename")
            filename_tensor = constant_ops.placeholder_with_default(filename_tensor, shape=(), name="Const")
            if sharded:
                per_device = self._group_by_devices(saveables)
                save_tensor = self._add_sharded_save_ops(filename_tensor, per_device)
                shards = []
                for dev, shard_saveables in per_device:
                    with device(dev or None):
                        shards.append(self._add_restore_ops(filename_tensor, shard_saveables, reshape,
                                                            name="restore_shard"))
                restore_op = control_flow_ops.group(*shards, name="restore_all")
            else:
                save_tensor = self._add_save_ops(filename_tensor, saveables)
                restore_op = self._add_restore_ops(filename_tensor, saveables, reshape)
        return SaverDef(filename_tensor_name=filename_tensor.name, save_tensor_name=save_tensor.name,
                        restore_op_name=restore_op.name, max_to_keep=max_to_keep, sharded=sharded,
                        keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours, version=self._write_version)


def _all_saveable_objects() -> list:
    graph = get_default_graph()
    return graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection("saveable_objects")


def _wrap_restore_error(err: errors.OpError, verbiage: str) -> errors.OpError:
    message = (f"Restoring from checkpoint failed. This is most likely due to {verbiage} from the checkpoint. "
               "Please ensure that you have not altered the graph expected based on the checkpoint. Original "
               f"error:\n\n{err.message}")
    return type(err)(err.node_def, err.op, message)


@tf_export("train.Saver")
class Saver:
    """Saves and restores variables as V2 checkpoints (V1 on request), and keeps the newest `max_to_keep`."""

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False, max_to_keep: int = 5,
                 keep_checkpoint_every_n_hours: float = 10000.0, name: str | None = None,
                 restore_sequentially: bool = False, saver_def: Any = None, builder: Any = None,
                 defer_build: bool = False, allow_empty: bool = False, write_version: int = SaverDef.V2,
                 pad_step_number: bool = False, save_relative_paths: bool = False,
                 filename: str | None = None) -> None:
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either set defer_build=False "
                             "or var_list=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially  # one RestoreV2 reads everything, as in TF's bulk builder
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty: bool | None = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []
        self._object_restore_saver: Saver | None = None
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths

    def build(self) -> None:
        """Add the save and restore nodes to the default graph (once)."""
        if self.saver_def is None:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                self._var_list = _all_saveable_objects()
            if not self._var_list:
                if self._allow_empty:  # built, with nothing to save or restore (as in TF)
                    self._is_empty = self._is_built = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded, max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours, name=self._name,
                filename=self._filename)
        elif self._name:  # a SaverDef imported under a scope: `name` is that scope, as in TF
            self.saver_def.filename_tensor_name = prepend_name_scope(self.saver_def.filename_tensor_name, self._name)
            self.saver_def.save_tensor_name = prepend_name_scope(self.saver_def.save_tensor_name, self._name)
            self.saver_def.restore_op_name = prepend_name_scope(self.saver_def.restore_op_name, self._name)
        self._check_saver_def()
        self._is_built = True
        self._next_checkpoint_time = time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600

    def _check_saver_def(self) -> None:
        if not isinstance(self.saver_def, SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def as_saver_def(self) -> Any:
        """The SaverDef naming this Saver's filename tensor, save tensor and restore op."""
        return self.saver_def

    def to_proto(self, export_scope: str | None = None) -> Any:
        """The SaverDef with `export_scope` stripped; None when the Saver lies outside that scope."""
        if export_scope is None:
            return self.saver_def
        names = (self.saver_def.filename_tensor_name, self.saver_def.save_tensor_name,
                 self.saver_def.restore_op_name)
        if not all(n.startswith(export_scope) for n in names):
            return None
        proto = SaverDef()
        proto.CopyFrom(self.saver_def)
        proto.filename_tensor_name = strip_name_scope(proto.filename_tensor_name, export_scope)
        proto.save_tensor_name = strip_name_scope(proto.save_tensor_name, export_scope)
        proto.restore_op_name = strip_name_scope(proto.restore_op_name, export_scope)
        return proto

    @staticmethod
    def from_proto(saver_def: Any, import_scope: str | None = None) -> Saver:
        """A Saver over nodes already in the graph (imported with a meta graph)."""
        return Saver(saver_def=saver_def, name=import_scope)

    @property
    def last_checkpoints(self) -> list[str]:
        """The checkpoints this Saver keeps, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints: list[str]) -> None:
        """Adopt checkpoints written earlier (they never expire by age)."""
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(s, np.inf) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list[tuple[str, float]]) -> None:
        """Adopt checkpoints written earlier, with their timestamps."""
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths: Iterable[str]) -> None:
        """Adopt the checkpoints of a crashed run that still exist, timed by their files' mtimes."""
        with_mtimes = []
        for path in checkpoint_paths:
            mtime = checkpoint_management.get_checkpoint_mtimes([path])
            if mtime:
                with_mtimes.append((path, mtime[0]))
        self.set_last_checkpoints_with_time(with_mtimes)

    def _record_last_checkpoint(self, latest_save_path: str) -> None:
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != latest_save_path]
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str) -> None:
        """Delete the oldest checkpoint past `max_to_keep`, unless `keep_checkpoint_every_n_hours` keeps it."""
        if not self._checkpoints_to_be_deleted:
            return
        path, stamp = self._checkpoints_to_be_deleted.pop(0)
        if stamp > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            checkpoint_management.remove_checkpoint(path, self.saver_def.version, meta_graph_suffix)
        except OSError as e:
            tf_logging.get_logger().warning("Ignoring: %s", str(e))

    def save(self, sess: Any, save_path: str, global_step: Any = None, latest_filename: str | None = None,
             meta_graph_suffix: str = "meta", write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
        """Write a checkpoint (and its `.meta`), record it in the state file, drop those past `max_to_keep`."""
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = checkpoint_state.DEFAULT_STATE_FILENAME
        if self._write_version != SaverDef.V2:
            for line in ("*******************************************************",
                         "TensorFlow's V1 checkpoint format has been deprecated.",
                         "Consider switching to the more efficient V2 format:",
                         "   `tf.train.Saver(write_version=tf.train.SaverDef.V2)`",
                         "now on by default.",
                         "*******************************************************"):
                tf_logging.get_logger().warning(line)
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = int(sess.run(global_step))
            checkpoint_file = (f"{save_path}-{global_step:08d}" if self._pad_step_number
                               else f"{save_path}-{int(global_step)}")
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': '{latest_filename}' and "
                                 f"'{save_path}'")
        if not isinstance(sess, BaseSession):
            raise TypeError(f"'sess' must be a Session; {sess}")
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                model_checkpoint_path = sess.run(self.saver_def.save_tensor_name,
                                                 {self.saver_def.filename_tensor_name: checkpoint_file})
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if save_path_parent and not os.path.isdir(save_path_parent):
                    raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.") from exc
                raise
            model_checkpoint_path = os.fsdecode(model_checkpoint_path)
            flush_open_event_files()
            if write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                checkpoint_management.update_checkpoint_state_internal(
                    save_path_parent, model_checkpoint_path, self.last_checkpoints, latest_filename,
                    self._save_relative_paths)
                self._maybe_delete_old_checkpoints(meta_graph_suffix)
        if write_meta_graph:
            self.export_meta_graph(f"{_meta_graph_base(checkpoint_file)}.{meta_graph_suffix}",
                                   strip_default_attrs=strip_default_attrs)
        return model_checkpoint_path

    def export_meta_graph(self, filename: str | None = None, collection_list: Any = None, as_text: bool = False,
                          export_scope: str | None = None, clear_devices: bool = False,
                          clear_extraneous_savers: bool = False, strip_default_attrs: bool = False,
                          save_debug_info: bool = False) -> Any:
        """The default graph's MetaGraphDef with this Saver's SaverDef, written to `filename` if given."""
        proto, _ = meta_graph.export_scoped_meta_graph(
            saver_def=self.saver_def, collection_list=collection_list, export_scope=export_scope,
            clear_devices=clear_devices, clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)
        if filename:
            write_file_atomically(filename, str(proto).encode() if as_text else proto.SerializeToString())
        return proto

    def restore(self, sess: Any, save_path: str | None) -> None:
        """Run the restore op on the checkpoint `save_path`; TF's wrapped errors when the graph differs."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        checkpoint_prefix = os.fspath(save_path)
        if not checkpoint_state.checkpoint_exists(checkpoint_prefix):
            raise ValueError("The passed save_path is not a valid checkpoint: " + checkpoint_prefix)
        tf_logging.get_logger().info("Restoring parameters from %s", checkpoint_prefix)
        try:
            sess.run(self.saver_def.restore_op_name, {self.saver_def.filename_tensor_name: save_path})
        except errors.NotFoundError as err:
            names_to_keys = checkpoint_reader.object_graph_key_mapping(checkpoint_prefix)
            if names_to_keys is None:
                raise _wrap_restore_error(err, "a Variable name or other graph key that is missing") from None
            tf_logging.get_logger().warning(
                "Restoring an object-based checkpoint using a name-based saver. This may be somewhat fragile, and "
                "will re-build the Saver. Instead, consider loading object-based checkpoints using "
                "tf.train.Checkpoint().")
            if self._object_restore_saver is None:
                self._object_restore_saver = _saver_by_checkpoint_keys(self._var_list, names_to_keys)
            else:
                _checkpoint_keys(self._var_list, names_to_keys)
            self._object_restore_saver.restore(sess, save_path)
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(err, "a mismatch between the current graph and the graph") from None


def _checkpoint_keys(var_list: Any, names_to_keys: dict[str, str]) -> dict[str, Any]:
    """{key in an object-based checkpoint: variable} for a Saver's variables; TF's NotFoundError naming the
    variables it lacks."""
    if var_list is None:
        var_list = _all_saveable_objects()
    named = dict(var_list) if isinstance(var_list, dict) else _op_list_to_dict(var_list)
    current = {saveable.name for saveable in _saveables(named)}
    missing = current - set(names_to_keys)
    if missing:
        extra = set(names_to_keys) - current
        raise errors.NotFoundError(
            None, None,
            f"\n\nExisting variables not in the checkpoint: {', '.join(sorted(missing))}\n\nVariables names when "
            f"this checkpoint was written which don't exist now: {', '.join(sorted(extra))}\n\n"
            f"({len(current & set(names_to_keys))} variable name(s) did match)\n\nCould not find some variables in "
            "the checkpoint (see names above). Saver was attempting to load an object-based checkpoint (saved "
            "using tf.train.Checkpoint or tf.keras.Model.save_weights) using variable names. If the checkpoint "
            "was written with eager execution enabled, it's possible that variable names have changed (for "
            "example missing a '_1' suffix). It's also possible that there are new variables which did not "
            "exist when the checkpoint was written. You can construct a Saver(var_list=...) with only the "
            "variables which previously existed, and if variable names have changed you may need to make this "
            "a dictionary with the old names as keys.")
    return {names_to_keys.get(name, name): var for name, var in named.items()}


def _saver_by_checkpoint_keys(var_list: Any, names_to_keys: dict[str, str]) -> Saver:
    """TF's saver_from_object_based_checkpoint: the same variables, read under the checkpoint's keys."""
    return Saver(_checkpoint_keys(var_list, names_to_keys))


def _meta_graph_base(checkpoint_file: str) -> str:
    """The `.meta` file's base: the prefix without a sharded `-?????-of-NNNNN` suffix, as TF names it."""
    return re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_file)



meta_graph.register_proto_function(GraphKeys.SAVERS, proto_type=SaverDef, to_proto=Saver.to_proto,
                                   from_proto=Saver.from_proto)
