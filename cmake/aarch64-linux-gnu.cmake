# Cross-compiling goheap for arm64 Linux on an amd64 Debian machine
# (scripts/build-release.sh): Debian's g++-aarch64-linux-gnu, and the arm64
# -dev libraries installed beside the amd64 ones (dpkg's arm64 architecture,
# scripts/install-deps.sh --release). The headers in /usr/include are shared
# by both; libraries and pkg-config files are found in the aarch64-linux-gnu
# folders. qemu-aarch64-static runs what the build runs of goheap itself
# (its man page and completion).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# Boost's Beast and Asio are headers only: the amd64 package's CMake files
# name the shared /usr/include.
if(NOT Boost_DIR)
  file(GLOB boost_dirs /usr/lib/x86_64-linux-gnu/cmake/Boost-*)
  if(boost_dirs)
    list(GET boost_dirs 0 Boost_DIR)
    set(Boost_DIR ${Boost_DIR} CACHE PATH "Boost's CMake files (headers only)")
  endif()
endif()
