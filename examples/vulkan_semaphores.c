/* libdmlops's work chained with an engine's on the GPU, through the engine's timeline
 * semaphore, on the engine's own Vulkan device and queue: for each frame the engine's
 * submission writes the input and signals T = 3f + 1; libdmlops's execution waits for
 * that value on the GPU and signals T = 3f + 2; the engine's next submission waits for
 * that and copies the result where it wants it, signalling T = 3f + 3, which the next
 * frame's write waits for. The host waits once, at the end; nothing between the stages
 * goes back to it. Needs a Vulkan 1.2 device with timeline semaphores (it
 * says so and exits 0 where there is none).
 *
 * Build: cc vulkan_semaphores.c $(pkg-config --static --cflags --libs dmlops) -lvulkan */
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

enum { N = 1024, FRAMES = 4 };

typedef struct engine {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkPhysicalDeviceMemoryProperties mem;
} engine;

/* The engine's instance and device: Vulkan 1.2, timelineSemaphore enabled. 0, 1 when
 * there is no such device (a note, not a failure), 2 on a failure. */
static int engine_start(engine *e)
{
    memset(e, 0, sizeof *e);
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &ai};
    uint32_t n = 1;
    if (vkCreateInstance(&ici, NULL, &e->instance) != VK_SUCCESS) return 1;
    VkResult r = vkEnumeratePhysicalDevices(e->instance, &n, &e->phys);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n) return 1;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(e->phys, &props);
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    vkGetPhysicalDeviceFeatures2(e->phys, &f2);
    if (props.apiVersion < VK_API_VERSION_1_2 || !f12.timelineSemaphore) return 1;
    VkQueueFamilyProperties q[16];
    uint32_t nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(e->phys, &nq, q);
    e->family = UINT32_MAX;
    for (uint32_t i = 0; i < nq && e->family == UINT32_MAX; i++)
        if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) e->family = i;
    if (e->family == UINT32_MAX) return 1;
    const float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = e->family,
                                   .queueCount = 1, .pQueuePriorities = &prio};
    f12 = (VkPhysicalDeviceVulkan12Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .timelineSemaphore = VK_TRUE};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    if (vkCreateDevice(e->phys, &dci, NULL, &e->device) != VK_SUCCESS) return 2;
    vkGetDeviceQueue(e->device, e->family, 0, &e->queue);
    vkGetPhysicalDeviceMemoryProperties(e->phys, &e->mem);
    return 0;
}

/* A host-visible buffer of the engine's, mapped. */
static int engine_buffer(engine *e, VkDeviceSize size, VkBuffer *b, VkDeviceMemory *m, void **map)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VK_OR_DIE(vkCreateBuffer(e->device, &bci, NULL, b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(e->device, *b, &req);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < e->mem.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (e->mem.memoryTypes[i].propertyFlags & want) == want) type = i;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    VK_OR_DIE(type == UINT32_MAX ? VK_ERROR_FEATURE_NOT_PRESENT : VK_SUCCESS);
    VK_OR_DIE(vkAllocateMemory(e->device, &mai, NULL, m));
    VK_OR_DIE(vkBindBufferMemory(e->device, *b, *m, 0));
    VK_OR_DIE(vkMapMemory(e->device, *m, 0, VK_WHOLE_SIZE, 0, map));
    return 0;
}

/* One submission of the engine's: cmd, waiting for T >= wait (0: nothing) and signalling
 * T = signal. */
static VkResult engine_submit(engine *e, VkCommandBuffer cmd, VkSemaphore t, uint64_t wait, uint64_t signal)
{
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .waitSemaphoreValueCount = wait ? 1 : 0, .pWaitSemaphoreValues = &wait,
                                         .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &signal};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &tsi, .waitSemaphoreCount = wait ? 1 : 0,
                       .pWaitSemaphores = &t, .pWaitDstStageMask = &stage, .commandBufferCount = 1,
                       .pCommandBuffers = &cmd, .signalSemaphoreCount = 1, .pSignalSemaphores = &t};
    return vkQueueSubmit(e->queue, 1, &si, VK_NULL_HANDLE);
}

