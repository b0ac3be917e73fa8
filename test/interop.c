/* Vulkan interop, built twice: against -lvulkan (INTEROP_VOLK undefined) and with the
 * application's own copy of volk (INTEROP_VOLK), so that both link and run beside
 * libdmlops.a, whose private volk must not clash. The application owns the instance,
 * device, queue, buffers and command buffer; libdmlops records into them. */
#ifdef INTEROP_VOLK
#include <volk.h>
#else
#include <vulkan/vulkan.h>
#endif

#include <stdlib.h>

#include "op_descs.h"

typedef struct app {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkPhysicalDeviceMemoryProperties mem;
    VkDebugUtilsMessengerEXT messenger;
} app;

typedef struct app_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;
} app_buffer;

static unsigned app_messages; /* validation-layer warnings and errors */

static VKAPI_ATTR VkBool32 VKAPI_CALL app_debug(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    (void)user;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        app_messages++;
        printf("    validation: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

/* The application's objects; with timeline, a Vulkan 1.2 instance and device with the
 * timelineSemaphore feature enabled (false when the device has none of it). */
static bool app_init_with(app *a, bool timeline);
static bool app_external; /* the next app_init_with enables VK_KHR_external_memory_fd, where offered */

static bool app_init_with(app *a, bool timeline)
{
    memset(a, 0, sizeof *a);
#ifdef INTEROP_VOLK
    if (volkInitialize() != VK_SUCCESS) return false;
#endif
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                            .apiVersion = timeline ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1};
    /* The application runs with the validation layer, so what libdmlops records into its
     * command buffer is checked too. */
    const char *layer = "VK_LAYER_KHRONOS_validation", *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkLayerProperties layers[64];
    uint32_t nl = 64;
    bool validate = false;
    if (vkEnumerateInstanceLayerProperties(&nl, layers) >= 0)
        for (uint32_t i = 0; i < nl; i++) validate |= !strcmp(layers[i].layerName, layer);
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        .pfnUserCallback = app_debug};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validate ? &dbg : NULL,
                                .pApplicationInfo = &ai, .enabledLayerCount = validate, .ppEnabledLayerNames = &layer,
                                .enabledExtensionCount = validate, .ppEnabledExtensionNames = &ext};
    if (!validate) printf("    note: no validation layer for the application\n");
    if (vkCreateInstance(&ici, NULL, &a->instance) != VK_SUCCESS) return false;
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
    if (validate && (!create_messenger || create_messenger(a->instance, &dbg, NULL, &a->messenger) != VK_SUCCESS))
        return false;
#ifdef INTEROP_VOLK
    volkLoadInstance(a->instance);
#endif
    uint32_t n = 1;
    VkResult r = vkEnumeratePhysicalDevices(a->instance, &n, &a->phys);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) return false;
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(a->phys, &nq, NULL);
    VkQueueFamilyProperties q[16];
    if (nq > 16) nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(a->phys, &nq, q);
    a->family = UINT32_MAX;
    for (uint32_t i = 0; i < nq && a->family == UINT32_MAX; i++)
        if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) a->family = i;
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = a->family, .queueCount = 1, .pQueuePriorities = &prio};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    if (timeline) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(a->phys, &props);
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
        if (props.apiVersion < VK_API_VERSION_1_2) return false;
        vkGetPhysicalDeviceFeatures2(a->phys, &f2);
        if (!f12.timelineSemaphore) return false;
        f12 = (VkPhysicalDeviceVulkan12Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                                 .timelineSemaphore = VK_TRUE};
    }
    const char *ext_fd = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    VkExtensionProperties exts[256];
    uint32_t nexts = 256;
    bool has_fd = false;
    if (app_external && vkEnumerateDeviceExtensionProperties(a->phys, NULL, &nexts, exts) >= 0)
        for (uint32_t i = 0; i < nexts; i++) has_fd |= !strcmp(exts[i].extensionName, ext_fd);
    if (app_external && !has_fd) return false;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = timeline ? &f12 : NULL,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = app_external ? 1 : 0, .ppEnabledExtensionNames = &ext_fd};
    if (vkCreateDevice(a->phys, &dci, NULL, &a->device) != VK_SUCCESS) return false;
#ifdef INTEROP_VOLK
    volkLoadDevice(a->device);
#endif
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    vkGetPhysicalDeviceMemoryProperties(a->phys, &a->mem);
    return true;
}

static bool app_init(app *a) { return app_init_with(a, false); }

static void app_done(app *a)
{
    if (a->device) vkDeviceWaitIdle(a->device); /* what every application does before this */
    if (a->device) vkDestroyDevice(a->device, NULL);
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        a->instance ? (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT")
                    : NULL;
    if (a->messenger && destroy_messenger) destroy_messenger(a->instance, a->messenger, NULL);
    if (a->instance) vkDestroyInstance(a->instance, NULL);
}

static bool app_buffer_create(app *a, VkDeviceSize size, VkBufferUsageFlags usage, app_buffer *b)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
    if (vkCreateBuffer(a->device, &bci, NULL, &b->buffer) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, b->buffer, &req);
    uint32_t type = UINT32_MAX;
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < a->mem.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (a->mem.memoryTypes[i].propertyFlags & want) == want) type = i;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    return type != UINT32_MAX && vkAllocateMemory(a->device, &mai, NULL, &b->memory) == VK_SUCCESS &&
           vkBindBufferMemory(a->device, b->buffer, b->memory, 0) == VK_SUCCESS &&
           vkMapMemory(a->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map) == VK_SUCCESS;
}

static void app_buffer_destroy(app *a, app_buffer *b)
{
    vkDestroyBuffer(a->device, b->buffer, NULL);
    vkFreeMemory(a->device, b->memory, NULL);
}

/* The application's own command buffer, begun, with a fence. */
typedef struct app_cmd {
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
} app_cmd;

static bool app_cmd_begin(app *a, app_cmd *c)
{
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = a->family};
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (vkCreateCommandPool(a->device, &pci, NULL, &c->pool) != VK_SUCCESS) return false;
    cai.commandPool = c->pool;
    return vkAllocateCommandBuffers(a->device, &cai, &c->cmd) == VK_SUCCESS &&
           vkCreateFence(a->device, &fci, NULL, &c->fence) == VK_SUCCESS && vkBeginCommandBuffer(c->cmd, &bi) == VK_SUCCESS;
}

