// HTML the service rendered from Markdown (a finding's `remediation_html`: markdown-it-py with raw
// HTML escaped) placed into the page. Defence in depth: the HTML is parsed inert and rebuilt from an
// allowlist — paragraphs, lists, code, emphasis, links to http(s) or the service's own pages — so
// nothing else (no attribute, script or handler) reaches the document even if the text carried it.

import { h } from "./dom.js";

const ALLOWED = new Set(["P", "CODE", "PRE", "STRONG", "EM", "UL", "OL", "LI", "A", "BR"]);
const SAFE_HREF = /^(https?:\/\/|\/(?!\/)|#)/i;

function rebuilt(node) {
  if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.textContent);
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const children = [...node.childNodes].map(rebuilt).filter(Boolean);
  if (!ALLOWED.has(node.tagName)) return children.length ? children : null;
  const attrs = {};
  if (node.tagName === "A") {
    const href = node.getAttribute("href") || "";
    if (!SAFE_HREF.test(href)) return children;
    attrs.href = href;
    if (/^https?:/i.test(href)) attrs.rel = "noopener noreferrer";
  }
  return h(node.tagName.toLowerCase(), attrs, children);
}

/** The nodes of `html` (rendered Markdown), rebuilt from the allowlist. */
export function markdownNodes(html) {
  const parsed = new DOMParser().parseFromString(`<body>${html || ""}</body>`, "text/html");
  return [...parsed.body.childNodes].map(rebuilt).filter(Boolean).flat(Infinity);
}

/** The text of `html` without its marks: what a short table cell shows. */
export function markdownText(html) {
  return new DOMParser().parseFromString(`<body>${html || ""}</body>`, "text/html").body.textContent.trim();
}
