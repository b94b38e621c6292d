// Topology: the SAS tree HBA → port → chain → enclosure → slot, and the hierarchy chart of
// field case 1: slices sized by disks, I/O, queued I/Os or slow I/Os, so that a JBOD that
// queues more than its identical peers (a missing path, a long chain) stands out.

import { api } from "../api.js";
import { plural } from "../units.js";
import { chart, COLORS, escape } from "../charts.js";
import { badge, enclosureHref, fill, h, ms, none, number, slot, table, when } from "../dom.js";

const METRICS = {
  disks: { label: "disks", unit: "disks", of: (f, slots) => slots },
  iops: { label: "I/O", unit: "I/Os per s", of: (f) => f?.iops },
  queued: { label: "queued I/Os", unit: "I/Os queued", of: (f) => f?.queued },
  slow: { label: "slow I/Os", unit: "slow I/Os", of: (f) => f?.slow_ios },
};

export async function render(root, { query, navigate }) {
  const view = await api("/v1/views/topology");
  performance.mark("pp:topology:data");
  const enclosures = new Map(view.enclosures.map((e) => [e.id, e]));
  const state = {
    size: METRICS[query.get("size")] ? query.get("size") : view.sampled ? "queued" : "disks",
    hierarchy: query.get("hierarchy") === "hba" ? "hba" : "enclosure",
  };
  drawSummary(root, view);
  drawCallouts(slot(root, "callouts"), view);
  drawTree(root, view, enclosures);
  drawRanking(slot(root, "ranking"), view, state);
  performance.mark("pp:topology:tree");
  const instance = await chart(slot(root, "sunburst"));
  const redraw = () => {
    drawChart(root, instance, view, enclosures, state);
    drawRanking(slot(root, "ranking"), view, state);
    const url = new URL(location.href);
    url.searchParams.set("size", state.size);
    url.searchParams.set("hierarchy", state.hierarchy);
    history.replaceState(null, "", url.pathname + url.search);
  };
  for (const input of root.querySelectorAll('input[name="size-by"]')) {
    input.checked = input.value === state.size;
    input.addEventListener("change", () => {
      state.size = input.value;
      redraw();
    });
  }
  const hierarchy = slot(root, "hierarchy");
  hierarchy.value = state.hierarchy;
  hierarchy.addEventListener("change", () => {
    state.hierarchy = hierarchy.value;
    redraw();
  });
  instance.on("click", (params) => {
    const id = params.data?.enclosureId;
    if (id && params.data.level === "enclosure") navigate(enclosureHref(id));
  });
  const painted = new Promise((resolve) => instance.on("finished", resolve));
  drawChart(root, instance, view, enclosures, state);
  await painted;
  root.dataset.ready = "true";
  performance.mark("pp:topology:drawn");
}

function drawSummary(root, view) {
  const disks = view.enclosures.reduce((n, e) => n + e.slots.filter((s) => s.disk_id).length, 0);
  const window = view.sampled
    ? `figures over ${when(view.window_start).slice(11)}–${when(view.window_end).slice(11)}`
    : "no statistics sampled yet: the chart is sized by disks";
  fill(
    slot(root, "summary"),
    `${view.host} · ${plural(view.hbas.length, "HBA")} · ${plural(view.enclosures.length, "enclosure")} · ${plural(disks, "disk")} · report of ${when(view.generated_at)} · ${window}`,
  );
}

function drawCallouts(element, view) {
  const missing = view.enclosures.filter((e) => e.hba_ports < e.hba_ports_expected);
  const parts = [];
  if (missing.length) {
    parts.push(
      h(
        "div",
        { class: "callout", role: "note", dataset: { callout: "paths" } },
        h("span", { "aria-hidden": "true" }, "✖ "),
        h("strong", {}, `${missing.length === 1 ? "An enclosure has" : `${missing.length} enclosures have`} fewer SAS paths than expected: `),
        missing.map((e, i) => [
          i ? ", " : "",
          h("a", { href: enclosureHref(e.id) }, e.name),
          ` (${e.hba_ports} of ${e.hba_ports_expected} paths)`,
        ]),
      ),
    );
  }
  const queues = view.enclosures.map((e) => e.figures?.queue_per_disk).filter((q) => q != null).sort((a, b) => a - b);
  if (queues.length >= 3) {
    const median = queues[Math.floor(queues.length / 2)];
    const high = view.enclosures.filter((e) => (e.figures?.queue_per_disk ?? 0) >= 1.5 * median && median > 0);
    if (high.length) {
      parts.push(
        h(
          "div",
          { class: "callout warning", role: "note", dataset: { callout: "queue" } },
          h("span", { "aria-hidden": "true" }, "▲ "),
          h("strong", {}, "Queue per disk well above identical peers: "),
          high.map((e, i) => [
            i ? ", " : "",
            h("a", { href: enclosureHref(e.id) }, e.name),
            ` ${number(e.figures.queue_per_disk, 1)} (×${number(e.figures.queue_per_disk / median, 1)})`,
          ]),
          ` against a median of ${number(median, 1)} I/Os per disk.`,
        ),
      );
    }
  }
  fill(element, parts);
}