/* A global memory barrier the application records around libdmlops's work. */
static void app_barrier(app_cmd *c, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                        VkAccessFlags dst_access)
{
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access, .dstAccessMask = dst_access};
    vkCmdPipelineBarrier(c->cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

static bool app_cmd_submit_wait(app *a, app_cmd *c)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &c->cmd};
    return vkEndCommandBuffer(c->cmd) == VK_SUCCESS && vkQueueSubmit(a->queue, 1, &si, c->fence) == VK_SUCCESS &&
           vkWaitForFences(a->device, 1, &c->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
}

static void app_cmd_done(app *a, app_cmd *c)
{
    vkDestroyFence(a->device, c->fence, NULL);
    vkDestroyCommandPool(a->device, c->pool, NULL);
}

/* A context description on the application's objects (and, with its own volk, its
 * loader's entry point). */
static dmlops_vulkan_context_desc app_context_desc(const app *a)
{
    dmlops_vulkan_context_desc d = {.instance = a->instance, .physical_device = a->phys, .device = a->device,
                                    .queue_family_index = a->family, .queue = a->queue};
#ifdef INTEROP_VOLK
    d.get_instance_proc_addr = vkGetInstanceProcAddr;
#endif
    return d;
}

/* The application's objects and a context description on them; false (with a note, and
 * nothing left to clean up) when the machine has no Vulkan device for the application. */
static bool app_start(app *a, dmlops_vulkan_context_desc *d)
{
    if (!app_init(a)) {
        printf("    note: no Vulkan device for the application\n");
        app_done(a);
        return false;
    }
    *d = app_context_desc(a);
    return true;
}

/* The usage the tests' buffers are made and wrapped with: storage and both transfer
 * directions, and the same with texel usage, which lets the texel path view them. */
enum {
    APP_USAGE = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    APP_TEXEL_USAGE = APP_USAGE | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT
};

/* Reverse rows of a 4 x 8 float tensor with lengths {8, 3, 0, 20}. */
static const uint32_t sizes[2] = {4, 8};
static const uint32_t lengths[4] = {8, 3, 0, 20};

static void expected(const float *x, float *y)
{
    for (int r = 0; r < 4; r++) {
        uint32_t L = lengths[r] > 8 ? 8 : lengths[r];
        for (uint32_t i = 0; i < 8; i++) y[r * 8 + i] = x[r * 8 + (i < L ? L - 1 - i : i)];
    }
}

/* Records the table's operator between the application's barriers (its host writes, our
 * compute, its host reads), submits and waits. */
