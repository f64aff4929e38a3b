/*
 * test/fuzz/fuzz_config.c: configuration strings (LINCOLL_* values), byte
 * sizes and store addresses.  Input: one byte selecting a variable of the
 * config table, then the value text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/config.h"
#include "core/context/bootstrap/store.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lc_fuzz_quiet();
    if (size < 1 || size > 4096) return 0;
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    const lc_config_field_t *f = &t[data[0] % n];
    char *text = malloc(size);
    if (text == NULL) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    lc_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    if (lc_config_parse_field(f, text, &cfg) == LINCOLL_OK &&
        (f->type == LC_CFG_STRING || f->type == LC_CFG_SECRET)) {
        /* a parsed string fits its buffer, terminated */
        const char *s = (const char *)&cfg + f->offset;
        if (memchr(s, '\0', f->size) == NULL) abort();
    }
    size_t v;
    lc_parse_size(text, &v);
    char host[64];
    int port = -1;
    if (lc_store_parse_addr(text, host, sizeof(host), &port, data[0] & 1) == LINCOLL_OK) {
        if (port < 0 || port > 65535 || strlen(host) >= sizeof(host)) abort();
    }
    free(text);
    return 0;
}
