/*
 * core/api/info_algos.c: lincoll_info_algorithms — the names each
 * LINCOLL_*_ALGO variable accepts, read from the registries themselves
 * (core/coll/registry.c, core/encode/registry.c, core/encode/repair_registry.c,
 * core/matmul/registry.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include <lincoll/info.h>
#include <lincoll/matmul.h>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/encode/encode_int.h"
#include "core/encode/repair_int.h"
#include "core/matmul/mm_int.h"

typedef struct {
    char *buf;
    size_t len, used;
} lc_out_t;

static void lc_out(lc_out_t *o, const char *fmt, ...)
{
    if (o->used + 1 >= o->len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
    va_end(ap);
    if (n > 0) o->used += (size_t)n < o->len - o->used ? (size_t)n : o->len - o->used - 1;
}

lincoll_status_t lincoll_info_algorithms(char *buf, size_t len)
{
    LC_CHECK_ARG(buf != NULL && len > 0, "lincoll_info_algorithms: buf must not be NULL, len > 0");
    lc_out_t o = {buf, len, 0};
    buf[0] = '\0';
    lc_out(&o, "%-28s %-14s %-24s %s\n", "variable", "name", "plan", "zero copy");
    size_t n;
    const lc_coll_alg_t *const *reg = lc_coll_registry(&n);
    for (int op = 0; op < LC_COLL_NOPS; op++) {
        for (size_t i = 0; i < n; i++) {
            if ((int)reg[i]->op != op) continue;
            lc_out(&o, "%-28s %-14s %-24s %s\n", lc_coll_op_var((lc_coll_op_t)op), reg[i]->name,
                   reg[i]->plan_name, reg[i]->mapped ? "yes" : "no");
        }
    }
    const lc_enc_alg_t *const *enc = lc_enc_registry(&n);
    for (size_t i = 0; i < n; i++) {
        lc_out(&o, "%-28s %-14s %-24s %s\n", lc_config_name(LINCOLL_CONFIG_ENCODE_ALGO),
               enc[i]->name, enc[i]->name, enc[i]->mapped ? "yes" : "no");
    }
    lc_out(&o, "%-28s %-14s %-24s %s\n", lc_config_name(LINCOLL_CONFIG_ENCODE_ALGO), "specific",
           "dft|vandermonde|lagrange", "no");
    const lc_rep_alg_t *const *rep = lc_rep_registry(&n);
    for (size_t i = 0; i < n; i++) {
        lc_out(&o, "%-28s %-14s %-24s %s\n", lc_config_name(LINCOLL_CONFIG_REPAIR_ALGO),
               rep[i]->name, rep[i]->plan_name, "no");
    }
    const lc_mm_alg_t *const *mm = lc_mm_registry(&n);
    for (size_t i = 0; i < n; i++) {
        lc_out(&o, "%-28s %-14s %-24s %s\n", lc_config_name(LINCOLL_CONFIG_MATMUL_ALGO),
               mm[i]->name, mm[i]->name, "no");
    }
    return LINCOLL_OK;
}
