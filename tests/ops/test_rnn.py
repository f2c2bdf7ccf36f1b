"""`tf.nn.rnn_cell` and the RNN drivers: cells against NumPy re-implementations with assigned weights,
variable names as TensorFlow 2.21 (`tf.compat.v1`) makes them, sequence lengths, static vs dynamic unrolling
(values and gradients), the bidirectional drivers and the wrappers."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_gradient

rnn_cell = tf.nn.rnn_cell
RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 4, 3)).astype(np.float32)  # batch, time, depth
LENGTHS = [4, 2]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_basic_rnn(w, x, h):
    kernel, bias = w
    h = np.tanh(np.concatenate([x, h], 1) @ kernel + bias)
    return h, h


def _np_gru(w, x, h):
    gate_kernel, gate_bias, candidate_kernel, candidate_bias = w
    r, u = np.split(_sigmoid(np.concatenate([x, h], 1) @ gate_kernel + gate_bias), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ candidate_kernel + candidate_bias)
    h = u * h + (1 - u) * c
    return h, h


def _np_lstm(w, x, state, peepholes=False, cell_clip=None, proj_clip=None):
    kernel, bias, *rest = w
    c, h = state
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ kernel + bias, 4, axis=1)
    if peepholes:
        w_f, w_i, w_o, *rest = rest
        c = _sigmoid(f + 1.0 + w_f * c) * c + _sigmoid(i + w_i * c) * np.tanh(j)
    else:
        c = _sigmoid(f + 1.0) * c + _sigmoid(i) * np.tanh(j)
    if cell_clip is not None:
        c = np.clip(c, -cell_clip, cell_clip)
    m = _sigmoid(o + (w_o * c if peepholes else 0)) * np.tanh(c)
    if rest:
        m = m @ rest[0]
        if proj_clip is not None:
            m = np.clip(m, -proj_clip, proj_clip)
    return m, (c, m)


def _np_dynamic_rnn(step, weights, x, state, lengths):
    """Outputs zero and state frozen past each entry's length, as TF's dynamic_rnn."""
    outputs = []
    for t in range(x.shape[1]):
        output, new_state = step(weights, x[:, t], state)
        live = (t < np.asarray(lengths))[:, None]
        outputs.append(np.where(live, output, 0.0))
        state = tuple(np.where(live, n, s) for n, s in zip(new_state, state)) if isinstance(state, tuple) \
            else np.where(live, new_state, state)
    return np.stack(outputs, 1), state


CELLS = {
    "basic_rnn": (lambda: rnn_cell.BasicRNNCell(5), _np_basic_rnn, 5,
                  ["rnn/basic_rnn_cell/kernel:0", "rnn/basic_rnn_cell/bias:0"]),
    "gru": (lambda: rnn_cell.GRUCell(5), _np_gru, 5,
            ["rnn/gru_cell/gates/kernel:0", "rnn/gru_cell/gates/bias:0", "rnn/gru_cell/candidate/kernel:0",
             "rnn/gru_cell/candidate/bias:0"]),
    "basic_lstm": (lambda: rnn_cell.BasicLSTMCell(5), _np_lstm, (5, 5),
                   ["rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0"]),
    "lstm_peephole_proj": (
        lambda: rnn_cell.LSTMCell(5, use_peepholes=True, cell_clip=0.5, num_proj=3, proj_clip=0.3),
        lambda w, x, s: _np_lstm(w, x, s, peepholes=True, cell_clip=0.5, proj_clip=0.3), (5, 3),
        ["rnn/lstm_cell/kernel:0", "rnn/lstm_cell/bias:0", "rnn/lstm_cell/w_f_diag:0", "rnn/lstm_cell/w_i_diag:0",
         "rnn/lstm_cell/w_o_diag:0", "rnn/lstm_cell/projection/kernel:0"]),
}


def _assign_random(sess):
    """Every variable set to random values (so no symmetry hides a wrong gate order); returns them."""
    values = [RNG.uniform(-0.8, 0.8, v.shape.as_list()).astype(np.float32) for v in tf.global_variables()]
    for variable, value in zip(tf.global_variables(), values):
        sess.run(variable.assign(value))
    return values


@pytest.mark.parametrize("name", CELLS)
def test_cell_in_dynamic_rnn_matches_numpy_and_tfs_variable_names(name):
    make, step, size, variable_names = CELLS[name]
    with tf.Graph().as_default(), tf.Session() as sess:
        outputs, state = tf.nn.dynamic_rnn(make(), tf.constant(X), sequence_length=LENGTHS, dtype=tf.float32)
        assert [v.name for v in tf.global_variables()] == variable_names
        weights = _assign_random(sess)
        got_outputs, got_state = sess.run([outputs, state])
    zero = tuple(np.zeros((2, s), np.float32) for s in size) if isinstance(size, tuple) else np.zeros((2, size))
    want_outputs, want_state = _np_dynamic_rnn(step, weights, X, zero, LENGTHS)
    np.testing.assert_allclose(got_outputs, want_outputs, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.concatenate(tf.nest.flatten(got_state), 1) if isinstance(size, tuple) else
                               got_state, np.concatenate(want_state, 1) if isinstance(size, tuple) else want_state,
                               rtol=1e-5, atol=1e-5)
    assert outputs.shape.as_list() == [2, 4, size[1] if isinstance(size, tuple) else size]


def test_values_and_names_recorded_from_tf():
    """Constant weights 0.1 (TF's values for the same program), a stack, bidirectional and static drivers."""
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)
    with tf.Graph().as_default(), tf.Session() as sess:
        with tf.variable_scope("s", initializer=tf.constant_initializer(0.1)):
            multi = rnn_cell.MultiRNNCell([rnn_cell.LSTMCell(4), rnn_cell.GRUCell(3)])
            multi_out, _ = tf.nn.dynamic_rnn(multi, x, dtype=tf.float32, scope="multi", sequence_length=[3, 2])
            (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(rnn_cell.GRUCell(2), rnn_cell.GRUCell(2), x,
                                                          dtype=tf.float32, sequence_length=[1, 3])
            sbi, _, _ = tf.nn.static_bidirectional_rnn(rnn_cell.BasicRNNCell(2), rnn_cell.BasicRNNCell(2),
                                                       tf.unstack(x, axis=1), dtype=tf.float32)
        assert [v.name for v in tf.global_variables()][:6] == [
            "s/multi/multi_rnn_cell/cell_0/lstm_cell/kernel:0", "s/multi/multi_rnn_cell/cell_0/lstm_cell/bias:0",
            "s/multi/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0",
            "s/multi/multi_rnn_cell/cell_1/gru_cell/gates/bias:0",
            "s/multi/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0",
            "s/multi/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0"]
        assert [v.name for v in tf.global_variables()][6::4] == [
            "s/bidirectional_rnn/fw/gru_cell/gates/kernel:0", "s/bidirectional_rnn/bw/gru_cell/gates/kernel:0",
            "s/bidirectional_rnn/fw/basic_rnn_cell/kernel:0"]
        sess.run(tf.global_variables_initializer())
        multi_out, fw, bw, sbi = sess.run([multi_out, fw, bw, sbi])
    np.testing.assert_allclose(multi_out[0, :3, 0], [-0.00623, -0.01429, -0.02092], atol=2e-5)
    np.testing.assert_allclose(np.concatenate([fw[0, :3, 0], bw[0, :3, 0]]),
                               [-0.11455, 0.0, 0.0, -0.11455, 0.0, 0.0], atol=2e-5)
    np.testing.assert_allclose([sbi[0][0, 0], sbi[0][1, 0], sbi[0][1, 2], sbi[1][0, 0]],
                               [-0.33445, 0.06945, 0.12271, -0.26881], atol=2e-5)


def _static_and_dynamic(cell_fn, x, lengths):
    """The same cell run by static_rnn and dynamic_rnn on the same variables."""
    with tf.variable_scope("net") as scope:
        dyn, dyn_state = tf.nn.dynamic_rnn(cell_fn(), x, sequence_length=lengths, dtype=tf.float64)
        scope.reuse_variables()
        static, static_state = tf.nn.static_rnn(cell_fn(), tf.unstack(x, axis=1), sequence_length=lengths,
                                                dtype=tf.float64)
    return dyn, dyn_state, tf.stack(static, axis=1), static_state


def test_static_and_dynamic_rnn_agree_in_values_and_gradients():
    """The issue's check: the gradient through the while loop (TensorArrays and all) is the unrolled one's."""
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(X.astype(np.float64))
        dyn, dyn_state, static, static_state = _static_and_dynamic(
            lambda: rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(4), rnn_cell.GRUCell(3)]), x, LENGTHS)
        assert len(tf.trainable_variables()) == 6
        sess.run(tf.global_variables_initializer())
        params = [x] + tf.trainable_variables()
        weights = tf.constant(RNG.standard_normal((2, 4, 3)))
        dyn_loss = tf.reduce_sum(dyn * weights) + tf.reduce_sum(tf.nest.flatten(dyn_state)[1])
        static_loss = tf.reduce_sum(static * weights) + tf.reduce_sum(tf.nest.flatten(static_state)[1])
        got = sess.run([dyn, static, tf.gradients(dyn_loss, params), tf.gradients(static_loss, params)])
    np.testing.assert_allclose(got[0], got[1], atol=1e-12)
    for dynamic_grad, static_grad in zip(got[2], got[3]):
        np.testing.assert_allclose(dynamic_grad, static_grad, atol=1e-10)
    assert np.all(got[0][1, 2:] == 0)


