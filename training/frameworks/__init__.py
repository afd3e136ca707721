"""Adapters for outside reinforcement-learning frameworks (docs/environment.md, "Frameworks").

Each module imports its framework, so importing one needs that extra installed
(``pip install .[rllib]``, ``.[torchrl]``, ``.[tianshou]``); this package itself imports none.
"""

__all__ = ["TENSOR_INFO_KWARGS"]

TENSOR_INFO_KWARGS = {"view_in_info": False, "legal_actions_in_info": False}
"""The environment keywords of tensor-friendly infos (every info ``{}``; :class:`treachery_env.raw_env`),
which every adapter here passes."""

