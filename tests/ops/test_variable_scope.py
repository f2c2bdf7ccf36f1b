"""tf.get_variable and tf.variable_scope: names, op names, sharing, defaults and errors, with every name and
message recorded from TensorFlow 2.21's tf.compat.v1 (graph mode, ref variables)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _op_names():
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()]


def test_get_variable_default_initializer_ops_and_collections():
    v = tf.get_variable("v", [2, 3])
    assert v.name == "v:0" and v.dtype == tf.float32._as_ref and v.shape.as_list() == [2, 3]
    assert _op_names() == [
        ("v/Initializer/random_uniform/shape", "Const"), ("v/Initializer/random_uniform/min", "Const"),
        ("v/Initializer/random_uniform/max", "Const"), ("v/Initializer/random_uniform/RandomUniform", "RandomUniform"),
        ("v/Initializer/random_uniform/sub", "Sub"), ("v/Initializer/random_uniform/mul", "Mul"),
        ("v/Initializer/random_uniform", "AddV2"), ("v", "VariableV2"), ("v/Assign", "Assign"),
        ("v/read", "Identity")]
    assert v.initial_value.op.get_attr("_class") == [b"loc:@v"]
    assert tf.global_variables() == [v] and tf.trainable_variables() == [v]
    assert set(tf.get_default_graph().collections) == {("__varscope",), ("__variable_store",), "variables",
                                                        "trainable_variables"}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(v)
    assert np.abs(value).max() <= np.sqrt(6 / 5)


@pytest.mark.parametrize("dtype", [tf.int32, tf.bool, tf.string, tf.uint8])
def test_non_floating_variables_default_to_zeros(dtype):
    v = tf.get_variable("x", [2], dtype=dtype)
    assert v.initial_value.op.name == "x/Initializer/zeros" and v.initial_value.op.type == "Const"
    assert v.dtype.base_dtype == dtype


def test_scopes_name_variables_and_ops():
    with tf.variable_scope("s") as s:
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        assert tf.add(w, 1.0).name == "s/Add:0"
    assert (s.name, s.original_name_scope, w.name) == ("s", "s/", "s/w:0")
    assert w.initial_value.op.name == "s/w/Initializer/zeros"
    with tf.variable_scope(s, reuse=True) as s2:
        assert tf.get_variable("w", [2]) is w
        assert tf.add(w, 1.0).name == "s_1/Add:0"  # re-entering a scope object opens a new name scope
    assert (s2.name, s2.original_name_scope) == ("s", "s/")
    with tf.variable_scope("s") as s3:
        assert tf.add(1, 2).name == "s_2/Add:0" and s3.original_name_scope == "s_2/" and s3.reuse is False
    with tf.name_scope("ns"):
        v = tf.get_variable("v", [1])
        with tf.variable_scope("vs") as vs:
            u = tf.get_variable("u", [1])
            assert tf.add(u, 1.0).name == "ns/vs/Add:0"
    assert (v.name, v.initializer.name, u.name, vs.original_name_scope) == ("v:0", "v/Assign", "vs/u:0", "ns/vs/")
    with tf.variable_scope("") as empty:
        assert (empty.name, empty.original_name_scope, tf.add(1, 2).name) == ("", "", "Add:0")


def test_default_names_and_reopened_scopes():
    with tf.variable_scope(None, default_name="d") as d1:
        assert tf.add(1, 2).name == "d/Add:0"
    with tf.variable_scope(None, default_name="d") as d2:
        assert tf.add(1, 2).name == "d_1/Add:0"
    assert (d1.name, d2.name, d2.original_name_scope) == ("d", "d_1", "d_1/")
    with tf.variable_scope("outer"):
        with tf.variable_scope("inner") as inner:
            pass
        with tf.variable_scope(None, default_name="d") as a, tf.variable_scope(None, default_name="d") as b:
            pass
    assert (inner.name, inner.original_name_scope, a.name, b.name) == ("outer/inner", "outer/inner/", "outer/d",
                                                                        "outer/d/d")
    with tf.variable_scope("outer"):
        with tf.variable_scope(None, default_name="d") as d:
            assert (d.name, d.original_name_scope) == ("outer/d", "outer_1/d/")
        with tf.variable_scope(inner) as inner2:
            assert tf.add(1, 2).name == "outer_1/inner/Add:0"
            with tf.variable_scope(None, default_name="e") as e:
                assert (e.name, e.original_name_scope) == ("outer/inner/e", "outer_1/inner/e/")
    assert (inner2.name, inner2.original_name_scope) == ("outer/inner", "outer/inner/")
    scope = tf.variable_scope("re")
    with scope as r1:
        assert tf.add(1, 2).name == "re/Add:0"
    with scope as r2:
        assert tf.add(1, 2).name == "re_1/Add:0"
    assert r1.name == r2.name == "re" and r1 is not r2


def test_auxiliary_name_scope_false_keeps_the_current_name_scope():
    with tf.variable_scope("outer") as outer:
        pass
    with tf.variable_scope("outer", auxiliary_name_scope=False) as o:
        assert (o.name, o.original_name_scope, tf.add(1, 2).name) == ("outer", "", "Add:0")
    with tf.variable_scope(outer, auxiliary_name_scope=False) as o:
        assert (o.original_name_scope, tf.add(1, 2).name) == ("outer/", "Add_1:0")
    with tf.name_scope("ns2"), tf.variable_scope("x", auxiliary_name_scope=False) as x:
        assert (x.name, x.original_name_scope, tf.add(1, 2).name) == ("x", "ns2/", "ns2/Add:0")


def test_reuse_modes_and_inheritance():
    with tf.variable_scope("r", reuse=tf.AUTO_REUSE) as rs:
        a = tf.get_variable("a", [2])
        assert tf.get_variable("a", [2]) is a and rs.reuse is tf.AUTO_REUSE
        with tf.variable_scope("sub") as sub, tf.variable_scope("sub2", reuse=False) as sub2:
            assert sub.reuse is tf.AUTO_REUSE and sub2.reuse is tf.AUTO_REUSE
    with tf.variable_scope("r") as rs2:
        assert rs2.reuse is False
        rs2.reuse_variables()
        assert tf.get_variable_scope().reuse is True and tf.get_variable("a", [2]) is a
        with tf.variable_scope("q") as q:
            assert q.reuse is True
    with tf.variable_scope(rs2) as rs3, tf.variable_scope(rs, reuse=True) as rs4:
        assert rs3.reuse is True and rs4.reuse is True
    top = tf.get_variable_scope()
    assert (top.name, top.original_name_scope, top.reuse, top.dtype) == ("", "", False, tf.float32)
    assert repr(tf.AUTO_REUSE) == "<_ReuseMode.AUTO_REUSE: 1>"


def test_sharing_errors():
    with tf.variable_scope("s"):
        tf.get_variable("w", [2])
    with tf.variable_scope("s"), pytest.raises(ValueError) as err:
        tf.get_variable("w", [2])
    assert str(err.value).startswith(
        "Variable s/w already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in "
        "VarScope? Originally defined at:\n\n  File \"")
    assert str(err.value).split("\n")[2].endswith(", in test_sharing_errors")  # innermost user frame first
    tf.get_variable("rv", [2], use_resource=True)
    with pytest.raises(ValueError) as err:  # a resource variable's message names no origin, as TF's
        tf.get_variable("rv", [2])
    assert str(err.value) == ("Variable rv already exists, disallowed. Did you mean to set reuse=True or "
                              "reuse=tf.AUTO_REUSE in VarScope?")
    with tf.variable_scope("s", reuse=True):
        with pytest.raises(ValueError, match=r"^Variable s/nope does not exist, or was not created with "
                                             r"tf.get_variable\(\). Did you mean to set reuse=tf.AUTO_REUSE in "
                                             r"VarScope\?$"):
            tf.get_variable("nope", [2])
        with pytest.raises(ValueError, match=r"^Trying to share variable s/w, but specified shape \(3,\) and found "
                                             r"shape \(2,\).$"):
            tf.get_variable("w", [3])
        with pytest.raises(ValueError, match="^Trying to share variable s/w, but specified dtype int32 and found "
                                             "dtype float32_ref.$"):
            tf.get_variable("w", [2], dtype=tf.int32)


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.get_variable("c", [2], dtype=tf.complex64), ValueError,
     "An initializer for variable c of <dtype: 'complex64'> is required"),
    (lambda: tf.get_variable("noshape"), ValueError,
     "Variable noshape did not get an initializer, so its `shape` argument must be specified."),
    (lambda: tf.get_variable("k", [2], initializer=tf.constant([1, 2])), ValueError,
     "If initializer is a constant, do not specify shape."),
    (lambda: tf.get_variable("k", dtype=tf.float32, initializer=tf.constant([1, 2])), ValueError,
     "Initializer type '<dtype: 'int32'>' and explicit dtype '<dtype: 'float32'>' don't match."),
    (lambda: tf.get_variable("k", initializer=lambda a: tf.ones([2])), ValueError,
     "The initializer passed is not valid. It should be a callable with no arguments and the shape should not be "
     "provided or an instance of `tf.keras.initializers.*' and `shape` should be fully defined."),
    (lambda: tf.get_variable("k", [None, 2]), ValueError, "The initializer passed is not valid."),
    (lambda: tf.get_variable("k", [2], synchronization=7), ValueError,
     "Invalid variable synchronization mode: 7 for variable: k"),
    (lambda: tf.get_variable("k", [2], aggregation=9), ValueError,
     "Invalid variable aggregation mode: 9 for variable: k"),
    (lambda: tf.get_variable("k", [2], custom_getter=3), ValueError,
     "Passed a custom_getter which is not callable: 3"),
    (lambda: tf.get_variable("k", [2], constraint=3), ValueError, "The `constraint` argument must be a callable."),
    (lambda: tf.get_variable("k", [2], partitioner=3), ValueError, "Partitioner must be callable, but received: 3"),
    (lambda: tf.get_variable("k", [4], partitioner=lambda shape, dtype: 2), ValueError,
     "Partitioner must return a sequence, but saw: 2"),
    (lambda: tf.variable_scope(None), TypeError, "If default_name is None then name_or_scope is required"),
    (lambda: tf.variable_scope("a", reuse=3), ValueError, "The reuse parameter must be True or False or None."),
    (lambda: tf.variable_scope("z", auxiliary_name_scope=1), TypeError,
     "The auxiliary_name_scope must be `True` or `False`, while get 1"),
    (lambda: tf.variable_scope(None, default_name="q", reuse=True).__enter__(), ValueError,
     "reuse=True cannot be used without a name_or_scope"),
    (lambda: tf.variable_scope(3).__enter__(), TypeError,
     "VariableScope: name_or_scope must be a string or VariableScope."),
])
def test_get_variable_and_variable_scope_errors(call, error, message):
    with pytest.raises(error) as err:
        call()
    assert str(err.value).startswith(message)


def test_initializers_given_as_values_classes_and_functions():
    from_tensor = tf.get_variable("fromconst", initializer=tf.constant([1, 2]))
    from_list = tf.get_variable("fromlist", initializer=[1.0, 2.0])
    from_class = tf.get_variable("fromcls", [3], initializer=tf.ones_initializer)
    ints = tf.get_variable("ints", [3], dtype=tf.int32, initializer=tf.ones_initializer())
    from_fn = tf.get_variable("lam", initializer=lambda: tf.ones([2]))
    assert from_tensor.dtype == tf.int32._as_ref and from_tensor.initial_value.name == "Const:0"
    assert from_list.initial_value.name == "fromlist/initial_value:0"
    assert from_class.initial_value.name == "fromcls/Initializer/ones:0"
    assert ints.initial_value.name == "ints/Initializer/ones:0" and ints.dtype == tf.int32._as_ref
    assert from_fn.initial_value.name == "lam/Initializer/ones:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(from_tensor).tolist() == [1, 2] and sess.run(ints).tolist() == [1, 1, 1]
    unknown = tf.get_variable("u", initializer=tf.placeholder_with_default([1.0, 2.0], [None]), validate_shape=False)
    assert unknown.shape.ndims is None


def test_scope_defaults_initializer_dtype_regularizer():
    with tf.variable_scope("init", initializer=tf.constant_initializer(3.0), dtype=tf.float64) as scope:
        c = tf.get_variable("c", [2])
        with tf.variable_scope("in2"):
            c2 = tf.get_variable("c2", [2])
    assert scope.dtype == tf.float64 and c.dtype == tf.float64._as_ref and c2.dtype == tf.float64._as_ref
    assert (c.initial_value.op.name, c2.initial_value.op.name) == ("init/c/Initializer/Const",
                                                                   "init/in2/c2/Initializer/Const")
    with tf.variable_scope("reg", regularizer=lambda x: tf.identity(x, name="rr")):
        r1 = tf.get_variable("r1", [2])
        tf.get_variable("r2", [2], regularizer=tf.no_regularizer)
    (loss,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert loss.name == "reg/r1/Regularizer/rr:0" and loss.op.colocation_groups() == [b"loc:@reg/r1"]
    assert tf.get_default_graph().get_operation_by_name("rr").type == "Identity"  # TF's first, bare call
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(c).tolist() == [3.0, 3.0] and sess.run(loss).tolist() == sess.run(r1).tolist()
    assert tf.no_regularizer(3) is None


def test_custom_getters_nest_inner_first():
    log = []

    def getter_one(getter, name, *args, **kwargs):
        log.append(("g1", name))
        return getter(name + "_g1", *args, **kwargs)

    def getter_two(getter, name, *args, **kwargs):
        log.append(("g2", name))
        return getter(name + "_g2", *args, **kwargs)

    with tf.variable_scope("cg", custom_getter=getter_one), tf.variable_scope("in", custom_getter=getter_two):
        v = tf.get_variable("v", [1])
    assert v.name == "cg/in/v_g2_g1:0" and log == [("g2", "cg/in/v"), ("g1", "cg/in/v_g2")]

    def positional_getter(getter, name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                          caching_device, partitioner, validate_shape, use_resource, synchronization, aggregation):
        return getter(name, shape, dtype, initializer)

    assert tf.get_variable("p", [3], custom_getter=positional_getter).shape.as_list() == [3]


def test_collections_trainable_local_and_caching_device():
    with tf.variable_scope("coll") as scope:
        a = tf.get_variable("a", [1])
        b = tf.get_local_variable("b", [1])
        c = tf.get_variable("c", [1], trainable=False)
        d = tf.get_variable("d", [1], synchronization=tf.VariableSynchronization.ON_READ)
        e = tf.get_variable("e", [1], collections=["mine"])
    assert scope.global_variables() == [a, c, d] and scope.trainable_variables() == [a, e]
    assert scope.local_variables() == [b] and not b.trainable and not d.trainable
    assert tf.get_collection("mine") == [e] and tf.trainable_variables() == [a, e] and e not in tf.global_variables()
    cached = tf.get_variable("cd", [1], caching_device="/cpu:0")
    assert cached.value().device == "/device:CPU:0" and cached.value().op.name == "cd/read"
    with tf.device("/job:w/task:1"):  # a resource variable's cached copy: in 'Read', on the caching device alone
        resource = tf.get_variable("rcd", [1], caching_device="/cpu:0", use_resource=True)
    assert resource.value().name == "rcd/Read/Identity:0" and resource.value().device == "/device:CPU:0"
    with tf.variable_scope("scalar", partitioner=lambda shape, dtype: [1]):
        assert tf.get_variable("s", []).name == "scalar/s:0"  # a scalar is never partitioned
    with tf.control_dependencies([tf.no_op(name="dep")]):
        v = tf.get_variable("ctl", [1])
    assert v.initializer.control_inputs == [] and v.op.control_inputs == []


def test_variable_store_is_per_graph():
    tf.get_variable("v", [1])
    with tf.Graph().as_default():
        assert tf.get_variable("v", [1]).name == "v:0"
        with tf.variable_scope("x") as x:
            pass
        assert x.name == "x"
    with tf.variable_scope("x") as x2:
        assert tf.add(1, 2).name == "x/Add:0"
    assert x2.name == "x"
