#!/usr/bin/env bash
# tests/browser/chromium.sh -- headless Debian chromium for the report tests,
# offline and quiet: no network, no first-run, no sync, a throw-away profile.
#   chromium.sh dom FILE.html [WIDTH]            print the DOM after loading (scripts
#                                                run), in a WIDTH px wide window (1280)
#   chromium.sh shot FILE.html OUT.png [HEIGHT]  screenshot 1280 px wide, HEIGHT px
#                                                tall (2000; the page's height shows it all)
set -u
bin=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$bin" ]; then
    echo "chromium not found: install Debian's chromium (apt-get install -y chromium)" >&2
    exit 3
fi
profile=$(mktemp -d /tmp/aops-chromium.XXXXXX)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$profile")
file=$(realpath "$2")
case "$1" in
dom) timeout 120 "$bin" "${flags[@]}" --window-size="${3:-1280},2000" --dump-dom "file://$file" 2>/dev/null ;;
shot) timeout 120 "$bin" "${flags[@]}" --hide-scrollbars --window-size="1280,${4:-2000}" \
          --screenshot="$(realpath -m "$3")" "file://$file" >/dev/null 2>&1 ;;
*) echo "usage: chromium.sh dom FILE [WIDTH] | shot FILE OUT.png [HEIGHT]" >&2; exit 2 ;;
esac
