/*
 * base.c -- the floor of the core (csrc/internal.h, "LAYERS"): error
 * messages, status names, the version, the time bound and the assertion
 * that fails loudly.  Every unit may use it; it uses none.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

void sl_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *sl_status_message(int code)
{
    switch (code) {
    case SL_OK: return "ok";
    case SL_EINVAL: return "invalid argument or input data";
    case SL_ENOMEM: return "out of memory";
    case SL_ESTATE: return "call not valid in this state";
    case SL_DECIDE: return "a decision is pending (dispatch mode: sl_sim_decide)";
    default: return "unknown status code";
    }
}

const char *sl_version(void) { return SL_VERSION; }

int64_t sl_time_max(void) { return SL_TIME_MAX; }

#ifndef SL_SOURCE_HASH
#define SL_SOURCE_HASH "unknown"
#endif
const char *sl_source_hash(void) { return SL_SOURCE_HASH; }

void sl_assert_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "schedlab core: invariant broken at %s:%d: %s\n", file, line, what);
    fflush(stderr);
    abort();
}
