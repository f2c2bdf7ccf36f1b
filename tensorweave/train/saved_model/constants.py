"""The SavedModel format's constants: file and directory names, collection keys, tags, signature keys and
method names, with TF's values and public names (`tf.saved_model.constants`, `tag_constants`,
`signature_constants`, each also at `tf.saved_model.*`)."""

from __future__ import annotations

from tensorweave.platform.tf_export import export_value

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
TRAIN_OP_KEY = "saved_model_train_op"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_FILENAME_CPB = "saved_model.cpb"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"

_PUBLIC = {
    "constants": ("ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
                  "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT",
                  "SAVED_MODEL_SCHEMA_VERSION", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME"),
    "tag_constants": ("GPU", "SERVING", "TPU", "TRAINING"),
    "signature_constants": ("CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
                            "CLASSIFY_OUTPUT_SCORES", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "PREDICT_INPUTS",
                            "PREDICT_METHOD_NAME", "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME",
                            "REGRESS_OUTPUTS"),
}


def _export_constants() -> None:
    """Each constant is public in its own namespace and at `tf.saved_model.*`, as in TF1."""
    for namespace, names in _PUBLIC.items():
        for name in names:
            export_value(globals()[name], f"saved_model.{name}", f"saved_model.{namespace}.{name}")


_export_constants()
