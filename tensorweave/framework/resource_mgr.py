"""ResourceMgr: a device's stateful objects (variables, queues, readers) in named containers.

Resources are keyed by (container, name). The default container lives as long as the device; a named
container can be cleared on its own (`tf.Session.reset`), which is how state is shared between sessions
or thrown away. Creation is atomic: concurrent steps asking for the same resource get the same object.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from tensorweave import errors

DEFAULT_CONTAINER = "localhost"


class ResourceMgr:
    """Per-device registry of resources, keyed by container and name."""

    def __init__(self, default_container: str = DEFAULT_CONTAINER) -> None:
        self.default_container = default_container
        self._containers: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def lookup_or_create(self, container: str, name: str, creator: Callable[[], Any]) -> Any:
        """The resource `name` in `container` (default if empty), created by `creator` if absent."""
        container = container or self.default_container
        with self._lock:
            resources = self._containers.setdefault(container, {})
            resource = resources.get(name)
            if resource is None:
                resource = resources[name] = creator()
            return resource

    def lookup(self, container: str, name: str) -> Any:
        container = container or self.default_container
        with self._lock:
            try:
                return self._containers[container][name]
            except KeyError:
                raise errors.NotFoundError(
                    None, None, f"Resource {container}/{name} does not exist.") from None

    def delete(self, container: str, name: str) -> None:
        """Drop resource `name` of `container` (TF's DeleteResource); a later lookup does not find it."""
        container = container or self.default_container
        with self._lock:
            if self._containers.get(container, {}).pop(name, None) is None:
                raise errors.NotFoundError(None, None, f"Resource {container}/{name} does not exist.")

    def resources(self, container: str) -> list[Any]:
        """The resources of `container` (default if empty) now."""
        with self._lock:
            return list(self._containers.get(container or self.default_container, {}).values())

    def container_names(self) -> list[str]:
        with self._lock:
            return list(self._containers)

    def cleanup(self, container: str) -> None:
        """Drop every resource of `container`; later lookups create fresh ones."""
        with self._lock:
            self._containers.pop(container, None)

    def clear(self) -> None:
        with self._lock:
            self._containers.clear()


_unnamed_ids = itertools.count()  # process-wide, as TF's ContainerInfo numbers resources without a shared name


def resource_name(shared_name: str, node_name: str) -> str:
    """The name a resource kernel files its resource under: the shared name, else `_<id>_<node>` (TF's
    ContainerInfo), so two kernels without a shared name never share a resource."""
    return shared_name or f"_{next(_unnamed_ids)}_{node_name}"


class ResourceSlot:
    """A resource kernel's persistent state: the resource (variable, queue, reader, iterator) it found or
    made in its ResourceMgr on its first run, so later runs skip the lookup.

    The first run is serialized (TF's ResourceOpKernel holds its mutex around it): a stateful kernel is
    shared by every plan of a session, so two threads may run it first at once, and without a shared name
    each would file a resource under its own fresh name: two queues where the graph has one."""

    __slots__ = ("resource", "_lock")

    def __init__(self, attrs: Any = None) -> None:
        self.resource: Any = None
        self._lock = threading.Lock()

    def get(self, find_or_make: Callable[[], Any]) -> Any:
        """The resource, from `find_or_make()` on the first call only (once, whichever threads ask)."""
        resource = self.resource
        if resource is None:
            with self._lock:
                if self.resource is None:
                    self.resource = find_or_make()
                resource = self.resource
        return resource
