// A local server on 127.0.0.1 with the Hugging Face Hub's path layout
// (<org>/<name>/resolve/<revision>/<file>) for the Hub fetch's CLI tests: `routes` maps a path to
// its handler, any other path is the Hub's 404 EntryNotFound. Started before the file's tests and
// closed after them; `hub.endpoint` is its URL (for HF_ENDPOINT) once started.
import { before, after } from 'node:test';
import { createServer } from 'node:http';

export function hubServer(routes, onRequest = () => {}) {
  const hub = { endpoint: '' };
  const server = createServer((req, res) => {
    onRequest(req);
    const route = routes[req.url];
    if (route) return route(req, res);
    res.writeHead(404, { 'X-Error-Code': 'EntryNotFound' });
    res.end('{"error":"Entry not found"}');
  });
  before(async () => {
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    hub.endpoint = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return hub;
}