def test_dynamic_rnn_gradient_matches_numeric():
    def build(x):
        with tf.variable_scope("g", initializer=tf.constant_initializer(0.3)):
            outputs, _ = tf.nn.dynamic_rnn(rnn_cell.BasicRNNCell(2), x, dtype=tf.float64, time_major=True)
        tf.global_variables_initializer().run()
        return outputs

    check_gradient(build, [X[:, :3].astype(np.float64)])


def test_dynamic_rnn_keeps_the_state_of_each_entrys_last_step():
    with tf.Graph().as_default(), tf.Session() as sess:
        cell = rnn_cell.BasicRNNCell(3)
        outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(X), sequence_length=tf.constant([1, 3]),
                                           initial_state=tf.ones([2, 3]), time_major=False)
        sess.run(tf.global_variables_initializer())
        outputs, state = sess.run([outputs, state])
    np.testing.assert_array_equal(state, [outputs[0, 0], outputs[1, 2]])
    assert outputs[1, :3].any(axis=1).all() and not outputs[0, 1:].any() and not outputs[1, 3:].any()


def test_dynamic_rnn_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="^If no initial_state is provided, argument `dtype` must be specified$"):
            tf.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf.constant(X))
        with pytest.raises(ValueError, match=r"^Argument sequence_length must be a vector of length batch_size\. Received "
                                             r"sequence_length=Tensor\(\"rnn_1/Cast/x:0\", shape=\(1, 1\), dtype=int32\) of "
                                             r"shape: \(1, 1\)$"):
            tf.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf.constant(X), sequence_length=[[1]], dtype=tf.float32)
        with pytest.raises(ValueError, match=r"^Input tensor should have rank >= 2\. Received input=Tensor\(\"v:0\", "
                                             r"shape=\(3,\), dtype=float32\) of rank 1$"):
            tf.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf.constant([1., 2., 3.], name="v"), dtype=tf.float32)
        with pytest.raises(ValueError, match=r"^If no initial_state is provided, argument `dtype` must be specified$"):
            tf.nn.static_rnn(rnn_cell.GRUCell(2), [tf.constant([[1.]])])
        with pytest.raises(TypeError, match="is not an RNNCell"):
            tf.nn.dynamic_rnn(object(), tf.constant(X), dtype=tf.float32)
        with pytest.raises(ValueError, match="Must specify at least one cell for MultiRNNCell."):
            rnn_cell.MultiRNNCell([])
        with pytest.raises(ValueError, match=r"^Input size \(depth of inputs\) must be accessible via shape "
                                             r'inference, but saw value None for input=Tensor\("rnn_4/transpose:0", '
                                             r"shape=\(3, 2, \?\), dtype=float32\)\.$"):
            tf.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf.placeholder(tf.float32, [2, 3, None]), dtype=tf.float32)
        with pytest.raises(TypeError, match=r'^Argument `inputs` must be a sequence\. Received: Tensor\("x:0", '
                                            r"shape=\(2, 3\), dtype=float32\)$"):
            tf.nn.static_rnn(rnn_cell.GRUCell(2), tf.placeholder(tf.float32, [2, 3], name="x"), dtype=tf.float32)
        with pytest.raises(ValueError, match=r"^Argument `inputs` must not be empty\.$"):
            tf.nn.static_bidirectional_rnn(rnn_cell.GRUCell(2), rnn_cell.GRUCell(2), [], dtype=tf.float32)
        multi = rnn_cell.MultiRNNCell([rnn_cell.GRUCell(2), rnn_cell.GRUCell(3)], state_is_tuple=False)
        assert multi.zero_state(4, tf.float32).name == "MultiRNNCellZeroState/MultiRNNCellZeroState/zeros:0"
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape for Tensor"):
            with tf.Session() as sess:
                x = tf.placeholder(tf.float32, [None, 4, 3])
                outputs, _ = tf.nn.dynamic_rnn(rnn_cell.GRUCell(2), x, sequence_length=[1, 2, 3], dtype=tf.float32)
                sess.run(tf.global_variables_initializer())
                sess.run(outputs, {x: X})


