"""TensorFlow's error classes and canonical error codes (`tf.errors`).

Invariant: each `OpError` subclass is paired with exactly one code, so the runtime (and a remote
worker's status) can be turned back into the same exception class with `_make_specific_exception`.
An error raised for a node carries its NodeDef and, when built from a Python graph, its Operation,
so `str(error)` can name the node and show where it was created.
"""

from __future__ import annotations

import inspect
import traceback
import warnings
from typing import Any

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


def _stack_trace(op: Any) -> list[tuple[Any, ...]]:
    """The op's creation frames as TF 2.21's OpError prints them: full paths, no source lines (its recorded
    frames carry none)."""
    return [tuple(frame[:3]) + ("",) for frame in getattr(op, "traceback", None) or ()]


class OpError(Exception):
    """A generic error raised when TensorFlow execution fails; the runtime raises its subclasses."""

    def __init__(self, node_def: Any, op: Any, message: str, error_code: int, *args: Any) -> None:
        super().__init__()
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        self._experimental_payloads = args[0] if args else {}

    @property
    def experimental_payloads(self) -> dict:
        """Extra key/value details of the error status (TF's payloads); empty unless a caller passed some."""
        return self._experimental_payloads

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Subclasses fix their code, so rebuild through whichever arguments their __init__ takes.
        params = list(inspect.signature(type(self).__init__).parameters.values())[1:]
        names = [p.name for p in params if p.kind is not p.VAR_POSITIONAL]
        return type(self), tuple(getattr(self, name) for name in names)

    @property
    def message(self) -> str:
        """The error message that describes the error."""
        return self._message

    @property
    def op(self) -> Any:
        """The Operation that failed, or None when it was synthesized at run time (e.g. `_Recv`)."""
        return self._op

    @property
    def error_code(self) -> int:
        """The integer canonical error code."""
        return self._error_code

    @property
    def node_def(self) -> Any:
        """The NodeDef of the failed op, if known; it names the node even when `op` is None."""
        return self._node_def

    def __str__(self) -> str:
        if self._op is None:
            return self._message
        output = [f"{self._message}\n\nOriginal stack trace for {self._op.name!r}:\n"]
        current = traceback.format_list(_stack_trace(self._op))
        output.extend(current)
        original = getattr(self._op, "_original_op", None)
        while original is not None:
            output.append(f"\n...which was originally created as op {original.name!r}, defined at:\n")
            previous, current = current, traceback.format_list(_stack_trace(original))
            output.extend(_elide_common_lines(current, previous))
            original = getattr(original, "_original_op", None)
        return "".join(output)


def _elide_common_lines(current: list[str], previous: list[str]) -> list[str]:
    """Collapse runs of frames shared with the previous trace, as TF prints chained creation sites."""
    output: list[str] = []
    eliding = False
    count = 0
    last = ""
    for line, previous_line in zip(current, previous):
        if line == previous_line:
            if eliding:
                count += 1
                last = line
            else:
                output.append(line)
                eliding, count = True, 0
        else:
            if eliding and count > 0:
                output.extend([f"[elided {count - 1} identical lines from previous traceback]\n", last])
            eliding = False
            output.append(line)
    return output


class CancelledError(OpError):
    """An operation or step was cancelled (e.g. a blocked dequeue when the session closes)."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, CANCELLED)


class UnknownError(OpError):
    """An error whose kind is unknown, e.g. a status from another error space."""

    def __init__(self, node_def: Any, op: Any, message: str, error_code: int = UNKNOWN) -> None:
        super().__init__(node_def, op, message, error_code)


class InvalidArgumentError(OpError):
    """An op received an invalid argument (a bad value or shape)."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, INVALID_ARGUMENT)


class DeadlineExceededError(OpError):
    """A deadline expired before an operation could complete."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, DEADLINE_EXCEEDED)


class NotFoundError(OpError):
    """A requested entity (a file, a variable in a checkpoint, a device) was not found."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, NOT_FOUND)


class AlreadyExistsError(OpError):
    """An entity we attempted to create already exists."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, ALREADY_EXISTS)


class PermissionDeniedError(OpError):
    """The caller lacks permission to run an operation."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, PERMISSION_DENIED)


class UnauthenticatedError(OpError):
    """The request lacks valid authentication credentials."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, UNAUTHENTICATED)


class ResourceExhaustedError(OpError):
    """Some resource (memory, quota, disk) has been exhausted."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, RESOURCE_EXHAUSTED)


class FailedPreconditionError(OpError):
    """The system is not in a state to run the op, e.g. reading an uninitialized variable."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, FAILED_PRECONDITION)


class AbortedError(OpError):
    """The operation was aborted, typically by a concurrent action (e.g. enqueue after close)."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, ABORTED)


class OutOfRangeError(OpError):
    """Iteration went past the valid input range: the end-of-input signal of queues and readers."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, OUT_OF_RANGE)


class UnimplementedError(OpError):
    """The operation is not implemented or not supported for these arguments."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, UNIMPLEMENTED)


class InternalError(OpError):
    """An invariant expected by the runtime has been broken."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, INTERNAL)


class UnavailableError(OpError):
    """The runtime (e.g. a remote task) is currently unavailable."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, UNAVAILABLE)


class DataLossError(OpError):
    """Unrecoverable data loss or corruption, e.g. a truncated or corrupted record file."""

    def __init__(self, node_def: Any, op: Any, message: str) -> None:
        super().__init__(node_def, op, message, DATA_LOSS)


_CODE_TO_EXCEPTION_CLASS: dict[int, type[OpError]] = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
}
_EXCEPTION_CLASS_TO_CODE = {cls: code for code, cls in _CODE_TO_EXCEPTION_CLASS.items()}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The OpError subclass for a canonical code (KeyError for OK or an unknown code, as TF)."""
    return _CODE_TO_EXCEPTION_CLASS[error_code]


def error_code_from_exception_type(cls: type) -> int | UnknownError:
    """The canonical code of an OpError subclass; TF1 returns (not raises) an UnknownError otherwise."""
    try:
        return _EXCEPTION_CLASS_TO_CODE[cls]
    except KeyError:
        warnings.warn("Unknown class exception", stacklevel=2)
        return UnknownError(None, None, "Unknown class exception", None)  # type: ignore[arg-type]


class OperatorNotAllowedInGraphError(TypeError):
    """Python control flow on a symbolic Tensor (`if t:`, `for x in t:`), which graph mode cannot run."""


class InaccessibleTensorError(ValueError):
    """A fetch of a tensor or op the graph marked as not fetchable (`Graph.prevent_fetching`)."""


def _make_specific_exception(node_def: Any, op: Any, message: str, error_code: int) -> OpError:
    """Turn a status code (from a kernel or a remote worker) back into its exception class."""
    try:
        return exception_type_from_error_code(error_code)(node_def, op, message)
    except KeyError:
        warnings.warn(f"Unknown error code: {error_code}", stacklevel=2)
        return UnknownError(node_def, op, message, error_code)
