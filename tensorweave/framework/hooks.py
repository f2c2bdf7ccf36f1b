"""Late-bound calls from a lower framework module up to a higher one: the one way imports may point up.

Imports in framework/ go one way, bottom to top: the IR (graph_def, op_def, dtypes, tensor_shape), the op
registry (op_kernel, op_registry), graph_io, shape inference, the Python graph (graph), node building
(node_builder), then tensor_util and indexed_slices. Where a lower module must call a higher one at run
time (`Op.__call__` builds a node in the Python graph, `GraphDef.to_proto` converts to a protobuf), it
declares a `Hook` naming the module that provides the call, and that module installs its function when it
is imported. The lower module never imports the higher one: its import graph stays acyclic, and the
runtime, which only reads the IR and the registry, never loads the Python graph.

Invariant: a hook's provider sits above the module that declares it (tests/test_layering.py reads every
`Hook(name, provider)` and checks that the provider imports the declaring module), and each hook is
installed exactly once. A hook called before its provider was imported imports it (that
installs it), so no caller depends on import order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Generic, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Hook(Generic[F]):
    """A call a lower module makes and a higher module (`provider`) implements."""

    def __init__(self, name: str, provider: str) -> None:
        """`name` says what the call is for (in errors); `provider` is the dotted module that installs it."""
        self.name = name
        self.provider = provider
        self._fn: F | None = None

    def install(self, fn: F) -> F:
        """Fill the hook (once, from `provider`); returns `fn`, so it may decorate it."""
        if self._fn is not None:
            raise RuntimeError(f"Hook '{self.name}' is already installed")
        self._fn = fn
        return fn

    @property
    def installed(self) -> bool:
        return self._fn is not None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self._fn
        if fn is None:
            importlib.import_module(self.provider)  # its import installs the hook
            fn = self._fn
            if fn is None:
                raise RuntimeError(f"{self.provider} did not install hook '{self.name}'")
        return fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<Hook {self.name} from {self.provider}>"
