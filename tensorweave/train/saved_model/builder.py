"""`tf.saved_model.builder.SavedModelBuilder` and `simple_save`: a SavedModel directory written as TF
writes it.

The first meta graph is added with the variables: a sharded V2 Saver over every saveable object writes
`variables/variables.{index,data-00000-of-00001}` and its SaverDef rides in the meta graph. Later meta graphs
share those variables and assets. Assets are string constants naming files: each is copied into `assets/`
under its basename (made unique when two different files share one) and recorded in the graph's
`saved_model_assets` collection as an AssetFileDef, so a loader feeds the tensor with the copy's path. The
main op is kept in the `saved_model_main_op` collection. Nothing is written until `save()`.
"""

from __future__ import annotations

import filecmp
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tensorweave.formats import protos
from tensorweave.formats.datatypes import DT_INVALID
from tensorweave.framework import dtypes
from tensorweave.framework.graph import GraphKeys, Operation, Tensor, add_to_collection, get_collection
from tensorweave.platform import gfile, tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.saved_model import constants, signature_def_utils
from tensorweave.train.saver import Saver


def _validate_tensor_info(tensor_info: Any) -> None:
    if tensor_info.WhichOneof("encoding") is None:
        raise AssertionError(f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in the "
                             "SignatureDefs must have one of the 'encoding' fields (e.g., name or coo_sparse) set.")
    if tensor_info.dtype == DT_INVALID:
        raise AssertionError(f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in the "
                             "SignatureDefs must have the dtype field set.")


def _validate_signature_def_map(signature_def_map: Mapping[str, Any]) -> None:
    """Every TensorInfo names a tensor and its dtype; the op-signature keys are the format's own."""
    for signature_def in signature_def_map.values():
        for info in list(signature_def.inputs.values()) + list(signature_def.outputs.values()):
            _validate_tensor_info(info)
    for key, what in ((constants.INIT_OP_SIGNATURE_KEY, "for initialization"),
                      (constants.TRAIN_OP_SIGNATURE_KEY, "for the train op")):
        if key in signature_def_map:
            raise KeyError(f'SignatureDef map key "{key}" is reserved {what}. Please use a different key.')


def _asset_path_from_tensor(path_tensor: Any) -> bytes:
    """The file an asset tensor names: it must be a scalar string constant."""
    if not isinstance(path_tensor, Tensor):
        raise TypeError(f"Asset path tensor {path_tensor} must be a Tensor.")
    if path_tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {path_tensor} must be of type constant.Has type "
                        f"{path_tensor.op.type} instead.")
    if path_tensor.dtype != dtypes.string:
        raise TypeError(f"Asset path tensor {path_tensor}` must be of dtype string.Has type {path_tensor.dtype} "
                        "instead.")
    values = path_tensor.op.get_attr("value").string_val
    if len(values) != 1:
        raise TypeError(f"Asset path tensor {path_tensor} must be a scalar.")
    return values[0]


def _asset_filename_to_add(path: bytes, filename_map: dict[bytes, bytes]) -> bytes:
    """The asset's basename, suffixed `_1`, `_2`, ... when a different file already took it."""
    filename = os.path.basename(path)
    other = filename_map.get(filename)
    if other is None or other == path or filecmp.cmp(path, other, shallow=False):
        return filename
    i, unique = 1, filename
    while unique in filename_map:
        unique = b"_".join([filename, str(i).encode()])
        i += 1
    return unique


def _save_assets(assets_collection: Iterable[Any] | None) -> dict[bytes, bytes]:
    """Record each asset tensor in the graph's assets collection; returns {asset basename: source path}."""
    filename_map: dict[bytes, bytes] = {}
    if assets_collection is None:
        tf_logging.info("No assets to save.")
        return filename_map
    for asset_tensor in assets_collection:
        source = _asset_path_from_tensor(asset_tensor)
        if not source:
            raise ValueError(f"Asset filepath tensor {asset_tensor} in is invalid.")
        filename = _asset_filename_to_add(source, filename_map)
        asset = protos.AssetFileDef(filename=filename.decode())
        asset.tensor_info.name = asset_tensor.name
        packed = protos.message_class("google.protobuf.Any")()
        packed.Pack(asset)
        add_to_collection(constants.ASSETS_KEY, packed)
        filename_map[filename] = source
    tf_logging.info("Assets added to graph.")
    return filename_map


def _copy_assets(filename_map: Mapping[bytes, bytes], export_dir: str, saved_files: set[bytes]) -> None:
    """Copy each asset file into `export_dir/assets` once."""
    assets_dir = os.path.join(export_dir, constants.ASSETS_DIRECTORY)
    if not gfile.file_exists(assets_dir):
        gfile.recursive_create_dir(assets_dir)
    for filename, source in filename_map.items():
        destination = os.path.join(os.fsencode(assets_dir), filename)
        if gfile.file_exists(source) and source != destination and destination not in saved_files:
            gfile.copy(source, destination, overwrite=True)
            saved_files.add(destination)
    tf_logging.info("Assets written to: %s", assets_dir)


