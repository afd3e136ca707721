# The types of the compiled state_based module's typed locals (@cython.locals in state_based.py).
from treachery_env.engine.state cimport GameState, Player, Creature
