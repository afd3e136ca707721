# The types of the compiled treachery module's typed locals (@cython.locals in treachery.py).
from treachery_env.engine.state cimport GameState, Player, IdentityCard
