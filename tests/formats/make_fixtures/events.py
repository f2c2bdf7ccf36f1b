"""Event-file fixtures written by real TF1 FileWriter, and a TensorBoard check of tensorweave's files.

    /work/tfvenv/bin/python tests/formats/make_fixtures/events.py   (TensorFlow and TensorBoard installed)
Writes fixtures/tf_events/events.out.tfevents.*: the events of `cases.write_events` as TF writes them.
Then writes the same events with tensorweave, loads them with TensorBoard's EventAccumulator, and
keeps that file as fixtures/tw_events/ (the tests check our writer still produces these events).
"""

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator as ea

sys.path.insert(0, str(Path(__file__).parent))
from cases import FIXTURES, write_events  # noqa: E402


def main() -> None:
    target = FIXTURES / "tf_events"
    shutil.rmtree(target, ignore_errors=True)
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    write_events(tf1, tf1.summary.FileWriter(str(target)))
    check(str(target))

    sys.path.insert(0, str(Path(__file__).parents[3]))
    from tensorweave.formats import events, protos, tensor_proto

    class Ours:
        def __getattr__(self, name):
            return getattr(protos, name)

    ours = Ours()
    ours.make_tensor_proto = tensor_proto.make_tensor_proto
    with tempfile.TemporaryDirectory() as d:
        write_events(ours, events.FileWriter(d))
        check(d)
        (ours_file,) = Path(d).iterdir()
        golden = FIXTURES / "tw_events"
        shutil.rmtree(golden, ignore_errors=True)
        golden.mkdir()
        shutil.copy(ours_file, golden / "events.out.tfevents.0.tensorweave")
        events.FileWriter(d).close()  # a writer that writes nothing leaves no file, as TF's does
        assert len(list(Path(d).iterdir())) == 1
    print("TensorBoard reads tensorweave's event files: ok")


def check(logdir):
    acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.TENSORS: 0})
    acc.Reload()
    tags = acc.Tags()
    assert [e.value for e in acc.Scalars("loss")] == [1.0, 0.5, np.float32(1 / 3)], acc.Scalars("loss")
    assert acc.Histograms("w")[0].histogram_value.bucket == [1, 1, 1]
    assert tf.make_ndarray(acc.Tensors("note")[0].tensor_proto) == b"hello *world*"
    assert [n.name for n in acc.Graph().node] == ["x", "y"]
    assert tags["run_metadata"] == ["step5"], tags


if __name__ == "__main__":
    main()
