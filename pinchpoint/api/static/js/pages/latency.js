// Latency: a heat map of time × latency buckets for one entity (darker: more I/Os), the
// percentile lines over it, an outlier zoom that cuts the slowest few per cent off the scale,
// and a drill-down from a group to its members, slowest first.

import { api } from "../api.js";
import { plural } from "../units.js";
import { chart, escape } from "../charts.js";
import { fill, h, ms, none, number, say, slot, table, when } from "../dom.js";

const LEVEL_NAMES = {
  hba: "HBA",
  "hba-port": "HBA port",
  chain: "chain",
  enclosure: "enclosure",
  "fc-adapter": "FC adapter",
  "fc-port": "FC port",
  lun: "LUN",
  disk: "disk",
  controller: "controller",
  "controller-port": "controller port",
};
const MEMBER_LEVEL = {
  hba: "hba-port",
  "hba-port": "enclosure",
  chain: "enclosure",
  enclosure: "disk",
  "fc-adapter": "fc-port",
  "fc-port": "lun",
  controller: "controller-port",
  "controller-port": "disk",
};
const PERCENTILES = [
  ["p50", "#1d4ed8", "solid"],
  ["p90", "#0f766e", "solid"],
  ["p99", "#6b21a8", "solid"],
  ["p99.9", "#111827", "dashed"],
];
const HEAT = ["#fff5d6", "#fdd49e", "#fc8d59", "#d7301f", "#7f0000"];
const SLOW_MS = 220;

export async function render(root, { query, navigate }) {
  const entities = await api("/v1/views/entities");
  const byId = new Map(entities.map((e) => [e.id, e]));
  const range = Number(query.get("range")) || 3600;
  const zoom = Number(query.get("zoom")) || 0;
  const kind = query.get("kind") || "";
  let entityId = query.get("entity");
  if (!entityId) {
    const enclosures = entities.filter((e) => e.level === "enclosure");
    entityId = (enclosures[0] || entities[0])?.id;
  }
  if (!entityId) {
    fill(slot(root, "summary"), "Nothing to draw: this inventory has no disk groups.");
    root.dataset.ready = "true";
    return;
  }
  const trail = (query.get("trail") || "").split(",").filter(Boolean);
  const entity = byId.get(entityId) || { id: entityId, name: entityId, level: entityId.startsWith("disk:") ? "disk" : "enclosure" };
  const go = (changes) => {
    const next = new URLSearchParams({ entity: entityId, range, zoom, kind, trail: trail.join(",") });
    for (const [key, value] of Object.entries(changes)) next.set(key, value);
    if (!next.get("trail")) next.delete("trail");
    if (!next.get("kind")) next.delete("kind");
    navigate(`/latency?${next}`);
  };
  drawControls(root, entities, entity, range, zoom, go);
  const end = new Date();
  const start = new Date(end.getTime() - range * 1000);
  const kinds = kind.split(",").filter(Boolean).map((k) => `&kind=${encodeURIComponent(k)}`).join("");
  const window = `from=${encodeURIComponent(start.toISOString())}&to=${encodeURIComponent(end.toISOString())}${kinds}`;
  const memberLevel = MEMBER_LEVEL[entity.level];
  const [own, members] = await Promise.all([
    api(`/v1/stats?entity=${encodeURIComponent(entityId)}&${window}`),
    memberLevel ? api(`/v1/stats?entity=${encodeURIComponent(entityId)}&by=${memberLevel}&${window}`) : null,
  ]);
  const series = own.series[0];
  const name = series?.name || entity.name;
  drawCrumbs(slot(root, "crumbs"), trail, byId, name, go);
  drawKinds(slot(root, "kind"), series, kind, go);
  fill(slot(root, "heat-title"), `${name} (${LEVEL_NAMES[entity.level] || entity.level}): ${series?.latency || "latency"}`);
  await drawHeatmap(root, series, zoom, own.latency_note);
  drawMembers(root, members, memberLevel, (member) => go({ entity: member.entity, trail: [...trail, entityId].join(",") }));
  root.dataset.ready = "true";
}

