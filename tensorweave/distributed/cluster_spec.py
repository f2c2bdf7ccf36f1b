"""`tf.train.ClusterSpec`: the jobs of a cluster and the network address of each of their tasks.

Built from a dict (job name -> list of addresses, or dict of task index -> address for sparse jobs), a
`ClusterDef` protobuf or another ClusterSpec; it converts back to both. Task indices may be sparse, as
TF's JobDef map allows. Messages and errors are TF's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorweave.formats import protos
from tensorweave.platform.tf_export import tf_export


@tf_export("train.ClusterSpec")
class ClusterSpec:
    """Represents a cluster as a set of "tasks", organized into "jobs"."""

    def __init__(self, cluster: Any) -> None:
        if isinstance(cluster, Mapping):
            self._cluster_spec: dict[str, dict[int, str]] = {}
            for job_name, tasks in cluster.items():
                if not isinstance(job_name, (str, bytes)):
                    raise TypeError(f"Job name {job_name!r} must be bytes or unicode")
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, Mapping):
                    job_tasks = {int(index): address for index, address in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a dictionary from integers "
                                    "to strings.")
                self._cluster_spec[job_name] = job_tasks
        elif isinstance(cluster, protos.ClusterDef):
            self._cluster_spec = {job.name: {index: job.tasks[index] for index in sorted(job.tasks)}
                                  for job in cluster.job}
        elif isinstance(cluster, ClusterSpec):
            self._cluster_spec = {job: dict(tasks) for job, tasks in cluster._cluster_spec.items()}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")

    def __bool__(self) -> bool:
        return bool(self._cluster_spec)

    __hash__ = None  # type: ignore[assignment] - mutable-looking, unhashable as TF's

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterSpec) and self._cluster_spec == other._cluster_spec

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return f"ClusterSpec({dict(sorted(self.as_dict().items()))!r})"

    __str__ = __repr__

    def as_dict(self) -> dict[str, Any]:
        """Job name -> list of addresses, or a dict of index -> address where the indices are sparse."""
        result: dict[str, Any] = {}
        for job, tasks in self._cluster_spec.items():
            indices = sorted(tasks)
            dense = indices == list(range(len(indices)))
            result[job] = [tasks[i] for i in indices] if dense else {i: tasks[i] for i in indices}
        return result

    def as_cluster_def(self) -> Any:
        """The cluster as a `tf.train.ClusterDef`, jobs and tasks in sorted order."""
        cluster_def = protos.ClusterDef()
        for job_name, tasks in sorted(self._cluster_spec.items()):
            job = cluster_def.job.add(name=job_name)
            for index, address in sorted(tasks.items()):
                job.tasks[index] = address
        return cluster_def

    @property
    def jobs(self) -> list[str]:
        return list(self._cluster_spec)

    def _tasks(self, job_name: str) -> dict[int, str]:
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name: str) -> int:
        return len(self._tasks(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        return sorted(self._tasks(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        tasks = self._tasks(job_name)
        try:
            return tasks[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index} in job {job_name!r}") from None

    def job_tasks(self, job_name: str) -> list[str | None]:
        """The job's addresses by index, None where a sparse job has no task."""
        tasks = self._tasks(job_name)
        if not tasks:
            return []
        result: list[str | None] = [None] * (max(tasks) + 1)
        for index, address in tasks.items():
            result[index] = address
        return result
