// Storage networks: NVMe subsystems (controllers, each namespace's paths and ANA state), iSCSI
// sessions and the LUNs behind them, FC port link errors and NIC error counters, each flagged
// where an open finding names it. Only the sections the host has are shown.

import { api } from "../api.js";
import { linkSpeed } from "../units.js";
import { badge, bytes, fill, h, none, number, slot, table } from "../dom.js";

const SECTIONS = [
  ["nvme", "NVMe", (v) => v.nvme.length],
  ["iscsi", "iSCSI", (v) => v.iscsi.length],
  ["fc", "FC ports", (v) => v.fc_ports.length],
  ["nics", "NICs", (v) => v.nics.length],
];

export async function render(root) {
  const view = await api("/v1/views/networks");
  const present = SECTIONS.filter(([key]) => view.sections.includes(key));
  fill(
    slot(root, "summary"),
    present.length
      ? [view.host, ...present.map(([, label, count]) => `${count(view)} ${label}`)].filter(Boolean).join(" · ")
      : "This host has no NVMe subsystems, iSCSI sessions, FC ports or physical NICs with counters.",
  );
  fill(
    slot(root, "sections"),
    present.map(([key, label]) => h("a", { href: `#net-${key}`, dataset: { chip: key } }, label)),
  );
  for (const [key] of SECTIONS) root.querySelector(`[data-section="${key}"]`).hidden = !view.sections.includes(key);
  if (view.sections.includes("nvme")) drawNvme(slot(root, "nvme"), view.nvme);
  if (view.sections.includes("iscsi")) drawIscsi(slot(root, "iscsi"), view.iscsi);
  if (view.sections.includes("fc")) drawCounters(slot(root, "fc"), view.fc_ports, "port", fcFacts);
  if (view.sections.includes("nics")) drawCounters(slot(root, "nics"), view.nics, "nic", nicFacts);
  root.dataset.ready = "true";
}

function flag(item) {
  return item.worst ? badge(item.worst) : badge("ok", "no open findings");
}

function findingList(findings) {
  if (!findings.length) return null;
  return h(
    "ul",
    { class: "plain findings-here" },
    findings.map((f) => h("li", {}, badge(f.severity), " ", h("a", { href: `/findings?state=open&rule=${encodeURIComponent(f.rule)}` }, f.title))),
  );
}

// A table cell: each finding as its severity and rule, the title in its tooltip (the row
// already shows the figures the title repeats).
function findingCell(findings) {
  if (!findings.length) return badge("ok", "none");
  return findings.map((f) =>
    h("div", {}, h("a", { href: `/findings?state=open&rule=${encodeURIComponent(f.rule)}`, title: f.title }, badge(f.severity, f.rule))),
  );
}

function stateText(value, good) {
  if (value == null) return h("span", { class: "hint" }, "–");
  return h("span", { class: good ? "state-ok" : "state-bad" }, good ? "✔ " : "✖ ", value);
}

function drawNvme(element, subsystems) {
  fill(
    element,
    subsystems.map((s) =>
      h(
        "article",
        { class: `unit${s.worst ? ` unit-${s.worst}` : ""}`, dataset: { subsystem: s.id, severity: s.worst || "ok" } },
        h("h3", {}, s.name, " ", flag(s)),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "NQN"),
          h("dd", { class: "mono" }, s.nqn),
          h("dt", {}, "Transport"),
          h("dd", {}, s.transports.join(", ") || "–", s.fabrics ? " (fabrics)" : ""),
          s.iopolicy ? [h("dt", {}, "I/O policy"), h("dd", {}, s.iopolicy)] : null,
          s.firmware ? [h("dt", {}, "Firmware"), h("dd", {}, s.firmware)] : null,
        ),
        findingList(s.findings),
        h("h4", {}, "Controllers"),
        h(
          "div",
          { class: "table-wrap" },
          table(
            [
              { label: "Controller", value: (c) => c.name },
              { label: "Transport", value: (c) => c.transport || "–" },
              { label: "Address", value: (c) => h("span", { class: "mono" }, c.address || "–") },
              { label: "Leaves through", value: (c) => c.adapter || "–" },
              { label: "State", value: (c) => stateText(c.state, c.live) },
            ],
            s.controllers,
            { rowAttrs: (c) => ({ dataset: { controller: c.name, live: String(c.live) } }) },
          ),
        ),
        s.namespaces.length ? s.namespaces.map((n) => drawNamespace(n)) : none("No namespace is seen through these controllers."),
      ),
    ),
  );
}

