"""FuncGraph: the graph a function is traced into (TF's func_graph.py), and its FunctionDef.

A FuncGraph is a Graph whose `inputs` are placeholders for the function's arguments and whose `outputs` are
its results. An op built in it that reads a tensor of an outer graph captures it, as TF does: a placeholder
stands in for the outer tensor (named `<op>/<outer op>`, so its argument reads `mul_c`), the pair is kept in
`captures` (outer tensor, placeholder), and a call passes the outer tensors after the arguments. A tensor of
a graph further out is captured as it is, as TF's: the graph in between captures it only when the op that
calls this function is made there (so its capture is named after that op). Outer ops named by `control_dependencies`
inside are `control_captures`: the call runs after them. Functions its calls use join its library.
`control_outputs` are ops a call runs though no result reads them (its FunctionDef's control_ret).

Invariant: `inputs` lists the argument placeholders first, then one per capture, in capture order.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes, function_def, tf2
from tensorweave.framework.graph import Graph, Operation, Tensor, get_default_graph
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.op_def import arg_types

# TF's ALLOWLIST_COLLECTIONS: global, local and trainable variables, the variable store and scope store.
_SHARED_COLLECTIONS = ("variables", "local_variables", "trainable_variables", ("__variable_store",),
                       ("__varscope",))


class FuncGraph(Graph):
    """A graph being built as the body of a function."""

    def __init__(self, name: str, outer_graph: Graph | None = None, collections: dict[str, list] | None = None
                 ) -> None:
        """`collections` None: the outer graph's, as TF's (copies, but the variables' collections and
        variable stores are shared, so `get_variable` inside sees the variables outside)."""
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.inputs: list[Tensor] = []
        self.outputs: list[Tensor] = []
        self._captures: dict[Any, tuple[Tensor, Tensor]] = {}  # outer tensor's ref -> (outer, placeholder)
        self._captured_from: dict[Any, Tensor] = {}  # placeholder's ref -> the outer tensor
        self._watched_variables: dict[int, Any] = {}  # id -> a variable read here (kept alive with it)
        self.control_outputs: list[Operation] = []  # ops that run on a call though no result reads them
        self.control_captures: dict[Operation, None] = {}  # outer ops the body's control dependencies name
        if outer_graph is not None:
            self.seed = outer_graph.seed
        if collections is not None:
            self._collections = collections
        elif outer_graph is not None:
            for key in outer_graph.get_all_collection_keys():
                self._collections[key] = list(outer_graph.get_collection(key))
            for key in _SHARED_COLLECTIONS:
                self._collections[key] = outer_graph.get_collection_ref(key)

    @property
    def _building_function(self) -> bool:
        return True

    @property
    def captures(self) -> list[tuple[Tensor, Tensor]]:
        """(outer tensor, its placeholder here), in capture order."""
        return list(self._captures.values())

    @property
    def external_captures(self) -> list[Tensor]:
        return [outer for outer, _ in self._captures.values()]

    @property
    def variables(self) -> list[Any]:
        """The variables read while building this graph or a function graph inside it, first read first."""
        return list(self._watched_variables.values())

    @property
    def trainable_variables(self) -> list[Any]:
        return [v for v in self.variables if v.trainable]

    def watch_variable(self, variable: Any) -> None:
        """Note a read of `variable` here, and in the function graphs further out."""
        graph: Any = self
        while isinstance(graph, FuncGraph):
            graph._watched_variables.setdefault(id(variable), variable)
            graph = graph.outer_graph

    def capture(self, tensor: Tensor, name: str | None = None) -> Tensor:
        """The placeholder of this graph that stands for outer `tensor` (made on its first capture)."""
        if tensor.graph is self:
            return tensor
        known = self.capture_placeholder(tensor)
        if known is not None:
            return known
        with self.as_default(), self.control_dependencies(None), self.name_scope(None):
            placeholder = self.create_op("Placeholder", [], name=name or tensor.op.name,
                                         attrs={"dtype": tensor.dtype.base_dtype, "shape": tensor.shape}).outputs[0]
        placeholder.set_shape(tensor.shape)
        self._captures[tensor.ref()] = (tensor, placeholder)
        self._captured_from[placeholder.ref()] = tensor
        self.inputs.append(placeholder)
        return placeholder

    def control_dependencies(self, control_inputs: Any) -> Any:
        """As Graph's, with outer ops (or their tensors) kept as control captures: the call runs after them."""
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:
            op = c if isinstance(c, Operation) else getattr(c, "op", None)  # a tensor, a variable's update
            if isinstance(op, Operation) and op.graph is not self:
                self.control_captures[op] = None
            else:
                inner.append(c)
        return super().control_dependencies(inner)

    def stand_for(self, placeholder: Tensor, outer: Tensor) -> None:
        """Let argument `placeholder` stand for outer tensor `outer` as a capture's placeholder does (so that a
        variable handle passed as an argument still leads to its variable), without capturing it."""
        self._captured_from[placeholder.ref()] = outer

    def capture_placeholder(self, tensor: Tensor) -> Tensor | None:
        """The placeholder that captured outer `tensor` (None if none has)."""
        known = self._captures.get(tensor.ref())
        return None if known is None else known[1]

    def capture_source(self, placeholder: Tensor) -> Tensor | None:
        """The outer tensor that `placeholder` captured (None for an argument, even one that stands for an
        outer tensor, and for any other tensor)."""
        outer = self._captured_from.get(placeholder.ref())
        return outer if outer is not None and self._captures[outer.ref()][1] is placeholder else None

    def captured_from(self, tensor: Tensor) -> Tensor | None:
        """The outer tensor a capture placeholder stands for (None for any other tensor)."""
        return self._captured_from.get(tensor.ref())

    def _create_op_from_node_def(self, node_def: NodeDef, inputs: list[Tensor],
                                 output_types: list[dtypes.DType], op_def: Any = None,
                                 control_inputs: list[Operation] = (), defer_control_flow: bool = False
                                 ) -> Operation:
        """The op, its outer inputs captured (a capture holds a value: a ref input of an outer variable
        fails, as TF's)."""
        inputs = [t if t.graph is self else self.capture(t, f"{node_def.name}/{t.op.name}") for t in inputs]
        if op_def is not None and any(arg.is_ref for arg in op_def.input_args):
            expected = arg_types(op_def.input_args, node_def.attr)
            if any(want._is_ref_dtype and not t.dtype._is_ref_dtype for want, t in zip(expected, inputs)):
                raise TypeError(f"In op '{node_def.op}', input types ({[t.dtype for t in inputs]}) are not "
                                f"compatible with expected types ({expected})")  # a captured ref is a value
        control_inputs = [op for op in control_inputs if op.graph is self]
        return super()._create_op_from_node_def(node_def, inputs, output_types, op_def, control_inputs,
                                                defer_control_flow)

    def to_function_def(self, name: str) -> Any:
        """This graph as FunctionDef `name`: `inputs` are its arguments, `outputs` its results."""
        return function_def.graph_to_function_def(name, self.get_operations(), self.inputs, self.outputs,
                                                  self.control_outputs)

    def add_library_to(self, graph: Graph) -> None:
        """Add the functions this graph's calls use to `graph`'s library."""
        for function in self._functions.values():
            graph._add_function(function)


def control_flow_v2_in_graph() -> bool:
    """Whether what is built now uses TF2's control flow (functional If and While, TensorList-backed
    TensorArrays): when the toggle is on, and always inside a function being traced (TF's
    `EnableControlFlowV2`)."""
    return tf2.behavior("control_flow_v2") or isinstance(get_default_graph(), FuncGraph)
