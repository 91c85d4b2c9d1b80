"""Build the compiled kernels (Cython, ahead of time: no JIT start-up).

Compile flags follow the compiler setuptools picks:

- MSVC (Windows): ``/O2 /openmp``;
- gcc / clang on Linux: ``-O3 -g0 -fopenmp`` (linked with ``-fopenmp``; ``-g0``: no debug
  information, which would triple the size of the compiled modules);
- Apple clang (macOS): OpenMP through libomp when it is found (``RECEVAL_LIBOMP_PREFIX``, or
  Homebrew's ``/opt/homebrew/opt/libomp`` / ``/usr/local/opt/libomp``), else a single-thread build.

``RECEVAL_NO_OPENMP=1`` builds single-threaded everywhere (results are identical; only the
speed of very large evaluations changes).
"""

import os
import sys
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _libomp_prefix() -> Path | None:
    candidates = [os.environ.get("RECEVAL_LIBOMP_PREFIX", ""),
                  "/opt/homebrew/opt/libomp", "/usr/local/opt/libomp"]
    for c in candidates:
        if c and (Path(c) / "include" / "omp.h").is_file():
            return Path(c)
    return None


def compile_flags(compiler_type: str, platform: str = sys.platform,
                  no_openmp: bool = False) -> tuple[list[str], list[str], list[str], list[str]]:
    """(compile args, link args, include dirs, library dirs) for a compiler and platform."""
    if compiler_type == "msvc":
        return ["/O2"] + ([] if no_openmp else ["/openmp"]), [], [], []
    if platform == "darwin":
        prefix = None if no_openmp else _libomp_prefix()
        if prefix is None:
            return ["-O3", "-g0"], [], [], []
        return (["-O3", "-g0", "-Xpreprocessor", "-fopenmp"], ["-lomp"],
                [str(prefix / "include")], [str(prefix / "lib")])
    omp = [] if no_openmp else ["-fopenmp"]
    return ["-O3", "-g0", *omp], omp, [], []


class BuildExt(build_ext):
    """Sets the compile and link flags once the compiler is known."""

    def build_extensions(self):
        no_openmp = bool(os.environ.get("RECEVAL_NO_OPENMP"))
        cargs, largs, incs, libs = compile_flags(self.compiler.compiler_type, no_openmp=no_openmp)
        for ext in self.extensions:
            ext.extra_compile_args = cargs
            ext.extra_link_args = largs
            ext.include_dirs = [*ext.include_dirs, *incs]
            ext.library_dirs = [*ext.library_dirs, *libs]
        super().build_extensions()


extensions = [
    Extension(
        f"receval.kernels.{name}",
        [f"src/receval/kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in ("_ranking", "_exact", "_packing", "_join", "_diversity", "_fairness",
                 "_memory")
]

setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
    ),
)