function drawNamespace(n) {
  return h(
    "div",
    { class: "namespace", dataset: { namespace: n.id, severity: n.worst || "ok" } },
    h("h4", {}, n.name, " ", flag(n), h("span", { class: "hint" }, ` · ${n.live_paths} of ${n.paths.length} paths live${n.size_bytes ? ` · ${bytes(n.size_bytes)}` : ""}`)),
    n.wwid ? h("p", { class: "hint mono" }, n.wwid) : null,
    findingList(n.findings),
    h(
      "div",
      { class: "table-wrap" },
      table(
        [
          { label: "Path", value: (p) => [p.flagged ? h("span", { class: "state-bad", title: "named by an open finding" }, "⚑ ") : null, p.name] },
          { label: "Controller", value: (p) => p.controller },
          { label: "Transport", value: (p) => p.transport || "–" },
          { label: "Address", value: (p) => h("span", { class: "mono" }, p.address || "–") },
          { label: "Controller state", value: (p) => stateText(p.state, p.state === "live") },
          { label: "ANA state", value: (p) => (p.ana_state == null ? h("span", { class: "hint" }, "no ANA") : stateText(p.ana_state, p.optimized !== false && p.live)) },
        ],
        n.paths,
        { rowAttrs: (p) => ({ class: p.flagged ? "flagged" : null, dataset: { path: p.name, flagged: String(p.flagged), ana: p.ana_state || "" } }) },
      ),
    ),
  );
}

function drawIscsi(element, sessions) {
  fill(
    element,
    sessions.map((s) =>
      h(
        "article",
        { class: `unit${s.worst ? ` unit-${s.worst}` : ""}`, dataset: { session: s.name, severity: s.worst || "ok" } },
        h("h3", {}, s.name, " ", flag(s)),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Target"),
          h("dd", { class: "mono" }, s.target || "–"),
          h("dt", {}, "Portal"),
          h("dd", { class: "mono" }, s.portal || "–", s.tpgt != null ? h("span", { class: "hint" }, ` (portal group ${s.tpgt})`) : null),
          h("dt", {}, "Session"),
          h("dd", { dataset: { slot: "session-state" } }, stateText(s.state, s.logged_in)),
          h("dt", {}, "Connection"),
          h("dd", {}, stateText(s.connection_state, s.connection_state === "up")),
          h("dt", {}, "Leaves through"),
          h("dd", {}, s.interface || "unknown", s.iface ? h("span", { class: "hint" }, ` (iface ${s.iface})`) : null),
        ),
        s.luns.length
          ? h(
              "div",
              { class: "table-wrap" },
              table(
                [
                  { label: "LUN", num: true, value: (l) => (l.lun == null ? "–" : String(l.lun)) },
                  { label: "Disk", value: (l) => [l.block_device || "–", h("span", { class: "hint" }, ` ${l.hctl}`)] },
                  { label: "WWID", value: (l) => [h("span", { class: "mono" }, l.wwid || "unknown"), l.wwid_from ? h("span", { class: "hint" }, ` (${l.wwid_from})`) : null] },
                  { label: "Multipath", value: (l) => l.multipath || "–" },
                  { label: "Device state", value: (l) => stateText(l.state, l.up) },
                  { label: "Sessions", num: true, value: (l) => number(l.sessions) },
                  { label: "Findings", value: (l) => findingCell(l.findings) },
                ],
                s.luns,
                { rowAttrs: (l) => ({ class: l.worst ? "flagged" : null, dataset: { lun: l.hctl, severity: l.worst || "ok" } }) },
              ),
            )
          : none("No LUN is seen through this session."),
      ),
    ),
  );
}

function counterCell(c) {
  if (c.value == null) return h("span", { class: "hint" }, "–");
  return [number(c.value), c.rise ? h("strong", { class: "rise" }, ` +${number(c.rise)}`) : null];
}

function nicFacts(nic) {
  return [nic.name, h("div", { class: "hint" }, [nic.operstate, nic.speed_mbps ? linkSpeed(nic.speed_mbps) : null, nic.bond ? `in ${nic.bond}` : null].filter(Boolean).join(" · "))];
}

function fcFacts(port) {
  return [port.name, h("div", { class: "hint" }, [port.port_state, port.speed_text].filter(Boolean).join(" · "))];
}

function drawCounters(element, items, kind, facts) {
  const columns = items[0].counters.map((c, index) => ({ label: c.label, num: true, value: (item) => counterCell(item.counters[index]) }));
  fill(
    element,
    table(
      [
        { label: kind === "nic" ? "NIC" : "FC port", value: facts },
        ...columns,
        { label: "Findings", value: (item) => findingCell(item.findings) },
      ],
      items,
      { rowAttrs: (item) => ({ class: item.worst ? "flagged" : null, dataset: { [kind]: item.name, severity: item.worst || "ok" } }) },
    ),
  );
}
