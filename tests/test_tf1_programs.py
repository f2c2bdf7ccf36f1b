"""TF1 programs whose results match real TensorFlow (2.21, `tf.compat.v1` with v2 behaviour disabled).

Generated from the differential harness in /work/difftest (snippets.py, run.py, gen_tests.py): every
`expected` literal is what real TensorFlow produced for the same program, normalized by the differential harness (tests/differential.py) (values
rounded to 4 places, dtype names, shapes, op names and types, exception class and first message line).
Keys where tensorweave still diverges from TF are left out of `expected`; they are listed as `diverges`.
"""

import collections

import numpy as np
from differential import Harness

import tensorweave.compat.v1 as tf

HARNESS = Harness(tf, places=4)


def test_s01_const_python_scalars():
    out, catch, got = HARNESS.recorder()
    cs = [tf.constant(1), tf.constant(1.0), tf.constant(True), tf.constant("s"), tf.constant([1, 2]),
          tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(3, dtype=tf.float32), tf.constant(2 ** 40),
          tf.constant([1, 2.5]), tf.constant(b"bytes"), tf.constant([])]
    for i, c in enumerate(cs):
        out(f"t{i}", c)
    with tf.Session() as s:
        out("vals", s.run(cs))
    expected = {'t0': {'tensor': 'Const:0', 'dtype': 'int32', 'shape': '()'},
     't1': {'tensor': 'Const_1:0', 'dtype': 'float32', 'shape': '()'},
     't2': {'tensor': 'Const_2:0', 'dtype': 'bool', 'shape': '()'},
     't3': {'tensor': 'Const_3:0', 'dtype': 'string', 'shape': '()'},
     't4': {'tensor': 'Const_4:0', 'dtype': 'int32', 'shape': '(2,)'},
     't5': {'tensor': 'Const_5:0', 'dtype': 'float32', 'shape': '(2, 2)'},
     't6': {'tensor': 'Const_6:0', 'dtype': 'float32', 'shape': '()'},
     't7': {'tensor': 'Const_7:0', 'dtype': 'int64', 'shape': '()'},
     't8': {'tensor': 'Const_8:0', 'dtype': 'float32', 'shape': '(2,)'},
     't9': {'tensor': 'Const_9:0', 'dtype': 'string', 'shape': '()'},
     't10': {'tensor': 'Const_10:0', 'dtype': 'float32', 'shape': '(0,)'},
     'vals': [{'np': 'int32', 'v': 1},
              {'np': 'float32', 'v': 1.0},
              {'np': 'bool', 'v': True},
              {'py': 'bytes', 'v': "b's'"},
              {'nd': 'int32', 'shape': [2], 'v': [1, 2]},
              {'nd': 'float32', 'shape': [2, 2], 'v': [[1.0, 2.0], [3.0, 4.0]]},
              {'np': 'float32', 'v': 3.0},
              {'np': 'int64', 'v': 1099511627776},
              {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.5]},
              {'py': 'bytes', 'v': "b'bytes'"},
              {'nd': 'float32', 'shape': [0], 'v': []}]}
    HARNESS.check(got, expected)


def test_s02_const_numpy_inputs():
    out, catch, got = HARNESS.recorder()
    cs = [tf.constant(np.array([1.5, 2.5])), tf.constant(np.float32(2)), tf.constant(np.arange(3)),
          tf.constant(np.array([1, 2], dtype=np.int64)), tf.constant(np.array([True, False])),
          tf.constant(np.float64(3.0)), tf.constant(np.array([1, 2], dtype=np.uint8)),
          tf.constant(np.zeros((2, 0)))]
    for i, c in enumerate(cs):
        out(f"t{i}", c)
    with tf.Session() as s:
        out("vals", s.run(cs))
    expected = {'t0': {'tensor': 'Const:0', 'dtype': 'float64', 'shape': '(2,)'},
     't1': {'tensor': 'Const_1:0', 'dtype': 'float32', 'shape': '()'},
     't2': {'tensor': 'Const_2:0', 'dtype': 'int64', 'shape': '(3,)'},
     't3': {'tensor': 'Const_3:0', 'dtype': 'int64', 'shape': '(2,)'},
     't4': {'tensor': 'Const_4:0', 'dtype': 'bool', 'shape': '(2,)'},
     't5': {'tensor': 'Const_5:0', 'dtype': 'float64', 'shape': '()'},
     't6': {'tensor': 'Const_6:0', 'dtype': 'uint8', 'shape': '(2,)'},
     't7': {'tensor': 'Const_7:0', 'dtype': 'float64', 'shape': '(2, 0)'},
     'vals': [{'nd': 'float64', 'shape': [2], 'v': [1.5, 2.5]},
              {'np': 'float32', 'v': 2.0},
              {'nd': 'int64', 'shape': [3], 'v': [0, 1, 2]},
              {'nd': 'int64', 'shape': [2], 'v': [1, 2]},
              {'nd': 'bool', 'shape': [2], 'v': [True, False]},
              {'np': 'float64', 'v': 3.0},
              {'nd': 'uint8', 'shape': [2], 'v': [1, 2]},
              {'nd': 'float64', 'shape': [2, 0], 'v': [[], []]}]}
    HARNESS.check(got, expected)


def test_s03_const_shape_arg():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(0.5, shape=[2, 3])
    b = tf.constant([1, 2, 3, 4, 5, 6], shape=[2, 3])
    c = tf.constant(7, shape=[3], dtype=tf.int64)
    out("a", a)
    out("b", b)
    out("c", c)
    catch("bad", lambda: tf.constant([1, 2, 3], shape=[2, 2]))
    catch("float_as_int", lambda: tf.constant(1.5, dtype=tf.int32))
    catch("str_as_float", lambda: tf.constant("x", dtype=tf.float32))
    with tf.Session() as s:
        out("vals", s.run([a, b, c]))
    expected = {'a': {'tensor': 'Const:0', 'dtype': 'float32', 'shape': '(2, 3)'},
     'b': {'tensor': 'Const_1:0', 'dtype': 'int32', 'shape': '(2, 3)'},
     'c': {'tensor': 'Const_2:0', 'dtype': 'int64', 'shape': '(3,)'},
     'bad': {'tensor': 'Const_3:0', 'dtype': 'int32', 'shape': '(2, 2)'},
     'float_as_int': {'exc': 'TypeError', 'msg': "Expected int32, but got 1.5 of type 'float'."},
     'str_as_float': {'exc': 'TypeError', 'msg': "Expected float32, but got x of type 'str'."},
     'vals': [{'nd': 'float32', 'shape': [2, 3], 'v': [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]},
              {'nd': 'int32', 'shape': [2, 3], 'v': [[1, 2, 3], [4, 5, 6]]},
              {'nd': 'int64', 'shape': [3], 'v': [7, 7, 7]}]}
    HARNESS.check(got, expected)


def test_s04_fetched_scalar_types():
    out, catch, got = HARNESS.recorder()
    with tf.Session() as s:
        out("i", s.run(tf.constant(1)))
        out("f", s.run(tf.constant(1.0)))
        out("b", s.run(tf.constant(True)))
        out("s", s.run(tf.constant("hi")))
        out("d", s.run(tf.constant(1.0, dtype=tf.float64)))
        out("i64", s.run(tf.constant(5, dtype=tf.int64)))
    expected = {'i': {'np': 'int32', 'v': 1},
     'f': {'np': 'float32', 'v': 1.0},
     'b': {'np': 'bool', 'v': True},
     's': {'py': 'bytes', 'v': "b'hi'"},
     'd': {'np': 'float64', 'v': 1.0},
     'i64': {'np': 'int64', 'v': 5}}
    HARNESS.check(got, expected)


def test_s05_float_tensor_with_python_scalars():
    out, catch, got = HARNESS.recorder()
    x = tf.constant([1.0, 2.0, 4.0])
    ts = {"add": x + 1, "radd": 1 + x, "mul": x * 2, "div": x / 2, "rdiv": 2 / x, "sub": x - 1,
          "rsub": 10 - x, "neg": -x, "pow": x ** 2, "abs": abs(-x), "floordiv": x // 3, "mod": x % 3,
          "rpow": 2 ** x, "rmul": 3 * x}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'add': {'tensor': 'add:0', 'dtype': 'float32', 'shape': '(3,)'},
     'radd': {'tensor': 'add_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'mul': {'tensor': 'mul:0', 'dtype': 'float32', 'shape': '(3,)'},
     'div': {'tensor': 'truediv:0', 'dtype': 'float32', 'shape': '(3,)'},
     'rdiv': {'tensor': 'truediv_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'sub': {'tensor': 'sub:0', 'dtype': 'float32', 'shape': '(3,)'},
     'rsub': {'tensor': 'sub_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'neg': {'tensor': 'Neg:0', 'dtype': 'float32', 'shape': '(3,)'},
     'pow': {'tensor': 'pow:0', 'dtype': 'float32', 'shape': '(3,)'},
     'abs': {'tensor': 'Abs:0', 'dtype': 'float32', 'shape': '(3,)'},
     'floordiv': {'tensor': 'floordiv:0', 'dtype': 'float32', 'shape': '(3,)'},
     'mod': {'tensor': 'mod:0', 'dtype': 'float32', 'shape': '(3,)'},
     'rpow': {'tensor': 'pow_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'rmul': {'tensor': 'mul_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'vals': {'dict': {'abs': {'nd': 'float32', 'shape': [3], 'v': [1.0, 2.0, 4.0]},
                       'add': {'nd': 'float32', 'shape': [3], 'v': [2.0, 3.0, 5.0]},
                       'div': {'nd': 'float32', 'shape': [3], 'v': [0.5, 1.0, 2.0]},
                       'floordiv': {'nd': 'float32', 'shape': [3], 'v': [0.0, 0.0, 1.0]},
                       'mod': {'nd': 'float32', 'shape': [3], 'v': [1.0, 2.0, 1.0]},
                       'mul': {'nd': 'float32', 'shape': [3], 'v': [2.0, 4.0, 8.0]},
                       'neg': {'nd': 'float32', 'shape': [3], 'v': [-1.0, -2.0, -4.0]},
                       'pow': {'nd': 'float32', 'shape': [3], 'v': [1.0, 4.0, 16.0]},
                       'radd': {'nd': 'float32', 'shape': [3], 'v': [2.0, 3.0, 5.0]},
                       'rdiv': {'nd': 'float32', 'shape': [3], 'v': [2.0, 1.0, 0.5]},
                       'rmul': {'nd': 'float32', 'shape': [3], 'v': [3.0, 6.0, 12.0]},
                       'rpow': {'nd': 'float32', 'shape': [3], 'v': [2.0, 4.0, 16.0]},
                       'rsub': {'nd': 'float32', 'shape': [3], 'v': [9.0, 8.0, 6.0]},
                       'sub': {'nd': 'float32', 'shape': [3], 'v': [0.0, 1.0, 3.0]}}}}
    HARNESS.check(got, expected)


def test_s06_int_division():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([7, -7, 6])
    b = tf.constant([2, 2, -4])
    ts = {"truediv_op": a / b, "floordiv_op": a // b, "mod_op": a % b, "tf_div": tf.div(a, b),
          "tf_divide": tf.divide(a, b), "tf_truediv": tf.truediv(a, b), "tf_floordiv": tf.floordiv(a, b),
          "tf_mod": tf.mod(a, b), "int_div_scalar": a / 2}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    catch("div_by_zero_int", lambda: tf.Session().run(tf.constant(1) // tf.constant(0)))
    expected = {'truediv_op': {'tensor': 'truediv:0', 'dtype': 'float64', 'shape': '(3,)'},
     'floordiv_op': {'tensor': 'floordiv:0', 'dtype': 'int32', 'shape': '(3,)'},
     'mod_op': {'tensor': 'mod:0', 'dtype': 'int32', 'shape': '(3,)'},
     'tf_div': {'tensor': 'div:0', 'dtype': 'int32', 'shape': '(3,)'},
     'tf_divide': {'tensor': 'truediv_1:0', 'dtype': 'float64', 'shape': '(3,)'},
     'tf_truediv': {'tensor': 'truediv_2:0', 'dtype': 'float64', 'shape': '(3,)'},
     'tf_floordiv': {'tensor': 'floordiv_1:0', 'dtype': 'int32', 'shape': '(3,)'},
     'tf_mod': {'tensor': 'FloorMod:0', 'dtype': 'int32', 'shape': '(3,)'},
     'int_div_scalar': {'tensor': 'truediv_3:0', 'dtype': 'float64', 'shape': '(3,)'},
     'vals': {'dict': {'floordiv_op': {'nd': 'int32', 'shape': [3], 'v': [3, -4, -2]},
                       'int_div_scalar': {'nd': 'float64', 'shape': [3], 'v': [3.5, -3.5, 3.0]},
                       'mod_op': {'nd': 'int32', 'shape': [3], 'v': [1, 1, -2]},
                       'tf_div': {'nd': 'int32', 'shape': [3], 'v': [3, -4, -2]},
                       'tf_divide': {'nd': 'float64', 'shape': [3], 'v': [3.5, -3.5, -1.5]},
                       'tf_floordiv': {'nd': 'int32', 'shape': [3], 'v': [3, -4, -2]},
                       'tf_mod': {'nd': 'int32', 'shape': [3], 'v': [1, 1, -2]},
                       'tf_truediv': {'nd': 'float64', 'shape': [3], 'v': [3.5, -3.5, -1.5]},
                       'truediv_op': {'nd': 'float64', 'shape': [3], 'v': [3.5, -3.5, -1.5]}}},
     'div_by_zero_int': {'exc': 'InvalidArgumentError',
                         'msg': 'Integer division by zero',
                         'op': 'floordiv_2'}}
    HARNESS.check(got, expected)


def test_s07_int64_and_float64_division():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([7, 9], dtype=tf.int64)
    f = tf.constant([1.0, 3.0], dtype=tf.float64)
    out("a_div", a / 2)
    out("f_div", f / 2)
    out("f16", tf.constant([1.0], dtype=tf.float16) / 2)
    with tf.Session() as s:
        out("vals", s.run([a / 2, f / 3, tf.constant([1.0], dtype=tf.float16) / 3]))
    expected = {'a_div': {'tensor': 'truediv:0', 'dtype': 'float64', 'shape': '(2,)'},
     'f_div': {'tensor': 'truediv_1:0', 'dtype': 'float64', 'shape': '(2,)'},
     'f16': {'tensor': 'truediv_2:0', 'dtype': 'float16', 'shape': '(1,)'},
     'vals': [{'nd': 'float64', 'shape': [2], 'v': [3.5, 4.5]},
              {'nd': 'float64', 'shape': [2], 'v': [0.3333, 1.0]},
              {'nd': 'float16', 'shape': [1], 'v': [0.3333]}]}
    HARNESS.check(got, expected)


def test_s08_dtype_mismatch_binary():
    out, catch, got = HARNESS.recorder()
    catch("int_plus_float_tensor", lambda: tf.constant(1) + tf.constant(1.0))
    catch("tf_add_mixed", lambda: tf.add(tf.constant([1]), tf.constant([1.5])))
    catch("int_tensor_plus_float_scalar", lambda: tf.constant([1, 2]) + 1.5)
    catch("float_tensor_plus_int64", lambda: tf.constant([1.0]) + tf.constant([1], dtype=tf.int64))
    catch("matmul_mixed", lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], dtype=tf.int32)))
    catch("f32_plus_f64", lambda: tf.constant(1.0) + tf.constant(1.0, dtype=tf.float64))
    catch("float_plus_numpy_f64", lambda: tf.constant([1.0]) + np.array([2.0]))
    expected = {'int_plus_float_tensor': {'exc': 'TypeError',
                               'msg': "Input 'y' of 'AddV2' Op has type float32 that does not match type "
                                      "int32 of argument 'x'."},
     'tf_add_mixed': {'exc': 'TypeError',
                      'msg': "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of "
                             "argument 'x'."},
     'int_tensor_plus_float_scalar': {'exc': 'TypeError',
                                      'msg': "Input 'y' of 'AddV2' Op has type float32 that does not match "
                                             "type int32 of argument 'x'."},
     'float_tensor_plus_int64': {'exc': 'TypeError',
                                 'msg': "Input 'y' of 'AddV2' Op has type int64 that does not match type "
                                        "float32 of argument 'x'."},
     'matmul_mixed': {'exc': 'TypeError',
                      'msg': "Input 'b' of 'MatMul' Op has type int32 that does not match type float32 of "
                             "argument 'a'."},
     'f32_plus_f64': {'exc': 'TypeError',
                      'msg': "Input 'y' of 'AddV2' Op has type float64 that does not match type float32 of "
                             "argument 'x'."},
     'float_plus_numpy_f64': {'tensor': 'add_5:0', 'dtype': 'float32', 'shape': '(1,)'}}
    HARNESS.check(got, expected)


def test_s09_incompatible_shapes_graph_time():
    out, catch, got = HARNESS.recorder()
    catch("add", lambda: tf.constant([1, 2, 3]) + tf.constant([1, 2]))
    catch("mul_2d", lambda: tf.ones([2, 3]) * tf.ones([3, 2]))
    catch("matmul", lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])))
    catch("matmul_rank1", lambda: tf.matmul(tf.ones([3]), tf.ones([3, 2])))
    x = tf.placeholder(tf.float32, [None, 3])
    catch("ph_add", lambda: x + tf.ones([4]))
    out("ph_ok", x + tf.ones([3]))
    expected = {'add': {'exc': 'ValueError',
             'msg': "Dimensions must be equal, but are 3 and 2 for '{{node add}} = "
                    "AddV2[T=DT_INT32](Const, Const_1)' with input shapes: [3], [2]."},
     'mul_2d': {'exc': 'ValueError',
                'msg': "Dimensions must be equal, but are 2 and 3 for '{{node mul}} = "
                       "Mul[T=DT_FLOAT](ones, ones_1)' with input shapes: [2,3], [3,2]."},
     'matmul': {'exc': 'ValueError',
                'msg': "Dimensions must be equal, but are 3 and 4 for '{{node MatMul}} = "
                       'MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, transpose_a=false, '
                       "transpose_b=false](ones_2, ones_3)' with input shapes: [2,3], [4,5]."},
     'matmul_rank1': {'exc': 'ValueError',
                      'msg': "Shape must be rank 2 but is rank 1 for '{{node MatMul_1}} = "
                             'MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, transpose_a=false, '
                             "transpose_b=false](ones_4, ones_5)' with input shapes: [3], [3,2]."},
     'ph_add': {'exc': 'ValueError',
                'msg': "Dimensions must be equal, but are 3 and 4 for '{{node add_1}} = "
                       "AddV2[T=DT_FLOAT](Placeholder, ones_6)' with input shapes: [?,3], [4]."},
     'ph_ok': {'tensor': 'add_2:0', 'dtype': 'float32', 'shape': '(?, 3)'}}
    HARNESS.check(got, expected)


