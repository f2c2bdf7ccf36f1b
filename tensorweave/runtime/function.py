"""The session's function library runtime (TF's FunctionLibraryRuntime): runs a function-call kernel's body.

The library holds each function as its body GraphDef with a call frame (the client converts FunctionDefs,
framework/function_def.py, so the runtime sees GraphDefs only). A function is instantiated once per device, on
its first call: its body is pruned to its results and its side effects (its control outputs for a function
built by TF2's tracing, which marks its FunctionDef with a `_construction_context`; every stateful node for
one of TF1's, a Defun, as TF keeps them), and one Executor runs that body for every later call,
from any thread. A call runs in the caller's step: its kernels share the step's resources, rendezvous and
cancellation, and kernels of nested calls come back here. An error inside names the body's node, as TF's.

Invariant: the library only grows (a name keeps its first definition), so an instantiation never goes stale.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.framework import op_registry
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_kernel import OpKernel, OpKernelContext, nested_error
from tensorweave.runtime.executor import Executor
from tensorweave.runtime.prune import prune


class FunctionLibraryRuntime:
    """The function bodies a session was given and their instantiations, by (name, device)."""

    def __init__(self) -> None:
        self._bodies: dict[str, GraphDef] = {}
        self._definitions: dict[str, Any] = {}
        self._instances: dict[tuple[str, str], Executor] = {}
        self._lock = threading.RLock()

    def add_functions(self, bodies: Mapping[str, GraphDef], definitions: Sequence[Any] = ()) -> None:
        with self._lock:
            for name, body in bodies.items():
                self._bodies.setdefault(name, body)
            for fdef in definitions:
                self._definitions.setdefault(fdef.signature.name, fdef)

    def definitions(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._definitions)

    def body(self, name: str) -> GraphDef | None:
        """Function `name`'s body, None when the library lacks it."""
        return self._bodies.get(name)

    def new_kernel(self, node_def: NodeDef, device: DeviceBase) -> OpKernel:
        """A kernel whose function calls run through this library."""
        kernel = op_registry.new_kernel(node_def, device)
        kernel.function_library = self
        return kernel

    def _instantiate(self, name: str, device: DeviceBase) -> Executor:
        with self._lock:
            executor = self._instances.get((name, device.name))
            if executor is not None:
                return executor
            body = self._bodies.get(name)
            if body is None:
                raise errors.NotFoundError(None, None, f"Function {name} is not defined.")
            keep = [n.name for n in body.node if n.op == "_Retval"]
            fdef = self._definitions.get(name)
            if fdef is not None and "_construction_context" in fdef.attr:  # TF2's: its control outputs run
                keep += list(fdef.control_ret.values())
            else:  # TF1's (a Defun): every stateful node runs
                registered = op_registry.registered_ops()
                keep += [n.name for n in body.node
                         if n.op != "_Arg" and n.op in registered and registered[n.op].op_def.is_stateful]
            executor = Executor(prune(body, [], [], keep), device, self.new_kernel)
            self._instances[(name, device.name)] = executor
            return executor

    def call(self, ctx: OpKernelContext, name: str, args: Sequence[Any]) -> list[Any]:
        executor = self._instances.get((name, ctx.device.name)) or self._instantiate(name, ctx.device)
        try:
            return executor.run(args, None, ctx.step)
        except errors.OpError as e:
            raise nested_error(e) from e
