// Enclosure: the front view of its bays (occupied, empty, faulted, locate on), each disk's
// paths and health, the I/O modules and the HBA port each is cabled to, its power supplies,
// fans and sensors (SES elements, with their own limits), and the locate LEDs.

import { api } from "../api.js";
import { mbS, plural } from "../units.js";
import { badge, bytes, enclosureHref, fill, h, ms, none, number, say, slot, table } from "../dom.js";
import { drawPools } from "./enclosure_pools.js";

export async function render(root, { params, navigate }) {
  const topology = await api("/v1/views/topology");
  const enclosures = topology.enclosures;
  const chosen = params.id ? decodeURIComponent(params.id) : null;
  drawPicker(slot(root, "picker"), enclosures, chosen);
  if (!chosen) {
    if (enclosures.length) return navigate(enclosureHref(enclosures[0].id), { replace: true });
    fill(slot(root, "summary"), "No enclosures in this inventory.");
    root.dataset.ready = "true";
    return;
  }
  const view = await api(`/v1/views/enclosures/${encodeURIComponent(chosen)}`);
  const m = view.maintenance;
  document.title = `${m.name} · pinchpoint`;
  fill(root.querySelector("h1"), m.name, " ", m.worst ? badge(m.worst) : badge("ok", "no open findings"));
  fill(
    slot(root, "summary"),
    [m.vendor, m.product, m.serial && `serial ${m.serial}`, `logical id ${m.logical_id}`, `${m.slots_occupied} of ${m.bay_count ?? m.slots.length} slots occupied`]
      .filter(Boolean)
      .join(" · "),
  );
  slot(root, "body").hidden = false;
  drawPaths(slot(root, "paths"), m, view);
  drawModules(slot(root, "modules"), view.io_modules);
  drawCabling(slot(root, "cabling"), m.cabling);
  drawFindings(slot(root, "findings"), m.findings);
  drawElements(root, view);
  drawDisks(slot(root, "disks"), view.bays, m);
  const select = (bay) => drawBay(root, view, bay);
  drawBays(root, view, select);
  drawPools(root, view, select);
  drawLocate(root, view, null);
  select(view.bays.find((b) => b.slot.hba_ports != null && b.slot.hba_ports < b.slot.hba_ports_expected) || view.bays[0]);
  root.dataset.ready = "true";
}

function drawPicker(element, enclosures, chosen) {
  fill(
    element,
    enclosures.map((e) => {
      const low = e.hba_ports < e.hba_ports_expected;
      return h(
        "a",
        {
          href: enclosureHref(e.id),
          class: low || e.worst === "critical" ? "bad" : null,
          "aria-current": chosen && [e.id, e.name].includes(chosen) ? "page" : null,
        },
        low ? "✖ " : "",
        e.name,
      );
    }),
  );
}

function pathsText(paths, expected) {
  const low = paths < expected;
  return h("span", { class: low ? "paths-low" : "paths-ok", dataset: { paths } }, `${low ? "✖" : "✔"} ${paths} of ${expected}`);
}

function drawPaths(element, m, view) {
  const f = view.figures;
  fill(
    element,
    h("dt", {}, "SAS paths"),
    h("dd", { dataset: { slot: "enclosure-paths" } }, pathsText(m.hba_ports, m.hba_ports_expected), m.hba_ports_expected_reason ? h("span", { class: "hint" }, ` (${m.hba_ports_expected_reason})`) : null),
    h("dt", {}, "I/O modules"),
    h("dd", {}, m.io_modules ?? "unknown"),
    h("dt", {}, "Queue per disk"),
    h("dd", {}, f?.queue_per_disk != null ? `${number(f.queue_per_disk, 1)} I/Os` : "not sampled yet"),
    h("dt", {}, "Load"),
    h("dd", {}, f?.iops != null ? `${number(f.iops)} IOPS · ${mbS(f.mb_s)} · p99 ${ms(f.p99_ms)}` : "–"),
  );
}

