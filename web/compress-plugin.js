// Precompresses the built site: writes NAME.br (brotli, quality 11) and NAME.gz (gzip, level 9)
// beside every compressible file of the output folder (js, css, html, wasm, svg, json, and the
// service worker), once, at build time, so the server (scripts/serve.mjs) only picks a file by
// the request's Accept-Encoding and never compresses per request. A compressed copy that would
// not be smaller than its file is not written (the server then sends the file itself).
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** The extensions worth compressing (images such as .png are compressed already). */
export const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.wasm', '.svg', '.json', '.txt', '.map']);

/** The precompressed encodings, best first: [Accept-Encoding token, file suffix, compress(bytes)]. */
export const ENCODINGS = [
  [
    'br',
    '.br',
    (b) =>
      brotliCompressSync(b, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_LGWIN]: 24,
          [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
        },
      }),
  ],
  ['gzip', '.gz', (b) => gzipSync(b, { level: 9 })],
];

/** Writes the compressed copies of every compressible file under `dir`; returns their count. */
export function precompress(dir) {
  let written = 0;
  for (const d of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!d.isFile() || !COMPRESSIBLE.has(extname(d.name))) continue;
    const file = join(d.parentPath ?? d.path, d.name);
    const bytes = readFileSync(file);
    for (const [, suffix, compress] of ENCODINGS) {
      const packed = compress(bytes);
      if (packed.length < bytes.length) {
        writeFileSync(file + suffix, packed);
        written++;
      }
    }
  }
  return written;
}

/** The Vite plugin: runs after every other plugin has written its files (the service worker too). */
export function compressPlugin() {
  let outDir;
  return {
    name: 'flopcast-compress',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        precompress(outDir);
      },
    },
  };
}
