"""`tf.TensorArray` (TF1 graph mode, the v3 ops): values, static shapes, TF's graph, and the runtime errors.

Op names, shapes, values and messages are recorded from TensorFlow 2.21 (`tf.compat.v1`, v2 behaviour
disabled) running the same programs; a storage's name ends in TF's process-wide counter, matched as `\\d+`.
"""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tests.op_testing import check_tensor


def _graph(build):
    with tf.Graph().as_default() as graph:
        build()
    return [(op.name, op.type, [t.name for t in op.inputs]) for op in graph.get_operations()]


def test_tensor_array_builds_tfs_graph():
    def build():
        ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0])
        ta.read(0)
        tf.TensorArray(tf.float32, size=2).unstack(tf.constant([[1., 2.], [3., 4.]])).stack()
    assert _graph(build) == [
        ("TensorArray/size", "Const", []),
        ("TensorArray", "TensorArrayV3", ["TensorArray/size:0"]),
        ("TensorArrayWrite/value", "Const", []),
        ("TensorArrayWrite/TensorArrayWriteV3/index", "Const", []),
        ("TensorArrayWrite/TensorArrayWriteV3", "TensorArrayWriteV3",
         ["TensorArray:0", "TensorArrayWrite/TensorArrayWriteV3/index:0", "TensorArrayWrite/value:0", "TensorArray:1"]),
        ("TensorArrayReadV3/index", "Const", []),
        ("TensorArrayReadV3", "TensorArrayReadV3",
         ["TensorArray:0", "TensorArrayReadV3/index:0", "TensorArrayWrite/TensorArrayWriteV3:0"]),
        ("TensorArray_1/size", "Const", []),
        ("TensorArray_1", "TensorArrayV3", ["TensorArray_1/size:0"]),
        ("Const", "Const", []),
        ("TensorArrayUnstack/Shape", "Const", []),
        ("TensorArrayUnstack/strided_slice/stack", "Const", []),
        ("TensorArrayUnstack/strided_slice/stack_1", "Const", []),
        ("TensorArrayUnstack/strided_slice/stack_2", "Const", []),
        ("TensorArrayUnstack/strided_slice", "StridedSlice",
         ["TensorArrayUnstack/Shape:0", "TensorArrayUnstack/strided_slice/stack:0",
          "TensorArrayUnstack/strided_slice/stack_1:0", "TensorArrayUnstack/strided_slice/stack_2:0"]),
        ("TensorArrayUnstack/range/start", "Const", []),
        ("TensorArrayUnstack/range/delta", "Const", []),
        ("TensorArrayUnstack/range", "Range",
         ["TensorArrayUnstack/range/start:0", "TensorArrayUnstack/strided_slice:0", "TensorArrayUnstack/range/delta:0"]),
        ("TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3", "TensorArrayScatterV3",
         ["TensorArray_1:0", "TensorArrayUnstack/range:0", "Const:0", "TensorArray_1:1"]),
        ("TensorArrayStack/Const", "Const", []),
        ("TensorArrayStack/range/start", "Const", []),
        ("TensorArrayStack/range/delta", "Const", []),
        ("TensorArrayStack/range", "Range",
         ["TensorArrayStack/range/start:0", "TensorArrayStack/Const:0", "TensorArrayStack/range/delta:0"]),
        ("TensorArrayStack/TensorArrayGatherV3", "TensorArrayGatherV3",
         ["TensorArray_1:0", "TensorArrayStack/range:0",
          "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3:0"]),
    ]


def test_tensor_array_in_while_loop_builds_tfs_graph_and_runs():
    with tf.Graph().as_default() as graph:
        ta = tf.TensorArray(tf.float32, size=3)
        _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)),
                              [0, ta])
        assert isinstance(ta, tf.TensorArray)
        out = ta.stack()
        ops = {op.name: [t.name for t in op.inputs] for op in graph.get_operations()}
        assert ops["while/Enter_1"] == ["TensorArray:1"]
        assert ops["while/TensorArrayWrite/TensorArrayWriteV3"] == [
            "while/TensorArrayWrite/TensorArrayWriteV3/Enter:0", "while/Identity:0", "while/mul:0", "while/Identity_1:0"]
        assert ops["while/TensorArrayWrite/TensorArrayWriteV3/Enter"] == ["TensorArray:0"]
        assert ops["TensorArrayStack/TensorArrayGatherV3"] == ["TensorArray:0", "TensorArrayStack/range:0",
                                                              "while/Exit_1:0"]
        check_tensor(out, np.array([0.0, 2.0, 4.0], np.float32))


