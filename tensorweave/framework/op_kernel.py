"""Kernels as TF splits them (framework/op_kernel.h): a registration, a per-node kernel, a per-call context.

- `KernelDef`: one registered implementation of an op on one device type, with TF's dtype constraints
  (`T in [...]`), the arguments it keeps in host memory, and how the executor should treat it (cheap or
  expensive, constant, asynchronous). An op may have several per device type (other dtypes, other code).
- `OpKernel`: one node's kernel, made once per node when a plan is built: the attrs its function names are
  bound, and its persistent state (a variable's storage, a random generator) is a typed object that lives
  as long as the kernel (a session keeps stateful nodes' kernels across its plans, as TF's OpSegment).
- `OpKernelContext`: one call of a kernel: the kernel, the step it runs in (step id, the step's
  rendezvous, cancellation and resources), and its loop frame and iteration.

A synchronous kernel function is `fn(ctx, *inputs, **attrs)` and returns its output (a sequence when the
node has several). An asynchronous one is `fn(ctx, done, *inputs, **attrs)`: it returns at once and later,
from any thread, calls `done(outputs)` or `done(error=exc)` exactly once; the executor holds no thread while
it waits. Every kernel call outside the executor (constant folding, graph-time evaluation) goes through
`OpKernel.compute`, so errors map to TF's classes the same way everywhere (`kernel_error`).

One-way rule: kernels see the IR (NodeDef, OpDef), devices, resources and rendezvous, never the Python graph
or the op registry (which builds on this module).
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes
from tensorweave.framework.cancellation import CancellationManager
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_def import OpDef, arg_types
from tensorweave.framework.rendezvous import LocalRendezvous, Rendezvous
from tensorweave.framework.resource_mgr import ResourceMgr

Done = Callable[..., None]  # done(outputs) or done(error=exc), called once by an asynchronous kernel


class _Dead:
    """The value of a dead entry: an untaken branch of a Switch, and everything computed from it. Only
    transfer kernels (_Send, _Recv) ever see it: they carry deadness across devices."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dead>"


DEAD = _Dead()


@dataclass(frozen=True)
class KernelDef:
    """A kernel for one op on one device type.

    `fn` gets only the attrs its signature names, bound once per node. `expensive` kernels may go to the
    executor's thread pool; cheap ones run inline. `constant` kernels compute their output from attrs alone,
    so a plan computes it once (Const). `asynchronous` kernels take a `done` callback. `type_constraints`
    are TF's KernelDef constraints (type attr, allowed dtypes), in the order TF lists its registrations;
    `host_memory` names the input and output args this kernel reads or writes in host memory (shape-like
    arguments of a GPU kernel), which the partitioner needs. `state`, when given, makes a node kernel's
    persistent state object from the node's attrs (once per OpKernel, again when its container is reset).
    """

    op_def: OpDef
    device_type: str
    fn: Callable
    attr_names: tuple[str, ...]
    expensive: bool = False
    constant: bool = False
    asynchronous: bool = False
    type_constraints: tuple[tuple[str, tuple[dtypes.DType, ...]], ...] = ()
    host_memory: tuple[str, ...] = ()
    state: Callable[[Mapping[str, Any]], Any] | None = None

    def supports(self, attrs: Mapping[str, Any]) -> bool:
        """Whether a node with these attrs may run this kernel."""
        return all(attrs[name] in allowed for name, allowed in self.type_constraints)


