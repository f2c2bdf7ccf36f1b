"""Kernel dtype constraints (TF's KernelDef `T in [...]`): checked once when the session's graph is placed,
so a node no kernel supports fails every later run of the session, whatever it fetches."""

import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.ops import clip_ops

TRUNCATE_MOD_HALF = (
    "No OpKernel was registered to support Op 'TruncateMod' used by {{node TruncateMod}} with these attrs: "
    "[T=DT_HALF]\nRegistered devices: [CPU]\nRegistered kernels:\n  device='CPU'; T in [DT_DOUBLE]\n"
    "  device='CPU'; T in [DT_FLOAT]\n  device='CPU'; T in [DT_INT64]\n  device='CPU'; T in [DT_INT32]\n"
    "\n\t [[TruncateMod]]")  # the placer's bare tag of the node


def _message(sess, fetch):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(fetch)
    # TF's Session interpolates it: "Graph execution error:", where the node was defined; no op (the bare
    # tag `[[TruncateMod]]` names none)
    assert info.value.message.startswith("Graph execution error:\n\nDetected at node ")
    assert info.value.op is None and info.value.node_def is None
    return runtime_message(info.value)


def test_unsupported_node_fails_every_later_run_and_every_new_session():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        sess = tf.Session()
        assert sess.run(a) == 1.0  # before the node exists
        x = tf.constant([1.0, 2.0], dtype=tf.float16)
        mod = tf.truncatemod(x, x)
        assert _message(sess, a) == TRUNCATE_MOD_HALF  # a run that does not reach it
        assert _message(sess, a) == TRUNCATE_MOD_HALF  # and again: the graph keeps the node
        assert _message(sess, mod) == TRUNCATE_MOD_HALF
        assert _message(tf.Session(), a) == TRUNCATE_MOD_HALF


def test_unsupported_node_in_another_graph_does_not_matter():
    with tf.Graph().as_default():
        x = tf.constant([1.0], dtype=tf.float16)
        tf.truncatemod(x, x)
    with tf.Graph().as_default():
        assert tf.Session().run(tf.constant(2)) == 2


def test_kernel_check_comes_before_device_requests_and_soft_placement():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        with tf.device("/device:GPU:3"):
            tf.identity(a, name="unplaceable")
        tf.realdiv(tf.constant(1), tf.constant(2))
        message = _message(tf.Session(), a)
        assert message.split("\n")[0] == ("No OpKernel was registered to support Op 'RealDiv' used by "
                                          "{{node RealDiv}} with these attrs: [T=DT_INT32]")
        soft = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
        assert _message(soft, a) == message


def test_make_callable_fails_when_the_graph_is_extended():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        tf.realdiv(tf.constant([1, 2]), tf.constant([1, 2]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^No OpKernel .* 'RealDiv' used by \{\{node "):
            tf.Session().make_callable(a)


@pytest.mark.parametrize("build, first_line, registered", [
    (lambda: tf.realdiv(tf.constant([1]), tf.constant([1])),
     "Op 'RealDiv' used by {{node RealDiv}} with these attrs: [T=DT_INT32]",
     ["DT_COMPLEX128", "DT_COMPLEX64", "DT_BFLOAT16", "DT_DOUBLE", "DT_HALF", "DT_FLOAT"]),
    (lambda: tf.rint(tf.constant([1.0], tf.bfloat16)),
     "Op 'Rint' used by {{node Rint}} with these attrs: [T=DT_BFLOAT16]", ["DT_DOUBLE", "DT_FLOAT"]),
    (lambda: tf.reciprocal(tf.constant([1])),
     "Op 'Reciprocal' used by {{node Reciprocal}} with these attrs: [T=DT_INT32]",
     ["DT_COMPLEX128", "DT_COMPLEX64", "DT_DOUBLE", "DT_BFLOAT16", "DT_HALF", "DT_FLOAT"]),
    (lambda: tf.floordiv(tf.constant([1j]), tf.constant([1j])),
     "Op 'FloorDiv' used by {{node floordiv}} with these attrs: [T=DT_COMPLEX128]",
     ["DT_DOUBLE", "DT_BFLOAT16", "DT_HALF", "DT_FLOAT", "DT_INT64", "DT_INT32", "DT_INT16", "DT_INT8",
      "DT_UINT64", "DT_UINT32", "DT_UINT16", "DT_UINT8"]),
    (lambda: tf.range(3, dtype=tf.uint16),
     "Op 'Range' used by {{node range}} with these attrs: [Tidx=DT_UINT16]", None),
    (lambda: clip_ops.ClipByValue(tf.constant([1], tf.uint32), tf.constant(0, tf.uint32), tf.constant(2, tf.uint32)),
     "Op 'ClipByValue' used by {{node ClipByValue}} with these attrs: [T=DT_UINT32]",
     ["DT_COMPLEX128", "DT_COMPLEX64", "DT_UINT16", "DT_UINT8", "DT_INT64", "DT_INT32", "DT_INT16", "DT_INT8",
      "DT_BFLOAT16", "DT_DOUBLE", "DT_FLOAT", "DT_HALF"]),
    (lambda: tf.matmul(tf.ones([1, 1], tf.uint16), tf.ones([1, 1], tf.uint16)),
     "Op 'MatMul' used by {{node MatMul}} with these attrs: [T=DT_UINT16, grad_a=false, grad_b=false, "
     "transpose_a=false, transpose_b=false]",  # TF lists the attrs in its hash map's order
     ["DT_INT64", "DT_INT32", "DT_INT16", "DT_DOUBLE", "DT_FLOAT", "DT_BFLOAT16", "DT_HALF", "DT_COMPLEX128",
      "DT_COMPLEX64"]),
    (lambda: tf.matmul(tf.ones([1, 1, 1], tf.uint8), tf.ones([1, 1, 1], tf.uint8)),
     "Op 'BatchMatMulV2' used by {{node MatMul}} with these attrs: [T=DT_UINT8, adj_x=false, adj_y=false, "
     "grad_x=false, grad_y=false]", None),
])
def test_no_kernel_messages(build, first_line, registered):
    with tf.Graph().as_default():
        build()
        message, tag = _message(tf.Session(), tf.constant(0)).split("\n\t [[")
    lines = message.split("\n")
    assert tag == first_line.split("{{node ")[1].split("}}")[0] + "]]"
    assert lines[0] == "No OpKernel was registered to support " + first_line
    assert lines[1:3] == ["Registered devices: [CPU]", "Registered kernels:"]
    if registered is not None:
        attr = first_line.split("[")[1].split("=")[0]
        assert lines[3:] == [f"  device='CPU'; {attr} in [{t}]" for t in registered] + [""]  # TF's ends with \n


def test_supported_dtypes_run():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.truncatemod(tf.constant([7.0]), tf.constant([4.0]))).tolist() == [3.0]
        assert sess.run(tf.round(tf.constant([2.5], tf.float16))).tolist() == [2.0]
        assert sess.run(tf.range(3, dtype=tf.int64)).tolist() == [0, 1, 2]
