/*
 * core/base/memtype.h: the memory types of plan slots and windows, shared by
 * the plan layer (which compiles knowing them) and core/dev (which detects
 * them and runs device work).  docs/accelerators.md.
 */
#ifndef LC_MEMTYPE_H
#define LC_MEMTYPE_H

enum {
    LC_MEM_HOST = 0,  /* host memory */
    LC_MEM_DEV = 1,   /* device memory (CUDA, or the fake device of the tests) */
    LC_MEM_PINNED = 2 /* page-locked host memory: the staging buffers of host transfers */
};

#endif
