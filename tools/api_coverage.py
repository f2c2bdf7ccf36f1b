"""How much of TF 2.21's `tf.compat.v1` tensorweave exports, per namespace.

`python -m tools.api_coverage [--missing NAMESPACE ...]` prints, for the top level and every TF1 namespace
recorded in tests/fixtures/tf1_public_names.json (`dir()` of each, from real TensorFlow), how many of TF's
public names `tensorweave.compat.v1` exports, and with `--missing` which names a namespace still lacks.
"""

from __future__ import annotations

import argparse
import json
import pathlib
from typing import Any

import tensorweave.compat.v1 as tf

NAMES_FILE = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "tf1_public_names.json"


def coverage() -> dict[str, tuple[set[str], set[str]]]:
    """Per namespace: (TF's public names, those tensorweave exports)."""
    recorded: dict[str, list[str]] = json.loads(NAMES_FILE.read_text())
    result = {}
    for namespace, names in recorded.items():
        module: Any = tf if namespace == "tf" else getattr(tf, namespace, None)
        ours = set() if module is None else {n for n in dir(module) if not n.startswith("_")}
        result[namespace] = (set(names), set(names) & ours)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", nargs="*", default=[], help="list the missing names of these namespaces")
    args = parser.parse_args()
    table = coverage()
    print(f"{'namespace':<16} {'exported':>8} {'of TF':>6} {'share':>6}")
    for namespace in sorted(table, key=lambda n: (n != "tf", n)):
        theirs, ours = table[namespace]
        print(f"{namespace:<16} {len(ours):>8} {len(theirs):>6} {len(ours) / max(len(theirs), 1):>6.0%}")
    for namespace in args.missing:
        theirs, ours = table[namespace]
        print(f"\nmissing in {namespace}: {', '.join(sorted(theirs - ours))}")


if __name__ == "__main__":
    main()
