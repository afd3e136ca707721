"""The compiled part of the package: ``treachery_env._observation``, the
observation encoder in Cython (everything else is declared in pyproject.toml;
setuptools runs Cython, a build requirement, on the ``.pyx``).

The extension is optional: where no C compiler works, the install goes on
without it and :mod:`treachery_env.observation` uses its pure-Python encoder.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("treachery_env._observation", ["treachery_env/_observation.pyx"], optional=True)])
