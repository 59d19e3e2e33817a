// The page: gathers the dropped files, hands them to the worker (worker.js, kifu compiled to
// WebAssembly), and shows what it says: a table of games, one game with its diagnostics and
// boards, conversions. No framework, no network: the worker starts from a Blob holding the
// source that worker-source.js defines.
/* global KIFU_WORKER_SOURCE */
'use strict';

const TEXT = {
  en: {
    tagline: 'Check shogi game records in your browser. Nothing is uploaded: the files never leave this machine.',
    drop: 'Drop record files, a folder or a .zip here',
    pickFiles: 'Choose files', pickFolder: 'Choose a folder', paste: 'Paste a record', check: 'Check',
    filterCode: 'Code', allCodes: 'all', filterText: 'Search', convertTo: 'Convert to',
    convert: 'Convert', download: 'Download', file: 'File', game: '#', players: 'Players',
    recorded: 'Result as recorded', verdict: "Board's verdict", plies: 'Plies', errors: 'Errors',
    warnings: 'Warnings', back: 'Back to the table', diagnostics: 'Diagnostics', moves: 'Moves',
    keys: '← → step through the moves, Home/End jump, Esc back to the table',
    reading: (d, t) => `Reading ${fmtBytes(d)} of ${fmtBytes(t)}…`,
    checking: (d, t) => `Checking: ${d} of ${t} units…`,
    converting: (d, t) => `Converting: ${d} of ${t} files…`,
    summary: (s, ms) => `${s.files} files, ${s.games} games, ${s.plies} plies: ${s.errors} errors, ${s.warnings} warnings (${(ms / 1000).toFixed(1)} s)`,
    shown: (n, all) => `showing ${n} of ${all} games: filter to narrow`,
    none: 'No diagnostic: the record is clean.',
    noBoard: 'no board for this finding (not about a move of the main line)',
    start: 'start position', ply: (n) => `after ply ${n}`, before: (n) => `before ply ${n}`,
    wins: (w, by, ply) => `${w === 'black' ? 'Black' : 'White'} wins (${by}, ply ${ply})`,
    draw: (by, ply) => `draw (${by}, ply ${ply})`,
    converted: (n, l) => `${n} output files; ${l} warnings about what the target cannot hold:`,
    noLossy: 'Nothing is lost in this conversion.',
    noGames: 'No record found in what was dropped.',
  },
  ja: {
    tagline: 'ブラウザで棋譜を検査します。ファイルはどこにも送信されず、この端末から出ません。',
    drop: '棋譜ファイル・フォルダ・.zip をここにドロップ',
    pickFiles: 'ファイルを選ぶ', pickFolder: 'フォルダを選ぶ', paste: '棋譜を貼り付ける', check: '検査',
    filterCode: 'コード', allCodes: 'すべて', filterText: '検索', convertTo: '変換先',
    convert: '変換', download: 'ダウンロード', file: 'ファイル', game: '局', players: '対局者',
    recorded: '記録された結果', verdict: '盤面の判定', plies: '手数', errors: 'エラー',
    warnings: '警告', back: '一覧に戻る', diagnostics: '指摘', moves: '指し手',
    keys: '← → で一手ずつ、Home/End で最初・最後、Esc で一覧へ',
    reading: (d, t) => `読み込み中 ${fmtBytes(d)} / ${fmtBytes(t)}…`,
    checking: (d, t) => `検査中 ${d} / ${t}…`,
    converting: (d, t) => `変換中 ${d} / ${t} ファイル…`,
    summary: (s, ms) => `${s.files} ファイル、${s.games} 局、${s.plies} 手：エラー ${s.errors}、警告 ${s.warnings}（${(ms / 1000).toFixed(1)} 秒）`,
    shown: (n, all) => `${all} 局のうち ${n} 局を表示：絞り込んでください`,
    none: '指摘なし：正しい棋譜です。',
    noBoard: 'この指摘には局面がありません（本譜の指し手についてではない）',
    start: '初期局面', ply: (n) => `${n} 手目の後`, before: (n) => `${n} 手目の前`,
    wins: (w, by, ply) => `${w === 'black' ? '先手' : '後手'}の勝ち（${by}、${ply} 手目）`,
    draw: (by, ply) => `引き分け（${by}、${ply} 手目）`,
    converted: (n, l) => `出力 ${n} ファイル。変換先に残せない内容の警告 ${l} 件：`,
    noLossy: 'この変換で失われるものはありません。',
    noGames: '棋譜が見つかりませんでした。',
  },
};