def test_concatenated_lstm_state_and_zero_state():
    with tf.Graph().as_default(), tf.Session() as sess:
        cell = rnn_cell.LSTMCell(3, state_is_tuple=False)
        assert cell.state_size == 6 and cell.output_size == 3
        zero = cell.zero_state(2, tf.float32)
        assert zero.op.name == "LSTMCellZeroState/zeros" and zero.shape.as_list() == [2, 6]
        output, state = cell(tf.constant(X[:, 0]), zero)
        assert state.shape.as_list() == [2, 6] and [v.name for v in cell.variables] == ["lstm_cell/kernel:0",
                                                                                        "lstm_cell/bias:0"]
        sess.run(tf.global_variables_initializer())
        output, state = sess.run([output, state])
        np.testing.assert_array_equal(output, state[:, 3:])


def test_wrappers():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(np.ones((2, 1, 3), np.float32))
        dropped = rnn_cell.DropoutWrapper(rnn_cell.ResidualWrapper(rnn_cell.BasicRNNCell(3)), input_keep_prob=0.5,
                                          seed=3)
        device_cell = rnn_cell.DeviceWrapper(rnn_cell.BasicLSTMCell(3), "/cpu:0")
        out, state = tf.nn.dynamic_rnn(dropped, x, dtype=tf.float32, scope="a")
        _, lstm_state = tf.nn.dynamic_rnn(device_cell, x, dtype=tf.float32, scope="b")
        assert [v.name for v in tf.global_variables()] == ["a/basic_rnn_cell/kernel:0", "a/basic_rnn_cell/bias:0",
                                                           "b/basic_lstm_cell/kernel:0", "b/basic_lstm_cell/bias:0"]
        assert isinstance(lstm_state, rnn_cell.LSTMStateTuple) and lstm_state.dtype == tf.float32
        sess.run(tf.global_variables_initializer())
        out, state = sess.run([out, state])
    dropped_input = out[:, 0] - state  # the residual output is the (dropped-out) input plus the cell's output
    np.testing.assert_allclose(np.isclose(dropped_input, 0) | np.isclose(dropped_input, 2), True)


