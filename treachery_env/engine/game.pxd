# The types of the compiled game module's typed locals (@cython.locals in game.py).
from treachery_env.engine.state cimport GameState, Player, Decision
