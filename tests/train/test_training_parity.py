"""Training-stack details found by side-by-side fuzzing against real TF 2.21 (literals recorded from it): what
apply_gradients does with targets that are not variables, which shapes the Resource* training ops check at
graph-build time (TF2 graph mode, resource variables), and the graph of Adam's sparse step on a resource
variable."""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_apply_gradients_to_a_tensor_fails_inside_its_update_scope():
    a = tf.Variable(1.0, name="a")
    t = tf.constant(2.0, name="t")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(NotImplementedError) as info:
        opt.apply_gradients([(tf.constant(1.0), a), (tf.constant(1.0), t)])
    # TF's _TensorProcessor raises with two args, after the optimizer's name scope was taken
    assert info.value.args[0] == "Trying to update a Tensor " and info.value.args[1] is t
    assert opt.apply_gradients([(tf.constant(1.0), a)]).name == "GradientDescent_1"
    with pytest.raises(AttributeError, match="^'str' object has no attribute 'op'$"):
        opt.apply_gradients([(tf.constant(1.0), "x")])


def _v2_variable():
    tf.disable_eager_execution()  # TF2 graph mode: get_variable makes resource variables
    v = tf.get_variable("v", [3, 2], initializer=tf.ones_initializer())
    assert v.op.type == "VarHandleOp"
    return v


def test_resource_training_ops_check_the_shapes_behind_the_handles():
    v = _v2_variable()
    message = ("Shapes must be equal rank, but are 2 and 1 for '{{node GradientDescent/update_v/"
               "ResourceApplyGradientDescent}} = ResourceApplyGradientDescent[T=DT_FLOAT, use_locking=false](v, "
               "GradientDescent/learning_rate, ones)' with input shapes: [], [], [3].")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.ones([3]), v)])
    # most Resource* shape functions read the gradient as a handle, find no shape there and check nothing
    assert tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(tf.ones([3]), v)]).name == "Momentum"
    sparse = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1]))
    assert tf.train.AdagradOptimizer(0.1).apply_gradients([(sparse, v)]).name == "Adagrad"
    with pytest.raises(ValueError, match=re.escape(
            "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3,2] and [2,3]. for "
            "'{{node ProximalAdagrad/update_v/ResourceApplyProximalAdagrad}}")):
        tf.train.ProximalAdagradOptimizer(0.1).apply_gradients([(tf.ones([2, 3]), v)])
    message = ("Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [2,3] and [2,2]. for "
               "'{{node GradientDescent_1/update_v/ResourceScatterAdd}} = ResourceScatterAdd[Tindices=DT_INT32, "
               "dtype=DT_FLOAT](v, Const_2, GradientDescent_1/update_v/mul)' with input shapes: [], [2], [2,3].")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients(
            [(tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1])), v)])
    # the slots' shapes are checked against the variable's
    accum = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2, 3], shared_name="acc")
    with pytest.raises(ValueError, match=re.escape(
            "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3,2] and [2,3]. for "
            "'{{node ResourceApplyMomentum}}")):
        tf.raw_ops.ResourceApplyMomentum(var=v.handle, accum=accum, lr=0.1, grad=tf.ones([3, 2]), momentum=0.9)


def test_gradient_descent_casts_the_rate_to_the_gradients_dtype_for_a_resource_variable():
    v = _v2_variable()
    with pytest.raises(TypeError, match="^Value passed to parameter 'alpha' has DataType string not in list of "
                                        "allowed values: float32, float64, int32"):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.constant("x"), v)])


def test_adam_sparse_step_on_a_resource_variable_reads_each_moment_after_its_scatter_add():
    w = _v2_variable()
    tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.gather(w, [0, 2, 2])))
    graph = tf.get_default_graph()

    def inputs(name):
        return [t.name for t in graph.get_operation_by_name(name).inputs]

    def controls(name):
        return [op.name for op in graph.get_operation_by_name(name).control_inputs]

    assert inputs("Adam/update_v/mul_6") == ["Adam/update_v/truediv:0", "Adam/update_v/ReadVariableOp_4:0"]
    assert inputs("Adam/update_v/Sqrt_1") == ["Adam/update_v/ReadVariableOp_7:0"]
    assert controls("Adam/update_v/group_deps") == [
        "Adam/update_v/AssignSubVariableOp", "Adam/update_v/ReadVariableOp_4", "Adam/update_v/ReadVariableOp_7"]
    assert controls("Adam/update_v/ReadVariableOp_4") == ["Adam/update_v/AssignVariableOp",
                                                          "Adam/update_v/ResourceScatterAdd"]


