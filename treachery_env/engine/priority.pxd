# The types of the compiled priority module's typed locals (@cython.locals in priority.py).
from treachery_env.engine.state cimport GameState, Player, IdentityCard, Decision
