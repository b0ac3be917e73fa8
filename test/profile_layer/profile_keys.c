/* The VkPhysicalDeviceLimits members a profile may set, named as in the spec, and how the
 * layer combines each with the driver's value (profile.h). The list covers what a compute
 * library can meet: buffers, descriptors, dispatches, alignments, timestamps. */
#include "profile.h"

#define L(name, kind, rule) {#name, offsetof(VkPhysicalDeviceLimits, name), kind, rule}

const dmp_limit_key dmp_limit_keys[] = {
    L(maxTexelBufferElements, DMP_U32, DMP_AT_MOST),
    L(maxUniformBufferRange, DMP_U32, DMP_AT_MOST),
    L(maxStorageBufferRange, DMP_U32, DMP_AT_MOST),
    L(maxPushConstantsSize, DMP_U32, DMP_AT_MOST),
    L(maxMemoryAllocationCount, DMP_U32, DMP_AT_MOST),
    L(maxSamplerAllocationCount, DMP_U32, DMP_AT_MOST),
    L(bufferImageGranularity, DMP_DEVSIZE, DMP_AT_LEAST),
    L(maxBoundDescriptorSets, DMP_U32, DMP_AT_MOST),
    L(maxPerStageDescriptorSamplers, DMP_U32, DMP_AT_MOST),
    L(maxPerStageDescriptorUniformBuffers, DMP_U32, DMP_AT_MOST),
    L(maxPerStageDescriptorStorageBuffers, DMP_U32, DMP_AT_MOST),
    L(maxPerStageDescriptorSampledImages, DMP_U32, DMP_AT_MOST),
    L(maxPerStageDescriptorStorageImages, DMP_U32, DMP_AT_MOST),
    L(maxPerStageDescriptorInputAttachments, DMP_U32, DMP_AT_MOST),
    L(maxPerStageResources, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetSamplers, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetUniformBuffers, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetUniformBuffersDynamic, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetStorageBuffers, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetStorageBuffersDynamic, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetSampledImages, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetStorageImages, DMP_U32, DMP_AT_MOST),
    L(maxDescriptorSetInputAttachments, DMP_U32, DMP_AT_MOST),
    L(maxComputeSharedMemorySize, DMP_U32, DMP_AT_MOST),
    L(maxComputeWorkGroupCount, DMP_U32X3, DMP_AT_MOST),
    L(maxComputeWorkGroupInvocations, DMP_U32, DMP_AT_MOST),
    L(maxComputeWorkGroupSize, DMP_U32X3, DMP_AT_MOST),
    L(minMemoryMapAlignment, DMP_SIZE, DMP_AT_LEAST),
    L(minTexelBufferOffsetAlignment, DMP_DEVSIZE, DMP_AT_LEAST),
    L(minUniformBufferOffsetAlignment, DMP_DEVSIZE, DMP_AT_LEAST),
    L(minStorageBufferOffsetAlignment, DMP_DEVSIZE, DMP_AT_LEAST),
    L(timestampComputeAndGraphics, DMP_BOOL, DMP_BOOL_AND),
    L(optimalBufferCopyOffsetAlignment, DMP_DEVSIZE, DMP_AT_LEAST),
    L(optimalBufferCopyRowPitchAlignment, DMP_DEVSIZE, DMP_AT_LEAST),
    L(nonCoherentAtomSize, DMP_DEVSIZE, DMP_AT_LEAST),
};
const size_t dmp_limit_key_count = sizeof dmp_limit_keys / sizeof dmp_limit_keys[0];

_Static_assert(sizeof dmp_limit_keys / sizeof dmp_limit_keys[0] <= sizeof ((dmp_profile *)0)->limits /
                                                                       sizeof ((dmp_profile *)0)->limits[0],
               "dmp_profile.limits holds a value per key");
