#!/bin/sh
# Build checks: a plain `make` in a fresh clone succeeds with dpkg-query and apt-get made
# to fail (so it needs nothing Debian-specific), and never runs the dependency check,
# which looks for tools and libraries rather than Debian packages and installs packages
# only as root on Debian. Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
CC=${CC:-cc}
passed=0 failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_build.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# The suite runs inside make: the clone's make must not join this one's jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL

check() { # name, command...
    name=$1; shift
    if out=$("$@" 2>&1); then
        passed=$((passed + 1)); echo "ok   $name"
    else
        failed=$((failed + 1)); echo "FAIL $name"; echo "$out" | sed 's/^/     | /' | tail -20
    fi
}

# fakes DIR STATUS: dpkg, dpkg-query, apt-get and apt that append their command line to
# $tmp/log/called and exit STATUS.
mkdir -p "$tmp/log" && chmod 1777 "$tmp/log" && chmod 755 "$tmp"
fakes() {
    mkdir -p "$1"
    for t in dpkg dpkg-query apt-get apt; do
        printf '#!/bin/sh\necho "%s $*" >> %s/log/called\nexit %s\n' "$t" "$tmp" "$2" >"$1/$t"
        chmod 755 "$1/$t"
    done
}
fakes "$tmp/fail" 1
fakes "$tmp/succeed" 0
not_called() { # the fakes were not run
    [ ! -e "$tmp/log/called" ] || { cat "$tmp/log/called"; false; }
}

# ---- a fresh clone of this tree (plus uncommitted changes), built with plain make -------
src=$tmp/src
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git clone -q "$(pwd)" "$src" &&
        { git diff --binary HEAD | { cd "$src" && git apply --binary --allow-empty; }; } &&
        git ls-files -o --exclude-standard | tar -cf - -T - | tar -xf - -C "$src"
    check "fresh clone of the tree, with its uncommitted changes" test -f "$src/Makefile"
    check "plain make in the clone succeeds while dpkg-query and apt-get fail" \
        sh -c "cd '$src' && PATH='$tmp/fail':\"\$PATH\" make -j2 B=build CC='$CC' >'$tmp/make.log' 2>&1 || { tail -20 '$tmp/make.log'; false; }"
    check "plain make ran neither dpkg-query nor apt-get" not_called
    check "plain make built libdmlops.a, libdmlops.so and the tool" \
        sh -c "cd '$src/build' && test -f libdmlops.a && test -L libdmlops.so && test -x bin/dmlops"
    # Dry runs with every target out of date: what each goal would run.
    check "make, make lib, make cli and make install never run the dependency check" \
        sh -c "cd '$src' && for g in all lib cli install; do make -n -B \$g | grep deps.sh && exit 1; done; true"
    check "make test, make demo and make deps run it" \
        sh -c "cd '$src' && for g in test demo deps; do make -n -B \$g | grep -q 'deps.sh' || { echo \"not in make \$g\"; exit 1; }; done"
else
    echo "note: not a git checkout, the fresh-clone build is not checked"
fi

# ---- .ci/deps.sh ------------------------------------------------------------------------
check "deps.sh finds every tool and library of the test profile without dpkg" \
    sh -c "PATH='$tmp/fail':\"\$PATH\" .ci/deps.sh test"
check "deps.sh ran neither dpkg-query nor apt-get" not_called
check "deps.sh --check names a missing tool and the apt-get line, and exits 1" \
    sh -c "GLSLANG='$tmp/none/glslangValidator' PATH='$tmp/fail':\"\$PATH\" sh .ci/deps.sh --check build >'$tmp/deps.out' 2>&1; \
        rc=\$?; cat '$tmp/deps.out'; [ \$rc = 1 ] && grep -q 'none/glslangValidator' '$tmp/deps.out' && \
        grep -q 'apt-get install .*glslang-tools' '$tmp/deps.out'"
check "deps.sh --check installs nothing" not_called
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    check "deps.sh as a user prints the apt-get line and installs nothing" \
        sh -c "GLSLANG='$tmp/none/glslangValidator' PATH='$tmp/succeed':\"\$PATH\" \
            setpriv --reuid=65534 --regid=65534 --clear-groups sh .ci/deps.sh build >'$tmp/deps.out' 2>&1; \
            rc=\$?; cat '$tmp/deps.out'; [ \$rc = 1 ] && grep -q 'apt-get install .*glslang-tools' '$tmp/deps.out' && \
            [ ! -e '$tmp/log/called' ]"
fi
if [ "$(id -u)" = 0 ] && [ -r /etc/debian_version ]; then
    # The fake apt-get succeeds without installing anything, so the tool is still missing.
    check "deps.sh as root on Debian runs apt-get install for the missing tool's package" \
        sh -c "GLSLANG='$tmp/none/glslangValidator' PATH='$tmp/succeed':\"\$PATH\" sh .ci/deps.sh build >'$tmp/deps.out' 2>&1; \
            rc=\$?; cat '$tmp/deps.out' '$tmp/log/called'; [ \$rc = 1 ] && \
            grep -q '^apt-get install .*glslang-tools' '$tmp/log/called' && ! grep -q '^dpkg' '$tmp/log/called'"
    rm -f "$tmp/log/called"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
