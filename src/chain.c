/* Chains of extensible structures (dmlops.h, "Extensible structures"): each call names
 * the s_types its chain may hold, and anything else is refused by name rather than
 * ignored, so that an application built against a newer header learns that this
 * library does not do what it asked. */
#include "chain.h"

/* A chain longer than this is taken for a loop: no call takes nearly as many. */
#define DM_CHAIN_MAX 64

const char *dm_structure_type_name(dmlops_structure_type t)
{
    switch (t) {
    case DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO: return "DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO";
    case DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS: return "DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS";
    case DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK: return "DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK";
    case DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO: return "DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO";
    case DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2: return "DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2";
    case DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO: return "DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO";
    case DMLOPS_STRUCTURE_TYPE_MEMORY_INFO: return "DMLOPS_STRUCTURE_TYPE_MEMORY_INFO";
    case DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO: return "DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO";
    case DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS: return "DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS";
    case DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES: return "DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES";
    case DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY: return "DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY";
    case DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS: return "DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS";
    case DMLOPS_STRUCTURE_TYPE_MAX_ENUM: break;
    }
    return NULL;
}

/* "s_type = NAME (n)", or "s_type = n" for a value this library does not know. */
static const char *dm_type_text(dmlops_structure_type t, char *buf, size_t cap)
{
    const char *name = dm_structure_type_name(t);
    if (name) snprintf(buf, cap, "s_type = %s (%d)", name, (int)t);
    else snprintf(buf, cap, "s_type = %d, which this version of libdmlops does not know", (int)t);
    return buf;
}

dmlops_status dm_chain_head(const char *fn, const char *what, const void *head, dmlops_structure_type want)
{
    const dmlops_base_structure *b = head;
    char text[128];
    if (b->s_type != want)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s has %s: expected %s", fn, what,
                       dm_type_text(b->s_type, text, sizeof text), dm_structure_type_name(want));
    return DMLOPS_SUCCESS;
}

dmlops_status dm_chain_parse(const char *fn, const char *what, const void *next, const dmlops_structure_type *allowed,
                             uint32_t nallowed, const void **found)
{
    char text[128];
    for (uint32_t i = 0; i < nallowed; i++) found[i] = NULL;
    uint32_t n = 0;
    for (const dmlops_base_structure *b = next; b; b = b->next, n++) {
        if (n == DM_CHAIN_MAX)
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s's next chain holds more than %d structures (a loop?)",
                           fn, what, DM_CHAIN_MAX);
        uint32_t k = 0;
        while (k < nallowed && allowed[k] != b->s_type) k++;
        if (k == nallowed)
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s's next chain holds a structure with %s, which %s does not take",
                           fn, what, dm_type_text(b->s_type, text, sizeof text), fn);
        if (found[k])
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s's next chain holds %s twice", fn, what,
                           dm_type_text(b->s_type, text, sizeof text));
        found[k] = b;
    }
    return DMLOPS_SUCCESS;
}
