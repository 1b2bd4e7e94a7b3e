// Reads a dropped .onnx File into the core's neutral graph form (core/include/flopcast/profile/profile.hpp)
// without loading its weights: a minimal walk of the protobuf wire format over File.slice() keeps
// every field of ModelProto except the large data fields of GraphProto's initializers (their
// names, dims and types stay; int tensors of at most 64 elements keep their values, as the native
// reader core/onnx/onnx_graph.cpp does), and protobufjs decodes the pruned bytes with the ONNX
// schema (onnx.proto of ONNX 1.12, committed beside this file), compiled at build time into a
// static decoder (web/onnx-proto-plugin.js; the page's CSP allows no runtime code generation).
import root from 'virtual:onnx-proto';

const CHUNK = 64 << 10;
const MAX_VALUES = 64;
// TensorProto data fields: float_data, int32_data, string_data, int64_data, raw_data, double_data, uint64_data.
const DATA_FIELDS = new Set([4, 5, 6, 7, 9, 10, 11]);
const KEEP_DATA_BYTES = MAX_VALUES * 8 + 16; // a data field this short may hold a shape operand

// Sequential reads over File.slice, in chunks; skipping moves past bytes without reading them.
class FileReader {
  constructor(file) {
    this.file = file;
    this.pos = 0;
    this.buf = new Uint8Array(0);
    this.at = 0; // file offset of buf[0]
  }
  async bytes(n) {
    if (this.pos + n > this.file.size) throw new Error('truncated protobuf');
    if (this.pos < this.at || this.pos + n > this.at + this.buf.length) {
      const end = Math.min(this.file.size, this.pos + Math.max(n, CHUNK));
      this.buf = new Uint8Array(await this.file.slice(this.pos, end).arrayBuffer());
      this.at = this.pos;
    }
    const o = this.pos - this.at;
    this.pos += n;
    return this.buf.subarray(o, o + n);
  }
  async varint() {
    let v = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const [b] = await this.bytes(1);
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    throw new Error('bad varint');
  }
  skip(n) {
    if (this.pos + n > this.file.size) throw new Error('truncated protobuf');
    this.pos += n;
  }
}

