// perf/anchors/gloo_allreduce.cc: Gloo's allreduce over its TCP transport on
// 127.0.0.1, float sum, mean time per call (the slowest rank's).
//
//   gloo_run.sh N hd|ring [MAXBYTES [ITERS]]   (starts the N ranks)
//   GLOO_RANK=r GLOO_SIZE=N GLOO_STORE=DIR gloo_allreduce hd|ring MAXBYTES [ITERS]
//     hd = gloo::AllreduceHalvingDoubling, ring = gloo::AllreduceRing.  The
//     ranks meet through a gloo FileStore in DIR (a fresh directory per job)
//     and connect a full mesh; each rank's listening socket takes a port the
//     kernel picks (published through the store), so nothing is fixed.
//     Sizes 8, 32, 128, ... (x4) up to MAXBYTES (suffix k/m/g allowed), as
//     mpi_coll and perf/rhd_sweep.sh; ITERS timed calls per size (default 2000
//     below 64 KiB, 200 below 4 MiB, 40 above) after ITERS/10 + 1 untimed.
//   rank 0 prints one line per size:
//     BYTES AVG_US
//   Every size is checked once before timing (rank r contributes r + 1 +
//   index mod 7, the sums are exact); a mismatch exits 1.
//   Gloo sizes each pair's socket send buffer up to the largest message it
//   has sent, so before the sweep one allreduce of MAXBYTES runs untimed:
//   small sizes are then timed in the steady state, not behind a tiny buffer.
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace {

const char usage[] = "hd|ring MAXBYTES [ITERS]   (env GLOO_RANK, GLOO_SIZE, GLOO_STORE; "
                     "start it with gloo_run.sh)";

double now()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

[[noreturn]] void bad_arg(const char *prog, const char *what, const char *arg)
{
    std::fprintf(stderr, "%s: %s: '%s'\nusage: %s %s\n", prog, what, arg ? arg : "(missing)",
                 prog, usage);
    std::exit(2);
}

unsigned long long parse_size(const char *prog, const char *what, const char *s,
                              unsigned long long lo, unsigned long long hi)
{
    if (s == nullptr || *s < '0' || *s > '9')
        bad_arg(prog, what, s);
    char *end = nullptr;
    unsigned long long v = std::strtoull(s, &end, 10);
    int shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (*end != '\0' || v > (hi >> shift) || (v << shift) < lo)
        bad_arg(prog, what, s);
    return v << shift;
}

float contrib(int rank, long i)
{
    return static_cast<float>(rank + 1 + i % 7);
}

} // namespace

int main(int argc, char **argv)
{
    const char *prog = argv[0];
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: %s %s\n", prog, usage);
        return 2;
    }
    const char *env_rank = std::getenv("GLOO_RANK"), *env_size = std::getenv("GLOO_SIZE");
    const char *store_dir = std::getenv("GLOO_STORE");
    if (env_rank == nullptr || env_size == nullptr || store_dir == nullptr) {
        std::fprintf(stderr, "%s: GLOO_RANK, GLOO_SIZE and GLOO_STORE must be set (gloo_run.sh "
                             "sets them)\n",
                     prog);
        return 2;
    }
    const int P = static_cast<int>(parse_size(prog, "GLOO_SIZE", env_size, 1, 1024));
    const int rank = static_cast<int>(parse_size(prog, "GLOO_RANK", env_rank, 0, 1023));
    if (rank >= P)
        bad_arg(prog, "GLOO_RANK (must be below GLOO_SIZE)", env_rank);
    const bool hd = std::strcmp(argv[1], "hd") == 0;
    if (!hd && std::strcmp(argv[1], "ring") != 0)
        bad_arg(prog, "algorithm (hd or ring)", argv[1]);
    const unsigned long long maxb = parse_size(prog, "MAXBYTES (8 B .. 1 GiB)", argv[2], 8,
                                               1ull << 30);
    const int fixed_iters =
        argc > 3 ? static_cast<int>(parse_size(prog, "ITERS", argv[3], 1, 10000000)) : 0;

    try {
        gloo::transport::tcp::attr attr("127.0.0.1");
        attr.ai_family = AF_INET;
        auto dev = gloo::transport::tcp::CreateDevice(attr);
        gloo::rendezvous::FileStore store(store_dir);
        auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, P);
        ctx->connectFullMesh(store, dev);
        gloo::BarrierAllToAll barrier(ctx);

        std::vector<float> buf(maxb / sizeof(float));
        std::vector<float *> ptrs{buf.data()};
        double t = 0;
        std::vector<double *> tptr{&t};
        gloo::AllreduceRing<float>(ctx, ptrs, static_cast<int>(buf.size())).run();

        for (unsigned long long b = 8; b <= maxb; b *= 4) {
            const int n = static_cast<int>(b / sizeof(float));
            const int iters = fixed_iters ? fixed_iters
                              : b < 65536 ? 2000
                              : b < (4ull << 20) ? 200
                                                 : 40;
            std::unique_ptr<gloo::Algorithm> algo;
            if (hd)
                algo.reset(new gloo::AllreduceHalvingDoubling<float>(ctx, ptrs, n));
            else
                algo.reset(new gloo::AllreduceRing<float>(ctx, ptrs, n));
            for (long i = 0; i < n; i++)
                buf[i] = contrib(rank, i);
            algo->run();
            const float ranks = static_cast<float>(P) * static_cast<float>(P + 1) / 2;
            for (long i = 0; i < n; i++) {
                if (buf[i] != ranks + static_cast<float>(P) * static_cast<float>(i % 7)) {
                    std::fprintf(stderr, "%s: rank %d: %s allreduce of %llu bytes: element %ld "
                                         "is %g, expected %g\n",
                                 prog, rank, argv[1], b, i, buf[i],
                                 ranks + static_cast<float>(P) * static_cast<float>(i % 7));
                    return 1;
                }
            }
            for (int i = 0; i < iters / 10 + 1; i++)
                algo->run();
            barrier.run();
            const double t0 = now();
            for (int i = 0; i < iters; i++)
                algo->run();
            t = (now() - t0) / iters;
            gloo::AllreduceRing<double>(ctx, tptr, 1, gloo::ReductionFunction<double>::max).run();
            if (rank == 0) {
                std::printf("%llu %.2f\n", b, t * 1e6);
                std::fflush(stdout);
            }
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: rank %d: gloo: %s\n", prog, rank, e.what());
        return 1;
    }
    return 0;
}
