// The page of web/ (built into web/dist by web/build.sh) in headless Chromium: fixture files and
// a zip are dropped onto it, and what it shows is checked against the command line on the
// same files: the JSON Lines of `kifu validate --format json` byte for byte, the table's games
// and codes, the board of a foul against `kifu show --format svg`, keyboard stepping,
// conversion and the Japanese labels. Opened from a file:// URL with every other request
// refused, so it also shows that the page works from disk with no network.
//
// Needs Debian's chromium (CHROMIUM, default /usr/bin/chromium), the built page and the CLI
// (KIFU_BIN, default target/debug/kifu); says it skips when one is missing. With
// KIFU_WEB_SCREENSHOTS=1 it writes docs/web-table.png and docs/web-game.png.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '../..');
const dist = path.join(root, 'web/dist/index.html');
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const kifu = process.env.KIFU_BIN || path.join(root, 'target/debug/kifu');

const missing = [
  [chromium, 'chromium'], [dist, 'the built page (web/build.sh)'], [kifu, 'the kifu binary (KIFU_BIN)'],
].filter(([p]) => !fs.existsSync(p)).map(([, what]) => what);
const skip = missing.length ? `skipped: no ${missing.join(', ')}` : false;
if (skip) console.log(`page.test.js ${skip}`);

// The records dropped one by one, and those dropped as one zip (in a folder inside it).
const LOOSE = [
  'fixtures/validate/fouls/nifu.kifu',
  'fixtures/validate/fouls/dead-piece.csa',
  'fixtures/validate/fouls/move-after-end.csa',
  'fixtures/validate/fouls/uchifuzume.csa',
  'fixtures/validate/ok/games.usi',
  'fixtures/validate/ok/resign.kif',
  'fixtures/validate/ok/interrupted.ki2u',
  'fixtures/validate/endings/perpetual-check-foul.kifu',
];
const ZIPPED = [
  'fixtures/validate/ok/mate.csa',
  'fixtures/validate/ok/sennichite.kifu',
  'fixtures/validate/fouls/self-check.csa',
  'fixtures/validate/clock/time-up.kifu',
];

function cli(args, cwd) {
  try {
    return execFileSync(kifu, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  } catch (e) {
    // validate exits 1 when it found an error: its output is still the report.
    if (e.status === 1 && typeof e.stdout === 'string') return e.stdout;
    throw e;
  }
}

function workdir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kifu-web-'));
  for (const f of LOOSE) fs.copyFileSync(path.join(root, f), path.join(dir, path.basename(f)));
  const inner = path.join(dir, 'zipped', 'club');
  fs.mkdirSync(inner, { recursive: true });
  for (const f of ZIPPED) fs.copyFileSync(path.join(root, f), path.join(inner, path.basename(f)));
  execFileSync('python3', ['-m', 'zipfile', '-c', path.join(dir, 'club.zip'), 'club'], {
    cwd: path.join(dir, 'zipped'),
  });
  return dir;
}

// Drops `names` (files of `dir`) onto the page's drop zone, as a user dragging them would.
async function drop(page, dir, names) {
  const files = names.map((n) => ({ name: n, b64: fs.readFileSync(path.join(dir, n)).toString('base64') }));
  const dt = await page.evaluateHandle((list) => {
    const d = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      d.items.add(new File([bytes], f.name));
    }
    return d;
  }, files);
  await page.dispatchEvent('#drop', 'drop', { dataTransfer: dt });
}

