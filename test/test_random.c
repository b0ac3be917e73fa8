/* Randomized tests of the three operators against the naive reference of reference.h,
 * on every backend (TEST_CTX); cases.h builds, runs and checks each case, and the
 * targeted, partly hand-checked cases are in test_targeted.c.
 *
 * Each random case has its own seed, printed on failure. Environment:
 *   DMT_SEED=0x...       base seed of the random tests (default: fixed per test)
 *   DMT_CASES=N          cases per random test (default 3000 on cpu, 1500 on vulkan)
 *   DMT_CASES_PERCENT=P  P% of each test's default cases, where DMT_CASES is unset (make
 *                        test-asan: the suite stage has run them all natively)
 *   DMT_CASE_SEED=0x...  run only the case with this seed (as printed on failure)
 *   DMT_VERBOSE=1        print coverage counters after each random test
 * e.g. DMT_CASE_SEED=0x1234 DMLOPS_TEST_BACKENDS=cpu ./build/test/test_random random_slice1 */
#include "cases.h"

/* ======================================================================================
 * Random generators
 * ==================================================================================== */

static uint64_t env_u64(const char *name, uint64_t dflt, bool *set)
{
    const char *s = getenv(name);
    if (set) *set = s && *s;
    if (!s || !*s) return dflt;
    return strtoull(s, NULL, 0);
}

static uint32_t pick_rank(dmt_rng *r)
{
    static const uint32_t menu[] = {1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7, 8};
    return menu[dmt_below(r, sizeof menu / sizeof menu[0])];
}

static const uint32_t size_menu[] = {1,  1,  1,  1,  2,  2,  2,  3,  3,  4,  5,  6,   7,   7,   8,   9,   11,
                                     13, 16, 17, 17, 31, 32, 33, 33, 63, 64, 65, 100, 127, 128, 257, 1000, 1023};
enum { SIZE_MENU_N = sizeof size_menu / sizeof size_menu[0] };

/* Multiplies the element budget of generated tensors; the large-tensor suites raise it
 * so that the CPU engine's default split points (hundreds of kilobytes) are crossed. */
static uint64_t budget_scale = 1;

static uint64_t pick_budget(dmt_rng *r)
{
    switch (dmt_below(r, 10)) {
    case 0:
    case 1:
    case 2: return budget_scale * (1 + dmt_below(r, 64));
    case 3:
    case 4:
    case 5:
    case 6: return budget_scale * (64 + dmt_below(r, 448));
    default: return budget_scale * (512 + dmt_below(r, 1500));
    }
}

static uint64_t product(const uint32_t *sizes, uint32_t rank)
{
    uint64_t p = 1;
    for (uint32_t i = 0; i < rank; i++) p *= sizes[i];
    return p;
}

/* Random sizes from the menu (odd sizes favoured), shrunk until the product fits. */
static void gen_sizes(dmt_rng *r, uint32_t rank, uint64_t budget, uint32_t *sizes)
{
    for (uint32_t i = 0; i < rank; i++) sizes[i] = size_menu[dmt_below(r, SIZE_MENU_N)];
    while (product(sizes, rank) > budget) {
        uint32_t j = 0;
        for (uint32_t i = 1; i < rank; i++)
            if (sizes[i] > sizes[j]) j = i;
        uint32_t v = sizes[j];
        for (int tries = 0; tries < 8 && v >= sizes[j]; tries++) v = size_menu[dmt_below(r, SIZE_MENU_N)];
        sizes[j] = v < sizes[j] ? v : sizes[j] / 2;
        if (!sizes[j]) sizes[j] = 1;
    }
    /* Large suites: double random dimensions until the product nears the budget, so
     * that large budgets give large tensors whatever the rank. */
    for (int grow = 0; budget_scale > 1 && grow < 64 && product(sizes, rank) * 2 <= budget; grow++) {
        uint32_t j = dmt_below(r, rank);
        if (sizes[j] <= (1u << 20)) sizes[j] *= 2;
    }
}

