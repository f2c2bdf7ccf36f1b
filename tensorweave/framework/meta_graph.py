"""MetaGraphDefs: what FileWriter writes beside a graph, and `tf.train.export_meta_graph` / the import
half of `tf.train.import_meta_graph` (`export_scoped_meta_graph`, `import_scoped_meta_graph`).

A MetaGraphDef holds the GraphDef (with `_output_shapes`), the OpDefs of the ops the graph uses
(`stripped_op_list`, so a reader can strip attrs its older registry lacks), the producing version, a SaverDef
and the graph's serializable collections. The version strings are `versions.VERSION`, the TF release whose
formats tensorweave writes (TF's own `import_meta_graph` parses it as a version number, so it must be one),
and `versions.GIT_VERSION`, which names the real producer.

Collections of Python objects travel as protos: the module that owns the objects registers, per collection
key, the proto type and the function rebuilding an object from it (`register_proto_function`, as
ops/variables.py does for VariableDefs), so this module never imports the op library. A bytes collection with
no registered type imports as its raw bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from google.protobuf import text_format

from tensorweave.formats import protos
from tensorweave.framework import graph_io, importer, op_registry, versions
from tensorweave.framework.graph import (
    Graph,
    GraphKeys,
    get_default_graph,
    prepend_name_scope,
    strip_name_scope,
)
from tensorweave.framework.op_def import check_attr_value
from tensorweave.platform import gfile, tf_logging
from tensorweave.platform.tf_export import tf_export

# Collections TF serializes as their items' protos (`item.to_proto(export_scope=None)`), by key.
_PROTO_COLLECTIONS = frozenset({
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES, GraphKeys.METRIC_VARIABLES, GraphKeys.GLOBAL_STEP, GraphKeys.QUEUE_RUNNERS,
    GraphKeys.SAVERS, GraphKeys.COND_CONTEXT, GraphKeys.WHILE_CONTEXT})
_FUNCTION_CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")
# The op types whose name scopes TF takes for a Saver's (its list, "SaveSlice" spelling included).
_SAVE_AND_RESTORE_OPS = frozenset({"SaveV2", "Save", "SaveSlice", "LegacySave", "LegacySaveSlice", "RestoreV2",
                                   "Restore", "RestoreSlice", "LegacyRestore", "LegacyRestoreSlice"})


# collection key -> (proto type, to_proto(item, export_scope=...), from_proto(proto, import_scope=...))
_proto_functions: dict[str, tuple[type, Callable[..., Any] | None, Callable[..., Any] | None]] = {}


def register_proto_function(collection_name: str, proto_type: type | None = None,
                            to_proto: Callable[..., Any] | None = None,
                            from_proto: Callable[..., Any] | None = None) -> None:
    """Declare how a collection's items become protos and back (TF's ops.register_proto_function)."""
    _proto_functions[collection_name] = (proto_type, to_proto, from_proto)


def create_meta_graph_def(graph_def: Any, graph: Graph, meta_info_def: Any = None, saver_def: Any = None,
                          collection_list: list[str] | None = None, export_scope: str | None = None,
                          exclude_nodes: frozenset[str] = frozenset(), clear_extraneous_savers: bool = False) -> Any:
    """A MetaGraphDef of `graph_def` with the collections of `graph` (FileWriter passes the default graph,
    as TF does, whichever graph the GraphDef came from); items outside `export_scope` or named in
    `exclude_nodes` are left out, and with `clear_extraneous_savers` the savers collection holds `saver_def`
    alone."""
    meta_graph = protos.MetaGraphDef()
    if meta_info_def is not None:
        meta_graph.meta_info_def.CopyFrom(meta_info_def)
    meta_graph.meta_info_def.tensorflow_version = versions.VERSION
    meta_graph.meta_info_def.tensorflow_git_version = versions.GIT_VERSION
    meta_graph.graph_def.CopyFrom(graph_def)
    if not meta_graph.meta_info_def.HasField("stripped_op_list"):
        meta_graph.meta_info_def.stripped_op_list.CopyFrom(stripped_op_list_for_graph(graph_def))
    if saver_def is not None:
        meta_graph.saver_def.CopyFrom(saver_def)
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    for key in keys:
        items = graph.get_collection(key)
        if clear_extraneous_savers and key == GraphKeys.SAVERS:
            # TF rebuilds a Saver from saver_def alone (a new one over every variable when it is None).
            items = [_proto_functions[key][2](saver_def)]
        items = [item for item in items if _exported_name(item) not in exclude_nodes]
        _add_collection_def(meta_graph, key, items, export_scope)
    return meta_graph


def _exported_name(item: Any) -> Any:
    return item if isinstance(item, str) else getattr(item, "name", None)


def _extraneous_saver_nodes(graph_def: Any, saver_def: Any) -> frozenset[str]:
    """The nodes of every Saver but `saver_def`'s (TF's _find_extraneous_saver_nodes): TF takes each
    Saver to own the name scope of its save and restore nodes, and drops the other such scopes whole."""
    def scope_of(name: str) -> str:
        return name.lstrip("^").rsplit("/", 1)[0] if "/" in name else ""

    kept = set()
    if saver_def is not None:
        kept = {scope_of(saver_def.save_tensor_name.split(":")[0]) + "/",
                scope_of(saver_def.restore_op_name.split(":")[0]) + "/"}
    saver_nodes = {n.name for n in graph_def.node if n.op in _SAVE_AND_RESTORE_OPS}
    scopes = {scope + "/" for scope in {scope_of(name) for name in saver_nodes} - saver_nodes} - kept
    return frozenset(n.name for n in graph_def.node if any(n.name.startswith(scope) for scope in scopes))


def stripped_op_list_for_graph(graph_def: Any) -> Any:
    """The OpList of the registered ops a GraphDef uses, by name; ops we do not register are left out, as
    TF's Python version leaves out ops its registry lacks."""
    registered = op_registry.registered_ops()
    return protos.OpList(op=[graph_io.op_def_to_proto(registered[name].op_def)
                             for name in sorted(ops_used_by_graph_def(graph_def)) if name in registered])


