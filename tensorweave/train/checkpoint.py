"""`tf.train.Checkpoint` (TF's CheckpointV1, in graph mode): object-based checkpoints.

A checkpoint is the Saver's V2 bundle whose keys are paths of named edges between Python objects rather than
variable names (`model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE`), plus the serialized TrackableObjectGraph
under `_CHECKPOINTABLE_OBJECT_GRAPH`, so real TF restores what is written here and the other way round.
The object graph is walked breadth first from the root, each object once, under the first (shortest) path
that reaches it: children are a Checkpoint's keyword arguments (sorted by name, then `save_counter`), the
trackable attributes of a `tf.Module` or plain object in assignment order, list items by index, dict items
by key, an optimizer's non-slot variables; slot variables come last, keyed by their variable's path and
their optimizer's. Restoring matches the checkpoint's graph against the Python one each time the status
is used, so objects made after `restore()` (an optimizer's slots, made by `minimize`) are still restored.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable
from typing import Any

from tensorweave.client.session import BaseSession
from tensorweave.formats import checkpoint_reader
from tensorweave.formats.checkpoint_reader import OBJECT_GRAPH_PROTO_KEY
from tensorweave.formats.protos import TrackableObjectGraph
from tensorweave.framework import dtypes
from tensorweave.framework.graph import device, get_default_graph, get_default_session, init_scope, name_scope
from tensorweave.ops import constant_ops, control_flow_ops, io_ops, variables
from tensorweave.ops.module import Module
from tensorweave.ops.variables import Variable
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import checkpoint_management
from tensorweave.train import saver as saver_lib

_VARIABLE_VALUE = "VARIABLE_VALUE"


def _escape(local_name: str) -> str:
    """TF's escaping of one edge name: '.' doubles, '/' becomes '.S', so keys split back unambiguously."""
    return local_name.replace(".", "..").replace("/", ".S")


def _is_trackable(value: Any) -> bool:
    """Variables, modules, objects that name their dependencies (`_trackable_children`: checkpoints, optimizers,
    layers), and lists, tuples and dicts (nodes of their own, whose children are their trackable items)."""
    return isinstance(value, (Variable, Module, list, tuple, dict)) or hasattr(type(value), "_trackable_children")


def _children(obj: Any) -> list[tuple[str, Any]]:
    """The named dependencies of one object, in TF's order."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _is_trackable(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if _is_trackable(v)]
    own = getattr(obj, "_trackable_children", None)
    if own is not None:
        return own()
    return [(k, v) for k, v in vars(obj).items() if _is_trackable(v)]


class _ObjectGraph:
    """One breadth-first walk of the objects reachable from a root: node ids, first paths, edges, slots."""

    def __init__(self, root: Any) -> None:
        self.objects: list[Any] = [root]
        self.paths: list[tuple[str, ...]] = [()]
        self.edges: list[list[tuple[str, int]]] = []
        ids = {id(root): 0}
        queue = collections.deque([0])
        while queue:
            node = queue.popleft()
            edges = []
            for name, child in _children(self.objects[node]):
                if id(child) not in ids:
                    ids[id(child)] = len(self.objects)
                    self.objects.append(child)
                    self.paths.append(self.paths[node] + (name,))
                    queue.append(ids[id(child)])
                edges.append((name, ids[id(child)]))
            self.edges.append(edges)
        self.slots: list[list[tuple[int, str, int]]] = [[] for _ in self.objects]
        self.slot_keys: dict[int, str] = {}
        for node in range(len(self.edges)):
            optimizer = self.objects[node]
            if not hasattr(optimizer, "get_slot_names"):
                continue
            for slot_name in optimizer.get_slot_names():
                for original, var in enumerate(self.objects[:len(self.edges)]):
                    slot = optimizer.get_slot(var, slot_name) if isinstance(var, Variable) else None
                    if slot is None:
                        continue
                    slot_id = len(self.objects)
                    self.objects.append(slot)
                    self.edges.append([])
                    self.slots.append([])
                    self.slots[node].append((original, slot_name, slot_id))
                    self.slot_keys[slot_id] = (f"{self.path_string(original)}/.OPTIMIZER_SLOT/"
                                               f"{self.path_string(node)}/{_escape(slot_name)}")

    def path_string(self, node: int) -> str:
        return "/".join(_escape(name) for name in self.paths[node])

    def checkpoint_key(self, node: int) -> str:
        base = self.slot_keys.get(node) or self.path_string(node)
        return f"{base}/.ATTRIBUTES/{_VARIABLE_VALUE}"

    def variables(self) -> dict[str, Variable]:
        """Each variable by its checkpoint key."""
        return {self.checkpoint_key(n): obj for n, obj in enumerate(self.objects) if isinstance(obj, Variable)}

    def to_proto(self) -> Any:
        """TF's TrackableObjectGraph, each node marked with whether it or what it reaches holds values."""
        proto = TrackableObjectGraph()
        for node, obj in enumerate(self.objects):
            entry = proto.nodes.add()
            for name, child in self.edges[node]:
                entry.children.add(node_id=child, local_name=name)
            if isinstance(obj, Variable):
                entry.attributes.add(name=_VARIABLE_VALUE, full_name=obj.op.name,
                                     checkpoint_key=self.checkpoint_key(node))
            for original, slot_name, slot_id in self.slots[node]:
                entry.slot_variables.add(original_variable_node_id=original, slot_name=slot_name,
                                         slot_variable_node_id=slot_id)
        for node, entry in enumerate(proto.nodes):
            entry.has_checkpoint_values.value = self._holds_values(proto, node, set())
        return proto

    def _holds_values(self, proto: Any, node: int, seen: set[int]) -> bool:
        if node in seen:
            return False
        seen.add(node)
        entry = proto.nodes[node]
        reached = [c.node_id for c in entry.children] + [s.slot_variable_node_id for s in entry.slot_variables]
        return bool(entry.attributes) or any(self._holds_values(proto, n, seen) for n in reached)


