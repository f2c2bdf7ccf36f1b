"""Records which public functions of TF's `tf.compat.v1` check their arguments before they run (TF's C++ API
dispatcher): each is called with an unknown keyword, and those failing with "Got an unexpected keyword argument"
are written to tensorweave/platform/argument_checked_names.py. Needs TensorFlow (run it with a Python that has
it: `python tools/argument_checked_names.py`)."""

from __future__ import annotations

import inspect
import pathlib
import signal
from typing import Any

NAMESPACES = ("nn", "math", "linalg", "image", "strings", "sparse", "random", "train", "layers", "losses", "metrics",
              "data", "io", "debugging", "bitwise", "signal", "summary", "initializers", "dtypes", "errors", "lookup",
              "sets", "manip", "spectral", "quantization", "saved_model", "queue", "python_io", "graph_util",
              "gfile", "feature_column", "distributions", "compat", "config", "test")
SKIP = {"app.run", "test.main", "enable_eager_execution", "disable_eager_execution", "enable_v2_behavior",
        "disable_v2_behavior", "logging.fatal", "reset_default_graph", "train.start_queue_runners"}
TARGET = pathlib.Path(__file__).resolve().parents[1] / "tensorweave" / "platform" / "argument_checked_names.py"


def _checked(tf: Any, fn: Any) -> bool:
    signal.alarm(2)
    try:
        with tf.Graph().as_default():
            fn(bogus_keyword=1)
    except TypeError as e:
        return str(e).startswith("Got an unexpected keyword argument")
    except BaseException:  # noqa: BLE001 - any other outcome: not an argument check
        return False
    finally:
        signal.alarm(0)
    return False


def _public_functions(tf: Any) -> dict[str, Any]:
    found = {}
    for prefix, module in [("", tf)] + [(f"{name}.", getattr(tf, name)) for name in NAMESPACES]:
        for name in sorted(dir(module)):
            try:
                value = getattr(module, name)
            except BaseException:  # noqa: BLE001 - TF's lazy loaders may fail on access
                continue
            if not name.startswith("_") and inspect.isfunction(value) and prefix + name not in SKIP:
                found[prefix + name] = value
    return found


def main() -> None:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()

    def timeout(*_: Any) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, timeout)
    names = sorted(name for name, fn in _public_functions(tf).items() if _checked(tf, fn))
    header, _, _ = TARGET.read_text().partition("NAMES = frozenset({")
    rows, row = [], "   "
    for name in names:
        if len(row) + len(repr(name)) + 2 > 116:
            rows.append(row.rstrip())
            row = "   "
        row += f" {name!r},"
    TARGET.write_text(header + "NAMES = frozenset({\n" + "\n".join([*rows, row.rstrip()]) + "\n})\n")
    print(f"{len(names)} names written to {TARGET}")


if __name__ == "__main__":
    main()
