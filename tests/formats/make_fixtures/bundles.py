"""V2 checkpoint fixtures written by real TensorFlow's SaveV2, and TF's verdict on tensorweave's bundles.

    /work/tfvenv/bin/python tests/formats/make_fixtures/bundles.py
Writes fixtures/tf_bundle/{dtypes,sliced}.{index,data-00000-of-00001} and many.tar.gz (a 900-key
checkpoint whose index spans two 256 KiB blocks), then checks that TF loads what tensorweave writes.
"""

import io
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).parent))
from cases import BFLOAT16_VALUES, FIXTURES, MANY_KEYS, bundle_tensors, sharded_save  # noqa: E402

OUT = FIXTURES / "tf_bundle"


def save(prefix, tensors, slices=None):
    names = sorted(tensors)
    specs = [(slices or {}).get(n, "") for n in names]
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=specs,
                      tensors=[tf.constant(tensors[n]) for n in names])


def tf_tensors():
    tensors = {k: tf.constant(v) for k, v in bundle_tensors().items()}
    tensors["dtypes/bfloat16"] = tf.constant(BFLOAT16_VALUES, dtype=tf.bfloat16)
    return tensors


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir()
    save(str(OUT / "dtypes"), tf_tensors())
    # one variable saved as two slices (a partitioned variable), plus a plain one
    full = np.arange(24, dtype=np.float32).reshape(4, 6)
    names = ["part", "part", "plain"]
    tf.raw_ops.SaveV2(prefix=str(OUT / "sliced"), tensor_names=names,
                      shape_and_slices=["4 6 0,1:-", "4 6 1,3:-", ""],
                      tensors=[full[:1], full[1:], np.int64(7)])
    with tempfile.TemporaryDirectory() as d:
        for shard, (name, spec, value, part) in enumerate(sharded_save()):
            tf.raw_ops.SaveV2(prefix=f"{d}/tmp/part-{shard}", tensor_names=[name, "part"],
                              shape_and_slices=["", spec], tensors=[value, part])
        tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=[f"{d}/tmp/part-0", f"{d}/tmp/part-1"],
                                      destination_prefix=str(OUT / "merged"))
    with tempfile.TemporaryDirectory() as d:
        save(f"{d}/many", {k: np.int8(i % 100) for i, k in enumerate(MANY_KEYS)})
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for p in Path(d).iterdir():
                tar.add(p, arcname=p.name)
        (OUT / "many.tar.gz").write_bytes(buf.getvalue())
    check_ours()


def check_ours() -> None:
    """tensorweave's bundles load in TF with the right values, and are byte-identical to TF's."""
    sys.path.insert(0, str(Path(__file__).parents[3]))
    from tensorweave.formats import bundle

    with tempfile.TemporaryDirectory() as d:
        ours = dict(bundle_tensors())
        ours["dtypes/bfloat16"] = tf_tensors()["dtypes/bfloat16"].numpy()
        bundle.write_bundle(f"{d}/dtypes", ours)
        reader = tf.train.load_checkpoint(f"{d}/dtypes")
        for name, value in ours.items():
            got = reader.get_tensor(name)
            assert np.array_equal(np.asarray(got), np.asarray(value)), name
        for suffix in (".index", ".data-00000-of-00001"):
            assert Path(f"{d}/dtypes{suffix}").read_bytes() == (OUT / f"dtypes{suffix}").read_bytes(), suffix
        bundle.write_bundle(f"{d}/many", {k: np.int8(i % 100) for i, k in enumerate(MANY_KEYS)})
        assert tf.train.load_checkpoint(f"{d}/many").get_tensor(MANY_KEYS[-1]) == (len(MANY_KEYS) - 1) % 100
        for shard, (name, spec, value, part) in enumerate(sharded_save()):
            with bundle.BundleWriter(f"{d}/tmp/part-{shard}") as w:
                w.add(name, value)
                w.add_slice("part", [4, 2], spec.split()[-1], part)
        bundle.merge_bundles([f"{d}/tmp/part-0", f"{d}/tmp/part-1"], f"{d}/merged")
        for suffix in (".index", ".data-00000-of-00002", ".data-00001-of-00002"):
            assert Path(f"{d}/merged{suffix}").read_bytes() == (OUT / f"merged{suffix}").read_bytes(), suffix
        with tarfile.open(OUT / "many.tar.gz") as tar:
            assert tar.extractfile("many.index").read() == Path(f"{d}/many.index").read_bytes()
    print("TF loads tensorweave's bundles, byte-identical to its own: ok")


if __name__ == "__main__":
    main()