class OpKernel:
    """One node's kernel: its registration, node, device, bound call and persistent state."""

    __slots__ = ("kernel_def", "node_def", "name", "type_string", "device", "xp", "call", "state",
                 "num_outputs", "asynchronous", "expensive", "constant", "function_library", "folding")

    def __init__(self, kernel_def: KernelDef, node_def: NodeDef, device: DeviceBase) -> None:
        self.kernel_def = kernel_def
        self.node_def = node_def
        self.name = node_def.name
        self.type_string = node_def.op
        self.device = device
        self.xp = device.xp
        self.asynchronous = kernel_def.asynchronous
        self.expensive = kernel_def.expensive
        self.constant = kernel_def.constant
        self.num_outputs = len(arg_types(kernel_def.op_def.output_args, node_def.attr))
        call = functools.partial(kernel_def.fn, **{a: node_def.attr[a] for a in kernel_def.attr_names})
        if self.num_outputs == 1 and kernel_def.op_def.output_args[0].is_list and not self.asynchronous:
            call = _first_output(call)  # a list output of length one is stored as its single value
        self.call: Callable = call
        self.state: Any = None
        # what a function-call kernel instantiates its function with (runtime/function.py); set by the
        # session that makes the kernel, None where no library is (constant folding)
        self.function_library: FunctionLibrary | None = None
        # whether Grappler's constant folding runs it: TF folds with its plain (Eigen) CPU kernels, never
        # with the oneDNN ones its x86 build swaps in when the graph runs
        self.folding = False
        self.reset_state()

    def reset_state(self) -> None:
        """A fresh persistent state (made here, or again when its container was reset)."""
        if self.kernel_def.state is not None:
            self.state = self.kernel_def.state(self.node_def.attr)

    def compute(self, inputs: Sequence[Any], step: StepContext | None = None) -> list[Any]:
        """Run this synchronous kernel once, outside any executor; its outputs as a list.

        Failures are TF's error classes naming the node (`kernel_error`), NumPy warnings stay quiet.
        """
        if self.asynchronous:
            raise errors.UnimplementedError(self.node_def, None, f"{self.type_string} is asynchronous: it runs "
                                            "only inside a step")
        ctx = OpKernelContext(self, step or StepContext(resource_mgr=self.device.resource_mgr))
        try:
            with quiet_numerics():
                result = self.call(ctx, *inputs)
        except Exception as e:
            raise kernel_error(self.node_def, e) from e
        return [result] if self.num_outputs == 1 else list(result) if self.num_outputs else []

    def __repr__(self) -> str:
        return f"<OpKernel {self.name} = {self.type_string} on {self.device.name}>"


_step_ids = itertools.count(1)
_thread_step = threading.local()  # the step a straight-line schedule runs on this thread
_lazy_lock = threading.Lock()  # guards the first use of a step's rendezvous or cancellation manager


class StepContext:
    """What every kernel call of one step shares: its id, rendezvous, cancellation and resources.

    The rendezvous and cancellation manager are made on first use: a step of straight-line kernels
    never pays for them.
    """

    __slots__ = ("step_id", "resource_mgr", "_rendezvous", "_cancellation")

    def __init__(self, resource_mgr: ResourceMgr | None = None, rendezvous: Rendezvous | None = None,
                 cancellation: CancellationManager | None = None, step_id: int | None = None) -> None:
        self.step_id = next(_step_ids) if step_id is None else step_id
        self.resource_mgr = resource_mgr
        self._rendezvous = rendezvous
        self._cancellation = cancellation

    @property
    def rendezvous(self) -> Rendezvous:
        if self._rendezvous is None:
            with _lazy_lock:
                if self._rendezvous is None:
                    self._rendezvous = LocalRendezvous()
        return self._rendezvous

    @property
    def cancellation(self) -> CancellationManager:
        if self._cancellation is None:
            with _lazy_lock:
                if self._cancellation is None:
                    self._cancellation = CancellationManager()
        return self._cancellation

    @property
    def has_cancellation(self) -> bool:
        """Whether anything could be waiting on cancellation (the manager was made)."""
        return self._cancellation is not None

    @property
    def has_rendezvous(self) -> bool:
        return self._rendezvous is not None


def enter_step(step: StepContext | None) -> StepContext | None:
    """Make `step` the one this thread runs (for contexts bound without a step; None: a new one is made on
    first use); returns the previous one, for `leave_step` (a kernel may run a nested step on this thread)."""
    previous = getattr(_thread_step, "current", None)
    _thread_step.current = step
    return previous


def leave_step(previous: StepContext | None) -> None:
    _thread_step.current = previous


class OpKernelContext:
    """One call of one kernel: its OpKernel, its step, and its loop frame and iteration (0, 0: the root).

    A context made with no step reads the step running on its thread (`enter_step`): the straight-line
    fast path binds one such context per node when it compiles a plan, so a step pays nothing per node.
    """

    __slots__ = ("kernel", "_step", "frame_id", "iteration")

    def __init__(self, kernel: OpKernel, step: StepContext | None = None, frame_id: int = 0,
                 iteration: int = 0) -> None:
        self.kernel = kernel
        self._step = step
        self.frame_id = frame_id
        self.iteration = iteration

    @property
    def step(self) -> StepContext:
        if self._step is not None:
            return self._step
        step = _thread_step.current
        if step is None:  # the straight-line step makes its StepContext only if a kernel asks for it
            step = _thread_step.current = StepContext()
        return step

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def op(self) -> str:
        """The node's op type ('MatMul')."""
        return self.kernel.type_string

    @property
    def node_def(self) -> NodeDef:
        return self.kernel.node_def

    @property
    def device(self) -> DeviceBase:
        return self.kernel.device

    @property
    def xp(self) -> Any:
        return self.kernel.xp

    @property
    def state(self) -> Any:
        """The kernel's persistent state object (its KernelDef's `state` factory made it)."""
        return self.kernel.state

    @property
    def function_library(self) -> FunctionLibrary:
        library = self.kernel.function_library
        if library is None:
            raise errors.InternalError(self.node_def, None, "No function library is available to "
                                       f"{self.kernel.type_string}")
        return library

    @property
    def resources(self) -> ResourceMgr:
        return self.step.resource_mgr or self.kernel.device.resource_mgr

    @property
    def step_id(self) -> int:
        return self.step.step_id

    @property
    def rendezvous(self) -> Rendezvous:
        return self.step.rendezvous

    @property
    def cancellation(self) -> CancellationManager:
        return self.step.cancellation


