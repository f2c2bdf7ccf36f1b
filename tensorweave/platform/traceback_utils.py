"""`tf.debugging`'s traceback-filtering switch.

TF hides its own frames from tracebacks raised through its API when filtering is on (the default).
Tensorweave shows every frame (its errors carry the op's creation trace instead), so the switch is kept
only so that programs that flip and read it run unchanged.
"""

from __future__ import annotations

import threading

from tensorweave.platform.tf_export import tf_export

_state = threading.local()


@tf_export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled() -> bool:
    """Whether filtering is on in this thread (True until disabled, as in TF)."""
    return getattr(_state, "enabled", True)


@tf_export("debugging.enable_traceback_filtering")
def enable_traceback_filtering() -> None:
    _state.enabled = True


@tf_export("debugging.disable_traceback_filtering")
def disable_traceback_filtering() -> None:
    _state.enabled = False
