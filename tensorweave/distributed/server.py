"""`tf.train.Server`: one task of a cluster, serving TF's MasterService and WorkerService on one port.

The server is built from a ServerDef, a ClusterDef, a ClusterSpec or a dict (TF's rules pick the job and
task when the cluster leaves no choice) and binds its task's port at once; port 0 picks a free one, which
`target` then names. Any client reaches the cluster through `target` ('grpc://host:port'): a
`tf.Session(server.target)` speaks RunStep to this task's master, which runs steps on every task's worker.
"""

from __future__ import annotations

import threading
from typing import Any

from tensorweave import errors
from tensorweave.distributed import (
    grpc_session,  # noqa: F401 - registers the grpc:// session factory
    rpc,
)
from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.distributed.master import Master, register_local_master
from tensorweave.distributed.worker import Worker
from tensorweave.distributed.worker_cache import task_name
from tensorweave.formats import protos
from tensorweave.platform.tf_export import tf_export


def _make_server_def(server_or_cluster_def: Any, job_name: str | None, task_index: int | None,
                     protocol: str | None, config: Any) -> Any:
    """TF's rules: a ServerDef is taken as it is, with the given fields replaced; a cluster must name one
    job and one task unless it has only one."""
    if isinstance(server_or_cluster_def, protos.ServerDef):
        server_def = protos.ServerDef()
        server_def.CopyFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
        return server_def
    cluster_spec = ClusterSpec(server_or_cluster_def)
    if job_name is None:
        if len(cluster_spec.jobs) != 1:
            raise ValueError("Must specify an explicit `job_name`.")
        job_name = cluster_spec.jobs[0]
    if task_index is None:
        task_indices = cluster_spec.task_indices(job_name)
        if len(task_indices) != 1:
            raise ValueError("Must specify an explicit `task_index`.")
        task_index = task_indices[0]
    server_def = protos.ServerDef(cluster=cluster_spec.as_cluster_def(), job_name=job_name, task_index=task_index,
                                  protocol=protocol or "grpc")
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


@tf_export("train.Server")
class Server:
    """An in-process TensorFlow server, for use in distributed training."""

    def __init__(self, server_or_cluster_def: Any, job_name: str | None = None, task_index: int | None = None,
                 protocol: str | None = None, config: Any = None, start: bool = True) -> None:
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        server_def = self._server_def
        if server_def.protocol != "grpc":
            raise errors.NotFoundError(None, None, f"No server factory registered for the given ServerDef: "
                                       f"{server_def}\nThe available server factories are: [ GRPC_SERVER ]")
        cluster = ClusterSpec(server_def.cluster)
        tasks = dict(cluster._cluster_spec.get(server_def.job_name, {}))
        if not tasks and server_def.job_name not in cluster.jobs:
            raise ValueError(f"No such job in cluster: {server_def.job_name!r}")
        if server_def.task_index not in tasks:
            raise errors.InternalError(None, None, f'Task {server_def.task_index} was not defined in job '
                                       f'"{server_def.job_name}"')
        host, _, port = tasks[server_def.task_index].rpartition(":")
        self._grpc = rpc.new_server()
        bound = self._bind(int(server_def.port or port))
        self._target = f"grpc://{host}:{bound}"
        if int(port) == 0:  # the others reach this task at the port it got
            cluster._cluster_spec[server_def.job_name][server_def.task_index] = f"{host}:{bound}"
        config = server_def.default_session_config if server_def.HasField("default_session_config") else None
        task = task_name(server_def.job_name, server_def.task_index)
        self._worker = Worker(task, cluster, config)
        self._master = Master(self._worker.cache, config)
        rpc.serve(self._grpc, rpc.MASTER_SERVICE, rpc.MASTER_METHODS, self._master)
        rpc.serve(self._grpc, rpc.WORKER_SERVICE, rpc.WORKER_METHODS, self._worker,
                  {"GetStatus": (rpc.SELF_CLEANING,)})
        self._started = False
        self._stopped = threading.Event()
        if start:
            self.start()

    def _bind(self, port: int) -> int:
        """Listen on every interface, as TF does (IPv4 only where the host has no IPv6)."""
        for address in (f"[::]:{port}", f"0.0.0.0:{port}"):
            try:
                bound = self._grpc.add_insecure_port(address)
            except RuntimeError:
                continue
            if bound:
                return bound
        raise errors.UnknownError(None, None, f"Could not start gRPC server: failed to bind port {port}")

    @property
    def server_def(self) -> Any:
        """The `tf.train.ServerDef` this server was built from."""
        return self._server_def

    @property
    def target(self) -> str:
        """'grpc://host:port': what a `tf.Session` connects to."""
        return self._target

    def start(self) -> None:
        """Start serving (a second call does nothing)."""
        if not self._started:
            self._started = True
            self._grpc.start()
            register_local_master(self._target, self._master)

    def join(self) -> None:
        """Block until the server shuts down."""
        self._stopped.wait()

    def _stop(self) -> None:
        """Stop serving now and fail every step still running here (not TF API: tests and tools use it)."""
        if self._stopped.is_set():
            return
        register_local_master(self._target, None)
        self._grpc.stop(None)
        self._master.close()
        self._worker.close()
        self._stopped.set()

    @staticmethod
    def create_local_server(config: Any = None, start: bool = True) -> Server:
        """A server for a one-task cluster on a free port of localhost."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)
