#include "scalar.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

uint16_t scalar_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0)); /* inf, NaN */
    if (exp >= 31) return (uint16_t)(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10) return sign;
        mant |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = (uint32_t)exp << 10 | mant >> 13, rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry into the exponent: correct */
    return (uint16_t)(sign | h);
}

float scalar_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, x;
    if (exp == 0x1f) x = sign | 0x7f800000 | mant << 13;
    else if (exp) x = sign | (exp + 112) << 23 | mant << 13;
    else if (!mant) x = sign;
    else {
        exp = 113;
        while (!(mant & 0x400)) {
            mant <<= 1;
            exp--;
        }
        x = sign | exp << 23 | (mant & 0x3ff) << 13;
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

bool scalar_is_signed(DML_TENSOR_DATA_TYPE t)
{
    return t == DML_TENSOR_DATA_TYPE_INT8 || t == DML_TENSOR_DATA_TYPE_INT16 || t == DML_TENSOR_DATA_TYPE_INT32 ||
           t == DML_TENSOR_DATA_TYPE_INT64;
}

bool scalar_is_float(DML_TENSOR_DATA_TYPE t)
{
    return t == DML_TENSOR_DATA_TYPE_FLOAT16 || t == DML_TENSOR_DATA_TYPE_FLOAT32 || t == DML_TENSOR_DATA_TYPE_FLOAT64;
}

static void store_int(DML_TENSOR_DATA_TYPE t, uint64_t bits, void *dst)
{
    uint8_t u8 = (uint8_t)bits;
    uint16_t u16 = (uint16_t)bits;
    uint32_t u32 = (uint32_t)bits;
    uint32_t size = dmlops_data_type_size(t);
    memcpy(dst, size == 1 ? (void *)&u8 : size == 2 ? (void *)&u16 : size == 4 ? (void *)&u32 : (void *)&bits, size);
}

uint64_t scalar_int_bits(DML_TENSOR_DATA_TYPE t, const void *src)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;
    switch (t) {
    case DML_TENSOR_DATA_TYPE_UINT8: memcpy(&u8, src, 1); return u8;
    case DML_TENSOR_DATA_TYPE_INT8: memcpy(&u8, src, 1); return (uint64_t)(int64_t)(int8_t)u8;
    case DML_TENSOR_DATA_TYPE_UINT16: memcpy(&u16, src, 2); return u16;
    case DML_TENSOR_DATA_TYPE_INT16: memcpy(&u16, src, 2); return (uint64_t)(int64_t)(int16_t)u16;
    case DML_TENSOR_DATA_TYPE_UINT32: memcpy(&u32, src, 4); return u32;
    case DML_TENSOR_DATA_TYPE_INT32: memcpy(&u32, src, 4); return (uint64_t)(int64_t)(int32_t)u32;
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64: memcpy(&u64, src, 8); return u64;
    default: return 0;
    }
}

void scalar_store_int_bits(DML_TENSOR_DATA_TYPE t, uint64_t bits, void *dst)
{
    store_int(t, bits, dst);
}

static const char *store_float(DML_TENSOR_DATA_TYPE t, double v, void *dst)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT64) memcpy(dst, &v, 8);
    else if (t == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float f = (float)v;
        memcpy(dst, &f, 4);
    } else if (t == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h = scalar_float_to_half((float)v);
        memcpy(dst, &h, 2);
    } else {
        return "is not a supported data type";
    }
    return NULL;
}

/* store_float for our own format, which refuses a finite value that its type would
 * round to an infinity (1e39 as FLOAT32, 70000 as FLOAT16); overflowed is true when the
 * text itself was out of double's range. Infinities written as such pass. */
static const char *store_float_fitting(DML_TENSOR_DATA_TYPE t, double v, bool overflowed, void *dst)
{
    const char *why = store_float(t, v, dst);
    if (why) return why;
    bool inf = overflowed;
    if (t == DML_TENSOR_DATA_TYPE_FLOAT32) inf |= isfinite(v) && isinf((float)v);
    if (t == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h;
        memcpy(&h, dst, 2);
        inf |= isfinite(v) && (h & 0x7fff) == 0x7c00;
    }
    return inf ? "is out of range for the data type" : NULL;
}

static const char *int_range(DML_TENSOR_DATA_TYPE t, int64_t *lo, uint64_t *hi)
{
    uint32_t bits = dmlops_data_type_size(t) * 8;
    if (!bits) return "is not a supported data type";
    *hi = bits == 64 ? (scalar_is_signed(t) ? INT64_MAX : UINT64_MAX) : (scalar_is_signed(t) ? (1ull << (bits - 1)) - 1 : (1ull << bits) - 1);
    *lo = scalar_is_signed(t) ? (bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1))) : 0;
    return NULL;
}

const char *scalar_from_double(DML_TENSOR_DATA_TYPE t, double v, void *dst)
{
    if (scalar_is_float(t)) return store_float_fitting(t, v, false, dst);
    int64_t lo;
    uint64_t hi;
    const char *e = int_range(t, &lo, &hi);
    if (e) return e;
    if (v != floor(v) || !isfinite(v)) return "is not an integer";
    if (fabs(v) >= 9007199254740992.0) return "is 2^53 or more: write it as a string to keep it exact";
    if (v < (double)lo || v > (double)hi) return "is out of range for the data type";
    store_int(t, v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v, dst);
    return NULL;
}

