"""Adapters for outside reinforcement-learning frameworks (docs/environment.md, "Frameworks").

Each module imports its framework, so importing one needs that extra installed
(``pip install .[rllib]``, ``.[torchrl]``, ``.[tianshou]``); this package itself imports none.
"""
