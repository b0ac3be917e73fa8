# The weakest device Vulkan 1.1 allows: every limit at the spec's required minimum (or,
# for alignments and granularities, its required maximum), and no optional feature or
# extension. Source: the Vulkan specification, chapter "Limits", table "Required Limits"
# ([[limits-required]] in KhronosGroup/Vulkan-Docs chapters/limits.adoc, read at commit
# 012db30fd16929f9fd30dfbc2a7c86e048d64015), with its footnotes as cited below.
# The device type stays the driver's: on lavapipe (CPU) the library keeps its CPU tuning
# and texel loads, whose windows the spec minimum shrinks most.
name = min
apiVersion = 1.1
noOptionalFeatures = 1
deviceExtensions = none

maxTexelBufferElements = 65536
maxUniformBufferRange = 16384
maxStorageBufferRange = 2^27
maxPushConstantsSize = 128
maxMemoryAllocationCount = 4096
maxSamplerAllocationCount = 4000
bufferImageGranularity = 131072
maxBoundDescriptorSets = 4
maxPerStageDescriptorSamplers = 16
maxPerStageDescriptorUniformBuffers = 12
maxPerStageDescriptorStorageBuffers = 4
maxPerStageDescriptorSampledImages = 16
maxPerStageDescriptorStorageImages = 4
maxPerStageDescriptorInputAttachments = 4
# Footnote 2: at least the smaller of 128 and the sum of the per-stage uniform (12),
# storage (4), sampled image (16), storage image (4) and input attachment (4) limits and
# maxColorAttachments (4): 44.
maxPerStageResources = 44
# Footnote 8: n times the per-stage minimum, n the shader stages the device supports.
# Without the optional geometryShader and tessellationShader features: vertex, fragment
# and compute, n = 3.
maxDescriptorSetSamplers = 48
maxDescriptorSetUniformBuffers = 36
maxDescriptorSetUniformBuffersDynamic = 8
maxDescriptorSetStorageBuffers = 12
maxDescriptorSetStorageBuffersDynamic = 4
maxDescriptorSetSampledImages = 48
maxDescriptorSetStorageImages = 12
maxDescriptorSetInputAttachments = 4
maxComputeSharedMemorySize = 16384
maxComputeWorkGroupCount = 65535 65535 65535
maxComputeWorkGroupInvocations = 128
maxComputeWorkGroupSize = 128 128 64
minMemoryMapAlignment = 64
minTexelBufferOffsetAlignment = 256
minUniformBufferOffsetAlignment = 256
minStorageBufferOffsetAlignment = 256
nonCoherentAtomSize = 256
# The VK_VERSION_1_1 (VK_KHR_maintenance3) rows of the table.
maxPerSetDescriptors = 1024
maxMemoryAllocationSize = 2^30

# Subgroups (chapter "Limits", VkPhysicalDeviceSubgroupProperties): the basic operations in
# the compute stage are all Vulkan 1.1 requires. subgroupSize has no required minimum
# beyond 1 (the subgroup1 variant); 4 is Roadmap 2022's minimum.
subgroupSize = 4
subgroupSupportedStages = compute
subgroupSupportedOperations = basic

# No minimum exists for heap sizes; 1 GiB is the smallest a Raspberry Pi 4 with 2 GiB of
# RAM reports (rpi4-v3dv.profile).
heapSize = 2^30
