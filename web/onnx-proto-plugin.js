// `import onnx from 'virtual:onnx-proto'`: the ONNX schema (web/src/app/onnx.proto) compiled at
// build time by protobufjs-cli into a static decoder module (no eval: the page's CSP forbids it).
import { resolve } from 'node:path';
import cli from 'protobufjs-cli';

const ID = 'virtual:onnx-proto';
const proto = resolve(import.meta.dirname, 'src/app/onnx.proto');
const args = ['-t', 'static-module', '-w', 'es6', '--keep-case', '--no-comments', '--no-create', '--no-encode'];
const skip = ['--no-verify', '--no-delimited', '--no-service', '--no-typeurl'];

export function onnxProtoPlugin() {
  return {
    name: 'flopcast-onnx-proto',
    resolveId: (id) => (id === ID ? `\0${ID}` : null),
    load(id) {
      if (id !== `\0${ID}`) return null;
      this.addWatchFile(proto);
      return new Promise((ok, fail) =>
        cli.pbjs.main([...args, ...skip, proto], (err, out) => (err ? fail(err) : ok(out))),
      );
    },
  };
}