static bool record_compute_and_wait(app *a, app_cmd *c, dmlops_binding_table *table)
{
    app_barrier(c, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT);
    if (!CHECK_OK(dmlops_operator_record_vulkan(table, c->cmd))) return false;
    app_barrier(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    return app_cmd_submit_wait(a, c);
}

TEST(interop_records_into_the_application_command_buffer)
{
    app a;
    dmlops_vulkan_context_desc d;
    if (!app_start(&a, &d)) return;
    d.api_version = VK_API_VERSION_1_1;
    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    dmlops_binding_table *table = NULL;
    app_buffer in, len, out;
    const VkBufferUsageFlags usage = APP_USAGE, texel_usage = APP_TEXEL_USAGE;
    /* The input can be seen as texels, the lengths cannot: the binding must then take the
     * storage-buffer pipeline (a texel view of the lengths would break the validation
     * layer's rules). */
    REQUIRE(app_buffer_create(&a, 256, texel_usage, &in) && app_buffer_create(&a, 64, usage, &len) &&
            app_buffer_create(&a, 512, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out));
    float x[32], want[32], got[32];
    for (int i = 0; i < 32; i++) x[i] = (float)(i * 3 + 1);
    memcpy((uint8_t *)in.map + 64, x, sizeof x); /* the tensor sits 64 bytes into the VkBuffer */
    memcpy(len.map, lengths, sizeof lengths);
    memset(out.map, 0xee, 512);
    expected(x, want);

    REQUIRE_OK(dmlops_context_create_vulkan(&d, &ctx));
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    CHECK(info.backend == DMLOPS_BACKEND_VULKAN && info.device.name[0]);
    /* The note names the device and where it came from, as for contexts of our own. */
    CHECK(strstr(info.note, info.device.name) && strstr(info.note, "dmlops_context_create_vulkan"), "note \"%s\"",
          info.note);
    dmt_reverse rev;
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    REQUIRE_OK(dmlops_operator_create(ctx, &rev.desc, &op));
    dmlops_buffer *bin = NULL, *blen = NULL, *bout = NULL;
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 64, 192, texel_usage, &bin));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, len.buffer, 0, 64, usage, &blen));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, out.buffer, 256, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &bout));
    VkBuffer vb;
    VkDeviceSize vo;
    CHECK_OK(dmlops_buffer_get_vulkan(bin, &vb, &vo));
    CHECK(vb == in.buffer && vo == 64);

    /* Refusals: no STORAGE usage; misaligned wrap offset; recording before binding. */
    dmlops_buffer *bad = NULL;
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 0, 64, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &bad),
                 DMLOPS_ERROR_INVALID_ARGUMENT, "STORAGE_BUFFER");
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 8, 64, usage, &bad), DMLOPS_ERROR_INVALID_ARGUMENT, "16");
    /* A range past 2^64 would defeat every later range and overlap check. */
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 16, UINT64_MAX, usage, &bad), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "2^64");
    CHECK(bad == NULL);
    REQUIRE_OK(dmlops_binding_table_create(op, &table));

    app_cmd c;
    REQUIRE(app_cmd_begin(&a, &c));
    CHECK_STATUS(dmlops_operator_record_vulkan(table, c.cmd), DMLOPS_ERROR_INVALID_ARGUMENT, "binding_table_bind");

    dmlops_binding inputs[2] = {{bin, 0, 128}, {blen, 0, 16}}, output = {bout, 0, 128};
    REQUIRE_OK(dmlops_binding_table_bind(table, 2, inputs, 1, &output));
    REQUIRE(record_compute_and_wait(&a, &c, table));
    memcpy(got, (uint8_t *)out.map + 256, sizeof got);
    CHECK(!memcmp(got, want, sizeof got), "recorded reverse wrong: got[0..3] = %g %g %g %g", got[0], got[1], got[2],
          got[3]);
    CHECK(((uint8_t *)out.map)[255] == 0xee && ((uint8_t *)out.map)[256 + 128] == 0xee, "bytes around the output written");

    /* The synchronous path on wrapped buffers, through the application's queue; the
     * output buffer has no TRANSFER usage, so the host reads it from the mapping. */
    memset((uint8_t *)out.map + 256, 0, 128);
    CHECK_OK(dmlops_operator_execute(op, 2, inputs, 1, &output));
    memcpy(got, (uint8_t *)out.map + 256, sizeof got);
    CHECK(!memcmp(got, want, sizeof got), "executed reverse on wrapped buffers wrong");
    float back[32];
    CHECK_OK(dmlops_buffer_read(bin, 0, back, sizeof back)); /* staged through TRANSFER */
    CHECK(!memcmp(back, x, sizeof x));
    CHECK_STATUS(dmlops_buffer_read(bout, 0, back, 16), DMLOPS_ERROR_UNSUPPORTED, "TRANSFER");
    /* Nor can a command list copy into it (found by review: it recorded an invalid copy). */
    dmlops_command_list *list = NULL;
    if (CHECK_OK(dmlops_command_list_create(ctx, &list))) {
        CHECK_STATUS(dmlops_command_list_record_copy(list, bout, 0, bin, 0, 16), DMLOPS_ERROR_UNSUPPORTED, "TRANSFER");
        uint32_t ops = 1;
        CHECK_OK(dmlops_command_list_get_counts(list, &ops, NULL));
        CHECK(ops == 0);
        dmlops_command_list_destroy(list);
    }
    /* Another context's buffer is refused. */
    dmlops_context *other = NULL;
    dmlops_context_desc cpu = {.backend = DMLOPS_BACKEND_CPU};
    if (CHECK_OK(dmlops_context_create(&cpu, &other))) {
        dmlops_buffer *ob = dmt_buffer(other, 128, NULL);
        dmlops_binding wrong = {ob, 0, 128};
        CHECK_STATUS(dmlops_binding_table_bind(table, 2, inputs, 1, &wrong), DMLOPS_ERROR_INVALID_ARGUMENT,
                     "another context");
        dmlops_buffer_destroy(ob);
        dmlops_context_destroy(other);
    }

    app_cmd_done(&a, &c);

    /* The table holds its operator: destroyed first, the operator still serves the
     * table's next binding and recording (it was a use after free). */
    dmlops_operator_destroy(op);
    app_cmd c2;
    REQUIRE(app_cmd_begin(&a, &c2));
    memset((uint8_t *)out.map + 256, 0, 128);
    REQUIRE_OK(dmlops_binding_table_bind(table, 2, inputs, 1, &output));
    REQUIRE(record_compute_and_wait(&a, &c2, table));
    memcpy(got, (uint8_t *)out.map + 256, sizeof got);
    CHECK(!memcmp(got, want, sizeof got), "reverse recorded after its operator's destroy wrong");
    app_cmd_done(&a, &c2);

    dmlops_binding_table_destroy(table); /* frees the operator too */
    dmlops_buffer_destroy(bin);
    dmlops_buffer_destroy(blen);
    dmlops_buffer_destroy(bout);
    dmlops_context_destroy(ctx);
    app_buffer_destroy(&a, &in);
    app_buffer_destroy(&a, &len);
    app_buffer_destroy(&a, &out);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* A SLICE1 of long rows records copy regions into the application's command buffer; the
 * application orders them with transfer-stage barriers, as docs/api.md says. */
TEST(interop_records_copy_regions)
{
    app a;
    dmlops_vulkan_context_desc d;
    if (!app_start(&a, &d)) return;
    d.flags = DMLOPS_CONTEXT_FLAG_PREFER_COPY;
    enum { R = 4, C = 256, K = 200 };
    const uint32_t in_sizes[2] = {R, C}, off[2] = {0, 10}, win[2] = {R, K};
    dmt_slice slice;
    dmt_slice_init(&slice, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, off, win);
    const VkBufferUsageFlags usage = APP_USAGE;
    app_buffer in, out;
    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    dmlops_binding_table *table = NULL;
    dmlops_buffer *bin = NULL, *bout = NULL;
    REQUIRE(app_buffer_create(&a, R * C * 4, usage, &in) && app_buffer_create(&a, R * K * 4, usage, &out));
    float *x = in.map, *y = out.map;
    for (int i = 0; i < R * C; i++) x[i] = (float)i;
    memset(y, 0, R * K * 4);
    /* Tuning from the environment reaches interop contexts too, and their note says so. */
    setenv("DMLOPS_VK_GRID", "7", 1);
    const dmlops_status created = dmlops_context_create_vulkan(&d, &ctx);
    unsetenv("DMLOPS_VK_GRID");
    REQUIRE_OK(created);
    dmlops_context_info cinfo;
    if (CHECK_OK(dmlops_context_get_info(ctx, &cinfo)))
        CHECK(strstr(cinfo.note, "; tuning from the environment: grid 7 workgroups"), "note \"%s\"", cinfo.note);
    REQUIRE_OK(dmlops_operator_create(ctx, &slice.desc, &op));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 0, R * C * 4, usage, &bin));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, out.buffer, 0, R * K * 4, usage, &bout));
    REQUIRE_OK(dmlops_binding_table_create(op, &table));
    dmlops_binding bi = {bin, 0, R * C * 4}, bo = {bout, 0, R * K * 4};
    REQUIRE_OK(dmlops_binding_table_bind(table, 1, &bi, 1, &bo));
    app_cmd cb;
    REQUIRE(app_cmd_begin(&a, &cb));
    app_barrier(&cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_READ_BIT);
    REQUIRE_OK(dmlops_operator_record_vulkan(table, cb.cmd));
    dmlops_operator_info info;
    CHECK_OK(dmlops_operator_get_info(op, &info));
    CHECK(info.last_path == DMLOPS_PATH_COPY_REGIONS, "recorded %s", dmlops_path_name(info.last_path));
    app_barrier(&cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    REQUIRE(app_cmd_submit_wait(&a, &cb));
    bool ok = true;
    for (int r = 0; r < R && ok; r++)
        for (int c = 0; c < K && ok; c++) ok = CHECK(y[r * K + c] == x[r * C + 10 + c], "element (%d, %d)", r, c);
    app_cmd_done(&a, &cb);
    dmlops_binding_table_destroy(table);
    dmlops_buffer_destroy(bin);
    dmlops_buffer_destroy(bout);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);
    app_buffer_destroy(&a, &in);
    app_buffer_destroy(&a, &out);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* REVERSE of [T, C] along T with a length per column, on the application's buffers: on
 * CPU devices the COLUMNS kernel (glsl/reverse.comp, columns_vec) when the lengths' buffer
 * can be seen as texels, and when it cannot, the general path's storage-buffer pipeline
 * over pieces planned for COLUMNS. Each is checked against a reference computed here, for
 * 1- and 4-byte elements, in rows of 45 (no whole number of chunks). Seen failing with the
 * kernel's length vectors misread. */
