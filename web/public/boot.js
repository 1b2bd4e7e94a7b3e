// A classic script that runs before the page's module: if the app's script, a chunk it needs or the
// stylesheet fails to load (offline before the site was cached, an incomplete deploy), the status
// line says so instead of staying at "Loading the estimator…". The app reports its own errors
// (the WebAssembly failing to load or compile) once it runs; this covers the case where it cannot.
(() => {
  let shown = false;
  function show(text) {
    if (shown || document.body?.dataset.ready === '1') return;
    const status = document.getElementById('status');
    if (!status) return void document.addEventListener('DOMContentLoaded', () => show(text), { once: true });
    shown = true;
    status.textContent = text;
    status.className = 'status bad';
    status.setAttribute('role', 'alert');
    document.documentElement.dataset.loadError = '1';
  }
  window.addEventListener(
    'error',
    (e) => {
      const el = e.target;
      if (!(el instanceof HTMLScriptElement || el instanceof HTMLLinkElement)) return;
      if (el instanceof HTMLLinkElement && !/^(stylesheet|modulepreload)$/.test(el.rel)) return;
      const url = el.src || el.href;
      show(
        `Could not load the estimator: ${url} failed to load (offline before the page was saved for offline use, ` +
          'or the site is incomplete). Reload when you are online.',
      );
    },
    true,
  );
  // A last resort for a load that neither finishes nor fails (a stalled connection).
  setTimeout(() => {
    if (document.getElementById('status')?.textContent.startsWith('Loading'))
      show('The estimator has not loaded after 30 s: check your connection and reload.');
  }, 30000);
})();
