"""`tf.distribute.cluster_resolver`: where a task learns its cluster, its own job and index, and its master.

`TFConfigClusterResolver` reads the `TF_CONFIG` environment variable as TF does (the Kubeflow TFJob
convention): JSON with `cluster` (job -> addresses), `task` ({"type": job, "index": i}) and optionally
`rpc_layer`; values given to the constructor win over it. It is read at each access, so a process that
changes `TF_CONFIG` sees the change.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.platform.tf_export import tf_export

_TF_CONFIG_ENV = "TF_CONFIG"
_TASK_KEY = "task"
_CLUSTER_KEY = "cluster"
_RPC_LAYER_KEY = "rpc_layer"


def format_master_url(master: str, rpc_layer: str | None = None) -> str:
    """'rpc_layer://master', or `master` as it is without an RPC layer."""
    return f"{rpc_layer}://{master}" if rpc_layer else master


def _load_tf_config() -> dict[str, Any]:
    return json.loads(os.environ.get(_TF_CONFIG_ENV, "{}"))


def _get_value_in_tfconfig(key: str, default: Any = None) -> Any:
    return _load_tf_config().get(key, default)


@tf_export("distribute.cluster_resolver.ClusterResolver")
class ClusterResolver:
    """The interface every cluster resolver offers: the ClusterSpec, a task's master, and the task."""

    task_type: str | None = None
    task_id: int | None = None
    rpc_layer: str | None = None

    def cluster_spec(self) -> ClusterSpec:
        raise NotImplementedError()

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        raise NotImplementedError()

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        """Accelerators per type on the task: none here (CPU devices are not counted, as in TF)."""
        return {}

    @property
    def environment(self) -> str:
        """The environment this resolver runs in ('' for none in particular)."""
        return ""


@tf_export("distribute.cluster_resolver.SimpleClusterResolver")
class SimpleClusterResolver(ClusterResolver):
    """A resolver over a ClusterSpec and task given in code."""

    def __init__(self, cluster_spec: ClusterSpec, master: str = "", task_type: str | None = None,
                 task_id: int | None = None, environment: str = "", num_accelerators: dict | None = None,
                 rpc_layer: str | None = None) -> None:
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        self._cluster_spec = cluster_spec
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators or {}
        self.rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster_spec

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
        else:
            master = self._master
        return format_master_url(master, rpc_layer=rpc_layer or self.rpc_layer)

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        return dict(self._num_accelerators)

    @property
    def environment(self) -> str:
        return self._environment


@tf_export("distribute.cluster_resolver.TFConfigClusterResolver")
class TFConfigClusterResolver(ClusterResolver):
    """The cluster, task and RPC layer that the `TF_CONFIG` environment variable names."""

    def __init__(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None,
                 environment: str | None = None) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self) -> str | None:  # type: ignore[override]
        if self._task_type is None:
            task_info = _get_value_in_tfconfig(_TASK_KEY, {})
            return str(task_info["type"]) if "type" in task_info else None
        return str(self._task_type)

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:  # type: ignore[override]
        if self._task_id is None:
            task_info = _get_value_in_tfconfig(_TASK_KEY, {})
            return int(task_info["index"]) if "index" in task_info else None
        return int(self._task_id)

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> Any:
        return self._environment

    @property
    def rpc_layer(self) -> str | None:  # type: ignore[override]
        if self._rpc_layer is None:
            return _get_value_in_tfconfig(_RPC_LAYER_KEY)
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        """The `cluster` of TF_CONFIG (an empty ClusterSpec when there is none)."""
        return ClusterSpec(_get_value_in_tfconfig(_CLUSTER_KEY, {}))

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        """The address of the given (or this) task, with its RPC layer; '' when no task is known."""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is not None and task_id is not None:
            return format_master_url(self.cluster_spec().task_address(task_type, task_id),
                                     rpc_layer or self.rpc_layer)
        return ""
