"""`tf.resource_loader`: data files beside the calling module, and resources under the package root."""

from __future__ import annotations

import inspect
import os

from tensorweave.platform.tf_export import tf_export

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_dir() -> str:
    return os.path.dirname(inspect.stack()[2].filename)


@tf_export("resource_loader.get_data_files_path")
def get_data_files_path() -> str:
    """The directory of the calling module's file (TF's data dependencies sit beside it)."""
    return _caller_dir()


@tf_export("resource_loader.get_path_to_datafile")
def get_path_to_datafile(path: str) -> str:
    """`path` under the calling module's directory."""
    return os.path.join(_caller_dir(), path)


@tf_export("resource_loader.get_root_dir_with_all_resources")
def get_root_dir_with_all_resources() -> str:
    """The directory holding this module, which TF answers outside Bazel runfiles."""
    return os.path.dirname(os.path.abspath(__file__))


@tf_export("resource_loader.load_resource")
def load_resource(path: str) -> bytes:
    """The bytes of `path`, relative to the package root (TF's is relative to `tensorflow/`)."""
    with open(os.path.join(_ROOT, path), "rb") as f:
        return f.read()


@tf_export("resource_loader.readahead_file_path")
def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """`path` itself: readahead is a remote-filesystem optimization that local files do not need."""
    return path
