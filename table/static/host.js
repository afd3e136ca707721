// The host page: choose the players and the seats, create the table, hand out the links.
"use strict";
const $ = (id) => document.getElementById(id);
let BOTS = ["heuristic"];      // replaced by the server's list (GET /api/bots) before the seats are laid out

function seatRow(k) {
  const row = document.createElement("label");
  row.textContent = `P${k} `;
  const sel = document.createElement("select");
  sel.className = "seat-spec";
  for (const v of ["human", ...BOTS]) {
    const o = document.createElement("option");
    o.value = v; o.textContent = v === "human" ? "a person" : `bot: ${v}`;
    sel.appendChild(o);
  }
  sel.value = k < 2 ? "human" : (BOTS.includes("heuristic") ? "heuristic" : BOTS[0]);
  row.appendChild(sel);
  return row;
}

function layout() {
  const n = Number($("players").value), box = $("seats");
  while (box.children.length < n) box.appendChild(seatRow(box.children.length));
  while (box.children.length > n) box.removeChild(box.lastChild);
}

for (let n = 4; n <= 12; n++) {
  const o = document.createElement("option");
  o.value = n; o.textContent = n;
  $("players").appendChild(o);
}
$("players").value = 5;
$("players").onchange = layout;
fetch("/api/bots").then((r) => r.json()).then((data) => { BOTS = data.bots; layout(); });

function error(text) { const e = $("error"); e.textContent = text; e.hidden = false; }

function number(id, what) {
  const v = $(id).value.trim();
  if (v === "") return null;
  if (!/^[0-9]+$/.test(v)) throw new Error(`${what} must be a whole number, got "${v}"`);
  return Number(v);
}

$("host").onsubmit = async (ev) => {
  ev.preventDefault();
  let body;
  try {
    body = {seats: [...document.querySelectorAll(".seat-spec")].map((s) => s.value),
            variant: $("variant").value, commander: $("commander").checked,
            seed: number("seed", "The seed"), max_turns: number("max_turns", "The turn limit")};
  } catch (e) { error(e.message); return; }
  const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) { error(data.error); return; }
  $("error").hidden = true;
  $("created").hidden = false;
  $("created-title").textContent = `Table ${data.table} (seed ${data.seed})`;
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
    if (l.seat !== null) {
      const qr = document.createElement("div");
      qr.innerHTML = l.qr;
      div.appendChild(qr);
    }
    box.appendChild(div);
  }
};