async function openPage() {
  const { chromium: launcher } = require('playwright-core');
  const browser = await launcher.launch({ executablePath: chromium, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const requests = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + dist);
  await page.click('[data-lang="en"]');
  return { browser, page, requests, errors };
}

test('the page checks dropped files and a zip as kifu validate does', { skip, timeout: 180000 }, async () => {
  const dir = workdir();
  const names = [...LOOSE.map((f) => path.basename(f)), 'club.zip'];
  const expected = cli(['validate', '--format', 'json', ...names], dir);
  const { browser, page, requests, errors } = await openPage();
  try {
    await drop(page, dir, names);
    await page.waitForSelector('body[data-done]', { timeout: 60000 });
    // The same JSON Lines, byte for byte, summary included.
    const raw = await page.evaluate(() => window.kifu.raw);
    assert.strictEqual(raw, expected);

    // The table: a row per game line, in the order of the report.
    const games = expected.trim().split('\n').map((l) => JSON.parse(l)).filter((g) => !g.summary);
    const cells = await page.$$eval('#games tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.strictEqual(cells.length, games.length);
    games.forEach((g, i) => {
      assert.strictEqual(cells[i][0], g.path);
      assert.strictEqual(cells[i][5], String(g.plies));
      const errs = g.diagnostics.filter((d) => d.severity === 'error').length;
      assert.strictEqual(cells[i][6], String(errs));
      assert.strictEqual(cells[i][7], String(g.diagnostics.length - errs));
    });
    assert.ok(cells.some((c) => c[0] === 'club.zip/club/self-check.csa'), 'the zip entry is listed');

    // Filtering by code keeps the games that have it.
    for (const code of ['nifu', 'self-check', 'uchifuzume']) {
      const want = games.filter((g) => g.diagnostics.some((d) => d.code === code)).map((g) => g.path);
      assert.ok(want.length > 0, code);
      await page.selectOption('#filter-code', code);
      const shown = await page.$$eval('#games tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
      assert.deepStrictEqual(shown, want);
    }
    await page.selectOption('#filter-code', '');

    // Sorting by errors, most first.
    await page.click('th[data-key="errors"]');
    await page.click('th[data-key="errors"]');
    const errs = await page.$$eval('#games tbody tr', (trs) => trs.map((tr) => Number(tr.cells[6].textContent)));
    assert.deepStrictEqual(errs, [...errs].sort((a, b) => b - a));
    if (process.env.KIFU_WEB_SCREENSHOTS) {
      await page.screenshot({ path: path.join(root, 'docs/web-table.png'), fullPage: true });
    }

    // A game with a foul: its diagnostic, the board before the foul as `kifu show` draws it.
    await page.click('#games tbody tr:has-text("nifu.kifu")');
    await page.waitForSelector('body[data-game]');
    const view = await page.evaluate(() => window.kifu.view.data);
    const nifu = view.diagnostics.findIndex((d) => d.code === 'nifu');
    assert.ok(nifu >= 0);
    const svg = cli(['show', 'nifu.kifu', '--at-diagnostic', '--format', 'svg'], dir);
    assert.strictEqual(view.marked[nifu], svg);
    assert.strictEqual(await page.$eval('#diagnostics li.current .code', (e) => e.textContent), 'nifu');
    assert.ok(await page.$('#board svg'), 'the board is drawn');
    const last = cli(['show', 'nifu.kifu', '--ply', 'last', '--format', 'svg'], dir);
    assert.strictEqual(view.boards[view.boards.length - 1], last);
    if (process.env.KIFU_WEB_SCREENSHOTS) {
      await page.screenshot({ path: path.join(root, 'docs/web-game.png'), fullPage: true });
    }
    // The keyboard steps through the moves: the board shown is the one after each ply.
    const ply = (await page.evaluate(() => window.kifu.view.ply));
    await page.keyboard.press('ArrowRight');
    assert.strictEqual(await page.evaluate(() => window.kifu.view.ply), ply + 1);
    const at = cli(['show', 'nifu.kifu', '--ply', String(ply + 1), '--format', 'svg'], dir);
    assert.strictEqual(await page.evaluate(() => window.kifu.view.data.boards[window.kifu.view.ply]), at);
    await page.keyboard.press('Home');
    assert.strictEqual(await page.evaluate(() => window.kifu.view.ply), 0);
    await page.keyboard.press('Escape');
    assert.ok(await page.isVisible('#games'));

    // Japanese labels.
    await page.click('[data-lang="ja"]');
    assert.strictEqual(await page.textContent('th[data-key="plies"]'), '手数');
    await page.click('[data-lang="en"]');

    // Conversion to CSA: the lossy warnings before download, then a zip of the outputs.
    await page.selectOption('#target', 'csa');
    await page.click('#convert');
    await page.waitForSelector('body[data-converted]');
    const converted = await page.evaluate(() => window.kifu.converted);
    assert.ok(converted.names.length >= names.length, 'an output per input at least');
    // The status line is the check's summary again, not the conversion's progress.
    const status = await page.textContent('#status');
    assert.match(status, /files, .* games, .* plies/, status);
    const lossy = await page.$$eval('#lossy li', (lis) => lis.length);
    assert.strictEqual(lossy, converted.lossy);
    assert.ok(lossy > 0, 'CSA keeps no comments or variations: some warning is shown');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    assert.strictEqual(download.suggestedFilename(), 'kifu-csa.zip');
    const zip = fs.readFileSync(await download.path());
    assert.strictEqual(zip.subarray(0, 2).toString(), 'PK');

    assert.deepStrictEqual(requests, [], 'no network request');
    assert.deepStrictEqual(errors, [], 'no error in the page');
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a pasted record is added to the table of the check before', { skip, timeout: 120000 }, async () => {
  const dir = workdir();
  const dropped = ['nifu.kifu', 'games.usi'];
  const pastes = ['startpos moves 7g7f 3c3d 7f7e 7e7d\n', 'startpos moves 2g2f 8c8d resign\n'];
  fs.writeFileSync(path.join(dir, 'pasted'), pastes[0]);
  fs.writeFileSync(path.join(dir, 'pasted-2'), pastes[1]);
  const { browser, page, errors } = await openPage();
  const done = async (after) => {
    await page.waitForFunction((n) => Number(document.body.dataset.done || 0) > n, after, { timeout: 60000 });
    return page.evaluate(() => Number(document.body.dataset.done));
  };
  // The report's game lines byte for byte, and its summary as an object (the page adds the
  // counts up; the command line orders the codes).
  const same = (raw, expected) => {
    const split = (t) => {
      const lines = t.trim().split('\n');
      return [lines.slice(0, -1).join('\n'), JSON.parse(lines[lines.length - 1])];
    };
    const [gotLines, gotSummary] = split(raw);
    const [wantLines, wantSummary] = split(expected);
    assert.strictEqual(gotLines, wantLines);
    assert.deepStrictEqual(gotSummary, wantSummary);
  };
  try {
    await drop(page, dir, dropped);
    let id = await done(0);
    await page.click('#paste-box summary');
    for (let i = 0; i < pastes.length; i++) {
      await page.fill('#paste', pastes[i]);
      await page.click('#paste-check');
      id = await done(id);
      const names = [...dropped, 'pasted', 'pasted-2'].slice(0, dropped.length + i + 1);
      same(await page.evaluate(() => window.kifu.raw), cli(['validate', '--format', 'json', ...names], dir));
      const rows = await page.$$eval('#games tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
      assert.ok(rows.includes('nifu.kifu') && rows.includes(names[names.length - 1]), rows.join(' '));
    }
    assert.match(await page.textContent('#status'), /4 files/);
    // The first paste's game still opens (the worker kept its file).
    await page.$$eval('#games tbody tr', (trs) => trs.find((tr) => tr.cells[0].textContent === 'pasted').click());
    await page.waitForSelector('body[data-game]');
    // Files dropped again start a new table.
    await drop(page, dir, ['games.usi']);
    await done(id);
    same(await page.evaluate(() => window.kifu.raw), cli(['validate', '--format', 'json', 'games.usi'], dir));
    assert.deepStrictEqual(errors, []);
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a pasted record is checked by its content', { skip, timeout: 60000 }, async () => {
  const { browser, page, errors } = await openPage();
  try {
    await page.click('#paste-box summary');
    await page.fill('#paste', 'startpos moves 7g7f 3c3d 7f7e 7e7d\n');
    await page.click('#paste-check');
    await page.waitForSelector('body[data-done]');
    const raw = await page.evaluate(() => window.kifu.raw);
    const first = JSON.parse(raw.split('\n')[0]);
    assert.strictEqual(first.path, 'pasted');
    assert.strictEqual(first.format, 'usi');
    assert.ok(first.diagnostics.some((d) => d.severity === 'error'), 'the fourth move is illegal');
    assert.deepStrictEqual(errors, []);
  } finally {
    await browser.close();
  }
});
