// A seat's page (or the spectators'): renders the state messages of /ws/TOKEN and sends answers.
"use strict";
const token = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let socket = null, prompt = null, cards = {}, logged = 0, throneMagic = false;

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${proto}://${location.host}/ws/${token}`);
  socket.onopen = () => setStatus("connected");
  socket.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "state") render(msg);
    else if (msg.type === "error") showError(msg.message);
  };
  socket.onclose = (e) => {
    if (e.code === 4404) { setStatus("This link is not a seat of a table on this server."); return; }
    if (e.code === 4410) { setStatus(e.reason || "This table has closed."); return; }   // the server closed it
    setStatus("disconnected - reconnecting...");
    setTimeout(connect, 1500);
  };
}

function setStatus(text) { $("status").textContent = text; }

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

function render(msg) {
  const who = msg.seat === null ? "spectator" : `P${msg.seat}`;
  throneMagic = msg.game === "throne_magic";
  const game = throneMagic ? "Throne Magic" : "Treachery";
  $("title").textContent = `${game} - ${who}`;
  document.title = `${game} - ${who}`;
  cards = msg.cards || {};
  if (msg.events_from === 0) { $("log").innerHTML = ""; logged = 0; }
  for (const e of msg.events) {
    const li = document.createElement("li");
    li.textContent = e.text;
    li.className = "ev-" + e.kind;
    $("log").appendChild(li);
    logged += 1;
  }
  $("log").scrollTop = $("log").scrollHeight;
  $("board").innerHTML = msg.board;
  $("me").hidden = !msg.identity;
  $("me").innerHTML = msg.identity || "";
  let status = msg.turn ? `turn ${msg.turn}` : "mulligans";
  if (msg.error) status += " - " + msg.error;
  else if (msg.over) status += " - game over";
  else if (msg.prompt) status += " - your decision";
  else if (msg.seat !== null) status += " - the others play";  // whoever they are: that is not this seat's to know
  setStatus(status);
  renderPrompt(msg.prompt);
  renderStops(msg.stops);
  $("end").hidden = !msg.over;
  if (msg.over) {
    $("reveal").innerHTML = msg.reveal;
    $("replay").href = msg.replay;
    $("viewer").href = msg.viewer;
  }
}

function button(text, cls, onclick, card) {
  const b = document.createElement("button");
  b.textContent = text;
  if (cls) b.className = cls;
  b.onclick = onclick;
  if (card && cards[card]) b.title = cards[card];
  return b;
}

function renderPrompt(p) {
  prompt = p;
  $("prompt").hidden = !p;
  const opts = $("options"), talk = $("talk-options");
  opts.innerHTML = ""; talk.innerHTML = "";
  if (!p) return;
  $("question").textContent = p.question === "priority" ? "You have priority: act, or pass" : p.question;
  $("reason").textContent = p.reason && p.reason !== p.question ? p.reason : "";
  let concede = null, nTalk = 0;
  for (const o of p.options) {
    if (o.kind === "concede") { concede = o; continue; }
    const b = button(o.text, "option kind-" + o.kind, () => answer(o.action), o.card);
    b.dataset.action = o.action;
    if (o.kind === "talk") { talk.appendChild(b); nTalk += 1; } else opts.appendChild(b);
    if (o.card && cards[o.card]) {
      const info = button("?", "info", (ev) => { ev.stopPropagation(); showCard(o.card); });
      info.setAttribute("aria-label", `read ${o.card}`);
      (o.kind === "talk" ? talk : opts).appendChild(info);
    }
  }
  $("talk").hidden = nTalk === 0;
  $("concede").hidden = !concede;
  $("concede").onclick = () => {
    if (confirm(throneMagic ? "Concede the game? You lose and leave it, and your Role is revealed."
                            : "Concede the game? You lose and leave it; your team can still win.")) answer(concede.action);
  };
}

const STOP_WORDS = {
  own_main: "my main phases", attacked: "when I am attacked", stack: "another player's spell I can answer",
  targeted: "when I or mine are targeted", unveil: "when someone unveils", end_of_turn: "the end of the turn before mine",
  truces: "truce offers (off: declined by themselves)", every: "every decision",
};

function renderStops(stops) {
  $("stops-box").hidden = !stops;
  if (!stops) return;
  const box = $("stops");
  if (box.dataset.state === JSON.stringify(stops)) return;
  box.dataset.state = JSON.stringify(stops);
  box.innerHTML = "";
  for (const [name, on] of Object.entries(stops)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox"; input.checked = on; input.name = name;
    input.onchange = () => socket.send(JSON.stringify({type: "stops", stops: {[name]: input.checked}}));
    label.append(input, " " + (STOP_WORDS[name] || name));
    box.appendChild(label);
  }
}

function answer(action) {
  if (!prompt || !socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify({type: "answer", prompt: prompt.number, action: action}));
  for (const b of document.querySelectorAll("#prompt button")) b.disabled = true;
}

function showCard(name) {
  $("card-text").textContent = cards[name] || name;
  $("card").hidden = false;
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest(".card");
  if (el) showCard(el.dataset.name);
});
$("card-close").onclick = () => { $("card").hidden = true; };
connect();
