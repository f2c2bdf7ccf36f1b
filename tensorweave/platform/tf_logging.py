"""TF's logging: the Python logger named "tensorflow", configured and reported from exactly as TF does it.

TF prints through its own stderr handler in `logging.BASIC_FORMAT` ("INFO:tensorflow:..."), starts at WARN,
and overrides the logger's findCaller so records (and the per-call-site counters of log_every_n/log_first_n)
point past this module's frames, with TF's exact frame arithmetic.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from logging import DEBUG, ERROR, FATAL, INFO, WARN
from types import CodeType, FrameType
from typing import Any

from tensorweave.platform.tf_export import export_value, tf_export

# tf.logging's levels are the standard library's
export_value(DEBUG, "logging.DEBUG")
export_value(INFO, "logging.INFO")
export_value(WARN, "logging.WARN")
export_value(ERROR, "logging.ERROR")
export_value(FATAL, "logging.FATAL")

_logger: logging.Logger | None = None
_logger_lock = threading.Lock()
_log_counter_per_token: dict[tuple[str, int], int] = {}


def _get_caller(offset: int = 3) -> tuple[CodeType | None, FrameType | None]:
    """The code and frame of the first frame, above `offset` frames up, outside the file of that frame."""
    frame = sys._getframe(offset)
    start_file = frame.f_code.co_filename
    frame = frame.f_back
    while frame:
        if frame.f_code.co_filename != start_file:
            return frame.f_code, frame
        frame = frame.f_back
    return None, None


def _logger_find_caller(stack_info: bool = False, stacklevel: int = 1) -> tuple[str, int, str, str | None]:
    """Logger.findCaller replacement: the caller of the tf.logging function, not the function itself."""
    code, frame = _get_caller(4)
    sinfo = "\n".join(traceback.format_stack()) if stack_info else None
    if code:
        return code.co_filename, frame.f_lineno, code.co_name, sinfo
    return "(unknown file)", 0, "(unknown function)", sinfo


@tf_export("get_logger")
def get_logger() -> logging.Logger:
    """The "tensorflow" logger, given TF's stderr handler unless the root logger already has handlers."""
    global _logger
    if _logger:
        return _logger
    with _logger_lock:
        if _logger:
            return _logger
        logger = logging.getLogger("tensorflow")
        logger.findCaller = _logger_find_caller
        if not logging.getLogger().handlers:
            interactive = bool(getattr(sys, "ps1", sys.flags.interactive))
            if interactive:  # TF logs INFO to stdout in interactive shells (Jupyter, python -i)
                logger.setLevel(INFO)
            handler = logging.StreamHandler(sys.stdout if interactive else sys.stderr)
            handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
        return _logger


@tf_export("logging.log")
def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


@tf_export("logging.debug")
def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().debug(msg, *args, **kwargs)


@tf_export("logging.error")
def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().error(msg, *args, **kwargs)


@tf_export("logging.fatal")
def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().fatal(msg, *args, **kwargs)


@tf_export("logging.info")
def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().info(msg, *args, **kwargs)


@tf_export("logging.warn")
def warn(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


@tf_export("logging.warning")
def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


@tf_export("logging.TaskLevelStatusMessage")
def TaskLevelStatusMessage(msg: Any) -> None:
    error(msg)


@tf_export("logging.flush")
def flush() -> None:
    """TF declares it and never implemented it."""
    raise NotImplementedError()


@tf_export("logging.vlog")
def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def _next_log_count_per_token(token: tuple[str, int]) -> int:
    """How many times `token` was counted before this call (0 the first time)."""
    _log_counter_per_token[token] = 1 + _log_counter_per_token.get(token, -1)
    return _log_counter_per_token[token]


def _file_and_line() -> tuple[str, int]:
    """The call-site token of log_every_n/log_first_n, found with TF's frame offset (including its quirks)."""
    code, frame = _get_caller()
    if not code:
        return "<unknown>", 0
    return code.co_filename, frame.f_lineno


@tf_export("logging.log_every_n")
def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs the 1st, (n+1)st, (2n+1)st... call of this call site."""
    count = _next_log_count_per_token(_file_and_line())
    log_if(level, msg, not (count % n), *args)


@tf_export("logging.log_first_n")
def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs only the first `n` calls of this call site."""
    count = _next_log_count_per_token(_file_and_line())
    log_if(level, msg, count < n, *args)


@tf_export("logging.log_if")
def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    if condition:
        vlog(level, msg, *args)


@tf_export("logging.get_verbosity")
def get_verbosity() -> int:
    return get_logger().getEffectiveLevel()


@tf_export("logging.set_verbosity")
def set_verbosity(v: int | str) -> None:
    get_logger().setLevel(v)


get_logger()  # `import tensorflow` configures the logger, before any user code can touch the root logger
