/* What the two model parsers (model.c for ours, dxdispatch.c for DxDispatch's) share:
 * error reports that name the file and the JSON path, typed getters over the strict JSON
 * reader, DirectML enums, tensor descs, the fields of our three operator descs, and files. */
#ifndef DMLOPS_MODEL_PARSE_H
#define DMLOPS_MODEL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "model.h"

#define PATH_LEN MODEL_WHERE

typedef struct mctx {
    const char *file;       /* the model, for messages */
    bool dxdispatch;        /* DxDispatch's rules where the formats differ (noted where they do) */
    const char *dir;        /* its directory, for relative input paths */
    const char *output_dir; /* for relative output paths; NULL: the current directory */
    bool any_output_path;   /* --allow-any-output-path: outputs may leave output_dir */
    bool *oom;              /* set (when not NULL) by a report of running out of memory */
    /* Memory (docs/cli.md, "Limits"): what holding the model takes, its parsed JSON and
     * tables, is bounded by its text (model_budget); what its initial values take, by the
     * host memory, counted in *data as files and Data are read. */
    uint64_t budget, json_memory;
    uint64_t *data, data_limit;
} mctx;

/* Prints "FILE: PATH: message" on one line. A message that says "out of memory" sets
 * *j->oom: the tool then exits 1 (a run-time failure), not 2 (a model to fix). */
