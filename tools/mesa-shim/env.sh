# Sourced: env.sh MESA_OUT DRIVER [GPU]. DRIVER: v3dv | turnip (GPU: Adreno id, default 630) |
# anv (GPU: skl, tgl, dg2; default tgl) | radv (GPU: an AMD family RADV_FORCE_FAMILY takes,
# default navi21; Debian's own RADV, no build) | lavapipe. Sets the loader, the shim and the
# drivers' statistics output for one process (build_mesa.sh builds MESA_OUT).
M=$1; B=$M/build
unset LD_PRELOAD VK_ICD_FILENAMES VK_DRIVER_FILES MESA_LOADER_DRIVER_OVERRIDE FD_GPU_ID INTEL_STUB_GPU_PLATFORM RADV_FORCE_FAMILY
export MESA_SHADER_CACHE_DISABLE=true
case "$2" in
  v3dv)   export LD_PRELOAD=$B/src/broadcom/drm-shim/libv3d_noop_drm_shim.so MESA_LOADER_DRIVER_OVERRIDE=v3d \
            V3D_DEBUG=shaderdb VK_ICD_FILENAMES=$M/broadcom.json ;;
  turnip) export LD_PRELOAD=$B/src/freedreno/drm-shim/libfreedreno_noop_drm_shim.so MESA_LOADER_DRIVER_OVERRIDE=msm \
            FD_GPU_ID=${3:-630} VK_ICD_FILENAMES=$M/freedreno.json ;;
  anv)    export LD_PRELOAD=$B/src/intel/tools/libintel_noop_drm_shim.so INTEL_STUB_GPU_PLATFORM=${3:-tgl} \
            INTEL_DEBUG=perf VK_ICD_FILENAMES=$M/intel.json ;;
  radv)   export RADV_FORCE_FAMILY=${3:-navi21} \
            VK_ICD_FILENAMES=$(ls /usr/share/vulkan/icd.d/radeon_icd.*.json 2>/dev/null | head -n 1) ;;
  lavapipe) export VK_ICD_FILENAMES=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1) ;;
esac
export VK_DRIVER_FILES=$VK_ICD_FILENAMES DMLOPS_BACKEND=vulkan
