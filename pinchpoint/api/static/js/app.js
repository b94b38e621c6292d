// The application: one shell, a page module per route, real links (History API) so that every
// page has its own address, works with the keyboard and survives a reload.

import { disposeCharts } from "./charts.js";
import { say } from "./dom.js";

const ROUTES = [
  [/^\/$/, "overview", "Overview"],
  [/^\/topology$/, "topology", "Topology"],
  [/^\/enclosures(?:\/(?<id>[^/]+))?$/, "enclosure", "Enclosure"],
  [/^\/networks$/, "networks", "Storage networks"],
  [/^\/latency$/, "latency", "Latency"],
  [/^\/findings$/, "findings", "Findings"],
  [/^\/reports$/, "reports", "Reports"],
];

const main = document.getElementById("main");
let cleanup = null;
let generation = 0;

function route(pathname) {
  for (const [pattern, page, title] of ROUTES) {
    const match = pattern.exec(pathname);
    if (match) return { page, title, params: match.groups || {} };
  }
  return null;
}

async function show(url, { focus = false } = {}) {
  const target = new URL(url, location.href);
  const found = route(target.pathname);
  if (!found) {
    location.assign(target.href);
    return;
  }
  const mine = ++generation;
  if (cleanup) cleanup();
  cleanup = null;
  disposeCharts();
  say("");
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === found.page) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.body.dataset.page = found.page;
  document.title = `${found.title} · pinchpoint`;
  const template = document.getElementById(`page-${found.page}`);
  main.replaceChildren(template.content.cloneNode(true));
  if (focus) main.focus();
  const module = await import(`./pages/${found.page}.js`);
  if (mine !== generation) return;
  try {
    cleanup = (await module.render(main.firstElementChild, {
      params: found.params,
      query: target.searchParams,
      navigate,
      isCurrent: () => mine === generation,
    })) || null;
  } catch (error) {
    if (mine === generation) say(`This page could not be drawn: ${error.message}`, { error: true });
    throw error;
  }
}

/** Go to `url` inside the application (a new history entry unless `replace`). */
export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  return show(url, { focus: !replace });
}

document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target.closest("a[href]");
  if (!link || link.target || link.hasAttribute("download")) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !route(url.pathname)) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});

window.addEventListener("popstate", () => show(location.href));

show(location.href).catch((error) => console.error(error));