int main(void)
{
    engine e;
    const int started = engine_start(&e);
    if (started) {
        printf("no Vulkan 1.2 device with timeline semaphores: nothing to chain (%s)\n",
               started == 1 ? "skipped" : "failed");
        if (e.instance) vkDestroyInstance(e.instance, NULL);
        return started == 1 ? 0 : 1;
    }
    /* The context on the engine's device, told that timeline semaphores are enabled. */
    const dmlops_vulkan_context_create_info ci = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO,
                                                  .instance = e.instance, .physical_device = e.phys,
                                                  .device = e.device, .queue_family_index = e.family, .queue = e.queue,
                                                  .api_version = VK_API_VERSION_1_2,
                                                  .device_features = DMLOPS_VULKAN_DEVICE_FEATURE_TIMELINE_SEMAPHORE};
    dmlops_context *ctx = NULL;
    DML_OR_DIE(dmlops_context_create_vulkan2(&ci, &ctx));

    /* The engine's buffers: input (which it writes on the GPU), output (ours) and result. */
    VkBuffer in, out, result;
    VkDeviceMemory in_mem, out_mem, result_mem;
    void *in_map, *out_map, *result_map;
    if (engine_buffer(&e, N * 4, &in, &in_mem, &in_map) || engine_buffer(&e, N * 4, &out, &out_mem, &out_map) ||
        engine_buffer(&e, N * 4, &result, &result_mem, &result_map))
        return 1;
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    dmlops_buffer *bin = NULL, *bout = NULL;
    DML_OR_DIE(dmlops_buffer_wrap_vulkan(ctx, in, 0, N * 4, usage, &bin));
    DML_OR_DIE(dmlops_buffer_wrap_vulkan(ctx, out, 0, N * 4, usage, &bout));
    /* SLICE1, every other element backwards: out[i] = in[N - 1 - 2i] for the first N / 2. */
    const uint32_t in_sizes[1] = {N}, out_sizes[1] = {N / 2}, offsets[1] = {1}, window[1] = {N - 1};
    const int32_t strides[1] = {-2};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, in_sizes, NULL, N * 4, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, out_sizes, NULL, N * 2, 0};
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE1_OPERATOR_DESC sd = {&it, &ot, 1, offsets, window, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
    dmlops_operator *op = NULL;
    DML_OR_DIE(dmlops_operator_create(ctx, &desc, &op));

    /* The engine's timeline T and command buffers: a fill per frame, a copy per frame. */
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkSemaphore t;
    VK_OR_DIE(vkCreateSemaphore(e.device, &sci, NULL, &t));
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = e.family};
    VkCommandPool pool;
    VK_OR_DIE(vkCreateCommandPool(e.device, &pci, NULL, &pool));
    VkCommandBuffer fill[FRAMES], copy[FRAMES];
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = FRAMES};
    VK_OR_DIE(vkAllocateCommandBuffers(e.device, &cai, fill));
    VK_OR_DIE(vkAllocateCommandBuffers(e.device, &cai, copy));
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    const VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                     .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    const VkBufferCopy region = {0, 0, N * 2};
    static uint32_t frame_in[N], want[N / 2];
    for (int f = 0; f < FRAMES; f++) {
        /* Three stages a frame, each waiting for the one before on T: the engine writes the
         * input (T = 3f + 1; after the last frame's copy, T = 3f, as the buffers are reused),
         * libdmlops slices it (T = 3f + 2), the engine copies the result (T = 3f + 3). */
        const uint64_t base = 3 * (uint64_t)f;
        for (int i = 0; i < N; i++) frame_in[i] = (uint32_t)(f * N + i);
        VK_OR_DIE(vkBeginCommandBuffer(fill[f], &bi));
        vkCmdUpdateBuffer(fill[f], in, 0, N * 4, frame_in); /* the data is copied into the command buffer */
        VK_OR_DIE(vkEndCommandBuffer(fill[f]));
        VK_OR_DIE(engine_submit(&e, fill[f], t, base, base + 1));
        const uint64_t wait = base + 1, signal = base + 2;
        const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
        const dmlops_vulkan_semaphores sems = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES,
                                               .wait_count = 1, .wait_semaphores = &t, .wait_values = &wait,
                                               .wait_stages = &stage, .signal_count = 1, .signal_semaphores = &t,
                                               .signal_values = &signal};
        const dmlops_submit_info submit = {.s_type = DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO, .next = &sems};
        const dmlops_binding bi_in = {bin, 0, N * 4}, bi_out = {bout, 0, N * 2};
        DML_OR_DIE(dmlops_operator_execute_async(op, 1, &bi_in, 1, &bi_out, &submit, NULL));
        VK_OR_DIE(vkBeginCommandBuffer(copy[f], &bi));
        vkCmdCopyBuffer(copy[f], out, result, 1, &region);
        vkCmdPipelineBarrier(copy[f], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL,
                             0, NULL);
        VK_OR_DIE(vkEndCommandBuffer(copy[f]));
        VK_OR_DIE(engine_submit(&e, copy[f], t, base + 2, base + 3));
        for (int j = 0; j < N / 2; j++) want[j] = frame_in[N - 1 - 2 * j];
    }
    /* The host waits once: for the last frame's copy. */
    const uint64_t last = 3 * FRAMES;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &t,
                              .pValues = &last};
    VK_OR_DIE(vkWaitSemaphores(e.device, &wi, UINT64_MAX));
    const int ok = !memcmp(result_map, want, N * 2);
    printf("%d frames chained on the GPU through the engine's timeline semaphore: %s\n", FRAMES,
           ok ? "the last result is right" : "WRONG RESULT");
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bin);
    dmlops_buffer_destroy(bout);
    dmlops_context_destroy(ctx); /* the last handle: every submission of ours has completed */
    /* A driver that submits from a thread of its own (lavapipe) may hold a finished
     * submission's semaphore and command buffer a moment after it signalled: idle first. */
    vkQueueWaitIdle(e.queue);
    vkDestroyCommandPool(e.device, pool, NULL);
    vkDestroySemaphore(e.device, t, NULL);
    VkBuffer bufs[3] = {in, out, result};
    VkDeviceMemory mems[3] = {in_mem, out_mem, result_mem};
    for (int i = 0; i < 3; i++) {
        vkDestroyBuffer(e.device, bufs[i], NULL);
        vkFreeMemory(e.device, mems[i], NULL);
    }
    vkDestroyDevice(e.device, NULL);
    vkDestroyInstance(e.instance, NULL);
    return ok ? 0 : 1;
}
