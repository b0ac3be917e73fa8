# The minimum profile with subgroups of one invocation: VkPhysicalDeviceSubgroupProperties
# requires subgroupSize to be a power of two of at least 1 (chapter "Limits", Vulkan-Docs
# chapters/limits.adoc), and Mali's Midgard GPUs report 1 (pan_subgroup_size in Mesa's
# src/panfrost/compiler, "subgroups are not supported").
include = min.profile
name = min-subgroup1
subgroupSize = 1
