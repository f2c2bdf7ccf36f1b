"""Event-file fixtures written by real TF1 FileWriter, and a TensorBoard check of tensorweave's files.

    /work/tfvenv/bin/python tests/formats/make_fixtures/events.py   (TensorFlow and TensorBoard installed)
Writes fixtures/tf_events/events.out.tfevents.*: the events of `cases.EVENT_SCRIPT` as TF writes them.
Then writes the same events with tensorweave and loads them with TensorBoard's EventAccumulator.
"""

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator as ea

sys.path.insert(0, str(Path(__file__).parent))
from cases import FIXTURES  # noqa: E402


def _graph_def(module):
    graph_def = module.GraphDef()
    node = graph_def.node.add(name="x", op="Placeholder")
    node.attr["dtype"].type = 1
    graph_def.node.add(name="y", op="Identity", input=["x"]).attr["T"].type = 1
    return graph_def


def write_events(module, writer):
    """The same events through either implementation's FileWriter (module: tf.compat.v1 or ours)."""
    writer.add_graph(_graph_def(module))
    writer.add_session_log(module.SessionLog(status=module.SessionLog.START), 0)
    for step in range(3):
        writer.add_summary(module.Summary(value=[module.Summary.Value(tag="loss", simple_value=1.0 / (step + 1))]),
                           step)
    histo = module.HistogramProto(min=0.0, max=2.0, num=3, sum=3.0, sum_squares=5.0,
                                  bucket_limit=[0.5, 1.5, 2.5], bucket=[1, 1, 1])
    writer.add_summary(module.Summary(value=[module.Summary.Value(tag="w", histo=histo)]).SerializeToString(), 3)
    text = module.Summary.Value(tag="note", metadata=module.SummaryMetadata(
        plugin_data=module.SummaryMetadata.PluginData(plugin_name="text")))
    text.tensor.CopyFrom(module.make_tensor_proto(np.array(b"hello *world*", dtype=object)))
    writer.add_summary(module.Summary(value=[text]), 4)
    writer.add_run_metadata(module.RunMetadata(), "step5", 5)
    writer.flush()
    writer.close()


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
        assert len(list(tf1.train.summary_iterator(events.FileWriter(d).event_writer.path))) == 1
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
