/*
 * core/base/profile.h: machine profiles, the measured figures of the cost
 * model.
 *
 * A profile is a text file of "key value" lines ('#' starts a comment):
 *
 *   name          a label (no spaces)
 *   alpha         s, one message round between two ranks of one host
 *   beta          s/B per port between two ranks of one host (1/bandwidth)
 *   gamma         s/B of local compute (the slower of gamma_gf, gamma_reduce)
 *   flops         flop/s of the local GEMM
 *   ports         ports per rank (1..64; lincoll_sim's default -p)
 *   alpha_mapped  s, one round of stores and flags into peers' mapped memory
 *   alpha_net     s, one message round between ranks of different hosts
 *   beta_net      s/B per port between ranks of different hosts
 *   gamma_gf      s/B of the GF(2^8) lincomb
 *   gamma_reduce  s/B of the float sum reduction
 *   handoff       s, one hand-off of a core to a peer rank that shares it
 *   beta_mapped   s/B of copies from or into peers' mapped memory (zero copy)
 *
 * alpha, beta and gamma are required, the others optional.  lincoll_info
 * --calibrate writes one for this machine; the library reads one at every
 * configuration load (lc_config_load: LINCOLL_PROFILE, else
 * $XDG_CACHE_HOME/lincoll/profile, else ~/.cache/lincoll/profile) and
 * lincoll_sim reads one with --profile.  This file knows nothing of
 * lc_config_t: core/base/config.c maps a profile onto the model's figures.
 */
#ifndef LC_PROFILE_H
#define LC_PROFILE_H

#include <stddef.h>
#include <stdio.h>

/* the keys, one bit each in lc_profile_t.have */
typedef enum lc_profile_key {
    LC_PROF_ALPHA = 0,
    LC_PROF_BETA,
    LC_PROF_GAMMA,
    LC_PROF_FLOPS,
    LC_PROF_ALPHA_MAPPED,
    LC_PROF_ALPHA_NET,
    LC_PROF_BETA_NET,
    LC_PROF_GAMMA_GF,
    LC_PROF_GAMMA_REDUCE,
    LC_PROF_HANDOFF,
    LC_PROF_BETA_MAPPED,
    LC_PROF_NFIGURES, /* the figures above are v[key]; name and ports follow */
    LC_PROF_NAME = LC_PROF_NFIGURES,
    LC_PROF_PORTS,
    LC_PROF_NKEYS
} lc_profile_key_t;

typedef struct lc_profile {
    char name[64];
    double v[LC_PROF_NFIGURES]; /* figures by lc_profile_key_t, each >= 0 */
    int ports;                  /* 0: not given */
    unsigned have;              /* bit k: key k was given */
} lc_profile_t;

/** The key's name in a profile ("alpha", "beta_net", ...). */
const char *lc_profile_key_name(lc_profile_key_t key);

/** Whether @p p gives key @p key. */
static inline int lc_profile_has(const lc_profile_t *p, lc_profile_key_t key)
{
    return (p->have >> key) & 1u;
}

/**
 * Read the profile at @p path into @p prof.  0 on success; -1 when the file
 * cannot be read or a line is bad (an unknown key, a value that is not a
 * finite number >= 0, a key given twice, a line over 511 characters) or a
 * required key is missing: then @p err holds one line naming the file and
 * the line ("PATH:LINE: ..."; "PATH: ..." for the whole file).  Logs nothing.
 */
int lc_profile_read(const char *path, lc_profile_t *prof, char *err, size_t errlen);

/** Write @p prof (the keys it has) to @p f, after @p comment's lines, each
 *  prefixed "# " (@p comment may be NULL).  0, or -1 on a write error. */
int lc_profile_write(FILE *f, const lc_profile_t *prof, const char *comment);

/** The default location of this user's profile ($XDG_CACHE_HOME/lincoll/profile,
 *  else $HOME/.cache/lincoll/profile) into @p out; -1 when neither is set. */
int lc_profile_default_path(char *out, size_t len);

#endif
