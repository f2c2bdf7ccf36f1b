"""The runtime's intermediate representation: plain GraphDef/NodeDef dataclasses.

The runtime (prune, place, partition, executor) sees only these, never Python `Operation`s, so every
stage is a function over GraphDefs that can be tested on hand-written graphs and reused by the
distributed master. Attr values are plain Python: DType, int, float, bool, str, TensorShape, lists of
those, and numpy arrays for tensor attrs. Conversion to TF's protobufs happens only at boundaries.

Input strings follow TF: ``"node"`` (output 0), ``"node:1"``, and ``"^node"`` for a control input.

One-way rule: this module is the bottom of the framework and imports none of it. `GraphDef.to_proto`
converts through framework/graph_io.py, which builds on this module and installs the `to_proto` hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tensorweave.framework.hooks import Hook


@dataclass(eq=False)
class NodeDef:
    name: str
    op: str
    input: list[str] = field(default_factory=list)
    device: str = ""
    attr: dict[str, object] = field(default_factory=dict)
    # Tensor attrs whose TensorProto is a splat, as TF stores `tf.zeros([3])` or `tf.constant(0., shape=[3])`:
    # attr name -> how many leading values the proto lists (fewer than the tensor's elements; the last one
    # repeats). The attr itself always holds the expanded array, which is all the runtime reads.
    splats: dict[str, int] = field(default_factory=dict)


@dataclass(eq=False)
class GraphDef:
    node: list[NodeDef] = field(default_factory=list)
    producer: int = 0
    # The function library: TF's FunctionDef protobufs (framework/function_def.py reads them), which only
    # function-call kernels instantiate, so they stay protobufs.
    library: list[Any] = field(default_factory=list)

    def to_proto(self) -> Any:
        """TF's GraphDef protobuf of this graph (for event files, MetaGraphDefs, other TF tools)."""
        return to_proto(self)

    def SerializeToString(self) -> bytes:  # noqa: N802 - the protobuf method TF users call
        return self.to_proto().SerializeToString()


# graph_io.graph_def_to_proto(graph_def): TF's GraphDef protobuf of an IR GraphDef.
to_proto: Hook[Callable[[GraphDef], Any]] = Hook("GraphDef.to_proto", "tensorweave.framework.graph_io")


def parse_input(spec: str) -> tuple[str, int]:
    """Split an input string into (node name, output index); a control input gets index -1."""
    if spec.startswith("^"):
        return spec[1:], -1
    name, sep, index = spec.rpartition(":")
    if sep and index.isdigit():
        return name, int(index)
    return spec, 0


def tensor_name(spec: str) -> str:
    """Canonical 'node:index' form of a tensor name, as feeds and fetches are keyed."""
    name, index = parse_input(spec)
    return f"{name}:{index}"
