'use strict';
// Kroon's web board. The page keeps the game as a start (variant, FEN) and a list of moves in the
// Hub form; the server replays them with the rules for every view, and the engine's WebSocket
// pushes its lines as they grow.

const $ = (id) => document.getElementById(id);

const S = {
  variant: 'normal',
  fen: '',
  moves: [],
  ply: 0,
  view: null,
  flipped: false,
  selected: null,
  side: 'White',
  analysing: false,
  search: null, // {id, mode, ply, moves}
  nextId: 1,
  ws: null,
  lines: new Map(),
};

function showError(text) {
  const e = $('error');
  e.textContent = text || '';
  e.hidden = !text;
}

async function api(path, body, raw) {
  const r = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': raw ? 'text/plain' : 'application/json' },
    body: raw ? body : JSON.stringify(body),
  });
  if (!r.ok) {
    let message = r.status + ' ' + r.statusText;
    try { message = (await r.json()).error || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return r;
}

// Shows `next` (a game and ply); keeps the old game when the server refuses it.
async function show(next) {
  const game = Object.assign({ variant: S.variant, fen: S.fen, moves: S.moves, ply: S.ply }, next || {});
  try {
    const r = await api('/api/game', { variant: game.variant, fen: game.fen || null, moves: game.moves, ply: game.ply });
    const view = await r.json();
    // Lines of another position would mislead: they go when the position changes.
    const moved = !S.view || S.view.fen !== view.fen || S.view.variant !== view.variant;
    Object.assign(S, game, { view, selected: null });
    if (moved) { S.lines.clear(); renderLines(); $('search-info').textContent = ''; }
    showError('');
  } catch (e) {
    showError(e.message);
    return false;
  }
  $('variant').value = S.variant;
  render();
  schedule();
  return true;
}

function canMove() {
  const v = S.view;
  if (!v || v.outcome) return false;
  if (S.search && S.search.mode === 'play') return false;
  return S.side === 'none' || v.turn === S.side || S.ply < S.moves.length;
}

function render() {
  const v = S.view;
  const n = v.columns;
  const board = $('board');
  board.innerHTML = '';
  board.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
  board.dataset.variant = v.variant;
  board.dataset.turn = v.turn;
  board.dataset.ply = String(S.ply);
  board.dataset.moves = String(S.moves.length);
  const bySpot = new Map(v.squares.map((s) => [s.row * n + s.col, s]));
  const movable = canMove() ? new Set(v.legal.map((m) => m.from)) : new Set();
  const targets = new Set(v.legal.filter((m) => m.from === S.selected).map((m) => m.to));
  const last = v.last ? new Set([v.last.from, v.last.to]) : new Set();
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const [row, col] = S.flipped ? [n - 1 - r, n - 1 - c] : [r, c];
      const s = bySpot.get(row * n + col);
      const cell = document.createElement('div');
      cell.className = 'sq ' + (s ? 'dark' : 'light');
      if (s) {
        cell.dataset.field = String(s.field);
        cell.dataset.name = s.name;
        cell.innerHTML = `<span class="name">${s.name}</span>`;
        if (s.piece) {
          const p = document.createElement('div');
          const colour = s.piece.toLowerCase();
          p.className = `piece ${colour}` + (s.piece === colour ? '' : ' king');
          cell.appendChild(p);
          cell.dataset.piece = s.piece;
        }
        if (movable.has(s.field)) cell.classList.add('movable');
        if (S.selected === s.field) cell.classList.add('selected');
        if (targets.has(s.field)) cell.classList.add('target');
        if (last.has(s.field)) cell.classList.add('last');
      }
      board.appendChild(cell);
    }
  }
  renderStatus();
  renderMoves();
  $('current-fen').textContent = v.fen;
}

function renderStatus() {
  const v = S.view;
  let text;
  if (v.outcome) text = v.outcome;
  else if (S.search && S.search.mode === 'play') text = 'Kroon is thinking…';
  else text = `${v.turn} to move`;
  if (S.ply < S.moves.length) text += ` (move ${S.ply} of ${S.moves.length})`;
  $('status').textContent = text;
  $('status').dataset.thinking = S.search && S.search.mode === 'play' ? '1' : '0';
}

function renderMoves() {
  const box = $('moves');
  box.innerHTML = '';
  S.view.history.forEach((m, i) => {
    if (i % 2 === 0) box.appendChild(document.createTextNode(`${i / 2 + 1}. `));
    const span = document.createElement('span');
    span.textContent = m.text;
    span.dataset.ply = String(i + 1);
    span.dataset.id = m.id;
    if (i + 1 === S.ply) span.className = 'current';
    span.addEventListener('click', () => show({ ply: i + 1 }));
    box.appendChild(span);
    box.appendChild(document.createTextNode(' '));
  });
}

function play(mv) {
  $('paths').hidden = true;
  show({ moves: S.moves.slice(0, S.ply).concat([mv.id]), ply: S.ply + 1 });
}

