/* NumPy .npy files: format versions 1.0, 2.0 and 3.0, C order, the library's eleven
 * element types (plus bool, read as UINT8). Reading accepts either byte order and returns
 * little-endian data; writing produces version 1.0 (2.0 for huge headers), little-endian.
 * Depends on nothing but libc and the DML type enum, so tests can compile it alone. */
#ifndef DMLOPS_NPY_H
#define DMLOPS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlops.h"

#define NPY_MAX_DIMS 32 /* NumPy's own limit */

typedef struct npy_array {
    DML_TENSOR_DATA_TYPE type;
    uint32_t ndim; /* 0 for a scalar */
    uint64_t shape[NPY_MAX_DIMS];
    uint64_t count; /* product of shape; 1 for a scalar */
    void *data;     /* count elements, little-endian; malloc'd */
} npy_array;

/* Each returns false and writes a message (without the file name) to err on failure. */
bool npy_parse(const void *bytes, size_t len, npy_array *out, char *err, size_t errlen);
/* The same from a stream, a pipe or a device included: the preamble and header first,
 * then the data its shape announces, refused before anything is allocated for it when it
 * is more than `most` bytes (0: no bound), then the stream's end (read no further than a
 * byte past the data: /dev/zero is refused at its first bytes, which are no .npy magic).
 * *announced (when not NULL) gets the data bytes the header announced, 0 before it. */
bool npy_read_stream(FILE *f, uint64_t most, uint64_t *announced, npy_array *out, char *err, size_t errlen);
/* Writes go to a temporary file beside path that is then renamed over it, so a failed
 * write never leaves a truncated file in place of the previous one. */
bool npy_write_file(const char *path, const npy_array *a, char *err, size_t errlen);
bool npy_write_raw_file(const char *path, const void *data, uint64_t len, char *err, size_t errlen);
void npy_free(npy_array *a);

/* Element size of a DML type, 0 when not one of the eleven. */
uint32_t npy_element_size(DML_TENSOR_DATA_TYPE type);
/* "<f4", "|u1", ...; NULL for a type .npy cannot hold. */
const char *npy_descr(DML_TENSOR_DATA_TYPE type);

#endif