static void shuffle(dmt_rng *r, uint32_t *v, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = dmt_below(r, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Nested strides: order[0] is the innermost dimension. With pad, the innermost stride
 * is 1..3 and each outer stride leaves 0..3 spare elements. */
static void nested_strides(dmt_rng *r, uint32_t rank, const uint32_t *sizes, const uint32_t *order, bool pad,
                           uint32_t *strides)
{
    uint64_t s = pad ? 1 + dmt_below(r, 3) : 1;
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = order[k];
        strides[d] = (uint32_t)s;
        s = s * sizes[d] + (pad ? dmt_below(r, 4) : 0);
    }
}

/* Brute force: are the addresses of all elements distinct? (small tensors only) */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool addresses_unique(uint32_t rank, const uint32_t *sizes, const uint32_t *strides)
{
    uint64_t count = product(sizes, rank);
    uint64_t *offs = malloc(count * sizeof *offs);
    uint32_t c[8] = {0};
    if (!offs) return false;
    uint64_t k = 0;
    do {
        uint64_t e = 0;
        for (uint32_t d = 0; d < rank; d++) e += (uint64_t)c[d] * strides[d];
        offs[k++] = e;
    } while (ref_odometer_next(rank, sizes, c));
    qsort(offs, count, sizeof *offs, cmp_u64);
    bool unique = true;
    for (k = 1; k < count && unique; k++) unique = offs[k] != offs[k - 1];
    free(offs);
    return unique;
}

/* Picks a layout. Returns its name; *use_strides false means Strides = NULL. Outputs get
 * only one-to-one layouts; inputs may also broadcast (0 strides) or alias. */
static const char *gen_layout(dmt_rng *r, uint32_t rank, const uint32_t *sizes, bool is_output, uint32_t *strides,
                              bool *use_strides)
{
    uint32_t order[8];
    const char *name;
    for (uint32_t i = 0; i < rank; i++) order[i] = rank - 1 - i; /* row-major: last dim innermost */
    *use_strides = true;
    uint32_t pick = dmt_below(r, 100);
    if (pick < 20) {
        *use_strides = false;
        return "packed-NULL";
    } else if (pick < 30) {
        nested_strides(r, rank, sizes, order, false, strides);
        name = "packed";
    } else if (pick < 52) {
        nested_strides(r, rank, sizes, order, true, strides);
        name = "padded";
    } else if (pick < 80) {
        bool pad = dmt_below(r, 2);
        shuffle(r, order, rank);
        nested_strides(r, rank, sizes, order, pad, strides);
        name = pad ? "permuted-padded" : "permuted";
    } else if (!is_output && pick < 92) {
        bool pad = dmt_below(r, 2);
        if (dmt_below(r, 2)) shuffle(r, order, rank);
        nested_strides(r, rank, sizes, order, pad, strides);
        uint32_t zeroed = 0, big = 0;
        for (uint32_t d = 0; d < rank; d++) {
            if (sizes[d] <= 1) continue;
            big++;
            if (dmt_below(r, 2)) {
                strides[d] = 0;
                zeroed++;
            }
        }
        if (big && !zeroed) { /* at least one broadcast dimension */
            uint32_t k = dmt_below(r, big);
            for (uint32_t d = 0; d < rank; d++)
                if (sizes[d] > 1 && k-- == 0) strides[d] = 0;
        }
        name = "broadcast";
    } else if (!is_output) {
        for (uint32_t d = 0; d < rank; d++) strides[d] = dmt_below(r, 6);
        name = "aliased";
    } else {
        /* Interleaved: random small strides whose addresses happen to be distinct
         * (e.g. sizes {3,2} strides {2,3}); not nested, still one-to-one. */
        name = NULL;
        if (product(sizes, rank) <= 256) {
            for (int tries = 0; tries < 12 && !name; tries++) {
                for (uint32_t d = 0; d < rank; d++) strides[d] = 1 + dmt_below(r, 6);
                if (addresses_unique(rank, sizes, strides)) name = "interleaved";
            }
        }
        if (!name) {
            shuffle(r, order, rank);
            nested_strides(r, rank, sizes, order, true, strides);
            name = "permuted-padded";
        }
    }
    /* The stride of a size-1 dimension is never used: make it odd now and then. */
    if (dmt_below(r, 4) == 0) {
        static const uint32_t odd[] = {0, 5, 65536, 0xFFFFFFFFu};
        for (uint32_t d = 0; d < rank; d++)
            if (sizes[d] == 1 && dmt_below(r, 2)) strides[d] = odd[dmt_below(r, 4)];
    }
    return name;
}

static uint32_t pick_alignment(dmt_rng *r, uint32_t esize)
{
    static const uint32_t menu[] = {1, 2, 4, 8, 16, 32, 64, 256};
    if (dmt_below(r, 4)) return 0;
    uint32_t a;
    do a = menu[dmt_below(r, 8)];
    while (a < esize);
    return a;
}

/* Fills slot s with a random layout, a TotalTensorSizeInBytes at or above the minimum,
 * and sometimes a GuaranteedBaseOffsetAlignment. */
static void gen_tensor(rcase *rc, uint32_t s, dmt_rng *r, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                       const uint32_t *sizes, bool is_output)
{
    uint32_t strides[8] = {0};
    bool use;
    rc->layout[s] = gen_layout(r, rank, sizes, is_output, strides, &use);
    uint64_t min = dmlops_calc_buffer_tensor_size(type, rank, sizes, use ? strides : NULL);
    uint64_t extra = dmt_below(r, 3) == 0 ? 4 * (uint64_t)dmt_below(r, 16) : 0;
    dmt_tensor_init(&rc->t[s], type, rank, sizes, use ? strides : NULL, min + extra);
    rc->t[s].buf.GuaranteedBaseOffsetAlignment = pick_alignment(r, dmlops_data_type_size(type));
    ref_tensor rt = ref_tensor_of(&rc->t[s].buf);
    uint64_t mine = ref_min_bytes(&rt);
    if (min != mine && !rc->generator_error) {
        rc->generator_error = true;
        snprintf(rc->generator_note, sizeof rc->generator_note,
                 "dmlops_calc_buffer_tensor_size(%s) = %" PRIu64 " but the spec's formula gives %" PRIu64, rc->role[s],
                 min, mine);
    }
    if (mine > min) rc->t[s].buf.TotalTensorSizeInBytes = mine + extra; /* stay valid per the spec */
}

/* Random bindings: separate buffers, one shared buffer, or one shared buffer whose input
 * ranges overlap each other (inputs may overlap; the output never overlaps anything). */
static void gen_bindings(rcase *rc, dmt_rng *r)
{
    uint32_t mode = dmt_below(r, 10);
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        uint64_t total = rc->t[s].buf.TotalTensorSizeInBytes;
        rc->bind_size[s] = total + (dmt_below(r, 2) ? 0 : dmt_below(r, 40));
    }
    if (mode < 6) {
        rc->binding_mode = "separate";
        rc->nbuf = rc->ntensors;
        for (uint32_t s = 0; s < rc->ntensors; s++) {
            uint64_t unit = slot_unit(rc, s);
            rc->bind_buf[s] = s;
            rc->bind_off[s] = dmt_below(r, 5) == 0 ? 0 : unit * (1 + dmt_below(r, 4));
            rc->buf_size[s] = rc->bind_off[s] + rc->bind_size[s] + dmt_below(r, 48);
        }
        return;
    }
    bool overlap = mode == 9 && rc->ninputs == 2;
    rc->binding_mode = overlap ? "shared, overlapping inputs" : "shared";
    rc->nbuf = 1;
    uint64_t cursor = dmt_below(r, 3) == 0 ? 0 : dmt_below(r, 64);
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        uint64_t unit = slot_unit(rc, s), off;
        if (overlap && s == 1)
            off = align_up(rc->bind_off[0] + (dmt_below(r, 2) ? 0 : 16), unit);
        else
            off = align_up(cursor + (dmt_below(r, 2) ? 0 : dmt_below(r, 40)), unit);
        rc->bind_buf[s] = 0;
        rc->bind_off[s] = off;
        if (off + rc->bind_size[s] > cursor) cursor = off + rc->bind_size[s];
    }
    rc->buf_size[0] = cursor + dmt_below(r, 48);
}

