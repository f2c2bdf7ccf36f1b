"""`tf.train.replica_device_setter`: the device function that puts a replicated model's state on the
parameter-server tasks and everything else on the worker.

Ops whose type is in `ps_ops` (variables, by default) get the PS device, their task chosen by a strategy
(round-robin, or `GreedyLoadBalancingStrategy` which fills the least-loaded task first); every other op gets
the worker device. Either is merged under whatever device the op already names, so an inner `tf.device`
keeps its fields. The strategies see each op once, in creation order, so placement is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.framework import tensor_shape
from tensorweave.framework.device_spec import DeviceSpec
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator",
                   "DecisionTreeResource")


class _RoundRobinStrategy:
    """PS tasks 0, 1, ..., n-1, 0, ... in turn."""

    def __init__(self, num_tasks: int) -> None:
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """The PS task with the least load so far (the first on ties), charged `load_fn(op)` for each op it gets:
    TF1's `tf.contrib.training.GreedyLoadBalancingStrategy`, which TF 2's compat.v1 no longer exports."""

    def __init__(self, num_tasks: int, load_fn: Callable[[Any], float]) -> None:
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op: Any) -> int:
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op: Any) -> int:
    """The bytes of a single-output op's output (a variable's storage): the load `GreedyLoadBalancingStrategy`
    balances. A shape unknown at creation falls back to the op's `shape` attr."""
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    output = op.outputs[0]
    shape = output.get_shape()
    if not shape.is_fully_defined():
        shape = tensor_shape.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * output.dtype.size


class _ReplicaDeviceChooser:
    """The device function `replica_device_setter` returns, with its settings."""

    def __init__(self, ps_tasks: int, ps_device: str, worker_device: str, merge_devices: bool, ps_ops: list,
                 ps_strategy: Callable[[Any], int]) -> None:
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op: Any) -> str:
        """The PS device (task from the strategy unless the op names another job) or the worker device, each
        merged under the op's own device."""
        if not self._merge_devices and op.device:
            return op.device
        current_device = DeviceSpec.from_string(op.device or "")
        op_type = op.type if hasattr(op, "type") else op.op
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            if ps_device.job and (not current_device.job or current_device.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current_device).to_string()
        worker_device = DeviceSpec.from_string(self._worker_device or "")
        return worker_device.make_merged_spec(current_device).to_string()


@tf_export("train.replica_device_setter")
def replica_device_setter(ps_tasks: int = 0, ps_device: str = "/job:ps", worker_device: str = "/job:worker",
                          merge_devices: bool = True, cluster: Any = None, ps_ops: list | None = None,
                          ps_strategy: Callable[[Any], int] | None = None) -> Callable[[Any], str] | None:
    """A device function for `tf.device` that builds a between-graph replica: state on the PS tasks (counted
    from `cluster` when given), computation on `worker_device`; None when there is no PS job."""
    if cluster is not None:
        cluster_spec = (cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)).as_dict()
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        tf_logging.get_logger().warning("DEPRECATION: It is recommended to set merge_devices=true in "
                                        "replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
