/* The machine-code report (tools/isa, `make isa`, docs/performance.md "The kernels'
 * machine code"): its reading of AMD disassembly, on fixed text, everywhere; and on Mesa's
 * RADV compiling for an AMD GPU that is not there, the figures of today's kernels that the
 * kernel issue starts from, so that they cannot regress unseen. White-box: it links the
 * report's and the library's objects. Skips the RADV part, and says so, where the
 * machine has no RADV (Debian's mesa-vulkan-drivers, which .ci/deps.sh installs). */
#include <stdlib.h>
#include <string.h>

#include "../tools/isa/isa.h"
#include "harness.h"

/* ---- reading disassembly: fixed text ------------------------------------------------ */

/* The compute copy as RADV's ACO printed it (Mesa 22.3, navi21): one loop, one 16-byte
 * load and store. */
static const char aco_copy[] =
    "BB0:\n"
    "\tv_lshl_add_u32 v0, s9, 6, v0                                ; d7460000 04010c09\n"
    "\ts_mov_b64 s[0:1], exec                                      ; be80047e\n"
    "BB1:\n"
    "\ts_mov_b64 s[8:9], exec                                      ; be88047e\n"
    "\tv_cmpx_le_u32_e32 s5, v0                                    ; 7da60005\n"
    "BB2:\n"
    "\ts_andn2_b64 s[8:9], s[8:9], exec                            ; 8a887e08\n"
    "\ts_cbranch_scc0 BB10                                         ; bf840015\n"
    "BB9:\n"
    "\ts_mov_b64 exec, s[8:9]                                      ; befe0408\n"
    "\ts_load_dwordx4 s[12:15], s[8:9], 0x10                       ; f4080304 fa000010\n"
    "\tbuffer_load_dwordx4 v[4:7], v1, s[12:15], 0 offen           ; e0381000 80030401\n"
    "\tv_add_lshl_u32 v1, s3, v0, 4                                ; d7470001 02120003\n"
    "\ts_waitcnt vmcnt(0)                                          ; bf8c3f70\n"
    "\tbuffer_store_dwordx4 v[4:7], v1, s[8:11], 0 offen glc       ; e0785000 80020401\n"
    "\ts_branch BB1                                                ; bf82ffe7\n"
    "BB10:\n"
    "\ts_endpgm                                                    ; bf810000\n"
    "\ts_code_end                                                  ; bf9f0000\n";

TEST(reads_a_loop_its_memory_by_width_and_no_division)
{
    isa_figures f;
    isa_read_text(aco_copy, &f);
    REQUIRE(f.parsed, "the copy's disassembly was not read");
    CHECK(f.all.instructions == 14, "%u instructions, s_code_end left out: 14 expected", f.all.instructions);
    CHECK(f.loops == 1 && f.chunk_loops == 1, "%u loops, %u chunk loops", f.loops, f.chunk_loops);
    const isa_loop *h = isa_hot_loop(&f);
    REQUIRE(h, "no hot loop");
    CHECK(h->body.instructions == 11 && h->lines[0] == 5 && h->lines[1] == 17,
          "hot loop: %u instructions, lines %u-%u (11, 5-17 expected)", h->body.instructions, h->lines[0], h->lines[1]);
    CHECK(f.chunk_width == ISA_W16 && h->chunks == 1, "chunk stores: width index %u, %u of them", f.chunk_width,
          h->chunks);
    CHECK(h->body.mem.load[ISA_W16] == 1 && h->body.mem.store[ISA_W16] == 1 && h->body.mem.scalar == 1,
          "loads 16B %u, stores 16B %u, scalar %u", h->body.mem.load[ISA_W16], h->body.mem.store[ISA_W16],
          h->body.mem.scalar);
    CHECK(h->loads_ahead == 1, "%u loads before the first store", h->loads_ahead);
    CHECK(f.all.divisions == 0, "%u divisions in a copy", f.all.divisions);
}

/* A grid loop (BB1) holding a division of ACO's form (Mesa 22.3, flat_two_rows' f0 / g_fm),
 * the chunk loop (BB2), a side loop (BB3) holding a division whose reciprocal was
 * hoisted (its quotient step, as ACO left decode_unit's in the fast path's pass over a
 * unit's leftover chunks), and a division by a constant (a multiply-high by a literal),
 * its remainder checked against that constant (3, in s5) as a division's would be. */
