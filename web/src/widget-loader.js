// flopcast-widget.js, the one script documentation pages load (written into dist/ as it stands here
// by web/widget-loader-plugin.js, which puts the built widget chunk's path in WIDGET): it defines
// <flopcast-estimate> from ./widget.js (the element, the engine's glue and their chunks, loaded
// from beside this file). It imports nothing statically, so it runs even when a part of the widget
// cannot load (a chunk answering 404, a cross-origin request without CORS headers): every element
// then still shows a card saying what failed and fires `error` ({message, code, stage, url}, also
// as `flopcast-error`), as it does when the engine's .wasm cannot load.
const WIDGET = './widget.js';
let widget;
try {
  widget = await import(WIDGET);
} catch (e) {
  defineFailed(e);
}

function defineFailed(e) {
  const url = new URL('./', import.meta.url).href;
  const crossOrigin = new URL(url).origin !== globalThis.location?.origin;
  const message =
    `Could not load the flopcast widget: ${e?.message ?? e}. Its files (flopcast-widget.js and assets/) must be ` +
    `served together from ${url}` +
    (crossOrigin ? ', and from another origin than this page with an Access-Control-Allow-Origin header (CORS).' : '.');
  const STYLE = `:host { display: block; font: 14px/1.4 system-ui, sans-serif; max-width: 34rem; }
.card { border: 1px solid color-mix(in srgb, currentColor 22%, transparent); border-top: 3px solid var(--fc-accent, #0969da);
  border-radius: var(--fc-radius, 8px); padding: 12px 14px; background: var(--fc-bg, Canvas); color: var(--fc-fg, CanvasText); }
.error { color: var(--fc-error, inherit); margin: 0; padding-left: 8px; border-left: 3px solid var(--fc-bad, #cf222e);
  overflow-wrap: anywhere; }`;
  class FailedEstimate extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      const root = this.attachShadow({ mode: 'open' });
      try {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(STYLE);
        root.adoptedStyleSheets = [sheet];
      } catch {
        root.append(Object.assign(document.createElement('style'), { textContent: STYLE }));
      }
      const card = document.createElement('div');
      card.className = 'card';
      card.setAttribute('part', 'card');
      card.setAttribute('role', 'group');
      card.setAttribute('aria-label', 'flopcast estimate');
      const p = document.createElement('p');
      p.className = 'error';
      p.setAttribute('part', 'error');
      p.setAttribute('role', 'alert');
      p.dataset.code = 'engine.fetch';
      p.textContent = message;
      card.append(p);
      root.append(card);
      const detail = { message, code: 'engine.fetch', stage: 'engine', url };
      this.dispatchEvent(new CustomEvent('error', { detail }));
      this.dispatchEvent(new CustomEvent('flopcast-error', { detail }));
    }
  }
  if (!customElements.get('flopcast-estimate')) customElements.define('flopcast-estimate', FailedEstimate);
}

export const FlopcastEstimate = widget?.FlopcastEstimate;
export const EngineLoadError = widget?.EngineLoadError;
export const widgetField = widget?.widgetField;
/** The attributes the element reads (see widget.js); rejects when the widget could not load. */
export const widgetAttributes = () =>
  widget ? widget.widgetAttributes() : Promise.reject(new Error('the flopcast widget could not load'));
