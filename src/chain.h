/* Chains of extensible structures (dmlops.h, "Extensible structures"): checking the
 * head's s_type and finding the structures a call takes in its next chain. */
#ifndef DM_CHAIN_H
#define DM_CHAIN_H

#include <stdio.h>

#include "status.h"

/* The enumerator's name, "DMLOPS_STRUCTURE_TYPE_..."; NULL for a value not defined. */
const char *dm_structure_type_name(dmlops_structure_type t);

/* INVALID_ARGUMENT, naming fn, `what` and both types, unless head (a structure starting
 * with s_type) has s_type `want`. */
dmlops_status dm_chain_head(const char *fn, const char *what, const void *head, dmlops_structure_type want);

/* Walks the chain starting at next: found[k] receives the structure of s_type allowed[k],
 * or NULL. INVALID_ARGUMENT, naming fn, `what` (the structure that holds the chain) and
 * the s_type, for a structure not in allowed, a second one of a type, or a chain of more
 * than 64 (a loop). */
dmlops_status dm_chain_parse(const char *fn, const char *what, const void *next, const dmlops_structure_type *allowed,
                             uint32_t nallowed, const void **found);

#endif
