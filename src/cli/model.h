/* The models of `dmlops run` (docs/cli.md), in either of two formats: ours (resources and
 * operators, run once in order) and DirectML's DxDispatch (resources, dispatchables and
 * commands). Both load into the same structure: resources (buffers), operators and
 * commands. model_load parses and checks the JSON and everything that can be known without
 * a device; the library judges the descriptors when the operators are created. */
#ifndef DMLOPS_MODEL_H
#define DMLOPS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlops.h"
#include "dmlops_onnx.h"
#include "npy.h"

/* Above DirectML's 8 so that the library, not the parser, reports too many dimensions. */
#define MODEL_MAX_DIMS 16
/* Room for a JSON path such as $.resources["a long name"].initialValues. */
#define MODEL_WHERE 160

typedef enum model_format { MODEL_FORMAT_DMLOPS, MODEL_FORMAT_DXDISPATCH } model_format;

typedef struct model_tensor {
    bool present; /* false for JSON null: passed to the library as a NULL pointer */
    DML_BUFFER_TENSOR_DESC buf;
    DML_TENSOR_DESC desc;
    uint32_t sizes[MODEL_MAX_DIMS], strides[MODEL_MAX_DIMS];
} model_tensor;

typedef struct model_op {
    char where[MODEL_WHERE]; /* "$.operators[2]" or "$.dispatchables.slice" */
    char *name;              /* "Name" or the operator type (ours); the dispatchable's name */
    DML_OPERATOR_TYPE type;
    uint32_t ninputs, ntensors;  /* tensors in binding order: inputs, then the output */
    const char *tensor_names[4]; /* NULL-terminated */
    model_tensor t[3];
    uint32_t axis, dim_count;
    uint32_t offsets[MODEL_MAX_DIMS], window_sizes[MODEL_MAX_DIMS];
    int32_t window_strides[MODEL_MAX_DIMS];
    bool null_offsets, null_window_sizes, null_window_strides;
    union {
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
        DML_SLICE1_OPERATOR_DESC slice;
        DML_ONE_HOT_OPERATOR_DESC hot;
    } u;
    DML_OPERATOR_DESC desc; /* points into this struct: model_op is never moved once wired */
    /* An ONNX node (model_onnx.c), translated by dmlops_onnx.h into the fields above: its
     * output's type and ONNX shape, and whether that has no elements (then there is no
     * operator to create or run, and the tensors are not present). */
    bool onnx, empty;
    DML_TENSOR_DATA_TYPE onnx_type;
    uint32_t onnx_rank;
    int64_t onnx_shape[DMLOPS_ONNX_MAX_RANK];
} model_op;

/* Where a buffer's first bytes come from. The rest of the buffer is zero. */
typedef enum model_init_kind {
    MODEL_INIT_NONE,     /* zero-filled */
    MODEL_INIT_DATA,     /* init.data: from a file or inline values */
    MODEL_INIT_CONSTANT, /* init.count copies of value */
    MODEL_INIT_SEQUENCE, /* value, value + delta, ... (init.count elements) */
} model_init_kind;

typedef struct model_resource {
    char where[MODEL_WHERE];
    char *name;
    model_init_kind init_kind;
    npy_array init;            /* type, shape and count of the initial values; data for MODEL_INIT_DATA */
    uint8_t value[8], delta[8]; /* MODEL_INIT_CONSTANT / SEQUENCE, as init.type */
    char *source;              /* the file the initial values come from; NULL when inline */
    npy_array view;            /* type and shape used to print and save; no data */
    bool shaped;               /* view's shape is known (data, Sizes or the writer's tensor) */
    uint64_t size;             /* buffer size in bytes */
    char *output;              /* ours: the .npy to save to, resolved; NULL for none */
    int last_writer;           /* ours: the operator that last writes it, -1 for none */
} model_resource;

typedef enum model_cmd_kind { MODEL_CMD_DISPATCH, MODEL_CMD_PRINT, MODEL_CMD_WRITE } model_cmd_kind;

typedef struct model_binding {
    size_t resource;
    uint64_t offset, size;
} model_binding;

typedef struct model_cmd {
    model_cmd_kind kind;
    char where[MODEL_WHERE];
    size_t op;               /* DISPATCH */
    model_binding bind[3];   /* DISPATCH, in the operator's binding order */
    size_t resource;         /* PRINT, WRITE */
    bool verbose;            /* PRINT: one element per line with its bits */
    char *path;              /* WRITE: the target, resolved */
    bool npy;                /* WRITE: .npy, else raw bytes */
    uint32_t ndims;          /* WRITE: "dimensions" for the .npy; 0 for one dimension */
    uint64_t dims[NPY_MAX_DIMS];
} model_cmd;

/* A name and where it is, sorted by name for lookups (model_parse.h, m_names_*): a model
 * may hold many thousands of resources, and a linear search per binding made a hostile
 * one quadratic (50,000 resources took 6 s to check for duplicates alone). */
typedef struct m_name {
    const char *name;
    size_t index;
} m_name;

typedef struct model {
    model_format format;
    char *file;
    size_t nres, nops, ncmds;
    model_resource *res;
    model_op *ops;
    model_cmd *cmds;     /* ours: one DISPATCH per operator, in order */
    m_name *res_names;   /* res[i].name sorted, once the resources are parsed */
    m_name *op_names;    /* DxDispatch: ops[i].name sorted */
} model;

typedef struct model_options {
    const char *output_dir; /* relative output paths resolve against it; NULL: the current directory */
    bool any_output_path;   /* outputs may be absolute or go through "..": --allow-any-output-path */
} model_options;

/* Loads path, telling the formats apart by their members. Input files resolve against the
 * model's directory (a DxDispatch model also tries the current directory), output files
 * against o->output_dir (o may be NULL: the defaults). Holding the model takes memory in
 * proportion to its text, and its initial values must fit the host memory (docs/cli.md,
 * "Limits"): beyond either it is refused before the memory is taken. Prints one line,
 * "FILE: $.json.path: message" (or "FILE:LINE:COL: ..." for JSON syntax), and returns
 * false on error, with *oom (when oom is not NULL) telling whether it ran out of memory. */
bool model_load(const char *path, const model_options *o, model *m, bool *oom);
void model_free(model *m);

/* Bytes of r's initial values (0 for MODEL_INIT_NONE). */
uint64_t model_init_bytes(const model_resource *r);

/* Produces a resource's initial values in pieces, for constant and sequence initializers
 * that are never held whole in memory. */
typedef struct model_init_iter {
    const model_resource *r;
    uint64_t next; /* index of the next element */
    uint8_t cur[8];
} model_init_iter;
void model_init_start(model_init_iter *it, const model_resource *r);
/* Writes the next whole elements into dst (at most cap bytes); returns the bytes written,
 * 0 when all are done. */
size_t model_init_next(model_init_iter *it, void *dst, size_t cap);

#endif