def test_s10_incompatible_shapes_run_time():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    z = x + y
    out("z", z)
    with tf.Session() as s:
        catch("run", lambda: s.run(z, {x: [1.0, 2.0, 3.0], y: [1.0, 2.0]}))
        out("ok", s.run(z, {x: [[1.0], [2.0]], y: [1.0, 2.0, 3.0]}))
    expected = {'z': {'tensor': 'add:0', 'dtype': 'float32', 'shape': '<unknown>'},
     'run': {'exc': 'InvalidArgumentError', 'msg': 'Incompatible shapes: [3] vs. [2]', 'op': 'add'},
     'ok': {'nd': 'float32', 'shape': [2, 3], 'v': [[2.0, 3.0, 4.0], [3.0, 4.0, 5.0]]}}
    HARNESS.check(got, expected)


def test_s11_broadcasting_static_shapes():
    out, catch, got = HARNESS.recorder()
    a = tf.ones([3, 1])
    b = tf.ones([1, 4])
    out("ab", a + b)
    x = tf.placeholder(tf.float32, [None, 3])
    out("xb", x * tf.ones([3]))
    out("x_scalar", x - 1.0)
    u = tf.placeholder(tf.float32)
    out("unknown", u + a)
    p = tf.placeholder(tf.float32, [None, None])
    out("partial", p + tf.ones([5, 1]))
    with tf.Session() as s:
        out("val", s.run(a + b))
    expected = {'ab': {'tensor': 'add:0', 'dtype': 'float32', 'shape': '(3, 4)'},
     'xb': {'tensor': 'mul:0', 'dtype': 'float32', 'shape': '(?, 3)'},
     'x_scalar': {'tensor': 'sub:0', 'dtype': 'float32', 'shape': '(?, 3)'},
     'unknown': {'tensor': 'add_1:0', 'dtype': 'float32', 'shape': '<unknown>'},
     'partial': {'tensor': 'add_2:0', 'dtype': 'float32', 'shape': '(5, ?)'},
     'val': {'nd': 'float32',
             'shape': [3, 4],
             'v': [[2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]}}
    HARNESS.check(got, expected)


def test_s12_comparisons_and_logical():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 5, 3])
    b = tf.constant([2, 5, 1])
    ts = {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "tf_greater": tf.greater(a, b),
          "and": tf.logical_and(a > 1, b > 1), "or": tf.logical_or(a > 4, b > 4),
          "not": tf.logical_not(a > b), "xor": tf.logical_xor(a > 1, b > 1), "amp": (a > 1) & (b > 1),
          "pipe": (a > 4) | (b > 4), "invert": ~(a > b), "max": tf.maximum(a, b), "min": tf.minimum(a, 2)}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'gt': {'tensor': 'Greater:0', 'dtype': 'bool', 'shape': '(3,)'},
     'ge': {'tensor': 'GreaterEqual:0', 'dtype': 'bool', 'shape': '(3,)'},
     'lt': {'tensor': 'Less:0', 'dtype': 'bool', 'shape': '(3,)'},
     'le': {'tensor': 'LessEqual:0', 'dtype': 'bool', 'shape': '(3,)'},
     'tf_greater': {'tensor': 'Greater_1:0', 'dtype': 'bool', 'shape': '(3,)'},
     'and': {'tensor': 'LogicalAnd:0', 'dtype': 'bool', 'shape': '(3,)'},
     'or': {'tensor': 'LogicalOr:0', 'dtype': 'bool', 'shape': '(3,)'},
     'not': {'tensor': 'LogicalNot:0', 'dtype': 'bool', 'shape': '(3,)'},
     'xor': {'tensor': 'LogicalXor:0', 'dtype': 'bool', 'shape': '(3,)'},
     'amp': {'tensor': 'and:0', 'dtype': 'bool', 'shape': '(3,)'},
     'pipe': {'tensor': 'or:0', 'dtype': 'bool', 'shape': '(3,)'},
     'invert': {'tensor': 'LogicalNot_2:0', 'dtype': 'bool', 'shape': '(3,)'},
     'max': {'tensor': 'Maximum:0', 'dtype': 'int32', 'shape': '(3,)'},
     'min': {'tensor': 'Minimum:0', 'dtype': 'int32', 'shape': '(3,)'},
     'vals': {'dict': {'amp': {'nd': 'bool', 'shape': [3], 'v': [False, True, False]},
                       'and': {'nd': 'bool', 'shape': [3], 'v': [False, True, False]},
                       'ge': {'nd': 'bool', 'shape': [3], 'v': [False, True, True]},
                       'gt': {'nd': 'bool', 'shape': [3], 'v': [False, False, True]},
                       'invert': {'nd': 'bool', 'shape': [3], 'v': [True, True, False]},
                       'le': {'nd': 'bool', 'shape': [3], 'v': [True, True, False]},
                       'lt': {'nd': 'bool', 'shape': [3], 'v': [True, False, False]},
                       'max': {'nd': 'int32', 'shape': [3], 'v': [2, 5, 3]},
                       'min': {'nd': 'int32', 'shape': [3], 'v': [1, 2, 2]},
                       'not': {'nd': 'bool', 'shape': [3], 'v': [True, True, False]},
                       'or': {'nd': 'bool', 'shape': [3], 'v': [False, True, False]},
                       'pipe': {'nd': 'bool', 'shape': [3], 'v': [False, True, False]},
                       'tf_greater': {'nd': 'bool', 'shape': [3], 'v': [False, False, True]},
                       'xor': {'nd': 'bool', 'shape': [3], 'v': [True, False, True]}}}}
    HARNESS.check(got, expected)


def test_s13_equal_not_equal():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 2, 3])
    e = tf.equal(a, 2)
    n = tf.not_equal(a, 2)
    out("e", e)
    out("n", n)
    with tf.Session() as s:
        out("vals", s.run([e, n]))
    expected = {'e': {'tensor': 'Equal:0', 'dtype': 'bool', 'shape': '(3,)'},
     'n': {'tensor': 'NotEqual:0', 'dtype': 'bool', 'shape': '(3,)'},
     'vals': [{'nd': 'bool', 'shape': [3], 'v': [False, True, False]},
              {'nd': 'bool', 'shape': [3], 'v': [True, False, True]}]}
    HARNESS.check(got, expected)


def test_s14_unary_math():
    out, catch, got = HARNESS.recorder()
    x = tf.constant([1.0, 4.0, 9.0])
    ts = {"sqrt": tf.sqrt(x), "exp": tf.exp(x / 9), "log": tf.log(x), "square": tf.square(x),
          "tanh": tf.tanh(x / 9), "sigmoid": tf.sigmoid(x / 9), "rsqrt": tf.rsqrt(x)}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'sqrt': {'tensor': 'Sqrt:0', 'dtype': 'float32', 'shape': '(3,)'},
     'exp': {'tensor': 'Exp:0', 'dtype': 'float32', 'shape': '(3,)'},
     'log': {'tensor': 'Log:0', 'dtype': 'float32', 'shape': '(3,)'},
     'square': {'tensor': 'Square:0', 'dtype': 'float32', 'shape': '(3,)'},
     'tanh': {'tensor': 'Tanh:0', 'dtype': 'float32', 'shape': '(3,)'},
     'sigmoid': {'tensor': 'Sigmoid:0', 'dtype': 'float32', 'shape': '(3,)'},
     'rsqrt': {'tensor': 'Rsqrt:0', 'dtype': 'float32', 'shape': '(3,)'},
     'vals': {'dict': {'exp': {'nd': 'float32', 'shape': [3], 'v': [1.1175, 1.5596, 2.7183]},
                       'log': {'nd': 'float32', 'shape': [3], 'v': [0.0, 1.3863, 2.1972]},
                       'rsqrt': {'nd': 'float32', 'shape': [3], 'v': [1.0, 0.5, 0.3333]},
                       'sigmoid': {'nd': 'float32', 'shape': [3], 'v': [0.5277, 0.6093, 0.7311]},
                       'sqrt': {'nd': 'float32', 'shape': [3], 'v': [1.0, 2.0, 3.0]},
                       'square': {'nd': 'float32', 'shape': [3], 'v': [1.0, 16.0, 81.0]},
                       'tanh': {'nd': 'float32', 'shape': [3], 'v': [0.1107, 0.4173, 0.7616]}}}}
    HARNESS.check(got, expected)


def test_s15_operator_op_names():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ts = [a + b, a - b, a * b, a / b, a // b, a % b, -a, a ** b, abs(a), m @ m, a > b, a < b, a >= b,
          a <= b, a + b, a * 2, 2 * a]
    out("names", [(t.op.name, t.op.type) for t in ts])
    out("inputs_of_scalar_mul", [i.name for i in ts[-1].op.inputs])
    out("ops", [o.name for o in tf.get_default_graph().get_operations()])
    expected = {'names': [{'tuple': ['add', 'AddV2']},
               {'tuple': ['sub', 'Sub']},
               {'tuple': ['mul', 'Mul']},
               {'tuple': ['truediv', 'RealDiv']},
               {'tuple': ['floordiv', 'FloorDiv']},
               {'tuple': ['mod', 'FloorMod']},
               {'tuple': ['Neg', 'Neg']},
               {'tuple': ['pow', 'Pow']},
               {'tuple': ['Abs', 'Abs']},
               {'tuple': ['matmul', 'MatMul']},
               {'tuple': ['Greater', 'Greater']},
               {'tuple': ['Less', 'Less']},
               {'tuple': ['GreaterEqual', 'GreaterEqual']},
               {'tuple': ['LessEqual', 'LessEqual']},
               {'tuple': ['add_1', 'AddV2']},
               {'tuple': ['mul_1', 'Mul']},
               {'tuple': ['mul_2', 'Mul']}],
     'inputs_of_scalar_mul': ['mul_2/x:0', 'Const:0'],
     'ops': ['Const',
             'Const_1',
             'Const_2',
             'add',
             'sub',
             'mul',
             'truediv',
             'floordiv',
             'mod',
             'Neg',
             'pow',
             'Abs',
             'matmul',
             'Greater',
             'Less',
             'GreaterEqual',
             'LessEqual',
             'add_1',
             'mul_1/y',
             'mul_1',
             'mul_2/x',
             'mul_2']}
    HARNESS.check(got, expected)


def test_s16_function_op_names():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1.0, -2.0])
    ts = [tf.add(a, a), tf.subtract(a, a), tf.multiply(a, a), tf.divide(a, a), tf.truediv(a, a),
          tf.div(a, a), tf.realdiv(a, a), tf.negative(a), tf.abs(a), tf.square(a), tf.maximum(a, a),
          tf.minimum(a, a), tf.pow(a, 2.0), tf.reduce_sum(a), tf.reduce_mean(a), tf.reduce_max(a),
          tf.reduce_min(a), tf.reduce_prod(a), tf.cast(a, tf.int32), tf.nn.relu(a),
          tf.matmul([[1.0]], [[2.0]]), tf.identity(a), tf.to_float(a), tf.to_int32(a), tf.add(a, a),
          tf.floordiv(a, a), tf.floormod(a, a)]
    out("names", [(t.op.name, t.op.type) for t in ts])
    out("ops", [(o.name, o.type) for o in tf.get_default_graph().get_operations()])
    expected = {'names': [{'tuple': ['Add', 'AddV2']},
               {'tuple': ['Sub', 'Sub']},
               {'tuple': ['Mul', 'Mul']},
               {'tuple': ['truediv', 'RealDiv']},
               {'tuple': ['truediv_1', 'RealDiv']},
               {'tuple': ['div', 'RealDiv']},
               {'tuple': ['RealDiv', 'RealDiv']},
               {'tuple': ['Neg', 'Neg']},
               {'tuple': ['Abs', 'Abs']},
               {'tuple': ['Square', 'Square']},
               {'tuple': ['Maximum', 'Maximum']},
               {'tuple': ['Minimum', 'Minimum']},
               {'tuple': ['Pow', 'Pow']},
               {'tuple': ['Sum', 'Sum']},
               {'tuple': ['Mean', 'Mean']},
               {'tuple': ['Max', 'Max']},
               {'tuple': ['Min', 'Min']},
               {'tuple': ['Prod', 'Prod']},
               {'tuple': ['Cast', 'Cast']},
               {'tuple': ['Relu', 'Relu']},
               {'tuple': ['MatMul', 'MatMul']},
               {'tuple': ['Identity', 'Identity']},
               {'tuple': ['Const', 'Const']},
               {'tuple': ['ToInt32', 'Cast']},
               {'tuple': ['Add_1', 'AddV2']},
               {'tuple': ['floordiv', 'FloorDiv']},
               {'tuple': ['FloorMod', 'FloorMod']}],
     'ops': [{'tuple': ['Const', 'Const']},
             {'tuple': ['Add', 'AddV2']},
             {'tuple': ['Sub', 'Sub']},
             {'tuple': ['Mul', 'Mul']},
             {'tuple': ['truediv', 'RealDiv']},
             {'tuple': ['truediv_1', 'RealDiv']},
             {'tuple': ['div', 'RealDiv']},
             {'tuple': ['RealDiv', 'RealDiv']},
             {'tuple': ['Neg', 'Neg']},
             {'tuple': ['Abs', 'Abs']},
             {'tuple': ['Square', 'Square']},
             {'tuple': ['Maximum', 'Maximum']},
             {'tuple': ['Minimum', 'Minimum']},
             {'tuple': ['Pow/y', 'Const']},
             {'tuple': ['Pow', 'Pow']},
             {'tuple': ['Const_1', 'Const']},
             {'tuple': ['Sum', 'Sum']},
             {'tuple': ['Const_2', 'Const']},
             {'tuple': ['Mean', 'Mean']},
             {'tuple': ['Const_3', 'Const']},
             {'tuple': ['Max', 'Max']},
             {'tuple': ['Const_4', 'Const']},
             {'tuple': ['Min', 'Min']},
             {'tuple': ['Const_5', 'Const']},
             {'tuple': ['Prod', 'Prod']},
             {'tuple': ['Cast', 'Cast']},
             {'tuple': ['Relu', 'Relu']},
             {'tuple': ['MatMul/a', 'Const']},
             {'tuple': ['MatMul/b', 'Const']},
             {'tuple': ['MatMul', 'MatMul']},
             {'tuple': ['Identity', 'Identity']},
             {'tuple': ['ToInt32', 'Cast']},
             {'tuple': ['Add_1', 'AddV2']},
             {'tuple': ['floordiv', 'FloorDiv']},
             {'tuple': ['FloorMod', 'FloorMod']}]}
    HARNESS.check(got, expected)


def test_s17_explicit_and_unique_names():
    out, catch, got = HARNESS.recorder()
    c1 = tf.constant(1, name="c")
    c2 = tf.constant(2, name="c")
    c3 = tf.constant(3, name="c_1")
    c4 = tf.constant(4, name="c")
    add = tf.add(c1, c2, name="sum")
    add2 = tf.add(c1, c2, name="sum")
    out("names", [t.name for t in [c1, c2, c3, c4, add, add2]])
    g = tf.get_default_graph()
    out("by_name", g.get_tensor_by_name("sum:0"))
    out("op_by_name", g.get_operation_by_name("sum_1"))
    catch("missing_tensor", lambda: g.get_tensor_by_name("nope:0"))
    catch("missing_op", lambda: g.get_operation_by_name("nope"))
    catch("bad_name", lambda: g.get_tensor_by_name("sum"))
    out("as_graph_element", g.as_graph_element("c:0"))
    expected = {'names': ['c:0', 'c_1:0', 'c_1_1:0', 'c_2:0', 'sum:0', 'sum_1:0'],
     'by_name': {'tensor': 'sum:0', 'dtype': 'int32', 'shape': '()'},
     'op_by_name': {'op': 'sum_1', 'type': 'AddV2'},
     'missing_tensor': {'exc': 'KeyError',
                        'msg': '"The name \'nope:0\' refers to a Tensor which does not exist. The '
                               'operation, \'nope\', does not exist in the graph."'},
     'missing_op': {'exc': 'KeyError',
                    'msg': '"The name \'nope\' refers to an Operation not in the graph."'},
     'bad_name': {'exc': 'ValueError',
                  'msg': "The name 'sum' refers to an Operation, not a Tensor. Tensor names must be of the "
                         'form "<op_name>:<output_index>".'},
     'as_graph_element': {'tensor': 'c:0', 'dtype': 'int32', 'shape': '()'}}
    HARNESS.check(got, expected)


