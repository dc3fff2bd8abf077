# SPDX-License-Identifier: BSD-3-Clause
# Spack's builtin kokkos package with the release KokkosDDT is built and tested with. The builtin package of the Spack
# the project tests with (0.23.0.dev0) stops at 4.3.01; this one adds later releases, and makes Kokkos 4.5/4.6 build
# with CUDA 13 (below); otherwise it is the builtin one. Since 4.4 Kokkos publishes release archives
# (releases/download/<v>/kokkos-<v>.tar.gz), whose checksums differ from GitHub's tag archives.
import os

from spack.package import *
from spack.pkg.builtin.kokkos import Kokkos as BuiltinKokkos


class Kokkos(BuiltinKokkos):
    version("4.6.01", sha256="d8a8a5e15331c46b900d3f75d2b62b0b32f067b126a4a75d465224c899765084")

    def url_for_version(self, version):
        if version >= Version("4.4"):
            return f"https://github.com/kokkos/kokkos/releases/download/{version}/kokkos-{version}.tar.gz"
        return super().url_for_version(version)

    def patch(self):
        # CUDA 13 changed the signatures of runtime functions Kokkos 4.5/4.6 calls; upstream fixed it in 4.7. The edit
        # is KokkosDDT's own script (cuda13.cmake links to cmake/KokkosDDT_KokkosCuda13.cmake), the one its in-tree
        # build runs: idempotent, and it keeps the old calls for CUDA 12.
        if self.spec.satisfies("@4.5:4.6 +cuda ^cuda@13:"):
            script = join_path(os.path.dirname(os.path.realpath(__file__)), "cuda13.cmake")
            cmake = Executable(join_path(self.spec["cmake"].prefix.bin, "cmake"))
            cmake(f"-DKOKKOS_SOURCE_DIR={self.stage.source_path}", "-P", script)

    def cmake_args(self):
        args = list(super().cmake_args())  # (the builtin one returns a generator)
        # nvcc_wrapper's default GPU architecture (sm_70) is gone from CUDA 13, so CMake's first checks of the compiler
        # fail unless the flags name one: the build's own.
        if self.spec.satisfies("+cuda+wrapper"):
            arch = self.spec.variants["cuda_arch"].value
            arch = arch if isinstance(arch, str) else arch[0]
            args.append(self.define("CMAKE_CXX_FLAGS", f"-arch=sm_{arch}"))
        return args
