#!/bin/sh
# Installs the Debian packages libdmlops needs when run as root; otherwise prints the
# exact apt-get line. `make deps` runs it, and so do `make test` and `make demo` when a
# tool or header is missing. Usage: tools/deps.sh [--check]
PKGS="build-essential pkg-config libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools mesa-vulkan-drivers vulkan-validationlayers libcjson-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ "$1" = "--check" ] && { echo "missing Debian packages:$missing"; exit 1; }
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || apt-get update
    apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || apt-get install -y --no-install-recommends $missing || exit 1
else
    echo "deps: missing Debian packages. Run:" >&2
    echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
