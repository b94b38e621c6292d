// Apache ECharts (vendored), loaded once when a page first draws a chart, so that a page's data
// is fetched and its tables drawn while the 1 MB library still loads (the shell preloads it);
// each chart sized to its box and disposed of when the page changes.

const live = new Set();
let loading = null;

/** The global `echarts`, once its script has run. */
export function loadEcharts() {
  if (window.echarts) return Promise.resolve(window.echarts);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = document.getElementById("echarts-src").href;
      script.onload = () => resolve(window.echarts);
      script.onerror = () => reject(new Error("the chart library did not load"));
      document.head.append(script);
    });
  }
  return loading;
}

export const COLORS = {
  critical: "#b3261e",
  warning: "#c77c00",
  info: "#1d5a9e",
  ok: "#5b8fc7",
  okDark: "#23723a",
  muted: "#9aa5b1",
  ink: "#1f2933",
};

/** An ECharts instance in `element`, resized with it (once the library has loaded). */
export async function chart(element) {
  const echarts = await loadEcharts();
  const instance = echarts.init(element, null, { renderer: "canvas" });
  const observer = new ResizeObserver(() => instance.resize());
  observer.observe(element);
  live.add({ instance, observer });
  return instance;
}

/** Dispose of every chart (the router calls this before drawing another page). */
export function disposeCharts() {
  for (const { instance, observer } of live) {
    observer.disconnect();
    instance.dispose();
  }
  live.clear();
}

/** Text for a tooltip: escaped, since names come from the host. */
export function escape(text) {
  return window.echarts.format.encodeHTML(String(text ?? ""));
}
