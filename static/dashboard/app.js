// Portico's read-only dashboard: polls /dashboard/state.json and shows it as text (never as markup). No writes.
'use strict';
const REFRESH_MS = 2000;
let previous = null;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function fill(id, rows, cells, empty) {
  const body = document.querySelector(`#${id} tbody`);
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = el('tr');
    const td = el('td', empty, 'empty');
    td.colSpan = document.querySelectorAll(`#${id} thead th`).length;
    tr.append(td);
    body.append(tr);
    return;
  }
  for (const row of rows) {
    const tr = el('tr');
    for (const c of cells(row)) tr.append(c instanceof Node ? c : el('td', c));
    body.append(tr);
  }
}

function num(text) { return el('td', text, 'num'); }
function badge(text, cls) { const td = el('td'); td.append(el('span', text, `badge ${cls}`)); return td; }
function causes(c) { return Object.entries(c).map(([k, v]) => (v > 1 ? `${k} ×${v}` : k)).join(', '); }

function render(s, now) {
  const health = document.getElementById('health');
  health.textContent = s.stopping ? 'stopping' : s.healthy ? 'healthy' : 'not ready';
  health.className = `badge ${s.stopping ? 'warn' : s.healthy ? 'ok' : 'bad'}`;
  document.getElementById('updated').textContent = `updated ${new Date(now).toLocaleTimeString()} · nginx restarts: ${s.nginx.restarts}`;
  const before = new Map((previous ? previous.state.traffic : []).map((t) => [`${t.namespace}/${t.ingress}`, t]));
  const seconds = previous ? (now - previous.at) / 1000 : 0;
  fill('traffic', s.traffic, (t) => {
    const p = before.get(`${t.namespace}/${t.ingress}`);
    const dr = p && seconds > 0 ? Math.max(0, t.requests - p.requests) : 0;
    const de = p && seconds > 0 ? Math.max(0, t.errors - p.errors) : 0;
    const rate = p && seconds > 0 ? (dr / seconds).toFixed(1) : '…';
    const ratio = dr > 0 ? `${((100 * de) / dr).toFixed(1)} %` : (t.requests > 0 ? `${((100 * t.errors) / t.requests).toFixed(1)} % (total)` : '–');
    return [`${t.namespace}/${t.ingress}`, num(rate), num(ratio), num(t.requests)];
  }, 'no request counted yet');
  const routes = s.routes.flatMap((r) => r.paths.map((p) => ({ host: r.host, ...p })));
  fill('routes', routes, (r) => {
    const eps = el('td');
    if (r.endpoints.length === 0) eps.append(el('span', 'no endpoint (503)', 'badge bad'));
    for (const e of r.endpoints) {
      const label = `${e.address}${e.port === null ? '' : `:${e.port}`} ${e.state}${e.inRotation ? '' : ' (out)'}`;
      eps.append(el('span', label, `badge ep ${e.state.replace(' ', '-')}`));
    }
    return [r.host === '_' ? '(any host)' : r.host, `${r.match === 'exact' ? '= ' : ''}${r.path}`, r.ingress, r.canary === undefined ? r.service : `${r.service} (canary: ${r.canary})`, eps];
  }, 'no route');
  fill('certs', s.certificates, (c) => {
    const days = c.daysLeft;
    const cls = days === null ? 'noop' : days < 0 ? 'bad' : days < 14 ? 'warn' : 'ok';
    const text = days === null ? '–' : days < 0 ? `expired ${-days} days ago` : `in ${days} days`;
    return [c.host, c.secret ?? '(default certificate)', c.issuer, badge(text, cls)];
  }, 'no TLS host');
  fill('syncs', s.syncs, (r) => [new Date(r.at).toLocaleTimeString(), badge(r.plan, r.plan), causes(r.causes) + (r.error ? ` — ${r.error}` : ''), num(r.ms)], 'no sync yet');
  fill('skipped', s.skipped, (w) => [w.object, w.field, w.reason], 'none');
  fill('warnings', s.warnings, (w) => [w.object, w.field, w.reason, badge(w.severity, w.severity === 'dropped' ? 'bad' : 'warn')], 'none');
}

async function refresh() {
  try {
    const res = await fetch('/dashboard/state.json', { cache: 'no-store' });
    const state = await res.json();
    const now = Date.now();
    render(state, now);
    previous = { state, at: now };
  } catch (err) {
    const health = document.getElementById('health');
    health.textContent = 'unreachable';
    health.className = 'badge bad';
    document.getElementById('updated').textContent = String(err);
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

refresh();
