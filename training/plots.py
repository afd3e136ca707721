"""Matplotlib plots of an evaluation result (PNG bytes in memory).

Figures are drawn with :class:`matplotlib.figure.Figure` directly, not pyplot,
so importing this module never changes the backend (plots still show inline
in notebooks) and no figure is left open.

``render_all(res)`` returns ``{"winrates.png": bytes, "crossplay.png": bytes,
["deduction.png": bytes]}`` for a dict from :func:`training.evaluate.summarize`;
the deduction plot exists only when some entrant recorded beliefs.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure

__all__ = ["render_all", "winrates_png", "crossplay_png", "deduction_png"]

ROLE_ORDER = ("Leader", "Guardian", "Assassin", "Traitor")


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def winrates_png(res: dict) -> bytes:
    """Grouped bars: win rate per dealt role (and overall) per entrant, with the
    95% interval clustered by deal (:func:`training.evaluate.summarize`'s ``winrates``) as error bars."""
    labels = list(res["winrates"])
    cats = list(ROLE_ORDER) + ["overall"]
    fig = Figure(figsize=(1.6 * len(cats) + 2, 4))
    ax = fig.subplots()
    width = 0.8 / max(1, len(labels))
    x = np.arange(len(cats))
    for i, lab in enumerate(labels):
        w = res["winrates"][lab]
        cells = [w["roles"][c] for c in ROLE_ORDER] + [w["overall"]]
        rate = np.array([c["rate"] if c["rate"] is not None else np.nan for c in cells])
        lo = np.array([c["lo"] for c in cells])
        hi = np.array([c["hi"] for c in cells])
        err = np.clip(np.vstack([np.nan_to_num(rate - lo), np.nan_to_num(hi - rate)]), 0.0, None)
        ax.bar(x + (i - (len(labels) - 1) / 2) * width, np.nan_to_num(rate), width, yerr=err,
               capsize=3, label=lab)
    ax.set_xticks(x, cats)
    ax.set_ylim(0, 1.02)                  # a rate of 1 drawn whole, not cut by the frame
    ax.set_ylabel("win rate (95% CI, clustered by deal)")
    ax.set_title(f"Win rate by dealt role, {res['summary']['games']} games")
    # beside the axes: inside them, tall bars in every group leave the legend no room but over them
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return _png(fig)


def crossplay_png(res: dict) -> bytes:
    """Heat-map of the cross-play matrix (row agent's win rate when the column agent
    holds an opposing seat)."""
    cp = res["crossplay"]
    labels = cp["labels"]
    m = np.array([[c["rate"] if c["rate"] is not None else np.nan for c in row] for row in cp["matrix"]],
                 dtype=float)
    fig = Figure(figsize=(1.2 * len(labels) + 3, 1.0 * len(labels) + 2))
    ax = fig.subplots()
    im = ax.imshow(m, vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for a in range(len(labels)):
        for b in range(len(labels)):
            if not np.isnan(m[a, b]):
                ax.text(b, a, f"{m[a, b]:.2f}", ha="center", va="center",
                        color="white" if m[a, b] < 0.5 else "black")
    ax.set_xlabel("facing (on an opposing team)")
    ax.set_ylabel("agent")
    ax.set_title("Cross-play win rate")
    fig.colorbar(im, ax=ax)
    return _png(fig)


def deduction_png(res: dict, min_count: int = 20) -> bytes:
    """Top-1 accuracy and log-loss of beliefs about face-down opponents by turn,
    per observer entrant, against the public-count prior (turns with at least
    ``min_count`` rows, or fewer in small runs: 1 row per 50 recorded)."""
    fig = Figure(figsize=(11, 4))
    a1, a2 = fig.subplots(1, 2)
    for lab, d in res["deduction"].items():
        total = sum(b["n"] for b in d["by_turn"])
        need = max(1, min(min_count, total // 50))     # small runs: fewer rows per plotted turn
        bt = [b for b in d["by_turn"] if b["n"] >= need] or d["by_turn"]
        t = [b["turn"] for b in bt]
        line, = a1.plot(t, [b["top1"] for b in bt], label=lab)
        a1.plot(t, [b["prior_top1"] for b in bt], ls="--", color=line.get_color(), alpha=0.6,
                label=f"{lab} prior")
        a2.plot(t, [b["logloss"] for b in bt], color=line.get_color(), label=lab)
        a2.plot(t, [b["prior_logloss"] for b in bt], ls="--", color=line.get_color(), alpha=0.6,
                label=f"{lab} prior")
    a1.set_xlabel("turn")
    a1.set_ylabel("top-1 accuracy of the true role")
    a1.set_ylim(0, 1.02)
    a2.set_xlabel("turn")
    a2.set_ylabel("log-loss (nats)")
    a1.legend(fontsize="small")
    a2.legend(fontsize="small")
    fig.suptitle("Deduction of face-down opponents' roles")
    return _png(fig)


PLOT_FILES = ("winrates.png", "crossplay.png", "deduction.png")


def render_all(res: dict) -> dict[str, bytes]:
    """Every plot of ``res`` as ``{filename: PNG bytes}`` (names from :data:`PLOT_FILES`)."""
    out = {"winrates.png": winrates_png(res), "crossplay.png": crossplay_png(res)}
    if res.get("deduction"):
        out["deduction.png"] = deduction_png(res)
    return out
