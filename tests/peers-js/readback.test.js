// What tsshogi (npm, MIT; the library of ShogiHome) reads of what kifu writes. Every game of
// fixtures/ that kifu reads without an error (`kifu convert --clean`) is written to KIF and KI2
// (Shift_JIS and UTF-8), CSA V2.2 and V3.0, JKF and USEN, and tsshogi reads each output back:
//
// * its start position (the SFEN without its move number) and its main line must be kifu's,
//   that is, those of the plain USI line kifu writes for the same game;
// * where tsshogi reads an ending that decides the game (a resignation, a mate, a foul, a
//   repetition draw ...), the winner it implies must be the one kifu reports for the game
//   (`result.winner` of `--format json`). An ending tsshogi reads as no decision (an
//   interruption, USEN's `p` for every ending it has no letter for, a KIF whose only word on
//   the ending is its `まで…の勝ち` line) is not compared.
//
// tsshogi before 2.3 reads CSA's and JKF's `+ILLEGAL_ACTION` and `-ILLEGAL_ACTION` the wrong
// way round (fixed upstream in May 2026, "Fix ILLEGAL_ACTION bug"; npm has 2.2.0 as its newest
// here): with such a version, the winner it reads for those games must be the other side, and
// the count of them is printed.
//
// Needs the kifu binary (KIFU_BIN, default target/debug/kifu) and `npm ci` here; says it skips
// when either is missing.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '../..');
const kifu = process.env.KIFU_BIN || path.join(root, 'target/debug/kifu');
let tsshogi = null;
try {
  tsshogi = require('tsshogi');
} catch {
  // Reported as a skip below.
}
const missing = [];
if (!fs.existsSync(kifu)) missing.push('the kifu binary (KIFU_BIN)');
if (!tsshogi) missing.push('tsshogi (npm ci in tests/peers-js)');
const skip = missing.length ? `skipped: no ${missing.join(', ')}` : false;
if (skip) console.log(`readback.test.js ${skip}`);

// The installed version (its package.json is not among the package's exports).
const version = tsshogi
  ? JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules/tsshogi/package.json'), 'utf8')).version
  : '0.0.0';
const [major, minor] = version.split('.').map(Number);
const illegalActionReversed = major < 2 || (major === 2 && minor < 3);

const STARTPOS = 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -';

// Each target: kifu's name, extra options, tsshogi's reader, the text's encoding, and how a
// file of several games is cut into games (null: one game a file).
const TARGETS = [
  { to: 'kif', encoding: 'shift_jis', read: (t) => tsshogi.importKIF(t) },
  { to: 'kifu', encoding: 'utf-8', read: (t) => tsshogi.importKIF(t) },
  { to: 'ki2', encoding: 'shift_jis', read: (t) => tsshogi.importKI2(t) },
  { to: 'ki2u', encoding: 'utf-8', read: (t) => tsshogi.importKI2(t) },
  { to: 'csa', encoding: 'utf-8', read: (t) => tsshogi.importCSA(t), cut: (t) => t.split(/^\/\r?\n/m) },
  {
    to: 'csa',
    extra: ['--csa-version', '3.0'],
    encoding: 'utf-8',
    read: (t) => tsshogi.importCSA(t),
    cut: (t) => t.split(/^\/\r?\n/m),
  },
  { to: 'jkf', encoding: 'utf-8', read: (t) => tsshogi.importJKFString(t) },
  {
    to: 'usen',
    encoding: 'utf-8',
    read: (t) => tsshogi.Record.newByUSEN(t),
    cut: (t) => t.split(/\r?\n/),
  },
];