function choosePath(moves) {
  const list = $('path-list');
  list.innerHTML = '';
  for (const m of moves) {
    const b = document.createElement('button');
    b.textContent = m.text;
    b.dataset.id = m.id;
    b.addEventListener('mouseenter', () => markCaptured(m.captured));
    b.addEventListener('mouseleave', () => markCaptured([]));
    b.addEventListener('click', () => { markCaptured([]); play(m); });
    list.appendChild(b);
  }
  $('paths').hidden = false;
}

function markCaptured(fields) {
  for (const cell of document.querySelectorAll('#board .captured')) cell.classList.remove('captured');
  for (const f of fields) {
    const cell = document.querySelector(`#board [data-field="${f}"]`);
    if (cell) cell.classList.add('captured');
  }
}

// A press on a square: a target of the selected piece plays (asking which capture when several
// take different pieces); a piece that can move is selected.
function press(field) {
  if (!canMove()) return;
  const legal = S.view.legal;
  if (S.selected !== null) {
    const moves = legal.filter((m) => m.from === S.selected && m.to === field);
    if (moves.length === 1) return play(moves[0]);
    if (moves.length > 1) return choosePath(moves);
  }
  S.selected = legal.some((m) => m.from === field) ? field : null;
  render();
}

function setupBoard() {
  const board = $('board');
  let drag = null;
  board.addEventListener('pointerdown', (e) => {
    const cell = e.target.closest('.sq.dark');
    if (!cell) return;
    e.preventDefault();
    const field = Number(cell.dataset.field);
    press(field);
    if (S.selected === field && cell.dataset.piece) {
      const ghost = cell.querySelector('.piece').cloneNode(true);
      const size = cell.getBoundingClientRect().width * 0.78;
      ghost.classList.add('drag-ghost');
      Object.assign(ghost.style, { width: `${size}px`, height: `${size}px`, inset: 'auto', left: `${e.clientX - size / 2}px`, top: `${e.clientY - size / 2}px` });
      ghost.hidden = true;
      document.body.appendChild(ghost);
      drag = { from: field, ghost, size };
    }
  });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    drag.ghost.hidden = false;
    drag.ghost.style.left = `${e.clientX - drag.size / 2}px`;
    drag.ghost.style.top = `${e.clientY - drag.size / 2}px`;
  });
  window.addEventListener('pointerup', (e) => {
    if (!drag) return;
    const { from, ghost } = drag;
    drag = null;
    ghost.remove();
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const cell = under && under.closest('#board .sq.dark');
    if (cell && Number(cell.dataset.field) !== from) press(Number(cell.dataset.field));
  });
}

