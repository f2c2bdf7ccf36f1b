"""Resource variables (`use_resource=True`, `tf.enable_resource_variables()`): their ops, graphs as TF 2.21's
`tf.compat.v1` builds them, snapshot reads, gradients, optimizers and checkpoints; literals recorded from TF."""

import json
import pathlib

import numpy as np
import pytest
from google.protobuf import text_format
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.framework import op_registry
from tensorweave.framework.graph_io import op_def_to_proto
from tensorweave.ops import resource_variable_ops

TF_OP_DEFS = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "resource_op_defs_tf.json").read_text())


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


@pytest.mark.parametrize("name", sorted(TF_OP_DEFS))
def test_op_defs_are_tfs(name):
    assert op_def_to_proto(op_registry.get(name).op_def) == text_format.Parse(TF_OP_DEFS[name], protos.OpDef())


def _nodes():
    return [(n.name, n.op, list(n.input)) for n in tf.get_default_graph().as_graph_def().node]


def test_graph_is_tfs():
    v = tf.Variable(1.0, name="v", use_resource=True)
    tf.Variable(lambda: tf.zeros([3, 2]), name="w", use_resource=True)
    assert repr(v) == "<tf.Variable 'v:0' shape=() dtype=float32>"
    assert type(v).__name__ == "ResourceVariable" and isinstance(v, tf.Variable)
    assert (v.op.type, v.handle.name, v.handle.dtype, v.initializer.name, v.initial_value.name) == (
        "VarHandleOp", "v:0", tf.resource, "v/Assign", "v/Initializer/initial_value:0")
    assert (v.value().name, v.read_value().name, tf.convert_to_tensor(v).name) == (
        "ReadVariableOp:0", "Identity:0", "ReadVariableOp_1:0")
    assert _nodes() == [
        ("v/Initializer/initial_value", "Const", []), ("v", "VarHandleOp", []),
        ("v/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp", ["v"]),
        ("v/Assign", "AssignVariableOp", ["v", "v/Initializer/initial_value"]),
        ("v/Read/ReadVariableOp", "ReadVariableOp", ["v"]),
        ("w/Initializer/zeros", "Const", []), ("w", "VarHandleOp", []),
        ("w/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp", ["w"]),
        ("w/Assign", "AssignVariableOp", ["w", "w/Initializer/zeros"]),
        ("w/Read/ReadVariableOp", "ReadVariableOp", ["w"]),
        ("ReadVariableOp", "ReadVariableOp", ["v"]), ("Read/ReadVariableOp", "ReadVariableOp", ["v"]),
        ("Identity", "Identity", ["Read/ReadVariableOp"]), ("ReadVariableOp_1", "ReadVariableOp", ["v"])]
    handle = v.op.node_def
    assert handle.attr["shared_name"].s == b"v" and handle.attr["_class"].list.s == [b"loc:@v"]
    assert handle.attr["debug_name"].s == b"v/" and handle.attr["shape"].shape == tf.TensorShape([]).as_proto()
    assert v.initial_value.op.node_def.attr["_class"].list.s == [b"loc:@v"]
    assert v.initializer.node_def.attr["validate_shape"].b is False
    assert text_format.MessageToString(v.to_proto(), as_one_line=True) == (
        'variable_name: "v:0" initializer_name: "v/Assign" snapshot_name: "v/Read/ReadVariableOp:0" '
        'is_resource: true initial_value_name: "v/Initializer/initial_value:0" trainable: true')


