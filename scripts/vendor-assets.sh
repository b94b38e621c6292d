#!/bin/sh
# Vendors the browser libraries the maintenance view uses into pinchpoint/api/static/vendor/, so
# the service works with no internet access and a fresh clone needs no npm. The files it writes
# are committed; run it again only to change a version (then update the pins below).
#
# Apache ECharts ships as one file, dist/echarts.min.js, with ZRender (its renderer) bundled in:
# both packages are fetched from the npm registry with `npm pack`, checked against the pinned
# integrity, and only the bundle and the licence texts are kept.
#
# The API's own documentation pages (/docs and /redoc) use Swagger UI (swagger-ui-dist: its
# bundle and stylesheet) and ReDoc (its standalone bundle), fetched and checked the same way.
set -eu

ECHARTS_VERSION="6.1.0"
ECHARTS_INTEGRITY="sha512-q0yaFPggC9FUdsWH4blavRWFmxdrIodbkoKNAjJudAI6CA9gNPxHtV2RcZNEepZVlk4yvBYkOkbk6HIVpIyHZA=="
ZRENDER_VERSION="6.1.0"  # the exact version echarts 6.1.0 depends on
ZRENDER_INTEGRITY="sha512-oEGMDB6pOP2S6OwRR4PdVv610zrjnA3Bh+JnSG12fYJlBKjtNAoEb5fSUoCOOINlH96I2fU38/A2UpRKs67xYQ=="
SWAGGER_VERSION="5.35.0"
SWAGGER_INTEGRITY="sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ=="
REDOC_VERSION="2.5.4"
REDOC_INTEGRITY="sha512-M6jWhG1qoBnH6TFmzJnstyCZ87HmOY/UzDm78mHiYihEdlV/YcS9ogOo1NlElnJMeLsyxHFe2yFc4sNjHTrABQ=="

here="$(cd "$(dirname "$0")/.." && pwd)"
vendor="$here/pinchpoint/api/static/vendor"
out="$vendor/echarts"
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

fetch swagger-ui-dist "$SWAGGER_VERSION" "$SWAGGER_INTEGRITY"
out="$vendor/swagger-ui"
rm -rf "$out"
mkdir -p "$out"
for f in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE; do
  cp "$work/swagger-ui-dist/package/$f" "$out/$f"
done
cat >"$out/VERSION" <<EOF
swagger-ui-dist $SWAGGER_VERSION $SWAGGER_INTEGRITY
Written by scripts/vendor-assets.sh from the npm registry's tarballs.
EOF
echo "vendor-assets: swagger-ui-dist $SWAGGER_VERSION written to ${out#"$here"/}"

fetch redoc "$REDOC_VERSION" "$REDOC_INTEGRITY"
out="$vendor/redoc"
rm -rf "$out"
mkdir -p "$out"
# The one change made to a vendored file: ReDoc draws the logo of its "API docs by Redocly" link
# from cdn.redoc.ly; it becomes an empty inline image, so that the page asks nothing of the internet.
sed 's#https://cdn.redoc.ly/redoc/logo-mini.svg#data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E#' \
  "$work/redoc/package/bundles/redoc.standalone.js" >"$out/redoc.standalone.js"
grep -q 'cdn.redoc.ly' "$out/redoc.standalone.js" && { echo "vendor-assets: redoc still loads from cdn.redoc.ly" >&2; exit 1; }
cp "$work/redoc/package/bundles/redoc.standalone.js.LICENSE.txt" "$out/redoc.standalone.js.LICENSE.txt"
cp "$work/redoc/package/LICENSE" "$out/LICENSE"
cat >"$out/VERSION" <<EOF
redoc $REDOC_VERSION $REDOC_INTEGRITY
redoc.standalone.js: its cdn.redoc.ly logo URL replaced by an empty inline SVG (nothing else changed).
Written by scripts/vendor-assets.sh from the npm registry's tarballs.
EOF
echo "vendor-assets: redoc $REDOC_VERSION written to ${out#"$here"/}"