// --- the tree ---------------------------------------------------------------------------

const FIGURE_COLUMNS = [
  ["q/disk", (f) => number(f.queue_per_disk, 1), "I/Os active plus waiting per disk"],
  ["IOPS", (f) => number(f.iops), "I/Os per second"],
  ["slow", (f) => (f.ios && f.slow_ios != null ? `${number((100 * f.slow_ios) / f.ios, 1)}%` : "–"), "share of I/Os slower than the threshold"],
  ["p99", (f) => ms(f.p99_ms), "99th percentile latency"],
];

function figureCells(f) {
  return FIGURE_COLUMNS.map(([, value]) => h("span", { class: "fig" }, f && f.measured ? value(f) : ""));
}

function node(kind, name, { depth, worst, extra = [], figures, open = false, data = {} }) {
  const details = h("details", { class: `node ${worst ? `node-${worst}` : ""}`, dataset: data });
  details.open = open;
  details.append(
    h(
      "summary",
      {},
      h(
        "span",
        { class: "label", style: `padding-left:${depth * 16}px` },
        h("span", { class: "kind" }, kind),
        name,
        worst ? badge(worst) : null,
        extra,
      ),
      figureCells(figures),
    ),
  );
  return details;
}

function pathsBadge(e) {
  const low = e.hba_ports < e.hba_ports_expected;
  return h(
    "span",
    { class: low ? "paths-low" : "paths-ok", dataset: { paths: e.hba_ports } },
    `${low ? "✖ " : "✔ "}${e.hba_ports} of ${e.hba_ports_expected} paths`,
  );
}

function enclosureNode(e, position, depth) {
  const details = node("JBOD", h("a", { class: "name", href: enclosureHref(e.id) }, e.name), {
    depth,
    worst: e.worst,
    figures: e.figures,
    extra: [position ? h("span", { class: "hint" }, position) : null, pathsBadge(e)],
    data: { enclosure: e.name },
  });
  details.addEventListener(
    "toggle",
    () => {
      if (details.open && details.childElementCount === 1) details.append(slotGrid(e, depth + 1));
    },
  );
  return details;
}

function slotGrid(e, depth) {
  return h(
    "div",
    { class: "slots", style: `margin-left:${depth * 16 + 14}px` },
    e.slots.map((s) => {
      const state = !s.occupied ? "○ empty" : s.fault ? "✖ fault" : s.hba_ports < s.hba_ports_expected ? `▲ ${s.hba_ports}p` : `✔ ${s.hba_ports}p`;
      const q = s.figures?.queue_per_disk != null ? ` q ${number(s.figures.queue_per_disk, 1)}` : "";
      return h("div", { class: "slot", title: s.disk || "empty" }, h("span", { class: "mono" }, s.name), ` ${state}${q} ${s.disk || ""}`);
    }),
  );
}