static const char divisions[] =
    "BB0:\n"
    "\ts_mov_b32 s21, 0x4f7ffffe\n"
    "\ts_mov_b32 s5, 3\n"
    "BB1:\n"
    "\tv_cvt_f32_u32_e32 v1, s9\n"
    "\tv_rcp_f32_e32 v1, v1\n"
    "\tv_mul_f32_e32 v1, s21, v1\n"
    "\tv_cvt_u32_f32_e32 v1, v1\n"
    "\tv_readfirstlane_b32 s1, v1\n"
    "\ts_mul_i32 s22, s9, s1\n"
    "\ts_sub_i32 s22, 0, s22\n"
    "\ts_mul_hi_u32 s22, s1, s22\n"
    "\ts_add_u32 s1, s1, s22\n"
    "\tv_mul_hi_u32 v4, v3, s1\n"
    "\tv_mul_lo_u32 v5, v4, s9\n"
    "\tv_sub_nc_u32_e32 v5, v3, v5\n"
    "\tv_add_nc_u32_e32 v6, 1, v4\n"
    "\tv_cmp_le_u32_e32 vcc, s9, v5\n"
    "\tv_cndmask_b32_e32 v4, v4, v6, vcc\n"
    "BB2:\n"
    "\tbuffer_load_dword v8, v4, s[12:15], 0 offen\n"
    "\tv_add_nc_u32_e32 v4, 16, v4\n"
    "\tv_add_nc_u32_e32 v9, 1, v9\n"
    "\tv_cmp_gt_u32_e32 vcc, s3, v9\n"
    "\ts_waitcnt vmcnt(0)\n"
    "\tbuffer_store_dwordx4 v[8:11], v4, s[8:11], 0 offen\n"
    "\ts_cbranch_vccnz BB2\n"
    "BB3:\n"
    "\tv_mul_hi_u32 v40, v39, s10\n"
    "\tv_mul_lo_u32 v41, v40, s18\n"
    "\tv_sub_nc_u32_e32 v41, v39, v41\n"
    "\tv_subrev_nc_u32_e32 v42, s18, v41\n"
    "\tv_cmp_le_u32_e32 vcc, s18, v41\n"
    "\tv_cndmask_b32_e32 v41, v41, v42, vcc\n"
    "\tbuffer_atomic_or v41, v1, s[8:11], 0 offen\n"
    "\ts_cbranch_execnz BB3\n"
    "BB4:\n"
    "\tv_mul_hi_u32 v1, 0xaaaaaaab, v0\n"
    "\tv_lshrrev_b32_e32 v1, 1, v1\n"
    "\tv_mul_lo_u32 v2, v1, s5\n"
    "\tv_sub_nc_u32_e32 v2, v0, v2\n"
    "\tv_cmp_le_u32_e32 vcc, s5, v2\n"
    "\tv_cndmask_b32_e32 v2, v2, v1, vcc\n"
    "\ts_branch BB1\n"
    "BB5:\n"
    "\ts_endpgm\n";

TEST(counts_divisions_per_unit_less_side_loops)
{
    isa_figures f;
    isa_read_text(divisions, &f);
    REQUIRE(f.parsed && f.chunk_loops == 1, "%u chunk loops", f.chunk_loops);
    const isa_loop *h = isa_hot_loop(&f);
    CHECK(f.loops == 3, "%u loops (grid, chunk, side)", f.loops);
    CHECK(h->body.divisions == 0, "%u divisions in the chunk loop", h->body.divisions);
    CHECK(h->path.divisions == 1, "%u divisions per unit: the reciprocal's, once with its quotient step",
          h->path.divisions);
    CHECK(f.chunk_divisions == 1, "chunk_divisions %u", f.chunk_divisions);
    CHECK(f.all.divisions == 2, "%u divisions in all: the grid loop's and the side loop's hoisted one; none by 3",
          f.all.divisions);
    CHECK(h->path.mem.atomic == 0 && f.all.mem.atomic == 1, "the side loop's atomic: %u per unit, %u in all",
          h->path.mem.atomic, f.all.mem.atomic);
    CHECK(h->body.mem.load[ISA_W4] == 1 && h->loads_ahead == 1, "chunk loop: %u 4-byte loads, %u ahead of its store",
          h->body.mem.load[ISA_W4], h->loads_ahead);
    CHECK(h->path.instructions == 29, "per-unit path: %u instructions (the grid loop's 37 less the side loop's 8)",
          h->path.instructions);
}

