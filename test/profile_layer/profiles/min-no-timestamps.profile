# The minimum profile without timestamps: the Required Limits table leaves
# timestampComputeAndGraphics implementation-dependent, and VkQueueFamilyProperties'
# timestampValidBits may be 0 ("the queue does not support timestamps"; chapter "Devices
# and Queues", Vulkan-Docs chapters/devsandqueues.adoc).
include = min.profile
name = min-no-timestamps
timestampComputeAndGraphics = 0
timestampValidBits = 0
