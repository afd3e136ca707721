# The types of the compiled turn module's typed locals (@cython.locals in turn.py).
from treachery_env.engine.state cimport GameState, Player, Creature
