#include "dmlops.h"

const char *dmlops_data_type_name(DML_TENSOR_DATA_TYPE type)
{
    static const char *const names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16",
                                        "UINT8",   "INT32",   "INT16",   "INT8",   "FLOAT64",
                                        "UINT64",  "INT64",   "UINT4",   "INT4"};
    unsigned i = (unsigned)type;
    return i < sizeof names / sizeof names[0] ? names[i] : "?";
}

const char *dmlops_operator_type_name(DML_OPERATOR_TYPE type)
{
    switch (type) {
    case DML_OPERATOR_ONE_HOT: return "ONE_HOT";
    case DML_OPERATOR_REVERSE_SUBSEQUENCES: return "REVERSE_SUBSEQUENCES";
    case DML_OPERATOR_SLICE1: return "SLICE1";
    default: return "?";
    }
}

const char *dmlops_feature_level_name(DML_FEATURE_LEVEL level)
{
    switch (level) {
    case DML_FEATURE_LEVEL_1_0: return "1_0";
    case DML_FEATURE_LEVEL_2_0: return "2_0";
    case DML_FEATURE_LEVEL_2_1: return "2_1";
    case DML_FEATURE_LEVEL_3_0: return "3_0";
    case DML_FEATURE_LEVEL_3_1: return "3_1";
    case DML_FEATURE_LEVEL_4_0: return "4_0";
    case DML_FEATURE_LEVEL_4_1: return "4_1";
    case DML_FEATURE_LEVEL_5_0: return "5_0";
    case DML_FEATURE_LEVEL_5_1: return "5_1";
    case DML_FEATURE_LEVEL_5_2: return "5_2";
    case DML_FEATURE_LEVEL_6_0: return "6_0";
    case DML_FEATURE_LEVEL_6_1: return "6_1";
    case DML_FEATURE_LEVEL_6_2: return "6_2";
    case DML_FEATURE_LEVEL_6_3: return "6_3";
    case DML_FEATURE_LEVEL_6_4: return "6_4";
    }
    return "?";
}

const char *dmlops_path_name(dmlops_path path)
{
    switch (path) {
    case DMLOPS_PATH_NONE: return "none";
    case DMLOPS_PATH_CPU: return "cpu";
    case DMLOPS_PATH_KERNEL: return "kernel";
    case DMLOPS_PATH_COPY_REGIONS: return "copy-regions";
    case DMLOPS_PATH_MIXED: return "mixed";
    }
    return "?";
}
