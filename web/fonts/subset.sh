#!/bin/sh
# Reproduces web/static/fonts/*.woff2: the Bengali and Urdu fonts the page
# ships, so that those languages never show boxes on a machine without them.
# Subset to the characters the catalogs and the page use, plus a margin:
# the whole Bengali block, the Arabic letters, marks and digits Urdu uses,
# ASCII and the punctuation the page writes.
#
# Needs: Debian's fonts-noto-core and fonts-noto-extra (the TTFs) and
# fonttools with brotli (apt-get install fonttools python3-brotli, or
# pip install fonttools brotli). Run from anywhere: sh web/fonts/subset.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
static="$here/../static"
out="$static/fonts"
src=${NOTO_DIR:-/usr/share/fonts/truetype/noto}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The characters of a catalog and of the page's markup, as text.
cat "$static/i18n/bn.json" "$static/index.html" >"$tmp/bn.txt"
cat "$static/i18n/ur.json" "$static/index.html" >"$tmp/ur.txt"

common="U+0020-007E,U+00A0,U+00D7,U+2010-2027,U+2030-203A,U+2190-2193,U+21BA,U+2212,U+25CC"
# Bengali: the whole block, and the danda of Devanagari it uses.
bn="$common,U+0980-09FF,U+0964-0965,U+200C-200D"
# Urdu: the Arabic letters, marks, digits and punctuation Urdu writes.
ur="$common,U+060C-061F,U+0621-063A,U+0640-0655,U+0660-066D,U+0670,U+0679-06D5,U+06F0-06F9,U+200C-200F,U+FD3E-FD3F"

pyftsubset "$src/NotoSansBengali-Regular.ttf" --text-file="$tmp/bn.txt" --unicodes="$bn" \
	--layout-features='*' --flavor=woff2 --no-hinting --desubroutinize \
	--output-file="$out/noto-sans-bengali.woff2"
pyftsubset "$src/NotoNastaliqUrdu-Regular.ttf" --text-file="$tmp/ur.txt" --unicodes="$ur" \
	--layout-features='*' --flavor=woff2 --no-hinting --desubroutinize \
	--output-file="$out/noto-nastaliq-urdu.woff2"
ls -l "$out"/*.woff2
