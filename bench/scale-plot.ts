// bench/scale's plot: hand-written SVG of time and memory against N (log-log), no dependency.
import type { ScaleRow } from './scale-run.js';

interface Series {
  readonly label: string;
  readonly color: string;
  readonly pick: (r: ScaleRow) => number;
}

const TIME: readonly Series[] = [
  { label: 'first sync (ms)', color: '#d62728', pick: (r) => r.firstSyncMs },
  { label: 'model + render (ms)', color: '#1f77b4', pick: (r) => r.modelRenderMs },
  { label: 'nginx -t (ms)', color: '#2ca02c', pick: (r) => r.nginxTestMs },
  { label: 'SIGHUP → new workers (ms)', color: '#9467bd', pick: (r) => r.sighupMs },
  { label: 'new Ingress → served (ms)', color: '#ff7f0e', pick: (r) => r.newIngressMs },
  { label: 'endpoint change → served, p99 (ms)', color: '#8c564b', pick: (r) => r.endpointP99Ms ?? r.endpointMs },
];
const MEMORY: readonly Series[] = [
  { label: 'controller RSS (MiB)', color: '#1f77b4', pick: (r) => r.controllerMiB },
  { label: 'nginx RSS, master + 2 workers (MiB)', color: '#d62728', pick: (r) => r.nginxMiB },
  { label: 'nginx.conf (KiB)', color: '#7f7f7f', pick: (r) => r.confKiB },
];

const W = 460;
const H = 300;
const PAD = { l: 56, r: 12, t: 28, b: 40 };

function log10(x: number): number {
  return Math.log10(Math.max(x, 1e-3));
}

/** One log-log panel at (x0, 0): a line per series, decade grid lines, a legend. */
function panel(rows: readonly ScaleRow[], series: readonly Series[], title: string, x0: number): string {
  const ns = rows.map((r) => r.n);
  const values = rows.flatMap((r) => series.map((s) => s.pick(r))).filter((v) => Number.isFinite(v) && v > 0);
  const [xl, xh] = [Math.floor(log10(Math.min(...ns))), Math.ceil(log10(Math.max(...ns)))];
  const [yl, yh] = [Math.floor(log10(Math.min(...values))), Math.ceil(log10(Math.max(...values)))];
  const px = (n: number): number => x0 + PAD.l + ((log10(n) - xl) / Math.max(1, xh - xl)) * (W - PAD.l - PAD.r);
  const py = (v: number): number => H - PAD.b - ((log10(v) - yl) / Math.max(1, yh - yl)) * (H - PAD.t - PAD.b);
  const out: string[] = [`<text x="${x0 + W / 2}" y="16" text-anchor="middle" font-weight="bold">${title}</text>`];
  for (let d = yl; d <= yh; d += 1) {
    out.push(
      `<line x1="${x0 + PAD.l}" x2="${x0 + W - PAD.r}" y1="${py(10 ** d)}" y2="${py(10 ** d)}" stroke="#ddd"/>`,
      `<text x="${x0 + PAD.l - 4}" y="${py(10 ** d) + 4}" text-anchor="end">${(10 ** d).toLocaleString('en')}</text>`,
    );
  }
  for (const n of ns) out.push(`<text x="${px(n)}" y="${H - PAD.b + 16}" text-anchor="middle">${n.toLocaleString('en')}</text>`);
  out.push(`<text x="${x0 + W / 2}" y="${H - 6}" text-anchor="middle">Ingresses (N), log scale</text>`);
  series.forEach((s, i) => {
    const pts = rows.filter((r) => Number.isFinite(s.pick(r)) && s.pick(r) > 0).map((r) => `${px(r.n).toFixed(1)},${py(s.pick(r)).toFixed(1)}`);
    out.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.join(' ')}"/>`,
      ...pts.map((pt) => `<circle cx="${pt.split(',')[0]}" cy="${pt.split(',')[1]}" r="3" fill="${s.color}"/>`),
      `<text x="${x0 + PAD.l + 6}" y="${PAD.t + 12 + i * 13}" fill="${s.color}">${s.label}</text>`,
    );
  });
  return out.join('\n');
}

/** The whole SVG: time on the left, memory and size on the right; `caption` under both. */
export function scaleSvg(rows: readonly ScaleRow[], caption: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 24}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
${panel(rows, TIME, 'Time against N (ms, log scale)', 0)}
${panel(rows, MEMORY, 'Memory and nginx.conf size against N (log scale)', W)}
<text x="8" y="${H + 16}" fill="#555">${caption.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>
</svg>
`;
}