// `kifu convert --clean` of fixtures/ to `to` in `dir`: the JSON line of each game written
// (path, game, result, output), in input order.
function convert(to, extra, dir) {
  const args = ['convert', '--clean', '--no-progress', '--format', 'json', '--to', to, '-o', dir,
    ...extra, path.join(root, 'fixtures')];
  const run = spawnSync(kifu, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.ok(run.status === 0 || run.status === 1, `kifu ${args.join(' ')}: ${run.stderr}`);
  const games = (run.stdout + run.stderr).split('\n')
    .filter((l) => l.startsWith('{"path"'))
    .map((l) => JSON.parse(l))
    .filter((g) => g.output);
  assert.ok(games.length > 0, `kifu convert --to ${to} wrote no game`);
  return games;
}

// Each game's text, keyed by `path#game`: an output file cut into its games, which follow the
// order of the source's games.
function texts(games, target) {
  const byOutput = new Map();
  for (const g of games) {
    if (!byOutput.has(g.output)) byOutput.set(g.output, []);
    byOutput.get(g.output).push(g);
  }
  const out = new Map();
  for (const [file, list] of byOutput) {
    const text = new TextDecoder(target.encoding).decode(fs.readFileSync(file));
    const parts = target.cut ? target.cut(text).filter((p) => p.trim()) : [text];
    assert.strictEqual(parts.length, list.length, `${file}: ${parts.length} games, kifu wrote ${list.length}`);
    list.sort((a, b) => a.game - b.game);
    list.forEach((g, i) => out.set(`${g.path}#${g.game}`, { game: g, text: parts[i].trim() }));
  }
  return out;
}

// A USI `position` line as the start (SFEN without the move number) and the moves.
function usiGame(line) {
  const m = line.match(/^position (startpos|sfen (\S+ \S+ \S+) \d+)(?: moves (.*))?$/);
  assert.ok(m, `not a position line: ${line}`);
  return { start: m[1] === 'startpos' ? STARTPOS : m[2], moves: m[3] ? m[3].trim().split(/\s+/) : [] };
}

// Whether a CSA or JKF game's main line ends with `+ILLEGAL_ACTION` or `-ILLEGAL_ACTION`.
function endsInIllegalAction(to, text) {
  if (to === 'csa') {
    const specials = text.split(/\r?\n/).filter((l) => l.startsWith('%'));
    return specials.length > 0 && /^%[+-]ILLEGAL_ACTION\b/.test(specials[specials.length - 1]);
  }
  if (to === 'jkf') {
    const specials = JSON.parse(text).moves.filter((m) => m.special);
    return specials.length > 0 && /^[+-]ILLEGAL_ACTION$/.test(specials[specials.length - 1].special);
  }
  return false;
}

const LOSES = new Set(['resign', 'timeout', 'mate', 'foulLose', 'loseByDefault']);
const WINS = new Set(['foulWin', 'enteringOfKing', 'winByDefault']);
const DRAWS = new Set(['repetitionDraw', 'impass', 'draw', 'maxMoves']);

// What tsshogi read: the start, the main line in USI, and the winner its ending implies
// ('black', 'white', 'draw', or null for an ending that decides nothing or none).
function ofRecord(record) {
  record.resetAllBranchSelection();
  const start = record.initialPosition.sfen.split(' ').slice(0, 3).join(' ');
  const moves = [];
  let special = null;
  for (const node of record.moves) {
    const mv = node.move;
    if (typeof mv.usi === 'string') moves.push(mv.usi);
    else if (mv.type !== 'start') special = mv.type;
  }
  record.goto(moves.length);
  const toMove = record.position.color;
  const other = toMove === 'black' ? 'white' : 'black';
  let winner = null;
  if (LOSES.has(special)) winner = other;
  else if (WINS.has(special)) winner = toMove;
  else if (DRAWS.has(special)) winner = 'draw';
  return { start, moves, special, winner };
}

test('tsshogi reads every target kifu writes as kifu reads the source', { skip }, () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kifu-tsshogi-'));
  try {
    const usi = convert('usi', [], path.join(work, 'usi'));
    const want = new Map();
    for (const [key, { text }] of texts(usi, { encoding: 'utf-8', cut: (t) => t.split('\n') })) {
      want.set(key, usiGame(text));
    }
    const lines = [];
    for (const target of TARGETS) {
      const name = [target.to, ...(target.extra || [])].join(' ');
      const dir = path.join(work, name.replace(/[ .]/g, '_'));
      const games = texts(convert(target.to, target.extra || [], dir), target);
      assert.strictEqual(games.size, want.size, `${name}: ${games.size} games written, ${want.size} in USI`);
      let winners = 0;
      let reversed = 0;
      const wrong = [];
      for (const [key, { game, text }] of games) {
        const expected = want.get(key);
        assert.ok(expected, `${name}: ${key} has no USI line`);
        const record = target.read(text);
        if (record instanceof Error) {
          wrong.push(`${key}: refused: ${record.message}`);
          continue;
        }
        const got = ofRecord(record);
        if (got.start !== expected.start) wrong.push(`${key}: start ${got.start}, kifu ${expected.start}`);
        if (got.moves.join(' ') !== expected.moves.join(' ')) {
          wrong.push(`${key}: ${got.moves.length} moves read, kifu ${expected.moves.length}`);
        }
        if (got.winner === null) continue;
        winners += 1;
        let kifuWinner = game.result ? game.result.winner : null;
        if (illegalActionReversed && endsInIllegalAction(target.to, text)) {
          // tsshogi's known reversal: it must give the game to the other side.
          reversed += 1;
          kifuWinner = { black: 'white', white: 'black' }[kifuWinner] || kifuWinner;
        }
        if (got.winner !== kifuWinner) {
          wrong.push(`${key}: tsshogi reads ${got.special}, a ${got.winner} result; kifu's winner is ${kifuWinner}`);
        }
      }
      assert.deepStrictEqual(wrong, [], `${name}: what tsshogi ${version} reads differently`);
      // Not a comparison of nothing: the fixtures' games end in many ways.
      assert.ok(winners >= 20, `${name}: only ${winners} decided endings compared`);
      lines.push(`${name}: ${games.size} games read as kifu reads them, ${winners} winners compared`
        + (reversed ? ` (${reversed} of them ±ILLEGAL_ACTION, which tsshogi ${version} reads the wrong way round)` : ''));
    }
    console.log(lines.join('\n'));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