def ops_used_by_graph_def(graph_def: Any) -> set[str]:
    """The op types of a GraphDef's nodes and of the nodes of the library functions they call (which are not
    op types themselves)."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used: set[str] = set()
    pending = []

    def mark(op_type: str) -> None:
        if op_type not in used and op_type in functions:
            pending.append(functions[op_type])
        used.add(op_type)

    def visit(node: Any) -> None:
        mark(node.op)
        if node.op in _FUNCTION_CALL_OPS:
            mark(node.attr["f"].func.name)

    for node in graph_def.node:
        visit(node)
    while pending:
        for node in pending.pop().node_def:
            visit(node)
    return used - functions.keys()


def _collection_kind(item: Any) -> str:
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, int):  # bools too: protobuf then refuses them and the collection is dropped, as in TF
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    if getattr(getattr(item, "DESCRIPTOR", None), "full_name", None) == "google.protobuf.Any":
        return "any_list"
    return "node_list"


def _in_export_scope(item: Any, export_scope: str | None) -> bool:
    """TF's _should_include_node: a str is taken for a node name, anything else by its `.name`; an item
    without a name is kept."""
    name = item if isinstance(item, str) else getattr(item, "name", None)
    if not isinstance(name, str):
        return True
    return name.startswith("$unbound_inputs_") or not export_scope or name.startswith(export_scope)


def _add_collection_def(meta_graph: Any, key: str, items: list, export_scope: str | None = None) -> None:
    """Serialize one collection as TF does; one that cannot be (mixed kinds, objects without names) is left
    out with TF's warning."""
    items = [item for item in items if _in_export_scope(item, export_scope)]
    if not items:
        return
    collection = meta_graph.collection_def[key]
    try:
        if key in _PROTO_COLLECTIONS or key in _proto_functions:
            to_proto = _proto_functions.get(key, (None, None, None))[1]
            for item in items:
                proto = to_proto(item, export_scope=export_scope) if to_proto else item.to_proto(
                    export_scope=export_scope)
                if proto is not None:
                    collection.bytes_list.value.append(proto.SerializeToString())
            return
        kind = _collection_kind(items[0])
        values = getattr(collection, kind).value
        if kind == "node_list":
            values.extend(strip_name_scope(item.name, export_scope) for item in items)
        elif kind == "bytes_list":
            values.extend(item.encode() if isinstance(item, str) else item for item in items)
        else:
            values.extend(items)
    except Exception as e:  # noqa: BLE001 - TF warns and goes on without this collection
        tf_logging.get_logger().warning(
            "Issue encountered when serializing %s.\nType is unsupported, or the types of the items don't match "
            "field type in CollectionDef. Note this is a warning and probably safe to ignore.\n%s", key, e)
        del meta_graph.collection_def[key]


