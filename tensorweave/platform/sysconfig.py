"""`tf.sysconfig`: where a custom-op build would find headers and libraries.

Tensorweave is pure Python: it ships no C++ headers and no shared library, so the paths name the package
directory (`include/` under it does not exist) and the flags carry no library to link. The ABI values are
TF 2.21's defaults, so build scripts that read them keep working.
"""

from __future__ import annotations

import collections
import os

from tensorweave.platform.tf_export import export_value, tf_export

CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0
export_value(CXX11_ABI_FLAG, "sysconfig.CXX11_ABI_FLAG", "CXX11_ABI_FLAG", "__cxx11_abi_flag__")
export_value(CXX_VERSION, "sysconfig.CXX_VERSION", "CXX_VERSION")
export_value(MONOLITHIC_BUILD, "sysconfig.MONOLITHIC_BUILD", "MONOLITHIC_BUILD", "__monolithic_build__")

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@tf_export("sysconfig.get_lib")
def get_lib() -> str:
    """The package directory (where TF keeps libtensorflow_framework)."""
    return _PACKAGE_DIR


@tf_export("sysconfig.get_include")
def get_include() -> str:
    """`include` under the package directory, as TF lays it out (tensorweave has no headers there)."""
    return os.path.join(_PACKAGE_DIR, "include")


@tf_export("sysconfig.get_compile_flags")
def get_compile_flags() -> list[str]:
    """TF's compile flags for a custom op: the include path, the C++11 ABI and the language standard."""
    return [f"-I{get_include()}", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}", "--std=c++17"]


@tf_export("sysconfig.get_link_flags")
def get_link_flags() -> list[str]:
    """The library search path only: there is no framework library to link against."""
    return [f"-L{get_lib()}"]


@tf_export("sysconfig.get_build_info")
def get_build_info() -> collections.OrderedDict:
    """TF's build facts for a CPU-only build (tensorweave's GPU kernels come from CuPy at run time)."""
    return collections.OrderedDict(is_cuda_build=False, is_rocm_build=False, is_tensorrt_build=False)
