#!/usr/bin/env bash
# tests/browser/chromium.sh -- headless Debian chromium for the report tests,
# offline and quiet: no network, no first-run, no sync, a throw-away profile.
#   chromium.sh dom FILE.html            print the DOM after parsing
#   chromium.sh shot FILE.html OUT.png   screenshot at 1280x2000
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
dom) timeout 120 "$bin" "${flags[@]}" --dump-dom "file://$file" 2>/dev/null ;;
shot) timeout 120 "$bin" "${flags[@]}" --hide-scrollbars --window-size=1280,2000 \
          --screenshot="$(realpath -m "$3")" "file://$file" >/dev/null 2>&1 ;;
*) echo "usage: chromium.sh dom FILE | shot FILE OUT.png" >&2; exit 2 ;;
esac
