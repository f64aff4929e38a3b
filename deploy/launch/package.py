# deploy/launch/package.py: Spack recipe for lincoll.
#   spack repo create myrepo && cp package.py myrepo/packages/lincoll/
#   spack install lincoll +pmix +verbs ^ucx +verbs +rc +dc
from spack.package import *


class Lincoll(CMakePackage):
    """Linear collectives (all-to-all encode, RHD collectives, distributed
    matrix multiply) over UCX, with hwloc placement and PMIx bootstrap."""

    homepage = "https://example.org/lincoll"
    git = "https://example.org/lincoll.git"
    maintainers("lincoll")
    license("Apache-2.0")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("pmix", default=True, description="Bootstrap from PMIx (mpirun, srun --mpi=pmix)")
    variant("verbs", default=True, description="Query RDMA devices through libibverbs")
    variant("tests", default=False, description="Build the cmocka test suite")
    variant("perf", default=True, description="Build lincoll_perf and lincoll_info")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("ucx@1.13:")
    depends_on("hwloc@2.5:")
    depends_on("pmix@4:", when="+pmix")
    depends_on("rdma-core", when="+verbs")
    depends_on("cmocka", when="+tests", type="build")

    def cmake_args(self):
        return [
            self.define_from_variant("LINCOLL_WITH_PMIX", "pmix"),
            self.define_from_variant("LINCOLL_WITH_VERBS", "verbs"),
            self.define_from_variant("LINCOLL_BUILD_TESTS", "tests"),
            self.define_from_variant("LINCOLL_BUILD_PERF", "perf"),
        ]

    def setup_run_environment(self, env):
        env.prepend_path("PKG_CONFIG_PATH", self.prefix.lib.pkgconfig)

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_info(self):
        which(join_path(self.prefix.bin, "lincoll_info"))("-t")