// The file extensions a folder walk keeps (as the command line's walk does).
const RECORD = /\.(kif|kifu|ki2|ki2u|csa|csa1|usi|sfen|jkf|json|usen|zip|tar|tgz|tar\.gz)$/i;

const $ = (s) => document.querySelector(s);
let lang = (navigator.language || '').startsWith('ja') ? 'ja' : 'en';
try { lang = localStorage.getItem('kifu-lang') || lang; } catch (_) { /* file:// may refuse */ }
const t = (k) => TEXT[lang][k];

function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / (1 << 20)).toFixed(1)} MB`;
}

function applyLang() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-i18n]')) {
    el.textContent = t(el.dataset.i18n);
  }
  renderTable();
  if (state.view) renderGame();
}

// What the page knows: the last check's raw JSON Lines (the test compares them with the
// command line's), its rows, and the table's order and filter. A pasted record is added to
// the check before it: `lines` holds the games' lines of both, `before` the summary of the
// check it was added to (the summary shown is the sum).
const state = {
  id: 0, tops: [], raw: '', lines: '', before: null, summary: null, rows: [], codes: new Map(),
  sort: null, view: null, started: 0, busy: false,
};
window.kifu = state;

const worker = new Worker(URL.createObjectURL(new Blob([KIFU_WORKER_SOURCE], { type: 'text/javascript' })));
worker.onmessage = (e) => handle(e.data);
worker.postMessage({ type: 'formats' });

// --- gathering files -------------------------------------------------------------------

async function entryFiles(entry, out) {
  if (entry.isFile) {
    const file = await new Promise((ok, no) => entry.file(ok, no));
    out.push({ path: entry.fullPath.replace(/^\//, ''), file, walked: true });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((ok, no) => reader.readEntries(ok, no));
      if (batch.length === 0) break;
      for (const child of batch) await entryFiles(child, out);
    }
  }
}

async function fromDrop(dt) {
  const out = [];
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  if (entries.length > 0) {
    for (const entry of entries) {
      if (entry.isDirectory) {
        const inner = [];
        await entryFiles(entry, inner);
        // A folder is walked as the command line walks one: by name, record files only.
        inner.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        out.push(...inner.filter((f) => RECORD.test(f.path)));
      } else {
        await entryFiles(entry, out);
      }
    }
  } else {
    for (const file of dt.files) out.push({ path: file.name, file });
  }
  return out;
}

function fromInput(input) {
  const out = [...input.files].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
  if (input.webkitdirectory) {
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out.filter((f) => RECORD.test(f.path));
  }
  return out;
}

// Checks `list`: a new check, or with `append` (a pasted record after a finished check) the
// files added to those of the check before, whose rows stay.
async function start(list, append = false) {
  const files = [];
  for (const f of list) {
    const bytes = f.bytes || await f.file.arrayBuffer();
    files.push({ path: f.path, bytes });
  }
  append = append && !state.busy && state.summary !== null;
  state.id += 1;
  if (append) {
    state.tops = state.tops.concat(files.map((f) => f.path));
    state.before = state.summary;
  } else {
    state.tops = files.map((f) => f.path);
    state.lines = '';
    state.before = null;
    state.rows = [];
    state.codes = new Map();
  }
  state.raw = state.lines;
  state.summary = null;
  state.view = null;
  state.started = performance.now();
  state.busy = true;
  $('#game').hidden = true;
  $('#results').hidden = false;
  $('#convert-box').hidden = true;
  $('#progress').hidden = false;
  $('#progress').value = 0;
  renderTable();
  worker.postMessage({ type: 'check', id: state.id, files, append }, files.map((f) => f.bytes));
}

// Two summaries of `validate --format json` added up: every count, and the counts by code.
function addSummaries(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (typeof v === 'number') out[k] = (a[k] || 0) + v;
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = addSummaries(a[k] || {}, v);
    else if (!(k in out)) out[k] = v;
  }
  return out;
}

// --- messages from the worker ------------------------------------------------------------

let renderPending = false;
function renderSoon() {
  if (renderPending) return;
  renderPending = true;
  setTimeout(() => { renderPending = false; renderTable(); }, 200);
}

function topOf(path) {
  for (let p = path; ; ) {
    if (state.tops.includes(p)) return p;
    const i = p.lastIndexOf('/');
    if (i < 0) return path;
    p = p.slice(0, i);
  }
}

function addLines(text) {
  if (!text) return;
  state.raw += text;
  state.lines += text;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const g = JSON.parse(line);
    const errors = g.diagnostics.filter((d) => d.severity === 'error').length;
    const row = {
      g, top: topOf(g.path), path: g.path, game: g.game, errors,
      warnings: g.diagnostics.length - errors,
      players: [g.black, g.white].filter(Boolean).join(' – '),
      recorded: g.result.recorded || '', verdict: verdict(g.result.by_board), plies: g.plies,
      codes: new Set(g.diagnostics.map((d) => d.code)),
    };
    state.rows.push(row);
    for (const c of row.codes) state.codes.set(c, (state.codes.get(c) || 0) + 1);
  }
}

function verdict(v) {
  if (!v) return '';
  return v.winner === 'black' || v.winner === 'white' ? t('wins')(v.winner, v.by, v.ply) : t('draw')(v.by, v.ply);
}

function handle(m) {
  if (m.id !== undefined && m.id !== state.id && m.type !== 'progress') return;
  switch (m.type) {
    case 'formats': {
      const sel = $('#target');
      for (const f of m.formats) sel.add(new Option(f, f));
      sel.value = 'kifu';
      break;
    }
    case 'progress': {
      const p = $('#progress');
      p.hidden = false;
      p.max = Math.max(1, m.total);
      p.value = m.done;
      const k = m.phase === 'read' ? 'reading' : m.phase === 'check' ? 'checking' : 'converting';
      $('#status').textContent = t(k)(m.done, m.total);
      break;
    }
    case 'lines':
      addLines(m.lines);
      renderSoon();
      break;
    case 'done': {
      const summary = JSON.parse(m.summary).summary;
      state.summary = state.before ? addSummaries(state.before, summary) : summary;
      state.raw += state.before ? JSON.stringify({ summary: state.summary }) + '\n' : m.summary;
      state.elapsed = performance.now() - state.started;
      state.busy = false;
      $('#progress').hidden = true;
      $('#status').textContent = state.rows.length ? t('summary')(state.summary, state.elapsed) : t('noGames');
      renderTable();
      document.body.dataset.done = String(state.id);
      break;
    }
    case 'game':
      if (state.view && state.view.key === m.key) {
        state.view.data = m.view;
        const first = m.view && m.view.diagnostics.findIndex((d) => d.ply);
        if (first >= 0) showDiagnostic(first); else setPly(0);
        document.body.dataset.game = m.key;
      }
      break;
    case 'converted': showConverted(m); break;
    case 'download': {
      const url = URL.createObjectURL(new Blob([m.bytes]));
      const a = document.createElement('a');
      a.href = url;
      a.download = m.name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      break;
    }
    case 'error':
      $('#status').textContent = m.message;
      break;
    default:
  }
}

// --- the table ------------------------------------------------------------------------

const LIMIT = 2000;

function visibleRows() {
  const code = $('#filter-code').value;
  const text = $('#filter-text').value.trim().toLowerCase();
  let rows = state.rows.filter((r) => (!code || r.codes.has(code))
    && (!text || r.path.toLowerCase().includes(text) || r.players.toLowerCase().includes(text)));
  if (state.sort) {
    const { key, dir } = state.sort;
    rows = rows.slice().sort((a, b) => {
      const x = a[key] ?? -1;
      const y = b[key] ?? -1;
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
  }
  return rows;
}

function cell(tr, text, cls) {
  const td = tr.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function renderTable() {
  const sel = $('#filter-code');
  const keep = sel.value;
  while (sel.options.length > 1) sel.remove(1);
  for (const [c, n] of [...state.codes].sort()) sel.add(new Option(`${c} (${n})`, c));
  sel.value = keep;
  const rows = visibleRows();
  const body = document.createElement('tbody');
  for (const r of rows.slice(0, LIMIT)) {
    const tr = body.insertRow();
    tr.className = (r.errors ? 'has-error ' : '') + (r.warnings ? 'has-warning' : '');
    cell(tr, r.path);
    cell(tr, r.game === null ? '–' : String(r.game), 'num');
    cell(tr, r.players);
    cell(tr, r.recorded);
    cell(tr, verdict(r.g.result.by_board));
    cell(tr, String(r.plies), 'num');
    const e = cell(tr, String(r.errors), 'num errors');
    cell(tr, String(r.warnings), 'num warnings');
    e.title = [...r.codes].join(', ');
    tr.onclick = () => openGame(r);
  }
  if (rows.length > LIMIT) {
    const tr = body.insertRow();
    cell(tr, t('shown')(LIMIT, rows.length)).colSpan = 8;
  }
  $('#games tbody').replaceWith(body);
  for (const th of document.querySelectorAll('#games th')) {
    th.classList.toggle('asc', !!state.sort && state.sort.key === th.dataset.key && state.sort.dir > 0);
    th.classList.toggle('desc', !!state.sort && state.sort.key === th.dataset.key && state.sort.dir < 0);
  }
}

for (const th of document.querySelectorAll('#games th')) {
  th.onclick = () => {
    const key = th.dataset.key;
    state.sort = state.sort && state.sort.key === key ? { key, dir: -state.sort.dir } : { key, dir: 1 };
    renderTable();
  };
}
$('#filter-code').onchange = renderTable;
$('#filter-text').oninput = renderTable;

// --- one game ---------------------------------------------------------------------------

function openGame(r) {
  if (r.game === null) return;
  const key = `${r.path}#${r.game}`;
  state.view = { key, row: r, data: null, ply: 0, diag: -1 };
  $('#results').hidden = true;
  $('#game').hidden = false;
  $('#game-title').textContent = `${r.path} #${r.game}  ${r.players}`;
  $('#board').innerHTML = '';
  worker.postMessage({ type: 'game', key, top: r.top, entry: r.path, game: r.game });
}

