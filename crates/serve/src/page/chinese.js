// The Chinese checkers page. It holds the game as a start and the events since (moves, passes,
// clock overruns); every request carries them and the server answers with what to draw.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

const game = { start: null, players: 2, events: [] };
let view = null;
let selected = null;
let generation = 0;
let clockTimer = null;
let clockLeft = 0;
const engineSeats = new Set();

async function post(url, body) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function spec() {
  return { position: game.start, players: game.players, events: game.events };
}

function showError(e) {
  $('error').hidden = !e;
  $('error').textContent = e ? String(e.message || e) : '';
}

async function refresh() {
  const mine = ++generation;
  stopClock();
  try {
    const v = await post('/api/chinese/game', spec());
    if (mine !== generation) return;
    view = v;
    selected = null;
    showError(null);
    draw();
    next();
  } catch (e) {
    showError(e);
  }
}

function push(event) {
  game.events.push(event);
  refresh();
}

// What comes after drawing: a pass, the engine's move, or the clock for a person.
function next() {
  if (view.over) {
    const s = view.standings.map((p) => `${p.place}. ${p.camp} (${p.points})`).join(', ');
    setStatus(`Game over: ${s}`);
    return;
  }
  const me = view.to_move;
  if (view.moves.length === 0) {
    setStatus(`${me} has no move and passes`);
    push('pass');
    return;
  }
  if (engineSeats.has(me)) {
    think(me);
  } else {
    setStatus(`${me} to move: click a piece, then the hole it lands on`);
    startClock(me);
  }
}

async function think(me) {
  const mine = generation;
  setStatus(`Kroon thinks for ${me}...`, true);
  try {
    const seconds = Number($('seconds').value) || 1;
    const answer = await post('/api/chinese/engine', { game: spec(), seconds });
    if (mine !== generation) return;
    setStatus('', false);
    push(answer.event);
  } catch (e) {
    setStatus('', false);
    showError(e);
  }
}

function setStatus(text, thinking = false) {
  $('status').textContent = text;
  $('status').dataset.thinking = thinking ? '1' : '0';
}

function startClock(me) {
  clockLeft = view.move_seconds;
  $('clock').textContent = `${clockLeft.toFixed(0)} s`;
  clockTimer = setInterval(() => {
    clockLeft -= 1;
    $('clock').textContent = `${Math.max(clockLeft, 0).toFixed(0)} s`;
    if (clockLeft <= 0) {
      stopClock();
      push(`overrun ${me}`);
    }
  }, 1000);
}