def _session(session: Any) -> BaseSession:
    session = session or get_default_session()
    if session is None:
        raise ValueError("A session is needed to save or restore a checkpoint in graph mode: pass `session=` or "
                         "call inside `with tf.Session():`.")
    return session


@tf_export("train.CheckpointOptions")
class CheckpointOptions:
    """Options of a checkpoint save or restore (accepted for TF's signature; one process writes every file)."""

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint", "experimental_write_callbacks",
                 "enable_async", "experimental_sharding_callback", "experimental_skip_slot_variables")

    def __init__(self, experimental_io_device: str | None = None, experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: list[Callable[..., Any]] | None = None, enable_async: bool = False,
                 experimental_skip_slot_variables: bool = False, experimental_sharding_callback: Any = None) -> None:
        self.experimental_io_device = experimental_io_device
        self.enable_async = experimental_enable_async_checkpoint or enable_async
        self.experimental_enable_async_checkpoint = self.enable_async
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


class _SaveGraph:
    """The save nodes for one set of checkpoint keys: SaveV2 of the variables and the fed object graph."""

    def __init__(self, named: dict[str, Variable]) -> None:
        saveables = saver_lib._saveables(named)
        with name_scope("save"):
            self.filename = constant_ops.placeholder(dtypes.string, shape=(), name="Const")
            self.object_graph = constant_ops.placeholder(dtypes.string, shape=(), name="object_graph")
            with device("cpu:0"):
                save = io_ops.save_v2(self.filename, [s.name for s in saveables] + [OBJECT_GRAPH_PROTO_KEY],
                                      [""] * (len(saveables) + 1), [s.tensor() for s in saveables] +
                                      [self.object_graph])
            self.save_tensor = control_flow_ops.with_dependencies([save], self.filename)


def _write(root: Any, cache: dict, file_prefix: str, session: Any) -> str:
    """Write the object graph of `root` and its variables to the bundle `file_prefix`."""
    graph = _ObjectGraph(root)
    named = graph.variables()
    key = (get_default_graph(), tuple((k, id(v)) for k, v in sorted(named.items(), key=lambda item: item[0])))
    if key not in cache:
        with init_scope():
            cache[key] = _SaveGraph(named)
    nodes = cache[key]
    path = _session(session).run(nodes.save_tensor, {nodes.filename: os.fspath(file_prefix),
                                                     nodes.object_graph: graph.to_proto().SerializeToString()})
    return os.fsdecode(path)


def _unmatched_message(objects: list[Any]) -> str:
    shown = objects[:10]
    return (f"Found {len(objects)} Python objects that were not bound to checkpointed values, likely due to "
            f"changes in the Python program. Showing {len(shown)} of {len(objects)} unmatched objects: {shown}")


