// The replay viewer: /replay/ID shows the frames of /api/replay/ID/STEP?seat=K step by step.
"use strict";
const id = location.pathname.split("/").pop();
const $ = (x) => document.getElementById(x);
let cards = {}, steps = 0, loading = 0, turn = 0;

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
  $("status").textContent = `step ${f.step} of ${f.steps}, turn ${f.turn}`;
  $("what").textContent = f.actor === null ? "The deal" : `P${f.actor} ` + (f.action ? `chose to ${f.action}` : "acted");
  $("events").innerHTML = "";
  for (const e of f.events) { const li = document.createElement("li"); li.textContent = e; $("events").appendChild(li); }
  $("board").innerHTML = f.board;
  cards = f.cards;
}

function go(step) { $("step").value = Math.max(0, Math.min(steps, step)); show(); }
$("step").oninput = show;
$("chair").onchange = show;
$("first").onclick = () => go(0);
$("prev").onclick = () => go(Number($("step").value) - 1);
$("next").onclick = () => go(Number($("step").value) + 1);
$("last").onclick = () => go(steps);
async function goTurn(t) {            // the first step of turn t (the server searches the replay)
  const r = await fetch(`/api/replay/${id}/turn/${t}`);
  if (r.ok) go((await r.json()).step);
}
$("next-turn").onclick = () => goTurn(turn + 1);
$("prev-turn").onclick = () => goTurn(Math.max(0, turn - 1));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") go(Number($("step").value) + 1);
  if (e.key === "ArrowLeft") go(Number($("step").value) - 1);
});
document.addEventListener("click", (ev) => {
  const el = ev.target.closest(".card");
  if (el) { $("card-text").textContent = cards[el.dataset.name] || el.dataset.name; $("card").hidden = false; }
});
$("card-close").onclick = () => { $("card").hidden = true; };
show();