/* LLVM's disassembler (RADV_DEBUG=llvm) labels a block "BB0_1:" and branches to ".LBB0_1". */
static const char llvm_labels[] =
    "main:\n"
    "BB0_0:\n"
    "\ts_mov_b32 s0, s3                     ;\n"
    "BB0_1:\n"
    "\tbuffer_load_dwordx2 v[0:1], v2, s[4:7], 0 offen ;\n"
    "\tbuffer_load_ubyte v3, v2, s[4:7], 0 offen ;\n"
    "\tbuffer_store_dwordx2 v[0:1], v2, s[8:11], 0 offen ;\n"
    "\tbuffer_store_byte v3, v2, s[8:11], 0 offen ;\n"
    "\tbuffer_load_format_xyzw v[4:7], v2, s[16:19], 0 idxen ;\n"
    "\ts_cbranch_vccnz .LBB0_1             ;\n"
    "\ts_endpgm                             ;\n";

TEST(reads_llvm_labels_and_narrow_chunks)
{
    isa_figures f;
    isa_read_text(llvm_labels, &f);
    REQUIRE(f.parsed && f.loops == 1 && f.chunk_loops == 1, "%u loops, %u chunk loops", f.loops, f.chunk_loops);
    const isa_loop *h = isa_hot_loop(&f);
    CHECK(f.chunk_width == ISA_W8 && h->chunks == 1, "chunk stores: width index %u, %u of them", f.chunk_width,
          h->chunks);
    CHECK(h->body.mem.load[ISA_W8] == 1 && h->body.mem.load[ISA_W1] == 1 && h->body.mem.store[ISA_W1] == 1 &&
              h->body.mem.texel == 1,
          "loads 8B %u 1B %u, stores 1B %u, texel %u", h->body.mem.load[ISA_W8], h->body.mem.load[ISA_W1],
          h->body.mem.store[ISA_W1], h->body.mem.texel);
    CHECK(h->loads_ahead == 2, "%u loads before the first store", h->loads_ahead);
}

TEST(counts_a_reciprocal_whose_quotient_step_is_not_recognised)
{
    /* A division whose correction has no compare-and-select this reading knows (another
     * compiler's shape) still counts, once, by its reciprocal. */
    isa_figures f;
    isa_read_text("\tv_cvt_f32_u32_e32 v1, s9\n\tv_rcp_iflag_f32_e32 v1, v1\n\tv_mul_f32_e32 v1, 0x4f7ffffe, v1\n"
                  "\tv_cvt_u32_f32_e32 v1, v1\n\tv_mul_hi_u32 v2, v0, v1\n\tv_mad_u32_u24 v3, v2, s9, v0\n"
                  "\ts_endpgm\n",
                  &f);
    CHECK(f.parsed && f.all.divisions == 1, "%u divisions", f.all.divisions);
}

TEST(reads_no_ir_as_machine_code)
{
    /* NIR, as a driver may also offer it: no instruction of ours in it. */
    isa_figures f;
    isa_read_text("shader: MESA_SHADER_COMPUTE\ndecl_function main (0 params)\nblock_0:\n"
                  "\tvec1 32 ssa_0 = load_const (0x00000000)\n\tloop {\n\t}\n",
                  &f);
    CHECK(!f.parsed && f.chunk_loops == 0, "NIR read as disassembly (%u instructions)", f.all.instructions);
    isa_read_text(NULL, &f);
    CHECK(!f.parsed, "no text read as disassembly");
}

/* ---- today's kernels on RADV ------------------------------------------------------------ */