function drawModules(element, modules) {
  if (!modules.length) {
    fill(element, none("The enclosure reports no I/O modules."));
    return;
  }
  fill(
    element,
    modules.map((module) =>
      module.seen
        ? h(
            "div",
            { class: "module", dataset: { module: module.label } },
            h("strong", {}, module.label),
            " ",
            h("span", { class: "mono hint" }, [module.sas_address, ...module.sg_devices].filter(Boolean).join(" · ")),
            h(
              "div",
              {},
              module.cabled_to.length
                ? module.cabled_to.map((c) => h("div", {}, "⇄ cabled to ", h("strong", {}, c.hba_port), h("span", { class: "hint" }, ` (${c.port})`)))
                : "⇄ reached through no HBA port",
            ),
          )
        : h(
            "div",
            { class: "module missing", dataset: { module: module.label } },
            h("strong", {}, "✖ ", module.label),
            " is reported by the enclosure but no path from this host reaches it: check its cable and connectors.",
          ),
    ),
  );
}

function drawCabling(element, cabling) {
  if (!cabling.length) {
    fill(element, none("No HBA port reaches this enclosure."));
    return;
  }
  fill(
    element,
    h(
      "ul",
      { class: "plain" },
      cabling.map((c) =>
        h("li", {}, h("strong", {}, c.hba_port), h("span", { class: "hint" }, ` (${c.port})`), c.position ? ` · position ${c.position} of ${c.chain_length} on its chain` : ""),
      ),
    ),
  );
}

function drawFindings(element, findings) {
  const open = findings.filter((f) => !f.muted);
  if (!open.length) {
    fill(element, h("p", {}, badge("ok", "none")));
    return;
  }
  fill(
    element,
    h(
      "ul",
      { class: "plain" },
      open.map((f) => h("li", {}, badge(f.severity), " ", h("a", { href: `/findings?state=open&rule=${encodeURIComponent(f.rule)}` }, f.title))),
    ),
  );
}

function bayState(s) {
  if (!s.occupied) return ["empty", "○ empty"];
  if (s.fault) return ["fault", "✖ FAULT"];
  // a warning glyph says what is wrong: the disk answers (its SES status may well be OK) but
  // through fewer paths than expected
  if (s.hba_ports != null && s.hba_ports < s.hba_ports_expected) return ["degraded", "▲ missing path"];
  return ["ok", `✔ ${s.status || "OK"}`];
}


function bayButton(bay, select, compact) {
  const s = bay.slot;
  const [kind, text] = bayState(s);
  const classes = ["bay", kind, s.locate ? "locate" : ""].join(" ");
  const label = `${s.name}: ${text.slice(2)}${s.hba_ports != null ? `, ${s.hba_ports} of ${s.hba_ports_expected} paths` : ""}${s.locate ? ", locate on" : ""}`;
  const state = s.locate ? "◉ locate" : text;
  return h(
    "button",
    {
      type: "button",
      class: classes,
      role: "listitem",
      "aria-pressed": "false",
      "aria-label": label,
      title: compact ? label : null,
      dataset: { slot: s.index, paths: s.hba_ports ?? "" },
      onclick: () => select(bay),
    },
    h("span", { class: "bay-no" }, String(s.index)),
    !compact && s.label ? h("span", { class: "bay-label" }, s.label) : null,
    // in a drawer of 60 only the glyph fits; the words are in the title and the aria label
    h("span", { class: "bay-state" }, compact ? state.slice(0, 1) : state),
    s.hba_ports != null
      ? h("span", { class: "bay-paths", title: "SAS paths present / expected" }, compact ? `${s.hba_ports}/${s.hba_ports_expected}` : `⇄ ${s.hba_ports}/${s.hba_ports_expected}`)
      : null,
  );
}

