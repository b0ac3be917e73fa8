/* The dmlops tool's .npy reader and writer (src/cli/npy.c, compiled in here): a round trip
 * of every type, both byte orders, versions 1.0/2.0/3.0, and refusal of what it does not
 * support, including every truncation of a valid file. */
#include <stdlib.h>
#include <unistd.h>

#include "../src/cli/npy.c"
#include "harness.h"

static const DML_TENSOR_DATA_TYPE all_types[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64,
};

/* A .npy image: 10-byte preamble of the given version, header text, then data. */
static size_t make_npy(uint8_t *out, unsigned major, const char *header, const void *data, size_t len)
{
    size_t h = strlen(header), pre = major == 1 ? 10 : 12;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    out[8] = (uint8_t)h;
    out[9] = (uint8_t)(h >> 8);
    if (major > 1) out[10] = out[11] = 0;
    memcpy(out + pre, header, h);
    memcpy(out + pre + h, data, len);
    return pre + h + len;
}

/* The file at path through npy_parse (the tool reads files with model_parse.c's reader,
 * which test_cli.sh covers). */
static bool npy_read_file(const char *path, npy_array *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) return npy_fail(err, errlen, "cannot open");
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return npy_parse(buf, n, out, err, errlen);
}

static void temp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/dmlops_test_npy_%d_%s.npy", (int)getpid(), name);
}

TEST(round_trip_every_type)
{
    char err[256], path[128];
    for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
        DML_TENSOR_DATA_TYPE type = all_types[t];
        uint32_t es = npy_element_size(type);
        npy_array a = {.type = type, .ndim = 3, .shape = {2, 3, 5}, .count = 30};
        uint8_t data[30 * 8];
        for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 37 + t);
        a.data = data;
        temp_path(path, sizeof path, dmlops_data_type_name(type));
        REQUIRE(npy_write_file(path, &a, err, sizeof err), "%s: %s", dmlops_data_type_name(type), err);
        npy_array b;
        REQUIRE(npy_read_file(path, &b, err, sizeof err), "%s: %s", dmlops_data_type_name(type), err);
        CHECK(b.type == type, "%s read back as %s", dmlops_data_type_name(type), dmlops_data_type_name(b.type));
        CHECK(b.ndim == 3 && b.shape[0] == 2 && b.shape[1] == 3 && b.shape[2] == 5 && b.count == 30);
        CHECK(memcmp(b.data, data, 30 * es) == 0, "%s data differs", dmlops_data_type_name(type));
        npy_free(&b);
        /* NumPy pads the preamble to 64 bytes; so do we. */
        FILE *f = fopen(path, "rb");
        REQUIRE(f);
        uint8_t pre[10];
        CHECK(fread(pre, 1, 10, f) == 10);
        fclose(f);
        unsigned preamble = 10u + (pre[8] | pre[9] << 8), rest = preamble & 63;
        CHECK(rest == 0, "preamble of %u bytes", preamble);
        remove(path);
    }
}

TEST(round_trip_scalar_vector_and_empty)
{
    char err[256], path[128];
    temp_path(path, sizeof path, "shapes");
    uint64_t shapes[3][2] = {{0, 0}, {1, 7}, {1, 0}}; /* ndim, extent */
    for (int s = 0; s < 3; s++) {
        int32_t data[7] = {1, -2, 3, -4, 5, -6, 7};
        npy_array a = {.type = DML_TENSOR_DATA_TYPE_INT32, .ndim = (uint32_t)shapes[s][0], .shape = {shapes[s][1]}};
        a.count = a.ndim ? a.shape[0] : 1;
        a.data = data;
        REQUIRE(npy_write_file(path, &a, err, sizeof err), "%s", err);
        npy_array b;
        REQUIRE(npy_read_file(path, &b, err, sizeof err), "%s", err);
        CHECK(b.ndim == a.ndim && b.count == a.count, "shape %d: ndim %u count %llu", s, b.ndim,
              (unsigned long long)b.count);
        CHECK(memcmp(b.data, data, (size_t)a.count * 4) == 0);
        npy_free(&b);
    }
    remove(path);
}

