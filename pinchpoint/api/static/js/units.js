// Rates, capacities, latencies and link speeds in words: the rules of pinchpoint/units.py, so the
// view says a figure as the terminal and the reports do. Rates SI (MB/s), capacities IEC (GiB),
// latencies in the unit their magnitude calls for (µs, ms, s), link speeds in bits (Gb/s); three
// significant digits, "," between thousands; a figure not known is "—".

export const UNKNOWN = "—";
const RATE_STEPS = ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"];
const CAPACITY_STEPS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
const LINK_STEPS = ["Mb/s", "Gb/s", "Tb/s"];

const known = (value) => value !== null && value !== undefined && Number.isFinite(Number(value));

/** `value` with three significant digits, none dropped from its integer part. */
export function significant(value) {
  if (value === 0) return "0";
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, 2 - magnitude);
  return Number(value).toLocaleString("en-US", { maximumFractionDigits: decimals, minimumFractionDigits: 0, useGrouping: true });
}

function stepped(value, steps, base) {
  let index = 0;
  while (index < steps.length - 1 && Math.abs(value) >= base) {
    value /= base;
    index += 1;
  }
  let shown = significant(value);
  if (index < steps.length - 1 && Math.abs(Number(shown.replace(/,/g, ""))) >= base) {
    value /= base;
    index += 1;
    shown = significant(value);
  }
  return `${shown} ${steps[index]}`;
}

/** A transfer rate in bytes per second, SI steps: "12.3 MB/s". */
export function rate(bytesPerS) {
  return known(bytesPerS) ? stepped(Number(bytesPerS), RATE_STEPS, 1000) : UNKNOWN;
}

/** A rate given in MB/s (SI), as `rate` says it. */
export function mbS(mbPerS) {
  return known(mbPerS) ? rate(Number(mbPerS) * 1e6) : UNKNOWN;
}

/** A capacity in IEC steps: "931 GiB", "7.28 TiB"; unknown or 0 is "—". */
export function capacity(bytes) {
  return known(bytes) && Number(bytes) !== 0 ? stepped(Number(bytes), CAPACITY_STEPS, 1024) : UNKNOWN;
}

/** A latency in seconds: "850 µs", "12.4 ms", "1.25 s". */
export function latency(seconds) {
  if (!known(seconds)) return UNKNOWN;
  const us = Number(seconds) * 1e6;
  if (Math.abs(us) < 999.5) return `${significant(us)} µs`;
  const ms = Number(seconds) * 1e3;
  if (Math.abs(ms) < 999.5) return `${significant(ms)} ms`;
  return `${significant(Number(seconds))} s`;
}

/** A latency given in milliseconds, as `latency` says it. */
export function latencyMs(milliseconds) {
  return known(milliseconds) ? latency(Number(milliseconds) / 1e3) : UNKNOWN;
}

/** A link speed in Mb/s: "100 Mb/s", "25 Gb/s". */
export function linkSpeed(mbps) {
  return known(mbps) && Number(mbps) > 0 ? stepped(Number(mbps), LINK_STEPS, 1000) : UNKNOWN;
}

// Units that read the same for one and for many (symbols, not words): plurals.py's list.
const SYMBOLS = new Set(["s", "ms", "µs", "us", "ns", "%", "IOPS", "rpm", "h", "min"]);

/** A counted unit in agreement with its figure: "1 HBA port" (unit "HBA ports"), "1 I/O". */
export function unitFor(count, unit) {
  if (count !== 1 || SYMBOLS.has(unit) || unit.endsWith("/s")) return unit;
  const words = unit.split(" ");
  const at = words.findIndex((w) => w.length > 2 && w.endsWith("s") && !w.endsWith("ss"));
  if (at < 0) return unit;
  words[at] = words[at].endsWith("ies") ? `${words[at].slice(0, -3)}y` : words[at].slice(0, -1);
  return words.join(" ");
}

/** `count` and `word` in agreement: "1 finding", "2 findings" (words that take an "s"). */
export function plural(count, word, many) {
  return `${Number(count).toLocaleString("en-US")} ${count === 1 ? word : many || `${word}s`}`;
}

/** A fact's value with its unit, as report/words.py's fact_value_text says it. */
export function quantity(value, unit) {
  if (value === null || value === undefined) return UNKNOWN;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value !== "number") return unit ? `${value} ${unit}` : String(value);
  if (unit === "ms") return latencyMs(value);
  if (unit === "µs") return latency(value / 1e6);
  if (unit === "MB/s") return mbS(value);
  if (unit === "Mb/s") return linkSpeed(value);
  if (unit === "Gb/s") return linkSpeed(value * 1000);
  const shown = Number.isInteger(value)
    ? value.toLocaleString("en-US")
    : value.toLocaleString("en-US", { maximumFractionDigits: Math.abs(value) >= 0.1 ? 2 : 3 });
  return unit ? `${shown} ${unitFor(value, unit)}` : shown;
}