def test_s18_name_scopes():
    out, catch, got = HARNESS.recorder()
    with tf.name_scope("outer") as sc:
        out("scope_str", sc)
        a = tf.constant(1, name="a")
        with tf.name_scope("inner"):
            b = tf.add(a, a)
            c = a * 2
        with tf.name_scope("inner"):
            d = tf.identity(a)
    with tf.name_scope("outer"):
        e = tf.constant(1)
    with tf.name_scope("abs/"):
        f = tf.constant(1)
    with tf.name_scope(None):
        g = tf.constant(1)
    with tf.name_scope("outer"):
        with tf.name_scope(None):
            h = tf.constant(1)
    out("names", [t.name for t in [a, b, c, d, e, f, g, h]])
    out("scalar_mul_inputs", [i.name for i in c.op.inputs])
    expected = {'scope_str': 'outer/',
     'names': ['outer/a:0',
               'outer/inner/Add:0',
               'outer/inner/mul:0',
               'outer/inner_1/Identity:0',
               'outer_1/Const:0',
               'abs/Const:0',
               'Const:0',
               'Const_1:0'],
     'scalar_mul_inputs': ['outer/a:0', 'outer/inner/mul/y:0']}
    HARNESS.check(got, expected)


def test_s19_graph_name_scope_and_unique_name():
    out, catch, got = HARNESS.recorder()
    g = tf.get_default_graph()
    with g.name_scope("s") as sc:
        out("sc", sc)
        out("unique", g.unique_name("foo"))
        out("unique_nomark", g.unique_name("foo", mark_as_used=False))
        out("unique2", g.unique_name("foo"))
    out("get_name_scope", g.get_name_scope())
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            out("nested_scope", g.get_name_scope())
    expected = {'sc': 's/',
     'unique': 's/foo',
     'unique_nomark': 's/foo_1',
     'unique2': 's/foo_1',
     'get_name_scope': '',
     'nested_scope': 'a/b'}
    HARNESS.check(got, expected)


def test_s20_placeholder_basic():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
    y = tf.reduce_sum(x, axis=1)
    out("x", x)
    out("y", y)
    with tf.Session() as s:
        out("run", s.run(y, feed_dict={x: [[1, 2], [3, 4], [5, 6]]}))
        out("run_np64", s.run(y, feed_dict={x: np.ones((1, 2))}))
        out("run_by_name", s.run("Sum:0", feed_dict={"x:0": [[1, 1]]}))
        out("fetch_feed", s.run(x, feed_dict={x: [[1.5, 2.5]]}))
    expected = {'x': {'tensor': 'x:0', 'dtype': 'float32', 'shape': '(?, 2)'},
     'y': {'tensor': 'Sum:0', 'dtype': 'float32', 'shape': '(?,)'},
     'run': {'nd': 'float32', 'shape': [3], 'v': [3.0, 7.0, 11.0]},
     'run_np64': {'nd': 'float32', 'shape': [1], 'v': [2.0]},
     'run_by_name': {'nd': 'float32', 'shape': [1], 'v': [2.0]},
     'fetch_feed': {'nd': 'float32', 'shape': [1, 2], 'v': [[1.5, 2.5]]}}
    HARNESS.check(got, expected)


def test_s21_placeholder_wrong_feed_shape():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    y = x * 2
    with tf.Session() as s:
        catch("wrong_shape", lambda: s.run(y, {x: [1.0, 2.0, 3.0]}))
        catch("wrong_rank", lambda: s.run(y, {x: [[1.0, 2.0]]}))
        catch("scalar", lambda: s.run(y, {x: 1.0}))
    p = tf.placeholder(tf.float32, shape=[None, 3], name="p")
    with tf.Session() as s:
        catch("wrong_inner", lambda: s.run(p, {p: np.ones((2, 4))}))
    expected = {'wrong_shape': {'exc': 'ValueError',
                     'msg': 'Cannot feed value of shape (3,) for Tensor x:0, which has shape (2,)'},
     'wrong_rank': {'exc': 'ValueError',
                    'msg': 'Cannot feed value of shape (1, 2) for Tensor x:0, which has shape (2,)'},
     'scalar': {'exc': 'ValueError',
                'msg': 'Cannot feed value of shape () for Tensor x:0, which has shape (2,)'},
     'wrong_inner': {'exc': 'ValueError',
                     'msg': 'Cannot feed value of shape (2, 4) for Tensor p:0, which has shape (?, 3)'}}
    HARNESS.check(got, expected)


def test_s22_placeholder_not_fed():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    y = x * 2
    z = tf.placeholder(tf.int32, name="z")
    with tf.Session() as s:
        catch("unfed", lambda: s.run(y))
        catch("unfed_unknown_shape", lambda: s.run(z + 1))
        catch("unfed_partial", lambda: s.run(tf.placeholder(tf.float32, [None, 3], name="q")))
    expected = {'unfed': {'exc': 'InvalidArgumentError',
               'msg': "You must feed a value for placeholder tensor 'x' with dtype float and shape [2]",
               'op': 'x'},
     'unfed_unknown_shape': {'exc': 'InvalidArgumentError',
                             'msg': "You must feed a value for placeholder tensor 'z' with dtype int32",
                             'op': 'z'},
     'unfed_partial': {'exc': 'InvalidArgumentError',
                       'msg': "You must feed a value for placeholder tensor 'q' with dtype float and shape "
                              '[?,3]',
                       'op': 'q'}}
    HARNESS.check(got, expected)


def test_s23_feed_dtype_conversion():
    # message differs from TF, class asserted: str_into_float
    out, catch, got = HARNESS.recorder()
    i = tf.placeholder(tf.int32, name="i")
    f = tf.placeholder(tf.float32, name="f")
    b = tf.placeholder(tf.bool, name="b")
    with tf.Session() as s:
        catch("float_into_int", lambda: s.run(i, {i: [1.7, -1.7]}))
        catch("int_into_float", lambda: s.run(f, {f: 3}))
        catch("f64_into_f32", lambda: s.run(f, {f: np.array([0.1], dtype=np.float64)}))
        catch("str_into_float", lambda: s.run(f, {f: "abc"}))
        catch("int_into_bool", lambda: s.run(b, {b: [0, 1]}))
        catch("bool_into_int", lambda: s.run(i, {i: True}))
        catch("none_feed", lambda: s.run(f, {f: None}))
        catch("ragged", lambda: s.run(f, {f: [[1.0], [1.0, 2.0]]}))
    expected = {'float_into_int': {'nd': 'int32', 'shape': [2], 'v': [1, -1]},
     'int_into_float': {'nd': 'float32', 'shape': [], 'v': 3.0},
     'f64_into_f32': {'nd': 'float32', 'shape': [1], 'v': [0.1]},
     'int_into_bool': {'nd': 'bool', 'shape': [2], 'v': [False, True]},
     'bool_into_int': {'nd': 'int32', 'shape': [], 'v': 1},
     'none_feed': {'nd': 'float32', 'shape': [], 'v': 'nan'},
     'ragged': {'exc': 'ValueError',
                'msg': 'setting an array element with a sequence. The requested array has an inhomogeneous '
                       'shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.'}}
    HARNESS.check(got, expected, classes={'str_into_float': 'ValueError'})


def test_s24_feed_non_placeholder():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(2.0, name="a")
    b = a * 3
    c = b + 1
    with tf.Session() as s:
        out("plain", s.run(c))
        out("feed_intermediate", s.run(c, {b: 10.0}))
        out("feed_const", s.run(c, {a: 5.0}))
        tf.get_default_graph().prevent_feeding(b)
        catch("prevented", lambda: s.run(c, {b: 1.0}))
        catch("feed_key_str_missing", lambda: s.run(c, {"nope:0": 1.0}))
        catch("feed_key_int", lambda: s.run(c, {1: 1.0}))
        catch("feed_op", lambda: s.run(c, {c.op: 1.0}))
    expected = {'plain': {'np': 'float32', 'v': 7.0},
     'feed_intermediate': {'np': 'float32', 'v': 11.0},
     'feed_const': {'np': 'float32', 'v': 16.0},
     'prevented': {'exc': 'ValueError', 'msg': 'Tensor mul:0 may not be fed.'},
     'feed_key_str_missing': {'exc': 'TypeError',
                              'msg': "Cannot interpret feed_dict key as Tensor: The name 'nope:0' refers "
                                     "to a Tensor which does not exist. The operation, 'nope', does not "
                                     'exist in the graph.'},
     'feed_key_int': {'exc': 'TypeError',
                      'msg': 'Cannot interpret feed_dict key as Tensor: Can not convert a int into a '
                             'Tensor.'},
     'feed_op': {'exc': 'TypeError',
                 'msg': 'Cannot interpret feed_dict key as Tensor: Can not convert a Operation into a '
                        'Tensor.'}}
    HARNESS.check(got, expected)


def test_s25_placeholder_with_default():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=[None], name="x")
    y = x * 2
    out("x", x)
    with tf.Session() as s:
        out("default", s.run(y))
        out("fed", s.run(y, {x: [5.0, 6.0, 7.0]}))
    z = tf.placeholder_with_default(3, shape=[])
    out("z", z)
    with tf.Session() as s:
        out("z_val", s.run(z))
    expected = {'x': {'tensor': 'x:0', 'dtype': 'float32', 'shape': '(?,)'},
     'default': {'nd': 'float32', 'shape': [2], 'v': [2.0, 4.0]},
     'fed': {'nd': 'float32', 'shape': [3], 'v': [10.0, 12.0, 14.0]},
     'z': {'tensor': 'PlaceholderWithDefault:0', 'dtype': 'int32', 'shape': '()'},
     'z_val': {'np': 'int32', 'v': 3}}
    HARNESS.check(got, expected)


def test_s26_fetch_errors():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(1.0, name="a")
    with tf.Session() as s:
        catch("fetch_none", lambda: s.run(None))
        catch("fetch_missing_name", lambda: s.run("nope:0"))
        catch("fetch_missing_op", lambda: s.run("nope"))
        catch("fetch_int", lambda: s.run(3))
        catch("fetch_bad_index", lambda: s.run("a:1"))
        g2 = tf.Graph()
        with g2.as_default():
            b = tf.constant(2.0, name="b")
        catch("other_graph", lambda: s.run(b))
        out("ok", s.run(a))
    expected = {'fetch_none': {'exc': 'TypeError',
                    'msg': 'Argument `fetch` = None has invalid type "NoneType". Cannot be None'},
     'fetch_missing_name': {'exc': 'ValueError',
                            'msg': 'Argument `fetch` = nope:0 cannot be interpreted as a Tensor. ("The '
                                   "name 'nope:0' refers to a Tensor which does not exist. The operation, "
                                   '\'nope\', does not exist in the graph.")'},
     'fetch_missing_op': {'exc': 'ValueError',
                          'msg': 'Argument `fetch` = nope cannot be interpreted as a Tensor. ("The name '
                                 '\'nope\' refers to an Operation not in the graph.")'},
     'fetch_int': {'exc': 'TypeError',
                   'msg': 'Argument `fetch` = 3 has invalid type "int" must be a string or Tensor. (Can '
                          'not convert a int into a Tensor or Operation.)'},
     'fetch_bad_index': {'exc': 'ValueError',
                         'msg': 'Argument `fetch` = a:1 cannot be interpreted as a Tensor. ("The name '
                                "'a:1' refers to a Tensor which does not exist. The operation, 'a', exists "
                                'but only has 1 outputs.")'},
     'other_graph': {'exc': 'ValueError',
                     'msg': 'Argument `fetch` = Tensor("b:0", shape=(), dtype=float32) cannot be '
                            'interpreted as a Tensor. (Tensor Tensor("b:0", shape=(), dtype=float32) is '
                            'not an element of this graph.)'},
     'ok': {'np': 'float32', 'v': 1.0}}
    HARNESS.check(got, expected)


def test_s27_fetch_structures():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(1, name="a")
    b = tf.constant([2.0, 3.0], name="b")
    Pair = collections.namedtuple("Pair", ["x", "y"])
    op = tf.no_op(name="nop")
    with tf.Session() as s:
        out("list", s.run([a, b]))
        out("tuple", s.run((a, b)))
        out("dict", s.run({"a": a, "b": b}))
        out("nested", s.run({"k": [a, (b, a)], "j": {"z": b}}))
        out("namedtuple", s.run(Pair(a, b)))
        out("dup", s.run([a, a, "a:0"]))
        out("op", s.run(op))
        out("op_in_list", s.run([op, a]))
        out("op_by_name", s.run("nop"))
        out("empty_list", s.run([]))
        out("empty_dict", s.run({}))
        out("ordered", s.run(collections.OrderedDict([("z", a), ("a", b)])))
    expected = {'list': [{'np': 'int32', 'v': 1}, {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]}],
     'tuple': {'tuple': [{'np': 'int32', 'v': 1}, {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]}]},
     'dict': {'dict': {'a': {'np': 'int32', 'v': 1},
                       'b': {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]}}},
     'nested': {'dict': {'j': {'dict': {'z': {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]}}},
                         'k': [{'np': 'int32', 'v': 1},
                               {'tuple': [{'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]},
                                          {'np': 'int32', 'v': 1}]}]}},
     'namedtuple': {'namedtuple': 'Pair',
                    'v': [{'np': 'int32', 'v': 1}, {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]}]},
     'dup': [{'np': 'int32', 'v': 1}, {'np': 'int32', 'v': 1}, {'np': 'int32', 'v': 1}],
     'op': None,
     'op_in_list': [None, {'np': 'int32', 'v': 1}],
     'op_by_name': None,
     'empty_list': [],
     'empty_dict': {'dict': {}},
     'ordered': {'dict': {'a': {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]},
                          'z': {'np': 'int32', 'v': 1}}}}
    HARNESS.check(got, expected)


def test_s28_cross_graph_ops():
    out, catch, got = HARNESS.recorder()
    g1 = tf.Graph()
    g2 = tf.Graph()
    with g1.as_default():
        a = tf.constant(1.0)
    with g2.as_default():
        b = tf.constant(2.0)
    catch("add", lambda: tf.add(a, b))
    catch("operator", lambda: a + b)
    out("same_graph", a.graph is g1)
    with g1.as_default():
        out("default_is_g1", tf.get_default_graph() is g1)
    with tf.Session(graph=g2) as s:
        out("run_g2", s.run(b))
        catch("run_g1_tensor", lambda: s.run(a))
    expected = {'add': {'exc': 'ValueError',
             'msg': 'Tensor("Const:0", shape=(), dtype=float32) must be from the same graph as '
                    'Tensor("Const:0", shape=(), dtype=float32) (graphs are <Graph object> and <Graph '
                    'object>).'},
     'operator': {'exc': 'ValueError',
                  'msg': 'Tensor("Const:0", shape=(), dtype=float32) must be from the same graph as '
                         'Tensor("Const:0", shape=(), dtype=float32) (graphs are <Graph object> and <Graph '
                         'object>).'},
     'same_graph': {'py': 'bool', 'v': True},
     'default_is_g1': {'py': 'bool', 'v': True},
     'run_g2': {'np': 'float32', 'v': 2.0},
     'run_g1_tensor': {'exc': 'ValueError',
                       'msg': 'Argument `fetch` = Tensor("Const:0", shape=(), dtype=float32) cannot be '
                              'interpreted as a Tensor. (Tensor Tensor("Const:0", shape=(), dtype=float32) '
                              'is not an element of this graph.)'}}
    HARNESS.check(got, expected)


def test_s29_reshape():
    # message differs from TF, class asserted: bad_graph
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 2, 3, 4, 5, 6])
    r = tf.reshape(a, [2, 3])
    r2 = tf.reshape(a, [-1, 2])
    r3 = tf.reshape(a, [3, -1, 1])
    out("r", r)
    out("r2", r2)
    out("r3", r3)
    catch("bad_graph", lambda: tf.reshape(a, [4, 2]))
    catch("two_minus_one", lambda: tf.reshape(a, [-1, -1]))
    with tf.Session() as s:
        out("vals", s.run([r, r2, r3]))
    expected = {'r': {'tensor': 'Reshape:0', 'dtype': 'int32', 'shape': '(2, 3)'},
     'r2': {'tensor': 'Reshape_1:0', 'dtype': 'int32', 'shape': '(3, 2)'},
     'r3': {'tensor': 'Reshape_2:0', 'dtype': 'int32', 'shape': '(3, 2, 1)'},
     'two_minus_one': {'tensor': 'Reshape_4:0', 'dtype': 'int32', 'shape': '(?, ?)'},
     'vals': [{'nd': 'int32', 'shape': [2, 3], 'v': [[1, 2, 3], [4, 5, 6]]},
              {'nd': 'int32', 'shape': [3, 2], 'v': [[1, 2], [3, 4], [5, 6]]},
              {'nd': 'int32', 'shape': [3, 2, 1], 'v': [[[1], [2]], [[3], [4]], [[5], [6]]]}]}
    HARNESS.check(got, expected, classes={'bad_graph': 'ValueError'})


def test_s30_reshape_run_time_error():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, name="x")
    r = tf.reshape(x, [2, 3])
    out("r", r)
    y = tf.placeholder(tf.float32, [None], name="y")
    r2 = tf.reshape(y, [-1, 4])
    out("r2", r2)
    with tf.Session() as s:
        catch("bad", lambda: s.run(r, {x: [1, 2, 3, 4, 5]}))
        catch("bad_infer", lambda: s.run(r2, {y: [1, 2, 3, 4, 5]}))
        out("ok", s.run(r2, {y: np.arange(8)}))
    expected = {'r': {'tensor': 'Reshape:0', 'dtype': 'float32', 'shape': '(2, 3)'},
     'r2': {'tensor': 'Reshape_1:0', 'dtype': 'float32', 'shape': '(?, 4)'},
     'bad': {'exc': 'InvalidArgumentError',
             'msg': 'Input to reshape is a tensor with 5 values, but the requested shape has 6',
             'op': 'Reshape'},
     'bad_infer': {'exc': 'InvalidArgumentError',
                   'msg': 'Input to reshape is a tensor with 5 values, but the requested shape requires a '
                          'multiple of 4',
                   'op': 'Reshape_1'},
     'ok': {'nd': 'float32', 'shape': [2, 4], 'v': [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]}}
    HARNESS.check(got, expected)