function closeGame() {
  state.view = null;
  $('#game').hidden = true;
  $('#results').hidden = false;
  delete document.body.dataset.game;
}

function renderGame() {
  const v = state.view;
  if (!v || !v.data) return;
  const d = v.data;
  const list = $('#diagnostics');
  list.innerHTML = '';
  if (d.diagnostics.length === 0) {
    const li = document.createElement('li');
    li.textContent = t('none');
    list.append(li);
  }
  d.diagnostics.forEach((x, i) => {
    const li = document.createElement('li');
    li.className = x.severity + (i === v.diag ? ' current' : '');
    const code = document.createElement('span');
    code.className = 'code';
    code.textContent = x.code;
    const where = [x.line && `${x.line}:${x.column || ''}`, x.ply && `ply ${x.ply}`, x.move].filter(Boolean).join(' ');
    li.append(code, ` ${x.message}${where ? ` (${where})` : ''}`);
    li.onclick = () => showDiagnostic(i);
    list.append(li);
  });
  const moves = $('#moves');
  moves.innerHTML = '';
  const fouls = new Set(d.diagnostics.filter((x) => x.severity === 'error' && x.ply).map((x) => x.ply));
  ['—', ...d.moves].forEach((m, i) => {
    const li = document.createElement('li');
    li.textContent = i === 0 ? t('start') : m;
    li.className = (i === v.ply ? 'current ' : '') + (fouls.has(i) ? 'foul' : '');
    li.onclick = () => setPly(i);
    moves.append(li);
  });
  const cur = moves.querySelector('.current');
  if (cur) cur.scrollIntoView({ block: 'nearest' });
  const marked = v.diag >= 0 ? d.marked[v.diag] : null;
  if (marked) {
    $('#board').innerHTML = marked;
    $('#board-caption').textContent = `${t('before')(v.ply + 1)}: ${d.moves[v.ply] || ''}`;
  } else {
    $('#board').innerHTML = d.boards[Math.min(v.ply, d.boards.length - 1)] || '';
    $('#board-caption').textContent = v.diag >= 0 ? t('noBoard') : (v.ply === 0 ? t('start') : `${t('ply')(v.ply)}: ${d.moves[v.ply - 1]}`);
  }
}

