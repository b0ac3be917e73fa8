/* The extensible structures (dmlops.h, "Extensible structures"): dmlops_context_create2 and
 * the rules of a next chain; and the consistency defects of issue 45 that live in the
 * runtime (items 8 and 10): supported data types by feature level, statistics before an
 * execution, and messages that name their function, a data type's name and only the
 * failing condition. */
#include <stdlib.h>

#include "op_descs.h"

#define INVALID DMLOPS_ERROR_INVALID_ARGUMENT

static dmlops_context_create_info cpu_info(void)
{
    return (dmlops_context_create_info){.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
                                        .backend = DMLOPS_BACKEND_CPU};
}

TEST(create2_takes_every_field_of_the_old_structures)
{
    dmlops_context_create_info ci = cpu_info();
    ci.cpu_threads = 3;
    ci.feature_level = DML_FEATURE_LEVEL_4_1;
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create2(&ci, &ctx));
    dmlops_context_info info;
    if (CHECK_OK(dmlops_context_get_info(ctx, &info))) {
        CHECK(info.backend == DMLOPS_BACKEND_CPU);
        CHECK(info.cpu_threads == 3, "cpu_threads %u", info.cpu_threads);
        CHECK(info.feature_level == DML_FEATURE_LEVEL_4_1, "level 0x%x", (unsigned)info.feature_level);
        CHECK(strstr(info.note, "dmlops_context_create_info.backend = DMLOPS_BACKEND_CPU"), "note \"%s\"", info.note);
    }
    dmlops_context_destroy(ctx);
    /* NULL: the defaults, as dmlops_context_create(NULL, ...) (whatever backend AUTO takes).
     * AUTO probes the Vulkan loader: not where the Vulkan backend is not wanted (valgrind's
     * run flags ld.so reading a driver's rpath). */
    if (dmt_backend_wanted("vulkan")) {
        dmlops_context *def = NULL;
        dmlops_status st = dmlops_context_create2(NULL, &def);
        CHECK(st == DMLOPS_SUCCESS || st == DMLOPS_ERROR_NO_DEVICE, "%s", dmlops_status_string(st));
        dmlops_context_destroy(def);
    }
    CHECK_STATUS(dmlops_context_create2(&ci, NULL), INVALID, "dmlops_context_create2: out is NULL");
}

TEST(create2_messages_name_the_call_and_the_structure)
{
    dmlops_context *ctx = NULL;
    dmlops_context_create_info ci = cpu_info();
    ci.flags = 0x100;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID,
                 "dmlops_context_create2: dmlops_context_create_info.flags = 0x100 has unknown bits");
    ci = cpu_info();
    ci.cpu_wait = 9;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID,
                 "dmlops_context_create2: dmlops_context_create_info.cpu_wait = 9");
    ci = cpu_info();
    ci.feature_level = (DML_FEATURE_LEVEL)0x1234;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "dmlops_context_create2: dmlops_context_create_info.feature_level");
    /* The 1.0 entry points name themselves and their own structures. */
    dmlops_context_desc d = {.backend = (dmlops_backend)9};
    CHECK_STATUS(dmlops_context_create(&d, &ctx), INVALID, "dmlops_context_create: dmlops_context_desc.backend = 9");
    d = (dmlops_context_desc){.backend = DMLOPS_BACKEND_CPU, .flags = 0x200};
    CHECK_STATUS(dmlops_context_create_with_options(&d, NULL, &ctx), INVALID,
                 "dmlops_context_create_with_options: dmlops_context_desc.flags = 0x200");
    d.flags = 0;
    dmlops_context_options o = {.cpu_threads = 5000};
    CHECK_STATUS(dmlops_context_create_with_options(&d, &o, &ctx), INVALID, "dmlops_context_options.cpu_threads = 5000");
    CHECK(ctx == NULL);
}