TEST(interop_reverse_per_column_lengths_with_and_without_texel_usage)
{
    app a;
    dmlops_vulkan_context_desc d;
    if (!app_start(&a, &d)) return;
    d.flags = DMLOPS_CONTEXT_FLAG_KERNELS_ONLY;
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create_vulkan(&d, &ctx));
    enum { T = 5, C = 45, SIZE = 1024 }; /* T * C * 4 < SIZE */
    const uint32_t shape[2] = {T, C};
    const VkBufferUsageFlags usage = APP_USAGE, texel_usage = APP_TEXEL_USAGE;
    for (int k = 0; k < 4; k++) {
        const DML_TENSOR_DATA_TYPE type = k & 1 ? DML_TENSOR_DATA_TYPE_FLOAT32 : DML_TENSOR_DATA_TYPE_UINT8;
        const VkBufferUsageFlags len_usage = k & 2 ? texel_usage : usage;
        const uint32_t es = dmlops_data_type_size(type), bytes = T * C * es;
        dmt_reverse rev;
        dmt_reverse_init(&rev, type, 2, shape, 0, DML_TENSOR_DATA_TYPE_UINT32, NULL);
        dmlops_operator *op = NULL;
        app_buffer in, len, out;
        REQUIRE(app_buffer_create(&a, SIZE, texel_usage, &in) && app_buffer_create(&a, SIZE, len_usage, &len) &&
                app_buffer_create(&a, SIZE, usage, &out));
        uint8_t *x = in.map, *y = out.map;
        uint32_t *L = len.map;
        for (uint32_t i = 0; i < bytes; i++) x[i] = (uint8_t)(i * 37 + k);
        for (uint32_t c = 0; c < C; c++) L[c] = c * 3 % (T + 2); /* T + 1 clamps to T */
        memset(y, 0xee, SIZE);
        dmlops_buffer *bin = NULL, *blen = NULL, *bout = NULL;
        REQUIRE_OK(dmlops_operator_create(ctx, &rev.desc, &op));
        REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 0, SIZE, texel_usage, &bin));
        REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, len.buffer, 0, SIZE, len_usage, &blen));
        REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, out.buffer, 0, SIZE, usage, &bout));
        const uint64_t total = rev.in.buf.TotalTensorSizeInBytes; /* bytes, rounded up to 4 */
        dmlops_binding inputs[2] = {{bin, 0, total}, {blen, 0, C * 4}}, output = {bout, 0, total};
        CHECK_OK(dmlops_operator_execute(op, 2, inputs, 1, &output));
        dmlops_operator_info info;
        CHECK_OK(dmlops_operator_get_info(op, &info));
        CHECK(info.last_path == DMLOPS_PATH_KERNEL, "ran %s", dmlops_path_name(info.last_path));
        bool ok = true;
        for (uint32_t r = 0; r < T && ok; r++)
            for (uint32_t c = 0; c < C && ok; c++) {
                const uint32_t n = L[c] < T ? L[c] : T, s = r < n ? n - 1 - r : r;
                ok = CHECK(!memcmp(y + (r * C + c) * es, x + (s * C + c) * es, es),
                           "case %d (%u-byte elements, lengths %s texel usage): element (%u, %u)", k, es,
                           k & 2 ? "with" : "without", r, c);
            }
        CHECK(y[total] == 0xee, "case %d: a byte past the output written", k);
        dmlops_buffer_destroy(bin);
        dmlops_buffer_destroy(blen);
        dmlops_buffer_destroy(bout);
        dmlops_operator_destroy(op);
        app_buffer_destroy(&a, &in);
        app_buffer_destroy(&a, &len);
        app_buffer_destroy(&a, &out);
    }
    dmlops_context_destroy(ctx);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* libdmlops's own context works in the same process as the application's loader. */
TEST(own_context_beside_the_application_loader)
{
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create(NULL, &ctx));
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    dmlops_context_destroy(ctx);
}

/* dmlops_context_options.vulkan_loader: a context of our own goes through the loader the
 * application hands in (here the application's own, counted), for the instance and
 * everything after; a loader that resolves nothing is NO_DEVICE, named. */
static unsigned loader_calls;
static PFN_vkVoidFunction VKAPI_CALL counting_gipa(VkInstance instance, const char *name)
{
    loader_calls++;
    return vkGetInstanceProcAddr(instance, name);
}
static PFN_vkVoidFunction VKAPI_CALL empty_gipa(VkInstance instance, const char *name)
{
    (void)instance;
    (void)name;
    return NULL;
}
static void (*as_loader(PFN_vkGetInstanceProcAddr gipa))(void)
{
    void (*f)(void);
    memcpy(&f, &gipa, sizeof f);
    return f;
}

