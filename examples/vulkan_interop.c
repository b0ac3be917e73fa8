/* libdmlops inside an engine that owns its Vulkan device: the engine creates the
 * instance, device, queue and buffers; libdmlops wraps them and records a SLICE1 into the
 * engine's command buffer, like DirectML's IDMLCommandRecorder::RecordDispatch. The
 * engine places the barriers.
 *
 * Build: cc vulkan_interop.c $(pkg-config --static --cflags --libs dmlops) -lvulkan */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "dmlops_vulkan.h" /* the interop API (it includes dmlops.h) */

#define VK_OR_DIE(x)                                                                      \
    do {                                                                                  \
        VkResult r_ = (x);                                                                \
        if (r_ != VK_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed: %d\n", #x, (int)r_);                              \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)
#define DML_OR_DIE(x)                                                                     \
    do {                                                                                  \
        if ((x) != DMLOPS_SUCCESS) {                                                      \
            fprintf(stderr, "%s: %s\n", #x, dmlops_last_error_message());                 \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

/* Whether the device offers a device extension. */
static bool has_device_extension(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    bool found = false;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS) return false;
    VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
    if (e && vkEnumerateDeviceExtensionProperties(phys, NULL, &n, e) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(e[i].extensionName, name);
    free(e);
    return found;
}

/* A host-visible buffer, so that the example can fill and read it directly. */
static VkResult make_buffer(VkPhysicalDevice phys, VkDevice dev, VkDeviceSize size, VkBuffer *buf, VkDeviceMemory *mem,
                            void **map)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkResult r = vkCreateBuffer(dev, &bci, NULL, buf);
    if (r != VK_SUCCESS) return r;
    VkMemoryRequirements req;
    VkPhysicalDeviceMemoryProperties props;
    vkGetBufferMemoryRequirements(dev, *buf, &req);
    vkGetPhysicalDeviceMemoryProperties(phys, &props);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < props.memoryTypeCount &&
           !((req.memoryTypeBits & (1u << type)) && (props.memoryTypes[type].propertyFlags & want) == want))
        type++;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    if ((r = vkAllocateMemory(dev, &mai, NULL, mem)) != VK_SUCCESS) return r;
    if ((r = vkBindBufferMemory(dev, *buf, *mem, 0)) != VK_SUCCESS) return r;
    return vkMapMemory(dev, *mem, 0, VK_WHOLE_SIZE, 0, map);
}

int main(void)
{
    /* ---- the engine's own Vulkan objects ---- */
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    VK_OR_DIE(vkCreateInstance(&ici, NULL, &instance));
    uint32_t n = 1;
    VkPhysicalDevice phys;
    VkResult er = vkEnumeratePhysicalDevices(instance, &n, &phys);
    if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || n == 0) {
        fprintf(stderr, "no Vulkan device\n");
        return 1;
    }
    uint32_t family = 0, nq = 0;
    VkQueueFamilyProperties q[16];
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
    if (nq > 16) nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, q);
    while (family < nq && !(q[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) family++;
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = family,
                                   .queueCount = 1, .pQueuePriorities = &prio};
    /* A portability implementation (MoltenVK and the like) that offers
     * VK_KHR_portability_subset must have it enabled; the device is the engine's, so the
     * engine enables it (libdmlops uses nothing the extension can forbid). */
    const char *portability = "VK_KHR_portability_subset";
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = has_device_extension(phys, portability) ? 1 : 0,
                              .ppEnabledExtensionNames = &portability};
    VkDevice dev;
    VkQueue queue;
    VK_OR_DIE(vkCreateDevice(phys, &dci, NULL, &dev));
    vkGetDeviceQueue(dev, family, 0, &queue);

    enum { ROWS = 4, COLS = 6 };
    VkBuffer in_buf, out_buf;
    VkDeviceMemory in_mem, out_mem;
    float *in, *out;
    VK_OR_DIE(make_buffer(phys, dev, ROWS * COLS * 4, &in_buf, &in_mem, (void **)&in));
    VK_OR_DIE(make_buffer(phys, dev, 64, &out_buf, &out_mem, (void **)&out));
    for (int i = 0; i < ROWS * COLS; i++) in[i] = (float)i;

    /* ---- libdmlops on those objects ---- */
    dmlops_vulkan_context_desc cd = {.instance = instance, .physical_device = phys, .device = dev,
                                     .queue_family_index = family, .queue = queue, .api_version = VK_API_VERSION_1_1};
    dmlops_context *ctx;
    DML_OR_DIE(dmlops_context_create_vulkan(&cd, &ctx));

    /* Every other row, backwards; every other column from column 1: a 2 x 3 window. */
    uint32_t in_sizes[2] = {ROWS, COLS}, out_sizes[2] = {2, 3}, offsets[2] = {0, 1}, window[2] = {ROWS, 5};
    int32_t strides[2] = {-2, 2};
    DML_BUFFER_TENSOR_DESC bi = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, in_sizes, NULL, ROWS * COLS * 4, 0};
    DML_BUFFER_TENSOR_DESC bo = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, out_sizes, NULL, 24, 0};
    DML_TENSOR_DESC ti = {DML_TENSOR_TYPE_BUFFER, &bi}, to = {DML_TENSOR_TYPE_BUFFER, &bo};
    DML_SLICE1_OPERATOR_DESC sd = {&ti, &to, 2, offsets, window, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
    dmlops_operator *op;
    DML_OR_DIE(dmlops_operator_create(ctx, &desc, &op));

    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    dmlops_buffer *din, *dout;
    DML_OR_DIE(dmlops_buffer_wrap_vulkan(ctx, in_buf, 0, ROWS * COLS * 4, usage, &din));
    DML_OR_DIE(dmlops_buffer_wrap_vulkan(ctx, out_buf, 0, 64, usage, &dout));
    dmlops_binding input = {din, 0, ROWS * COLS * 4}, output = {dout, 0, 24};
    dmlops_binding_table *table; /* keep alive until the command buffer completes */
    DML_OR_DIE(dmlops_binding_table_create(op, &table));
    DML_OR_DIE(dmlops_binding_table_bind(table, 1, &input, 1, &output));

    /* ---- the engine records: its barrier, the operator, its barrier ---- */
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family};
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VK_OR_DIE(vkCreateCommandPool(dev, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VK_OR_DIE(vkAllocateCommandBuffers(dev, &cai, &cmd));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_OR_DIE(vkBeginCommandBuffer(cmd, &begin));
    const VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, work, 0, 1, &before, 0, NULL, 0, NULL);
    DML_OR_DIE(dmlops_operator_record_vulkan(table, cmd));
    VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, work, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, NULL, 0, NULL);
    VK_OR_DIE(vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_OR_DIE(vkCreateFence(dev, &fci, NULL, &fence));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VK_OR_DIE(vkQueueSubmit(queue, 1, &si, fence));
    VK_OR_DIE(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));

    printf("input 4 x 6 = 0 .. 23; rows 3, 1 and columns 1, 3, 5:\n");
    for (int r = 0; r < 2; r++) printf("  [%4g %4g %4g]\n", out[r * 3], out[r * 3 + 1], out[r * 3 + 2]);
    int ok = out[0] == 19 && out[1] == 21 && out[2] == 23 && out[3] == 7 && out[4] == 9 && out[5] == 11;
    printf("%s\n", ok ? "matches" : "WRONG");

    /* libdmlops objects first, then the engine's. */
    dmlops_binding_table_destroy(table);
    dmlops_buffer_destroy(din);
    dmlops_buffer_destroy(dout);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);
    vkDestroyFence(dev, fence, NULL);
    vkDestroyCommandPool(dev, pool, NULL);
    vkDestroyBuffer(dev, in_buf, NULL);
    vkDestroyBuffer(dev, out_buf, NULL);
    vkFreeMemory(dev, in_mem, NULL);
    vkFreeMemory(dev, out_mem, NULL);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(instance, NULL);
    return ok ? 0 : 1;
}