def test_dropout_wrapper_rejects_bad_probabilities_and_keeps_lstm_memory():
    with pytest.raises(ValueError, match=r"^Parameter input_keep_prob must be between 0 and 1\. Received 2\.0$"):
        rnn_cell.DropoutWrapper(rnn_cell.GRUCell(2), input_keep_prob=2.0)
    with tf.Graph().as_default(), tf.Session() as sess:
        cell = rnn_cell.DropoutWrapper(rnn_cell.BasicLSTMCell(50), state_keep_prob=0.5, seed=1)
        _, state = tf.nn.dynamic_rnn(cell, tf.constant(np.ones((1, 1, 3), np.float32)), dtype=tf.float32)
        sess.run(tf.global_variables_initializer())
        c, h = sess.run(state)
    assert np.all(c != 0) and np.any(h == 0)


def test_variational_dropout_uses_one_mask_for_all_steps():
    with tf.Graph().as_default(), tf.Session() as sess:
        cell = rnn_cell.DropoutWrapper(rnn_cell.BasicRNNCell(40), output_keep_prob=0.5, variational_recurrent=True,
                                       dtype=tf.float32, seed=5)
        outputs, _ = tf.nn.dynamic_rnn(cell, tf.constant(np.ones((1, 3, 2), np.float32)), dtype=tf.float32)
        sess.run(tf.global_variables_initializer())
        outputs = sess.run(outputs)
    masks = outputs[0] == 0
    assert masks.any() and (masks == masks[0]).all()