TEST(own_context_through_a_loader_the_application_chose)
{
#ifdef INTEROP_VOLK
    if (volkInitialize() != VK_SUCCESS) {
        printf("    note: no Vulkan loader for the application\n");
        return;
    }
#endif
    dmlops_context_desc desc = {.backend = DMLOPS_BACKEND_VULKAN};
    dmlops_context_options opt = {.vulkan_loader = as_loader(empty_gipa)};
    dmlops_context *ctx = NULL;
    CHECK_STATUS(dmlops_context_create_with_options(&desc, &opt, &ctx), DMLOPS_ERROR_NO_DEVICE, "vkCreateInstance");
    CHECK(ctx == NULL);
    opt.vulkan_loader = as_loader(counting_gipa);
    loader_calls = 0;
    dmlops_status st = dmlops_context_create_with_options(&desc, &opt, &ctx);
    if (st == DMLOPS_ERROR_NO_DEVICE) {
        printf("    note: no Vulkan device (%s)\n", dmlops_last_error_message());
        CHECK(loader_calls > 0, "the loader handed in was not asked");
        return;
    }
    REQUIRE_OK(st);
    CHECK(loader_calls >= 10, "the loader handed in was asked %u times", loader_calls);
    const uint32_t shape[2] = {3, 4};
    dmt_reverse rev;
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_UINT8, 2, shape, 0, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    dmlops_operator *op = NULL;
    dmlops_buffer *in = NULL, *len = NULL, *out = NULL;
    const uint8_t x[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, want[12] = {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3};
    const uint32_t lens[4] = {3, 3, 3, 3};
    uint8_t got[12] = {0};
    if (CHECK_OK(dmlops_operator_create(ctx, &rev.desc, &op)) && CHECK_OK(dmlops_buffer_create(ctx, 16, &in)) &&
        CHECK_OK(dmlops_buffer_create(ctx, 16, &len)) && CHECK_OK(dmlops_buffer_create(ctx, 16, &out))) {
        CHECK_OK(dmlops_buffer_write(in, 0, x, sizeof x));
        CHECK_OK(dmlops_buffer_write(len, 0, lens, sizeof lens));
        dmlops_binding inputs[2] = {{in, 0, 16}, {len, 0, 16}}, output = {out, 0, 16};
        CHECK_OK(dmlops_operator_execute(op, 2, inputs, 1, &output));
        CHECK_OK(dmlops_buffer_read(out, 0, got, sizeof got));
        CHECK(!memcmp(got, want, sizeof want), "reverse through the chosen loader: got %u %u %u %u", got[0], got[1],
              got[2], got[3]);
    }
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(len);
    dmlops_buffer_destroy(out);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);
}

/* Issue 45, item 9: a wrapped range that the VkBuffer's memory requirements prove cannot
 * fit is refused (an execute wrote past the end of the application's buffer before); a
 * range inside them is taken. Also the messages that name only the failing condition. */
TEST(interop_wrap_refuses_a_range_past_the_buffer)
{
    app a;
    dmlops_vulkan_context_desc d;
    if (!app_start(&a, &d)) return;
    app_buffer b;
    dmlops_context *ctx = NULL;
    dmlops_buffer *w = NULL;
    REQUIRE(app_buffer_create(&a, 4096, APP_USAGE, &b));
    REQUIRE_OK(dmlops_context_create_vulkan(&d, &ctx));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a.device, b.buffer, &req);
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, b.buffer, 4000, 200, APP_USAGE, &w), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "past the end");
    CHECK(w == NULL);
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, b.buffer, req.size, 16, APP_USAGE, &w), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "dmlops_buffer_wrap_vulkan");
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, b.buffer, 8, 64, APP_USAGE, &w), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "offset = 8 is not a multiple of 16");
    CHECK(!strstr(dmlops_last_error_message(), "size"), "\"%s\" names the size, which is fine",
          dmlops_last_error_message());
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(ctx, b.buffer, 16, 0, APP_USAGE, &w), DMLOPS_ERROR_INVALID_ARGUMENT, "size = 0");
    CHECK(!strstr(dmlops_last_error_message(), "offset"), "\"%s\" names the offset, which is fine",
          dmlops_last_error_message());
    CHECK_OK(dmlops_buffer_wrap_vulkan(ctx, b.buffer, 3840, 256, APP_USAGE, &w));
    dmlops_buffer_destroy(w);
    dmlops_context_destroy(ctx);
    app_buffer_destroy(&a, &b);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* dmlops_context_create_vulkan2: the extensible form of the interop creation. */
TEST(interop_create2_checks_its_structure)
{
    app a;
    dmlops_vulkan_context_desc d;
    if (!app_start(&a, &d)) return;
    dmlops_vulkan_context_create_info ci = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO,
                                            .instance = d.instance, .physical_device = d.physical_device,
                                            .device = d.device, .queue_family_index = d.queue_family_index,
                                            .queue = d.queue, .get_instance_proc_addr = d.get_instance_proc_addr};
    dmlops_context *ctx = NULL;
    ci.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO;
    CHECK_STATUS(dmlops_context_create_vulkan2(&ci, &ctx), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "dmlops_context_create_vulkan2: dmlops_vulkan_context_create_info has s_type = "
                 "DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO (1)");
    ci.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO;
    const dmlops_base_structure unknown = {(dmlops_structure_type)424242, NULL};
    ci.next = &unknown;
    CHECK_STATUS(dmlops_context_create_vulkan2(&ci, &ctx), DMLOPS_ERROR_INVALID_ARGUMENT, "s_type = 424242");
    ci.next = NULL;
    ci.device_features = 0x80;
    CHECK_STATUS(dmlops_context_create_vulkan2(&ci, &ctx), DMLOPS_ERROR_INVALID_ARGUMENT, "device_features = 0x80");
    ci.device_features = 0;
    ci.flags = DMLOPS_CONTEXT_FLAG_DEBUG;
    CHECK_STATUS(dmlops_context_create_vulkan2(&ci, &ctx), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "dmlops_vulkan_context_create_info.flags = 0x1");
    ci.flags = 0;
    CHECK(ctx == NULL);
    REQUIRE_OK(dmlops_context_create_vulkan2(&ci, &ctx));
    dmlops_context_info info;
    if (CHECK_OK(dmlops_context_get_info(ctx, &info)))
        CHECK(strstr(info.note, "given to dmlops_context_create_vulkan2"), "note \"%s\"", info.note);
    dmlops_context_destroy(ctx);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* ---- asynchronous submission on the application's queue, chained through semaphores ---- */

