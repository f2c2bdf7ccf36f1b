"""`tf.train.SessionManager`: a session whose model is ready, made by restoring, initializing or waiting.

The chief restores the latest checkpoint or else runs the init op (`prepare_session`); other workers wait
until the chief's initialization shows (`wait_for_session`): both then run the local init op once the
global state is ready for it, and check readiness with `ready_op`, whose empty result means every variable
is initialized.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.client.session import Session
from tensorweave.formats import checkpoint_state
from tensorweave.framework.graph import get_default_graph
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export


def _maybe_name(obj: Any) -> str:
    if obj is None:
        return "None"
    return obj.name if hasattr(obj, "name") else f"<no name for {obj}>"


@tf_export("train.SessionManager")
class SessionManager:
    """Creates sessions over one graph and brings their model to ready."""

    def __init__(self, local_init_op: Any = None, ready_op: Any = None, ready_for_local_init_op: Any = None,
                 graph: Any = None, recovery_wait_secs: float = 30, local_init_run_options: Any = None,
                 local_init_feed_dict: dict | None = None) -> None:
        if graph is None:
            graph = get_default_graph()
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._target: str | None = None
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                             f"ready_for_local_init_op [{ready_for_local_init_op}]")

    def _restore_checkpoint(self, master: str, saver: Any = None, checkpoint_dir: str | None = None,
                            checkpoint_filename_with_path: str | None = None, wait_for_checkpoint: bool = False,
                            max_wait_secs: float = 7200, config: Any = None) -> tuple[Any, bool]:
        """A new session, restored from the latest checkpoint when there is one: (session, restored)."""
        self._target = master
        sess = Session(self._target, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0.0
        ckpt = checkpoint_state.get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if not (wait_for_checkpoint and wait_time < max_wait_secs):
                return sess, False
            tf_logging.info("Waiting for checkpoint to be available.")
            time.sleep(self._recovery_wait_secs)
            wait_time += self._recovery_wait_secs
            ckpt = checkpoint_state.get_checkpoint_state(checkpoint_dir)
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(ckpt.all_model_checkpoint_paths)
        return sess, True

    def prepare_session(self, master: str, init_op: Any = None, saver: Any = None, checkpoint_dir: str | None = None,
                        checkpoint_filename_with_path: str | None = None, wait_for_checkpoint: bool = False,
                        max_wait_secs: float = 7200, config: Any = None, init_feed_dict: dict | None = None,
                        init_fn: Any = None) -> Any:
        """A session whose model is ready: restored from a checkpoint, else initialized (the chief's way)."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir, checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config)
        if not is_loaded_from_checkpoint:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not local_init_success:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  Init op: "
                               f"{_maybe_name(init_op)}, init fn: {init_fn}, error: {msg}")
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: {_maybe_name(init_op)}, "
                               f"init fn: {init_fn}, local_init_op: {self._local_init_op}, error: {msg}")
        return sess

    def recover_session(self, master: str, saver: Any = None, checkpoint_dir: str | None = None,
                        checkpoint_filename_with_path: str | None = None, wait_for_checkpoint: bool = False,
                        max_wait_secs: float = 7200, config: Any = None) -> tuple[Any, bool]:
        """A session restored from a checkpoint if one makes the model ready: (session, initialized)."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir, checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not is_loaded_from_checkpoint:
            return sess, False
        restoring_file = checkpoint_dir or checkpoint_filename_with_path
        if not local_init_success:
            tf_logging.info("Restoring model from %s did not make model ready for local init: %s",
                            restoring_file, msg)
            return sess, False
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            tf_logging.info("Restoring model from %s did not make model ready: %s", restoring_file, msg)
            return sess, False
        tf_logging.info("Restored model from %s", restoring_file)
        return sess, is_loaded_from_checkpoint

    def wait_for_session(self, master: str, config: Any = None, max_wait_secs: float = float("Inf")) -> Any:
        """A session once another task (the chief) has made the model ready, polling every
        `recovery_wait_secs`; DeadlineExceededError past `max_wait_secs`."""
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        deadline = time.time() + max_wait_secs
        while True:
            sess = Session(self._target, graph=self._graph, config=config)
            not_ready_msg = None
            local_init_success, not_ready_local_msg = self._try_run_local_init_op(sess)
            if local_init_success:
                is_ready, not_ready_msg = self._model_ready(sess)
                if is_ready:
                    return sess
            self._safe_close(sess)
            if deadline - time.time() - self._recovery_wait_secs < 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {int(max_wait_secs)} secs.")
            tf_logging.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                            not_ready_local_msg, not_ready_msg)
            time.sleep(self._recovery_wait_secs)

    @staticmethod
    def _safe_close(sess: Any) -> None:
        try:
            sess.close()
        except Exception:  # noqa: BLE001 - a session that fails to close is abandoned all the same
            pass

    def _model_ready(self, sess: Any) -> tuple[bool, str | None]:
        return model_ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess: Any) -> tuple[bool, str | None]:
        return model_ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess: Any) -> tuple[bool, str | None]:
        """Run the local init op once the global state is ready for it: (ran or none, why not)."""
        if self._local_init_op is None:
            return True, None
        is_ready_for_local_init, msg = self._model_ready_for_local_init(sess)
        if not is_ready_for_local_init:
            return False, msg
        tf_logging.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict, options=self._local_init_run_options)
        tf_logging.info("Done running local_init_op.")
        return True, None


def model_ready(op: Any, sess: Any, msg: str) -> tuple[bool, str | None]:
    """Whether `op` (a list of uninitialized names, or None) reports the model ready: (ready, why not)."""
    if op is None:
        return True, None
    try:
        ready_value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            tf_logging.warning("%s : error [%s]", msg, str(e))
            raise
        return False, str(e)
    if ready_value is None or ready_value.dtype == np.int32 or ready_value.size == 0:
        return True, None
    names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in ready_value)
    return False, "Variables not initialized: " + names
