// Enclosure: the ZFS pools its disks belong to (the view's `pools`, each pool's vdev tree with
// every device's bay), each vdev with a disk here and each of its devices' state and error
// counts; the bays of a vdev that is not ONLINE are outlined in the front view.

import { badge, fill, h, none, number, slot, table } from "../dom.js";

// States a top-level vdev is well in: ONLINE; a hot spare waiting (AVAIL) or in use (INUSE:
// the vdev it stands in for says the rest).
const HEALTHY = new Set(["ONLINE", "AVAIL", "INUSE"]);

/** The devices below a vdev (the vdev itself when it is one). */
export function leaves(node) {
  return node.device ? [node] : node.children.flatMap(leaves);
}

/** A vdev is in trouble when it, or a device below it, is not in a healthy state. */
export function vdevBad(top) {
  return !HEALTHY.has(top.state || "") || leaves(top).some((leaf) => leaf.state && !HEALTHY.has(leaf.state));
}

function stateBadge(state) {
  if (!state) return badge("muted", "state unknown");
  if (HEALTHY.has(state)) return badge("ok", state);
  return badge(["DEGRADED", "OFFLINE", "REMOVED"].includes(state) ? "warning" : "critical", state);
}

function errorsText(node) {
  const counts = [node.read_errors, node.write_errors, node.checksum_errors];
  if (counts.every((c) => c == null)) return "";
  if (counts.every((c) => !c)) return "";
  return `read ${number(counts[0])} · write ${number(counts[1])} · cksum ${number(counts[2])}`;
}

/** The bays of this enclosure by disk id, from the view's bays. */
function baysByDisk(view) {
  return new Map(view.bays.filter((b) => b.slot.disk_id).map((b) => [b.slot.disk_id, b]));
}

function deviceChip(leaf, here, select) {
  const bay = leaf.disk_id ? here.get(leaf.disk_id) : null;
  const bad = leaf.state && !HEALTHY.has(leaf.state);
  const errors = errorsText(leaf);
  const parts = [
    h("span", { class: "where" }, bay ? bay.slot.name : leaf.place || leaf.name),
    " ",
    h("span", { class: "state" }, leaf.state || "?"),
    errors ? h("span", { class: "errors" }, ` · ${errors}`) : null,
    leaf.note ? h("span", { class: "hint" }, ` (${leaf.note})`) : null,
  ];
  const attrs = {
    class: ["device", bad ? "bad" : "", errors ? "errors" : "", bay ? "here" : "elsewhere"].join(" "),
    dataset: { device: leaf.name, state: leaf.state || "", bay: bay ? String(bay.slot.index) : "" },
    title: bay ? `${leaf.name} · ${leaf.place}` : leaf.name,
  };
  if (!bay) return h("span", attrs, parts);
  return h("button", { type: "button", ...attrs, onclick: () => select(bay) }, parts);
}

function vdevRows(pool, tops, here, select) {
  return table(
    [
      { label: "Vdev", value: (t) => [h("span", { class: "mono vdev-name" }, t.name), t.section ? h("span", { class: "hint" }, ` (${t.section})`) : null] },
      { label: "State", value: (t) => stateBadge(t.state) },
      { label: "Devices: bay here, else where it is · state · errors", value: (t) => h("div", { class: "devices" }, leaves(t).map((leaf) => deviceChip(leaf, here, select))) },
    ],
    tops,
    {
      rowAttrs: (t) => ({ class: vdevBad(t) ? "vdev-bad" : null, dataset: { pool: pool.name, vdev: t.name, state: t.state || "" } }),
    },
  );
}

function drawPool(pool, enclosureId, here, select) {
  const mine = pool.vdevs.filter((top) => leaves(top).some((leaf) => leaf.enclosure_id === enclosureId));
  const bad = mine.filter(vdevBad);
  const fine = mine.filter((t) => !vdevBad(t));
  const disksHere = mine.flatMap(leaves).filter((leaf) => leaf.enclosure_id === enclosureId).length;
  const poolErrors = errorsText(pool);
  const head = h(
    "div",
    { class: "pool-head" },
    h("strong", { class: "mono" }, pool.name),
    " ",
    stateBadge(pool.state),
    h(
      "span",
      { class: "hint" },
      ` · ${disksHere} of its disks here, in ${mine.length} of its ${pool.vdevs.length} vdevs`,
      bad.length ? ` · ${bad.length} not ONLINE` : "",
      poolErrors ? ` · pool ${poolErrors}` : "",
    ),
  );
  return h(
    "div",
    { class: "pool", dataset: { pool: pool.name, state: pool.state || "" } },
    head,
    bad.length ? h("div", { class: "table-wrap" }, vdevRows(pool, bad, here, select)) : null,
    fine.length
      ? h(
          "details",
          { class: "pool-fine", open: !bad.length && fine.length <= 12 ? true : null },
          h("summary", {}, bad.length ? `${fine.length} more vdevs ONLINE` : `all ${fine.length} vdevs ONLINE`),
          h("div", { class: "table-wrap" }, vdevRows(pool, fine, here, select)),
        )
      : null,
  );
}

/** Outline the bays whose disk is in a vdev in trouble, and say so in each bay's label. */
function markBays(root, view, here) {
  const bays = slot(root, "bays");
  let marked = 0;
  for (const pool of view.pools) {
    for (const top of pool.vdevs.filter(vdevBad)) {
      for (const leaf of leaves(top)) {
        const bay = leaf.disk_id ? here.get(leaf.disk_id) : null;
        const button = bay && bays?.querySelector(`.bay[data-slot="${bay.slot.index}"]`);
        if (!button) continue;
        button.classList.add("vdev-bad");
        button.dataset.vdev = `${pool.name} ${top.name}`;
        button.setAttribute("aria-label", `${button.getAttribute("aria-label") || bay.slot.name}, in ${pool.name} ${top.name} (${top.state}), this disk ${leaf.state}`);
        marked += 1;
      }
    }
  }
  return marked;
}

/** The pools panel; `select(bay)` opens a bay as a click on it in the front view does. */
export function drawPools(root, view, select) {
  const element = slot(root, "pools");
  const enclosureId = view.maintenance.id;
  const pools = view.pools || [];
  if (!pools.length) {
    fill(slot(root, "pools-summary"), "");
    fill(element, none("No ZFS pool has a disk in this enclosure."));
    return;
  }
  const here = baysByDisk(view);
  const bad = pools.flatMap((p) => p.vdevs.filter((t) => vdevBad(t) && leaves(t).some((l) => l.enclosure_id === enclosureId)));
  fill(
    slot(root, "pools-summary"),
    `${pools.length} ${pools.length === 1 ? "pool has" : "pools have"} disks here`,
    bad.length ? `; ${bad.length} ${bad.length === 1 ? "vdev is" : "vdevs are"} not ONLINE` : ", every vdev ONLINE",
  );
  fill(element, pools.map((pool) => drawPool(pool, enclosureId, here, select)));
  slot(root, "pools-key").hidden = markBays(root, view, here) === 0;
}
