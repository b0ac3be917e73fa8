/* Targeted deterministic cases of the three operators, on every backend (TEST_CTX):
 * sub-word outputs with padded strides, 1-D tensors of every type, rank 8, and extreme
 * indices, lengths and window strides. Each is checked byte for byte against reference.h
 * (cases.h), and the hand-checked ones also against values worked out by hand from
 * docs/operators.md, so a mistake shared by the library and the reference shows. */
#include "cases.h"

/* ======================================================================================
 * Targeted deterministic cases
 * ==================================================================================== */

/* Creates, fills (random bytes; `special` as in the random tests), runs and checks a
 * hand-built case. `fill` may then overwrite input elements. Leaves rc->got for the
 * caller's own checks; returns true when the reference check passed. */
typedef void (*fill_fn)(rcase *rc, void *user);

static bool run_fixed(dmlops_context *ctx, suite_state *st, rcase *rc, int case_no, uint64_t seed, fill_fn fill,
                      void *user)
{
    dmt_rng r = rng_from_seed(seed);
    if (!rc->nbuf) simple_bindings(rc, 16 * (1 + (uint64_t)(case_no % 3)));
    dmlops_operator *op = NULL;
    const char *err = create_op(ctx, rc, &op);
    if (err && !strcmp(err, "skip")) {
        st->skipped++;
        return true;
    }
    if (!err) {
        prepare_images(rc, &r, fill == NULL);
        if (fill) fill(rc, user);
        err = run_and_check(ctx, rc, op);
    }
    dmlops_operator_destroy(op);
    if (err) report_case(st, rc, case_no, seed, false, err);
    return err == NULL;
}

static void finish_targeted(const suite_state *st)
{
    CHECK(st->failed_cases == 0, "%s: %d targeted cases failed", st->test, st->failed_cases);
}

/* ---- sub-word outputs with padded strides, hand-checked --------------------------- */

static const uint32_t rev_lengths[4] = {0, 2, 5, 7};
static const uint32_t rev_src[4][5] = {{0, 1, 2, 3, 4}, {1, 0, 2, 3, 4}, {4, 3, 2, 1, 0}, {4, 3, 2, 1, 0}};

static uint64_t pattern(uint32_t r, uint32_t c, uint32_t esize)
{
    uint64_t v = (uint64_t)(r * 16 + c + 1);
    return esize == 1 ? v : v | ((v ^ 0xA5) << 8); /* both bytes of a 16-bit value distinct */
}

static void fill_rev_subword(rcase *rc, void *user)
{
    (void)user;
    uint32_t es = dmlops_data_type_size(rc->t[0].buf.DataType);
    for (uint32_t i = 0; i < 4; i++)
        for (uint32_t j = 0; j < 5; j++) put_elem(rc, 0, (uint32_t[]){i, j}, pattern(i, j, es));
    for (uint32_t i = 0; i < 4; i++) put_elem(rc, 1, (uint32_t[]){i, 0}, rev_lengths[i]);
}

static void fill_slice_subword(rcase *rc, void *user)
{
    (void)user;
    uint32_t es = dmlops_data_type_size(rc->t[0].buf.DataType);
    for (uint32_t i = 0; i < 6; i++)
        for (uint32_t j = 0; j < 7; j++) put_elem(rc, 0, (uint32_t[]){i, j}, pattern(i, j, es));
}

static const int32_t hot_idx[3] = {2, -1, 5};
static const int hot_pos[3] = {2, 4, -1};

static void fill_hot_subword(rcase *rc, void *user)
{
    (void)user;
    for (uint32_t i = 0; i < 3; i++) put_elem(rc, 0, (uint32_t[]){i, 0}, (uint64_t)(int64_t)hot_idx[i]);
    put_elem(rc, 1, (uint32_t[]){0, 0}, 0x3C11);
    put_elem(rc, 1, (uint32_t[]){0, 1}, 0xC322);
}

