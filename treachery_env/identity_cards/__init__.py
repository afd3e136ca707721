"""Implementations of the identity cards, one module per role.  Importing
:mod:`treachery_env.identity_abilities` imports them all."""
