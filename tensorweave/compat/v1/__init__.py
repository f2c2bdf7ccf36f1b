"""`import tensorweave.compat.v1 as tf`: TF1's public API, re-exported under TF1's names.

Only re-exports live here; every name is implemented in the layers below.
"""

from tensorweave.client.session import InteractiveSession, Session
from tensorweave.compat.v1 import dtypes, errors, io, nn, python_io, random, summary, train
from tensorweave.compat.v1.dtypes import *  # noqa: F403 - every dtype constant, as TF exports them
from tensorweave.formats.protos import (
    AttrValue,
    ConfigProto,
    Event,
    GPUOptions,
    GraphDef,
    GraphOptions,
    HistogramProto,
    LogMessage,
    MetaGraphDef,
    NameAttrList,
    NodeDef,
    OptimizerOptions,
    RunMetadata,
    RunOptions,
    SessionLog,
    Summary,
    SummaryMetadata,
    TensorShapeProto,
)
from tensorweave.formats.tensor_proto import make_ndarray, make_tensor_proto
from tensorweave.framework.device_spec import DeviceSpec
from tensorweave.framework.dtypes import DType, as_dtype
from tensorweave.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    convert_to_tensor,
    convert_to_tensor_or_indexed_slices,
    get_default_graph,
    get_default_session,
    name_scope,
    register_tensor_conversion_function,
    reset_default_graph,
)
from tensorweave.framework.op_registry import NotDifferentiable, RegisterGradient
from tensorweave.framework.random_seed import get_seed, set_random_seed
from tensorweave.framework.tensor_shape import Dimension, TensorShape, dimension_at_index, dimension_value
from tensorweave.framework.tensor_util import get_static_value
from tensorweave.ops.array_ops import (
    boolean_mask,
    concat,
    constant,
    expand_dims,
    fill,
    gather,
    identity,
    newaxis,
    one_hot,
    ones,
    ones_like,
    placeholder,
    placeholder_with_default,
    rank,
    reshape,
    shape,
    size,
    slice,
    squeeze,
    stack,
    strided_slice,
    tile,
    transpose,
    unstack,
    zeros,
    zeros_like,
)
from tensorweave.ops.control_flow_ops import group, no_op, tuple
from tensorweave.ops.math_ops import (
    abs,
    add,
    add_n,
    argmax,
    argmin,
    cast,
    ceil,
    clip_by_value,
    cos,
    count_nonzero,
    cumsum,
    div,
    divide,
    equal,
    erf,
    exp,
    expm1,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    range,
    realdiv,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    stop_gradient,
    subtract,
    tan,
    tanh,
    to_double,
    to_float,
    to_int32,
    to_int64,
    truediv,
    where,
    where_v2,
)
from tensorweave.ops.random_ops import random_normal, random_uniform, truncated_normal
from tensorweave.ops.state_ops import assign, assign_add, assign_sub, is_variable_initialized
from tensorweave.ops.variables import (
    Variable,
    all_variables,
    global_variables,
    global_variables_initializer,
    initialize_all_variables,
    local_variables,
    local_variables_initializer,
    model_variables,
    moving_average_variables,
    report_uninitialized_variables,
    trainable_variables,
    variables_initializer,
)

mod = floormod
negative = negative


def control_dependencies(control_inputs):  # noqa: ANN001, ANN201 - TF's signature
    """Ops created inside run after `control_inputs` (in the default graph)."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):  # noqa: ANN001, ANN201
    """Place ops created inside on a device (spec string, DeviceSpec, function or None)."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):  # noqa: ANN001, ANN201
    """Place ops created inside with `op`."""
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name):  # noqa: ANN001, ANN201
    """Stateful ops created inside keep their state in the named container."""
    return get_default_graph().container(container_name)


def get_collection(key, scope=None):  # noqa: ANN001, ANN201
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):  # noqa: ANN001, ANN201
    return get_default_graph().get_collection_ref(key)


def add_to_collection(name, value):  # noqa: ANN001, ANN201
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):  # noqa: ANN001, ANN201
    get_default_graph().add_to_collections(names, value)


def executing_eagerly():  # noqa: ANN201
    """Always False: tensorweave runs TF1 graphs."""
    return False


def disable_eager_execution():  # noqa: ANN201
    """Graph mode is the only mode, so there is nothing to disable (TF2 programs call this)."""


def disable_v2_behavior():  # noqa: ANN201
    """TF1 behaviour is the only behaviour (TF2 programs call this)."""
