// Vite builds the static site from web/ into dist/: the app (index.html), the embedding
// documentation page (embed.html), the widget (its chunk, and flopcast-widget.js, the script that
// loads it: web/widget-loader-plugin.js) and the report
// file's runtime (report-runtime.html, web/report-runtime-plugin.js). index.html carries the
// first visit's answers (web/first-visit-plugin.js).
import { defineConfig } from 'vite';
import { resolve } from 'node:path';
import { serviceWorker } from './web/service-worker-plugin.js';
import { reportRuntimePlugin } from './web/report-runtime-plugin.js';
import { compressPlugin } from './web/compress-plugin.js';
import { onnxProtoPlugin } from './web/onnx-proto-plugin.js';
import { widgetLoaderPlugin } from './web/widget-loader-plugin.js';
import { firstVisitPlugin } from './web/first-visit-plugin.js';

const wasmPackage = resolve(import.meta.dirname, 'build-wasm/wasm');

export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: './',
  resolve: { alias: { '@flopcast/wasm': wasmPackage } },
  server: { host: '127.0.0.1', fs: { allow: [import.meta.dirname] } },
  preview: { host: '127.0.0.1' },
  // the worker reads .onnx files too (app/onnx-reader.js needs the compiled ONNX schema)
  worker: { format: 'es', plugins: () => [onnxProtoPlugin()] },
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        main: resolve(import.meta.dirname, 'web/index.html'),
        embed: resolve(import.meta.dirname, 'web/embed.html'),
        widget: resolve(import.meta.dirname, 'web/src/widget.js'),
      },
      output: { entryFileNames: 'assets/[name]-[hash].js' },
      preserveEntrySignatures: 'exports-only',
    },
  },
  plugins: [
    firstVisitPlugin(),
    reportRuntimePlugin(),
    widgetLoaderPlugin(),
    serviceWorker(),
    compressPlugin(),
    onnxProtoPlugin(),
  ],
});
