"""Special functions against float64 values recorded from real TensorFlow 2.21 (`tf.compat.v1`, Eigen's
kernels), to 1e-12 relative; float32 results are the float64 ones rounded (TF's own float32 kernels are less
accurate, so they differ from these by up to ~1e-5 relative for igamma and betainc). Plus xlogy, xdivy,
nextafter, TF's edge values and numeric gradients."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

inf, nan = np.inf, np.nan
X = np.array([-3.5, -2.0, -0.5, 0.0, 1e-8, 0.3, 1.0, 2.5, 7.0, 15.0, 40.0, 120.0])
XP = np.array([1e-3, 0.3, 1.0, 2.5, 7.0, 15.0, 40.0, 120.0])
A = np.array([0.5, 1.0, 3.0, 10.0, 0.1, 50.0, 2.0, 100.0])

ERFC = [1.9999992569016276, 1.9953222650189528, 1.5204998778130467, 1.0, 0.9999999887162083, 0.6713732405408726,
        0.15729920705028522, 0.00040695201744495903, 4.183825607779415e-23, 7.212994172451208e-100, 0.0, 0.0]
LGAMMA = [-1.309006684993042, inf, 1.2655121234846454, inf, 18.42068073818021, 1.0957979948180756, 0.0,
          0.2846828704729192, 6.579251212010101, 25.19122118273868, 106.63176026064346, 453.02489623849607]
DIGAMMA = [1.388870926359529, nan, 0.03648997397857645, nan, -100000000.57721566, -3.502524222200133,
           -0.5772156649015323, 0.7031566406452434, 1.8727843350984674, 2.6743466616607936, 3.6763273740348428,
           4.783319289118529]
I0E = [0.22280243801077917, 0.308508322553671, 0.6450352704491502, 1.0, 0.9999999900000001, 0.7575806251825479,
       0.46575960759364043, 0.27004644161220276, 0.15373774467288123, 0.1038995314488227, 0.06327827987523534,
       0.036456396116413915]
I1E = [-0.18739997660304997, -0.2152692892489377, -0.15642080318487162, 0.0, 4.99999995e-09, 0.11237756063983881,
       0.20791041534970844, 0.20658464953126654, 0.14228923470959867, 0.10037417504516664, 0.062482229074442064,
       0.036304175332028954]
IGAMMA = [0.035670591729679894, 0.25918177931828207, 0.08030139707139416, 0.0002773520946208357, 0.9999850828318516,
          9.05612554314825e-13, 0.9999999999999998, 0.9721362601094815]
IGAMMAC = [0.9643294082703201, 0.740818220681718, 0.9196986029286058, 0.9997226479053791, 1.491716814842852e-05,
           0.9999999999990944, 1.7418252446695558e-16, 0.02786373989051851]
ZETA = [1000001.6425331959, 21.069239202247726, 1.054707510761454, 2.711512441779219e-05, 0.5416166320612372,
        2.801364200303957e-61, 4.078174509920264e-05, 1.6200180681266253e-211]
POLYGAMMA = [-1000.5755719318104, 12.245364546107734, -2.404113806319188, 0.2239058488172521, 0.15354517795933756,
             -0.00013519619187519276, 3.6763273740348428, -7.00255593577678e-05]
BETAINC = [0.8432241345755114, 0.2775, 0.9999955139994392, 4.459984464274914e-06, 0.9999955400155357,
           4.486000560802598e-06, 0.7224999999999998, 0.1567758654244331]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_special_functions(dtype):
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    check_op(lambda x: [tf.erfc(x), tf.math.lgamma(x), tf.digamma(x), tf.math.bessel_i0e(x), tf.math.bessel_i1e(x)],
             [X.astype(dtype)], [ERFC, LGAMMA, DIGAMMA, I0E, I1E], dtype=dtype, rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_special_functions(dtype):
    rtol = 1e-12 if dtype == np.float64 else 1e-5  # float32 inputs are themselves rounded
    n = np.array([0, 1, 2, 3, 1, 4, 0, 2], dtype)
    check_op(lambda a, x, n: [tf.igamma(a, x), tf.math.igammac(a, x), tf.zeta(a + 1.5, x), tf.polygamma(n, x),
                              tf.betainc(a, a[::-1], np.linspace(0.01, 0.99, 8).astype(dtype))],
             [A.astype(dtype), XP.astype(dtype), n], [IGAMMA, IGAMMAC, ZETA, POLYGAMMA, BETAINC], dtype=dtype, rtol=rtol,
             atol=1e-300 if dtype == np.float64 else 1e-37)


def test_special_function_domains_as_tf():
    check_op(lambda: [tf.igamma(np.array([-1., 0, 1, 1]), np.array([1., 1, -1, 0])),
                      tf.zeta(np.array([1., 0.5, 2]), np.array([1., 1, -1])),
                      tf.polygamma(np.array([-1., 0.5]), np.array([1., 1]))],
             [], [[nan, nan, nan, 0], [inf, nan, inf], [nan, nan]], dtype=np.float64)


def test_xlogy_xdivy_nextafter():
    x = np.array([0, 0, 1, 2, -1], np.float32)
    y = np.array([0, -1, 0, 3, 2], np.float32)
    check_op(lambda x, y: [tf.math.xlogy(x, y), tf.math.xdivy(x, y)], [x, y],
             [[0, 0, -inf, 2 * np.log(3), -np.log(2)], [0, 0, inf, 2 / 3, -0.5]], dtype=np.float32)
    check_op(lambda a, b: tf.math.nextafter(a, b), [np.array([1.0, 0.0, -1.0], np.float32),
                                                    np.array([2.0, -1.0, -1.0], np.float32)],
             np.array([1.0000001, -1.4e-45, -1.0], np.float32), rtol=0, atol=0)


def test_special_function_gradients():
    x = np.array([0.3, 1.7, 4.0, -2.5])
    check_gradient(lambda t: [tf.erfc(t), tf.lgamma(t), tf.digamma(t), tf.math.bessel_i0e(t), tf.math.bessel_i1e(t)],
                   [x])
    check_gradient(lambda t: tf.math.bessel_i1e(t), [np.array([0.0, 1e-3])])
    a, p = np.array([0.5, 2.0, 7.0]), np.array([0.8, 3.0, 5.5])
    check_gradient(lambda x: [tf.igamma(a, x), tf.igammac(a, x), tf.zeta(a + 1.5, x), tf.polygamma(np.array([1., 2., 0.]), x)],
                   [p])
    check_gradient(lambda x: tf.betainc(a, a[::-1], x), [np.array([0.2, 0.5, 0.9])])
    check_gradient(lambda x, y: [tf.math.xlogy(x, y), tf.math.xdivy(x, y)], [np.array([[0.5, 2.0]]),
                                                                           np.array([[1.5], [3.0]])])


def test_unscaled_bessel():
    x = np.array([-2.5, 0.0, 1.0, 7.0])
    check_op(lambda t: [tf.math.bessel_i0(t), tf.math.bessel_i1(t)], [x],
             [np.exp(np.abs(x)) * np.array([0.27004644161220276, 1.0, 0.46575960759364043, 0.15373774467288123]),
              np.exp(np.abs(x)) * np.array([-0.20658464953126654, 0.0, 0.20791041534970844, 0.14228923470959867])],
             rtol=1e-12)


def test_digamma_in_float32_as_eigen_computes_it():
    """Eigen's float series and recurrence in float32: bits recorded from TF 2.21 (0 and the poles are nan)."""
    x = np.float32([1.0, 0.0, -0.5, -1.5, -2.0, 2.5, 7.1, 12.0, 1e-20, -0.7, np.inf, 1e9])
    expected = np.float32([-0.5772159, np.nan, 0.036489964, 0.7031568, np.nan, 0.7031568, 1.8880224, 2.4426615,
                           -1e20, -2.0739524, np.inf, 20.723267])
    with tf.Graph().as_default(), tf.Session() as sess:
        got, got64 = sess.run([tf.math.digamma(x), tf.math.digamma(x.astype(np.float64)[:3])])
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got64, [-0.5772156649015323, np.nan, 0.03648997397857645])