def test_tensor_array_through_cond():
    with tf.Graph().as_default() as graph:
        p = tf.placeholder(tf.bool, [])
        ta = tf.TensorArray(tf.float32, size=2)
        ta = tf.cond(p, lambda: ta.write(0, 1.0), lambda: ta.write(0, 2.0)).write(1, 5.0)
        out = ta.stack()
        ops = {op.name: [t.name for t in op.inputs] for op in graph.get_operations()}
        assert ops["cond/TensorArrayWrite/TensorArrayWriteV3/Switch"] == ["TensorArray:0", "cond/pred_id:0"]
        assert ops["cond/Merge"] == ["cond/TensorArrayWrite_1/TensorArrayWriteV3:0",
                                     "cond/TensorArrayWrite/TensorArrayWriteV3:0"]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {p: True}), [1.0, 5.0])
            np.testing.assert_array_equal(sess.run(out, {p: False}), [2.0, 5.0])


def test_values_and_static_shapes():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3).unstack(tf.reshape(tf.range(24, dtype=tf.float32), [3, 2, 4]))
        value = np.arange(24, dtype=np.float32).reshape(3, 2, 4)
        assert ta.element_shape == tf.TensorShape([2, 4])
        check_tensor(ta.stack(), value)
        check_tensor(ta.read(1), value[1])
        check_tensor(ta.concat(), value.reshape(6, 4))
        check_tensor(ta.gather([2, 0]), value[[2, 0]], fully_defined=False)
        assert ta.gather([2, 0]).shape.as_list() == [None, 2, 4]
        check_tensor(ta.size(), np.int32(3))
        split = tf.TensorArray(tf.int32, size=3).split(tf.reshape(tf.range(24), [6, 4]), [2, 2, 2])
        assert split.element_shape == tf.TensorShape([2, 4])
        check_tensor(split.concat(), np.arange(24, dtype=np.int32).reshape(6, 4))
        dynamic = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(3, [1., 2.]).write(1, [3., 4.])
        stacked = dynamic.stack()
        assert stacked.shape.as_list() == [None, 2]
        check_tensor(stacked, np.array([[0, 0], [3, 4], [0, 0], [1, 2]], np.float32), fully_defined=False)
        check_tensor(dynamic.size(), np.int32(4))
        ragged = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.]).write(1, [2., 3.])
        assert ragged.element_shape.ndims is None
        check_tensor(ragged.concat(), np.array([1., 2., 3.], np.float32), fully_defined=False)
        lengths = tf.raw_ops.TensorArrayConcatV3(handle=ragged.handle, flow_in=ragged.flow, dtype=tf.float32)[1]
        assert lengths.shape.as_list() == [None]
        empty = tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack()
        check_tensor(empty, np.zeros([0, 2, 3], np.float32))
        kept = tf.TensorArray(tf.float32, size=1, clear_after_read=False).write(0, 7.0)
        first = kept.read(0)
        with tf.control_dependencies([first]):
            second = kept.read(0)
        with tf.Session() as sess:
            assert sess.run([first, second]) == [7.0, 7.0]


