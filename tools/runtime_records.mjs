// The records the WebAssembly module embeds: data/ as it is, minus the provenance text the core
// never reads (each GPU's "sources", a model's "config_note" and its published figure's "text"
// and "source"), written compactly. The page downloads the module, so those ~190 KB of prose
// stay in data/ (where every constant says where it came from) and out of the first visit. The
// native build embeds data/ unchanged (its tests check the sources are there).
//
//   node tools/runtime_records.mjs OUT_DIR FILE...   (writes OUT_DIR/<basename> per FILE)
//
// Numbers keep their text exactly (a record may hold an integer no double holds), strings are
// re-escaped as JSON.stringify escapes them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const [outDir, ...files] = process.argv.slice(2);
if (!outDir || files.length === 0) {
  console.error('usage: node tools/runtime_records.mjs OUT_DIR FILE...');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

// A JSON parser that keeps every number's text: {raw} in place of the number.
function parse(text, file) {
  let i = 0;
  const fail = (what) => {
    throw new Error(`${file}: ${what} at offset ${i}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = {};
      ws();
      if (text[i] === '}') return (i++, o);
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = string();
        ws();
        if (text[i++] !== ':') fail('expected ":"');
        o[k] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return (i++, o);
        else fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') return (i++, a);
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return (i++, a);
        else fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (!m) fail('expected a value');
    i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : { raw: m[0] };
  };
  const string = () => {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i));
    if (!m) fail('unterminated string');
    i += m[0].length;
    return JSON.parse(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) fail('text after the value');
  return v;
}

function write(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
  if ('raw' in v && Object.keys(v).length === 1 && typeof v.raw === 'string') return v.raw;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${write(x)}`)
    .join(',')}}`;
}

const strip = (record) => {
  if (Array.isArray(record.gpus)) {
    delete record.note;
    for (const g of record.gpus) delete g.sources;
  }
  if (record.config !== undefined) {
    delete record.config_note;
    if (record.published) {
      delete record.published.text;
      delete record.published.source;
    }
  }
  return record;
};

for (const file of files) {
  let record;
  try {
    record = parse(readFileSync(file, 'utf8'), file);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
  const out = join(outDir, basename(file));
  const compact = write(strip(record));
  writeFileSync(out, compact);
}