static void gen_reverse(rcase *rc, dmt_rng *r)
{
    case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
    uint32_t rank = pick_rank(r), sizes[8], lsizes[8];
    gen_sizes(r, rank, pick_budget(r), sizes);
    rc->axis = dmt_below(r, rank);
    DML_TENSOR_DATA_TYPE type = all_types[dmt_below(r, 11)], ltype = index_types[dmt_below(r, 4)];
    memcpy(lsizes, sizes, sizeof lsizes);
    lsizes[rc->axis] = 1;
    gen_tensor(rc, 0, r, type, rank, sizes, false);
    gen_tensor(rc, 1, r, ltype, rank, lsizes, false);
    gen_tensor(rc, 2, r, type, rank, sizes, true);
}

static void gen_slice(rcase *rc, dmt_rng *r)
{
    case_init(rc, DML_OPERATOR_SLICE1);
    uint32_t rank = pick_rank(r), in[8], out[8];
    gen_sizes(r, rank, 3 * pick_budget(r), in);
    for (uint32_t d = 0; d < rank; d++) {
        uint32_t ws = dmt_below(r, 2) ? in[d] : 1 + dmt_below(r, in[d]);
        uint32_t off = dmt_below(r, in[d] - ws + 1);
        int64_t s;
        switch (dmt_below(r, 12)) {
        case 0:
        case 1:
        case 2:
        case 3: s = 1; break;
        case 4: s = 2; break;
        case 5: s = 3; break;
        case 6: s = 1 + dmt_below(r, ws); break;
        case 7: s = ws + dmt_below(r, 3); break;
        case 8: {
            static const int64_t big[] = {1000, 65536, INT32_MAX, -(int64_t)INT32_MAX - 1};
            s = big[dmt_below(r, 4)];
            break;
        }
        default: s = 1 + dmt_below(r, 5); break;
        }
        if (s > 0 && dmt_below(r, 5) < 2) s = -s;
        uint64_t mag = s < 0 ? (uint64_t)(-s) : (uint64_t)s;
        uint64_t maxo = 1 + (uint64_t)(ws - 1) / mag;
        out[d] = (uint32_t)(dmt_below(r, 5) ? maxo : 1 + dmt_below(r, (uint32_t)maxo));
        rc->win_off[d] = off;
        rc->win_size[d] = ws;
        rc->win_stride[d] = (int32_t)s;
    }
    DML_TENSOR_DATA_TYPE type = all_types[dmt_below(r, 11)];
    if (dmt_below(r, 4) == 0) {
        /* Rows: innermost window stride 1 and both innermost dimensions contiguous, the
         * shape a backend may lower to plain byte-run copies. */
        uint32_t last = rank - 1, ws = rc->win_size[last];
        rc->win_stride[last] = 1;
        out[last] = dmt_below(r, 3) ? ws : 1 + dmt_below(r, ws);
        for (uint32_t s = 0; s < 2; s++) {
            const uint32_t *sz = s ? out : in;
            uint32_t strides[8];
            bool null = dmt_below(r, 3) == 0;
            uint64_t st = 1;
            for (uint32_t d = rank; d-- > 0;) {
                strides[d] = (uint32_t)st;
                st = st * sz[d] + (null ? 0 : dmt_below(r, 5));
            }
            uint64_t min = dmlops_calc_buffer_tensor_size(type, rank, sz, null ? NULL : strides);
            dmt_tensor_init(&rc->t[s], type, rank, sz, null ? NULL : strides, min + 4 * (uint64_t)dmt_below(r, 3));
            rc->t[s].buf.GuaranteedBaseOffsetAlignment = pick_alignment(r, dmlops_data_type_size(type));
            rc->layout[s] = null ? "rows packed-NULL" : "rows padded";
        }
        return;
    }
    gen_tensor(rc, 0, r, type, rank, in, false);
    gen_tensor(rc, 1, r, type, rank, out, true);
}