/* The report on RADV for navi21, as a GPU context plans (tiles: DMLOPS_VK_TILES by device
 * class, the GPU tiles on) or without the GPU tiles (DMLOPS_VK_TILES=0, and a device whose
 * shared memory holds no tile: the paths from before them). Made once each; NULL (with a
 * note saying why) where there is no RADV. */
static struct radv_run {
    bool tried;
    isa_device device;
    isa_report report;
} radv_runs[2];
static const char *radv_skip;

static void radv_release(void)
{
    for (int t = 0; t < 2; t++) {
        isa_report_free(&radv_runs[t].report);
        if (radv_runs[t].tried) isa_device_close(&radv_runs[t].device);
    }
}

static const isa_report *radv_report_with(bool tiles)
{
    struct radv_run *run = &radv_runs[tiles];
    if (radv_skip) return NULL;
    if (run->tried) return run->report.rows ? &run->report : NULL;
    const char *icd = isa_radv_icd();
    if (!dmt_backend_wanted("vulkan")) radv_skip = "DMLOPS_TEST_BACKENDS leaves Vulkan out";
    else if (!icd) radv_skip = "no RADV ICD file (Debian: mesa-vulkan-drivers, which .ci/deps.sh installs)";
    if (radv_skip) {
        printf("note: RADV report skipped: %s\n", radv_skip);
        return NULL;
    }
    if (!radv_runs[0].tried && !radv_runs[1].tried) {
        /* Before any Vulkan call of the process: the loader reads these when it lists
         * drivers. */
        setenv("VK_DRIVER_FILES", icd, 1);
        setenv("VK_ICD_FILENAMES", icd, 1);
        setenv("RADV_FORCE_FAMILY", "navi21", 1);
        atexit(radv_release); /* after the last test, before the leak check (registered first) */
    }
    run->tried = true;
    /* What a context reads with no DMLOPS_VK_* set (dm_env_vk_tuning): each by device
     * class, but the tiles where asked off. */
    dm_vk_params params;
    memset(&params, 0, sizeof params);
    params.texel = params.cpu_tuning = -1;
    params.tiles = tiles ? -1 : 0;
    params.copy_min_bytes = -1;
    dmlops_status st = isa_device_open(NULL, &params, &run->device);
    if (st == DMLOPS_SUCCESS) st = isa_report_make(&run->device, &run->report);
    /* RADV is there (its ICD file is): failing to compile on it is a failure, not a skip. */
    CHECK(st == DMLOPS_SUCCESS, "RADV (%s): %s", icd, dmlops_last_error_message());
    return run->report.rows ? &run->report : NULL;
}

static const isa_report *radv_report(void) { return radv_report_with(true); }

/* The row of `label` and its hot loop; false (a failure) where either is missing. */
static bool row(const isa_report *r, const char *label, const isa_row **w, const isa_loop **h)
{
    *w = isa_report_find(r, label);
    *h = *w ? isa_hot_loop(&(*w)->fig) : NULL;
    if (!*h) (void)CHECK(false, "%s: %s", label, *w ? "no hot loop" : "no row");
    return *h != NULL;
}

TEST(radv_compiles_every_standard_case)
{
    const isa_report *r = radv_report();
    if (!r) return;
    CHECK(strstr(r->device, "RADV") && strstr(r->device, "NAVI21"), "compiled for %s", r->device);
    CHECK(r->count == isa_case_count() + 1, "%u rows for %u cases and the compute copy", r->count, isa_case_count());
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *w = &r->rows[i];
        /* No case is copy regions on a GPU (dm_vk_limits.copy_min_bytes), so each compiled. */
        if (!CHECK(w->kernel && w->fig.parsed, "%s (%s): no pipeline or no disassembly read", w->label, w->pipeline))
            continue;
        const isa_loop *h = isa_hot_loop(&w->fig);
        CHECK(h && h->body.instructions > 0 && h->path.instructions >= h->body.instructions,
              "%s: no hot loop, or its per-unit path is shorter than it", w->label);
        CHECK(w->fig.chunk_width == ISA_W16, "%s: the widest store is not 16 bytes (width index %u)", w->label,
              w->fig.chunk_width);
        CHECK(w->vgprs > 0 && w->sgprs > 0 && w->spilled_vgprs == 0 && w->spilled_sgprs == 0,
              "%s: VGPRs %.0f, SGPRs %.0f, spilled %.0f / %.0f", w->label, w->vgprs, w->sgprs, w->spilled_vgprs,
              w->spilled_sgprs);
        CHECK(isa_stat_value(&w->shader, "Instructions") >= w->fig.all.instructions * 0.9,
              "%s: the driver counts %.0f instructions, the disassembly %u", w->label,
              isa_stat_value(&w->shader, "Instructions"), w->fig.all.instructions);
    }
}

