/* What an operator runs and holds on a Vulkan context (dmlops_operator_get_info2): its
 * kernel's variant, path, workgroup, grid and shared memory, read from its plan through
 * dm_vk_kernel_spec, the one truth its pipeline was made from (and the machine-code
 * report's); and its memory. The kernels' own code decides none of this here: a rework of
 * the planner or the kernels keeps these answers true by keeping dm_vk_kernel_spec and the
 * plan's fields true. test_introspection checks them against what runs. */
#include <string.h>

#include "vk_execute.h"

static const char *const dm_kernel_names[DM_KERNEL_COUNT] = {"slice", "reverse", "one_hot"};
static const char *const dm_variant_names[DM_VARIANT_COUNT] = {
    [DM_VARIANT_GENERAL] = "general", [DM_VARIANT_STREAM] = "stream",   [DM_VARIANT_PAIRS] = "pairs",
    [DM_VARIANT_WORDS] = "words",     [DM_VARIANT_ALONG] = "along",     [DM_VARIANT_ACROSS] = "across",
    [DM_VARIANT_FLAT] = "flat",       [DM_VARIANT_FLAT_ROWS] = "flat_rows", [DM_VARIANT_COLUMNS] = "columns",
    [DM_VARIANT_TILES] = "tiles",     [DM_VARIANT_TILE_COLUMNS] = "tile_columns", [DM_VARIANT_TILE_HOT] = "tile_hot",
    [DM_VARIANT_TILE_ROWS] = "tile_rows"};
_Static_assert(DM_VARIANT_COUNT == 13, "a name per variant (DM_VARIANT_* in vk_abi.h)");

void dm_vk_operator_kernel(const dmlops_operator *op, dmlops_operator_kernel_info *k)
{
    const dm_vk_ctx *vk = dm_vk(op->ctx);
    const dm_vk_op *o = op->impl;
    const dm_vk_plan *plan = &o->plan;
    if (plan->use_copy) return; /* copy regions: no kernel */
    dm_vk_kernel_key key;
    dm_vk_kernel_spec(&o->lim, &plan->g, plan->fast, plan->texel, plan->axis_split, vk->pipes.trace, &key);
    snprintf(k->kernel, sizeof k->kernel, "%s", (unsigned)key.kernel < DM_KERNEL_COUNT ? dm_kernel_names[key.kernel] : "?");
    const char *variant = key.variant < DM_VARIANT_COUNT ? dm_variant_names[key.variant] : NULL;
    snprintf(k->variant, sizeof k->variant, "%s", variant ? variant : "?");
    k->tiles = key.variant == DM_VARIANT_TILES || key.variant == DM_VARIANT_TILE_COLUMNS ||
               key.variant == DM_VARIANT_TILE_HOT || key.variant == DM_VARIANT_TILE_ROWS;
    k->texel = key.texel;
    k->workgroup_size = key.spec[DM_SPEC_WORKGROUP];
    k->run = key.spec[DM_SPEC_RUN];
    k->lanes = key.spec[DM_SPEC_LANES];
    k->element_size = key.spec[DM_SPEC_ESIZE];
    /* Only the staging tiles' modules declare shared memory: LDS_VECS vectors of 16 bytes
     * (TILE_ROWS loads its aligned vectors straight and declares none). */
    k->shared_memory_bytes = k->tiles && key.variant != DM_VARIANT_TILE_ROWS ? key.spec[DM_SPEC_LDS_VECS] * 16 : 0;
    /* Each piece runs its virtual grid as dispatches of `groups` workgroups (vk_record.c). */
    const uint64_t dispatches = dm_vk_plan_dispatches(plan->pieces, plan->npieces);
    k->dispatch_count = dispatches < UINT32_MAX ? (uint32_t)dispatches : UINT32_MAX;
    for (uint32_t p = 0; p < plan->npieces; p++) {
        const uint32_t groups = plan->pieces[p].groups < plan->pieces[p].vgroups ? plan->pieces[p].groups
                                                                                : plan->pieces[p].vgroups;
        if (groups > k->workgroup_count) k->workgroup_count = groups;
    }
}

/* Bytes of a binding table and of what it holds (its sizes are what vk_binding.c allocated). */
static uint64_t dm_vk_table_host_bytes(const dmlops_binding_table *t)
{
    return sizeof *t + (uint64_t)t->capacity * (sizeof *t->sets + sizeof *t->push + DM_VK_SET_VIEWS * sizeof *t->views) +
           (uint64_t)t->region_capacity * sizeof *t->regions + (uint64_t)t->copies_cap * sizeof *t->copies +
           (uint64_t)t->own_npieces * sizeof *t->own_pieces;
}

void dm_vk_operator_memory(const dmlops_operator *op, dmlops_memory_info *m)
{
    const dm_vk_op *o = op->impl;
    const dm_vk_plan *plan = &o->plan;
    m->device_bytes = o->params.bytes;
    m->host_bytes += sizeof *o + (uint64_t)o->ntables * sizeof *o->spare + (uint64_t)plan->npieces * sizeof *plan->pieces +
                     (uint64_t)plan->nregions * sizeof *plan->regions;
    /* The tables not in use; those in flight are counted by the context (lock held). */
    for (uint32_t i = 0; i < o->nspare; i++) {
        m->host_bytes += dm_vk_table_host_bytes(o->spare[i]);
        m->device_bytes += o->spare[i]->own_params.bytes;
    }
    m->descriptor_sets = plan->use_copy ? 0 : plan->npieces;
}

uint64_t dm_vk_device_bytes(const dmlops_context *ctx)
{
    return dm_count_load(&dm_vk(ctx)->device_bytes);
}