/* An integer's text p: decimal, or hexadecimal after 0x, with an optional '-'. Returns 0
 * with its 64 bits (two's complement when negative), 1 when p is not an integer, 2 when
 * it is one beyond 64 bits. */
static int int_text(const char *p, uint64_t *bits, bool *negative)
{
    char *end;
    errno = 0;
    *negative = *p == '-';
    if (*negative) {
        long long v = strtoll(p, &end, cli_int_base(p));
        if (!p[1] || *end) return 1;
        *bits = (uint64_t)v;
    } else {
        unsigned long long v = strtoull(p, &end, cli_int_base(p));
        if (!*p || *end || *p == '+') return 1;
        *bits = v;
    }
    return errno ? 2 : 0;
}

/* strtod and strtoll skip leading white space; a value's text is the number alone. */
static bool padded(const char *s)
{
    return isspace((unsigned char)*s) != 0;
}

const char *scalar_from_text(DML_TENSOR_DATA_TYPE t, const char *s, void *dst)
{
    char *end;
    errno = 0;
    if (padded(s)) return "has white space before its number";
    if (scalar_is_float(t)) {
        double v = strtod(s, &end); /* also "inf", "nan" */
        if (!*s || *end) return "is not a number";
        return store_float_fitting(t, v, errno == ERANGE && isinf(v), dst);
    }
    int64_t lo;
    uint64_t hi;
    const char *e = int_range(t, &lo, &hi);
    if (e) return e;
    uint64_t bits;
    bool negative;
    const int r = int_text(s, &bits, &negative);
    if (r == 1) return "is not an integer";
    if (r == 2 || (negative ? (int64_t)bits < lo : bits > hi)) return "is out of range for the data type";
    store_int(t, bits, dst);
    return NULL;
}

const char *scalar_cast_double(DML_TENSOR_DATA_TYPE t, double v, void *dst)
{
    if (scalar_is_float(t)) return store_float(t, v, dst);
    if (!dmlops_data_type_size(t)) return "is not a supported data type";
    if (isnan(v)) return "is not a number, which no integer type holds";
    const double w = trunc(v);
    uint64_t bits;
    if (w < 0 && w >= -9223372036854775808.0) bits = (uint64_t)(int64_t)w;
    else if (w >= 0 && w < 18446744073709551616.0) bits = (uint64_t)w;
    else return "is beyond every 64-bit integer";
    store_int(t, bits, dst);
    return NULL;
}

const char *scalar_cast_text(DML_TENSOR_DATA_TYPE t, const char *s, void *dst)
{
    if (padded(s)) return "has white space before its number";
    if (scalar_is_float(t)) {
        /* As a C cast: out of range becomes an infinity. */
        char *end;
        const double v = strtod(s, &end);
        if (!*s || *end) return "is not a number";
        return store_float(t, v, dst);
    }
    if (!dmlops_data_type_size(t)) return "is not a supported data type";
    uint64_t bits;
    bool negative;
    const int r = int_text(s, &bits, &negative);
    if (r == 0) {
        store_int(t, bits, dst);
        return NULL;
    }
    /* An integer's text past 64 bits is refused as such: as a double, one just below
     * -2^63 would round onto -2^63 and pass. */
    if (r == 2) return "is beyond every 64-bit integer";
    char *end;
    double d = strtod(s, &end); /* 1.5, 1e3, or an integer past 64 bits */
    if (!*s || *end) return "is not a number";
    return scalar_cast_double(t, d, dst);
}

void scalar_format(DML_TENSOR_DATA_TYPE t, const void *src, char *buf, size_t len)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    double d;
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT16: memcpy(&u16, src, 2); snprintf(buf, len, "%g", (double)scalar_half_to_float(u16)); break;
    case DML_TENSOR_DATA_TYPE_FLOAT32: memcpy(&f, src, 4); snprintf(buf, len, "%g", (double)f); break;
    case DML_TENSOR_DATA_TYPE_FLOAT64: memcpy(&d, src, 8); snprintf(buf, len, "%g", d); break;
    case DML_TENSOR_DATA_TYPE_UINT8: memcpy(&u8, src, 1); snprintf(buf, len, "%u", u8); break;
    case DML_TENSOR_DATA_TYPE_INT8: memcpy(&u8, src, 1); snprintf(buf, len, "%d", (int8_t)u8); break;
    case DML_TENSOR_DATA_TYPE_UINT16: memcpy(&u16, src, 2); snprintf(buf, len, "%u", u16); break;
    case DML_TENSOR_DATA_TYPE_INT16: memcpy(&u16, src, 2); snprintf(buf, len, "%d", (int16_t)u16); break;
    case DML_TENSOR_DATA_TYPE_UINT32: memcpy(&u32, src, 4); snprintf(buf, len, "%" PRIu32, u32); break;
    case DML_TENSOR_DATA_TYPE_INT32: memcpy(&u32, src, 4); snprintf(buf, len, "%" PRId32, (int32_t)u32); break;
    case DML_TENSOR_DATA_TYPE_UINT64: memcpy(&u64, src, 8); snprintf(buf, len, "%" PRIu64, u64); break;
    case DML_TENSOR_DATA_TYPE_INT64: memcpy(&u64, src, 8); snprintf(buf, len, "%" PRId64, (int64_t)u64); break;
    default: snprintf(buf, len, "?"); break;
    }
}
