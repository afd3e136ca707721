// The host page: choose the players and the seats, create the table, hand out the links.
"use strict";
const $ = (id) => document.getElementById(id);
const BOTS = ["heuristic", "belief", "random", "lookahead", "ismcts", "flagship"];

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
  sel.value = k < 2 ? "human" : "heuristic";
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
layout();

function number(id) {
  const v = $(id).value.trim();
  return v === "" ? null : Number(v);
}

$("host").onsubmit = async (ev) => {
  ev.preventDefault();
  const body = {seats: [...document.querySelectorAll(".seat-spec")].map((s) => s.value),
                variant: $("variant").value, commander: $("commander").checked,
                seed: number("seed"), max_turns: number("max_turns")};
  const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) { const e = $("error"); e.textContent = data.error; e.hidden = false; return; }
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
