/* Reading a profile file (test/profile_layer/README.md): `key = value` lines, `#` comments, and
 * `include = other.profile` (relative to the including file) read in place, so that a
 * variant is its base plus the keys it changes. Errors go to stderr and fail the load:
 * a profile that silently lost a key would test less than it claims. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static bool dmp_fail(const char *file, int line, const char *what, const char *text)
{
    fprintf(stderr, "dmlops profile layer: %s:%d: %s: %s\n", file, line, what, text);
    return false;
}

/* "12", "0x40", "2^27", "2^32-1", "3*2^30": a product of terms, minus an optional term. */
static bool dmp_number(const char **s, uint64_t *out)
{
    uint64_t v = 1, minus = 0;
    bool first = true, sub = false;
    for (;;) {
        while (**s == ' ' || **s == '\t') (*s)++;
        if (!isdigit((unsigned char)**s)) return false;
        char *end;
        uint64_t t = strtoull(*s, &end, 0);
        if (*end == '^') {
            uint64_t e = strtoull(end + 1, &end, 10);
            if (e > 63) return false;
            t = (uint64_t)1 << e;
        }
        *s = end;
        if (sub) minus = t;
        else v = first ? t : v * t;
        first = false;
        if (**s == '*' && !sub) (*s)++;
        else if (**s == '-' && !sub) {
            (*s)++;
            sub = true;
        } else break;
    }
    *out = v - minus;
    return true;
}

static bool dmp_numbers(const char *s, dmp_value *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!dmp_number(&s, &v->u[i])) return false;
    while (*s == ' ' || *s == '\t') s++;
    v->set = *s == '\0';
    return v->set;
}

typedef struct dmp_name { const char *name; uint64_t value; } dmp_name;

static const dmp_name dmp_device_types[] = {
    {"other", VK_PHYSICAL_DEVICE_TYPE_OTHER}, {"integrated_gpu", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU},
    {"discrete_gpu", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU}, {"virtual_gpu", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU},
    {"cpu", VK_PHYSICAL_DEVICE_TYPE_CPU}, {NULL, 0}};
static const dmp_name dmp_memory_flags[] = {
    {"device_local", VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT}, {"host_visible", VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT},
    {"host_coherent", VK_MEMORY_PROPERTY_HOST_COHERENT_BIT}, {"host_cached", VK_MEMORY_PROPERTY_HOST_CACHED_BIT},
    {NULL, 0}};
static const dmp_name dmp_stages[] = {{"compute", VK_SHADER_STAGE_COMPUTE_BIT}, {"fragment", VK_SHADER_STAGE_FRAGMENT_BIT},
                                      {"vertex", VK_SHADER_STAGE_VERTEX_BIT}, {NULL, 0}};
static const dmp_name dmp_subgroup_ops[] = {
    {"basic", VK_SUBGROUP_FEATURE_BASIC_BIT}, {"vote", VK_SUBGROUP_FEATURE_VOTE_BIT},
    {"arithmetic", VK_SUBGROUP_FEATURE_ARITHMETIC_BIT}, {"ballot", VK_SUBGROUP_FEATURE_BALLOT_BIT},
    {"shuffle", VK_SUBGROUP_FEATURE_SHUFFLE_BIT}, {"shuffle_relative", VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT},
    {"clustered", VK_SUBGROUP_FEATURE_CLUSTERED_BIT}, {"quad", VK_SUBGROUP_FEATURE_QUAD_BIT}, {NULL, 0}};

/* "a|b|c" as the OR of the named bits. */
static bool dmp_flags(const char *s, const dmp_name *names, uint64_t *out)
{
    *out = 0;
    while (*s) {
        size_t n = strcspn(s, "|");
        const dmp_name *f = names;
        while (f->name && (strlen(f->name) != n || strncmp(f->name, s, n) != 0)) f++;
        if (!f->name) return false;
        *out |= f->value;
        s += n + (s[n] == '|');
    }
    return true;
}

static bool dmp_flag_value(const char *s, const dmp_name *names, dmp_value *v)
{
    v->set = dmp_flags(s, names, &v->u[0]);
    return v->set;
}

/* "device_local, device_local|host_visible|host_coherent": one type per comma. */
static bool dmp_memory_types(char *s, dmp_profile *p)
{
    p->memory_type_count = 0;
    for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        char *end = t + strlen(t);
        while (end > t && end[-1] == ' ') *--end = '\0';
        uint64_t f;
        if (p->memory_type_count == DMP_MAX_TYPES || !dmp_flags(t, dmp_memory_flags, &f)) return false;
        p->memory_types[p->memory_type_count++] = (VkMemoryPropertyFlags)f;
    }
    return p->memory_type_count > 0;
}