TEST(create2_refuses_a_chain_it_does_not_understand)
{
    dmlops_context *ctx = NULL;
    dmlops_context_create_info ci = cpu_info();
    ci.s_type = DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID,
                 "dmlops_context_create_info has s_type = DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO (4): expected "
                 "DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO");
    ci = cpu_info();
    ci.s_type = (dmlops_structure_type)0;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "s_type = 0, which this version of libdmlops does not know");
    /* A structure of a newer header: refused by its value, never ignored. */
    ci = cpu_info();
    const dmlops_base_structure newer = {(dmlops_structure_type)5000, NULL};
    ci.next = &newer;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "s_type = 5000, which this version of libdmlops does not know");
    /* A structure another call takes. */
    const dmlops_base_structure submit = {DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO, NULL};
    ci.next = &submit;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "which dmlops_context_create2 does not take");
    /* A loop ends. */
    dmlops_base_structure loop[2];
    loop[0] = (dmlops_base_structure){DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO, &loop[1]};
    loop[1] = (dmlops_base_structure){DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO, &loop[0]};
    ci.next = &loop[0];
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, NULL);
    CHECK(ctx == NULL);
}

/* The tuner's options (issue 49) ride the create info's chain: their fields are checked by
 * name, and the context's note says what tuning does. */
TEST(create2_takes_the_tuners_options_from_its_chain)
{
    dmlops_context *ctx = NULL;
    dmlops_context_create_info ci = cpu_info();
    dmlops_tuning_options t = {.s_type = DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS, .mode = (dmlops_tuning_mode)7};
    ci.next = &t;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID,
                 "dmlops_context_create2: dmlops_tuning_options.mode = 7 is not a dmlops_tuning_mode");
    CHECK(ctx == NULL);
    t.mode = DMLOPS_TUNING_MODE_AUTO;
    t.budget_seconds = -1;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "dmlops_tuning_options.budget_seconds = -1 is not in [0, 1e6]");
    CHECK(ctx == NULL);
    t.budget_seconds = 0;
    REQUIRE_OK(dmlops_context_create2(&ci, &ctx));
    dmlops_context_info info;
    REQUIRE_OK(dmlops_context_get_info(ctx, &info));
    CHECK(strstr(info.note, "tuning: none on the CPU backend (no knobs)") != NULL, "note: %s", info.note);
    dmlops_context_destroy(ctx);
}

/* ---- issue 45, item 8: the data types a context reports follow its feature level ---- */

/* Whether some operator takes `type` (as its data, or as its index or lengths) at `level`:
 * asked of dmlops_validate_operator, with shapes of rank 4, which every level takes. */
static bool some_operator_takes(DML_TENSOR_DATA_TYPE type, DML_FEATURE_LEVEL level)
{
    static const uint32_t sizes[4] = {1, 1, 2, 4}, win[4] = {1, 1, 2, 4}, off[4] = {0, 0, 0, 0}, hot[4] = {1, 1, 2, 3};
    dmt_slice s;
    dmt_slice_init(&s, type, 4, sizes, off, win);
    if (dmlops_validate_operator(&s.desc, level) == DMLOPS_SUCCESS) return true;
    dmt_reverse r;
    dmt_reverse_init(&r, type, 4, sizes, 3, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    if (dmlops_validate_operator(&r.desc, level) == DMLOPS_SUCCESS) return true;
    dmt_reverse_init(&r, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, 3, type, NULL);
    if (dmlops_validate_operator(&r.desc, level) == DMLOPS_SUCCESS) return true;
    /* ONE_HOT: indices [1, 1, 2, 1] of `type` with FLOAT32 values, and the other way round. */
    for (int as_index = 0; as_index < 2; as_index++) {
        dmt_tensor idx, vals, out;
        const uint32_t isz[4] = {1, 1, 2, 1}, vsz[4] = {1, 1, 1, 2};
        dmt_tensor_init(&idx, as_index ? type : DML_TENSOR_DATA_TYPE_UINT32, 4, isz, NULL, 0);
        dmt_tensor_init(&vals, as_index ? DML_TENSOR_DATA_TYPE_FLOAT32 : type, 4, vsz, NULL, 0);
        dmt_tensor_init(&out, as_index ? DML_TENSOR_DATA_TYPE_FLOAT32 : type, 4, hot, NULL, 0);
        DML_ONE_HOT_OPERATOR_DESC oh = {&idx.desc, &vals.desc, &out.desc, 3};
        DML_OPERATOR_DESC od = {DML_OPERATOR_ONE_HOT, &oh};
        if (dmlops_validate_operator(&od, level) == DMLOPS_SUCCESS) return true;
    }
    return false;
}

TEST(supported_data_types_follow_the_feature_level)
{
    static const DML_FEATURE_LEVEL levels[] = {DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1,
                                               DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1,
                                               DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU, .feature_level = levels[l]};
        dmlops_context *ctx = NULL;
        dmlops_context_info info;
        REQUIRE_OK(dmlops_context_create(&d, &ctx));
        REQUIRE_OK(dmlops_context_get_info(ctx, &info));
        dmlops_context_destroy(ctx);
        for (uint32_t t = DML_TENSOR_DATA_TYPE_FLOAT32; t <= DML_TENSOR_DATA_TYPE_INT4; t++) {
            const bool listed = (info.supported_data_types >> t) & 1, taken = some_operator_takes(t, levels[l]);
            CHECK(listed == taken, "level %s: %s is %slisted but %staken by an operator",
                  dmlops_feature_level_name(levels[l]), dmlops_data_type_name(t), listed ? "" : "not ",
                  taken ? "" : "not ");
        }
        if (levels[l] == DML_FEATURE_LEVEL_2_1)
            CHECK(!(info.supported_data_types & (1u << DML_TENSOR_DATA_TYPE_FLOAT64)), "FLOAT64 listed at 2_1");
    }
}

