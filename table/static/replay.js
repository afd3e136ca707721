// The replay viewer: /replay/ID shows the frames of /api/replay/ID/STEP?seat=K step by step,
// or, with "skip plain passes" on, from one key step to the next (/api/replay/ID/next/STEP, .../prev/STEP).
"use strict";
const id = location.pathname.split("/").pop();
const $ = (x) => document.getElementById(x);
let cards = {}, steps = 0, loading = 0, turn = 0, lastTurn = 0, moves = Promise.resolve();

async function show() {
  const step = Number($("step").value), seat = $("chair").value;
  const ticket = ++loading;
  const r = await fetch(`/api/replay/${id}/${step}` + (seat === "" ? "" : `?seat=${seat}`));
  const f = await r.json();
  if (ticket !== loading) return;                // a newer step was asked meanwhile
  if (!r.ok) { $("error").textContent = f.error; $("error").hidden = false; return; }
  $("error").hidden = true;
  steps = f.steps;
  $("step").max = steps;
  if ($("chair").options.length === 0) {
    const add = (value, text) => { const o = document.createElement("option"); o.value = value; o.textContent = text; $("chair").appendChild(o); };
    add("", "the spectators");
    for (let k = 0; k < f.players; k++) add(String(k), `P${k}` + (f.labels ? ` (${f.labels[k]})` : ""));
  }
  turn = f.turn;
  lastTurn = f.last_turn;
  $("status").textContent = `step ${f.step} of ${f.steps}, turn ${f.turn}`;
  $("what").textContent = f.label;             // the step in words, as far as this chair saw it
  $("events").innerHTML = "";
  for (const e of f.events) { const li = document.createElement("li"); li.textContent = e; $("events").appendChild(li); }
  $("board").innerHTML = f.board;
  cards = f.cards;
}

function go(step) { $("step").value = Math.max(0, Math.min(steps, step)); show(); }
// moves one after another, each from where the last one left the slider
function move(how) { moves = moves.then(how).catch(() => {}); }
async function jump(url) { const r = await fetch(url); if (r.ok) go((await r.json()).step); }
function stepBy(dir, single) {               // dir: +1 next, -1 back; the key steps unless single or the filter is off
  move(async () => {
    const at = Number($("step").value);
    if (single || !$("skip").checked) go(at + dir);
    else await jump(`/api/replay/${id}/${dir > 0 ? "next" : "prev"}/${at}`);
  });
}
// the first step of a turn; past the last turn, the end
const goTurn = (d) => move(() => turn + d > lastTurn ? go(steps) : jump(`/api/replay/${id}/turn/${Math.max(0, turn + d)}`));
$("step").oninput = show;
$("chair").onchange = show;
$("first").onclick = () => move(() => go(0));
$("prev").onclick = () => stepBy(-1, false);
$("next").onclick = () => stepBy(1, false);
$("last").onclick = () => move(() => go(steps));
$("next-turn").onclick = () => goTurn(1);
$("prev-turn").onclick = () => goTurn(-1);
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.altKey || e.metaKey || e.target.matches("select, input[type=range]")) return;
  const keys = {
    ArrowRight: () => stepBy(1, e.shiftKey), ArrowLeft: () => stepBy(-1, e.shiftKey),
    Home: () => move(() => go(0)), End: () => move(() => go(steps)),
    "]": () => goTurn(1), "[": () => goTurn(-1),
    s: () => { $("skip").checked = !$("skip").checked; },
  };
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
document.addEventListener("click", (ev) => {
  const el = ev.target.closest(".card");
  if (el) { $("card-text").textContent = cards[el.dataset.name] || el.dataset.name; $("card").hidden = false; }
});
$("card-close").onclick = () => { $("card").hidden = true; };
show();
