"""Training-stack details found by side-by-side fuzzing against real TF 2.21 (literals recorded from it): what
apply_gradients does with targets that are not variables, which shapes the Resource* training ops check at
graph-build time (TF2 graph mode, resource variables), and the graph of Adam's sparse step on a resource
variable."""

import re

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
