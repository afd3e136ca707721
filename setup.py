"""The compiled part of the package: ``treachery_env._observation``, the
observation encoder in Cython (everything else is declared in pyproject.toml).

The extension is optional: where no C compiler works, the install goes on
without it and :mod:`treachery_env.observation` uses its pure-Python encoder.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension("treachery_env._observation", ["treachery_env/_observation.pyx"], optional=True)],
    compiler_directives={"language_level": 3},
))
