"""Speed of the file formats, side by side with real TensorFlow when it is importable.

    python -m benchmarks.formats            # ours, plus raw NumPy for the bundle baseline
    PYTHONPATH=. /path/to/tf-venv/bin/python -m benchmarks.formats   # adds TF's numbers and the ratios

Targets (issue 10): 100,000 1 KB records written in <= 1.0x TF's time and read in <= 2.0x; a 256 MB
bundle written and read at >= 50% of the speed of raw NumPy writing and reading the same bytes.
Each figure is the best of a few runs, so other load on the machine distorts it less.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable

import numpy as np

from tensorweave.formats.bundle import BundleReader, write_bundle
from tensorweave.formats.tfrecord import TFRecordWriter, tf_record_iterator

try:
    import tensorflow as tf
except ImportError:
    tf = None

RECORDS = 100_000
RECORD_SIZE = 1024
BUNDLE_BYTES = 256 << 20
BUNDLE_TENSORS = 16
REPEATS = 5


def best(fn: Callable[[], object], repeats: int = REPEATS, setup: Callable[[], object] | None = None) -> float:
    """The fastest of several timed runs; `setup` (untimed) runs before each, e.g. to delete old output."""
    times = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _remove(d: str, prefix: str) -> Callable[[], None]:
    """Delete a previous run's files, so no timed write pays for freeing an old file's pages."""
    def remove() -> None:
        for name in os.listdir(d):
            if name.startswith(prefix):
                os.remove(os.path.join(d, name))
    return remove


def bench_records(d: str) -> dict[str, float]:
    records = [os.urandom(RECORD_SIZE) for _ in range(RECORDS)]

    def write_ours() -> None:
        with TFRecordWriter(f"{d}/ours.tfrecord") as w:
            for r in records:
                w.write(r)

    def read_ours() -> None:
        for _ in tf_record_iterator(f"{d}/ours.tfrecord"):
            pass

    out = {"write ours": best(write_ours, setup=_remove(d, "ours")), "read ours": best(read_ours)}
    if tf is not None:
        def write_tf() -> None:
            with tf.io.TFRecordWriter(f"{d}/tf.tfrecord") as w:
                for r in records:
                    w.write(r)

        def read_tf() -> None:
            for _ in tf.compat.v1.io.tf_record_iterator(f"{d}/tf.tfrecord"):
                pass

        out["write tf"] = best(write_tf, setup=_remove(d, "tf"))
        out["read tf"] = best(read_tf)
    return out


def bench_bundle(d: str) -> dict[str, float]:
    rng = np.random.default_rng(0)
    per = BUNDLE_BYTES // BUNDLE_TENSORS // 4
    tensors = {f"layer{i:02d}/kernel": rng.random(per, dtype=np.float32).reshape(-1, 1024)
               for i in range(BUNDLE_TENSORS)}
    names = sorted(tensors)

    def write_raw() -> None:
        with open(f"{d}/raw.bin", "wb") as f:
            for name in names:
                tensors[name].tofile(f)

    def read_raw() -> None:
        with open(f"{d}/raw.bin", "rb") as f:
            for name in names:
                np.fromfile(f, dtype=np.float32, count=tensors[name].size).reshape(tensors[name].shape)

    def write_ours() -> None:
        write_bundle(f"{d}/ours", tensors)

    def read_ours() -> None:
        with BundleReader(f"{d}/ours") as reader:
            for name in names:
                reader.lookup(name)

    out = {"write raw": best(write_raw, 3, _remove(d, "raw")), "read raw": best(read_raw, 3),
           "write ours": best(write_ours, 3, _remove(d, "ours")), "read ours": best(read_ours, 3)}
    if tf is not None:
        def write_tf() -> None:
            tf.raw_ops.SaveV2(prefix=f"{d}/tf", tensor_names=names, shape_and_slices=[""] * len(names),
                              tensors=[tensors[n] for n in names])

        def read_tf() -> None:
            tf.raw_ops.RestoreV2(prefix=f"{d}/tf", tensor_names=names, shape_and_slices=[""] * len(names),
                                 dtypes=[tf.float32] * len(names))

        out["write tf"] = best(write_tf, 3, _remove(d, "tf"))
        out["read tf"] = best(read_tf, 3)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        rec = bench_records(d)
        print(f"TFRecord, {RECORDS:,} x {RECORD_SIZE} B records")
        for op, target in (("write", 1.0), ("read", 2.0)):
            line = f"  {op:5s} ours {rec[f'{op} ours']:.3f} s"
            if f"{op} tf" in rec:
                ratio = rec[f"{op} ours"] / rec[f"{op} tf"]
                line += f"   tf {rec[f'{op} tf']:.3f} s   ours/tf {ratio:.2f}x (target <= {target:.1f}x)"
            print(line)
        bun = bench_bundle(d)
        mb = BUNDLE_BYTES / (1 << 20)
        print(f"V2 bundle, {mb:.0f} MB in {BUNDLE_TENSORS} float32 tensors")
        for op in ("write", "read"):
            speed = bun[f"{op} raw"] / bun[f"{op} ours"]
            line = (f"  {op:5s} ours {bun[f'{op} ours']:.3f} s ({mb / bun[f'{op} ours']:.0f} MB/s)   raw numpy "
                    f"{bun[f'{op} raw']:.3f} s   ours at {speed:.0%} of raw (target >= 50%)")
            if f"{op} tf" in bun:
                line += f"   tf {bun[f'{op} tf']:.3f} s"
            print(line)


if __name__ == "__main__":
    main()