function drawControls(root, entities, entity, range, zoom, go) {
  const levels = [...new Set(entities.map((e) => e.level))];
  if (!levels.includes(entity.level)) levels.push(entity.level);
  const levelSelect = slot(root, "level");
  fill(levelSelect, levels.map((l) => h("option", { value: l, selected: l === entity.level }, LEVEL_NAMES[l] || l)));
  const entitySelect = slot(root, "entity");
  const listEntities = (level) => {
    const choices = entities.filter((e) => e.level === level);
    if (level === entity.level && !choices.some((e) => e.id === entity.id)) choices.unshift(entity);
    fill(entitySelect, choices.map((e) => h("option", { value: e.id, selected: e.id === entity.id }, e.name)));
  };
  listEntities(entity.level);
  levelSelect.addEventListener("change", () => {
    listEntities(levelSelect.value);
    go({ entity: entitySelect.value, trail: "" });
  });
  entitySelect.addEventListener("change", () => go({ entity: entitySelect.value, trail: "" }));
  const rangeSelect = slot(root, "range");
  rangeSelect.value = String(range);
  rangeSelect.addEventListener("change", () => go({ range: rangeSelect.value }));
  const zoomSelect = slot(root, "zoom");
  zoomSelect.value = String(zoom);
  zoomSelect.addEventListener("change", () => go({ zoom: zoomSelect.value }));
  slot(root, "form").addEventListener("submit", (event) => event.preventDefault());
}

/** The latency choices the series offers (read and write, total wait or device time). */
function drawKinds(select, series, kind, go) {
  const choices = series?.latency_choices || [];
  const options = [h("option", { value: "", selected: !kind }, choices.length ? `best there is (${choices[0].label})` : "best there is")];
  for (const choice of choices) {
    const value = choice.kinds.join(",");
    options.push(h("option", { value, selected: value === kind }, choice.label));
  }
  if (kind && !choices.some((c) => c.kinds.join(",") === kind)) options.push(h("option", { value: kind, selected: true }, `${kind} (not in this range)`));
  fill(select, options);
  select.disabled = choices.length < 2 && !kind;
  select.onchange = () => go({ kind: select.value });
}

function drawCrumbs(element, trail, byId, name, go) {
  if (!trail.length) {
    fill(element);
    return;
  }
  fill(
    element,
    trail.map((id, i) => [
      h("a", { href: "#", onclick: (event) => { event.preventDefault(); go({ entity: id, trail: trail.slice(0, i).join(",") }); } }, byId.get(id)?.name || id),
      h("span", { "aria-hidden": "true" }, " › "),
    ]),
    h("span", { "aria-current": "page" }, name),
  );
}

/** `text` as a sentence: capitalised, with a full stop. */
function sentence(text) {
  const body = text.charAt(0).toUpperCase() + text.slice(1);
  return body.endsWith(".") ? body : `${body}.`;
}

/** [low, high) in ms of the power-of-two nanosecond octave holding `lowMs`. */
function octave(lowMs) {
  const exponent = Math.floor(Math.log2(lowMs * 1e6) + 1e-9);
  return [2 ** exponent / 1e6, 2 ** (exponent + 1) / 1e6];
}

/** True when the histograms hold at most one bucket per octave (a power-of-two source such as
 * `zpool iostat -w`): drawn by octave, their rows touch instead of leaving thin stripes. */
function sparse(points) {
  const lows = new Set();
  for (const point of points) for (const [low] of point.histogram) lows.add(low);
  const octaves = new Set([...lows].map((low) => octave(Math.max(low * 1000, 0.001))[0]));
  return lows.size <= octaves.size * 1.25;
}

/** The whole window's buckets summed: [[low_ms, high_ms, count]] from fastest. */
function mergedBuckets(points) {
  const sums = new Map();
  for (const point of points) {
    for (const [low, high, count] of point.histogram) {
      const key = low;
      const entry = sums.get(key) || [low * 1000, high == null ? low * 2000 : high * 1000, 0];
      entry[2] += count;
      sums.set(key, entry);
    }
  }
  return [...sums.values()].sort((a, b) => a[0] - b[0]);
}

/** The latency under which all but the slowest `percent` % of I/Os fall (bucket bound). */
function cutFor(buckets, percent) {
  const total = buckets.reduce((n, b) => n + b[2], 0);
  let seen = 0;
  for (const [, high, count] of buckets) {
    seen += count;
    if (seen >= total * (1 - percent / 100)) return { cut: high, hidden: total - seen, total };
  }
  return { cut: buckets.at(-1)?.[1], hidden: 0, total };
}