def test_s31_shape_size_rank():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    sh, sz, rk = tf.shape(x), tf.size(x), tf.rank(x)
    out("sh", sh)
    out("sz", sz)
    out("rk", rk)
    out("sh64", tf.shape(x, out_type=tf.int64))
    with tf.Session() as s:
        out("vals", s.run([sh, sz, rk], {x: np.zeros((5, 3))}))
        out("const_shape", s.run(tf.shape(tf.ones([2, 4]))))
    expected = {'sh': {'tensor': 'Shape:0', 'dtype': 'int32', 'shape': '(2,)'},
     'sz': {'tensor': 'Size:0', 'dtype': 'int32', 'shape': '()'},
     'rk': {'tensor': 'Rank:0', 'dtype': 'int32', 'shape': '()'},
     'sh64': {'tensor': 'Shape_1:0', 'dtype': 'int64', 'shape': '(2,)'},
     'vals': [{'nd': 'int32', 'shape': [2], 'v': [5, 3]},
              {'np': 'int32', 'v': 15},
              {'np': 'int32', 'v': 2}],
     'const_shape': {'nd': 'int32', 'shape': [2], 'v': [2, 4]}}
    HARNESS.check(got, expected)


def test_s32_static_shape_api():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    out("shape", x.shape)
    out("get_shape", x.get_shape())
    out("as_list", x.shape.as_list())
    out("ndims", x.shape.ndims)
    out("dim1", int(x.shape[1]))
    out("dim0_value", tf.dimension_value(x.shape[0]))
    out("dim1_str", str(x.shape[1]))
    out("dim0_repr", repr(x.shape[0]))
    u = tf.placeholder(tf.float32)
    out("unknown", u.shape)
    out("unknown_ndims", u.shape.ndims)
    catch("unknown_as_list", lambda: u.shape.as_list())
    u.set_shape([2, None])
    out("after_set", u.shape)
    catch("bad_set", lambda: x.set_shape([4, 4]))
    x.set_shape([7, 3])
    out("x_after_set", x.shape)
    out("tshape_eq", tf.TensorShape([None, 3]).is_compatible_with(tf.TensorShape([5, 3])))
    out("fully", x.shape.is_fully_defined())
    out("num_elements", x.shape.num_elements())
    expected = {'shape': {'tshape': '(?, 3)'},
     'get_shape': {'tshape': '(?, 3)'},
     'as_list': [None, {'py': 'int', 'v': 3}],
     'ndims': {'py': 'int', 'v': 2},
     'dim1': {'py': 'int', 'v': 3},
     'dim0_value': None,
     'dim1_str': '3',
     'dim0_repr': 'Dimension(None)',
     'unknown': {'tshape': '<unknown>'},
     'unknown_ndims': None,
     'unknown_as_list': {'exc': 'ValueError', 'msg': 'as_list() is not defined on an unknown TensorShape.'},
     'after_set': {'tshape': '(2, ?)'},
     'bad_set': {'exc': 'ValueError',
                 'msg': 'Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [?,3] and '
                        '[4,4].'},
     'x_after_set': {'tshape': '(7, 3)'},
     'tshape_eq': {'py': 'bool', 'v': True},
     'fully': {'py': 'bool', 'v': True},
     'num_elements': {'py': 'int', 'v': 21}}
    HARNESS.check(got, expected)


def test_s33_zeros_ones_fill():
    out, catch, got = HARNESS.recorder()
    ts = {"zeros": tf.zeros([2, 3]), "ones_int": tf.ones([2], dtype=tf.int32), "zeros_like": tf.zeros_like(tf.constant([1, 2])),
          "ones_like": tf.ones_like(tf.constant([[1.5]])), "fill": tf.fill([2, 2], 7), "fill_f": tf.fill([3], 0.5),
          "zeros_scalar": tf.zeros([]), "ones_tuple": tf.ones((1, 2)), "zeros_like_dt": tf.zeros_like(tf.constant([1, 2]), dtype=tf.float32)}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'zeros': {'tensor': 'zeros:0', 'dtype': 'float32', 'shape': '(2, 3)'},
     'ones_int': {'tensor': 'ones:0', 'dtype': 'int32', 'shape': '(2,)'},
     'zeros_like': {'tensor': 'zeros_like:0', 'dtype': 'int32', 'shape': '(2,)'},
     'ones_like': {'tensor': 'ones_like:0', 'dtype': 'float32', 'shape': '(1, 1)'},
     'fill': {'tensor': 'Fill:0', 'dtype': 'int32', 'shape': '(2, 2)'},
     'fill_f': {'tensor': 'Fill_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'zeros_scalar': {'tensor': 'zeros_1:0', 'dtype': 'float32', 'shape': '()'},
     'ones_tuple': {'tensor': 'ones_1:0', 'dtype': 'float32', 'shape': '(1, 2)'},
     'zeros_like_dt': {'tensor': 'zeros_like_1:0', 'dtype': 'float32', 'shape': '(2,)'},
     'vals': {'dict': {'fill': {'nd': 'int32', 'shape': [2, 2], 'v': [[7, 7], [7, 7]]},
                       'fill_f': {'nd': 'float32', 'shape': [3], 'v': [0.5, 0.5, 0.5]},
                       'ones_int': {'nd': 'int32', 'shape': [2], 'v': [1, 1]},
                       'ones_like': {'nd': 'float32', 'shape': [1, 1], 'v': [[1.0]]},
                       'ones_tuple': {'nd': 'float32', 'shape': [1, 2], 'v': [[1.0, 1.0]]},
                       'zeros': {'nd': 'float32', 'shape': [2, 3], 'v': [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]},
                       'zeros_like': {'nd': 'int32', 'shape': [2], 'v': [0, 0]},
                       'zeros_like_dt': {'nd': 'float32', 'shape': [2], 'v': [0.0, 0.0]},
                       'zeros_scalar': {'np': 'float32', 'v': 0.0}}}}
    HARNESS.check(got, expected)


def test_s34_dynamic_zeros_from_shape():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    z = tf.zeros(tf.shape(x))
    f = tf.fill(tf.shape(x), 2.0)
    out("z", z)
    out("f", f)
    with tf.Session() as s:
        out("vals", s.run([z, f], {x: np.ones((2, 4))}))
    expected = {'z': {'tensor': 'zeros:0', 'dtype': 'float32', 'shape': '(?, 4)'},
     'f': {'tensor': 'Fill:0', 'dtype': 'float32', 'shape': '(?, 4)'},
     'vals': [{'nd': 'float32', 'shape': [2, 4], 'v': [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]},
              {'nd': 'float32', 'shape': [2, 4], 'v': [[2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]}]}
    HARNESS.check(got, expected)


def test_s35_reductions():
    # message differs from TF, class asserted: bad_axis
    out, catch, got = HARNESS.recorder()
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ts = {"sum": tf.reduce_sum(x), "sum0": tf.reduce_sum(x, 0), "sum1": tf.reduce_sum(x, axis=1),
          "sum_keep": tf.reduce_sum(x, 1, keepdims=True), "sum_keep_dims": tf.reduce_sum(x, 1, keep_dims=True),
          "sum_neg": tf.reduce_sum(x, -1), "sum_list": tf.reduce_sum(x, [0, 1]), "mean": tf.reduce_mean(x),
          "mean0": tf.reduce_mean(x, 0), "max": tf.reduce_max(x, 1), "min": tf.reduce_min(x),
          "prod": tf.reduce_prod(x, 0), "ri": tf.reduce_sum(x, reduction_indices=[1]),
          "empty_axes": tf.reduce_sum(x, [])}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    catch("bad_axis", lambda: tf.reduce_sum(x, 2))
    expected = {'sum': {'tensor': 'Sum:0', 'dtype': 'float32', 'shape': '()'},
     'sum0': {'tensor': 'Sum_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'sum1': {'tensor': 'Sum_2:0', 'dtype': 'float32', 'shape': '(2,)'},
     'sum_keep': {'tensor': 'Sum_3:0', 'dtype': 'float32', 'shape': '(2, 1)'},
     'sum_keep_dims': {'tensor': 'Sum_4:0', 'dtype': 'float32', 'shape': '(2, 1)'},
     'sum_neg': {'tensor': 'Sum_5:0', 'dtype': 'float32', 'shape': '(2,)'},
     'sum_list': {'tensor': 'Sum_6:0', 'dtype': 'float32', 'shape': '()'},
     'mean': {'tensor': 'Mean:0', 'dtype': 'float32', 'shape': '()'},
     'mean0': {'tensor': 'Mean_1:0', 'dtype': 'float32', 'shape': '(3,)'},
     'max': {'tensor': 'Max:0', 'dtype': 'float32', 'shape': '(2,)'},
     'min': {'tensor': 'Min:0', 'dtype': 'float32', 'shape': '()'},
     'prod': {'tensor': 'Prod:0', 'dtype': 'float32', 'shape': '(3,)'},
     'ri': {'tensor': 'Sum_7:0', 'dtype': 'float32', 'shape': '(2,)'},
     'empty_axes': {'tensor': 'Sum_8:0', 'dtype': 'float32', 'shape': '(2, 3)'},
     'vals': {'dict': {'empty_axes': {'nd': 'float32',
                                      'shape': [2, 3],
                                      'v': [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]},
                       'max': {'nd': 'float32', 'shape': [2], 'v': [3.0, 6.0]},
                       'mean': {'np': 'float32', 'v': 3.5},
                       'mean0': {'nd': 'float32', 'shape': [3], 'v': [2.5, 3.5, 4.5]},
                       'min': {'np': 'float32', 'v': 1.0},
                       'prod': {'nd': 'float32', 'shape': [3], 'v': [4.0, 10.0, 18.0]},
                       'ri': {'nd': 'float32', 'shape': [2], 'v': [6.0, 15.0]},
                       'sum': {'np': 'float32', 'v': 21.0},
                       'sum0': {'nd': 'float32', 'shape': [3], 'v': [5.0, 7.0, 9.0]},
                       'sum1': {'nd': 'float32', 'shape': [2], 'v': [6.0, 15.0]},
                       'sum_keep': {'nd': 'float32', 'shape': [2, 1], 'v': [[6.0], [15.0]]},
                       'sum_keep_dims': {'nd': 'float32', 'shape': [2, 1], 'v': [[6.0], [15.0]]},
                       'sum_list': {'np': 'float32', 'v': 21.0},
                       'sum_neg': {'nd': 'float32', 'shape': [2], 'v': [6.0, 15.0]}}}}
    HARNESS.check(got, expected, classes={'bad_axis': 'ValueError'})


def test_s36_int_reductions():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 2])
    ts = {"mean": tf.reduce_mean(a), "sum": tf.reduce_sum(a), "bool_any": tf.reduce_sum(tf.cast(a > 1, tf.int32)),
          "mean_f": tf.reduce_mean(tf.cast(a, tf.float32))}
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'vals': {'dict': {'bool_any': {'np': 'int32', 'v': 1},
                       'mean': {'np': 'int32', 'v': 1},
                       'mean_f': {'np': 'float32', 'v': 1.5},
                       'sum': {'np': 'int32', 'v': 3}}}}
    HARNESS.check(got, expected)


def test_s37_reduction_placeholder_axis():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    ax = tf.placeholder(tf.int32, name="ax")
    r = tf.reduce_sum(x, ax)
    out("r", r)
    out("r_keep", tf.reduce_sum(x, ax, keepdims=True))
    out("unknown_in", tf.reduce_mean(tf.placeholder(tf.float32), 0))
    with tf.Session() as s:
        out("v", s.run(r, {x: np.ones((2, 3)), ax: 0}))
        catch("bad_axis_run", lambda: s.run(r, {x: np.ones((2, 3)), ax: 5}))
    expected = {'r': {'tensor': 'Sum:0', 'dtype': 'float32', 'shape': '<unknown>'},
     'r_keep': {'tensor': 'Sum_1:0', 'dtype': 'float32', 'shape': '(?, ?)'},
     'unknown_in': {'tensor': 'Mean:0', 'dtype': 'float32', 'shape': '<unknown>'},
     'v': {'nd': 'float32', 'shape': [3], 'v': [2.0, 2.0, 2.0]},
     'bad_axis_run': {'exc': 'InvalidArgumentError',
                      'msg': 'Invalid reduction dimension (5 for input with 2 dimension(s)',
                      'op': 'Sum'}}
    HARNESS.check(got, expected)


def test_s38_matmul():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    b = tf.constant([[1.0, 0.0, 2.0], [0.0, 1.0, 3.0]])
    ts = {"ab": tf.matmul(a, b), "ta": tf.matmul(a, a, transpose_a=True), "tb": tf.matmul(a, a, transpose_b=True),
          "at": a @ b}
    for k, t in ts.items():
        out(k, t)
    x = tf.placeholder(tf.float32, [None, 2])
    out("ph", tf.matmul(x, b))
    catch("int_matmul", lambda: tf.Session().run(tf.matmul([[1, 2]], [[3], [4]])))
    with tf.Session() as s:
        out("vals", s.run(ts))
        catch("run_mismatch", lambda: s.run(tf.matmul(tf.placeholder(tf.float32), b), {"Placeholder_1:0": np.ones((2, 3))}))
    expected = {'ab': {'tensor': 'MatMul:0', 'dtype': 'float32', 'shape': '(3, 3)'},
     'ta': {'tensor': 'MatMul_1:0', 'dtype': 'float32', 'shape': '(2, 2)'},
     'tb': {'tensor': 'MatMul_2:0', 'dtype': 'float32', 'shape': '(3, 3)'},
     'at': {'tensor': 'matmul_3:0', 'dtype': 'float32', 'shape': '(3, 3)'},
     'ph': {'tensor': 'MatMul_4:0', 'dtype': 'float32', 'shape': '(?, 3)'},
     'int_matmul': {'nd': 'int32', 'shape': [1, 1], 'v': [[11]]},
     'vals': {'dict': {'ab': {'nd': 'float32',
                              'shape': [3, 3],
                              'v': [[1.0, 2.0, 8.0], [3.0, 4.0, 18.0], [5.0, 6.0, 28.0]]},
                       'at': {'nd': 'float32',
                              'shape': [3, 3],
                              'v': [[1.0, 2.0, 8.0], [3.0, 4.0, 18.0], [5.0, 6.0, 28.0]]},
                       'ta': {'nd': 'float32', 'shape': [2, 2], 'v': [[35.0, 44.0], [44.0, 56.0]]},
                       'tb': {'nd': 'float32',
                              'shape': [3, 3],
                              'v': [[5.0, 11.0, 17.0], [11.0, 25.0, 39.0], [17.0, 39.0, 61.0]]}}},
     'run_mismatch': {'exc': 'InvalidArgumentError',
                      'msg': 'Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] 0 0',
                      'op': 'MatMul_6'}}
    HARNESS.check(got, expected)


def test_s39_cast():
    out, catch, got = HARNESS.recorder()
    f = tf.constant([1.7, -1.7, 0.0, 2.5])
    ts = {"to_int": tf.cast(f, tf.int32), "to_bool": tf.cast(f, tf.bool), "to_f64": tf.cast(f, tf.float64),
          "bool_to_f": tf.cast(tf.constant([True, False]), tf.float32), "list": tf.cast([1, 2], tf.float32),
          "to_float": tf.to_float(tf.constant([1, 2])), "to_int64": tf.to_int64(f), "to_double": tf.to_double(f),
          "same": tf.cast(f, tf.float32), "uint8": tf.cast(tf.constant([300, -1]), tf.uint8)}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    out("same_is_input", ts["same"] is f)
    expected = {'to_int': {'tensor': 'Cast:0', 'dtype': 'int32', 'shape': '(4,)'},
     'to_bool': {'tensor': 'Cast_1:0', 'dtype': 'bool', 'shape': '(4,)'},
     'to_f64': {'tensor': 'Cast_2:0', 'dtype': 'float64', 'shape': '(4,)'},
     'bool_to_f': {'tensor': 'Cast_3:0', 'dtype': 'float32', 'shape': '(2,)'},
     'list': {'tensor': 'Cast_4:0', 'dtype': 'float32', 'shape': '(2,)'},
     'to_float': {'tensor': 'ToFloat:0', 'dtype': 'float32', 'shape': '(2,)'},
     'to_int64': {'tensor': 'ToInt64:0', 'dtype': 'int64', 'shape': '(4,)'},
     'to_double': {'tensor': 'ToDouble:0', 'dtype': 'float64', 'shape': '(4,)'},
     'same': {'tensor': 'Const:0', 'dtype': 'float32', 'shape': '(4,)'},
     'uint8': {'tensor': 'Cast_5:0', 'dtype': 'uint8', 'shape': '(2,)'},
     'vals': {'dict': {'bool_to_f': {'nd': 'float32', 'shape': [2], 'v': [1.0, 0.0]},
                       'list': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]},
                       'same': {'nd': 'float32', 'shape': [4], 'v': [1.7, -1.7, 0.0, 2.5]},
                       'to_bool': {'nd': 'bool', 'shape': [4], 'v': [True, True, False, True]},
                       'to_double': {'nd': 'float64', 'shape': [4], 'v': [1.7, -1.7, 0.0, 2.5]},
                       'to_f64': {'nd': 'float64', 'shape': [4], 'v': [1.7, -1.7, 0.0, 2.5]},
                       'to_float': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]},
                       'to_int': {'nd': 'int32', 'shape': [4], 'v': [1, -1, 0, 2]},
                       'to_int64': {'nd': 'int64', 'shape': [4], 'v': [1, -1, 0, 2]},
                       'uint8': {'nd': 'uint8', 'shape': [2], 'v': [44, 255]}}},
     'same_is_input': {'py': 'bool', 'v': True}}
    HARNESS.check(got, expected)


