# SPDX-License-Identifier: BSD-3-Clause
# Spack's builtin kokkos package with the release KokkosDDT is built and tested with. The builtin package of the Spack
# the project tests with (0.23.0.dev0) stops at 4.3.01; this one adds later releases and otherwise is the builtin one.
# Since 4.4 Kokkos publishes release archives (releases/download/<v>/kokkos-<v>.tar.gz), whose checksums differ from
# GitHub's tag archives.

from spack.package import *
from spack.pkg.builtin.kokkos import Kokkos as BuiltinKokkos


class Kokkos(BuiltinKokkos):
    version("4.6.01", sha256="d8a8a5e15331c46b900d3f75d2b62b0b32f067b126a4a75d465224c899765084")

    def url_for_version(self, version):
        if version >= Version("4.4"):
            return f"https://github.com/kokkos/kokkos/releases/download/{version}/kokkos-{version}.tar.gz"
        return super().url_for_version(version)
