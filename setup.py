# The C core is compiled at install time by the cffi builder (API mode,
# out-of-line); everything else is declared in pyproject.toml.
from setuptools import setup

setup(cffi_modules=["lib/schedlab/engine/_build.py:ffibuilder"])