TEST(radv_compute_copy_moves_16_bytes_a_lane_without_division)
{
    const isa_report *r = radv_report();
    if (!r) return;
    const isa_row *w;
    const isa_loop *h;
    if (!row(r, "compute copy", &w, &h)) return;
    uint32_t narrow = 0;
    for (int k = 0; k < ISA_W16; k++) narrow += h->body.mem.load[k] + h->body.mem.store[k];
    CHECK(h->body.mem.load[ISA_W16] == 1 && h->body.mem.store[ISA_W16] == 1 && narrow == 0 && !h->body.mem.texel &&
              !h->body.mem.atomic,
          "copy loop: %u 16-byte loads, %u 16-byte stores, %u narrower, %u texel, %u atomic (1, 1, 0, 0, 0)",
          h->body.mem.load[ISA_W16], h->body.mem.store[ISA_W16], narrow, h->body.mem.texel, h->body.mem.atomic);
    CHECK(w->fig.all.divisions == 0, "%u divisions in the compute copy", w->fig.all.divisions);
    CHECK(h->body.instructions <= 24, "the copy's loop grew to %u instructions (18 on Mesa 22.3)",
          h->body.instructions);
}

TEST(radv_no_integer_division_per_unit)
{
    /* The kernel issue's requirement (issue 40): no run-time integer division in any
     * kernel's per-chunk path, as a GPU context plans the standard cases (the GPU tiles,
     * dividing by magic numbers, src/fastdiv.h). */
    const isa_report *r = radv_report();
    if (!r) return;
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *w = &r->rows[i];
        const isa_loop *h = isa_hot_loop(&w->fig);
        if (!h) continue; /* radv_compiles_every_standard_case says so */
        CHECK(w->fig.chunk_divisions == 0,
              "%s (%s): %u run-time integer divisions per unit (the hot loop's path %u, its grid loop lines %u-%u)",
              w->label, w->pipeline, w->fig.chunk_divisions, h->path.divisions, h->grid_lines[0], h->grid_lines[1]);
    }
}

/* The paths without the GPU tiles still divide in these per-unit paths: the proof, end to
 * end, that the report sees a division where the kernels have one. Every case not listed
 * has none. When a kernel change removes one, remove its row; a division appearing
 * anywhere else fails. */
/* The paths a GPU takes without the tiles (DMLOPS_VK_TILES=0, and every layout the tiles
 * do not take) divide per unit no more than the tiles: ONE_HOT's flat walk divided once
 * per run (a chunk, with RUN 1) by the row length until it took its magic number. */
TEST(radv_no_division_per_unit_without_tiles)
{
    const isa_report *r = radv_report_with(false);
    if (!r) return;
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *w = &r->rows[i];
        const isa_loop *h = isa_hot_loop(&w->fig);
        if (!CHECK(h, "%s (%s): no hot loop", w->label, w->pipeline)) continue;
        CHECK(w->fig.chunk_divisions == 0, "%s (%s): %u run-time integer divisions per unit (hot loop's path %u, lines %u-%u)",
              w->label, w->pipeline, w->fig.chunk_divisions, h->path.divisions, h->grid_lines[0], h->grid_lines[1]);
    }
}