// A known model (view.layout: the H4060-J's drawer of 5 rows of 12) is drawn where its bays
// sit, front row at the bottom as the shelf is seen from above; any other in SES order.
function drawBays(root, view, select) {
  const element = slot(root, "bays");
  const layout = view.layout;
  fill(root.querySelector("#enc-front"), layout ? `Bays: ${layout.view}` : "Front view");
  fill(slot(root, "layout"), layout ? `${layout.model}: ${layout.rows.length} rows of ${layout.rows[0].length}, ${layout.bottom} at the bottom, ${layout.top} at the top.` : "");
  element.classList.toggle("drawer", Boolean(layout));
  if (!layout) {
    const count = view.bays.length;
    element.style.setProperty("--bay-columns", count > 12 ? 12 : Math.max(4, count));
    fill(element, view.bays.map((bay) => bayButton(bay, select, false)));
    return;
  }
  const byNumber = new Map(view.bays.map((bay) => [bay.slot.index, bay]));
  const columns = Math.max(...layout.rows.map((row) => row.length));
  const gap = layout.gap_after_column;
  element.style.setProperty("--bay-left", gap ?? columns);
  element.style.setProperty("--bay-right", Math.max(1, columns - (gap ?? 0)));
  const cell = (number) => (byNumber.has(number) ? bayButton(byNumber.get(number), select, true) : h("span", { class: "bay absent", role: "listitem" }, String(number)));
  fill(
    element,
    h("p", { class: "drawer-side" }, layout.top),
    layout.rows.map((row) =>
      h(
        "div",
        { class: "drawer-row", role: "none" },
        gap != null ? [h("div", { class: "drawer-half", role: "none" }, row.slice(0, gap).map(cell)), h("div", { class: "drawer-half", role: "none" }, row.slice(gap).map(cell))] : row.map(cell),
      ),
    ),
    h("p", { class: "drawer-side" }, layout.bottom),
  );
}

function drawBay(root, view, bay) {
  for (const button of slot(root, "bays").querySelectorAll("button.bay")) {
    button.setAttribute("aria-pressed", String(button.dataset.slot === String(bay.slot.index)));
  }
  const s = bay.slot;
  const health = bay.health;
  const f = s.figures;
  fill(root.querySelector("#enc-bay"), s.name.replace(/^slot/, "Slot"));
  const facts = [
    ["State", bayState(s)[1]],
    ["Disk", s.disk || "none"],
    ["Size", bay.size_bytes ? `${bytes(bay.size_bytes)}${bay.rotational === false ? " SSD" : bay.rotational ? " HDD" : ""}` : "–"],
    ["Paths", s.hba_ports != null ? pathsText(s.hba_ports, s.hba_ports_expected) : "–"],
    ["SMART", health ? [health.passed === false ? badge("critical", health.verdict) : health.passed ? badge("ok", health.verdict) : badge("warning", health.verdict)] : "not read"],
  ];
  if (health?.temperature_c != null) facts.push(["Temperature", `${health.temperature_c} °C`]);
  if (health?.power_on_hours != null) facts.push(["Powered on", `${number(health.power_on_hours)} h`]);
  if (health?.grown_defects != null) facts.push(["Grown defects", number(health.grown_defects)]);
  if (health?.uncorrected_errors != null) facts.push(["Uncorrected errors", number(health.uncorrected_errors)]);
  if (health?.reallocated_sectors != null) facts.push(["Reallocated sectors", number(health.reallocated_sectors)]);
  if (health?.pending_sectors != null) facts.push(["Pending sectors", number(health.pending_sectors)]);
  if (health?.temperature_limit_c != null) facts.push(["Drive's temperature limit", `${health.temperature_limit_c} °C`]);
  if (health?.endurance_used_pct != null) facts.push(["Endurance used", `${health.endurance_used_pct} %`]);
  if (health?.last_self_test != null) facts.push(["Last self-test", health.last_self_test_passed === false ? [badge("critical", health.last_self_test)] : health.last_self_test]);
  if (f?.queue_per_disk != null) facts.push(["Load", `q ${number(f.queue_per_disk, 1)} · ${number(f.iops)} IOPS · p99 ${ms(f.p99_ms)}`]);
  fill(
    slot(root, "bay"),
    h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    bay.disk_paths.length
      ? h(
          "div",
          { class: "table-wrap" },
          table(
            [
              { label: "HBA", value: (p) => p.hba },
              { label: "Port", value: (p) => p.port || "–" },
              { label: "H:C:T:L", value: (p) => h("span", { class: "mono" }, p.hctl) },
              { label: "Device", value: (p) => h("span", { class: "mono" }, p.block_device || "–") },
              { label: "State", value: (p) => p.state || "–" },
              { label: "Queue depth", num: true, value: (p) => number(p.queue_depth) },
            ],
            bay.disk_paths,
          ),
        )
      : null,
    bay.findings.length ? h("ul", { class: "plain" }, bay.findings.map((t) => h("li", {}, "▲ ", t))) : null,
  );
  drawLocate(root, view, s);
}