/* A timeline semaphore of the application's, at 0. */
static VkSemaphore app_timeline(app *a)
{
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkSemaphore s = VK_NULL_HANDLE;
    return vkCreateSemaphore(a->device, &sci, NULL, &s) == VK_SUCCESS ? s : VK_NULL_HANDLE;
}

/* Writes the input's 32 floats as the application's command buffer would, into bits. */
static uint32_t input_bits(uint32_t i, uint32_t round) { return 0x3f800000u + i * 0x100000u + round; }

/* The application's work and ours, chained through its timeline semaphore T and ours.
 * First on the host: ours waits for T = 1, which the application signals from the host
 * after writing the input through its mapping; until then our fence cannot signal (poll
 * says NOT_READY, a timed wait TIMEOUT), which is how the test knows the wait holds; the
 * application's copy of our output waits on our timeline's value
 * (dmlops_fence_get_vulkan_semaphore). Then on the GPU alone: its submission writes the
 * input (vkCmdFillBuffer) and signals T = 3, ours waits for it and signals T = 4, and its
 * copy waits for T = 4. */
TEST(interop_submissions_chain_through_the_application_semaphores)
{
    app a;
    if (!app_init_with(&a, true)) {
        printf("    note: no Vulkan 1.2 device with timeline semaphores for the application\n");
        app_done(&a);
        return;
    }
    dmlops_vulkan_context_create_info ci = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO,
                                            .instance = a.instance, .physical_device = a.phys, .device = a.device,
                                            .queue_family_index = a.family, .queue = a.queue,
                                            .api_version = VK_API_VERSION_1_2,
                                            .device_features = DMLOPS_VULKAN_DEVICE_FEATURE_TIMELINE_SEMAPHORE};
#ifdef INTEROP_VOLK
    ci.get_instance_proc_addr = vkGetInstanceProcAddr;
#endif
    dmt_reverse d;
    dmt_reverse_init(&d, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    app_buffer in, len, out, copy;
    REQUIRE(app_buffer_create(&a, 128, APP_USAGE, &in) && app_buffer_create(&a, 16, APP_USAGE, &len) &&
            app_buffer_create(&a, 128, APP_USAGE, &out) && app_buffer_create(&a, 128, APP_USAGE, &copy));
    memcpy(len.map, lengths, sizeof lengths);
    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    dmlops_buffer *bin = NULL, *blen = NULL, *bout = NULL;
    REQUIRE_OK(dmlops_context_create_vulkan2(&ci, &ctx));
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 0, 128, APP_USAGE, &bin));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, len.buffer, 0, 16, APP_USAGE, &blen));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, out.buffer, 0, 128, APP_USAGE, &bout));
    VkSemaphore t = app_timeline(&a);
    REQUIRE(t != VK_NULL_HANDLE);
    const dmlops_binding bi[2] = {{bin, 0, 128}, {blen, 0, 16}}, bo = {bout, 0, 128};
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    const VkPipelineStageFlags tstage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    const VkBufferCopy region = {0, 0, 128};
    for (uint32_t round = 0; round < 2; round++) {
        const bool on_host = round == 0;
        const uint64_t ready = on_host ? 1 : 3, done = on_host ? 2 : 4;
        memset(out.map, 0, 128);
        memset(copy.map, 0, 128);
        app_cmd w, c;
        REQUIRE(app_cmd_begin(&a, &w) && app_cmd_begin(&a, &c));
        if (!on_host) { /* the input, written by the application's GPU work, which signals T */
            for (uint32_t i = 0; i < 32; i++) vkCmdFillBuffer(w.cmd, in.buffer, i * 4, 4, input_bits(i, round));
            VkTimelineSemaphoreSubmitInfo tw = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                                .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &ready};
            VkSubmitInfo sw = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &tw, .commandBufferCount = 1,
                               .pCommandBuffers = &w.cmd, .signalSemaphoreCount = 1, .pSignalSemaphores = &t};
            REQUIRE(vkEndCommandBuffer(w.cmd) == VK_SUCCESS);
            REQUIRE(vkQueueSubmit(a.queue, 1, &sw, VK_NULL_HANDLE) == VK_SUCCESS);
        }
        dmlops_vulkan_semaphores sems = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES,
                                         .wait_count = 1, .wait_semaphores = &t, .wait_values = &ready,
                                         .wait_stages = &stage, .signal_count = 1, .signal_semaphores = &t,
                                         .signal_values = &done};
        dmlops_submit_info si = {.s_type = DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO, .next = &sems};
        dmlops_fence *f = NULL;
        REQUIRE_OK(dmlops_operator_execute_async(op, 2, bi, 1, &bo, &si, &f));
        VkSemaphore ours = VK_NULL_HANDLE;
        uint64_t ours_value = 0;
        CHECK_OK(dmlops_fence_get_vulkan_semaphore(f, &ours, &ours_value));
        if (on_host) {
            CHECK(dmlops_fence_poll(f) == DMLOPS_NOT_READY, "our work ran before the signal it waits for");
            CHECK(dmlops_fence_wait(f, 2000000) == DMLOPS_TIMEOUT, "a timed wait did not time out");
            for (uint32_t i = 0; i < 32; i++) ((uint32_t *)in.map)[i] = input_bits(i, round);
            VkSemaphoreSignalInfo sig = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = t, .value = ready};
            REQUIRE(vkSignalSemaphore(a.device, &sig) == VK_SUCCESS);
        }
        /* The application's copy of our output: after our timeline's value (round 0) or
         * after its own T = done, which we signal (round 1). */
        vkCmdCopyBuffer(c.cmd, out.buffer, copy.buffer, 1, &region);
        app_barrier(&c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_ACCESS_HOST_READ_BIT);
        VkTimelineSemaphoreSubmitInfo tc = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                            .waitSemaphoreValueCount = 1,
                                            .pWaitSemaphoreValues = on_host ? &ours_value : &done};
        VkSubmitInfo sc = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &tc, .waitSemaphoreCount = 1,
                           .pWaitSemaphores = on_host ? &ours : &t, .pWaitDstStageMask = &tstage,
                           .commandBufferCount = 1, .pCommandBuffers = &c.cmd};
        REQUIRE(vkEndCommandBuffer(c.cmd) == VK_SUCCESS);
        REQUIRE(vkQueueSubmit(a.queue, 1, &sc, c.fence) == VK_SUCCESS);
        REQUIRE(vkWaitForFences(a.device, 1, &c.fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
        uint64_t reached = 0;
        CHECK(vkGetSemaphoreCounterValue(a.device, t, &reached) == VK_SUCCESS && reached == done, "T = %llu",
              (unsigned long long)reached);
        CHECK_OK(dmlops_fence_wait(f, UINT64_MAX));
        float x[32], want[32];
        for (uint32_t i = 0; i < 32; i++) {
            const uint32_t bits = input_bits(i, round);
            memcpy(&x[i], &bits, 4);
        }
        expected(x, want);
        CHECK(!memcmp(copy.map, want, sizeof want), "round %u: the application's copy of our output is wrong", round);
        dmlops_fence_destroy(f);
        app_cmd_done(&a, &w);
        app_cmd_done(&a, &c);
    }
    dmlops_buffer_destroy(bin);
    dmlops_buffer_destroy(blen);
    dmlops_buffer_destroy(bout);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);
    /* Lavapipe's queue thread may still hold T a moment after it signalled (docs/api.md,
     * Vulkan interop): idle first, as an application destroying its semaphore would. */
    vkQueueWaitIdle(a.queue);
    vkDestroySemaphore(a.device, t, NULL);
    app_buffer_destroy(&a, &in);
    app_buffer_destroy(&a, &len);
    app_buffer_destroy(&a, &out);
    app_buffer_destroy(&a, &copy);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* A 1.0 interop context (no timeline semaphores): submissions signal VkFences, and binary
 * semaphores of the application's still chain ours after its work. */