TEST(reads_big_endian_and_native_orders)
{
    static const struct {
        const char *descr;
        DML_TENSOR_DATA_TYPE type;
        uint8_t bytes[8];
        uint8_t little[8];
    } cases[] = {
        {">i4", DML_TENSOR_DATA_TYPE_INT32, {0x01, 0x02, 0x03, 0x04}, {0x04, 0x03, 0x02, 0x01}},
        {">u2", DML_TENSOR_DATA_TYPE_UINT16, {0xAB, 0xCD}, {0xCD, 0xAB}},
        {">f2", DML_TENSOR_DATA_TYPE_FLOAT16, {0x3C, 0x00}, {0x00, 0x3C}},
        {">f4", DML_TENSOR_DATA_TYPE_FLOAT32, {0x3F, 0x80, 0, 0}, {0, 0, 0x80, 0x3F}},
        {">f8", DML_TENSOR_DATA_TYPE_FLOAT64, {1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1}},
        {">i8", DML_TENSOR_DATA_TYPE_INT64, {0x80, 0, 0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0, 0, 0x80}},
        {">u8", DML_TENSOR_DATA_TYPE_UINT64, {1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1}},
        {"<u4", DML_TENSOR_DATA_TYPE_UINT32, {1, 2, 3, 4}, {1, 2, 3, 4}},
        {"=u4", DML_TENSOR_DATA_TYPE_UINT32, {1, 2, 3, 4}, {1, 2, 3, 4}},
        {"|u1", DML_TENSOR_DATA_TYPE_UINT8, {0xFE}, {0xFE}},
        {"|i1", DML_TENSOR_DATA_TYPE_INT8, {0x80}, {0x80}},
        {"|b1", DML_TENSOR_DATA_TYPE_UINT8, {1}, {1}},
        {">i1", DML_TENSOR_DATA_TYPE_INT8, {0x7F}, {0x7F}},
    };
    const uint16_t one = 1;
    REQUIRE(*(const uint8_t *)&one == 1, "these expectations assume a little-endian host");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char header[128], err[256];
        uint8_t file[256];
        snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }\n", cases[c].descr);
        uint32_t es = npy_element_size(cases[c].type);
        size_t n = make_npy(file, 1, header, cases[c].bytes, es);
        npy_array a;
        REQUIRE(npy_parse(file, n, &a, err, sizeof err), "%s: %s", cases[c].descr, err);
        CHECK(a.type == cases[c].type && a.count == 1, "%s", cases[c].descr);
        CHECK(memcmp(a.data, cases[c].little, es) == 0, "%s not converted to little-endian", cases[c].descr);
        npy_free(&a);
    }
}

TEST(big_endian_matrix)
{
    /* 2x3 >i2 holding 1..6, with keys in another order and without the trailing comma. */
    const uint8_t data[] = {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6};
    uint8_t file[256];
    char err[256];
    size_t n = make_npy(file, 1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '>i2'}", data, sizeof data);
    npy_array a;
    REQUIRE(npy_parse(file, n, &a, err, sizeof err), "%s", err);
    CHECK(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3);
    for (int i = 0; i < 6; i++) CHECK(((int16_t *)a.data)[i] == i + 1, "element %d = %d", i, ((int16_t *)a.data)[i]);
    npy_free(&a);
}

TEST(versions_2_and_3)
{
    const float data[2] = {1.5f, -2.0f};
    for (unsigned v = 2; v <= 3; v++) {
        uint8_t file[256];
        char err[256];
        size_t n = make_npy(file, v, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", data, sizeof data);
        npy_array a;
        REQUIRE(npy_parse(file, n, &a, err, sizeof err), "version %u: %s", v, err);
        CHECK(a.count == 2 && ((float *)a.data)[0] == 1.5f && ((float *)a.data)[1] == -2.0f);
        npy_free(&a);
    }
}

TEST(python2_long_suffix)
{
    const uint8_t data[6] = {1, 2, 3, 4, 5, 6};
    uint8_t file[256];
    char err[256];
    size_t n = make_npy(file, 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 3L), }", data, 6);
    npy_array a;
    REQUIRE(npy_parse(file, n, &a, err, sizeof err), "%s", err);
    CHECK(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3);
    npy_free(&a);
}

