// How long the page takes to check an archive in headless Chromium: node bench.js FILE...
// (e.g. a zip of 10,000 games made by `cargo run --release --example gencorpus`; see
// docs/benchmarks.md). Times from choosing the files to the summary; three runs, each in a
// fresh browser.
'use strict';
const path = require('node:path');
const { chromium } = require('playwright-core');

(async () => {
  const files = process.argv.slice(2);
  for (let run = 1; run <= 3; run++) {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'],
    });
    const page = await browser.newPage();
    await page.goto('file://' + path.resolve(__dirname, '../dist/index.html'));
    const t0 = Date.now();
    await page.setInputFiles('#pick-files', files);
    await page.waitForSelector('body[data-done]', { timeout: 600000 });
    const ms = Date.now() - t0;
    const s = await page.evaluate(() => window.kifu.summary);
    console.log(`run ${run}: ${s.files} files, ${s.games} games, ${s.plies} plies in ${(ms / 1000).toFixed(2)} s`);
    await browser.close();
  }
})();