static void gen_one_hot(rcase *rc, dmt_rng *r)
{
    case_init(rc, DML_OPERATOR_ONE_HOT);
    uint32_t rank = pick_rank(r), out[8], isz[8], vsz[8];
    gen_sizes(r, rank, pick_budget(r), out);
    rc->axis = dmt_below(r, rank);
    DML_TENSOR_DATA_TYPE type = all_types[dmt_below(r, 11)], itype = index_types[dmt_below(r, 4)];
    memcpy(isz, out, sizeof isz);
    isz[rc->axis] = 1;
    /* Values: mostly 1s, one or two dimensions of size 2..5. */
    for (uint32_t d = 0; d < rank; d++) vsz[d] = 1;
    uint32_t big = 1 + dmt_below(r, 2);
    for (uint32_t k = 0; k < big; k++) vsz[dmt_below(r, rank)] = 2 + dmt_below(r, dmt_below(r, 4) ? 2 : 4);
    gen_tensor(rc, 0, r, itype, rank, isz, false);
    gen_tensor(rc, 1, r, type, rank, vsz, false);
    gen_tensor(rc, 2, r, type, rank, out, true);
}

/* ======================================================================================
 * Random suites
 * ==================================================================================== */

/* Coverage counters (DMT_VERBOSE=1). */
typedef struct coverage {
    uint32_t types[16], itypes[16], ranks[9], layouts_interleaved, layouts_broadcast, layouts_aliased,
        shared, overlap, reused;
    uint64_t elements, max_elements;
    uint32_t paths[8]; /* dmlops_operator_info.last_path after each case */
} coverage;