TEST(radv_tiles_keep_their_loads_in_flight)
{
    /* The GPU tiles of SLICE1 and REVERSE (TILES, and TILE_ROWS, which loads aligned rows
     * straight) stage TILE_V vectors a lane before they store: a lane's hot loop issues at
     * least that many loads before its first store, where the kernels before them issued
     * one or two. */
    const isa_report *r = radv_report();
    if (!r) return;
    uint32_t tiles = 0;
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *w = &r->rows[i];
        const isa_loop *h = isa_hot_loop(&w->fig);
        const bool rows = w->key.variant == DM_VARIANT_TILES || w->key.variant == DM_VARIANT_TILE_ROWS;
        if (!w->kernel || w->compute_copy || !rows || !h) continue;
        tiles++;
        CHECK(h->loads_ahead >= w->key.spec[DM_SPEC_TILE_V] && w->key.spec[DM_SPEC_TILE_V] >= 2,
              "%s (%s): %u loads before the first store, TILE_V %u", w->label, w->pipeline, h->loads_ahead,
              w->key.spec[DM_SPEC_TILE_V]);
    }
    CHECK(tiles >= 16, "only %u cases took TILES or TILE_ROWS on RADV (SLICE1's 12 and REVERSE inner's 4 did)", tiles);
}

TEST(radv_slice_stream_loads_one_vector_per_chunk)
{
    /* SLICE1 stride=1 at 64 MiB without the GPU tiles: the STREAM fast path with aligned
     * sources, RUN 8 x LANES 32, which the compiler unrolls: each chunk one 16-byte load
     * and one 16-byte store. */
    const isa_report *r = radv_report_with(false);
    if (!r) return;
    const isa_row *w;
    const isa_loop *h;
    if (!row(r, "SLICE1 stride=1 FLOAT32", &w, &h)) return;
    CHECK(strstr(w->pipeline, "STREAM") && strstr(w->pipeline, "aligned"), "planned as %s", w->pipeline);
    uint32_t narrow = 0;
    for (int k = 0; k < ISA_W16; k++) narrow += h->body.mem.load[k];
    CHECK(h->chunks >= 1 && h->body.mem.load[ISA_W16] == h->chunks && narrow == 0 && h->body.mem.texel == 0,
          "%u chunks, %u 16-byte loads, %u narrower, %u texel", h->chunks, h->body.mem.load[ISA_W16], narrow,
          h->body.mem.texel);
}

TEST(radv_report_prints_every_row)
{
    const isa_report *r = radv_report();
    if (!r) return;
    FILE *f = tmpfile();
    REQUIRE(f, "no temporary file");
    isa_report_print(r, true, f);
    rewind(f);
    char line[4096];
    uint32_t lines = 0, header_tabs = 0;
    bool same = true;
    while (fgets(line, sizeof line, f)) {
        uint32_t tabs = 0;
        for (const char *c = line; *c; c++) tabs += *c == '\t';
        if (!lines++) header_tabs = tabs;
        else same &= tabs == header_tabs;
    }
    fclose(f);
    CHECK(lines == r->count + 1 && same && header_tabs > 20, "--tsv: %u lines for %u rows, %u columns, all alike: %d",
          lines, r->count, header_tabs + 1, same);
}

TEST(radv_context_without_a_kernel_driver_fails_cleanly)
{
    /* RADV with no kernel driver makes a device but no fence: context creation fails, and
     * its teardown must not crash (vkDeviceWaitIdle called a null function pointer inside
     * RADV, Mesa 22.3, when the teardown waited on a device never submitted to); AUTO
     * then falls back to the CPU backend, as `dmlops info` shows. */
    if (!radv_report()) return;
    dmlops_context *ctx = NULL;
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN, .flags = DMLOPS_CONTEXT_FLAG_QUIET};
    const dmlops_status st = dmlops_context_create(&d, &ctx);
    CHECK(st != DMLOPS_SUCCESS && !ctx, "a Vulkan context on RADV with no GPU: %s", dmlops_status_string(st));
    if (ctx) dmlops_context_destroy(ctx);
    ctx = NULL;
    d.backend = DMLOPS_BACKEND_AUTO;
    REQUIRE_OK(dmlops_context_create(&d, &ctx));
    dmlops_context_info info;
    if (CHECK_OK(dmlops_context_get_info(ctx, &info)))
        CHECK(info.backend == DMLOPS_BACKEND_CPU, "AUTO took backend %d", (int)info.backend);
    dmlops_context_destroy(ctx);
}