function drawLocate(root, view, s) {
  const on = root.querySelector('[data-action="locate-on"]');
  const off = root.querySelector('[data-action="locate-off"]');
  const reason = view.locate_refusal;
  for (const button of [on, off]) {
    button.disabled = Boolean(reason);
    button.title = reason || "";
    button.onclick = reason ? null : () => locate(view, s, button === on);
  }
  const what = s ? s.name : "the enclosure";
  on.textContent = `Locate ${what}: on`;
  off.textContent = "off";
  fill(slot(root, "locate-reason"), reason ? `Locate LEDs cannot be switched: ${reason}.` : `Lights the locate LED of ${what} (needs the admin token).`);
}

async function locate(view, s, on) {
  const base = `/v1/maintenance/enclosures/${encodeURIComponent(view.maintenance.id)}`;
  const path = s ? `${base}/slots/${s.index}/locate` : `${base}/locate`;
  try {
    await api(path, { method: "POST", body: { on }, admin: true });
    say(`Locate LED ${on ? "on" : "off"}: ${view.maintenance.name}${s ? ` ${s.name}` : ""}.`);
  } catch (error) {
    say(`Locate failed: ${error.message}`, { error: true });
  }
}

function drawDisks(element, bays, m) {
  const rows = bays.filter((b) => b.slot.disk_id);
  if (!rows.length) {
    fill(element, none("No disks."));
    return;
  }
  fill(
    element,
    table(
      [
        { label: "Slot", value: (b) => b.slot.name },
        { label: "Disk", value: (b) => [b.model || "", " ", h("span", { class: "mono" }, b.serial || "")] },
        { label: "Paths", value: (b) => pathsText(b.slot.hba_ports, b.slot.hba_ports_expected) },
        {
          label: "Through (device: HBA port)",
          value: (b) => b.disk_paths.map((p) => `${p.block_device || p.hctl}: ${p.hba_port || p.hba}`).join(", "),
        },
        { label: "SMART", value: (b) => (b.health ? (b.health.passed === false ? badge("critical", b.health.verdict) : b.health.verdict) : "–") },
        { label: "°C", num: true, value: (b) => number(b.health?.temperature_c) },
        { label: "q", num: true, value: (b) => number(b.slot.figures?.queue_per_disk, 1) },
        { label: "IOPS", num: true, value: (b) => number(b.slot.figures?.iops) },
        { label: "p99", num: true, value: (b) => ms(b.slot.figures?.p99_ms) },
      ],
      rows,
      { rowAttrs: (b) => ({ dataset: { disk: b.slot.disk_id, paths: b.slot.hba_ports } }), caption: `${plural(rows.length, "disk")} in ${m.name}` },
    ),
  );
}

function limitsText(e) {
  if (e.high_warning == null && e.high_critical == null) return "–";
  const unit = e.limits_unit === "C" ? " °C" : ` ${e.limits_unit || ""}`;
  return `warn ${e.high_warning ?? "–"} / crit ${e.high_critical ?? "–"}${unit}`;
}

function drawElements(root, view) {
  const element = slot(root, "elements");
  fill(slot(root, "elements-summary"), view.elements_summary);
  if (view.elements == null) {
    fill(element, none("The enclosure status page was not read (no sg_ses output in this inventory)."));
    return;
  }
  if (!view.elements.length) {
    fill(element, none("The enclosure reports no power supplies, fans or sensors."));
    return;
  }
  fill(
    element,
    table(
      [
        { label: "Element", value: (e) => e.name },
        { label: "Status", value: (e) => (e.severity ? badge(e.severity, e.status) : badge("ok", e.status)) },
        { label: "Reading", num: true, value: (e) => e.reading || "–" },
        { label: "Own limits", value: (e) => limitsText(e) },
        { label: "Problem", value: (e) => e.problem || "" },
      ],
      view.elements,
      {
        rowAttrs: (e) => ({ class: e.severity ? `element-${e.severity}` : null, dataset: { element: e.name, severity: e.severity || "ok" } }),
        caption: `${view.elements.length} elements of ${view.maintenance.name}`,
      },
    ),
  );
}
