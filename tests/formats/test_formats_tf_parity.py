"""Differential checks of the file formats' public API against real TF 2.21's compat.v1.

Each test pins a behaviour where tensorweave differed from TensorFlow (found by running the same TF1
snippets on both); every expected value and message below was recorded from TensorFlow.
"""

import pickle
import time

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.formats import datatypes as dt


def _proto(dtype, shape, **fields):
    proto = tf.make_tensor_proto(0)
    proto.Clear()
    proto.dtype = dtype
    for size in shape:
        proto.tensor_shape.dim.add(size=size)
    for name, value in fields.items():
        if isinstance(value, bytes):
            setattr(proto, name, value)
        else:
            getattr(proto, name).extend(value)
    return proto


# ---- make_ndarray: TF's decoding steps, so malformed protos fail with TF's (NumPy's) errors

@pytest.mark.parametrize("proto, error, text", [
    (_proto(dt.DT_UINT8, [2], int_val=[-1, 256]), OverflowError, "Python integer -1 out of bounds for uint8"),
    (_proto(dt.DT_INT16, [2], int_val=[70000, -5]), OverflowError, "Python integer 70000 out of bounds for int16"),
    (_proto(dt.DT_STRING, [1], tensor_content=b"abc"), ValueError, "cannot create an OBJECT array from memory buffer"),
    (_proto(dt.DT_FLOAT, [-1], float_val=[1.0]), ValueError, "index can't contain negative values"),
    (_proto(dt.DT_FLOAT, [-1]), ValueError, "negative dimensions are not allowed"),
    (_proto(dt.DT_RESOURCE, [1]), KeyError, "20"),
    (_proto(dt.DT_VARIANT, [1]), KeyError, "21"),
    (_proto(dt.DT_INVALID, [1]), TypeError, "Cannot convert the argument `type_value`: 0 to a TensorFlow DType."),
])
def test_make_ndarray_errors_are_tfs(proto, error, text):
    with pytest.raises(error) as info:
        tf.make_ndarray(proto)
    assert str(info.value) == text


def test_make_ndarray_infers_minus_one_dimension_from_tensor_content():
    proto = _proto(dt.DT_FLOAT, [-1, 2], tensor_content=np.arange(4, dtype=np.float32).tobytes())
    np.testing.assert_array_equal(tf.make_ndarray(proto), [[0.0, 1.0], [2.0, 3.0]])


def test_make_tensor_proto_of_a_graph_tensor_is_type_error():
    with tf.Graph().as_default():
        tensor = tf.constant(1)
        for values in (tensor, [tensor, 2]):
            with pytest.raises(TypeError, match="^Expected any non-tensor type, but got a tensor instead.$"):
                tf.make_tensor_proto(values)
        with pytest.raises(TypeError, match=r'^Expected int32, but got Tensor\("Const:0", shape=\(\), dtype=int32\)'):
            tf.make_tensor_proto(tensor, dtype=tf.int32)


# ---- TFRecord files

def test_tfrecord_data_loss_messages_do_not_name_the_file(tmp_path):
    path = str(tmp_path / "garbage")
    with open(path, "wb") as f:
        f.write(b"garbage garbage garbage")
    with pytest.raises(errors.DataLossError) as info:
        list(tf.python_io.tf_record_iterator(path))
    assert info.value.message == "corrupted record at 0 (Is this even a TFRecord file?)"
    with pytest.raises(errors.DataLossError) as info:
        list(tf.python_io.tf_record_iterator(path, "GZIP"))
    assert info.value.message == "inflate() failed with error -3: incorrect header check"
    with tf.python_io.TFRecordWriter(path) as writer:
        writer.write(b"x")
    with open(path, "rb") as f:
        framed = f.read()
    with open(path, "wb") as f:
        f.write(framed[:14])
    with pytest.raises(errors.DataLossError) as info:
        list(tf.python_io.tf_record_iterator(path))
    assert info.value.message == "truncated record at 0' failed with Read less bytes than requested"