async function drawHeatmap(root, series, zoom, sourceNote) {
  const element = slot(root, "heatmap");
  const points = series?.points || [];
  const withHistograms = points.filter((p) => p.histogram.length);
  const note = slot(root, "heat-note");
  if (!withHistograms.length) {
    element.dataset.cells = "0";
    fill(element, none(points.length ? "These points carry no latency histogram (means only)." : "No statistics for this entity in this time range yet."));
    fill(note, sourceNote ? sentence(sourceNote) : "");
    return;
  }
  const byOctave = sparse(withHistograms);
  const cells = [];
  let maxCount = 1;
  for (const point of withHistograms) {
    const t0 = new Date(point.start).getTime();
    const t1 = t0 + point.resolution_s * 1000;
    const rows = new Map();
    for (const [low, high, count] of point.histogram) {
      let lowMs = Math.max(low * 1000, 0.001);
      let highMs = high == null ? lowMs * 2 : high * 1000;
      if (byOctave) [lowMs, highMs] = octave(lowMs);
      const row = rows.get(lowMs) || [t0, t1, lowMs, highMs, 0, 0];
      row[4] += count;
      rows.set(lowMs, row);
    }
    for (const row of rows.values()) {
      row[5] = Math.log10(row[4] + 1);
      cells.push(row);
      maxCount = Math.max(maxCount, row[4]);
    }
  }
  const buckets = mergedBuckets(withHistograms);
  const lowest = buckets[0][0];
  const { cut, hidden, total } = zoom > 0 ? cutFor(buckets, zoom) : { cut: buckets.at(-1)[1], hidden: 0, total: buckets.reduce((n, b) => n + b[2], 0) };
  const yMin = 10 ** Math.floor(Math.log10(Math.max(lowest, 0.001)));
  const lines = PERCENTILES.map(([key, color, type]) => ({
    name: key,
    type: "line",
    showSymbol: points.length < 3, // a line of one point draws nothing: its marks show it
    symbolSize: 7,
    connectNulls: false,
    lineStyle: { color, width: 2, type, shadowColor: "#ffffff", shadowBlur: 3 },
    itemStyle: { color },
    z: 5,
    data: points
      .filter((p) => p.percentiles_ms[key] != null)
      .map((p) => [new Date(p.start).getTime() + (p.resolution_s * 1000) / 2, p.percentiles_ms[key]]),
  }));
  const instance = await chart(element);
  instance.setOption({
    animation: false,
    grid: { left: 70, right: 110, top: 30, bottom: 40 },
    legend: { top: 0, data: PERCENTILES.map(([key]) => key) },
    tooltip: {
      trigger: "item",
      formatter: (p) => {
        if (p.seriesType === "line") return `${escape(p.seriesName)}: ${escape(ms(p.value[1]))}<br>${escape(when(new Date(p.value[0]).toISOString()))}`;
        const [t0, , low, high, count] = p.value;
        return `${escape(when(new Date(t0).toISOString()))}<br>${escape(ms(low))} – ${escape(ms(high))}: <b>${escape(number(count))}</b> I/Os`;
      },
    },
    xAxis: { type: "time", axisLabel: { hideOverlap: true } },
    yAxis: {
      type: "log",
      logBase: 10,
      min: yMin,
      max: cut,
      name: "latency",
      nameTextStyle: { align: "right" },
      axisLabel: { formatter: (v) => ms(v) },
      splitLine: { lineStyle: { color: "#eef0f3" } },
    },
    visualMap: {
      type: "continuous",
      dimension: 5,
      seriesIndex: 0,
      min: 0,
      max: Math.log10(maxCount + 1),
      inRange: { color: HEAT },
      orient: "vertical",
      right: 8,
      top: 40,
      itemHeight: 200,
      text: [`${number(maxCount)} I/Os`, "1"],
      formatter: (v) => number(10 ** v - 1),
      calculable: false,
    },
    series: [
      {
        name: "I/Os",
        type: "custom",
        clip: true,
        encode: { x: [0, 1], y: [2, 3], tooltip: [4] },
        data: cells,
        renderItem: (params, api) => {
          const top = api.coord([api.value(0), api.value(3)]);
          const bottom = api.coord([api.value(1), api.value(2)]);
          return {
            type: "rect",
            shape: { x: top[0], y: top[1], width: Math.max(1, bottom[0] - top[0]), height: Math.max(1, bottom[1] - top[1]) },
            style: api.style({ stroke: null }),
          };
        },
      },
      ...lines,
    ],
  });
  element.dataset.cells = String(cells.length);
  const parts = [`${plural(total, "I/O")} in ${plural(withHistograms.length, "point")} of ${series.resolution_s ?? "?"} s.`];
  if (zoom > 0) parts.push(`Zoomed: the slowest ${zoom}% (${number(hidden)} I/Os above ${ms(cut)}) are off the scale.`);
  parts.push("Colour: I/Os per cell, on a log scale. Lines: percentiles per point.");
  if (byOctave) parts.push("Rows are power-of-two octaves: the source measured no finer (zpool iostat -w).");
  if (sourceNote) parts.push(sentence(sourceNote));
  fill(slot(root, "heat-note"), parts.join(" "));
}

