"""Training and evaluation for Treachery bots (DESIGN section 6).

``training.evaluate`` runs duplicate-deal tournaments between registered bots
and writes win rates and substitution deltas with intervals clustered by deal, OpenSkill
ratings, a cross-play matrix and deduction/deception metrics as JSON, markdown
and PNG plots; ``training.cli`` is the ``treachery`` command line
(``treachery evaluate ...``).  Nothing here imports torch.
"""
