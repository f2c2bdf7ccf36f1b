"""`tf.train.import_meta_graph`: a MetaGraphDef's graph and collections imported, and its Saver rebuilt.

The graph and collections come in through framework/meta_graph.py; the Saver is TF's `Saver(saver_def=...)`
from train/saver.py (which must not import this module).
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import meta_graph
from tensorweave.framework.graph import get_default_graph
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.saver import Saver


def _saver_for(meta_graph_def: Any, import_scope: str | None, imported_vars: dict) -> Saver | None:
    """TF's choice: the meta graph's own Saver, else a new one over its variables, else none."""
    if meta_graph_def.HasField("saver_def"):
        return Saver(saver_def=meta_graph_def.saver_def, name=import_scope)
    if imported_vars:
        return Saver()
    tf_logging.info("Saver not created because there are no variables in the graph to restore")
    return None


@tf_export("train.import_meta_graph")
def import_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False, import_scope: str | None = None,
                      **kwargs: Any) -> Any:
    """Import a MetaGraphDef (or a `.meta` file, binary or text) into the default graph: its nodes, its
    collections (variables rebuilt as Variables) and, when there is one, the Saver it was saved with."""
    meta_graph_def = meta_graph_or_file
    if isinstance(meta_graph_or_file, str):
        meta_graph_def = meta_graph.read_meta_graph_file(meta_graph_or_file)
    imported_vars = meta_graph.import_scoped_meta_graph(
        meta_graph_def, clear_devices=clear_devices, graph=get_default_graph(), import_scope=import_scope,
        input_map=kwargs.get("input_map"))
    return _saver_for(meta_graph_def, import_scope, imported_vars)