static void expect_refused(const char *header, const void *data, size_t len, unsigned major, const char *substr)
{
    uint8_t file[512];
    char err[256] = "";
    size_t n = make_npy(file, major, header, data, len);
    npy_array a;
    bool ok = npy_parse(file, n, &a, err, sizeof err);
    CHECK(!ok, "accepted: %s", header);
    if (ok) npy_free(&a);
    else CHECK(strstr(err, substr) != NULL, "message \"%s\" lacks \"%s\"", err, substr);
}

TEST(refusals_have_clear_messages)
{
    const uint8_t d[64] = {0};
    expect_refused("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", d, 16, 1, "fortran_order");
    expect_refused("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", d, 16, 1, "unsupported dtype");
    expect_refused("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", d, 24, 1, "unsupported dtype");
    expect_refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", d, 8, 1, "structured");
    expect_refused("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", d, 8, 1, "byte order");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", d, 12, 1, "needs 16 bytes");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", d, 20, 1, "needs 16 bytes");
    expect_refused("{'descr': '<f4', 'fortran_order': False, }", d, 4, 1, "lacks 'shape'");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", d, 8, 1, "extra");
    expect_refused("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", d, 8, 1, "repeated");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk", d, 8, 1, "trailing");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", d, 8, 1, "integers");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, 99999999999), }", d,
                   8, 1, "overflow");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", d, 8, 4, "version");
    char err[256];
    npy_array a;
    CHECK(!npy_parse("PK\x03\x04 not npy", 15, &a, err, sizeof err) && strstr(err, "magic"));
}

TEST(every_truncation_is_refused)
{
    const uint64_t data[3] = {1, 2, 3};
    uint8_t file[256];
    char err[256];
    size_t n = make_npy(file, 1, "{'descr': '<u8', 'fortran_order': False, 'shape': (3,), }\n", data, sizeof data);
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1); /* exact size, so that ASan sees any over-read */
        REQUIRE(copy);
        memcpy(copy, file, len);
        npy_array a;
        bool ok = npy_parse(copy, len, &a, err, sizeof err);
        CHECK(!ok, "a file cut at %zu of %zu bytes was accepted", len, n);
        if (ok) npy_free(&a);
        free(copy);
    }
    /* Flipping any one header byte never crashes. */
    for (size_t i = 0; i < n - sizeof data; i++) {
        uint8_t copy[256];
        memcpy(copy, file, n);
        copy[i] ^= 0x5a;
        npy_array a;
        if (npy_parse(copy, n, &a, err, sizeof err)) npy_free(&a);
    }
}

TEST(write_refuses_unknown_type)
{
    char err[256], path[128];
    temp_path(path, sizeof path, "bad");
    uint8_t d[4] = {0};
    npy_array a = {.type = DML_TENSOR_DATA_TYPE_UINT4, .ndim = 1, .shape = {4}, .count = 4, .data = d};
    CHECK(!npy_write_file(path, &a, err, sizeof err) && strstr(err, "no .npy equivalent"));
    a.type = DML_TENSOR_DATA_TYPE_UINT8;
    CHECK(!npy_write_file("/nonexistent/dir/x.npy", &a, err, sizeof err) && strstr(err, "cannot create"));
    remove(path);
}

/* Issue 10, defect 3: the "malformed header near" message was formatted with %.20s from a
 * position inside the header, which is not NUL-terminated: a header that ends early printed
 * the bytes after it (heap bytes in a file buffer; an ASan heap-buffer-overflow). The
 * header here is followed by 'Z' bytes that do not belong to it: none may appear. */
TEST(malformed_header_message_stays_inside_the_header)
{
    static const char *const headers[] = {
        "{'descr': '<f4', 'x",                 /* the 19-byte header of the report */
        "{'descr': '<f4' 'fortran_order'",     /* no comma: the message quotes what follows */
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,) x",
    };
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        size_t hl = strlen(headers[h]);
        uint8_t *file = malloc(10 + hl + 32);
        REQUIRE(file);
        make_npy(file, 1, headers[h], "", 0);
        memset(file + 10 + hl, 'Z', 32); /* not part of the file */
        char err[256] = "";
        npy_array a;
        bool ok = npy_parse(file, 10 + hl, &a, err, sizeof err);
        CHECK(!ok, "accepted: %s", headers[h]);
        if (ok) npy_free(&a);
        CHECK(strstr(err, "malformed header") != NULL, "%s: message \"%s\"", headers[h], err);
        CHECK(strchr(err, 'Z') == NULL, "%s: the message quotes bytes past the header: \"%s\"", headers[h], err);
        free(file);
        /* Exactly sized, so that ASan sees any over-read. */
        uint8_t *exact = malloc(10 + hl);
        REQUIRE(exact);
        make_npy(exact, 1, headers[h], "", 0);
        if (npy_parse(exact, 10 + hl, &a, err, sizeof err)) npy_free(&a);
        free(exact);
    }
}