def test_updates_build_tfs_nodes():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    a = v.assign([3.0, 4.0])
    assert (type(a).__name__, a.name, a.op.type, a.handle.name) == (  # TF 2.21
        "_UnreadVariable", "AssignVariableOp", "AssignVariableOp", "v:0")
    assert [(t.name, t.op.control_inputs[0].name) for t in (a.value(), tf.convert_to_tensor(a), a.read_value())] == [
        ("ReadVariableOp_1:0", "AssignVariableOp"), ("ReadVariableOp_2:0", "AssignVariableOp"),
        ("ReadVariableOp_3:0", "AssignVariableOp")]
    with tf.control_dependencies([a]):
        assert tf.constant(1.0).op.control_inputs == [a.op]
    assert v.assign([3.0, 4.0], read_value=False).node_def.attr["validate_shape"].b is True
    assert v.assign_add([1.0, 1.0], read_value=False).type == "AssignAddVariableOp"
    g = v.sparse_read([0, 1])
    assert (g.name, g.op.type, g.op.inputs[1].name, g.op.get_attr("batch_dims")) == (
        "Gather:0", "ResourceGather", "Gather/indices:0", 0)
    s = v.scatter_add(tf.IndexedSlices(tf.ones([1]), tf.constant([1])))
    assert s.op.type == "ResourceScatterAdd"
    with pytest.raises(ValueError, match=r"^Cannot assign value to variable ' v:0': Shape mismatch.The variable "
                                         r"shape \(2,\), and the assigned value shape \(3,\) are incompatible.$"):
        v.assign([1.0, 2.0, 3.0])


def test_partial_shapes_check_assigns_only_when_building():
    p = tf.placeholder(tf.float32, [None, 2])
    u = tf.Variable(p, name="u", use_resource=True, validate_shape=False)
    v = tf.Variable(tf.zeros([3, 2]), name="v", use_resource=True, validate_shape=False)
    assert (u.shape.as_list(), u.value().shape.as_list(), v.shape.as_list()) == ([None, 2], [None, 2], [3, 2])
    a = u.assign(tf.zeros([4, 2]))
    assert a.op.get_attr("validate_shape") is False
    with tf.Session() as sess:  # TF 2.21 lets the variable change shape
        sess.run(u.initializer, {p: [[1.0, 2.0]]})
        assert sess.run(a).shape == (4, 2)


def test_assign_add_and_sub_check_the_variables_shape_when_building():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    for update in (v.assign_add, v.assign_sub):
        with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 2 and 3\. "
                                             r"Shapes are \[2\] and \[3\]\. for '\{\{node Assign(Add|Sub)VariableOp"):
            update(tf.zeros([3]))
    assert v.assign_add(tf.placeholder(tf.float32)).op.type == "AssignAddVariableOp"


def test_missing_initial_value_is_tfs_error():
    with pytest.raises(ValueError, match=r"^The `initial_value` arg to `tf.Variable` must be specified except when "
                                         r"you are not providing a `variable_def`\. You provided neither\.$"):
        tf.Variable(None, use_resource=True)
    with pytest.raises(ValueError, match=r"^initial_value must be specified\.$"):
        tf.Variable(None, use_resource=False)


def test_in_place_operators_are_refused():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    with pytest.raises(RuntimeError, match=r"^`variable \+= value` with `tf.Variable`s is not supported\. Use "
                                           r"`variable.assign_add\(value\)`"):
        v += 1.0
    for op in ("-=", "*=", "/="):
        with pytest.raises(RuntimeError, match="is not supported"):
            exec(f"v {op} 2.0", {"v": v})
    r = tf.Variable([1.0, 2.0], name="r", use_resource=False)
    r += 1.0  # a ref variable rebinds to the sum, as in TF
    assert r.op.type == "AddV2"


