"""Build the Cython modules (evaluator_pyx._core, evaluator_pyx._assess); everything else is in pyproject.toml."""
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

# -march=native is safe because the extension is compiled on the machine that runs it
# (pip builds from source); POKI_PORTABLE=1 drops it for wheels meant for other machines.
compile_args = ["-O3", "-fno-strict-aliasing"]
if os.environ.get("POKI_PORTABLE") != "1":
    compile_args.append("-march=native")

extensions = [
    Extension(
        "evaluator_pyx._core",
        ["evaluator_pyx/_core.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=compile_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
    Extension(
        "evaluator_pyx._assess",
        ["evaluator_pyx/_assess.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=compile_args,
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