static void count_case(coverage *cv, const rcase *rc)
{
    uint32_t os = out_slot(rc);
    cv->types[rc->t[os].buf.DataType & 15]++;
    if (rc->op != DML_OPERATOR_SLICE1) cv->itypes[rc->t[rc->op == DML_OPERATOR_ONE_HOT ? 0 : 1].buf.DataType & 15]++;
    cv->ranks[rc->t[os].buf.DimensionCount]++;
    ref_tensor ot = ref_tensor_of(&rc->t[os].buf);
    cv->elements += ot.count;
    if (ot.count > cv->max_elements) cv->max_elements = ot.count;
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        const char *l = rc->layout[s] ? rc->layout[s] : "";
        cv->layouts_interleaved += !strcmp(l, "interleaved");
        cv->layouts_broadcast += !strcmp(l, "broadcast");
        cv->layouts_aliased += !strcmp(l, "aliased");
    }
    cv->shared += rc->nbuf == 1;
    cv->overlap += rc->binding_mode && strstr(rc->binding_mode, "overlap") != NULL;
}

static void print_coverage(const coverage *cv)
{
    printf("      types:");
    for (int t = 1; t <= 11; t++) printf(" %s=%u", dmlops_data_type_name((DML_TENSOR_DATA_TYPE)t), cv->types[t]);
    printf("\n      index/length types:");
    for (int t = 1; t <= 11; t++)
        if (cv->itypes[t]) printf(" %s=%u", dmlops_data_type_name((DML_TENSOR_DATA_TYPE)t), cv->itypes[t]);
    printf("\n      ranks:");
    for (int k = 1; k <= 8; k++) printf(" %d:%u", k, cv->ranks[k]);
    printf("\n      tensors interleaved=%u broadcast=%u aliased=%u; cases shared-buffer=%u overlapping-inputs=%u "
           "second-execution=%u\n",
           cv->layouts_interleaved, cv->layouts_broadcast, cv->layouts_aliased, cv->shared, cv->overlap, cv->reused);
    printf("      output elements: %" PRIu64 " in all, at most %" PRIu64 " in one case\n", cv->elements, cv->max_elements);
}

static void sb_paths(sbuf *b, const coverage *cv)
{
    bool any = false;
    for (int p = 1; p < 8; p++)
        if (cv->paths[p]) {
            sb_printf(b, "%s%s=%u", any ? " " : "", dmlops_path_name((dmlops_path)p), cv->paths[p]);
            any = true;
        }
}

typedef void (*gen_fn)(rcase *rc, dmt_rng *r);

/* Runs `default_cases` (or $DMT_CASES) random cases from gen on ctx. `label` names the
 * context in messages when it is not the harness's; `rerun` is then the TEST that
 * makes it (NULL: `test`). */
static void random_suite(dmlops_context *ctx, const char *test, const char *label, uint64_t default_seed, gen_fn gen,
                         int default_cases, const char *rerun)
{
    bool one = false, seed_set = false;
    uint64_t base = env_u64("DMT_SEED", default_seed, &seed_set);
    uint64_t only = env_u64("DMT_CASE_SEED", 0, &one);
    int ncases = (int)env_u64("DMT_CASES", (uint64_t)dmt_cases(default_cases), NULL);
    if (one) ncases = 1;
    suite_state st = {.test = test, .label = label, .filter = rerun ? rerun : test};
    coverage cv;
    memset(&cv, 0, sizeof cv);
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    memset(rc, 0, sizeof *rc);
    for (int i = 0; i < ncases; i++) {
        uint64_t seed = one ? only : mix64(base ^ mix64((uint64_t)i + 1));
        dmt_rng r = rng_from_seed(seed);
        gen(rc, &r);
        gen_bindings(rc, &r);
        count_case(&cv, rc);
        dmlops_operator *op = NULL;
        const char *err = create_op(ctx, rc, &op);
        if (err && !strcmp(err, "skip")) {
            st.skipped++;
            continue;
        }
        if (!err) {
            prepare_images(rc, &r, true);
            err = run_and_check(ctx, rc, op);
            /* One in eight: run the same operator again with new bindings and data. */
            if (!err && dmt_below(&r, 8) == 0) {
                cv.reused++;
                gen_bindings(rc, &r);
                prepare_images(rc, &r, true);
                err = run_and_check(ctx, rc, op);
            }
        }
        if (err) report_case(&st, rc, i, seed, true, err);
        dmlops_operator_info oi;
        if (op && dmlops_operator_get_info(op, &oi) == DMLOPS_SUCCESS) cv.paths[oi.last_path & 7]++;
        dmlops_operator_destroy(op);
        case_free_images(rc);
    }
    free(rc);
    sbuf pb = {.n = 0};
    sb_paths(&pb, &cv);
    printf("    %s[%s%s%s]: %d cases (base seed 0x%016" PRIx64 "%s), %d skipped as unsupported, %d failed; paths: %s\n",
           test, dmt_backend_name(), label ? ", " : "", label ? label : "", ncases, base,
           seed_set ? " from DMT_SEED" : "", st.skipped, st.failed_cases, pb.s);
    if (getenv("DMT_VERBOSE")) print_coverage(&cv);
    CHECK(st.failed_cases == 0, "%s: %d of %d random cases failed (base seed 0x%016" PRIx64 ")", test,
          st.failed_cases, ncases, base);
}

