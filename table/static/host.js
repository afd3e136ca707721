// The host page: choose the game, the players and the seats, create the table, hand out the links.
"use strict";
const $ = (id) => document.getElementById(id);
// per game, the bots that play it, the bots that play the CR 900 variants, and the table sizes of the bots limited
// to some (the shipped models: their training size): replaced by the server's lists (GET /api/bots) before the
// seats are laid out
let BOTS = {treachery: ["heuristic"], throne_magic: ["heuristic"]};
let VARIANT_BOTS = ["heuristic"];
let SIZES = {};

function variantsChosen() { return $("planechase").value !== "" || $("vanguard").checked || $("archenemy").checked; }

function gameBots() {
  const bots = BOTS[$("game").value] || [];
  return variantsChosen() ? bots.filter((b) => VARIANT_BOTS.includes(b)) : bots;
}

// whether the bot plays at a table of n players (a bot SIZES does not name plays any)
function playsAt(bot, n) { return !SIZES[bot] || SIZES[bot].includes(n); }

// a seat's row: a person or a bot of the chosen game; a bot limited to other table sizes is shown disabled, saying
// the sizes it plays
function seatRow(k, value, n) {
  const row = document.createElement("label");
  row.textContent = `P${k} `;
  const sel = document.createElement("select");
  sel.className = "seat-spec";
  const bots = gameBots();
  for (const v of ["human", ...bots]) {
    const o = document.createElement("option");
    o.value = v; o.textContent = v === "human" ? "a person" : `bot: ${v}`;
    if (v !== "human" && !playsAt(v, n)) {
      o.disabled = true;
      o.textContent += ` (${SIZES[v].join(" or ")} players only)`;
    }
    sel.appendChild(o);
  }
  const playing = bots.filter((b) => playsAt(b, n));
  const fallback = k < 2 ? "human" : (playing.includes("heuristic") ? "heuristic" : playing[0] || "human");
  sel.value = value === "human" || playing.includes(value) ? value : fallback;
  row.appendChild(sel);
  return row;
}

// the seats' rows, as many as the players, each offering the bots of the chosen game that play at that many (a
// choice kept where it still plays)
function layout() {
  const n = Number($("players").value), box = $("seats");
  const kept = [...box.querySelectorAll(".seat-spec")].map((s) => s.value);
  box.innerHTML = "";
  for (let k = 0; k < n; k++) box.appendChild(seatRow(k, kept[k], n));
}

// the controls of the chosen game only: the variant for Treachery; Roles, Throne, Holdings, Seasons for Throne Magic
function showGame() {
  const throne = $("game").value === "throne_magic";
  $("variant-box").hidden = throne;
  $("throne-options").hidden = !throne;
  $("sculpted").hidden = !throne || $("throne_roles").value !== "sculpted";
  layout();
}

for (let n = 4; n <= 12; n++) {
  const o = document.createElement("option");
  o.value = n; o.textContent = n;
  $("players").appendChild(o);
}
$("players").value = 5;
$("players").onchange = layout;
$("game").onchange = showGame;
$("throne_roles").onchange = showGame;
for (const id of ["planechase", "vanguard", "archenemy"]) $(id).onchange = layout;
fetch("/api/bots").then((r) => r.json()).then((data) => {
  BOTS = data.games;
  VARIANT_BOTS = data.variants;
  SIZES = data.players;
  layout();
});
fetch("/api/throne_magic").then((r) => r.json()).then((data) => {
  for (const name of data.thrones) {
    const o = document.createElement("option");
    o.value = name; o.textContent = name;
    $("throne").appendChild(o);
  }
  for (const role of data.roles) {
    const label = document.createElement("label"), box = document.createElement("input");
    box.type = "checkbox"; box.className = "sculpted-role"; box.value = role.name;
    label.append(box, ` ${role.name}` + (role.types.length ? ` (${role.types.join(", ")})` : ""));
    $("sculpted").appendChild(label);
  }
});

function error(text) { const e = $("error"); e.textContent = text; e.hidden = false; }

// the field's whole number (null: empty), at least `least`; the server checks the rest of its range
function number(id, what, least) {
  const v = $(id).value.trim();
  if (v === "") return null;
  if (!/^-?[0-9]+$/.test(v)) throw new Error(`${what} must be a whole number, got "${v}"`);
  if (Number(v) < least) throw new Error(`${what} must be a whole number from ${least} up, got ${v}`);
  return Number(v);
}

// the table request of the form (Lobby.create): the chosen game's fields only
function request() {
  const body = {seats: [...document.querySelectorAll(".seat-spec")].map((s) => s.value), game: $("game").value,
                commander: $("commander").checked, seed: number("seed", "The seed", 0),
                max_turns: number("max_turns", "The turn limit", 1)};
  if (body.game === "throne_magic") {
    const method = $("throne_roles").value;
    body.throne_roles = method === "sculpted"
      ? [...document.querySelectorAll(".sculpted-role:checked")].map((b) => b.value) : method;
    body.throne = $("throne").value;
    body.holdings = $("holdings").checked;
    body.seasons = $("seasons").checked;
  } else {
    body.variant = $("variant").value;
  }
  if ($("planechase").value !== "") body.planechase = $("planechase").value;
  if ($("vanguard").checked) body.vanguard = "random";
  if ($("archenemy").checked) body.archenemy = "supervillain_rumble";
  return body;
}

$("host").onsubmit = async (ev) => {
  ev.preventDefault();
  let body;
  try { body = request(); } catch (e) { error(e.message); return; }
  const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) { error(data.error); return; }
  $("error").hidden = true;
  $("created").hidden = false;
  // a drawn seed is not sent (it deals every identity); a given one is echoed with that warning
  $("created-title").textContent = data.seed === null ? `Table ${data.table}`
    : `Table ${data.table} (seed ${data.seed}: whoever knows it knows every identity)`;
  const codes = data.links.some((l) => l.qr !== null);
  $("created-note").textContent = data.links.some((l) => l.seat !== null)
    ? `Send each person their own link${codes ? " (or let them scan its code)" : ""}: a link is a seat, keep it ` +
      "private. Opening a link again resumes the seat."
    : "Every seat is a bot: open the spectators' link to watch the game as a spectator sees it, the public board " +
      "only (the bots play while a page watches). The page links the replay once the game ends.";
  const box = $("links");
  box.innerHTML = "";
  for (const l of data.links) {
    const div = document.createElement("div");
    div.className = "link";
    const h = document.createElement("h3");
    h.textContent = l.label === "spectators" ? "Spectators" : `Seat ${l.label}`;
    const a = document.createElement("a");
    a.href = l.url; a.textContent = l.url; a.target = "_blank";
    div.append(h, a);
    if (l.qr !== null && l.seat !== null) {
      const qr = document.createElement("div");
      qr.innerHTML = l.qr;
      div.appendChild(qr);
    }
    box.appendChild(div);
  }
  // the server gives a QR code only for a link another device can open (not this machine's 127.0.0.1)
  $("qr-note").hidden = codes || !data.links.some((l) => l.seat !== null);
};
