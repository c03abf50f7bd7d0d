#!/usr/bin/env bash
# A bare `make` in a fresh clone builds ./harness, as the README says, and `make ARCH=arm64`
# builds build/arm64/harness (issue 36: the first rule of the Makefile was the goal, and a
# bare make built one object file; scripts/demo calls `make harness`, so nothing noticed).
# The clone is of this checkout's HEAD into a temporary directory, and nothing of this
# checkout's build is reused: every object is compiled there (make -j2). The only thing taken
# from here is what scripts/setup --arm64 unpacked into .local/arm64 (libmariadb-dev for
# arm64, which is not Multi-Arch: same), linked in; without the cross packages the arm64 half
# is skipped with a line saying so. The two builds run side by side; 60-120 s on this shared
# 2-core machine.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../lib.sh"

command -v git >/dev/null || { fail "git is not installed"; finish; }
HEAD=$(git -C "$ROOT" rev-parse HEAD) || { fail "$ROOT is not a git checkout"; finish; }
C=$TMP/clone
git clone -q --no-checkout "$ROOT" "$C" && git -C "$C" checkout -q "$HEAD" ||
    { fail "git clone of $ROOT at $HEAD"; finish; }
check "the clone has no build of its own yet" test ! -e "$C/harness" -a ! -e "$C/build/rel"

# make as a person types it: not a sub-make of whatever make runs this test.
mk() { (cd "$C" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -j2 "$@"); }

# The arm64 build, where its packages are, runs beside the native one: separate build
# directories, and on a shared 2-core machine two makes get the cores sooner than one.
# Both read build/version.stamp, which a make writes when parsed: written once first, so the
# two never race to write it.
mk -s print-VERSION >/dev/null 2>&1
ARM=""
if command -v aarch64-linux-gnu-gcc >/dev/null && [ -d "$ROOT/.local/arm64" ] &&
    (cd "$ROOT" && env -u MAKEFLAGS -u MAKELEVEL make -s ARCH=arm64 check-pkgs >/dev/null 2>&1); then
    mkdir -p "$C/.local" && ln -s "$ROOT/.local/arm64" "$C/.local/arm64"
    mk ARCH=arm64 >"$TMP/make-arm64.log" 2>&1 &
    ARM=$!
fi
mk >"$TMP/make.log" 2>&1
rc=$?
check_eq "a bare make in a fresh clone exits 0 ($(tail -n1 "$TMP/make.log" | cut -c1-160))" 0 $rc
check "it produced ./harness, an executable" test -x "$C/harness"
check_contains "./harness --version names the clone's commit" "${HEAD:0:7}" "$("$C/harness" --version 2>&1)"
"$C/harness" --help >"$TMP/help" 2>&1
rc=$?
check_eq "./harness --help exits 0" 0 $rc
check_contains "and prints the usage" "usage" "$(tr '[:upper:]' '[:lower:]' <"$TMP/help")"
native=$(sha256sum <"$C/harness" 2>/dev/null)

if [ -n "$ARM" ]; then
    wait "$ARM"
    rc=$?
    check_eq "make ARCH=arm64 in the clone exits 0 ($(tail -n1 "$TMP/make-arm64.log" | cut -c1-160))" 0 $rc
    check "it produced build/arm64/harness" test -x "$C/build/arm64/harness"
    check_contains "an aarch64 executable" "ARM aarch64" "$(file "$C/build/arm64/harness")"
    check_eq "and left ./harness alone (its own directory)" "$native" "$(sha256sum <"$C/harness" 2>/dev/null)"
    if command -v qemu-aarch64-static >/dev/null; then
        check_contains "build/arm64/harness --version under qemu-user" "${HEAD:0:7}" \
            "$(env -u QEMU_LD_PREFIX -u LD_LIBRARY_PATH qemu-aarch64-static -L / "$C/build/arm64/harness" --version 2>&1)"
    fi
    check_contains "a second make ARCH=arm64 is up to date" "Nothing to be done for 'all'" "$(mk ARCH=arm64 2>&1)"
else
    echo "skipped: make ARCH=arm64 (no cross compiler or :arm64 libraries here: scripts/setup --arm64)"
fi
# A second bare make has nothing left to do: the default goal is the harness, all built.
check_contains "a second bare make is up to date" "Nothing to be done for 'all'" "$(mk 2>&1)"
finish
