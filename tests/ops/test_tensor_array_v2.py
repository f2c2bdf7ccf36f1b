"""`tf.TensorArray` under control flow v2 (a program calling only `disable_eager_execution()`, or inside a
function): TF's TensorList-backed array, with the graphs, shapes, values and errors real TF 2.21 gives;
TF1 mode keeps TensorArrayV3."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


@pytest.fixture
def v2():
    tf.disable_eager_execution()


def _types(graph=None):
    return [op.type for op in (graph or tf.get_default_graph()).get_operations()]


def _run(t):
    with tf.Session() as s:
        return s.run(t)


def test_array_ops_are_list_ops_with_tfs_names_and_shapes(v2):
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.flow.dtype == tf.variant and ta.flow.name == "TensorArrayV2:0" and ta.handle is None
    ta = ta.write(0, [1., 2.]).write(1, [3., 4.])
    r, s = ta.read(1), ta.stack()
    assert (r.name, r.shape.as_list(), s.name, s.shape.as_list()) == \
        ("TensorArrayV2Read/TensorListGetItem:0", [2], "TensorArrayV2Stack/TensorListStack:0", [3, 2])
    x = tf.constant(np.arange(6.).reshape(3, 2), tf.float32)
    tb = tf.TensorArray(tf.float32, size=3).unstack(x)
    g = tb.gather([2, 0])
    tc = tf.TensorArray(tf.float32, size=0, dynamic_size=True).scatter([0, 2], tf.ones([2, 4]))
    td = tf.TensorArray(tf.float32, size=2).split(tf.range(5.), [2, 3])
    c = td.concat()
    assert tb.flow.name == "TensorArrayUnstack/TensorListFromTensor:0" and g.name == "TensorListGather:0"
    assert g.shape.as_list() == [2, 2] and tc.size().name == "TensorListLength:0"
    assert tc.flow.name == "TensorArrayScatter/TensorListScatterIntoExistingList:0"
    assert (td.flow.name, c.name, c.shape.ndims) == ("TensorArraySplit/TensorListSplit:0", "TensorListConcatV2:0", None)
    assert _types()[:14] == ["Const", "Const", "TensorListReserve", "Const", "Const", "TensorListSetItem", "Const",
                             "Const", "TensorListSetItem", "Const", "Const", "TensorListGetItem", "Const",
                             "TensorListStack"]
    got = _run([r, s, g, c, td.read(1)])
    assert got[0].tolist() == [3., 4.] and got[1].tolist() == [[1., 2.], [3., 4.], [0., 0.]]
    assert got[2].tolist() == [[4., 5.], [0., 1.]] and got[3].tolist() == [0., 1., 2., 3., 4.]
    assert got[4].tolist() == [2., 3., 4.]


def test_tf2_semantics_reads_repeat_writes_replace_and_dynamic_arrays_grow(v2):
    one = tf.TensorArray(tf.float32, size=3).write(0, [1., 2.])
    assert _run(one.read(0) + one.read(0)).tolist() == [2., 4.]  # no clear_after_read
    assert _run(one.read(1)).tolist() == [0., 0.]
    twice = tf.TensorArray(tf.float32, size=3).write(0, [1., 2.]).write(0, [3., 4.]).stack()
    assert _run(twice).tolist() == [[3., 4.], [0., 0.], [0., 0.]]
    grown = tf.TensorArray(tf.float32, size=1, dynamic_size=True).write(3, [1., 2.])
    assert grown.stack().shape.as_list() == [None, 2] and _run(grown.size()) == 4
    scattered = tf.TensorArray(tf.int32, size=3).scatter([2, 0], [[1, 2], [3, 4]]).stack()
    assert _run(scattered).tolist() == [[3, 4], [0, 0], [1, 2]]
    assert tf.TensorArray(tf.float32, size=2).close().type == "NoOp"


def test_errors_as_tf(v2):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to read an uninitialized tensor but "
                                                             "element_shape is not fully defined: <unknown>"):
        _run(tf.TensorArray(tf.float32, size=3).read(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to modify element 3 in a list with 3 elements"):
        _run(tf.TensorArray(tf.float32, size=3).write(3, [1., 2.]).stack())
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Invalid data types; op elements int32 but list elements float"):
        _run(tf.TensorArray(tf.float32, size=3).write(0, tf.constant([1, 2])).stack())
    with pytest.raises(ValueError, match=r"^Inconsistent shapes: saw \(3,\) but expected \(2,\) $"):
        tf.TensorArray(tf.float32, size=3).write(0, [1., 2.]).write(1, [1., 2., 3.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tried to stack elements of an empty list"):
        _run(tf.TensorArray(tf.float32, size=0).stack())
    with pytest.raises(TypeError, match="Expected `flow` to be a variant tensor"):
        tf.TensorArray(tf.float32, flow=tf.constant(0.))
    with pytest.raises(ValueError, match="^Expected list with element dtype float but got list with element dtype "
                                         "int32"):
        tf.TensorArray(tf.float32, flow=tf.TensorArray(tf.int32, size=2).flow).read(0)
    with pytest.raises(NotImplementedError):
        tf.TensorArray(tf.float32, size=2).grad("x")
    with pytest.raises(tf.errors.InternalError, match="^Graph execution error:\n\nTensorflow type 21 not "
                                                      "convertible to numpy dtype.$"):  # fails inside TF's run
        _run(tf.TensorArray(tf.float32, size=2).flow)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to gather element 3 in a list with 3 elements"):
        _run(tf.TensorArray(tf.float32, size=3).write(0, [1., 2.]).gather([0, 3]))


def test_while_loop_carries_the_lists_and_differentiates_through_them(v2):
    x = tf.constant(np.arange(12.).reshape(4, 3), tf.float32)
    ta_in = tf.TensorArray(tf.float32, size=4).unstack(x)

    def body(i, acc, out):
        acc = acc + ta_in.read(i)
        return i + 1, acc, out.write(i, acc * 2.)

    _, acc, out = tf.while_loop(lambda i, *_: i < 4, body, [0, tf.zeros([3]), tf.TensorArray(tf.float32, size=4)])
    res = out.stack()
    loop = [op for op in tf.get_default_graph().get_operations() if op.type == "StatelessWhile"][0]
    assert [t.dtype for t in loop.inputs] == [tf.int32, tf.int32, tf.int32, tf.float32, tf.variant, tf.variant]
    assert res.name == "TensorArrayV2Stack/TensorListStack:0" and res.shape.as_list() == [4, 3]
    gx = tf.gradients(tf.reduce_sum(res * res), x)[0]
    got = _run([res, gx])
    assert got[0].tolist() == [[0., 2., 4.], [6., 10., 14.], [18., 24., 30.], [36., 44., 52.]]
    assert got[1].tolist() == [[240., 320., 400.], [240., 312., 384.], [216., 272., 328.], [144., 176., 208.]]


def test_cond_returns_an_array_of_unknown_size_as_tf(v2):
    x = tf.constant([1., 2., 3., 4.])
    tc = tf.cond(tf.placeholder_with_default(True, []),
                 lambda: tf.TensorArray(tf.float32, size=2).write(0, x[:2]).write(1, x[2:]),
                 lambda: tf.TensorArray(tf.float32, size=2).unstack(tf.reshape(x, [2, 2])))
    assert tc.flow.name == "cond/Identity:0" and type(tc).__name__ == "TensorArray"
    assert tc.stack().shape.as_list() == [None, 2]
    assert _run(tf.gradients(tf.reduce_sum(tc.stack() * x[:2]), x)[0]).tolist() == [5., 8., 1., 2.]  # 2x0 + x2, 2x1 + x3, x0, x1


def test_rnn_and_map_fn_build_tensor_lists(v2):
    x = tf.constant(np.linspace(-1, 1, 2 * 5 * 3).reshape(2, 5, 3), tf.float32)
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(4), x, dtype=tf.float32, sequence_length=[5, 3])
    m = tf.map_fn(lambda r: r * r, tf.constant([1., 2., 3.]))
    types = _types()
    assert "TensorArrayV3" not in types  # TF: 4 Reserve, 2 FromTensor, 2 Stack
    assert [types.count(t) for t in ("TensorListReserve", "TensorListFromTensor", "TensorListStack")] == [4, 2, 2]
    assert out.shape.as_list() == [2, 5, 4] and _run(m).tolist() == [1., 4., 9.]


def test_tf1_mode_keeps_tensor_array_v3_but_functions_use_lists():
    tf.disable_v2_behavior()
    ta = tf.TensorArray(tf.float32, size=2)
    assert ta.flow.dtype == tf.float32 and ta.handle.op.type == "TensorArrayV3"

    @tf.function
    def f(v):
        return tf.TensorArray(tf.float32, size=2).unstack(tf.stack([v, v * 2.])).read(1)

    r = f(tf.constant([1., 2.]))
    graph = f.get_concrete_function(tf.constant([1., 2.])).graph
    assert "TensorListFromTensor" in _types(graph) and "TensorArrayV3" not in _types(graph)
    assert _run(r).tolist() == [2., 4.]