/* Cases per random test: plenty on the CPU; fewer on Vulkan, where a slow software
 * device (lavapipe) has to stay well under two minutes for the whole file. */
static int default_cases(void) { return dmt_is_vulkan() ? 1500 : 3000; }

TEST_CTX(random_reverse_subsequences)
{
    random_suite(ctx, "random_reverse_subsequences", NULL, 0x5EED0001ull, gen_reverse, default_cases(), NULL);
}
TEST_CTX(random_slice1) { random_suite(ctx, "random_slice1", NULL, 0x5EED0002ull, gen_slice, default_cases(), NULL); }
TEST_CTX(random_one_hot) { random_suite(ctx, "random_one_hot", NULL, 0x5EED0003ull, gen_one_hot, default_cases(), NULL); }

/* Vulkan only: the same random cases on contexts forced onto each execution path
 * (KERNELS_ONLY, PREFER_COPY), onto the kernels' storage-buffer and texel paths
 * (DMLOPS_VK_TEXEL), onto the other device class's tuning (DMLOPS_VK_TUNING: on
 * lavapipe the GPU's one-chunk runs, 128-wide workgroups and large grids), onto
 * other numbers of invocations sharing a run (DMLOPS_VK_LANES), and onto one workgroup a
 * dispatch under both tunings (DMLOPS_VK_GRID=1), all read when a context
 * is created, so that every kernel configuration is checked on whichever
 * device runs the suite; the validation layer counts messages. */
