// Small DOM and formatting helpers shared by the pages. Text always goes in as text (never as
// HTML), so names read from a host cannot inject markup.

import { capacity, latencyMs } from "./units.js";

/** An element: h("a", {href: "/x", class: "y"}, "text", child, …). */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** The element of `root` marked data-slot="name". */
export function slot(root, name) {
  return root.querySelector(`[data-slot="${name}"]`);
}

/** Replace the children of `element`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export const SEVERITY_ICON = { critical: "✖", warning: "▲", info: "ℹ", ok: "✔", muted: "◌" };
export const SEVERITY_RANK = { critical: 3, warning: 2, info: 1 };

/** A status badge: colour, icon and word. */
export function badge(severity, text) {
  const key = severity || "ok";
  return h("span", { class: `sev sev-${key}` }, h("span", { "aria-hidden": "true" }, SEVERITY_ICON[key] || "•"), text ?? key);
}

export function number(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  return Number(value).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A latency given in milliseconds: "850 µs", "12.4 ms", "1.25 s" (units.js). */
export const ms = latencyMs;

/** A capacity in bytes, IEC: "931 GiB" (units.js). */
export const bytes = capacity;

/** "2026-11-22 04:07:30" in the browser's time zone. */
export function when(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** "3 min ago". */
export function ago(iso) {
  if (!iso) return "never";
  const seconds = Math.max(0, (Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 90) return `${Math.round(seconds)} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} days ago`;
}

/** A table: columns [{label, value: row => text|Node, num: bool}], rows. */
export function table(columns, rows, { rowAttrs = () => ({}), caption } = {}) {
  return h(
    "table",
    {},
    caption ? h("caption", { class: "hint" }, caption) : null,
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { class: c.num ? "num" : null, scope: "col" }, c.label)))),
    h(
      "tbody",
      {},
      rows.map((row) => h("tr", rowAttrs(row), columns.map((c) => h("td", { class: c.num ? "num" : null }, c.value(row))))),
    ),
  );
}

/** A "nothing here" line. */
export function none(text) {
  return h("p", { class: "empty-note" }, text);
}

/** The path to one enclosure's page. */
export function enclosureHref(id) {
  return `/enclosures/${encodeURIComponent(id)}`;
}

/** Show a message above the page (errors in red); "" hides it. */
export function say(message, { error = false } = {}) {
  const notice = document.getElementById("notice");
  notice.textContent = message;
  notice.classList.toggle("error", error);
  notice.hidden = !message;
}
