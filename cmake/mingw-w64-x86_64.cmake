# Cross-build for 64-bit Windows with Debian's MinGW-w64 (gcc-mingw-w64-x86-64):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake ...
# The tests run under Wine (Debian's wine64), through CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(ASTAR_MINGW_PREFIX x86_64-w64-mingw32 CACHE STRING "MinGW-w64 tool prefix")
set(CMAKE_C_COMPILER ${ASTAR_MINGW_PREFIX}-gcc)
set(CMAKE_RC_COMPILER ${ASTAR_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${ASTAR_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# -static: the .exe and .dll files need no MinGW DLL (libwinpthread-1.dll, libgcc_s).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static")
# Debian's wine64 puts its loader off PATH (dpkg -L wine64); -DCMAKE_CROSSCOMPILING_EMULATOR=
# names another. Run ctest with WINEDEBUG=-all and no DISPLAY (headless).
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(ASTAR_WINE NAMES wine64 wine PATHS /usr/lib/wine)
  if(ASTAR_WINE)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${ASTAR_WINE})
  endif()
endif()
