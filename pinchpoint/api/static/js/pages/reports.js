// Reports: the history of reports, one rendered as the HTML report, and the diff of two.

import { api } from "../api.js";
import { badge, fill, h, none, number, say, slot, table, when } from "../dom.js";

const PAGE = 50;

export async function render(root, { query, navigate }) {
  const offset = Math.max(0, Number(query.get("offset")) || 0);
  const history = await api(`/v1/reports?limit=${PAGE}&offset=${offset}`);
  const items = history.items;
  fill(slot(root, "summary"), `${number(history.total)} report${history.total === 1 ? "" : "s"} stored.`);
  const chosen = { a: query.get("a"), b: query.get("b") };
  if (!chosen.b && items[0]) chosen.b = String(items[0].id);
  if (!chosen.a && items[1]) chosen.a = String(items[1].id);
  drawHistory(slot(root, "history"), items, chosen);
  drawPager(slot(root, "pager"), history, offset, navigate);
  root.querySelector('[data-action="diff"]').addEventListener("click", () => {
    const a = root.querySelector('input[name="a"]:checked')?.value;
    const b = root.querySelector('input[name="b"]:checked')?.value;
    if (!a || !b || a === b) {
      say("Pick two different reports: A and B.", { error: true });
      return;
    }
    const next = new URLSearchParams(query);
    next.set("a", a);
    next.set("b", b);
    next.set("diff", "1");
    next.delete("view");
    navigate(`/reports?${next}`);
  });
  if (query.get("diff") && chosen.a && chosen.b) await drawDiff(root, chosen.a, chosen.b);
  if (query.get("view")) await drawReport(root, query.get("view"));
  root.dataset.ready = "true";
}

function drawHistory(element, items, chosen) {
  if (!items.length) {
    fill(element, none("No report yet: the first sweep is still running."));
    return;
  }
  fill(
    element,
    table(
      [
        { label: "A", value: (r) => h("input", { type: "radio", name: "a", value: r.id, checked: String(r.id) === chosen.a, "aria-label": `Report ${r.id} as A` }) },
        { label: "B", value: (r) => h("input", { type: "radio", name: "b", value: r.id, checked: String(r.id) === chosen.b, "aria-label": `Report ${r.id} as B` }) },
        { label: "Report", value: (r) => h("a", { href: `/reports?view=${r.id}` }, `#${r.id}`) },
        { label: "Generated", value: (r) => when(r.generated_at) },
        { label: "Host", value: (r) => r.host },
        { label: "Origin", value: (r) => r.origin },
        { label: "Took", num: true, value: (r) => (r.duration_s != null ? `${number(r.duration_s, 1)} s` : "–") },
        {
          label: "Worst",
          value: (r) => [
            r.worst ? badge(r.worst) : r.status === "partial" ? null : badge("ok", "clean"),
            r.status === "partial" ? [" ", badge("warning", "partial")] : null,
          ],
        },
        { label: "crit", num: true, value: (r) => number(r.findings.critical) },
        { label: "warn", num: true, value: (r) => number(r.findings.warning) },
        { label: "info", num: true, value: (r) => number(r.findings.info) },
        { label: "muted", num: true, value: (r) => number(r.muted) },
        { label: "not collected", num: true, value: (r) => number(r.collection_problems) },
      ],
      items,
      { rowAttrs: (r) => ({ dataset: { report: r.id } }) },
    ),
  );
}

function drawPager(element, history, offset, navigate) {
  const older = offset + PAGE < history.total;
  fill(
    element,
    offset > 0 ? h("button", { type: "button", onclick: () => navigate(`/reports?offset=${Math.max(0, offset - PAGE)}`) }, "‹ Newer") : null,
    history.total > PAGE ? h("span", { class: "hint" }, `${offset + 1}–${Math.min(offset + PAGE, history.total)} of ${history.total}`) : null,
    older ? h("button", { type: "button", onclick: () => navigate(`/reports?offset=${offset + PAGE}`) }, "Older ›") : null,
  );
}

async function drawDiff(root, a, b) {
  const diff = await api(`/v1/reports/${a}/diff/${b}`);
  slot(root, "diff-panel").hidden = false;
  fill(slot(root, "diff-title"), `Diff: report #${a} (${when(diff.a.generated_at)}) → #${b} (${when(diff.b.generated_at)})`);
  const group = (title, findings, key) =>
    h(
      "section",
      { dataset: { diff: key } },
      h("h3", {}, `${title} (${findings.length})`),
      findings.length
        ? h("ul", { class: "plain" }, findings.map((f) => h("li", {}, badge(f.severity), " ", f.title, h("span", { class: "hint" }, ` · ${f.rule}`))))
        : none("none"),
    );
  fill(
    slot(root, "diff"),
    group("New in B", diff.new, "new"),
    group("Worsened", diff.worsened, "worsened"),
    group("Resolved (in A, gone in B)", diff.resolved, "resolved"),
    group("Persisting", diff.persisting, "persisting"),
  );
}

async function drawReport(root, id) {
  const html = await api(`/v1/reports/${encodeURIComponent(id)}?format=html`, { text: true });
  slot(root, "view-panel").hidden = false;
  fill(slot(root, "view-title"), `Report #${id}`);
  fill(
    slot(root, "view-links"),
    h("a", { href: `/v1/reports/${encodeURIComponent(id)}?format=markdown` }, "Markdown"),
    " · ",
    h("a", { href: `/v1/reports/${encodeURIComponent(id)}` }, "JSON"),
  );
  // The report is a document of its own, shown sandboxed: no scripts, no access to this page.
  slot(root, "frame").srcdoc = html;
  slot(root, "view-panel").scrollIntoView({ block: "start" });
}
