"""SignatureDefs (`tf.saved_model.signature_def_utils`): the named inputs and outputs a server feeds and
fetches, and the checks TF Serving applies to its classify, regress and predict methods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.formats.datatypes import DT_FLOAT, DT_STRING
from tensorweave.framework.graph import Tensor
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.saved_model import constants, utils


@tf_export("saved_model.build_signature_def", "saved_model.signature_def_utils.build_signature_def")
def build_signature_def(inputs: Mapping[str, Any] | None = None, outputs: Mapping[str, Any] | None = None,
                        method_name: str | None = None, defaults: Mapping[str, Tensor] | None = None) -> Any:
    """A SignatureDef of TensorInfo maps and a method name; `defaults` are constant tensors' values."""
    signature_def = protos.SignatureDef()
    for key, info in (inputs or {}).items():
        signature_def.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature_def.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature_def.method_name = method_name
    for arg_name, default in (defaults or {}).items():
        if not isinstance(default, Tensor) or default.op.type != "Const":
            raise ValueError(f"Unable to convert object {default} of type {type(default)} to TensorProto.")
        signature_def.defaults[arg_name].CopyFrom(default.op.get_attr("value"))
    return signature_def


@tf_export("saved_model.regression_signature_def", "saved_model.signature_def_utils.regression_signature_def")
def regression_signature_def(examples: Tensor, predictions: Tensor) -> Any:
    """TF Serving's regress signature: serialized Examples (string) in, float predictions out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(f"Expected regression `examples` to be of type Tensor. Found `examples` of type "
                         f"{type(examples)}.")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    input_info = utils.build_tensor_info(examples)
    if input_info.dtype != DT_STRING:
        raise ValueError(f"Regression input tensors must be of type string. Found tensors with type "
                         f"{input_info.dtype}.")
    output_info = utils.build_tensor_info(predictions)
    if output_info.dtype != DT_FLOAT:
        raise ValueError(f"Regression output tensors must be of type float. Found tensors with type "
                         f"{output_info.dtype}.")
    return build_signature_def({constants.REGRESS_INPUTS: input_info}, {constants.REGRESS_OUTPUTS: output_info},
                               constants.REGRESS_METHOD_NAME)


@tf_export("saved_model.classification_signature_def",
           "saved_model.signature_def_utils.classification_signature_def")
def classification_signature_def(examples: Tensor, classes: Tensor | None, scores: Tensor | None) -> Any:
    """TF Serving's classify signature: serialized Examples in, string classes and/or float scores out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(f"Classification `examples` must be a string Tensor. Found `examples` of type "
                         f"{type(examples)}.")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    input_info = utils.build_tensor_info(examples)
    if input_info.dtype != DT_STRING:
        raise ValueError(f"Classification input tensors must be of type string. Found tensors of type "
                         f"{input_info.dtype}")
    outputs = {}
    if classes is not None:
        classes_info = utils.build_tensor_info(classes)
        if classes_info.dtype != DT_STRING:
            raise ValueError(f"Classification classes must be of type string Tensor. Found tensors of type "
                             f"{classes_info.dtype}.`")
        outputs[constants.CLASSIFY_OUTPUT_CLASSES] = classes_info
    if scores is not None:
        scores_info = utils.build_tensor_info(scores)
        if scores_info.dtype != DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[constants.CLASSIFY_OUTPUT_SCORES] = scores_info
    return build_signature_def({constants.CLASSIFY_INPUTS: input_info}, outputs, constants.CLASSIFY_METHOD_NAME)


@tf_export("saved_model.predict_signature_def", "saved_model.signature_def_utils.predict_signature_def")
def predict_signature_def(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> Any:
    """TF Serving's predict signature: any named tensors in and out."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({key: utils.build_tensor_info(t) for key, t in inputs.items()},
                               {key: utils.build_tensor_info(t) for key, t in outputs.items()},
                               constants.PREDICT_METHOD_NAME)


@tf_export("saved_model.is_valid_signature", "saved_model.signature_def_utils.is_valid_signature")
def is_valid_signature(signature_def: Any) -> bool:
    """Whether TF Serving would accept the SignatureDef for its method (classify, regress or predict)."""
    if signature_def is None:
        return False
    return (_is_valid_classification_signature(signature_def) or _is_valid_regression_signature(signature_def)
            or _is_valid_predict_signature(signature_def))


def _is_valid_predict_signature(signature_def: Any) -> bool:
    return (signature_def.method_name == constants.PREDICT_METHOD_NAME and bool(signature_def.inputs)
            and bool(signature_def.outputs))


def _is_valid_regression_signature(signature_def: Any) -> bool:
    inputs, outputs = signature_def.inputs, signature_def.outputs
    return (signature_def.method_name == constants.REGRESS_METHOD_NAME
            and set(inputs) == {constants.REGRESS_INPUTS} and inputs[constants.REGRESS_INPUTS].dtype == DT_STRING
            and set(outputs) == {constants.REGRESS_OUTPUTS}
            and outputs[constants.REGRESS_OUTPUTS].dtype == DT_FLOAT)


def _is_valid_classification_signature(signature_def: Any) -> bool:
    inputs, outputs = signature_def.inputs, signature_def.outputs
    expected = {constants.CLASSIFY_OUTPUT_CLASSES: DT_STRING, constants.CLASSIFY_OUTPUT_SCORES: DT_FLOAT}
    return (signature_def.method_name == constants.CLASSIFY_METHOD_NAME
            and set(inputs) == {constants.CLASSIFY_INPUTS}
            and inputs[constants.CLASSIFY_INPUTS].dtype == DT_STRING
            and bool(outputs) and set(outputs) <= expected.keys()
            and all(outputs[key].dtype == dtype for key, dtype in expected.items() if key in outputs))


def load_op_from_signature_def(signature_def: Any, key: str, import_scope: str | None = None) -> Any:
    """The op an op signature (one output naming an op, as TF's builder stores init and train ops) names,
    in the default graph."""
    try:
        return utils.get_element_from_tensor_info(signature_def.outputs[key], import_scope=import_scope)
    except KeyError:
        raise errors.NotFoundError(
            None, None, f'The key "{key}" could not be found in the graph. Please make sure the SavedModel was '
            "created by the internal _SavedModelBuilder. If you are using the public API, please make sure the "
            f'SignatureDef in the SavedModel does not contain the key "{key}".') from None
