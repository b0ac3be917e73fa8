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

static bool app_init(app *a)
{
    memset(a, 0, sizeof *a);
#ifdef INTEROP_VOLK
    if (volkInitialize() != VK_SUCCESS) return false;
#endif
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
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
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    if (vkCreateDevice(a->phys, &dci, NULL, &a->device) != VK_SUCCESS) return false;
#ifdef INTEROP_VOLK
    volkLoadDevice(a->device);
#endif
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    vkGetPhysicalDeviceMemoryProperties(a->phys, &a->mem);
    return true;
}

static void app_done(app *a)
{
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
