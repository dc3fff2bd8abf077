# SPDX-License-Identifier: BSD-3-Clause
# Spack's builtin kokkos-nvcc-wrapper package (Kokkos' nvcc_wrapper, which kokkos+cuda+wrapper compiles with) with the
# Kokkos release KokkosDDT is tested with: the builtin one stops at 4.3.01, and a wrapper of the same release as Kokkos
# comes from the same archive (so an offline mirror needs only that one).
from spack.package import *
from spack.pkg.builtin.kokkos_nvcc_wrapper import KokkosNvccWrapper as BuiltinKokkosNvccWrapper


class KokkosNvccWrapper(BuiltinKokkosNvccWrapper):
    version("4.6.01", sha256="d8a8a5e15331c46b900d3f75d2b62b0b32f067b126a4a75d465224c899765084")

    def url_for_version(self, version):
        if version >= Version("4.4"):
            return f"https://github.com/kokkos/kokkos/releases/download/{version}/kokkos-{version}.tar.gz"
        return super().url_for_version(version)
