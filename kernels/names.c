/*
 * kernels/names.c: names of element types and reduction operators for the
 * kernels' log lines.  The public lincoll_dtype_name/lincoll_op_name belong
 * to core; kernels name their own (test_layers_config checks they agree).
 */
#include "kernels.h"

const char *lc_kdtype_name(lincoll_dtype_t dtype)
{
    static const char *const names[LINCOLL_DTYPE_LAST] = {
        [LINCOLL_INT8] = "int8",     [LINCOLL_INT16] = "int16",     [LINCOLL_INT32] = "int32",
        [LINCOLL_INT64] = "int64",   [LINCOLL_UINT8] = "uint8",     [LINCOLL_UINT16] = "uint16",
        [LINCOLL_UINT32] = "uint32", [LINCOLL_UINT64] = "uint64",   [LINCOLL_FLOAT] = "float",
        [LINCOLL_DOUBLE] = "double", [LINCOLL_FLOAT16] = "float16", [LINCOLL_BFLOAT16] = "bfloat16",
        [LINCOLL_BYTE] = "byte",
    };
    return (unsigned)dtype < LINCOLL_DTYPE_LAST ? names[dtype] : "unknown";
}

const char *lc_kop_name(lincoll_op_t op)
{
    static const char *const names[LINCOLL_OP_LAST] = {
        [LINCOLL_SUM] = "sum", [LINCOLL_PROD] = "prod", [LINCOLL_MIN] = "min",
        [LINCOLL_MAX] = "max", [LINCOLL_BXOR] = "bxor",
    };
    return (unsigned)op < LINCOLL_OP_LAST ? names[op] : "unknown";
}
