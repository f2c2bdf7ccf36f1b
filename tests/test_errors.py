"""tf.errors classes and codes, checked against real TensorFlow's tf.compat.v1.errors."""

import pickle
import warnings

import pytest

from tensorweave import errors

CODES = [
    ("CANCELLED", 1, errors.CancelledError), ("UNKNOWN", 2, errors.UnknownError),
    ("INVALID_ARGUMENT", 3, errors.InvalidArgumentError), ("DEADLINE_EXCEEDED", 4, errors.DeadlineExceededError),
    ("NOT_FOUND", 5, errors.NotFoundError), ("ALREADY_EXISTS", 6, errors.AlreadyExistsError),
    ("PERMISSION_DENIED", 7, errors.PermissionDeniedError),
    ("RESOURCE_EXHAUSTED", 8, errors.ResourceExhaustedError),
    ("FAILED_PRECONDITION", 9, errors.FailedPreconditionError), ("ABORTED", 10, errors.AbortedError),
    ("OUT_OF_RANGE", 11, errors.OutOfRangeError), ("UNIMPLEMENTED", 12, errors.UnimplementedError),
    ("INTERNAL", 13, errors.InternalError), ("UNAVAILABLE", 14, errors.UnavailableError),
    ("DATA_LOSS", 15, errors.DataLossError), ("UNAUTHENTICATED", 16, errors.UnauthenticatedError),
]


@pytest.mark.parametrize("name,code,cls", CODES)
def test_codes_and_classes(name, code, cls):
    assert getattr(errors, name) == code
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code
    error = cls(None, None, "boom")
    assert isinstance(error, errors.OpError) and isinstance(error, Exception)
    assert error.error_code == code and error.message == "boom"
    assert error.node_def is None and error.op is None
    assert str(error) == "boom" and error.args == ()
    assert repr(error) == f"{cls.__name__}()"


def test_ok_and_unknown_codes():
    assert errors.OK == 0
    for code in (0, 17, 99):
        with pytest.raises(KeyError):
            errors.exception_type_from_error_code(code)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = errors.error_code_from_exception_type(ValueError)
    assert isinstance(result, errors.UnknownError) and str(result) == "Unknown class exception"
    assert result.error_code is None and str(caught[0].message) == "Unknown class exception"


def test_op_error_base_and_unknown_code_override():
    error = errors.OpError(None, None, "m", 3)
    assert type(error) is errors.OpError and error.error_code == 3 and str(error) == "m"
    assert errors.UnknownError(None, None, "m").error_code == 2
    assert errors.UnknownError(None, None, "m", 5).error_code == 5
    with pytest.raises(TypeError):
        errors.InvalidArgumentError(None, None, "m", 3)


def test_make_specific_exception():
    error = errors._make_specific_exception("nd", None, "gone", errors.NOT_FOUND)
    assert type(error) is errors.NotFoundError and error.node_def == "nd"
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        error = errors._make_specific_exception(None, None, "odd", 42)
    assert type(error) is errors.UnknownError and error.error_code == 42


def test_pickle_round_trip():
    error = pickle.loads(pickle.dumps(errors.NotFoundError("nd", None, "nf")))
    assert type(error) is errors.NotFoundError and error.message == "nf" and error.error_code == 5
    assert error.node_def == "nd"
    error = pickle.loads(pickle.dumps(errors.UnknownError(None, None, "u", 7)))
    assert type(error) is errors.UnknownError and error.error_code == 7
    error = pickle.loads(pickle.dumps(errors.OpError(None, None, "o", 9)))
    assert type(error) is errors.OpError and error.error_code == 9


class _FakeOp:
    def __init__(self, name, frames, original=None):
        self.name = name
        self.traceback = frames
        self._original_op = original


def test_str_names_the_op_and_its_creation_site():
    frames = [("/src/proj/main.py", 3, "<module>", "build()"), ("/src/proj/model.py", 8, "build", "c = f()")]
    error = errors.InvalidArgumentError(None, _FakeOp("c", frames), "bad")
    assert str(error) == (
        "bad\n\nOriginal stack trace for 'c':\n"
        '  File "/src/proj/main.py", line 3, in <module>\n'
        '  File "/src/proj/model.py", line 8, in build\n'
    )  # full paths and no source lines, as TF 2.21's


def test_str_follows_original_op_chain():
    inner = _FakeOp("orig", [("/a/x.py", 1, "f", "")])
    error = errors.AbortedError(None, _FakeOp("copy", [("/a/y.py", 2, "g", "")], inner), "stop")
    text = str(error)
    assert text.startswith("stop\n\nOriginal stack trace for 'copy':\n")
    assert "\n...which was originally created as op 'orig', defined at:\n" in text
