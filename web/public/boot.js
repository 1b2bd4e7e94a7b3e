// A classic script that runs before the page's module: if the app's script, a chunk it needs or the
// stylesheet fails to load (offline before the site was cached, an incomplete deploy), the status
// line says so instead of staying at "Loading the estimator…". The app reports its own errors
// (the WebAssembly failing to load or compile) once it runs; this covers the case where it cannot.
(() => {
  // The default page (no query, no fragment, nothing stored) paints its first estimate from the
  // build's answers (web/src/first-visit.js reads this) and loads the module after that paint; any
  // other start needs the module first, so only then is it fetched at once (the build marks the
  // module's preload link rel="flopcast-preload": web/first-visit-plugin.js).
  let plain = false;
  try {
    plain = location.search === '' && location.hash === '' && localStorage.length === 0;
  } catch {
    // storage blocked: the state is unknown, the module answers
  }
  window.__flopcastDefaultState = plain;
  if (!plain) for (const link of document.querySelectorAll('link[rel="flopcast-preload"]')) link.rel = 'preload';

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