def test_shape_functions_and_build_errors():
    with tf.Graph().as_default():
        handle, flow = tf.raw_ops.TensorArrayV3(size=3, dtype=tf.float32, element_shape=[2, None])
        assert (handle.shape.as_list(), flow.shape.as_list(), handle.dtype) == ([2], [], tf.resource)
        assert tf.raw_ops.TensorArrayReadV3(handle=handle, index=0, flow_in=flow, dtype=tf.float32).shape.ndims is None
        gather = tf.raw_ops.TensorArrayGatherV3(handle=handle, indices=[0, 1], flow_in=flow, dtype=tf.float32,
                                                element_shape=[None, 4])
        assert gather.shape.as_list() == [2, None, 4]
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.raw_ops.TensorArrayV3(size=[3], dtype=tf.float32)
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
            tf.raw_ops.TensorArrayGatherV3(handle=handle, indices=0, flow_in=flow, dtype=tf.float32)
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            tf.raw_ops.TensorArrayScatterV3(handle=handle, indices=[0], value=1., flow_in=flow)
        with pytest.raises(ValueError, match=re.escape("Inconsistent shapes: saw (2,) but expected (3,) ")):
            tf.TensorArray(tf.float32, size=2, element_shape=[3]).write(0, [1., 2.])
        with pytest.raises(ValueError, match=re.escape("Inconsistent shapes: saw (1,) but expected (2,) ")):
            tf.TensorArray(tf.float32, size=2).write(0, [1., 2.]).write(1, [1.])
        for kwargs, message in [
            (dict(size=2, handle=handle), "Cannot provide both a `handle` and `size` arguments at the same time."),
            ({}, "Argument `size` must be provided if handle is not provided."),
            (dict(handle=handle, tensor_array_name="x"),
             "Cannot provide both `handle` and `tensor_array_name` arguments at the same time."),
            (dict(handle=handle, element_shape=[1], flow=flow),
             "Cannot provide both `handle` and `element_shape` arguments at the same time."),
            (dict(handle=handle, dynamic_size=True, flow=flow),
             "Cannot provide both `handle` and `dynamic_size` arguments at the same time."),
            (dict(handle=handle), "flow must not be None if handle is not None."),
        ]:
            with pytest.raises(ValueError, match=re.escape(message)):
                tf.TensorArray(tf.float32, **kwargs)
        with pytest.raises(TypeError, match=re.escape("Expected `handle` to be a Tensor, but got `1` of type")):
            tf.TensorArray(tf.float32, handle=1, flow=flow)


def _read_twice(ta):
    first = ta.read(0)
    with tf.control_dependencies([first]):
        return ta.read(0)


def _stack_after_read(ta):
    with tf.control_dependencies([ta.read(0)]):
        return ta.stack()


def _write_after_read(ta):
    with tf.control_dependencies([ta.read(0)]):
        return ta.write(0, 2.0).flow


def _write_after_close(ta):
    with tf.control_dependencies([ta.close()]):
        return ta.write(0, 1.0).flow


def _raw(op, ta, **kwargs):
    return op(handle=ta.handle, flow_in=ta.flow, **kwargs)


