# A Raspberry Pi 4 Model B with 2 GiB of RAM (BCM2711, V3D 4.2) on Mesa's V3DV driver.
# Sources, Mesa's own (gitlab.freedesktop.org/mesa/mesa, read through the
# sailfishos-mirror/mesa copy on GitHub):
#   [D] src/broadcom/vulkan/v3dv_device.c at 020a6bc28265ad967735e6f11818810a9134e9a1:
#       get_device_properties(), compute_heap_size(), compute_memory_budget(),
#       create_physical_device() (memory heaps and types), v3dv_queue_family_properties
#   [L] src/broadcom/vulkan/v3dv_limits.h at 0b4398134c366339df0ca434782a5954a955abc0
#   [C] src/broadcom/common/v3d_limits.h at 0ae28c9056ae57242fc5ca43fc6b6e57b58c23ea
# Values above what lavapipe offers are reported as lavapipe's (test/profile_layer/README.md).
name = rpi4-v3dv
apiVersion = 1.3                       # [D] V3DV_API_VERSION VK_MAKE_VERSION(1, 3, ...)
deviceType = integrated_gpu            # [D] VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU
vendorID = 0x14E4                      # [D] v3dv_physical_device_vendor_id: Broadcom
deviceID = 0xBE485FD3                  # [D] v3dv_physical_device_device_id: ver 42, the 2711

maxTexelBufferElements = 2^28          # [D] (1ul << 28)
maxUniformBufferRange = 2^30           # [D][C] V3D_MAX_BUFFER_RANGE (1 << 30)
maxStorageBufferRange = 2^30           # [D][C] V3D_MAX_BUFFER_RANGE
maxPushConstantsSize = 128             # [L] MAX_PUSH_CONSTANTS_SIZE
maxMemoryAllocationCount = 262144      # [D] mem_size / page_size: 1 GiB / 4096
bufferImageGranularity = 256           # [D][C] V3D_NON_COHERENT_ATOM_SIZE
maxBoundDescriptorSets = 16            # [L] MAX_SETS
maxPerStageDescriptorSamplers = 24     # [C] V3D_MAX_TEXTURE_SAMPLERS
maxPerStageDescriptorUniformBuffers = 16   # [L] MAX_UNIFORM_BUFFERS
maxPerStageDescriptorStorageBuffers = 8    # [L] MAX_STORAGE_BUFFERS
maxPerStageDescriptorSampledImages = 16    # [L] MAX_SAMPLED_IMAGES
maxPerStageDescriptorStorageImages = 4     # [L] MAX_STORAGE_IMAGES
maxPerStageDescriptorInputAttachments = 4  # [L] MAX_INPUT_ATTACHMENTS
maxPerStageResources = 128             # [D] max_per_stage_resources
# [D] V3DV_SUPPORTED_SHADER_STAGES ([L]: 4) times the per-stage limits.
maxDescriptorSetSamplers = 96
maxDescriptorSetUniformBuffers = 64
maxDescriptorSetUniformBuffersDynamic = 8  # [L] MAX_DYNAMIC_UNIFORM_BUFFERS
maxDescriptorSetStorageBuffers = 32
maxDescriptorSetStorageBuffersDynamic = 4  # [L] MAX_DYNAMIC_STORAGE_BUFFERS
maxDescriptorSetSampledImages = 64
maxDescriptorSetStorageImages = 16
maxDescriptorSetInputAttachments = 4       # [L] MAX_INPUT_ATTACHMENTS
maxComputeSharedMemorySize = 32768     # [C] V3D_MAX_COMPUTE_SHARED_MEMORY_SIZE (32u * 1024u)
maxComputeWorkGroupCount = 65535 65535 65535   # [C] V3D_MAX_CSD_WG_COUNT
maxComputeWorkGroupInvocations = 256   # [C] V3D_MAX_CSD_WG_SIZE
maxComputeWorkGroupSize = 256 256 256  # [C] V3D_MAX_CSD_WG_SIZE
minMemoryMapAlignment = 4096           # [D] page_size
minTexelBufferOffsetAlignment = 64     # [C] V3D_TMU_TEXEL_ALIGN
minUniformBufferOffsetAlignment = 32   # [D]
minStorageBufferOffsetAlignment = 32   # [D]
optimalBufferCopyOffsetAlignment = 32  # [D]
optimalBufferCopyRowPitchAlignment = 32    # [D]
nonCoherentAtomSize = 256              # [C] V3D_NON_COHERENT_ATOM_SIZE
timestampComputeAndGraphics = 1        # [D]
timestampValidBits = 64                # [D] v3dv_queue_family_properties

subgroupSize = 16                      # [C] V3D_CHANNELS
subgroupSupportedStages = compute|fragment # [D]
subgroupSupportedOperations = basic    # [D] subgroup_ops: BASIC below V3D 7.1
maxMemoryAllocationSize = 2^30         # [L] MAX_MEMORY_ALLOCATION_SIZE (1ull << 30)
maxBufferSize = 2^30                   # [D] V3D_MAX_BUFFER_RANGE

# [D] compute_heap_size(): "If the user has 4GB or less, we use at most half": 1 GiB of
# 2 GiB. One heap, device-local; one memory type, "the only combination required by the
# spec".
heapSize = 2^30
memoryTypes = device_local|host_visible|host_coherent
# [D] compute_memory_budget(): min(heap, used + 90% of the available system memory). The
# layer offers VK_EXT_memory_budget (V3DV does, lavapipe does not) with this budget and
# no usage: 90% of 1 GiB of free RAM. Plain bytes: test_small_devices.c reads it.
memoryBudget = 966367641
