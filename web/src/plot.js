// Draws the charts of the page and of the report (uPlot: small, and fast for a million points).
// The chart modules (charts.js, app/ops.js, app/sweep-chart.js) describe a chart as plain data, a
// "spec", and createPlot() draws it; nothing here knows what a chart means.
//
// spec = {kind: 'xy', x, axes, series, legend} or {kind: 'pie', slices, fmt, border}
//   x:      {type: 'category' | 'linear' | 'log', title, fmt(v), labels (category: one per index),
//            vertical (the category axis on the left: horizontal bars)}
//   axes:   {[id]: {type: 'linear' | 'log', title, fmt(v), side: 'left' | 'right', grid, max, hidden,
//            incrs (a linear axis's tick steps, e.g. powers of 1024 for bytes)}}
//   series: [{label, color, axis (an axes id, default 'y'), style: 'line' | 'points' | 'bar',
//             values (category: one per label, null for none) or points ([{x, y, label}]),
//             width, dash, radius, stack (bars of one stack id pile up), pointLabels, value(v, i)}]
//   slices: [{label, value, color}] (pie)
//   regions: [{from, to, color, label}] (xy) shaded bands along x behind the series (null from/to:
//            the plot's edge), their label at the top; x.include: x values the x range must reach
//   series[].hollow: points drawn as rings (a second kind of marker)
// A value that a log axis cannot show (zero, negative) and null are gaps, never drawn.
import uPlot from 'uplot';
import './plot.css';

const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const FONT = `11px ${FONT_FAMILY}`;
const LABEL_FONT = `12px ${FONT_FAMILY}`;

let measureCtx = null;
const widths = new Map();
/** Width in CSS pixels of `text` in the axes' font (remembered: axis labels repeat). */
function textWidth(text) {
  let w = widths.get(text);
  if (w === undefined) {
    if (!measureCtx) {
      measureCtx = document.createElement('canvas').getContext('2d');
      measureCtx.font = FONT;
    }
    w = measureCtx.measureText(text).width;
    if (widths.size > 5000) widths.clear();
    widths.set(text, w);
  }
  return w;
}

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/** Powers of ten within [min, max] (every k-th where more than `most`); where fewer than two, 1, 2 and 5 times them. */
function logSplits(min, max, most = Infinity) {
  const out = [];
  const lo = Math.floor(Math.log10(min) - 1e-9);
  const hi = Math.ceil(Math.log10(max) + 1e-9);
  for (const m of [[1], [1, 2, 5]]) {
    out.length = 0;
    for (let e = lo; e <= hi; e++)
      for (const k of m) {
        const v = k * 10 ** e;
        if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
      }
    if (out.length >= 2) break;
  }
  const every = Math.max(1, Math.ceil(out.length / Math.max(2, most)));
  return out.filter((_, i) => i % every === 0);
}

/** How many labels fit on an axis: its length in CSS pixels over a label's room (wider along x). */
const labelRoom = (u, horizontal) =>
  Math.floor((horizontal ? u.bbox.width : u.bbox.height) / uPlot.pxRatio / (horizontal ? 80 : 28));
const label = (fmt) => (u, splits) => splits.map((v) => (v === null || v === undefined ? '' : fmt(v)));

/**
 * The spec's points on one shared x array (uPlot's data): category charts index their labels;
 * numeric charts sort every point by x and share an index where x is equal and no series has a
 * value there already. Returns {data: [xs, ...ys], labels: per series, the point label at each index}.
 */
