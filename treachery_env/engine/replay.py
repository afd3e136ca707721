"""Replays and digests (DESIGN section 3): the privileged state summary, its
SHA-256, replay JSON and rebuilding a game from it.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from ..config import GameConfig
from .state import Creature

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

__all__ = ["ReplayMixin", "REPLAY_VERSION"]


REPLAY_VERSION = 3
"""Version 2 records ``priority_windows`` in the config; a version-1 replay
(written before the engine had every priority window) is read with
``priority_windows="main"``, the only game it could describe.  Version 3
records ``mulligans``, ``concession``, ``talk`` and ``talk_limit`` in the
config and, when there are any, the concessions made outside the action space
(``concessions``: ``[action count, seat]``, see :meth:`Game.concede`);
replays of versions 1 and 2 are read with ``mulligans="none"`` and
``talk="none"``, the game they describe (no mulligans, the silent table)."""


def _canon(obj: Any) -> Any:
    """JSON-friendly canonical form used by :meth:`Game.digest`."""
    if isinstance(obj, dict):
        return {str(k): _canon(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canon(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(_canon(v) for v in obj)
    return obj


class ReplayMixin:
    """Replays and digests (DESIGN section 3): methods of :class:`~treachery_env.engine.game.Game`."""

    def state_summary(self) -> dict[str, Any]:
        """Privileged, JSON-friendly summary of the full state (every hidden card)."""
        def cr(c: Creature) -> list:
            return [c.uid, c.name, c.power, c.toughness, c.damage, int(c.tapped), c.p1p1, c.stun]
        out = {
            "turn": self.turn, "active": self.active, "phase": self.phase, "over": self.is_over,
            "winners": sorted(self.winners),
            "players": [{
                "life": p.life, "lost": p.has_lost,
                **({"identity": p.identity.name, "face_up": p.identity.face_up,
                    "counters": dict(p.identity.counters)} if p.identity is not None else
                   {"role": self.social.role(p.seat), "known_by": sorted(self.social.known_by[p.seat])}
                   if p.seat < len(self.social.roles) else {"role": None}),     # Throne Magic's Draft: not dealt
                "hand": [c.name for c in p.hand], "library": [c.name for c in p.library],
                "graveyard": [c.name for c in p.graveyard], "exile": [c.name for c in p.exile],
                "lands": [p.lands, p.lands_tapped], "tokens": dict(p.tokens),
                "creatures": [cr(c) for c in p.creatures], "commander": p.commander_zone,
                "cmd_damage": dict(p.cmd_damage),
            } for p in self.players],
            "stack": [[it.kind, it.source, it.controller] for it in self.stack],
            "decision": None if self.decision is None else [self.decision.seat, self.decision.kind,
                                                            sorted(a for a, _ in self.decision.options)],
        }
        if any(p.attackables for p in self.players):   # games without planeswalkers keep their digests
            out["attackables"] = [[[w.uid, w.kind, w.name, w.owner, w.loyalty, w.used_turn] for w in p.attackables]
                                  for p in self.players]
        if self.social is not None and not self.social.roles:      # during Throne Magic's Draft: the picks so far
            out["draft"] = list(self.social.role_set)
        if self.social is not None and self.social.throne is not None:     # Throne Magic's Throne
            out["throne"] = [self.social.throne.name, self.social.throne.controller, self.social.season,
                             [[h.name, h.controller] for h in self.social.holdings]]
        if self.config.vanguard is not None:        # CR 902: games without vanguards keep their digests
            out["vanguards"] = [p.vanguard.name for p in self.players]
        if self.planar is not None:     # Planechase (games without it keep their digests)
            pz = self.planar
            out["planar"] = [pz.face_up, pz.owner, pz.controller, pz.rolls, [list(d) for d in pz.decks]]
        if self.schemes is not None:    # Archenemy (games without it keep their digests)
            out["schemes"] = [[list(d) for d in self.schemes.decks],
                              [[nm for _, nm in up] for up in self.schemes.face_up]]
        if self.talk_on:        # the silent game keeps the summary (and digests) it had before talk
            t = self.talk
            out["talk"] = {"messages": [[m.turn, m.speaker, m.kind, m.subject, None if m.role is None else int(m.role)]
                                        for m in t.messages],
                           "deals": [[d.dealer, d.partner, d.turn] for d in t.deals]}
        return out

    def digest(self) -> str:
        """SHA-256 of :meth:`state_summary` (hex)."""
        blob = json.dumps(_canon(self.state_summary()), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def to_json(self) -> str:
        """Replay of this game: config, seed, actions and the resulting state digest."""
        d = {"format": "treachery-replay", "version": REPLAY_VERSION,
             "config": self.config.to_dict(), "seed": self.seed,
             "actions": list(self.actions), "digest": self.digest()}
        if self.concessions:
            d["concessions"] = [list(c) for c in self.concessions]
        return json.dumps(d)

    @classmethod
    def from_json(cls, text: str | bytes | dict, stop: int | None = None) -> "Game":
        """Rebuild a game from :meth:`to_json` by replaying it.

        Args:
            text: the replay.
            stop: replay only its first ``stop`` actions (0 to their number), with the concessions
                made before the next one: the game as it stood then, to step through a replay.
                The digest is checked only when the whole replay is played (``stop`` None).

        Raises:
            ValueError: if the text is not a replay, a field is missing or
                malformed, an action is illegal when replayed, ``stop`` is not an int
                from 0 to the number of actions, or the final state
                does not match the recorded digest (a tampered replay).
        """
        try:
            d = text if isinstance(text, dict) else json.loads(text)
        except (TypeError, json.JSONDecodeError) as e:
            raise ValueError(f"not a replay: invalid JSON ({e}); from_json takes the replay text "
                             f"(e.g. open(path).read()), not a file name") from None
        except RecursionError:
            raise ValueError("not a replay: its JSON is nested too deeply to read (a replay is a flat "
                             "object of a config and a list of actions)") from None
        if not isinstance(d, dict) or d.get("format") != "treachery-replay":
            raise ValueError("not a replay: missing format 'treachery-replay'")
        version = d.get("version")
        if version not in (1, 2, REPLAY_VERSION) or isinstance(version, bool):
            raise ValueError(f"unsupported replay version {version!r}; this engine reads 1 to {REPLAY_VERSION}")
        for k, typ, kind in (("config", dict, "an object"), ("seed", int, "an integer"), ("actions", list, "a list"),
                             ("digest", str, "a string")):
            if not isinstance(d.get(k), typ) or isinstance(d.get(k), bool):
                raise ValueError(f"replay field {k!r} is missing or not {kind}")
        if d["seed"] < 0:
            raise ValueError(f"replay field 'seed' must be an int >= 0 (Game's seed), got {d['seed']}")
        if version == 1:
            d = {**d, "config": {"priority_windows": "main", **d["config"]}}
        if version in (1, 2):
            d = {**d, "config": {"mulligans": "none", "talk": "none", **d["config"]}}
        concessions = d.get("concessions", [])
        if (not isinstance(concessions, list)
                or not all(isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                      for x in c) for c in concessions)):
            raise ValueError("replay field 'concessions' must be a list of [action count, seat] pairs")
        try:
            cfg = GameConfig.from_dict(d["config"])
        except (TypeError, ValueError) as e:
            raise ValueError(f"replay config is invalid: {e}") from None
        g = cls(cfg, seed=d["seed"])
        pending = sorted(concessions, key=lambda c: c[0])

        def concede_until(k: int) -> None:
            while pending and pending[0][0] <= k:
                at, seat = pending.pop(0)
                try:
                    g.concede(seat)
                except ValueError as e:
                    raise ValueError(f"replay concession before action #{at} is illegal: {e}") from None

        actions = d["actions"]
        if stop is not None:
            if isinstance(stop, bool) or not isinstance(stop, int) or not 0 <= stop <= len(actions):
                raise ValueError(f"stop must be an int from 0 to {len(actions)} (the replay's actions), got {stop!r}")
            actions = actions[:stop]
        for k, a in enumerate(actions):
            if isinstance(a, bool) or not isinstance(a, int):
                raise ValueError(f"replay action #{k} is not an int: {a!r}")
            concede_until(k)
            try:
                g.step(a)
            except ValueError as e:
                raise ValueError(f"replay action #{k} is illegal: {e}") from None
        concede_until(len(actions))
        if stop is None and g.digest() != d["digest"]:
            raise ValueError("replay digest mismatch: the replayed state differs from the recorded one "
                             "(tampered or from another engine version)")
        return g