void mreport(const mctx *j, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports and yields false; a macro so that static analysers see the false. */
#define mfail(...) (mreport(__VA_ARGS__), false)
/* snprintf: a JSON path that does not fit is merely cut short. */
void mpath(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* PATH.key, or PATH["key"] when key is not a plain identifier. */
void mpath_key(char *buf, size_t len, const char *path, const char *key);

/* Refuses members not in the NULL-terminated allowed list, naming the expected ones. */
bool m_check_keys(const mctx *j, const json_value *obj, const char *path, const char *const *allowed);
bool m_get_uint(const mctx *j, const json_value *v, const char *path, uint64_t max, uint64_t *out);
bool m_get_u32(const mctx *j, const json_value *v, const char *path, uint32_t *out);
/* An operator's Axis: a negative one gets a message saying what DirectML's Axis is. */
bool m_get_axis(const mctx *j, const json_value *v, const char *path, uint32_t *out);
/* Up to MODEL_MAX_DIMS integers in [lo, hi]; JSON null gives *is_null when is_null is not NULL. */
bool m_get_int_array(const mctx *j, const json_value *v, const char *path, int64_t lo, int64_t hi, int64_t *out,
                     uint32_t *count, bool *is_null);
bool m_get_u32_array(const mctx *j, const json_value *v, const char *path, uint32_t *out, uint32_t *count,
                     bool *is_null);
/* Enum values by name, with or without the prefix, or as a raw number (so that a model can
 * hand the library a value it must refuse). */
bool m_get_enum(const mctx *j, const json_value *v, const char *path, const char *prefix, const char *const *names,
                const int *values, int *out);
bool m_get_data_type(const mctx *j, const json_value *v, const char *path, DML_TENSOR_DATA_TYPE *out);
bool m_get_string(const mctx *j, const json_value *v, const char *path, const char **out);
/* A name that refers to an object key: any string, the empty one included. */
bool m_get_name(const mctx *j, const json_value *v, const char *path, const char **out);
bool m_get_bool(const mctx *j, const json_value *v, const char *path, bool *out);

/* One value of `type` into dst: integers must be whole and in range, floats are rounded
 * (FLOAT16 to nearest even), strings such as "nan", "inf" or "-5" are read as text. In a
 * DxDispatch model integers written as integers are exact at any size, and a value
 * converts as a C cast would (1.5 -> 1, -1 -> 255 for UINT8); in ours a number beyond
 * 2^53 must come as a string. */
bool m_get_scalar(const mctx *j, const json_value *v, const char *path, DML_TENSOR_DATA_TYPE type, void *dst);
/* The same for element `index` of the array at `parent` (index < 0: parent itself). */
bool m_get_element(const mctx *j, const json_value *v, const char *parent, long long index, DML_TENSOR_DATA_TYPE type,
                   void *dst);

/* A DML_TENSOR_DESC in the short form (the buffer desc's fields, with an optional "Type")
 * or the long one ({"Type": ..., "Desc": {...}}), with DxDispatch's defaults (in a
 * DxDispatch model a TotalTensorSizeInBytes of 0 also means the default). NULL v: missing;
 * JSON null: a NULL tensor. */
bool m_parse_tensor(const mctx *j, const json_value *v, const char *path, model_tensor *t);

/* Our three operators. */
bool m_operator_type(const char *name, DML_OPERATOR_TYPE *out);
/* Sets the tensor field names and counts of op->type. */
void m_op_setup(model_op *op);
/* The desc's fields of op->type from obj (unknown members are the caller's business):
 * the tensors, Axis, or SLICE1's DimensionCount and window arrays. */
bool m_parse_op_fields(const mctx *j, const json_value *obj, const char *path, model_op *op);
/* Points the DML descs into the op, once it has its final address. */
void m_wire_operator(model_op *op);

/* The names of n resources (ops: operators) sorted (malloc'd; NULL when out of memory
 * or n is 0), the index of name in them or -1, and the later of the first two entries
 * sharing a name (by position in the model) or SIZE_MAX. */
m_name *m_names_of_resources(const model *m);
m_name *m_names_of_ops(const model *m);
long m_names_find(const m_name *v, size_t n, const char *name);
size_t m_names_duplicate(const m_name *v, size_t n);

/* dir/p, or p when absolute or dir is empty. malloc'd; NULL when out of memory. */
char *m_join_path(const char *dir, const char *p);
/* The whole file, malloc'd (plus a NUL), at most `most` bytes (0: the host memory; most_is
 * names the bound in messages): a regular file larger is refused before it is read, a
 * stream (a pipe, a device) once it passes them. With json,
 * a NUL byte, which no JSON text holds, is refused as soon as it is read (/dev/zero as a
 * model stops at once). On failure writes why to err and returns NULL. */
char *m_read_file(const char *path, uint64_t most, const char *most_is, bool json, size_t *len, char *err,
                  size_t errlen);
/* The most bytes of a model's JSON: a larger one is refused before it fills memory (a
 * model names its big data in .npy files). */
#define MODEL_JSON_MAX_BYTES (256ull << 20)
/* Holding a model (its parsed JSON and the tool's tables) may take this many bytes per
 * byte of its text, at least MODEL_MEMORY_FLOOR and at most half the host memory: arrays
 * of numbers take about their text, a model's structure (about 17 bytes per byte in the
 * densest real one measured) less than this, a text of empty objects over 27. */
#define MODEL_MEMORY_PER_BYTE 32u
#define MODEL_MEMORY_FLOOR (32ull << 20)
uint64_t m_model_budget(uint64_t text_bytes);
/* Refuses (exit 2) tables of `bytes` that would take the model past its budget. */
bool m_check_tables(const mctx *j, const char *path, uint64_t bytes, const char *what);
/* Counts `bytes` of initial values against the host memory before they are read or
 * made: false after a message when they would pass it. */
bool m_take_data(const mctx *j, const char *path, uint64_t bytes, const char *what);
/* The .npy file at path, any kind of file (npy_read_stream), counted by m_take_data. */
bool m_read_npy(const mctx *j, const char *path, const char *source, npy_array *out);
/* An output path of the model (Output, writeFile's targetPath) into *out, joined to the
 * output directory: refused (exit 2) when absolute or holding a ".." component unless
 * any_output_path, and when a name in it is longer than the file system takes. */
bool m_output_path(const mctx *j, const char *path, const char *given, char **out);
/* "INT32 [2, 3]". */
void m_shape_text(const npy_array *a, char *buf, size_t len);
/* Sets a->count from the shape (0 when any dimension is 0); false when the nonzero
 * dimensions multiply past 2^60 elements, a shape no .npy reader could load. */
bool m_shape_count(npy_array *a);
/* Physical memory of this machine in bytes (UINT64_MAX when unknown). */
uint64_t m_host_memory(void);

/* Our format's Bindings of op (its tensor_names) into cmd->bind: each {"Resource": NAME,
 * "Offset": N, "Size": N}, Size defaulting to the tensor's TotalTensorSizeInBytes (16 for
 * a tensor not present). */
bool m_parse_bindings(const mctx *j, const json_value *v, const char *path, model *m, const model_op *op,
                      model_cmd *cmd);
/* Our format's ONNX node, an operator object with an "ONNX" member (docs/cli.md):
 * translated by dmlops_onnx.h, its bound inputs' types and shapes from their resources. */
bool m_parse_onnx_operator(const mctx *j, const json_value *v, const char *path, model *m, model_op *op,
                           model_cmd *cmd);

/* The parsers of the two formats, given the root object. */
bool m_parse_dmlops(const mctx *j, const json_value *root, model *m);
bool m_parse_dxdispatch(const mctx *j, const json_value *root, model *m);

#endif
