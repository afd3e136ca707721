"""The packages and the compiled parts (everything else is declared in pyproject.toml;
setuptools runs Cython, a build requirement).

Packages: ``treachery_env``, ``agents``, ``training`` and ``table`` with their subpackages, and
``treachery_checkpoints``, the folder ``checkpoints/`` (the shipped models' ``policy.pt`` and
``MODEL_CARD.md``, :mod:`agents.models`), so that an install from a wheel has the named models too.

Compiled:

* ``treachery_env._observation``, ``treachery_env._view`` and
  ``treachery_env._priority``: the observation encoder, the seat-view builder
  and the priority check, written in Cython; ``agents._gru_gates``, the
  recurrent core's gate arithmetic in the learner's update;
* the modules of ``treachery_env.compiled.MODULES`` (the engine and the other
  per-step modules), compiled from their Python source; a ``.pxd`` beside one
  gives its classes C fields (``engine/state.pxd``) or cimports them to type
  its hot functions' locals (``@cython.locals``).

Every extension is optional: where no C compiler works, the install goes on
without it and the Python source is used.
"""

import os
import runpy

from setuptools import Extension, find_packages, setup

COMPILED = runpy.run_path(os.path.join("treachery_env", "compiled.py"))
MODULES = COMPILED["MODULES"]

# The Python modules keep Python semantics: annotations are not turned into C type checks, and a None
# where a typed local (@cython.locals) is read raises AttributeError as in Python (nonecheck), not a crash.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True, "embedsignature": True,
              "nonecheck": True}

STATE_TYPES = [os.path.relpath(p) for p in COMPILED["STATE_TYPES"]]     # engine/state.py and state.pxd
# the encoder, the view builder and the priority check cimport the state's types (their locals read
# its C fields)
extensions = [Extension("treachery_env._observation", ["treachery_env/_observation.pyx"],
                        depends=["treachery_env/_slots.pxi", *STATE_TYPES], optional=True),
              Extension("treachery_env._view", ["treachery_env/_view.pyx"],
                        depends=["treachery_env/_slots.pxi", *STATE_TYPES], optional=True),
              Extension("treachery_env._priority", ["treachery_env/_priority.pyx"],
                        depends=[*STATE_TYPES], optional=True),
              # the GRU's gate kernels: branch-free loops that vectorise only without floating-point traps
              Extension("agents._gru_gates", ["agents/_gru_gates.pyx"], optional=True,
                        extra_compile_args=["-fno-trapping-math"])]
for name in MODULES:
    source = name.replace(".", "/") + ".py"
    pxd = source[:-3] + ".pxd"      # a module's own .pxd cimports the state's types (treachery_env.compiled)
    ext = Extension(name, [source], depends=[pxd, *STATE_TYPES] if os.path.exists(pxd) else [], optional=True)
    ext.cython_directives = DIRECTIVES
    extensions.append(ext)

# the folders of data files are packages too (setuptools warns of any importable folder it is not told of):
# treachery_env/data, training/configs, table/static (the web table's page), checkpoints/ and those of its model
# folders whose names are identifiers
MODEL_FOLDERS = sorted(d for d in os.listdir("checkpoints") if os.path.isdir(os.path.join("checkpoints", d)))
PACKAGES = (find_packages(include=["treachery_env*", "agents*", "training*", "table*"])
            + ["treachery_env.data", "training.configs", "table.static", "treachery_checkpoints"]
            + [f"treachery_checkpoints.{d}" for d in MODEL_FOLDERS if d.isidentifier() and d != "__pycache__"])

setup(packages=PACKAGES, package_dir={"treachery_checkpoints": "checkpoints"},
      package_data={"treachery_env.data": ["*.json"], "training.configs": ["*.toml"],
                    "table.static": ["*.html", "*.js", "*.css", "*.svg"],
                    "treachery_checkpoints": ["*/policy.pt", "*/MODEL_CARD.md"]},
      ext_modules=extensions, options={"build_ext": {"parallel": os.cpu_count() or 1}})
