/* What small and unusual Vulkan devices change: a unified-memory GPU's one heap and its
 * budget bound every buffer, and a portability implementation's VK_KHR_portability_subset
 * is enabled. lavapipe has none of these, so the tests see them under the profile layer
 * (test/profile_layer: rpi4-v3dv for the heap and budget, min-portability for the
 * extension), and say so and pass elsewhere. */
#include <stdlib.h>
#include <unistd.h>

#include "vkt.h"

/* A GPU whose only heap is device-local and host-visible: a Raspberry Pi's, a Mali's. */
static bool unified_gpu(dmlops_context *ctx, dmlops_device_info *d)
{
    dmlops_context_info ci;
    if (!CHECK_OK(dmlops_context_get_info(ctx, &ci))) return false;
    *d = ci.device;
    if (d->type != DMLOPS_DEVICE_TYPE_CPU && d->unified_memory && d->memory_heap_count == 1) return true;
    printf("    note: %s is no unified-memory GPU (test/profile_layer/run.sh rpi4-v3dv makes lavapipe one)\n", d->name);
    return false;
}

/* One byte past the heap is refused at creation, before any allocation: a driver that
 * allocates lazily would otherwise take the board's memory page by page. */
TEST_CTX(buffer_beyond_a_unified_heap_is_refused_up_front)
{
    dmlops_device_info d;
    if (!dmt_is_vulkan() || !unified_gpu(ctx, &d)) return;
    dmlops_buffer *b = NULL;
    CHECK_STATUS(dmlops_buffer_create(ctx, d.memory_heap_size[0] + 1, &b), DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                 "one heap of");
    CHECK(b == NULL);
    dmlops_buffer_destroy(b);
}

/* The budget the profile gives VK_EXT_memory_budget (memoryBudget in DMLOPS_PROFILE's file,
 * plain bytes), or 0 where none is set. */
static uint64_t profile_budget(void)
{
    const char *path = getenv("DMLOPS_PROFILE");
    FILE *f = path && *path ? fopen(path, "r") : NULL;
    char line[256];
    uint64_t budget = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *v = strstr(line, "memoryBudget");
        const char *eq = v == line ? strchr(line, '=') : NULL;
        if (eq) budget = strtoull(eq + 1, NULL, 10);
    }
    if (f) fclose(f);
    return budget;
}

/* More than the budget says is left of the heap (the layer reports none of it used) is
 * refused up front too, and says why. */
TEST_CTX(buffer_beyond_the_memory_budget_is_refused_up_front)
{
    dmlops_device_info d;
    if (!dmt_is_vulkan() || !unified_gpu(ctx, &d)) return;
    const uint64_t budget = profile_budget();
    if (!budget || budget >= d.memory_heap_size[0]) {
        printf("    note: no memory budget below the heap to test (rpi4-v3dv's profile sets one)\n");
        return;
    }
    dmlops_buffer *b = NULL;
    CHECK_STATUS(dmlops_buffer_create(ctx, budget + 1, &b), DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY, "VK_EXT_memory_budget");
    CHECK(b == NULL);
    dmlops_buffer_destroy(b);
}

/* A device offering VK_KHR_portability_subset gets it enabled, and one without it does not
 * (VUID-VkDeviceCreateInfo-pProperties-04451): the profile layer writes what each device
 * offered and what was enabled to DMLOPS_PROFILE_RECORD. */
TEST_CTX(portability_subset_enabled_where_offered)
{
    (void)ctx; /* the test opens a context of its own, its devices recorded */
    if (!dmt_is_vulkan()) return;
    if (!getenv("DMLOPS_PROFILE_LAYER")) {
        printf("    note: not under the profile layer (test/profile_layer/run.sh min-portability)\n");
        return;
    }
    char path[] = "/tmp/dmlops-profile-record-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    dmt_env record;
    dmt_env_set(&record, "DMLOPS_PROFILE_RECORD", path);
    dmlops_context *vk = vkt_context(0, 0, 0);
    dmt_env_restore(&record);
    FILE *f = fopen(path, "r");
    char line[4096];
    int devices = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "device ", 7) != 0) continue;
        devices++;
        const bool offered = strstr(line, "portability_subset=offered") != NULL;
        const char *list = strstr(line, " enabled=");
        const bool enabled = list && strstr(list, "VK_KHR_portability_subset");
        CHECK(offered == enabled, "the device %s VK_KHR_portability_subset and the library %s it: %s",
              offered ? "offers" : "lacks", enabled ? "enabled" : "did not enable", line);
    }
    if (f) fclose(f);
    unlink(path);
    CHECK(devices == 1, "%d devices recorded for one context", devices);
    vkt_done(vk);
}
