/*
 * core/base/status.c: status strings and element-type tables.
 */
#include <lincoll/status.h>
#include <lincoll/types.h>

#include <stdint.h>

const char *lincoll_strerror(lincoll_status_t status)
{
    switch (status) {
    case LINCOLL_OK:
        return "success";
    case LINCOLL_INPROGRESS:
        return "operation in progress";
    case LINCOLL_ERR_INVALID:
        return "invalid argument";
    case LINCOLL_ERR_NOMEM:
        return "out of memory";
    case LINCOLL_ERR_UNSUPPORTED:
        return "not supported";
    case LINCOLL_ERR_NOT_FOUND:
        return "not found";
    case LINCOLL_ERR_TIMEOUT:
        return "timed out";
    case LINCOLL_ERR_PEER_FAILED:
        return "peer failed";
    case LINCOLL_ERR_TRANSPORT:
        return "transport error";
    case LINCOLL_ERR_BOOTSTRAP:
        return "bootstrap failed";
    case LINCOLL_ERR_SINGULAR:
        return "singular matrix";
    case LINCOLL_ERR_MISMATCH:
        return "arguments differ between ranks";
    case LINCOLL_ERR_TRUNCATED:
        return "message truncated";
    case LINCOLL_ERR_AUTH:
        return "authentication failed";
    case LINCOLL_ERR_BUSY:
        return "object busy";
    case LINCOLL_ERR_IO:
        return "input/output error";
    case LINCOLL_ERR_CORRUPT:
        return "data corrupted";
    case LINCOLL_ERR_CANCELED:
        return "canceled";
    case LINCOLL_ERR_INTERNAL:
        return "internal error";
    }
    return "unknown status";
}

static const struct {
    const char *name;
    size_t size;
} lc_dtype_table[LINCOLL_DTYPE_LAST] = {
    [LINCOLL_INT8] = {"int8", 1},       [LINCOLL_INT16] = {"int16", 2},
    [LINCOLL_INT32] = {"int32", 4},     [LINCOLL_INT64] = {"int64", 8},
    [LINCOLL_UINT8] = {"uint8", 1},     [LINCOLL_UINT16] = {"uint16", 2},
    [LINCOLL_UINT32] = {"uint32", 4},   [LINCOLL_UINT64] = {"uint64", 8},
    [LINCOLL_FLOAT] = {"float", 4},     [LINCOLL_DOUBLE] = {"double", 8},
    [LINCOLL_FLOAT16] = {"float16", 2}, [LINCOLL_BFLOAT16] = {"bfloat16", 2},
    [LINCOLL_BYTE] = {"byte", 1},
};

size_t lincoll_dtype_size(lincoll_dtype_t dtype)
{
    return ((unsigned)dtype < LINCOLL_DTYPE_LAST) ? lc_dtype_table[dtype].size : 0;
}

const char *lincoll_dtype_name(lincoll_dtype_t dtype)
{
    return ((unsigned)dtype < LINCOLL_DTYPE_LAST) ? lc_dtype_table[dtype].name : "unknown";
}

const char *lincoll_op_name(lincoll_op_t op)
{
    static const char *const names[LINCOLL_OP_LAST] = {"sum", "prod", "min", "max", "bxor"};
    return ((unsigned)op < LINCOLL_OP_LAST) ? names[op] : "unknown";
}