def test_reads_are_snapshots_and_updates_apply():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    r = v.read_value()
    with tf.control_dependencies([r]):
        a = v.assign_add([10.0, 10.0])
    with tf.control_dependencies([a]):
        s = v.scatter_sub(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert [x.tolist() for x in sess.run([r, a])] == [[1.0, 2.0], [11.0, 12.0]]  # TF 2.21
        first = sess.run(r)
        assert sess.run(s).tolist() == [20.0, 22.0]
        assert first.tolist() == [11.0, 12.0]
        assert sess.run([v.is_initialized(), tf.raw_ops.VariableShape(input=v.handle)])[1].tolist() == [2]


def test_storage_copies_on_write_only_while_a_read_is_alive():
    var = resource_variable_ops.ResourceVar("v", tf.float32, [3])
    var.assign(np.zeros(3, np.float32), True, np)
    buffer = id(var.value)
    assert id(var.writable()) == buffer  # nobody else holds it: updated in place
    read = var.read()
    written = var.writable()
    written += 1
    assert id(written) != buffer and read.tolist() == [0.0, 0.0, 0.0] and not read.flags.writeable
    buffer = id(written)
    del read, written
    assert id(var.writable()) == buffer and var.read().tolist() == [1.0, 1.0, 1.0]


def test_uninitialized_read_is_tfs_error():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    with tf.Session() as sess:
        assert not sess.run(v.is_initialized())
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(v.value())
    assert runtime_message(info.value).startswith(
        "Could not find variable v. This could mean that the variable has been deleted. In TF1, it can also mean "
        "the variable is uninitialized. Debug info: container=localhost, status error message=Container localhost "
        "does not exist. (Could not find resource: localhost/v)")


def test_uninitialized_resource_errors_once_the_container_exists_are_tfs():
    w = tf.get_variable("w", [2], use_resource=True)
    r = tf.get_variable("r", [2], use_resource=False)
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.ones([2]), w)])
    missing = "Resource localhost/w/N10tensorflow3VarE does not exist."
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError, match="Container localhost does not exist. "
                           r"\(Could not find resource: localhost/w\)"):
            sess.run(tf.gather(w, [0]))
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value r"):
            sess.run(r)  # its VariableV2 ran: the container exists from now on (TF 2.21's messages)
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(w.read_value())
        assert f"status error message={missing}\n" in runtime_message(info.value)
        for op in (tf.gather(w, [0]), w.assign_add([1.0, 2.0]), tf.scatter_add(w, [0], [1.0])):
            with pytest.raises(tf.errors.NotFoundError) as info:
                sess.run(op)
            assert runtime_message(info.value).startswith(missing)
        with pytest.raises(tf.errors.InternalError, match=r"Invalid variable reference\.\n"):
            sess.run(train)


def test_gather_out_of_range_names_the_node():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    g = v.sparse_read([5])
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 2\)"):
            sess.run(g)