function varintBytes(v) {
  const out = [];
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

// One field: its tag bytes and, for wire type 2, its length (the payload follows at r.pos).
async function field(r) {
  const tag = await r.varint();
  const wire = tag & 7;
  const number = Math.floor(tag / 8);
  if (wire === 2) return { tag, wire, number, length: await r.varint() };
  const sizes = { 0: -1, 1: 8, 5: 4 };
  if (!(wire in sizes)) throw new Error(`unsupported protobuf wire type ${wire}`);
  return { tag, wire, number, length: sizes[wire] };
}

// Copies one non-length-delimited field's payload.
async function scalar(r, f) {
  if (f.length >= 0) return r.bytes(f.length);
  return varintBytes(await r.varint());
}

// Walks `length` bytes of a message; `rewrite(f)` returns pruned parts for a length-delimited
// field (an array of Uint8Array) or null to copy it as it is.
async function walk(r, length, rewrite) {
  const end = r.pos + length;
  const parts = [];
  while (r.pos < end) {
    const f = await field(r);
    const sub = f.wire === 2 ? await rewrite(f) : null;
    if (sub === false) continue; // dropped
    parts.push(varintBytes(f.tag));
    if (f.wire !== 2) parts.push(await scalar(r, f));
    else if (sub) {
      parts.push(varintBytes(sub.reduce((n, p) => n + p.length, 0)), ...sub);
    } else parts.push(varintBytes(f.length), await r.bytes(f.length));
  }
  if (r.pos !== end) throw new Error('truncated protobuf');
  return parts;
}

// A TensorProto with its long data fields dropped.
const tensor = (r, f) =>
  walk(r, f.length, async (g) => {
    if (DATA_FIELDS.has(g.number) && g.length > KEEP_DATA_BYTES) {
      r.skip(g.length);
      return false;
    }
    return null;
  });
const graph = (r, f) => walk(r, f.length, (g) => (g.number === 5 ? tensor(r, g) : null));

/** The ModelProto bytes of `file` without its large initializer data. */
export async function prunedModel(file) {
  const r = new FileReader(file);
  const parts = await walk(r, file.size, (f) => (f.number === 7 ? graph(r, f) : null));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
}

const text = (b) => (typeof b === 'string' ? b : new TextDecoder().decode(b));
const dims = (shape) =>
  (shape?.dim ?? []).map((d) => ('dim_value' in d ? d.dim_value : d.dim_param ? d.dim_param : null));

function valueInfo(v) {
  const t = v.type?.tensor_type;
  const j = { name: v.name ?? '' };
  if (t) {
    j.elem_type = t.elem_type ?? 0;
    if (t.shape) j.dims = dims(t.shape);
  }
  return j;
}

function tensorJson(t) {
  const d = (t.dims ?? []).map(Number);
  const j = { name: t.name ?? '', elem_type: t.data_type ?? 0, dims: d };
  const n = d.reduce((a, b) => a * b, 1);
  const type = j.elem_type;
  if (t.data_location !== 1 && n <= MAX_VALUES && (type === 7 || type === 6)) {
    let v = type === 7 ? t.int64_data : t.int32_data;
    if ((v?.length ?? 0) !== n && t.raw_data?.length === n * (type === 7 ? 8 : 4)) {
      const view = new DataView(t.raw_data.buffer, t.raw_data.byteOffset, t.raw_data.length);
      v = Array.from({ length: n }, (_, k) =>
        type === 7 ? Number(view.getBigInt64(k * 8, true)) : view.getInt32(k * 4, true),
      );
    }
    if (v?.length === n) j.values = v.map(Number);
  }
  return j;
}

// AttributeProto.type: FLOAT 1, INT 2, STRING 3, TENSOR 4, FLOATS 6, INTS 7 (others: unused).
function attribute(a) {
  switch (a.type) {
    case 1:
      return { f: a.f ?? 0 };
    case 2:
      return { i: Number(a.i ?? 0) };
    case 3:
      return { s: text(a.s ?? '') };
    case 4:
      return { t: tensorJson(a.t ?? {}) };
    case 6:
      return { floats: a.floats ?? [] };
    case 7:
      return { ints: (a.ints ?? []).map(Number) };
    default:
      return null;
  }
}

/** The neutral graph JSON form of ModelProto bytes. */
export function graphOf(bytes) {
  const type = root.onnx.ModelProto;
  const m = type.toObject(type.decode(bytes), { longs: Number, enums: Number });
  const g = m.graph;
  if (!g || !g.node?.length) throw new Error('not an ONNX model (no graph with nodes)');
  let opset = 0;
  for (const o of m.opset_import ?? []) if (!o.domain || o.domain === 'ai.onnx') opset = o.version;
  return {
    opset,
    inputs: (g.input ?? []).map(valueInfo),
    outputs: (g.output ?? []).map(valueInfo),
    value_infos: (g.value_info ?? []).map(valueInfo),
    initializers: (g.initializer ?? []).map(tensorJson),
    nodes: g.node.map((n) => {
      const attributes = {};
      for (const a of n.attribute ?? []) {
        const v = attribute(a);
        if (v) attributes[a.name] = v;
      }
      return {
        name: n.name ?? '',
        op_type: n.op_type ?? '',
        domain: n.domain ?? '',
        inputs: n.input ?? [],
        outputs: n.output ?? [],
        attributes,
      };
    }),
  };
}

/** Reads an .onnx File (never its weight data) into the neutral graph form. */
export async function readOnnx(file) {
  return graphOf(await prunedModel(file));
}

/** The symbolic dimension names of a graph's inputs, in order. */
export const symbols = (graph) => [
  ...new Set(graph.inputs.flatMap((v) => (v.dims ?? []).filter((d) => typeof d === 'string'))),
];
