# An Adreno 618 (Snapdragon 730G / 7c phones and Chromebooks) with 4 GiB of RAM on Mesa's
# Turnip driver. Sources, Mesa's own (gitlab.freedesktop.org/mesa/mesa, read through the
# sailfishos-mirror/mesa copy on GitHub):
#   [D] src/freedreno/vulkan/tu_device.cc at 020a6bc28265ad967735e6f11818810a9134e9a1:
#       tu_get_properties(), tu_get_physical_device_properties_1_1/_1_3(),
#       tu_physical_device_init() (memory types), tu_get_system_heap_size(),
#       tu_gfx_queue_family_properties
#   [T] src/freedreno/vulkan/tu_common.h at 3c9ce4fdbcf85700705e86920b0bbaff273326f3
#   [F] src/freedreno/common/freedreno_devices.py at 17ca6174dcc6cb22059ac343bc29f8af7800f42e:
#       a6xx_base (max_sets 5, supports_double_threadsize) and the GPUId(618) entry
#       (cs_shared_mem_size 32 KiB, threadsize_base 64 and max_waves 16 by default)
# Values above what lavapipe offers are reported as lavapipe's (test/profile_layer/README.md).
name = adreno618-turnip
apiVersion = 1.3                       # [D] chip 6 with multiview: VK_MAKE_VERSION(1, 3, ...)
deviceType = integrated_gpu            # [D]
vendorID = 0x5143                      # [D] Qualcomm

maxTexelBufferElements = 2^27          # [T] MAX_TEXEL_ELEMENTS (1u << 27)
maxUniformBufferRange = 65536          # [T] MAX_UNIFORM_BUFFER_RANGE 0x10000
maxStorageBufferRange = 2^27           # [T] MAX_STORAGE_BUFFER_RANGE (1u << 27)
maxPushConstantsSize = 256             # [T] MAX_PUSH_CONSTANTS_SIZE
maxMemoryAllocationCount = 2^32-1      # [D] UINT32_MAX
bufferImageGranularity = 64            # [D] "A cache line"
# [D] usable_sets: [F] max_sets 5, one fewer when the driver reserves a set for itself
# (its reserve_descriptor_set option); the smaller.
maxBoundDescriptorSets = 4
maxComputeSharedMemorySize = 32768     # [F] cs_shared_mem_size = 32 * 1024
maxComputeWorkGroupCount = 65535 65535 65535   # [D]
maxComputeWorkGroupInvocations = 2048  # [D] threadsize_base * 2 * max_waves: 64 * 2 * 16
maxComputeWorkGroupSize = 1024 1024 1024   # [D] not an A702
minMemoryMapAlignment = 4096           # [D] "A page"
minTexelBufferOffsetAlignment = 64     # [D]
minUniformBufferOffsetAlignment = 64   # [D]
minStorageBufferOffsetAlignment = 4    # [D]
optimalBufferCopyOffsetAlignment = 128 # [D]
optimalBufferCopyRowPitchAlignment = 128   # [D]
nonCoherentAtomSize = 64               # [D]
timestampComputeAndGraphics = 1        # [D]
timestampValidBits = 48                # [D] tu_gfx_queue_family_properties

# [D] expose_double_threadsize (supports_double_threadsize, [F]): threadsize_base * 2.
subgroupSize = 128
subgroupSupportedStages = compute      # [D] without has_getfiberid (the A618's generation)
subgroupSupportedOperations = basic|vote|ballot|shuffle|shuffle_relative|clustered|arithmetic # [D]
maxMemoryAllocationSize = 2^32-1       # [D] 0xFFFFFFFFull
maxBufferSize = 2^32                   # [D] 1ull << 32

# [D] tu_get_system_heap_size(): half the RAM at 4 GiB or less: 2 GiB. One heap; memory
# type 0 device-local, host-visible and coherent (the cached types need kernel support
# the A618's does not promise, and ARM gets no cached non-coherent type).
heapSize = 2^31
memoryTypes = device_local|host_visible|host_coherent
