/* The JSON model of `dmlops run` (docs/cli.md): resources (buffers) and the operators that
 * run on them, in order. model_load parses and checks the JSON only; the library judges
 * the descriptors when the operators are created. */
#ifndef DMLOPS_MODEL_H
#define DMLOPS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlops.h"
#include "npy.h"

/* Above DirectML's 8 so that the library, not the parser, reports too many dimensions. */
#define MODEL_MAX_DIMS 16

typedef struct model_tensor {
    bool present; /* false for JSON null: passed to the library as a NULL pointer */
    DML_BUFFER_TENSOR_DESC buf;
    DML_TENSOR_DESC desc;
    uint32_t sizes[MODEL_MAX_DIMS], strides[MODEL_MAX_DIMS];
} model_tensor;

typedef struct model_binding {
    size_t resource;
    uint64_t offset, size;
} model_binding;

typedef struct model_op {
    char where[40]; /* "$.operators[2]" */
    char name[64];  /* "Name", or the operator type */
    DML_OPERATOR_TYPE type;
    uint32_t ninputs, ntensors; /* tensors in binding order: inputs, then the output */
    const char *tensor_names[4]; /* NULL-terminated */
    model_tensor t[3];
    model_binding bind[3];
    uint32_t axis, dim_count;
    uint32_t offsets[MODEL_MAX_DIMS], window_sizes[MODEL_MAX_DIMS];
    int32_t window_strides[MODEL_MAX_DIMS];
    bool null_offsets, null_window_sizes, null_window_strides;
    union {
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
        DML_SLICE1_OPERATOR_DESC slice;
        DML_ONE_HOT_OPERATOR_DESC hot;
    } u;
    DML_OPERATOR_DESC desc; /* points into this struct: model_op is never moved */
} model_op;

typedef struct model_resource {
    char where[40];
    char *name;
    npy_array init; /* initial contents (File or Data); init.data NULL when zero-filled */
    npy_array view; /* type and shape used to print and save; no data */
    bool shaped;    /* view's shape is known (data, Sizes or the writer's tensor) */
    uint64_t size;  /* buffer size in bytes */
    char *output;   /* .npy path to save to, resolved; NULL for none */
    int last_writer; /* operator index that last writes it, -1 for none */
} model_resource;

typedef struct model {
    char *file;
    size_t nres, nops;
    model_resource *res;
    model_op *ops;
} model;

/* Loads path. Input files resolve against the model's directory, output files against
 * output_dir when given, else the current directory. Prints "FILE: $.json.path: message" and returns false on error. */
bool model_load(const char *path, const char *output_dir, model *m);
void model_free(model *m);

#endif
