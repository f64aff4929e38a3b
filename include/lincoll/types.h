/**
 * @file types.h
 * @brief Element types and reduction operators shared by every family.
 */
#ifndef LINCOLL_TYPES_H
#define LINCOLL_TYPES_H

#include <stddef.h>
#include <lincoll/visibility.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Element type of a buffer. */
typedef enum lincoll_dtype {
    LINCOLL_INT8 = 0,  /**< int8_t */
    LINCOLL_INT16,     /**< int16_t */
    LINCOLL_INT32,     /**< int32_t */
    LINCOLL_INT64,     /**< int64_t */
    LINCOLL_UINT8,     /**< uint8_t */
    LINCOLL_UINT16,    /**< uint16_t */
    LINCOLL_UINT32,    /**< uint32_t */
    LINCOLL_UINT64,    /**< uint64_t */
    LINCOLL_FLOAT,     /**< IEEE binary32 */
    LINCOLL_DOUBLE,    /**< IEEE binary64 */
    LINCOLL_FLOAT16,   /**< IEEE binary16, stored as uint16_t */
    LINCOLL_BFLOAT16,  /**< bfloat16, stored as uint16_t */
    LINCOLL_BYTE,      /**< raw bytes (no arithmetic; GF(2^8) symbols) */
    LINCOLL_DTYPE_LAST /**< number of types (not a type) */
} lincoll_dtype_t;

/** Reduction operator. */
typedef enum lincoll_op {
    LINCOLL_SUM = 0, /**< a + b */
    LINCOLL_PROD,    /**< a * b */
    LINCOLL_MIN,     /**< min(a, b) */
    LINCOLL_MAX,     /**< max(a, b) */
    LINCOLL_BXOR,    /**< a ^ b (integer types and bytes: GF(2^n) addition) */
    LINCOLL_OP_LAST  /**< number of operators (not an operator) */
} lincoll_op_t;

/**
 * @brief Size in bytes of one element of @p dtype.
 * @param [in] dtype element type.
 * @return the size, or 0 for an unknown type.
 */
LINCOLL_API size_t lincoll_dtype_size(lincoll_dtype_t dtype);

/**
 * @brief Name of an element type ("float", "int32", ...).
 * @param [in] dtype element type.
 * @return a static string; "unknown" for an unknown type.
 */
LINCOLL_API const char *lincoll_dtype_name(lincoll_dtype_t dtype);

/**
 * @brief Name of a reduction operator ("sum", "prod", ...).
 * @param [in] op operator.
 * @return a static string; "unknown" for an unknown operator.
 */
LINCOLL_API const char *lincoll_op_name(lincoll_op_t op);

#ifdef __cplusplus
}
#endif
#endif
