#!/bin/sh
# Vendors the browser libraries the maintenance view uses into pinchpoint/api/static/vendor/, so
# the service works with no internet access and a fresh clone needs no npm. The files it writes
# are committed; run it again only to change a version (then update the pins below).
#
# Apache ECharts ships as one file, dist/echarts.min.js, with ZRender (its renderer) bundled in:
# both packages are fetched from the npm registry with `npm pack`, checked against the pinned
# integrity, and only the bundle and the licence texts are kept.
set -eu

ECHARTS_VERSION="6.1.0"
ECHARTS_INTEGRITY="sha512-q0yaFPggC9FUdsWH4blavRWFmxdrIodbkoKNAjJudAI6CA9gNPxHtV2RcZNEepZVlk4yvBYkOkbk6HIVpIyHZA=="
ZRENDER_VERSION="6.1.0"  # the exact version echarts 6.1.0 depends on
ZRENDER_INTEGRITY="sha512-oEGMDB6pOP2S6OwRR4PdVv610zrjnA3Bh+JnSG12fYJlBKjtNAoEb5fSUoCOOINlH96I2fU38/A2UpRKs67xYQ=="

here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/pinchpoint/api/static/vendor/echarts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

command -v npm >/dev/null 2>&1 || { echo "vendor-assets: npm is needed (apt-get install npm)" >&2; exit 1; }

# Fetch NAME@VERSION with `npm pack` into $work/NAME and check the tarball against INTEGRITY.
fetch() {
  name="$1"; version="$2"; integrity="$3"
  mkdir -p "$work/$name"
  (cd "$work/$name" && npm pack --silent "$name@$version" >/dev/null)
  tarball="$work/$name/$name-$version.tgz"
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    echo "vendor-assets: $name@$version: integrity $actual, expected $integrity" >&2
    exit 1
  fi
  tar -xzf "$tarball" -C "$work/$name"
}

fetch echarts "$ECHARTS_VERSION" "$ECHARTS_INTEGRITY"
fetch zrender "$ZRENDER_VERSION" "$ZRENDER_INTEGRITY"

rm -rf "$out"
mkdir -p "$out"
cp "$work/echarts/package/dist/echarts.min.js" "$out/echarts.min.js"
cp "$work/echarts/package/LICENSE" "$out/LICENSE"
cp "$work/echarts/package/NOTICE" "$out/NOTICE"
cp "$work/echarts/package/licenses/LICENSE-d3" "$out/LICENSE-d3"
cp "$work/zrender/package/LICENSE" "$out/LICENSE-zrender"
cat >"$out/VERSION" <<EOF
echarts $ECHARTS_VERSION $ECHARTS_INTEGRITY
zrender $ZRENDER_VERSION $ZRENDER_INTEGRITY (bundled inside echarts.min.js)
Written by scripts/vendor-assets.sh from the npm registry's tarballs.
EOF
echo "vendor-assets: echarts $ECHARTS_VERSION written to ${out#"$here"/}"
