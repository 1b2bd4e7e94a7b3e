// The SLO planner's chart (loaded with the card's first answer): the search's simulated points,
// output tokens/s per GPU against tokens/s per user. The Pareto front as a line, the ranked
// configurations (meeting every SLO) as filled markers numbered by rank, the rejected ones (missing
// an SLO) as rings, and the TPOT SLO's side shaded: a user's speed is 1 / TPOT, so every point at
// or beyond 1 / slo_tpot_s along x meets it. Draws only what the core returned (../plot.js).
import { createPlot } from '../plot.js';
import { formatNumber, formatRate, formatSeconds } from '../format.js';

const SPAN_FOR_LOG = 16; // an axis whose values span this factor or more is drawn logarithmic

function themeColors() {
  const cs = getComputedStyle(document.documentElement);
  const css = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    text: css('--muted', '#666'),
    grid: css('--grid', '#ddd'),
    front: css('--chart-1', '#2563eb'),
    ranked: css('--chart-3', '#059669'),
    rejected: css('--chart-5', '#db2777'),
  };
}

/** 'log' when every value is positive and they span SPAN_FOR_LOG or more, else 'linear'. */
function scaleFor(values) {
  const v = values.filter((x) => Number.isFinite(x));
  if (!v.length || v.some((x) => x <= 0)) return 'linear';
  return Math.max(...v) / Math.min(...v) >= SPAN_FOR_LOG ? 'log' : 'linear';
}

/** A translucent version of a CSS hex colour (#rrggbb), for the shaded side. */
function tint(hex, alpha) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) return `rgba(5, 150, 105, ${alpha})`;
  return `rgba(${parseInt(m[1], 16)}, ${parseInt(m[2], 16)}, ${parseInt(m[3], 16)}, ${alpha})`;
}

const X = 'tokens_per_s_per_user';
const Y = 'output_tokens_per_s_per_gpu';
const at = (p, label) => ({ x: p[X], y: p[Y], label });

/** The chart's spec (../plot.js) for a search's answer `s` (PlanSearch). */
export function paretoSpec(s, c = themeColors()) {
  const tpot = s.question.slo_tpot_s;
  const edge = Number.isFinite(tpot) && tpot > 0 ? 1 / tpot : null;
  const all = [...s.pareto, ...s.ranked, ...s.rejected];
  const xs = all.map((p) => p[X]);
  if (edge !== null) xs.push(edge);
  const rate = (v) => formatRate(v).replace(' tok/s', '');
  return {
    kind: 'xy',
    legend: true,
    x: { type: scaleFor(xs), title: 'Tokens/s per user', fmt: rate, include: edge === null ? [] : [edge] },
    axes: { y: { type: scaleFor(all.map((p) => p[Y])), title: 'Output tokens/s per GPU', fmt: rate } },
    series: [
      {
        label: 'Rejected (misses an SLO)',
        color: c.rejected,
        style: 'points',
        hollow: true,
        radius: 3.5,
        points: s.rejected.map((p) => at(p, `${p.engine} ${p.precision}, misses ${p.binding ?? 'an SLO'}`)),
        value: (v) => formatNumber(v),
      },
      {
        label: 'Pareto front (simulated)',
        color: c.front,
        style: 'line',
        radius: 2.5,
        width: 1.5,
        points: s.pareto.map((p) => at(p, `${p.engine} ${p.precision}`)),
        value: (v) => formatNumber(v),
      },
      {
        label: 'Ranked (meets every SLO)',
        color: c.ranked,
        style: 'points',
        radius: 4.5,
        pointLabels: true,
        points: s.ranked.map((p, i) => at(p, `#${i + 1}`)),
        value: (v) => formatNumber(v),
      },
    ],
    regions:
      edge === null
        ? []
        : [{ from: edge, to: null, color: tint(c.ranked, 0.12), label: `TPOT ≤ ${formatSeconds(tpot)}` }],
  };
}

/** Draws (or redraws) the chart for `s` on `canvas`; returns the chart (../plot.js). */
export function drawPareto(chart, canvas, s) {
  const c = themeColors();
  const spec = paretoSpec(s, c);
  if (!chart || chart.canvas !== canvas) {
    chart?.destroy();
    chart = createPlot(canvas);
  }
  chart.draw(spec, { text: c.text, grid: c.grid });
  const drawn = chart.canvas;
  drawn.flopcastSpec = spec; // for tests: exactly what is drawn
  drawn.dataset.xScale = spec.x.type;
  drawn.dataset.yScale = spec.axes.y.type;
  drawn.dataset.sloEdge = spec.regions.length ? String(spec.regions[0].from) : '';
  drawn.dataset.rendered = '1';
  drawn.setAttribute(
    'aria-label',
    `Output tokens/s per GPU against tokens/s per user: ${s.pareto.length} Pareto points, ${s.ranked.length} ranked, ${s.rejected.length} rejected` +
      (spec.regions.length
        ? `; users faster than ${formatNumber(spec.regions[0].from)} tokens/s meet the TPOT SLO`
        : ''),
  );
  return chart;
}