def test_raw_rnn_lstm_values_gradients_and_emit_structures_as_tf():
    # recorded from TF 2.21 (tf.compat.v1, legacy Keras's LSTMCell) running this program
    max_time, batch_size, depth, units = 5, 3, 2, 4
    rng = np.random.default_rng(0)
    kernel0 = rng.standard_normal((depth + units, 4 * units)).astype(np.float32) * 0.5
    x = rng.standard_normal((max_time, batch_size, depth)).astype(np.float32)
    inputs = tf.placeholder(tf.float32, (max_time, batch_size, depth))
    seq = tf.placeholder(tf.int32, (batch_size,))
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=max_time, clear_after_read=False).unstack(inputs)
    cell = rnn_cell.LSTMCell(units, initializer=tf.constant_initializer(kernel0))

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            next_cell_state, next_loop_state = cell.zero_state(batch_size, tf.float32), tf.constant(0.0)
        else:
            next_cell_state, next_loop_state = cell_state, loop_state + tf.reduce_sum(cell_output)
        elements_finished = time >= seq
        next_input = tf.cond(tf.reduce_all(elements_finished), lambda: tf.zeros([batch_size, depth]),
                             lambda: inputs_ta.read(time))
        return elements_finished, next_input, next_cell_state, cell_output, next_loop_state

    outputs_ta, final_state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
    outputs = outputs_ta.stack()
    assert (outputs.shape.as_list(), final_state.c.name, loop_state.name) == ([None, 3, 4], "rnn/while/Exit_4:0",
                                                                             "rnn/while/Exit_6:0")
    assert sorted(v.name for v in tf.global_variables()) == ["rnn/lstm_cell/bias:0", "rnn/lstm_cell/kernel:0"]
    loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(final_state.h)
    grads = tf.gradients(loss, [inputs] + tf.trainable_variables())

    def loop_fn_emitting(time, cell_output, cell_state, loop_state):  # an emit structure of its own, no loop state
        if cell_output is None:
            return (tf.zeros([batch_size], tf.bool), inputs_ta.read(0), cell.zero_state(batch_size, tf.float32),
                    (tf.zeros([units]), tf.zeros([], tf.int32)), None)
        finished = time >= max_time
        next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([batch_size, depth]),
                             lambda: inputs_ta.read(tf.minimum(time, max_time - 1)))
        return finished, next_input, cell_state, (cell_output * 2.0, tf.fill([batch_size], time)), None

    emitted, _, no_loop_state = tf.nn.raw_rnn(cell, loop_fn_emitting, scope="rnn")
    assert isinstance(emitted, tuple) and no_loop_state is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, state, total, g, e_sum, e_time = sess.run(
            [outputs, final_state, loop_state, grads, emitted[0].stack(), emitted[1].stack()],
            {inputs: x, seq: [5, 2, 3]})
    close = dict(rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[:, 0], [[-0.00145, -0.087557, 0.076592, -0.005689],
                                           [0.045964, -0.232843, 0.155215, -0.061145],
                                           [0.262593, -0.358153, -0.083247, -0.351282],
                                           [0.060407, -0.293375, 0.122003, -0.173972],
                                           [0.016603, -0.108876, 0.09759, 0.021022]], **close)
    np.testing.assert_allclose(out[:, 2], [[-0.026479, 0.145867, -0.000259, 0.103647],
                                           [-0.017124, 0.202794, -0.16465, 0.046487],
                                           [-0.028509, 0.217834, -0.160227, 0.027978]] + [[0.0] * 4] * 2, **close)
    np.testing.assert_array_equal(out[2:, 1], 0.0)  # finished entries emit zeros
    np.testing.assert_allclose(state.c, [[0.063638, -0.192703, 0.429307, 0.04705],
                                         [0.031044, -0.615526, 0.299374, -0.119508],
                                         [-0.055968, 0.521024, -0.313538, 0.062277]], **close)
    np.testing.assert_allclose(state.h, [[0.016603, -0.108876, 0.09759, 0.021022],
                                         [0.011131, -0.2555, 0.148178, -0.056329],
                                         [-0.028509, 0.217834, -0.160227, 0.027978]], **close)
    np.testing.assert_allclose(total, -0.978889, **close)
    np.testing.assert_allclose(g[0].sum(axis=2), [[-0.294272, -0.123634, 0.235984], [-0.285713, 0.118817, 0.203069],
                                                  [-0.282848, 0.0, 0.342247], [0.051101, 0.0, 0.0],
                                                  [0.264626, 0.0, 0.0]], **close)
    np.testing.assert_allclose(g[1].sum(0), [-0.407505, 0.05405, 0.031272, 0.032474, -1.444609, 0.978982, -0.701159,
                                             0.938019, -0.030647, -0.104485, -0.001059, -0.048313, -0.062947,
                                             -0.348632, -0.014245, -0.139333], rtol=0, atol=5e-6)
    np.testing.assert_allclose(g[2], [0.13545, 0.368188, 0.184304, 0.135631, 2.0751, 0.392791, 1.096883, 0.809418,
                                      0.05223, -0.008301, -0.006754, -0.029926, 0.044566, 0.419698, 0.229289,
                                      0.144875], rtol=0, atol=5e-6)
    np.testing.assert_allclose(e_sum.sum(axis=(1, 2)), [-0.114692, -0.355644, -1.573245, 0.329782, 0.850391],
                               **close)
    np.testing.assert_array_equal(e_time, np.arange(1, 6)[:, None].repeat(3, 1))