TEST_CTX(random_vulkan_forced_paths)
{
    if (!dmt_is_vulkan()) return; /* the CPU backend has one path */
    dmlops_context_info here;
    if (!CHECK_OK(dmlops_context_get_info(ctx, &here))) return;
    const bool cpu_device = here.device.type == DMLOPS_DEVICE_TYPE_CPU;
    static const struct {
        uint32_t flags;
        const char *texel;  /* DMLOPS_VK_TEXEL, or NULL for the device's default */
        bool other_tuning;  /* DMLOPS_VK_TUNING: the other device class's */
        const char *lanes;  /* DMLOPS_VK_LANES, or NULL for the device class's */
        const char *grid;   /* DMLOPS_VK_GRID, or NULL for the device class's */
        int cases;
        const char *name;
    } runs[9] = {{DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, NULL, false, NULL, NULL, 200, "KERNELS_ONLY"},
                 {DMLOPS_CONTEXT_FLAG_PREFER_COPY, NULL, false, NULL, NULL, 200, "PREFER_COPY"},
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, "0", false, NULL, NULL, 200, "KERNELS_ONLY, storage buffers"},
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, "1", false, NULL, NULL, 200, "KERNELS_ONLY, texel buffers"},
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, NULL, true, NULL, NULL, 200,
                  "KERNELS_ONLY, the other device class's tuning"},
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, NULL, false, "2", NULL, 200, "KERNELS_ONLY, runs shared by 2 lanes"},
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, NULL, true, "4", NULL, 200,
                  "KERNELS_ONLY, the other device class's tuning, runs shared by 4 lanes"},
                 /* One workgroup a dispatch: each walks every unit, run or tile of its
                  * dispatch in turn (the GPU tiles' shared memory reused tile after tile). */
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, NULL, false, NULL, "1", 50, "KERNELS_ONLY, grid 1"},
                 {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, NULL, true, NULL, "1", 50,
                  "KERNELS_ONLY, the other device class's tuning, grid 1"}};
    for (int f = 0; f < 9; f++) {
        dmlops_context *c = NULL;
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN,
                                 .flags = runs[f].flags | DMLOPS_CONTEXT_FLAG_DEBUG | DMLOPS_CONTEXT_FLAG_QUIET};
        dmt_env texel, tuning, lanes, grid;
        dmt_env_set(&texel, "DMLOPS_VK_TEXEL", runs[f].texel);
        dmt_env_set(&lanes, "DMLOPS_VK_LANES", runs[f].lanes);
        dmt_env_set(&grid, "DMLOPS_VK_GRID", runs[f].grid);
        dmt_env_set(&tuning, "DMLOPS_VK_TUNING", runs[f].other_tuning ? (cpu_device ? "gpu" : "cpu") : NULL);
        dmlops_status st = dmlops_context_create(&d, &c);
        if (st != DMLOPS_SUCCESS) {
            d.flags = runs[f].flags; /* no validation layer here */
            st = dmlops_context_create(&d, &c);
        }
        dmt_env_restore(&grid);
        dmt_env_restore(&lanes);
        dmt_env_restore(&tuning);
        dmt_env_restore(&texel);
        if (!CHECK_OK(st)) continue;
        /* 200 cases a path: the seven paths, three operators each, took 105 s of make test at
         * 300 once the GPU tiles ran on lavapipe; test_gpu_tiles checks those at larger sizes.
         * 50 at grid 1, where each case takes more dispatches (100 took make test past ten
         * minutes on the loaded 2-core host; test_work_bounds and test_gpu_tiles hold grid 1
         * on their own layouts). */
        const uint64_t seed = (uint64_t)f;
        const int n = runs[f].cases;
        random_suite(c, "random_reverse_subsequences", runs[f].name, 0x5EED0101ull + seed, gen_reverse, n, "random_vulkan_forced_paths");
        random_suite(c, "random_slice1", runs[f].name, 0x5EED0201ull + seed, gen_slice, n, "random_vulkan_forced_paths");
        random_suite(c, "random_one_hot", runs[f].name, 0x5EED0301ull + seed, gen_one_hot, n, "random_vulkan_forced_paths");
        dmlops_context_info info;
        if (CHECK_OK(dmlops_context_get_info(c, &info)))
            CHECK(info.debug_message_count == 0, "%s context: the validation layer reported %u messages", runs[f].name,
                  info.debug_message_count);
        dmlops_context_destroy(c);
    }
}

/* CPU only: the same random cases on contexts whose engine runs on one thread, and on
 * four threads with chunks of a few dozen bytes, so that nearly every case is split at
 * arbitrary points of its rows (chunks start at any element, mid-row and mid-sequence)
 * and its chunks run concurrently; then again with every output written by the
 * streaming-store loops (which align their heads and tails themselves). The outputs are strided, broadcast-free, padded and
 * interleaved as the generator makes them, and every unaddressed byte is checked. */
TEST_CTX(random_cpu_threads)
{
    (void)ctx;
    if (dmt_is_vulkan()) return;
    static const dmlops_context_options opts[3] = {
        {.cpu_threads = 1},
        {.cpu_threads = 4, .cpu_chunk_bytes = 48},
        {.cpu_threads = 4, .cpu_chunk_bytes = 48, .cpu_stream_bytes = 1},
    };
    static const char *const names[3] = {"1 thread", "4 threads, 48-byte chunks", "4 threads, streaming stores"};
    for (int k = 0; k < 3; k++) {
        dmlops_context *c = NULL;
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
        if (!CHECK_OK(dmlops_context_create_with_options(&d, &opts[k], &c))) continue;
        dmlops_context_info info;
        if (CHECK_OK(dmlops_context_get_info(c, &info)))
            CHECK(info.cpu_threads == opts[k].cpu_threads, "%s: cpu_threads %u", names[k], info.cpu_threads);
        random_suite(c, "random_reverse_subsequences", names[k], 0x5EED0501ull + (uint64_t)k, gen_reverse, 800, "random_cpu_threads");
        random_suite(c, "random_slice1", names[k], 0x5EED0601ull + (uint64_t)k, gen_slice, 800, "random_cpu_threads");
        random_suite(c, "random_one_hot", names[k], 0x5EED0701ull + (uint64_t)k, gen_one_hot, 800, "random_cpu_threads");
        dmlops_context_destroy(c);
    }
}

