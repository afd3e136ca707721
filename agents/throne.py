"""What the bots know of Throne Magic (``../shared/rules/throne-magic.txt``): whom a seat wants
out of the game, from the Roles it knows and the public Role set.

Throne Magic has no teams: each Role card lists the Roles that must leave the game for its
player to win ("Winning the Game"), a directed graph (:mod:`treachery_env.throne_roles`).  A
bot's ``want`` (the number per seat its decisions start from, :mod:`agents.heuristic`) is
then an expectation over the Roles another seat may hold:

* a seat whose Role is on the bot's own list is an enemy (it must leave for the bot to win);
* a seat whose list names the bot's Role hunts it: a lesser enemy (it will attack);
* a seat that hunts none of the bot's targets' enemies and shares a target with the bot is
  an ally (their wins come together: The King and the King's Bannerman).

:func:`role_probabilities` gives each seat's Role distribution from the view alone (the
Roles the seat knows, the others uniform over the Roles not yet placed: exact for a uniform
deal, the reference the belief bot's posterior sharpens); :func:`throne_want` turns a
distribution into ``want``; :class:`ThroneBelief` is the belief bot's posterior over the
assignments of the unknown Roles to the unknown seats, from who attacked and hurt whom.

One public fact sharpens both: the Throne's controller holds a Claimant Role (The King starts
with it, and only a Claimant can take it: "Throne Cards", "Taking the Throne").

What the bots do with the Throne, the Holdings and the creatures' two Throne abilities, the
same for both (the heuristic bot passes its ``want``, the belief bot its posterior's):

* :func:`locations_to_attack`: a Claimant attacks the Throne in the middle or in an enemy's
  hands, to take it; any other player attacks it only in an enemy's hands (its damage puts the
  Throne in the middle: "Controlling the Throne"); anyone attacks a Holding in the middle or
  an enemy's ("Holdings (Advanced)").  The bots choose the creatures and check the blockers;
  one enemy's Holding a combat gets one creature (the heuristic: the weakest it sends at that
  enemy anyway).  Measured (200 all-heuristic games of the Basic Game with Holdings): a
  creature at every enemy Holding each combat had them change hands 42 times a game and 21
  games end at the turn limit without a winner; one a combat, 19 and 11 (8 before the bots
  contested anything).
* :func:`throne_answer`: after combat damage a Claimant takes the Throne and anyone else
  passes (a non-Claimant's take would put it in the middle all the same); a Holding is always
  taken, a creature offered always accepted (no creature of the card pool has a drawback), a
  Throne's or Holding's "may" ability always used.
* :func:`gift`: a creature goes to an ally ("Giving Creatures to the Monarch" when the ally
  controls the Throne, "The Monarch Distributing Creatures" when the bot does) when it can
  spare one that would save that ally from the strongest board against it, at the end of the
  turn before the ally's.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations

import numpy as np

from treachery_env import throne_roles as tr

__all__ = ["role_probabilities", "throne_want", "ThroneBelief", "ENEMY", "HUNTER", "ALLY", "MAX_EXACT", "BOTS", "plays",
           "GIFT_ALLY", "claimant", "locations_to_attack", "throne_answer", "gift"]

BOTS = ("heuristic", "belief", "random")
"""The bots that play Throne Magic and the CR 900 variants (the search bots deal Treachery
identities to games without the variants' cards; the trained policies read plain Treachery's
observation layout)."""


def plays(spec: str, game: str, variants: bool = False) -> bool:
    """Whether the bot ``spec`` (an :func:`agents.make` spec) plays ``game`` (a
    :data:`treachery_env.config.GAMES` value), with a CR 900 variant's blocks when ``variants``
    (:attr:`~treachery_env.GameConfig.has_variant_blocks`): every registered bot plays plain
    Treachery; Throne Magic and the variants are played by :data:`BOTS` and by bots of your own
    (``MODULE:CLASS``, which the caller may refuse for other reasons)."""
    import agents
    if game != "throne_magic" and not variants:
        return True
    return agents.split_spec(spec)[0] in BOTS or agents.is_outside(spec)

MAX_EXACT = 7
"""Unknown seats up to which :class:`ThroneBelief` enumerates every assignment (7! = 5,040)."""

ENEMY = 1.3
"""``want`` of a seat certain to hold a Role on the bot's own list."""
HUNTER = 0.5
"""``want`` added for a seat certain to hold a Role whose list names the bot's Role."""
ALLY = -1.2
"""``want`` of a seat certain to hold an ally Role (shares a target, hunts neither the bot nor
an ally of it)."""
GIFT_ALLY = -0.6
"""``want`` at or below which a seat is ally enough to be given creatures (:func:`gift`): at
least half the certainty of :data:`ALLY` with nothing hostile against it."""