def test_s40_relu():
    out, catch, got = HARNESS.recorder()
    ts = {"f": tf.nn.relu(tf.constant([-1.0, 0.0, 2.0])), "i": tf.nn.relu(tf.constant([-3, 3])),
          "named": tf.nn.relu(tf.constant([1.0]), name="act")}
    for k, t in ts.items():
        out(k, t)
    with tf.Session() as s:
        out("vals", s.run(ts))
    catch("bool_relu", lambda: tf.nn.relu(tf.constant([True])))
    expected = {'f': {'tensor': 'Relu:0', 'dtype': 'float32', 'shape': '(3,)'},
     'i': {'tensor': 'Relu_1:0', 'dtype': 'int32', 'shape': '(2,)'},
     'named': {'tensor': 'act:0', 'dtype': 'float32', 'shape': '(1,)'},
     'vals': {'dict': {'f': {'nd': 'float32', 'shape': [3], 'v': [0.0, 0.0, 2.0]},
                       'i': {'nd': 'int32', 'shape': [2], 'v': [0, 3]},
                       'named': {'nd': 'float32', 'shape': [1], 'v': [1.0]}}},
     'bool_relu': {'exc': 'TypeError',
                   'msg': "Value passed to parameter 'features' has DataType bool not in list of allowed "
                          'values: float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, '
                          'float16, uint32, uint64, qint8'}}
    HARNESS.check(got, expected)


def test_s41_variable_naming():
    out, catch, got = HARNESS.recorder()
    v1 = tf.Variable(1.0)
    v2 = tf.Variable(2.0)
    w = tf.Variable([1.0, 2.0], name="w")
    with tf.name_scope("layer"):
        lw = tf.Variable(tf.zeros([2, 2]), name="weights")
    out("vars", [v1, v2, w, lw])
    out("op_names", [v.op.name for v in [v1, v2, w, lw]])
    out("initializer", w.initializer)
    out("initial_value", w.initial_value)
    out("value", w.value())
    out("ops", [(o.name, o.type) for o in tf.get_default_graph().get_operations()])
    out("str", repr(w))
    expected = {'vars': [{'var': 'Variable:0', 'dtype': 'float32_ref', 'shape': '()'},
              {'var': 'Variable_1:0', 'dtype': 'float32_ref', 'shape': '()'},
              {'var': 'w:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
              {'var': 'layer/weights:0', 'dtype': 'float32_ref', 'shape': '(2, 2)'}],
     'op_names': ['Variable', 'Variable_1', 'w', 'layer/weights'],
     'initializer': {'op': 'w/Assign', 'type': 'Assign'},
     'initial_value': {'tensor': 'w/initial_value:0', 'dtype': 'float32', 'shape': '(2,)'},
     'value': {'tensor': 'w/read:0', 'dtype': 'float32', 'shape': '(2,)'},
     'ops': [{'tuple': ['Variable/initial_value', 'Const']},
             {'tuple': ['Variable', 'VariableV2']},
             {'tuple': ['Variable/Assign', 'Assign']},
             {'tuple': ['Variable/read', 'Identity']},
             {'tuple': ['Variable_1/initial_value', 'Const']},
             {'tuple': ['Variable_1', 'VariableV2']},
             {'tuple': ['Variable_1/Assign', 'Assign']},
             {'tuple': ['Variable_1/read', 'Identity']},
             {'tuple': ['w/initial_value', 'Const']},
             {'tuple': ['w', 'VariableV2']},
             {'tuple': ['w/Assign', 'Assign']},
             {'tuple': ['w/read', 'Identity']},
             {'tuple': ['layer/zeros', 'Const']},
             {'tuple': ['layer/weights', 'VariableV2']},
             {'tuple': ['layer/weights/Assign', 'Assign']},
             {'tuple': ['layer/weights/read', 'Identity']}],
     'str': "<tf.Variable 'w:0' shape=(2,) dtype=float32_ref>"}
    HARNESS.check(got, expected)


def test_s42_variable_dtypes_shapes():
    out, catch, got = HARNESS.recorder()
    vs = [tf.Variable(5), tf.Variable(np.float64(1.0)), tf.Variable([1.0, 2.0], dtype=tf.float64),
          tf.Variable(tf.ones([2, 3])), tf.Variable(np.zeros((2,), np.float32)), tf.Variable(True),
          tf.Variable(lambda: tf.zeros([3]))]
    for i, v in enumerate(vs):
        out(f"v{i}", v)
        out(f"v{i}_dtype", v.dtype)
        out(f"v{i}_get_shape", v.get_shape())
        out(f"v{i}_value_dtype", v.value().dtype)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("vals", s.run(vs))
    expected = {'v0': {'var': 'Variable:0', 'dtype': 'int32_ref', 'shape': '()'},
     'v0_dtype': {'dtype': 'int32_ref'},
     'v0_get_shape': {'tshape': '()'},
     'v0_value_dtype': {'dtype': 'int32'},
     'v1': {'var': 'Variable_1:0', 'dtype': 'float64_ref', 'shape': '()'},
     'v1_dtype': {'dtype': 'float64_ref'},
     'v1_get_shape': {'tshape': '()'},
     'v1_value_dtype': {'dtype': 'float64'},
     'v2': {'var': 'Variable_2:0', 'dtype': 'float64_ref', 'shape': '(2,)'},
     'v2_dtype': {'dtype': 'float64_ref'},
     'v2_get_shape': {'tshape': '(2,)'},
     'v2_value_dtype': {'dtype': 'float64'},
     'v3': {'var': 'Variable_3:0', 'dtype': 'float32_ref', 'shape': '(2, 3)'},
     'v3_dtype': {'dtype': 'float32_ref'},
     'v3_get_shape': {'tshape': '(2, 3)'},
     'v3_value_dtype': {'dtype': 'float32'},
     'v4': {'var': 'Variable_4:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'v4_dtype': {'dtype': 'float32_ref'},
     'v4_get_shape': {'tshape': '(2,)'},
     'v4_value_dtype': {'dtype': 'float32'},
     'v5': {'var': 'Variable_5:0', 'dtype': 'bool_ref', 'shape': '()'},
     'v5_dtype': {'dtype': 'bool_ref'},
     'v5_get_shape': {'tshape': '()'},
     'v5_value_dtype': {'dtype': 'bool'},
     'v6': {'var': 'Variable_6:0', 'dtype': 'float32_ref', 'shape': '(3,)'},
     'v6_dtype': {'dtype': 'float32_ref'},
     'v6_get_shape': {'tshape': '(3,)'},
     'v6_value_dtype': {'dtype': 'float32'},
     'vals': [{'np': 'int32', 'v': 5},
              {'np': 'float64', 'v': 1.0},
              {'nd': 'float64', 'shape': [2], 'v': [1.0, 2.0]},
              {'nd': 'float32', 'shape': [2, 3], 'v': [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]},
              {'nd': 'float32', 'shape': [2], 'v': [0.0, 0.0]},
              {'np': 'bool', 'v': True},
              {'nd': 'float32', 'shape': [3], 'v': [0.0, 0.0, 0.0]}]}
    HARNESS.check(got, expected)


def test_s43_uninitialized_variable():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable([1.0, 2.0], name="v")
    y = v * 2
    with tf.Session() as s:
        catch("fetch_var", lambda: s.run(v))
        catch("fetch_derived", lambda: s.run(y))
        out("report", s.run(tf.report_uninitialized_variables()))
        out("is_init", s.run(tf.is_variable_initialized(v)))
        s.run(v.initializer)
        out("after", s.run(y))
        out("report_after", s.run(tf.report_uninitialized_variables()))
    with tf.Session() as s2:
        catch("new_session", lambda: s2.run(v))
    expected = {'fetch_var': {'exc': 'FailedPreconditionError',
                   'msg': 'Attempting to use uninitialized value v',
                   'op': None},
     'fetch_derived': {'exc': 'FailedPreconditionError',
                       'msg': 'Attempting to use uninitialized value v',
                       'op': 'v/read'},
     'report': {'nd': 'object', 'shape': [1], 'v': ["b'v'"]},
     'is_init': {'np': 'bool', 'v': False},
     'after': {'nd': 'float32', 'shape': [2], 'v': [2.0, 4.0]},
     'report_after': {'nd': 'object', 'shape': [0], 'v': []},
     'new_session': {'exc': 'FailedPreconditionError',
                     'msg': 'Attempting to use uninitialized value v',
                     'op': None}}
    HARNESS.check(got, expected)


def test_s44_variable_initialized_value():
    # diverges from TF (not asserted): iv
    out, catch, got = HARNESS.recorder()
    w = tf.Variable(tf.constant([1.0, 2.0]), name="w")
    w2 = tf.Variable(w.initialized_value() * 2, name="w2")
    w3 = tf.Variable(w * 3, name="w3")  # TF rewrites to initialized value
    out("iv", w.initialized_value())
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("vals", s.run([w, w2, w3]))
    expected = {'vals': [{'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]},
              {'nd': 'float32', 'shape': [2], 'v': [2.0, 4.0]},
              {'nd': 'float32', 'shape': [2], 'v': [3.0, 6.0]}]}
    HARNESS.check(got, expected, diverges=('iv',))


def test_s45_assign_ops():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable([1.0, 2.0], name="v")
    a = tf.assign(v, [5.0, 6.0])
    aa = tf.assign_add(v, [1.0, 1.0])
    asb = tf.assign_sub(v, [2.0, 2.0])
    m = v.assign([0.0, 0.0])
    ma = v.assign_add([10.0, 10.0])
    ms = v.assign_sub([1.0, 1.0])
    for k, t in {"a": a, "aa": aa, "asb": asb, "m": m, "ma": ma, "ms": ms}.items():
        out(k, t)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("a_val", s.run(a))
        out("aa_val", s.run(aa))
        out("aa_val2", s.run(aa))
        out("asb_val", s.run(asb))
        out("m_val", s.run(m))
        out("ma_val", s.run(ma))
        out("ms_val", s.run(ms))
        out("v", s.run(v))
        out("run_op", s.run(a.op))
        out("v_after_op", s.run(v))
    expected = {'a': {'tensor': 'Assign:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'aa': {'tensor': 'AssignAdd:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'asb': {'tensor': 'AssignSub:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'm': {'tensor': 'Assign_1:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'ma': {'tensor': 'AssignAdd_1:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'ms': {'tensor': 'AssignSub_1:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'a_val': {'nd': 'float32', 'shape': [2], 'v': [5.0, 6.0]},
     'aa_val': {'nd': 'float32', 'shape': [2], 'v': [6.0, 7.0]},
     'aa_val2': {'nd': 'float32', 'shape': [2], 'v': [7.0, 8.0]},
     'asb_val': {'nd': 'float32', 'shape': [2], 'v': [5.0, 6.0]},
     'm_val': {'nd': 'float32', 'shape': [2], 'v': [0.0, 0.0]},
     'ma_val': {'nd': 'float32', 'shape': [2], 'v': [10.0, 10.0]},
     'ms_val': {'nd': 'float32', 'shape': [2], 'v': [9.0, 9.0]},
     'v': {'nd': 'float32', 'shape': [2], 'v': [9.0, 9.0]},
     'run_op': None,
     'v_after_op': {'nd': 'float32', 'shape': [2], 'v': [5.0, 6.0]}}
    HARNESS.check(got, expected)


def test_s46_assign_errors():
    # message differs from TF, class asserted: assign_to_tensor
    out, catch, got = HARNESS.recorder()
    v = tf.Variable([1.0, 2.0], name="v")
    catch("wrong_shape", lambda: tf.assign(v, [1.0, 2.0, 3.0]))
    catch("wrong_dtype", lambda: tf.assign(v, [1, 2]))
    catch("wrong_dtype_tensor", lambda: tf.assign(v, tf.constant([1, 2])))
    catch("assign_to_tensor", lambda: tf.assign(tf.constant([1.0]), [2.0]))
    u = tf.Variable([1.0], validate_shape=False, name="u")
    n = tf.assign(u, [1.0, 2.0, 3.0], validate_shape=False)
    out("u", u)
    out("n", n)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("n_val", s.run(n))
        out("u_val", s.run(u))
    expected = {'wrong_shape': {'exc': 'ValueError',
                     'msg': 'Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and '
                            "[3]. for '{{node Assign}} = Assign[T=DT_FLOAT, use_locking=true, "
                            "validate_shape=true](v, Assign/value)' with input shapes: [2], [3]."},
     'wrong_dtype': {'tensor': 'Assign_1:0', 'dtype': 'float32_ref', 'shape': '(2,)'},
     'wrong_dtype_tensor': {'exc': 'TypeError',
                            'msg': "Input 'value' of 'Assign' Op has type int32 that does not match type "
                                   "float32 of argument 'ref'."},
     'u': {'var': 'u:0', 'dtype': 'float32_ref', 'shape': '<unknown>'},
     'n': {'tensor': 'Assign_3:0', 'dtype': 'float32_ref', 'shape': '(3,)'},
     'n_val': {'nd': 'float32', 'shape': [3], 'v': [1.0, 2.0, 3.0]},
     'u_val': {'nd': 'float32', 'shape': [3], 'v': [1.0, 2.0, 3.0]}}
    HARNESS.check(got, expected, classes={'assign_to_tensor': 'AttributeError'})


def test_s47_variable_read_value_and_deps():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    with tf.control_dependencies([inc]):
        after = tf.identity(v)
        rv = v.read_value()
    out("after", after)
    out("rv", rv)
    out("rv_ctrl", [o.name for o in rv.op.control_inputs])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("r1", s.run(after))
        out("r2", s.run(after))
        out("rv_val", s.run(rv))
        out("v", s.run(v))
    expected = {'after': {'tensor': 'Identity:0', 'dtype': 'float32', 'shape': '()'},
     'rv': {'tensor': 'read:0', 'dtype': 'float32', 'shape': '()'},
     'rv_ctrl': ['AssignAdd'],
     'r1': {'np': 'float32', 'v': 2.0},
     'r2': {'np': 'float32', 'v': 3.0},
     'rv_val': {'np': 'float32', 'v': 4.0},
     'v': {'np': 'float32', 'v': 4.0}}
    HARNESS.check(got, expected)


def test_s48_variable_collections_trainable():
    out, catch, got = HARNESS.recorder()
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b", trainable=False)
    c = tf.Variable(3.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    d = tf.Variable(4.0, name="d", collections=["custom", tf.GraphKeys.GLOBAL_VARIABLES])
    with tf.name_scope("scope"):
        e = tf.Variable(5.0, name="e")
    out("global", tf.global_variables())
    out("trainable", tf.trainable_variables())
    out("local", tf.local_variables())
    out("custom", tf.get_collection("custom"))
    out("scoped", tf.global_variables("scope"))
    out("trainable_attr", [v.trainable for v in [a, b, c, d, e]])
    out("keys", sorted(tf.get_default_graph().get_all_collection_keys()))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        catch("local_uninit", lambda: s.run(c))
        s.run(tf.local_variables_initializer())
        out("local_ok", s.run(c))
    out("init_names", [tf.global_variables_initializer().name, tf.local_variables_initializer().name,
                       tf.variables_initializer([a, b], name="ab_init").name])
    expected = {'global': [{'var': 'a:0', 'dtype': 'float32_ref', 'shape': '()'},
                {'var': 'b:0', 'dtype': 'float32_ref', 'shape': '()'},
                {'var': 'd:0', 'dtype': 'float32_ref', 'shape': '()'},
                {'var': 'scope/e:0', 'dtype': 'float32_ref', 'shape': '()'}],
     'trainable': [{'var': 'a:0', 'dtype': 'float32_ref', 'shape': '()'},
                   {'var': 'c:0', 'dtype': 'float32_ref', 'shape': '()'},
                   {'var': 'd:0', 'dtype': 'float32_ref', 'shape': '()'},
                   {'var': 'scope/e:0', 'dtype': 'float32_ref', 'shape': '()'}],
     'local': [{'var': 'c:0', 'dtype': 'float32_ref', 'shape': '()'}],
     'custom': [{'var': 'd:0', 'dtype': 'float32_ref', 'shape': '()'}],
     'scoped': [{'var': 'scope/e:0', 'dtype': 'float32_ref', 'shape': '()'}],
     'trainable_attr': [{'py': 'bool', 'v': True},
                        {'py': 'bool', 'v': False},
                        {'py': 'bool', 'v': True},
                        {'py': 'bool', 'v': True},
                        {'py': 'bool', 'v': True}],
     'keys': ['custom', 'local_variables', 'trainable_variables', 'variables'],
     'local_uninit': {'exc': 'FailedPreconditionError',
                      'msg': 'Attempting to use uninitialized value c',
                      'op': None},
     'local_ok': {'np': 'float32', 'v': 3.0},
     'init_names': ['init_2', 'init_3', 'ab_init']}
    HARNESS.check(got, expected)


def test_s49_variable_initializer_feed():
    out, catch, got = HARNESS.recorder()
    init = tf.placeholder(tf.float32, shape=[3], name="init")
    v = tf.Variable(init, name="v")
    out("v", v)
    with tf.Session() as s:
        s.run(v.initializer, {init: [1.0, 2.0, 3.0]})
        out("v_val", s.run(v))
        out("double", s.run(v * 2))
    expected = {'v': {'var': 'v:0', 'dtype': 'float32_ref', 'shape': '(3,)'},
     'v_val': {'nd': 'float32', 'shape': [3], 'v': [1.0, 2.0, 3.0]},
     'double': {'nd': 'float32', 'shape': [3], 'v': [2.0, 4.0, 6.0]}}
    HARNESS.check(got, expected)


def test_s50_variable_arithmetic():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable([1.0, 2.0], name="v")
    ts = {"add": v + 1, "mul": v * v, "neg": -v, "matmul": tf.matmul(tf.reshape(v, [1, 2]), tf.reshape(v, [2, 1])),
          "sum": tf.reduce_sum(v), "cast": tf.cast(v, tf.int32), "ident": tf.identity(v),
          "conv": tf.convert_to_tensor(v)}
    for k, t in ts.items():
        out(k, t)
    out("add_inputs", [i.name for i in ts["add"].op.inputs])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("vals", s.run(ts))
        out("eval", v.eval())
    expected = {'add': {'tensor': 'add:0', 'dtype': 'float32', 'shape': '(2,)'},
     'mul': {'tensor': 'mul:0', 'dtype': 'float32', 'shape': '(2,)'},
     'neg': {'tensor': 'Neg:0', 'dtype': 'float32', 'shape': '(2,)'},
     'matmul': {'tensor': 'MatMul:0', 'dtype': 'float32', 'shape': '(1, 1)'},
     'sum': {'tensor': 'Sum:0', 'dtype': 'float32', 'shape': '()'},
     'cast': {'tensor': 'Cast:0', 'dtype': 'int32', 'shape': '(2,)'},
     'ident': {'tensor': 'Identity:0', 'dtype': 'float32', 'shape': '(2,)'},
     'conv': {'tensor': 'v/read:0', 'dtype': 'float32', 'shape': '(2,)'},
     'add_inputs': ['v/read:0', 'add/y:0'],
     'vals': {'dict': {'add': {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]},
                       'cast': {'nd': 'int32', 'shape': [2], 'v': [1, 2]},
                       'conv': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]},
                       'ident': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]},
                       'matmul': {'nd': 'float32', 'shape': [1, 1], 'v': [[5.0]]},
                       'mul': {'nd': 'float32', 'shape': [2], 'v': [1.0, 4.0]},
                       'neg': {'nd': 'float32', 'shape': [2], 'v': [-1.0, -2.0]},
                       'sum': {'np': 'float32', 'v': 3.0}}},
     'eval': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]}}
    HARNESS.check(got, expected)