/* ---- issue 45, item 10 ---- */

TEST_CTX(get_stats_before_an_execution_is_refused_like_get_access_stats)
{
    dmlops_command_list *list = NULL;
    dmlops_execution_stats stats;
    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    CHECK_STATUS(dmlops_command_list_get_stats(list, &stats), INVALID,
                 "dmlops_command_list_get_stats: the list has not been executed yet");
    CHECK_OK(dmlops_command_list_execute(list)); /* an empty list runs */
    CHECK_OK(dmlops_command_list_get_stats(list, &stats));
    CHECK(stats.wall_seconds >= 0, "wall_seconds %g", stats.wall_seconds);
    dmlops_command_list_destroy(list);
}

TEST(messages_name_their_function)
{
    CHECK_STATUS(dmlops_validate_operator(NULL, 0), INVALID, "dmlops_validate_operator: desc is NULL");
    DML_OPERATOR_DESC invalid = {DML_OPERATOR_INVALID, NULL};
    CHECK_STATUS(dmlops_validate_operator(&invalid, 0), INVALID, "dmlops_validate_operator: DML_OPERATOR_DESC.Type");
    DML_OPERATOR_DESC other = {(DML_OPERATOR_TYPE)60, NULL};
    CHECK_STATUS(dmlops_validate_operator(&other, 0), DMLOPS_ERROR_UNSUPPORTED, "dmlops_validate_operator: DML_OPERATOR_DESC.Type = 60");
    CHECK_STATUS(dmlops_validate_operator(&invalid, (DML_FEATURE_LEVEL)7), INVALID, "dmlops_validate_operator: level");
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_context_create(&d, &ctx));
    CHECK_STATUS(dmlops_operator_create(ctx, NULL, &op), INVALID, "dmlops_operator_create: desc is NULL");
    dmlops_context_destroy(ctx);
}

TEST(a_data_type_is_named_in_messages)
{
    static const uint32_t sizes[1] = {4}, off[1] = {0};
    dmt_slice s;
    dmt_slice_init(&s, DML_TENSOR_DATA_TYPE_UINT4, 1, sizes, off, sizes);
    CHECK_STATUS(dmlops_validate_operator(&s.desc, 0), INVALID, "InputTensor.DataType = UINT4 (12)");
    dmt_slice_init(&s, (DML_TENSOR_DATA_TYPE)77, 1, sizes, off, sizes);
    CHECK_STATUS(dmlops_validate_operator(&s.desc, 0), INVALID, "InputTensor.DataType = 77 is not a data type these operators accept (nor a DML_TENSOR_DATA_TYPE value)");
}
