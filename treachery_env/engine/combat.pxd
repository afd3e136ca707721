# The types of the compiled combat module's typed locals (@cython.locals in combat.py).
from treachery_env.engine.state cimport GameState, Player, Creature