def test_slices_scatters_count_up_to_and_initialized_value():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0], use_resource=True, name="v")
    a = v[1:3].assign([9.0, 9.0])
    s = v.scatter_max(tf.IndexedSlices(tf.constant([5.0, 0.0]), tf.constant([0, 3])))
    u = tf.scatter_update(v, [2], [7.0])
    c = tf.Variable(0, use_resource=True, name="c")
    up = c.count_up_to(2)
    with pytest.raises(NotImplementedError):  # TF 2.21: only ref variables (VariableV1) have it
        v.initialized_value()
    init = v.read_value()
    with tf.Session() as sess:
        sess.run([v.initializer, c.initializer])
        assert sess.run(a).tolist() == [1.0, 9.0, 9.0, 4.0]
        assert sess.run(s).tolist() == [5.0, 9.0, 9.0, 4.0]
        assert sess.run(u).tolist() == [5.0, 9.0, 7.0, 4.0]
        assert sess.run(init).tolist() == [5.0, 9.0, 7.0, 4.0]
        assert [sess.run(up), sess.run(up)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(up)


def test_gather_and_embedding_lookup_read_rows_through_the_handle():
    emb = tf.Variable(tf.zeros([5, 2]), name="emb", use_resource=True)
    e = tf.nn.embedding_lookup(emb, [0, 2])
    g = tf.gather(emb, [1])
    assert (e.name, e.op.inputs[0].op.type, g.name, g.op.type) == (  # TF 2.21
        "embedding_lookup/Identity:0", "ResourceGather", "Gather:0", "ResourceGather")


def test_loops_conds_moving_averages_and_initialization_reports():
    v = tf.Variable(0.0, name="v", use_resource=True)
    w = tf.Variable([1.0, 2.0], name="w", use_resource=True)

    def body(i):
        with tf.control_dependencies([v.assign_add(1.0, read_value=False)]):
            return i + 1

    loop = tf.while_loop(lambda i: i < 5, body, [tf.constant(0)])
    c = tf.cond(tf.constant(True), lambda: w.read_value() * 2, lambda: w.read_value())
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema_op = ema.apply([w])
    report = tf.report_uninitialized_variables()
    with tf.Session() as sess:  # TF 2.21's values
        assert sess.run(report).tolist() == [b"v", b"w", b"w/ExponentialMovingAverage"]
        sess.run(tf.global_variables_initializer())
        assert sess.run(report).tolist() == [] and sess.run(tf.is_variable_initialized(v))
        sess.run(loop)
        assert sess.run(v) == 5.0 and sess.run(c).tolist() == [2.0, 4.0]
        sess.run(w.assign([3.0, 4.0]))
        sess.run(ema_op)
        assert sess.run(ema.average(w)).tolist() == [2.0, 3.0]
    assert type(ema.average(w)).__name__ == "ResourceVariable"


def test_gradients_reach_the_handle():
    v = tf.Variable(1.0, name="v", use_resource=True)
    w = tf.Variable(tf.zeros([3, 2]), name="w", use_resource=True)
    dv, = tf.gradients(v * 2.0, [v])
    dw, = tf.gradients(tf.reduce_sum(w.sparse_read([0, 2, 0])), [w])
    assert dv.op.name == "gradients/mul_grad/Mul"  # TF 2.21: ReadVariableOp passes its gradient on
    assert isinstance(dw, tf.IndexedSlices)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(dv) == 2.0
        values, indices, shape = sess.run([dw.values, dw.indices, dw.dense_shape])
    assert (values.tolist(), indices.tolist(), shape.tolist()) == ([[1.0, 1.0]] * 3, [0, 2, 0], [3, 2])


def test_get_variable_scopes_and_the_global_switch():
    a = tf.get_variable("a", [2], use_resource=True)
    with tf.variable_scope("s", use_resource=True):
        b = tf.get_variable("b", [2])
        e = tf.Variable(1.0)  # tf.Variable follows the scope too, as TF's variable creator
        with tf.variable_scope("t", use_resource=False):
            f = tf.Variable(1.0)
    c = tf.get_variable("c", [2])
    assert [type(x).__name__ for x in (a, b, c, e, f)] == ["ResourceVariable", "ResourceVariable", "RefVariable",
                                                           "ResourceVariable", "RefVariable"]
    assert tf.resource_variables_enabled() is False
    tf.enable_resource_variables()
    try:
        assert tf.resource_variables_enabled() is True
        assert type(tf.Variable(1.0)).__name__ == "ResourceVariable"
        assert type(tf.get_variable("d", [1], use_resource=False)).__name__ == "RefVariable"
    finally:
        tf.disable_resource_variables()
    assert type(tf.Variable(1.0)).__name__ == "RefVariable"


# Three steps of each optimizer on a dense and an embedding (sparse) variable: TF 2.21's values, the same for
# ref and resource variables.
TF_TRAINED = {
    "GD": ([0.30250170826911926, 0.04487864673137665, 0.5872556567192078],
           [-0.09272000193595886, 0.007279995828866959, 0.2, 0.3, 0.21456000208854675, 0.3145599961280823]),
    "Momentum": ([0.4924153685569763, 0.2737727463245392, 0.8551301956176758],
                 [-0.1782199889421463, -0.07821999490261078, 0.2, 0.3, 0.04356001317501068, 0.143559992313385]),
    "Adam": ([0.3929804861545563, 0.0934617891907692, 0.5937935709953308],
             [-0.28814539313316345, -0.18814539909362793, 0.2, 0.3, 0.11185447871685028, 0.2118544727563858]),
    "Adagrad": ([0.29568222165107727, -0.000577189028263092, 0.5018616318702698],
                [-0.1605304777622223, -0.060530465096235275, 0.2, 0.3, 0.2127963900566101, 0.31279638409614563]),
    "RMSProp": ([0.31033775210380554, 0.048365287482738495, 0.5836199522018433],
                [-0.10021379590034485, -0.00021379254758358002, 0.2, 0.3, 0.20646774768829346, 0.306467741727829]),
}
TF_APPLY_OPS = {"GD": ["ResourceApplyGradientDescent"],
                "Momentum": ["ResourceApplyMomentum", "ResourceSparseApplyMomentum"], "Adam": ["ResourceApplyAdam"], "Adagrad": ["ResourceApplyAdagrad", "ResourceSparseApplyAdagrad"],
                "RMSProp": ["ResourceApplyRMSProp", "ResourceSparseApplyRMSProp"]}


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("name", sorted(TF_TRAINED))
def test_optimizers_train_resource_variables_as_tf(name, use_resource):
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    y = tf.constant([[1.0], [0.0], [2.0], [1.0]])
    w = tf.get_variable("w", initializer=tf.constant([[0.1], [-0.2], [0.3]]), use_resource=use_resource)
    emb = tf.get_variable("emb", initializer=tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2) / 10),
                          use_resource=use_resource)
    e = tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 2, 2]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y)) + e * e * 0.1
    opt = {"GD": tf.train.GradientDescentOptimizer(0.1), "Momentum": tf.train.MomentumOptimizer(0.1, 0.9),
           "Adam": tf.train.AdamOptimizer(0.1), "Adagrad": tf.train.AdagradOptimizer(0.1),
           "RMSProp": tf.train.RMSPropOptimizer(0.1)}[name]
    train = opt.minimize(loss)
    if use_resource:
        assert sorted(op for _, op, _ in _nodes() if "Apply" in op) == TF_APPLY_OPS[name]
        assert {type(opt.get_slot(w, s)).__name__ for s in opt.get_slot_names()} <= {"ResourceVariable"}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        w_value, emb_value = sess.run([w, emb])
    want_w, want_emb = TF_TRAINED[name]
    np.testing.assert_allclose(w_value.ravel(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(emb_value.ravel()[:6], want_emb, rtol=1e-5, atol=1e-6)


# The other optimizers on resource variables: their Resource* ops and three steps' values, from TF 2.21.
TF_TRAINED_MORE = {
    'Adadelta': (['ResourceApplyAdadelta', 'ResourceSparseApplyAdadelta'],
        [0.101356082, -0.198643893, 0.301356167],
        [-0.0013558385, 0.0986441597, 0.200000003, 0.300000012, 0.398644149, 0.498644143]),
    'Ftrl': (['ResourceApplyFtrl', 'ResourceSparseApplyFtrl'],
        [0.264890075, 0.0596110672, 0.430214375],
        [-0.116827957, -0.0807939693, 0.200000003, 0.300000012, 0.103144363, 0.164728254]),
    'FtrlV2': (['ResourceApplyFtrlV2', 'ResourceSparseApplyFtrlV2'],
        [0.258269817, 0.0644677579, 0.418667644],
        [-0.108629577, -0.0790972188, 0.200000003, 0.300000012, 0.0926068351, 0.149048761]),
    'ProximalGD': (['ResourceApplyProximalGradientDescent', 'ResourceSparseApplyProximalGradientDescent'],
        [0.299699575, 0.0461067446, 0.584513962],
        [-0.0894959942, 0.00450400449, 0.200000003, 0.300000012, 0.212008014, 0.312008023]),
    'ProximalAdagrad': (['ResourceApplyProximalAdagrad', 'ResourceSparseApplyProximalAdagrad'],
        [0.295081943, -0.000401853875, 0.501032591],
        [-0.159787074, -0.0603297427, 0.200000003, 0.300000012, 0.212077886, 0.311763138]),
    'AdagradDA': (['ResourceApplyAdagradDA', 'ResourceSparseApplyAdagradDA'],
        [0.168760464, 0.169999301, 0.170762345],
        [-0.0395007469, -0.0395007469, 0.200000003, 0.300000012, -0.0468000025, -0.0468000025]),
    'CenteredRMSProp': (['ResourceApplyCenteredRMSProp', 'ResourceSparseApplyCenteredRMSProp'],
        [0.311938882, 0.0512926579, 0.588212907],
        [-0.100351259, -0.000351259485, 0.200000003, 0.300000012, 0.204963684, 0.304963678]),
}


@pytest.mark.parametrize("name", sorted(TF_TRAINED_MORE))
def test_more_optimizers_use_their_resource_ops(name):
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    y = tf.constant([[1.0], [0.0], [2.0], [1.0]])
    w = tf.get_variable("w", initializer=tf.constant([[0.1], [-0.2], [0.3]]), use_resource=True)
    emb = tf.get_variable("emb", initializer=tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2) / 10),
                          use_resource=True)
    e = tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 2, 2]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y)) + e * e * 0.1
    step = tf.train.get_or_create_global_step()
    opt = {"Adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
           "Ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
           "FtrlV2": lambda: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
           "ProximalGD": lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01),
           "ProximalAdagrad": lambda: tf.train.ProximalAdagradOptimizer(0.1, l2_regularization_strength=0.01),
           "AdagradDA": lambda: tf.train.AdagradDAOptimizer(0.1, step),
           "CenteredRMSProp": lambda: tf.train.RMSPropOptimizer(0.1, centered=True)}[name]()
    train = opt.minimize(loss, global_step=step)
    want_ops, want_w, want_emb = TF_TRAINED_MORE[name]
    assert sorted(op for _, op, _ in _nodes() if "Apply" in op) == want_ops
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        w_value, emb_value = sess.run([w, emb])
    np.testing.assert_allclose(w_value.ravel(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(emb_value.ravel()[:6], want_emb, rtol=1e-5, atol=1e-6)


def test_checkpoints_move_between_ref_and_resource_variables(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        ref_path = tf.train.Saver().save(sess, str(tmp_path / "ref"))
    with tf.Graph().as_default():
        v = tf.Variable([0.0, 0.0], name="v", use_resource=True)
        saver = tf.train.Saver()
        assert [node for node in _nodes() if node[0].startswith("save/")] == [  # TF 2.21's save graph
            ("save/filename/input", "Const", []), ("save/filename", "PlaceholderWithDefault", ["save/filename/input"]),
            ("save/Const", "PlaceholderWithDefault", ["save/filename"]), ("save/SaveV2/tensor_names", "Const", []),
            ("save/SaveV2/shape_and_slices", "Const", []),
            ("save/SaveV2", "SaveV2", ["save/Const", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices",
                                       "v/Read/ReadVariableOp"]),
            ("save/control_dependency", "Identity", ["save/Const", "^save/SaveV2"]),
            ("save/RestoreV2/tensor_names", "Const", []), ("save/RestoreV2/shape_and_slices", "Const", []),
            ("save/RestoreV2", "RestoreV2", ["save/Const", "save/RestoreV2/tensor_names",
                                             "save/RestoreV2/shape_and_slices"]),
            ("save/Identity", "Identity", ["save/RestoreV2"]),
            ("save/AssignVariableOp", "AssignVariableOp", ["v", "save/Identity"]),
            ("save/restore_all", "NoOp", ["^save/AssignVariableOp"])]
        with tf.Session() as sess:
            saver.restore(sess, ref_path)
            assert sess.run(v).tolist() == [1.0, 2.0]
            sess.run(v.assign([5.0, 6.0]))
            resource_path = saver.save(sess, str(tmp_path / "resource"))
    with tf.Graph().as_default():
        v = tf.Variable([0.0, 0.0], name="v")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, resource_path)
            assert sess.run(v).tolist() == [5.0, 6.0]
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(resource_path + ".meta")
        v, = tf.global_variables()
        assert (type(v).__name__, v.name, v.value().op.type) == ("ResourceVariable", "v:0", "ReadVariableOp")
        with tf.Session() as sess:
            saver.restore(sess, resource_path)
            assert sess.run(v).tolist() == [5.0, 6.0]


def test_reads_and_updates_run_beside_the_variable_whatever_their_device_scope():
    with tf.device("/cpu:1"):
        v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    with tf.device("/cpu:0"):
        y = v * 3.0
        g = v.sparse_read([1])
        train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(y) + tf.reduce_sum(g))
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:  # TF 2.21's values and placement
        sess.run(v.initializer)
        assert [x.tolist() for x in sess.run([y, g])] == [[3.0, 6.0], [2.0]]
        sess.run(train)
        assert sess.run(v).tolist() == [-0.5, 0.0]
        metadata = tf.RunMetadata()
        sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    devices = {n.node_name: d.device for d in metadata.step_stats.dev_stats for n in d.node_stats}
    assert devices["ReadVariableOp"].endswith("CPU:1") and devices["mul"].endswith("CPU:0")


def test_init_from_checkpoint_assigns_a_resource_variable(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = tf.train.Saver().save(sess, str(tmp_path / "ref"))
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2], use_resource=True)
        tf.train.init_from_checkpoint(path, {"v": "w"})
        assert (w.initializer.type, w.initializer.name) == ("AssignVariableOp", "AssignVariableOp")  # TF 2.21
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(w).tolist() == [1.0, 2.0]


