/**
 * @file lincoll.h
 * @brief Umbrella header: include this to use lincoll.
 *
 * lincoll runs linear collective operations (all-to-all encode over finite
 * fields, recursive halving-doubling reductions and gathers, distributed
 * matrix multiply) over UCX.  Start with lincoll_init() and
 * lincoll_comm_world(); every call returns a ::lincoll_status_t.
 */
#ifndef LINCOLL_LINCOLL_H
#define LINCOLL_LINCOLL_H

#include <lincoll/version.h>
#include <lincoll/status.h>
#include <lincoll/types.h>
#include <lincoll/log.h>
#include <lincoll/info.h>
#include <lincoll/context.h>
#include <lincoll/mem.h>
#include <lincoll/plan.h>
#include <lincoll/rma.h>
#include <lincoll/gf.h>
#include <lincoll/gemm.h>
#include <lincoll/reduce.h>
#include <lincoll/coll.h>
#include <lincoll/encode.h>
#include <lincoll/matmul.h>

#endif
