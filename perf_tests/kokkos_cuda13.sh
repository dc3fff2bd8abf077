#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes an unpacked Kokkos 4.6.01 source tree compile with CUDA 13, whose runtime API changed signatures that Kokkos
# calls (upstream fixed this in Kokkos 4.7, pull requests #8298 and #8707):
#   - cudaGraphAddDependencies takes per-edge data before the count (nullptr: plain edges, as before);
#   - cudaMemAdvise and cudaMemPrefetchAsync take a cudaMemLocation instead of a device number (the prefetch also a
#     flags word), and cudaMemAdvise_v2 became cudaMemAdvise.
# Each edit keeps the old call under #else, so the tree still builds with CUDA 12. Running it again changes nothing;
# a pattern it cannot find (another Kokkos release) stops it with a non-zero exit rather than leave a half-edited tree.
#
#   bash perf_tests/kokkos_cuda13.sh <kokkos source directory>
set -euo pipefail
src=${1:?usage: kokkos_cuda13.sh <kokkos source directory>}
[ -d "$src/core/src/Cuda" ] || { echo "kokkos_cuda13.sh: no core/src/Cuda under $src" >&2; exit 1; }
python3 - "$src" <<'PY'
import pathlib, sys

src = pathlib.Path(sys.argv[1])
# (file, old text, new text). The new text holds the old under #else, so "new already there" means done.
edits = [
    ("core/src/Cuda/Kokkos_Cuda_Instance.hpp",
     """\
    return cudaGraphAddDependencies(graph, from, to, numDependencies);
""",
     """\
#if CUDART_VERSION >= 13000
    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);
#else
    return cudaGraphAddDependencies(graph, from, to, numDependencies);
#endif
"""),
    # The wrappers keep their int device (callers pass a device number or cudaCpuDeviceId, which meant the host).
    ("core/src/Cuda/Kokkos_Cuda_Instance.hpp",
     """\
    return cudaMemAdvise(devPtr, count, advice, device);
""",
     """\
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost
                                         : cudaMemLocationTypeDevice;
    loc.id   = device;
    return cudaMemAdvise(devPtr, count, advice, loc);
#else
    return cudaMemAdvise(devPtr, count, advice, device);
#endif
"""),
    ("core/src/Cuda/Kokkos_Cuda_Instance.hpp",
     """\
    return cudaMemPrefetchAsync(devPtr, count, dstDevice,
                                get_input_stream(stream));
""",
     """\
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = dstDevice == cudaCpuDeviceId ? cudaMemLocationTypeHost
                                            : cudaMemLocationTypeDevice;
    loc.id   = dstDevice;
    return cudaMemPrefetchAsync(devPtr, count, loc, 0,
                                get_input_stream(stream));
#else
    return cudaMemPrefetchAsync(devPtr, count, dstDevice,
                                get_input_stream(stream));
#endif
"""),
    # Only with Kokkos_ENABLE_IMPL_CUDA_UNIFIED_MEMORY: CUDA 13 renamed cudaMemAdvise_v2 to cudaMemAdvise.
    ("core/src/Cuda/Kokkos_CudaSpace.cpp",
     """\
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise_v2(
""",
     """\
#if CUDART_VERSION >= 13000
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise(
#else
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise_v2(
#endif
"""),
    # Only with KOKKOS_IMPL_DEBUG_CUDA_PIN_UVM_TO_HOST: the host as a cudaMemLocation. One braced statement, as the
    # call is the body of an if without braces.
    ("core/src/Cuda/Kokkos_CudaSpace.cpp",
     """\
      KOKKOS_IMPL_CUDA_SAFE_CALL(
          cudaMemAdvise(ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation,
                        cudaCpuDeviceId));
""",
     """\
#if CUDART_VERSION >= 13000
    {
      cudaMemLocation loc;
      loc.type = cudaMemLocationTypeHost;
      loc.id   = cudaCpuDeviceId;
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise(
          ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation, loc));
    }
#else
      KOKKOS_IMPL_CUDA_SAFE_CALL(
          cudaMemAdvise(ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation,
                        cudaCpuDeviceId));
#endif
"""),
]
texts = {}
for name, old, new in edits:
    path = src / name
    text = texts.get(name, path.read_text())
    if new in text:
        print(f"kokkos_cuda13: {name}: already edited: {old.strip().splitlines()[0]}")
    elif text.count(old) == 1:
        text = text.replace(old, new)
        print(f"kokkos_cuda13: {name}: to edit: {old.strip().splitlines()[0]}")
    else:
        sys.exit(f"kokkos_cuda13: {name}: expected exactly one of\n{old}found {text.count(old)}")
    texts[name] = text
# Written only once every edit has matched, so a failure leaves the tree as it was.
for name, text in texts.items():
    path = src / name
    if path.read_text() != text:
        path.write_text(text)
PY