// The engine: one WebSocket, reopened when it drops.
function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/engine`);
  S.ws = ws;
  ws.onopen = () => { $('connection').textContent = 'engine: ready'; $('connection').className = 'on'; schedule(); };
  ws.onclose = () => {
    $('connection').textContent = 'engine: disconnected';
    $('connection').className = 'off';
    S.search = null;
    setTimeout(connect, 1000);
  };
  ws.onmessage = (e) => receive(JSON.parse(e.data));
}

function send(message) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(message)); return true; }
  return false;
}

function go(mode) {
  const id = S.nextId++;
  const message = {
    type: 'go', id, mode,
    game: { variant: S.variant, fen: S.fen || null, moves: S.moves.slice(0, S.ply) },
    lines: Math.max(1, Number($('lines').value) || 1),
  };
  if (mode === 'play') {
    const value = Number($('limit-value').value) || 1;
    if ($('limit-kind').value === 'level') message.depth = Math.max(1, Math.round(value));
    else message.movetime_ms = Math.max(10, Math.round(value * 1000));
  }
  if (!send(message)) return;
  S.search = { id, mode, ply: S.ply, moves: S.moves.slice(0, S.ply).join(' ') };
  if (mode === 'analyse') { S.lines.clear(); renderLines(); }
  renderStatus();
  render();
}

// After every change of position: Kroon moves when it is its turn at the end of the game,
// else the analysis (when on) follows the position shown.
function schedule() {
  const v = S.view;
  if (!v || !S.ws || S.ws.readyState !== WebSocket.OPEN) return;
  if (!v.outcome && S.side !== 'none' && v.turn !== S.side && S.ply === S.moves.length) return go('play');
  if (S.analysing && !v.outcome) return go('analyse');
  if (S.search) { send({ type: 'stop' }); S.search = null; render(); }
}

function receive(m) {
  const current = S.search && m.id === S.search.id;
  if (m.type === 'error') { showError(m.message); return; }
  if (!current) return;
  if (m.type === 'started') {
    $('search-info').dataset.linesAsked = String(m.lines_asked);
    $('search-info').dataset.lines = String(m.lines);
  } else if (m.type === 'info') {
    $('search-info').textContent = `depth ${m.depth}/${m.seldepth}  nodes ${m.nodes}  ${(m.nps / 1e6).toFixed(2)} Mn/s  ${(m.time_ms / 1000).toFixed(1)} s`;
    if (S.search.mode === 'analyse') { S.lines.set(m.line, m); renderLines(); }
  } else if (m.type === 'done') {
    const search = S.search;
    S.search = null;
    const unchanged = search.ply === S.ply && search.moves === S.moves.slice(0, S.ply).join(' ');
    if (search.mode === 'play' && m.best && unchanged && S.ply === S.moves.length) {
      show({ moves: S.moves.concat([m.best.id]), ply: S.ply + 1 });
    } else {
      if (search.mode === 'analyse') S.analysing = false;
      render();
    }
  }
}

function renderLines() {
  const body = document.querySelector('#lines-table tbody');
  body.innerHTML = '';
  for (const [line, m] of [...S.lines.entries()].sort((a, b) => a[0] - b[0])) {
    const tr = document.createElement('tr');
    tr.dataset.line = String(line);
    tr.dataset.depth = String(m.depth);
    const score = (m.score > 0 ? '+' : '') + m.score.toFixed(2);
    tr.innerHTML = `<td>${line}</td><td>${m.depth}</td><td>${score}</td><td class="pv"></td>`;
    tr.querySelector('.pv').textContent = m.pv.join(' ');
    body.appendChild(tr);
  }
}

async function loadPdn() {
  const file = $('pdn-file').files[0];
  const text = file ? await file.text() : $('pdn-text').value;
  let games;
  try {
    const r = await api(`/api/pdn/read?variant=${encodeURIComponent(S.variant)}`, text, true);
    games = (await r.json()).games;
  } catch (e) { showError(e.message); return; }
  const select = $('pdn-games');
  select.innerHTML = '';
  games.forEach((g, i) => {
    const tag = (name) => (g.tags.find(([k]) => k.toLowerCase() === name) || [null, '?'])[1];
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = `${i + 1}. ${tag('white')} – ${tag('black')}` + (g.error ? ` (unreadable: ${g.error})` : ` (${g.moves.length} moves)`);
    o.disabled = !!g.error;
    select.appendChild(o);
  });
  select.hidden = games.length < 2;
  select.onchange = () => openGame(games[Number(select.value)]);
  const first = games.findIndex((g) => !g.error);
  if (first < 0) { showError(games.length ? 'no game in the file could be read' : 'no game found'); return; }
  select.value = String(first);
  openGame(games[first]);
}

function openGame(g) {
  // A game read from a file is for stepping through: Kroon only analyses it.
  S.side = 'none';
  $('side').value = 'none';
  show({ variant: g.variant, fen: g.fen, moves: g.moves, ply: 0 });
}

async function downloadPdn() {
  try {
    const names = { White: S.side === 'White' ? 'You' : 'Kroon', Black: S.side === 'Black' ? 'You' : 'Kroon' };
    if (S.side === 'none') { names.White = '?'; names.Black = '?'; }
    const r = await api('/api/pdn/write', { game: { variant: S.variant, fen: S.fen || null, moves: S.moves }, white: names.White, black: names.Black });
    const url = URL.createObjectURL(await r.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = 'game.pdn';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (e) { showError(e.message); }
}

async function start() {
  const variants = await (await fetch('/api/variants')).json();
  for (const v of variants) {
    const o = document.createElement('option');
    o.value = v.name;
    o.textContent = `${v.name} (${v.columns}x${v.columns})`;
    $('variant').appendChild(o);
  }
  setupBoard();
  $('variant').addEventListener('change', () => show({ variant: $('variant').value, fen: '', moves: [], ply: 0 }));
  $('new-game').addEventListener('click', () => show({ variant: $('variant').value, fen: '', moves: [], ply: 0 }));
  $('side').addEventListener('change', () => { S.side = $('side').value; render(); schedule(); });
  $('limit-kind').addEventListener('change', () => { $('limit-value').value = $('limit-kind').value === 'level' ? '8' : '1'; });
  $('flip').addEventListener('click', () => { S.flipped = !S.flipped; render(); });
  $('first').addEventListener('click', () => show({ ply: 0 }));
  $('prev').addEventListener('click', () => S.ply > 0 && show({ ply: S.ply - 1 }));
  $('next').addEventListener('click', () => S.ply < S.moves.length && show({ ply: S.ply + 1 }));
  $('last').addEventListener('click', () => show({ ply: S.moves.length }));
  $('analyse').addEventListener('click', () => { S.analysing = true; schedule(); });
  $('stop').addEventListener('click', () => { S.analysing = false; send({ type: 'stop' }); });
  $('path-cancel').addEventListener('click', () => { $('paths').hidden = true; markCaptured([]); });
  $('load-fen').addEventListener('click', () => show({ fen: $('fen').value.trim(), moves: [], ply: 0 }));
  $('load-pdn').addEventListener('click', loadPdn);
  $('download-pdn').addEventListener('click', downloadPdn);
  document.addEventListener('keydown', (e) => {
    if (e.target.matches('input, textarea, select')) return;
    if (e.key === 'ArrowLeft') $('prev').click();
    if (e.key === 'ArrowRight') $('next').click();
  });
  await show({});
  connect();
}

start();