/* npy_read_stream on a stream, as the tool reads every input (issue 45: a .npy that is a
 * pipe or /dev/zero was read until memory ran out): the same arrays and refusals as
 * npy_parse, the data bounded by its header before anything is allocated for it, and
 * nothing read past one byte after the data. */
static FILE *stream_of(const void *bytes, size_t n)
{
    FILE *f = tmpfile();
    if (f && (fwrite(bytes, 1, n, f) != n || fseek(f, 0, SEEK_SET) != 0)) {
        fclose(f);
        f = NULL;
    }
    return f;
}

TEST(stream_reads_what_parse_reads)
{
    const uint32_t data[6] = {1, 2, 3, 4, 5, 0xfffffffe};
    uint8_t file[256];
    char err[256];
    const size_t n = make_npy(file, 2, "{'descr': '>u4', 'fortran_order': False, 'shape': (2, 3), }\n", data, sizeof data);
    FILE *f = stream_of(file, n);
    REQUIRE(f);
    npy_array a, b;
    uint64_t announced = 0;
    REQUIRE(npy_read_stream(f, 0, &announced, &a, err, sizeof err), "%s", err);
    fclose(f);
    REQUIRE(npy_parse(file, n, &b, err, sizeof err), "%s", err);
    CHECK(announced == 24 && a.type == b.type && a.ndim == 2 && a.shape[1] == 3 && a.count == 6 &&
          !memcmp(a.data, b.data, 24), "big-endian data read as npy_parse reads it");
    npy_free(&a);
    npy_free(&b);
    /* Each truncation refused; one byte more refused, saying how many the file holds. */
    for (size_t len = 0; len < n; len++) {
        f = stream_of(file, len);
        REQUIRE(f);
        const bool ok = npy_read_stream(f, 0, NULL, &a, err, sizeof err);
        fclose(f);
        CHECK(!ok, "a stream cut at %zu of %zu bytes was accepted", len, n);
        if (ok) npy_free(&a);
    }
    file[n] = 7;
    f = stream_of(file, n + 1);
    REQUIRE(f);
    CHECK(!npy_read_stream(f, 0, NULL, &a, err, sizeof err) && strstr(err, "needs 24 bytes of data but the file holds 25"),
          "%s", err);
    fclose(f);
}

TEST(stream_bounds_the_data_by_its_header)
{
    uint8_t file[256];
    char err[256];
    /* 2^40 FLOAT64 announced, nothing behind: refused at the header, nothing allocated. */
    size_t n = make_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }\n", "", 0);
    FILE *f = stream_of(file, n);
    REQUIRE(f);
    npy_array a;
    uint64_t announced = 0;
    CHECK(!npy_read_stream(f, 1u << 20, &announced, &a, err, sizeof err) && strstr(err, "more than the 1048576 bytes"),
          "%s", err);
    CHECK(announced == 8ull << 40 && a.data == NULL, "announced %llu", (unsigned long long)announced);
    fclose(f);
    /* A header announcing 4 GiB of header. */
    n = make_npy(file, 2, "{}", "", 0);
    file[11] = 0xff;
    f = stream_of(file, n);
    REQUIRE(f);
    CHECK(!npy_read_stream(f, 0, NULL, &a, err, sizeof err) && strstr(err, "a header of"), "%s", err);
    fclose(f);
    /* An endless device: refused at its first bytes (a timeout in test_cli.sh catches a hang). */
    f = fopen("/dev/zero", "rb");
    if (f) {
        CHECK(!npy_read_stream(f, 0, NULL, &a, err, sizeof err) && strstr(err, "bad magic"), "%s", err);
        CHECK(ftell(f) <= 12, "read %ld bytes of /dev/zero", ftell(f));
        fclose(f);
    }
}
