"""The compiled parts of the package (everything else is declared in pyproject.toml;
setuptools runs Cython, a build requirement):

* ``treachery_env._observation``, ``treachery_env._view`` and
  ``treachery_env._priority``: the observation encoder, the seat-view builder
  and the priority check, written in Cython;
* the modules of ``treachery_env.compiled.MODULES`` (the engine and the other
  per-step modules), compiled from their unchanged Python source.

Every extension is optional: where no C compiler works, the install goes on
without it and the Python source is used.
"""

import os
import runpy

from setuptools import Extension, setup

MODULES = runpy.run_path(os.path.join("treachery_env", "compiled.py"))["MODULES"]

# The Python modules keep Python semantics: annotations are not turned into C type checks.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True, "embedsignature": True}

extensions = [Extension("treachery_env._observation", ["treachery_env/_observation.pyx"],
                        depends=["treachery_env/_slots.pxi"], optional=True),
              Extension("treachery_env._view", ["treachery_env/_view.pyx"], depends=["treachery_env/_slots.pxi"],
                        optional=True),
              Extension("treachery_env._priority", ["treachery_env/_priority.pyx"],
                        depends=["treachery_env/_slots.pxi"], optional=True)]
for name in MODULES:
    ext = Extension(name, [name.replace(".", "/") + ".py"], optional=True)
    ext.cython_directives = DIRECTIVES
    extensions.append(ext)

setup(ext_modules=extensions, options={"build_ext": {"parallel": os.cpu_count() or 1}})