function showDiagnostic(i) {
  const v = state.view;
  const x = v.data.diagnostics[i];
  v.diag = i;
  if (x.ply) v.ply = Math.min(x.ply - 1, v.data.boards.length - 1);
  renderGame();
}

function setPly(n) {
  const v = state.view;
  if (!v || !v.data) return;
  v.diag = -1;
  v.ply = Math.max(0, Math.min(n, v.data.boards.length - 1));
  renderGame();
}

$('#back').onclick = closeGame;
document.addEventListener('keydown', (e) => {
  if (!state.view || e.target.matches('input, textarea, select')) return;
  const v = state.view;
  if (e.key === 'ArrowRight' || e.key === 'ArrowDown') setPly(v.ply + 1);
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') setPly(v.ply - 1);
  else if (e.key === 'Home') setPly(0);
  else if (e.key === 'End') setPly(Infinity);
  else if (e.key === 'Escape') closeGame();
  else return;
  e.preventDefault();
});

// --- conversion -------------------------------------------------------------------------

$('#convert').onclick = () => {
  $('#convert-box').hidden = false;
  $('#convert-status').textContent = '…';
  $('#lossy').innerHTML = '';
  $('#download').disabled = true;
  worker.postMessage({ type: 'convert', id: state.id, target: $('#target').value });
};

