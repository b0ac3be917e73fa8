/* Tuning files (docs/api.md, "Tuning"): the configuration chosen for each class of
 * operators on one device and driver, as text. The file names what it was made for (the
 * library version, the knob table and kernels, the device's vendor, device id and UUID,
 * the driver version) and ends with a checksum of everything before it, so that a file
 * for another device or build, or a damaged one, is recognised and ignored, never
 * trusted: the reader accepts only what the writer writes, every value checked against
 * the knob table (tune_knobs.h). Reading and writing here; what a file must match is the
 * caller's (src/vk/vk_tune.c). */
#ifndef DM_TUNE_FILE_H
#define DM_TUNE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tune_knobs.h"

#define DM_TUNE_FILE_VERSION 1
#define DM_TUNE_KEY_MAX 64              /* a class key, its terminator included */
#define DM_TUNE_FILE_MAX_ENTRIES 4096
#define DM_TUNE_FILE_MAX_BYTES (4u << 20)
#define DM_TUNE_LINE_MAX 1024

typedef struct dm_tune_entry {
    char key[DM_TUNE_KEY_MAX];   /* the class (vk_tune.c): letters, digits and . _ ^ - */
    dm_tune_config config;       /* the knobs' values it runs with */
    uint64_t default_ns;         /* the tuner's medians per execution of the defaults and */
    uint64_t tuned_ns;           /*   of config, on the operator that tuned the class */
} dm_tune_entry;

/* What a file was made for. */
typedef struct dm_tune_identity {
    char library[24];            /* the writer's dmlops_version_string() */
    uint64_t knobs;              /* dm_tune_knobs_fingerprint() */
    uint64_t kernels;            /* the kernels' fingerprint (vk_tune.c) */
    uint32_t vendor_id, device_id, driver_version;
    uint8_t uuid[16];
    char device_name[128];       /* for the reader of the file; never compared */
} dm_tune_identity;

typedef struct dm_tune_file {
    dm_tune_identity id;
    dm_tune_entry *entries;
    uint32_t count, cap;
} dm_tune_file;

/* Parses size bytes of text into f (zeroed first; dm_tune_file_free it either way).
 * False, with the line and what is wrong with it in err, unless the text is exactly what
 * dm_tune_file_format writes for some file: its checksum, version, every line and value. */
bool dm_tune_file_parse(const char *text, size_t size, dm_tune_file *f, char *err, size_t errsize);
/* The file as text (malloc'd, *size bytes, not terminated); NULL when out of memory. */
char *dm_tune_file_format(const dm_tune_file *f, size_t *size);
void dm_tune_file_free(dm_tune_file *f);

/* The entry of a class, or NULL. */
const dm_tune_entry *dm_tune_file_find(const dm_tune_file *f, const char *key);
/* Adds e, replacing the entry of its class; false when out of memory or full. */
bool dm_tune_file_put(dm_tune_file *f, const dm_tune_entry *e);

/* Reads and parses the file at path. *missing is set when it does not exist (err says
 * so too). */
bool dm_tune_file_load(const char *path, dm_tune_file *f, bool *missing, char *err, size_t errsize);
/* Writes f to path through a temporary file renamed over it, so that a reader never sees
 * half a file; false with why in err. */
bool dm_tune_file_save(const char *path, const dm_tune_file *f, char *err, size_t errsize);

#endif
