"""AdadeltaOptimizer, AdagradDAOptimizer and FtrlOptimizer (l1, l2, l2 shrinkage, beta, lr power, slot
names): 5 steps on a fixed problem with dense and sparse gradients, values and slot names recorded from
TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

_MAKERS = {
    "adadelta": (lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)),
    "adadelta_default": (lambda: tf.train.AdadeltaOptimizer()),
    "adagrad_da": (lambda: tf.train.AdagradDAOptimizer(0.5, tf.train.get_global_step(), l1_regularization_strength=0.01, l2_regularization_strength=0.02)),
    "adagrad_da_plain": (lambda: tf.train.AdagradDAOptimizer(0.5, tf.train.get_global_step())),
    "ftrl": (lambda: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02)),
    "ftrl_power": (lambda: tf.train.FtrlOptimizer(0.3, learning_rate_power=-0.3, initial_accumulator_value=0.2, accum_name="acc", linear_name="lin")),
    "ftrl_shrink": (lambda: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.001, l2_shrinkage_regularization_strength=0.1, beta=0.5)),
}

# (optimizer, sparse) -> ([v0, v1] after 5 steps, [(slot name, [slot of v0, slot of v1])])
_EXPECTED = {
    ('adadelta', False): ([[[0.9835749864578247, 2.0164310932159424], [2.983567953109741, -4.016398906707764], [0.5164330005645752, 0.2337760031223297]], [2.984358072280884, 4.0163397789001465]],
        [('accum', ['v0/Adadelta:0', 'v1/Adadelta:0']), ('accum_update', ['v0/Adadelta_1:0', 'v1/Adadelta_1:0'])]),
    ('adadelta', True): ([[[0.983568012714386, 1.9836009740829468], [3.0, -4.0], [0.4835759997367859, 0.2664310038089752]], [2.984358072280884, 4.0163397789001465]],
        [('accum', ['v0/Adadelta:0', 'v1/Adadelta:0']), ('accum_update', ['v0/Adadelta_1:0', 'v1/Adadelta_1:0'])]),
    ('adadelta_default', False): ([[[0.9999979734420776, 2.000001907348633], [2.999998092651367, -4.000001907348633], [0.5000020265579224, 0.24999800324440002]], [2.999998092651367, 4.000001907348633]],
        [('accum', ['v0/Adadelta:0', 'v1/Adadelta:0']), ('accum_update', ['v0/Adadelta_1:0', 'v1/Adadelta_1:0'])]),
    ('adadelta_default', True): ([[[0.9999979734420776, 1.9999979734420776], [3.0, -4.0], [0.4999980032444, 0.2500019967556]], [2.999998092651367, 4.000001907348633]],
        [('accum', ['v0/Adadelta:0', 'v1/Adadelta:0']), ('accum_update', ['v0/Adadelta_1:0', 'v1/Adadelta_1:0'])]),
    ('adagrad_da', False): ([[[-0.5145230293273926, 0.7946829795837402], [-0.9158440232276917, -0.25946399569511414], [0.9762849807739258, -0.06768199801445007]], [-0.0, 0.1339530050754547]],
        [('gradient_accumulator', ['v0/AdagradDA:0', 'v1/AdagradDA:0']), ('gradient_squared_accumulator', ['v0/AdagradDA_1:0', 'v1/AdagradDA_1:0'])]),
    ('adagrad_da', True): ([[[-0.9158440232276917, -0.25946399569511414], [3.0, -4.0], [-0.5145230293273926, 0.7946829795837402]], [-0.0, 0.1339530050754547]],
        [('gradient_accumulator', ['v0/AdagradDA:0', 'v1/AdagradDA:0']), ('gradient_squared_accumulator', ['v0/AdagradDA_1:0', 'v1/AdagradDA_1:0'])]),
    ('adagrad_da_plain', False): ([[[-0.6454970240592957, 0.9128710031509399], [-1.011299967765808, -0.3726780116558075], [1.0540920495986938, -0.15655599534511566]], [-0.07885999977588654, 0.23200799524784088]],
        [('gradient_accumulator', ['v0/AdagradDA:0', 'v1/AdagradDA:0']), ('gradient_squared_accumulator', ['v0/AdagradDA_1:0', 'v1/AdagradDA_1:0'])]),
    ('adagrad_da_plain', True): ([[[-1.011299967765808, -0.3726780116558075], [3.0, -4.0], [-0.6454970240592957, 0.9128710031509399]], [-0.07885999977588654, 0.23200799524784088]],
        [('gradient_accumulator', ['v0/AdagradDA:0', 'v1/AdagradDA:0']), ('gradient_squared_accumulator', ['v0/AdagradDA_1:0', 'v1/AdagradDA_1:0'])]),
    ('ftrl', False): ([[[-0.3506999909877777, 0.9320939779281616], [0.032641999423503876, -0.2590320110321045], [1.0091370344161987, -0.08127400279045105]], [-0.035055000334978104, 0.14348700642585754]],
        [('accum', ['v0/Ftrl:0', 'v1/Ftrl:0']), ('linear', ['v0/Ftrl_1:0', 'v1/Ftrl_1:0'])]),
    ('ftrl', True): ([[[-0.49060800671577454, -0.18806999921798706], [3.0, -4.0], [-0.37315601110458374, 0.6695340275764465]], [-0.035055000334978104, 0.14348700642585754]],
        [('accum', ['v0/Ftrl:0', 'v1/Ftrl:0']), ('linear', ['v0/Ftrl_1:0', 'v1/Ftrl_1:0'])]),
    ('ftrl_power', False): ([[[-0.21875900030136108, 0.531374990940094], [-0.25673699378967285, -0.13510000705718994], [0.771041989326477, -0.04838300123810768]], [-0.0238489992916584, 0.07802200317382812]],
        [('accum', ['v0/acc:0', 'v1/acc:0']), ('linear', ['v0/lin:0', 'v1/lin:0'])]),
    ('ftrl_power', True): ([[[-0.46769899129867554, -0.11278100311756134], [3.0, -4.0], [-0.22602400183677673, 0.43822699785232544]], [-0.0238489992916584, 0.07802200317382812]],
        [('accum', ['v0/acc:0', 'v1/acc:0']), ('linear', ['v0/lin:0', 'v1/lin:0'])]),
    ('ftrl_shrink', False): ([[[-0.19173799455165863, 0.2716290056705475], [-0.216512992978096, 0.12388300150632858], [0.49855101108551025, -0.04479999840259552]], [-0.1776529997587204, -0.1639000028371811]],
        [('accum', ['v0/Ftrl:0', 'v1/Ftrl:0']), ('linear', ['v0/Ftrl_1:0', 'v1/Ftrl_1:0'])]),
    ('ftrl_shrink', True): ([[[-0.31905901432037354, -0.17938600480556488], [3.0, -4.0], [-0.17162799835205078, 0.27483999729156494]], [-0.1776529997587204, -0.1639000028371811]],
        [('accum', ['v0/Ftrl:0', 'v1/Ftrl:0']), ('linear', ['v0/Ftrl_1:0', 'v1/Ftrl_1:0'])]),
}


@pytest.mark.parametrize("name,sparse", sorted(_EXPECTED))
def test_optimizer_matches_tf_over_five_steps(name: str, sparse: bool) -> None:
    values, slots = _EXPECTED[(name, sparse)]
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        v0 = tf.Variable([[1.0, 2.0], [3.0, -4.0], [0.5, 0.25]], name="v0")
        v1 = tf.Variable([3.0, 4.0], name="v1")
        if sparse:
            g0 = tf.IndexedSlices(tf.constant([[0.1, -0.2], [0.3, 0.05]]), tf.constant([2, 0]), tf.constant([3, 2]))
        else:
            g0 = tf.constant([[0.1, -0.2], [0.3, 0.05], [-0.4, 0.02]])
        opt = _MAKERS[name]()
        train = opt.apply_gradients([(g0, v0), (tf.constant([0.01, -0.03]), v1)], global_step=global_step)
        assert sorted((n, [opt.get_slot(v0, n).name, opt.get_slot(v1, n).name]) for n in opt.get_slot_names()) \
            == [(n, list(s)) for n, s in slots]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(train)
            got = sess.run([v0, v1])
    for g, e in zip(got, values):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-6)


def test_optimizer_argument_errors() -> None:
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value must be positive: 0.0"):
        tf.train.AdagradDAOptimizer(0.1, None, initial_gradient_squared_accumulator_value=0.0)
    with pytest.raises(ValueError, match="learning_rate_power 0.500000 needs to be negative or zero"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength -1.000000 needs to be positive or zero"):
        tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)


def test_proximal_adagrad_accumulator_starts_from_a_colocated_constant():
    """TF 2.21 builds the slot from a graph-level Const beside the variable (no Initializer scope)."""
    with tf.Graph().as_default() as g:
        w = tf.Variable([1.0, 2.0], name="w")
        tf.train.ProximalAdagradOptimizer(0.1).minimize(tf.reduce_sum(w * w))
        names = [op.name for op in g.get_operations()]
        assert "w/ProximalAdagrad/Initializer/Const" not in names
        const = g.get_operation_by_name("Const_1")
        assert const.get_attr("_class") == [b"loc:@w"]
        assert g.get_operation_by_name("w/ProximalAdagrad/Assign").inputs[1].op is const
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(g.get_tensor_by_name("w/ProximalAdagrad:0")), [0.1, 0.1])


# 3 Ftrl steps of a fixed gradient, recorded from TF 2.21: (w, accum, linear) bit for bit (TF adds the whole step
# to linear at once and takes square roots where lr_power is -0.5)
_FTRL_EXACT = {
    (False, False): [[[0.6472882032394409, -1.6845488548278809], [-0.037577223032712936, 2.6854095458984375]],
                     [[18.850000381469727, 157.78750610351562], [0.3700000047683716, 363.1000061035156]],
                     [[-28.103042602539062, 211.60206604003906], [0.22857330739498138, -511.709716796875]]],
    (False, True): [[[0.09968465566635132, -2.1709094047546387], [0.21003374457359314, 3.0975704193115234]],
                    [[0.3700000047683716, 363.1000061035156], [18.850000381469727, 157.78750610351562]],
                    [[-0.6063580513000488, 413.6707763671875], [-9.118947982788086, -389.0966491699219]]],
    (True, False): [[[0.6380630135536194, -1.6775590181350708], [-0.04843942075967789, 2.6783597469329834]],
                    [[18.850000381469727, 157.78750610351562], [0.3700000047683716, 363.1000061035156]],
                    [[-27.738040924072266, 210.8011474609375], [0.306583046913147, -510.4834899902344]]],
    (True, True): [[[0.06825463473796844, -2.1658122539520264], [0.2057027816772461, 3.0863194465637207]],
                   [[0.3700000047683716, 363.1000061035156], [18.850000381469727, 157.78750610351562]],
                   [[-0.42790687084198, 412.796142578125], [-8.949140548706055, -387.81683349609375]]],
}


@pytest.mark.parametrize("regularized,sparse", sorted(_FTRL_EXACT))
def test_ftrl_values_are_tfs_bit_for_bit(regularized: bool, sparse: bool) -> None:
    kwargs = dict(l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                  l2_shrinkage_regularization_strength=0.05) if regularized else {}
    with tf.Graph().as_default():
        w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
        if sparse:
            g = tf.IndexedSlices(tf.constant([[2.5, -7.25], [0.3, 11.0]]), tf.constant([1, 0]), tf.constant([2, 2]))
        else:
            g = tf.constant([[2.5, -7.25], [0.3, 11.0]])
        opt = tf.train.FtrlOptimizer(0.1, **kwargs)
        train = opt.apply_gradients([(g, w)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            got = sess.run([w, opt.get_slot(w, "accum"), opt.get_slot(w, "linear")])
    for g, e in zip(got, _FTRL_EXACT[(regularized, sparse)]):
        np.testing.assert_array_equal(g, np.float32(e))


# 4 steps of each optimizer on a 7-vector (dense), rows 2 and 0 of a 3x5 matrix and elements 4 and 1 of a
# 5-vector (sparse), recorded from TF 2.21 as the float32 bytes of each variable (see test below)
_EXACT_AFTER_4_STEPS = {
    "adagrad": (
        "c88a423f10dc09bf7fce8f3fd20457bf5445a6bfec3b113f1317713f",
        "76c4cb3e52607c3f9c8d0c3ff2e092befd5912be0f9e613f4ad3da3f14f04c3de131cfbeb69c0bbf8e0a13bf68102bbd"
        "1b5908c098c620be5be4503f",
        "c7f1e43f2594bb3f77a0c53dee86eebf59ef1a3f",
    ),
    "padagrad": (
        "8000413f305814bfbd528f3fc60453bf43dca5bf01b5203fb120703f",
        "4df5cc3ed4c87b3fc7ef0c3f05f28dbe32da18be0f9e613f4ad3da3f14f04c3de131cfbeb69c0bbfa366fcbe63c559bd"
        "1c2d08c0761619beb511503f",
        "c7f1e43fdd2fbb3f77a0c53dee86eebfcfc52e3f",
    ),
    "padagrad0": (
        "c88a423f10dc09bf7fce8f3fd20457bf5445a6bfec3b113f1317713f",
        "74c4cb3e52607c3f9c8d0c3ff2e092be015a12be0f9e613f4ad3da3f14f04c3de131cfbeb69c0bbf8e0a13bf64102bbd"
        "1b5908c099c620be5be4503f",
        "c7f1e43f2594bb3f77a0c53dee86eebf58ef1a3f",
    ),
    "pgd": (
        "af7e97c0dac619bf465791406036a63fdcbc3ec0fa1eb23e186b5040",
        "bc5738403fce274192226340df864b4056d580c00f9e613f4ad3da3f14f04c3de131cfbeb69c0bbf93f4f7be565712c0"
        "47b21ac11b428840730c2140",
        "c7f1e43f8887ef4077a0c53dee86eebf48c1983e",
    ),
    "da": (
        "0e943cbf70a637bf752e3c3f109e3b3f825a3bbfd899343fd4c03b3f",
        "0fd43b3fd8e93c3fd20a3c3f7d2e3c3fb14b3cbf0f9e613f4ad3da3f14f04c3de131cfbeb69c0bbf0278373faeb23bbf"
        "51cb3cbf72683c3f8a5b3b3f",
        "c7f1e43feda63c3f77a0c53dee86eebf8d72323f",
    ),
    "da0": (
        "2c523dbf84e938bf82303d3fb0ec3c3f41c53cbf5efc333f17ff3c3f",
        "b6083d3f23653d3fe8213d3f83303d3f693b3dbf0f9e613f4ad3da3f14f04c3de131cfbeb69c0bbfbaa7383fc1f73cbf"
        "675f3dbf30453d3fe4c53c3f",
        "c7f1e43f19573d3f77a0c53dee86eebf2feb2f3f",
    ),
    "adadelta": (
        "35bce43feda7de3ea5f9c83d5c51eebf1fdc8ebeadccb4be301ba6bd",
        "f81720bf53c82cbda17ff3be26f7a7bf770b623f0f9e613f4ad3da3f14f04c3de131cfbeb69c0bbf66bdc5bf49117b3f"
        "5b258dbf097a97bf4ce950be",
        "c7f1e43f8354e03e77a0c53dee86eebf892f8dbe",
    ),
    "rms": (
        "468821c0ca1f81bfcca07d40ce41b63f443255c06407273f77685540",
        "e6593740c09b93404a304f407c5f2340f70047c00f9e613f4ad3da3f14f04c3de131cfbeb69c0bbf12780dbefc6518c0"
        "7099b4c018e63b40857f3640",
        "c7f1e43fcf8f9a4077a0c53dee86eebfe6920e3f",
    ),
}
_EXACT_MAKERS = {
    "adagrad": lambda: tf.train.AdagradOptimizer(0.37),
    "padagrad": lambda: tf.train.ProximalAdagradOptimizer(0.37, 0.01, 0.02),
    "padagrad0": lambda: tf.train.ProximalAdagradOptimizer(0.37),
    "pgd": lambda: tf.train.ProximalGradientDescentOptimizer(0.37, 0.01, 0.02),
    "da": lambda: tf.train.AdagradDAOptimizer(0.37, tf.train.get_global_step(), 0.01, 0.02),
    "da0": lambda: tf.train.AdagradDAOptimizer(0.37, tf.train.get_global_step()),
    "adadelta": lambda: tf.train.AdadeltaOptimizer(0.9),
    "rms": lambda: tf.train.RMSPropOptimizer(0.37, momentum=0.3, centered=True),
}


@pytest.mark.parametrize("name", sorted(_EXACT_AFTER_4_STEPS))
def test_dense_and_sparse_updates_are_tfs_bit_for_bit(name: str) -> None:
    # each kernel's arithmetic in TF's order: sparse matrix rows as the dense kernels (lr * rsqrt), a sparse
    # vector's elements as TF's scalar loops (lr / sqrt, proximal steps over a double, AdagradDA in double)
    rng = np.random.RandomState(3)
    init, init2 = rng.randn(7).astype(np.float32), rng.randn(3, 5).astype(np.float32)
    g, g2, g3 = (rng.randn(*shape).astype(np.float32) * 3 for shape in ((7,), (2, 5), (2,)))
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v, m, u = tf.Variable(init), tf.Variable(init2), tf.Variable(init[:5])
        train = _EXACT_MAKERS[name]().apply_gradients([
            (tf.constant(g), v), (tf.IndexedSlices(tf.constant(g2), tf.constant([2, 0]), tf.constant([3, 5])), m),
            (tf.IndexedSlices(tf.constant(g3), tf.constant([4, 1])), u)], global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(train)
            got = [value.tobytes().hex() for value in sess.run([v, m, u])]
    assert got == list(_EXACT_AFTER_4_STEPS[name])


def test_adadelta_kernel_steps_by_sqrt_times_rsqrt_as_tfs() -> None:
    # TF 2.21: update = sqrt(accum_update + eps) * rsqrt(accum + eps) * grad (not a quotient); 3 steps' bytes
    rng = np.random.RandomState(11)
    v0, a0 = rng.randn(7).astype(np.float32), rng.rand(7).astype(np.float32)
    b0, g = rng.rand(7).astype(np.float32) * 0.1, rng.randn(7).astype(np.float32)
    with tf.Graph().as_default():
        v, a, b = tf.Variable(v0), tf.Variable(a0), tf.Variable(b0)
        step = tf.raw_ops.ApplyAdadelta(var=v, accum=a, accum_update=b, lr=np.float32(0.9), rho=np.float32(0.95),
                                        epsilon=np.float32(1e-6), grad=g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(step)
            got = [x.tobytes().hex() for x in sess.run([v, a, b])]
    assert got == ["e31bd13f1a3262bf31e531c0b98628c00ec2ca3fc6b289bf9fc9cbbe",
                   "5ad5473f60f54f3fb687fd3e32d30a3fb767ac3d39e78a3e48e0913e",
                   "ee1e623c0293933d665d313ea11df23c46929d3da10faa3ca72df83b"]