export function alignData(spec) {
  const logX = spec.x.type === 'log';
  const logY = (s) => spec.axes[s.axis ?? 'y']?.type === 'log';
  const keep = (s, y) => (finite(y) && (!logY(s) || y > 0) ? y : null);
  if (spec.x.type === 'category') {
    const n = spec.x.labels.length;
    const xs = Array.from({ length: n }, (_, i) => i);
    const ys = spec.series.map((s) => xs.map((i) => keep(s, s.values?.[i])));
    const labels = spec.series.map(() => []);
    return { data: [xs, ...ys], labels };
  }
  const entries = [];
  spec.series.forEach((s, k) => {
    for (const p of s.points ?? [])
      if (finite(p.x) && (!logX || p.x > 0)) entries.push([p.x, k, keep(s, p.y), p.label]);
  });
  entries.sort((a, b) => a[0] - b[0]);
  const xs = [];
  const ys = spec.series.map(() => []);
  const labels = spec.series.map(() => []);
  let taken = null;
  for (const [x, k, y, label] of entries) {
    if (!xs.length || x !== xs[xs.length - 1] || taken.has(k)) {
      xs.push(x);
      for (const col of ys) col.push(null);
      taken = new Set();
    }
    const i = xs.length - 1;
    ys[k][i] = y;
    labels[k][i] = label;
    taken.add(k);
  }
  return { data: [xs, ...ys], labels };
}

/** The lowest and highest value each axis must show: bars from zero, stacked bars to their totals. */
function extents(spec, data) {
  const ext = {};
  const widen = (id, v) => {
    if (!finite(v)) return;
    const e = (ext[id] ??= [v, v]);
    e[0] = Math.min(e[0], v);
    e[1] = Math.max(e[1], v);
  };
  const n = data[0].length;
  spec.series.forEach((s, k) => {
    const id = s.axis ?? 'y';
    const col = data[k + 1];
    if (s.style !== 'bar') {
      for (const v of col) widen(id, v);
      return;
    }
    if (spec.axes[id]?.type !== 'log') widen(id, 0);
    for (let i = 0; i < n; i++) {
      if (col[i] === null) continue;
      let total = 0;
      if (s.stack !== undefined)
        spec.series.forEach((t, j) => {
          if (j <= k && t.style === 'bar' && t.stack === s.stack && (t.axis ?? 'y') === id)
            total += data[j + 1][i] ?? 0;
        });
      else total = col[i];
      widen(id, total);
    }
  });
  return ext;
}

/** Bars: each category's slot holds one bar per stack (or per unstacked series), side by side. */
function drawBars(u, spec, data) {
  const bars = spec.series.map((s, k) => [s, k]).filter(([s]) => s.style === 'bar');
  if (!bars.length) return;
  const slots = [];
  for (const [s, k] of bars) {
    const key = s.stack !== undefined ? `stack:${s.stack}:${s.axis ?? 'y'}` : `series:${k}`;
    if (!slots.includes(key)) slots.push(key);
  }
  const vertical = !!spec.x.vertical;
  const { ctx } = u;
  const b = u.bbox;
  const step = Math.abs(u.valToPos(1, 'x', true) - u.valToPos(0, 'x', true));
  const slotW = (step * 0.8) / slots.length;
  ctx.save();
  ctx.beginPath();
  ctx.rect(b.left, b.top, b.width, b.height);
  ctx.clip();
  for (let i = 0; i < data[0].length; i++) {
    const bases = {};
    for (const [s, k] of bars) {
      if (!u.series[k + 1].show) continue;
      const v = data[k + 1][i];
      if (v === null) continue;
      const id = s.axis ?? 'y';
      const key = s.stack !== undefined ? `stack:${s.stack}:${id}` : `series:${k}`;
      const from = bases[key] ?? (spec.axes[id]?.type === 'log' ? u.scales[id].min : 0);
      const to = s.stack !== undefined ? from + v : v;
      bases[key] = to;
      const c = u.valToPos(i, 'x', true) - (step * 0.8) / 2 + slots.indexOf(key) * slotW;
      const p0 = u.valToPos(from, id, true);
      const p1 = u.valToPos(to, id, true);
      ctx.fillStyle = s.color;
      if (vertical) ctx.fillRect(Math.min(p0, p1), c, Math.abs(p1 - p0), slotW * 0.95);
      else ctx.fillRect(c, Math.min(p0, p1), slotW * 0.95, Math.abs(p1 - p0));
    }
  }
  ctx.restore();
}