@pytest.mark.parametrize("record", [5, None, memoryview(b"ab")])
def test_tfrecord_write_rejects_non_strings_with_tfs_message(tmp_path, record):
    with tf.python_io.TFRecordWriter(str(tmp_path / "r")) as writer:
        with pytest.raises(TypeError) as info:
            writer.write(record)
    assert str(info.value).split("\n")[0] == (
        "write(): incompatible function arguments. The following argument types are supported:")


def test_tfrecord_paths_that_are_not_strings(tmp_path):
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got 5$"):
        tf.python_io.TFRecordWriter(5)
    with pytest.raises(TypeError, match=r"^__init__\(\): incompatible constructor arguments"):
        tf.python_io.tf_record_iterator(5)
    path = str(tmp_path / "r")
    with tf.python_io.TFRecordWriter(path.encode()) as writer:
        writer.write(b"x")
    assert list(tf.python_io.tf_record_iterator(path.encode())) == [b"x"]


def test_compressed_flush_is_tfs_partial_flush(tmp_path):
    path = str(tmp_path / "r")
    writer = tf.python_io.TFRecordWriter(path, "ZLIB")
    writer.write(b"abc")
    writer.flush()
    with open(path, "rb") as f:
        assert f.read().hex() == "789c626680800d333df9129392f3c23f2a0204"
    writer.write(b"defg")
    writer.close()
    with open(path, "rb") as f:
        assert f.read().hex() == ("789c626680800d333df9129392f3c23f2a0204180b54c8c935882525352d5d9d5d7a21008e960802")
    assert list(tf.python_io.tf_record_iterator(path, "ZLIB")) == [b"abc", b"defg"]


@pytest.mark.parametrize("options, expected", [
    # a window_bits given with GZIP replaces TF's gzip default (MAX_WBITS + 16): TF then writes a zlib stream
    (tf.python_io.TFRecordOptions("GZIP", window_bits=9), "1895636680800d333df9129392f3c23f2a02001c7904a1"),
    (tf.python_io.TFRecordOptions("GZIP", compression_level=1),
     "1f8b0800000000000403636680800d333df9129392f3c23f2a020032a97b3913000000"),
])
def test_compression_options_write_tfs_bytes(tmp_path, options, expected):
    path = str(tmp_path / "r")
    with tf.python_io.TFRecordWriter(path, options) as writer:
        writer.write(b"abc")
    with open(path, "rb") as f:
        assert f.read().hex() == expected


# ---- event files

def _events(logdir):
    (path,) = logdir.iterdir()
    return [event for event in tf.train.summary_iterator(str(path)) if event.WhichOneof("what") == "summary"]


def _summary(tag, value, plugin_name=None):
    summary = tf.Summary(value=[tf.Summary.Value(tag=tag, simple_value=value)])
    if plugin_name:
        summary.value[0].metadata.plugin_data.plugin_name = plugin_name
    return summary


