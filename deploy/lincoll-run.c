/*
 * deploy/lincoll-run.c: the local launcher.
 *
 *   lincoll-run -n N [--timeout s] [--ports p] [--grace s] [--keep-going] [--] prog args...
 *
 * Serves the TCP rendezvous store (core/context/bootstrap/store.h) on
 * 127.0.0.1 with a kernel-chosen port and a random per-job secret, starts N
 * ranks of prog with LINCOLL_RANK/SIZE/BOOTSTRAP/JOB_SECRET set, prefixes
 * every line they print with "[rank] ", forwards signals, stops the job when
 * a rank fails, and returns the worst exit status (see usage()).  Each rank
 * leads its own process group so stopping a rank also stops what it started;
 * ranks die with lincoll-run (PR_SET_PDEATHSIG).  Linux only.
 */
#include "core/base/config.h"
#include "core/base/log.h"
#include "core/context/bootstrap/store.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define LR_MAX_RANKS    1024
#define LR_LINE_MAX     65536
#define LR_EXIT_USAGE   2
#define LR_EXIT_TIMEOUT 124
#define LR_EXIT_NOEXEC  127

extern char **environ;

typedef struct lr_stream {
    int fd;   /* -1 once closed */
    int dest; /* STDOUT_FILENO or STDERR_FILENO */
    size_t len;
    char buf[LR_LINE_MAX];
} lr_stream_t;

typedef struct lr_rank {
    pid_t pid; /* 0 = not started */
    int done;
    int code;    /* exit code, or 128 + signal */
    int stopped; /* stopped by lincoll-run after another failure: not counted */
    lr_stream_t out, err;
} lr_rank_t;

static int lr_sigpipe[2] = {-1, -1};
static lr_rank_t *lr_ranks;
static int lr_n;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lincoll-run -n N [options] [--] program [args...]\n"
            "Start N ranks of program on this host, bootstrapped through a TCP store that\n"
            "lincoll-run serves on 127.0.0.1 (a kernel-chosen port, a random job secret).\n"
            "\n"
            "  -n, --np N       number of ranks (1..%d)\n"
            "  --timeout s      stop the job after s seconds and exit with %d\n"
            "  --ports p        set LINCOLL_PORTS=p in every rank\n"
            "  --grace s        seconds between SIGTERM and SIGKILL when stopping ranks "
            "(default 5)\n"
            "  --keep-going     a rank exiting with a non-zero status does not stop the others\n"
            "                   (a rank killed by a signal still does)\n"
            "  -h, --help       print this help\n"
            "\n"
            "Each rank gets LINCOLL_RANK, LINCOLL_SIZE, LINCOLL_BOOTSTRAP=127.0.0.1:port,\n"
            "LINCOLL_JOB_SECRET and LINCOLL_BOOTSTRAP_KIND=tcp; its stdin is /dev/null and each\n"
            "line it writes to stdout or stderr comes out on the same stream as \"[rank] line\".\n"
            "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to every rank;\n"
            "a second SIGINT or SIGTERM kills them.  When a rank exits with a non-zero status or\n"
            "is killed by a signal, the others get SIGTERM, then SIGKILL after the grace period.\n"
            "\n"
            "Exit status: the worst among the ranks (killed by signal s counts as 128+s; ranks\n"
            "that lincoll-run stopped after another rank failed do not count), %d after\n"
            "--timeout, %d when the program cannot be started, %d for bad usage.\n",
            LR_MAX_RANKS, LR_EXIT_TIMEOUT, LR_EXIT_TIMEOUT, LR_EXIT_NOEXEC, LR_EXIT_USAGE);
}

static void lr_on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t w = write(lr_sigpipe[1], &c, 1);
    (void)w;
    errno = saved;
}

static int lr_parse_double(const char *text, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !(v >= lo) || v > 1e9) {
        return -1;
    }
    *out = v;
    return 0;
}

static int lr_parse_long(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < lo || v > hi) {
        return -1;
    }
    *out = v;
    return 0;
}

static int lr_random_secret(char *hex, size_t hex_size)
{
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = read(fd, raw + got, sizeof(raw) - got);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            close(fd);
            return -1;
        }
        got += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    if (hex_size < 2 * sizeof(raw) + 1) {
        return -1;
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    }
    return 0;
}