def test_scatter_nd_updates_of_a_resource_variable_as_tf():
    """tf.scatter_nd_* and the methods build ResourceScatterNd ops and give the variable after the update
    (values recorded from TF 2.21)."""
    v = tf.Variable(tf.zeros([4, 2]), name="v", use_resource=True)
    u = tf.scatter_nd_update(v, [[1], [3]], [[1.0, 2.0], [3.0, 4.0]])
    a = tf.scatter_nd_add(v, [[0, 1]], [5.0])
    s = tf.scatter_nd_sub(v, [[2, 0]], [1.0])
    m, n = v.scatter_nd_max([[0, 0]], [7.0]), v.scatter_nd_min([[0, 0]], [-7.0])
    assert [t.op.type for t in (u, a, s, m, n)] == ["ResourceScatterNdUpdate", "ResourceScatterNdAdd",
                                                    "ResourceScatterNdSub", "ResourceScatterNdMax",
                                                    "ResourceScatterNdMin"]
    with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[4,2\]\] = \[2\] must match"):
        tf.scatter_nd_update(v, [[1]], [[1.0, 2.0, 3.0]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(u), [[0, 0], [1, 2], [0, 0], [3, 4]])
        np.testing.assert_array_equal(sess.run(a), [[0, 5], [1, 2], [0, 0], [3, 4]])
        np.testing.assert_array_equal(sess.run(s), [[0, 5], [1, 2], [-1, 0], [3, 4]])
        np.testing.assert_array_equal(sess.run(m)[0], [7, 5])
        np.testing.assert_array_equal(sess.run(n)[0], [-7, 5])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = \[7\] does not index into shape"):
            sess.run(tf.scatter_nd_update(v, [[7]], [[1.0, 1.0]]))


def test_cast_of_a_resource_variable_to_its_dtype_is_the_variable():
    """TF's cast returns a resource variable of the asked dtype itself (no Cast scope used); a ref variable's
    read and other dtypes still cast (recorded from TF 2.21: `Cast_1:0` after the first no-op cast)."""
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], use_resource=True, name="v")
        assert tf.cast(v, tf.float32) is v
        r = tf.Variable([1.0, 2.0], name="r")
        assert tf.cast(r, tf.float32).name == "r/read:0"
        assert tf.cast(v, tf.float64).name == "Cast_1:0"


