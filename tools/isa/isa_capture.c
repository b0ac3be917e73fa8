/* What a driver prints on stderr while it compiles one pipeline (isa.h). v3dv's statistics
 * give no spill count in Mesa 22.3 ("TMU Spills" and "TMU Fills" both report the spill
 * buffer's size, which is not 0 even for the compute copy), but the driver prints one
 * "N:M spills:fills" line per shader with V3D_DEBUG=shaderdb: the report reads it from
 * there. On Windows, where no such driver runs, nothing is captured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

#if defined(_WIN32)
bool isa_capture_begin(isa_capture *c)
{
    (void)c;
    return false;
}
void isa_capture_end(isa_capture *c, char *text, size_t size)
{
    (void)c;
    if (size) text[0] = 0;
}
#else
#include <unistd.h>

bool isa_capture_begin(isa_capture *c)
{
    fflush(stderr);
    c->file = tmpfile();
    c->saved = c->file ? dup(2) : -1;
    if (c->saved < 0 || dup2(fileno(c->file), 2) < 0) {
        if (c->file) fclose(c->file);
        if (c->saved >= 0) close(c->saved);
        c->file = NULL;
        return false;
    }
    return true;
}

void isa_capture_end(isa_capture *c, char *text, size_t size)
{
    if (size) text[0] = 0;
    if (!c->file) return;
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    rewind(c->file);
    const size_t n = size ? fread(text, 1, size - 1, c->file) : 0;
    if (size) text[n] = 0;
    /* What the driver said still shows, all of it. */
    rewind(c->file);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, c->file)) > 0) fwrite(buf, 1, got, stderr);
    fclose(c->file);
    c->file = NULL;
}
#endif

bool isa_shaderdb_spills(const char *text, double *spills, double *fills)
{
    const char *at = text ? strstr(text, " spills:fills") : NULL;
    if (!at) return false;
    const char *p = at;
    while (p > text && p[-1] != ' ' && p[-1] != ',') p--;
    unsigned s = 0, f = 0;
    if (sscanf(p, "%u:%u", &s, &f) != 2) return false;
    *spills = s;
    *fills = f;
    return true;
}