def test_s51_variable_bad_init():
    out, catch, got = HARNESS.recorder()
    catch("no_init", lambda: tf.Variable())
    catch("none", lambda: tf.Variable(None))
    catch("unknown_shape_init", lambda: tf.Variable(tf.placeholder(tf.float32)))
    catch("bad_dtype", lambda: tf.Variable([1.5], dtype=tf.int32))
    expected = {'no_init': {'exc': 'ValueError', 'msg': 'initial_value must be specified.'},
     'none': {'exc': 'ValueError', 'msg': 'initial_value must be specified.'},
     'unknown_shape_init': {'exc': 'ValueError',
                            'msg': 'initial_value must have a shape specified: Tensor("Placeholder:0", '
                                   'dtype=float32)'},
     'bad_dtype': {'exc': 'TypeError', 'msg': "Expected int32, but got 1.5 of type 'float'."}}
    HARNESS.check(got, expected)


def test_s52_random_graph_seed_determinism():
    out, catch, got = HARNESS.recorder()
    tf.set_random_seed(42)
    r = tf.random_normal([4])
    u = tf.random_uniform([4])
    with tf.Session() as s:
        a1, b1 = s.run([r, u])
        a2 = s.run(r)
    with tf.Session() as s:
        a3, b3 = s.run([r, u])
    out("same_across_sessions", bool(np.array_equal(a1, a3) and np.array_equal(b1, b3)))
    out("differs_within_session", not np.array_equal(a1, a2))
    out("r_vs_u_differ", not np.array_equal(a1, b1))
    g = tf.get_default_graph()
    rop = [o for o in g.get_operations() if o.type == "RandomStandardNormal"][0]
    out("op_seeds", [rop.name, rop.get_attr("seed"), rop.get_attr("seed2")])
    out("r", r)
    out("u", u)
    expected = {'same_across_sessions': {'py': 'bool', 'v': True},
     'differs_within_session': {'py': 'bool', 'v': True},
     'r_vs_u_differ': {'py': 'bool', 'v': True},
     'op_seeds': ['random_normal/RandomStandardNormal', {'py': 'int', 'v': 42}, {'py': 'int', 'v': 0}],
     'r': {'tensor': 'random_normal:0', 'dtype': 'float32', 'shape': '(4,)'},
     'u': {'tensor': 'random_uniform/RandomUniform:0', 'dtype': 'float32', 'shape': '(4,)'}}
    HARNESS.check(got, expected)


def test_s53_random_no_seed():
    out, catch, got = HARNESS.recorder()
    r = tf.random_uniform([8])
    with tf.Session() as s:
        a = s.run(r)
    with tf.Session() as s:
        b = s.run(r)
    out("differs", not np.array_equal(a, b))
    out("range", bool(((a >= 0) & (a < 1)).all()))
    expected = {'differs': {'py': 'bool', 'v': True}, 'range': {'py': 'bool', 'v': True}}
    HARNESS.check(got, expected)


def test_s54_random_op_seed():
    out, catch, got = HARNESS.recorder()
    r = tf.random_normal([5], seed=7)
    with tf.Session() as s:
        a = s.run(r)
    with tf.Session() as s:
        b = s.run(r)
    out("same", bool(np.array_equal(a, b)))
    g = tf.Graph()
    with g.as_default():
        r2 = tf.random_normal([5], seed=7)
    with tf.Session(graph=g) as s:
        c = s.run(r2)
    out("same_other_graph", bool(np.array_equal(a, c)))
    expected = {'same': {'py': 'bool', 'v': True}, 'same_other_graph': {'py': 'bool', 'v': True}}
    HARNESS.check(got, expected)


def test_s55_random_seed_rebuilt_graph():
    out, catch, got = HARNESS.recorder()
    vals = []
    for _ in range(2):
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(1)
            a = tf.random_uniform([3])
            b = tf.random_uniform([3])
            with tf.Session() as s:
                vals.append(s.run([a, b]))
    out("same_rebuilt", bool(np.array_equal(vals[0][0], vals[1][0]) and np.array_equal(vals[0][1], vals[1][1])))
    out("a_ne_b", not np.array_equal(vals[0][0], vals[0][1]))
    expected = {'same_rebuilt': {'py': 'bool', 'v': True}, 'a_ne_b': {'py': 'bool', 'v': True}}
    HARNESS.check(got, expected)


def test_s56_random_dtypes_shapes_ranges():
    out, catch, got = HARNESS.recorder()
    ts = {"u": tf.random_uniform([2, 3], -1, 1), "n": tf.random_normal([3], mean=5.0, stddev=0.0),
          "t": tf.truncated_normal([1000], stddev=1.0, seed=3), "ui": tf.random_uniform([50], 0, 10, dtype=tf.int32),
          "u64": tf.random_uniform([2], dtype=tf.float64), "ph": tf.random_normal(tf.shape(tf.ones([2, 2])))}
    for k, t in ts.items():
        out(k, t)
    out("names", [(t.op.name, t.op.type) for t in ts.values()])
    with tf.Session() as s:
        v = s.run(ts)
    out("u_range", bool(((v["u"] >= -1) & (v["u"] < 1)).all()))
    out("n_const", v["n"])
    out("t_bound", bool((np.abs(v["t"]) <= 2).all()))
    out("ui_range", bool(((v["ui"] >= 0) & (v["ui"] < 10)).all()))
    out("ui_dtype", v["ui"].dtype.name)
    catch("int_no_max", lambda: tf.random_uniform([2], dtype=tf.int32))
    expected = {'u': {'tensor': 'random_uniform:0', 'dtype': 'float32', 'shape': '(2, 3)'},
     'n': {'tensor': 'random_normal:0', 'dtype': 'float32', 'shape': '(3,)'},
     't': {'tensor': 'truncated_normal:0', 'dtype': 'float32', 'shape': '(1000,)'},
     'ui': {'tensor': 'random_uniform_1:0', 'dtype': 'int32', 'shape': '(50,)'},
     'u64': {'tensor': 'random_uniform_2/RandomUniform:0', 'dtype': 'float64', 'shape': '(2,)'},
     'ph': {'tensor': 'random_normal_1:0', 'dtype': 'float32', 'shape': '(2, 2)'},
     'names': [{'tuple': ['random_uniform', 'AddV2']},
               {'tuple': ['random_normal', 'AddV2']},
               {'tuple': ['truncated_normal', 'AddV2']},
               {'tuple': ['random_uniform_1', 'RandomUniformInt']},
               {'tuple': ['random_uniform_2/RandomUniform', 'RandomUniform']},
               {'tuple': ['random_normal_1', 'AddV2']}],
     'u_range': {'py': 'bool', 'v': True},
     'n_const': {'nd': 'float32', 'shape': [3], 'v': [5.0, 5.0, 5.0]},
     't_bound': {'py': 'bool', 'v': True},
     'ui_range': {'py': 'bool', 'v': True},
     'ui_dtype': 'int32',
     'int_no_max': {'exc': 'ValueError', 'msg': 'Must specify maxval for integer dtype tf.int32'}}
    HARNESS.check(got, expected)


def test_s57_get_seed():
    out, catch, got = HARNESS.recorder()
    out("none", tf.get_seed(None))
    out("op_only", tf.get_seed(5))
    tf.set_random_seed(3)
    out("graph_only", tf.get_seed(None))
    out("graph_only2", tf.get_seed(None))
    out("both", tf.get_seed(9))
    expected = {'none': {'tuple': [None, None]},
     'op_only': {'tuple': [{'py': 'int', 'v': 87654321}, {'py': 'int', 'v': 5}]},
     'graph_only': {'tuple': [{'py': 'int', 'v': 3}, {'py': 'int', 'v': 0}]},
     'graph_only2': {'tuple': [{'py': 'int', 'v': 3}, {'py': 'int', 'v': 1}]},
     'both': {'tuple': [{'py': 'int', 'v': 3}, {'py': 'int', 'v': 9}]}}
    HARNESS.check(got, expected)


def test_s58_group_tuple_noop():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable(0.0, name="v")
    a1 = tf.assign_add(v, 1.0)
    a2 = tf.assign_add(v, 10.0)
    g = tf.group(a1, a2)
    g2 = tf.group(a1, name="my_group")
    n = tf.no_op()
    t = tf.tuple([a1 * 1, tf.constant(2.0)])
    out("g", g)
    out("g2", g2)
    out("n", n)
    out("t", t)
    out("g_ctrl", sorted(o.name for o in g.control_inputs))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out("run_group", s.run(g))
        out("v", s.run(v))
        out("run_noop", s.run(n))
        out("run_list", s.run([g, v]))
    out("empty_group", tf.group())
    expected = {'g': {'op': 'group_deps', 'type': 'NoOp'},
     'g2': {'op': 'my_group', 'type': 'NoOp'},
     'n': {'op': 'NoOp', 'type': 'NoOp'},
     't': [{'tensor': 'tuple/control_dependency:0', 'dtype': 'float32', 'shape': '()'},
           {'tensor': 'tuple/control_dependency_1:0', 'dtype': 'float32', 'shape': '()'}],
     'g_ctrl': ['AssignAdd', 'AssignAdd_1'],
     'run_group': None,
     'v': {'np': 'float32', 'v': 11.0},
     'run_noop': None,
     'run_list': [None, {'np': 'float32', 'v': 22.0}],
     'empty_group': {'op': 'group_deps_1', 'type': 'NoOp'}}
    HARNESS.check(got, expected)


def test_s59_control_dependencies():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    with tf.control_dependencies([inc]):
        x = tf.constant(5)
        y = v + 0
    with tf.control_dependencies([inc]):
        with tf.control_dependencies(None):
            z = tf.constant(6)
    out("x_ctrl", [o.name for o in x.op.control_inputs])
    out("y_ctrl", [o.name for o in y.op.control_inputs])
    out("z_ctrl", [o.name for o in z.op.control_inputs])
    with tf.Session() as s:
        s.run(v.initializer)
        out("y1", s.run(y))
        out("y2", s.run(y))
        out("x", s.run(x))
        out("v", s.run(v))
    catch("bad_dep", lambda: tf.control_dependencies([3]).__enter__())
    expected = {'x_ctrl': ['AssignAdd'],
     'y_ctrl': [],
     'z_ctrl': [],
     'y1': {'np': 'int32', 'v': 1},
     'y2': {'np': 'int32', 'v': 2},
     'x': {'np': 'int32', 'v': 5},
     'v': {'np': 'int32', 'v': 3},
     'bad_dep': {'exc': 'TypeError', 'msg': 'Can not convert a int into a Tensor or Operation.'}}
    HARNESS.check(got, expected)


def test_s60_session_api():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(3.0, name="a")
    b = a * 2
    catch("eval_no_session", lambda: b.eval())
    with tf.Session() as s:
        out("eval_in_with", b.eval())
        out("default_is_s", tf.get_default_session() is s)
        out("eval_feed", b.eval(feed_dict={a: 1.0}))
        out("op_run", tf.no_op(name="n").run())
    out("default_after", tf.get_default_session())
    s = tf.Session()
    with s.as_default():
        out("as_default_eval", b.eval())
    out("eval_session_kw", b.eval(session=s))
    s.close()
    catch("closed", lambda: s.run(a))
    catch("closed_eval", lambda: b.eval(session=s))
    out("graph", s.graph is tf.get_default_graph())
    expected = {'eval_no_session': {'exc': 'ValueError',
                         'msg': 'Cannot evaluate tensor using `eval()`: No default session is registered. '
                                'Use `with sess.as_default()` or pass an explicit session to '
                                '`eval(session=sess)`'},
     'eval_in_with': {'np': 'float32', 'v': 6.0},
     'default_is_s': {'py': 'bool', 'v': True},
     'eval_feed': {'np': 'float32', 'v': 2.0},
     'op_run': None,
     'default_after': None,
     'as_default_eval': {'np': 'float32', 'v': 6.0},
     'eval_session_kw': {'np': 'float32', 'v': 6.0},
     'closed': {'exc': 'RuntimeError', 'msg': 'Attempted to use a closed Session.'},
     'closed_eval': {'exc': 'RuntimeError', 'msg': 'Attempted to use a closed Session.'},
     'graph': {'py': 'bool', 'v': True}}
    HARNESS.check(got, expected)


def test_s61_interactive_session():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 2], name="a")
    s = tf.InteractiveSession()
    out("eval", (a * 2).eval())
    out("default", tf.get_default_session() is s)
    v = tf.Variable(4.0)
    v.initializer.run()
    out("v", v.eval())
    s.close()
    out("after_close_default", tf.get_default_session())
    expected = {'eval': {'nd': 'int32', 'shape': [2], 'v': [2, 4]},
     'default': {'py': 'bool', 'v': True},
     'v': {'np': 'float32', 'v': 4.0},
     'after_close_default': None}
    HARNESS.check(got, expected)


def test_s62_session_graph_extension():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(1.0, name="a")
    with tf.Session() as s:
        out("r1", s.run(a))
        b = a + 1
        out("r2", s.run(b))
        c = tf.Variable(2.0)
        s.run(c.initializer)
        out("r3", s.run(c * b))
        out("graph_version_nonzero", s.graph.version > 0)
    expected = {'r1': {'np': 'float32', 'v': 1.0},
     'r2': {'np': 'float32', 'v': 2.0},
     'r3': {'np': 'float32', 'v': 4.0},
     'graph_version_nonzero': {'py': 'bool', 'v': True}}
    HARNESS.check(got, expected)


def test_s63_session_run_on_finalized_graph():
    out, catch, got = HARNESS.recorder()
    a = tf.constant(1.0)
    g = tf.get_default_graph()
    g.finalize()
    out("finalized", g.finalized)
    catch("add_op", lambda: tf.constant(2.0))
    with tf.Session() as s:
        out("run", s.run(a))
    expected = {'finalized': {'py': 'bool', 'v': True},
     'add_op': {'exc': 'RuntimeError', 'msg': 'Graph is finalized and cannot be modified.'},
     'run': {'np': 'float32', 'v': 1.0}}
    HARNESS.check(got, expected)


def test_s64_tensor_misc_errors():
    # message differs from TF, class asserted: float
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 2], name="a")
    catch("bool", lambda: bool(a))
    catch("if", lambda: 1 if a else 0)
    catch("iter", lambda: list(iter(a)))
    catch("len", lambda: len(a))
    catch("hash_ok", lambda: isinstance(hash(a), int))
    catch("eq", lambda: a == a)
    catch("float", lambda: float(tf.constant(1.0)))
    out("str", str(a))
    out("repr_op_name", a.op.name)
    out("value_index", a.value_index)
    out("consumers", [o.name for o in (a + 1).op.inputs[0].consumers()])
    expected = {'bool': {'exc': 'OperatorNotAllowedInGraphError',
              'msg': 'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the '
                     'following resolutions to the problem: If you are running in Graph mode, use Eager '
                     'execution mode or decorate this function with @tf.function. If you are using '
                     'AutoGraph, you can try decorating this function with @tf.function. If that does not '
                     'work, then you may be using an unsupported feature or your source code may not be '
                     'visible to AutoGraph. See '
                     'https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code '
                     'for more information.'},
     'if': {'exc': 'OperatorNotAllowedInGraphError',
            'msg': 'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the '
                   'following resolutions to the problem: If you are running in Graph mode, use Eager '
                   'execution mode or decorate this function with @tf.function. If you are using '
                   'AutoGraph, you can try decorating this function with @tf.function. If that does not '
                   'work, then you may be using an unsupported feature or your source code may not be '
                   'visible to AutoGraph. See '
                   'https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code '
                   'for more information.'},
     'iter': {'exc': 'OperatorNotAllowedInGraphError',
              'msg': 'Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following '
                     'resolutions to the problem: If you are running in Graph mode, use Eager execution '
                     'mode or decorate this function with @tf.function. If you are using AutoGraph, you '
                     'can try decorating this function with @tf.function. If that does not work, then you '
                     'may be using an unsupported feature or your source code may not be visible to '
                     'AutoGraph. See '
                     'https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code '
                     'for more information.'},
     'len': {'exc': 'TypeError',
             'msg': 'len is not well defined for a symbolic Tensor (a:0). Please call `x.shape` rather '
                    'than `len(x)` for shape information.'},
     'hash_ok': {'py': 'bool', 'v': True},
     'eq': {'py': 'bool', 'v': True},
     'str': 'Tensor("a:0", shape=(2,), dtype=int32)',
     'repr_op_name': 'a',
     'value_index': {'py': 'int', 'v': 0},
     'consumers': ['add']}
    HARNESS.check(got, expected, classes={'float': 'TypeError'})