function showConverted(m) {
  $('#progress').hidden = true;
  // The progress of the conversion took the status line: give it back its summary.
  $('#status').textContent = state.rows.length ? t('summary')(state.summary, state.elapsed) : t('noGames');
  const lossy = [];
  for (const line of m.lines.split('\n')) {
    if (!line) continue;
    const g = JSON.parse(line);
    for (const d of g.diagnostics) {
      if (d.code === 'lossy') lossy.push(`${g.path}${g.game === null ? '' : `#${g.game}`}: ${d.message}`);
    }
  }
  $('#convert-status').textContent = lossy.length ? t('converted')(m.names.length, lossy.length) : t('noLossy');
  const ul = $('#lossy');
  for (const l of lossy.slice(0, 500)) {
    const li = document.createElement('li');
    li.textContent = l;
    ul.append(li);
  }
  $('#download').disabled = m.names.length === 0;
  state.converted = { names: m.names, lossy: lossy.length };
  document.body.dataset.converted = String(m.names.length);
}

$('#download').onclick = () => worker.postMessage({ type: 'download', target: $('#target').value });

// --- input ------------------------------------------------------------------------------

const drop = $('#drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', async (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  start(await fromDrop(e.dataTransfer));
});
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => e.preventDefault());
$('#pick-files').onchange = (e) => start(fromInput(e.target));
$('#pick-folder').onchange = (e) => start(fromInput(e.target));
$('#paste-check').onclick = () => {
  const bytes = new TextEncoder().encode($('#paste').value).buffer;
  // No extension: the format is told by the content, as for standard input. Added to the
  // table of the check before (each paste its own name: pasted, pasted-2, ...).
  let name = 'pasted';
  for (let n = 2; state.tops.includes(name); n++) name = `pasted-${n}`;
  start([{ path: name, bytes }], true);
};
for (const b of document.querySelectorAll('[data-lang]')) {
  b.onclick = () => {
    lang = b.dataset.lang;
    try { localStorage.setItem('kifu-lang', lang); } catch (_) { /* file:// may refuse */ }
    applyLang();
  };
}
applyLang();
