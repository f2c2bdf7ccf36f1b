"""Record real TensorFlow's make_tensor_proto output for tests/formats/test_tensor_proto.py.

Run with a TensorFlow virtualenv that also has google-crc32c (never a project dependency):
    /work/tfvenv/bin/python tests/formats/make_fixtures/tensor_protos.py
It writes fixtures/tensor_protos.json: for each case, the serialized TensorProto (hex) or the error class.
"""

import json
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).parent))
from cases import TENSOR_PROTO_CASES  # noqa: E402


def main() -> None:
    out = []
    for expr, kwargs in TENSOR_PROTO_CASES:
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = tf.as_dtype(kw["dtype"])
        try:
            proto = tf.make_tensor_proto(eval(expr, {"np": np}), **kw)
            out.append({"expr": expr, "kwargs": kwargs, "hex": proto.SerializeToString(deterministic=True).hex()})
        except Exception as e:  # noqa: BLE001 - recording TF's error class is the point
            out.append({"expr": expr, "kwargs": kwargs, "error": type(e).__name__, "message": str(e)})
    path = Path(__file__).parent.parent / "fixtures" / "tensor_protos.json"
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