IGAMMA_GRAD_A_ARGS = (np.array([0.5, 1.0, 3.0, 10.0, 0.1, 50.0, 2.0, 100.0, 1000.5, 1.0, 2.0]),
                      np.array([1e-3, 0.3, 1.0, 2.5, 7.0, 15.0, 40.0, 120.0, 1020.1896, inf, 0.0]))


def test_igamma_grad_a_as_tf():
    """dP/da recorded from TF 2.21 (float32 computed in float32 as Eigen does, its lgammaf rounding included);
    -0 where the continued fraction's branch is flat, +0 at x = 0."""
    a, x = IGAMMA_GRAD_A_ARGS
    with tf.Graph().as_default(), tf.Session() as sess:
        got64, got32 = sess.run([tf.raw_ops.IgammaGradA(a=a, x=x),
                                 tf.raw_ops.IgammaGradA(a=a.astype(np.float32), x=x.astype(np.float32))])
    np.testing.assert_allclose(got64, [-0.24772119046242067, -0.4413635428478971, -0.10645935294394225,
                                       -0.0004049994485224195, -0.00018624744244872166, -1.1065454274054561e-12,
                                       -5.732487245607528e-16, -0.006213185929140152, -0.010316803457158557, 0, 0],
                               rtol=1e-11)
    np.testing.assert_allclose(got32, np.float32([-0.24772115, -0.44136345, -0.10645935, -0.00040499959,
                                                  -0.0001862474, -1.1065403e-12, -5.732482e-16, -0.0062131137,
                                                  -0.010325467, 0, 0]), rtol=2e-6)
    assert list(np.signbit(got64[-2:])) == [True, False]


