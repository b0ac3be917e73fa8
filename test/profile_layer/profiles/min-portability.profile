# The minimum profile on a portability implementation (MoltenVK and the like): the device
# offers VK_KHR_portability_subset, which the application must then enable
# (VUID-VkDeviceCreateInfo-pProperties-04451), and the layer answers
# VkPhysicalDevicePortabilitySubsetFeaturesKHR with every member false: everything the
# extension can forbid is forbidden, so that validation flags any use of it.
include = min.profile
name = min-portability
portabilitySubset = 1
