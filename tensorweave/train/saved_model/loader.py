"""`tf.saved_model.loader`: a SavedModel's meta graph (chosen by its exact tag set) imported into a session's
graph, its variables restored from `variables/`, then its init op run with the asset tensors fed the paths
of the copies in `assets/`.

The init op is, as TF looks for it, the op the `__saved_model_init_op` signature names, else the one op of the
`saved_model_main_op` collection, else that of the older `legacy_init_op` collection.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from google.protobuf import message, text_format

from tensorweave.formats import protos
from tensorweave.framework.graph import GraphKeys, get_default_graph
from tensorweave.platform import gfile, tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import meta_graph_io
from tensorweave.train.saved_model import constants, signature_def_utils
from tensorweave.train.saver import Saver


def parse_saved_model(export_dir: str) -> Any:
    """The SavedModel proto of `saved_model.pb`, else of `saved_model.pbtxt`."""
    export_dir = os.fspath(export_dir)
    path_to_pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    path_to_pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = protos.SavedModel()
    if gfile.file_exists(path_to_pb):
        with gfile.GFile(path_to_pb, "rb") as f:
            content = f.read()
        try:
            saved_model.ParseFromString(content)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {path_to_pb}: {e}.") from e
    elif gfile.file_exists(path_to_pbtxt):
        with gfile.GFile(path_to_pbtxt, "rb") as f:
            content = f.read()
        try:
            text_format.Parse(content.decode("utf-8"), saved_model)
        except text_format.ParseError as e:
            raise OSError(f"Cannot parse file {path_to_pbtxt}: {e}.") from e
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
                      f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}")
    return saved_model


@tf_export("saved_model.contains_saved_model", "saved_model.maybe_saved_model_directory",
           "saved_model.loader.maybe_saved_model_directory")
def maybe_saved_model_directory(export_dir: str) -> bool:
    """Whether `export_dir` holds a SavedModel file (it may still fail to load)."""
    return any(gfile.file_exists(os.path.join(os.fspath(export_dir), name))
               for name in (constants.SAVED_MODEL_FILENAME_PBTXT, constants.SAVED_MODEL_FILENAME_PB,
                            constants.SAVED_MODEL_FILENAME_CPB))


def get_meta_graph_def_from_tags(saved_model: Any, tags: Iterable[str]) -> Any:
    """The meta graph whose tag set is exactly `tags`."""
    available_tags = []
    for meta_graph_def in saved_model.meta_graphs:
        available_tags.append(set(meta_graph_def.meta_info_def.tags))
        if set(meta_graph_def.meta_info_def.tags) == set(tags):
            return meta_graph_def
    raise RuntimeError(f"MetaGraphDef associated with tags {str(tags).strip('[]')} could not be found in "
                       f"SavedModel, with available tags '{available_tags}'. To inspect available tag-sets in the "
                       "SavedModel, please use the SavedModel CLI: `saved_model_cli`.")


def get_asset_tensors(export_dir: str, meta_graph_def: Any, import_scope: str | None = None) -> dict[str, str]:
    """{asset tensor name: path of its file in `export_dir/assets`}: what the init op is fed."""
    asset_protos: Iterable[Any] = meta_graph_def.asset_file_def
    if not asset_protos and constants.ASSETS_KEY in meta_graph_def.collection_def:
        asset_protos = []
        for packed in meta_graph_def.collection_def[constants.ASSETS_KEY].any_list.value:
            asset = protos.AssetFileDef()
            packed.Unpack(asset)
            asset_protos.append(asset)
    assets_dir = os.path.join(os.fspath(export_dir), constants.ASSETS_DIRECTORY)
    return {(f"{import_scope}/{asset.tensor_info.name}" if import_scope else asset.tensor_info.name):
            os.path.join(assets_dir, asset.filename) for asset in asset_protos}


def _op_from_collection(meta_graph_def: Any, key: str) -> Any:
    if key not in meta_graph_def.collection_def:
        return None
    names = meta_graph_def.collection_def[key].node_list.value
    if len(names) != 1:
        raise RuntimeError(f"Expected exactly one SavedModel init op. Found {len(names)}: {names}.")
    return get_default_graph().get_collection(key)[0]


def get_init_op(meta_graph_def: Any, import_scope: str | None = None) -> Any:
    """The op to run after the restore, or None."""
    if constants.INIT_OP_SIGNATURE_KEY in meta_graph_def.signature_def:
        return signature_def_utils.load_op_from_signature_def(
            meta_graph_def.signature_def[constants.INIT_OP_SIGNATURE_KEY], constants.INIT_OP_SIGNATURE_KEY,
            import_scope)
    return (_op_from_collection(meta_graph_def, constants.MAIN_OP_KEY)
            or _op_from_collection(meta_graph_def, constants.LEGACY_INIT_OP_KEY))


def _restore_variables(sess: Any, saver: Saver | None, variables_path: str, import_scope: str | None) -> None:
    graph = get_default_graph()
    if saver is None and not (graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=import_scope)
                              + graph.get_collection("saveable_objects", scope=import_scope)):
        tf_logging.info("The specified SavedModel has no variables; no checkpoints were restored.")
    elif isinstance(saver, Saver):
        saver.restore(sess, variables_path)
    else:
        raise ValueError("No tf.train.Saver object was passed to the function "
                         "`SavedModelLoader.restore_variables`. Since there are variables in the graph, a saver is "
                         "required.")


@tf_export("saved_model.load", "saved_model.loader.load")
def load(sess: Any, tags: Iterable[str], export_dir: str, import_scope: str | None = None,
         **saver_kwargs: Any) -> Any:
    """Load the meta graph tagged `tags` into `sess.graph` (names under `import_scope`), restore its variables
    and run its init op; returns the MetaGraphDef (with its signatures, unscoped)."""
    saved_model = parse_saved_model(export_dir)
    meta_graph_def = get_meta_graph_def_from_tags(saved_model, tags)
    with sess.graph.as_default():
        saver = meta_graph_io.import_meta_graph(meta_graph_def, import_scope=import_scope, **saver_kwargs)
        variables_path = os.path.join(os.fspath(export_dir), constants.VARIABLES_DIRECTORY,
                                      constants.VARIABLES_FILENAME)
        _restore_variables(sess, saver, variables_path, import_scope)
        init_op = get_init_op(meta_graph_def, import_scope)
        if init_op is not None:
            sess.run(fetches=[init_op], feed_dict=get_asset_tensors(export_dir, meta_graph_def, import_scope))
    return meta_graph_def