def test_add_summary_tag_is_seen_from_its_first_value_even_without_metadata(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(_summary("t", 1.0), 1)
    later = _summary("t", 2.0, "p")
    writer.add_summary(later, 2)
    writer.close()
    assert [e.summary.value[0].HasField("metadata") for e in _events(tmp_path)] == [False, False]
    assert not later.value[0].HasField("metadata")  # TF strips it in the caller's Summary


def test_add_summary_strips_metadata_in_the_callers_summary(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    summary = _summary("t", 2.0, "p")
    writer.add_summary(summary, 1)
    assert summary.value[0].HasField("metadata")
    writer.add_summary(summary, 2)
    writer.close()
    assert not summary.value[0].HasField("metadata")
    assert [e.summary.value[0].HasField("metadata") for e in _events(tmp_path)] == [True, False]


def test_add_meta_graph_rejects_other_messages(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError) as info:
        writer.add_meta_graph(tf.GraphDef())
    writer.close()
    assert str(info.value) == ("meta_graph_def must be type MetaGraphDef, saw type: "
                               "<class 'tensorflow.core.framework.graph_pb2.GraphDef'>")


def test_summary_iterator_opens_the_file_at_the_call(tmp_path):
    with pytest.raises(errors.NotFoundError):
        tf.train.summary_iterator(str(tmp_path / "missing"))


def test_summary_iterator_non_event_record_is_data_loss(tmp_path):
    """TF lets protobuf's DecodeError out here; bad bytes always give TF's error classes in tensorweave."""
    path = str(tmp_path / "events")
    with tf.python_io.TFRecordWriter(path) as writer:
        writer.write(b"\xff\xff\xff")
    events = tf.train.summary_iterator(path)
    with pytest.raises(errors.DataLossError, match="record 0 is not an Event: Error parsing message with type "
                       "'tensorflow.Event': Wire format was corrupt$"):
        list(events)


def test_logdir_blocked_by_a_file_is_failed_precondition(tmp_path):
    (tmp_path / "file").write_text("x")
    for logdir in (tmp_path / "file", tmp_path / "file" / "sub" / "dir"):
        with pytest.raises(errors.FailedPreconditionError) as info:
            tf.summary.FileWriter(str(logdir))
        assert info.value.message == f"{tmp_path / 'file'} is not a directory"


def test_empty_logdir_is_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = tf.summary.FileWriter("")
    writer.add_summary(_summary("t", 1.0), 1)
    writer.close()
    assert writer.get_logdir() == ""
    assert [p.name.startswith("events.out.tfevents.") for p in tmp_path.iterdir()] == [True]


@pytest.mark.parametrize("event", [b"\x08\x01", "event"])
def test_add_event_takes_only_protos(tmp_path, event):
    writer = tf.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError) as info:
        writer.add_event(event)
    writer.close()
    assert str(info.value) == f"{type(event)} is not a valid proto."


def test_run_metadata_tag_must_be_a_string(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError, match="^bad argument type for built-in operation$"):
        writer.add_run_metadata(tf.RunMetadata(), None)
    writer.close()


@pytest.mark.parametrize("graph", [tf.GraphDef().SerializeToString(), tf.MetaGraphDef()])
def test_add_graph_takes_only_a_graph_or_a_graph_def(tmp_path, graph):
    writer = tf.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError, match="^The passed graph must be an instance of `Graph` or the deprecated `GraphDef`$"):
        writer.add_graph(graph)
    writer.close()
    with pytest.raises(TypeError, match="^The passed graph must be an instance of `Graph`"):
        tf.summary.FileWriter(str(tmp_path), graph)


def _wait_for_events(path, count):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if path.exists() and len(list(tf.train.summary_iterator(str(path)))) >= count:
            return True
        time.sleep(0.01)
    return False


def test_first_event_is_flushed_without_flush(tmp_path):
    """TF flushes the version event with the file and the first event at once; later ones wait."""
    writer = tf.summary.FileWriter(str(tmp_path), filename_suffix=".x")
    (path,) = tmp_path.iterdir()
    assert len(list(tf.train.summary_iterator(str(path)))) == 1
    writer.add_summary(_summary("t", 1.0), 1)
    assert _wait_for_events(path, 2)
    writer.close()


def test_idle_writer_does_not_spin(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), flush_secs=0.01)
    start = time.process_time()
    time.sleep(0.3)
    writer.add_summary(_summary("t", 1.0), 1)
    time.sleep(0.3)
    assert time.process_time() - start < 0.2
    writer.close()


# ---- checkpoints

def _checkpoint(tmp_path):
    from tensorweave.formats.bundle import BundleWriter

    prefix = str(tmp_path / "model")
    writer = BundleWriter(prefix)
    writer.add("a", np.arange(3, dtype=np.float32))
    writer.finish()
    return prefix


def test_checkpoint_reader_takes_bytes_names_and_rejects_others(tmp_path):
    reader = tf.train.NewCheckpointReader(_checkpoint(tmp_path))
    assert reader.has_tensor(b"a")
    np.testing.assert_array_equal(reader.get_tensor(b"a"), [0.0, 1.0, 2.0])
    for call in (reader.has_tensor, reader.get_tensor):
        with pytest.raises(TypeError, match="^Expected binary or unicode string, got None$"):
            call(None)
        with pytest.raises(TypeError, match="^Expected binary or unicode string, got 3$"):
            call(3)