/** Each point's label beside it, skipping a label that would overlap one drawn. */
function drawPointLabels(u, spec, data, labels, color) {
  const { ctx } = u;
  const r = uPlot.pxRatio;
  ctx.save();
  ctx.font = `${10 * r}px ${FONT_FAMILY}`;
  ctx.fillStyle = color;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left'; // (uPlot's axes leave it as their last label's)
  const placed = [];
  spec.series.forEach((s, k) => {
    if (!s.pointLabels || !u.series[k + 1].show) return;
    data[k + 1].forEach((y, i) => {
      const text = labels[k][i];
      if (y === null || !text) return;
      const px = u.valToPos(data[0][i], 'x', true);
      const py = u.valToPos(y, s.axis ?? 'y', true);
      const w = ctx.measureText(text).width;
      for (const dy of [0, 11, -11, 22, -22].map((d) => d * r)) {
        const box = { x: px + 7 * r, y: py + dy - 5 * r, w, h: 10 * r };
        const hit = placed.some(
          (q) => box.x < q.x + q.w && q.x < box.x + box.w && box.y < q.y + q.h && q.y < box.y + box.h,
        );
        if (hit) continue;
        placed.push(box);
        ctx.fillText(text, box.x, py + dy);
        break;
      }
    });
  });
  ctx.restore();
}

/**
 * The spec's shaded x bands, behind the grid and the series; each band's edges in CSS pixels from the
 * canvas's left (and the scale's inverse, posToVal) are kept on the canvas for tests.
 */
function drawRegions(u, spec, color) {
  const regions = spec.regions ?? [];
  const canvas = u.ctx.canvas;
  if (!regions.length) {
    delete canvas.dataset.regions;
    return;
  }
  const r = uPlot.pxRatio;
  const b = u.bbox;
  const { ctx } = u;
  const drawn = [];
  ctx.save();
  ctx.beginPath();
  ctx.rect(b.left, b.top, b.width, b.height);
  ctx.clip();
  for (const g of regions) {
    const x0 = finite(g.from) ? u.valToPos(g.from, 'x', true) : b.left;
    const x1 = finite(g.to) ? u.valToPos(g.to, 'x', true) : b.left + b.width;
    const left = Math.max(b.left, Math.min(x0, x1));
    const right = Math.min(b.left + b.width, Math.max(x0, x1));
    if (right > left) {
      ctx.fillStyle = g.color;
      ctx.fillRect(left, b.top, right - left, b.height);
      if (g.label) {
        ctx.font = `${10 * r}px ${FONT_FAMILY}`;
        ctx.fillStyle = color;
        ctx.textBaseline = 'top';
        ctx.textAlign = 'left';
        ctx.fillText(g.label, left + 4 * r, b.top + 4 * r);
      }
    }
    drawn.push({
      from: g.from ?? null,
      to: g.to ?? null,
      left: left / r,
      right: right / r,
      top: b.top / r,
      bottom: (b.top + b.height) / r,
    });
  }
  ctx.restore();
  canvas.dataset.regions = JSON.stringify(drawn);
  canvas.flopcastPosToVal = (px) => u.posToVal(px - u.bbox.left / r, 'x');
}

