#!/usr/bin/env bash
# Builds Mesa's Vulkan drivers for GPUs that are not here (v3dv: Raspberry Pi 4's V3D 4.2;
# turnip: Adreno 6xx; ANV: Intel) with Mesa's drm-shim noop backends, which let a driver open
# a fake render node and compile pipelines while every submit does nothing: the drivers test
# (drivers_test.sh, `make test-drivers`) and `make isa` compile every kernel pipeline with
# them. Source: Debian's own mesa source package (bookworm's 22.3.6, the Mesa an embedded
# Debian 12 board runs), built unmodified but for v3dv-headless.patch (test plumbing only:
# v3dv accepts a render node with no vc4 display node, and the v3d shim answers the compute
# and cache-flush queries); no compiler code is changed, so a crash or a spill seen with
# them is what the driver does on the board. Usage: build_mesa.sh OUTDIR (about 3 minutes
# on 2 quiet cores, 14 on busy ones, 340 MB; nothing is installed system-wide but the build
# dependencies). OUTDIR/ok marks a finished build: it is kept and reused.
set -eu
OUT=$1; HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$OUT/ok" ] && exit 0
export PATH=/usr/bin:/bin:/usr/sbin:/sbin   # Debian's python3 has mako
mkdir -p "$OUT"; cd "$OUT"
SRC=/etc/apt/sources.list.d/dmlops-src.sources
if [ ! -s "$SRC" ] && ! apt-get source --download-only -q --print-uris mesa >/dev/null 2>&1; then
  # deb-src entries mirroring the machine's own deb entries (deb822 or one-line format)
  sed -n '/^Types:/,/^$/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | sed 's/^Types: deb$/Types: deb-src/' >"$SRC"
  [ -s "$SRC" ] || { rm -f "$SRC"; grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | sed 's/^deb /deb-src /' \
    >/etc/apt/sources.list.d/dmlops-src.list; }
  apt-get update -qq >/dev/null 2>&1 || true
fi
apt-get install -y -q meson ninja-build python3-mako libdrm-dev bison flex glslang-tools libexpat1-dev zlib1g-dev \
  libelf-dev libzstd-dev pkg-config dpkg-dev vulkan-tools >/dev/null 2>&1
rm -rf src build; mkdir -p dl; (cd dl && apt-get source --download-only -q mesa >/dev/null 2>&1)
dpkg-source -x dl/mesa_*.dsc src >/dev/null
(cd src && patch -p1 -s < "$HERE/v3dv-headless.patch")
(cd src && meson setup ../build --buildtype=release -Db_ndebug=true -Dgallium-drivers= \
  -Dvulkan-drivers=broadcom,freedreno,intel -Dtools=drm-shim,intel -Dplatforms= -Dglx=disabled -Degl=disabled \
  -Dgbm=disabled -Dopengl=false -Dgles1=disabled -Dgles2=disabled -Dllvm=disabled -Dvalgrind=disabled \
  -Dlibunwind=disabled -Dvideo-codecs= -Dbuild-tests=false -Dshared-glapi=disabled) >configure.log 2>&1
nice -n 10 ninja -C build -j2 src/broadcom/drm-shim/libv3d_noop_drm_shim.so src/broadcom/vulkan/libvulkan_broadcom.so \
  src/freedreno/drm-shim/libfreedreno_noop_drm_shim.so src/freedreno/vulkan/libvulkan_freedreno.so \
  src/intel/tools/libintel_noop_drm_shim.so src/intel/vulkan/libvulkan_intel.so >build.log 2>&1
for d in broadcom freedreno intel; do
  printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.230"}}\n' \
    "$OUT/build/src/$d/vulkan/libvulkan_$d.so" >"$OUT/$d.json"
done
touch "$OUT/ok"