TEST(interop_binary_semaphores_without_a_timeline)
{
    app a;
    dmlops_vulkan_context_desc d;
    if (!app_start(&a, &d)) return;
    dmt_slice s;
    const uint32_t in_sizes[2] = {4, 8}, off[2] = {1, 2}, win[2] = {2, 4};
    dmt_slice_init(&s, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, off, win);
    app_buffer in, out;
    REQUIRE(app_buffer_create(&a, 128, APP_USAGE, &in) && app_buffer_create(&a, 32, APP_USAGE, &out));
    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    dmlops_buffer *bin = NULL, *bout = NULL;
    REQUIRE_OK(dmlops_context_create_vulkan(&d, &ctx));
    REQUIRE_OK(dmlops_operator_create(ctx, &s.desc, &op));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, in.buffer, 0, 128, APP_USAGE, &bin));
    REQUIRE_OK(dmlops_buffer_wrap_vulkan(ctx, out.buffer, 0, 32, APP_USAGE, &bout));
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore ready = VK_NULL_HANDLE;
    REQUIRE(vkCreateSemaphore(a.device, &sci, NULL, &ready) == VK_SUCCESS);
    app_cmd w;
    REQUIRE(app_cmd_begin(&a, &w));
    for (uint32_t i = 0; i < 32; i++) vkCmdFillBuffer(w.cmd, in.buffer, i * 4, 4, 0x40000000u + i);
    REQUIRE(vkEndCommandBuffer(w.cmd) == VK_SUCCESS);
    VkSubmitInfo sw = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &w.cmd,
                       .signalSemaphoreCount = 1, .pSignalSemaphores = &ready};
    REQUIRE(vkQueueSubmit(a.queue, 1, &sw, VK_NULL_HANDLE) == VK_SUCCESS);
    dmlops_vulkan_semaphores sems = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES, .wait_count = 1,
                                     .wait_semaphores = &ready};
    dmlops_submit_info si = {.s_type = DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO, .next = &sems};
    const dmlops_binding bi = {bin, 0, 128}, bo = {bout, 0, 32};
    dmlops_fence *f = NULL;
    REQUIRE_OK(dmlops_operator_execute_async(op, 1, &bi, 1, &bo, &si, &f));
    VkSemaphore none;
    uint64_t v;
    CHECK_STATUS(dmlops_fence_get_vulkan_semaphore(f, &none, &v), DMLOPS_ERROR_UNSUPPORTED, "VkFence");
    CHECK_OK(dmlops_fence_wait(f, UINT64_MAX));
    float got[8];
    memcpy(got, out.map, sizeof got);
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t c = 0; c < 4; c++) {
            const uint32_t bits = 0x40000000u + (r + 1) * 8 + c + 2;
            float want;
            memcpy(&want, &bits, 4);
            CHECK(got[r * 4 + c] == want, "element (%u, %u)", r, c);
        }
    /* Semaphores are for interop contexts: an own context refuses them. */
    dmlops_context *own = NULL;
    dmlops_context_desc od = {.backend = DMLOPS_BACKEND_VULKAN};
    if (dmlops_context_create(&od, &own) == DMLOPS_SUCCESS) {
        dmlops_buffer *ob = NULL;
        uint8_t bytes[16] = {0};
        CHECK_OK(dmlops_buffer_create(own, 16, &ob));
        CHECK_STATUS(dmlops_buffer_write_async(ob, 0, bytes, 16, &si, NULL), DMLOPS_ERROR_INVALID_ARGUMENT,
                     "only interop contexts take them");
        dmlops_buffer_destroy(ob);
        dmlops_context_destroy(own);
    }
    sems.wait_semaphores = NULL;
    CHECK_STATUS(dmlops_operator_execute_async(op, 1, &bi, 1, &bo, &si, NULL), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "wait_count = 1 with wait_semaphores NULL");
    dmlops_fence_destroy(f);
    dmlops_buffer_destroy(bin);
    dmlops_buffer_destroy(bout);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);
    app_cmd_done(&a, &w);
    vkDestroySemaphore(a.device, ready, NULL);
    app_buffer_destroy(&a, &in);
    app_buffer_destroy(&a, &out);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}

/* ---- external memory (dmlops_buffer_import_vulkan) ---- */

/* Memory of the application's, exportable as an opaque fd, host-visible, with a buffer. */
typedef struct app_export {
    app_buffer b;
    VkDeviceSize size;
    uint32_t type;
    int fd;
} app_export;