def test_random_gamma_grad_float32_as_tf():
    a, x = IGAMMA_GRAD_A_ARGS
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.raw_ops.RandomGammaGrad(alpha=a.astype(np.float32), sample=x.astype(np.float32)))
    np.testing.assert_allclose(got, np.float32([0.013898644, 0.5957784, 0.578773, 0.46934652, 11.196455, 0.51763028,
                                                3.3733578, 1.0957499, 1.0099243, 0, 0]), rtol=1e-6)


def test_lgamma_float32_rounds_as_glibc_lgammaf():
    """glibc's float formulas from 2 up (values recorded from TF 2.21)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.math.lgamma(np.float32([8.0, 1000.5, 3e7, 5.5])))
    np.testing.assert_array_equal(got, np.float32([8.525161743164062, 5908.673828125, 486501216.0,
                                                   3.9578137397766113]))


def test_igamma_gradients_by_a():
    a, x = np.array([[0.5, 2.0, 7.0]]), np.array([[0.8], [3.0], [12.5]])
    check_gradient(lambda a, x: [tf.igamma(a, x), tf.igammac(a, x)], [a, x])
    with tf.Graph().as_default():
        a32 = tf.constant([0.5, 3.0])
        assert tf.gradients(tf.math.igammac(a32, 2.0), a32)[0].dtype == tf.float32


def test_igamma_edges_as_tf():
    """Eigen tests x = 0 before the domain for P only; a = inf makes P 0 (and Q 1, but 0 at x = inf)."""
    a = np.array([1., 0., inf, 1., -1., nan, inf, 2.])
    x = np.array([inf, 0., 1., 0., 0., 0., inf, nan])
    check_op(lambda: [tf.igamma(a, x), tf.igammac(a, x)], [],
             [[1, 0, 0, 0, 0, 0, 0, nan], [0, nan, 1, 1, nan, nan, 0, nan]], dtype=np.float64)


def test_igamma_float32_rounds_as_tfs_float_kernel():
    """TF's float32 igamma computes in float (lgammaf's rounding of lgamma(1000.5) moves P by 5e-4 relative):
    bits recorded from TF 2.21."""
    a = np.float32([1000.5, 1000.5, 1000.5, 1000.5])
    x = np.float32([974.9587, 985.7372, 914.0966, 931.49554])
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.math.igamma(a, x))
    np.testing.assert_array_equal(got, np.float32([0.21086826920509338, 0.3233609199523926, 0.0025253433268517256,
                                                  0.013105612248182297]))