/** uPlot's options for an xy spec drawn `width` x `height` in palette `p` (p.text, p.grid). */
function xyOptions(spec, state, width, height, p) {
  const category = spec.x.type === 'category';
  const vertical = !!spec.x.vertical;
  const fmtX = category ? (v) => spec.x.labels[Math.round(v)] ?? '' : (spec.x.fmt ?? String);
  const axisSize = (horizontal) => (u, values) => {
    if (horizontal) return 24;
    const w = Math.max(0, ...(values ?? []).map((v) => textWidth(String(v))));
    return Math.ceil(w) + 18;
  };
  const common = {
    stroke: p.text,
    font: FONT,
    labelFont: LABEL_FONT,
    labelSize: 18,
    ticks: { stroke: p.grid, width: 1, size: 4 },
    grid: { stroke: p.grid, width: 1 },
  };
  const xAxis = {
    ...common,
    scale: 'x',
    side: vertical ? 3 : 2,
    label: spec.x.title,
    size: axisSize(!vertical),
    grid: { ...common.grid, show: spec.x.grid !== false && !category },
  };
  if (category) {
    // Along x, labels that do not all fit side by side are turned upright (each then needs only a
    // line's height), so that every bar keeps its label where the plot is wide enough for that.
    const widest = Math.max(0, ...spec.x.labels.map((l) => textWidth(l)));
    const upright = (u) => {
      if (vertical) return false;
      const n = spec.x.labels.length;
      return n * (widest + 8) > u.bbox.width / uPlot.pxRatio;
    };
    xAxis.splits = (u) => {
      const n = spec.x.labels.length;
      const room = vertical ? u.bbox.height / uPlot.pxRatio / 16 : u.bbox.width / uPlot.pxRatio;
      const each = vertical ? 1 : upright(u) ? 14 : widest + 8;
      const every = Math.max(1, Math.ceil((n * each) / Math.max(room, 1)));
      return Array.from({ length: n }, (_, i) => i).filter((i) => i % every === 0);
    };
    xAxis.values = (u, splits) => {
      state.xLabels = splits.length; // for tests: how many categories are labelled
      return splits.map((i) => spec.x.labels[i] ?? '');
    };
    if (!vertical) {
      xAxis.rotate = (u) => (upright(u) ? 90 : 0);
      xAxis.size = (u) => (upright(u) ? Math.ceil(widest) + 12 : 24);
    }
  } else if (spec.x.type === 'log') {
    xAxis.splits = (u, i, min, max) => logSplits(min, max, labelRoom(u, !vertical));
    xAxis.filter = (u, splits) => splits;
    xAxis.values = label(fmtX);
  } else {
    xAxis.values = label(fmtX);
    xAxis.space = vertical ? 28 : 80;
  }

  const scales = {
    x: {
      time: false,
      distr: spec.x.type === 'log' ? 3 : 1,
      log: 10,
      ori: vertical ? 1 : 0,
      dir: vertical ? -1 : 1, // horizontal bars: the first category on top
      range: category
        ? () => [-0.5, spec.x.labels.length - 0.5]
        : (u, min, max) => {
            for (const v of state.spec.x.include ?? [])
              if (finite(v) && (spec.x.type !== 'log' || v > 0)) {
                min = finite(min) ? Math.min(min, v) : v;
                max = finite(max) ? Math.max(max, v) : v;
              }
            if (!finite(min)) return spec.x.type === 'log' ? [1, 10] : [0, 1];
            return spec.x.type === 'log' ? uPlot.rangeLog(min, max, 10, true) : uPlot.rangeNum(min, max, 0.05, true);
          },
    },
  };
  const axes = [xAxis];
  for (const [id, a] of Object.entries(spec.axes)) {
    const log = a.type === 'log';
    scales[id] = {
      distr: log ? 3 : 1,
      log: 10,
      ori: vertical ? 0 : 1,
      dir: 1,
      range: (u) => {
        const e = state.extents[id];
        let [lo, hi] = e ? e : log ? [1, 10] : [0, 1];
        if (log) [lo, hi] = uPlot.rangeLog(lo, hi, 10, true);
        else [lo, hi] = lo === hi ? [lo - 1, hi + 1] : uPlot.rangeNum(lo, hi, 0.08, true);
        if (a.max !== undefined) hi = a.max;
        if (a.min !== undefined) lo = a.min;
        return [lo, hi];
      },
    };
    if (a.hidden) continue;
    const fmt = a.fmt ?? String;
    const ax = {
      ...common,
      scale: id,
      side: vertical ? 2 : a.side === 'right' ? 1 : 3,
      label: a.title,
      size: axisSize(vertical),
      grid: { ...common.grid, show: a.grid !== false },
      values: label(fmt),
      space: vertical ? 80 : 28,
    };
    if (a.incrs) ax.incrs = a.incrs;
    if (log) {
      ax.splits = (u, i, min, max) => logSplits(min, max, labelRoom(u, vertical));
      ax.filter = (u, splits) => splits;
    }
    axes.push(ax);
  }

  const series = [
    // The legend's readout follows the cursor; away from the plot (and in a saved report) it is
    // empty rather than "–", which would read as a missing value.
    {
      label: spec.x.title ?? 'x',
      value: (u, v, si, i) => (i === null || v === null || v === undefined ? '' : fmtX(v)),
    },
    ...spec.series.map((s, k) => {
      const fmt = s.value ?? spec.axes[s.axis ?? 'y']?.fmt ?? String;
      const filled = s.style !== 'line';
      return {
        label: s.label,
        scale: s.axis ?? 'y',
        stroke: s.color,
        fill: filled ? s.color : undefined,
        width: s.style === 'line' ? (s.width ?? 2) : 0,
        dash: s.dash,
        spanGaps: true,
        paths: s.style === 'line' ? undefined : () => null,
        points: {
          show: s.style === 'points' || (s.style === 'line' && (s.radius ?? 0) > 0),
          size: Math.max(2, (s.radius ?? 3) * 2),
          width: s.hollow ? 1.5 : 1,
          stroke: s.color,
          fill: s.hollow ? 'rgba(0,0,0,0)' : s.color,
        },
        value: (u, v, si, i) => {
          if (i === null || i === undefined) return '';
          if (v === null || v === undefined) return '–';
          const label = state.labels[k]?.[i];
          return label ? `${label}: ${fmt(v, i)}` : fmt(v, i);
        },
      };
    }),
  ];
  return {
    width,
    height,
    legend: { show: spec.legend !== false, live: true },
    cursor: { drag: { x: false, y: false, setScale: false }, points: { size: 7 } },
    scales,
    axes,
    series,
    hooks: {
      drawClear: [(u) => drawRegions(u, state.spec, p.text)],
      draw: [
        (u) => {
          if (state.xLabels !== undefined) u.ctx.canvas.dataset.xLabels = String(state.xLabels);
          drawBars(u, state.spec, state.data);
          drawPointLabels(u, state.spec, state.data, state.labels, p.text);
        },
      ],
    },
  };
}

