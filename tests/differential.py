"""The differential harness: TF1 programs whose results tensorweave must share with real TensorFlow.

A differential test runs a TF1 snippet, records what each step gives under a key (`out(key, value)`, or
`catch(key, fn)` for a step that may raise), and checks the recordings against `expected`: what real
TensorFlow 2.21 (`tf.compat.v1`, v2 behaviour off) recorded for the same snippet. Recordings are
normalized so that both libraries' results compare as plain literals: dtype names, shapes, op names and
types, exception class and first message line, floats rounded as the file's literals were recorded (to
`places` decimals, or to `significant` digits). Keys where tensorweave still diverges from TF are listed
in `diverges` (recorded, not checked), or checked by exception class only (`classes`).

Live mode: with `TENSORWEAVE_TF_PYTHON` set to the Python of an environment that has TensorFlow, `check`
runs the calling test's module under that Python with `tf` bound to `tensorflow.compat.v1` and takes the
expected values of the same keys from what TF records now, instead of the literals. TensorFlow is never
a dependency: without the variable the literals are the reference and nothing is started.

Invariant: the harness depends on no implementation; each test module builds its `Harness` on its own `tf`,
which is how one module's source runs under both.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

TF_PYTHON_ENV = "TENSORWEAVE_TF_PYTHON"
_IMPLEMENTATION_IMPORT = "import tensorweave.compat.v1 as tf\n"
_TF_IMPORT = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"

# Set in a live-mode child process: `check` appends what it is given here instead of checking it.
_recordings: list[dict[str, Any]] | None = None


class Harness:
    """Normalizes, records and checks a differential test's values as one test module's literals were made.

    `tf` is the module under test (tensorweave's `compat.v1`, or TF's in live mode). Floats are rounded to
    `places` decimals or to `significant` digits; with `rel_tol`, floats that differ by at most that much
    (libm's last-ulp differences showing in the last recorded digit) still match.
    """

    def __init__(self, tf: ModuleType, *, places: int | None = None, significant: int | None = None,
                 rel_tol: float = 0.0) -> None:
        if (places is None) == (significant is None):
            raise ValueError("give exactly one of places= and significant=")
        self.tf = tf
        self.places = places
        self.significant = significant
        self.rel_tol = rel_tol

    def exc(self, e: BaseException) -> dict[str, Any]:
        """An exception as class, first message line and (for an `OpError`) the op it names.

        TF 2.x wraps a kernel's error in "Graph execution error:"; the kernel's own message is the line before
        the "\\t [[" node line, or for a multi-line message the line after "Node: 'name'". Object addresses
        are dropped.
        """
        lines = str(e).strip().splitlines()
        msg = lines[0] if lines else ""
        if msg == "Graph execution error:":
            msg = next((lines[i - 1] for i, line in enumerate(lines) if line.startswith("\t [[")), msg)
            if not msg:
                msg = next((lines[i + 1] for i, line in enumerate(lines[:-1]) if line.startswith("Node: '")), msg)
        msg = re.sub(r"<[\w.]*?(\w+) object at 0x[0-9a-f]+>", r"<\1 object>", msg)
        msg = re.sub(r" at 0x[0-9a-f]+>", ">", msg)
        r: dict[str, Any] = {"exc": type(e).__name__, "msg": msg}
        if isinstance(e, self.tf.errors.OpError):
            r["op"] = e.op.name if e.op is not None else None
        return r

    def num(self, x: float) -> float | str:
        """A float as the literals hold it: rounded, or "nan", "inf", "-inf"."""
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        if self.places is not None:
            return round(x, self.places)
        return float(f"{x:.{self.significant}g}")

    def _list(self, a: np.ndarray) -> Any:
        if a.dtype.kind == "f":
            return np.vectorize(lambda v: self.num(float(v)), otypes=[object])(a).tolist() if a.size else a.tolist()
        if a.dtype.kind == "c":
            return [[self.num(float(v.real)), self.num(float(v.imag))] for v in a.ravel().tolist()]
        if a.dtype.kind in "SUO":
            return [repr(v) for v in a.ravel().tolist()]
        return a.tolist()

    def norm(self, v: Any) -> Any:
        """A JSON-able summary of a value, the same under TF and tensorweave."""
        tf = self.tf
        if isinstance(v, BaseException):
            return self.exc(v)
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, bool):
            return {"py": "bool", "v": v}
        if type(v) in (int, float):
            return {"py": type(v).__name__, "v": self.num(v) if isinstance(v, float) else v}
        if isinstance(v, bytes):
            return {"py": "bytes", "v": repr(v)}
        if isinstance(v, np.ndarray):
            return {"nd": v.dtype.name, "shape": list(v.shape), "v": self._list(v)}
        if isinstance(v, np.generic):
            return {"np": type(v).__name__, "v": self._list(np.asarray(v))}
        if isinstance(v, tf.Variable):
            return {"var": v.name, "dtype": v.dtype.name, "shape": str(v.shape)}
        if isinstance(v, tf.Tensor):
            return {"tensor": v.name, "dtype": v.dtype.name, "shape": str(v.shape)}
        if isinstance(v, tf.Operation):
            return {"op": v.name, "type": v.type}
        if isinstance(v, tf.DType):
            return {"dtype": v.name}
        if isinstance(v, tf.TensorShape):
            return {"tshape": str(v)}
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return {"namedtuple": type(v).__name__, "v": [self.norm(x) for x in v]}
        if isinstance(v, list):
            return [self.norm(x) for x in v]
        if isinstance(v, tuple):
            return {"tuple": [self.norm(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": {str(k): self.norm(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}}
        return {"repr_type": type(v).__name__, "repr": repr(v)}

    def recorder(self) -> tuple[Callable[[str, Any], None], Callable[[str, Callable[[], Any]], None], dict]:
        """`out(key, value)` records a normalized value; `catch(key, fn)` records fn's value or exception;
        `got` is what they recorded."""
        got: dict[str, Any] = {}

        def out(key: str, value: Any) -> None:
            assert key not in got
            got[key] = self.norm(value)

        def catch(key: str, fn: Callable[[], Any]) -> None:
            try:
                value = fn()
            except Exception as e:  # noqa: BLE001 - recording the exception is the point
                got[key] = self.exc(e)
            else:
                out(key, value)

        return out, catch, got

    def close(self, a: Any, b: Any) -> bool:
        """Equal, floats to `rel_tol`."""
        if isinstance(a, float) and isinstance(b, float):
            return math.isclose(a, b, rel_tol=self.rel_tol)
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(self.close(a[k], b[k]) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(self.close(x, y) for x, y in zip(a, b))
        return a == b

    def check(self, got: dict[str, Any], expected: dict[str, Any], diverges: Iterable[str] = (),
              classes: Mapping[str, str] | None = None) -> None:
        """`expected` keys must match (floats to `rel_tol`); `classes` keys only by exception class;
        `diverges` keys are recorded but not checked; no other key may be recorded."""
        classes = dict(classes or {})
        if _recordings is not None:
            _recordings.append(got)
            return
        if os.environ.get(TF_PYTHON_ENV):
            live = _run_caller_under_tf(os.environ[TF_PYTHON_ENV])
            expected = {k: live.get(k, "<missing>") for k in expected}
        actual = {k: got.get(k, "<missing>") for k in expected}
        assert actual == expected or (self.rel_tol and self.close(actual, expected)), (actual, expected)
        for k, cls in classes.items():
            assert isinstance(got.get(k), dict) and got[k].get("exc") == cls, (k, got.get(k))
        assert set(got) == set(expected) | set(classes) | set(diverges)


def _run_caller_under_tf(python: str) -> dict[str, Any]:
    """What the calling test records when its module runs under real TensorFlow (live mode)."""
    frame = sys._getframe(1)
    while not frame.f_code.co_name.startswith("test_"):
        frame = frame.f_back
        assert frame is not None, "live mode: check() must be called from a test function"
    module_path, test_name = frame.f_globals["__file__"], frame.f_code.co_name
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp, "got.json")
        done = subprocess.run([python, __file__, module_path, test_name, str(result)], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{test_name} under TF ({python}) failed:\n{done.stderr[-4000:]}"
        return json.loads(result.read_text())


def _record_under_tf(module_path: str, test_name: str, result_path: str) -> None:
    """Run one test of a differential module with `tf` bound to TensorFlow's `compat.v1`, and write what its
    `check` was given."""
    source = Path(module_path).read_text()
    assert _IMPLEMENTATION_IMPORT in source, f"{module_path} does not import tensorweave.compat.v1 as tf"
    sys.path.insert(0, str(Path(__file__).parent))
    import differential  # the module the test's source imports: the one whose `_recordings` `check` reads

    differential._recordings = []
    namespace: dict[str, Any] = {"__name__": "differential_live", "__file__": module_path}
    exec(compile(source.replace(_IMPLEMENTATION_IMPORT, _TF_IMPORT, 1), module_path, "exec"), namespace)
    namespace["tf"].reset_default_graph()
    namespace[test_name]()
    [got] = differential._recordings
    Path(result_path).write_text(json.dumps(got))


if __name__ == "__main__":
    _record_under_tf(*sys.argv[1:4])
