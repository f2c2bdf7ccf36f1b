"""Session handles: tensors kept in the session between runs (behaviour recorded from TF 2.21)."""

import gc

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_handle_kept_read_fed_and_deleted():
    with tf.Graph().as_default(), tf.Session() as sess:
        c = tf.multiply(tf.constant(10.0), tf.constant(5.0))
        h = tf.get_session_handle(c)
        assert (h.op.type, h.dtype, h.op.colocation_groups()) == ("GetSessionHandle", tf.string, [b"loc:@Mul"])
        handle = sess.run(h)
        assert handle.handle == str(handle) == f"GetSessionHandle;0;{CPU}"
        assert handle.eval() == np.float32(50.0)
        assert sess.run(h).handle == f"GetSessionHandle;1;{CPU}"  # ids count per session
        p, x = tf.get_session_tensor(handle.handle, tf.float32)
        assert (p.op.type, p.dtype, p.device, x.op.type, x.dtype, x.shape.rank) == \
            ("Placeholder", tf.string, CPU, "GetSessionTensor", tf.float32, None)
        y = x * 10
        assert sess.run(y, feed_dict={p: handle.handle}) == 500.0
        assert sess.run(y, feed_dict={p: handle}) == 500.0  # a TensorHandle feeds its string
        dp, d = tf.delete_session_tensor(handle.handle)
        assert (dp.op.type, d.type, d.device) == ("Placeholder", "DeleteSessionTensor", CPU)
        assert sess.run(d, feed_dict={dp: handle.handle}) is None
        with pytest.raises(errors.InvalidArgumentError,
                           match=f"The tensor with handle 'GetSessionHandle;0;{CPU}' is not in the session store."):
            sess.run(y, feed_dict={p: handle.handle})
        with pytest.raises(errors.InvalidArgumentError,
                           match=f"Failed to delete a tensor with handle 'GetSessionHandle;0;{CPU}' in the session"):
            sess.run(d, feed_dict={dp: handle.handle})
        with pytest.raises(ValueError, match="Unknown attribute 'bogus' is encountered while parsing the device "
                                             "spec: 'bogus'."):
            sess.run(y, feed_dict={p: "bogus"})


def test_tensor_handle_eval_delete_and_structures():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(1.0)
        sess.run(v.initializer)
        kept = sess.run(tf.get_session_handle(v.read_value()))
        sess.run(v.assign(5.0))
        assert kept.eval() == 5.0  # as in TF: a ref variable's read shares its buffer, which assign updates
        kept.delete()
        with pytest.raises(TypeError, match="Persistent tensor .* may have already been deleted."):
            kept.eval()
        with pytest.raises(TypeError, match="Persistent tensor .* may have already been deleted."):
            kept.delete()
        c = tf.constant(3.0)
        handle, value = sess.run([tf.get_session_handle(c), c])
        assert value == 3.0 and handle.eval() == 3.0
        assert sess.run({"k": tf.get_session_handle(c, name="named")})["k"].handle.startswith("named;")
        with pytest.raises(TypeError, match="`data` must be of type Tensor."):
            tf.get_session_handle(3)


def test_unfetched_handle_is_not_kept_and_dtype_is_checked():
    with tf.Graph().as_default(), tf.Session() as sess:
        c = tf.constant([1, 2, 3])
        unfetched = sess.run(tf.get_session_handle(c, name="unfetched") + "x")
        p, x = tf.get_session_tensor(unfetched[:-1].decode(), tf.int32)
        with pytest.raises(errors.InvalidArgumentError, match="is not in the session store"):
            sess.run(x, feed_dict={p: unfetched[:-1]})
        handle = sess.run(tf.get_session_handle(c))
        p, x = tf.get_session_tensor(handle.handle, tf.float32)
        with pytest.raises(errors.InternalError, match="Output 0 of type int32 does not match declared output type "
                                                       "float for node GetSessionTensor"):
            sess.run(x, feed_dict={p: handle.handle})
        np.testing.assert_array_equal(handle.eval(), [1, 2, 3])


def test_dropped_handles_are_deleted_in_batches_of_ten():
    with tf.Graph().as_default(), tf.Session() as sess:
        h = tf.get_session_handle(tf.constant(1.0))
        p, x = tf.get_session_tensor(f"GetSessionHandle;0;{CPU}", tf.float32)
        handles = [sess.run(h) for _ in range(10)]
        strings = [t.handle for t in handles]
        del handles[:9]
        gc.collect()
        assert sess.run(x, feed_dict={p: strings[0]}) == 1.0  # nine dead: not deleted yet
        del handles[:]
        gc.collect()
        for string in strings:
            with pytest.raises(errors.InvalidArgumentError, match="is not in the session store"):
                sess.run(x, feed_dict={p: string})