def test_a_user_optimizer_subclass_uses_tfs_protected_hooks():
    class SignSGD(tf.train.Optimizer):
        def __init__(self, lr):
            super().__init__(False, "SignSGD")
            self._lr = lr

        def _create_slots(self, var_list):
            for v in var_list:
                self._zeros_slot(v, "m", self._name)
            self._create_non_slot_variable(initial_value=0.0, name="counter", colocate_with=var_list[0])

        def _apply_dense(self, grad, var):
            m = self.get_slot(var, "m")
            return tf.assign_sub(var, self._lr * tf.sign(tf.assign(m, 0.9 * m + grad)))

        def _resource_apply_dense(self, grad, var):
            return self._apply_dense(grad, var)

        def _finish(self, update_ops, name_scope):
            with tf.control_dependencies(update_ops):
                inc = tf.assign_add(self._get_non_slot_variable("counter", tf.get_default_graph()), 1.0)
            return tf.group(*(update_ops + [inc]), name=name_scope)

    v = tf.Variable([1.0, -2.0, 0.5], name="v")
    r = tf.get_variable("r", [2], initializer=tf.ones_initializer(), use_resource=True)
    opt = SignSGD(0.1)
    step = opt.minimize(tf.reduce_sum(v * v) + tf.reduce_sum(r * r * r), name="step")
    assert step.name == "step"
    assert sorted(x.op.name for x in tf.global_variables()) == ["counter", "r", "r/SignSGD", "v", "v/SignSGD"]
    assert [x.op.name for x in opt.variables()] == ["counter", "r/SignSGD", "v/SignSGD"]
    assert [x.op.name for x in opt._non_slot_variables()] == ["counter"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(step)
        np.testing.assert_allclose(sess.run(v), [0.7, -1.7, 0.2], rtol=1e-6)
        np.testing.assert_allclose(sess.run(r), [0.7, 0.7], rtol=1e-6)
        assert sess.run(opt._get_non_slot_variable("counter")) == 3.0


def test_a_callable_loss_is_differentiated_through_a_gradient_tape_in_graph_mode():
    a = tf.get_variable("a", [2], initializer=tf.constant_initializer([1.0, 2.0]), use_resource=True)
    b = tf.get_variable("b", [], initializer=tf.constant_initializer(3.0), use_resource=True)
    r = tf.Variable(1.0, name="r")
    pre = tf.reduce_sum(a * b)
    opt = tf.train.GradientDescentOptimizer(0.1)
    assert opt.compute_gradients(lambda: pre) == []  # built before the tape: no variable read under it
    # without a var_list: the resource variables read during the call (never the ref variable r)
    assert [v.name for _, v in opt.compute_gradients(lambda: tf.reduce_sum(a * b * 2.0) * r)] == ["a:0", "b:0"]
    gv = opt.compute_gradients(lambda: tf.reduce_sum(tf.gather(a, [0, 0])) * b, var_list=[a, b],
                               grad_loss=tf.constant(2.0))
    assert [type(g).__name__ for g, _ in gv] == ["IndexedSlices", "SymbolicTensor"]
    step = opt.minimize(lambda: tf.reduce_sum(a * a) + b * b, var_list=[a, b])
    assert step.name == "GradientDescent"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run(tf.convert_to_tensor(g)).tolist() for g, _ in gv] == [[12.0, 0.0], 4.0]
        sess.run(step)
        np.testing.assert_allclose(sess.run(a), [0.8, 1.6], rtol=1e-6)
        np.testing.assert_allclose(sess.run(b), 2.4, rtol=1e-6)