TEST_CTX(targeted_subword_padded_outputs)
{
    static const DML_TENSOR_DATA_TYPE types[] = {T_F16, T_I8, T_U8, T_I16, T_U16};
    suite_state st = {.test = "targeted_subword_padded_outputs"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t ti = 0; ti < 5; ti++) {
        DML_TENSOR_DATA_TYPE ty = types[ti];
        uint32_t es = dmlops_data_type_size(ty);
        uint64_t mask = es == 1 ? 0xFF : 0xFFFF;
        /* REVERSE {4,5} axis 1; output elements two apart, rows 13 apart. */
        case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
        rc->axis = 1;
        dmt_tensor_init(&rc->t[0], ty, 2, (uint32_t[]){4, 5}, NULL, 0);
        dmt_tensor_init(&rc->t[1], T_U32, 2, (uint32_t[]){4, 1}, NULL, 0);
        dmt_tensor_init(&rc->t[2], ty, 2, (uint32_t[]){4, 5}, (uint32_t[]){13, 2}, 0);
        rc->layout[0] = rc->layout[1] = "packed-NULL";
        rc->layout[2] = "padded {13,2}";
        if (run_fixed(ctx, &st, rc, no, 0xA0 + ti, fill_rev_subword, NULL))
            for (uint32_t i = 0; i < 4; i++)
                for (uint32_t j = 0; j < 5; j++) {
                    uint64_t g = got_elem(rc, 2, (uint32_t[]){i, j}), e = pattern(i, rev_src[i][j], es) & mask;
                    CHECK(g == e, "%s REVERSE out[%u][%u] = 0x%" PRIx64 ", expected 0x%" PRIx64,
                          dmlops_data_type_name(ty), i, j, g, e);
                }
        case_free_images(rc);
        no++;
        /* SLICE1 {6,7} -> {4,3}: offsets {1,0}, window {4,7}, strides {-1,3}; output
         * transposed and padded: strides {2, 9}. */
        case_init(rc, DML_OPERATOR_SLICE1);
        memcpy(rc->win_off, (uint32_t[]){1, 0}, 8);
        memcpy(rc->win_size, (uint32_t[]){4, 7}, 8);
        memcpy(rc->win_stride, (int32_t[]){-1, 3}, 8);
        dmt_tensor_init(&rc->t[0], ty, 2, (uint32_t[]){6, 7}, NULL, 0);
        dmt_tensor_init(&rc->t[1], ty, 2, (uint32_t[]){4, 3}, (uint32_t[]){2, 9}, 0);
        rc->layout[0] = "packed-NULL";
        rc->layout[1] = "transposed padded {2,9}";
        if (run_fixed(ctx, &st, rc, no, 0xB0 + ti, fill_slice_subword, NULL))
            for (uint32_t i = 0; i < 4; i++)
                for (uint32_t j = 0; j < 3; j++) {
                    uint64_t g = got_elem(rc, 1, (uint32_t[]){i, j}), e = pattern(4 - i, 3 * j, es) & mask;
                    CHECK(g == e, "%s SLICE1 out[%u][%u] = 0x%" PRIx64 ", expected 0x%" PRIx64,
                          dmlops_data_type_name(ty), i, j, g, e);
                }
        case_free_images(rc);
        no++;
        /* ONE_HOT {3,5} axis 1, INT32 indices {2,-1,5}; output strides {12, 2}. */
        case_init(rc, DML_OPERATOR_ONE_HOT);
        rc->axis = 1;
        dmt_tensor_init(&rc->t[0], T_I32, 2, (uint32_t[]){3, 1}, NULL, 0);
        dmt_tensor_init(&rc->t[1], ty, 2, (uint32_t[]){1, 2}, NULL, 0);
        dmt_tensor_init(&rc->t[2], ty, 2, (uint32_t[]){3, 5}, (uint32_t[]){12, 2}, 0);
        rc->layout[0] = rc->layout[1] = "packed-NULL";
        rc->layout[2] = "padded {12,2}";
        if (run_fixed(ctx, &st, rc, no, 0xC0 + ti, fill_hot_subword, NULL))
            for (uint32_t i = 0; i < 3; i++)
                for (uint32_t j = 0; j < 5; j++) {
                    uint64_t g = got_elem(rc, 2, (uint32_t[]){i, j});
                    uint64_t e = ((int)j == hot_pos[i] ? 0xC322 : 0x3C11) & mask;
                    CHECK(g == e, "%s ONE_HOT out[%u][%u] = 0x%" PRIx64 ", expected 0x%" PRIx64,
                          dmlops_data_type_name(ty), i, j, g, e);
                }
        case_free_images(rc);
        no++;
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- 1-D tensors, every type, odd sizes ------------------------------------------- */

static void fill_len_1d(rcase *rc, void *user)
{
    put_elem(rc, 1, (uint32_t[]){0}, *(const uint64_t *)user);
}

TEST_CTX(targeted_1d)
{
    static const uint32_t ns[] = {1, 2, 3, 7, 17, 33};
    suite_state st = {.test = "targeted_1d"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t ti = 0; ti < 11; ti++) {
        DML_TENSOR_DATA_TYPE ty = all_types[ti];
        for (uint32_t ni = 0; ni < 6; ni++) {
            uint32_t n = ns[ni], ostride = 1 + (ni + ti) % 3;
            /* REVERSE with lengths 0, 1, n-1, n, n+1, huge. */
            uint64_t lens[6] = {0, 1, n - 1, n, n + 1, UINT64_MAX};
            for (uint32_t li = 0; li < 6; li++) {
                case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
                DML_TENSOR_DATA_TYPE lt = index_types[(li + ni) % 4];
                dmt_tensor_init(&rc->t[0], ty, 1, &n, NULL, 0);
                dmt_tensor_init(&rc->t[1], lt, 1, (uint32_t[]){1}, NULL, 0);
                dmt_tensor_init(&rc->t[2], ty, 1, &n, &ostride, 0);
                rc->layout[0] = rc->layout[1] = "packed-NULL";
                rc->layout[2] = "strided";
                run_fixed(ctx, &st, rc, no, 0x1D00 + (uint64_t)no, fill_len_1d, &lens[li]);
                case_free_images(rc);
                no++;
            }
            /* SLICE1: whole reversed, and every second element from 1. */
            for (uint32_t k = 0; k < 2; k++) {
                case_init(rc, DML_OPERATOR_SLICE1);
                uint32_t on = k == 0 ? n : (n > 1 ? 1 + (n - 2) / 2 : 1);
                rc->win_off[0] = k == 0 || n == 1 ? 0 : 1;
                rc->win_size[0] = k == 0 || n == 1 ? n : n - 1;
                rc->win_stride[0] = k == 0 ? -1 : 2;
                dmt_tensor_init(&rc->t[0], ty, 1, &n, NULL, 0);
                dmt_tensor_init(&rc->t[1], ty, 1, &on, &ostride, 0);
                rc->layout[0] = "packed-NULL";
                rc->layout[1] = "strided";
                run_fixed(ctx, &st, rc, no, 0x1D00 + (uint64_t)no, NULL, NULL);
                case_free_images(rc);
                no++;
            }
            /* ONE_HOT [n] axis 0, each index type, special indices. */
            for (uint32_t k = 0; k < 4; k++) {
                case_init(rc, DML_OPERATOR_ONE_HOT);
                dmt_tensor_init(&rc->t[0], index_types[k], 1, (uint32_t[]){1}, NULL, 0);
                dmt_tensor_init(&rc->t[1], ty, 1, (uint32_t[]){2}, NULL, 0);
                dmt_tensor_init(&rc->t[2], ty, 1, &n, &ostride, 0);
                rc->layout[0] = rc->layout[1] = "packed-NULL";
                rc->layout[2] = "strided";
                run_fixed(ctx, &st, rc, no, 0x1D00 + (uint64_t)no, NULL, NULL);
                case_free_images(rc);
                no++;
            }
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- rank 8, all sizes 2, every axis ---------------------------------------------- */

TEST_CTX(targeted_rank8_all_twos)
{
    suite_state st = {.test = "targeted_rank8_all_twos"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    const uint32_t twos[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    uint32_t rev_padded[8], zeros[8] = {0};
    /* Reversed dimension order (dimension 0 innermost), one spare element per level. */
    for (uint32_t d = 0, s = 1; d < 8; d++, s = s * 2 + 1) rev_padded[d] = s;
    int no = 0;
    for (uint32_t axis = 0; axis < 8; axis++) {
        for (uint32_t lay = 0; lay < 2; lay++) {
            DML_TENSOR_DATA_TYPE ty = all_types[(axis * 2 + lay) % 11];
            const uint32_t *ostr = lay ? rev_padded : NULL;
            uint32_t lsz[8], lstr[8];
            memcpy(lsz, twos, sizeof lsz);
            lsz[axis] = 1;
            /* REVERSE: lengths broadcast (all strides 0) or packed with special values. */
            case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
            rc->axis = axis;
            memcpy(lstr, zeros, sizeof lstr);
            dmt_tensor_init(&rc->t[0], ty, 8, twos, lay ? NULL : rev_padded, 0);
            dmt_tensor_init(&rc->t[1], index_types[axis % 4], 8, lsz, lay ? lstr : NULL, 0);
            dmt_tensor_init(&rc->t[2], ty, 8, twos, ostr, 0);
            rc->layout[0] = lay ? "packed-NULL" : "reversed-padded";
            rc->layout[1] = lay ? "broadcast all-0" : "packed-NULL";
            rc->layout[2] = lay ? "reversed-padded" : "packed-NULL";
            run_fixed(ctx, &st, rc, no, 0x8800 + axis * 2 + lay, NULL, NULL);
            case_free_images(rc);
            no++;
            /* SLICE1: input {3,..} or 2s, reversed windows on alternate dimensions. */
            case_init(rc, DML_OPERATOR_SLICE1);
            uint32_t in8[8];
            for (uint32_t d = 0; d < 8; d++) {
                in8[d] = d == axis ? 3 : 2;
                rc->win_off[d] = d == axis && lay ? 1 : 0;
                rc->win_size[d] = 2;
                rc->win_stride[d] = (d + lay) % 2 ? -1 : 1;
            }
            dmt_tensor_init(&rc->t[0], ty, 8, in8, NULL, 0);
            dmt_tensor_init(&rc->t[1], ty, 8, twos, ostr, 0);
            rc->layout[0] = "packed-NULL";
            rc->layout[1] = lay ? "reversed-padded" : "packed-NULL";
            run_fixed(ctx, &st, rc, no, 0x8900 + axis * 2 + lay, NULL, NULL);
            case_free_images(rc);
            no++;
            /* ONE_HOT along axis. */
            case_init(rc, DML_OPERATOR_ONE_HOT);
            rc->axis = axis;
            uint32_t vsz[8] = {1, 1, 1, 1, 1, 1, 1, 1};
            vsz[7 - axis] = 2;
            dmt_tensor_init(&rc->t[0], index_types[(axis + lay) % 4], 8, lsz, NULL, 0);
            dmt_tensor_init(&rc->t[1], ty, 8, vsz, NULL, 0);
            dmt_tensor_init(&rc->t[2], ty, 8, twos, ostr, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = lay ? "reversed-padded" : "packed-NULL";
            run_fixed(ctx, &st, rc, no, 0x8A00 + axis * 2 + lay, NULL, NULL);
            case_free_images(rc);
            no++;
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- ONE_HOT extreme indices, hand-checked ---------------------------------------- */

typedef struct index_row {
    uint64_t bits;
    int pos; /* expected position for n = 5, -1 = all OffValue */
} index_row;

typedef struct index_table {
    DML_TENSOR_DATA_TYPE type;
    uint32_t count;
    index_row rows[16];
} index_table;

#define NEG(x) ((uint64_t)(-(int64_t)(x)))
static const index_table hot_tables[] = {
    {T_I64, 16, {{0, 0}, {4, 4}, {5, -1}, {NEG(1), 4}, {NEG(5), 0}, {NEG(6), -1}, {1ull << 63, -1},
                 {0x7FFFFFFFFFFFFFFFull, -1}, {1ull << 32, -1}, {(1ull << 32) + 1, -1}, {NEG(1ull << 32), -1},
                 {NEG(1ull << 32) + 1, -1}, {NEG((1ull << 32) - 1), -1}, {0xFFFFFFFFull, -1}, {2, 2}, {NEG(3), 2}}},
    {T_U64, 10, {{0, 0}, {4, 4}, {5, -1}, {UINT64_MAX, -1}, {1ull << 32, -1}, {(1ull << 32) + 2, -1},
                 {1ull << 63, -1}, {(1ull << 63) + 1, -1}, {0xFFFFFFFFull, -1}, {3, 3}}},
    {T_I32, 10, {{0, 0}, {4, 4}, {5, -1}, {0xFFFFFFFFu, 4}, {(uint32_t)-5, 0}, {(uint32_t)-6, -1},
                 {0x80000000u, -1}, {0x7FFFFFFFu, -1}, {(uint32_t)-3, 2}, {1, 1}}},
    {T_U32, 8, {{0, 0}, {4, 4}, {5, -1}, {0xFFFFFFFFu, -1}, {0x80000000u, -1}, {0x80000002u, -1}, {0xFFFFFFFBu, -1},
                {1, 1}}},
};

static void fill_hot_table(rcase *rc, void *user)
{
    const index_table *tb = user;
    for (uint32_t i = 0; i < tb->count; i++) {
        uint32_t c[2] = {rc->axis == 1 ? i : 0, rc->axis == 1 ? 0 : i};
        put_elem(rc, 0, c, tb->rows[i].bits);
    }
    put_elem(rc, 1, (uint32_t[]){0, 0}, 0xAAAAAAAAu);
    put_elem(rc, 1, (uint32_t[]){0, 1}, 0x55555555u);
}

TEST_CTX(targeted_one_hot_extreme_indices)
{
    suite_state st = {.test = "targeted_one_hot_extreme_indices"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t t = 0; t < 4; t++) {
        const index_table *tb = &hot_tables[t];
        for (uint32_t axis = 0; axis < 2; axis++) {
            /* axis 1: out [m, 5], indices [m, 1]; axis 0: out [5, m], indices [1, m]. */
            uint32_t m = tb->count, osz[2] = {axis ? m : 5, axis ? 5 : m}, isz[2] = {axis ? m : 1, axis ? 1 : m};
            case_init(rc, DML_OPERATOR_ONE_HOT);
            rc->axis = axis;
            dmt_tensor_init(&rc->t[0], tb->type, 2, isz, NULL, 0);
            dmt_tensor_init(&rc->t[1], T_U32, 2, (uint32_t[]){1, 2}, NULL, 0);
            dmt_tensor_init(&rc->t[2], T_U32, 2, osz, axis ? NULL : (uint32_t[]){1, 7}, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = axis ? "packed-NULL" : "transposed {1,7}";
            if (run_fixed(ctx, &st, rc, no, 0x0E00 + no, fill_hot_table, (void *)tb))
                for (uint32_t i = 0; i < m; i++)
                    for (uint32_t j = 0; j < 5; j++) {
                        uint32_t c[2] = {axis ? i : j, axis ? j : i};
                        uint64_t g = got_elem(rc, 2, c), e = (int)j == tb->rows[i].pos ? 0x55555555u : 0xAAAAAAAAu;
                        CHECK(g == e, "%s index 0x%" PRIx64 " (axis %u): position %u holds 0x%" PRIx64
                              ", expected 0x%" PRIx64, dmlops_data_type_name(tb->type), tb->rows[i].bits, axis, j, g, e);
                    }
            case_free_images(rc);
            no++;
        }
    }
    /* Where OnValue comes from: Values {1,1,3,1} = [4,2,9] gives On 2 (spec example 3);
     * Values {2,3} packed: On at (0,1); Values {3,1} strides {5,1}: On at element 5;
     * Values {2,1} with stride 0 broadcast: On == Off. */
    static const uint32_t vs[4][4] = {{1, 1, 3, 1}, {1, 1, 2, 3}, {1, 1, 3, 1}, {1, 1, 2, 1}};
    static const uint32_t vstr[4][4] = {{0}, {0}, {9, 9, 5, 1}, {0, 0, 0, 0}};
    static const uint64_t on_elem[4] = {1, 1, 5, 0};
    for (uint32_t v = 0; v < 4; v++) {
        case_init(rc, DML_OPERATOR_ONE_HOT);
        rc->axis = 3;
        dmt_tensor_init(&rc->t[0], T_I32, 4, (uint32_t[]){1, 1, 3, 1}, NULL, 0);
        dmt_tensor_init(&rc->t[1], T_F32, 4, vs[v], v >= 2 ? vstr[v] : NULL, 0);
        dmt_tensor_init(&rc->t[2], T_F32, 4, (uint32_t[]){1, 1, 3, 4}, NULL, 0);
        rc->layout[0] = rc->layout[1] = rc->layout[2] = "fixed";
        dmlops_operator *op = NULL;
        simple_bindings(rc, 32);
        const char *err = create_op(ctx, rc, &op);
        if (!err) {
            dmt_rng r = rng_from_seed(0x0F00 + v);
            prepare_images(rc, &r, false);
            static const int32_t idx[3] = {0, 3, 2};
            for (uint32_t i = 0; i < 3; i++) put_elem(rc, 0, (uint32_t[]){0, 0, i, 0}, (uint32_t)idx[i]);
            ref_tensor vt = ref_tensor_of(&rc->t[1].buf);
            for (uint64_t e = 0; e < vt.count * 10 && e * 4 < rc->t[1].buf.TotalTensorSizeInBytes; e++) {
                float f = e == 0 ? 4.0f : e == on_elem[v] ? 2.0f : 9.0f;
                memcpy(rc->img[1] + rc->bind_off[1] + e * 4, &f, 4);
            }
            err = run_and_check(ctx, rc, op);
            if (!err)
                for (uint32_t i = 0; i < 3; i++)
                    for (uint32_t j = 0; j < 4; j++) {
                        uint32_t bitsv = (uint32_t)got_elem(rc, 2, (uint32_t[]){0, 0, i, j});
                        float g, e = (int32_t)j == idx[i] && on_elem[v] ? 2.0f : 4.0f;
                        memcpy(&g, &bitsv, 4);
                        CHECK(g == e, "values case %u: out[%u][%u] = %g, expected %g", v, i, j, (double)g, (double)e);
                    }
        }
        dmlops_operator_destroy(op);
        if (err && strcmp(err, "skip")) report_case(&st, rc, no, 0, false, err);
        case_free_images(rc);
        no++;
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- REVERSE_SUBSEQUENCES extreme lengths, hand-checked -------------------------- */

typedef struct length_table {
    DML_TENSOR_DATA_TYPE type;
    uint32_t count;
    uint64_t bits[8];
    uint32_t len[8]; /* expected effective length for n = 6 */
} length_table;

static const length_table len_tables[] = {
    {T_U64, 8, {0, 1, 6, 7, (1ull << 32) + 2, UINT64_MAX, 1ull << 63, 3}, {0, 1, 6, 6, 6, 6, 6, 3}},
    {T_I64, 7, {NEG(1), 1ull << 63, NEG(1ull << 32) + 2, (1ull << 32) + 2, 0x7FFFFFFFFFFFFFFFull, 4, 0xFFFFFFFFull},
     {0, 0, 0, 6, 6, 4, 6}},
    {T_I32, 6, {0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 5, 0, 0xFFFFFFFEu}, {0, 0, 6, 5, 0, 0}},
    {T_U32, 6, {0x80000000u, 0xFFFFFFFFu, 2, 0, 6, 7}, {6, 6, 2, 0, 6, 6}},
};

static void fill_len_table(rcase *rc, void *user)
{
    const length_table *tb = user;
    for (uint32_t i = 0; i < tb->count; i++) {
        uint32_t c[2] = {rc->axis == 1 ? i : 0, rc->axis == 1 ? 0 : i};
        put_elem(rc, 1, c, tb->bits[i]);
        for (uint32_t j = 0; j < 6; j++) {
            uint32_t ic[2] = {rc->axis == 1 ? i : j, rc->axis == 1 ? j : i};
            put_elem(rc, 0, ic, 1000 * i + j);
        }
    }
}

TEST_CTX(targeted_reverse_extreme_lengths)
{
    suite_state st = {.test = "targeted_reverse_extreme_lengths"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t t = 0; t < 4; t++) {
        const length_table *tb = &len_tables[t];
        for (uint32_t axis = 0; axis < 2; axis++) {
            uint32_t m = tb->count, isz[2] = {axis ? m : 6, axis ? 6 : m}, lsz[2] = {axis ? m : 1, axis ? 1 : m};
            case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
            rc->axis = axis;
            dmt_tensor_init(&rc->t[0], T_I32, 2, isz, NULL, 0);
            dmt_tensor_init(&rc->t[1], tb->type, 2, lsz, NULL, 0);
            dmt_tensor_init(&rc->t[2], T_I32, 2, isz, axis ? (uint32_t[]){1, 11} : (uint32_t[]){17, 2}, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = axis ? "transposed {1,11}" : "padded {17,2}";
            if (run_fixed(ctx, &st, rc, no, 0x1E00 + no, fill_len_table, (void *)tb))
                for (uint32_t i = 0; i < m; i++)
                    for (uint32_t j = 0; j < 6; j++) {
                        uint32_t c[2] = {axis ? i : j, axis ? j : i}, L = tb->len[i];
                        uint64_t g = got_elem(rc, 2, c), e = 1000 * i + (j < L ? L - 1 - j : j);
                        CHECK(g == e, "%s length 0x%" PRIx64 " (axis %u): element %u = %" PRIu64 ", expected %" PRIu64,
                              dmlops_data_type_name(tb->type), tb->bits[i], axis, j, g, e);
                    }
            case_free_images(rc);
            no++;
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- REVERSE along an outer axis of rank 3 and 4, lengths varying everywhere ------ */

/* Lengths in runs of 5 along the last dimension, different in every other coordinate,
 * from 0 to n + 1: rows over different lengths rows must never share a scan of them
 * (op_reverse.c reuses one only for the same lengths row and columns). */
static void fill_len_varying(rcase *rc, void *user)
{
    (void)user;
    const DML_BUFFER_TENSOR_DESC *d = &rc->t[1].buf;
    const uint64_t n = rc->t[0].sizes[rc->axis];
    const uint32_t last = d->DimensionCount - 1;
    uint32_t c[8] = {0};
    do {
        uint64_t other = 0;
        for (uint32_t k = 0; k < last; k++) other = other * 3 + c[k];
        put_elem(rc, 1, c, (c[last] / 5 + 2 * other) % (n + 2));
    } while (ref_odometer_next(d->DimensionCount, d->Sizes, c));
}

TEST_CTX(targeted_reverse_outer_axis_varying_lengths)
{
    static const struct {
        uint32_t rank, axis, sizes[4];
    } shapes[] = {{3, 0, {3, 4, 37}}, {3, 1, {2, 5, 37}}, {4, 1, {4, 2, 3, 19}}, {4, 0, {5, 3, 1, 23}}};
    suite_state st = {.test = "targeted_reverse_outer_axis_varying_lengths"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (uint32_t ti = 0; ti < 4; ti++) {
            uint32_t lsz[4];
            memcpy(lsz, shapes[i].sizes, sizeof lsz);
            lsz[shapes[i].axis] = 1;
            case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
            rc->axis = shapes[i].axis;
            DML_TENSOR_DATA_TYPE ty = (DML_TENSOR_DATA_TYPE[]){T_U8, T_F16, T_I32, T_U64}[ti];
            dmt_tensor_init(&rc->t[0], ty, shapes[i].rank, shapes[i].sizes, NULL, 0);
            dmt_tensor_init(&rc->t[1], index_types[(i + ti) % 4], shapes[i].rank, lsz, NULL, 0);
            /* Rows padded by 3 elements: the dimensions cannot collapse into [n, m]. */
            uint32_t ostr[4], pitch = 1, rank = shapes[i].rank;
            for (uint32_t d = rank; d-- > 0;) {
                ostr[d] = pitch;
                pitch *= shapes[i].sizes[d] + (d == rank - 1 ? 3 : 0);
            }
            dmt_tensor_init(&rc->t[2], ty, rank, shapes[i].sizes, ostr, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = "rows padded by 3";
            run_fixed(ctx, &st, rc, no, 0x1F00 + (uint64_t)no, fill_len_varying, NULL);
            case_free_images(rc);
            no++;
        }
    free(rc);
    finish_targeted(&st);
}

/* REVERSE along packed rows whose chunk counts give the fast path 1, 2, 4 and 8 lanes a
 * row on CPU devices (lanes share a row only with a run of 32 chunks each), rows starting
 * off 16-byte boundaries, lengths varying per row: the chunks left to the element path
 * must land on the lane's own chunks, whatever the lane count. */
/* Case i of a REVERSE test along axis 1: input and output packed, of `type` and `sizes`,
 * lengths of `lsz` (strides lstr, NULL: packed) of the i-th index type, filled by fill. */
static void run_reverse_case(dmlops_context *ctx, suite_state *st, rcase *rc, uint32_t i, DML_TENSOR_DATA_TYPE type,
                             uint32_t rank, const uint32_t *sizes, const uint32_t *lsz, const uint32_t *lstr,
                             uint64_t seed, fill_fn fill)
{
    case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
    rc->axis = 1;
    dmt_tensor_init(&rc->t[0], type, rank, sizes, NULL, 0);
    dmt_tensor_init(&rc->t[1], index_types[i % 4], rank, lsz, lstr, 0);
    dmt_tensor_init(&rc->t[2], type, rank, sizes, NULL, 0);
    rc->layout[0] = rc->layout[1] = rc->layout[2] = "packed-NULL";
    if (lstr) rc->layout[1] = "strided lengths";
    run_fixed(ctx, st, rc, (int)i, seed, fill, NULL);
    case_free_images(rc);
}

TEST_CTX(targeted_reverse_rows_lane_counts)
{
    static const struct {
        uint32_t rows, cols;
        DML_TENSOR_DATA_TYPE type;
    } shapes[] = {
        {9, 200, T_F32}, {7, 300, T_F32}, {5, 600, T_F32}, {3, 1100, T_F32},
        {6, 1500, T_U8}, {5, 2100, T_F16}, {4, 4100, T_U8}, {3, 700, T_U64},
    };
    suite_state st = {.test = "targeted_reverse_rows_lane_counts"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    for (uint32_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const uint32_t sizes[2] = {shapes[i].rows, shapes[i].cols}, lsz[2] = {shapes[i].rows, 1};
        run_reverse_case(ctx, &st, rc, i, shapes[i].type, 2, sizes, lsz, NULL, 0x1A7E + (uint64_t)i, fill_len_varying);
    }
    free(rc);
    finish_targeted(&st);
}

typedef struct rows_shape {
    DML_OPERATOR_TYPE op;
    uint32_t rows, cols, win, off; /* SLICE1: the window along the rows */
    int32_t step;
    DML_TENSOR_DATA_TYPE type;
    uint32_t axis; /* REVERSE: along the rows (1) or across them (0, a length per column) */
} rows_shape;

/* Lengths [1, C] for REVERSE across rows: spread over 0 .. T + 1, a different one per
 * column, so that every column turns at its own row. */
static void fill_len_per_column(rcase *rc, void *user)
{
    (void)user;
    const uint64_t n = rc->t[0].sizes[0], cols = rc->t[1].sizes[1];
    for (uint32_t j = 0; j < cols; j++) put_elem(rc, 1, (uint32_t[]){0, j}, (n + 2) * (j + 1) / (cols + 1) - j % 2);
}

/* SLICE1 of [rows, cols] taking win columns from off with the step, or REVERSE along the
 * rows (lengths varying per row) or across them (a length per column); checked against
 * the reference on both backends. */
static void run_rows_shapes(dmlops_context *ctx, const char *test, const rows_shape *shapes, uint32_t count,
                            uint64_t seed)
{
    suite_state st = {.test = test};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t in[2] = {shapes[i].rows, shapes[i].cols};
        case_init(rc, shapes[i].op);
        dmt_tensor_init(&rc->t[0], shapes[i].type, 2, in, NULL, 0);
        if (shapes[i].op == DML_OPERATOR_SLICE1) {
            const uint32_t n = shapes[i].win, s = (uint32_t)(shapes[i].step < 0 ? -shapes[i].step : shapes[i].step);
            const uint32_t out[2] = {shapes[i].rows, (n + s - 1) / s};
            rc->win_off[0] = 0;
            rc->win_off[1] = shapes[i].off;
            rc->win_size[0] = shapes[i].rows;
            rc->win_size[1] = n;
            rc->win_stride[0] = 1;
            rc->win_stride[1] = shapes[i].step;
            dmt_tensor_init(&rc->t[1], shapes[i].type, 2, out, NULL, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
        } else {
            const uint32_t ax = shapes[i].axis, lsz[2] = {ax ? shapes[i].rows : 1, ax ? 1 : shapes[i].cols};
            rc->axis = ax;
            dmt_tensor_init(&rc->t[1], index_types[i % 4], 2, lsz, NULL, 0);
            dmt_tensor_init(&rc->t[2], shapes[i].type, 2, in, NULL, 0);
            rc->layout[0] = rc->layout[1] = rc->layout[2] = "packed-NULL";
        }
        fill_fn fill = shapes[i].op == DML_OPERATOR_SLICE1 ? NULL : shapes[i].axis ? fill_len_varying : fill_len_per_column;
        run_fixed(ctx, &st, rc, (int)i, seed + i, fill, NULL);
        case_free_images(rc);
    }
    free(rc);
    finish_targeted(&st);
}

/* SLICE1 and REVERSE into packed rows of under 16 bytes, and FLOAT32/FLOAT64 rows of up
 * to 63 bytes that are not whole chunks: the Vulkan kernels' flat walk (chunks that meet
 * several rows, built element by element), row counts that leave partial chunks at the
 * ends, REVERSE lengths varying per row. */
TEST_CTX(targeted_short_packed_rows)
{
    static const rows_shape shapes[] = {
        {DML_OPERATOR_SLICE1, 3001, 4, 2, 1, 1, T_F32, 0},   /* [N, 4] -> [N, 2] */
        {DML_OPERATOR_SLICE1, 2999, 7, 7, 0, -1, T_U8, 0},   /* 7-byte rows reversed */
        {DML_OPERATOR_SLICE1, 1234, 9, 9, 0, 2, T_F16, 0},   /* every second: 5 of 9 */
        {DML_OPERATOR_SLICE1, 1001, 16, 10, 3, 1, T_F32, 0}, /* 40-byte rows */
        {DML_OPERATOR_SLICE1, 777, 5, 5, 0, -1, T_F64, 0},   /* 40-byte rows reversed */
        {DML_OPERATOR_SLICE1, 4097, 1, 1, 0, 1, T_U8, 0},    /* a byte a row */
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 3003, 3, 0, 0, 0, T_F32, 1},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 2001, 5, 0, 0, 0, T_I32, 1},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 1999, 11, 0, 0, 0, T_U8, 1},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 999, 7, 0, 0, 0, T_F16, 1},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 555, 7, 0, 0, 0, T_U64, 1}, /* 56-byte rows */
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 2003, 3, 0, 0, 0, T_F32, 0}, /* [T, 3] along T */
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 1001, 5, 0, 0, 0, T_U8, 0},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 501, 2, 0, 0, 0, T_I64, 0},
    };
    run_rows_shapes(ctx, "targeted_short_packed_rows", shapes, sizeof shapes / sizeof shapes[0], 0x5B07);
}

/* Lengths [1, C] that differ from each neighbour's, over 0 .. T + 1 (T + 1 clamps to T),
 * as ONNX's [T, B] batch of ragged sequences has them: every column its own source row. */
static void fill_len_scattered(rcase *rc, void *user)
{
    (void)user;
    const uint64_t n = rc->t[0].sizes[0], cols = rc->t[1].sizes[1];
    for (uint32_t j = 0; j < cols; j++) put_elem(rc, 1, (uint32_t[]){0, j}, (j * 7 + j / 5) % (n + 2));
}

/* Lengths [1, C] in runs of 18 columns: a run is skipped 16 lengths at a time once two
 * agree, and the next run starts inside such a block of 16. */
static void fill_len_runs18(rcase *rc, void *user)
{
    (void)user;
    const uint64_t n = rc->t[0].sizes[0], cols = rc->t[1].sizes[1];
    for (uint32_t j = 0; j < cols; j++) put_elem(rc, 1, (uint32_t[]){0, j}, (j / 18 * 5 + 1) % (n + 2));
}

/* REVERSE across the rows of [T, C] with a length per column that changes from column to
 * column, or every 18 columns: 1- and 2-byte types over 1 to 17 rows (the CPU engine's 16 x 16 byte tiles take
 * 1-byte elements up to 16 rows, leaving C % 16 columns to the element loop), column
 * counts that are and are not multiples of 16. Both backends against the reference. */
TEST_CTX(targeted_reverse_scattered_column_lengths)
{
    static const uint32_t rows[] = {1, 2, 7, 15, 16, 17}, cols[] = {16, 4099, 160};
    static const DML_TENSOR_DATA_TYPE types[] = {T_U8, T_I8, T_F16, T_F32, T_F64};
    suite_state st = {.test = "targeted_reverse_scattered_column_lengths"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int i = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (size_t c = 0; c < sizeof cols / sizeof cols[0] * 2; c++, i++) {
            const DML_TENSOR_DATA_TYPE type = types[(r + c / 2) % 5];
            const uint32_t in[2] = {rows[r], cols[c / 2]}, lsz[2] = {1, cols[c / 2]};
            case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
            dmt_tensor_init(&rc->t[0], type, 2, in, NULL, 0);
            rc->axis = 0;
            dmt_tensor_init(&rc->t[1], index_types[i % 4], 2, lsz, NULL, 0);
            dmt_tensor_init(&rc->t[2], type, 2, in, NULL, 0);
            rc->layout[0] = rc->layout[1] = rc->layout[2] = "packed-NULL";
            run_fixed(ctx, &st, rc, i, 0x7A11E5 + (uint64_t)i, c % 2 ? fill_len_runs18 : fill_len_scattered, NULL);
            case_free_images(rc);
        }
    free(rc);
    finish_targeted(&st);
}

/* SLICE1 with steps other than 1, -1 and 2 over long rows of 1- and 2-byte elements: the
 * Vulkan kernel's per-element chunk (V_WORDS), windows that start mid-row. */
TEST_CTX(targeted_slice_subword_steps)
{
    static const rows_shape shapes[] = {
        {DML_OPERATOR_SLICE1, 37, 1000, 990, 5, 3, T_U8, 0},   {DML_OPERATOR_SLICE1, 41, 999, 997, 1, -5, T_U8, 0},
        {DML_OPERATOR_SLICE1, 29, 700, 700, 0, 4, T_F16, 0},   {DML_OPERATOR_SLICE1, 33, 801, 780, 20, -3, T_I16, 0},
        {DML_OPERATOR_SLICE1, 9, 5000, 4999, 1, 7, T_I8, 0},   {DML_OPERATOR_SLICE1, 17, 640, 639, 0, -2, T_F16, 0},
    };
    run_rows_shapes(ctx, "targeted_slice_subword_steps", shapes, sizeof shapes / sizeof shapes[0], 0x5E05);
}

/* ---- SLICE1 extreme window strides, hand-checked ---------------------------------- */

typedef struct slice_fixed {
    uint32_t off[2], ws[2];
    int32_t str[2];
    uint32_t out[2];
    uint32_t rows[9], cols[9]; /* expected input coordinates per output coordinate */
} slice_fixed;

static const slice_fixed slice_cases[] = {
    {{0, 0}, {5, 9}, {INT32_MIN, 1}, {1, 9}, {4}, {0, 1, 2, 3, 4, 5, 6, 7, 8}}, /* start row 4 */
    {{0, 0}, {5, 9}, {INT32_MAX, -INT32_MAX}, {1, 1}, {0}, {8}},
    {{1, 2}, {4, 7}, {-3, 4}, {2, 2}, {4, 1}, {2, 6}},
    {{2, 3}, {1, 1}, {-1, INT32_MIN}, {1, 1}, {2}, {3}},
    {{0, 1}, {4, 3}, {-2, 2}, {2, 2}, {3, 1}, {1, 3}}, /* the spec's second SLICE1 example, 2-D */
};

static void fill_slice_fixed(rcase *rc, void *user)
{
    (void)user;
    for (uint32_t i = 0; i < 5; i++)
        for (uint32_t j = 0; j < 9; j++) put_elem(rc, 0, (uint32_t[]){i, j}, 100 * i + j);
}

TEST_CTX(targeted_slice_extreme_strides)
{
    suite_state st = {.test = "targeted_slice_extreme_strides"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t k = 0; k < sizeof slice_cases / sizeof slice_cases[0]; k++) {
        const slice_fixed *sc = &slice_cases[k];
        for (uint32_t ti = 0; ti < 2; ti++) {
            DML_TENSOR_DATA_TYPE ty = ti ? T_I64 : T_U16;
            case_init(rc, DML_OPERATOR_SLICE1);
            memcpy(rc->win_off, sc->off, 8);
            memcpy(rc->win_size, sc->ws, 8);
            memcpy(rc->win_stride, sc->str, 8);
            uint32_t ostr[2] = {1, sc->out[0] + 1}; /* transposed, padded */
            dmt_tensor_init(&rc->t[0], ty, 2, (uint32_t[]){5, 9}, NULL, 0);
            dmt_tensor_init(&rc->t[1], ty, 2, sc->out, ostr, 0);
            rc->layout[0] = "packed-NULL";
            rc->layout[1] = "transposed padded";
            if (run_fixed(ctx, &st, rc, no, 0x5100 + no, fill_slice_fixed, NULL))
                for (uint32_t i = 0; i < sc->out[0]; i++)
                    for (uint32_t j = 0; j < sc->out[1]; j++) {
                        uint64_t g = got_elem(rc, 1, (uint32_t[]){i, j}), e = 100 * sc->rows[i] + sc->cols[j];
                        CHECK(g == e, "slice case %u %s: out[%u][%u] = %" PRIu64 ", expected %" PRIu64, k,
                              dmlops_data_type_name(ty), i, j, g, e);
                    }
            case_free_images(rc);
            no++;
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- CPU blocked layouts: shapes past the CPU loops' block and chunk sizes ---------- */

/* Layouts that the CPU engine copies a block at a time, sized to cross several blocks and
 * (above 128 KiB of traffic) several chunks, with random lengths and indices (valid,
 * zero, past the end, negative): REVERSE with a length per column (runs of 2-D blocks of
 * 16 KiB of rows), per (b, f) on a rank-3 slab loop, time-major [T, B, F] with lengths
 * broadcast along F (rows of one time step batched, each with its own length); ONE_HOT
 * across a shallow axis (blocks of columns), a deep one (range fill and scatter) and into
 * a transposed output (walked in output order). */
TEST_CTX(targeted_cpu_blocked_layouts)
{
    static const struct {
        DML_OPERATOR_TYPE op;
        uint32_t rank, axis;
        DML_TENSOR_DATA_TYPE data, aux;
        uint32_t in[3], aux_sizes[3], aux_strides[3], out[3], out_strides[3];
        const char *what;
    } shapes[] = {
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 2, 0, T_F32, T_U32, {40000, 4}, {1, 4}, {0}, {0}, {0}, "length per column"},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 2, 0, T_U8, T_I64, {6000, 3}, {1, 3}, {0}, {0}, {0}, "length per column"},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 3, 1, T_F16, T_I32, {3, 5000, 8}, {3, 1, 8}, {0}, {0}, {0}, "per (b, f)"},
        {DML_OPERATOR_REVERSE_SUBSEQUENCES, 3, 0, T_U8, T_U64, {700, 64, 2}, {1, 64, 2}, {64, 1, 0}, {0}, {0}, "time-major"},
        {DML_OPERATOR_ONE_HOT, 2, 0, T_F32, T_I32, {1, 20000}, {0}, {0}, {10, 20000}, {0}, "shallow axis 0"},
        {DML_OPERATOR_ONE_HOT, 3, 1, T_U8, T_U32, {40, 1, 700}, {0}, {0}, {40, 12, 700}, {0}, "shallow axis 1"},
        {DML_OPERATOR_ONE_HOT, 2, 0, T_F16, T_I64, {1, 3000}, {0}, {0}, {600, 3000}, {0}, "deep axis 0"},
        {DML_OPERATOR_ONE_HOT, 2, 1, T_F32, T_U32, {5000, 1}, {0}, {0}, {5000, 64}, {1, 5000}, "transposed output"},
    };
    suite_state st = {.test = "targeted_cpu_blocked_layouts"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    for (uint32_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const bool rev = shapes[i].op == DML_OPERATOR_REVERSE_SUBSEQUENCES;
        const uint32_t rank = shapes[i].rank;
        case_init(rc, shapes[i].op);
        rc->axis = shapes[i].axis;
        if (rev) {
            dmt_tensor_init(&rc->t[0], shapes[i].data, rank, shapes[i].in, NULL, 0);
            dmt_tensor_init(&rc->t[1], shapes[i].aux, rank, shapes[i].aux_sizes,
                            shapes[i].aux_strides[0] ? shapes[i].aux_strides : NULL, 0);
            dmt_tensor_init(&rc->t[2], shapes[i].data, rank, shapes[i].in, NULL, 0);
        } else {
            const uint32_t values[3] = {1, 1, 2};
            dmt_tensor_init(&rc->t[0], shapes[i].aux, rank, shapes[i].in, NULL, 0);
            dmt_tensor_init(&rc->t[1], shapes[i].data, rank, values + 3 - rank, NULL, 0);
            dmt_tensor_init(&rc->t[2], shapes[i].data, rank, shapes[i].out,
                            shapes[i].out_strides[0] ? shapes[i].out_strides : NULL, 0);
        }
        rc->layout[0] = rc->layout[1] = "packed-NULL";
        rc->layout[2] = shapes[i].what;
        run_fixed(ctx, &st, rc, (int)i, 0xB10C + (uint64_t)i, NULL, NULL);
        case_free_images(rc);
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- ONE_HOT packed rows along the last axis ---------------------------------------- */

typedef struct one_hot_rows_shape {
    uint32_t rank;
    DML_TENSOR_DATA_TYPE data, aux;
    uint32_t rows, depth;
} one_hot_rows_shape;

/* ONE_HOT along the last axis into packed [rows, depth] outputs with random indices
 * (valid, past the end, negative), checked against the reference on both backends. */
static void run_one_hot_rows(dmlops_context *ctx, const char *test, const one_hot_rows_shape *shapes, uint32_t count,
                             uint64_t seed, const char *layout)
{
    suite_state st = {.test = test};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t rank = shapes[i].rank, values[2] = {1, 2};
        uint32_t in[2] = {shapes[i].rows, 1}, out[2] = {shapes[i].rows, shapes[i].depth};
        case_init(rc, DML_OPERATOR_ONE_HOT);
        rc->axis = rank - 1;
        dmt_tensor_init(&rc->t[0], shapes[i].aux, rank, in + 2 - rank, NULL, 0);
        dmt_tensor_init(&rc->t[1], shapes[i].data, rank, values + 2 - rank, NULL, 0);
        dmt_tensor_init(&rc->t[2], shapes[i].data, rank, out + 2 - rank, NULL, 0);
        rc->layout[0] = rc->layout[1] = "packed-NULL";
        rc->layout[2] = layout;
        run_fixed(ctx, &st, rc, (int)i, seed + i, NULL, NULL);
        case_free_images(rc);
    }
    free(rc);
    finish_targeted(&st);
}

/* Rows a multiple of 16 bytes long: the Vulkan kernel's FLAT_ROWS walk on CPU devices
 * (several rows per unit, or a long row cut into segments of uneven length). Rows that
 * start off a 16-byte boundary (a row cut across binding windows) are
 * fast_paths_match_cpu_across_pieces' (test_vulkan.c). */
TEST_CTX(targeted_one_hot_whole_chunk_rows)
{
    static const one_hot_rows_shape shapes[] = {
        {2, T_F32, T_I32, 5000, 16}, /* 4 chunks a row, 8 rows a unit */
        {2, T_F64, T_I64, 777, 16},  /* 8 chunks a row */
        {2, T_F16, T_U32, 3000, 32},
        {2, T_F32, T_U64, 300, 1040}, /* 260 chunks: segments of 17 and 5 */
        {2, T_U8, T_I32, 50, 1024},   /* 64 chunks: two segments */
        {2, T_F16, T_I64, 3, 4096},   /* 512 chunks, few rows: 16 segments */
        {1, T_F32, T_U32, 1, 256},    /* one row */
    };
    run_one_hot_rows(ctx, "targeted_one_hot_whole_chunk_rows", shapes, sizeof shapes / sizeof shapes[0], 0xC4C0,
                     "rows of whole chunks");
}

/* Rows longer than a chunk but not a whole number of chunks: the Vulkan kernel's
 * flat_two_rows, where a chunk holds the end of one row and the start of the next, so
 * both rows' OnValues can fall in one 32-bit word (UINT8 depth 17: byte 16 of row r and
 * byte 0 of row r + 1 share a word whenever the row starts off a word boundary). */
TEST_CTX(targeted_one_hot_rows_across_chunks)
{
    static const one_hot_rows_shape shapes[] = {
        {2, T_U8, T_I32, 6007, 17},
        {2, T_U8, T_U64, 4001, 18},
        {2, T_F16, T_I64, 5003, 9},
        {2, T_F16, T_U32, 3001, 31},
        {2, T_F32, T_I32, 2999, 5},
        {2, T_F64, T_U32, 1001, 3},
    };
    run_one_hot_rows(ctx, "targeted_one_hot_rows_across_chunks", shapes, sizeof shapes / sizeof shapes[0], 0x2C40,
                     "rows across chunks");
}

/* Rows shorter than 16 bytes: the Vulkan kernel's flat_short, where a chunk meets up to
 * 17 rows (UINT8 depth 1); row counts that leave a partial last chunk. */
TEST_CTX(targeted_one_hot_short_rows)
{
    static const one_hot_rows_shape shapes[] = {
        {2, T_F32, T_I32, 5001, 3},  /* 4 elements a chunk: 2-3 rows each */
        {2, T_F32, T_U32, 4099, 1},  /* a row per element */
        {2, T_U8, T_I32, 10007, 1},  /* 16 or 17 rows a chunk */
        {2, T_U8, T_I64, 7777, 5},
        {2, T_U8, T_U32, 3333, 15},  /* one element short of a chunk */
        {2, T_F16, T_U64, 3001, 7},
        {2, T_F16, T_I32, 2048, 3},
        {2, T_F64, T_I64, 999, 1},
        {1, T_U8, T_U32, 1, 9},      /* one row, inside one chunk */
    };
    run_one_hot_rows(ctx, "targeted_one_hot_short_rows", shapes, sizeof shapes / sizeof shapes[0], 0x5407,
                     "rows shorter than a chunk");
}

/* Rows of one to a few 16-byte blocks, reversed, every other or every third element
 * (either way), for every element size: the CPU loops do a row's unaligned head and tail
 * as 16-byte blocks that overlap the aligned ones, the step-2 tail reading one element
 * early and keeping odd lanes; steps of 3 gather blocks from three loads that reach two
 * elements past the block's last source element. Lengths around one and two blocks, window offsets that move the source's
 * alignment, output rows whose starts move through every alignment; input rows wider
 * than the window by more than a line, and 24 of them, so that the source prefetch of
 * short rows with gaps is on. */
TEST_CTX(targeted_row_block_edges)
{
    static const DML_TENSOR_DATA_TYPE types[] = {T_U8, T_F16, T_F32, T_F64};
    static const int32_t steps[] = {2, -1, -2, 1, 3, -3};
    static const uint32_t offs[] = {0, 1, 3};
    enum { NSTEPS = sizeof steps / sizeof steps[0], N = 4 * NSTEPS * 3 * 7 };
    rows_shape *shapes = malloc(N * sizeof *shapes);
    REQUIRE(shapes != NULL);
    uint32_t n = 0;
    for (uint32_t t = 0; t < 4; t++) {
        const uint32_t es = (uint32_t)dmlops_data_type_size(types[t]), k = 16 / es;
        const uint32_t counts[] = {k - 1, k, k + 1, 2 * k - 1, 2 * k + 1, 3 * k + 3, 1};
        for (uint32_t s = 0; s < NSTEPS; s++)
            for (uint32_t o = 0; o < 3; o++)
                for (uint32_t c = 0; c < 7; c++) {
                    const uint32_t step = (uint32_t)(steps[s] < 0 ? -steps[s] : steps[s]);
                    const uint32_t win = (counts[c] - 1) * step + 1;
                    shapes[n++] = (rows_shape){DML_OPERATOR_SLICE1, 24, offs[o] + win + 80 / es, win, offs[o],
                                               steps[s], types[t], 0};
                }
    }
    run_rows_shapes(ctx, "targeted_row_block_edges", shapes, n, 0xB10C);
    free(shapes);
}

/* Every length 0 .. m + 1 (m + 1 clamps to m) in turn down the rows. */
static void fill_len_every(rcase *rc, void *user)
{
    (void)user;
    const uint32_t rows = rc->t[1].sizes[0], m = rc->t[0].sizes[1];
    for (uint32_t r = 0; r < rows; r++) put_elem(rc, 1, (uint32_t[]){r, 0}, r % (m + 2));
}

/* REVERSE along contiguous rows of at most 16 elements, every length: the CPU's short
 * rows reverse each prefix as 16-byte blocks (the first overlapping the second when the
 * prefix is not whole blocks) and copy the rest, or element by element under a block. */
TEST_CTX(targeted_reverse_short_row_prefixes)
{
    static const struct {
        uint32_t cols;
        DML_TENSOR_DATA_TYPE type;
    } shapes[] = {
        {16, T_U8}, {15, T_U8}, {8, T_U8}, {8, T_F16}, {13, T_F16}, {16, T_F16}, {4, T_F32},
        {7, T_F32}, {16, T_F32}, {2, T_F64}, {3, T_U64}, {9, T_F64}, {1, T_F32},
    };
    suite_state st = {.test = "targeted_reverse_short_row_prefixes"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    for (uint32_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const uint32_t sizes[2] = {301, shapes[i].cols}, lsz[2] = {301, 1};
        run_reverse_case(ctx, &st, rc, i, shapes[i].type, 2, sizes, lsz, NULL, 0x5E0F + (uint64_t)i, fill_len_every);
    }
    free(rc);
    finish_targeted(&st);
}

/* Lengths [B, 1, F] broadcast along F (strides 1, 1, 0): b's length is 11 b modulo T + 2,
 * so sequences are empty, partial, whole and clamped. */
static void fill_len_per_sequence(rcase *rc, void *user)
{
    (void)user;
    const uint32_t b = rc->t[1].sizes[0], t = rc->t[0].sizes[1];
    for (uint32_t i = 0; i < b; i++) put_elem(rc, 1, (uint32_t[]){i, 0, 0}, (11 * i) % (t + 2));
}

/* REVERSE of [B, T, F] along T with one length per sequence, rows longer than 64 bytes:
 * the CPU walks one sequence's rows as a batch of row copies whatever their length. */
TEST_CTX(targeted_reverse_long_rows_per_sequence)
{
    static const struct {
        uint32_t f;
        DML_TENSOR_DATA_TYPE type;
    } shapes[] = {{65, T_U8}, {17, T_F32}, {100, T_F16}, {9, T_F64}, {300, T_U8}, {224, T_U8}};
    suite_state st = {.test = "targeted_reverse_long_rows_per_sequence"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    for (uint32_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const uint32_t sizes[3] = {7, 37, shapes[i].f}, lsz[3] = {7, 1, shapes[i].f}, lstr[3] = {1, 1, 0};
        run_reverse_case(ctx, &st, rc, i, shapes[i].type, 3, sizes, lsz, lstr, 0x5E9 + (uint64_t)i,
                         fill_len_per_sequence);
    }
    free(rc);
    finish_targeted(&st);
}