function stopClock() {
  if (clockTimer) clearInterval(clockTimer);
  clockTimer = null;
  $('clock').textContent = '';
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function draw() {
  const svg = $('star');
  svg.textContent = '';
  const at = {};
  for (const h of view.holes) at[h.name] = h;
  const movesFrom = {};
  for (const m of view.moves) (movesFrom[m.from] = movesFrom[m.from] || []).push(m);
  const targets = selected ? movesFrom[selected] || [] : [];
  const targetOf = {};
  for (const m of targets) targetOf[m.to] = m;
  for (const h of view.holes) {
    const cls = ['hole'];
    if (h.camp) cls.push(`camp-${h.camp}`);
    if (targetOf[h.name]) cls.push('target');
    const hole = el('circle', { cx: h.x, cy: h.y, r: 0.3, class: cls.join(' '), 'data-name': h.name }, svg);
    el('title', {}, hole).textContent = h.name;
    el('text', { x: h.x, y: h.y + 0.47, class: 'hname' }, svg).textContent = h.name;
    hole.addEventListener('click', () => clickHole(h.name));
    if (targetOf[h.name]) {
      hole.addEventListener('mouseenter', () => showChain(targetOf[h.name], at));
      hole.addEventListener('mouseleave', () => showChain(null, at));
    }
  }
  if (view.last.length > 1) {
    el('polyline', { points: view.last.map((n) => `${at[n].x},${at[n].y}`).join(' '), class: 'lastmove', 'data-path': view.last.join(' ') }, svg);
  }
  for (const h of view.holes) {
    if (!h.piece) continue;
    const cls = ['piece', h.piece];
    if (!view.over && h.piece === view.to_move && movesFrom[h.name] && !engineSeats.has(h.piece)) cls.push('movable');
    if (selected === h.name) cls.push('selected');
    el('circle', { cx: h.x, cy: h.y, r: 0.26, class: cls.join(' '), 'data-name': h.name }, svg);
  }
  el('g', { id: 'chain-layer' }, svg);
  svg.dataset.toMove = view.to_move;
  svg.dataset.events = String(game.events.length);
  svg.dataset.round = String(view.round);
  svg.dataset.over = view.over ? '1' : '0';
  $('round').textContent = String(view.round);
  $('position-text').value = view.position;
  $('position-text').dataset.current = view.position;
  drawPlayers();
  drawMoves();
}

// A chain through several holes drawn as one line, from the piece to the landing hole.
function showChain(move, at) {
  const layer = $('chain-layer');
  if (!layer) return;
  layer.textContent = '';
  if (!move) return;
  el('polyline', { points: move.path.map((n) => `${at[n].x},${at[n].y}`).join(' '), class: 'chain', 'data-path': move.path.join(' ') }, layer);
}

function clickHole(name) {
  if (!view || view.over || engineSeats.has(view.to_move) || $('status').dataset.thinking === '1') return;
  const move = selected && view.moves.find((m) => m.from === selected && m.to === name);
  if (move) {
    selected = null;
    push(move.id);
    return;
  }
  selected = view.moves.some((m) => m.from === name) ? name : null;
  draw();
}

function drawPlayers() {
  const body = $('players-table').querySelector('tbody');
  body.textContent = '';
  for (const p of view.players) {
    const tr = document.createElement('tr');
    tr.dataset.camp = p.camp;
    const state = p.out ? 'out' : p.finished ? 'home' : p.camp === view.to_move && !view.over ? 'to move' : '';
    const cells = [p.camp, engineSeats.has(p.camp) ? 'Kroon' : 'you', p.to_go, p.outside_home, `${p.overruns} of ${view.max_overruns}`, state];
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = String(c);
      tr.appendChild(td);
    }
    tr.children[3].className = 'outside';
    body.appendChild(tr);
  }
  const need = view.players.length > 1 && view.players[0].need;
  $('anti-blocking').textContent = need
    ? `Anti-blocking: at the end of round ${need[0]} each player needs ${need[1]} pieces out of its home camp.`
    : 'Anti-blocking: no check ahead.';
}

function drawMoves() {
  const list = $('moves');
  list.textContent = game.events.map((e, i) => `${i + 1}. ${e}`).join('  ');
}

function buildSeats() {
  const box = $('seats');
  box.textContent = 'Kroon plays: ';
  for (const p of view.players) {
    const label = document.createElement('label');
    const cb = document.createElement('input');
    cb.type = 'checkbox';
    cb.id = `engine-${p.camp}`;
    cb.checked = engineSeats.has(p.camp);
    cb.addEventListener('change', () => {
      if (cb.checked) engineSeats.add(p.camp); else engineSeats.delete(p.camp);
      refresh();
    });
    label.appendChild(cb);
    label.append(` ${p.camp}`);
    box.appendChild(label);
  }
}

async function newGame(start) {
  game.start = start;
  game.players = Number($('players').value);
  game.events = [];
  const mine = ++generation;
  stopClock();
  try {
    const v = await post('/api/chinese/game', spec());
    if (mine !== generation) return;
    // A person plays the first seat; Kroon the others, until changed.
    engineSeats.clear();
    v.players.slice(1).forEach((p) => engineSeats.add(p.camp));
    view = v;
    buildSeats();
    refresh();
  } catch (e) {
    showError(e);
  }
}

$('new-game').addEventListener('click', () => newGame(null));
$('load-position').addEventListener('click', () => newGame($('position-text').value.trim()));
$('copy-position').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(view.position);
  } catch (_) {
    $('position-text').select();
    document.execCommand('copy');
  }
});

newGame(null);
