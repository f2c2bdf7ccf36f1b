"""TF's `tf.compat` helpers: str/bytes conversion, the numeric type tuples, and the forward-compatibility date.

The one place tensorweave turns names, paths and string-tensor values into bytes or str, with TF's results
and TF's `TypeError` for anything that is not a string. The forward-compatibility horizon is TF 2.21's
(tensorweave writes TF 2.21's formats, see `framework/versions.py`), moved by the same
`TF_FORWARD_COMPATIBILITY_DELTA_DAYS` environment variable.
"""

from __future__ import annotations

import contextlib
import datetime
import numbers
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import export_value, tf_export

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
export_value(bytes_or_text_types, "compat.bytes_or_text_types")
export_value(integral_types, "compat.integral_types")
export_value(real_types, "compat.real_types")
export_value(complex_types, "compat.complex_types")


def _not_a_string(value: Any) -> TypeError:
    return TypeError(f"Expected binary or unicode string, got {value!r}")


@tf_export("compat.as_bytes")
def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    """`bytes_or_text` as bytes: str is encoded, bytes and bytearray are returned as bytes."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise _not_a_string(bytes_or_text)


@tf_export("compat.as_str", "compat.as_text")
def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """`bytes_or_text` as str: bytes are decoded (bytearray is not accepted, as in TF)."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise _not_a_string(bytes_or_text)


@tf_export("compat.as_str_any")
def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """`value` as str: bytes are decoded, anything else goes through `str()`."""
    if isinstance(value, bytes):
        return as_text(value, encoding=encoding)
    return str(value)


@tf_export("compat.path_to_str")
def path_to_str(path: Any) -> Any:
    """A path-like object's `os.fspath`; anything else is returned unchanged."""
    if hasattr(path, "__fspath__"):
        return as_str_any(path.__fspath__())
    return path


_FORWARD_COMPATIBILITY_HORIZON = datetime.date(2026, 1, 16)
_FORWARD_COMPATIBILITY_DELTA_DAYS_VAR_NAME = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
_forward_compatibility_date_number = 0


def _date_to_date_number(year: int, month: int, day: int) -> int:
    return (year << 9) | (month << 5) | day


def _update_forward_compatibility_date_number(date_to_override: datetime.date | None = None) -> None:
    """Set the date `forward_compatible` compares with; a date before the horizon is ignored, as in TF."""
    global _forward_compatibility_date_number
    date = date_to_override
    if date is None:
        date = _FORWARD_COMPATIBILITY_HORIZON
        delta_days = os.getenv(_FORWARD_COMPATIBILITY_DELTA_DAYS_VAR_NAME)
        if delta_days:
            date += datetime.timedelta(days=int(delta_days))
    if date < _FORWARD_COMPATIBILITY_HORIZON:
        tf_logging.warning(f"Trying to set the forward compatibility date to the past date {date}. "
                           "This will be ignored by TensorFlow.")
        return
    _forward_compatibility_date_number = _date_to_date_number(date.year, date.month, date.day)


_update_forward_compatibility_date_number()


@tf_export("compat.forward_compatible")
def forward_compatible(year: int, month: int, day: int) -> bool:
    """Whether graphs written now may be read by consumers built after `year-month-day`."""
    return _forward_compatibility_date_number > _date_to_date_number(year, month, day)


@tf_export("compat.forward_compatibility_horizon")
@contextlib.contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int) -> Iterator[None]:
    """Moves the forward-compatibility date to `year-month-day` inside the block (for tests of new features)."""
    try:
        _update_forward_compatibility_date_number(datetime.date(year, month, day))
        yield
    finally:
        _update_forward_compatibility_date_number()
