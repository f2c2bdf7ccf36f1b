"""`tf.train.SyncReplicasOptimizer`: synchronous data-parallel training with between-graph replicas.

Each replica applies its gradients to a ConditionalAccumulator beside each variable (on the PS), stamped
with its local step, then waits for a token from the sync token queue. The chief's queue runner takes
the average of the first `replicas_to_aggregate` gradients of every accumulator, applies them with the
wrapped optimizer (which increments the global step), and enqueues one token per replica carrying the new
global step. A replica's dequeued token becomes its local step, so a gradient computed against an older
step (a straggler's, with backup workers: `total_num_replicas > replicas_to_aggregate`) is dropped by the
accumulator. Before the first step the chief enqueues `replicas_to_aggregate` initial tokens.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    device,
    name_scope,
)
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.ops import control_flow_ops, data_flow_ops, fill_ops, state_ops, variables
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import optimizer, queue_runner, session_run_hook


@tf_export("train.SyncReplicasOptimizer")
class SyncReplicasOptimizer(optimizer.Optimizer):
    """Wraps an optimizer so the replicas' gradients are averaged and applied once per global step."""

    def __init__(self, opt: optimizer.Optimizer, replicas_to_aggregate: int, total_num_replicas: int | None = None,
                 variable_averages: Any = None, variables_to_average: Any = None, use_locking: bool = False,
                 name: str = "sync_replicas") -> None:
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        tf_logging.get_logger().info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                                     replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step: Any = None
        self._sync_token_queue: Any = None
        self._chief_queue_runner: queue_runner.QueueRunner | None = None
        self._accumulator_list: list[tuple[Any, str]] = []

    def compute_gradients(self, *args: Any, **kwargs: Any) -> list:
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None, name: str | None = None) -> Tensor:
        """The replica's train op: its gradients into the accumulators, then its next token as local step.
        Also builds the chief's update (`get_chief_queue_runner`) and init ops (`chief_init_op`,
        `local_step_init_op`, `ready_for_local_init_op`)."""
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops = []
        aggregated_grad = []
        var_list = []
        local_anchor = control_flow_ops.no_op()
        with colocate_with(local_anchor):
            self._local_step = variables.Variable(initial_value=0, trainable=False,
                                                  collections=[GraphKeys.LOCAL_VARIABLES],
                                                  dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = variables.report_uninitialized_variables(variables.global_variables())
        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)
                        continue
                    if isinstance(grad, Tensor):
                        grad_accum = data_flow_ops.ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum")
                        train_ops.append(grad_accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_grad(self._replicas_to_aggregate))
                    else:
                        if not isinstance(grad, IndexedSlices):
                            raise ValueError("Unknown grad type!")
                        grad_accum = data_flow_ops.SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum")
                        train_ops.append(grad_accum.apply_indexed_slices_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_indexed_slices_grad(self._replicas_to_aggregate))
                    self._accumulator_list.append((grad_accum, var.device))
            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(zip(aggregated_grad, var_list), global_step)
                self._sync_token_queue = data_flow_ops.FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                                                                 name="sync_token_q", shared_name="sync_token_q")
                with control_dependencies(train_ops):
                    token = self._sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with control_dependencies([update_op]):
                    tokens = fill_ops.fill([self._tokens_per_step], global_step)
                    sync_op = self._sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = queue_runner.QueueRunner(self._sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self) -> queue_runner.QueueRunner:
        """The queue runner the chief runs: aggregate, apply, and hand out the next step's tokens."""
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args: Any, **kwargs: Any) -> Any:
        return self._opt.get_slot(*args, **kwargs)

    def variables(self) -> list:
        return self._opt.variables()

    def get_slot_names(self, *args: Any, **kwargs: Any) -> list[str]:
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens: int = -1) -> Operation:
        """The chief's op that lets the first step start: `num_tokens` tokens (`replicas_to_aggregate` by
        default) of the current global step."""
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) vs {tokens_needed} "
                             f"(needed)")
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = fill_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return control_flow_ops.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1) -> session_run_hook.SessionRunHook:
        """The hook that runs the local init, and on the chief the init tokens and the queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


def _ready(op: Any, sess: Any, msg: str) -> tuple[bool, str | None]:
    """Whether `op` (a report of uninitialized variables) reports none, with what it reported otherwise."""
    if op is None:
        return True, None
    try:
        ready_value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            tf_logging.get_logger().warning("%s : error [%s]", msg, str(e))
            raise
        return False, str(e)
    if ready_value is None or ready_value.dtype == np.int32 or ready_value.size == 0:
        return True, None
    return False, "Variables not initialized: " + ", ".join(i.decode("utf-8") for i in ready_value)


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    """Runs a replica's local init once the model is ready; on the chief, also the init tokens and the
    chief queue runner."""

    def __init__(self, sync_optimizer: SyncReplicasOptimizer, is_chief: bool, num_tokens: int) -> None:
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self) -> None:
        if self._sync_optimizer._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        self._ready_for_local_init_op = self._sync_optimizer.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = self._sync_optimizer.chief_init_op
            self._q_runner = self._sync_optimizer.get_chief_queue_runner()
            self._init_tokens_op = self._sync_optimizer.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = self._sync_optimizer.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session: Any, coord: Any) -> None:
        success, msg = _ready(self._ready_for_local_init_op, session,
                              "Model is not ready for SyncReplicasOptimizer local init.")
        if not success:
            raise RuntimeError(f"Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                               f"Init op: {self._local_init_op.name}, error: {msg}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