def kernel_error(node_def: NodeDef, error: BaseException) -> errors.OpError:
    """A kernel failure as the TF error class, naming the node for the client to interpolate; the error of
    a function's body (`nested_error`) already names the body's node, and the call is added as TF adds it;
    but not an If, Case or While marked `_lower_using_switch_merge`: TF's session lowers those to Switch and
    Merge, so their bodies' nodes fail as the graph's own."""
    if getattr(error, "_names_its_node", False):
        if node_def.attr.get("_lower_using_switch_merge") is True:
            return nested_error(error)
        return nested_error(type(error)(error.node_def, None, f"{error.message}\n\t [[{node_def.name}]]"))
    cls, message = kernel_failure(node_def, error)
    return cls(node_def, None, f"{message}\n\t [[{{{{node {node_def.name}}}}}]]")


def nested_error(error: errors.OpError) -> errors.OpError:
    """Mark the error of a nested step (a function call's body): the caller's kernel_error keeps it."""
    error._names_its_node = True
    return error


class FunctionLibrary(Protocol):
    """What a function-call kernel needs of the runtime (runtime/function.py implements it)."""

    def call(self, ctx: OpKernelContext, name: str, args: Sequence[Any]) -> list[Any]:
        """Run function `name` of the library on `args` in the caller's step and device; its results."""

    def body(self, name: str) -> GraphDef | None:
        """Function `name`'s body (a GraphDef with a call frame), None when the library lacks it."""

    def add_functions(self, bodies: Mapping[str, GraphDef], definitions: Sequence[Any] = ()) -> None:
        """Add function bodies by name (a name keeps its first body), and the FunctionDefs they came from."""

    def definitions(self) -> dict[str, Any]:
        """The FunctionDefs the library was given, by name (what differentiating a body needs)."""


def kernel_failure(node_def: NodeDef, error: BaseException) -> tuple[type[errors.OpError], str]:
    """The TF error class and message of a kernel failure, before the node is named (eager execution
    names it its own way).

    NumPy's MemoryError is TF's ResourceExhaustedError (the allocator's OOM), on every path.
    """
    if isinstance(error, errors.OpError):
        return type(error), error.message
    if isinstance(error, MemoryError) or _is_allocation_failure(error):
        return errors.ResourceExhaustedError, _oom_message(node_def, error)
    if isinstance(error, (ValueError, TypeError, IndexError, KeyError, ArithmeticError)):
        return errors.InvalidArgumentError, str(error)
    return errors.UnknownError, f"{type(error).__name__}: {error}"


def _oom_message(node_def: NodeDef, error: BaseException) -> str:
    """TF's allocator message, from NumPy's ('Unable to allocate 4.00 TiB for an array with shape (2, 3) and
    data type float32'), else NumPy's own words."""
    found = re.search(r"shape \(([^)]*)\) and data type (\w+)", str(error))
    if found is None:
        return f"OOM when allocating tensor: {error}"
    dims = ",".join(d.strip() for d in found.group(1).split(",") if d.strip())
    try:
        dtype = dtypes.as_dtype(np.dtype(found.group(2)))
    except TypeError:
        return f"OOM when allocating tensor: {error}"
    device = node_def.device or "/job:localhost/replica:0/task:0/device:CPU:0"
    return (f"OOM when allocating tensor with shape[{dims}] and type {dtypes.type_string(dtype)} on "
            f"{device} by allocator cpu")


def _is_allocation_failure(error: BaseException) -> bool:
    """NumPy reports a too-large array as ValueError ('array is too big') rather than MemoryError."""
    return isinstance(error, ValueError) and ("array is too big" in str(error) or "Maximum allowed size" in str(error))


def quiet_numerics() -> Any:
    """Kernels produce inf and nan silently, as TF's do: no NumPy floating-point warnings in a step."""
    return np.errstate(all="ignore")


def _first_output(call: Callable) -> Callable:
    return lambda *args: call(*args)[0]