def role_probabilities(view) -> list[dict[str, float]]:
    """Each seat's Role as a distribution over Role names, from ``view`` (a Throne Magic
    :class:`~treachery_env.view.SeatView`): a known Role is certain; the Roles not known
    anywhere are spread uniformly over the seats whose Role the view does not know, but that
    the Throne's controller, if unknown, holds one of the unknown Claimant Roles ("Throne Cards":
    The King starts with it; "Taking the Throne": only a Claimant takes it), uniformly, and the
    other unknown seats share the rest accordingly (exact for a uniform deal).

    Returns:
        one ``{role: probability}`` per seat (empty during a Draft, when no Role is dealt).
    """
    tm = view.throne_magic
    if len(tm.roles) < len(tm.known):
        return [{} for _ in tm.known]
    unknown_roles = [r for r in tm.roles if r not in tm.known]
    share = 1.0 / len(unknown_roles) if unknown_roles else 0.0
    out = [{r: 1.0} if r is not None else {u: share for u in unknown_roles} for r in tm.known]
    c = tm.controller
    if c is not None and c >= 0 and tm.known[c] is None:
        claim = [r for r in unknown_roles if tr.get(r).claimant]
        k = len(unknown_roles)              # as many as the unknown seats
        if claim and len(claim) < k:
            for s, r in enumerate(tm.known):
                if r is None:
                    out[s] = ({u: (1.0 / len(claim) if u in claim else 0.0) for u in unknown_roles} if s == c else
                              {u: (1.0 - (1.0 / len(claim) if u in claim else 0.0)) / (k - 1) for u in unknown_roles})
    return out


def _relation(mine: str, other: str, roles: tuple) -> float:
    """``want`` of a seat certain to hold ``other``, for a bot holding ``mine`` in a game of ``roles``."""
    me = tr.get(mine)
    them = tr.get(other)
    targets = me.must_eliminate & set(roles)
    w = 0.0
    if other in targets:
        w += ENEMY
    if mine in them.must_eliminate:
        w += HUNTER
    if w == 0.0 and targets & them.must_eliminate:
        w = ALLY            # no conflict between us, a common target: our wins come together
    return w


def throne_want(view, probabilities: list[dict[str, float]] | None = None) -> dict[int, float]:
    """``want[s]`` for every seat (see the module docstring): the bot itself -3, seats out of the
    game 0, the others the expected relation over ``probabilities`` (default:
    :func:`role_probabilities`); 0 for everyone during a Draft.

    Returns:
        ``{seat: want}``.
    """
    tm = view.throne_magic
    mine = view.seat
    probs = role_probabilities(view) if probabilities is None else probabilities
    my_role = tm.known[mine]
    want: dict[int, float] = {}
    for p in view.players:
        s = p.seat
        if s == mine:
            want[s] = -3.0
        elif not p.in_game or my_role is None:
            want[s] = 0.0
        else:
            want[s] = sum(pr * _relation(my_role, r, tm.roles) for r, pr in probs[s].items())
    return want


@lru_cache(maxsize=None)
def _permutations(n: int, k: int) -> np.ndarray:
    """Every ordered choice of ``k`` of ``n`` indices, int16 ``(n! / (n - k)!, k)`` (cached)."""
    return np.array(list(permutations(range(n), k)), dtype=np.int16).reshape(-1, k)