/* CPU only: tensors 300 times the usual budget (up to a few megabytes) on a context
 * with the default split size and four threads, so the measured split points are
 * crossed as in production; outputs above 64 KiB take the streaming-store loops, whose
 * unrolled bodies only long runs reach. */
TEST_CTX(random_cpu_threads_large)
{
    (void)ctx;
    if (dmt_is_vulkan()) return;
    dmlops_context_options opts = {.cpu_threads = 4, .cpu_stream_bytes = 64 << 10};
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *c = NULL;
    REQUIRE_OK(dmlops_context_create_with_options(&d, &opts, &c));
    budget_scale = 300;
    random_suite(c, "random_reverse_subsequences", "4 threads, large", 0x5EED0801ull, gen_reverse, 30, "random_cpu_threads_large");
    random_suite(c, "random_slice1", "4 threads, large", 0x5EED0802ull, gen_slice, 60, "random_cpu_threads_large");
    random_suite(c, "random_one_hot", "4 threads, large", 0x5EED0803ull, gen_one_hot, 30, "random_cpu_threads_large");
    budget_scale = 1;
    dmlops_context_destroy(c);
}

/* CPU only: the same random cases on contexts forced onto each instruction set of the
 * CPU engine's vector loops (DMLOPS_CPU_ISA, src/cpu/simd.h), on two threads with chunks
 * of 4 KiB, with plain and with streaming stores: every level this build and CPU offer
 * gives the reference's bytes, and the context's note names the level it runs. A level
 * they do not offer fails the creation with UNSUPPORTED naming the variable; scalar is
 * always offered. test_cpu_simd checks the same loops directly, at every alignment. */
TEST_CTX(random_cpu_isa_levels)
{
    (void)ctx;
    if (dmt_is_vulkan()) return;
    static const char *const levels[7] = {"scalar", "sse2", "ssse3", "avx2", "neon", "vector", "avx9000"};
    int ran = 0;
    for (uint32_t k = 0; k < 7; k++)
        for (int streamed = 0; streamed < 2; streamed++) {
            const dmlops_context_options o = {.cpu_threads = 2, .cpu_chunk_bytes = 4096,
                                              .cpu_stream_bytes = streamed ? 1 : 0};
            const dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
            dmlops_context *c = NULL;
            dmt_env isa;
            dmt_env_set(&isa, "DMLOPS_CPU_ISA", levels[k]);
            const dmlops_status st = dmlops_context_create_with_options(&d, &o, &c);
            dmt_env_restore(&isa);
            if (st == DMLOPS_ERROR_UNSUPPORTED) {
                CHECK(k > 0, "scalar loops refused: %s", dmlops_last_error_message());
                CHECK(strstr(dmlops_last_error_message(), "DMLOPS_CPU_ISA") && strstr(dmlops_last_error_message(), levels[k]),
                      "the refusal names the variable and its value: %s", dmlops_last_error_message());
                printf("    random_cpu_isa_levels[cpu]: %s not offered here\n", levels[k]);
                break;
            }
            if (!CHECK_OK(st)) break;
            CHECK(k < 6, "DMLOPS_CPU_ISA=%s accepted", levels[k]);
            dmlops_context_info info;
            char want[32];
            snprintf(want, sizeof want, "; %s loops", levels[k]);
            if (CHECK_OK(dmlops_context_get_info(c, &info)))
                CHECK(strstr(info.note, want), "the note names the level: %s", info.note);
            char label[64];
            snprintf(label, sizeof label, "%s loops%s", levels[k], streamed ? ", streaming stores" : "");
            const uint64_t seed = 0x5EED0901ull + 2 * k + (uint64_t)streamed;
            random_suite(c, "random_reverse_subsequences", label, seed, gen_reverse, 250, "random_cpu_isa_levels");
            random_suite(c, "random_slice1", label, seed + 0x100, gen_slice, 250, "random_cpu_isa_levels");
            random_suite(c, "random_one_hot", label, seed + 0x200, gen_one_hot, 250, "random_cpu_isa_levels");
            dmlops_context_destroy(c);
            ran++;
        }
    CHECK(ran >= 2, "only %d configurations ran", ran);
}