function drawTree(root, view, enclosures) {
  const tree = slot(root, "tree");
  const parts = view.hbas.map((hba) => {
    const hbaNode = node("HBA", h("span", { class: "name" }, hba.name), {
      depth: 0,
      worst: hba.worst,
      figures: hba.figures,
      extra: [hba.pcie ? h("span", { class: "hint" }, `PCIe ${hba.pcie}`) : null],
      open: true,
    });
    for (const port of hba.ports) {
      const portNode = node("port", h("span", { class: "name" }, port.name), {
        depth: 1,
        worst: port.worst,
        figures: port.figures,
        extra: [h("span", { class: "hint" }, `${port.kernel_name} · ${port.link}`)],
        open: true,
      });
      if (!port.chains.length) portNode.append(h("p", { class: "hint", style: "padding-left:48px" }, `${port.attached}: no enclosure on this port`));
      for (const chain of port.chains) {
        const count = new Set(chain.members.map((m) => m.enclosure_id)).size;
        const chainNode = node("chain", h("span", { class: "name" }, `chain of ${count}`), {
          depth: 2,
          worst: chain.worst,
          figures: chain.figures,
          extra: [h("span", { class: "hint" }, `depth ${chain.depth}`), chain.findings.length ? h("span", { class: "hint" }, chain.findings.join("; ")) : null],
          open: true,
        });
        for (const member of chain.members) {
          const e = enclosures.get(member.enclosure_id);
          if (e) chainNode.append(enclosureNode(e, `#${member.position}${chain.members.some((m) => m.branch > 1) ? ` of branch ${member.branch}` : ""}`, 3));
        }
        portNode.append(chainNode);
      }
      hbaNode.append(portNode);
    }
    return hbaNode;
  });
  if (view.unchained.length) {
    const loose = node("other", h("span", { class: "name" }, "enclosures on no chain"), { depth: 0, open: true });
    for (const id of view.unchained) loose.append(enclosureNode(enclosures.get(id), null, 1));
    parts.push(loose);
  }
  const head = h(
    "div",
    { class: "tree-head", "aria-hidden": "true" },
    h("span", {}, view.sampled ? `last ${Math.round((new Date(view.window_end) - new Date(view.window_start)) / 60000)} min` : "not sampled yet"),
    FIGURE_COLUMNS.map(([label, , title]) => h("span", { class: "fig", title }, label)),
  );
  fill(tree, parts.length ? [head, parts] : none("No SAS HBA in this inventory."));
  root.querySelector('[data-action="expand"]').addEventListener("click", () => {
    for (const d of tree.querySelectorAll("details")) d.open = true;
  });
  root.querySelector('[data-action="collapse"]').addEventListener("click", () => {
    for (const d of tree.querySelectorAll("details")) d.open = false;
  });
}

// --- the chart --------------------------------------------------------------------------

function statusColor(worst) {
  return worst === "critical" ? COLORS.critical : worst === "warning" ? COLORS.warning : COLORS.ok;
}

function enclosureValue(e, metric, share = 1) {
  const slots = e.slots.filter((s) => s.disk_id);
  const diskValues = slots.map((s) => (metric === "disks" ? 1 : METRICS[metric].of(s.figures)));
  const measured = diskValues.filter((v) => v != null);
  const own = metric === "disks" ? slots.length : METRICS[metric].of(e.figures);
  const children = measured.length === slots.length && slots.length
    ? slots.map((s, i) => ({
        name: `${e.name} ${s.name}`,
        value: Math.max(0, diskValues[i]) * share,
        disk: s.disk,
        level: "disk",
        itemStyle: { color: statusColor(e.worst), opacity: 0.55 },
      }))
    : [];
  const value = children.length ? children.reduce((n, c) => n + c.value, 0) : Math.max(0, own ?? 0) * share;
  return { value, children };
}

function sunburstData(view, enclosures, state) {
  const metric = state.size;
  const enclosureItem = (e, share = 1) => {
    const { value, children } = enclosureValue(e, metric, share);
    const mark = e.worst === "critical" ? "✖ " : e.worst === "warning" ? "▲ " : "";
    return {
      name: `${mark}${e.name}`,
      enclosureId: e.id,
      level: "enclosure",
      value,
      worst: e.worst,
      paths: `${e.hba_ports} of ${e.hba_ports_expected}`,
      children,
      itemStyle: { color: statusColor(e.worst), borderColor: "#fff", borderWidth: e.worst ? 2 : 1 },
    };
  };
  if (state.hierarchy === "enclosure") return view.enclosures.map((e) => enclosureItem(e));
  const reach = new Map();
  for (const hba of view.hbas) for (const port of hba.ports) for (const chain of port.chains) for (const m of chain.members) {
    reach.set(m.enclosure_id, (reach.get(m.enclosure_id) || 0) + 1);
  }
  return view.hbas.map((hba) => ({
    name: hba.name,
    level: "hba",
    itemStyle: { color: "#52606d" },
    children: hba.ports.map((port) => ({
      name: port.name,
      level: "port",
      itemStyle: { color: "#7b8794" },
      children: port.chains.flatMap((chain) =>
        chain.members.map((m) => enclosureItem(enclosures.get(m.enclosure_id), 1 / (reach.get(m.enclosure_id) || 1))),
      ),
    })),
  }));
}

