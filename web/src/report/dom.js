// The report documents' element helpers and chart size (./render.js, ./measure-render.js).

// A chart's drawing size in CSS pixels: fits A4 (186 mm) and Letter (190 mm) printable widths.
export const WIDTH = 680;
export const HEIGHT = 300;

/** An element with attributes ("text": its text) and children (null and undefined skipped). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

/** A source label (ESTIMATED, MEASURED, ...) beside a heading or caption. */
export const badge = (text) => el('span', { class: 'badge', text });
