// gridtail's dashboard: the site matrix, a map from the sites' coordinates,
// a pair's tail and history with its tracked forecast error, and a
// placement form, all from the server's own API (no library, no CDN); the
// view is kept in the URL's hash, so that it can be linked.
'use strict';

// pair: the pair shown; place: the placement asked (the request); hash:
// the URL's hash as last written or restored; metricChosen: the metric
// was asked for (the menu, the URL), metricAuto: the page chose it (a
// silent store); silent: every pair is silent (silentStore), newest: the
// store's newest sample then, {age: s, when: text}; matrixSeq: the
// matrix request whose answer is drawn
const state = { sites: [], metric: 'status', chosen: null, pair: null, place: null, hash: '',
                metricChosen: false, metricAuto: false, silent: false, silentPairs: 0,
                newest: null, matrixSeq: 0 };
const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';

function showError(where, err) {
  $(where).textContent = err ? String(err.message || err) : '';
}

async function getJSON(url, options) {
  const r = await fetch(url, options);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || (r.status + ' ' + r.statusText));
  return body;
}

function postJSON(url, doc) {
  return getJSON(url, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                        body: JSON.stringify(doc) });
}

// an SVG of /v1/plot/..., parsed and made part of the page
async function getSVG(url) {
  const r = await fetch(url);
  const text = await r.text();
  if (!r.ok) {
    let msg = r.status + ' ' + r.statusText;
    try { msg = JSON.parse(text).error; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  return document.importNode(doc.documentElement, true);
}

function query(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
}

function ago(seconds) {
  if (seconds < 120) return Math.round(seconds) + ' s';
  if (seconds < 7200) return Math.round(seconds / 60) + ' min';
  if (seconds < 172800) return Math.round(seconds / 3600) + ' h';
  return Math.round(seconds / 86400) + ' days';
}

async function freshness() {
  const el = $('fresh');
  try {
    const r = await fetch('/readyz');
    const doc = await r.json();
    if (r.ok) {
      const age = doc.newest_sample_age_s;
      el.textContent = age === null ? 'no samples yet' : 'newest sample ' + ago(age) + ' ago';
      el.classList.toggle('stale', age === null || age > 3600);
    } else {
      el.textContent = doc.error;
      el.classList.add('stale');
    }
  } catch (e) {
    el.textContent = 'the server does not answer';
    el.classList.add('stale');
  }
}

// ---------------------------------------------------------------- matrix

// Only the answer to the latest request is drawn: a slow answer for a
// metric left since does not paint over the one asked after it.
async function loadMatrix() {
  const hl = state.chosen ? [state.chosen.root].concat(state.chosen.sites).join(',') : '';
  const seq = ++state.matrixSeq;
  try {
    const svg = await getSVG('/v1/plot/matrix?' + query({ metric: state.metric, highlight: hl }));
    if (seq !== state.matrixSeq) return;
    $('matrix').replaceChildren(svg);
    showError('matrix-error', null);
  } catch (e) {
    if (seq === state.matrixSeq) showError('matrix-error', e);
  }
}

// The pairs that are not ok, worst first, from /v1/status: the reasons
// each, a click shows the pair.  At most WRONG_SHOWN listed.
const WRONG_SHOWN = 50;

async function loadWrong() {
  try {
    const doc = await getJSON('/v1/status?' + query({ limit: WRONG_SHOWN }));
    const c = doc.counts;
    const bad = doc.pairs.filter((p) => p.status !== 'ok');
    $('wrong-counts').textContent = c.critical + ' critical, ' + c.warning + ' warning, ' +
      c.no_data + ' without data, ' + c.ok + ' ok (limits: [thresholds])';
    const items = bad.map((p) => {
      const li = document.createElement('li');
      li.className = p.status;
      li.dataset.src = p.src;
      li.dataset.dst = p.dst;
      li.textContent = p.src + ' \u2192 ' + p.dst + ': ' + p.status.replace('_', ' ') +
        (p.reasons.length ? ', ' + p.reasons.join('; ') : '');
      return li;
    });
    if (!items.length) {
      const li = document.createElement('li');
      li.className = 'ok';
      li.textContent = 'nothing: every pair is within its limits';
      items.push(li);
    }
    $('wrong').replaceChildren(...items);
    showError('wrong-error', null);
    await silentStore(doc);
  } catch (e) {
    showError('wrong-error', e);
  }
}

// ---------------------------------------------------------------- a silent store
//
// A store that no collector feeds any more (the demo's an hour after
// `make demo`, a copy, collectors all stopped) has every pair silent
// past [thresholds] silent_s: status, judged now, greys every pair.  The
// page says so, and unless status was asked for (the menu, the URL) it
// colours the pairs by SILENT_METRIC instead, which reads each pair's
// newest samples however old.  When samples come again, status is back.

const SILENT_METRIC = 'p99';

function allSilent(doc) {
  const c = doc.counts;
  return c.no_data > 0 && c.ok + c.warning + c.critical === 0 &&
    doc.pairs.some((p) => typeof p.age_s === 'number');
}

// the store's newest sample, from /readyz (the listed pairs' newest
// if it does not say: [server] ready_max_age_s makes it 503), its time
// by the server's clock (doc.at)
async function newestSample(doc) {
  let age = null;
  try {
    const r = await fetch('/readyz');
    const d = await r.json();
    if (r.ok && typeof d.newest_sample_age_s === 'number') age = d.newest_sample_age_s;
  } catch (e) { /* the pairs' ages below */ }
  if (age === null)
    age = Math.min(...doc.pairs.map((p) => p.age_s).filter((a) => typeof a === 'number'));
  const when = new Date(Date.parse(doc.at) - age * 1000).toISOString();
  return { age, when: when.slice(0, 16).replace('T', ' ') + ' UTC' };
}

async function silentStore(doc) {
  state.silent = allSilent(doc);
  state.silentPairs = doc.counts.no_data;
  if (state.silent) state.newest = await newestSample(doc);
  let redraw = false;
  if (state.silent && state.metric === 'status' && !state.metricChosen) {
    state.metric = SILENT_METRIC;
    state.metricAuto = redraw = true;
  } else if (!state.silent && state.metricAuto) {
    state.metric = 'status';
    state.metricAuto = false;
    redraw = true;
  }
  $('metric').value = state.metric;
  showSilent();
  if (redraw) await loadMatrix();
}

function metricName(m) {
  return Array.from($('metric').options).find((o) => o.value === m).textContent;
}

// the notice: why every pair is grey, and a button to the other view
function showSilent() {
  const box = $('silent');
  if (!state.silent) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const other = state.metric === 'status' ? SILENT_METRIC : 'status';
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'show ' + (other === 'status' ? 'status' : metricName(other));
  button.addEventListener('click', () => {
    $('metric').value = other;
    $('metric').dispatchEvent(new Event('change'));
  });
  box.replaceChildren(
    'All ' + state.silentPairs + ' pairs are silent: the store\'s newest sample is ' +
    ago(state.newest.age) + ' old (' + state.newest.when + '), longer than [thresholds] ' +
    'silent_s, so every pair\'s status now is \u201cno data\u201d: no collector has stored a ' +
    'sample since (a demo\'s store, a copy, or collectors stopped). ' +
    (state.metric === 'status'
      ? 'Choose a metric that reads the samples to see them.'
      : 'Shown instead: the ' + metricName(state.metric) + ' of each pair\'s newest samples, ' +
        'up to then.'), button);
  box.hidden = false;
}

function wrongClick(ev) {
  const li = ev.target.closest('li[data-src]');
  if (!li) return;
  $('src').value = li.dataset.src;
  $('dst').value = li.dataset.dst;
  loadPair();
}

function matrixClick(ev) {
  const cell = ev.target.closest('rect[data-src]');
  if (!cell) return;
  $('src').value = cell.dataset.src;
  $('dst').value = cell.dataset.dst;
  loadPair();
}

// ---------------------------------------------------------------- map
//
// The sites on an equirectangular map of their own extent, over the
// coastlines of land.js.  Where sites
// crowd (closer than CLUSTER_PX to each other on the world map, at least
// CLUSTER_MIN of them: Europe's and the US Midwest's among the demo's 27),
// the world map frames them under a letter and an inset below shows them
// enlarged.  Every label is placed where it covers no other text and no
// dot (placeLabels), with a leader line when it had to move off its dot.

const MAP_W = 760, WORLD_H = 330, INSET_H = 250, GAP = 12, CLUSTER_PX = 30, CLUSTER_MIN = 4;

function el(name, attrs, text) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// x(lon), y(lat) fitting the sites into the box {x, y, w, h} less pad px
// and at least minSpan degrees each way; squeeze: longitudes shrink by
// the cosine of the middle latitude (true shapes in a regional inset)
function projection(sites, box, pad, minSpan, squeeze) {
  let lon0 = Math.min(...sites.map((s) => s.longitude)), lon1 = Math.max(...sites.map((s) => s.longitude));
  let lat0 = Math.min(...sites.map((s) => s.latitude)), lat1 = Math.max(...sites.map((s) => s.latitude));
  const grow = (lo, hi) => { const d = Math.max(0, minSpan - (hi - lo)) / 2; return [lo - d, hi + d]; };
  [lon0, lon1] = grow(lon0, lon1);
  [lat0, lat1] = grow(lat0, lat1);
  const c = squeeze ? Math.cos((lat0 + lat1) / 2 * Math.PI / 180) : 1;
  const k = Math.min((box.w - 2 * pad) / ((lon1 - lon0) * c), (box.h - 2 * pad) / (lat1 - lat0));
  const ox = box.x + (box.w - (lon1 - lon0) * c * k) / 2, oy = box.y + (box.h + (lat1 - lat0) * k) / 2;
  return { x: (lon) => ox + (lon - lon0) * c * k, y: (lat) => oy - (lat - lat0) * k,
           lon0, lon1, lat0, lat1 };
}

// groups of sites closer than CLUSTER_PX to one another (single linkage)
function clusters(pts) {
  const up = pts.map((_, i) => i);
  const find = (i) => (up[i] === i ? i : (up[i] = find(up[i])));
  for (let i = 0; i < pts.length; i++)
    for (let j = i + 1; j < pts.length; j++)
      if (Math.hypot(pts[i].x - pts[j].x, pts[i].y - pts[j].y) < CLUSTER_PX) up[find(i)] = find(j);
  const groups = {};
  pts.forEach((p, i) => (groups[find(i)] = groups[find(i)] || []).push(p));
  return Object.values(groups).filter((g) => g.length >= CLUSTER_MIN)
    .sort((a, b) => Math.min(...a.map((p) => p.x)) - Math.min(...b.map((p) => p.x)));
}

const overlaps = (a, b, pad) => a.x0 < b.x1 + pad && b.x0 < a.x1 + pad && a.y0 < b.y1 + pad && b.y0 < a.y1 + pad;

// does the segment (x0, y0)-(x1, y1) pass through box b (sampled)?
function crosses(x0, y0, x1, y1, b) {
  for (let t = 0; t <= 1; t += 0.05) {
    const x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    if (x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1) return true;
  }
  return false;
}

// where a w x h label goes when pushed r px off its dot towards angle a
function labelBox(p, r, a, w, h) {
  const d = (p.r || 4) + 2 + r, cx = Math.cos(a), cy = Math.sin(a);
  const ax = p.x + d * cx, ay = p.y + d * cy;
  const x0 = cx > 0.3 ? ax : cx < -0.3 ? ax - w : ax - w / 2;
  const y0 = cy > 0.3 ? ay : cy < -0.3 ? ay - h : ay - h / 2;
  return { x0, y0, x1: x0 + w, y1: y0 + h };
}

const ANGLES = [0, 180, -90, 90, -30, 30, -150, 150, -60, 60, -120, 120].map((d) => d * Math.PI / 180);
const RADII = [0, 8, 16, 26, 38, 52, 68, 86, 106, 130];

// Greedy labels: the most crowded site first, each at the nearest of a
// ring of positions (ANGLES x RADII) that stays inside bounds and clear
// of every dot, text and frame placed so far (taken: boxes), its leader
// line crossing no label.  items: {name, x, y, r, cls}; drawn into layer.
function placeLabels(layer, items, bounds, taken) {
  const crowd = (p) => items.filter((o) => o !== p && Math.hypot(o.x - p.x, o.y - p.y) < 40).length;
  const order = items.map((p) => [crowd(p), p]).sort((a, b) => b[0] - a[0] || a[1].x - b[1].x)
    .map(([, p]) => p);
  const labels = [];
  for (const p of order) {
    const t = el('text', { x: 0, y: 0, class: p.cls || '', 'data-site': p.name }, p.name);
    layer.appendChild(t);
    const bb = t.getBBox();
    let best = null;
    for (const r of RADII) {
      for (const a of ANGLES) {
        const b = labelBox(p, r, a, bb.width, bb.height);
        if (b.x0 < bounds.x0 || b.x1 > bounds.x1 || b.y0 < bounds.y0 || b.y1 > bounds.y1) continue;
        if (taken.some((o) => overlaps(b, o, 1))) continue;
        const lx = Math.max(b.x0, Math.min(p.x, b.x1)), ly = Math.max(b.y0, Math.min(p.y, b.y1));
        if (r > 0 && labels.some((o) => crosses(p.x, p.y, lx, ly, o))) continue;
        best = { b, r, lx, ly };
        break;
      }
      if (best) break;
    }
    if (!best) {   // nowhere clear: beside the dot all the same (the test says so)
      const b = labelBox(p, 0, 0, bb.width, bb.height);
      best = { b, r: 0, lx: b.x0, ly: p.y };
    }
    t.setAttribute('x', best.b.x0.toFixed(1));
    t.setAttribute('y', (best.b.y0 - bb.y).toFixed(1));
    if (best.r > 0)
      layer.insertBefore(el('path', { class: 'leader', d: 'M' + p.x.toFixed(1) + ' ' + p.y.toFixed(1) +
                                      'L' + best.lx.toFixed(1) + ' ' + best.ly.toFixed(1) }), t);
    taken.push(best.b);
    labels.push(best.b);
  }
}

function dotBox(p) {
  const r = (p.r || 4) + 1;
  return { x0: p.x - r, y0: p.y - r, x1: p.x + r, y1: p.y + r };
}

// one panel: its frame, graticule, the placement's links, the dots;
// returns the dots' items for the labels
// the coastlines (land.js: Natural Earth's, in tenths of a degree) as one
// path, leaving out the rings that lie wholly outside the box
function landPath(pr, box) {
  const rings = typeof LAND === 'undefined' ? [] : LAND;
  let d = '';
  for (const r of rings) {
    const xy = [];
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = 0; i < r.length; i += 2) {
      const x = pr.x(r[i] / 10), y = pr.y(r[i + 1] / 10);
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      xy.push(x.toFixed(1) + ' ' + y.toFixed(1));
    }
    if (x1 < box.x || x0 > box.x + box.w || y1 < box.y || y0 > box.y + box.h) continue;
    d += 'M' + xy.join('L') + 'Z';
  }
  return d;
}

function drawPanel(svg, sites, pr, box, clipId) {
  const chosen = state.chosen;
  const g = el('g', { 'clip-path': 'url(#' + clipId + ')' });
  g.appendChild(el('rect', { class: 'sea', x: box.x, y: box.y, width: box.w, height: box.h }));
  const land = landPath(pr, box);
  if (land) g.appendChild(el('path', { class: 'land', d: land }));
  const step = pr.lon1 - pr.lon0 > 60 ? 30 : 5;
  for (let v = Math.ceil(pr.lon0 / step) * step; v <= pr.lon1; v += step)
    g.appendChild(el('path', { class: 'graticule', d: 'M' + pr.x(v) + ' ' + box.y + 'V' + (box.y + box.h) }));
  for (let v = Math.ceil(pr.lat0 / step) * step; v <= pr.lat1; v += step)
    g.appendChild(el('path', { class: 'graticule', d: 'M' + box.x + ' ' + pr.y(v) + 'H' + (box.x + box.w) }));
  const at = Object.fromEntries(state.sites.filter((s) => typeof s.latitude === 'number')
    .map((s) => [s.name, s]));
  if (chosen && at[chosen.root])
    for (const name of chosen.sites.filter((n) => at[n])) {
      const r = at[chosen.root], s = at[name];
      g.appendChild(el('path', { class: 'link', 'data-to': name,
                                 d: 'M' + pr.x(r.longitude) + ' ' + pr.y(r.latitude) + 'L' +
                                    pr.x(s.longitude) + ' ' + pr.y(s.latitude) }));
    }
  svg.appendChild(g);
  const items = [];
  for (const s of sites) {
    const isRoot = chosen && chosen.root === s.name;
    const isChosen = chosen && (isRoot || chosen.sites.includes(s.name));
    const p = { name: s.name, x: pr.x(s.longitude), y: pr.y(s.latitude), r: isChosen ? 5 : 3.5,
                cls: isChosen ? 'chosen' : '' };
    const dot = el('circle', { class: 'site' + (isChosen ? ' chosen' : '') + (isRoot ? ' root' : ''),
                               cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: p.r, 'data-site': s.name });
    dot.appendChild(el('title', {}, s.name + (s.cluster ? ' (' + s.cluster + ')' : '')));
    svg.appendChild(dot);
    items.push(p);
  }
  return items;
}

function drawMap() {
  const placed = state.sites.filter((s) => typeof s.latitude === 'number');
  const world = { x: 0, y: 0, w: MAP_W, h: WORLD_H };
  const svg = el('svg', { role: 'img', 'aria-label': 'map of the sites' });
  $('map').replaceChildren(svg);   // in the page first: labels are measured
  if (!placed.length) {
    svg.setAttribute('viewBox', '0 0 ' + MAP_W + ' 60');
    svg.appendChild(el('text', { x: 20, y: 40 }, 'no site has coordinates (gridtail sites --import)'));
    return;
  }
  const wp = projection(placed, world, 24, 20, false);
  const pts = placed.map((s) => ({ site: s, x: wp.x(s.longitude), y: wp.y(s.latitude) }));
  const groups = clusters(pts);
  const perRow = Math.min(groups.length, 3), rows = Math.ceil(groups.length / 3);
  const insetW = groups.length ? (MAP_W - (perRow - 1) * GAP) / perRow : 0;
  const H = WORLD_H + rows * (INSET_H + GAP);
  svg.setAttribute('viewBox', '0 0 ' + MAP_W + ' ' + H);
  svg.setAttribute('width', MAP_W);
  svg.setAttribute('height', H);
  const defs = el('defs', {});
  svg.appendChild(defs);
  const clipTo = (id, box) => {
    const clip = el('clipPath', { id });
    clip.appendChild(el('rect', { x: box.x, y: box.y, width: box.w, height: box.h }));
    defs.appendChild(clip);
  };
  clipTo('map-world', world);
  const inInset = new Set(groups.flat().map((p) => p.site.name));
  const worldItems = drawPanel(svg, placed, wp, world, 'map-world');
  const taken = worldItems.map(dotBox);
  const labels = el('g', { class: 'labels' });
  const letters = [];
  groups.forEach((grp, i) => {
    const xs = grp.map((p) => p.x), ys = grp.map((p) => p.y);
    const f = { x0: Math.min(...xs) - 8, y0: Math.min(...ys) - 8, x1: Math.max(...xs) + 8, y1: Math.max(...ys) + 8 };
    svg.appendChild(el('rect', { class: 'cluster', x: f.x0, y: f.y0, width: f.x1 - f.x0, height: f.y1 - f.y0 }));
    taken.push(f);
    letters.push({ name: String.fromCharCode(65 + i), x: f.x0, y: f.y0, r: 0, cls: 'letter' });
  });
  svg.appendChild(labels);
  const bounds = { x0: 2, y0: 2, x1: MAP_W - 2, y1: WORLD_H - 2 };
  placeLabels(labels, letters, bounds, taken);
  placeLabels(labels, worldItems.filter((p) => !inInset.has(p.name)), bounds, taken);
  for (const t of labels.querySelectorAll('text.letter')) t.removeAttribute('data-site');
  groups.forEach((grp, i) => {
    const box = { x: (i % 3) * (insetW + GAP), y: WORLD_H + GAP + Math.floor(i / 3) * (INSET_H + GAP),
                  w: insetW, h: INSET_H };
    const id = 'map-inset-' + i;
    clipTo(id, box);
    const sites = grp.map((p) => p.site);
    const pr = projection(sites, { x: box.x, y: box.y + 18, w: box.w, h: box.h - 18 }, 30, 2, true);
    const items = drawPanel(svg, sites, pr, box, id);
    svg.appendChild(el('rect', { class: 'inset', x: box.x, y: box.y, width: box.w, height: box.h }));
    const title = el('text', { class: 'letter', x: box.x + 6, y: box.y + 14 },
                     String.fromCharCode(65 + i) + ': ' + sites.length + ' sites');
    svg.appendChild(title);
    const tb = title.getBBox();
    const own = items.map(dotBox).concat([{ x0: tb.x, y0: tb.y, x1: tb.x + tb.width, y1: tb.y + tb.height }]);
    const layer = el('g', { class: 'labels' });
    svg.appendChild(layer);
    placeLabels(layer, items, { x0: box.x + 2, y0: box.y + 2, x1: box.x + box.w - 2, y1: box.y + box.h - 2 }, own);
  });
}

// ---------------------------------------------------------------- pair

function fmt(v, digits) {
  return typeof v === 'number' ? v.toFixed(digits === undefined ? 2 : digits) : '–';
}

async function tracked(src, dst) {
  const box = $('tracked');
  box.textContent = '';
  const est = await postJSON('/v1/estimate', { root: src, sites: [dst], model: 'adaptive' });
  const a = est.adaptive;
  const p = document.createElement('p');
  p.textContent = 'E[max] ' + fmt(est.e_max) + ' ms; ';
  if (!a || !a.rmse_by_method) {
    p.textContent += 'no forecast error tracked yet' +
      (est.warnings && est.warnings.length ? ': ' + est.warnings[0] : '');
    box.appendChild(p);
    return;
  }
  p.textContent += 'tracked forecast error over the last ' + a.outcomes + ' outcomes, ' +
    a.horizon_s + ' s ahead: ' + a.chosen + ' chosen (RMSE ' + fmt(a.rmse_ms) + ' ms)' +
    (a.left_out && a.left_out.length
      ? '; left out, its forecast now far from the others\': ' + a.left_out.join(', ') : '');
  box.appendChild(p);
  const t = document.createElement('table');
  t.id = 'tracked-table';
  t.innerHTML = '<tr><th>method</th><th>RMSE (ms)</th></tr>';
  for (const [m, v] of Object.entries(a.rmse_by_method)) {
    const row = t.insertRow();
    row.insertCell().textContent = m + (m === a.chosen ? ' (chosen)'
      : (a.left_out || []).includes(m) ? ' (left out)' : '');
    const c = row.insertCell();
    c.className = 'num';
    c.textContent = fmt(v);
  }
  box.appendChild(t);
}

// The pair's events of the last day (/v1/events), as the series marks them
const EVENTS_SHOWN = 50;

async function pairEvents(src, dst) {
  const doc = await getJSON('/v1/events?' + query({ src, dst, limit: EVENTS_SHOWN }));
  const items = doc.events.map((e) => {
    const li = document.createElement('li');
    li.className = e.kind;
    li.textContent = e.ts.replace('T', ' ').replace('Z', '') + ' UTC, ' +
      e.kind.replace('_', ' ') + ': ' + e.detail;
    return li;
  });
  if (doc.total > items.length) {
    const li = document.createElement('li');
    li.textContent = '... and ' + (doc.total - items.length) + ' more (gridtail events)';
    items.push(li);
  }
  if (!doc.total) {
    const li = document.createElement('li');
    li.textContent = 'none';
    items.push(li);
  }
  $('pair-events').replaceChildren(...items);
}

async function loadPair() {
  const src = $('src').value, dst = $('dst').value;
  showError('pair-error', null);
  if (!src || !dst || src === dst) {
    showError('pair-error', 'choose two different sites');
    return;
  }
  state.pair = { src, dst };
  writeHash();
  try {
    const [ccdf, series] = await Promise.all([
      getSVG('/v1/plot/ccdf?' + query({ src, dst })),
      getSVG('/v1/plot/series?' + query({ src, dst }))]);
    $('ccdf').replaceChildren(ccdf);
    $('series').replaceChildren(series);
    await Promise.all([tracked(src, dst), pairEvents(src, dst)]);
  } catch (e) {
    showError('pair-error', e);
  }
}

// ---------------------------------------------------------------- placement

function poolSites() {
  return Array.from($('pool').querySelectorAll('input:checked')).map((i) => i.value);
}

// what the placement used, in words: the window and model of the answer
// (the server's defaults when the form left them), each partner's model
function usedText(doc, req) {
  const best = doc.candidates[0];
  if (!best) return 'no placement could be estimated';
  const models = best.partners.map((p) => p.site + ' ' + p.model +
                                    (p.fallback ? ' (both fits flagged)' :
                                     p.other_fit ? ' (the other fit: the selected one flagged)' : ''));
  const w = best.combined && best.combined.weights;
  return 'Estimated with a window of ' + best.window + ' samples' +
    (req.window === undefined ? ' (the server\'s default)' : '') + ' and model ' + best.model +
    (req.model === undefined ? ' (the server\'s default)' : '') +
    (w ? '; weights ' + Object.entries(w).map(([m, v]) => m + ' ' + fmt(v)).join(', ') +
      '; the partners\' models (of ' + best.combined.chosen + ', the heaviest): '
      : '; the partners\' models: ') + models.join(', ') + '.';
}

// what a quantile of an answer rests on: calibrated by how many of the
// root's outcomes (docs/METHOD.md section 5), or the model's own
function restsOn(c, q) {
  const cal = c.calibration;
  if (!cal || !cal.outcomes) return 'the model\'s own';
  const model = cal.model_quantiles && cal.model_quantiles[q];
  return 'calibrated on ' + cal.outcomes + ' outcomes' +
    (cal.ready && cal.ready[q] ? '' : ' (too few: raised only)') +
    (model !== undefined ? '; model ' + fmt(model) : '');
}

function showPlacement(doc, req) {
  const t = $('place-result');
  t.innerHTML = '<tr><th>root</th><th>partner sites</th><th>E[max] (ms)</th><th>p99 (ms)</th>' +
    '<th>p99 rests on</th></tr>';
  for (const c of doc.candidates) {
    const row = t.insertRow();
    row.insertCell().textContent = c.root;
    row.insertCell().textContent = c.sites.join(', ');
    for (const v of [c.e_max, c.quantiles && c.quantiles.p99]) {
      const cell = row.insertCell();
      cell.className = 'num';
      cell.textContent = fmt(v);
    }
    row.insertCell().textContent = restsOn(c, 'p99');
  }
  const cap = t.createCaption();
  cap.textContent = 'search ' + doc.search + ', ' + doc.evaluated + ' sets estimated';
  $('place-used').textContent = usedText(doc, req);
  const best = doc.candidates[0];
  if (best && req.window === undefined)
    $('window').placeholder = best.window + ' (default)';
  const out = $('place-left-out');
  out.replaceChildren();
  if (doc.excluded && doc.excluded.length) {
    out.append('Left out:');
    const ul = document.createElement('ul');
    for (const why of doc.excluded) {
      const li = document.createElement('li');
      li.textContent = why;
      ul.appendChild(li);
    }
    out.appendChild(ul);
  }
}

function placeRequest() {
  const req = { pool: poolSites(), size: Number($('size').value), root: $('root').value,
                objective: $('objective').value, model: $('model').value };
  if ($('window').value !== '') req.window = Number($('window').value);
  return req;
}

async function place(ev) {
  if (ev) ev.preventDefault();
  showError('place-error', null);
  const req = placeRequest();
  state.place = req;
  writeHash();
  try {
    const doc = await postJSON('/v1/place', req);
    showPlacement(doc, req);
    state.chosen = doc.candidates.length ? doc.candidates[0] : null;
    drawMap();
    await loadMatrix();
  } catch (e) {
    showError('place-error', e);
  }
}

// ---------------------------------------------------------------- the URL
//
// The view lives in the URL's hash, so that a pair or a placement can be
// linked: metric=, src= and dst= (the pair shown), and pool=, size=,
// root=, objective=, window=, model= (the placement asked).  A link
// loaded, or a hash edited, is restored: the form filled, the view drawn.

function writeHash() {
  const h = new URLSearchParams();
  // the metric the page chose itself is not written: the link keeps the
  // page's choice; status is, when the page would choose another
  if (state.metric !== 'status' ? !state.metricAuto : state.silent) h.set('metric', state.metric);
  if (state.pair) { h.set('src', state.pair.src); h.set('dst', state.pair.dst); }
  if (state.place) {
    const r = state.place;
    h.set('pool', r.pool.slice().sort().join(','));
    for (const k of ['size', 'root', 'objective', 'window', 'model'])
      if (r[k] !== undefined) h.set(k, r[k]);
  }
  const hash = '#' + h.toString().replace(/%2C/g, ',');   // the pool's commas kept readable
  if (hash !== (location.hash || '#')) history.pushState(null, '', hash);
  state.hash = location.hash;
}

async function restoreHash() {
  state.hash = location.hash;
  const h = new URLSearchParams(location.hash.slice(1));
  const known = (id, v) => Array.from($(id).options).some((o) => o.value === v);
  const asked = h.get('metric') && known('metric', h.get('metric')) ? h.get('metric') : null;
  const metric = asked || (state.silent ? SILENT_METRIC : 'status');
  state.metricChosen = asked !== null;
  state.metricAuto = !asked && metric !== 'status';
  if (metric !== state.metric) {
    $('metric').value = state.metric = metric;
    showSilent();
    loadMatrix();
  }
  const src = h.get('src'), dst = h.get('dst');
  const jobs = [];
  if (src && dst && known('src', src) && known('dst', dst)) {
    $('src').value = src;
    $('dst').value = dst;
  }
  if (h.get('pool') && h.get('size')) {
    const pool = h.get('pool').split(',');
    for (const b of $('pool').querySelectorAll('input')) b.checked = pool.includes(b.value);
    $('size').value = h.get('size');
    for (const id of ['root', 'objective', 'model'])
      if (h.get(id) && known(id, h.get(id))) $(id).value = h.get(id);
    $('window').value = h.get('window') || '';
  }
  // the state as the URL says, so that drawing it writes back the same
  if (src && dst) state.pair = { src: $('src').value, dst: $('dst').value };
  if (h.get('pool') && h.get('size')) state.place = placeRequest();
  if (src && dst) jobs.push(loadPair());
  if (h.get('pool') && h.get('size')) jobs.push(place());
  await Promise.all(jobs);
}

// ---------------------------------------------------------------- start

function fillSites() {
  const names = state.sites.filter((s) => s.pairs_out + s.pairs_in > 0).map((s) => s.name);
  for (const id of ['src', 'dst', 'root']) {
    for (const n of names) {
      const o = document.createElement('option');
      o.value = o.textContent = n;
      $(id).appendChild(o);
    }
  }
  if (names.length > 1) $('dst').value = names[1];
  const pool = $('pool');
  for (const n of names) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = n;
    box.checked = true;
    label.append(box, ' ' + n);
    pool.appendChild(label);
  }
}

