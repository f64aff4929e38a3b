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
 * @brief The largest operation tag (lincoll_coll_opts_t::tag and the tag of
 *        the encode, repair and matmul options): tags are 1 to 2^20 - 1.
 *
 * A tag names one operation on one communicator, chosen by the caller (as
 * Gloo's tags do).  0 means no tag: the plan takes the communicator's
 * start order (collective plans start in the same order on every rank).
 * A plan with tag t != 0 exchanges messages only with the plans of tag t
 * on the same communicator, so plans on overlapping groups may be created
 * and started in any order by independent coordinators.  The rules:
 * - every member passes the same tag for the same operation;
 * - a tagged init communicates with no one: it never agrees on windows, so
 *   a tagged plan is never a zero-copy plan (docs/collectives.md, "Groups
 *   and tags");
 * - a rank may hold one live plan per tag and communicator: an init with a
 *   tag that a plan of this rank on the same communicator still holds (not
 *   yet lincoll_plan_free()d) is ::LINCOLL_ERR_BUSY with one log line.  A
 *   local group (::LINCOLL_GROUP_LOCAL) shares its tags with its parent and
 *   the parent's other local groups (lincoll_comm_create_group());
 * - a tag is free again on a rank once its plan is freed there.  Reuse it
 *   for a new plan after the old one completed (its last wait or test
 *   returned ::LINCOLL_OK) on this rank: the new plan's messages then
 *   follow every message of the old one (messages of one tag between two
 *   ranks match in order).  After a plan failed or was freed while it ran,
 *   take a new tag: the old plan's messages may still be in flight;
 * - a tagged plan may be started again (persistent) once its last start
 *   completed on this rank; starts of one plan match in order;
 * - tags need communicators of at most 16384 ranks; larger ones, and tags
 *   above ::LINCOLL_TAG_MAX, are ::LINCOLL_ERR_INVALID.
 */
#define LINCOLL_TAG_MAX ((1ULL << 20) - 1)

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
