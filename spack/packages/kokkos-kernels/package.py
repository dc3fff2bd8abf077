# SPDX-License-Identifier: BSD-3-Clause
# Spack's builtin kokkos-kernels package with the release KokkosDDT's CG example is built and tested with (the
# builtin package of the Spack the project tests with stops at 4.3.01), and one variant: `~eti` builds it without
# explicit instantiations, as KokkosDDT's in-tree build does (header-only use: minutes instead of an hour on a small
# machine). Otherwise it is the builtin package.

from spack.package import *
from spack.pkg.builtin.kokkos_kernels import KokkosKernels as BuiltinKokkosKernels


class KokkosKernels(BuiltinKokkosKernels):
    version("4.7.00", sha256="eec7bf77567e9193830f31e39e4108a095467eb3c50adf53dd36132f653ac4f6")
    depends_on("kokkos@4.6.01:", when="@4.7.00")  # its CMakeLists requires Kokkos 4.6.01 or newer

    variant("eti", default=True, description="Explicit instantiations of the kernels for the ETI variants")

    def url_for_version(self, version):
        if version >= Version("4.4"):
            return (
                "https://github.com/kokkos/kokkos-kernels/releases/download/"
                f"{version}/kokkos-kernels-{version}.tar.gz"
            )
        return super().url_for_version(version)

    def cmake_args(self):
        args = super().cmake_args()
        if self.spec.satisfies("~eti"):
            args = [a for a in args if "KokkosKernels_INST_" not in a]
            args.append(self.define("KokkosKernels_ADD_DEFAULT_ETI", False))
        return args
