// The Web Worker: every record is read, checked, drawn and converted here, by kifu compiled to
// WebAssembly, so the page stays responsive. The build (web/build.sh) puts wasm-bindgen's glue
// (`wasm_bindgen`) and the module's bytes (`KIFU_WASM_BASE64`) before this file, and the page
// starts the whole as a worker from a Blob: nothing is fetched, so it works from a file on disk.
/* global wasm_bindgen, KIFU_WASM_BASE64 */
'use strict';

const ready = (async () => {
  const bin = atob(KIFU_WASM_BASE64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  await wasm_bindgen({ module_or_path: bytes });
})();

// The files of the last check, by the path shown: what a game view or a conversion reads.
let files = [];
// Whether a check is running (a newer one stops it).
let run = 0;

// Units validated between two messages to the page.
const STEP = 64;

// Checks the files of `list`; with `append`, they are added to those of the check before
// (whose games the page keeps), and only they are checked.
async function check(list, id, append) {
  await ready;
  const added = list.map((f) => ({ path: f.path, bytes: new Uint8Array(f.bytes) }));
  files = append ? files.concat(added) : added;
  list = added;
  const v = new wasm_bindgen.Validator();
  const total = list.reduce((n, f) => n + f.bytes.length, 0);
  let read = 0;
  let last = 0;
  for (const f of list) {
    v.load(f.path, f.bytes);
    read += f.bytes.length;
    // Loading a large archive takes a while: tell how far the reading got.
    postMessage({ type: 'progress', id, phase: 'read', done: read, total });
    // Validate as we go, so that the first rows come early.
    while (v.pending() > STEP * 4) {
      postMessage({ type: 'lines', id, lines: v.step(STEP) });
      if (id !== run) return;
    }
  }
  const units = v.loaded();
  while (v.pending() > 0) {
    const lines = v.step(STEP);
    const now = Date.now();
    postMessage({ type: 'lines', id, lines });
    if (now - last > 50) {
      last = now;
      postMessage({ type: 'progress', id, phase: 'check', done: units - v.pending(), total: units });
    }
    if (id !== run) return;
  }
  postMessage({ type: 'done', id, summary: v.finish() });
}

function findFile(top) {
  return files.find((f) => f.path === top);
}

let converter = null;

self.onmessage = async (e) => {
  const m = e.data;
  try {
    if (m.type === 'check') {
      run = m.id;
      await check(m.files, m.id, !!m.append);
    } else if (m.type === 'formats') {
      await ready;
      postMessage({ type: 'formats', formats: wasm_bindgen.formats() });
    } else if (m.type === 'game') {
      await ready;
      const f = findFile(m.top);
      const view = f ? wasm_bindgen.game(f.path, f.bytes, m.entry, m.game) : 'null';
      postMessage({ type: 'game', key: m.key, view: JSON.parse(view) });
    } else if (m.type === 'convert') {
      await ready;
      converter = new wasm_bindgen.Converter(m.target);
      let lines = '';
      let done = 0;
      for (const f of files) {
        lines += converter.file(f.path, f.bytes);
        done += 1;
        postMessage({ type: 'progress', id: m.id, phase: 'convert', done, total: files.length });
      }
      postMessage({ type: 'converted', lines, names: converter.names() });
    } else if (m.type === 'download') {
      const names = converter.names();
      let bytes;
      let name;
      if (names.length === 1) {
        bytes = converter.output(0);
        name = names[0].split('/').pop();
      } else {
        bytes = converter.zip();
        name = 'kifu-' + m.target + '.zip';
      }
      postMessage({ type: 'download', name, bytes }, [bytes.buffer]);
    }
  } catch (err) {
    postMessage({ type: 'error', message: String(err && err.message ? err.message : err) });
  }
};
