"""tf.make_template: variables made on the first call and shared after, with the scope and op names
recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import pytest

import tensorweave.compat.v1 as tf


def _scale(x, scalar_name):
    return x * tf.get_variable(scalar_name, shape=[], initializer=tf.constant_initializer(1.5))


def test_calls_share_the_first_calls_variables():
    scale_by_y = tf.make_template("scale_by_y", _scale, scalar_name="y")
    z, w = scale_by_y(tf.constant(2.0)), scale_by_y(tf.constant(3.0))
    assert (z.name, w.name) == ("scale_by_y/mul:0", "scale_by_y_1/mul:0")
    assert [v.name for v in tf.global_variables()] == ["scale_by_y/y:0"]
    assert (scale_by_y.variable_scope_name, scale_by_y.variable_scope.name) == ("scale_by_y/", "scale_by_y")
    assert [v.name for v in scale_by_y.trainable_variables] == ["scale_by_y/y:0"]
    other = tf.make_template("scale_by_y", _scale, scalar_name="y")  # a second template: its own scope
    q = other(tf.constant(1.0))
    assert q.name == "scale_by_y_2/mul:0"
    assert [v.name for v in tf.global_variables()] == ["scale_by_y/y:0", "scale_by_y_1/y:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([z, w, q]) == [3.0, 4.5, 1.5]


def test_scope_made_at_construction():
    template = tf.make_template("now", _scale, create_scope_now_=True, scalar_name="s")
    with tf.variable_scope("outer"):
        a, b = template(tf.constant(1.0)), template(tf.constant(1.0))
    assert (a.name, b.name) == ("outer/now/mul:0", "outer/now_1/mul:0")
    assert [v.name for v in tf.global_variables()] == ["now/s:0"]


def test_a_new_trainable_variable_after_the_first_call_fails():
    template = tf.make_template("bad", lambda x: x * tf.Variable(1.0))
    template(tf.constant(1.0))
    with pytest.raises(ValueError, match="Trainable variable created when calling a template after the first"):
        template(tf.constant(1.0))
    with pytest.raises(ValueError, match="name cannot be None"):
        tf.make_template(None, _scale)


def test_an_error_in_a_call_names_where_the_template_was_defined():
    template = tf.make_template("fails", lambda x: x * tf.get_variable("w", [3], initializer=tf.zeros_initializer()))
    template(tf.ones([3]))
    with pytest.raises(ValueError) as info:
        template(tf.ones([2]))
    message = str(info.value)
    assert message.startswith("Dimensions must be equal")
    assert "\n\noriginally defined at:\n" in message
    assert 'template = tf.make_template("fails"' in message.split("originally defined at:")[1]
