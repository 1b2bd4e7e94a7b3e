// The server `npm start` runs: serves the built site (dist/) on http://127.0.0.1:4173/, each file
// precompressed at build time (web/compress-plugin.js writes NAME.br and NAME.gz beside it) sent
// as the best encoding the request's Accept-Encoding allows, with Content-Encoding, the file's
// own Content-Type (application/wasm for .wasm) and Vary: Accept-Encoding. Nothing is compressed
// per request. Hashed files under assets/ are cached for a year; everything else (the pages, the
// service worker, the widget) is revalidated by ETag. Every file but the pages (and every error
// answer) is sent with Access-Control-Allow-Origin: * and Cross-Origin-Resource-Policy: cross-origin,
// which the widget needs on a documentation page of another origin: its module script, the chunks
// it imports and the .wasm it fetches are all CORS requests (README, "Embedding in documentation").
//
//   node scripts/serve.mjs [--host 127.0.0.1] [--port 4173] [--strictPort] [dir]
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { COMPRESSIBLE, ENCODINGS } from '../web/compress-plugin.js';

export const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The headers that let a page of another origin load the widget's files (scripts, .wasm). */
export const CROSS_ORIGIN = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

/**
 * The encodings `header` (an Accept-Encoding value) accepts, by preference: tokens with q > 0,
 * highest q first, ties in our order (brotli before gzip); `*` stands for any encoding not named.
 */
export function acceptedEncodings(header = '') {
  const q = new Map();
  for (const part of String(header).split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const qp = params.map((s) => s.trim()).find((s) => s.startsWith('q='));
    const v = qp ? Number(qp.slice(2)) : 1;
    q.set(token, Number.isFinite(v) ? v : 0);
  }
  const of = (name) => q.get(name) ?? q.get('*') ?? 0;
  return ENCODINGS.map(([name]) => name)
    .filter((name) => of(name) > 0)
    .sort((a, b) => of(b) - of(a));
}

const isFile = async (file) => {
  try {
    const s = await stat(file);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
};

/** The file of `dir` that answers URL path `path`: itself, PATH.html or PATH/index.html; null if none. */
async function resolveFile(dir, path) {
  const file = normalize(join(dir, path));
  if (file !== dir && !file.startsWith(dir + sep)) return null;
  const candidates = path.endsWith('/') ? [join(file, 'index.html')] : [file, `${file}.html`, join(file, 'index.html')];
  for (const f of candidates) {
    const s = await isFile(f);
    if (s) return { file: f, stat: s };
  }
  return null;
}

/** A request handler serving `dir` (an absolute folder) with its precompressed copies. */
export function siteHandler(dir) {
  const root = resolve(dir);
  return async (req, res) => {
    const plain = (status, text, extra = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...CROSS_ORIGIN, ...extra });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(405, 'method not allowed', { Allow: 'GET, HEAD' });
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      return plain(400, 'bad request');
    }
    if (path.includes('\0')) return plain(400, 'bad request');
    const found = await resolveFile(root, path);
    if (!found) return plain(404, 'not found');
    const ext = extname(found.file);
    const headers = {
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
      'Cache-Control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      ...(ext === '.html' ? {} : CROSS_ORIGIN),
    };
    let { file, stat: st } = found;
    if (COMPRESSIBLE.has(ext)) {
      headers.Vary = 'Accept-Encoding';
      for (const name of acceptedEncodings(req.headers['accept-encoding'])) {
        const [, suffix] = ENCODINGS.find(([n]) => n === name);
        const s = await isFile(found.file + suffix);
        if (s) {
          [file, st] = [found.file + suffix, s];
          headers['Content-Encoding'] = name;
          break;
        }
      }
    }
    // One ETag per variant: a cached gzip body must not answer a brotli request.
    headers.ETag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}${headers['Content-Encoding'] ? `-${headers['Content-Encoding']}` : ''}"`;
    const tags = req.headers['if-none-match'];
    if (tags && tags.split(',').some((t) => t.trim() === headers.ETag)) {
      delete headers['Content-Type'];
      res.writeHead(304, headers);
      return res.end();
    }
    headers['Content-Length'] = st.size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  };
}

/**
 * Serves `dir` on `host`:`port` (0: a free port; taken: the next one up unless `strictPort`).
 * Resolves to {server, url, close()} once listening; `url` ends with a slash.
 */
export async function startServer({ dir, host = '127.0.0.1', port = 4173, strictPort = false } = {}) {
  const server = createServer(siteHandler(dir));
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  for (let p = port; ; p++) {
    try {
      await new Promise((ok, fail) => {
        server.once('error', fail);
        server.listen(p, host, () => {
          server.off('error', fail);
          ok();
        });
      });
      break;
    } catch (e) {
      if (e.code !== 'EADDRINUSE' || strictPort || port === 0 || p - port > 20) throw e;
    }
  }
  const url = `http://${host}:${server.address().port}/`;
  const close = () => {
    for (const s of sockets) s.destroy();
    return new Promise((ok) => server.close(ok));
  };
  return { server, url, close };
}

function parseArgs(argv) {
  const o = { dir: resolve(import.meta.dirname, '../dist') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--host') o.host = argv[++i];
    else if (a === '--port') o.port = Number(argv[++i]);
    else if (a === '--strictPort') o.strictPort = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else o.dir = resolve(a);
  }
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port < 65536))
    throw new Error('--port: an integer from 0 to 65535');
  return o;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`serve: ${e.message}`);
    process.exit(2);
  }
  const { url, close } = await startServer(opts);
  console.log(`\n  ➜  Local:   ${url}\n`);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => close().then(() => process.exit(0)));
}