@tf_export("saved_model.Builder", "saved_model.builder.SavedModelBuilder")
class SavedModelBuilder:
    """Builds a SavedModel: tagged meta graphs sharing one set of variables and assets, written by `save()`."""

    def __init__(self, export_dir: str) -> None:
        self._saved_model = protos.SavedModel(saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._export_dir = export_dir
        if gfile.file_exists(export_dir):
            if gfile.list_directory(export_dir):
                raise AssertionError(f"Export directory {export_dir} already exists, and isn't empty. Please "
                                     "choose a different export directory, or delete all the contents of the "
                                     "specified directory.")
        else:
            gfile.recursive_create_dir(export_dir)
        self._has_saved_variables = False
        self._saved_asset_files: set[bytes] = set()

    def _add_collections(self, assets_collection: Iterable[Any] | None, main_op: Operation | None) -> None:
        filename_map = _save_assets(assets_collection)
        if filename_map:
            _copy_assets(filename_map, self._export_dir, self._saved_asset_files)
        else:
            tf_logging.info("No assets to write.")
        if main_op is None:
            return
        if not isinstance(main_op, Operation):
            raise TypeError(f"Expected {main_op} to be an Operation but got type {type(main_op)} instead.")
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if get_collection(key):
                raise ValueError(f"Graph already contains one or more main ops under the collection {key}.")
        add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _tag_and_add_meta_graph(self, meta_graph_def: Any, tags: Sequence[str],
                                signature_def_map: Mapping[str, Any]) -> None:
        meta_graph_def.meta_info_def.tags.extend(tags)
        for key, signature_def in signature_def_map.items():
            meta_graph_def.signature_def[key].CopyFrom(signature_def)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    @staticmethod
    def _maybe_create_saver(saver: Saver | None) -> Saver:
        """The given Saver, or TF's default: sharded V2 over every saveable object, empty allowed."""
        return saver or Saver(sharded=True, write_version=protos.SaverDef.V2, allow_empty=True)

    def add_meta_graph(self, tags: Sequence[str], signature_def_map: Mapping[str, Any] | None = None,
                       assets_collection: Iterable[Any] | None = None, legacy_init_op: Operation | None = None,
                       clear_devices: bool = False, main_op: Operation | None = None,
                       strip_default_attrs: bool = False, saver: Saver | None = None) -> None:
        """Add the default graph as another tagged meta graph over the variables already saved."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please "
                                 "invoke `add_meta_graph_and_variables()` first.")
        signature_def_map = signature_def_map or {}
        _validate_signature_def_map(signature_def_map)
        self._add_collections(assets_collection, main_op if main_op is not None else legacy_init_op)
        meta_graph_def = self._maybe_create_saver(saver).export_meta_graph(
            clear_devices=clear_devices, strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)

    def add_meta_graph_and_variables(self, sess: Any, tags: Sequence[str],
                                     signature_def_map: Mapping[str, Any] | None = None,
                                     assets_collection: Iterable[Any] | None = None,
                                     legacy_init_op: Operation | None = None, clear_devices: bool = False,
                                     main_op: Operation | None = None, strip_default_attrs: bool = False,
                                     saver: Saver | None = None) -> None:
        """Save the session's variables under `variables/` and add the default graph as the first meta
        graph; call once, before any `add_meta_graph`."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please "
                                 "invoke `add_meta_graph()` instead.")
        signature_def_map = signature_def_map or {}
        _validate_signature_def_map(signature_def_map)
        self._add_collections(assets_collection, main_op or legacy_init_op)
        variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        if not gfile.file_exists(variables_dir):
            gfile.recursive_create_dir(variables_dir)
        saver = self._maybe_create_saver(saver)
        saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME), write_meta_graph=False,
                   write_state=False)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                 strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def save(self, as_text: bool = False) -> bytes:
        """Write `saved_model.pb` (or `saved_model.pbtxt` with `as_text`); returns its path."""
        if not gfile.file_exists(self._export_dir):
            gfile.recursive_create_dir(self._export_dir)
        if as_text:
            path = os.path.join(os.fsencode(self._export_dir), constants.SAVED_MODEL_FILENAME_PBTXT.encode())
            content = str(self._saved_model).encode()
        else:
            path = os.path.join(os.fsencode(self._export_dir), constants.SAVED_MODEL_FILENAME_PB.encode())
            content = self._saved_model.SerializeToString(deterministic=True)
        with gfile.GFile(path, "wb") as f:
            f.write(content)
        tf_logging.info("SavedModel written to: %s", os.fsdecode(path))
        return path


@tf_export("saved_model.simple_save")
def simple_save(session: Any, export_dir: str, inputs: Mapping[str, Tensor], outputs: Mapping[str, Tensor],
                legacy_init_op: Operation | None = None) -> None:
    """A serving SavedModel in one call: a predict signature as `serving_default`, tagged `serve`, the
    graph's asset files, devices cleared."""
    signature_def_map = {
        constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signature_def_utils.predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, tags=[constants.SERVING], signature_def_map=signature_def_map,
        assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS), main_op=legacy_init_op, clear_devices=True)
    builder.save()
