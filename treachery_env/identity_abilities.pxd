# The types of the compiled identity-ability framework's typed locals (@cython.locals in identity_abilities.py).
from treachery_env.engine.state cimport GameState, Player, IdentityCard
