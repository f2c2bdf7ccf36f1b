"""tf.VERSION and the other version constants: one source (`framework.versions`) for the API, the GraphDefs and
MetaGraphDefs tensorweave writes. TF 2.21's values recorded by hand where tensorweave reports TF's."""

import platform

import tensorweave.compat.v1 as tf
from tensorweave.framework import meta_graph, versions


def test_version_constants_are_tf_2_21s_formats():
    assert (tf.VERSION, tf.__version__) == ("2.21.0", "2.21.0")
    assert (tf.GRAPH_DEF_VERSION, tf.GRAPH_DEF_VERSION_MIN_CONSUMER, tf.GRAPH_DEF_VERSION_MIN_PRODUCER) == (2474, 0, 0)
    assert tf.get_default_graph().as_graph_def().versions.producer == tf.GRAPH_DEF_VERSION


def test_build_constants_describe_tensorweave():
    assert tf.GIT_VERSION == tf.__git_version__ == "tensorweave"
    assert tf.COMPILER_VERSION == tf.__compiler_version__ == platform.python_compiler()
    assert (tf.CXX11_ABI_FLAG, tf.MONOLITHIC_BUILD, tf.CXX_VERSION) == (1, 0, 201703)  # TF 2.21, as tf.sysconfig
    assert (tf.__cxx11_abi_flag__, tf.__monolithic_build__) == (1, 0)
    assert all(type(v) is int for v in (tf.CXX11_ABI_FLAG, tf.MONOLITHIC_BUILD, tf.GRAPH_DEF_VERSION))


def test_meta_graphs_carry_the_same_versions():
    with tf.Graph().as_default() as graph:
        tf.constant(1.0, name="c")
        info = meta_graph.create_meta_graph_def(graph.as_graph_def(), graph).meta_info_def
    assert (info.tensorflow_version, info.tensorflow_git_version) == (versions.VERSION, versions.GIT_VERSION)
