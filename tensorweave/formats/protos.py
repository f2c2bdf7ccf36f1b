"""TensorFlow's protobuf messages, built at import from our own `.proto` files into a private pool.

`proto/*.proto` declare TF's messages (package `tensorflow`, TF's field numbers, only the subset the
project uses); `make protos` compiles them into `proto/tensorflow.fds`, which is committed. Loading that
set into a private `DescriptorPool` keeps the wire format and the `Any` type URLs identical to TF's while
never clashing with a real TensorFlow imported in the same process, and needs no generated code (so no
protobuf gencode version check). Every class below is the message TF names the same way.
"""

from __future__ import annotations

import copyreg
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory
from google.protobuf.internal import enum_type_wrapper

FDS_PATH = Path(__file__).with_name("proto") / "tensorflow.fds"


def _build_pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    fds = descriptor_pb2.FileDescriptorSet.FromString(FDS_PATH.read_bytes())
    for file_proto in fds.file:  # protoc writes them in dependency order
        pool.Add(file_proto)
    return pool


POOL = _build_pool()

# The Python package of TF's generated module for each of our .proto files (tensorflow/core/util/event.proto
# is tensorflow.core.util.event_pb2). Our classes take that module and TF's nested qualname, so that
# repr(cls), and protobuf's type errors that show it, read as TF's.
_TF_PACKAGES = {
    "tensorflow.core.framework": ["allocation_description", "attr_value", "cost_graph", "dataset_options",
                                  "device_attributes",
                                  "full_type", "function",
                                  "graph", "graph_debug_info", "node_def", "op_def", "reader_base", "resource_handle",
                                  "step_stats", "summary", "tensor", "tensor_description", "tensor_shape",
                                  "tensor_slice", "types", "variable", "versions"],
    "tensorflow.core.protobuf": ["cluster", "config", "control_flow", "debug", "error_codes", "master", "meta_graph",
                                 "named_tensor", "queue_runner", "rewriter_config", "saved_model", "saved_tensor_slice", "saver",
                                 "tensor_bundle", "tensorflow_server", "trackable_object_graph", "worker"],
    "tensorflow.core.util": ["event"],
    "tensorflow.core.profiler": ["tfprof_log", "tfprof_output"],
    "tensorflow.core.example": ["example", "feature"],
    "tensorflow.python.training": ["checkpoint_state"],
    "xla.tsl.protobuf": ["coordination_config", "histogram", "rpc_options"],
}
_TF_MODULES = {stem: f"{package}.{stem}_pb2" for package, stems in _TF_PACKAGES.items() for stem in stems}


def message_class(full_name: str) -> type[message.Message]:
    """The class for a TF message by its full name (`"tensorflow.GraphDef"`), from the private pool."""
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(full_name))


def _unpickle(full_name: str, data: bytes) -> message.Message:
    return message_class(full_name).FromString(data)


def _reduce(msg: message.Message) -> tuple[Any, tuple[str, bytes]]:
    """Pickle by full name: protobuf's own pickling looks nested types up in the default pool."""
    return _unpickle, (msg.DESCRIPTOR.full_name, msg.SerializePartialToString())


def _name_like_tf(descriptor: Any, module: str, prefix: str = "") -> None:
    cls = message_factory.GetMessageClass(descriptor)
    cls.__module__ = module
    cls.__qualname__ = prefix + descriptor.name
    copyreg.pickle(cls, _reduce)
    for nested in descriptor.nested_types:
        _name_like_tf(nested, module, cls.__qualname__ + ".")


def _name_classes_like_tf() -> None:
    for stem, module in _TF_MODULES.items():
        for descriptor in POOL.FindFileByName(f"tensorweave/formats/proto/{stem}.proto").message_types_by_name.values():
            _name_like_tf(descriptor, module)


_name_classes_like_tf()


def _tf(name: str) -> type[message.Message]:
    return message_class("tensorflow." + name)


