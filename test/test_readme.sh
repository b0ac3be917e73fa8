#!/bin/sh
# The README as a new user reads it: the usage example compiles and runs exactly as written
# (it checks every status and destroys everything), and the install notes say what a
# custom prefix and the tool need. B names the build directory; CC and LDFLAGS are the
# build's (the sanitizer runtimes of `make test-asan`). Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
CC=${CC:-cc}
LDFLAGS=${LDFLAGS:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_readme.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL $1"
    if [ -n "$2" ] && [ -f "$2" ]; then sed 's/^/     | /' "$2" | head -n 30; fi
}

# The first C block after "## Using it".
awk '/^## Using it/ { on = 1 } on && /^```c$/ { grab = 1; next } grab && /^```$/ { exit } grab { print }' README.md >"$T/example.c"
if [ ! -s "$T/example.c" ]; then
    fail "README.md has a C example under \"## Using it\""
elif ! $CC -std=c11 -Wall -Wextra -Werror -Iinclude -o "$T/example" "$T/example.c" $LDFLAGS "$B/libdmlops.a" \
    -lm -ldl -lpthread >"$T/out" 2>&1; then
    fail "the README example compiles as written (C11, -Wall -Wextra -Werror)" "$T/out"
else
    ok "the README example compiles as written (C11, -Wall -Wextra -Werror)"
    printf '2 1 3 4\n8 7 6 5\n11 10 9 12\n' >"$T/want"
    backends="default cpu"
    "$B/bin/dmlops" info 2>/dev/null | grep -q '^Vulkan devices: [1-9]' && backends="$backends vulkan"
    for backend in $backends; do
        if [ "$backend" = default ]; then "$T/example" >"$T/got" 2>"$T/err"
        else DMLOPS_BACKEND=$backend "$T/example" >"$T/got" 2>"$T/err"; fi
        rc=$?
        if [ "$rc" -eq 0 ] && cmp -s "$T/got" "$T/want"; then
            ok "the README example runs and prints the reversed rows ($backend backend)"
        else
            { echo "status $rc, stdout:"; cat "$T/got"; cat "$T/err"; } >"$T/out"
            fail "the README example runs and prints the reversed rows ($backend backend)" "$T/out"
        fi
    done
    # Every call's status is checked and everything created is destroyed.
    for fn in dmlops_context_create dmlops_operator_create dmlops_buffer_create dmlops_buffer_write \
        dmlops_operator_execute dmlops_buffer_read; do
        if grep "$fn" "$T/example.c" | grep -q "st = $fn\|if ($fn\|= $fn"; then :; else
            fail "the README example checks the status of $fn" "$T/example.c"
            continue
        fi
        ok "the README example checks the status of $fn"
    done
    created=$(grep -o 'dmlops_[a-z]*_create(' "$T/example.c" | wc -l)
    destroyed=$(grep -o 'dmlops_[a-z]*_destroy(' "$T/example.c" | wc -l)
    if [ "$created" -gt 0 ] && [ "$created" -eq "$destroyed" ]; then
        ok "the README example destroys all it creates ($created objects)"
    else
        fail "the README example destroys all it creates ($created created, $destroyed destroyed)"
    fi
    # The lengths tensor is 12 bytes (3 UINT32): so are its buffer and its binding.
    if grep -q '{bl, 0, 12}' "$T/example.c" && ! grep -q '{bl, 0, 16}' "$T/example.c"; then
        ok "the README example binds the 12 bytes of the lengths tensor"
    else
        fail "the README example binds the 12 bytes of the lengths tensor" "$T/example.c"
    fi
fi

if grep -q 'PKG_CONFIG_PATH' README.md; then ok "README says a custom prefix needs PKG_CONFIG_PATH"
else fail "README says a custom prefix needs PKG_CONFIG_PATH"; fi
if grep -qi 'libcjson' README.md; then ok "README says the dmlops tool needs libcjson at run time"
else fail "README says the dmlops tool needs libcjson at run time"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
