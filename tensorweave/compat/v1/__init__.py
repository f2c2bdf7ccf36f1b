"""`import tensorweave.compat.v1 as tf`: TF1's public API, filled from the table of names (`platform/tf_export`).

Every name is declared once, where it is implemented; this package imports those modules and its
sub-namespace modules, then fills itself with the top-level names (the protobufs and tensor-proto helpers
from `formats/`, which sits beside the table and so cannot declare into it, are declared here).
"""

from tensorweave.client import session as _session
from tensorweave.compat.v1 import (
    app,
    audio,
    bitwise,
    compat,
    config,
    data,
    debugging,
    distribute,
    distributions,
    dtypes,
    errors,
    feature_column,
    flags,
    gfile,
    graph_util,
    image,
    initializers,
    io,
    layers,
    linalg,
    logging,
    lookup,
    losses,
    manip,
    math,
    metrics,
    mixed_precision,
    nest,
    nn,
    profiler,
    python_io,
    quantization,
    queue,
    ragged,
    random,
    resource_loader,
    saved_model,
    sets,
    signal,
    sparse,
    spectral,
    strings,
    summary,
    sysconfig,
    test,
    train,
    version,
)
from tensorweave.formats import protos as _protos
from tensorweave.formats import tensor_proto as _tensor_proto
from tensorweave.framework import device_spec as _device_spec
from tensorweave.framework import dtypes as _dtypes
from tensorweave.framework import graph as _graph
from tensorweave.framework import indexed_slices as _indexed_slices
from tensorweave.framework import op_registry as _op_registry
from tensorweave.framework import random_seed as _random_seed
from tensorweave.framework import sparse_tensor as _sparse_tensor
from tensorweave.framework import tensor_shape as _tensor_shape
from tensorweave.framework import tensor_util as _tensor_util
from tensorweave.framework import type_spec as _type_spec
from tensorweave.framework import versions as _versions
from tensorweave.ops import backprop as _backprop
from tensorweave.ops import batch_ops as _batch_ops
from tensorweave.ops import cast_ops as _cast_ops
from tensorweave.ops import check_ops as _check_ops
from tensorweave.ops import clip_ops as _clip_ops
from tensorweave.ops import constant_ops as _constant_ops
from tensorweave.ops import control_flow_case as _control_flow_case
from tensorweave.ops import control_flow_ops as _control_flow_ops
from tensorweave.ops import critical_section_ops as _critical_section_ops
from tensorweave.ops import custom_gradient as _custom_gradient
from tensorweave.ops import data_flow_ops as _data_flow_ops
from tensorweave.ops import def_function as _def_function
from tensorweave.ops import elementwise_ops as _elementwise_ops
from tensorweave.ops import fill_ops as _fill_ops
from tensorweave.ops import functional_control_ops as _functional_control_ops
from tensorweave.ops import functional_ops as _functional_ops
from tensorweave.ops import gradients as _gradients
from tensorweave.ops import image_ops as _image_ops
from tensorweave.ops import indexing_ops as _indexing_ops
from tensorweave.ops import init_ops as _init_ops
from tensorweave.ops import io_ops as _io_ops
from tensorweave.ops import legacy_ops as _legacy_ops  # noqa: F401 - registers the ops
from tensorweave.ops import linalg_decompositions as _linalg_decompositions
from tensorweave.ops import linalg_impl_ops as _linalg_impl_ops
from tensorweave.ops import linalg_ops as _linalg_ops
from tensorweave.ops import logging_ops as _logging_ops
from tensorweave.ops import lookup_ops as _lookup_ops
from tensorweave.ops import manipulation_ops as _manipulation_ops
from tensorweave.ops import math_misc_ops as _math_misc_ops
from tensorweave.ops import misc_array_ops as _misc_array_ops
from tensorweave.ops import module as _module
from tensorweave.ops import nn_conv3d_ops as _nn_conv3d_ops
from tensorweave.ops import nn_conv_ops as _nn_conv_ops
from tensorweave.ops import nn_ops as _nn_ops
from tensorweave.ops import parsing_ops as _parsing_ops
from tensorweave.ops import partitioned_variables as _partitioned_variables
from tensorweave.ops import proto_ops as _proto_ops
from tensorweave.ops import quantize_ops as _quantize_ops
from tensorweave.ops import quantized_ops as _quantized_ops
from tensorweave.ops import ragged_tensor as _ragged_tensor
from tensorweave.ops import random_distribution_ops as _random_distribution_ops
from tensorweave.ops import random_index_shuffle_ops as _random_index_shuffle_ops
from tensorweave.ops import random_ops as _random_ops
from tensorweave.ops import raw_ops as _raw_ops
from tensorweave.ops import reader_ops as _reader_ops
from tensorweave.ops import reduction_ops as _reduction_ops
from tensorweave.ops import resource_variable_ops as _resource_variable_ops
from tensorweave.ops import scatter_ops as _scatter_ops
from tensorweave.ops import script_ops as _script_ops
from tensorweave.ops import segment_ops as _segment_ops
from tensorweave.ops import sequence_ops as _sequence_ops
from tensorweave.ops import session_ops as _session_ops
from tensorweave.ops import set_ops as _set_ops
from tensorweave.ops import shape_ops as _shape_ops
from tensorweave.ops import space_batch_ops as _space_batch_ops
from tensorweave.ops import sparse_misc_ops as _sparse_misc_ops
from tensorweave.ops import sparse_ops as _sparse_ops
from tensorweave.ops import special_math_ops as _special_math_ops
from tensorweave.ops import spectral_ops as _spectral_ops
from tensorweave.ops import state_ops as _state_ops
from tensorweave.ops import string_ops as _string_ops
from tensorweave.ops import template as _template
from tensorweave.ops import tensor_array_ops as _tensor_array_ops
from tensorweave.ops import unicode_ops as _unicode_ops
from tensorweave.ops import variable_scope as _variable_scope
from tensorweave.ops import variables as _variables
from tensorweave.ops import while_v2 as _while_v2
from tensorweave.platform import tf_logging as _tf_logging
from tensorweave.platform.tf_export import export_value as _export_value
from tensorweave.platform.tf_export import populate as _populate

_export_value(_protos.AttrValue, "AttrValue")
_export_value(_protos.ConfigProto, "ConfigProto")
_export_value(_protos.GPUOptions, "GPUOptions")
_export_value(_protos.GraphDef, "GraphDef")
_export_value(_protos.GraphOptions, "GraphOptions")
_export_value(_protos.HistogramProto, "HistogramProto")
_export_value(_protos.LogMessage, "LogMessage")
_export_value(_protos.MetaGraphDef, "MetaGraphDef")
_export_value(_protos.NameAttrList, "NameAttrList")
_export_value(_protos.NodeDef, "NodeDef")
_export_value(_protos.OptimizerOptions, "OptimizerOptions")
_export_value(_protos.RunMetadata, "RunMetadata")
_export_value(_protos.RunOptions, "RunOptions")
_export_value(_protos.SummaryMetadata, "SummaryMetadata")
_export_value(_protos.TensorInfo, "TensorInfo")
_export_value(_protos.TensorShapeProto, "TensorShapeProto")
_export_value(_tensor_proto.make_ndarray, "make_ndarray")
_export_value(_tensor_proto.make_tensor_proto, "make_tensor_proto")

_populate(globals(), "")