TA = "TensorArray TensorArray_\\d+"  # the storage name: the node name and TF's process-wide counter
RUNTIME_ERRORS = [  # recorded from TF 2.21
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).write(0, 2.).flow,
     errors.InvalidArgumentError, TA + ": Could not write to TensorArray index 0 because it has already been written to."),
    (lambda: tf.TensorArray(tf.float32, size=2).write(2, 1.).flow,
     errors.InvalidArgumentError, TA + ": Tried to write to index 2 but array is not resizeable and size is: 2"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).read(2),
     errors.InvalidArgumentError, "Tried to read from index 2 but array size is: 2"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).read(-1),
     errors.InvalidArgumentError, "Tried to read from index -1 but array size is: 2"),
    (lambda: _read_twice(tf.TensorArray(tf.float32, size=1).write(0, 1.)),
     errors.InvalidArgumentError, TA + ": Could not read index 0 twice because it was cleared after a previous read "
     "(perhaps try setting clear_after_read = false?)."),
    (lambda: _stack_after_read(tf.TensorArray(tf.float32, size=1).write(0, 1.)),
     errors.InvalidArgumentError, TA + ": Could not read index 0 twice because it was cleared"),
    (lambda: _write_after_read(tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(0, 1.)),
     errors.InvalidArgumentError, TA + ": Could not write to TensorArray index 0 because it has already been read."),
    (lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).read(1),
     errors.InvalidArgumentError, TA + ": Could not read from TensorArray index 1.  Furthermore, the element shape is not "
     "fully defined: <unknown>.  It is possible you are working with a resizeable TensorArray"),
    (lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1., 2.]).write(1, [1., 2., 3.]).stack(),
     errors.InvalidArgumentError, "TensorArray has inconsistent shapes.  Index 0 has shape: [2] but index 1 has "
     "shape: [3]"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, tf.placeholder_with_default([1., 2.], None))
     .write(1, tf.placeholder_with_default([[1., 2.]], None)).flow,
     errors.InvalidArgumentError, TA + ": Could not write to TensorArray index 1 because the value shape is [1,2] which "
     "is incompatible with the TensorArray's inferred element shape: [2] (consider setting infer_shape=False)."),
    (lambda: tf.TensorArray(tf.float32, size=0).stack(),
     errors.UnimplementedError, "TensorArray has size zero, but element shape <unknown> is not fully defined. "
     "Currently only static shapes are supported when packing zero-size TensorArrays."),
    (lambda: tf.TensorArray(tf.float32, size=0, element_shape=[None, 3]).stack(),
     errors.UnimplementedError, "TensorArray has size zero, but element shape [?,3] is not fully defined."),
    (lambda: tf.TensorArray(tf.float32, size=0).concat(),
     errors.UnimplementedError, "TensorArray has size zero, but element_shape_except0 <unknown> is not fully defined. "
     "Currently only static shapes are supported when concatenating zero-size TensorArrays."),
    (lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [[1.]]).write(1, [[2., 3.]]).concat(),
     errors.InvalidArgumentError, "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: "
     "[1] but index 1 has (excepting dimension 0) shape: [2]"),
    (lambda: _raw(tf.raw_ops.TensorArrayConcatV3, tf.TensorArray(tf.float32, size=1).write(0, 1.), dtype=tf.float32),
     errors.InvalidArgumentError, "Concat saw a scalar shape at index 0 but requires at least vectors.  Did you mean "
     "to call pack?"),
    (lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 1]).flow,
     errors.InvalidArgumentError, "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 2 and "
     "value's shape is: [3]"),
    (lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 1, 1]).flow,
     errors.InvalidArgumentError, "TensorArray's size is not equal to the size of lengths (2 vs. 3), and the "
     "TensorArray is not marked as dynamically resizeable"),
    (lambda: tf.TensorArray(tf.float32, size=2).unstack([1., 2., 3.]).flow,
     errors.InvalidArgumentError, "Max scatter index must be < array size (2 vs. 2)"),
    (lambda: tf.TensorArray(tf.float32, size=2).scatter([0, 0], [1., 2.]).flow,
     errors.InvalidArgumentError, TA + ": Could not write to TensorArray index 0 because it has already been written to."),
    (lambda: tf.TensorArray(tf.float32, size=2).scatter([0, 1, 0], tf.placeholder_with_default([1., 2.], None)).flow,
     errors.InvalidArgumentError, "Expected len(indices) == values.shape[0], but saw: 3 vs. 2"),
    (lambda: _write_after_close(tf.TensorArray(tf.float32, size=1)),
     errors.InvalidArgumentError, TA + " has already been closed."),
    (lambda: tf.raw_ops.TensorArrayWriteV3(handle=tf.TensorArray(tf.float32, size=1).handle, index=0, value=1,
                                           flow_in=1.),
     errors.InvalidArgumentError, "TensorArray dtype is float but Op is trying to write dtype int32."),
    (lambda: _raw(tf.raw_ops.TensorArrayReadV3, tf.TensorArray(tf.float32, size=1).write(0, 1.), index=0,
                  dtype=tf.int32),
     errors.InvalidArgumentError, "TensorArray dtype is float but Op requested dtype int32."),
    (lambda: _raw(tf.raw_ops.TensorArrayGatherV3, tf.TensorArray(tf.float32, size=1).write(0, [1.]), indices=[0],
                  dtype=tf.float32, element_shape=[2]),
     errors.InvalidArgumentError, "PartialTensorShape: Incompatible shapes during merge: [1] vs. [2]"),
]


@pytest.mark.parametrize("build, error, message", RUNTIME_ERRORS)
def test_runtime_errors(build, error, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        fetch = build()
        pattern = TA + re.escape(message[len(TA):]) if message.startswith(TA) else re.escape(message)
        with pytest.raises(error, match=pattern):
            sess.run(fetch)


def test_unwritten_index_reads_zeros_when_the_element_shape_is_known():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0])
        check_tensor(ta.stack(), np.array([[1.0, 2.0], [0.0, 0.0]], np.float32))
        check_tensor(tf.TensorArray(tf.float32, size=2).write(0, 1.).read(1), np.float32(0.0))
