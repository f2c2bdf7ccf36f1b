"""tf.train optimizers against real TF 1 (literals recorded from TF 2.21's compat.v1): five minimize steps on a
fixed problem with dense gradients and with a tf.gather's IndexedSlices (a repeated row), the names of slots,
non-slot variables and update ops, the global step, and the learning-rate schedules."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops import training_ops

OPTIMIZERS = {
    "gd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.1),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1),
    "rmsprop_centered": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
    "proximal_gd": lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01,
                                                                     l2_regularization_strength=0.02),
    "proximal_adagrad": lambda: tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01,
                                                                  l2_regularization_strength=0.02),
}

# After 5 steps: (dense: [v0, v1 flattened], sparse: v0 flattened), from real TF.
AFTER_5_STEPS = {
    "gd": ([[0.32768, -0.15552], [4.583225, 0.17269]], [-0.357343, -0.242712, 0.5, 0.25, 1.088405, -0.2849, 0.547564, -0.028944]),
    "momentum": ([[-0.58042, 1.458], [6.03589, -0.268896]], [-1.222975, -0.899884, 0.5, 0.25, -1.673051, 0.316489, -1.442146, -1.656317]),
    "nesterov": ([[-0.415718, 0.330272], [5.255509, -0.201849]], [-0.535338, -0.288999, 0.5, 0.25, -1.531287, -0.147951, -1.274525, -0.53528]),
    "adam": ([[0.507965, -1.502957], [3.501842, 0.025152]], [0.502925, -1.503678, 0.5, 0.25, 2.501825, -0.513519, 1.501511, 1.502233]),
    "adagrad": ([[0.69977, -1.686896], [3.334605, 0.226812]], [0.686782, -1.688648, 0.5, 0.25, 2.683969, -0.707389, 1.6832, 1.684888]),
    "rmsprop": ([[0.399095, -1.080717], [3.934157, 0.158692]], [0.132239, -1.08116, 0.5, 0.25, 2.078824, -0.376509, 1.130154, 1.059242]),
    "rmsprop_centered": ([[0.061275, -0.403719], [4.655058, -0.003082]], [-0.433316, -0.439541, 0.5, 0.25, 1.326009, -0.123446, 0.453579, 0.330697]),
    "proximal_gd": ([[0.321078, -0.151678], [4.551691, 0.167489]], [-0.354905, -0.240964, 0.5, 0.25, 1.070984, -0.281289, 0.535794, -0.030536]),
    "proximal_adagrad": ([[0.695612, -1.685035], [3.326375, 0.221628]], [0.685129, -1.687764, 0.5, 0.25, 2.679698, -0.704995, 1.679048, 1.682923]),
}

# The optimizer's variables() and its update ops, as TF names them (dense problem).
NAMES = {
    "momentum": (["Variable/Momentum:0", "Variable_1/Momentum:0"], ["Momentum/update_Variable/ApplyMomentum"]),
    "adam": (["Variable/Adam:0", "Variable/Adam_1:0", "Variable_1/Adam:0", "Variable_1/Adam_1:0", "beta1_power:0",
              "beta2_power:0"], ["Adam/update_Variable/ApplyAdam", "Adam/Assign", "Adam/Assign_1"]),
    "rmsprop_centered": (["Variable/RMSProp:0", "Variable/RMSProp_1:0", "Variable/RMSProp_2:0", "Variable_1/RMSProp:0",
                          "Variable_1/RMSProp_1:0", "Variable_1/RMSProp_2:0"],
                         ["RMSProp/update_Variable/ApplyCenteredRMSProp"]),
}


def _train(key, sparse):
    global_step = tf.train.get_or_create_global_step()
    optimizer = OPTIMIZERS[key]()
    if sparse:
        v0 = tf.Variable([[1.0, -2.0], [0.5, 0.25], [3.0, -1.0], [2.0, 2.0]])
        rows = tf.gather(v0, [0, 2, 0, 3])
        loss = tf.reduce_sum(rows * rows * tf.constant([1.0, 2.0])) + tf.reduce_sum(tf.sin(rows))
        trained = [v0]
    else:
        v0, v1 = tf.Variable([1.0, -2.0]), tf.Variable([[3.0], [0.5]])
        loss = tf.reduce_sum(v0 * v0 * tf.constant([1.0, 2.0])) + tf.reduce_sum(tf.sin(v1) * v1)
        trained = [v0, v1]
    train = optimizer.minimize(loss, global_step=global_step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
        return optimizer, train, [sess.run(v).reshape(-1) for v in trained], sess.run(global_step)


@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_five_steps_match_tf(key, sparse):
    _, train, values, step = _train(key, sparse)
    dense, rows = AFTER_5_STEPS[key]
    for value, expected in zip(values, [rows] if sparse else dense):
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
    assert step == 5
    assert train.type == "AssignAdd" and tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]


@pytest.mark.parametrize("key", sorted(NAMES))
def test_slot_and_op_names_are_tfs(key):
    optimizer, train, _, _ = _train(key, sparse=False)
    variables, ops = NAMES[key]
    assert [v.name for v in optimizer.variables()] == variables
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert set(ops) <= names
    assert train.name == optimizer.get_name()
    for v in optimizer.variables():
        assert v not in tf.trainable_variables()


def test_slots_and_sparse_update_ops():
    optimizer, _, _, _ = _train("adam", sparse=True)
    var = tf.trainable_variables()[0]
    assert optimizer.get_slot_names() == ["m", "v"]
    assert optimizer.get_slot(var, "m").name == "Variable/Adam:0"
    assert optimizer.get_slot(var, "v").name == "Variable/Adam_1:0"
    assert optimizer.get_slot(var, "nope") is None
    names = [op.name for op in tf.get_default_graph().get_operations() if op.type in ("ScatterAdd", "AssignSub")]
    assert names == ["Adam/update_Variable/ScatterAdd", "Adam/update_Variable/ScatterAdd_1",
                     "Adam/update_Variable/AssignSub"]


def test_gradient_descent_sparse_uses_scatter_sub():
    _train("gd", sparse=True)
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert "ScatterSub" in types and "Unique" not in types


def test_compute_and_apply_gradients():
    x = tf.Variable([1.0, 2.0])
    unused = tf.Variable(3.0)
    loss = tf.reduce_sum(x * x)
    optimizer = tf.train.GradientDescentOptimizer(0.25)
    grads_and_vars = optimizer.compute_gradients(loss, grad_loss=tf.constant(2.0))
    assert [v for _, v in grads_and_vars] == [x, unused] and grads_and_vars[1][0] is None
    train = optimizer.apply_gradients(grads_and_vars, name="step")
    assert train.name == "step"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(x), [0.0, 0.0])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.minimize(tf.constant(1.0) * 2.0, var_list=[x])
    with pytest.raises(ValueError, match="No variables provided."):
        optimizer.apply_gradients([])
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        optimizer.compute_gradients(loss, gate_gradients=7)
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.Optimizer(False, "")
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive: 0.0"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match=r"^Invalid type tf.int32 for Const(_\d+)?:0, expected: \[tf.float32, "
                                         r"tf.float64, tf.float16, tf.bfloat16\].$"):  # TF's set order
        optimizer.compute_gradients(tf.constant(1))
    with pytest.raises(TypeError, match=r"^names_to_saveables must be a dict mapping string names to "
                                        r"Tensors/Variables. Not a variable: Tensor\(\"Const(_\d+)?:0\", shape=\(\), "):
        tf.train.Saver({"a": 1})


def test_global_step():
    assert tf.train.get_global_step() is None
    step = tf.train.get_or_create_global_step()
    assert step.name == "global_step:0" and step.dtype.base_dtype == tf.int64 and not step.trainable
    assert tf.train.get_or_create_global_step() is step and tf.train.get_global_step() is step
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [step]
    with pytest.raises(ValueError, match='"global_step" already exists.'):
        tf.train.create_global_step()
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match='Existing "global_step" does not have integer type'):
            tf.train.assert_global_step(tf.constant(1.0))


def test_learning_rate_schedules():
    step = tf.placeholder(tf.int64, [])
    schedules = [
        tf.train.exponential_decay(0.1, step, 10, 0.5),
        tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True),
        tf.train.natural_exp_decay(0.1, step, 10, 0.5),
        tf.train.inverse_time_decay(0.1, step, 10, 0.5, staircase=True),
        tf.train.polynomial_decay(0.1, step, 20, 0.01, power=2.0),
        tf.train.polynomial_decay(0.1, step, 10, 0.01, cycle=True),
        tf.train.cosine_decay(0.1, step, 20, alpha=0.1),
        tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1]),
    ]
    assert schedules[0].name == "ExponentialDecay:0"
    with tf.Session() as sess:
        for s, want in [(0, [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0]),
                        (15, [0.035355, 0.05, 0.047237, 0.066667, 0.015625, 0.0325, 0.02318, 0.1]),
                        (30, [0.0125, 0.0125, 0.022313, 0.04, 0.01, 0.01, 0.01, 0.1])]:
            np.testing.assert_allclose(sess.run(schedules, {step: s}), want, rtol=1e-5)
        assert sess.run(schedules[-1], {step: 5}) == 1.0 and sess.run(schedules[-1], {step: 6}) == 0.5
    with pytest.raises(ValueError, match="^None values not supported.$"):  # TF 2.21: casting the None step
        tf.train.exponential_decay(0.1, None, 10, 0.5)
    with pytest.raises(ValueError, match="The length of boundaries should be 1 less than the length of values"):
        tf.train.piecewise_constant(step, [5], [1.0])


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_on_a_variable_of_several_blocks_gives_the_formulas_values(nesterov):
    """ApplyAdam writes a large variable a block at a time on the intra-op threads: the same values as the
    whole-array formula."""
    rng = np.random.default_rng(3)
    size = 2 * training_ops._BLOCK + 5
    var0, m0, v0, grad = (rng.standard_normal(size).astype(np.float32) for _ in range(4))
    v0 = np.abs(v0)
    hyper = [np.float32(h) for h in (0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-8)]
    var, m, v = tf.Variable(var0), tf.Variable(m0), tf.Variable(v0)
    update = tf.raw_ops.ApplyAdam(var=var, m=m, v=v, beta1_power=hyper[0], beta2_power=hyper[1], lr=hyper[2],
                                  beta1=hyper[3], beta2=hyper[4], epsilon=hyper[5], grad=grad, use_nesterov=nesterov)
    with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=2)) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update)
        got = sess.run([var, m, v])
    for a, b in zip(got, training_ops._adam(var0, m0, v0, *hyper, grad, use_nesterov=nesterov)):
        np.testing.assert_array_equal(a, b)


def test_a_var_list_entry_without_an_op_fails_before_any_gradient_as_tfs_get_processor():
    with tf.Graph().as_default() as g:
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            e = tf.get_variable("emb", shape=[6, 2])
        loss = tf.reduce_sum(e.as_tensor())
        opt = tf.train.GradientDescentOptimizer(0.1)
        for var_list in (e, ["w"]):
            name = type(var_list if var_list is e else "w").__name__
            with pytest.raises(AttributeError, match=f"^'{name}' object has no attribute 'op'$"):
                opt.minimize(loss, var_list=var_list)
        assert not [op for op in g.get_operations() if op.name.startswith("gradients")]
        assert opt.minimize(loss, var_list=list(e)).type == "NoOp"


def test_gate_graph_keeps_a_sparse_gradient_sparse_so_untouched_rows_and_slots_stay():
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", initializer=np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
        loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, [0, 2, 2])))
        opt = tf.train.RMSPropOptimizer(0.1)
        grads = opt.compute_gradients(loss, gate_gradients=tf.train.Optimizer.GATE_GRAPH,
                                      aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE,
                                      colocate_gradients_with_ops=True)
        assert type(grads[0][0]).__name__ == "IndexedSlices"
        assert grads[0][0].values.name == "tuple/control_dependency:0"
        train = opt.apply_gradients(grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            ms, var = sess.run([opt.get_slot(emb, "rms"), emb])
    np.testing.assert_allclose(ms, [[0.729, 0.735997, 0.757078], [1, 1, 1], [1.549522, 1.890337, 2.304028], [1, 1, 1]],
                               rtol=1e-5)
    np.testing.assert_allclose(var, [[0, 0.047149, 0.095164], [0.3, 0.4, 0.5], [0.186421, 0.243473, 0.307474],
                                     [0.9, 1, 1.1]], rtol=1e-5, atol=1e-6)
