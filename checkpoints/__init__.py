"""The shipped checkpoints, installed as the package ``treachery_checkpoints`` (package data:
``NAME/policy.pt`` and ``NAME/MODEL_CARD.md`` per model; setup.py).  :mod:`agents.models`
reads them by name; nothing here is code."""
