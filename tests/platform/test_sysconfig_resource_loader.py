"""tf.sysconfig, tf.resource_loader and the traceback-filtering switch: TF 2.21's signatures and values, with
tensorweave's own paths."""

import os

import tensorweave
import tensorweave.compat.v1 as tf

_PACKAGE = os.path.dirname(os.path.abspath(tensorweave.__file__))


def test_sysconfig():
    assert (tf.sysconfig.CXX11_ABI_FLAG, tf.sysconfig.CXX_VERSION, tf.sysconfig.MONOLITHIC_BUILD) == (1, 201703, 0)
    assert tf.sysconfig.get_lib() == _PACKAGE
    assert tf.sysconfig.get_include() == os.path.join(_PACKAGE, "include")
    assert tf.sysconfig.get_compile_flags() == [f"-I{_PACKAGE}/include", "-D_GLIBCXX_USE_CXX11_ABI=1", "--std=c++17"]
    assert tf.sysconfig.get_link_flags() == [f"-L{_PACKAGE}"]
    assert not tf.sysconfig.get_build_info()["is_cuda_build"]


def test_resource_loader():
    here = os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_data_files_path() == here  # the caller's directory, as in TF
    assert tf.resource_loader.get_path_to_datafile("a/b") == os.path.join(here, "a/b")
    assert tf.resource_loader.readahead_file_path("/x/y", "1M") == "/x/y"
    assert tf.resource_loader.get_root_dir_with_all_resources() == os.path.join(_PACKAGE, "platform")
    with open(os.path.join(_PACKAGE, "__init__.py"), "rb") as f:
        assert tf.resource_loader.load_resource("__init__.py") == f.read()


def test_traceback_filtering_switch():
    assert tf.debugging.is_traceback_filtering_enabled()
    tf.debugging.disable_traceback_filtering()
    try:
        assert not tf.debugging.is_traceback_filtering_enabled()
    finally:
        tf.debugging.enable_traceback_filtering()
    assert tf.debugging.is_traceback_filtering_enabled()