async function start() {
  $('metric').addEventListener('change', () => {
    state.metric = $('metric').value;
    state.metricChosen = true;
    state.metricAuto = false;
    writeHash();
    showSilent();
    loadMatrix();
  });
  $('matrix').addEventListener('click', matrixClick);
  $('wrong').addEventListener('click', wrongClick);
  $('pair-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadPair(); });
  $('place-form').addEventListener('submit', place);
  $('pool-all').addEventListener('click', () => {
    for (const b of $('pool').querySelectorAll('input')) b.checked = true;
  });
  $('pool-none').addEventListener('click', () => {
    for (const b of $('pool').querySelectorAll('input')) b.checked = false;
  });
  // back, forward, or a hash typed in: show what the URL says
  window.addEventListener('popstate', () => { if (location.hash !== state.hash) restoreHash(); });
  window.addEventListener('hashchange', () => { if (location.hash !== state.hash) restoreHash(); });
  freshness();
  setInterval(freshness, 60000);
  try {
    state.sites = (await getJSON('/v1/sites')).sites;
  } catch (e) {
    showError('matrix-error', e);
    return;
  }
  fillSites();
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.get('metric') && Array.from($('metric').options).some((o) => o.value === h.get('metric'))) {
    $('metric').value = state.metric = h.get('metric');
    state.metricChosen = true;
  }
  drawMap();
  await Promise.all([loadMatrix(), loadWrong()]);
  setInterval(loadWrong, 60000);
  // first render done: the browser test waits for it (and the benchmark,
  // scripts/bench/dashboard.sh, reads the time)
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = 'yes';
  await restoreHash();
}

start();