def _strip_default_attrs(graph_def: Any) -> None:
    """Drop attrs that hold their OpDef's default, so older readers accept the graph (TF's
    strip_default_attrs)."""
    registered = op_registry.registered_ops()
    for node in graph_def.node:
        if node.op not in registered:
            continue
        op_def = registered[node.op].op_def
        for attr in op_def.attrs:
            if attr.has_default and attr.name in node.attr:
                default = graph_io.attr_to_proto(attr.type, check_attr_value(op_def, attr, None))
                if node.attr[attr.name] == default:
                    del node.attr[attr.name]


def _scoped_graph_def(graph_def: Any, export_scope: str | None, clear_devices: bool,
                      exclude_nodes: frozenset[str] = frozenset()) -> Any:
    """The nodes under `export_scope` (less `exclude_nodes`) with names relative to it (inputs and `_class`
    groups too)."""
    if not export_scope and not clear_devices and not exclude_nodes:
        return graph_def
    scoped = protos.GraphDef()
    scoped.versions.CopyFrom(graph_def.versions)
    scoped.library.CopyFrom(graph_def.library)
    for node in graph_def.node:
        if (export_scope and not node.name.startswith(export_scope)) or node.name in exclude_nodes:
            continue
        copy = scoped.node.add()
        copy.CopyFrom(node)
        copy.name = strip_name_scope(node.name, export_scope)
        del copy.input[:]
        copy.input.extend(strip_name_scope(i, export_scope) for i in node.input)
        if "_class" in node.attr:
            groups = [strip_name_scope(g.decode(), export_scope).encode() for g in node.attr["_class"].list.s]
            del copy.attr["_class"].list.s[:]
            copy.attr["_class"].list.s.extend(groups)
        if clear_devices:
            copy.device = ""
    return scoped


def export_scoped_meta_graph(filename: str | None = None, graph_def: Any = None, graph: Graph | None = None,
                             export_scope: str | None = None, as_text: bool = False,
                             unbound_inputs_col_name: str = "unbound_inputs", clear_devices: bool = False,
                             saver_def: Any = None, clear_extraneous_savers: bool = False,
                             strip_default_attrs: bool = False, save_debug_info: bool = False,
                             meta_info_def: Any = None, collection_list: list[str] | None = None
                             ) -> tuple[Any, dict[str, Any]]:
    """(MetaGraphDef, {name: variable}) of the graph, or its part under `export_scope`, written to `filename`
    when given (binary, or text with `as_text`)."""
    del unbound_inputs_col_name
    if save_debug_info:
        raise NotImplementedError("save_debug_info is not supported yet")
    graph = graph or get_default_graph()
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    elif not isinstance(graph_def, protos.GraphDef):
        graph_def = protos.GraphDef.FromString(graph_def.SerializeToString())
    exclude_nodes = _extraneous_saver_nodes(graph_def, saver_def) if clear_extraneous_savers else frozenset()
    graph_def = _scoped_graph_def(graph_def, export_scope, clear_devices, exclude_nodes)
    if strip_default_attrs:
        graph_def = protos.GraphDef.FromString(graph_def.SerializeToString())
        _strip_default_attrs(graph_def)
    meta_graph = create_meta_graph_def(graph_def, graph, meta_info_def, saver_def, collection_list, export_scope,
                                       exclude_nodes, clear_extraneous_savers)
    meta_graph.meta_info_def.stripped_default_attrs = strip_default_attrs
    if filename:
        graph_io.write_graph(meta_graph, os.path.dirname(filename), os.path.basename(filename), as_text=as_text)
    variables = {strip_name_scope(v.name, export_scope): v for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
                 if export_scope is None or v.name.startswith(export_scope)}
    return meta_graph, variables


