"""Build the compiled kernels (Cython, ahead of time: no JIT start-up)."""

import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

openmp = [] if sys.platform == "darwin" or os.environ.get("RECEVAL_NO_OPENMP") else ["-fopenmp"]
extensions = [
    Extension(
        "receval.kernels._ranking",
        ["src/receval/kernels/_ranking.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3", *openmp],
        extra_link_args=openmp,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
    Extension(
        "receval.kernels._packing",
        ["src/receval/kernels/_packing.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3", *openmp],
        extra_link_args=openmp,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
    )
)