def test_raw_rnn_argument_errors():
    cell = rnn_cell.BasicRNNCell(2)
    with pytest.raises(TypeError, match="^loop_fn must be a callable$"):
        tf.nn.raw_rnn(cell, 3)
    with pytest.raises(TypeError, match="cell"):
        tf.nn.raw_rnn(3, lambda *args: None)


def test_dynamic_rnn_names_cell_ops_from_the_cell_scope_and_caches_reads_by_device():
    """As TF 2.21 writes the graph: a LayerRNNCell's ops are named from its own scope where it was first
    called (inside the loop), and dynamic_rnn's default caching device keeps `read`s out of the variables'
    colocation groups."""
    x = tf.placeholder(tf.float32, [4, 5, 3], name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), x, dtype=tf.float32)
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("rnn/while/basic_lstm_cell/MatMul").type == "MatMul"
    assert not [op.name for op in graph.get_operations() if op.name.startswith("rnn/while/rnn/")]
    assert graph.get_operation_by_name("rnn/basic_lstm_cell/kernel/read").colocation_groups() == [
        b"loc:@rnn/basic_lstm_cell/kernel/read"]


class _VariableStateSaver:
    """A state saver keeping each named state in a non-trainable variable (what TF's SequenceQueueingStateSaver
    offers static_state_saving_rnn)."""

    def __init__(self, batch: int, size: int) -> None:
        self.variables: dict = {}
        self.batch, self.size = batch, size

    def state(self, name: str) -> tf.Tensor:
        if name not in self.variables:
            self.variables[name] = tf.Variable(tf.zeros([self.batch, self.size]), trainable=False, name=name)
        return tf.identity(self.variables[name])

    def save_state(self, name: str, value: tf.Tensor) -> tf.Operation:
        return tf.assign(self.variables[name], value).op


