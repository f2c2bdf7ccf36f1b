"""tf.Module and tf.variable_creator_scope (behaviour recorded from TF 2.21's compat.v1 graph mode)."""

import pytest

import tensorweave.compat.v1 as tf


class Dense(tf.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.ones([2, n]), name="w")
            self.b = tf.Variable(tf.zeros([n]), name="b", trainable=False)

    @tf.Module.with_name_scope
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.l1 = Dense(2)
        self.l2 = Dense(2, name="second")
        self.layers = [self.l1, {"x": self.l2}]


def test_module_names_scopes_and_variables():
    with tf.Graph().as_default():
        net = Net()
        assert (net.name, net.l1.name, net.l2.name) == ("net", "dense", "second")
        assert (net.name_scope.name, net.l1.name_scope.name) == ("net/", "dense/")
        assert [v.name for v in net.variables] == ["dense/b:0", "dense/w:0", "second/b:0", "second/w:0"]
        assert isinstance(net.variables, tuple)
        assert [v.name for v in net.trainable_variables] == ["dense/w:0", "second/w:0"]
        assert [v.name for v in net.non_trainable_variables] == ["dense/b:0", "second/b:0"]
        assert [m.name for m in net.submodules] == ["dense", "second"]
        x = tf.ones([1, 2])
        assert net.l1(x).name == "dense/add:0" and net.l1(x).name == "dense/add_1:0"
        assert Dense(1).name_scope.name == "dense_1/"  # the scope is made unique once, when the module is made
        paths = [p for p, _ in net._flatten(predicate=lambda v: isinstance(v, tf.Variable), with_path=True)]
        assert paths == [("l1", "b"), ("l1", "w"), ("l2", "b"), ("l2", "w"), ("layers", 0, "b"), ("layers", 0, "w"),
                         ("layers", 1, "x", "b"), ("layers", 1, "x", "w")]
        with tf.name_scope("outer"):
            assert tf.Module(name="inner").name_scope.name == "outer/inner/"


def test_module_default_and_invalid_names():
    class HTTPServer(tf.Module):
        pass

    class MyMod(tf.Module):
        pass

    with tf.Graph().as_default():
        assert (tf.Module().name, HTTPServer().name, MyMod().name) == ("module", "http_server", "my_mod")
        for bad in ("1bad", "a/b"):
            with pytest.raises(ValueError, match=f"'{bad}' is not a valid module name. Module names must be valid "
                                                 r"Python identifiers \(e.g. a valid class name\)."):
                tf.Module(name=bad)


def test_variable_creator_scope_chain():
    log = []

    def rename(next_creator, **kwargs):
        log.append(("rename", sorted(kwargs), kwargs["use_resource"]))
        kwargs["name"] = "renamed"
        return next_creator(**kwargs)

    def watch(next_creator, **kwargs):
        log.append(("watch", kwargs["name"]))
        return next_creator(**kwargs)

    with tf.Graph().as_default():
        with tf.variable_creator_scope(rename), tf.variable_creator_scope(watch):
            v = tf.Variable(1.0, name="v")
            g = tf.get_variable("gv", [2])
            r = tf.Variable(1.0, name="rv", use_resource=True)
        assert (v.name, g.name, r.name) == ("renamed:0", "renamed_1:0", "renamed_2:0")
        assert type(r).__name__ == "ResourceVariable"
        assert log[:2] == [("watch", "v"), ("rename", [
            "aggregation", "caching_device", "collections", "constraint", "dtype", "expected_shape",
            "experimental_enable_variable_lifting", "import_scope", "initial_value", "name", "shape",
            "synchronization", "trainable", "use_resource", "validate_shape", "variable_def"], None)]
        assert [entry[0] for entry in log] == ["watch", "rename"] * 3
        assert [entry[2] for entry in log if entry[0] == "rename"] == [None, False, True]  # get_variable decides
        with tf.variable_creator_scope(lambda next_creator, **kwargs: "not a variable"):
            assert tf.Variable(1.0) == "not a variable"
        log.clear()
        tf.Variable(1.0)
        assert log == []  # the scope is closed
    with tf.variable_creator_scope(watch):
        with tf.Graph().as_default():  # the creators belong to the graph they were opened on
            tf.Variable(2.0, name="elsewhere")
    assert log == []