/** A doughnut: the canvas (given) drawn with one arc per slice, and a legend of values below. */
function drawPie(canvas, legend, spec, width, height) {
  const r = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * r);
  canvas.height = Math.round(height * r);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(r, 0, 0, r, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const slices = spec.slices.filter((s) => finite(s.value) && s.value > 0);
  const total = slices.reduce((a, s) => a + s.value, 0);
  const R = Math.max(0, Math.min(width, height) / 2 - 4);
  const cx = width / 2;
  const cy = height / 2;
  let a = -Math.PI / 2;
  for (const s of slices) {
    const b = a + (2 * Math.PI * s.value) / total;
    ctx.beginPath();
    ctx.arc(cx, cy, R, a, b);
    ctx.arc(cx, cy, R * 0.5, b, a, true);
    ctx.closePath();
    ctx.fillStyle = s.color;
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = spec.border;
    ctx.stroke();
    a = b;
  }
  legend.replaceChildren(
    ...spec.slices.map((s) => {
      const li = document.createElement('li');
      const mark = document.createElement('span');
      mark.className = 'u-marker';
      mark.style.background = s.color;
      const share = total > 0 && finite(s.value) ? ` (${((100 * s.value) / total).toPrecision(3)}%)` : '';
      li.append(mark, `${s.label}: ${spec.fmt(s.value)}${share}`);
      return li;
    }),
  );
}

/** The shape of a spec: what uPlot's options depend on (a change rebuilds the chart; data alone does not). */
const shapeOf = (spec, p) =>
  JSON.stringify([
    spec.kind,
    spec.x?.type,
    spec.x?.title,
    spec.x?.vertical,
    spec.x?.labels?.length,
    spec.legend,
    Object.entries(spec.axes ?? {}).map(([id, a]) => [id, a.type, a.title, a.side, a.max, a.hidden, a.grid]),
    (spec.series ?? []).map((s) => [s.label, s.color, s.axis, s.style, s.dash, s.width, s.radius, s.stack, s.hollow]),
    p,
  ]);