def test_s65_operation_properties():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.add(a, a, name="b")
    op = b.op
    out("type", op.type)
    out("inputs", list(op.inputs))
    out("outputs", op.outputs)
    out("values", op.values())
    out("attr_T", op.get_attr("T"))
    out("a_dtype_attr", a.op.get_attr("dtype"))
    out("node_def_name", op.node_def.name)
    out("node_def_op", op.node_def.op)
    out("node_def_input", list(op.node_def.input))
    out("graph", op.graph is tf.get_default_graph())
    out("device", op.device)
    catch("missing_attr", lambda: op.get_attr("nope"))
    out("graph_ops", [o.name for o in tf.get_default_graph().get_operations()])
    out("graph_def_nodes", [n.name for n in tf.get_default_graph().as_graph_def().node])
    expected = {'type': 'AddV2',
     'inputs': [{'tensor': 'a:0', 'dtype': 'float32', 'shape': '(2,)'},
                {'tensor': 'a:0', 'dtype': 'float32', 'shape': '(2,)'}],
     'outputs': [{'tensor': 'b:0', 'dtype': 'float32', 'shape': '(2,)'}],
     'values': {'tuple': [{'tensor': 'b:0', 'dtype': 'float32', 'shape': '(2,)'}]},
     'attr_T': {'dtype': 'float32'},
     'a_dtype_attr': {'dtype': 'float32'},
     'node_def_name': 'b',
     'node_def_op': 'AddV2',
     'node_def_input': ['a', 'a'],
     'graph': {'py': 'bool', 'v': True},
     'device': '',
     'missing_attr': {'exc': 'ValueError', 'msg': "Operation 'b' has no attr named 'nope'."},
     'graph_ops': ['a', 'b'],
     'graph_def_nodes': ['a', 'b']}
    HARNESS.check(got, expected)


def test_s66_devices():
    out, catch, got = HARNESS.recorder()
    with tf.device("/cpu:0"):
        a = tf.constant(1.0)
        with tf.device("/device:CPU:0"):
            b = a + 1
        with tf.device(None):
            c = a + 2
        v = tf.Variable(1.0)
    with tf.device(lambda op: "/cpu:0" if op.type == "Const" else ""):
        d = tf.constant(1.0)
        e = d + 1
    with tf.device("/job:worker/task:1"):
        with tf.device("/cpu:0"):
            f = tf.constant(1.0)
    out("devs", [t.device for t in [a, b, c, v, d, e, f]])
    out("ops", [t.op.device for t in [a, b, c, d, e, f]])
    expected = {'devs': ['/device:CPU:0',
              '/device:CPU:0',
              '',
              '/device:CPU:0',
              '/cpu:0',
              '',
              '/job:worker/task:1/device:CPU:0'],
     'ops': ['/device:CPU:0', '/device:CPU:0', '', '/cpu:0', '', '/job:worker/task:1/device:CPU:0']}
    HARNESS.check(got, expected)


def test_s66b_gpu_device_on_cpu_machine():
    # message differs from TF, class asserted: run_other, run_gpu
    out, catch, got = HARNESS.recorder()
    with tf.device("/gpu:0"):
        a = tf.constant(1.0, name="a")
        b = tf.add(a, 1.0, name="b")
    c = tf.constant(2.0, name="c")
    out("dev", b.device)
    with tf.Session() as s:
        catch("run_other", lambda: s.run(c))
        catch("run_gpu", lambda: s.run(b))
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as s:
        catch("soft", lambda: s.run(b))
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:1"):
            w = tf.constant(1.0, name="w")
        with tf.Session() as s:
            catch("job_worker", lambda: s.run(w))
    expected = {'dev': '/device:GPU:0',
     'soft': {'np': 'float32', 'v': 2.0},
     'job_worker': {'exc': 'InvalidArgumentError',
                    'msg': 'Cannot assign a device for operation w: {{node w}} was explicitly assigned to '
                           '/job:worker/task:1 but available devices are [ '
                           '/job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device '
                           'specification refers to a valid device.',
                    'op': None}}
    HARNESS.check(got, expected, classes={'run_other': 'InvalidArgumentError', 'run_gpu': 'InvalidArgumentError'})


def test_s67_collections():
    out, catch, got = HARNESS.recorder()
    tf.add_to_collection("losses", tf.constant(1.0, name="l1"))
    tf.add_to_collection("losses", tf.constant(2.0, name="l2"))
    with tf.name_scope("s"):
        tf.add_to_collection("losses", tf.constant(3.0, name="l3"))
    tf.add_to_collections(["a", "b"], 5)
    out("losses", tf.get_collection("losses"))
    out("scoped", tf.get_collection("losses", scope="s"))
    out("missing", tf.get_collection("nope"))
    ref = tf.get_collection_ref("refcol")
    ref.append(1)
    out("ref", tf.get_collection("refcol"))
    out("ab", [tf.get_collection("a"), tf.get_collection("b")])
    out("keys", [tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.TRAINABLE_VARIABLES, tf.GraphKeys.LOCAL_VARIABLES,
                 tf.GraphKeys.LOSSES, tf.GraphKeys.UPDATE_OPS, tf.GraphKeys.SUMMARIES])
    with tf.Session() as s:
        out("sum_losses", s.run(tf.add_n(tf.get_collection("losses"))))
    expected = {'losses': [{'tensor': 'l1:0', 'dtype': 'float32', 'shape': '()'},
                {'tensor': 'l2:0', 'dtype': 'float32', 'shape': '()'},
                {'tensor': 's/l3:0', 'dtype': 'float32', 'shape': '()'}],
     'scoped': [{'tensor': 's/l3:0', 'dtype': 'float32', 'shape': '()'}],
     'missing': [],
     'ref': [{'py': 'int', 'v': 1}],
     'ab': [[{'py': 'int', 'v': 5}], [{'py': 'int', 'v': 5}]],
     'keys': ['variables', 'trainable_variables', 'local_variables', 'losses', 'update_ops', 'summaries'],
     'sum_losses': {'np': 'float32', 'v': 6.0}}
    HARNESS.check(got, expected)


def test_s67c_collections_no_add_n():
    out, catch, got = HARNESS.recorder()
    tf.add_to_collection("losses", tf.constant(1.0, name="l1"))
    tf.add_to_collection("losses", tf.constant(2.0, name="l2"))
    with tf.name_scope("s"):
        tf.add_to_collection("losses", tf.constant(3.0, name="l3"))
    out("scoped", tf.get_collection("losses", scope="s"))
    out("all", tf.get_collection("losses"))
    out("ref_is_live", tf.get_collection_ref("losses") is tf.get_collection_ref("losses"))
    out("copy_is_not_live", tf.get_collection("losses") is tf.get_collection("losses"))
    expected = {'scoped': [{'tensor': 's/l3:0', 'dtype': 'float32', 'shape': '()'}],
     'all': [{'tensor': 'l1:0', 'dtype': 'float32', 'shape': '()'},
             {'tensor': 'l2:0', 'dtype': 'float32', 'shape': '()'},
             {'tensor': 's/l3:0', 'dtype': 'float32', 'shape': '()'}],
     'ref_is_live': {'py': 'bool', 'v': True},
     'copy_is_not_live': {'py': 'bool', 'v': False}}
    HARNESS.check(got, expected)


def test_s68_convert_to_tensor():
    out, catch, got = HARNESS.recorder()
    out("int", tf.convert_to_tensor(1))
    out("list", tf.convert_to_tensor([1.0, 2.0], name="lst"))
    out("dtype", tf.convert_to_tensor([1, 2], dtype=tf.float32))
    out("preferred", tf.convert_to_tensor([1, 2], preferred_dtype=tf.float32) if hasattr(tf, "convert_to_tensor") else None)
    catch("bad_dtype", lambda: tf.convert_to_tensor(1.5, dtype=tf.int32))
    t = tf.constant(1.0)
    out("same", tf.convert_to_tensor(t) is t)
    catch("tensor_dtype_mismatch", lambda: tf.convert_to_tensor(t, dtype=tf.int32))
    catch("object", lambda: tf.convert_to_tensor(object()))
    catch("none", lambda: tf.convert_to_tensor(None))
    expected = {'int': {'tensor': 'Const:0', 'dtype': 'int32', 'shape': '()'},
     'list': {'tensor': 'lst:0', 'dtype': 'float32', 'shape': '(2,)'},
     'dtype': {'tensor': 'Const_1:0', 'dtype': 'float32', 'shape': '(2,)'},
     'preferred': {'tensor': 'Const_2:0', 'dtype': 'float32', 'shape': '(2,)'},
     'bad_dtype': {'exc': 'TypeError', 'msg': "Expected int32, but got 1.5 of type 'float'."},
     'same': {'py': 'bool', 'v': True},
     'tensor_dtype_mismatch': {'exc': 'ValueError',
                               'msg': 'Tensor conversion requested dtype int32 for Tensor with dtype '
                                      "float32: <tf.Tensor 'Const_3:0' shape=() dtype=float32>"},
     'object': {'exc': 'TypeError',
                'msg': 'Failed to convert elements of <object object> to Tensor. Consider casting elements '
                       'to a supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for '
                       'supported TF dtypes.'},
     'none': {'exc': 'ValueError', 'msg': 'None values not supported.'}}
    HARNESS.check(got, expected)


def test_s69_linear_model_end_to_end():
    out, catch, got = HARNESS.recorder()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    W = tf.Variable(tf.truncated_normal([3, 2], stddev=0.1), name="W")
    b = tf.Variable(tf.zeros([2]), name="b")
    logits = tf.matmul(x, W) + b
    h = tf.nn.relu(logits)
    loss = tf.reduce_mean(tf.square(h - 1.0))
    out("logits", logits)
    out("loss", loss)
    out("names", [logits.op.name, h.op.name, loss.op.name])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(tf.assign(W, tf.ones([3, 2])))
        out("loss_val", s.run(loss, {x: [[1, 2, 3], [0, 0, 0]]}))
        out("h", s.run(h, {x: [[1, -2, 0]]}))
    expected = {'logits': {'tensor': 'add:0', 'dtype': 'float32', 'shape': '(?, 2)'},
     'loss': {'tensor': 'Mean:0', 'dtype': 'float32', 'shape': '()'},
     'names': ['add', 'Relu', 'Mean'],
     'loss_val': {'np': 'float32', 'v': 13.0},
     'h': {'nd': 'float32', 'shape': [1, 2], 'v': [[0.0, 0.0]]}}
    HARNESS.check(got, expected)


def test_s70_array_ops_basic():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([[1, 2, 3], [4, 5, 6]])
    catch("slice", lambda: a[0])
    catch("slice2", lambda: a[:, 1:])
    catch("concat", lambda: tf.concat([a, a], 0))
    catch("stack", lambda: tf.stack([a, a]))
    catch("transpose", lambda: tf.transpose(a))
    catch("expand", lambda: tf.expand_dims(a, 0))
    catch("squeeze", lambda: tf.squeeze(tf.ones([1, 3, 1])))
    catch("gather", lambda: tf.gather(a, [1, 0]))
    catch("argmax", lambda: tf.argmax(a, 1))
    ts = {}
    for k, f in [("slice", lambda: a[0]), ("concat", lambda: tf.concat([a, a], 1)), ("gather", lambda: tf.gather(a, [1])),
                 ("argmax", lambda: tf.argmax(a, axis=1)), ("stack", lambda: tf.stack([a, a], axis=1))]:
        try:
            ts[k] = f()
        except Exception:  # noqa: BLE001
            pass
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'slice': {'tensor': 'strided_slice:0', 'dtype': 'int32', 'shape': '(3,)'},
     'slice2': {'tensor': 'strided_slice_1:0', 'dtype': 'int32', 'shape': '(2, 2)'},
     'concat': {'tensor': 'concat:0', 'dtype': 'int32', 'shape': '(4, 3)'},
     'stack': {'tensor': 'stack:0', 'dtype': 'int32', 'shape': '(2, 2, 3)'},
     'transpose': {'tensor': 'transpose:0', 'dtype': 'int32', 'shape': '(3, 2)'},
     'expand': {'tensor': 'ExpandDims:0', 'dtype': 'int32', 'shape': '(1, 2, 3)'},
     'squeeze': {'tensor': 'Squeeze:0', 'dtype': 'float32', 'shape': '(3,)'},
     'gather': {'tensor': 'GatherV2:0', 'dtype': 'int32', 'shape': '(2, 3)'},
     'argmax': {'tensor': 'ArgMax:0', 'dtype': 'int64', 'shape': '(2,)'},
     'vals': {'dict': {'argmax': {'nd': 'int64', 'shape': [2], 'v': [2, 2]},
                       'concat': {'nd': 'int32',
                                  'shape': [2, 6],
                                  'v': [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]]},
                       'gather': {'nd': 'int32', 'shape': [1, 3], 'v': [[4, 5, 6]]},
                       'slice': {'nd': 'int32', 'shape': [3], 'v': [1, 2, 3]},
                       'stack': {'nd': 'int32',
                                 'shape': [2, 2, 3],
                                 'v': [[[1, 2, 3], [1, 2, 3]], [[4, 5, 6], [4, 5, 6]]]}}}}
    HARNESS.check(got, expected)


def test_s71_add_n_and_misc_math():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1.0, 2.0])
    catch("add_n", lambda: tf.add_n([a, a, a]))
    catch("sign", lambda: tf.sign(a))
    catch("reciprocal", lambda: tf.reciprocal(a))
    catch("squared_difference", lambda: tf.squared_difference(a, 1.0))
    catch("round", lambda: tf.round(a))
    catch("argmin", lambda: tf.argmin(a))
    catch("softmax", lambda: tf.nn.softmax(a))
    catch("sigmoid_nn", lambda: tf.nn.sigmoid(a))
    catch("tanh_nn", lambda: tf.nn.tanh(a))
    catch("where", lambda: tf.where(a > 1, a, -a))
    catch("clip", lambda: tf.clip_by_value(a, 0.0, 1.5))
    expected = {'add_n': {'tensor': 'AddN:0', 'dtype': 'float32', 'shape': '(2,)'},
     'sign': {'tensor': 'Sign:0', 'dtype': 'float32', 'shape': '(2,)'},
     'reciprocal': {'tensor': 'Reciprocal:0', 'dtype': 'float32', 'shape': '(2,)'},
     'squared_difference': {'tensor': 'SquaredDifference:0', 'dtype': 'float32', 'shape': '(2,)'},
     'round': {'tensor': 'Round:0', 'dtype': 'float32', 'shape': '(2,)'},
     'argmin': {'tensor': 'ArgMin:0', 'dtype': 'int64', 'shape': '()'},
     'softmax': {'tensor': 'Softmax:0', 'dtype': 'float32', 'shape': '(2,)'},
     'sigmoid_nn': {'tensor': 'Sigmoid:0', 'dtype': 'float32', 'shape': '(2,)'},
     'tanh_nn': {'tensor': 'Tanh:0', 'dtype': 'float32', 'shape': '(2,)'},
     'where': {'tensor': 'Select:0', 'dtype': 'float32', 'shape': '(2,)'},
     'clip': {'tensor': 'clip_by_value:0', 'dtype': 'float32', 'shape': '(2,)'}}
    HARNESS.check(got, expected)


def test_s72_graph_context_and_reset():
    out, catch, got = HARNESS.recorder()
    g = tf.Graph()
    with g.as_default() as gg:
        out("as_default_returns", gg is g)
        a = tf.constant(1)
        out("a_graph", a.graph is g)
    out("default_not_g", tf.get_default_graph() is not g)
    g0 = tf.get_default_graph()
    tf.constant(1)
    tf.reset_default_graph()
    out("reset_new", tf.get_default_graph() is not g0)
    out("empty", len(tf.get_default_graph().get_operations()))
    with g.as_default():
        catch("reset_inside", lambda: tf.reset_default_graph())
    expected = {'as_default_returns': {'py': 'bool', 'v': True},
     'a_graph': {'py': 'bool', 'v': True},
     'default_not_g': {'py': 'bool', 'v': True},
     'reset_new': {'py': 'bool', 'v': True},
     'empty': {'py': 'int', 'v': 0},
     'reset_inside': {'exc': 'AssertionError',
                      'msg': 'Do not use tf.reset_default_graph() to clear nested graphs. If you need a '
                             'cleared graph, exit the nesting and create a new graph.'}}
    HARNESS.check(got, expected)