class CheckpointLoadStatus:
    """What `Checkpoint.restore` returns for an object-based checkpoint: matches the checkpoint's objects to
    the Python ones (again at each use, to see objects made since), and builds and runs their restore ops."""

    def __init__(self, root: Any, save_path: str, proto: Any, reader: Any) -> None:
        self._root = root
        self._save_path = save_path
        self._proto = proto
        self._reader = reader
        self._restore_ops: dict[int, Any] = {}
        self._restored: set[int] = set()

    def _match(self) -> dict[int, Any]:
        """Checkpoint node id -> Python object, following named edges and slot references from the roots."""
        matched = {0: self._root}
        queue = collections.deque([0])
        while queue:
            node = queue.popleft()
            children = dict(_children(matched[node]))
            for ref in self._proto.nodes[node].children:
                if ref.node_id not in matched and ref.local_name in children:
                    matched[ref.node_id] = children[ref.local_name]
                    queue.append(ref.node_id)
        for node, obj in list(matched.items()):
            for slot in self._proto.nodes[node].slot_variables:
                original = matched.get(slot.original_variable_node_id)
                if slot.slot_variable_node_id in matched or not isinstance(original, Variable):
                    continue
                value = obj.get_slot(original, slot.slot_name)
                if value is not None:
                    matched[slot.slot_variable_node_id] = value
        return matched

    def _build(self) -> tuple[dict[int, Any], list[Any]]:
        """Restore ops for every matched variable not given one yet (one RestoreV2 per batch)."""
        matched = self._match()
        new = {}
        for node, obj in matched.items():
            attrs = [a for a in self._proto.nodes[node].attributes if a.name == _VARIABLE_VALUE]
            if isinstance(obj, Variable) and attrs and id(obj) not in self._restore_ops:
                new[attrs[0].checkpoint_key] = obj
        if new:
            with init_scope(), name_scope("checkpoint_restore"):
                saveables = saver_lib._saveables(new)
                filename = constant_ops.constant(self._save_path, name="filename")
                op = saver_lib.BulkSaverBuilder()._add_restore_ops(filename, saveables, reshape=False,
                                                                   name="restore")
            for obj in new.values():
                self._restore_ops[id(obj)] = op
        return matched, list(dict.fromkeys(self._restore_ops.values()))

    def run_restore_ops(self, session: Any = None) -> None:
        """Run the restore ops of every object matched so far."""
        matched, ops = self._build()
        if ops:
            _session(session).run(ops)
        self._restored.update(id(obj) for obj in matched.values() if isinstance(obj, Variable))

    def initialize_or_restore(self, session: Any = None) -> None:
        """Restore what the checkpoint holds; run the initializers of the other variables it reaches."""
        self.run_restore_ops(session)
        graph = _ObjectGraph(self._root)
        inits = [obj.initializer for obj in graph.objects
                 if isinstance(obj, Variable) and id(obj) not in self._restored]
        if inits:
            _session(session).run(inits)

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable reachable from the root has a value in the checkpoint."""
        matched = {id(obj) for obj in self._match().values()}
        unmatched = [obj for obj in _ObjectGraph(self._root).objects
                     if isinstance(obj, Variable) and id(obj) not in matched]
        if unmatched:
            raise AssertionError(_unmatched_message(unmatched))
        return self

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Also every value in the checkpoint is matched to a Python object."""
        self.assert_existing_objects_matched()
        matched = self._match()
        for node, entry in enumerate(self._proto.nodes):
            if entry.attributes and node not in matched:
                raise AssertionError(f"Unresolved object in checkpoint {_node_name(self._proto, node)}: {entry}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Something beyond the root matched."""
        if len(self._match()) <= 1:
            raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this "
                                 "means that the checkpoint does not match the Python program.")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Partial restores are intended: nothing to warn about."""
        return self


def _node_name(proto: Any, target: int) -> str:
    """TF's pretty name of a checkpoint node: `(root).a.b` by the first path that reaches it, and
    `<optimizer>'s state '<slot>' for <variable>` for a slot variable."""
    names = {0: "(root)"}
    queue = collections.deque([0])
    while queue:
        node = queue.popleft()
        for ref in proto.nodes[node].children:
            if ref.node_id not in names:
                names[ref.node_id] = f"{names[node]}.{ref.local_name}"
                queue.append(ref.node_id)
    for node, entry in enumerate(proto.nodes):
        for slot in entry.slot_variables:
            names[slot.slot_variable_node_id] = (f"{names.get(node)}'s state '{slot.slot_name}' for "
                                                 f"{names.get(slot.original_variable_node_id)}")
    return names.get(target, str(target))


class InitializationOnlyStatus:
    """What `restore(None)` returns: there is nothing to restore, so `initialize_or_restore` initializes."""

    def __init__(self, root: Any) -> None:
        self._root = root

    def assert_consumed(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def run_restore_ops(self, session: Any = None) -> None:
        raise AssertionError("No checkpoint specified, so no restore ops are available (save_path=None to "
                             "Saver.restore).")

    def initialize_or_restore(self, session: Any = None) -> None:
        """Run the initializers of every variable the root reaches."""
        inits = [obj.initializer for obj in _ObjectGraph(self._root).objects if isinstance(obj, Variable)]
        if inits:
            _session(session).run(inits)

    def expect_partial(self) -> InitializationOnlyStatus:
        return self


class NameBasedSaverStatus:
    """What `restore` returns for a checkpoint the name-based Saver wrote: each variable the root reaches
    is restored from the entry of its own name (TF's deprecated fallback)."""

    def __init__(self, root: Any, save_path: str) -> None:
        self._root = root
        self._save_path = save_path
        self._restored = False

    def run_restore_ops(self, session: Any = None) -> None:
        """Restore every variable by name with a Saver."""
        with init_scope(), device("/cpu:0"):
            saver = saver_lib.Saver([obj for obj in _ObjectGraph(self._root).objects if isinstance(obj, Variable)])
        saver.restore(_session(session), self._save_path)
        self._restored = True

    initialize_or_restore = run_restore_ops

    def assert_consumed(self) -> NameBasedSaverStatus:
        if not self._restored:
            raise AssertionError(f"Object not restored: {self._root}")
        return self

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self) -> NameBasedSaverStatus:
        return self


