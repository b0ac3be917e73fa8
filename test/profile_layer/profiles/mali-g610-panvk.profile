# A Mali-G610 (Valhall, v10: RK3588 boards such as the Orange Pi 5 and Rock 5) with 4 GiB
# of RAM on Mesa's PanVK driver over the panthor kernel driver. Sources, Mesa's own
# (gitlab.freedesktop.org/mesa/mesa, read through the sailfishos-mirror/mesa copy on
# GitHub):
#   [X] src/panfrost/vulkan/panvk_vX_physical_device.c at 020a6bc28265ad967735e6f11818810a9134e9a1:
#       get_physical_device_properties(), get_api_version()
#   [P] src/panfrost/vulkan/panvk_physical_device.c at 0350d2d094c7d310e88c0a0745854538ba8f4e84:
#       get_system_heap_size(), get_device_heaps(), panvk_get_max_buffer_size()
#   [S] pan_subgroup_size() in Mesa's Panfrost compiler header (pan_compiler.h)
# Left to the driver below (values the kernel reports at run time): the workgroup limits
# (max_threads_per_wg), timestampPeriod, the queue's timestamp bits.
# Values above what lavapipe offers are reported as lavapipe's (test/profile_layer/README.md).
name = mali-g610-panvk
apiVersion = 1.4                       # [X] PAN_ARCH >= 10: 1.4 (lavapipe's 1.3 is reported)
deviceType = integrated_gpu            # [X]
vendorID = 0x13B5                      # [X] ARM_VENDOR_ID

# [X] 2^floor(log2(max buffer size / 16)); [P] the max buffer size is 2^32 - 1 below v11.
maxTexelBufferElements = 2^27
maxUniformBufferRange = 2^20           # [X] 1 << 20
maxStorageBufferRange = 2^32-1         # [X] UINT32_MAX
maxPushConstantsSize = 256             # [X]
maxMemoryAllocationCount = 2^32-1      # [X] UINT32_MAX
bufferImageGranularity = 64            # [X] "A cache line"
maxComputeSharedMemorySize = 32768     # [X]
maxComputeWorkGroupCount = 65535 65535 65535   # [X]
minMemoryMapAlignment = 4096           # [X] os_page_size
minTexelBufferOffsetAlignment = 16     # [X]
minUniformBufferOffsetAlignment = 16   # [X]
minStorageBufferOffsetAlignment = 16   # [X]
optimalBufferCopyOffsetAlignment = 64  # [X]
optimalBufferCopyRowPitchAlignment = 64    # [X]
nonCoherentAtomSize = 64               # [X] the cache line; 64 where it cannot be detected
timestampComputeAndGraphics = 1        # [X] PAN_ARCH >= 10 and panthor can query timestamps

subgroupSize = 16                      # [S] arch >= 9
subgroupSupportedStages = compute|fragment # [X]
subgroupSupportedOperations = basic|vote|arithmetic|ballot|shuffle|shuffle_relative|clustered|quad # [X]
maxPerSetDescriptors = 65535           # [X] UINT16_MAX
maxMemoryAllocationSize = 2^32-1       # [X] UINT32_MAX

# [P] get_system_heap_size(): half the RAM at 4 GiB or less: 2 GiB. get_device_heaps(): a
# device-local type that the host cannot map first ("so we can prevent imported dma-bufs
# ... from being CPU-mapped"), then host-cached but not coherent (panthor's write-back
# mappings), then host-coherent. The library must map only the last.
heapSize = 2^31
memoryTypes = device_local, device_local|host_visible|host_cached, device_local|host_visible|host_coherent