static bool app_export_create(app *a, VkDeviceSize size, app_export *e)
{
    memset(e, 0, sizeof *e);
    e->fd = -1;
    const VkExternalMemoryBufferCreateInfo ebi = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                  .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &ebi, .size = size,
                              .usage = APP_USAGE};
    if (vkCreateBuffer(a->device, &bci, NULL, &e->b.buffer) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, e->b.buffer, &req);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    e->type = UINT32_MAX;
    for (uint32_t i = 0; i < a->mem.memoryTypeCount && e->type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (a->mem.memoryTypes[i].propertyFlags & want) == want) e->type = i;
    const VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                            .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &exp,
                                .allocationSize = req.size, .memoryTypeIndex = e->type};
    e->size = req.size;
    PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(a->device, "vkGetMemoryFdKHR");
    if (e->type == UINT32_MAX || !get_fd || vkAllocateMemory(a->device, &mai, NULL, &e->b.memory) != VK_SUCCESS ||
        vkBindBufferMemory(a->device, e->b.buffer, e->b.memory, 0) != VK_SUCCESS ||
        vkMapMemory(a->device, e->b.memory, 0, VK_WHOLE_SIZE, 0, &e->b.map) != VK_SUCCESS)
        return false;
    const VkMemoryGetFdInfoKHR gfi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, .memory = e->b.memory,
                                      .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    return get_fd(a->device, &gfi, &e->fd) == VK_SUCCESS;
}

/* The application exports two memories as opaque fds; a context of libdmlops's own on the
 * same device imports them as buffers and slices one into the other: the application sees
 * the result in its own mapping, no copy anywhere. Refusals: a dma-buf where the driver
 * takes none (lavapipe), a CPU context, a range past the memory, a bad fd. */
TEST(interop_external_memory_is_imported)
{
    app a;
    app_external = true;
    const bool made = app_init_with(&a, false);
    app_external = false;
    if (!made) {
        printf("    note: no device with VK_KHR_external_memory_fd for the application\n");
        app_done(&a);
        return;
    }
    dmlops_context *ctx = NULL;
    dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_VULKAN, .device = "0"};
    REQUIRE_OK(dmlops_context_create(&cd, &ctx));
    app_export in, out;
    REQUIRE(app_export_create(&a, 128, &in) && app_export_create(&a, 32, &out));
    float *x = in.b.map;
    for (int i = 0; i < 32; i++) x[i] = (float)i * 1.5f;
    memset(out.b.map, 0, 32);
    dmlops_vulkan_external_memory em = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY,
                                        .handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, .fd = in.fd,
                                        .allocation_size = in.size, .memory_type_index = in.type};
    dmlops_buffer *bin = NULL, *bout = NULL;
    /* Refusals first: the fd stays the caller's. */
    em.offset = 16;
    CHECK_STATUS(dmlops_buffer_import_vulkan(ctx, &em, in.size, &bin), DMLOPS_ERROR_INVALID_ARGUMENT,
                 "are not inside allocation_size");
    em.offset = 0;
    em.handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
    const dmlops_status dma = dmlops_buffer_import_vulkan(ctx, &em, 128, &bin);
    CHECK(dma == DMLOPS_ERROR_UNSUPPORTED || dma == DMLOPS_ERROR_BACKEND || dma == DMLOPS_ERROR_INVALID_ARGUMENT,
          "an opaque fd imported as a dma-buf: %s", dmlops_status_string(dma));
    if (dma == DMLOPS_ERROR_UNSUPPORTED) printf("    dma-buf: %s\n", dmlops_last_error_message());
    em.handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    em.fd = -1;
    CHECK_STATUS(dmlops_buffer_import_vulkan(ctx, &em, 128, &bin), DMLOPS_ERROR_INVALID_ARGUMENT, "fd = -1");
    em.fd = in.fd;
    em.s_type = DMLOPS_STRUCTURE_TYPE_MEMORY_INFO;
    CHECK_STATUS(dmlops_buffer_import_vulkan(ctx, &em, 128, &bin), DMLOPS_ERROR_INVALID_ARGUMENT, "s_type");
    em.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY;
    dmlops_context *cpu = NULL;
    dmlops_context_desc cpu_desc = {.backend = DMLOPS_BACKEND_CPU};
    REQUIRE_OK(dmlops_context_create(&cpu_desc, &cpu));
    CHECK_STATUS(dmlops_buffer_import_vulkan(cpu, &em, 128, &bin), DMLOPS_ERROR_UNSUPPORTED, "CPU backend");
    dmlops_context_destroy(cpu);
    /* The imports. */
    REQUIRE_OK(dmlops_buffer_import_vulkan(ctx, &em, 128, &bin));
    dmlops_vulkan_external_memory eo = em;
    eo.fd = out.fd;
    eo.allocation_size = out.size;
    eo.memory_type_index = out.type;
    REQUIRE_OK(dmlops_buffer_import_vulkan(ctx, &eo, 32, &bout));
    dmlops_memory_info m = {.s_type = DMLOPS_STRUCTURE_TYPE_MEMORY_INFO};
    CHECK_OK(dmlops_context_get_memory_info(ctx, &m));
    CHECK(m.device_bytes >= in.size + out.size, "imported memory counted: %llu", (unsigned long long)m.device_bytes);
    const uint32_t in_sizes[2] = {4, 8}, off[2] = {1, 2}, win[2] = {2, 4};
    dmt_slice s;
    dmt_slice_init(&s, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, off, win);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &s.desc, &op));
    const dmlops_binding bi = {bin, 0, 128}, bo = {bout, 0, 32};
    CHECK_OK(dmlops_operator_execute(op, 1, &bi, 1, &bo));
    const float *y = out.b.map;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 4; c++)
            CHECK(y[r * 4 + c] == x[(r + 1) * 8 + c + 2], "element (%d, %d): %g", r, c, y[r * 4 + c]);
    float back[8];
    CHECK_OK(dmlops_buffer_read(bout, 0, back, sizeof back)); /* the host's path to it works too */
    CHECK(!memcmp(back, y, sizeof back));
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bin); /* closes the fds the imports took */
    dmlops_buffer_destroy(bout);
    dmlops_context_destroy(ctx);
    app_buffer_destroy(&a, &in.b);
    app_buffer_destroy(&a, &out.b);
    app_done(&a);
    CHECK(app_messages == 0, "the validation layer reported %u messages", app_messages);
}