static bool dmp_extensions(char *s, dmp_profile *p)
{
    p->extensions_listed = true;
    p->extension_count = 0;
    if (!strcmp(s, "none")) return true;
    for (char *save = NULL, *t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (p->extension_count == DMP_MAX_EXTENSIONS || strlen(t) >= VK_MAX_EXTENSION_NAME_SIZE) return false;
        strcpy(p->extensions[p->extension_count++], t);
    }
    return true;
}

/* "1.1" */
static bool dmp_version(const char *s, dmp_value *v)
{
    unsigned major, minor;
    char extra;
    if (sscanf(s, "%u.%u%c", &major, &minor, &extra) != 2) return false;
    v->u[0] = VK_MAKE_API_VERSION(0, major, minor, 0);
    v->set = true;
    return true;
}

static bool dmp_key(dmp_profile *p, const char *key, char *val)
{
    for (size_t i = 0; i < dmp_limit_key_count; i++)
        if (!strcmp(key, dmp_limit_keys[i].name))
            return dmp_numbers(val, &p->limits[i], dmp_limit_keys[i].kind == DMP_U32X3 ? 3 : 1);
    static const struct { const char *key; size_t off; } plain[] = {
        {"vendorID", offsetof(dmp_profile, vendor_id)},
        {"deviceID", offsetof(dmp_profile, device_id)},
        {"subgroupSize", offsetof(dmp_profile, subgroup_size)},
        {"maxMemoryAllocationSize", offsetof(dmp_profile, max_memory_allocation_size)},
        {"maxPerSetDescriptors", offsetof(dmp_profile, max_per_set_descriptors)},
        {"maxBufferSize", offsetof(dmp_profile, max_buffer_size)},
        {"timestampValidBits", offsetof(dmp_profile, timestamp_valid_bits)},
        {"heapSize", offsetof(dmp_profile, heap_size)},
        {"memoryBudget", offsetof(dmp_profile, memory_budget)},
        {"noOptionalFeatures", offsetof(dmp_profile, no_optional_features)},
        {"portabilitySubset", offsetof(dmp_profile, portability_subset)},
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (!strcmp(key, plain[i].key)) return dmp_numbers(val, (dmp_value *)((char *)p + plain[i].off), 1);
    if (!strcmp(key, "name")) return snprintf(p->name, sizeof p->name, "%s", val) < (int)sizeof p->name;
    if (!strcmp(key, "apiVersion")) return dmp_version(val, &p->api_version);
    if (!strcmp(key, "deviceType")) return dmp_flag_value(val, dmp_device_types, &p->device_type);
    if (!strcmp(key, "subgroupSupportedStages")) return dmp_flag_value(val, dmp_stages, &p->subgroup_stages);
    if (!strcmp(key, "subgroupSupportedOperations")) return dmp_flag_value(val, dmp_subgroup_ops, &p->subgroup_operations);
    if (!strcmp(key, "memoryTypes")) return dmp_memory_types(val, p);
    if (!strcmp(key, "deviceExtensions")) return dmp_extensions(val, p);
    return false;
}

static bool dmp_load_file(const char *path, dmp_profile *p, int depth)
{
    FILE *f = depth < 8 ? fopen(path, "r") : NULL;
    if (!f) return dmp_fail(path, 0, "cannot read the profile", depth < 8 ? "fopen failed" : "includes nest too deep");
    char line[1024];
    int n = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        n++;
        line[strcspn(line, "#\r\n")] = '\0';
        char *eq = strchr(line, '=');
        char *k = line, *v = eq ? eq + 1 : NULL;
        if (!eq) {
            while (*k == ' ' || *k == '\t') k++;
            if (*k) ok = dmp_fail(path, n, "not `key = value`", line);
            continue;
        }
        *eq = '\0';
        while (*k == ' ' || *k == '\t') k++;
        for (char *e = eq; e > k && (e[-1] == ' ' || e[-1] == '\t');) *--e = '\0';
        while (*v == ' ' || *v == '\t') v++;
        for (char *e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t');) *--e = '\0';
        if (!strcmp(k, "include")) {
            char inc[1024];
            const char *slash = strrchr(path, '/');
            int dir = slash ? (int)(slash - path + 1) : 0;
            if (snprintf(inc, sizeof inc, "%.*s%s", dir, path, v) >= (int)sizeof inc) ok = dmp_fail(path, n, "path too long", v);
            else ok = dmp_load_file(inc, p, depth + 1);
        } else if (!dmp_key(p, k, v)) {
            ok = dmp_fail(path, n, "unknown key or bad value", k);
        }
    }
    fclose(f);
    return ok;
}

bool dmp_profile_load(const char *path, dmp_profile *p)
{
    memset(p, 0, sizeof *p);
    if (!dmp_load_file(path, p, 0)) return false;
    if (!p->name[0]) return dmp_fail(path, 0, "the profile has no name", "name = ...");
    return true;
}