/**
 * A chart in place of `placeholder` (a canvas whose id, role and aria-label the chart's canvas
 * takes). `size`: {width, height} in CSS pixels for a fixed size (the report); without it the chart
 * fills the placeholder's parent and follows its size. draw(spec, palette) draws or redraws;
 * canvas is the canvas now showing it.
 */
export function createPlot(placeholder, size = null) {
  const box = placeholder.parentElement;
  const host = document.createElement('div');
  host.className = 'plot';
  const attrs = ['id', 'role', 'aria-label'].map((n) => [n, placeholder.getAttribute(n)]).filter(([, v]) => v !== null);
  placeholder.replaceWith(host);
  host.append(placeholder); // until the first drawing
  const state = { spec: null, p: null, data: null, labels: [], extents: {}, u: null, shape: '', pie: null };
  let canvas = placeholder;
  const adopt = (c) => {
    for (const [n, v] of attrs) if (!c.hasAttribute(n) || n === 'id') c.setAttribute(n, v);
    for (const [k, v] of Object.entries(canvas.dataset)) c.dataset[k] = v;
    canvas = c;
  };

  const dims = () => (size ? { ...size } : { width: box.clientWidth, height: box.clientHeight });

  function destroy() {
    state.u?.destroy();
    state.u = null;
    state.pie = null;
    host.replaceChildren();
    state.shape = '';
  }

  /** Nothing drawn: an empty canvas keeps the chart's id and attributes in the document. */
  function blank() {
    destroy();
    const c = document.createElement('canvas');
    host.append(c);
    adopt(c);
  }

  /** Sets the plot's size so that plot and legend together fill `height`. */
  function fit(width, height) {
    const legend = state.u.root.querySelector('.u-legend');
    // uPlot sizes its elements in a microtask: the legend wraps to the width given here now.
    state.u.root.style.width = `${width}px`;
    const h = Math.max(60, height - (legend ? legend.offsetHeight + 4 : 0));
    if (state.u.width !== width || state.u.height !== h) state.u.setSize({ width, height: h });
  }

  function render() {
    const { spec, p } = state;
    if (!spec) return;
    const { width, height } = dims();
    if (width <= 0 || height <= 0) return; // hidden: drawn when it shows (the ResizeObserver)
    const shape = shapeOf(spec, p);
    if (spec.kind === 'pie') {
      if (shape !== state.shape || !state.pie) {
        destroy();
        const c = document.createElement('canvas');
        c.className = 'plot-pie';
        const legend = document.createElement('ul');
        legend.className = 'plot-legend';
        host.append(c, legend);
        state.pie = { c, legend };
        state.shape = shape;
        adopt(c);
      }
      drawPie(state.pie.c, state.pie.legend, spec, width, Math.max(60, height - 24));
      const lh = state.pie.legend.offsetHeight;
      if (lh > 24) drawPie(state.pie.c, state.pie.legend, spec, width, Math.max(60, height - lh - 4));
      return;
    }
    const { data, labels } = alignData(spec);
    state.data = data;
    state.labels = labels;
    state.extents = extents(spec, data);
    if (shape !== state.shape || !state.u) {
      destroy();
      state.u = new uPlot(xyOptions(spec, state, width, height, p), data, host);
      state.shape = shape;
      adopt(state.u.ctx.canvas);
    } else state.u.setData(data);
    fit(width, height);
  }

  if (!size && typeof ResizeObserver !== 'undefined') {
    let last = '';
    new ResizeObserver(() => {
      const { width, height } = dims();
      const key = `${width}x${height}`;
      if (key === last) return;
      last = key;
      render();
    }).observe(box);
  }

  return {
    /** Draws `spec` (null: nothing, the chart cleared) in palette `p` ({text, grid}). */
    draw(spec, p) {
      state.spec = spec;
      state.p = { text: p.text, grid: p.grid };
      if (!spec) blank();
      else render();
    },
    get canvas() {
      return canvas;
    },
    /** What is drawn: the spec and, for xy charts, uPlot's data (for tests). */
    get spec() {
      return state.spec;
    },
    destroy() {
      destroy();
      host.remove();
    },
  };
}
