# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe for KokkosDDT. Use it with `spack repo add <KokkosDDT>/spack` and `spack install kokkos-ddt`; the same
# repository carries kokkos and kokkos-kernels packages that add the releases the project is tested with to Spack's
# builtin ones. spack/test/install.sh runs `spack install --test=root` with this recipe, offline.
# Conventions follow spack's cabana and kokkos-fft packages: the Kokkos backends and cuda_arch of the build are
# requested from the kokkos dependency, and every CMake option of the project is a variant.

import os

from spack.package import *


class KokkosDdt(CMakePackage, CudaPackage):
    """MPI derived datatypes on Kokkos: pack and unpack noncontiguous data on GPUs and CPUs from one code."""

    homepage = "https://github.com/kokkosddt/kokkos-ddt"
    git = "https://github.com/kokkosddt/kokkos-ddt.git"
    url = "https://github.com/kokkosddt/kokkos-ddt/archive/refs/tags/v0.1.0.tar.gz"

    maintainers("kokkosddt")
    license("BSD-3-Clause")

    # No release yet: `main`, or a source archive of a commit installed as its CMake version with --no-checksum
    # (what spack/test/install.sh does with `git archive`).
    version("main", branch="main")

    variant("openmp", default=True, description="Build and test for Kokkos' OpenMP backend")
    variant("serial", default=True, description="Build and test for Kokkos' Serial backend")
    variant("mpi", default=True, description="MPI_Datatype import/export and the MPI_Pack reference tests")
    variant("tests", default=False, description="Build the Catch2 unit tests (also built under `--test`)")
    variant("perf_tests", default=False, description="Build the benchmarks")
    variant("examples", default=False, description="Build the examples")
    variant(
        "kernels",
        default=False,
        description="Build the examples and benchmarks that use Kokkos Kernels (distributed CG: cg_poisson, cg_bench)",
    )
    variant("cxxstd", default="17", values=("17", "20"), multi=False, description="C++ standard")
    variant(
        "eti",
        default=True,
        description="Compile the engine once per backend in the libraries (explicit instantiation); ~eti: header-only "
        "templates, every translation unit instantiates what it uses",
    )

    # The transports beyond MPI (mpi/transports/<name>/transport.cmake: one option each), in CUDA builds.
    variant("nccl", default=True, when="+cuda+mpi", description="The NCCL transport, where NCCL is found (NCCL_ROOT)")
    variant("peer", default=True, when="+cuda+mpi", description="The CUDA-IPC peer transport and auto's routes")

    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("kokkos@4.5:")
    depends_on("mpi", when="+mpi")
    depends_on("catch2@2.13:", type="build", when="+tests")
    depends_on("catch2@2.13:", type="test")  # `spack install --test=root` builds and runs the tests
    depends_on("kokkos-kernels@4.5:", when="+kernels")
    conflicts("+kernels", when="~mpi", msg="the Kokkos Kernels examples are MPI programs")
    conflicts("+kernels", when="~examples~perf_tests", msg="+kernels builds examples or benchmarks: add +examples")

    # Propagate the backends and the GPU architecture to Kokkos.
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+serial", when="+serial")
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    for _std in ("17", "20"):
        depends_on(f"kokkos cxxstd={_std}", when=f"cxxstd={_std}")
    # Kokkos Kernels must be built on the same Kokkos (spack unifies the kokkos dependency of both), for the same
    # backends.
    for _backend in ("openmp", "serial", "cuda"):
        depends_on(f"kokkos-kernels+{_backend}", when=f"+kernels+{_backend}")

    conflicts("+cuda", when="cuda_arch=none", msg="KokkosDDT+cuda needs a cuda_arch")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define_from_variant("KokkosDDT_ENABLE_MPI", "mpi"),
            self.define("KokkosDDT_ENABLE_TESTS", spec.satisfies("+tests") or self.run_tests),
            self.define_from_variant("KokkosDDT_ENABLE_PERF_TESTS", "perf_tests"),
            self.define_from_variant("KokkosDDT_ENABLE_EXAMPLES", "examples"),
            self.define_from_variant("CMAKE_CXX_STANDARD", "cxxstd"),
            self.define("KokkosDDT_ENABLE_INTERNAL_KOKKOS", False),
            # Spack provides every dependency: the build must never fetch one (it would on a missing Kokkos).
            self.define("FETCHCONTENT_FULLY_DISCONNECTED", True),
            self.define_from_variant("KokkosDDT_ENABLE_KOKKOS_KERNELS", "kernels"),
            self.define_from_variant("KokkosDDT_ENABLE_ETI", "eti"),
        ]
        if spec.satisfies("+cuda+mpi"):  # (the transports' variants exist there)
            args.append(self.define_from_variant("KokkosDDT_ENABLE_NCCL", "nccl"))
            args.append(self.define_from_variant("KokkosDDT_ENABLE_PEER", "peer"))
        if self.run_tests and spec.satisfies("^openmpi") and os.geteuid() == 0:
            # The multi-rank tests as root (containers, CI machines): Open MPI's mpiexec refuses unless told.
            args.append(self.define("KokkosDDT_MPIEXEC_PREFLAGS", "--oversubscribe --allow-run-as-root"))
        if spec.satisfies("+kernels"):
            args.append(self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix))
        if spec.satisfies("+cuda"):
            # Kokkos' compiler wrapper, as the kokkos package installs it, for the build's GPU: the wrapper's own
            # default architecture (sm_70) is gone from CUDA 13, and CMake's first compiler checks would fail on it.
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
            arch = spec.variants["cuda_arch"].value
            args.append(self.define("CMAKE_CXX_FLAGS", f"-arch=sm_{arch if isinstance(arch, str) else arch[0]}"))
        return args