def test_static_state_saving_rnn_starts_from_and_saves_the_saver_states_as_tf():
    """Values recorded from TF 2.21 (seed 1): a second run starts from the states the first one saved."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        inputs = [tf.constant(np.full((2, 3), i + 1.0, np.float32)) for i in range(4)]
        cell = tf.nn.rnn_cell.LSTMCell(5, state_is_tuple=True)
        saver = _VariableStateSaver(2, 5)
        outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, saver, ("c", "h"))
        assert (outputs[-1].name, state.c.name, state.h.name) == ("Identity_2:0", "Identity_3:0", "Identity_4:0")
        assert [op.type for op in outputs[-1].op.control_inputs] == ["Assign", "Assign"]
        with pytest.raises(ValueError, match="should be the same type as `cell.state_size`. Received: state_name=c, "
                                             r"cell.state_size=LSTMStateTuple\(c=5, h=5\)."):
            tf.nn.static_state_saving_rnn(cell, inputs, saver, "c")
        with pytest.raises(ValueError, match=r"Received state_name=\('c', 'h', 'x'\) with 3 elements"):
            tf.nn.static_state_saving_rnn(cell, inputs, saver, ("c", "h", "x"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, second = sess.run(outputs[-1]), sess.run(outputs[-1])
            np.testing.assert_allclose(first[0], [-0.32, -0.0457, 0.0734, 0.5913, -0.2018], atol=1e-4)
            np.testing.assert_allclose(second[1], [-0.3254, -0.0515, 0.2444, 0.7242, -0.1842], atol=1e-4)
            np.testing.assert_allclose(sess.run(saver.variables["c"])[0], [-0.848, -0.2133, 0.8075, 1.166, -0.194],
                                       atol=1e-4)


def test_variables_a_user_cell_gets_in_call_are_the_cells():
    """RNNCell.__call__'s custom getter makes every tf.get_variable of `call` the cell's (names from TF 2.21)."""
    class MyCell(tf.nn.rnn_cell.RNNCell):
        state_size = output_size = 3

        def call(self, inputs, state):
            w = tf.get_variable("w", [inputs.shape[-1], 3], initializer=tf.constant_initializer(0.5))
            h = tf.tanh(tf.matmul(inputs, w) + state)
            return h, h

    with tf.Graph().as_default():
        cell = MyCell()
        tf.nn.dynamic_rnn(cell, tf.ones([2, 3, 2]), dtype=tf.float32)
        assert [v.name for v in cell.variables] == ["rnn/my_cell/w:0"]
        assert [v.name for v in cell.trainable_weights] == ["rnn/my_cell/w:0"]


@pytest.mark.parametrize("cell_name, keras_name", [("BasicRNNCell", "SimpleRNNCell"), ("GRUCell", "GRUCell"),
                                                   ("BasicLSTMCell", "LSTMCell"), ("LSTMCell", "LSTMCell")])
def test_legacy_cells_warn_as_tf(cell_name, keras_name):
    """TF 2.21's (tf_keras') UserWarning, at the line that made the cell."""
    with pytest.warns(UserWarning, match=f"^`tf.nn.rnn_cell.{cell_name}` is deprecated and will be removed in a "
                                         f"future version. This class is equivalent as `tf.keras.layers."
                                         f"{keras_name}`, and will be replaced by that in Tensorflow 2.0.$") as record:
        getattr(rnn_cell, cell_name)(2)
    assert record[0].filename == __file__


def test_multi_rnn_cell_logs_its_deprecation_as_tf(caplog):
    with pytest.warns(UserWarning):
        rnn_cell.MultiRNNCell([rnn_cell.GRUCell(2)])
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [(
        "tensorflow", "WARNING", "`tf.nn.rnn_cell.MultiRNNCell` is deprecated. This class is equivalent as "
        "`tf.keras.layers.StackedRNNCells`, and will be replaced by that in Tensorflow 2.0.")]
