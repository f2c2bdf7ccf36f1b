"""TF1's `tf.summary.FileWriter` and `FileWriterCache` over the L0 event writer (`formats.events`).

What this layer adds is what needs the graph: the MetaGraphDef written after a constructor's graph gets
its op list, version strings and the default graph's collections (`meta_graph`), and a cached writer
starts with the default graph, as TF's does.
"""

from __future__ import annotations

from typing import Any

from tensorweave.formats import events
from tensorweave.framework.graph import Graph, get_default_graph
from tensorweave.framework.meta_graph import create_meta_graph_def
from tensorweave.platform.tf_export import tf_export


@tf_export("summary.FileWriter")
class FileWriter(events.FileWriter):
    """TF1's `tf.summary.FileWriter`: summaries, session logs, graphs and run metadata to an event file."""

    def _constructor_meta_graph(self, graph: Any, graph_def: Any) -> Any:
        """TF's `create_meta_graph_def(graph_def=graph_def or graph's GraphDef)`: it takes a Graph only as
        `graph`, and the collections always come from the default graph."""
        if isinstance(graph_def, Graph):
            raise TypeError(f"graph_def must be of type GraphDef. Received type: {type(graph_def)}.")
        return create_meta_graph_def(super()._constructor_meta_graph(graph, graph_def).graph_def,
                                     get_default_graph())


@tf_export("summary.FileWriterCache")
class FileWriterCache(events.FileWriterCache):
    """One shared FileWriter per logdir (TF1's `tf.summary.FileWriterCache`); a new one starts with the
    default graph and its MetaGraphDef, as TF's does."""

    _cache: dict[str, events.FileWriter] = {}

    @staticmethod
    def _new_writer(logdir: str) -> FileWriter:
        return FileWriter(logdir, graph=get_default_graph())