@tf_export("train.Checkpoint")
class Checkpoint:
    """Groups trackable objects (keyword arguments) to save and restore them with a `save_counter`."""

    def __init__(self, **kwargs: Any) -> None:
        for name, value in sorted(kwargs.items(), key=lambda item: item[0]):
            if not _is_trackable(value):
                raise ValueError("`Checkpoint` was expecting a trackable object (an object derived from "
                                 f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. "
                                 "it is part of the TensorFlow Python API and manages state), please open an "
                                 "issue.")
            setattr(self, name, value)
        self._dependencies = sorted(kwargs)
        self._save_counter: Variable | None = None
        self._save_assign_op: Any = None
        self._save_cache: dict = {}

    def _trackable_children(self) -> list[tuple[str, Any]]:
        children = [(name, getattr(self, name)) for name in self._dependencies]
        if self._save_counter is not None:
            children.append(("save_counter", self._save_counter))
        return children

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            with init_scope(), device("/cpu:0"):
                self._save_counter = variables.Variable(0, dtype=dtypes.int64, name="save_counter",
                                                        trainable=False, use_resource=True)

    @property
    def save_counter(self) -> Variable:
        """An int64 variable counting the saves, which numbers the checkpoints."""
        self._maybe_create_save_counter()
        return self._save_counter

    def write(self, file_prefix: str, session: Any = None, options: CheckpointOptions | None = None) -> str:
        """Write a checkpoint to exactly `file_prefix`: no numbering, no `checkpoint` state file."""
        callbacks = options.experimental_write_callbacks if options is not None else None
        return self._write_with_callbacks(file_prefix, session, options, callbacks or [])

    def _write_with_callbacks(self, file_prefix: str, session: Any, options: CheckpointOptions | None,
                              callbacks: list[Callable[[str], Any]]) -> str:
        """The write, then each callback with its path (how a CheckpointManager records its saves)."""
        path = _write(self, self._save_cache, file_prefix, session)
        for callback in callbacks:
            callback(path)
        return path

    def save(self, file_prefix: str, session: Any = None, options: CheckpointOptions | None = None) -> str:
        """Write `<file_prefix>-<save_counter>` and name it in the directory's `checkpoint` file."""
        session = _session(session)
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        if self._save_assign_op is None:
            with init_scope():
                self._save_assign_op = self.save_counter.assign_add(1, read_value=True)
        number = session.run(self._save_assign_op)
        path = self.write(f"{os.fspath(file_prefix)}-{int(number)}", session=session, options=options)
        checkpoint_management.update_checkpoint_state_internal(os.path.dirname(file_prefix), path, [path],
                                                               save_relative_paths=True)
        return path

    def restore(self, save_path: str | None) -> Any:
        """A status that restores the checkpoint `save_path` into these objects when its ops run."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path)
        reader = checkpoint_reader.NewCheckpointReader(save_path)
        self._maybe_create_save_counter()
        if not reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
            return NameBasedSaverStatus(self, save_path)
        proto = TrackableObjectGraph.FromString(reader.get_tensor(OBJECT_GRAPH_PROTO_KEY))
        return CheckpointLoadStatus(self, save_path, proto, reader)

    def read(self, save_path: str, options: CheckpointOptions | None = None) -> Any:
        """`restore` of a checkpoint `write` made (TF 2's name)."""
        return self.restore(save_path)

