"""`import tensorweave.compat.v1 as tf`: TF1's public API, re-exported under TF1's names.

Only re-exports live here; every name is implemented in the layers below (and `tf.compat.v1` is this
module, set here so that its submodule `compat` never imports its own package).
"""

import sys as _sys

from tensorweave.client.session import InteractiveSession, Session
from tensorweave.compat.v1 import (
    app,
    bitwise,
    compat,
    debugging,
    dtypes,
    errors,
    flags,
    gfile,
    initializers,
    io,
    linalg,
    logging,
    math,
    nest,
    nn,
    python_io,
    random,
    summary,
    test,
    train,
    version,
)
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
    TensorInfo,
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
    add_to_collection,
    add_to_collections,
    colocate_with,
    container,
    control_dependencies,
    control_flow_v2_enabled,
    convert_to_tensor,
    device,
    disable_control_flow_v2,
    disable_eager_execution,
    disable_resource_variables,
    disable_tensor_equality,
    disable_v2_behavior,
    disable_v2_tensorshape,
    enable_control_flow_v2,
    enable_eager_execution,
    enable_resource_variables,
    enable_tensor_equality,
    enable_v2_behavior,
    enable_v2_tensorshape,
    executing_eagerly,
    get_collection,
    get_collection_ref,
    get_default_graph,
    get_default_session,
    name_scope,
    register_tensor_conversion_function,
    reset_default_graph,
    resource_variables_enabled,
)
from tensorweave.framework.indexed_slices import IndexedSlices, convert_to_tensor_or_indexed_slices
from tensorweave.framework.op_registry import NotDifferentiable, RegisterGradient
from tensorweave.framework.random_seed import get_seed, set_random_seed
from tensorweave.framework.tensor_shape import Dimension, TensorShape, dimension_at_index, dimension_value
from tensorweave.framework.tensor_util import get_static_value, is_tensor
from tensorweave.framework.versions import (
    COMPILER_VERSION,
    CXX11_ABI_FLAG,
    GIT_VERSION,
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    MONOLITHIC_BUILD,
    VERSION,
)
from tensorweave.framework.versions import COMPILER_VERSION as __compiler_version__
from tensorweave.framework.versions import CXX11_ABI_FLAG as __cxx11_abi_flag__
from tensorweave.framework.versions import GIT_VERSION as __git_version__
from tensorweave.framework.versions import MONOLITHIC_BUILD as __monolithic_build__
from tensorweave.framework.versions import VERSION as __version__
from tensorweave.ops.cast_ops import (
    cast,
    to_bfloat16,
    to_complex64,
    to_complex128,
    to_double,
    to_float,
    to_int32,
    to_int64,
)
from tensorweave.ops.clip_ops import clip_by_norm, clip_by_value, saturate_cast
from tensorweave.ops.constant_ops import constant, placeholder, placeholder_with_default
from tensorweave.ops.control_flow_ops import cond, group, no_op, tuple
from tensorweave.ops.elementwise_ops import (
    abs,
    accumulate_n,
    acos,
    acosh,
    add,
    add_n,
    angle,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    complex,
    conj,
    cos,
    cosh,
    div,
    div_no_nan,
    divide,
    equal,
    erf,
    exp,
    expm1,
    floor,
    floor_div,
    floordiv,
    floormod,
    greater,
    greater_equal,
    imag,
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
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    real,
    realdiv,
    reciprocal,
    rint,
    round,
    rsqrt,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
    truediv,
    truncatediv,
    truncatemod,
    where,
    where_v2,
)
from tensorweave.ops.fill_ops import fill, ones, ones_like, zeros, zeros_like
from tensorweave.ops.indexing_ops import (
    boolean_mask,
    gather,
    gather_nd,
    newaxis,
    one_hot,
    slice,
    strided_slice,
)
from tensorweave.ops.init_ops import (
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    orthogonal_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    uniform_unit_scaling_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
from tensorweave.ops.linalg_ops import matmul, sparse_matmul
from tensorweave.ops.manipulation_ops import (
    concat,
    identity,
    identity_n,
    matrix_transpose,
    pad,
    reverse,
    split,
    stack,
    stop_gradient,
    tile,
    transpose,
    unstack,
)
from tensorweave.ops.nn_ops import clip_by_global_norm, global_norm, log_sigmoid
from tensorweave.ops.random_ops import (
    multinomial,
    random_normal,
    random_shuffle,
    random_uniform,
    truncated_normal,
)
from tensorweave.ops.reduction_ops import (
    arg_max,
    arg_min,
    argmax,
    argmin,
    count_nonzero,
    cumprod,
    cumsum,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from tensorweave.ops.sequence_ops import range
from tensorweave.ops.shape_ops import (
    broadcast_static_shape,
    broadcast_to,
    expand_dims,
    rank,
    reshape,
    shape,
    shape_n,
    size,
    squeeze,
)
from tensorweave.ops.state_ops import (
    assign,
    assign_add,
    assign_sub,
    batch_scatter_update,
    count_up_to,
    is_variable_initialized,
    scatter_add,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_sub,
    scatter_update,
)
from tensorweave.ops.variable_scope import (
    AUTO_REUSE,
    VariableScope,
    get_local_variable,
    get_variable,
    get_variable_scope,
    no_regularizer,
    variable_scope,
)
from tensorweave.ops.variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    all_variables,
    assert_variables_initialized,
    global_variables,
    global_variables_initializer,
    initialize_all_variables,
    initialize_local_variables,
    initialize_variables,
    local_variables,
    local_variables_initializer,
    model_variables,
    moving_average_variables,
    report_uninitialized_variables,
    trainable_variables,
    variables_initializer,
)
from tensorweave.platform.tf_logging import get_logger

compat.v1 = _sys.modules[__name__]
reverse_v2 = reverse
mod = floormod