@tf_export("train.export_meta_graph")
def export_meta_graph(filename: str | None = None, meta_info_def: Any = None, graph_def: Any = None,
                      saver_def: Any = None, collection_list: list[str] | None = None, as_text: bool = False,
                      graph: Graph | None = None, export_scope: str | None = None, clear_devices: bool = False,
                      clear_extraneous_savers: bool = False, strip_default_attrs: bool = False,
                      save_debug_info: bool = False, **kwargs: Any) -> Any:
    """The MetaGraphDef of the default graph (or `graph`): graph, collections, saver, op list; written to
    `filename` when given, so `tf.train.import_meta_graph` (ours or TF's) rebuilds the graph."""
    del kwargs
    meta_graph, _ = export_scoped_meta_graph(
        filename=filename, meta_info_def=meta_info_def, graph_def=graph_def, saver_def=saver_def,
        collection_list=collection_list, as_text=as_text, graph=graph, export_scope=export_scope,
        clear_devices=clear_devices, clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)
    return meta_graph


def read_meta_graph_file(filename: str) -> Any:
    """A MetaGraphDef from a file in binary or text format, as TF reads `.meta` files."""
    if not gfile.file_exists(filename):
        raise OSError(f"File does not exist. Received: {filename}.")
    with gfile.GFile(filename, "rb") as f:
        content = f.read()
    meta_graph = protos.MetaGraphDef()
    try:
        meta_graph.ParseFromString(content)
    except Exception:  # noqa: BLE001 - not binary: TF then reads it as text
        try:
            text_format.Merge(content.decode("utf-8"), meta_graph)
        except text_format.ParseError as e:
            raise OSError(f"Cannot parse file {filename}: {e}.") from e
    return meta_graph


def _scoped_value(value: Any, scope: str | None) -> Any:
    """A plain collection value as TF re-imports it: TF passes it to prepend_name_scope, so under an import
    scope text comes back as a str name under the scope, and other values (floats, Any protos) unchanged."""
    if not scope:
        return value
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    return prepend_name_scope(value, scope) if isinstance(value, str) else value


def _import_collection(graph: Graph, key: str, collection: Any, scope: str | None, built: dict) -> None:
    kind = collection.WhichOneof("kind")
    if kind == "node_list":
        for name in collection.node_list.value:
            graph.add_to_collection(key, graph.as_graph_element(prepend_name_scope(name, scope)))
    elif kind == "bytes_list":
        proto_type, _, from_proto = _proto_functions.get(key, (None, None, None))
        for value in collection.bytes_list.value:
            if proto_type is None or from_proto is None:
                graph.add_to_collection(key, _scoped_value(value, scope))
                continue
            if value not in built:  # one object for a proto in several collections (variables, trainables)
                built[value] = from_proto(proto_type.FromString(value), import_scope=scope)
            graph.add_to_collection(key, built[value])
    elif kind == "int64_list":
        for value in collection.int64_list.value:
            graph.add_to_collection(key, value)
    elif kind in ("float_list", "any_list"):
        for value in getattr(collection, kind).value:
            graph.add_to_collection(key, _scoped_value(value, scope))
    else:
        tf_logging.warning("Cannot identify data type for collection %s. Skipping.", key)


def import_scoped_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False, graph: Graph | None = None,
                             import_scope: str | None = None, input_map: dict | None = None) -> dict[str, Any]:
    """Import a MetaGraphDef's graph and collections into `graph` (the default graph) under `import_scope`;
    returns its global variables by name (relative to the scope)."""
    meta_graph = meta_graph_or_file
    if isinstance(meta_graph_or_file, str):
        meta_graph = read_meta_graph_file(meta_graph_or_file)
    elif not isinstance(meta_graph, protos.MetaGraphDef):
        meta_graph = protos.MetaGraphDef.FromString(meta_graph.SerializeToString())
    graph = graph or get_default_graph()
    graph_def = protos.GraphDef()
    graph_def.CopyFrom(meta_graph.graph_def)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    producer_op_list = meta_graph.meta_info_def.stripped_op_list \
        if meta_graph.meta_info_def.HasField("stripped_op_list") else None
    with graph.as_default():
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        importer.import_graph_def(graph_def, input_map=input_map, name=import_scope or scope,
                                  producer_op_list=producer_op_list)
        built: dict[bytes, Any] = {}
        # TF restores TRAINABLE_VARIABLES first, then the rest by name (the graph's collection order shows it)
        for key in sorted(meta_graph.collection_def, key=lambda k: (k != GraphKeys.TRAINABLE_VARIABLES, k)):
            _import_collection(graph, key, meta_graph.collection_def[key], scope or None, built)
    prefix = (scope + "/") if scope else ""
    return {v.name[len(prefix):]: v for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope or None)}
