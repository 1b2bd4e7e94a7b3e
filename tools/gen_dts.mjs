// Writes the WebAssembly package's flopcast.d.ts from the freshly built module, so that a field is
// declared once, in the core. The WASM build runs it after the module links (wasm/CMakeLists.txt):
//
//   node tools/gen_dts.mjs OUT.d.ts MODULE.js HAND_WRITTEN.d.ts...
//
// MODULE.js is the Emscripten glue (its .wasm beside it). The generated part comes from the tables
// the module reports: the request table (defaults().request_fields: every request type, with each
// field's TSDoc from its help, unit, bounds and default), the flat result row (row_fields: CompareRow,
// its keys and kinds), the default settings, the precision table, the optimizers, the weight
// components, the model types, the engines and the GPU records' compute units. What no table holds
// (the nested result documents the C++ JSON writers produce in code) is in the hand-written files,
// included verbatim after it; they use the generated names. tests/wasm/types.test.mjs checks the
// output against real results and the request table.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [out, moduleJs, ...parts] = process.argv.slice(2);
if (!out || !moduleJs) {
  console.error('usage: node tools/gen_dts.mjs OUT.d.ts MODULE.js [HAND_WRITTEN.d.ts...]');
  process.exit(2);
}
const root = resolve(import.meta.dirname, '..');
const fail = (message) => {
  throw new Error(`gen_dts: ${message}`);
};

// ---- The module's tables ---------------------------------------------------------------------
const { default: createModule } = await import(pathToFileURL(resolve(moduleJs)).href);
const mod = await createModule({ wasmBinary: readFileSync(resolve(moduleJs).replace(/\.js$/, '.wasm')) });
const decoder = new TextDecoder();
const call = (status) => {
  if (!status.ok) fail(status.text);
  return JSON.parse(decoder.decode(mod.resultView()));
};
const defaults = call(mod.defaults());
const engines = call(mod.listEngines());
const gpus = call(mod.listGpus());
const models = call(mod.listModels());
const fields = defaults.request_fields;
const rowFields = defaults.row_fields;

// Which row figures can be null: the row's getters leave out what does not apply (no GPU; no decode
// for an encoder). The rows of a decoder and an encoder, with and without a GPU, show every case.
const probeModels = ['decoder', 'encoder'].map(
  (a) => models.find((m) => m.architecture === a)?.id ?? fail(`no ${a} model to probe the row with`),
);
const probeRows = call(mod.compare(JSON.stringify({ model: probeModels, gpu: [defaults.settings.gpu, null] })));
const nullableRow = new Set(rowFields.filter((f) => probeRows.some((r) => r[f.key] === null)).map((f) => f.key));

