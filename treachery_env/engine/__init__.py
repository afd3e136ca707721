"""The Treachery rules engine on the Magic-lite substrate (no PettingZoo here).

One module per rules concept, in the manner of Forge's ``forge-game``; each
module's docstring names the rules it implements:

=================  ==========================================================
``state``          the objects as plain data: players, creatures, identity
                   cards, stack objects, decisions, the steps of a turn
``game``           the :class:`Game` facade: the operation queue, decisions,
                   ``step``, the action mask, observation/text delegates
``setup``          starting the game: decks, identity deck and deal (CR 907.3-6)
``treachery``      identities: teams, Undercover, unveil (CR 314, 702.187, 907)
``costs``          mana, life and unveil-cost choices (CR 118, 119.4, 601.2g)
``turn``           steps and phases, extra turns, cleanup (CR 500-514, 723)
``priority``       priority and passing in turn order (CR 117)
``stack``          casting, activating, resolving, countering (CR 601, 608)
``targets``        targets, chosen and rechecked (CR 115, 608.2b)
``triggers``       triggered and delayed abilities, APNAP order (CR 603)
``combat``         attackers, blockers, combat damage (CR 506-511, 802)
``attackables``    permanents creatures can attack: planeswalkers, loyalty
                   abilities (CR 306, 506.3, 508.1b, 606, 120.3c, 704.5i)
``zones``          moving objects between zones, control (CR 400, 108.4)
``effects``        the effect primitives of the card pool (CR 119, 120, 701)
``state_based``    state-based actions (CR 704)
``mulligan``       the London mulligan before the first turn (CR 103.5, 103.5c)
``outcome``        losing, leaving the game, winning (CR 800.4, 907.7-907.9)
``throne``         Throne Magic's Roles: deal, reveal on leaving, win check
                   (``Game.social``; ../shared/rules/throne-magic.txt)
``vanguard``       the Vanguard variant's cards: deal, modifiers, triggers
                   (CR 902, ``GameConfig.vanguard``)
``replay``         replay JSON and the state digest
``talk``           table talk: public, non-binding messages and truces (TR10.5)
``clone``          the fast deep copy of a game for search (``Game.clone``)
=================  ==========================================================

The rules modules import neither the observation encoder nor the text layer:
:meth:`Game.observation`, :meth:`Game.view`, :meth:`Game.describe_action` and
:meth:`Game.render_text` delegate to them when called.
"""

from .game import Game
from .replay import REPLAY_VERSION
from .state import PHASES, Attackable, Creature, Decision, DecisionKind, IdentityCard, Player, StackItem, VanguardCard
from .talk import Deal, TalkMessage, TalkState

__all__ = ["Game", "Player", "Creature", "Attackable", "IdentityCard", "VanguardCard", "StackItem", "Decision", "PHASES",
           "DecisionKind", "REPLAY_VERSION", "TalkMessage", "TalkState", "Deal"]
