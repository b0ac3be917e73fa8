/* One element of a DML data type: conversion from text or a JSON number, and printing. */
#ifndef DMLOPS_SCALAR_H
#define DMLOPS_SCALAR_H

#include <stdbool.h>
#include <stddef.h>

#include "dmlops.h"

uint16_t scalar_float_to_half(float f);
float scalar_half_to_float(uint16_t h);

/* Stores a number into dst as `type`. Integers must be whole and in range; a double can
 * carry integers up to 2^53 exactly, so larger 64-bit values must come as text. Returns
 * NULL or what is wrong ("is not an integer", ...). */
const char *scalar_from_double(DML_TENSOR_DATA_TYPE type, double v, void *dst);
const char *scalar_from_text(DML_TENSOR_DATA_TYPE type, const char *s, void *dst);
/* The same as a C cast would (DxDispatch's rule): integers truncate toward zero and wrap
 * modulo the type; refused only where a cast has no meaning (NaN, beyond every 64-bit
 * integer). Text is an integer in decimal (or 0x hexadecimal), exact at any 64-bit size,
 * or a number in a float's notation. */
const char *scalar_cast_double(DML_TENSOR_DATA_TYPE type, double v, void *dst);
const char *scalar_cast_text(DML_TENSOR_DATA_TYPE type, const char *s, void *dst);

/* An integer element as 64 bits (sign-extended for signed types), and back (truncated). */
uint64_t scalar_int_bits(DML_TENSOR_DATA_TYPE type, const void *src);
void scalar_store_int_bits(DML_TENSOR_DATA_TYPE type, uint64_t bits, void *dst);
bool scalar_is_signed(DML_TENSOR_DATA_TYPE type);
bool scalar_is_float(DML_TENSOR_DATA_TYPE type);

/* Shortest readable text of the element at src. */
void scalar_format(DML_TENSOR_DATA_TYPE type, const void *src, char *buf, size_t len);

#endif