def test_checkpoint_state_that_is_not_utf8_is_an_error(tmp_path):
    (tmp_path / "checkpoint").write_bytes(b'model_checkpoint_path: "\xff"\n')
    with pytest.raises(UnicodeDecodeError):
        tf.train.get_checkpoint_state(str(tmp_path))
    (tmp_path / "checkpoint").write_text("garbage {{{")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None



def test_checkpoint_state_that_cannot_be_read_is_ignored_with_tf_warnings(tmp_path, caplog):
    """TF 2.21 logs the error's class and message, then '<path>: Checkpoint ignored'; a missing file is silent."""
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "c2").write_text('model_checkpoint_path: "x"\nfoo: 1\n')
    with caplog.at_level("WARNING", logger="tensorflow"):
        assert tf.train.get_checkpoint_state(str(tmp_path), "missing") is None
        assert tf.train.get_checkpoint_state(str(tmp_path)) is None
        assert tf.train.get_checkpoint_state(str(tmp_path), "c2") is None
    assert [r.getMessage() for r in caplog.records] == [
        f"FailedPreconditionError: {tmp_path}/checkpoint; Is a directory", f"{tmp_path}/checkpoint: Checkpoint ignored",
        'ParseError: 2:1 : Message type "tensorflow.CheckpointState" has no field named "foo".',
        f"{tmp_path}/c2: Checkpoint ignored"]

# ---- protobuf classes

def test_tensor_info_is_exported():
    assert tf.TensorInfo(name="x:0", dtype=1).SerializeToString().hex() == "0a03783a301001"


def test_graph_debug_info_is_proto2_as_in_tf():
    """TF's graph_debug_info.proto is proto2: scalar fields have presence and are written when set to 0."""
    line = tf.GraphDef().debug_info.FileLineCol(line=0)
    assert line.HasField("line") and not line.HasField("col")
    assert line.SerializeToString().hex() == "1000"


@pytest.mark.parametrize("cls, text", [
    (tf.SessionLog, "<class 'tensorflow.core.util.event_pb2.SessionLog'>"),
    (tf.Summary.Value, "<class 'tensorflow.core.framework.summary_pb2.Summary.Value'>"),
    (tf.ConfigProto, "<class 'tensorflow.core.protobuf.config_pb2.ConfigProto'>"),
    (tf.HistogramProto, "<class 'xla.tsl.protobuf.histogram_pb2.HistogramProto'>"),
    (tf.train.Example, "<class 'tensorflow.core.example.example_pb2.Example'>"),
    (tf.train.BytesList, "<class 'tensorflow.core.example.feature_pb2.BytesList'>"),
])
def test_message_classes_are_named_as_tfs(cls, text):
    assert repr(cls) == text


def test_protobuf_type_errors_name_classes_as_tf():
    with pytest.raises(TypeError) as info:
        tf.Event(session_log=tf.Summary())
    assert str(info.value) == (
        "Parameter to initialize message field must be dict or instance of same class: expected "
        "<class 'tensorflow.core.util.event_pb2.SessionLog'> got "
        "<class 'tensorflow.core.framework.summary_pb2.Summary'>.")


def test_every_message_class_has_a_tf_module():
    from google.protobuf import descriptor_pb2, message_factory

    from tensorweave.formats import protos

    fds = descriptor_pb2.FileDescriptorSet.FromString(protos.FDS_PATH.read_bytes())
    for file_proto in fds.file:
        if file_proto.package != "tensorflow":
            continue
        for descriptor in protos.POOL.FindFileByName(file_proto.name).message_types_by_name.values():
            module = message_factory.GetMessageClass(descriptor).__module__
            assert module.endswith("_pb2") and module.split(".")[0] in ("tensorflow", "xla"), descriptor.full_name


@pytest.mark.parametrize("value", [tf.Summary.Value(tag="x", simple_value=1.0), tf.SessionLog(msg="m"),
                                   tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[1.0])])
def test_messages_pickle_nested_types_included(value):
    back = pickle.loads(pickle.dumps(value))
    assert type(back) is type(value) and back == value