/* Write all of buf to fd (our stdout/stderr); a closed reader is not fatal. */
static void lr_write(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        buf += n;
        len -= (size_t)n;
    }
}

/* One prefixed line, one write(): lines of different ranks never interleave. */
static void lr_emit(int rank, int dest, const char *line, size_t len)
{
    char prefix[32];
    int plen = snprintf(prefix, sizeof(prefix), "[%d] ", rank);
    char *out = malloc((size_t)plen + len + 1);
    if (out == NULL) {
        return;
    }
    memcpy(out, prefix, (size_t)plen);
    memcpy(out + plen, line, len);
    out[(size_t)plen + len] = '\n';
    lr_write(dest, out, (size_t)plen + len + 1);
    free(out);
}

/* Read what the rank wrote; emit complete lines.  At EOF the partial last
 * line is emitted too. */
static void lr_drain(int rank, lr_stream_t *s)
{
    for (;;) {
        if (s->len == sizeof(s->buf)) {
            lr_emit(rank, s->dest, s->buf, s->len); /* overlong line: split it */
            s->len = 0;
        }
        ssize_t n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            if (s->len) lr_emit(rank, s->dest, s->buf, s->len);
            s->len = 0;
            close(s->fd);
            s->fd = -1;
            return;
        }
        size_t start = 0, end = s->len + (size_t)n;
        for (size_t i = s->len; i < end; i++) {
            if (s->buf[i] == '\n') {
                lr_emit(rank, s->dest, s->buf + start, i - start);
                start = i + 1;
            }
        }
        memmove(s->buf, s->buf + start, end - start);
        s->len = end - start;
    }
}

/* "NAME=value" of variable id (the name: the configuration table's), malloc'ed */
static char *lr_var(lincoll_config_id_t id, const char *value)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s=%s", lc_config_name(id), value);
    return strdup(buf);
}

/* Does the environment entry "NAME=value" set variable id? */
static int lr_sets(const char *entry, lincoll_config_id_t id)
{
    const char *name = lc_config_name(id);
    size_t len = strlen(name);
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* The parent's environment without our variables, then ours from *ours_p on. */
static char **lr_make_env(int rank, int size, const char *addr, const char *secret,
                          const char *ports, size_t *ours_p)
{
    static const lincoll_config_id_t ours[] = {LINCOLL_CONFIG_RANK, LINCOLL_CONFIG_SIZE,
                                               LINCOLL_CONFIG_BOOTSTRAP, LINCOLL_CONFIG_JOB_SECRET,
                                               LINCOLL_CONFIG_BOOTSTRAP_KIND};
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 8, sizeof(char *));
    if (env == NULL) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int skip = ports != NULL && lr_sets(environ[i], LINCOLL_CONFIG_PORTS);
        for (size_t j = 0; j < sizeof(ours) / sizeof(ours[0]); j++) {
            skip |= lr_sets(environ[i], ours[j]);
        }
        if (!skip) env[k++] = environ[i];
    }
    char num[32];
    *ours_p = k;
    snprintf(num, sizeof(num), "%d", rank);
    env[k++] = lr_var(LINCOLL_CONFIG_RANK, num);
    snprintf(num, sizeof(num), "%d", size);
    env[k++] = lr_var(LINCOLL_CONFIG_SIZE, num);
    env[k++] = lr_var(LINCOLL_CONFIG_BOOTSTRAP, addr);
    env[k++] = lr_var(LINCOLL_CONFIG_JOB_SECRET, secret);
    env[k++] = lr_var(LINCOLL_CONFIG_BOOTSTRAP_KIND, "tcp");
    if (ports != NULL) {
        env[k++] = lr_var(LINCOLL_CONFIG_PORTS, ports);
    }
    env[k] = NULL;
    return env;
}

