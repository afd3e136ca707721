# The types of the compiled talk module's typed locals (@cython.locals in talk.py).
from treachery_env.engine.state cimport GameState, Player