function drawChart(root, instance, view, enclosures, state) {
  const metric = METRICS[state.size];
  const data = sunburstData(view, enclosures, state);
  const enclosureRing = state.hierarchy === "enclosure" ? 1 : 3;
  const levels = [{}];
  if (state.hierarchy === "hba") {
    levels.push({ r0: "8%", r: "22%", label: { rotate: "tangential", fontSize: 10 } });
    levels.push({ r0: "22%", r: "36%", label: { rotate: "tangential", fontSize: 10 } });
  }
  levels.push({
    r0: state.hierarchy === "hba" ? "36%" : "12%",
    r: "74%",
    label: { rotate: "radial", fontSize: 12, fontWeight: "bold", color: "#fff", minAngle: 6 },
  });
  levels.push({ r0: "74%", r: "90%", label: { show: false }, itemStyle: { borderWidth: 0.5 } });
  instance.setOption(
    {
      animation: false,
      tooltip: {
        formatter: (p) => {
          const d = p.data || {};
          const lines = [`<b>${escape(p.name)}</b>`, `${escape(number(p.value, 1))} ${escape(metric.unit)}`];
          if (d.paths) lines.push(`${escape(d.paths)} SAS paths`);
          if (d.worst) lines.push(`worst open finding: ${escape(d.worst)}`);
          if (d.disk) lines.push(escape(d.disk));
          return lines.join("<br>");
        },
      },
      series: [
        {
          type: "sunburst",
          data,
          radius: [0, "90%"],
          sort: null,
          nodeClick: false,
          emphasis: { focus: "ancestor" },
          levels,
        },
      ],
    },
    true,
  );
  const el = slot(root, "sunburst");
  el.dataset.size = state.size;
  el.setAttribute("aria-label", `Hierarchy chart: enclosures sized by ${metric.label}`);
  const split = state.hierarchy === "hba" ? " A dual-pathed JBOD appears under each port that reaches it, its figures split evenly between them." : "";
  fill(
    slot(root, "chart-note"),
    `Sized by ${metric.label}. Red ✖: a critical open finding; amber ▲: a warning; blue: none. Click a JBOD to open it.${split}`,
  );
  if (enclosureRing && !data.length) fill(slot(root, "chart-note"), "No enclosures.");
}

function drawRanking(element, view, state) {
  const metric = state.size;
  const valued = view.enclosures.map((e) => ({ e, value: enclosureValue(e, metric).value }));
  valued.sort((a, b) => b.value - a.value);
  const top = Math.max(1e-9, ...valued.map((v) => v.value));
  fill(
    element,
    h(
      "div",
      { class: "table-wrap" },
      table(
        [
          { label: "Enclosure", value: (v) => [v.e.worst ? badge(v.e.worst, "") : null, " ", h("a", { href: enclosureHref(v.e.id) }, v.e.name)] },
          { label: "Paths", value: (v) => pathsBadge(v.e) },
          { label: METRICS[metric].label, num: true, value: (v) => [number(v.value, metric === "disks" ? 0 : 1), " ", h("span", { class: `bar${v.e.hba_ports < v.e.hba_ports_expected ? " hot" : ""}`, style: `width:${Math.round((60 * v.value) / top)}px` })] },
          { label: "q/disk", num: true, value: (v) => number(v.e.figures?.queue_per_disk, 1) },
          { label: "IOPS", num: true, value: (v) => number(v.e.figures?.iops) },
          { label: "slow", num: true, value: (v) => (v.e.figures?.ios ? `${number((100 * (v.e.figures.slow_ios || 0)) / v.e.figures.ios, 1)}%` : "–") },
          { label: "p99", num: true, value: (v) => ms(v.e.figures?.p99_ms) },
        ],
        valued,
        { rowAttrs: (v) => ({ dataset: { enclosure: v.e.name } }) },
      ),
    ),
  );
}