def test_s73_bool_and_string_feeds():
    out, catch, got = HARNESS.recorder()
    s_ph = tf.placeholder(tf.string, name="s")
    b_ph = tf.placeholder(tf.bool, [2], name="b")
    with tf.Session() as s:
        out("str", s.run(s_ph, {s_ph: "hello"}))
        out("str_list", s.run(s_ph, {s_ph: ["a", "bc"]}))
        out("bool", s.run(tf.logical_not(b_ph), {b_ph: [True, False]}))
    expected = {'str': {'nd': 'object', 'shape': [], 'v': ["'hello'"]},
     'str_list': {'nd': 'object', 'shape': [2], 'v': ["'a'", "'bc'"]},
     'bool': {'nd': 'bool', 'shape': [2], 'v': [False, True]}}
    HARNESS.check(got, expected)


def test_s74_feed_same_placeholder_batches():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [None], name="x")
    m = tf.reduce_mean(x)
    with tf.Session() as s:
        out("b1", s.run(m, {x: [1.0, 2.0]}))
        out("b2", s.run(m, {x: [1.0, 2.0, 3.0, 4.0]}))
        out("empty", s.run(m, {x: []}))
        out("sum_empty", s.run(tf.reduce_sum(x), {x: []}))
    expected = {'b1': {'np': 'float32', 'v': 1.5},
     'b2': {'np': 'float32', 'v': 2.5},
     'empty': {'np': 'float32', 'v': 'nan'},
     'sum_empty': {'np': 'float32', 'v': 0.0}}
    HARNESS.check(got, expected)


def test_s75_scalar_python_list_nested_consts():
    # message differs from TF, class asserted: mixed_str
    out, catch, got = HARNESS.recorder()
    ts = [tf.constant([[1, 2], [3, 4]]), tf.constant([[1.0], [2.0]]), tf.constant([True, False])]
    catch("ragged_const", lambda: tf.constant([[1, 2], [3]]))
    catch("mixed_str", lambda: tf.constant([1, "a"]))
    catch("nan", lambda: tf.Session().run(tf.constant(float("nan"))))
    catch("inf_div", lambda: tf.Session().run(tf.constant(1.0) / 0.0))
    for i, t in enumerate(ts):
        out(f"t{i}", t)
    expected = {'ragged_const': {'exc': 'ValueError',
                      'msg': 'setting an array element with a sequence. The requested array has an '
                             'inhomogeneous shape after 1 dimensions. The detected shape was (2,) + '
                             'inhomogeneous part.'},
     'nan': {'np': 'float32', 'v': 'nan'},
     'inf_div': {'np': 'float32', 'v': 'inf'},
     't0': {'tensor': 'Const:0', 'dtype': 'int32', 'shape': '(2, 2)'},
     't1': {'tensor': 'Const_1:0', 'dtype': 'float32', 'shape': '(2, 1)'},
     't2': {'tensor': 'Const_2:0', 'dtype': 'bool', 'shape': '(2,)'}}
    HARNESS.check(got, expected, classes={'mixed_str': 'TypeError'})


def test_s76_numpy_and_list_left_operands():
    out, catch, got = HARNESS.recorder()
    t = tf.constant([1.0, 2.0])
    ts = {"np_arr_add": np.array([1.0, 1.0], dtype=np.float32) + t, "np_scalar_mul": np.float32(0.5) * t,
          "list_add": [10.0, 20.0] + t, "np_f64_scalar": np.float64(2.0) * t, "int_list_sub": [3, 4] - tf.constant([1, 1])}
    for k, v in ts.items():
        out(k, v)
    with tf.Session() as s:
        out("vals", s.run(ts))
    expected = {'np_arr_add': {'tensor': 'add:0', 'dtype': 'float32', 'shape': '(2,)'},
     'np_scalar_mul': {'tensor': 'mul:0', 'dtype': 'float32', 'shape': '(2,)'},
     'list_add': {'tensor': 'add_1:0', 'dtype': 'float32', 'shape': '(2,)'},
     'np_f64_scalar': {'tensor': 'mul_1:0', 'dtype': 'float32', 'shape': '(2,)'},
     'int_list_sub': {'tensor': 'sub:0', 'dtype': 'int32', 'shape': '(2,)'},
     'vals': {'dict': {'int_list_sub': {'nd': 'int32', 'shape': [2], 'v': [2, 3]},
                       'list_add': {'nd': 'float32', 'shape': [2], 'v': [11.0, 22.0]},
                       'np_arr_add': {'nd': 'float32', 'shape': [2], 'v': [2.0, 3.0]},
                       'np_f64_scalar': {'nd': 'float32', 'shape': [2], 'v': [2.0, 4.0]},
                       'np_scalar_mul': {'nd': 'float32', 'shape': [2], 'v': [0.5, 1.0]}}}}
    HARNESS.check(got, expected)


def test_s77_overflow_and_int_edge_cases():
    # diverges from TF (not asserted): neg_int_pow
    out, catch, got = HARNESS.recorder()
    ts = {"uint8_wrap": tf.constant([250], tf.uint8) + 10, "int32_wrap": tf.constant(2 ** 31 - 1) + 1,
          "neg_mean": tf.reduce_mean(tf.constant([-1, -2])), "int_pow": tf.constant(2) ** 3,
          "int_mod_neg": tf.constant(-7) % 3, "f_mod_neg": tf.constant(-7.0) % 3.0}
    with tf.Session() as s:
        out("vals", s.run(ts))
        catch("neg_int_pow", lambda: s.run(tf.constant(2) ** -1))
    catch("big_scalar", lambda: tf.constant([1]) + 2 ** 40)
    catch("bool_sum", lambda: tf.reduce_sum(tf.constant([True])))
    expected = {'vals': {'dict': {'f_mod_neg': {'np': 'float32', 'v': 2.0},
                       'int32_wrap': {'np': 'int32', 'v': -2147483648},
                       'int_mod_neg': {'np': 'int32', 'v': 2},
                       'int_pow': {'np': 'int32', 'v': 8},
                       'neg_mean': {'np': 'int32', 'v': -1},
                       'uint8_wrap': {'nd': 'uint8', 'shape': [1], 'v': [4]}}},
     'big_scalar': {'tensor': 'add_2:0', 'dtype': 'int32', 'shape': '(1,)'},
     'bool_sum': {'exc': 'TypeError',
                  'msg': "Value passed to parameter 'input' has DataType bool not in list of allowed "
                         'values: float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, '
                         'quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, '
                         'uint64'}}
    HARNESS.check(got, expected, diverges=('neg_int_pow',))


def test_s78_string_dtype_names():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder("float", [None, 4], name="x")
    out("x", x)
    out("cast_str", tf.cast(tf.constant([1, 2]), "float"))
    out("cast_f64", tf.cast(tf.constant([1, 2]), "float64"))
    out("var_dtype", tf.Variable(1, dtype=tf.float32))
    out("as_dtype_np", tf.as_dtype(np.float32))
    out("as_dtype_str", tf.as_dtype("int64"))
    out("eq_np", tf.float32 == np.float32)
    out("props", [tf.float32.is_floating, tf.int32.is_integer, tf.float32.size, tf.int8.max, tf.uint8.min,
                  tf.bool.is_bool if hasattr(tf.bool, "is_bool") else None, tf.float32.as_numpy_dtype.__name__])
    v = tf.Variable([1.0])
    out("base", [v.dtype.base_dtype, v.dtype.is_floating, v.dtype == tf.float32, v.dtype.base_dtype == tf.float32,
                 v.dtype.name, v.dtype._is_ref_dtype])
    catch("bad_dtype", lambda: tf.as_dtype("flot"))
    expected = {'x': {'tensor': 'x:0', 'dtype': 'float32', 'shape': '(?, 4)'},
     'cast_str': {'tensor': 'Cast:0', 'dtype': 'float32', 'shape': '(2,)'},
     'cast_f64': {'tensor': 'Cast_1:0', 'dtype': 'float64', 'shape': '(2,)'},
     'var_dtype': {'var': 'Variable:0', 'dtype': 'float32_ref', 'shape': '()'},
     'as_dtype_np': {'dtype': 'float32'},
     'as_dtype_str': {'dtype': 'int64'},
     'eq_np': {'py': 'bool', 'v': True},
     'props': [{'py': 'bool', 'v': True},
               {'py': 'bool', 'v': True},
               {'py': 'int', 'v': 4},
               {'py': 'int', 'v': 127},
               {'py': 'int', 'v': 0},
               {'py': 'bool', 'v': True},
               'float32'],
     'base': [{'dtype': 'float32'},
              {'py': 'bool', 'v': True},
              {'py': 'bool', 'v': False},
              {'py': 'bool', 'v': True},
              'float32_ref',
              {'py': 'bool', 'v': True}],
     'bad_dtype': {'exc': 'TypeError',
                   'msg': "Cannot convert the argument `type_value`: 'flot' to a TensorFlow DType."}}
    HARNESS.check(got, expected)


def test_s79_feed_tensor_value_and_variable_keys():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [2], name="x")
    v = tf.Variable([1.0, 2.0], name="v")
    y = v * 2
    with tf.Session() as s:
        catch("feed_tensor_value", lambda: s.run(x, {x: tf.constant([1.0, 2.0])}))
        s.run(v.initializer)
        out("feed_var", s.run(y, {v: [10.0, 20.0]}))
        out("after_feed_var", s.run(y))
        out("fetch_var_op", s.run(v.op))
        out("fetch_initializer", s.run(v.initializer))
        out("feed_list_of_arrays", s.run(x, {x: [np.float32(1), np.float32(2)]}))
    expected = {'feed_tensor_value': {'exc': 'TypeError',
                           'msg': 'The value of a feed cannot be a tf.Tensor object. Acceptable feed '
                                  'values include Python scalars, strings, lists, numpy ndarrays, or '
                                  'TensorHandles. For reference, the tensor object was Tensor("Const:0", '
                                  'shape=(2,), dtype=float32) which was passed to the argument `feed_dict` '
                                  'with key Tensor("x:0", shape=(2,), dtype=float32).'},
     'feed_var': {'nd': 'float32', 'shape': [2], 'v': [20.0, 40.0]},
     'after_feed_var': {'nd': 'float32', 'shape': [2], 'v': [2.0, 4.0]},
     'fetch_var_op': None,
     'fetch_initializer': None,
     'feed_list_of_arrays': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]}}
    HARNESS.check(got, expected)


def test_s80_empty_initializer_and_ref_tensor():
    out, catch, got = HARNESS.recorder()
    init = tf.global_variables_initializer()
    out("init", init)
    out("init_inputs", [list(init.inputs), init.control_inputs])
    v = tf.Variable(1.0, name="v")
    g = tf.get_default_graph()
    out("ref_tensor", g.get_tensor_by_name("v:0"))
    out("read_tensor", g.get_tensor_by_name("v/read:0"))
    out("v_op_outputs", v.op.outputs)
    out("init2", tf.global_variables_initializer())
    out("init2_ctrl", [o.name for o in tf.global_variables_initializer().control_inputs])
    expected = {'init': {'op': 'init', 'type': 'NoOp'},
     'init_inputs': [[], []],
     'ref_tensor': {'tensor': 'v:0', 'dtype': 'float32_ref', 'shape': '()'},
     'read_tensor': {'tensor': 'v/read:0', 'dtype': 'float32', 'shape': '()'},
     'v_op_outputs': [{'tensor': 'v:0', 'dtype': 'float32_ref', 'shape': '()'}],
     'init2': {'op': 'init_1', 'type': 'NoOp'},
     'init2_ctrl': ['v/Assign']}
    HARNESS.check(got, expected)


def test_s81_invalid_names():
    out, catch, got = HARNESS.recorder()
    catch("bad_scope", lambda: tf.name_scope("bad name!").__enter__())
    catch("bad_op_name", lambda: tf.constant(1, name="bad name"))
    catch("leading_underscore", lambda: tf.constant(1, name="_x"))
    catch("ok_dash", lambda: tf.constant(1, name="a-b.c"))
    catch("var_bad_name", lambda: tf.Variable(1, name="a b"))
    expected = {'bad_scope': {'exc': 'ValueError',
                   'msg': "'bad name!' is not a valid root scope name. A root scope name has to match the "
                          'following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$'},
     'bad_op_name': {'exc': 'ValueError',
                     'msg': '`bad name` is not a valid node name. Accepted names conform to Regex '
                            "/re.compile('^[A-Za-z0-9.][A-Za-z0-9_.\\\\\\\\/>-]*$')/"},
     'leading_underscore': {'exc': 'ValueError',
                            'msg': '`_x` is not a valid node name. Accepted names conform to Regex '
                                   "/re.compile('^[A-Za-z0-9.][A-Za-z0-9_.\\\\\\\\/>-]*$')/"},
     'ok_dash': {'tensor': 'a-b.c:0', 'dtype': 'int32', 'shape': '()'},
     'var_bad_name': {'exc': 'ValueError',
                      'msg': "'a b' is not a valid root scope name. A root scope name has to match the "
                             'following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$'}}
    HARNESS.check(got, expected)


def test_s82_keepdims_all_and_scalar_shapes():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    ts = {"all_keep": tf.reduce_sum(x, keepdims=True), "mean_keep0": tf.reduce_mean(x, 0, keepdims=True),
          "max_unknown": tf.reduce_max(tf.placeholder(tf.float32), keepdims=True)}
    for k, v in ts.items():
        out(k, v)
    with tf.Session() as s:
        out("vals", s.run(ts["all_keep"], {x: np.ones((2, 3))}))
    expected = {'all_keep': {'tensor': 'Sum:0', 'dtype': 'float32', 'shape': '(1, 1)'},
     'mean_keep0': {'tensor': 'Mean:0', 'dtype': 'float32', 'shape': '(1, 3)'},
     'max_unknown': {'tensor': 'Max:0', 'dtype': 'float32', 'shape': '<unknown>'},
     'vals': {'nd': 'float32', 'shape': [1, 1], 'v': [[6.0]]}}
    HARNESS.check(got, expected)


def test_s83_session_run_options_and_partial_fetch():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1.0, 2.0], name="a")
    with tf.Session() as s:
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        md = tf.RunMetadata()
        out("with_opts", s.run(a, options=opts, run_metadata=md))
        out("has_step_stats", md.HasField("step_stats"))
        out("positional_feed", s.run(a * 2, {a: [3.0, 4.0]}))
    expected = {'with_opts': {'nd': 'float32', 'shape': [2], 'v': [1.0, 2.0]},
     'has_step_stats': {'py': 'bool', 'v': True},
     'positional_feed': {'nd': 'float32', 'shape': [2], 'v': [6.0, 8.0]}}
    HARNESS.check(got, expected)


def test_s84_tensor_str_repr_and_variable_repr():
    out, catch, got = HARNESS.recorder()
    a = tf.constant([1, 2], name="a")
    v = tf.Variable([1.0, 2.0], name="v")
    p = tf.placeholder(tf.float32, [None, 3], name="p")
    out("str_a", str(a))
    out("repr_a", repr(a))
    out("str_p", str(p))
    out("repr_v", repr(v))
    out("str_v_value", str(v.value()))
    out("str_dtype", [str(tf.float32), repr(tf.float32), str(v.dtype)])
    out("str_shape", [str(p.shape), repr(p.shape), str(tf.TensorShape(None)), repr(tf.TensorShape(None))])
    expected = {'str_a': 'Tensor("a:0", shape=(2,), dtype=int32)',
     'repr_a': "<tf.Tensor 'a:0' shape=(2,) dtype=int32>",
     'str_p': 'Tensor("p:0", shape=(?, 3), dtype=float32)',
     'repr_v': "<tf.Variable 'v:0' shape=(2,) dtype=float32_ref>",
     'str_v_value': 'Tensor("v/read:0", shape=(2,), dtype=float32)',
     'str_dtype': ["<dtype: 'float32'>", 'tf.float32', "<dtype: 'float32_ref'>"],
     'str_shape': ['(?, 3)',
                   'TensorShape([Dimension(None), Dimension(3)])',
                   '<unknown>',
                   'TensorShape(None)']}
    HARNESS.check(got, expected)


def test_s85_assign_inside_group_and_fetch_list_order():
    out, catch, got = HARNESS.recorder()
    v = tf.Variable(0, name="counter")
    inc = tf.assign_add(v, 1)
    step = tf.group(inc)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(step)
        out("after3", s.run(v))
        out("inc_val", s.run(inc))
        out("assign_val", s.run(tf.assign(v, 100)))
        out("v_final", s.run(v))
    expected = {'after3': {'np': 'int32', 'v': 3},
     'inc_val': {'np': 'int32', 'v': 4},
     'assign_val': {'np': 'int32', 'v': 100},
     'v_final': {'np': 'int32', 'v': 100}}
    HARNESS.check(got, expected)


def test_s86_reshape_shape_tensor_and_unknown_rank():
    out, catch, got = HARNESS.recorder()
    x = tf.placeholder(tf.float32, name="x")
    r = tf.reshape(x, tf.shape(tf.ones([2, 2])))
    out("r", r)
    y = tf.placeholder(tf.float32, [None, 2, 3], name="y")
    out("flat", tf.reshape(y, [-1, 6]))
    out("flat2", tf.reshape(y, [-1]))
    b = tf.placeholder(tf.int32, [2], name="b")
    out("from_ph", tf.reshape(y, b))
    with tf.Session() as s:
        out("vals", s.run(r, {x: [1, 2, 3, 4]}))
    expected = {'r': {'tensor': 'Reshape:0', 'dtype': 'float32', 'shape': '(2, 2)'},
     'flat': {'tensor': 'Reshape_1:0', 'dtype': 'float32', 'shape': '(?, 6)'},
     'flat2': {'tensor': 'Reshape_2:0', 'dtype': 'float32', 'shape': '(?,)'},
     'from_ph': {'tensor': 'Reshape_3:0', 'dtype': 'float32', 'shape': '(?, ?)'},
     'vals': {'nd': 'float32', 'shape': [2, 2], 'v': [[1.0, 2.0], [3.0, 4.0]]}}
    HARNESS.check(got, expected)