// ---- Text helpers ----------------------------------------------------------------------------
const lit = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const unique = (values) => [...new Set(values)];
const pascal = (s) => s.replace(/(^|[_\-\s.])(\w)/g, (_, __, c) => c.toUpperCase());
// A union of string literals, on one line when short (after ' '), else one member a line.
function union(values, indent = '') {
  if (values.length === 0) fail('an empty union');
  const one = values.map(lit).join(' | ');
  if (one.length <= 80) return ` ${one}`;
  return values.map((v) => `\n${indent}  | ${lit(v)}`).join('');
}
// A TSDoc block of paragraphs, wrapped at 110 columns.
function doc(paragraphs, indent = '') {
  const text = paragraphs.filter(Boolean).map((p) => p.replace(/\*\//g, '*\\/'));
  if (text.length === 0) return '';
  const width = 110 - indent.length - 3;
  const lines = [];
  text.forEach((p, i) => {
    if (i > 0) lines.push('');
    let line = '';
    for (const word of p.split(/\s+/)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  });
  if (lines.length === 1 && lines[0].length <= width - 4) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`;
}
const sentence = (s) => (s && !/[.!?]$/.test(s) ? `${s}.` : s);

// ---- Names the core lists --------------------------------------------------------------------
const expectedOf = (type) => fields.find((f) => f.type === type)?.expected ?? fail(`no ${type} field`);
// A recompute field's expected text names the policies: "a recompute policy (none, selective, full)".
const recompute = /\(([\w, ]+)\)$/.exec(expectedOf('recompute'))?.[1].split(', ') ?? fail('no recompute names');
// A token count's: "a number of tokens (or with a K/M/B/T suffix) in ...".
const suffixes = /with a ([A-Z](?:\/[A-Z])*) suffix/.exec(expectedOf('tokens'))?.[1].split('/');
if (!suffixes) fail('no token suffixes in the tokens field expected text');
const computeUnits = unique([
  ...defaults.precisions.flatMap((p) => p.compute_path),
  ...gpus.flatMap((g) => Object.keys(g.peak_flops)),
]);
const commands = unique(fields.flatMap((f) => f.commands));
const partNames = unique(fields.filter((f) => f.part).map((f) => f.part));
// A choice field's names get a type named after its part and key: SimulationArrivals.
const choiceName = (f) => `${pascal(f.part)}${pascal(f.key)}`;
const choiceFields = fields.filter((f) => f.type === 'choice');
if (choiceFields.some((f) => f.choices.length === 0)) fail('a choice field without choices');

// Names kept from the hand-written API; other parts and commands are named by rule.
const partTypeNames = { parallelism: 'Parallelism', training_analysis: 'TrainingAnalysisOptions' };
const partType = (p) => partTypeNames[p] ?? `${pascal(p)}Settings`;
const commandTypeNames = { calibrate: 'CalibrationRequest', simulate: 'SimulationRequest', report: 'ReportRequest' };
const commandType = (c) => commandTypeNames[c] ?? `${pascal(c)}Request`;
const commandMethod = { report: 'reportData' };
const methodOf = (c) => commandMethod[c] ?? c;
// What the readers require (request_reader.cpp; the table does not say): a model, and a calibration's
// measurement.
const required = (f, c) => f.pointer === '/model' || (c === 'calibrate' && f.pointer === '/measured');

// ---- Field types -----------------------------------------------------------------------------
// A request field's value as results and the defaults echo it (names resolved).
function resolvedType(f) {
  switch (f.type) {
    case 'integer':
    case 'number':
    case 'tokens':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'precision':
      return 'PrecisionName';
    case 'optimizer':
      return 'Optimizer';
    case 'recompute':
      return 'RecomputePolicy';
    case 'engine':
      return 'EngineId';
    case 'choice':
      return choiceName(f);
    case 'model':
    case 'gpu':
    case 'lora_targets':
      return 'string';
    case 'token_range':
      return '[number, number]';
    default:
      return fail(`no resolved type for ${f.pointer} (${f.type})`);
  }
}
// A request field's type as requests may write it; `list`: the field takes a list here.
function inputType(f, list) {
  const scalar = {
    integer: 'number',
    number: 'number',
    boolean: 'boolean',
    precision: 'Precision',
    optimizer: 'Optimizer',
    recompute: 'RecomputePolicy',
    lora_targets: 'string',
    tokens: 'TokenCount',
    model: 'string | HfConfig',
    gpu: 'string | GpuSpec | null',
    engine: 'EngineName',
    calibration: 'CalibrationInput',
    token_range: '[number, number]',
    trace: 'TraceRequest[]',
  }[f.type];
  const t = f.type === 'choice' ? choiceName(f) : (scalar ?? fail(`no request type for ${f.pointer} (${f.type})`));
  // "precision" may also be an object of parts (check_value in request_fields.cpp).
  const parts = f.pointer === '/precision' ? ' | PrecisionParts' : '';
  return (list ? `OneOrMany<${t}>` : t) + parts;
}
// Lists: a listable top-level field takes one in compare (and sweeps); a nested one wherever its part
// is read (the simulation's concurrency and request_rate).
const takesList = (f, c) => f.listable && (f.part !== '' || c === 'compare');

function fieldDoc(f, indent) {
  const facts = [
    sentence(`Value: ${f.expected}`),
    f.unit && f.unit !== '1' ? `Unit: ${f.unit}.` : '',
    f.derived !== null
      ? sentence(`Default: ${f.derived}`)
      : f.default !== null
        ? `Default: ${JSON.stringify(f.default)}.`
        : '',
    f.flag ? `CLI: ${f.flag}${f.short_flag ? ` (${f.short_flag})` : ''}.` : '',
    f.attribute ? `Page attribute: ${f.attribute}.` : '',
    f.listable ? (f.part ? 'Takes a list.' : 'compare() and sweeps take a list.') : '',
  ];
  return doc([sentence(f.help), facts.filter(Boolean).join(' ')], indent);
}

// ---- The generated declarations --------------------------------------------------------------
const g = [];
const emit = (text) => g.push(text);

emit(`// ---- Names the core lists ----

/** A number format as results name it (the core's precision table, defaults().precisions). */
export type PrecisionName =${union(
  defaults.precisions.map((p) => p.name),
  '',
)};
/** A precision as requests may name it (aliases such as "float16" or "half" are accepted). */
export type Precision = PrecisionName | (string & {});
/** The precision table's families. */
export type PrecisionFamily =${union(unique(defaults.precisions.map((p) => p.family)))};
/** The device unit a matmul runs on: the precision table's compute paths and the GPU records' peaks. */
export type ComputeUnit =${union(computeUnits)};
/** The parts of a model a precision can be given for (defaults().weight_components). */
export type WeightComponent =${union(defaults.weight_components)};
/** A precision per part of the model; \`default\` for the rest. */
export type PrecisionParts = { default?: Precision } & Partial<Record<WeightComponent, Precision>>;
/** defaults().optimizers. */
export type Optimizer =${union(defaults.optimizers)};
/** The training analysis's activation recompute policies. */
export type RecomputePolicy =${union(recompute)};
/** A serving engine's id (listEngines()). */
export type EngineId =${union(engines.map((e) => e.id))};
${doc([
  `An engine as requests may name it: an id or an alias (${engines
    .flatMap((e) => e.aliases)
    .slice(0, 3)
    .map((a) => `"${a}"`)
    .join(', ')}, ...), case and punctuation ignored.`,
])}export type EngineName = EngineId | (string & {});
/** A config.json model_type the core reads (defaults().model_types). */
export type ModelType =${union(defaults.model_types)};
/** A number of tokens, or a string with a ${suffixes.join('/')} suffix ("15T"). */
export type TokenCount = number | \`\${number}\${${suffixes.map(lit).join(' | ')}}\`;
type OneOrMany<T> = T | T[];
`);
for (const f of choiceFields)
  emit(`${doc([`The names ${f.pointer} takes: ${sentence(f.help)}`])}export type ${choiceName(f)} =${union(f.choices)};
`);

emit(`
// ---- The request table (core/src/io/request_fields.cpp), as defaults().request_fields reports it ----

/** A request field's type in the table. */
export type RequestFieldType =${union(unique(fields.map((f) => f.type)))};
/** The entry points a request field belongs to. */
export type RequestCommand =${union(commands)};
/** A nested part of a request ("" : the top level). */
export type RequestPart =${union(['', ...partNames])};
/** A request field's key within its part. */
export type RequestFieldKey =${union(unique(fields.map((f) => f.key)))};
/** A request field's full JSON pointer. */
export type RequestPointer =${union(fields.map((f) => f.pointer))};
`);

// Each part's fields, all commands together; a command that takes only some of them picks those.
for (const p of partNames) {
  const row = fields.find((f) => f.part === '' && f.key === p && f.type === 'part');
  emit(`${doc([`The "${p}" part of a request: ${sentence(row?.help ?? '')}`])}export interface ${partType(p)} {
${fields
  .filter((f) => f.part === p)
  .map((f) => `${fieldDoc(f, '  ')}  ${f.key}?: ${inputType(f, takesList(f, ''))};`)
  .join('\n')}
}
`);
}

// Every top-level field; each command's request picks its own.
const top = fields.filter((f) => f.part === '' && f.type !== 'part');
emit(`${doc(["Every top-level request field of the table, one value each; each call's request type picks its own."])}export interface RequestFields {
${top.map((f) => `${fieldDoc(f, '  ')}  ${f.key}${f.pointer === '/model' ? '' : '?'}: ${inputType(f, false)};`).join('\n')}
}
`);

for (const c of commands) {
  // A report takes the estimate's fields besides its own part (request.hpp's command_report).
  const has = (f) => f.commands.includes(c) || (c === 'report' && f.commands.includes('estimate'));
  const own = top.filter(has);
  const picked = own.filter((f) => !takesList(f, c) && !required(f, c));
  const members = [
    ...own
      .filter((f) => takesList(f, c) || required(f, c))
      .map((f) => `${fieldDoc(f, '  ')}  ${f.key}${required(f, c) ? '' : '?'}: ${inputType(f, takesList(f, c))};`),
    ...fields
      .filter((f) => f.part === '' && f.type === 'part' && has(f))
      .map((f) => {
        const all = fields.filter((x) => x.part === f.key);
        const mine = all.filter(has);
        if (mine.length === 0) return '';
        const t =
          mine.length === all.length ? partType(f.key) : `Pick<${partType(f.key)},${union(mine.map((x) => x.key))}>`;
        return `${doc([sentence(f.help), mine.length === all.length ? '' : `Only ${mine.map((x) => x.key).join(', ')} here.`], '  ')}  ${f.key}${required(f, c) ? '' : '?'}: ${t};`;
      })
      .filter(Boolean),
  ];
  const about = [
    `The request of ${methodOf(c)}(): the request table's fields for "${c}"${c === 'report' ? ' and "estimate"' : ''}.`,
    c === 'compare' ? 'Fields that compare() takes as lists: the rows are their Cartesian product.' : '',
  ];
  emit(`${doc(about)}export interface ${commandType(c)}
  extends Pick<
    RequestFields,${union(
      picked.map((f) => f.key),
      '  ',
    ).replace(/^ /, '\n    ')}
  > {
${members.join('\n')}
}
`);
}

// The defaults document's settings: the estimate's top-level settings at their defaults.
const fieldAt = (key) => fields.find((f) => f.part === '' && f.key === key) ?? fail(`no request field ${key}`);
emit(`
// ---- Documents whose keys are the core's tables ----

${doc(['defaults().settings: the top-level request fields at their defaults (null: derived from others, or none).'])}export interface DefaultSettings {
${Object.entries(defaults.settings)
  .map(([k, v]) => {
    const f = fieldAt(k);
    const t = v === null ? 'null' : resolvedType(f);
    return `${doc([sentence(f.help), v === null ? sentence(`null: ${f.derived ?? 'none'}`) : ''], '  ')}  ${k}: ${t};`;
  })
  .join('\n')}
}

/** A row field's kind (core/src/io/fields.cpp); bound: compute/memory (1/0 in sweep values). */
export type FieldKind =${union(unique(rowFields.map((f) => f.kind)))};
/** A key of the flat result row. */
export type RowFieldKey =${union(rowFields.map((f) => f.key))};
/** The numeric row fields: a sweep's values, in order. */
export type SweepField =${union(defaults.sweep_fields)};
`);
const kindType = { text: 'string', bound: 'Bound', boolean: 'boolean' };
const rowType = (f) => {
  const req = fields.find((x) => x.part === '' && x.key === f.key && x.type !== 'part');
  return (req ? resolvedType(req) : (kindType[f.kind] ?? 'number')) + (nullableRow.has(f.key) ? ' | null' : '');
};
emit(`${doc(["One row of compare(): the CLI's `compare --json` row, the flat result row of core/src/io/fields.cpp. A figure that does not apply (no GPU; no decode for an encoder) is null."])}export interface CompareRow {
${rowFields.map((f) => `  /** "${f.header}" (${f.kind}). */\n  ${f.key}: ${rowType(f)};`).join('\n')}
}
`);

// ---- The file --------------------------------------------------------------------------------
const rel = (p) => relative(root, resolve(p)).split('\\').join('/');
const header = `// GENERATED by tools/gen_dts.mjs from the flopcast WebAssembly module's tables and wasm/types/*.d.ts: do not edit (change those, then npm run build:wasm).
//
// Types of flopcast's JavaScript API. The first part is generated from the tables the freshly built
// module reports: the request table (request types, TSDoc, bounds, defaults), the flat result row,
// the default settings, the precision table, the optimizers, weight components, model types,
// engines and GPU records. The rest is the hand-written files of wasm/types/, included verbatim:
// the result documents the core's C++ writers produce in code (tests/wasm/types.test.mjs checks them).
// Units are SI base units: FLOPs are counts, memory bytes, time seconds, energy joules.
`;
const text = [
  header,
  g.join('\n').replace(/\n{3,}/g, '\n\n'),
  ...parts.map((p) => `\n// ---- ${rel(p)} (hand-written, included verbatim) ----\n\n${readFileSync(p, 'utf8')}`),
].join('\n');
writeFileSync(out, text);
console.log(`gen_dts: wrote ${relative(process.cwd(), out) || out} (${text.split('\n').length} lines)`);