# graphs and functions
GraphDef = _tf("GraphDef")
NodeDef = _tf("NodeDef")
AttrValue = _tf("AttrValue")
NameAttrList = _tf("NameAttrList")
VersionDef = _tf("VersionDef")
FunctionDefLibrary = _tf("FunctionDefLibrary")
FunctionDef = _tf("FunctionDef")
GradientDef = _tf("GradientDef")
OpDef = _tf("OpDef")
OpList = _tf("OpList")
FullTypeDef = _tf("FullTypeDef")
GraphDebugInfo = _tf("GraphDebugInfo")
# tensors
DataType = enum_type_wrapper.EnumTypeWrapper(POOL.FindEnumTypeByName("tensorflow.DataType"))
TensorProto = _tf("TensorProto")
TensorShapeProto = _tf("TensorShapeProto")
TensorSliceProto = _tf("TensorSliceProto")
ResourceHandleProto = _tf("ResourceHandleProto")
VariantTensorDataProto = _tf("VariantTensorDataProto")
TensorDescription = _tf("TensorDescription")
AllocationDescription = _tf("AllocationDescription")
# meta graphs and savers
MetaGraphDef = _tf("MetaGraphDef")
CollectionDef = _tf("CollectionDef")
SignatureDef = _tf("SignatureDef")
TensorInfo = _tf("TensorInfo")
AssetFileDef = _tf("AssetFileDef")
SaverDef = _tf("SaverDef")
VariableDef = _tf("VariableDef")
SaveSliceInfoDef = _tf("SaveSliceInfoDef")
SavedModel = _tf("SavedModel")
QueueRunnerDef = _tf("QueueRunnerDef")
TrackableObjectGraph = _tf("TrackableObjectGraph")
ValuesDef = _tf("ValuesDef")
ControlFlowContextDef = _tf("ControlFlowContextDef")
CondContextDef = _tf("CondContextDef")
WhileContextDef = _tf("WhileContextDef")
# sessions
ConfigProto = _tf("ConfigProto")
GPUOptions = _tf("GPUOptions")
GraphOptions = _tf("GraphOptions")
OptimizerOptions = _tf("OptimizerOptions")
RewriterConfig = _tf("RewriterConfig")
ThreadPoolOptionProto = _tf("ThreadPoolOptionProto")
RPCOptions = _tf("RPCOptions")
ClusterDef = _tf("ClusterDef")
JobDef = _tf("JobDef")
ServerDef = _tf("ServerDef")
RunOptions = _tf("RunOptions")
CallableOptions = _tf("CallableOptions")
TensorConnection = _tf("TensorConnection")
RunMetadata = _tf("RunMetadata")
SessionMetadata = _tf("SessionMetadata")
DebugOptions = _tf("DebugOptions")
DebugTensorWatch = _tf("DebugTensorWatch")
StepStats = _tf("StepStats")
DeviceStepStats = _tf("DeviceStepStats")
NodeExecStats = _tf("NodeExecStats")
NodeOutput = _tf("NodeOutput")
AllocatorMemoryUsed = _tf("AllocatorMemoryUsed")
AllocationRecord = _tf("AllocationRecord")
MemoryStats = _tf("MemoryStats")
CostGraphDef = _tf("CostGraphDef")
DeviceAttributes = _tf("DeviceAttributes")
DeviceLocality = _tf("DeviceLocality")
# summaries and events
Event = _tf("Event")
SessionLog = _tf("SessionLog")
LogMessage = _tf("LogMessage")
TaggedRunMetadata = _tf("TaggedRunMetadata")
SourceMetadata = _tf("SourceMetadata")
Summary = _tf("Summary")
SummaryMetadata = _tf("SummaryMetadata")
SummaryDescription = _tf("SummaryDescription")
HistogramProto = _tf("HistogramProto")
# examples
Example = _tf("Example")
SequenceExample = _tf("SequenceExample")
Features = _tf("Features")
Feature = _tf("Feature")
FeatureList = _tf("FeatureList")
FeatureLists = _tf("FeatureLists")
BytesList = _tf("BytesList")
FloatList = _tf("FloatList")
ReaderBaseState = _tf("ReaderBaseState")
Int64List = _tf("Int64List")
# the distributed runtime's services (master.proto, worker.proto)
DeviceAttributes = _tf("DeviceAttributes")
DeviceLocality = _tf("DeviceLocality")
NamedTensorProto = _tf("NamedTensorProto")
CreateSessionRequest = _tf("CreateSessionRequest")
CreateSessionResponse = _tf("CreateSessionResponse")
ExtendSessionRequest = _tf("ExtendSessionRequest")
ExtendSessionResponse = _tf("ExtendSessionResponse")
RunStepRequest = _tf("RunStepRequest")
RunStepResponse = _tf("RunStepResponse")
PartialRunSetupRequest = _tf("PartialRunSetupRequest")
PartialRunSetupResponse = _tf("PartialRunSetupResponse")
CloseSessionRequest = _tf("CloseSessionRequest")
CloseSessionResponse = _tf("CloseSessionResponse")
ResetRequest = _tf("ResetRequest")
ResetResponse = _tf("ResetResponse")
ListDevicesRequest = _tf("ListDevicesRequest")
ListDevicesResponse = _tf("ListDevicesResponse")
MakeCallableRequest = _tf("MakeCallableRequest")
MakeCallableResponse = _tf("MakeCallableResponse")
RunCallableRequest = _tf("RunCallableRequest")
RunCallableResponse = _tf("RunCallableResponse")
ReleaseCallableRequest = _tf("ReleaseCallableRequest")
ReleaseCallableResponse = _tf("ReleaseCallableResponse")
GetStatusRequest = _tf("GetStatusRequest")
GetStatusResponse = _tf("GetStatusResponse")
CreateWorkerSessionRequest = _tf("CreateWorkerSessionRequest")
CreateWorkerSessionResponse = _tf("CreateWorkerSessionResponse")
DeleteWorkerSessionRequest = _tf("DeleteWorkerSessionRequest")
DeleteWorkerSessionResponse = _tf("DeleteWorkerSessionResponse")
RegisterGraphRequest = _tf("RegisterGraphRequest")
RegisterGraphResponse = _tf("RegisterGraphResponse")
DeregisterGraphRequest = _tf("DeregisterGraphRequest")
DeregisterGraphResponse = _tf("DeregisterGraphResponse")
CleanupAllRequest = _tf("CleanupAllRequest")
CleanupAllResponse = _tf("CleanupAllResponse")
ExecutorOpts = _tf("ExecutorOpts")
RunGraphRequest = _tf("RunGraphRequest")
RunGraphResponse = _tf("RunGraphResponse")
CleanupGraphRequest = _tf("CleanupGraphRequest")
CleanupGraphResponse = _tf("CleanupGraphResponse")
RecvTensorRequest = _tf("RecvTensorRequest")
RecvTensorResponse = _tf("RecvTensorResponse")
# checkpoints
BundleHeaderProto = _tf("BundleHeaderProto")
BundleEntryProto = _tf("BundleEntryProto")
SavedSliceMeta = _tf("SavedSliceMeta")
SavedTensorSliceMeta = _tf("SavedTensorSliceMeta")
SavedSlice = _tf("SavedSlice")
SavedTensorSlices = _tf("SavedTensorSlices")
CheckpointState = _tf("CheckpointState")
