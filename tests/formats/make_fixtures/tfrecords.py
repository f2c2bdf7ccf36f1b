"""Write TFRecord fixtures with real TensorFlow, and check that TF reads files written by tensorweave.

    /work/tfvenv/bin/python tests/formats/make_fixtures/tfrecords.py
Writes fixtures/tf_records.{none,gzip,zlib}.tfrecord: the records of `cases.RECORDS`, plus an Example file.
"""

import sys
import tempfile
from pathlib import Path

import tensorflow as tf

sys.path.insert(0, str(Path(__file__).parent))
from cases import RECORDS, example_features  # noqa: E402

FIXTURES = Path(__file__).parent.parent / "fixtures"


def main() -> None:
    for kind in ("NONE", "GZIP", "ZLIB"):
        options = tf.io.TFRecordOptions(compression_type="" if kind == "NONE" else kind)
        with tf.io.TFRecordWriter(str(FIXTURES / f"tf_records.{kind.lower()}.tfrecord"), options) as w:
            for record in RECORDS:
                w.write(record)
    with tf.io.TFRecordWriter(str(FIXTURES / "tf_examples.tfrecord")) as w:
        for i in range(3):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                k: _feature(v) for k, v in example_features(i).items()})).SerializeToString())
    check_ours()


def _feature(value):
    if isinstance(value[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
    if isinstance(value[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=value))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=value))


def check_ours() -> None:
    """Files written by tensorweave (run from the repo root in a venv that has it) must read in TF."""
    sys.path.insert(0, str(Path(__file__).parents[3]))
    from tensorweave.formats import tfrecord

    with tempfile.TemporaryDirectory() as d:
        for kind in ("", "GZIP", "ZLIB"):
            path = f"{d}/ours{kind}"
            with tfrecord.TFRecordWriter(path, kind) as w:
                for record in RECORDS:
                    w.write(record)
            got = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=kind)]
            assert got == RECORDS, kind
            assert list(tf.compat.v1.io.tf_record_iterator(path, kind)) == RECORDS
    print("TF reads tensorweave's TFRecord files: ok")


if __name__ == "__main__":
    main()