def test_gather_nd_of_a_resource_variable_is_resource_gather_nd_with_tfs_gradients():
    w = tf.get_variable("w", initializer=np.arange(12.0).reshape(3, 4).astype(np.float32), use_resource=True)
    y = tf.gather_nd(w, [[0, 1], [2, 3]])
    z = tf.gather_nd(w, [[1], [0]], name="g2")
    assert (y.op.type, y.op.inputs[0].name, z.op.inputs[0].name) == ("Identity", "GatherNd:0", "g2:0")
    assert (y.op.inputs[0].op.type, [t.name for t in y.op.inputs[0].op.inputs]) == (
        "ResourceGatherNd", ["w:0", "GatherNd/indices:0"])
    assert (y.shape.as_list(), z.shape.as_list()) == ([2], [2, 4])
    dw, = tf.gradients(tf.reduce_sum(y * 2.0) + tf.reduce_sum(z), w)
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["gradients/g2_grad/VariableShape"] == ops["gradients/GatherNd_grad/VariableShape"] == "VariableShape"
    assert ops["gradients/AddN/inputs_0"] == "UnsortedSegmentSum"  # TF densifies the slices as AddN's input
    with pytest.raises(ValueError, match=r"indices.shape\[-1\] must be <= params.rank"):
        tf.gather_nd(w, [[0, 0, 0]])
    bad = tf.gather_nd(w, [[5, 0]])
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(y).tolist() == [1.0, 11.0]
        assert sess.run(dw).tolist() == [[1, 3, 1, 1], [1, 1, 1, 1], [0, 0, 0, 2]]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[0\] = \[5, 0\] does not index into param shape \[3,4\], node name: GatherNd_2"):
            sess.run(bad)
