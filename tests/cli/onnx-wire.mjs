// A minimal writer of ONNX protobuf bytes (the wire format by hand, field numbers from onnx.proto
// of ONNX 1.12, web/src/app/onnx.proto), for tests that need hostile files python3-onnx would
// take minutes to build or refuses to write: huge dimensions, 300k nodes, deep If nesting.
const varint = (v) => {
  let n = BigInt.asUintN(64, BigInt(v));
  const out = [];
  while (n >= 0x80n) {
    out.push(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  out.push(Number(n));
  return Buffer.from(out);
};
const key = (field, wire) => varint(field * 8 + wire);
/** A varint field (an int64 may be a BigInt). */
export const int = (field, v) => Buffer.concat([key(field, 0), varint(v)]);
/** A length-delimited field: a string or the bytes of a sub-message (an array of fields). */
export const bytes = (field, v) => {
  const b = typeof v === 'string' ? Buffer.from(v) : Array.isArray(v) ? Buffer.concat(v) : v;
  return Buffer.concat([key(field, 2), varint(b.length), b]);
};

// ValueInfoProto {name 1, type 2 {tensor_type 1 {elem_type 1, shape 2 {dim 1 {dim_value 1, dim_param 2}}}}}
export const valueInfo = (name, elem, dims) => [
  bytes(1, name),
  bytes(2, [
    bytes(1, [
      int(1, elem),
      bytes(
        2,
        dims.map((d) => bytes(1, [typeof d === 'string' ? bytes(2, d) : int(1, d)])),
      ),
    ]),
  ]),
];
// TensorProto {dims 1, data_type 2, int64_data 7 (unpacked), name 8}
export const int64Tensor = (name, values) => [
  int(1, values.length),
  int(2, 7),
  ...values.map((v) => int(7, v)),
  bytes(8, name),
];
// AttributeProto {name 1, i 3, g 6, ints 8, type 20 (INT 2, GRAPH 5, INTS 7)}
export const attrInt = (name, v) => [bytes(1, name), int(3, v), int(20, 2)];
export const attrInts = (name, vs) => [bytes(1, name), ...vs.map((v) => int(8, v)), int(20, 7)];
export const attrGraph = (name, graphFields) => [bytes(1, name), bytes(6, graphFields), int(20, 5)];
// NodeProto {input 1, output 2, name 3, op_type 4, attribute 5}
export const node = (op, inputs, outputs, name = '', attributes = []) => [
  ...inputs.map((s) => bytes(1, s)),
  ...outputs.map((s) => bytes(2, s)),
  bytes(3, name),
  bytes(4, op),
  ...attributes.map((a) => bytes(5, a)),
];
// GraphProto {node 1, name 2, initializer 5, input 11, output 12}
export const graph = ({ nodes = [], inputs = [], outputs = [], initializers = [], name = 'g' }) => [
  ...nodes.map((n) => bytes(1, n)),
  bytes(2, name),
  ...initializers.map((t) => bytes(5, t)),
  ...inputs.map((v) => bytes(11, v)),
  ...outputs.map((v) => bytes(12, v)),
];
// ModelProto {ir_version 1, graph 7, opset_import 8 {domain 1, version 2}}
export const model = (graphFields, opset = 17) =>
  Buffer.concat([int(1, 8), bytes(7, graphFields), bytes(8, [bytes(1, ''), int(2, opset)])]);
