"""`tf.debugging.enable_check_numerics` / `disable_check_numerics`: an op callback that follows every floating
output of each op built afterwards (on this thread) with a CheckNumericsV2, whose message names the op type,
the output slot, dtype, static shape, the op's inputs and where user code created it, as TF's.

As in TF1 graph mode, the wrapper of an instrumented op returns the checked tensor, so later ops read the
checked value; a Placeholder is the exception (its check cannot run before it is fed, so the placeholder
itself is returned and each op reading it waits on its check through a control edge). Ops of control flow
and a few frequent, value-preserving ones are not instrumented (TF's skip and safe lists).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from tensorweave.framework import op_callbacks
from tensorweave.framework.graph import Tensor
from tensorweave.ops.check_ops import CheckNumericsV2
from tensorweave.platform import tf_logging as logging
from tensorweave.platform.tf_export import tf_export

# TF's op_callbacks_common.OP_CALLBACK_SKIP_OPS: control flow (and internal ops) whose outputs a callback
# must not replace.
_SKIP_OPS = frozenset({
    "Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration", "StatelessIf",
    "StatefulPartitionedCall", "Switch", "While", "RemoteCall", "TPUReplicatedInput", "TPUReplicateMetadata",
    "TPUCompilationResult", "TPUReplicatedOutput", "ConfigureDistributedTPU", "DestroyResourceOp"})
# TF's SAFE_OPS: frequent ops that only move or select values, skipped to save the checks.
_SAFE_OPS = frozenset({
    "Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape", "Slice", "Squeeze",
    "Stack", "StridedSlice", "StridedSliceGrad", "TensorListConcatV2", "TensorListGather", "TensorListGetItem",
    "TensorListPopBack", "TensorListStack", "Transpose", "Unpack"})
# Outputs that are NaN by design (FusedBatchNorm's statistics of an empty batch).
_IGNORED_OUTPUTS = frozenset(
    [(op, slot) for op in ("FusedBatchNorm", "FusedBatchNormV2") for slot in range(1, 5)]
    + [("FusedBatchNormV3", slot) for slot in range(1, 6)])

_state = threading.local()


def _limit_length(text: str, max_len: int | None) -> str:
    return text if max_len is None or len(text) <= max_len else "..." + text[len(text) - max_len:]


class _CheckNumericsCallback:
    """The callback of one thread, with what it remembers per graph: each checked tensor's original (the
    message names an op's inputs by their original tensors) and each placeholder's check."""

    def __init__(self, stack_height_limit: int | None, path_length_limit: int | None) -> None:
        self._stack_height_limit = stack_height_limit
        self._path_length_limit = path_length_limit
        self._originals: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._placeholder_checks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _message(self, slot: int, op_type: str, output: Tensor, inputs: list[Tensor], num_outputs: int) -> str:
        originals = self._originals.get(output.graph, {})
        lines = [f"\n\n!!! Detected Infinity or NaN in output {slot} of graph op \"{op_type}\" "
                 f"(# of outputs: {num_outputs}) !!!\n", f"  dtype: {output.dtype}\n", f"  shape: {output.shape}\n"]
        if len(inputs) > 1:
            lines.append(f"\n  Input tensors ({len(inputs)}):\n")
            lines += [f"         {i}: {originals.get(t.name, t)}\n" for i, t in enumerate(inputs)]
        elif inputs:
            lines.append(f"\n  Input tensor: {originals.get(inputs[0].name, inputs[0])}\n")
        traceback = output.op.traceback
        if traceback:
            lines.append("\n  Stack trace of op's creation (\"->\": inferred user code):\n")
            limit = self._stack_height_limit
            if limit is not None and len(traceback) > limit:
                lines.append(f"    + ... (Omitted {len(traceback) - limit} frames)\n")
            for filename, lineno, function, source in traceback[-limit if limit is not None else 0:]:
                # the recorded stack holds only frames outside tensorweave: each is user code
                lines.append(f"    + {_limit_length(filename, self._path_length_limit)} (L{lineno}) {function}\n")
                lines.append(f" -> |   {source}\n")
        return "".join(lines) + "\n"

    def callback(self, op_type: str, inputs: Any, attrs: Any, outputs: Any, op_name: str | None = None,
                 graph: Any = None) -> list[Tensor] | None:
        if op_type in _SKIP_OPS or op_type in _SAFE_OPS:
            return None
        inputs = list(inputs)
        placeholder_checks = self._placeholder_checks.setdefault(graph, {})
        if outputs:
            for t in inputs:
                check = placeholder_checks.get(t)
                if check is not None:
                    outputs[0].op._add_control_input(check.op)
        originals = self._originals.setdefault(graph, {})
        instrumented = []
        for slot, output in enumerate(outputs):
            if not output.dtype.is_floating or (op_type, slot) in _IGNORED_OUTPUTS:
                instrumented.append(output)
                continue
            checked = CheckNumericsV2(output, message=self._message(slot, op_type, output, inputs, len(outputs)))
            originals[checked.name] = output
            if op_type == "Placeholder":
                placeholder_checks[output] = checked
                instrumented.append(output)
            else:
                instrumented.append(checked)
        return instrumented


@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """From now on, on this thread, each floating output of a new op is checked for Inf and NaN when it is
    computed, the error naming the op that made it (idempotent)."""
    if not hasattr(_state, "callback"):
        _state.callback = _CheckNumericsCallback(stack_height_limit, path_length_limit)
    op_callbacks.add_op_callback(_state.callback.callback)
    logging.info("Enabled check-numerics callback in thread %s", threading.current_thread().name)


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics() -> None:
    """Stops instrumenting new ops (those already instrumented keep their checks); idempotent."""
    if not hasattr(_state, "callback"):
        return
    try:
        op_callbacks.remove_op_callback(_state.callback.callback)
        logging.info("Disabled check-numerics callback in thread %s", threading.current_thread().name)
    except KeyError:
        pass