function summary(points) {
  const buckets = mergedBuckets(points);
  const total = buckets.reduce((n, b) => n + b[2], 0);
  let slow = 0;
  for (const [low, high, count] of buckets) {
    if (low >= SLOW_MS) slow += count;
    else if (high > SLOW_MS) slow += (count * (high - SLOW_MS)) / (high - low);
  }
  const mean = (metric) => {
    const values = points.map((p) => p.values[metric]).filter((v) => v != null);
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  };
  const p99s = points.map((p) => p.percentiles_ms.p99).filter((v) => v != null);
  return {
    iops: (mean("read_iops") ?? 0) + (mean("write_iops") ?? 0),
    queue: mean("queue"),
    p99: p99s.length ? Math.max(...p99s) : null,
    p99Median: p99s.length ? [...p99s].sort((a, b) => a - b)[Math.floor(p99s.length / 2)] : null,
    slowShare: total ? slow / total : null,
    ios: total,
  };
}

function drawMembers(root, members, memberLevel, open) {
  const element = slot(root, "members");
  if (!memberLevel || !members) {
    fill(slot(root, "members-title"), "Members");
    fill(element, none("A single device: nothing to drill into."));
    return;
  }
  fill(slot(root, "members-title"), `Members: ${LEVEL_NAMES[memberLevel]}s, slowest first`);
  const rows = members.series.map((s) => ({ ...s, figures: summary(s.points) }));
  rows.sort((a, b) => (b.figures.slowShare ?? -1) - (a.figures.slowShare ?? -1) || (b.figures.queue ?? 0) - (a.figures.queue ?? 0));
  if (!rows.length) {
    fill(element, none("No member has statistics in this time range."));
    return;
  }
  const shares = rows.map((r) => r.figures.slowShare).filter((v) => v != null).sort((a, b) => a - b);
  const median = shares.length ? shares[Math.floor(shares.length / 2)] : null;
  const top = Math.max(1e-9, ...shares);
  fill(
    element,
    table(
      [
        { label: LEVEL_NAMES[memberLevel], value: (r) => h("button", { type: "button", class: "link", onclick: () => open(r) }, r.name) },
        { label: "IOPS", num: true, value: (r) => number(r.figures.iops) },
        { label: "queue", num: true, value: (r) => number(r.figures.queue, 1) },
        { label: "p99 (median point)", num: true, value: (r) => ms(r.figures.p99Median) },
        { label: "p99 (worst point)", num: true, value: (r) => ms(r.figures.p99) },
        {
          label: `I/Os ≥ ${SLOW_MS} ms`,
          num: true,
          value: (r) =>
            r.figures.slowShare == null
              ? "–"
              : [`${number(100 * r.figures.slowShare, 1)}% `, h("span", { class: `bar${median && r.figures.slowShare > 1.5 * median ? " hot" : ""}`, style: `width:${Math.round((60 * r.figures.slowShare) / top)}px` })],
        },
        { label: "I/Os", num: true, value: (r) => number(r.figures.ios) },
      ],
      rows,
      { rowAttrs: (r) => ({ class: median && r.figures.slowShare > 1.5 * median ? "outlier" : null, dataset: { member: r.name } }) },
    ),
  );
  if (rows.length >= 400) say("Only the first 400 members are listed.");
}