class ThroneBelief:
    """A posterior over the assignments of the Roles nobody has shown the viewer to the seats
    it does not know (Throne Magic; the belief bot's deduction, :mod:`agents.belief`).

    Prior: uniform over those assignments (a uniform deal, "Public and Private
    Information").  Evidence: the public history ``view.harm`` and ``view.attacks``; each
    hostile act of seat ``i`` (an attack counts 1, a point of harm 1/2) is read as a draw of
    its target ``j`` from ``p(j | role_i) ∝ (1 - noise) * w + noise``, where ``w = 1 +
    weight * P(j's Role is on role_i's list)`` with ``j``'s Role distributed as
    :func:`role_probabilities` says (a mean-field reading: ``i`` does not know ``j``'s Role
    either), tempered by ``temperature`` (acts are not independent).  The likelihood
    factorises over seats; with up to :data:`MAX_EXACT` unknown seats every assignment is
    enumerated, above that each seat's marginal is its own normalised likelihood times the
    prior (the one-Role-per-seat coupling is dropped: an approximation).  The prior holds the
    Throne's controller to the Claimant Roles (:func:`role_probabilities`): assignments that
    give it another Role have weight 0.

    Args:
        temperature: exponent of the likelihood, 0 to 1.
        noise: weight of a uniform target, 0 to 1.
        weight: how much likelier a listed target is than another.
    """

    def __init__(self, temperature: float = 0.6, noise: float = 0.3, weight: float = 3.0):
        self.temperature = temperature
        self.noise = noise
        self.weight = weight

    def beliefs(self, view) -> list[dict[str, float]]:
        """Each seat's Role distribution given ``view`` (known Roles certain).

        Returns:
            one ``{role: probability}`` per seat (empty during a Draft).
        """
        prior = role_probabilities(view)
        tm = view.throne_magic
        seats = [s for s, r in enumerate(tm.known) if r is None]
        if not seats or not prior[seats[0]]:
            return prior
        roles = [r for r in tm.roles if r not in tm.known]
        n = len(tm.known)
        lists = {r: tr.get(r).must_eliminate for r in roles}
        # P(j's Role is on r's list), by the prior marginals
        on_list = {r: [sum(p for role, p in prior[j].items() if role in lists[r]) for j in range(n)] for r in roles}
        loglik = np.zeros((len(seats), len(roles)))
        for a, i in enumerate(seats):
            acts = [view.attacks[i][j] + view.harm[i][j] / 2.0 if j != i else 0.0 for j in range(n)]
            if not any(acts):
                continue
            for b, r in enumerate(roles):
                w = [1.0 + self.weight * on_list[r][j] if j != i else 0.0 for j in range(n)]
                total = sum(w)
                ll = 0.0
                for j in range(n):
                    if acts[j]:
                        p = (1.0 - self.noise) * w[j] / total + self.noise / (n - 1)
                        ll += acts[j] * math.log(p)
                loglik[a, b] = self.temperature * ll
        post = [dict(d) for d in prior]
        # the prior marginals; 0 only where the Throne's controller would hold no Claimant Role
        pri = np.array([[prior[s][r] for r in roles] for s in seats])
        if len(seats) <= MAX_EXACT:
            perms = _permutations(len(roles), len(seats))          # (k, seats): a Role index per seat
            logw = loglik[np.arange(len(seats)), perms].sum(axis=1)
            logw = np.where((pri[np.arange(len(seats)), perms] > 0).all(axis=1), logw, -np.inf)
            w = np.exp(logw - logw.max())
            w /= w.sum()
            marg = np.zeros((len(seats), len(roles)))
            for a in range(len(seats)):
                np.add.at(marg[a], perms[:, a], w)
        else:
            e = np.exp(loglik - loglik.max(axis=1, keepdims=True)) * pri
            marg = e / e.sum(axis=1, keepdims=True)
        for a, s in enumerate(seats):
            post[s] = {r: float(marg[a, b]) for b, r in enumerate(roles)}
        return post


def claimant(view) -> bool:
    """Whether the viewer's own Role has the type Claimant ("Taking the Throne")."""
    role = view.throne_magic.known[view.seat]
    return role is not None and tr.get(role).claimant


def locations_to_attack(view, want: dict) -> list[tuple[int, int]]:
    """The Throne and the Holdings worth attacking for the viewer of ``view`` (Throne Magic),
    as ``(uid, controller)`` (-1: in the middle): the Throne first, then the Holdings in the
    middle, then those in enemies' hands, each group in the Holdings' order.

    The Throne: for a Claimant (:func:`claimant`) when it is in the middle or its controller is
    an enemy (``want > 0``): combat damage lets it take the Throne ("Taking the Throne"); for
    anyone else only in an enemy's hands: its damage puts it in the middle ("Controlling the
    Throne"), out of a Claimant's hands that would use it against the viewer.  A Holding:
    in the middle or in an enemy's hands (any player may take one, "Holdings (Advanced)").
    Never what the viewer or a seat it does not want hurt controls.

    Args:
        view: a Throne Magic :class:`~treachery_env.view.SeatView`.
        want: ``{seat: want}`` (:func:`throne_want`, or the belief bot's hostility).
    """
    tm = view.throne_magic
    me = view.seat
    out = []
    c = tm.controller
    if tm.uid is not None and c != me and ((c < 0 and claimant(view)) or (c >= 0 and want.get(c, 0.0) > 0)):
        out.append((tm.uid, c))
    out += [(h.uid, -1) for h in tm.holdings if h.controller < 0]
    out += [(h.uid, h.controller) for h in tm.holdings
            if h.controller >= 0 and h.controller != me and want.get(h.controller, 0.0) > 0]
    return out


