// Findings: a filterable list; each finding with its evidence, the peers it was compared with
// and the fix; muting with an expiry and a reason (admin token), and lifting a mute.

import { api } from "../api.js";
import { markdownNodes } from "../markup.js";
import { plural, quantity } from "../units.js";
import { ago, badge, fill, h, none, say, slot, table, when } from "../dom.js";

const FILTERS = ["state", "severity", "rule", "entity"];
const EXPIRIES = [
  ["4", "4 hours"],
  ["24", "1 day"],
  ["168", "7 days"],
  ["720", "30 days"],
];

export async function render(root, { query, navigate }) {
  const form = slot(root, "filters");
  const params = new URLSearchParams();
  if (!query.has("state")) query.set("state", "open");
  for (const key of FILTERS) {
    const value = query.get(key) || "";
    if (value) params.set(key, value);
  }
  params.set("limit", "500");
  const [page, rules] = await Promise.all([api(`/v1/findings?${params}`), api("/v1/rules")]);
  const ruleSelect = slot(root, "rules");
  fill(ruleSelect, h("option", { value: "" }, "any"), rules.map((r) => h("option", { value: r.id }, r.id)));
  for (const key of FILTERS) form.elements[key].value = query.get(key) || "";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const key of FILTERS) next.set(key, form.elements[key].value);
    navigate(`/findings?${next}`);
  });
  for (const select of form.querySelectorAll("select")) select.addEventListener("change", () => form.requestSubmit());
  const titles = new Map(rules.map((r) => [r.id, r.title]));
  fill(slot(root, "summary"), `${plural(page.total, "finding")} match${page.total === 1 ? "es" : ""}${page.total > page.items.length ? `, the first ${page.items.length} shown` : ""}.`);
  const list = slot(root, "list");
  root.dataset.ready = "true";
  if (!page.items.length) {
    fill(list, none("No finding matches these filters."));
    return;
  }
  const reload = () => navigate(location.pathname + location.search, { replace: true });
  fill(list, page.items.map((record, i) => findingItem(record, titles, reload, i === 0 && page.items.length === 1)));
}

function stateBadge(record) {
  if (record.state === "open") return badge(record.severity, `${record.severity} · open`);
  if (record.state === "muted") return badge("muted", `${record.severity} · muted`);
  if (record.state === "resolved") return badge("ok", "resolved");
  return badge(record.severity, `${record.severity} · ${record.state}`);
}

function findingItem(record, titles, reload, open) {
  const f = record.finding;
  const details = h("details", { class: "finding", id: `finding-${record.id}`, dataset: { finding: record.id } });
  details.open = open;
  details.append(
    h(
      "summary",
      {},
      stateBadge(record),
      h("span", { class: "title" }, record.title),
      // the entity once: the title names it most often ("JBOD-003 has 1 of 2 SAS paths")
      record.title.includes(record.entity.name) ? null : h("span", { class: "hint" }, record.entity.name),
      h(
        "span",
        { class: "meta" },
        `${record.rule} · first seen ${when(record.first_seen)} · last seen ${ago(record.last_seen)} · in ${plural(record.times_seen, "report")}`,
      ),
    ),
  );
  details.append(
    h(
      "div",
      { class: "body" },
      titles.get(record.rule) ? h("p", { class: "hint" }, titles.get(record.rule)) : null,
      f.evidence.map(evidence),
      h("div", { class: "remedy" }, h("strong", {}, "Fix: "), markdownNodes(record.remediation_html)),
      record.related_findings?.length ? relatedLinks(record) : null,
      record.mute ? muteInfo(record, reload) : muteForm(record, reload),
    ),
  );
  return details;
}

/** "Folded in (same cause): latency.group.outlier on JBOD-003", each a link to the page that
 *  shows what it measured (its evidence is already above). */
function relatedLinks(record) {
  const links = record.related_findings.map((r, i) => [
    i ? ", " : "",
    h("a", { href: r.href, class: "related", dataset: { finding: r.id } }, `${r.rule} on ${r.entity_id === record.entity.id ? record.entity.name : r.entity_id}`),
  ]);
  return h("p", { class: "hint related-findings" }, "Folded in (same cause): ", links);
}

function evidence(item) {
  return h(
    "div",
    { class: "evidence" },
    h("p", {}, item.summary),
    item.facts.length
      ? h(
          "div",
          { class: "table-wrap" },
          table(
            [
              { label: "Fact", value: (fact) => fact.name },
              { label: "Value", value: (fact) => quantity(fact.value, fact.unit) },
              { label: "Of", value: (fact) => fact.entity?.name || "" },
            ],
            item.facts,
          ),
        )
      : null,
    item.peers.length ? h("p", { class: "hint" }, `Compared with ${plural(item.peers.length, "peer")}: ${item.peers.map((p) => p.name).join(", ")}`) : null,
  );
}

function muteInfo(record, reload) {
  const mute = record.mute;
  return h(
    "div",
    { class: "mute" },
    h("p", {}, badge("muted", "muted"), ` until ${mute.until ? when(mute.until) : "lifted by hand"}: ${mute.reason}`),
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await api(`/v1/mutes/${mute.id}`, { method: "DELETE", admin: true });
            await reload();
            say(`Mute lifted: ${record.title}.`);
          } catch (error) {
            say(`The mute could not be lifted: ${error.message}`, { error: true });
          }
        },
      },
      "Lift the mute",
    ),
  );
}

function muteForm(record, reload) {
  const id = `mute-${record.id.replace(/[^a-zA-Z0-9]/g, "-")}`;
  const form = h(
    "form",
    { class: "mute", "aria-label": `Mute ${record.title}` },
    h("label", { for: `${id}-hours` }, "Mute for"),
    h("select", { id: `${id}-hours`, name: "hours" }, EXPIRIES.map(([value, label]) => h("option", { value, selected: value === "24" }, label))),
    h("label", { for: `${id}-reason`, class: "hint" }, "because"),
    h("input", { id: `${id}-reason`, name: "reason", required: true, maxlength: 2000, placeholder: "who and why: e.g. recabling booked for Tuesday" }),
    h("button", { type: "submit" }, "Mute"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      rule: record.rule,
      entity_id: record.entity.id,
      reason: form.elements.reason.value.trim(),
      hours: Number(form.elements.hours.value),
      host: record.host,
    };
    try {
      const mute = await api("/v1/mutes", { method: "POST", body, admin: true });
      await reload();
      say(`Muted until ${when(mute.until)}: ${record.title}. It is listed under state "muted".`);
    } catch (error) {
      say(`The mute was not saved: ${error.message}`, { error: true });
    }
  });
  return form;
}