/* fork + exec one rank; returns 0, or the exec errno (> 0), or -1. */
static int lr_spawn(lr_rank_t *r, char **argv, char **env, int devnull)
{
    int out[2], err[2], status[2];
    if (pipe2(out, O_CLOEXEC) != 0) return -1;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (pipe2(status, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* child: only async-signal-safe calls until exec */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(LR_EXIT_NOEXEC);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (dup2(devnull, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
            dup2(err[1], STDERR_FILENO) < 0) {
            _exit(LR_EXIT_NOEXEC);
        }
        execvpe(argv[0], argv, env);
        int e = errno;
        ssize_t w = write(status[1], &e, sizeof(e));
        (void)w;
        _exit(LR_EXIT_NOEXEC);
    }
    close(out[1]);
    close(err[1]);
    close(status[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        close(status[0]);
        return -1;
    }
    setpgid(pid, pid); /* also here: no race with kill(-pid) below */
    r->pid = pid;
    r->out.fd = out[0];
    r->err.fd = err[0];
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    int e = 0;
    ssize_t n;
    do {
        n = read(status[0], &e, sizeof(e)); /* EOF = exec succeeded */
    } while (n < 0 && errno == EINTR);
    close(status[0]);
    return n == (ssize_t)sizeof(e) ? e : 0;
}

static const char *lr_signame(int sig)
{
    const char *s = sigabbrev_np(sig);
    return s ? s : "?";
}

static void lr_kill_all(int sig, int mark_stopped)
{
    for (int i = 0; i < lr_n; i++) {
        lr_rank_t *r = &lr_ranks[i];
        if (r->pid > 0 && !r->done) {
            if (mark_stopped) r->stopped = 1;
            if (kill(-r->pid, sig) != 0) kill(r->pid, sig);
        }
    }
}

int main(int argc, char **argv)
{
    long n = 0;
    double timeout = 0, grace = 5;
    const char *ports = NULL;
    int keep_going = 0;
    static const struct option opts[] = {{"np", required_argument, NULL, 'n'},
                                         {"timeout", required_argument, NULL, 't'},
                                         {"ports", required_argument, NULL, 'p'},
                                         {"grace", required_argument, NULL, 'g'},
                                         {"keep-going", no_argument, NULL, 'k'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    long ports_v;
    while ((c = getopt_long(argc, argv, "+n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (lr_parse_long(optarg, 1, LR_MAX_RANKS, &n) != 0) {
                fprintf(stderr, "lincoll-run: -n %s: expected a number of ranks in 1..%d\n", optarg,
                        LR_MAX_RANKS);
                return LR_EXIT_USAGE;
            }
            break;
        case 't':
            if (lr_parse_double(optarg, 0, &timeout) != 0 || timeout <= 0) {
                fprintf(stderr, "lincoll-run: --timeout %s: expected seconds > 0\n", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case 'g':
            if (lr_parse_double(optarg, 0, &grace) != 0) {
                fprintf(stderr, "lincoll-run: --grace %s: expected seconds >= 0\n", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case 'p':
            if (lr_parse_long(optarg, 0, 64, &ports_v) != 0) {
                fprintf(stderr, "lincoll-run: --ports %s: expected an integer in 0..64\n", optarg);
                return LR_EXIT_USAGE;
            }
            ports = optarg;
            break;
        case 'k':
            keep_going = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return LR_EXIT_USAGE;
        }
    }
    if (n == 0 || optind >= argc) {
        fprintf(stderr, "lincoll-run: %s\n", n == 0 ? "-n N is required" : "no program given");
        usage(stderr);
        return LR_EXIT_USAGE;
    }
    char **prog = argv + optind;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)(2 * n + 64) > rl.rlim_cur) {
        fprintf(stderr, "lincoll-run: -n %ld needs %ld file descriptors, the limit is %lu\n", n,
                2 * n + 64, (unsigned long)rl.rlim_cur);
        return LR_EXIT_USAGE;
    }
    /* the launcher's own lines follow LINCOLL_LOG_LEVEL too (the ranks check
     * every other variable themselves) */
    lc_config_t cfg;
    if (lc_config_reread_id(LINCOLL_CONFIG_LOG_LEVEL, &cfg) == LINCOLL_OK) {
        lincoll_log_set_level((lincoll_log_level_t)cfg.log_level);
    }

    /* the store */
    char secret[LC_STORE_MAX_SECRET + 1];
    if (lr_random_secret(secret, sizeof(secret)) != 0) {
        fprintf(stderr, "lincoll-run: cannot read /dev/urandom: %s\n", strerror(errno));
        return 1;
    }
    lc_store_params_t sp = {.host = "127.0.0.1", .port = 0, .size = (int)n, .secret = secret};
    lc_store_server_t *store;
    if (lc_store_server_create(&sp, &store) != LINCOLL_OK) {
        fprintf(stderr, "lincoll-run: cannot start the rendezvous store on 127.0.0.1\n");
        return 1;
    }
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", lc_store_server_port(store));

    /* signals through a self-pipe */
    if (pipe2(lr_sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        perror("lincoll-run: pipe");
        return 1;
    }
    static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = lr_on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
        sigaction(fwd[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    lr_n = (int)n;
    lr_ranks = calloc((size_t)n, sizeof(*lr_ranks));
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (lr_ranks == NULL || devnull < 0) {
        fprintf(stderr, "lincoll-run: out of memory or no /dev/null\n");
        return 1;
    }
    int exec_failed = 0;
    for (int i = 0; i < lr_n; i++) {
        lr_ranks[i].out = (lr_stream_t){.fd = -1, .dest = STDOUT_FILENO};
        lr_ranks[i].err = (lr_stream_t){.fd = -1, .dest = STDERR_FILENO};
    }
    for (int i = 0; i < lr_n; i++) {
        size_t ours = 0;
        char **env = lr_make_env(i, lr_n, addr, secret, ports, &ours);
        int e = env ? lr_spawn(&lr_ranks[i], prog, env, devnull) : -1;
        if (env != NULL) {
            for (char **p = env + ours; *p; p++)
                free(*p);
            free(env);
        }
        if (e != 0) {
            if (e > 0) {
                fprintf(stderr, "lincoll-run: cannot execute '%s': %s\n", prog[0], strerror(e));
            } else {
                fprintf(stderr, "lincoll-run: cannot start rank %d: %s\n", i, strerror(errno));
            }
            exec_failed = 1;
            break;
        }
    }
    close(devnull);
    lc_store_server_start(store);

    double t0 = lc_store_now();
    double timeout_at = timeout > 0 ? t0 + timeout : 0;
    double kill_at = 0, drain_until = 0;
    int stopping = 0, timed_out = 0, user_signals = 0, finished = 0;
    if (exec_failed) {
        lr_kill_all(SIGKILL, 1);
        stopping = 1;
    }
    struct pollfd *pfds = calloc((size_t)(2 * lr_n + 1), sizeof(*pfds));
    lr_stream_t **pstreams = calloc((size_t)(2 * lr_n + 1), sizeof(*pstreams));
    int *pranks = calloc((size_t)(2 * lr_n + 1), sizeof(int));
    if (pfds == NULL || pstreams == NULL || pranks == NULL) {
        lr_kill_all(SIGKILL, 1);
        return 1;
    }
    for (;;) {
        int live = 0, open_streams = 0;
        for (int i = 0; i < lr_n; i++) {
            live += lr_ranks[i].pid > 0 && !lr_ranks[i].done;
            open_streams += (lr_ranks[i].out.fd >= 0) + (lr_ranks[i].err.fd >= 0);
        }
        if (live == 0 && !finished) {
            /* every rank ended: remove what they left behind, then drain output */
            finished = 1;
            for (int i = 0; i < lr_n; i++) {
                if (lr_ranks[i].pid > 0) kill(-lr_ranks[i].pid, SIGKILL);
            }
            drain_until = lc_store_now() + 2.0;
        }
        if (finished && (open_streams == 0 || lc_store_now() >= drain_until)) {
            break;
        }
        double now = lc_store_now(), next = 0;
        if (timeout_at && !timed_out) next = timeout_at;
        if (kill_at && (next == 0 || kill_at < next)) next = kill_at;
        if (drain_until && (next == 0 || drain_until < next)) next = drain_until;
        int ms = next == 0 ? -1 : next <= now ? 0 : (int)((next - now) * 1000) + 1;
        int np = 0;
        pfds[np++] = (struct pollfd){.fd = lr_sigpipe[0], .events = POLLIN};
        for (int i = 0; i < lr_n; i++) {
            lr_stream_t *ss[2] = {&lr_ranks[i].out, &lr_ranks[i].err};
            for (int k = 0; k < 2; k++) {
                if (ss[k]->fd < 0) continue;
                pstreams[np] = ss[k];
                pranks[np] = i;
                pfds[np++] = (struct pollfd){.fd = ss[k]->fd, .events = POLLIN};
            }
        }
        int rc = poll(pfds, (nfds_t)np, ms);
        if (rc < 0 && errno != EINTR) {
            perror("lincoll-run: poll");
            lr_kill_all(SIGKILL, 1);
            break;
        }
        for (int k = 1; rc > 0 && k < np; k++) {
            if (pfds[k].revents) lr_drain(pranks[k], pstreams[k]);
        }
        unsigned char sigs[64];
        ssize_t ns =
            rc > 0 && (pfds[0].revents & POLLIN) ? read(lr_sigpipe[0], sigs, sizeof(sigs)) : 0;
        for (ssize_t k = 0; k < ns; k++) {
            int sig = sigs[k];
            if (sig == SIGCHLD) continue;
            int term = sig == SIGINT || sig == SIGTERM;
            if (term && user_signals > 0) {
                fprintf(stderr, "lincoll-run: second %s: killing every rank\n", lr_signame(sig));
                lr_kill_all(SIGKILL, 0);
            } else {
                lr_kill_all(sig, 0);
            }
            user_signals += term || sig == SIGHUP || sig == SIGQUIT;
        }
        /* reap */
        for (int i = 0; i < lr_n; i++) {
            lr_rank_t *r = &lr_ranks[i];
            int st;
            if (r->pid <= 0 || r->done || waitpid(r->pid, &st, WNOHANG) != r->pid) continue;
            r->done = 1;
            int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
            r->code = sig ? 128 + sig : WEXITSTATUS(st);
            if (r->code == 0 || stopping || (keep_going && !sig)) continue;
            if (sig) {
                fprintf(stderr,
                        "lincoll-run: rank %d (pid %d) killed by signal %d (SIG%s); stopping "
                        "the other ranks\n",
                        i, (int)r->pid, sig, lr_signame(sig));
            } else {
                fprintf(stderr,
                        "lincoll-run: rank %d (pid %d) exited with status %d; stopping the "
                        "other ranks\n",
                        i, (int)r->pid, r->code);
            }
            stopping = 1;
            lr_kill_all(SIGTERM, user_signals == 0);
            kill_at = lc_store_now() + grace;
        }
        now = lc_store_now();
        if (timeout_at && !timed_out && now >= timeout_at) {
            timed_out = 1;
            fprintf(stderr, "lincoll-run: timeout: the job ran longer than %g s; stopping it\n",
                    timeout);
            if (!stopping) {
                stopping = 1;
                lr_kill_all(SIGTERM, 1);
                kill_at = now + grace;
            }
        }
        if (kill_at && now >= kill_at) {
            for (int i = 0; i < lr_n; i++) {
                if (lr_ranks[i].pid > 0 && !lr_ranks[i].done) {
                    fprintf(stderr, "lincoll-run: rank %d did not stop within %g s; SIGKILL\n", i,
                            grace);
                }
            }
            lr_kill_all(SIGKILL, 0);
            kill_at = 0;
        }
    }
    for (int i = 0; i < lr_n; i++) {
        lr_stream_t *ss[2] = {&lr_ranks[i].out, &lr_ranks[i].err};
        for (int k = 0; k < 2; k++) {
            if (ss[k]->fd < 0) continue;
            if (ss[k]->len) lr_emit(i, ss[k]->dest, ss[k]->buf, ss[k]->len);
            close(ss[k]->fd);
        }
    }
    lc_store_server_destroy(store);
    int worst = 0;
    for (int i = 0; i < lr_n; i++) {
        if (!lr_ranks[i].stopped && lr_ranks[i].code > worst) worst = lr_ranks[i].code;
    }
    if (exec_failed) worst = LR_EXIT_NOEXEC;
    if (timed_out) worst = LR_EXIT_TIMEOUT;
    free(lr_ranks);
    free(pfds);
    free(pstreams);
    free(pranks);
    return worst;
}
