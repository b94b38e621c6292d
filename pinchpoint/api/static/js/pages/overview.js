// Overview: health at a glance. Open findings by severity, the newest with entity and fix, the
// last sweep, collectors that failed, and open findings over the report history.

import { api } from "../api.js";
import { markdownText } from "../markup.js";
import { chart, COLORS } from "../charts.js";
import { ago, badge, fill, h, none, number, slot, table, when } from "../dom.js";

const SEVERITIES = ["critical", "warning", "info"];

export async function render(root) {
  const [ready, latest, open, pending, muted, history] = await Promise.all([
    api("/readyz").catch((error) => error.problem || { reasons: [error.message] }),
    api("/v1/reports/latest").catch(() => null),
    api("/v1/findings?state=open&limit=1000"),
    api("/v1/findings?state=pending&limit=1000"),
    api("/v1/findings?state=muted&limit=1"),
    api("/v1/reports?limit=200"),
  ]);
  const host = latest?.host?.hostname || "no report yet";
  fill(
    slot(root, "host"),
    `${host} · `,
    ready.ready ? badge("ok", "ready") : badge("warning", `not ready: ${(ready.reasons || []).join("; ")}`),
    latest?.status === "partial" ? [" · ", badge("warning", "partial")] : null,
  );
  drawCoverage(slot(root, "coverage"), latest);
  drawCounts(slot(root, "counts"), history.items[0], open.items, pending.total, muted.total);
  drawSweep(slot(root, "sweep"), ready, history.items[0], latest);
  drawCollection(slot(root, "collection"), latest);
  drawNewest(slot(root, "newest"), [...open.items, ...pending.items]);
  await drawTrend(slot(root, "trend"), history.items);
  root.dataset.ready = "true";
}

/** A sweep's unmuted findings by severity: what the tiles and every bar of the chart count,
 * so that the tiles and the chart's newest bar are one figure. */
function sweepCounts(summary) {
  return Object.fromEntries(SEVERITIES.map((s) => [s, summary?.findings?.[s] ?? 0]));
}

function drawCounts(element, latest, openFindings, pendingTotal, mutedTotal) {
  const counts = sweepCounts(latest);
  const open = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
  for (const finding of openFindings) open[finding.severity] += 1;
  fill(
    element,
    SEVERITIES.map((severity) =>
      h(
        "a",
        {
          class: `card ${severity}`,
          href: latest ? `/reports?view=${latest.id}` : `/findings?state=open&severity=${severity}`,
          dataset: { severity, count: counts[severity] },
          title: "Findings of the last sweep (not muted); open: raised after enough consecutive sweeps",
        },
        h("div", { class: "n" }, number(counts[severity])),
        h("div", { class: "label" }, badge(severity), " in the last sweep"),
        h("div", { class: "label", dataset: { open: open[severity] } }, `${number(open[severity])} open`),
      ),
    ),
    h(
      "a",
      { class: "card info", href: "/findings?state=pending", title: "Seen, but not yet in enough consecutive sweeps to be raised" },
      h("div", { class: "n" }, number(pendingTotal)),
      h("div", { class: "label" }, badge("info", "pending"), " confirming"),
    ),
    h(
      "a",
      { class: "card muted", href: "/findings?state=muted" },
      h("div", { class: "n" }, number(mutedTotal)),
      h("div", { class: "label" }, badge("muted", "muted")),
    ),
  );
}

// A report where most rules could not run is partial: said with the count and the reasons,
// never left to look like a green "no findings".
function drawCoverage(element, latest) {
  if (latest?.status !== "partial") {
    fill(element);
    return;
  }
  const [head, ...reasons] = latest.status_reasons || [];
  fill(
    element,
    h(
      "div",
      { class: "callout warning", dataset: { status: "partial" } },
      badge("warning", "partial"),
      " ",
      h("strong", {}, head || "most rules could not run"),
      reasons.length ? h("ul", { class: "plain" }, reasons.map((reason) => h("li", {}, reason))) : null,
    ),
  );
}

function drawSweep(element, ready, summary, latest) {
  const rows = [
    ["Target", ready.target || "–"],
    ["Last report", summary ? `${when(summary.generated_at)} (${ago(summary.generated_at)})` : "none yet"],
    ["Sweep took", summary?.duration_s != null ? `${number(summary.duration_s, 1)} s` : "–"],
    ["Rules", latest ? `${latest.rules_evaluated} evaluated, ${latest.skipped.length} skipped` : "–"],
    ["Store", ready.database || "–"],
    ["Sweep running", ready.sweep_running ? "yes" : "no"],
  ];
  if (ready.last_sweep_error) rows.push(["Last error", ready.last_sweep_error]);
  fill(element, rows.map(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]));
}

function drawCollection(element, latest) {
  const problems = latest?.collection || [];
  if (!problems.length) {
    fill(element, h("p", {}, badge("ok", "none"), " every collector read its part"));
    return;
  }
  fill(
    element,
    h(
      "ul",
      { class: "plain" },
      problems.map((p) => h("li", {}, badge("warning", p.part), " ", h("span", { class: "mono" }, p.subject), ": ", p.reason)),
    ),
  );
}

function drawNewest(element, findings) {
  if (!findings.length) {
    fill(element, none("No open or pending findings."));
    return;
  }
  const newest = [...findings]
    .sort((a, b) => String(b.opened_at || b.first_seen).localeCompare(String(a.opened_at || a.first_seen)))
    .slice(0, 10);
  fill(
    element,
    h(
      "div",
      { class: "table-wrap" },
      table(
        [
          { label: "Severity", value: (f) => badge(f.severity) },
          { label: "State", value: (f) => (f.state === "pending" ? "pending: seen once" : f.state) },
          {
            label: "Finding",
            value: (f) => h("a", { href: `/findings?state=${f.state}&entity=${encodeURIComponent(f.entity.name)}` }, f.title),
          },
          { label: "Entity", value: (f) => f.entity.name },
          { label: "Fix", value: (f) => firstSentence(markdownText(f.remediation_html)) },
          { label: "Since", value: (f) => ago(f.opened_at || f.first_seen) },
        ],
        newest,
      ),
    ),
  );
}

/** The fix's first sentence, cut at a word near 160 characters. */
function firstSentence(text) {
  const match = /^(.*?\.)(\s|$)/.exec(text || "");
  const sentence = match ? match[1] : text || "";
  if (sentence.length <= 160) return sentence;
  return `${sentence.slice(0, 160).replace(/\s+\S*$/, "")} …`;
}

async function drawTrend(element, summaries) {
  const ordered = [...summaries].reverse();
  const instance = await chart(element);
  instance.setOption({
    animation: false,
    grid: { left: 36, right: 12, top: 28, bottom: 28 },
    legend: { top: 0, itemWidth: 12, itemHeight: 8 },
    tooltip: { trigger: "axis" },
    xAxis: { type: "category", data: ordered.map((s) => when(s.generated_at).slice(5, 16)) },
    yAxis: { type: "value", minInterval: 1 },
    series: SEVERITIES.map((severity) => ({
      name: severity,
      type: "bar",
      stack: "open",
      barMaxWidth: 18,
      itemStyle: { color: COLORS[severity] },
      data: ordered.map((s) => sweepCounts(s)[severity]),
    })),
  });
}
