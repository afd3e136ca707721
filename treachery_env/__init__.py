"""Treachery: rules engine and PettingZoo environment."""
