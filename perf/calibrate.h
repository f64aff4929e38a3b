/*
 * perf/calibrate.h: lincoll_info --calibrate (perf/calibrate.c).
 */
#ifndef LC_PERF_CALIBRATE_H
#define LC_PERF_CALIBRATE_H

#include <stdio.h>

/** Measure this machine (lincoll_perf runs under lincoll-run, beside this
 *  executable) and write its machine profile to @p out, creating its
 *  directory; progress lines go to @p log.  0 on success; 1 when a required
 *  figure could not be measured or the file not written; 2 when the tools
 *  are missing (an error line on stderr either way). */
int lc_calibrate(const char *out, FILE *log);

#endif
