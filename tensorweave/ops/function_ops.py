"""A call frame and the ops that call a function of the graph's library.

`_Arg` and `_Retval` are a step's (or a function body's) call frame, which pruning puts in place of feeds
and fetches. They have definitions (so pruned and partitioned GraphDefs are well-typed and exportable) but
no kernels: the executor writes fed values into `_Arg` slots before a step and reads `_Retval` inputs after.

`PartitionedCall` and `StatefulPartitionedCall` run function `f` of the library on their inputs: the kernel
hands the call to the session's function library runtime (runtime/function.py), which runs the body in the
caller's step.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext

Arg = Op("_Arg", outputs=["output: T"], attrs=["T: type", "index: int >= 0"], is_stateful=True)
Retval = Op("_Retval", inputs=["input: T"], attrs=["T: type", "index: int >= 0"], is_stateful=True)


def function_name(f: Any) -> str:
    """A func attr's function name (the IR keeps a func with attrs of its own as its AttrValue)."""
    return f if isinstance(f, str) else f.func.name


def _call_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Unknown, as TF's: the caller (tf.function) sets its outputs' shapes from the function graph."""
    return [tensor_shape.unknown_shape()] * len(ctx.attr("Tout"))


def _call(ctx: OpKernelContext, *args: Any, f: Any) -> list[Any]:
    return ctx.function_library.call(ctx, function_name(f), args)


_CALL_ATTRS = ["Tin: list(type) >= 0", "Tout: list(type) >= 0", "f: func", "config: string = ''",
               "config_proto: string = ''", "executor_type: string = ''"]

PartitionedCall = Op("PartitionedCall", inputs=["args: Tin"], outputs=["output: Tout"], attrs=_CALL_ATTRS)
PartitionedCall.shape(_call_shape)
PartitionedCall.kernel("CPU", "GPU")(_call)

StatefulPartitionedCall = Op("StatefulPartitionedCall", inputs=["args: Tin"], outputs=["output: Tout"],
                             attrs=_CALL_ATTRS, is_stateful=True, is_distributed_communication=True)
StatefulPartitionedCall.shape(_call_shape)
StatefulPartitionedCall.kernel("CPU", "GPU")(_call)