def throne_answer(view, decision) -> int | None:
    """The bots' answer to a Throne Magic yes/no ``decision`` (a :class:`DecisionView` of kind
    ``"yes_no"``): PASS for a non-Claimant asked to take the Throne ("Controlling the Throne":
    its take would put it in the middle too; a Claimant takes it, which reveals no Role), else
    yes (CHOICE + 0): take a Holding, accept a creature (no creature in the card pool has a
    drawback, and a gift is public but shows no Role), use a Throne's or Holding's "may"
    ability.  None outside Throne Magic.
    """
    if getattr(view, "throne_magic", None) is None:
        return None
    yes = next((o.action for o in decision.options if o.x == 0), None)      # CHOICE + 0
    no = next((o.action for o in decision.options if o.x is None), None)    # the PASS that says no
    if decision.prompt.startswith("take the Throne") and not claimant(view):
        return no
    return yes


def _power(p) -> int:
    """The power of ``p``'s creatures that can attack (no defender): what it could swing."""
    return sum(c.power for c in p.creatures if "defender" not in c.keywords)


def _threat(view, seat: int, friends) -> int:
    """The largest power one player still in the game, other than ``seat`` and ``friends``,
    could attack ``seat`` with."""
    return max((_power(p) for p in view.players if p.in_game and p.seat != seat and p.seat not in friends),
               default=0)


def gift(view, want: dict, options) -> tuple[int, int | None] | None:
    """A creature Throne ability to activate now, as ``(action, target)``, or None; ``target`` is
    the receiver's seat for a distribution (the caller names it at the target decision that
    follows), None for a gift to the Throne's controller.

    "Giving Creatures to the Monarch" (option ``ability == "throne_give"``, the receiver the
    Throne's controller) or, for the Throne's controller, "The Monarch Distributing Creatures"
    (``"throne_distribute"``, the receiver chosen next).  Given only at the end step (empty
    stack) of the turn before the receiver's: the creature, tapped by the cost, untaps in the
    receiver's untap step and can attack and block in its turn, and it could block for the
    giver until then.  Conditions:

    * the receiver is an ally (``want <= GIFT_ALLY``: its Role's goals agree with the viewer's
      as far as the viewer knows, see :func:`throne_want`);
    * the gift makes the difference: the strongest board of another player (not the viewer)
      has power enough to kill it through the toughness of its creatures (``need``: that power
      less the toughness less its life - 1, above 0), and the creature's toughness covers
      ``need`` (else the creature would leave the game with it);
    * the viewer has more life than the receiver and can spare the creature: its toughest stay
      while the strongest board that could attack it (its allies' aside) outweighs its life - 1;
      of the rest, the least tough that covers ``need`` is given.  Measured (paired
      substitution, 120 deals of the Basic Game): giving whenever the ally was merely
      threatened cost The King's Bannerman 5 points of win rate.

    Args:
        view: a Throne Magic :class:`~treachery_env.view.SeatView` at a priority decision.
        want: ``{seat: want}`` as for :func:`locations_to_attack`.
        options: the decision's :class:`OptionView` s.
    """
    abilities = [o for o in options if o.kind == "throne_ability"]
    if not abilities or view.stack or view.phase != "end":
        return None
    players = view.players
    n = len(players)
    me = view.seat
    r = next((s for k in range(1, n) for s in [(view.active + k) % n] if players[s].in_game), None)
    if r is None or r == me or want.get(r, 0.0) > GIFT_ALLY:
        return None
    mine = {c.uid: c for c in players[me].creatures}
    offers = [o for o in abilities if o.creature in mine
              and (o.ability == "throne_distribute" or (o.ability == "throne_give" and o.player == r))]
    if not offers:
        return None
    them = players[r]
    short = _threat(view, r, {me}) - sum(c.toughness - c.damage for c in them.creatures) - (them.life - 1)
    if short <= 0:
        return None
    friends = {s for s, w in want.items() if w <= GIFT_ALLY}
    me_p = players[me]
    need = _threat(view, me, friends) - (me_p.life - 1)
    if me_p.life <= them.life:
        return None
    spare = []
    for c in sorted(me_p.creatures, key=lambda c: (-c.toughness, c.uid)):
        if need > 0 and not c.tapped:
            need -= max(2, c.toughness)
            continue
        if c.toughness - c.damage >= short:
            spare.append(c)
    spare.sort(key=lambda c: (c.toughness, c.uid))
    best = next((o for c in spare for o in offers if o.creature == c.uid), None)
    if best is None:
        return None
    return best.action, (r if best.ability == "throne_distribute" else None)
