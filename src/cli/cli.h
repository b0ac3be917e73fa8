/* Shared pieces of the dmlops tool: exit statuses, option parsing, context creation and
 * small formatting helpers. The tool uses the public API only. */
#ifndef DMLOPS_CLI_H
#define DMLOPS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlops.h"

/* Exit statuses: 2 is for anything the user can fix in the command line or the model. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Prints an error on stderr as one line: a trailing newline in fmt is dropped and every
 * control character of the message (a newline in a file name, say) becomes a space. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tune(int argc, char **argv);

/* Matches argv[*i] against "--name VALUE" or "--name=VALUE". Returns 1 and sets *value (and
 * advances *i past a separate value), 0 when argv[*i] is another option, -1 when the value
 * is missing (message printed). */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value);

/* Handles --backend, --device and --feature-level into desc. Same return values as
 * cli_opt; -1 also for a bad value. */
int cli_context_opt(int argc, char **argv, int *i, dmlops_context_desc *desc);

/* The base of an integer's text: 16 after "0x" (behind any sign), else 10. A leading 0
 * is not octal: "010" is ten, as a user writing decimal means it. */
int cli_int_base(const char *s);
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_feature_level(const char *s, DML_FEATURE_LEVEL *out);

/* The library's note or message with each dmlops_context_desc field the tool set from an
 * option named as that option ("asked for (--backend vulkan)"): the user typed the option,
 * not the C field. Returns buf. */
const char *cli_as_typed(const char *text, char *buf, size_t len);
/* Creates the context, printing the library's message on failure. Returns an exit status. */
int cli_context_create(const dmlops_context_desc *desc, dmlops_context **ctx);
/* The exit status for a failing library call: 2 for a rule the user broke, 1 otherwise. */
int cli_status_exit(dmlops_status st);

/* "llvmpipe (LLVM 15.0.6, 256 bits)" or "CPU backend". */
const char *cli_context_device_name(const dmlops_context_info *info);
/* Driver version decoded the way its vendor encodes it. */
void cli_driver_version(const dmlops_device_info *dev, char *buf, size_t len);
void cli_api_version(uint32_t v, char *buf, size_t len);

/* "4 KiB", "1.5 MiB". */
const char *cli_bytes(uint64_t bytes, char buf[32]);
double cli_now(void);
/* Median of v[0..n), which it sorts. 0 for n == 0. */
double cli_median(double *v, size_t n);
/* True when progress should be shown (stderr is a terminal). */
bool cli_progress_enabled(void);

#endif
